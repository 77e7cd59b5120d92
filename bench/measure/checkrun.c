#include "checkrun.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "ceiling.h"
#include "harness.h"
#include "interrupt.h"
#include "progress.h"

/* The pinned geometry: a 32 KiB 8-way L1d and a 1 MiB 16-way last level,
 * 64-byte lines (cachegrind's I1 is 32K:8:64 too); the kernels are blocked
 * for L1d 32 KiB, L2 1 MiB, L3 8 MiB. */
static const rb_cache_geom PIN_L1 = {32768.0, 8, 64},
                           PIN_LL = {1048576.0, 16, 64};
static const size_t PIN_CACHES[3] = {32768, 1048576, 8388608};
enum { PIN_SEED = 1 };
#define PIN_OPENBLAS "Haswell"

/* One size per operation: past the simulated last level where the
 * traffic is the point (dot and matvec stream 1 to 4 MiB), a product that
 * reuses its operands from it (128^3: the blocked kernel's skinny path,
 * its W within half of L2), and for the blocked kernel the skinny path's
 * batch of 8 against 512 x 512 weights and the packed path, past MC rows
 * with W past half of L2 in both dtypes (192 x 384 x 384). */
static const struct {
    rb_op op;
    rb_shape s;
} SIZES[] = {
    {RB_OP_DOT, {1, 262144, 1}},
    {RB_OP_MATVEC, {512, 512, 1}},
    {RB_OP_MATMUL, {128, 128, 128}},
    {RB_OP_BATCHED, {16, 128, 128}},
};
static const rb_shape BLOCKED[] = {{8, 512, 512}, {192, 384, 384}};

void check_pin_config(rb_config *cfg, const size_t caches[3])
{
    cfg->l1d = caches[0];
    cfg->l2 = caches[1];
    cfg->l3 = caches[2];
    cfg->l3_all = 0;
    /* the same kernel schedule on every CPU the gate runs on */
    cfg->skinny_order = RB_SKINNY_STRIPS;
}

void check_cases(check_case *out, size_t *n)
{
    *n = 0;
    for (int d = 0; d < RB_NDTYPES; d++)
        for (size_t i = 0; i < rb_nkernels; i++) {
            const rb_kernel *k = &rb_kernels[i];
            for (size_t z = 0; z < sizeof(SIZES) / sizeof(SIZES[0]); z++)
                if (SIZES[z].op == k->op && *n < CHECK_MAX_CASES)
                    out[(*n)++] = (check_case){k, (rb_dtype)d, SIZES[z].s};
            if (strcmp(k->name, "matmul_blocked") != 0)
                continue;
            for (size_t z = 0; z < sizeof(BLOCKED) / sizeof(BLOCKED[0]); z++)
                if (*n < CHECK_MAX_CASES)
                    out[(*n)++] = (check_case){k, (rb_dtype)d, BLOCKED[z]};
        }
}

void check_facts_init(check_facts *f, const char *valgrind_version)
{
    memset(f, 0, sizeof(*f));
    f->geom.l1 = PIN_L1;
    f->geom.ll = PIN_LL;
    snprintf(f->geom.source, sizeof(f->geom.source), "pinned by check");
    memcpy(f->caches, PIN_CACHES, sizeof(f->caches));
    f->seed = PIN_SEED;
    snprintf(f->valgrind, sizeof(f->valgrind), "%s", valgrind_version);
    snprintf(f->compiler, sizeof(f->compiler), "%s", RB_COMPILER);
    snprintf(f->c_flags, sizeof(f->c_flags), "%s", RB_C_FLAGS);
    snprintf(f->build_type, sizeof(f->build_type), "%s", RB_BUILD_TYPE);
    /* OPENBLAS_VERSION is " OpenBLAS 0.3.21 ": keep the number */
    if (sscanf(OPENBLAS_VERSION, " OpenBLAS %31s", f->openblas_version) != 1)
        snprintf(f->openblas_version, sizeof(f->openblas_version),
                 "unknown");
}

/* ---- native verification -------------------------------------------------- */

static int verify_native(hwloc_topology_t topo, const check_case *cases,
                         size_t n, rb_err *e)
{
    /* the configuration the children run under: AVX-512 off, the pinned
     * caches; the machine's own restored afterwards */
    const rb_config saved = *rb_config_get();
    rb_config cfg = saved;
    cfg.isa &= ~(unsigned)RB_ISA_AVX512F;
    check_pin_config(&cfg, PIN_CACHES);
    rb_configure(&cfg);
    int rc = RB_OK;
    /* one plan per distinct (kernel's operation, shape): the harness runs
     * one shape per operation */
    for (size_t i = 0; !rc && i < n; i++) {
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (cases[j].k->op == cases[i].k->op &&
                cases[j].s.n == cases[i].s.n && cases[j].s.p == cases[i].s.p &&
                cases[j].s.m == cases[i].s.m)
                first = 0;
        if (!first)
            continue;
        harness_plan plan;
        memset(&plan, 0, sizeof(plan));
        for (size_t j = i; j < n; j++) {
            const check_case *c = &cases[j];
            int have = 0;
            for (size_t q = 0; q < plan.nkernels; q++)
                have |= plan.kernels[q] == c->k;
            if (c->k->op == cases[i].k->op && c->s.n == cases[i].s.n &&
                c->s.p == cases[i].s.p && c->s.m == cases[i].s.m && !have)
                plan.kernels[plan.nkernels++] = c->k;
        }
        plan.dtypes[0] = RB_F32;
        plan.dtypes[1] = RB_F64;
        plan.ndtypes = 2;
        plan.threads[0] = 1;
        plan.nthreads = 1;
        plan.shape[cases[i].k->op] = cases[i].s;
        snprintf(plan.shape_source[cases[i].k->op],
                 sizeof(plan.shape_source[0]), "check's fixed size");
        plan.min_time = 1e-4;
        plan.samples = 3;
        plan.seed = PIN_SEED;
        harness_result res;
        memset(&res, 0, sizeof(res));
        rc = harness_check_plan(&plan, 0, e);
        if (!rc)
            rc = harness_run(topo, &plan, &res, NULL, NULL, e);
        harness_result_free(&res);
    }
    rb_configure(&saved);
    return rc;
}

/* ---- the simulations, two at a time ------------------------------------- */

typedef struct {
    sim_job job;
    int pid; /* the running child, published by sim_run_job */
    int finished;
    sim_counts counts;
    int rc;
    rb_err e;
} sim_task;

typedef struct {
    const char *valgrind, *exe, *workdir;
    const sim_geometry *g;
    sim_task *tasks;
    size_t ntasks, next, done;
    int stop; /* an interrupt: take no more tasks */
    int workers_left;
    pthread_mutex_t lock;
} sim_pool;

static void *sim_worker(void *arg)
{
    sim_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const size_t i =
            p->next < p->ntasks && !p->stop ? p->next++ : p->ntasks;
        pthread_mutex_unlock(&p->lock);
        if (i == p->ntasks)
            break;
        sim_task *t = &p->tasks[i];
        t->job.running = &t->pid;
        t->rc = sim_run_job(p->valgrind, p->exe, &t->job, p->g, p->workdir,
                            &t->counts, &t->e);
        pthread_mutex_lock(&p->lock);
        t->finished = !p->stop;
        p->done++;
        if (!p->stop)
            progress_say("check: %zu/%zu simulations", p->done, p->ntasks);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_lock(&p->lock);
    p->workers_left--;
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Waits for the workers; on an interrupt stops them and kills the
 * simulations under way (their children die, and cachegrind's files are
 * removed by the workers). */
static void sim_wait(sim_pool *p, pthread_t *th, int started)
{
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const int left = p->workers_left;
        pthread_mutex_unlock(&p->lock);
        if (left == 0)
            break;
        if (interrupt_requested()) {
            pthread_mutex_lock(&p->lock);
            p->stop = 1;
            pthread_mutex_unlock(&p->lock);
            for (size_t i = 0; i < p->ntasks; i++) {
                const int pid = __atomic_load_n(&p->tasks[i].pid,
                                                __ATOMIC_SEQ_CST);
                if (pid > 0)
                    kill(pid, SIGKILL);
            }
        }
        const struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    for (int w = 0; w < started; w++)
        pthread_join(th[w], NULL);
}

static void blocking_text(const rb_blocking *b, char *buf, size_t len)
{
    snprintf(buf, len,
             "mr %zu nr %zu kc %zu mc %zu nc %zu skinny %zu sw %zu skb %zu "
             "sc %zu in_l2 %d",
             b->mr, b->nr, b->kc, b->mc, b->nc, b->skinny_max, b->sw, b->skb,
             b->sc_bytes, b->skinny_in_l2);
}

void check_facts_expect(check_facts *f)
{
    const rb_config saved = *rb_config_get();
    rb_config cfg = saved;
    cfg.isa &= ~(unsigned)RB_ISA_AVX512F;
    check_pin_config(&cfg, f->caches);
    rb_configure(&cfg);
    for (int d = 0; d < RB_NDTYPES; d++) {
        rb_blocking b;
        rb_blocking_of((rb_dtype)d, &b);
        blocking_text(&b, f->blocking[d], sizeof(f->blocking[d]));
        if (d == 0)
            snprintf(f->isa, sizeof(f->isa), "%s", b.path);
    }
    rb_configure(&saved);
    snprintf(f->openblas_core, sizeof(f->openblas_core), "%s", PIN_OPENBLAS);
}

/* Runs the tasks on two worker threads (or this one where none starts)
 * until they are done or an interrupt stops them; whether one did. */
static int run_pool(const char *valgrind, const char *exe, const char *workdir,
                    const check_facts *f, sim_task *tasks, size_t nt)
{
    sim_pool pool = {.valgrind = valgrind,
                     .exe = exe,
                     .workdir = workdir,
                     .g = &f->geom,
                     .tasks = tasks,
                     .ntasks = nt,
                     .workers_left = 2,
                     .lock = PTHREAD_MUTEX_INITIALIZER};
    pthread_t th[2];
    int started = 0;
    for (int w = 0; w < 2; w++)
        started += pthread_create(&th[w], NULL, sim_worker, &pool) == 0;
    pthread_mutex_lock(&pool.lock);
    pool.workers_left -= 2 - started; /* the threads that did not start */
    pthread_mutex_unlock(&pool.lock);
    if (started == 0) {
        pool.workers_left = 1;
        sim_worker(&pool);
    }
    sim_wait(&pool, th, started);
    progress_end();
    return pool.stop;
}

/* Every child must have run the pinned code path, blocks and core. */
static int pinned_ran(const check_case *c, const sim_counts *w,
                      const check_facts *f, rb_err *e)
{
    char isa[16] = "", blk[160];
    sscanf(w->path, "path %15s", isa);
    blocking_text(&w->blk, blk, sizeof(blk));
    if (strcmp(isa, f->isa) == 0 &&
        strcmp(w->openblas, f->openblas_core) == 0 &&
        strcmp(blk, f->blocking[c->dt]) == 0)
        return RB_OK;
    return rb_fail(e, RB_EMEASURE,
                   "check: the simulated %s ran code path %s, OpenBLAS core %s "
                   "and blocks '%s', not the pinned %s, %s and '%s'",
                   c->k->name, isa, w->openblas, blk, f->isa, f->openblas_core,
                   f->blocking[c->dt]);
}

/* A case's counts: the call's, less its set-up's, with the estimated
 * cycles (iai-callgrind's weights) and the FLOPs per byte missed in the
 * simulated LL. */
static void case_counts(const check_case *c, const sim_counts *w,
                        const sim_counts *b, const check_facts *f,
                        check_counts *o)
{
    sim_counts d;
    sim_subtract(w, b, &d);
    memset(o, 0, sizeof(*o));
    o->c = *c;
    rb_counts cnt;
    o->flops = c->k->counts(c->s, rb_dtype_size(c->dt), &cnt) == 0
                   ? (double)cnt.flops
                   : 0.0;
    o->ir = d.ir;
    o->dr = d.dr;
    o->dw = d.dw;
    o->i1_misses = d.i1_misses;
    o->il_misses = d.il_misses;
    o->d1_misses = d.d1_misses;
    o->ll_misses = d.ll_misses;
    const double access = d.ir + d.dr + d.dw,
                 l1_miss = d.i1_misses + d.d1_misses,
                 ram = d.il_misses + d.ll_misses;
    o->est_cycles = (access - l1_miss) + 5.0 * (l1_miss - ram) + 35.0 * ram;
    o->ll_intensity =
        d.ll_misses > 0.0 ? o->flops / (d.ll_misses * f->geom.ll.line) : 0.0;
}

int check_run(hwloc_topology_t topo, const char *valgrind, const char *exe,
              const char *workdir, const check_case *cases, size_t n,
              const check_facts *f, check_counts *out, size_t *nout,
              int *interrupted, rb_err *e)
{
    *nout = 0;
    *interrupted = 0;
    progress_say("check: verifying %zu kernels natively", n);
    int rc = verify_native(topo, cases, n, e);
    if (rc || interrupt_requested()) {
        *interrupted = !rc;
        return rc;
    }
    /* tasks: each case, then its set-up alone (the same process, the same
     * lookups, everything but the call), side by side so that an
     * interrupt keeps whole cases */
    const size_t nt = 2 * n;
    sim_task *tasks = calloc(nt, sizeof(*tasks));
    if (!tasks)
        return rb_fail(e, RB_EINPUT, "out of memory");
    for (size_t i = 0; i < n; i++) {
        tasks[2 * i].job =
            (sim_job){cases[i].k->name, cases[i].k->op, cases[i].dt, cases[i].s,
                      f->seed,          f->caches,      0,           NULL};
        tasks[2 * i + 1].job = tasks[2 * i].job;
        tasks[2 * i + 1].job.setup_only = 1;
    }
    *interrupted = run_pool(valgrind, exe, workdir, f, tasks, nt);
    for (size_t i = 0; i < nt && !rc; i++)
        if (tasks[i].finished && tasks[i].rc) {
            *e = tasks[i].e;
            rc = tasks[i].rc;
        }
    for (size_t i = 0; i < n && !rc; i++) {
        if (!tasks[2 * i].finished || !tasks[2 * i + 1].finished)
            continue; /* interrupted before both ran */
        rc = pinned_ran(&cases[i], &tasks[2 * i].counts, f, e);
        if (!rc)
            case_counts(&cases[i], &tasks[2 * i].counts,
                        &tasks[2 * i + 1].counts, f, &out[(*nout)++]);
    }
    free(tasks);
    return rc;
}
