/* Measuring the roofs, the way likwid-bench and the Empirical Roofline
 * Toolkit do: every figure comes from a kernel that runs on pinned threads
 * between barriers, whose result is checked against a closed form after
 * timing, so the compiler cannot have deleted the work and a wrong kernel
 * cannot report a rate. The GEMM roof is a harness row (harness.h): the
 * one measurement path, verified against the reference. */
#include "ceilings.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "host.h"
#include "interrupt.h"
#include "pin.h"
#include "progress.h"
#include "stats.h"

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

const rb_peak_variant *ceilings_peak_widest(unsigned isa)
{
    static const unsigned widths[] = {512, 256, 128, 64};
    for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
        const rb_peak_variant *v = ceilings_peak_select(isa, widths[w]);
        if (v)
            return v;
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
     * 1 GiB, the brief's floor for DRAM, and 8x what the last cache may be
     * believed to hold (llc_bytes: host_last_cache's believed_bytes). */
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

/* OpenBLAS's GEMM as a harness row on nt threads: n = gemm_n, inputs from
 * seed 7, and 16 output rows checked against the reference (the whole
 * reference of n = 4000 would take minutes). */
static void gemm_plan(const ceilings_plan *plan, int nt, rb_dtype dt,
                      harness_plan *hp)
{
    memset(hp, 0, sizeof(*hp));
    hp->kernels[0] = rb_kernel_find("matmul_openblas");
    hp->nkernels = 1;
    hp->dtypes[0] = dt;
    hp->ndtypes = 1;
    hp->threads[0] = nt;
    hp->nthreads = 1;
    hp->shape[RB_OP_MATMUL] =
        (rb_shape){plan->gemm_n, plan->gemm_n, plan->gemm_n};
    snprintf(hp->shape_source[RB_OP_MATMUL],
             sizeof(hp->shape_source[RB_OP_MATMUL]), "--gemm-n %zu",
             plan->gemm_n);
    hp->min_time = plan->min_time;
    hp->samples = plan->samples;
    hp->seed = 7;
    hp->verify_rows = 16;
}

/* The GEMM roof's memory on the largest team, before anything runs. */
static int check_gemm(const ceilings_plan *plan, double mem_avail, rb_err *e)
{
    int nt = 1;
    for (int t = 0; t < plan->nthreads; t++)
        if (plan->threads[t] > nt)
            nt = plan->threads[t];
    for (int d = 0; plan->gemm_n > 0 && d < plan->ndtypes; d++) {
        harness_plan hp;
        gemm_plan(plan, nt, plan->dtypes[d], &hp);
        const int rc = harness_check_plan(
            &hp, mem_avail > 0.0 ? (uint64_t)mem_avail : 0, e);
        if (rc)
            return rc;
    }
    return RB_OK;
}

void ceilings_plan_roofline(ceilings_plan *plan, int ncores, unsigned isa,
                            double mem_avail, const int *threads, int nthreads,
                            const rb_dtype *dtypes, int ndtypes, unsigned mixes)
{
    ceilings_plan_defaults(plan, 1, ncores, isa, 0.0, mem_avail);
    if (nthreads > CEIL_MAX_THREADS)
        nthreads = CEIL_MAX_THREADS;
    plan->nthreads = nthreads;
    for (int t = 0; t < nthreads; t++)
        plan->threads[t] = threads[t];
    plan->ndtypes = ndtypes;
    for (int d = 0; d < ndtypes; d++)
        plan->dtypes[d] = dtypes[d];
    plan->widths[0] = plan->widths[plan->nwidths - 1];
    plan->nwidths = 1;
    memset(plan->bw_kernels, 0, sizeof(plan->bw_kernels));
    plan->bw_kernels[BW_READ] = plan->bw_kernels[BW_READ2] =
        plan->bw_kernels[BW_READ4] = 1;
    /* the mixed roof's kernels, all of those `roofbench ceilings` gives
     * it (a Schoenauer triad set its DRAM figure at 2 threads on a Zen 5
     * guest, 65.6 GB/s against 43.6 for copy and 42.4 for triad): a
     * roofline measured here then bounds what the same roofline measured
     * there bounds */
    if (mixes >> RB_ACCESS_MIXED & 1u)
        plan->bw_kernels[BW_COPY] = plan->bw_kernels[BW_TRIAD] =
            plan->bw_kernels[BW_SCHOENAUER] = 1;
    plan->gemm_n = 0;
}

int ceilings_check_plan(const ceilings_plan *plan, unsigned isa,
                        double mem_avail, rb_err *e)
{
    int curves = 0;
    for (int k = 0; k < BW_NKERNELS; k++)
        curves += plan->bw_kernels[k];
    if (plan->nwidths == 0 && curves == 0 && plan->gemm_n == 0)
        return rb_fail(e, RB_EINPUT,
                       "ceilings: nothing to measure (--width none, --kernel "
                       "none and --gemm-n 0)");
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
    const double points =
        log(plan->size_max / plan->size_min) / log(plan->factor);
    if (points + 1 > CEIL_MAX_POINTS)
        return rb_fail(e, RB_EINPUT,
                       "--factor %g: %.0f points in the sweep, more than %d",
                       plan->factor, points + 1, CEIL_MAX_POINTS);
    return check_gemm(plan, mem_avail, e);
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

/* ---- clock --------------------------------------------------------------- */

/* GHz of every thread of the team running the add chain at once; the best
 * sample, as for every roof: a neighbour on a shared machine can only slow
 * a sample down. */
_Static_assert((int)CEIL_MAX_THREADS <= (int)POOL_CLOCK_MAX,
               "the clock job holds a sum for every thread of a team");

static int measure_clock(pool *team, int nt, const ceilings_plan *plan,
                         ceil_clock *out, rb_err *e)
{
    pool_clock c = {.iters = 1000};
    double sec[CEIL_MAX_SAMPLES];
    sample_job(team, pool_job_clock, &c, &c.iters, plan->min_time,
               plan->samples, sec);
    for (int t = 0; t < nt; t++)
        if (c.sums[t] != 64 * c.iters)
            return rb_fail(e, RB_EMEASURE,
                           "clock chain: thread %d summed %llu, expected %llu",
                           t, (unsigned long long)c.sums[t],
                           (unsigned long long)(64 * c.iters));
    memset(out, 0, sizeof(*out));
    out->threads = nt;
    out->nsamples = plan->samples;
    for (int i = 0; i < plan->samples; i++)
        out->samples[i] = 64.0 * (double)c.iters / sec[i] / 1e9;
    out->ghz = stats_max(out->samples, (size_t)plan->samples);
    out->ghz_median = stats_median(out->samples, (size_t)plan->samples);
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

/* The largest error of the accumulators against their closed form:
 * acc_n = f + x^n (acc_0 - f), f = 1. */
static double peak_error(const peak_ctx *c, int nt, unsigned vals)
{
    const long double xn =
        powl((long double)(c->dt == RB_F64 ? PEAK_X : (float)PEAK_X),
             (long double)c->reps);
    double max_err = 0.0;
    for (int t = 0; t < nt; t++)
        for (unsigned i = 0; i < vals; i++) {
            const double got =
                c->dt == RB_F64 ? c->acc64[t][i] : c->acc32[t][i];
            const double want =
                (double)(1.0L + xn * (acc_start((int)i) - 1.0L));
            const double err = isfinite(got) ? fabs(got - want) : INFINITY;
            max_err = fmax(max_err, err);
        }
    return max_err;
}

/* This CPU's ISA mask (CPUID, whatever ROOFBENCH_ISA caps the kernels
 * at), probed once: the probes around every row run the widest. */
static unsigned host_isa_once(void)
{
    static unsigned isa;
    static int known;
    if (!known) {
        host_cpu cpu;
        host_cpu_probe(&cpu);
        isa = host_isa_mask(&cpu);
        known = 1;
    }
    return isa;
}

const rb_peak_variant *ceilings_peak_now_variant(void)
{
    return ceilings_peak_widest(host_isa_once());
}

/* The best rate of tries runs of job on the team: work units (FLOPs,
 * bytes) a run over its seconds, in billions a second. */
static double best_rate(pool *team, pool_job job, void *ctx, double work,
                        int tries)
{
    double best = 0.0;
    for (int i = 0; i < tries; i++) {
        const double s = pool_run(team, job, ctx);
        if (s > 0.0)
            best = fmax(best, work / s / 1e9);
    }
    return best;
}

double ceilings_peak_now(pool *team, int nt, rb_dtype dt, uint64_t reps,
                         int tries)
{
    const rb_peak_variant *v = ceilings_peak_now_variant();
    peak_ctx *c = v && nt > 0 && nt <= CEIL_MAX_THREADS ? calloc(1, sizeof(*c))
                                                         : NULL;
    if (!c)
        return 0.0;
    c->reps = reps;
    c->v = v;
    c->dt = dt;
    const double flops =
        (double)reps * v->chains * lanes_of(v->bits, dt) * 2.0 * nt;
    const double best = best_rate(team, job_peak, c, flops, tries);
    free(c);
    return best;
}

/* ---- the read bandwidth around a row ------------------------------------- */

/* At most READ_NOW_MAX bytes of the buffer are read, pass after pass
 * until a try has read READ_NOW_PASS: a DRAM-sized operand once (a few
 * milliseconds), a cache-sized one again and again from its cache. */
enum { READ_NOW_MAX = 256 << 20, READ_NOW_PASS = 64 << 20 };

typedef struct {
    const rb_stream_variant *v;
    const char *buf;
    size_t bytes;
    uint64_t reps;
    uint64_t sums[CEIL_MAX_THREADS][RB_STREAM_SUMS];
} read_now_ctx;

/* Member tid reads its contiguous share of the buffer. */
static void job_read_now(void *arg, int tid, int nt)
{
    read_now_ctx *c = arg;
    const size_t blk = RB_STREAM_BLOCK * sizeof(uint64_t);
    const size_t b0 = c->bytes * (size_t)tid / (size_t)nt / blk * blk,
                 b1 = c->bytes * (size_t)(tid + 1) / (size_t)nt / blk * blk;
    if (b1 > b0)
        c->v->read((const uint64_t *)(const void *)(c->buf + b0),
                   (b1 - b0) / sizeof(uint64_t), c->reps, c->sums[tid]);
}

const rb_stream_variant *ceilings_read_now_variant(void)
{
    static const unsigned widths[] = {512, 256, 128};
    const rb_stream_variant *v = NULL;
    for (size_t i = 0; i < 3 && !v; i++)
        v = ceilings_stream_select(host_isa_once(), widths[i]);
    return v;
}

double ceilings_read_now(pool *team, int nt, const void *buf, size_t bytes,
                         int tries, size_t *read_bytes)
{
    const rb_stream_variant *v = ceilings_read_now_variant();
    const size_t blk =
        RB_STREAM_BLOCK * sizeof(uint64_t) * (size_t)(nt > 0 ? nt : 1);
    const size_t n = (bytes < READ_NOW_MAX ? bytes : READ_NOW_MAX) / blk * blk;
    *read_bytes = 0;
    read_now_ctx *c = v && buf && n > 0 && nt > 0 && nt <= CEIL_MAX_THREADS
                          ? calloc(1, sizeof(*c))
                          : NULL;
    if (!c)
        return 0.0;
    c->v = v;
    c->buf = buf;
    c->bytes = n;
    c->reps = n >= READ_NOW_PASS ? 1 : (READ_NOW_PASS + n - 1) / n;
    const double best = best_rate(team, job_read_now, c,
                                  (double)n * (double)c->reps, tries);
    *read_bytes = n;
    free(c);
    return best;
}

/* ---- the streaming FMA probe around a row ---------------------------------- */

/* What the probe streams of the buffer: at most READ_NOW_MAX bytes, pass
 * after pass until a run has streamed READ_NOW_PASS (as the read probe:
 * a cache-sized operand again and again from its cache, a DRAM-sized one
 * once), and no more than FMASTREAM_FLOPS FLOPs a member a run, so that a
 * probe of a compute-bound point stays within tens of milliseconds (what
 * it then leaves out is the cheap part: there the arithmetic, not the
 * memory, sets the pace); and how far ahead each stream asks for its
 * lines. */
enum { FMASTREAM_AHEAD = 4096 };
#define FMASTREAM_FLOPS 2e9

typedef struct {
    const rb_fmastream_variant *v;
    rb_dtype dt;
    const char *buf;
    size_t share; /* bytes a member streams, a whole number of blocks */
    uint64_t reps; /* passes over it a run                          */
    int streams;
    size_t ahead;
    unsigned fmas;
    double out[CEIL_MAX_THREADS][RB_FMASTREAM_VECS * 16];
} fmastream_ctx;

/* Member tid streams its contiguous share, split into c->streams arrays. */
static void job_fmastream(void *arg, int tid, int nt)
{
    (void)nt;
    fmastream_ctx *c = arg;
    const size_t el = rb_dtype_size(c->dt);
    const size_t n = c->share / el / (size_t)c->streams;
    const char *base = c->buf + c->share * (size_t)tid;
    const void *a[4];
    for (int s = 0; s < c->streams; s++)
        a[s] = base + n * el * (size_t)s;
    for (uint64_t r = 0; r < c->reps; r++) {
        if (c->dt == RB_F64)
            c->v->f64((const double *const *)a, c->streams, n, c->fmas,
                      c->ahead, 1e-9, c->out[tid]);
        else
            c->v->f32((const float *const *)a, c->streams, n, c->fmas,
                      c->ahead, 1e-9f, (float *)(void *)c->out[tid]);
    }
}

const rb_fmastream_variant *ceilings_fmastream_now_variant(void)
{
    const unsigned isa = host_isa_once();
    for (size_t i = 0; i < rb_nfmastream_variants; i++)
        if ((rb_fmastream_variants[i].needs & isa) ==
            rb_fmastream_variants[i].needs)
            return &rb_fmastream_variants[i];
    return NULL;
}

double ceilings_fmastream_now(pool *team, int nt, rb_dtype dt, const void *buf,
                              size_t bytes, unsigned fmas, int tries,
                              size_t *streamed)
{
    static const struct {
        int streams;
        size_t ahead;
    } ways[] = {{1, FMASTREAM_AHEAD}, {4, FMASTREAM_AHEAD}};
    const rb_fmastream_variant *v = ceilings_fmastream_now_variant();
    *streamed = 0;
    if (!v || !buf || fmas == 0 || nt <= 0 || nt > CEIL_MAX_THREADS)
        return 0.0;
    const size_t el = rb_dtype_size(dt);
    /* a block: RB_FMASTREAM_VECS vectors in each of 4 streams */
    const size_t blk = (size_t)RB_FMASTREAM_VECS * (v->bits / 8) * 4;
    /* the bytes all members may stream in a run within the FLOP budget */
    const double cap = FMASTREAM_FLOPS / (2.0 * fmas) * (double)el * nt;
    size_t want = bytes < READ_NOW_MAX ? bytes : READ_NOW_MAX;
    if ((double)want > cap)
        want = (size_t)cap;
    const size_t share = want / (size_t)nt / blk * blk;
    fmastream_ctx *c = share > 0 ? calloc(1, sizeof(*c)) : NULL;
    if (!c)
        return 0.0;
    const double pass = (double)share * nt;
    const double more = fmin((double)READ_NOW_PASS, cap) / pass;
    c->reps = more > 1.0 ? (uint64_t)more : 1;
    c->v = v;
    c->dt = dt;
    c->buf = buf;
    c->share = share;
    c->fmas = fmas;
    const double flops =
        2.0 * fmas * (double)(share / el) * (double)c->reps * nt;
    double best = 0.0;
    for (size_t w = 0; w < sizeof(ways) / sizeof(*ways); w++) {
        c->streams = ways[w].streams;
        c->ahead = ways[w].ahead;
        best = fmax(best, best_rate(team, job_fmastream, c, flops, tries));
    }
    *streamed = share * (size_t)nt;
    free(c);
    return best;
}

/* One round of a peak figure: nsamples samples of the variant on the team,
 * checked, with the FLOPs per cycle and the theoretical peak beside. */
static int measure_peak(pool *team, int nt, const rb_peak_variant *v,
                        rb_dtype dt, const ceilings_plan *plan, int nsamples,
                        const host_cpu *cpu, double ghz, ceil_peak *out,
                        rb_err *e)
{
    peak_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return rb_fail(e, RB_EINPUT, "out of memory");
    c->reps = 1000;
    c->v = v;
    c->dt = dt;
    double sec[CEIL_MAX_SAMPLES];
    sample_job(team, job_peak, c, &c->reps, plan->min_time, nsamples, sec);
    const unsigned lanes = lanes_of(v->bits, dt);
    const unsigned vals = v->chains * lanes;
    const double max_err = peak_error(c, nt, vals);
    const uint64_t reps = c->reps;
    free(c);
    /* A fixed-point iteration settles within a few ulps of 1. */
    const double tol = 64.0 * rb_dtype_eps(dt);
    if (!(max_err <= tol))
        return rb_fail(e, RB_EMEASURE,
                       "peak kernel %s %s: result off its closed form by %g "
                       "(tolerance %g)",
                       v->name, rb_dtype_name(dt), max_err, tol);
    memset(out, 0, sizeof(*out));
    const double flops = (double)reps * vals * 2.0 * nt;
    for (int i = 0; i < nsamples; i++)
        out->samples[i] = flops / sec[i] / 1e9;
    out->nsamples = nsamples;
    out->dt = dt;
    out->v = v;
    out->threads = nt;
    out->lanes = lanes;
    out->gflops = stats_max(out->samples, (size_t)nsamples);
    out->gflops_median = stats_median(out->samples, (size_t)nsamples);
    out->fpc = out->gflops / nt / ghz;
    out->pipes = ceilings_fma_pipes(cpu, v->bits, &out->pipes_source);
    out->pipes_known = out->pipes > 0;
    if (!out->pipes_known) {
        /* Not in the table: infer the pipes from what was measured, and
         * say so, so that a ratio of 1 is not mistaken for a check. */
        out->pipes = (int)fmax(1.0, round(out->fpc / (lanes * 2.0)));
        out->pipes_source = "inferred from the measured FLOPs per cycle "
                            "(microarchitecture not in the table)";
    }
    out->theoretical = ceilings_theoretical_gflops(nt, ghz, lanes, out->pipes);
    out->ratio = out->gflops / out->theoretical;
    out->iterations = reps;
    out->max_err = max_err;
    out->rounds = 1;
    return RB_OK;
}

/* ---- GEMM: the practical compute roof ------------------------------------ */

static int measure_gemm(hwloc_topology_t topo, int nt, rb_dtype dt,
                        const ceilings_plan *plan, ceil_gemm *out, int *done,
                        rb_err *e)
{
    harness_plan hp;
    gemm_plan(plan, nt, dt, &hp);
    harness_result res;
    memset(&res, 0, sizeof(res));
    const int rc = harness_run(topo, &hp, &res, NULL, NULL, e);
    *done = rc == RB_OK && res.nrows == 1;
    if (*done) {
        const harness_row *r = &res.rows[0];
        memset(out, 0, sizeof(*out));
        out->dt = dt;
        out->threads = nt;
        out->n = plan->gemm_n;
        out->nsamples = r->nsamples;
        for (int i = 0; i < r->nsamples; i++)
            out->samples[i] = (double)r->counts.flops / r->samples[i] / 1e9;
        out->gflops = stats_max(out->samples, (size_t)r->nsamples);
        out->gflops_median = stats_median(out->samples, (size_t)r->nsamples);
        snprintf(out->corename, sizeof(out->corename), "%s",
                 openblas_get_corename());
        out->max_err = fmax(r->check_before.max_err, r->check_after.max_err);
    }
    harness_result_free(&res);
    return rc;
}

/* ---- caches: reported against measured ------------------------------------
 */

/* The 1-thread read curve's levels and the 1-thread read roof's (the
 * envelope of read, read2 and read4, as the roofline has them); NULL and
 * 0 where there is none. */
typedef struct {
    const plateau *curve, *roof;
    size_t ncurve, nroof;
} read_levels;

static read_levels one_thread_read(const ceilings_result *res)
{
    read_levels r = {0};
    for (int i = 0; i < res->ncurves; i++)
        if (res->curves[i].threads == 1 && res->curves[i].kernel == BW_READ) {
            r.curve = res->curves[i].levels;
            r.ncurve = res->curves[i].nlevels;
        }
    for (int i = 0; i < res->nteams; i++) {
        const ceil_roof *roof = &res->teams[i].roofs[RB_ACCESS_READ];
        if (res->teams[i].threads == 1 && roof->present) {
            r.roof = roof->levels;
            r.nroof = roof->nlevels;
        }
    }
    return r;
}

/* The plateau named `name` among lv[0..n), or NULL. */
static const plateau *level_named(const plateau *lv, size_t n,
                                  const char *name)
{
    for (size_t k = 0; lv && k < n; k++)
        if (strcmp(lv[k].name, name) == 0)
            return &lv[k];
    return NULL;
}

/* One cache level as hwloc reports it, beside where the read curve's
 * plateau of that name ends, or, where the curve has none, the read
 * roof's (one curve can merge two levels that the envelope keeps apart:
 * recorded, a Zen 5 guest's read curve with a shelf from 19 to 59 MB at
 * 65 GB/s named one plateau "L2-L3", so that L2 had nothing to compare
 * with, while the roof had L2 to 340 KiB; where both have it the curve's
 * end is the sharper, 710 to 1064 KiB against 340 KiB on the same guest).
 * A reported size is implausible when the measured end is more than 4x
 * away from it, or when a cache claims more than RB_CACHE_PER_CORE_MAX
 * (64 MiB) per core, as CPUID does in some virtual machines (the blocked
 * matmul then blocks on defaults). */
static void compare_cache(hwloc_topology_t topo, hwloc_obj_type_t type,
                          int level, int guest, const read_levels *read,
                          ceil_cache *c)
{
    host_cache hc;
    host_cache_of(topo, type, guest, &hc);
    memset(c, 0, sizeof(*c));
    snprintf(c->level, sizeof(c->level), "L%d", level);
    c->reported_bytes = (double)hc.bytes;
    c->count = hc.count;
    c->per_core = (double)hc.per_core;
    const plateau *from_curve =
        level_named(read->curve, read->ncurve, c->level);
    const plateau *lv = from_curve ? from_curve
                                   : level_named(read->roof, read->nroof,
                                                 c->level);
    const char *whose = from_curve ? "" : " (the read roof's)";
    if (lv) {
        c->last = lv->last_bytes;
        c->next = lv->next_bytes;
    }
    const double size = c->reported_bytes, end = c->last, next = c->next;
    c->plausible = 1;
    if (!hc.plausible) {
        c->plausible = 0;
        snprintf(c->note, sizeof(c->note),
                 "implausible: %.0f MiB per core reported",
                 c->per_core / 1048576.0);
    } else if (end <= 0.0) {
        snprintf(c->note, sizeof(c->note),
                 "no plateau named L%d was found to compare with", level);
    } else if (size > 4.0 * (next > 0 ? next : end) || size < end / 4.0) {
        c->plausible = 0;
        snprintf(c->note, sizeof(c->note),
                 "implausible: the measured plateau%s ends between %.0f and "
                 "%.0f KiB",
                 whose, end / 1024, next / 1024);
    } else {
        snprintf(c->note, sizeof(c->note),
                 "consistent with the plateau%s ending between %.0f and "
                 "%.0f KiB",
                 whose, end / 1024, next / 1024);
    }
}

void ceilings_compare_caches(hwloc_topology_t topo, int guest,
                             ceilings_result *res)
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE};
    const read_levels read = one_thread_read(res);
    for (int i = 0; i < 3; i++)
        if (hwloc_get_nbobjs_by_type(topo, types[i]) > 0)
            compare_cache(topo, types[i], i + 1, guest, &read,
                          &res->caches[res->ncaches++]);
}

/* ---- one team -------------------------------------------------------------
 */

/* Puts pk into the result, at `slot` (a figure that joined before, now
 * better measured) or appended (slot < 0); returns its slot. */
static size_t put_peak(ceilings_result *res, const ceil_peak *pk, ceil_team *t,
                       long slot)
{
    interrupt_lock();
    const size_t at = slot >= 0 ? (size_t)slot : (size_t)res->npeaks++;
    res->peaks[at] = *pk;
    interrupt_unlock();
    /* a figure is said twice, as it joins and once its rounds are in */
    char rounds[32] = "round 1:";
    if (pk->rounds > 1)
        snprintf(rounds, sizeof(rounds), "best of %d rounds:", pk->rounds);
    progress_say("peak %s %-11s %d thread%s, %-18s %8.2f GFLOP/s, %5.2f "
                 "FLOP/cycle per core, %3.0f%% of %.2f theoretical",
                 rb_dtype_name(pk->dt), pk->v->name, pk->threads,
                 rb_plural(pk->threads), rounds, pk->gflops, pk->fpc,
                 100.0 * pk->ratio, pk->theoretical);
    if (pk->gflops > t->peak[pk->dt]) {
        t->peak[pk->dt] = pk->gflops;
        t->peak_spread[pk->dt] = pk->gflops_median > 0.0
                                     ? pk->gflops / pk->gflops_median - 1.0
                                     : 0.0;
        t->variant[pk->dt] = pk->v->name;
    }
    return at;
}

/* Peaks in CEIL_PASSES rounds over every dtype and width, each round taking
 * its share of the samples; each figure keeps the better round (and all
 * samples), so a neighbour that slows the machine for a few seconds does
 * not set a roof. This runs round r; a figure joins the result after the
 * first round and is replaced by the better of both after the second, so
 * that an interrupt between them keeps it. measure_team runs the rounds
 * apart, the bandwidth curves between them (tens of seconds): back to
 * back, both rounds of the
 * 2-thread f32 peak once fell in a spell where the host lent the two
 * vCPUs one core's FMA pipes (175.8 GFLOP/s against 1 thread's 173.5,
 * while 2-thread f64 read 166.7 just after). */
static int team_peaks(pool *team, int nt, const ceilings_plan *plan,
                      const host_cpu *cpu, ceilings_result *res, ceil_team *t,
                      int r, rb_err *e)
{
    static ceil_peak round0[RB_NDTYPES][CEIL_MAX_WIDTHS];
    static size_t slot0[RB_NDTYPES][CEIL_MAX_WIDTHS];
    const unsigned isa = host_isa_mask(cpu);
    const int per_round = (plan->samples + CEIL_PASSES - 1) / CEIL_PASSES;
    for (int d = 0; d < plan->ndtypes; d++)
        for (int w = 0; w < plan->nwidths; w++) {
            if (interrupt_requested())
                return RB_OK;
            ceil_peak pk;
            const int rc = measure_peak(
                team, nt, ceilings_peak_select(isa, plan->widths[w]),
                plan->dtypes[d], plan, per_round < 2 ? 2 : per_round, cpu,
                t->ghz, &pk, e);
            if (rc)
                return rc;
            if (r == 0) { /* joins now, so that an interrupt keeps it */
                round0[d][w] = pk;
                pk.rounds = 1;
                slot0[d][w] = put_peak(res, &pk, t, -1);
                continue;
            }
            ceil_peak keep =
                pk.gflops > round0[d][w].gflops ? pk : round0[d][w];
            const ceil_peak *first = &round0[d][w];
            memcpy(keep.samples, first->samples,
                   (size_t)first->nsamples * sizeof(double));
            memcpy(keep.samples + first->nsamples, pk.samples,
                   (size_t)pk.nsamples * sizeof(double));
            keep.nsamples = first->nsamples + pk.nsamples;
            keep.rounds = CEIL_PASSES;
            put_peak(res, &keep, t, (long)slot0[d][w]);
        }
    return RB_OK;
}

static void say_curve(const ceil_curve *cv)
{
    char line[400];
    int used =
        snprintf(line, sizeof(line),
                 "bandwidth %-5s %d thread%s:", bw_kernel_name(cv->kernel),
                 cv->threads, rb_plural(cv->threads));
    for (size_t i = 0; i < cv->nlevels && used < (int)sizeof(line); i++)
        used += snprintf(line + used, sizeof(line) - (size_t)used,
                         " %s %.1f GB/s (to %.0f KiB)", cv->levels[i].name,
                         cv->levels[i].gbs, cv->levels[i].last_bytes / 1024);
    progress_say("%s", line);
}

static void say_roof(const ceil_roof *r, int threads, rb_access mix)
{
    char line[512];
    int used = snprintf(line, sizeof(line),
                        "roof %-5s %d thread%s:", rb_access_name(mix), threads,
                        rb_plural(threads));
    for (size_t i = 0; i < r->nlevels && used < (int)sizeof(line); i++)
        used += snprintf(line + used, sizeof(line) - (size_t)used,
                         " %s %.1f GB/s (%s, spread %.0f%%)", r->levels[i].name,
                         r->levels[i].gbs,
                         bw_kernel_name((bw_kernel)r->level_kernel[i]),
                         100.0 * r->level_spread[i]);
    progress_say("%s", line);
}

static int team_curves(hwloc_topology_t topo, pool *team, const pin_plan *pins,
                       const ceilings_plan *plan, const host_cpu *cpu,
                       ceilings_result *res, ceil_team *t, rb_err *e)
{
    const unsigned isa = host_isa_mask(cpu);
    /* a curve shows no more levels than these, and names them by what
     * the team's threads hold in each */
    double cache_bytes[5];
    const size_t ncache = host_team_caches(topo, cpu->hypervisor, pins->pu,
                                           pins->nthreads, cache_bytes);
    for (int k = 0; k < BW_NKERNELS; k++) {
        if (!plan->bw_kernels[k] || interrupt_requested())
            continue;
        ceil_curve cv;
        const int rc =
            ceilings_bw_curve(team, pins->nthreads, (bw_kernel)k, plan, isa,
                              ncache, cache_bytes, &cv, e);
        if (rc || cv.npoints == 0) {
            free(cv.points);
            return rc;
        }
        interrupt_lock();
        if (k == BW_READ)
            t->read = res->ncurves;
        res->curves[res->ncurves++] = cv;
        interrupt_unlock();
        say_curve(&cv);
    }
    for (int m = 0; m < RB_NACCESS && !interrupt_requested(); m++)
        ceilings_roof_build(res->curves, res->ncurves, pins->nthreads,
                            (rb_access)m, plan->past_cache_bytes, ncache,
                            cache_bytes, &t->roofs[m]);
    for (int m = 0; m < RB_NACCESS; m++)
        if (t->roofs[m].present)
            say_roof(&t->roofs[m], pins->nthreads, (rb_access)m);
    return RB_OK;
}

static int team_gemms(hwloc_topology_t topo, int nt, const ceilings_plan *plan,
                      ceilings_result *res, ceil_team *t, rb_err *e)
{
    for (int d = 0; plan->gemm_n > 0 && d < plan->ndtypes; d++) {
        if (interrupt_requested())
            return RB_OK;
        ceil_gemm g;
        int done = 0;
        const int rc =
            measure_gemm(topo, nt, plan->dtypes[d], plan, &g, &done, e);
        if (rc || !done)
            return rc;
        interrupt_lock();
        res->gemms[res->ngemms++] = g;
        interrupt_unlock();
        t->gemm[g.dt] = g.gflops;
        progress_say("OpenBLAS %cgemm n=%zu, %d thread%s: %.2f GFLOP/s (core "
                     "%s)",
                     g.dt == RB_F32 ? 's' : 'd', g.n, nt, rb_plural(nt),
                     g.gflops, g.corename);
    }
    return RB_OK;
}

/* Everything measured on one team of nt pinned threads: the clock, the
 * peaks and the bandwidth curves on the team, then the GEMM roof through
 * the harness (which pins its own team). The team's roofline joins the
 * result only when all of it is done. */
static int measure_team(hwloc_topology_t topo, int nt,
                        const ceilings_plan *plan, const host_cpu *cpu,
                        ceilings_result *res, rb_err *e)
{
    ceil_team t = {.threads = nt, .read = -1};
    pin_plan pins;
    pool *team;
    int rc = pool_open(topo, nt, &pins, &team, e);
    if (rc)
        return rc;
    ceil_clock clk;
    rc = measure_clock(team, nt, plan, &clk, e);
    if (!rc) {
        interrupt_lock();
        res->clocks[res->nclocks++] = clk;
        interrupt_unlock();
        t.ghz = clk.ghz;
        progress_say("clock, %d thread%s: %.3f GHz", nt, rb_plural(nt),
                     clk.ghz);
        rc = team_peaks(team, nt, plan, cpu, res, &t, 0, e);
    }
    if (!rc)
        rc = team_curves(topo, team, &pins, plan, cpu, res, &t, e);
    for (int r = 1; r < CEIL_PASSES && !rc; r++)
        rc = team_peaks(team, nt, plan, cpu, res, &t, r, e);
    rc = pool_close(topo, team, &pins, rc, e);
    if (!rc)
        rc = team_gemms(topo, nt, plan, res, &t, e);
    if (!rc && !interrupt_requested()) {
        interrupt_lock();
        res->teams[res->nteams++] = t;
        interrupt_unlock();
    }
    return rc;
}

int ceilings_measure(hwloc_topology_t topo, const ceilings_plan *plan,
                     const host_cpu *cpu, ceilings_result *res, rb_err *e)
{
    interrupt_lock();
    res->plan = *plan;
    res->os_mhz = host_os_mhz(&res->os_source);
    interrupt_unlock();
    openblas_set_num_threads(1);
    int rc = RB_OK;
    for (int t = 0; t < plan->nthreads && !rc && !interrupt_requested(); t++)
        rc = measure_team(topo, plan->threads[t], plan, cpu, res, e);
    interrupt_lock();
    if (!rc && !interrupt_requested())
        ceilings_compare_caches(topo, cpu->hypervisor, res);
    res->interrupted = interrupt_requested() != 0;
    interrupt_unlock();
    return rc;
}

int ceilings_probe(hwloc_topology_t topo, unsigned isa, double mem_avail,
                   drift_probes *ps, int which, rb_err *e)
{
    int rc = RB_OK;
    for (int i = 0; i < ps->nprobes && !rc && !interrupt_requested(); i++) {
        drift_probe *p = &ps->probes[i];
        int k = 0;
        while (k < BW_NKERNELS &&
               strcmp(bw_kernel_name((bw_kernel)k), p->kernel) != 0)
            k++;
        /* a kernel this build lacks, a team larger than the bandwidth
         * sweep holds, or a working set the memory cannot spare: left
         * unmeasured (no verdict), the run goes on */
        if (k == BW_NKERNELS || p->threads > CEIL_MAX_THREADS ||
            (mem_avail > 0.0 && p->bytes > mem_avail / 3.0))
            continue;
        ceilings_plan plan;
        ceilings_plan_defaults(&plan, 1, p->threads, isa, 0.0, mem_avail);
        plan.size_min = plan.size_max = p->bytes;
        plan.samples = 6; /* the best of six: one figure, compared twice */
        pin_plan pins;
        pool *team;
        rc = pool_open(topo, p->threads, &pins, &team, e);
        if (rc)
            break;
        ceil_curve cv;
        rc = ceilings_bw_curve(team, pins.nthreads, (bw_kernel)k, &plan, isa, 0,
                               NULL, &cv, e);
        rc = pool_close(topo, team, &pins, rc, e);
        if (!rc && cv.npoints == 1) {
            p->gbs[which] = cv.points[0].gbs_best;
            p->spread[which] =
                cv.points[0].gbs > 0.0
                    ? cv.points[0].gbs_best / cv.points[0].gbs - 1.0
                    : 0.0;
            p->have[which] = 1;
        }
        free(cv.points);
    }
    return rc;
}

void ceilings_result_free(ceilings_result *res)
{
    for (int i = 0; i < res->ncurves; i++)
        free(res->curves[i].points);
    res->ncurves = 0;
}
