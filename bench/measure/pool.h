/* A team of pinned threads that run one job at a time between two
 * barriers. The calling thread is member 0, so a team of T threads uses T
 * cores and no thread waits idle on a core that computes. */
#ifndef ROOFBENCH_POOL_H
#define ROOFBENCH_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "pin.h"

typedef void (*pool_job)(void *arg, int tid, int nthreads);

/* A barrier for threads that meet while they are timed: a team kernel's
 * rb_team barrier, inside a pool job. The last to arrive advances a
 * generation that the others watch, spinning (a pause a turn) for
 * POOL_SPINS turns, then asleep on it (a futex) until it moves. A pthread
 * barrier sleeps at once, and in a guest the wake-up of a sleeping vCPU
 * is an interrupt to another core that landed inside every timed call: a
 * team of two meets twice in each call of the blocked matmul's packed
 * path, and in `roofbench run` on two cores of a Zen 5 guest, alternated
 * with the pthread build, 192^3 f32 ran at 212 to 241 GFLOP/s against 156
 * to 181, 256^3 at 220 to 251 against 218 to 227. The spin is short (1024
 * pauses: some 20 us on Zen, 40 on recent Intel cores) because a spinning
 * guest core may be taking a host core's resources from its partner, if
 * the two are one core's two hardware threads there. With the end of
 * every pool job spinning as well, the streaming probe (f32 B = 12, two
 * threads) measured lower in five of six alternated pairs, but that
 * build always ran second, and later two builds that differ in nothing
 * the probe runs drew 0.82 to 0.94 run second and 0.96 to 1.02 run
 * first: the order, most likely. Nothing needed the pool's own start and
 * end barriers to spin, so they still sleep. */
enum { POOL_SPINS = 1 << 10 };
typedef struct {
    _Atomic unsigned arrived, generation, sleepers;
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
