#include "checkrun.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "ceiling.h"
#include "harness.h"
#include "progress.h"

/* The pinned geometry: a 32 KiB 8-way L1d and a 1 MiB 16-way last level,
 * 64-byte lines (cachegrind's I1 is 32K:8:64 too); the kernels are blocked
 * for L1d 32 KiB, L2 1 MiB, L3 8 MiB. */
static const rb_cache_geom PIN_L1 = {32768.0, 8, 64},
                           PIN_LL = {1048576.0, 16, 64};
static const size_t PIN_CACHES[3] = {32768, 1048576, 8388608};
enum { PIN_SEED = 1 };

/* One size per operation: past the simulated last level where the
 * traffic is the point (dot and matvec stream 1 to 4 MiB), a product that
 * reuses its operands from it (128^3), and the skinny path's batch of 8
 * against 512 x 512 weights. */
static const struct {
    rb_op op;
    rb_shape s;
} SIZES[] = {
    {RB_OP_DOT, {1, 262144, 1}},
    {RB_OP_MATVEC, {512, 512, 1}},
    {RB_OP_MATMUL, {128, 128, 128}},
    {RB_OP_BATCHED, {16, 128, 128}},
};
static const rb_shape SKINNY = {8, 512, 512};

void check_cases(check_case *out, size_t *n)
{
    *n = 0;
    for (int d = 0; d < RB_NDTYPES; d++)
        for (size_t i = 0; i < rb_nkernels; i++) {
            const rb_kernel *k = &rb_kernels[i];
            for (size_t z = 0; z < sizeof(SIZES) / sizeof(SIZES[0]); z++)
                if (SIZES[z].op == k->op && *n < CHECK_MAX_CASES)
                    out[(*n)++] = (check_case){k, (rb_dtype)d, SIZES[z].s};
            if (strcmp(k->name, "matmul_blocked") == 0 &&
                *n < CHECK_MAX_CASES)
                out[(*n)++] = (check_case){k, (rb_dtype)d, SKINNY};
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
    cfg.l1d = PIN_CACHES[0];
    cfg.l2 = PIN_CACHES[1];
    cfg.l3 = PIN_CACHES[2];
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
    sim_counts counts;
    int rc;
    rb_err e;
} sim_task;

typedef struct {
    const char *valgrind, *exe, *workdir;
    const sim_geometry *g;
    sim_task *tasks;
    size_t ntasks, next, done;
    pthread_mutex_t lock;
} sim_pool;

static void *sim_worker(void *arg)
{
    sim_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const size_t i = p->next < p->ntasks ? p->next++ : p->ntasks;
        pthread_mutex_unlock(&p->lock);
        if (i == p->ntasks)
            return NULL;
        sim_task *t = &p->tasks[i];
        t->rc = sim_run_job(p->valgrind, p->exe, &t->job, p->g, p->workdir,
                            &t->counts, &t->e);
        pthread_mutex_lock(&p->lock);
        p->done++;
        progress_say("check: %zu/%zu simulations", p->done, p->ntasks);
        pthread_mutex_unlock(&p->lock);
    }
}

static void blocking_text(const rb_blocking *b, char *buf, size_t len)
{
    snprintf(buf, len,
             "mr %zu nr %zu kc %zu mc %zu nc %zu skinny %zu sw %zu skb %zu "
             "sc %zu",
             b->mr, b->nr, b->kc, b->mc, b->nc, b->skinny_max, b->sw, b->skb,
             b->sc_bytes);
}

int check_run(hwloc_topology_t topo, const char *valgrind, const char *exe,
              const char *workdir, const check_case *cases, size_t n,
              check_facts *f, check_counts *out, rb_err *e)
{
    progress_say("check: verifying %zu kernels natively", n);
    int rc = verify_native(topo, cases, n, e);
    if (rc)
        return rc;
    /* tasks: one per case, and its set-up alone: the same process, the
     * same lookups, everything but the call */
    size_t setup_of[CHECK_MAX_CASES], nt = 2 * n;
    sim_task *tasks = calloc(nt, sizeof(*tasks));
    if (!tasks)
        return rb_fail(e, RB_EINPUT, "out of memory");
    for (size_t i = 0; i < n; i++) {
        tasks[i].job = (sim_job){cases[i].k->name, cases[i].k->op,
                                 cases[i].dt,      cases[i].s,
                                 f->seed,          f->caches,
                                 0};
        setup_of[i] = n + i;
        tasks[n + i].job = tasks[i].job;
        tasks[n + i].job.setup_only = 1;
    }
    sim_pool pool = {valgrind, exe, workdir, &f->geom, tasks, nt, 0, 0,
                     PTHREAD_MUTEX_INITIALIZER};
    pthread_t th[2];
    int started = 0;
    for (int w = 0; w < 2; w++)
        started += pthread_create(&th[w], NULL, sim_worker, &pool) == 0;
    if (started == 0)
        sim_worker(&pool);
    for (int w = 0; w < started; w++)
        pthread_join(th[w], NULL);
    progress_end();
    for (size_t i = 0; i < nt && !rc; i++)
        if (tasks[i].rc) {
            *e = tasks[i].e;
            rc = tasks[i].rc;
        }
    for (size_t i = 0; i < n && !rc; i++) {
        const sim_counts *w = &tasks[i].counts, *b = &tasks[setup_of[i]].counts;
        /* every child must have run the pinned code path and core */
        const char *path = w->path;
        char isa[16] = "";
        sscanf(path, "path %15s", isa);
        if (!f->isa[0])
            snprintf(f->isa, sizeof(f->isa), "%s", isa);
        if (!f->openblas_core[0])
            snprintf(f->openblas_core, sizeof(f->openblas_core), "%s",
                     w->openblas);
        if (strcmp(isa, f->isa) != 0 ||
            strcmp(w->openblas, f->openblas_core) != 0) {
            rc = rb_fail(e, RB_EMEASURE,
                         "check: the simulated %s ran code path %s and "
                         "OpenBLAS core %s, the others %s and %s",
                         cases[i].k->name, isa, w->openblas, f->isa,
                         f->openblas_core);
            break;
        }
        char blk[160];
        blocking_text(&w->blk, blk, sizeof(blk));
        snprintf(f->blocking[cases[i].dt], sizeof(f->blocking[0]), "%s", blk);
        sim_counts d;
        sim_subtract(w, b, &d);
        check_counts *o = &out[i];
        memset(o, 0, sizeof(*o));
        o->c = cases[i];
        rb_counts cnt;
        o->flops = cases[i].k->counts(cases[i].s, rb_dtype_size(cases[i].dt),
                                      &cnt) == 0
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
        o->ll_intensity = d.ll_misses > 0.0
                              ? o->flops / (d.ll_misses * f->geom.ll.line)
                              : 0.0;
    }
    free(tasks);
    return rc;
}
