/* The two executors. A team of pinned threads runs every call between two
 * barriers (pool.h), so the slowest thread sets the time; a library's
 * calls are timed on the calling thread, which the library's own threads
 * join inside each call. */
#include "exec.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "region.h"
#include "timer.h"

/* The calls themselves: this thread's share (or, for a team kernel, the
 * whole problem and its member), reps times. The empty asm with a memory
 * clobber tells the compiler the output is used after every call, so no
 * repetition can be merged away. */
static void calls(const exec_ctx *t, int tid, int nt)
{
    rb_operands x;
    if (t->kernel->threading == RB_SPLIT_TEAM) {
        harness_slice(t->op, t->s, t->elsize, t->a, t->b, t->c, 0, 1, &x);
        x.team = &t->teams[tid];
    } else {
        harness_slice(t->op, t->s, t->elsize, t->a, t->b, t->c, tid, nt, &x);
    }
    const rb_kernel_fn fn = t->kernel->fn[t->dt];
    for (uint64_t r = 0; r < t->reps; r++) {
        fn(&x);
        __asm__ volatile("" : : "r"(x.c) : "memory");
    }
}

/* The calls between PAPI start and stop on this thread. The event set is
 * built and torn down on the thread itself (PAPI counts per thread),
 * outside the counted region. */
static void counted_calls(exec_ctx *t, int tid, int nt)
{
    counters_thread th;
    int rc = counters_thread_open(t->events, &th, &t->ctr_err[tid]);
    if (!rc)
        rc = counters_thread_start(&th, &t->ctr_err[tid]);
    if (!rc) {
        calls(t, tid, nt);
        rc = counters_thread_stop(&th, t->events, t->ctr_sum[tid],
                                  &t->ctr_err[tid]);
    }
    counters_thread_close(&th);
    t->ctr_rc[tid] = rc;
}

/* ---- a team of pinned threads -------------------------------------------- */

static void job_calls(void *arg, int tid, int nt)
{
    calls(arg, tid, nt);
}

static void job_counted(void *arg, int tid, int nt)
{
    counted_calls(arg, tid, nt);
}

static void team_barrier(const rb_team *t)
{
    pool_barrier_wait(t->barrier_ctx);
}

/* In the counted sample: a member that waits for another spinning would
 * count its spin as the kernel's cycles and instructions */
static void team_barrier_counted(const rb_team *t)
{
    pthread_barrier_wait(t->barrier_ctx);
}

/* Every member's barrier, if the kernel is a team kernel */
static void team_barriers(exec_ctx *t, int nt, void (*fn)(const rb_team *),
                          void *ctx)
{
    for (int i = 0; t->teams && i < nt; i++) {
        t->teams[i].barrier = fn;
        t->teams[i].barrier_ctx = ctx;
    }
}

/* Each member first-touches its own workspace. */
static void job_touch_own(void *arg, int tid, int nt)
{
    (void)nt;
    const exec_ctx *t = arg;
    memset(t->teams[tid].own, 0, t->own_bytes);
}

static void free_teams(exec_ctx *t, int nt)
{
    if (!t->teams)
        return;
    rb_region_buffer_free(t->teams[0].shared, t->shared_bytes);
    for (int i = 0; i < nt; i++)
        rb_region_buffer_free(t->teams[i].own, t->own_bytes);
    free(t->teams);
    t->teams = NULL;
}

/* The team and workspace of a team kernel; nothing for the others. */
static int team_begin(exec_env *x, int *library_threads, rb_err *e)
{
    exec_ctx *t = x->ctx;
    const int nt = x->pins->nthreads;
    *library_threads = 0;
    t->teams = NULL;
    if (t->kernel->threading != RB_SPLIT_TEAM)
        return RB_OK;
    t->kernel->workspace(t->s, t->dt, nt, &t->shared_bytes, &t->own_bytes);
    t->teams = calloc((size_t)nt, sizeof(*t->teams));
    void *sh = rb_region_buffer(t->shared_bytes);
    int ok = t->teams && sh;
    for (int i = 0; ok && i < nt; i++) {
        t->teams[i] = (rb_team){.tid = i,
                                .nthreads = nt,
                                .barrier = team_barrier,
                                .barrier_ctx = &t->barrier,
                                .shared = sh,
                                .own = rb_region_buffer(t->own_bytes)};
        ok = t->teams[i].own != NULL;
    }
    if (!ok) {
        if (t->teams)
            t->teams[0].shared = sh;
        else
            rb_region_buffer_free(sh, t->shared_bytes);
        free_teams(t, nt);
        return rb_fail(e, RB_EINPUT, "out of memory for the workspace of %s",
                       t->kernel->name);
    }
    pool_barrier_init(&t->barrier, (unsigned)nt);
    pthread_barrier_init(&t->counted_barrier, NULL, (unsigned)nt);
    pool_run(x->team, job_touch_own, t);
    return RB_OK;
}

static double team_time(exec_env *x)
{
    return pool_run(x->team, job_calls, x->ctx);
}

static int team_parts(const exec_env *x)
{
    return x->pins->nthreads;
}

static void team_binding(const exec_env *x, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; t < x->pins->nthreads && used < len; t++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", t ? ";" : "",
                                 pool_binding(x->team, t));
}

static int team_count(exec_env *x, long long (*sums)[COUNTERS_MAX], int *rcs,
                      rb_err *errs, char *note, size_t notelen)
{
    (void)note;
    (void)notelen;
    exec_ctx *t = x->ctx;
    t->ctr_sum = sums;
    t->ctr_rc = rcs;
    t->ctr_err = errs;
    const int nt = x->pins->nthreads;
    team_barriers(t, nt, team_barrier_counted, &t->counted_barrier);
    pool_run(x->team, job_counted, t);
    team_barriers(t, nt, team_barrier, &t->barrier);
    return nt;
}

static int team_end(exec_env *x, int rc, rb_err *e)
{
    (void)e;
    exec_ctx *t = x->ctx;
    if (t->teams) {
        free_teams(t, x->pins->nthreads);
        pthread_barrier_destroy(&t->counted_barrier);
    }
    return rc;
}

static const executor team_executor = {team_begin,   team_time,  team_parts,
                                       team_binding, team_count, team_end};

/* ---- a library with its own threads ------------------------------------- */

/* OpenBLAS's threads inherit the binding of the calling thread: it covers
 * every PU of the row while the library runs on them. */
static int library_begin(exec_env *x, int *library_threads, rb_err *e)
{
    const int rc = pin_bind_self(x->topo, x->pins->all, e);
    if (rc)
        return rc;
    openblas_set_num_threads(x->pins->nthreads);
    *library_threads = x->pins->nthreads;
    return RB_OK;
}

static double library_time(exec_env *x)
{
    const exec_ctx *t = x->ctx;
    const double t0 = timer_now();
    calls(t, 0, 1);
    return timer_now() - t0;
}

static int library_parts(const exec_env *x)
{
    (void)x;
    return 1;
}

static void library_binding(const exec_env *x, char *buf, size_t len)
{
    pin_self_string(x->topo, buf, len);
}

static int library_count(exec_env *x, long long (*sums)[COUNTERS_MAX], int *rcs,
                         rb_err *errs, char *note, size_t notelen)
{
    exec_ctx *t = x->ctx;
    t->ctr_sum = sums;
    t->ctr_rc = rcs;
    t->ctr_err = errs;
    counted_calls(t, 0, 1);
    if (x->pins->nthreads > 1)
        snprintf(note, notelen,
                 "counts the calling thread only: PAPI does "
                 "not see OpenBLAS's own threads");
    return 1;
}

static int library_end(exec_env *x, int rc, rb_err *e)
{
    openblas_set_num_threads(1);
    rb_err e2;
    const int rc2 = pin_bind_self(x->topo, x->pins->pu[0], &e2);
    if (rc == RB_OK && rc2 != RB_OK) {
        *e = e2;
        return rc2;
    }
    return rc;
}

static const executor library_executor = {library_begin, library_time,
                                          library_parts, library_binding,
                                          library_count, library_end};

const executor *exec_for(const rb_kernel *k)
{
    return k->threading == RB_SPLIT_LIBRARY ? &library_executor
                                            : &team_executor;
}
