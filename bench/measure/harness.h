/* The one measurement path. Every subcommand builds a plan and hands it
 * here: allocate, first-touch and fill with random data, compute the
 * reference, verify, warm up, calibrate, time the samples, verify again. */
#ifndef ROOFBENCH_HARNESS_H
#define ROOFBENCH_HARNESS_H

#include <hwloc.h>
#include <stdint.h>

#include "ceiling.h"
#include "counters.h"
#include "error.h"
#include "kernel.h"
#include "ref.h"
#include "stats.h"

enum { HARNESS_MAX_KERNELS = 64, HARNESS_MAX_THREADS = 16 };

typedef struct {
    const rb_kernel *kernels[HARNESS_MAX_KERNELS];
    size_t nkernels;
    rb_dtype dtypes[RB_NDTYPES];
    int ndtypes;
    int threads[HARNESS_MAX_THREADS];
    int nthreads;
    rb_shape shape[RB_NOPS];         /* the problem each operation runs   */
    char shape_source[RB_NOPS][128]; /* e.g. "--n 512", for error lines   */
    double min_time;                 /* seconds a sample must last        */
    int samples;                     /* timed samples per row             */
    uint64_t seed;                   /* of the random inputs              */
    size_t verify_rows;              /* 0: every output row is checked;
                                        k: k rows spread evenly, for a
                                        problem whose full reference would
                                        take minutes (the ceilings' GEMM) */
    unsigned fmastream;              /* bit op (rb_op): the streaming FMA
                                        probe around every row of that
                                        operation (harness_row)          */
    counters_events *events;         /* hardware counters to read in one
                                        more sample after the timed ones,
                                        started and stopped on every
                                        thread right around its calls and
                                        summed; NULL: none                */
} harness_plan;

typedef struct {
    const rb_kernel *kernel;
    rb_dtype dtype;
    rb_shape shape;
    int threads;
    int library_threads; /* threads the library was given; 0 */
    char binding[1024];  /* PUs per thread, ';' between them  */
    rb_counts counts;
    uint64_t reps; /* calls per sample                  */
    int nsamples;
    double *samples;    /* seconds per call, one per sample  */
    stats_summary time; /* of samples                        */
    ref_result check_before, check_after;
    /* the team's clock just before calibration and just after the last
     * timed sample (GHz, the best of five 1 ms chains on every thread;
     * drift.h), each with its spread (best over median minus 1): a row
     * whose clock moved beyond that noise was timed on a changing
     * machine */
    double ghz_before, ghz_after, ghz_spread_before, ghz_spread_after;
    /* the team's vector FMA rate just before calibration and just after
     * the last timed sample (GFLOP/s: ceilings_peak_now, the roofline's
     * peak kernel, the best of five half milliseconds; 0: none runs):
     * what the core lent the row then, which a shared host moves by a
     * third within seconds while the clock stays */
    double peak_before, peak_after;
    /* the read bandwidth the team got from the row's largest input
     * operand just before calibration and just after the last timed
     * sample (GB/s: ceilings_read_now, the best of three; 0: not
     * measured), and the bytes a pass read: what the row's memory level
     * gave it then, which a shared host moves by a factor within minutes */
    double read_before, read_after;
    size_t read_bytes;
    /* with the row's operation in plan->fmastream: the streaming FMA
     * probe over the same operand
     * just before calibration and just after the last timed sample
     * (GFLOP/s: ceilings_fmastream_now, 0: not measured), with the row's
     * FMAs per element of that operand (harness_fmas_per_element) and the
     * bytes a run streamed: what this host delivered then to a kernel of
     * the row's arithmetic per element of its largest operand and nothing
     * else */
    double fmastream_before, fmastream_after;
    unsigned fmastream_fmas;
    size_t fmastream_bytes;
    /* counters (plan->events with a usable event): the counted sample's
     * sums over threads, per event index, for counted_reps calls */
    const counters_events *events;
    int counted;
    uint64_t counted_reps;
    long long ctr_counts[COUNTERS_MAX];
    char counted_note[256]; /* a failed self-check or a limit    */
} harness_row;

/* Called after each finished row has joined the result, under
 * interrupt_lock(): what it changes, a rescue may read. */
typedef void (*harness_row_cb)(const harness_row *row, void *ctx);

typedef struct {
    harness_row *rows;
    size_t nrows, cap;
    int interrupted; /* stopped by a signal               */
} harness_result;

/* Checks, before anything is allocated, that every problem's counts fit in
 * 64 bits, that its memory (operands, the reference's inputs and results)
 * fits in the memory available now, and that dimensions passed to OpenBLAS
 * fit its 32-bit indices. */
int harness_check_plan(const harness_plan *plan, uint64_t mem_available,
                       rb_err *e);

/* Bytes one problem needs at its peak, its reference holding verify_rows
 * rows (0: all). Returns 0, or -1 on overflow. */
int harness_problem_bytes(rb_op op, rb_shape s, rb_dtype dt, int threads,
                          size_t verify_rows, uint64_t *bytes);

/* Runs the plan into res (which the caller zeroes first), calling cb
 * after each finished row. Stops between steps when interrupt_requested(),
 * dropping the unfinished row, with res->interrupted set. Returns RB_OK
 * (also when interrupted), RB_EMEASURE when a kernel fails verification,
 * or RB_EINPUT when the environment refuses (binding, memory). */
int harness_run(hwloc_topology_t topo, const harness_plan *plan,
                harness_result *res, harness_row_cb cb, void *ctx, rb_err *e);

void harness_result_free(harness_result *res);

/* harness_problem_bytes for kernel k, its workspace (a team kernel's
 * shared and per-member buffers) included. */
int harness_kernel_bytes(const rb_kernel *k, rb_shape s, rb_dtype dt,
                         int threads, size_t verify_rows, uint64_t *bytes);

/* The value of element idx of operand `which` (0 a, 1 b) for a seed,
 * uniform in [-1, 1) and already rounded to dt, so that kernels and
 * references see the same numbers. Never a fixed pattern, never all zero. */
double harness_value(uint64_t seed, int which, uint64_t idx, rb_dtype dt);

/* Elements [lo, hi) of that operand into dst[0, hi - lo), in dt: what
 * harness_value gives, element for element, however the CPU computes it. */
void harness_fill(void *dst, rb_dtype dt, uint64_t seed, int which, uint64_t lo,
                  uint64_t hi);

/* The operands of thread tid's share of a problem (see rb_operands). */
void harness_slice(rb_op op, rb_shape s, size_t elsize, void *a, void *b,
                   void *c, int tid, int nthreads, rb_operands *x);

/* A problem's FMAs per element of its largest input operand, rounded,
 * at least 1: FLOPs / 2 over that operand's elements (B for [B,P] x
 * [P,M] with M >= B: every weight is used once per row of A). 0 when the
 * counts cannot be formed. */
unsigned harness_fmas_per_element(rb_op op, rb_shape s);

/* Best GFLOP/s of a row: analytic FLOPs over the minimum time. */
double harness_row_gflops(const harness_row *row);

#endif
