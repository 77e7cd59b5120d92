/* A team of pinned threads that run one job at a time between two
 * barriers. The calling thread is member 0, so a team of T threads uses T
 * cores and no thread waits idle on a core that computes. */
#ifndef ROOFBENCH_POOL_H
#define ROOFBENCH_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "pin.h"

typedef void (*pool_job)(void *arg, int tid, int nthreads);

/* A barrier for threads that meet while they are timed: the start and
 * the end of a pool job's clock, and a team kernel's rb_team barrier
 * inside the job. The last to
 * arrive advances a generation that the others watch, spinning (a pause
 * a turn) for POOL_SPINS turns and then giving up the core at every turn,
 * so that a thread that shares its core still gets to arrive. A pthread
 * barrier puts the early ones to sleep instead, and in a guest the wake-up
 * of a sleeping vCPU is an interrupt to another core that landed inside
 * every timed call: a team of two met twice in each call of the blocked
 * matmul's packed path, and 192 x 192 x 192 f32 ran at 170 GFLOP/s on
 * two cores of a Zen 5 guest with pthread barriers against 215 to 221
 * with this one (256^3 195 against 227 to 231, 512^3 290 against 300). */
enum { POOL_SPINS = 1 << 12 };
typedef struct {
    _Atomic unsigned arrived, generation;
    unsigned n;
} pool_barrier;

/* n members, at least 1 */
void pool_barrier_init(pool_barrier *b, unsigned n);

/* Returns once all n members have called it, in this round; the writes
 * each made before it are then visible to all. */
void pool_barrier_wait(pool_barrier *b);

typedef struct pool pool;

/* Starts plan->nthreads - 1 workers, each bound to its PU and checked, and
 * binds the caller to plan->pu[0]. */
int pool_create(hwloc_topology_t topo, const pin_plan *plan, pool **out,
                rb_err *e);

/* Runs job on every member and returns when all have finished. The time
 * from the moment every member is awake and ready to start (a spinning
 * meeting after the sleeping start barrier) to the moment every member
 * has reached the end barrier is returned in seconds: the slowest thread
 * sets it. */
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
