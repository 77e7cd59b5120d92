/* The measurement path, in the order STREAM and Google Benchmark taught:
 *   1. the reference, once per operation, shape and dtype (OpenMP, long
 *      double; a matmul row in double, or pairs of them), from the same
 *      deterministic random inputs the kernels see (those of the output
 *      rows it keeps);
 *   2. per thread count: a pinned team, and operands first-touched and
 *      filled by the thread that will use them (filled only, where the
 *      caller keeps mappings from one problem to the next: region.h);
 *   3. per kernel: output poisoned with NaN, one call, verification (a wrong
 *      result stops the run: it is an error, not a row), one warm-up sample
 *      discarded, repetitions grown until a sample lasts --min-time, the
 *      timed samples between barriers, verification again.
 * How the calls are made (a team of pinned threads, or a library with its
 * own threads) is the row's executor (exec.h), chosen once per row. Rates
 * are derived from the registry's analytic counts, never from inside a
 * kernel. Every step looks for an interrupt (interrupt.h) before it
 * starts. */
#include "harness.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "exec.h"
#include "interrupt.h"
#include "pool.h"
#include "progress.h"
#include "region.h"
#include "stats.h"
#include "timer.h"

enum { ALIGN = 4096 };

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The stream of operand `which`: element idx is a hash of key + idx. */
static uint64_t value_key(uint64_t seed, int which)
{
    return splitmix64(seed ^ ((uint64_t)which << 56));
}

static double value_of(uint64_t key, uint64_t idx)
{
    const uint64_t r = splitmix64(key + idx);
    return (double)(r >> 11) * 0x1p-52 - 1.0; /* [-1, 1) */
}

double harness_value(uint64_t seed, int which, uint64_t idx, rb_dtype dt)
{
    const double v = value_of(value_key(seed, which), idx);
    return dt == RB_F32 ? (double)(float)v : v;
}

/* Elements [lo, hi) of operand `which`, as harness_value gives them, into
 * dst[0, hi - lo), the key hashed once (per element it was half of a
 * sweep's fill time). The hash is two 64-bit multiplies an element: with
 * AVX-512DQ the compiler runs them eight at a time (vpmullq), every step
 * exact, so the values are the same (on a Xeon guest, f32: 0.72 ns an
 * element against 2.4 to 2.6, identical; AVX2 has no 64-bit multiply and
 * gained nothing). Fills were a fifth of a DRAM point of the sweep. */
__attribute__((always_inline)) static inline void
fill_loop(void *dst, rb_dtype dt, uint64_t key, uint64_t lo, uint64_t hi)
{
    if (dt == RB_F32)
        for (uint64_t i = lo; i < hi; i++)
            ((float *)dst)[i - lo] = (float)value_of(key, i);
    else
        for (uint64_t i = lo; i < hi; i++)
            ((double *)dst)[i - lo] = value_of(key, i);
}

__attribute__((target("avx512f,avx512dq,avx512vl"))) static void
fill_wide(void *dst, rb_dtype dt, uint64_t key, uint64_t lo, uint64_t hi)
{
    fill_loop(dst, dt, key, lo, hi);
}

void harness_fill(void *dst, rb_dtype dt, uint64_t seed, int which, uint64_t lo,
                  uint64_t hi)
{
    const uint64_t key = value_key(seed, which);
    if (__builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        fill_wide(dst, dt, key, lo, hi);
    else
        fill_loop(dst, dt, key, lo, hi);
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

/* Row i's inputs are its row of A, elements [i P, (i + 1) P) (dot has one
 * row: its a), and B: all of it, or, where every row has its own matrix
 * (batched), elements [i P M, (i + 1) P M). */
static int own_b(rb_op op)
{
    return op == RB_OP_BATCHED;
}

/* The elements of A and of B the reference reads for `rows` kept rows
 * (reference_make fills them; the memory check counts them). -1 on
 * overflow. */
static int ref_inputs(rb_op op, rb_shape s, uint64_t rows, uint64_t *na,
                      uint64_t *nb)
{
    uint64_t e[3], pm;
    if (rb_operand_elems(op, s, e) ||
        __builtin_mul_overflow((uint64_t)s.p, (uint64_t)s.m, &pm) ||
        __builtin_mul_overflow(rows, (uint64_t)s.p, na))
        return -1;
    if (!own_b(op)) {
        *nb = e[1];
        return 0;
    }
    return __builtin_mul_overflow(rows, pm, nb) ? -1 : 0;
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
    *hi = (size_t)((unsigned __int128)total * (unsigned)(t + 1) / (unsigned)nt);
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
        x->c = (char *)c + (size_t)tid * EXEC_PARTIAL_STRIDE;
        return;
    }
    /* Few rows that do not divide evenly (a batch of 1 or 3 on 2 threads):
     * the shares are columns instead, 16 to a cache line's multiple, each
     * thread reading all of A and its part of B. */
    if ((op == RB_OP_MATMUL || op == RB_OP_BATCHED) &&
        s.n % (size_t)nthreads != 0 && s.n < 8 * (size_t)nthreads &&
        s.m >= 16 * (size_t)nthreads) {
        share(s.m, tid, nthreads, 16, &lo, &hi);
        x->m = hi - lo;
        x->a = a;
        x->b = (char *)b + lo * elsize;
        x->c = (char *)c + lo * elsize;
        return;
    }
    share(s.n, tid, nthreads, 1, &lo, &hi);
    x->n = hi - lo;
    x->a = (char *)a + lo * x->lda * elsize;
    x->b = op == RB_OP_BATCHED ? (char *)b + lo * s.p * x->ldb * elsize : b;
    x->c = (char *)c + lo * x->ldc * elsize;
}

/* The three parts of a problem's memory: its operands (and any extra
 * beyond them), the reference's inputs, and the reference's kept results.
 * The reference is made, and its inputs unmapped, before the operands are
 * mapped (harness_run); its results stay. So the peak is the results and
 * the larger of the other two. (Where the caller keeps mappings, the sweep,
 * the operands take the inputs' pages, and the process holds the largest
 * mapping of all its points: its peak is that and one point's results and
 * workspace, a few MB more than the largest point's.) */
static int problem_parts(rb_op op, rb_shape s, rb_dtype dt, int threads,
                         size_t verify_rows, uint64_t extra, uint64_t *bytes)
{
    uint64_t e[3], operands, cbytes, refin, refout;
    if (rb_operand_elems(op, s, e))
        return -1;
    /* Dot's output is one partial sum per thread, a cache line each. */
    if (op == RB_OP_DOT)
        cbytes = (uint64_t)threads * EXEC_PARTIAL_STRIDE;
    else if (__builtin_mul_overflow(e[2], rb_dtype_size(dt), &cbytes))
        return -1;
    /* the reference keeps verify_rows of its output rows, two doubles an
     * output, from those rows' inputs (reference_make) */
    uint64_t outs = e[2], rows = ref_out_rows(op, s);
    if (verify_rows > 0 && verify_rows < rows) {
        rows = verify_rows;
        outs = (uint64_t)verify_rows * ref_out_cols(op, s);
    }
    uint64_t na, nb;
    if (ref_inputs(op, s, rows, &na, &nb) ||
        __builtin_add_overflow(na, nb, &refin) ||
        __builtin_mul_overflow(refin, rb_dtype_size(dt), &refin) ||
        __builtin_add_overflow(e[0], e[1], &operands) ||
        __builtin_mul_overflow(operands, rb_dtype_size(dt), &operands) ||
        __builtin_add_overflow(operands, cbytes, &operands) ||
        __builtin_add_overflow(operands, extra, &operands) ||
        __builtin_mul_overflow(outs, 2 * sizeof(double), &refout) ||
        __builtin_add_overflow(refout, operands > refin ? operands : refin,
                               bytes))
        return -1;
    return 0;
}

int harness_problem_bytes(rb_op op, rb_shape s, rb_dtype dt, int threads,
                          size_t verify_rows, uint64_t *bytes)
{
    return problem_parts(op, s, dt, threads, verify_rows, 0, bytes);
}

int harness_kernel_bytes(const rb_kernel *k, rb_shape s, rb_dtype dt,
                         int threads, size_t verify_rows, uint64_t *bytes)
{
    uint64_t ws = 0;
    if (k->workspace) {
        size_t shared, own;
        k->workspace(s, dt, threads, &shared, &own);
        ws = shared + (uint64_t)own * (uint64_t)threads;
    }
    return problem_parts(k->op, s, dt, threads, verify_rows, ws, bytes);
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
        char shape[128];
        snprintf(shape, sizeof(shape), "shape %zu,%zu,%zu", s.n, s.p, s.m);
        const char *src =
            plan->shape_source[k->op][0] ? plan->shape_source[k->op] : shape;
        for (int d = 0; d < plan->ndtypes; d++) {
            const rb_dtype dt = plan->dtypes[d];
            rb_counts cnt;
            uint64_t need;
            if (k->counts(s, rb_dtype_size(dt), &cnt) ||
                harness_kernel_bytes(k, s, dt, maxthreads, plan->verify_rows,
                                     &need))
                return rb_fail(e, RB_EINPUT,
                               "%s: the counts of %s %s overflow 64 bits", src,
                               k->name, rb_dtype_name(dt));
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

double harness_row_gflops(const harness_row *r)
{
    return r->time.min > 0.0 ? (double)r->counts.flops / r->time.min / 1e9
                             : NAN;
}

/* ---- the reference ----------------------------------------------------- */

typedef struct {
    double *val, *absval; /* nrows x cols                               */
    size_t *rows;         /* the output rows held, in ascending order     */
    size_t nrows, cols;
} reference;

static void reference_free(reference *r)
{
    free(r->val);
    free(r->absval);
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

/* The output rows to check: all, or verify_rows of them spread from the
 * first to the last. */
static int reference_rows(rb_op op, rb_shape s, size_t verify_rows,
                          reference *r)
{
    const size_t all = ref_out_rows(op, s);
    r->nrows = verify_rows > 0 && verify_rows < all ? verify_rows : all;
    r->cols = ref_out_cols(op, s);
    r->rows = malloc(r->nrows * sizeof(*r->rows));
    r->val = malloc(r->nrows * r->cols * sizeof(*r->val));
    r->absval = malloc(r->nrows * r->cols * sizeof(*r->absval));
    if (!r->rows || !r->val || !r->absval)
        return -1;
    for (size_t i = 0; i < r->nrows; i++)
        r->rows[i] =
            r->nrows == all || r->nrows == 1
                ? i
                : (size_t)((unsigned __int128)i * (all - 1) / (r->nrows - 1));
    return 0;
}

/* The kept output rows, in long double (a matmul row in double, or pairs of
 * them: ref.c), rows in parallel, from the kept rows' inputs as the
 * kernels see them (in their dtype, the same values): only those, since
 * the sweep's contrast has B matrices of DRAM-sized weights and checks two
 * rows. An interrupt skips the rest. */
static int reference_make(const rb_kernel *k, rb_shape s, rb_dtype dt,
                          uint64_t seed, size_t verify_rows, reference *r,
                          rb_err *e)
{
    const rb_op op = k->op;
    const size_t el = rb_dtype_size(dt), pm = s.p * s.m;
    memset(r, 0, sizeof(*r));
    uint64_t na = 0, nb = 0;
    if (reference_rows(op, s, verify_rows, r) ||
        ref_inputs(op, s, r->nrows, &na, &nb)) {
        reference_free(r);
        return rb_fail(e, RB_EINPUT, "out of memory for the reference of %s %s",
                       rb_op_name(op), rb_dtype_name(dt));
    }
    /* a region, not malloc: where the caller parks regions (the sweep),
     * the operands' mapping serves the next reference and back */
    const size_t in_bytes[2] = {(size_t)(na + 1) * el, (size_t)(nb + 1) * el};
    char what[96];
    snprintf(what, sizeof(what), "the reference of %s %s", rb_op_name(op),
             rb_dtype_name(dt));
    rb_region in;
    const int rc = rb_region_map(&in, 2, in_bytes, ALIGN, 0, what, e);
    if (rc) {
        reference_free(r);
        return rc;
    }
    char *const a = in.buf[0], *const b = in.buf[1];
    progress_note("the reference of %s %s (%zu of %zu output rows)",
                  rb_op_name(op), rb_dtype_name(dt), r->nrows,
                  ref_out_rows(op, s));
    const long long rows = (long long)r->nrows;
    /* the rows' inputs, and a shared B in as many slices as threads */
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rows; i++) {
        const uint64_t ri = r->rows[i];
        harness_fill(a + (size_t)i * s.p * el, dt, seed, 0, ri * s.p,
                     (ri + 1) * s.p);
        if (own_b(op))
            harness_fill(b + (size_t)i * pm * el, dt, seed, 1, ri * pm,
                         (ri + 1) * pm);
    }
    if (!own_b(op)) {
#pragma omp parallel
        {
            const uint64_t nt = (uint64_t)omp_get_num_threads(),
                           t = (uint64_t)omp_get_thread_num(), lo = nb * t / nt,
                           hi = nb * (t + 1) / nt;
            harness_fill(b + lo * el, dt, seed, 1, lo, hi);
        }
    }
    /* row i alone: a problem of one row, its own A row and B */
    const rb_shape one = {1, s.p, s.m};
#pragma omp parallel for schedule(dynamic, 1)
    for (long long i = 0; i < rows; i++)
        if (!interrupt_requested())
            k->reference(one, dt, a + (size_t)i * s.p * el,
                         b + (own_b(op) ? (size_t)i * pm * el : 0), 0, 1,
                         r->val + (size_t)i * r->cols,
                         r->absval + (size_t)i * r->cols);
    rb_region_unmap(&in);
    return RB_OK;
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
 * the pages land next to the core that uses them (in a kept mapping they
 * were touched before: the sweep keeps them only where there is one NUMA
 * node). */
static void job_fill(void *arg, int tid, int nt)
{
    const exec_ctx *t = arg;
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
    harness_fill((char *)t->a + a_lo * t->elsize, t->dt, t->seed, 0, a_lo,
                 a_hi);
    harness_fill((char *)t->b + b_lo * t->elsize, t->dt, t->seed, 1, b_lo,
                 b_hi);
    for (uint64_t i = c_lo; i < c_hi; i++)
        store(t->c, i, t->dt, NAN);
}

/* Poisons this thread's outputs, so a kernel that writes nothing fails. */
static void job_poison(void *arg, int tid, int nt)
{
    const exec_ctx *t = arg;
    if (t->op == RB_OP_DOT) {
        store((char *)t->c + (size_t)tid * EXEC_PARTIAL_STRIDE, 0, t->dt, NAN);
        return;
    }
    size_t lo, hi;
    share(t->s.n, tid, nt, 1, &lo, &hi);
    const size_t ldc = ldc_of(t->op, t->s);
    for (uint64_t i = (uint64_t)lo * ldc; i < (uint64_t)hi * ldc; i++)
        store(t->c, i, t->dt, NAN);
}

/* ---- one row ------------------------------------------------------------ */

static size_t out_ld(const exec_ctx *t)
{
    return ldc_of(t->op, t->s);
}

/* The outputs against the reference: each kept row, or dot's partial sums
 * added up. */
static void verify(const exec_env *x, const executor *ex, const reference *ref,
                   ref_result *res)
{
    const exec_ctx *t = x->ctx;
    const double tol = ref_tolerance(t->dt, t->s.p);
    if (t->op == RB_OP_DOT) {
        long double sum = 0.0L;
        for (int i = 0; i < ex->parts(x); i++) {
            const char *slot =
                (const char *)t->c + (size_t)i * EXEC_PARTIAL_STRIDE;
            sum +=
                t->dt == RB_F32 ? *(const float *)slot : *(const double *)slot;
        }
        const double total = (double)sum;
        ref_check(RB_F64, 1, 1, &total, 1, ref->val, ref->absval, tol, res);
        return;
    }
    if (ref->nrows == ref_out_rows(t->op, t->s)) {
        ref_check(t->dt, ref->nrows, ref->cols, t->c, out_ld(t), ref->val,
                  ref->absval, tol, res);
        return;
    }
    ref_result worst = {0.0, tol, 0, 0, 1};
    for (size_t i = 0; i < ref->nrows; i++) {
        ref_result one;
        const char *row =
            (const char *)t->c + ref->rows[i] * out_ld(t) * t->elsize;
        ref_check(t->dt, 1, ref->cols, row, out_ld(t), ref->val + i * ref->cols,
                  ref->absval + i * ref->cols, tol, &one);
        if (one.max_err > worst.max_err || (worst.passed && !one.passed)) {
            worst.max_err = one.max_err;
            worst.worst_row = ref->rows[i];
            worst.worst_col = one.worst_col;
        }
        worst.passed &= one.passed;
    }
    *res = worst;
}

static int verify_failure(const exec_env *x, const ref_result *res,
                          const char *when, rb_err *e)
{
    const exec_ctx *t = x->ctx;
    return rb_fail(e, RB_EMEASURE,
                   "verification failed %s timing: %s %s shape %zu,%zu,%zu "
                   "threads %d: relative error %.3g at output [%zu,%zu] "
                   "exceeds the tolerance %.3g",
                   when, t->kernel->name, rb_dtype_name(t->dt), t->s.n, t->s.p,
                   t->s.m, x->pins->nthreads, res->max_err, res->worst_row,
                   res->worst_col, res->tol);
}

/* Warm-up, discarded; then the repetitions grow until one sample lasts
 * min_time, by the factor the last sample suggests (at least 2). */
static void calibrate(exec_env *x, const executor *ex, double min_time)
{
    exec_ctx *t = x->ctx;
    double sec = ex->time(x);
    while (sec < min_time && !interrupt_requested()) {
        double grow = sec > 0.0 ? 1.4 * min_time / sec : 1000.0;
        grow = fmin(fmax(grow, 2.0), 1000.0);
        t->reps = (uint64_t)ceil((double)t->reps * grow);
        sec = ex->time(x);
    }
}

/* The counted sample, summed over the threads it ran on, then the
 * self-check: counted FLOPs against the analytic count, instructions per
 * cycle plausible. */
static int count_sample(exec_env *x, const executor *ex,
                        const harness_plan *plan, harness_row *row, rb_err *e)
{
    const int nt = x->pins->nthreads;
    long long sums[HARNESS_MAX_THREADS][COUNTERS_MAX];
    int rcs[HARNESS_MAX_THREADS];
    rb_err errs[HARNESS_MAX_THREADS];
    memset(sums, 0, sizeof(sums));
    memset(rcs, 0, sizeof(rcs));
    x->ctx->events = plan->events;
    const int parts = ex->count(x, sums, rcs, errs, row->counted_note,
                                sizeof(row->counted_note));
    for (int i = 0; i < parts; i++)
        if (rcs[i]) {
            *e = errs[i];
            return rcs[i];
        }
    row->counted = 1;
    row->counted_reps = x->ctx->reps;
    const counters_events *ev = plan->events;
    for (int i = 0; i < parts; i++)
        for (int k = 0; k < ev->n; k++)
            row->ctr_counts[k] += sums[i][k];
    double flops = -1.0, ins = -1.0, cyc = -1.0;
    for (int k = 0; k < ev->n; k++) {
        if (!ev->usable[k])
            continue;
        const double v = (double)row->ctr_counts[k] / (double)row->counted_reps;
        if (ev->kind[k] == CE_FLOPS)
            flops = v;
        else if (ev->kind[k] == CE_INSTRUCTIONS)
            ins = v;
        else if (ev->kind[k] == CE_CYCLES)
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

/* The timed samples, then the counted one when events were asked for. */
static int take_samples(exec_env *x, const executor *ex,
                        const harness_plan *plan, harness_row *row, rb_err *e)
{
    row->reps = x->ctx->reps;
    row->samples = malloc((size_t)plan->samples * sizeof(*row->samples));
    if (!row->samples)
        return rb_fail(e, RB_EINPUT, "out of memory for samples");
    for (int i = 0; i < plan->samples && !interrupt_requested(); i++)
        row->samples[row->nsamples++] = ex->time(x) / (double)x->ctx->reps;
    if (interrupt_requested())
        return RB_OK;
    stats_summarize(row->samples, (size_t)row->nsamples, &row->time);
    if (plan->events && plan->events->nusable > 0)
        return count_sample(x, ex, plan, row, e);
    return RB_OK;
}

_Static_assert((int)HARNESS_MAX_THREADS <= (int)POOL_CLOCK_MAX,
               "the clock job holds a sum for every thread of a team");

/* The team's clock now: 64 dependent adds per iteration, one cycle each
 * (rb_clock_chain), about a millisecond on every thread between barriers,
 * the best of five; *spread the best over the median, minus 1. */
static double team_ghz(pool *team, double *spread)
{
    pool_clock c = {.iters = 40000};
    double g[5];
    for (int i = 0; i < 5; i++) {
        const double s = pool_run(team, pool_job_clock, &c);
        g[i] = s > 0.0 ? 64.0 * (double)c.iters / s / 1e9 : 0.0;
    }
    const double best = stats_max(g, 5), med = stats_median(g, 5);
    *spread = med > 0.0 ? best / med - 1.0 : 0.0;
    return best;
}

/* The vector FMA rate the team gets now: five half milliseconds of the
 * roofline's peak kernel, the best. */
enum {
    PEAK_NOW_REPS = 100000,
    PEAK_NOW_TRIES = 5,
    READ_NOW_TRIES = 3,
    FMASTREAM_NOW_TRIES = 1
};

/* The row's largest input operand (what its memory roof streams), and
 * its bytes. */
static const void *largest_input(const exec_ctx *t, size_t *bytes)
{
    uint64_t el[3] = {0, 0, 0};
    rb_operand_elems(t->op, t->s, el);
    const int b = el[1] > el[0];
    *bytes = (size_t)(el[b] * t->elsize);
    return b ? t->b : t->a;
}

unsigned harness_fmas_per_element(rb_op op, rb_shape s)
{
    uint64_t el[3] = {0, 0, 0};
    rb_counts c;
    if (rb_operand_elems(op, s, el) || rb_counts_of(op, s, 4, &c))
        return 0;
    const uint64_t big = el[1] > el[0] ? el[1] : el[0];
    if (big == 0)
        return 0;
    const double f = (double)c.flops / 2.0 / (double)big;
    return f < 1.5 ? 1u : f > 1e6 ? 1000000u : (unsigned)(f + 0.5);
}

/* The streaming FMA probe over the row's largest input (in, bytes),
 * where the plan asks for it (row->fmastream_fmas set). */
static double probe_fmastream(const exec_env *x, harness_row *row,
                              const void *in, size_t bytes)
{
    if (row->fmastream_fmas == 0)
        return 0.0;
    return ceilings_fmastream_now(x->team, row->threads, x->ctx->dt, in, bytes,
                                  row->fmastream_fmas, FMASTREAM_NOW_TRIES,
                                  &row->fmastream_bytes);
}

/* One row: verified, calibrated, timed, verified again. With an interrupt
 * the row is left without samples (the caller drops it). */
static int measure_row(exec_env *x, const harness_plan *plan,
                       const reference *ref, harness_row *row, rb_err *e)
{
    exec_ctx *t = x->ctx;
    const executor *ex = exec_for(t->kernel);
    memset(row, 0, sizeof(*row));
    row->kernel = t->kernel;
    row->dtype = t->dt;
    row->shape = t->s;
    row->threads = x->pins->nthreads;
    row->events = plan->events;
    t->kernel->counts(t->s, t->elsize, &row->counts);
    int rc = ex->begin(x, &row->library_threads, e);
    if (rc)
        return rc;
    ex->binding(x, row->binding, sizeof(row->binding));
    pool_run(x->team, job_poison, t);
    t->reps = 1;
    ex->time(x);
    verify(x, ex, ref, &row->check_before);
    if (!row->check_before.passed)
        rc = verify_failure(x, &row->check_before, "before", e);
    if (!rc && !interrupt_requested()) {
        row->ghz_before = team_ghz(x->team, &row->ghz_spread_before);
        row->peak_before = ceilings_peak_now(x->team, row->threads, t->dt,
                                             PEAK_NOW_REPS, PEAK_NOW_TRIES);
        size_t in_bytes;
        const void *in = largest_input(t, &in_bytes);
        row->read_before = ceilings_read_now(x->team, row->threads, in,
                                             in_bytes, READ_NOW_TRIES,
                                             &row->read_bytes);
        row->fmastream_fmas = plan->fmastream & (1u << t->op)
                                  ? harness_fmas_per_element(t->op, t->s)
                                  : 0;
        row->fmastream_before = probe_fmastream(x, row, in, in_bytes);
        calibrate(x, ex, plan->min_time);
        if (!interrupt_requested())
            rc = take_samples(x, ex, plan, row, e);
        row->peak_after = ceilings_peak_now(x->team, row->threads, t->dt,
                                            PEAK_NOW_REPS, PEAK_NOW_TRIES);
        row->read_after = ceilings_read_now(x->team, row->threads, in,
                                            in_bytes, READ_NOW_TRIES,
                                            &row->read_bytes);
        row->fmastream_after = probe_fmastream(x, row, in, in_bytes);
        row->ghz_after = team_ghz(x->team, &row->ghz_spread_after);
    }
    if (!rc && !interrupt_requested()) {
        verify(x, ex, ref, &row->check_after);
        if (!row->check_after.passed)
            rc = verify_failure(x, &row->check_after, "after", e);
    }
    rc = ex->end(x, rc, e);
    if (rc != RB_OK || interrupt_requested()) {
        free(row->samples);
        row->samples = NULL;
        row->nsamples = 0;
    }
    return rc;
}

/* ---- the plan ----------------------------------------------------------- */

/* Adds a finished row and tells the caller, both under the interrupt lock
 * (a rescue renders the rows). */
static int append_row(harness_result *res, const harness_row *row,
                      harness_row_cb cb, void *cbctx, rb_err *e)
{
    int rc = RB_OK;
    interrupt_lock();
    if (res->nrows == res->cap) {
        const size_t cap = res->cap ? 2 * res->cap : 32;
        harness_row *rows = realloc(res->rows, cap * sizeof(*rows));
        if (rows) {
            res->rows = rows;
            res->cap = cap;
        } else {
            rc = rb_fail(e, RB_EINPUT, "out of memory for result rows");
        }
    }
    if (!rc) {
        res->rows[res->nrows++] = *row;
        if (cb)
            cb(&res->rows[res->nrows - 1], cbctx);
    }
    interrupt_unlock();
    return rc;
}

void harness_result_free(harness_result *res)
{
    for (size_t i = 0; i < res->nrows; i++)
        free(res->rows[i].samples);
    free(res->rows);
    memset(res, 0, sizeof(*res));
}

/* The three operands in one region (region.h): page-aligned, and, when
 * together they fit in 1 MiB, free of L1 utag aliasing among themselves
 * whatever addresses the process gets. */
static int map_operands(exec_ctx *ctx, int nthreads, rb_region *reg, rb_err *e)
{
    uint64_t el[3];
    rb_operand_elems(ctx->op, ctx->s, el);
    const size_t bytes[3] = {
        (size_t)(el[0] * ctx->elsize), (size_t)(el[1] * ctx->elsize),
        (size_t)(ctx->op == RB_OP_DOT ? (uint64_t)nthreads * EXEC_PARTIAL_STRIDE
                                      : el[2] * ctx->elsize)};
    char what[96];
    snprintf(what, sizeof(what), "the operands of %s %s", rb_op_name(ctx->op),
             rb_dtype_name(ctx->dt));
    const int rc = rb_region_map(reg, 3, bytes, ALIGN, 0, what, e);
    if (rc)
        return rc;
    ctx->a = reg->buf[0];
    ctx->b = reg->buf[1];
    ctx->c = reg->buf[2];
    return RB_OK;
}

/* All rows of one operation, dtype and thread count. */
static int run_team(hwloc_topology_t topo, const harness_plan *plan, rb_op op,
                    rb_dtype dt, int nthreads, const reference *ref,
                    harness_result *res, harness_row_cb cb, void *cbctx,
                    rb_err *e)
{
    exec_ctx ctx = {.op = op,
                    .s = plan->shape[op],
                    .dt = dt,
                    .elsize = rb_dtype_size(dt),
                    .seed = plan->seed};
    rb_region operands = {0};
    pin_plan pins;
    pool *team;
    int rc = pool_open(topo, nthreads, &pins, &team, e);
    if (rc)
        return rc;
    rc = map_operands(&ctx, nthreads, &operands, e);
    if (!rc)
        pool_run(team, job_fill, &ctx);
    exec_env x = {.topo = topo, .pins = &pins, .team = team, .ctx = &ctx};
    for (size_t i = 0; !rc && i < plan->nkernels && !interrupt_requested();
         i++) {
        if (plan->kernels[i]->op != op)
            continue;
        ctx.kernel = plan->kernels[i];
        progress_note("%s %s, %d thread%s: verifying and timing",
                      ctx.kernel->name, rb_dtype_name(dt), nthreads,
                      rb_plural(nthreads));
        harness_row row;
        rc = measure_row(&x, plan, ref, &row, e);
        if (rc || interrupt_requested())
            break;
        rc = append_row(res, &row, cb, cbctx, e);
        if (rc)
            free(row.samples);
    }
    rb_region_unmap(&operands);
    return pool_close(topo, team, &pins, rc, e);
}

int harness_run(hwloc_topology_t topo, const harness_plan *plan,
                harness_result *res, harness_row_cb cb, void *ctx, rb_err *e)
{
    openblas_set_num_threads(1);
    int rc = RB_OK;
    for (int op = 0; op < RB_NOPS && !rc; op++) {
        const rb_kernel *first = NULL;
        for (size_t i = 0; i < plan->nkernels && !first; i++)
            if (plan->kernels[i]->op == (rb_op)op)
                first = plan->kernels[i];
        for (int d = 0;
             first && d < plan->ndtypes && !rc && !interrupt_requested(); d++) {
            reference ref;
            rc = reference_make(first, plan->shape[op], plan->dtypes[d],
                                plan->seed, plan->verify_rows, &ref, e);
            for (int t = 0; !rc && t < plan->nthreads && !interrupt_requested();
                 t++)
                rc = run_team(topo, plan, (rb_op)op, plan->dtypes[d],
                              plan->threads[t], &ref, res, cb, ctx, e);
            reference_free(&ref);
        }
    }
    interrupt_lock();
    res->interrupted = interrupt_requested() != 0;
    interrupt_unlock();
    return rc;
}
