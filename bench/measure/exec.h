/* How the harness makes a row's calls, chosen once per row: by a team of
 * pinned threads (the harness splits the work, or a team kernel divides it
 * itself), or by a library that runs its own threads (OpenBLAS: the
 * calling thread is bound to every PU of the row and the library is given
 * that many threads). Private to the measure layer. */
#ifndef ROOFBENCH_EXEC_H
#define ROOFBENCH_EXEC_H

#include <pthread.h>

#include "counters.h"
#include "kernel.h"
#include "pin.h"
#include "pool.h"

/* One operation, dtype and thread count: the operands, and what the
 * current row calls. */
typedef struct {
    rb_op op;
    rb_shape s;
    rb_dtype dt;
    size_t elsize;
    uint64_t seed;
    void *a, *b, *c;
    const rb_kernel *kernel;
    uint64_t reps; /* calls per timed sample            */
    /* team kernels: one rb_team per member, their barrier, workspace */
    rb_team *teams;
    size_t shared_bytes, own_bytes; /* their workspace's sizes        */
    pool_barrier barrier;
    /* theirs while counted: waiting members then sleep, uncounted */
    pthread_barrier_t counted_barrier;
    /* the counted sample: the events, and per thread sums and errors */
    counters_events *events;
    long long (*ctr_sum)[COUNTERS_MAX];
    int *ctr_rc;
    rb_err *ctr_err;
} exec_ctx;

typedef struct {
    hwloc_topology_t topo;
    const pin_plan *pins;
    pool *team;
    exec_ctx *ctx;
} exec_env;

typedef struct {
    /* Before the first call: workspace, or the caller's binding and the
     * library's threads (*library_threads, else 0). */
    int (*begin)(exec_env *x, int *library_threads, rb_err *e);
    /* Seconds for ctx->reps calls over the whole problem. */
    double (*time)(exec_env *x);
    /* Partial sums a dot call leaves, one per cache line. */
    int (*parts)(const exec_env *x);
    /* The binding the calls ran with, PUs per thread, ';' between. */
    void (*binding)(const exec_env *x, char *buf, size_t len);
    /* One sample with the counters running where the calls run: returns
     * the number of threads counted into sums (errors in rcs and errs),
     * and a note when that is fewer than the row's threads. */
    int (*count)(exec_env *x, long long (*sums)[COUNTERS_MAX], int *rcs,
                 rb_err *errs, char *note, size_t notelen);
    /* After the last call: releases what begin took; keeps rc when it is
     * an error, else returns its own result. */
    int (*end)(exec_env *x, int rc, rb_err *e);
} executor;

const executor *exec_for(const rb_kernel *k);

/* Dot's partial sums sit one cache line apart so threads never share one. */
enum { EXEC_PARTIAL_STRIDE = 64 };

#endif
