/* The bandwidth sweep, as likwid-bench and STREAM measure it: each thread
 * streams its own first-touched arrays between barriers, every point's
 * result is checked against its closed form, and the memory levels are
 * the plateaus of the curve (plateau.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "interrupt.h"
#include "stats.h"

static const char *const bw_names[BW_NKERNELS] = {
    "read", "read2", "read4", "write", "copy", "triad", "schoenauer"};

const char *bw_kernel_name(bw_kernel k)
{
    return k < BW_NKERNELS ? bw_names[k] : "?";
}

int bw_kernel_streams(bw_kernel k)
{
    static const int streams[BW_NKERNELS] = {1, 2, 4, 1, 2, 3, 4};
    return k < BW_NKERNELS ? streams[k] : 0;
}

int bw_kernel_reads_only(bw_kernel k)
{
    return k == BW_READ || k == BW_READ2 || k == BW_READ4;
}

/* ---- bandwidth ------------------------------------------------------------
 */

typedef struct {
    uint64_t reps;
    const rb_stream_variant *v;
    bw_kernel kernel;
    size_t n;   /* elements per stream per thread at this point */
    size_t cap; /* elements allocated per stream per thread     */
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
        if (bw_kernel_reads_only(c->kernel)) {
            for (int s = 0; s < streams; s++)
                ((uint64_t *)c->buf[tid][s])[i] = i % 7 + 1;
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
    if (!bw_kernel_reads_only(c->kernel))
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
    case BW_READ2:
    case BW_READ4:
        memset(c->sums[tid], 0, sizeof(c->sums[tid]));
        (c->kernel == BW_READ2 ? c->v->read2 : c->v->read4)(
            (const uint64_t *const *)b, c->n, c->reps, c->sums[tid]);
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
        if (bw_kernel_reads_only(c->kernel)) {
            /* reps passes over each stream's sum (i % 7 + 1), i < n: whole
             * cycles of 28 plus the rest, in exact integer arithmetic. */
            const uint64_t q = c->n / 7, rem = c->n % 7;
            const uint64_t want = c->reps *
                                  (uint64_t)bw_kernel_streams(c->kernel) *
                                  (28 * q + rem * (rem + 1) / 2);
            uint64_t got = 0;
            for (int i = 0; i < RB_STREAM_SUMS; i++)
                got += c->sums[t][i];
            if (got != want)
                return rb_fail(e, RB_EMEASURE,
                               "%s kernel: thread %d summed %llu, expected "
                               "%llu",
                               bw_kernel_name(c->kernel), t,
                               (unsigned long long)got,
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
/* Each thread's streams, mapped and first-touched by their owner. */
static int bw_setup(pool *team, int nt, const ceilings_plan *plan, bw_ctx *c,
                    rb_err *e)
{
    const int streams = bw_kernel_streams(c->kernel);
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
            return rc;
        }
        for (int s = 0; s < streams; s++)
            c->buf[t][s] = c->region[t].buf[s];
    }
    pool_run(team, job_bw_fill, c);
    return RB_OK;
}

/* The grid is anchored at its end so that the DRAM plateau, which the
 * detector only believes over 3 points spanning a factor 2, always gets
 * the sweep's last points in full steps: stepped up from 4 KiB by 1.5
 * (--quick), the last step was 523 MB to 1 GiB, and on a Xeon guest of
 * CPUID model 207, whose 260 MiB L3 still shows in the curve to about
 * 500 MB, the 2-thread read roof then had no DRAM level (2 flat points,
 * 1.96 apart), and the main job's sweep and model steps failed. */
size_t ceilings_bw_points(const ceilings_plan *plan, double per_elem,
                          size_t *elems)
{
    const double steps =
        floor(log(plan->size_max / plan->size_min) / log(plan->factor) +
              1e-9);
    const int k = steps < CEIL_MAX_POINTS - 1 ? (int)steps : CEIL_MAX_POINTS - 1;
    size_t np = 0;
    for (int i = k; i >= 0; i--) {
        const double ws = plan->size_max / pow(plan->factor, i);
        size_t n =
            (size_t)(ws / per_elem) / RB_STREAM_BLOCK * RB_STREAM_BLOCK;
        if (n < RB_STREAM_BLOCK)
            n = RB_STREAM_BLOCK;
        if (np == 0 || n != elems[np - 1])
            elems[np++] = n;
    }
    return np;
}

/* CEIL_PASSES sweeps, the odd ones backwards, each taking its share of the
 * samples: a neighbour that slows this machine for a few seconds then
 * costs one pass over some points, not the curve. gbs[p] gets point p's
 * samples in GB/s. */
static int bw_sweep(pool *team, int nt, const ceilings_plan *plan, bw_ctx *c,
                    const size_t *elems, size_t np,
                    double (*gbs)[CEIL_MAX_SAMPLES], rb_err *e)
{
    const int per_pass = (plan->samples + CEIL_PASSES - 1) / CEIL_PASSES;
    const double per_elem = 8.0 * bw_kernel_streams(c->kernel) * nt;
    int rc = RB_OK;
    for (int pass = 0; pass < CEIL_PASSES && !rc; pass++)
        for (size_t j = 0; j < np && !rc; j++) {
            if (interrupt_requested())
                return RB_OK;
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
    return rc;
}

/* The points and the levels of a finished sweep. Levels come from the
 * best sample of each point: a roof is the most the machine delivered,
 * and on a shared machine a slow sample is more often a neighbour than
 * the memory (median and samples stay in the points). The last plateau
 * is DRAM when the sweep went past every cache (past_cache_bytes). */
static int bw_summarize(const ceilings_plan *plan, int nt, const size_t *elems,
                        size_t np, double (*gbs)[CEIL_MAX_SAMPLES],
                        size_t cache_levels, const double *cache_bytes,
                        ceil_curve *out, rb_err *e)
{
    const int per_pass = (plan->samples + CEIL_PASSES - 1) / CEIL_PASSES;
    const int nsamples = per_pass * CEIL_PASSES;
    const double per_elem = 8.0 * out->streams * nt;
    out->points = calloc(np, sizeof(*out->points));
    if (!out->points)
        return rb_fail(e, RB_EINPUT, "out of memory");
    double bytes[CEIL_MAX_POINTS], best[CEIL_MAX_POINTS];
    for (size_t p = 0; p < np; p++) {
        ceil_point *pt = &out->points[p];
        pt->bytes = bytes[p] = per_elem * (double)elems[p];
        pt->gbs_best = best[p] = stats_max(gbs[p], (size_t)nsamples);
        pt->gbs = stats_median(gbs[p], (size_t)nsamples);
        pt->passes = fmax(1.0, round(plan->bw_target_bytes / bytes[p]));
        pt->nsamples = nsamples;
        memcpy(pt->samples, gbs[p], (size_t)nsamples * sizeof(double));
    }
    out->npoints = np;
    /* Steps below 12% are drift within a level; a sweep that ends within
     * a block of past_cache_bytes has reached it. */
    out->nlevels =
        plateau_detect(bytes, best, np, 1.12, plan->past_cache_bytes * 0.99,
                       cache_levels, cache_bytes, out->levels, CEIL_MAX_LEVELS);
    return RB_OK;
}

int ceilings_bw_curve(pool *team, int nt, bw_kernel k,
                      const ceilings_plan *plan, unsigned isa,
                      size_t cache_levels, const double *cache_bytes,
                      ceil_curve *out, rb_err *e)
{
    memset(out, 0, sizeof(*out));
    out->kernel = k;
    out->threads = nt;
    out->streams = bw_kernel_streams(k);
    out->width_bits = plan->bw_width;
    bw_ctx *c = calloc(1, sizeof(*c));
    double(*gbs)[CEIL_MAX_SAMPLES] = calloc(CEIL_MAX_POINTS, sizeof(*gbs));
    if (!c || !gbs) {
        free(c);
        free(gbs);
        return rb_fail(e, RB_EINPUT, "out of memory");
    }
    c->v = ceilings_stream_select(isa, plan->bw_width);
    c->kernel = k;
    out->variant = c->v->name;
    size_t elems[CEIL_MAX_POINTS];
    const size_t np = ceilings_bw_points(plan, 8.0 * out->streams * nt, elems);
    int rc = bw_setup(team, nt, plan, c, e);
    if (!rc)
        rc = bw_sweep(team, nt, plan, c, elems, np, gbs, e);
    if (!rc && !interrupt_requested())
        rc = bw_summarize(plan, nt, elems, np, gbs, cache_levels, cache_bytes,
                          out, e);
    bw_free(c, nt);
    free(c);
    free(gbs);
    return rc;
}
