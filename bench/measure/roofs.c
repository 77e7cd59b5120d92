/* The bandwidth roof of an access mix: the envelope of the kernels that
 * can serve it (ceilings.h, ceil_roof). A dot product reads two arrays at
 * once and can beat a one-stream read kernel by keeping more lines in
 * flight; a kernel that also stores can beat every read kernel in L1,
 * where loads and stores have ports of their own. One curve is then no
 * upper bound, the best of several measured the same way is. */
#include <math.h>
#include <string.h>

#include "ceilings.h"
#include "stats.h"

int bw_kernel_serves(bw_kernel k, rb_access mix)
{
    return bw_kernel_reads_only(k) ||
           (mix == RB_ACCESS_MIXED && k != BW_WRITE && k < BW_NKERNELS);
}

/* A curve's best sample at working set ws, interpolated in log-log
 * between its points; NAN outside them (beyond a point's rounding to
 * whole blocks, 1%). */
static double curve_best_at(const ceil_curve *c, double ws)
{
    if (c->npoints == 0 || ws < c->points[0].bytes * 0.99 ||
        ws > c->points[c->npoints - 1].bytes * 1.01)
        return NAN;
    if (ws <= c->points[0].bytes)
        return c->points[0].gbs_best;
    for (size_t i = 1; i < c->npoints; i++)
        if (ws <= c->points[i].bytes) {
            const double x0 = log(c->points[i - 1].bytes),
                         x1 = log(c->points[i].bytes);
            const double y0 = log(c->points[i - 1].gbs_best),
                         y1 = log(c->points[i].gbs_best);
            const double f = x1 > x0 ? (log(ws) - x0) / (x1 - x0) : 0.0;
            return exp(y0 + f * (y1 - y0));
        }
    return c->points[c->npoints - 1].gbs_best;
}

/* Each level's kernel: the highest median over the level's points; and
 * how far the best point any kernel of the mix measured there lies above
 * that median (the roof's own data reached that far). */
static void level_kernels(const ceil_curve *curves, int ncurves, int threads,
                          rb_access mix, ceil_roof *out)
{
    for (size_t l = 0; l < out->nlevels; l++) {
        plateau *lv = &out->levels[l];
        double best_median = 0.0, best_point = 0.0;
        int best_k = -1;
        for (int i = 0; i < ncurves; i++) {
            const ceil_curve *c = &curves[i];
            if (c->threads != threads || !bw_kernel_serves(c->kernel, mix))
                continue;
            double v[CEIL_MAX_POINTS];
            size_t n = 0;
            for (size_t p = lv->first; p <= lv->last; p++) {
                const double g = curve_best_at(c, out->bytes[p]);
                if (g == g)
                    v[n++] = g;
            }
            if (n == 0)
                continue;
            const double med = stats_median(v, n);
            best_point = fmax(best_point, stats_max(v, n));
            if (med > best_median) {
                best_median = med;
                best_k = (int)c->kernel;
            }
        }
        if (best_k < 0)
            continue; /* no curve covers it: the envelope's own median */
        lv->gbs = best_median;
        out->level_kernel[l] = best_k;
        out->level_spread[l] = best_point / best_median - 1.0;
    }
}

void ceilings_roof_build(const ceil_curve *curves, int ncurves, int threads,
                         rb_access mix, double past_cache_bytes,
                         size_t cache_levels, const double *cache_bytes,
                         ceil_roof *out)
{
    memset(out, 0, sizeof(*out));
    /* the grid: the points of the mix's curve with the most of them */
    const ceil_curve *grid = NULL;
    for (int i = 0; i < ncurves; i++)
        if (curves[i].threads == threads &&
            bw_kernel_serves(curves[i].kernel, mix)) {
            out->kernels |= 1u << curves[i].kernel;
            if (!grid || curves[i].npoints > grid->npoints)
                grid = &curves[i];
        }
    /* a mixed roof needs a kernel that writes: without one it would be the
     * read roof under another name */
    const unsigned reads = 1u << BW_READ | 1u << BW_READ2 | 1u << BW_READ4;
    if (!grid || grid->npoints == 0 ||
        (mix == RB_ACCESS_MIXED && !(out->kernels & ~reads))) {
        memset(out, 0, sizeof(*out));
        return;
    }
    out->present = 1;
    for (size_t p = 0; p < grid->npoints; p++) {
        const double ws = grid->points[p].bytes;
        double best = 0.0;
        int who = -1;
        for (int i = 0; i < ncurves; i++) {
            if (!(out->kernels >> curves[i].kernel & 1u) ||
                curves[i].threads != threads)
                continue;
            const double g = curve_best_at(&curves[i], ws);
            if (g == g && g > best) {
                best = g;
                who = (int)curves[i].kernel;
            }
        }
        out->bytes[out->npoints] = ws;
        out->gbs[out->npoints] = best;
        out->winner[out->npoints++] = who;
    }
    out->nlevels = plateau_detect(out->bytes, out->gbs, out->npoints, 1.12,
                                  past_cache_bytes * 0.99, cache_levels,
                                  cache_bytes, out->levels, CEIL_MAX_LEVELS);
    for (size_t l = 0; l < out->nlevels; l++)
        out->level_kernel[l] = out->winner[out->levels[l].first];
    level_kernels(curves, ncurves, threads, mix, out);
}
