/* Hardware counters through PAPI: whether they can be used here (and
 * PAPI's own reason when they cannot), events resolved by name one by one,
 * and per-thread event sets started and stopped around a measured region.
 * Never a 0 in place of a count: an event that cannot be counted is
 * reported unavailable with PAPI's error text. */
#ifndef ROOFBENCH_COUNTERS_H
#define ROOFBENCH_COUNTERS_H

#include <jansson.h>

typedef struct {
    char papi_version[32];
    int library_ok;       /* PAPI_library_init succeeded                   */
    int ncounters;        /* hardware counters of the CPU component        */
    int usable;           /* an event could be added, started and stopped  */
    char component[128];  /* the CPU component, e.g. perf_event            */
    char event[128];      /* the event that was tried                      */
    char reason[512];     /* why not usable, in PAPI's words               */
} counters_status;

/* Initialises PAPI and tries to count one cycle event for real. */
void counters_probe(counters_status *st);

json_t *counters_json(const counters_status *st);

#include "error.h"

enum { COUNTERS_MAX = 16 };

/* What an event measures, so rows can turn counts into figures. */
typedef enum {
    CE_OTHER = 0,
    CE_CYCLES,
    CE_INSTRUCTIONS,
    CE_L1D_MISSES,
    CE_L2_MISSES,
    CE_L3_MISSES,
    CE_FLOPS
} counter_kind;

typedef struct {
    int n;
    char name[COUNTERS_MAX][128];
    int code[COUNTERS_MAX];
    counter_kind kind[COUNTERS_MAX];
    int usable[COUNTERS_MAX];          /* could join an event set here  */
    char reason[COUNTERS_MAX][256];    /* PAPI's words when not         */
    int nusable;
} counters_events;

/* The default events for this CPU vendor ("AuthenticAMD", "GenuineIntel"):
 * cycles, instructions, L1 data misses, L2 and L3 misses and the FLOP
 * preset where PAPI has one (on Zen PAPI_FP_OPS, backed by
 * RETIRED_SSE_AVX_FLOPS; on Intel PAPI_DP_OPS / PAPI_SP_OPS from FP_ARITH,
 * which count an FMA as 2). */
const char *counters_default_events(const char *vendor, int f64);

/* Resolves a comma-separated list of preset (PAPI_*) and native names,
 * under every flag's list rule (parse_list: no empty item, none twice).
 * A name PAPI does not know is an error naming it (RB_EINPUT). Each known
 * event is then added, one by one, to a test event set on the calling
 * thread: one that cannot be added or started is kept as unavailable, with
 * PAPI's reason, and the others go on. */
int counters_resolve(const char *list, counters_events *ev, rb_err *e);

/* A thread's event set over the usable events. */
typedef struct {
    int set;
    int slot[COUNTERS_MAX]; /* position in the set, -1 when not in it   */
    int nin;
} counters_thread;

/* Registers the calling thread with PAPI and builds its event set. An
 * event that joined the test set but not this one is marked unavailable. */
int counters_thread_open(counters_events *ev, counters_thread *t, rb_err *e);
int counters_thread_start(counters_thread *t, rb_err *e);
/* Stops and adds this thread's counts into sum[i] (per event index). */
int counters_thread_stop(counters_thread *t, const counters_events *ev,
                         long long *sum, rb_err *e);
void counters_thread_close(counters_thread *t);

#endif
