/* The measurement path, in the order STREAM and Google Benchmark taught:
 *   1. the reference, once per operation, shape and dtype (OpenMP, long
 *      double), from the same deterministic random inputs the kernels see;
 *   2. per thread count: a pinned team, and operands first-touched and
 *      filled by the thread that will use them;
 *   3. per kernel: output poisoned with NaN, one call, verification (a wrong
 *      result stops the run: it is an error, not a row), one warm-up sample
 *      discarded, repetitions grown until a sample lasts --min-time, the
 *      timed samples between barriers, verification again.
 * Rates are derived from the registry's analytic counts, never from inside
 * a kernel. */
#include "harness.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "region.h"
#include "timer.h"

volatile sig_atomic_t harness_stop = 0;

/* Dot's partial sums sit one cache line apart so threads never share one. */
enum { PARTIAL_STRIDE = 64, ALIGN = 4096 };

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

double harness_value(uint64_t seed, int which, uint64_t idx, rb_dtype dt)
{
    const uint64_t r =
        splitmix64(splitmix64(seed ^ ((uint64_t)which << 56)) + idx);
    const double v = (double)(r >> 11) * 0x1p-52 - 1.0; /* [-1, 1) */
    return dt == RB_F32 ? (double)(float)v : v;
}

/* ---- shapes, slices and sizes ----------------------------------------- */

static size_t lda_of(rb_op op, rb_shape s)
{
    return op == RB_OP_DOT ? 1 : s.p;
}

static size_t ldb_of(rb_op op, rb_shape s)
{
    return (op == RB_OP_MATMUL || op == RB_OP_BATCHED) ? s.m : 1;
}

static size_t ldc_of(rb_op op, rb_shape s)
{
    return (op == RB_OP_MATMUL || op == RB_OP_BATCHED) ? s.m : 1;
}

/* Share t of `total` items split over nt threads: [*lo, *hi). Dot's shares
 * start on multiples of 16 elements so that each begins on a cache line. */
static void share(size_t total, int t, int nt, size_t align, size_t *lo,
                  size_t *hi)
{
    *lo = (size_t)((unsigned __int128)total * (unsigned)t / (unsigned)nt);
    *hi = (size_t)((unsigned __int128)total * (unsigned)(t + 1) /
                   (unsigned)nt);
    *lo -= *lo % align;
    if (t + 1 < nt)
        *hi -= *hi % align;
}

void harness_slice(rb_op op, rb_shape s, size_t elsize, void *a, void *b,
                   void *c, int tid, int nthreads, rb_operands *x)
{
    size_t lo, hi;
    x->team = NULL;
    x->n = s.n;
    x->p = s.p;
    x->m = s.m;
    x->lda = lda_of(op, s);
    x->ldb = ldb_of(op, s);
    x->ldc = ldc_of(op, s);
    if (op == RB_OP_DOT) {
        share(s.p, tid, nthreads, 16, &lo, &hi);
        x->p = hi - lo;
        x->a = (char *)a + lo * elsize;
        x->b = (char *)b + lo * elsize;
        x->c = (char *)c + (size_t)tid * PARTIAL_STRIDE;
        return;
    }
    share(s.n, tid, nthreads, 1, &lo, &hi);
    x->n = hi - lo;
    x->a = (char *)a + lo * x->lda * elsize;
    x->b = op == RB_OP_BATCHED ? (char *)b + lo * s.p * x->ldb * elsize : b;
    x->c = (char *)c + lo * x->ldc * elsize;
}

int harness_problem_bytes(rb_op op, rb_shape s, rb_dtype dt, int threads,
                          uint64_t *bytes)
{
    uint64_t e[3], operands, cbytes, refin, refout, total;
    if (rb_operand_elems(op, s, e))
        return -1;
    /* Dot's output is one partial sum per thread, a cache line each. */
    if (op == RB_OP_DOT)
        cbytes = (uint64_t)threads * PARTIAL_STRIDE;
    else if (__builtin_mul_overflow(e[2], rb_dtype_size(dt), &cbytes))
        return -1;
    if (__builtin_add_overflow(e[0], e[1], &refin) ||
        __builtin_mul_overflow(refin, sizeof(double), &refin) ||
        __builtin_add_overflow(e[0], e[1], &operands) ||
        __builtin_mul_overflow(operands, rb_dtype_size(dt), &operands) ||
        __builtin_add_overflow(operands, cbytes, &operands) ||
        __builtin_mul_overflow(e[2], 2 * sizeof(double), &refout) ||
        __builtin_add_overflow(operands, refin, &total) ||
        __builtin_add_overflow(total, refout, &total))
        return -1;
    *bytes = total;
    return 0;
}

int harness_check_plan(const harness_plan *plan, uint64_t mem_available,
                       rb_err *e)
{
    int maxthreads = 1;
    for (int t = 0; t < plan->nthreads; t++)
        if (plan->threads[t] > maxthreads)
            maxthreads = plan->threads[t];
    for (size_t i = 0; i < plan->nkernels; i++) {
        const rb_kernel *k = plan->kernels[i];
        const rb_shape s = plan->shape[k->op];
        const char *src = plan->shape_source[k->op];
        for (int d = 0; d < plan->ndtypes; d++) {
            const rb_dtype dt = plan->dtypes[d];
            rb_counts cnt;
            uint64_t need;
            if (k->counts(s, rb_dtype_size(dt), &cnt) ||
                harness_problem_bytes(k->op, s, dt, maxthreads, &need))
                return rb_fail(e, RB_EINPUT,
                               "%s: the counts of %s %s overflow 64 bits", src,
                               k->name, rb_dtype_name(dt));
            if (k->workspace) {
                size_t shared, own;
                k->workspace(s, dt, maxthreads, &shared, &own);
                need += shared + (uint64_t)own * (uint64_t)maxthreads;
            }
            if (mem_available > 0 && need > mem_available)
                return rb_fail(
                    e, RB_EINPUT,
                    "%s: %s %s needs %.3g GB (operands, reference inputs and "
                    "results), more than the %.3g GB of memory available",
                    src, k->name, rb_dtype_name(dt), (double)need / 1e9,
                    (double)mem_available / 1e9);
        }
        /* One reference serves all kernels of an operation in a run. */
        for (size_t j = 0; j < i; j++)
            if (plan->kernels[j]->op == k->op &&
                plan->kernels[j]->reference != k->reference)
                return rb_fail(e, RB_EINPUT,
                               "registry: %s and %s compute %s with different "
                               "references",
                               plan->kernels[j]->name, k->name,
                               rb_op_name(k->op));
        if (strcmp(k->form, "openblas") == 0) {
            const size_t dims[] = {s.n, s.p, s.m};
            for (int j = 0; j < 3; j++)
                if (dims[j] > 2147483647u)
                    return rb_fail(e, RB_EINPUT,
                                   "%s: dimension %zu of %s exceeds OpenBLAS's "
                                   "32-bit index limit (2147483647)",
                                   src, dims[j], k->name);
        }
    }
    return RB_OK;
}

/* ---- the reference ----------------------------------------------------- */

typedef struct {
    double *val, *absval;
    size_t rows, cols;
} reference;

static int reference_make(const rb_kernel *k, rb_shape s, rb_dtype dt,
                          uint64_t seed, reference *r, rb_err *e)
{
    const rb_op op = k->op;
    uint64_t el[3];
    rb_operand_elems(op, s, el);
    r->rows = ref_out_rows(op, s);
    r->cols = ref_out_cols(op, s);
    double *a = malloc(el[0] * sizeof(*a));
    double *b = malloc(el[1] * sizeof(*b));
    r->val = malloc(r->rows * r->cols * sizeof(*r->val));
    r->absval = malloc(r->rows * r->cols * sizeof(*r->absval));
    if (!a || !b || !r->val || !r->absval) {
        free(a);
        free(b);
        free(r->val);
        free(r->absval);
        return rb_fail(e, RB_EINPUT,
                       "out of memory for the reference of %s %s",
                       rb_op_name(op), rb_dtype_name(dt));
    }
    const long long na = (long long)el[0], nb = (long long)el[1];
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < na; i++)
        a[i] = harness_value(seed, 0, (uint64_t)i, dt);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < nb; i++)
        b[i] = harness_value(seed, 1, (uint64_t)i, dt);
    const long long rows = (long long)r->rows;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long i = 0; i < rows; i++)
        k->reference(s, a, b, (size_t)i, (size_t)i + 1, r->val, r->absval);
    free(a);
    free(b);
    return RB_OK;
}

static void reference_free(reference *r)
{
    free(r->val);
    free(r->absval);
}

/* ---- one thread count: operands and team ------------------------------ */

typedef struct {
    rb_op op;
    rb_shape s;
    rb_dtype dt;
    size_t elsize;
    uint64_t seed;
    void *a, *b, *c;
    /* for timed jobs */
    const rb_kernel *kernel;
    uint64_t reps;
    /* team kernels: one rb_team per member, their barrier, workspace */
    rb_team *teams;
    pthread_barrier_t barrier;
    /* the counted sample: per thread sums and errors */
    counters_events *events;
    long long (*ctr_sum)[COUNTERS_MAX];
    int *ctr_rc;
    rb_err *ctr_err;
} team_ctx;

static void *alloc_aligned(uint64_t bytes)
{
    const size_t len = (size_t)((bytes + ALIGN - 1) / ALIGN * ALIGN);
    return aligned_alloc(ALIGN, len ? len : ALIGN);
}

static void store(void *p, uint64_t i, rb_dtype dt, double v)
{
    if (dt == RB_F32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* First touch: each thread writes the rows it will compute (of A, of C, and
 * of B where rows own their matrices) and an even share of a shared B, so
 * the pages land next to the core that uses them. */
static void job_fill(void *arg, int tid, int nt)
{
    const team_ctx *t = arg;
    const rb_shape s = t->s;
    size_t lo, hi;
    uint64_t a_lo, a_hi, b_lo, b_hi, c_lo, c_hi;
    if (t->op == RB_OP_DOT) {
        share(s.p, tid, nt, 16, &lo, &hi);
        a_lo = b_lo = lo;
        a_hi = b_hi = hi;
        c_lo = c_hi = 0;
    } else {
        share(s.n, tid, nt, 1, &lo, &hi);
        a_lo = (uint64_t)lo * s.p;
        a_hi = (uint64_t)hi * s.p;
        c_lo = (uint64_t)lo * ldc_of(t->op, s);
        c_hi = (uint64_t)hi * ldc_of(t->op, s);
        if (t->op == RB_OP_BATCHED) {
            b_lo = (uint64_t)lo * s.p * s.m;
            b_hi = (uint64_t)hi * s.p * s.m;
        } else {
            const size_t brows = s.p;
            size_t blo, bhi;
            share(brows, tid, nt, 1, &blo, &bhi);
            b_lo = (uint64_t)blo * ldb_of(t->op, s);
            b_hi = (uint64_t)bhi * ldb_of(t->op, s);
        }
    }
    for (uint64_t i = a_lo; i < a_hi; i++)
        store(t->a, i, t->dt, harness_value(t->seed, 0, i, t->dt));
    for (uint64_t i = b_lo; i < b_hi; i++)
        store(t->b, i, t->dt, harness_value(t->seed, 1, i, t->dt));
    for (uint64_t i = c_lo; i < c_hi; i++)
        store(t->c, i, t->dt, NAN);
}

/* Poisons this thread's outputs, so a kernel that writes nothing fails. */
static void job_poison(void *arg, int tid, int nt)
{
    const team_ctx *t = arg;
    if (t->op == RB_OP_DOT) {
        store((char *)t->c + (size_t)tid * PARTIAL_STRIDE, 0, t->dt, NAN);
        return;
    }
    size_t lo, hi;
    share(t->s.n, tid, nt, 1, &lo, &hi);
    const size_t ldc = ldc_of(t->op, t->s);
    for (uint64_t i = (uint64_t)lo * ldc; i < (uint64_t)hi * ldc; i++)
        store(t->c, i, t->dt, NAN);
}

/* The timed job: this thread's share, reps times. The empty asm with a
 * memory clobber tells the compiler the output is used after every call,
 * so no repetition can be merged away. */
static void job_kernel(void *arg, int tid, int nt)
{
    const team_ctx *t = arg;
    rb_operands x;
    if (t->kernel->threading == RB_SPLIT_TEAM) {
        /* the whole problem; the kernel divides it over the team */
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

/* A library kernel counted on the calling thread. */
static void job_kernel_counted_library(team_ctx *t, int *rc_out, rb_err *err,
                                       long long *sum)
{
    rb_operands x;
    harness_slice(t->op, t->s, t->elsize, t->a, t->b, t->c, 0, 1, &x);
    const rb_kernel_fn fn = t->kernel->fn[t->dt];
    counters_thread th;
    int rc = counters_thread_open(t->events, &th, err);
    if (!rc)
        rc = counters_thread_start(&th, err);
    if (!rc) {
        for (uint64_t i = 0; i < t->reps; i++) {
            fn(&x);
            __asm__ volatile("" : : "r"(x.c) : "memory");
        }
        rc = counters_thread_stop(&th, t->events, sum, err);
    }
    counters_thread_close(&th);
    *rc_out = rc;
}

/* The counted sample: the timed job between PAPI start and stop on this
 * thread. The event set is built and torn down on the thread itself (PAPI
 * counts per thread), outside the counted region. */
static void job_kernel_counted(void *arg, int tid, int nt)
{
    team_ctx *t = arg;
    counters_thread th;
    int rc = counters_thread_open(t->events, &th, &t->ctr_err[tid]);
    if (!rc)
        rc = counters_thread_start(&th, &t->ctr_err[tid]);
    if (!rc) {
        job_kernel(arg, tid, nt);
        rc = counters_thread_stop(&th, t->events, t->ctr_sum[tid],
                                  &t->ctr_err[tid]);
    }
    counters_thread_close(&th);
    t->ctr_rc[tid] = rc;
}

/* ---- one row ------------------------------------------------------------ */

typedef struct {
    hwloc_topology_t topo;
    const pin_plan *pins;
    pool *team;
    team_ctx *ctx;
} runner;

static int is_library(const rb_kernel *k)
{
    return k->threading == RB_SPLIT_LIBRARY;
}

/* Seconds for ctx->reps calls of the kernel over the whole problem. */
static double time_calls(runner *r)
{
    if (!is_library(r->ctx->kernel))
        return pool_run(r->team, job_kernel, r->ctx);
    rb_operands x;
    harness_slice(r->ctx->op, r->ctx->s, r->ctx->elsize, r->ctx->a, r->ctx->b,
                  r->ctx->c, 0, 1, &x);
    const rb_kernel_fn fn = r->ctx->kernel->fn[r->ctx->dt];
    const double t0 = timer_now();
    for (uint64_t i = 0; i < r->ctx->reps; i++) {
        fn(&x);
        __asm__ volatile("" : : "r"(x.c) : "memory");
    }
    return timer_now() - t0;
}

static void verify(const runner *r, const reference *ref, ref_result *res)
{
    const team_ctx *t = r->ctx;
    const double tol = ref_tolerance(t->dt, t->s.p);
    if (t->op != RB_OP_DOT) {
        ref_check(t->dt, ref->rows, ref->cols, t->c, ldc_of(t->op, t->s),
                  ref->val, ref->absval, tol, res);
        return;
    }
    const int parts = is_library(t->kernel) ? 1 : r->pins->nthreads;
    long double sum = 0.0L;
    for (int i = 0; i < parts; i++) {
        const char *slot = (const char *)t->c + (size_t)i * PARTIAL_STRIDE;
        sum += t->dt == RB_F32 ? *(const float *)slot
                               : *(const double *)slot;
    }
    const double total = (double)sum;
    ref_check(RB_F64, 1, 1, &total, 1, ref->val, ref->absval, tol, res);
}

static int verify_failure(const runner *r, const ref_result *res,
                          const char *when, rb_err *e)
{
    const team_ctx *t = r->ctx;
    return rb_fail(e, RB_EMEASURE,
                   "verification failed %s timing: %s %s shape %zu,%zu,%zu "
                   "threads %d: relative error %.3g at output [%zu,%zu] "
                   "exceeds the tolerance %.3g",
                   when, t->kernel->name, rb_dtype_name(t->dt), t->s.n, t->s.p,
                   t->s.m, r->pins->nthreads, res->max_err, res->worst_row,
                   res->worst_col, res->tol);
}

static void binding_string(const runner *r, char *buf, size_t len)
{
    if (is_library(r->ctx->kernel)) {
        pin_self_string(r->topo, buf, len);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; t < r->pins->nthreads && used < len; t++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 t ? ";" : "", pool_binding(r->team, t));
}

static void team_barrier(const rb_team *t)
{
    pthread_barrier_wait(t->barrier_ctx);
}

/* Each member first-touches its own workspace. */
static void job_touch_own(void *arg, int tid, int nt)
{
    (void)nt;
    const team_ctx *t = arg;
    size_t shared, own;
    t->kernel->workspace(t->s, t->dt, nt, &shared, &own);
    memset(t->teams[tid].own, 0, own);
}

/* The team and workspace of a team kernel, or nothing for the others. */
static int team_setup(team_ctx *t, int nt, rb_err *e)
{
    t->teams = NULL;
    if (t->kernel->threading != RB_SPLIT_TEAM)
        return RB_OK;
    size_t shared, own;
    t->kernel->workspace(t->s, t->dt, nt, &shared, &own);
    t->teams = calloc((size_t)nt, sizeof(*t->teams));
    void *sh = alloc_aligned(shared);
    int ok = t->teams && sh;
    for (int i = 0; ok && i < nt; i++) {
        t->teams[i] = (rb_team){.tid = i,
                                .nthreads = nt,
                                .barrier = team_barrier,
                                .barrier_ctx = &t->barrier,
                                .shared = sh,
                                .own = alloc_aligned(own)};
        ok = t->teams[i].own != NULL;
    }
    if (!ok) {
        for (int i = 0; t->teams && i < nt; i++)
            free(t->teams[i].own);
        free(t->teams);
        free(sh);
        t->teams = NULL;
        return rb_fail(e, RB_EINPUT, "out of memory for the workspace of %s",
                       t->kernel->name);
    }
    pthread_barrier_init(&t->barrier, NULL, (unsigned)nt);
    return RB_OK;
}

static void team_teardown(team_ctx *t, int nt)
{
    if (!t->teams)
        return;
    free(t->teams[0].shared);
    for (int i = 0; i < nt; i++)
        free(t->teams[i].own);
    free(t->teams);
    t->teams = NULL;
    pthread_barrier_destroy(&t->barrier);
}

/* One more sample with the counters running on every thread of the team
 * (or on the calling thread of a library kernel, whose own threads PAPI
 * does not see), summed; then the self-check: counted FLOPs against the
 * analytic count, instructions per cycle plausible. */
static int count_sample(runner *r, const harness_plan *plan, harness_row *row,
                        rb_err *e)
{
    team_ctx *t = r->ctx;
    const int nt = r->pins->nthreads;
    long long sums[16][COUNTERS_MAX];
    int rcs[16];
    rb_err errs[16];
    memset(sums, 0, sizeof(sums));
    memset(rcs, 0, sizeof(rcs));
    t->events = plan->events;
    t->ctr_sum = sums;
    t->ctr_rc = rcs;
    t->ctr_err = errs;
    int parts = nt;
    if (is_library(t->kernel)) {
        job_kernel_counted_library(t, &rcs[0], &errs[0], sums[0]);
        parts = 1;
        if (nt > 1)
            snprintf(row->counted_note, sizeof(row->counted_note),
                     "counts the calling thread only: PAPI does not see "
                     "OpenBLAS's own threads");
    } else {
        pool_run(r->team, job_kernel_counted, t);
    }
    for (int i = 0; i < parts; i++)
        if (rcs[i]) {
            *e = errs[i];
            return rcs[i];
        }
    row->counted = 1;
    row->counted_reps = t->reps;
    for (int i = 0; i < parts; i++)
        for (int k = 0; k < plan->events->n; k++)
            row->ctr_counts[k] += sums[i][k];
    double flops = -1.0, ins = -1.0, cyc = -1.0;
    for (int k = 0; k < plan->events->n; k++) {
        if (!plan->events->usable[k])
            continue;
        const double v = (double)row->ctr_counts[k] / (double)t->reps;
        if (plan->events->kind[k] == CE_FLOPS)
            flops = v;
        else if (plan->events->kind[k] == CE_INSTRUCTIONS)
            ins = v;
        else if (plan->events->kind[k] == CE_CYCLES)
            cyc = v;
    }
    const double want = (double)row->counts.flops;
    size_t used = strlen(row->counted_note);
    if (flops >= 0.0 && parts == nt && fabs(flops / want - 1.0) > 0.05)
        used += (size_t)snprintf(
            row->counted_note + used, sizeof(row->counted_note) - used,
            "%scounted FLOPs %.4g per call vs %.4g analytic (x%.3f)",
            used ? "; " : "", flops, want, flops / want);
    if (ins >= 0.0 && cyc > 0.0 && (ins <= 0.0 || ins / cyc > 8.0 * parts) &&
        used < sizeof(row->counted_note))
        snprintf(row->counted_note + used, sizeof(row->counted_note) - used,
                 "%sinstructions per cycle %.2f is implausible",
                 used ? "; " : "", ins / cyc);
    return RB_OK;
}

static int measure(runner *r, const harness_plan *plan, const reference *ref,
                   harness_row *row, rb_err *e)
{
    team_ctx *t = r->ctx;
    const int nt = r->pins->nthreads;
    int rc = team_setup(t, nt, e);
    if (rc)
        return rc;
    if (t->teams)
        pool_run(r->team, job_touch_own, t);
    memset(row, 0, sizeof(*row));
    row->kernel = t->kernel;
    row->dtype = t->dt;
    row->shape = t->s;
    row->threads = nt;
    row->events = plan->events;
    t->kernel->counts(t->s, t->elsize, &row->counts);

    if (is_library(t->kernel)) {
        rc = pin_bind_self(r->topo, r->pins->all, e);
        if (rc) {
            team_teardown(t, nt);
            return rc;
        }
        openblas_set_num_threads(nt);
        row->library_threads = nt;
    }
    binding_string(r, row->binding, sizeof(row->binding));

    pool_run(r->team, job_poison, t);
    t->reps = 1;
    time_calls(r);
    verify(r, ref, &row->check_before);
    if (!row->check_before.passed) {
        rc = verify_failure(r, &row->check_before, "before", e);
        goto done;
    }

    /* Warm-up, discarded; then grow the repetitions until one sample lasts
     * min_time, by the factor the last sample suggests (at least 2). */
    double sec = time_calls(r);
    while (sec < plan->min_time && !harness_stop) {
        double grow = sec > 0.0 ? 1.4 * plan->min_time / sec : 1000.0;
        if (grow < 2.0)
            grow = 2.0;
        if (grow > 1000.0)
            grow = 1000.0;
        t->reps = (uint64_t)ceil((double)t->reps * grow);
        sec = time_calls(r);
    }
    row->reps = t->reps;
    row->samples = malloc((size_t)plan->samples * sizeof(*row->samples));
    if (!row->samples) {
        rc = rb_fail(e, RB_EINPUT, "out of memory for samples");
        goto done;
    }
    for (int i = 0; i < plan->samples && !harness_stop; i++)
        row->samples[row->nsamples++] = time_calls(r) / (double)t->reps;
    if (harness_stop)
        goto done;
    stats_summarize(row->samples, (size_t)row->nsamples, &row->time);

    if (plan->events && plan->events->nusable > 0 && !harness_stop) {
        rc = count_sample(r, plan, row, e);
        if (rc)
            goto done;
    }

    verify(r, ref, &row->check_after);
    if (!row->check_after.passed)
        rc = verify_failure(r, &row->check_after, "after", e);

done:
    if (is_library(t->kernel)) {
        openblas_set_num_threads(1);
        rb_err e2;
        const int rc2 = pin_bind_self(r->topo, r->pins->pu[0], &e2);
        if (rc == RB_OK && rc2 != RB_OK) {
            *e = e2;
            rc = rc2;
        }
    }
    team_teardown(t, nt);
    if (rc != RB_OK || harness_stop) {
        free(row->samples);
        row->samples = NULL;
    }
    return rc;
}

/* ---- the plan ----------------------------------------------------------- */

static int append_row(harness_result *res, const harness_row *row,
                      rb_err *e)
{
    if (res->nrows == res->cap) {
        const size_t cap = res->cap ? 2 * res->cap : 32;
        harness_row *rows = realloc(res->rows, cap * sizeof(*rows));
        if (!rows)
            return rb_fail(e, RB_EINPUT, "out of memory for result rows");
        res->rows = rows;
        res->cap = cap;
    }
    res->rows[res->nrows++] = *row;
    return RB_OK;
}

void harness_result_free(harness_result *res)
{
    for (size_t i = 0; i < res->nrows; i++)
        free(res->rows[i].samples);
    free(res->rows);
    memset(res, 0, sizeof(*res));
}

/* All rows of one operation, dtype and thread count. */
static int run_team(hwloc_topology_t topo, const harness_plan *plan, rb_op op,
                    rb_dtype dt, int nthreads, const reference *ref,
                    harness_result *res, harness_row_cb cb, void *cbctx,
                    rb_err *e)
{
    const rb_shape s = plan->shape[op];
    const size_t elsize = rb_dtype_size(dt);
    uint64_t el[3];
    rb_operand_elems(op, s, el);
    team_ctx ctx = {.op = op, .s = s, .dt = dt, .elsize = elsize,
                    .seed = plan->seed};
    rb_region operands = {0};
    pin_plan pins;
    pool *team = NULL;
    int rc = pin_plan_make(topo, nthreads, &pins, e);
    if (rc)
        return rc;
    rc = pool_create(topo, &pins, &team, e);
    if (rc)
        goto out_plan;
    /* The three operands in one region (region.h): page-aligned as
     * before, and, when together they fit in 1 MiB, free of L1 utag
     * aliasing among themselves whatever addresses the process gets. */
    const size_t bytes[3] = {
        (size_t)(el[0] * elsize), (size_t)(el[1] * elsize),
        (size_t)(op == RB_OP_DOT ? (uint64_t)nthreads * PARTIAL_STRIDE
                                 : el[2] * elsize)};
    char what[96];
    snprintf(what, sizeof(what), "the operands of %s %s", rb_op_name(op),
             rb_dtype_name(dt));
    rc = rb_region_map(&operands, 3, bytes, ALIGN, 0, what, e);
    if (rc)
        goto out;
    ctx.a = operands.buf[0];
    ctx.b = operands.buf[1];
    ctx.c = operands.buf[2];
    pool_run(team, job_fill, &ctx);

    runner r = {.topo = topo, .pins = &pins, .team = team, .ctx = &ctx};
    for (size_t i = 0; i < plan->nkernels && !harness_stop; i++) {
        if (plan->kernels[i]->op != op)
            continue;
        ctx.kernel = plan->kernels[i];
        harness_row row;
        rc = measure(&r, plan, ref, &row, e);
        if (rc)
            goto out;
        if (harness_stop)
            break;
        rc = append_row(res, &row, e);
        if (rc) {
            free(row.samples);
            goto out;
        }
        if (cb)
            cb(&res->rows[res->nrows - 1], cbctx);
    }
out:
    rb_region_unmap(&operands);
    pool_destroy(team);
out_plan:
    pin_plan_free(&pins);
    return pin_unbind_self_after(topo, rc, e);
}

int harness_run(hwloc_topology_t topo, const harness_plan *plan,
                harness_result *res, harness_row_cb cb, void *ctx, rb_err *e)
{
    memset(res, 0, sizeof(*res));
    openblas_set_num_threads(1);
    for (int op = 0; op < RB_NOPS; op++) {
        const rb_kernel *first = NULL;
        for (size_t i = 0; i < plan->nkernels && !first; i++)
            if (plan->kernels[i]->op == (rb_op)op)
                first = plan->kernels[i];
        if (!first)
            continue;
        for (int d = 0; d < plan->ndtypes && !harness_stop; d++) {
            reference ref;
            int rc = reference_make(first, plan->shape[op], plan->dtypes[d],
                                    plan->seed, &ref, e);
            if (rc)
                return rc;
            for (int t = 0; t < plan->nthreads && !harness_stop && !rc; t++)
                rc = run_team(topo, plan, (rb_op)op, plan->dtypes[d],
                              plan->threads[t], &ref, res, cb, ctx, e);
            reference_free(&ref);
            if (rc)
                return rc;
        }
    }
    res->interrupted = harness_stop != 0;
    return RB_OK;
}
