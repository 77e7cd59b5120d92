/* A team of pinned threads that run one job at a time between two
 * barriers. The calling thread is member 0, so a team of T threads uses T
 * cores and no thread waits idle on a core that computes. */
#ifndef ROOFBENCH_POOL_H
#define ROOFBENCH_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "pin.h"

typedef void (*pool_job)(void *arg, int tid, int nthreads);

typedef struct pool pool;

/* Starts plan->nthreads - 1 workers, each bound to its PU and checked, and
 * binds the caller to plan->pu[0]. */
int pool_create(hwloc_topology_t topo, const pin_plan *plan, pool **out,
                rb_err *e);

/* Runs job on every member and returns when all have finished. The time
 * from the moment the caller passes the start barrier to the moment every
 * member has reached the end barrier is returned in seconds: the slowest
 * thread sets it. */
double pool_run(pool *p, pool_job job, void *arg);

/* The binding each member reported after it was bound, as PU lists. */
const char *pool_binding(const pool *p, int tid);

/* Stops the workers; the caller keeps its binding. */
void pool_destroy(pool *p);

/* The clock job (pool_run(team, pool_job_clock, &c)): every member runs
 * rb_clock_chain(c.iters), 64 dependent adds per iteration, one cycle
 * each, and leaves its sum (64 x iters when it ran whole) in
 * c.sums[tid]; 64 x iters / seconds is the clock. */
enum { POOL_CLOCK_MAX = 64 };
typedef struct {
    uint64_t iters;
    uint64_t sums[POOL_CLOCK_MAX];
} pool_clock;
void pool_job_clock(void *arg, int tid, int nthreads);

/* A team of nthreads: the plan (pin_plan_make) and the pool
 * (pool_create) together; on a failure nothing is left. */
int pool_open(hwloc_topology_t topo, int nthreads, pin_plan *pins,
              pool **team, rb_err *e);

/* Stops the team, frees its plan and unbinds the caller; returns rc when
 * it is already an error, else the unbinding's result. */
int pool_close(hwloc_topology_t topo, pool *team, pin_plan *pins, int rc,
               rb_err *e);

#endif
