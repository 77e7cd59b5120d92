#include "pool.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ceiling.h"
#include "timer.h"

void pool_barrier_init(pool_barrier *b, unsigned n)
{
    atomic_init(&b->arrived, 0);
    atomic_init(&b->generation, 0);
    atomic_init(&b->sleepers, 0);
    b->n = n > 0 ? n : 1;
}

void pool_barrier_wait(pool_barrier *b)
{
    const unsigned gen = atomic_load(&b->generation);
    /* the last one to arrive reads every earlier arrival's writes, and
     * publishes them with its own when it moves the generation */
    if (atomic_fetch_add(&b->arrived, 1) + 1 == b->n) {
        /* no one arrives again before the generation moves */
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add(&b->generation, 1);
        /* sequentially consistent with a sleeper's count: either this
         * sees it, or its futex sees the generation moved */
        if (atomic_load(&b->sleepers) > 0)
            syscall(SYS_futex, &b->generation, FUTEX_WAKE_PRIVATE, INT_MAX,
                    NULL, NULL, 0);
        return;
    }
    for (unsigned turn = 0; atomic_load(&b->generation) == gen; turn++) {
        if (turn < POOL_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        atomic_fetch_add(&b->sleepers, 1);
        /* returns at once if the generation has already moved */
        syscall(SYS_futex, &b->generation, FUTEX_WAIT_PRIVATE, gen, NULL,
                NULL, 0);
        atomic_fetch_sub(&b->sleepers, 1);
    }
}

typedef struct {
    pool *p;
    int tid;
    pthread_t thread;
    char binding[64];
} member;

struct pool {
    hwloc_topology_t topo;
    const pin_plan *plan;
    int nthreads;
    pthread_barrier_t start, end;
    pool_job job;
    void *arg;
    int quit;
    int bind_failed;
    rb_err bind_err;
    pthread_mutex_t lock;
    pthread_cond_t go_cond;
    int go; /* 0 wait, 1 all workers started, -1 start-up abandoned */
    member *members;
};

static void *worker_main(void *vm)
{
    member *m = vm;
    pool *p = m->p;
    rb_err e;
    pthread_mutex_lock(&p->lock);
    while (p->go == 0)
        pthread_cond_wait(&p->go_cond, &p->lock);
    const int go = p->go;
    pthread_mutex_unlock(&p->lock);
    if (go < 0)
        return NULL;
    if (pin_bind_self(p->topo, p->plan->pu[m->tid], &e) != RB_OK) {
        pthread_mutex_lock(&p->lock);
        p->bind_failed = 1;
        p->bind_err = e;
        pthread_mutex_unlock(&p->lock);
    }
    pin_self_string(p->topo, m->binding, sizeof(m->binding));
    /* The first barrier tells the creator that binding is done. */
    pthread_barrier_wait(&p->end);
    for (;;) {
        pthread_barrier_wait(&p->start);
        if (p->quit)
            break;
        p->job(p->arg, m->tid, p->nthreads);
        pthread_barrier_wait(&p->end);
    }
    return NULL;
}

static void pool_free(pool *p)
{
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->end);
    pthread_cond_destroy(&p->go_cond);
    pthread_mutex_destroy(&p->lock);
    free(p->members);
    free(p);
}

int pool_create(hwloc_topology_t topo, const pin_plan *plan, pool **out,
                rb_err *e)
{
    pool *p = calloc(1, sizeof(*p));
    if (!p)
        return rb_fail(e, RB_EINPUT, "out of memory creating threads");
    p->topo = topo;
    p->plan = plan;
    p->nthreads = plan->nthreads;
    p->members = calloc((size_t)p->nthreads, sizeof(*p->members));
    if (!p->members) {
        free(p);
        return rb_fail(e, RB_EINPUT, "out of memory creating threads");
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go_cond, NULL);
    pthread_barrier_init(&p->start, NULL, (unsigned)p->nthreads);
    pthread_barrier_init(&p->end, NULL, (unsigned)p->nthreads);

    int rc = pin_bind_self(topo, plan->pu[0], e);
    pin_self_string(topo, p->members[0].binding,
                    sizeof(p->members[0].binding));
    int started = 1;
    for (; rc == RB_OK && started < p->nthreads; started++) {
        member *m = &p->members[started];
        m->p = p;
        m->tid = started;
        if (pthread_create(&m->thread, NULL, worker_main, m) != 0) {
            rc = rb_fail(e, RB_EINPUT, "cannot start worker thread %d",
                         started);
            break;
        }
    }
    /* Workers wait for the word before touching a barrier, so that a
     * start-up that fails half-way can still send them home. */
    pthread_mutex_lock(&p->lock);
    p->go = rc == RB_OK ? 1 : -1;
    pthread_cond_broadcast(&p->go_cond);
    pthread_mutex_unlock(&p->lock);
    if (rc != RB_OK) {
        for (int t = 1; t < started; t++)
            pthread_join(p->members[t].thread, NULL);
        pool_free(p);
        return rc;
    }
    pthread_barrier_wait(&p->end);
    if (p->bind_failed) {
        *e = p->bind_err;
        rc = RB_EINPUT;
        pool_destroy(p);
        return rc;
    }
    *out = p;
    return RB_OK;
}

double pool_run(pool *p, pool_job job, void *arg)
{
    p->job = job;
    p->arg = arg;
    pthread_barrier_wait(&p->start);
    const double t0 = timer_now();
    job(arg, 0, p->nthreads);
    pthread_barrier_wait(&p->end);
    return timer_now() - t0;
}

const char *pool_binding(const pool *p, int tid)
{
    return p->members[tid].binding;
}

void pool_destroy(pool *p)
{
    if (!p)
        return;
    p->quit = 1;
    pthread_barrier_wait(&p->start);
    for (int t = 1; t < p->nthreads; t++)
        pthread_join(p->members[t].thread, NULL);
    pool_free(p);
}

int pool_open(hwloc_topology_t topo, int nthreads, pin_plan *pins,
              pool **team, rb_err *e)
{
    *team = NULL;
    int rc = pin_plan_make(topo, nthreads, pins, e);
    if (rc)
        return rc;
    rc = pool_create(topo, pins, team, e);
    if (rc)
        pin_plan_free(pins);
    return rc;
}

int pool_close(hwloc_topology_t topo, pool *team, pin_plan *pins, int rc,
               rb_err *e)
{
    pool_destroy(team);
    pin_plan_free(pins);
    return pin_unbind_self_after(topo, rc, e);
}

void pool_job_clock(void *arg, int tid, int nthreads)
{
    (void)nthreads;
    pool_clock *c = arg;
    if (tid < POOL_CLOCK_MAX)
        c->sums[tid] = rb_clock_chain(c->iters);
}
