/* The batch sweep's measurement: for each weight level, dtype, thread
 * count and batch size B, the harness verifies and times every kernel on
 * [B,P] x [P,M] (and the contrast bp,bpm->bm, every row its own [P,M]
 * matrix, while its working set fits the budget). One harness run a
 * point, so each point is verified on its own random data. The grid runs
 * `rounds` times, one round after the other, and each point's samples are
 * pooled over its rounds: on a shared machine a slow spell (another
 * tenant, seconds to minutes long) would otherwise own every sample of
 * the points it falls on, since a point's samples are taken within a
 * fraction of a second (Google Benchmark's repetitions with random
 * interleaving answer the same noise). */
#ifndef ROOFBENCH_SWEEPRUN_H
#define ROOFBENCH_SWEEPRUN_H

#include <hwloc.h>
#include <stdint.h>

#include "harness.h"
#include "roofline.h"
#include "sweep.h"

enum { SWEEP_MAX_LEVELS = 4, SWEEP_MAX_KERNELS = 8 };

/* Where the weights sit: a level name ("L2", "DRAM") or "given" (--p and
 * --m), with P and M per dtype and thread count (the same side fills a
 * level differently per element size and per team), and the contrast's
 * own P = M where it differs (0: the same P and M; sweep_contrast_side:
 * beside DRAM weights, so that its batch of matrices fits the budget up
 * to the largest B). */
typedef struct {
    char name[16];
    uint64_t p[RB_NDTYPES][HARNESS_MAX_THREADS];
    uint64_t m[RB_NDTYPES][HARNESS_MAX_THREADS];
    uint64_t contrast[RB_NDTYPES][HARNESS_MAX_THREADS];
} sweep_weights;

typedef struct {
    const rb_kernel *kernels[SWEEP_MAX_KERNELS]; /* matmul and batched */
    size_t nkernels;
    rb_dtype dtypes[RB_NDTYPES];
    int ndtypes;
    int threads[HARNESS_MAX_THREADS];
    int nthreads;
    uint64_t batch[SWEEP_MAX_POINTS];
    size_t nbatch;
    sweep_weights levels[SWEEP_MAX_LEVELS];
    int nlevels;
    double min_time;
    int samples; /* per point and round                        */
    int rounds;  /* times the whole grid runs, at least 1       */
    uint64_t seed;
    size_t verify_rows;      /* output rows checked per point            */
    uint64_t batched_budget; /* bytes the contrast may use at one point  */
} sweep_plan;

/* One measured row at a point: its samples pooled over the rounds, the
 * row's other fields (calls per sample, binding, clock) from the round
 * that timed the best sample. */
typedef struct {
    int level;  /* index into plan->levels */
    uint64_t b; /* the batch size          */
    harness_row row;
    int *round; /* the round of each of row.samples, from 0 */
} sweep_point;

typedef struct {
    sweep_point *points;
    size_t npoints, cap;
    /* the contrast's points left out for the budget: its largest B run
     * per level, dtype and thread count is what the result shows */
    size_t skipped_batched;
    int interrupted;
} sweep_result;

/* Checks every point before anything runs: counts fit, the matmul points'
 * memory fits mem_available (the largest B decides), BLAS indices fit. */
int sweep_check_plan(const sweep_plan *plan, uint64_t mem_available, rb_err *e);

/* Runs the plan's rounds into res (zeroed by the caller); the roofline, when
 * given, makes the progress line's estimate of the time left. Stops
 * between points on an interrupt with res->interrupted set. Returns
 * RB_OK, RB_EMEASURE (a kernel failed verification) or RB_EINPUT. */
int sweep_run(hwloc_topology_t topo, const sweep_plan *plan,
              const roofline *roof, sweep_result *res, rb_err *e);

void sweep_result_free(sweep_result *res);

#endif
