/* Measuring the roofs, the way likwid-bench and the Empirical Roofline
 * Toolkit do: every figure comes from a kernel that runs on pinned threads
 * between barriers, whose result is checked against a closed form after
 * timing, so the compiler cannot have deleted the work and a wrong kernel
 * cannot report a rate. */
#include "ceilings.h"

#include <cblas.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/ref.h"
#include "harness.h"
#include "pin.h"
#include "pool.h"
#include "results.h"
#include "stats.h"
#include "timer.h"

static const char *const bw_names[BW_NKERNELS] = {"read", "write", "copy",
                                                  "triad", "schoenauer"};

const char *bw_kernel_name(bw_kernel k)
{
    return k < BW_NKERNELS ? bw_names[k] : "?";
}

int bw_kernel_streams(bw_kernel k)
{
    static const int streams[BW_NKERNELS] = {1, 1, 2, 3, 4};
    return k < BW_NKERNELS ? streams[k] : 0;
}

/* ---- selection ----------------------------------------------------------- */

const rb_peak_variant *ceilings_peak_select(unsigned isa, unsigned bits)
{
    for (size_t i = 0; i < rb_npeak_variants; i++) {
        const rb_peak_variant *v = &rb_peak_variants[i];
        if (v->bits == bits && (v->needs & isa) == v->needs)
            return v; /* the table lists FMA variants first */
    }
    return NULL;
}

const rb_stream_variant *ceilings_stream_select(unsigned isa, unsigned bits)
{
    for (size_t i = 0; i < rb_nstream_variants; i++) {
        const rb_stream_variant *v = &rb_stream_variants[i];
        if (v->bits == bits && (v->needs & isa) == v->needs)
            return v;
    }
    return NULL;
}

int ceilings_fma_pipes(const host_cpu *cpu, unsigned bits, const char **source)
{
    *source = "unknown microarchitecture";
    if (strcmp(cpu->vendor, "AuthenticAMD") != 0)
        return 0;
    switch (cpu->family) {
    case 0x17:
        if (cpu->model < 0x30) {
            /* Zen, Zen+: two 128-bit FMA pipes; a 256-bit op takes both. */
            *source = "AMD Zen/Zen+: 2 x 128-bit FMA";
            return bits <= 128 ? 2 : bits == 256 ? 1 : 0;
        }
        *source = "AMD Zen 2: 2 x 256-bit FMA";
        return bits <= 256 ? 2 : 0;
    case 0x19:
        if (!cpu->avx512f) {
            *source = "AMD Zen 3: 2 x 256-bit FMA";
            return bits <= 256 ? 2 : 0;
        }
        /* Zen 4 splits a 512-bit op over its two 256-bit pipes. */
        *source = "AMD Zen 4: 2 x 256-bit FMA, 512-bit ops in two halves";
        return bits <= 256 ? 2 : 1;
    case 0x1a:
        *source = "AMD Zen 5: 2 x 512-bit FMA (server and desktop parts)";
        return 2;
    default:
        return 0;
    }
}

double ceilings_theoretical_gflops(int threads, double ghz, unsigned lanes,
                                   int pipes)
{
    return (double)threads * ghz * (double)lanes * 2.0 * (double)pipes;
}

/* ---- plans --------------------------------------------------------------- */

void ceilings_plan_defaults(ceilings_plan *plan, int quick, int ncores,
                            unsigned isa, double llc_bytes, double mem_avail)
{
    memset(plan, 0, sizeof(*plan));
    plan->threads[plan->nthreads++] = 1;
    if (ncores > 1)
        plan->threads[plan->nthreads++] = ncores;
    plan->dtypes[0] = RB_F32;
    plan->dtypes[1] = RB_F64;
    plan->ndtypes = 2;
    static const unsigned widths[] = {64, 128, 256, 512};
    for (int i = 0; i < 4; i++)
        if (ceilings_peak_select(isa, widths[i]))
            plan->widths[plan->nwidths++] = widths[i];
    for (int k = 0; k < BW_NKERNELS; k++)
        plan->bw_kernels[k] = 1;
    plan->bw_width = 128;
    for (size_t i = 0; i < rb_nstream_variants; i++)
        if ((rb_stream_variants[i].needs & isa) ==
                rb_stream_variants[i].needs &&
            rb_stream_variants[i].bits > plan->bw_width)
            plan->bw_width = rb_stream_variants[i].bits;
    /* From a few KiB (inside any L1) to well past the last cache: at least
     * 1 GiB, the brief's floor for DRAM, and 8x what hwloc reports. */
    plan->size_min = 4096.0;
    plan->past_cache_bytes = fmax(1024.0 * 1024 * 1024, 4.0 * llc_bytes);
    plan->size_max = fmax(1024.0 * 1024 * 1024, 8.0 * llc_bytes);
    if (mem_avail > 0.0 && plan->size_max > mem_avail / 3.0)
        plan->size_max = mem_avail / 3.0;
    plan->factor = quick ? 1.5 : 1.25;
    plan->bw_target_bytes = quick ? 256.0 * 1024 * 1024 : 1024.0 * 1024 * 1024;
    plan->min_time = quick ? 0.02 : 0.05;
    plan->samples = quick ? 3 : 5;
    plan->gemm_n = quick ? 2000 : 4000;
}

int ceilings_check_plan(const ceilings_plan *plan, unsigned isa,
                        double mem_avail, rb_err *e)
{
    for (int i = 0; i < plan->nwidths; i++)
        if (!ceilings_peak_select(isa, plan->widths[i]))
            return rb_fail(e, RB_EINPUT,
                           "--width %u: this CPU has no usable %u-bit %s",
                           plan->widths[i], plan->widths[i],
                           plan->widths[i] == 512   ? "AVX-512F"
                           : plan->widths[i] == 256 ? "AVX with FMA"
                                                    : "vector unit");
    if (!ceilings_stream_select(isa, plan->bw_width))
        return rb_fail(e, RB_EINPUT,
                       "--bw-width %u: no bandwidth kernel of that width runs "
                       "on this CPU (128, 256 with AVX, 512 with AVX-512F)",
                       plan->bw_width);
    if (!(plan->size_min > 0.0) || plan->size_max < plan->size_min)
        return rb_fail(e, RB_EINPUT,
                       "--size %.0f:%.0f: an empty range (the end must be at "
                       "least the start)",
                       plan->size_min, plan->size_max);
    if (mem_avail > 0.0 && plan->size_max > mem_avail / 2.0)
        return rb_fail(e, RB_EINPUT,
                       "--size ...:%.0f: working sets up to %.3g GB do not fit "
                       "beside the %.3g GB of memory available (at most half "
                       "of it)",
                       plan->size_max, plan->size_max / 1e9, mem_avail / 1e9);
    const double points = log(plan->size_max / plan->size_min) /
                          log(plan->factor);
    if (points + 1 > CEIL_MAX_POINTS)
        return rb_fail(e, RB_EINPUT,
                       "--factor %g: %.0f points in the sweep, more than %d",
                       plan->factor, points + 1, CEIL_MAX_POINTS);
    return RB_OK;
}

/* ---- timing on a team ---------------------------------------------------- */

/* Grows *reps until one run of the job lasts min_time, then times
 * nsamples runs; returns the seconds of each in out. */
static void sample_job(pool *team, pool_job job, void *ctx, uint64_t *reps,
                       double min_time, int nsamples, double *out)
{
    double sec = pool_run(team, job, ctx); /* warm-up, discarded */
    while (sec < min_time) {
        double grow = sec > 0.0 ? 1.4 * min_time / sec : 1000.0;
        grow = fmin(fmax(grow, 2.0), 1000.0);
        *reps = (uint64_t)ceil((double)*reps * grow);
        sec = pool_run(team, job, ctx);
    }
    for (int i = 0; i < nsamples; i++)
        out[i] = pool_run(team, job, ctx);
}

static double max_of(const double *x, int n)
{
    double m = x[0];
    for (int i = 1; i < n; i++)
        m = fmax(m, x[i]);
    return m;
}

/* ---- clock --------------------------------------------------------------- */

typedef struct {
    uint64_t reps;
    uint64_t sums[CEIL_MAX_THREADS];
} clock_ctx;

static void job_clock(void *arg, int tid, int nt)
{
    (void)nt;
    clock_ctx *c = arg;
    c->sums[tid] = rb_clock_chain(c->reps);
}

/* GHz of every thread of the team running the add chain at once. */
static int measure_clock(pool *team, int nt, const ceilings_plan *plan,
                         json_t **out, double *ghz, rb_err *e)
{
    clock_ctx c = {.reps = 1000};
    double sec[64], g[64];
    sample_job(team, job_clock, &c, &c.reps, plan->min_time, plan->samples,
               sec);
    for (int t = 0; t < nt; t++)
        if (c.sums[t] != 64 * c.reps)
            return rb_fail(e, RB_EMEASURE,
                           "clock chain: thread %d summed %llu, expected %llu",
                           t, (unsigned long long)c.sums[t],
                           (unsigned long long)(64 * c.reps));
    json_t *samples = json_array();
    for (int i = 0; i < plan->samples; i++) {
        g[i] = 64.0 * (double)c.reps / sec[i] / 1e9;
        json_array_append_new(samples, json_real(g[i]));
    }
    /* The best sample, as for every roof: a neighbour on a shared machine
     * can only slow a sample down. */
    *ghz = max_of(g, plan->samples);
    *out = json_pack("{s:i, s:f, s:f, s:o, s:s}", "threads", nt, "ghz", *ghz,
                     "ghz_median", stats_median(g, (size_t)plan->samples),
                     "samples_ghz", samples, "method",
                     "64 dependent integer adds per iteration, one cycle "
                     "each, on every thread at once; ghz is the best "
                     "sample");
    return RB_OK;
}

/* ---- peak FLOP/s --------------------------------------------------------- */

enum { ACC_MAX = 24 * 16 }; /* chains x lanes of the widest variant */

typedef struct {
    uint64_t reps;
    const rb_peak_variant *v;
    rb_dtype dt;
    double acc64[CEIL_MAX_THREADS][ACC_MAX];
    float acc32[CEIL_MAX_THREADS][ACC_MAX];
} peak_ctx;

/* x < 1 keeps every accumulator bounded: acc -> y / (1 - x) = 1. */
static const double PEAK_X = 0.75, PEAK_Y = 0.25;

static double acc_start(int i)
{
    return 2.0 + (double)(i % 13) / 8.0;
}

static void job_peak(void *arg, int tid, int nt)
{
    (void)nt;
    peak_ctx *c = arg;
    /* Start from the same values every time so the closed form holds for
     * the last run's repetitions alone. */
    for (int i = 0; i < ACC_MAX; i++) {
        c->acc64[tid][i] = acc_start(i);
        c->acc32[tid][i] = (float)acc_start(i);
    }
    if (c->dt == RB_F64)
        c->v->f64(c->reps, PEAK_X, PEAK_Y, c->acc64[tid]);
    else
        c->v->f32(c->reps, (float)PEAK_X, (float)PEAK_Y, c->acc32[tid]);
}

static unsigned lanes_of(unsigned bits, rb_dtype dt)
{
    return bits == 64 ? 1 : bits / (8 * (unsigned)rb_dtype_size(dt));
}

static int measure_peak(pool *team, int nt, const rb_peak_variant *v,
                        rb_dtype dt, const ceilings_plan *plan, int nsamples,
                        const host_cpu *cpu, double ghz, json_t **out,
                        double *best_out, rb_err *e)
{
    peak_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return rb_fail(e, RB_EINPUT, "out of memory");
    c->reps = 1000;
    c->v = v;
    c->dt = dt;
    double sec[64];
    sample_job(team, job_peak, c, &c->reps, plan->min_time, nsamples, sec);
    const unsigned lanes = lanes_of(v->bits, dt);
    const unsigned vals = v->chains * lanes;
    /* Closed form: acc_n = f + x^n (acc_0 - f), f = 1. */
    const long double xn = powl((long double)(dt == RB_F64 ? PEAK_X
                                                           : (float)PEAK_X),
                                (long double)c->reps);
    double max_err = 0.0;
    for (int t = 0; t < nt; t++)
        for (unsigned i = 0; i < vals; i++) {
            const double got = dt == RB_F64 ? c->acc64[t][i] : c->acc32[t][i];
            const double want = (double)(1.0L + xn * (acc_start((int)i) -
                                                      1.0L));
            const double err = isfinite(got) ? fabs(got - want) : INFINITY;
            max_err = fmax(max_err, err);
        }
    /* A fixed-point iteration settles within a few ulps of 1. */
    const double tol = 64.0 * rb_dtype_eps(dt);
    const uint64_t reps = c->reps;
    free(c);
    if (!(max_err <= tol))
        return rb_fail(e, RB_EMEASURE,
                       "peak kernel %s %s: result off its closed form by %g "
                       "(tolerance %g)",
                       v->name, rb_dtype_name(dt), max_err, tol);

    const double flops = (double)reps * vals * 2.0 * nt;
    double gf[64];
    json_t *samples = json_array();
    for (int i = 0; i < nsamples; i++) {
        gf[i] = flops / sec[i] / 1e9;
        json_array_append_new(samples, json_real(gf[i]));
    }
    const double best = max_of(gf, nsamples);
    const double fpc = best / nt / ghz;
    const char *src;
    int pipes = ceilings_fma_pipes(cpu, v->bits, &src);
    const int known = pipes > 0;
    if (!known) {
        /* Not in the table: infer the pipes from what was measured, and
         * say so, so that a ratio of 1 is not mistaken for a check. */
        pipes = (int)fmax(1.0, round(fpc / (lanes * 2.0)));
        src = "inferred from the measured FLOPs per cycle (microarchitecture "
              "not in the table)";
    }
    const double theo = ceilings_theoretical_gflops(nt, ghz, lanes, pipes);
    *best_out = best;
    *out = json_pack(
        "{s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:f, s:f, s:f, s:f, s:f, s:i, "
        "s:s, s:b, s:I, s:o, s:f}",
        "dtype", rb_dtype_name(dt), "variant", v->name, "width_bits",
        (int)v->bits, "lanes", (int)lanes, "chains", (int)v->chains,
        "threads", nt, "fma", v->fma, "gflops", best, "gflops_median",
        stats_median(gf, (size_t)nsamples), "flops_per_cycle_per_core",
        fpc, "theoretical_gflops", theo, "ratio_to_theoretical", best / theo,
        "fma_pipes", pipes, "fma_pipes_source", src, "fma_pipes_known", known,
        "iterations_per_sample", (json_int_t)reps, "samples_gflops", samples,
        "max_abs_error", max_err);
    return RB_OK;
}

/* ---- bandwidth ------------------------------------------------------------ */

typedef struct {
    uint64_t reps;
    const rb_stream_variant *v;
    bw_kernel kernel;
    size_t n;       /* elements per stream per thread at this point */
    size_t cap;     /* elements allocated per stream per thread     */
    double *buf[CEIL_MAX_THREADS][4];
    rb_region region[CEIL_MAX_THREADS];
    uint64_t sums[CEIL_MAX_THREADS][RB_STREAM_SUMS];
    double write_value;
} bw_ctx;

/* Values with exact sums and products: small integers. */
static double pattern_b(size_t i)
{
    return (double)(i % 7 + 1);
}

static double pattern_c(size_t i)
{
    return (double)(i % 5 + 1);
}

static double pattern_d(size_t i)
{
    return (double)(i % 3 + 1);
}

static const double TRIAD_S = 3.0;

/* First touch by the owner: each thread writes all of its own streams. */
static void job_bw_fill(void *arg, int tid, int nt)
{
    (void)nt;
    bw_ctx *c = arg;
    const int streams = bw_kernel_streams(c->kernel);
    for (size_t i = 0; i < c->cap; i++) {
        if (c->kernel == BW_READ) {
            ((uint64_t *)c->buf[tid][0])[i] = i % 7 + 1;
            continue;
        }
        c->buf[tid][0][i] = NAN;
        if (streams > 1)
            c->buf[tid][1][i] = pattern_b(i);
        if (streams > 2)
            c->buf[tid][2][i] = pattern_c(i);
        if (streams > 3)
            c->buf[tid][3][i] = pattern_d(i);
    }
}

/* Outputs poisoned before each point, so a skipped store is caught. */
static void job_bw_poison(void *arg, int tid, int nt)
{
    (void)nt;
    bw_ctx *c = arg;
    if (c->kernel != BW_READ)
        for (size_t i = 0; i < c->n; i++)
            c->buf[tid][0][i] = NAN;
}

static void job_bw(void *arg, int tid, int nt)
{
    (void)nt;
    bw_ctx *c = arg;
    double *const *b = c->buf[tid];
    switch (c->kernel) {
    case BW_READ:
        memset(c->sums[tid], 0, sizeof(c->sums[tid]));
        c->v->read((const uint64_t *)b[0], c->n, c->reps, c->sums[tid]);
        break;
    case BW_WRITE:
        c->v->write(b[0], c->n, c->reps, c->write_value);
        break;
    case BW_COPY:
        c->v->copy(b[0], b[1], c->n, c->reps);
        break;
    case BW_TRIAD:
        c->v->triad(b[0], b[1], b[2], TRIAD_S, c->n, c->reps);
        break;
    default:
        c->v->schoenauer(b[0], b[1], b[2], b[3], c->n, c->reps);
        break;
    }
    __asm__ volatile("" : : "r"(b[0]) : "memory");
}

/* Checks every element the point touched against its closed form. */
static int bw_verify(const bw_ctx *c, int nt, rb_err *e)
{
    for (int t = 0; t < nt; t++) {
        const double *a = c->buf[t][0];
        if (c->kernel == BW_READ) {
            /* reps passes over sum (i % 7 + 1), i < n: whole cycles of 28
             * plus the rest, in exact integer arithmetic. */
            const uint64_t q = c->n / 7, rem = c->n % 7;
            const uint64_t want = c->reps * (28 * q + rem * (rem + 1) / 2);
            uint64_t got = 0;
            for (int i = 0; i < RB_STREAM_SUMS; i++)
                got += c->sums[t][i];
            if (got != want)
                return rb_fail(e, RB_EMEASURE,
                               "read kernel: thread %d summed %llu, expected "
                               "%llu",
                               t, (unsigned long long)got,
                               (unsigned long long)want);
            continue;
        }
        for (size_t i = 0; i < c->n; i++) {
            const double want =
                c->kernel == BW_WRITE  ? c->write_value
                : c->kernel == BW_COPY ? pattern_b(i)
                : c->kernel == BW_TRIAD
                    ? pattern_b(i) + TRIAD_S * pattern_c(i)
                    : pattern_b(i) + pattern_c(i) * pattern_d(i);
            if (a[i] != want)
                return rb_fail(e, RB_EMEASURE,
                               "%s kernel: thread %d element %zu is %g, "
                               "expected %g",
                               bw_kernel_name(c->kernel), t, i, a[i], want);
        }
    }
    return RB_OK;
}

static void bw_free(bw_ctx *c, int nt)
{
    for (int t = 0; t < nt; t++)
        rb_region_unmap(&c->region[t]);
}

/* The sweep of one kernel on one team. The working set of a point is all
 * streams of all threads; each thread streams its own first-touched part. */
static int measure_bw_curve(pool *team, int nt, bw_kernel k,
                            const ceilings_plan *plan, unsigned isa,
                            size_t cache_levels, const double *cache_bytes,
                            json_t **out, rb_err *e)
{
    bw_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return rb_fail(e, RB_EINPUT, "out of memory");
    c->v = ceilings_stream_select(isa, plan->bw_width);
    const char *variant = c->v->name;
    c->kernel = k;
    const int streams = bw_kernel_streams(k);
    const double per_elem = 8.0 * streams * nt;
    c->cap = (size_t)(plan->size_max / per_elem);
    c->cap = (c->cap / RB_STREAM_BLOCK + 1) * RB_STREAM_BLOCK;
    for (int t = 0; t < nt; t++) {
        const size_t bytes[4] = {c->cap * 8, c->cap * 8, c->cap * 8,
                                 c->cap * 8};
        const int rc =
            rb_region_map(&c->region[t], streams, bytes, RB_REGION_SPAN,
                          BW_STREAM_SHIFT, "the bandwidth sweep", e);
        if (rc) {
            bw_free(c, nt);
            free(c);
            return rc;
        }
        for (int s = 0; s < streams; s++)
            c->buf[t][s] = c->region[t].buf[s];
    }
    pool_run(team, job_bw_fill, c);

    /* The points: geometric steps from size_min, and size_max itself as the
     * last; elements per stream per thread in whole blocks. */
    size_t elems[CEIL_MAX_POINTS], np = 0;
    for (double ws = plan->size_min; np < CEIL_MAX_POINTS; ws *= plan->factor) {
        const int last = ws * plan->factor > plan->size_max * 1.0001;
        size_t n = (size_t)((last ? plan->size_max : ws) / per_elem) /
                   RB_STREAM_BLOCK * RB_STREAM_BLOCK;
        if (n < RB_STREAM_BLOCK)
            n = RB_STREAM_BLOCK;
        if (np == 0 || n != elems[np - 1])
            elems[np++] = n;
        if (last)
            break;
    }

    /* CEIL_PASSES sweeps, the odd ones backwards, each taking its share of
     * the samples: a neighbour that slows this machine for a few seconds
     * then costs one pass over some points, not the curve. */
    const int per_pass = (plan->samples + CEIL_PASSES - 1) / CEIL_PASSES;
    const int nsamples = per_pass * CEIL_PASSES;
    double(*gbs)[CEIL_PASSES * 64] = calloc(np, sizeof(*gbs));
    int rc = gbs ? RB_OK : rb_fail(e, RB_EINPUT, "out of memory");
    for (int pass = 0; pass < CEIL_PASSES && !rc; pass++)
        for (size_t j = 0; j < np && !rc; j++) {
            const size_t p = pass % 2 ? np - 1 - j : j;
            c->n = elems[p];
            c->write_value = (double)(pass * CEIL_MAX_POINTS + p) + 0.5;
            const double actual = per_elem * (double)c->n;
            c->reps =
                (uint64_t)fmax(1.0, round(plan->bw_target_bytes / actual));
            pool_run(team, job_bw_poison, c);
            pool_run(team, job_bw, c); /* warm-up, discarded */
            for (int i = 0; i < per_pass; i++)
                gbs[p][pass * per_pass + i] =
                    actual * (double)c->reps / pool_run(team, job_bw, c) / 1e9;
            rc = bw_verify(c, nt, e);
        }

    json_t *points = json_array();
    double bytes[CEIL_MAX_POINTS], best[CEIL_MAX_POINTS];
    for (size_t p = 0; p < np && !rc; p++) {
        bytes[p] = per_elem * (double)elems[p];
        best[p] = max_of(gbs[p], nsamples);
        json_t *samples = json_array();
        for (int i = 0; i < nsamples; i++)
            json_array_append_new(samples, json_real(gbs[p][i]));
        json_array_append_new(
            points,
            json_pack("{s:f, s:f, s:f, s:f, s:I, s:o}", "bytes", bytes[p],
                      "bytes_per_thread", bytes[p] / nt, "gbs",
                      stats_median(gbs[p], (size_t)nsamples), "gbs_best",
                      best[p], "passes_per_sample",
                      (json_int_t)fmax(1.0, round(plan->bw_target_bytes /
                                                  bytes[p])),
                      "samples_gbs", samples));
    }
    free(gbs);
    bw_free(c, nt);
    free(c);
    if (rc) {
        json_decref(points);
        return rc;
    }

    /* Levels from the best sample of each point: a roof is the most the
     * machine delivered, and on a shared machine a slow sample is more
     * often a neighbour than the memory (median and samples stay in the
     * points). The last plateau is DRAM when the sweep went past every
     * cache (plan->past_cache_bytes). */
    plateau lv[CEIL_MAX_LEVELS];
    /* Steps below 12% are drift within a level; a sweep that ends within
     * a block of past_cache_bytes has reached it. */
    const size_t nl = plateau_detect(bytes, best, np, 1.12,
                                     plan->past_cache_bytes * 0.99,
                                     cache_levels, cache_bytes, lv,
                                     CEIL_MAX_LEVELS);
    json_t *levels = json_array();
    for (size_t i = 0; i < nl; i++)
        json_array_append_new(
            levels,
            json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:i}", "name",
                      lv[i].name, "gbs", lv[i].gbs, "first_bytes",
                      lv[i].first_bytes, "last_bytes", lv[i].last_bytes,
                      "last_bytes_per_thread", lv[i].last_bytes / nt,
                      "next_bytes", lv[i].next_bytes, "points",
                      (int)(lv[i].last - lv[i].first + 1)));
    *out = json_pack("{s:s, s:i, s:s, s:i, s:i, s:s, s:o, s:o}", "kernel",
                     bw_kernel_name(k), "threads", nt, "variant", variant,
                     "width_bits", (int)plan->bw_width, "streams", streams,
                     "stream_layout",
                     "one mapping per thread, 1 MiB-aligned; stream s at "
                     "s x (a multiple of 256 MiB + 64 KiB + 192 B)",
                     "points", points, "levels", levels);
    return RB_OK;
}

/* ---- GEMM: the practical compute roof ------------------------------------ */

static int measure_gemm(hwloc_topology_t topo, const pin_plan *pins,
                        rb_dtype dt, const ceilings_plan *plan, json_t **out,
                        double *best_out, rb_err *e)
{
    const size_t n = plan->gemm_n, el = rb_dtype_size(dt);
    const rb_kernel *k = rb_kernel_find("matmul_openblas");
    void *a = aligned_alloc(4096, (n * n * el + 4095) / 4096 * 4096);
    void *b = aligned_alloc(4096, (n * n * el + 4095) / 4096 * 4096);
    void *c = aligned_alloc(4096, (n * n * el + 4095) / 4096 * 4096);
    int rc = RB_OK;
    if (!a || !b || !c) {
        rc = rb_fail(e, RB_EINPUT, "out of memory for the GEMM roof");
        goto out;
    }
    for (size_t i = 0; i < n * n; i++) {
        const double va = harness_value(7, 0, i, dt), vb =
                                                          harness_value(7, 1, i,
                                                                        dt);
        if (dt == RB_F32) {
            ((float *)a)[i] = (float)va;
            ((float *)b)[i] = (float)vb;
        } else {
            ((double *)a)[i] = va;
            ((double *)b)[i] = vb;
        }
    }
    /* OpenBLAS threads itself: the caller covers all of the team's PUs. */
    if ((rc = pin_bind_self(topo, pins->all, e)))
        goto out;
    openblas_set_num_threads(pins->nthreads);
    const rb_operands x = {.n = n, .p = n, .m = n, .a = a, .lda = n,
                           .b = b, .ldb = n, .c = c, .ldc = n, .team = NULL};
    double sec[64];
    double t0 = timer_now();
    k->fn[dt](&x); /* warm-up, discarded */
    const double first = timer_now() - t0;
    (void)first;
    for (int i = 0; i < plan->samples; i++) {
        t0 = timer_now();
        k->fn[dt](&x);
        sec[i] = timer_now() - t0;
    }
    openblas_set_num_threads(1);
    if ((rc = pin_bind_self(topo, pins->pu[0], e)))
        goto out;

    /* Spot check: 16 entries against a long double dot product. */
    double max_err = 0.0;
    for (int s = 0; s < 16; s++) {
        const size_t i = (size_t)(s * 7919) % n, j = (size_t)(s * 104729) % n;
        long double sum = 0.0L, abs_sum = 0.0L;
        for (size_t p = 0; p < n; p++) {
            const long double t = (long double)harness_value(7, 0, i * n + p,
                                                             dt) *
                                  harness_value(7, 1, p * n + j, dt);
            sum += t;
            abs_sum += fabsl(t);
        }
        const double got = dt == RB_F32 ? ((float *)c)[i * n + j]
                                        : ((double *)c)[i * n + j];
        max_err = fmax(max_err, isfinite(got) ? fabs(got - (double)sum) /
                                                    (double)abs_sum
                                              : INFINITY);
    }
    const double tol = ref_tolerance(dt, n);
    if (!(max_err <= tol)) {
        rc = rb_fail(e, RB_EMEASURE,
                     "OpenBLAS GEMM %s n=%zu: relative error %g exceeds %g",
                     rb_dtype_name(dt), n, max_err, tol);
        goto out;
    }
    const double flops = 2.0 * (double)n * n * n;
    double gf[64];
    json_t *samples = json_array();
    for (int i = 0; i < plan->samples; i++) {
        gf[i] = flops / sec[i] / 1e9;
        json_array_append_new(samples, json_real(gf[i]));
    }
    *best_out = max_of(gf, plan->samples);
    *out = json_pack("{s:s, s:i, s:I, s:f, s:f, s:s, s:o, s:f}", "dtype",
                     rb_dtype_name(dt), "threads", pins->nthreads, "n",
                     (json_int_t)n, "gflops", *best_out, "gflops_median",
                     stats_median(gf, (size_t)plan->samples), "corename",
                     openblas_get_corename(), "samples_gflops", samples,
                     "max_rel_error", max_err);
out:
    free(a);
    free(b);
    free(c);
    return rc;
}

/* Data cache levels hwloc reports (L1 to L5), which a curve shows no more
 * of, and what the team's threads hold in each together: the sizes of the
 * distinct caches above their PUs (0 where none is found). Returns the
 * number of levels, 0 when hwloc reports none (no cap then). */
static size_t team_caches(hwloc_topology_t topo, const pin_plan *pins,
                          double bytes[5])
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
        HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
    size_t n = 0;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (hwloc_get_nbobjs_by_type(topo, types[i]) <= 0)
            continue;
        hwloc_obj_t seen[CEIL_MAX_THREADS];
        int nseen = 0;
        double sum = 0.0;
        for (int t = 0; t < pins->nthreads && t < CEIL_MAX_THREADS; t++) {
            const hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(
                topo, pins->pu[t], HWLOC_OBJ_PU, 0);
            const hwloc_obj_t c =
                pu ? hwloc_get_ancestor_obj_by_type(topo, types[i], pu) : NULL;
            int dup = !c;
            for (int j = 0; j < nseen && !dup; j++)
                dup = seen[j] == c;
            if (dup)
                continue;
            seen[nseen++] = c;
            sum += (double)c->attr->cache.size;
        }
        bytes[n++] = sum;
    }
    return n;
}

/* ---- caches: reported against measured ------------------------------------ */

/* hwloc's sizes beside where the 1-thread read curve's plateaus end. A
 * reported size is implausible when the measured end is more than 4x away
 * from it, or when a cache claims more than 64 MiB per core (as CPUID does
 * in some virtual machines). */
static json_t *compare_caches(hwloc_topology_t topo, json_t *levels)
{
    json_t *arr = json_array();
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE};
    const int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < 3; i++) {
        const int count = hwloc_get_nbobjs_by_type(topo, types[i]);
        if (count <= 0)
            continue;
        const hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
        const double size = (double)o->attr->cache.size;
        const double per_core = size * count / (ncores > 0 ? ncores : 1);
        char name[8];
        snprintf(name, sizeof(name), "L%d", i + 1);
        double end = 0.0, next = 0.0;
        size_t k;
        json_t *lv;
        json_array_foreach(levels, k, lv)
        {
            if (strcmp(json_string_value(json_object_get(lv, "name")),
                       name) == 0) {
                end = json_real_value(json_object_get(lv, "last_bytes"));
                next = json_real_value(json_object_get(lv, "next_bytes"));
            }
        }
        char note[256];
        int plausible = 1;
        if (per_core > 64.0 * 1024 * 1024) {
            plausible = 0;
            snprintf(note, sizeof(note),
                     "implausible: %.0f MiB per core reported",
                     per_core / 1048576.0);
        } else if (end <= 0.0) {
            snprintf(note, sizeof(note),
                     "no plateau named %s was found to compare with", name);
        } else if (size > 4.0 * (next > 0 ? next : end) || size < end / 4.0) {
            plausible = 0;
            snprintf(note, sizeof(note),
                     "implausible: the measured plateau ends between %.0f "
                     "and %.0f KiB",
                     end / 1024, next / 1024);
        } else {
            snprintf(note, sizeof(note),
                     "consistent with the plateau ending between %.0f and "
                     "%.0f KiB",
                     end / 1024, next / 1024);
        }
        json_array_append_new(
            arr, json_pack("{s:s, s:f, s:i, s:f, s:o, s:o, s:b, s:s}", "level",
                           name, "reported_bytes", size, "reported_count",
                           count, "reported_bytes_per_core", per_core,
                           "measured_last_bytes",
                           end > 0 ? json_real(end) : json_null(),
                           "measured_next_bytes",
                           next > 0 ? json_real(next) : json_null(),
                           "plausible", plausible, "note", note));
    }
    return arr;
}

/* ---- the whole measurement ------------------------------------------------ */

static void say(void (*progress)(const char *), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(void (*progress)(const char *), const char *fmt, ...)
{
    if (!progress)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    progress(line);
}

/* Everything measured on one team of nt pinned threads. */
static int measure_team(hwloc_topology_t topo, int nt,
                        const ceilings_plan *plan, const host_cpu *cpu,
                        json_t *clocks, json_t *peaks, json_t *curves,
                        json_t *gemms, json_t *roofs,
                        void (*progress)(const char *), rb_err *e)
{
    const unsigned isa = host_isa_mask(cpu);
    pin_plan pins;
    pool *team = NULL;
    int rc = pin_plan_make(topo, nt, &pins, e);
    if (rc)
        return rc;
    if ((rc = pool_create(topo, &pins, &team, e)))
        goto out_plan;

    double ghz = 0.0;
    json_t *clk = NULL;
    if ((rc = measure_clock(team, nt, plan, &clk, &ghz, e)))
        goto out;
    json_array_append_new(clocks, clk);
    say(progress, "clock, %d thread%s: %.3f GHz", nt, nt > 1 ? "s" : "", ghz);

    json_t *peak_by_dt = json_object(), *gemm_by_dt = json_object();
    json_t *variant_by_dt = json_object();
    /* Peaks in CEIL_PASSES rounds over every dtype and width, each round
     * taking its share of the samples; each figure keeps the better round
     * (and all samples), so a neighbour that slows the machine for a few
     * seconds does not set a roof. */
    json_t *pk_round[CEIL_PASSES][RB_NDTYPES][CEIL_MAX_WIDTHS] = {{{NULL}}};
    double best_round[CEIL_PASSES][RB_NDTYPES][CEIL_MAX_WIDTHS] = {{{0}}};
    const int per_round = (plan->samples + CEIL_PASSES - 1) / CEIL_PASSES;
    for (int r = 0; r < CEIL_PASSES && !rc; r++)
        for (int d = 0; d < plan->ndtypes && !rc; d++)
            for (int w = 0; w < plan->nwidths && !rc; w++)
                rc = measure_peak(team, nt,
                                  ceilings_peak_select(isa, plan->widths[w]),
                                  plan->dtypes[d], plan, per_round < 2 ? 2
                                                                       : per_round,
                                  cpu, ghz, &pk_round[r][d][w],
                                  &best_round[r][d][w], e);
    for (int d = 0; d < plan->ndtypes && !rc; d++) {
        const rb_dtype dt = plan->dtypes[d];
        double top = 0.0;
        const char *top_variant = "";
        for (int w = 0; w < plan->nwidths; w++) {
            const rb_peak_variant *v =
                ceilings_peak_select(isa, plan->widths[w]);
            int keep = 0;
            for (int r = 1; r < CEIL_PASSES; r++)
                if (best_round[r][d][w] > best_round[keep][d][w])
                    keep = r;
            json_t *pk = json_incref(pk_round[keep][d][w]);
            json_t *all = json_array();
            for (int r = 0; r < CEIL_PASSES; r++)
                json_array_extend(all, json_object_get(pk_round[r][d][w],
                                                       "samples_gflops"));
            json_object_set_new(pk, "samples_gflops", all);
            json_object_set_new(pk, "rounds", json_integer(CEIL_PASSES));
            const double best = best_round[keep][d][w];
            json_array_append_new(peaks, pk);
            say(progress,
                "peak %s %-11s %d thread%s: %8.2f GFLOP/s, %5.2f FLOP/cycle "
                "per core, %3.0f%% of %.2f theoretical",
                rb_dtype_name(dt), v->name, nt, nt > 1 ? "s" : "", best,
                json_real_value(json_object_get(pk,
                                                "flops_per_cycle_per_core")),
                100.0 * json_real_value(
                            json_object_get(pk, "ratio_to_theoretical")),
                json_real_value(json_object_get(pk, "theoretical_gflops")));
            if (best > top) {
                top = best;
                top_variant = v->name;
            }
        }
        if (top > 0.0) {
            json_object_set_new(peak_by_dt, rb_dtype_name(dt),
                                json_real(top));
            json_object_set_new(variant_by_dt, rb_dtype_name(dt),
                                json_string(top_variant));
        }
        if (plan->gemm_n > 0) {
            json_t *g = NULL;
            double gbest = 0.0;
            if ((rc = measure_gemm(topo, &pins, dt, plan, &g, &gbest, e)))
                break;
            json_array_append_new(gemms, g);
            json_object_set_new(gemm_by_dt, rb_dtype_name(dt),
                                json_real(gbest));
            say(progress, "OpenBLAS %cgemm n=%zu, %d thread%s: %.2f GFLOP/s "
                          "(core %s)",
                dt == RB_F32 ? 's' : 'd', plan->gemm_n, nt, nt > 1 ? "s" : "",
                gbest, openblas_get_corename());
        }
    }
    for (int r = 0; r < CEIL_PASSES; r++)
        for (int d = 0; d < RB_NDTYPES; d++)
            for (int w = 0; w < CEIL_MAX_WIDTHS; w++)
                json_decref(pk_round[r][d][w]);
    json_t *read_levels = NULL, *read_points = NULL;
    double cache_bytes[5];
    const size_t ncache = team_caches(topo, &pins, cache_bytes);
    for (int k = 0; k < BW_NKERNELS && !rc; k++) {
        if (!plan->bw_kernels[k])
            continue;
        json_t *curve = NULL;
        if ((rc = measure_bw_curve(team, nt, (bw_kernel)k, plan, isa,
                                   ncache, cache_bytes, &curve, e)))
            break;
        json_array_append_new(curves, curve);
        json_t *levels = json_object_get(curve, "levels");
        if (k == BW_READ) {
            read_levels = levels;
            read_points = json_object_get(curve, "points");
        }
        char line[400];
        int used = snprintf(line, sizeof(line), "bandwidth %-5s %d thread%s:",
                            bw_kernel_name((bw_kernel)k), nt,
                            nt > 1 ? "s" : "");
        size_t i;
        json_t *lv;
        json_array_foreach(levels, i, lv)
        {
            used += snprintf(
                line + used, sizeof(line) - (size_t)used,
                " %s %.1f GB/s (to %.0f KiB)",
                json_string_value(json_object_get(lv, "name")),
                json_real_value(json_object_get(lv, "gbs")),
                json_real_value(json_object_get(lv, "last_bytes")) / 1024);
            if (used >= (int)sizeof(line))
                break;
        }
        say(progress, "%s", line);
    }
    if (!rc) {
        json_t *levels = json_array();
        size_t i;
        json_t *lv;
        json_array_foreach(read_levels, i, lv)
        {
            json_array_append_new(
                levels,
                json_pack("{s:O, s:O, s:O, s:O}", "name",
                          json_object_get(lv, "name"), "gbs",
                          json_object_get(lv, "gbs"), "starts_bytes",
                          json_object_get(lv, "first_bytes"), "ends_bytes",
                          json_object_get(lv, "last_bytes")));
        }
        /* The read curve itself (best samples), for working sets that fall
         * between two plateaus. */
        json_t *curve = json_array();
        json_t *pt;
        json_array_foreach(read_points, i, pt)
        {
            json_array_append_new(
                curve, json_pack("[O, O]", json_object_get(pt, "bytes"),
                                 json_object_get(pt, "gbs_best")));
        }
        json_array_append_new(
            roofs,
            json_pack("{s:i, s:f, s:O, s:O, s:O, s:o, s:o, s:s}", "threads",
                      nt, "ghz", ghz, "peak_gflops", peak_by_dt,
                      "peak_variant", variant_by_dt, "gemm_gflops",
                      gemm_by_dt, "levels", levels, "curve", curve,
                      "levels_from",
                      read_levels ? "read" : "none (read kernel not swept)"));
    }
    json_decref(peak_by_dt);
    json_decref(gemm_by_dt);
    json_decref(variant_by_dt);
out:
    pool_destroy(team);
out_plan:
    pin_plan_free(&pins);
    return pin_unbind_self_after(topo, rc, e);
}

int ceilings_measure(hwloc_topology_t topo, const ceilings_plan *plan,
                     const host_cpu *cpu, json_t *context, json_t **doc,
                     void (*progress)(const char *line), rb_err *e)
{
    json_t *clocks = json_array(), *peaks = json_array(),
           *curves = json_array(), *gemms = json_array(),
           *roofs = json_array();
    int rc = RB_OK;
    openblas_set_num_threads(1);
    for (int t = 0; t < plan->nthreads && !rc; t++)
        rc = measure_team(topo, plan->threads[t], plan, cpu, clocks, peaks,
                          curves, gemms, roofs, progress, e);
    if (rc) {
        json_decref(clocks);
        json_decref(peaks);
        json_decref(curves);
        json_decref(gemms);
        json_decref(roofs);
        return rc;
    }
    /* Caches: hwloc's report against the 1-thread read curve. */
    json_t *one_levels = json_array();
    size_t i;
    json_t *cv;
    json_array_foreach(curves, i, cv)
    {
        if (json_integer_value(json_object_get(cv, "threads")) == 1 &&
            strcmp(json_string_value(json_object_get(cv, "kernel")), "read") ==
                0) {
            json_decref(one_levels);
            one_levels = json_incref(json_object_get(cv, "levels"));
        }
    }
    json_t *caches = compare_caches(topo, one_levels);
    json_decref(one_levels);
    const char *src;
    const double mhz = host_os_mhz(&src);
    json_t *widths = json_array();
    for (int w = 0; w < plan->nwidths; w++)
        json_array_append_new(widths, json_integer(plan->widths[w]));
    json_t *settings = json_pack(
        "{s:o, s:f, s:f, s:f, s:f, s:f, s:i, s:I, s:i}", "widths", widths,
        "size_min_bytes", plan->size_min, "size_max_bytes", plan->size_max,
        "factor", plan->factor, "bytes_per_sample", plan->bw_target_bytes,
        "min_time_s", plan->min_time, "samples", plan->samples, "gemm_n",
        (json_int_t)plan->gemm_n, "bw_width_bits", (int)plan->bw_width);
    *doc = json_pack(
        "{s:s, s:i, s:s, s:O, s:o, s:{s:o, s:o, s:s}, s:o, s:o, s:o, s:o, "
        "s:o}",
        "schema", "roofbench.ceilings", "schema_version",
        CEILINGS_SCHEMA_VERSION, "status", "complete", "context", context,
        "ceilings_settings", settings, "clock", "measured", clocks,
        "os_reported_mhz", mhz > 0 ? json_real(mhz) : json_string("unknown"),
        "os_reported_source", src, "peak", peaks, "bandwidth", curves, "gemm",
        gemms, "caches", caches, "roofline", roofs);
    return RB_OK;
}

int ceilings_measure_roofline(hwloc_topology_t topo, const int *threads,
                              int nthreads, const rb_dtype *dtypes,
                              int ndtypes, json_t *context, json_t **doc,
                              rb_err *e)
{
    host_cpu cpu;
    host_cpu_probe(&cpu);
    const unsigned isa = host_isa_mask(&cpu);
    ceilings_plan cp;
    ceilings_plan_defaults(&cp, 1, pin_ncores(topo), isa, 0.0,
                           (double)host_mem_available());
    if (nthreads > CEIL_MAX_THREADS)
        nthreads = CEIL_MAX_THREADS;
    cp.nthreads = nthreads;
    for (int t = 0; t < nthreads; t++)
        cp.threads[t] = threads[t];
    cp.ndtypes = ndtypes;
    for (int d = 0; d < ndtypes; d++)
        cp.dtypes[d] = dtypes[d];
    cp.widths[0] = cp.widths[cp.nwidths - 1];
    cp.nwidths = 1;
    memset(cp.bw_kernels, 0, sizeof(cp.bw_kernels));
    cp.bw_kernels[BW_READ] = 1;
    cp.gemm_n = 0;
    return ceilings_measure(topo, &cp, &cpu, context, doc, NULL, e);
}
