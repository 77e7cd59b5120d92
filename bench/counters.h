/* Hardware counters through PAPI. For now: whether they can be used here,
 * and PAPI's own reason when they cannot. Never a 0 in place of a count. */
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

#endif
