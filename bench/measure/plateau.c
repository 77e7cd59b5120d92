#include "plateau.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

enum { MAX_POINTS = 1024 };

/* Median of y[first..last]. */
static double seg_median(const double *y, size_t first, size_t last)
{
    return stats_median(y + first, last - first + 1);
}

/* How much y[first..last] falls or rises from its first half to its second:
 * the ratio of the larger half-median to the smaller. A slope shows in
 * it; noise, even an outlier or two, does not. */
static double trend(const double *y, size_t first, size_t last)
{
    const size_t n = last - first + 1, h = (n + 1) / 2;
    const double a = stats_median(y + first, h);
    const double b = stats_median(y + last + 1 - h, h);
    return fmax(a, b) / fmin(a, b);
}

/* The curve as smoothed log bandwidth: a running median of three, so
 * that one stray sample (a neighbour on a shared machine) cannot open a
 * level. Returns the penalty a new segment must pay: several points'
 * worth of the curve's noise (estimated from successive differences,
 * which on a plateau are pure noise, sqrt(2) sigma, and steps are rare
 * enough that the median ignores them), and never less than a 5% step
 * over a few points would cost. */
static double smooth(const double *gbs, size_t n, double *y)
{
    double raw[MAX_POINTS], d[MAX_POINTS];
    for (size_t i = 0; i < n; i++)
        raw[i] = log(gbs[i] > 0.0 ? gbs[i] : 1e-30);
    for (size_t i = 0; i < n; i++)
        y[i] = (i == 0 || i == n - 1) ? raw[i] : stats_median(raw + i - 1, 3);
    for (size_t i = 1; i < n; i++)
        d[i - 1] = fabs(y[i] - y[i - 1]);
    const double sigma =
        n > 2 ? 1.4826 * stats_median(d, n - 1) / sqrt(2.0) : 0.05;
    return fmax(8.0 * sigma * sigma * log((double)n + 1.0), 4.0 * 0.05 * 0.05);
}

/* Least squares segmentation of y by dynamic programming: best[j] is the
 * least cost of segmenting points [0, j), cut[j] where the last segment
 * of that segmentation starts. The segments go to seg, in order. */
static size_t segment(const double *y, size_t n, double penalty, plateau *seg)
{
    double s1[MAX_POINTS + 1], s2[MAX_POINTS + 1], best[MAX_POINTS + 1];
    size_t cut[MAX_POINTS + 1];
    s1[0] = s2[0] = 0.0;
    for (size_t i = 0; i < n; i++) {
        s1[i + 1] = s1[i] + y[i];
        s2[i + 1] = s2[i] + y[i] * y[i];
    }
    best[0] = 0.0;
    for (size_t j = 1; j <= n; j++) {
        best[j] = INFINITY;
        for (size_t i = 0; i < j; i++) {
            const double m = (double)(j - i);
            const double sum = s1[j] - s1[i];
            const double sse = (s2[j] - s2[i]) - sum * sum / m;
            const double c = best[i] + sse + penalty;
            if (c < best[j]) {
                best[j] = c;
                cut[j] = i;
            }
        }
    }
    size_t starts[MAX_POINTS], nseg = 0;
    for (size_t j = n; j > 0; j = cut[j])
        starts[nseg++] = cut[j];
    for (size_t k = 0; k < nseg; k++) {
        seg[k].first = starts[nseg - 1 - k];
        seg[k].last = (k + 1 < nseg ? starts[nseg - 2 - k] : n) - 1;
    }
    return nseg;
}

/* Whether seg is long enough to be a level: at least 3 points spanning
 * at least a factor 2 of working set. */
static int long_enough(const double *bytes, const plateau *seg)
{
    return seg->last >= seg->first + 2 &&
           bytes[seg->last] >= 2.0 * bytes[seg->first];
}

/* Levels are the segments that are long enough and flat: a stretch whose
 * second half differs from its first by more than 20% is a transition,
 * however the segmentation cut it. Where the noise of a curve (an
 * envelope of several kernels' best samples on a shared host) makes the
 * segments' penalty large, a segment can take in the first point of the
 * transition at either end; such a segment loses its end point farther
 * from its median, one at a time, while it is long enough, until it is
 * flat (recorded: a 2-thread read envelope whose DRAM segment began with
 * two points of the L3 transition, 41 and 37 GB/s before 32 to 29, and
 * was dropped, so that the roof had no DRAM level). Keeps the levels in
 * seg; returns how many. */
static size_t keep_flat(const double *bytes, const double *gbs, plateau *seg,
                        size_t nseg)
{
    size_t ns = 0;
    for (size_t k = 0; k < nseg; k++) {
        plateau s = seg[k];
        while (long_enough(bytes, &s) && trend(gbs, s.first, s.last) > 1.2) {
            const double m = log(seg_median(gbs, s.first, s.last));
            if (fabs(log(gbs[s.first]) - m) > fabs(log(gbs[s.last]) - m))
                s.first++;
            else
                s.last--;
        }
        if (long_enough(bytes, &s))
            seg[ns++] = s;
    }
    return ns;
}

/* The end of a sweep that went past every cache, as a level of its own
 * where no kept segment reaches the last point: the points from the last
 * backwards while each is within 20% of the median of those after it (the
 * flatness keep_flat asks), if they are long enough. Segments it covers
 * give way; one it overlaps is cut short. A DRAM tail that still falls
 * slowly where a large L3 lets go is otherwise cut by the segmentation into
 * pieces each too short or too steep, and the L3 plateau before it became
 * the last level (recorded: a 2-thread read envelope of 38.1, 36.9, 32.8
 * and 32.7 GB/s from 303 MiB to 1 GiB, after 44.7 at 202 MiB, whose L3
 * plateau at 58 GB/s to 135 MiB was then named DRAM). */
static size_t keep_tail(const double *bytes, const double *gbs, size_t n,
                        plateau *seg, size_t ns)
{
    if (n < 3 || (ns > 0 && seg[ns - 1].last == n - 1))
        return ns;
    plateau t = {.first = n - 1, .last = n - 1};
    while (t.first > 0) {
        const double m = seg_median(gbs, t.first, t.last),
                     g = gbs[t.first - 1];
        if (fmax(g, m) / fmin(g, m) > 1.2)
            break;
        t.first--;
    }
    if (!long_enough(bytes, &t) || trend(gbs, t.first, t.last) > 1.2)
        return ns;
    while (ns > 0 && seg[ns - 1].first >= t.first)
        ns--;
    if (ns > 0 && seg[ns - 1].last >= t.first) {
        seg[ns - 1].last = t.first - 1;
        if (!long_enough(bytes, &seg[ns - 1]))
            ns--;
    }
    seg[ns++] = t;
    return ns;
}

/* Neighbouring levels that differ by less than merge_ratio are one level
 * that drifted, and a level faster than the one before it is noise in the
 * slower one (bandwidth only falls as the working set grows); both are
 * merged, across any transition between them. A slow first level
 * followed by a faster one is start-up overhead: dropped. */
static size_t merge(const double *gbs, const plateau *seg, size_t ns,
                    double merge_ratio, plateau *out, size_t max)
{
    size_t np = 0;
    for (size_t k = 0; k < ns && np < max; k++) {
        plateau p = seg[k];
        p.gbs = seg_median(gbs, p.first, p.last);
        if (np > 0) {
            plateau *prev = &out[np - 1];
            if (p.gbs > prev->gbs && np == 1 && prev->first == seg[0].first &&
                p.gbs > prev->gbs * merge_ratio) {
                np = 0; /* slow start: drop it */
            } else if (fmax(p.gbs, prev->gbs) / fmin(p.gbs, prev->gbs) <
                           merge_ratio ||
                       p.gbs > prev->gbs) {
                prev->last = p.last;
                prev->gbs = seg_median(gbs, prev->first, prev->last);
                continue;
            }
        }
        out[np++] = p;
    }
    return np;
}

/* Plateau k out of the np in out: the ones after it move up one. Returns
 * the new count. */
static size_t remove_at(plateau *out, size_t np, size_t k)
{
    for (; k + 1 < np; k++)
        out[k] = out[k + 1];
    return np - 1;
}

/* A cache plateau that still holds at more than twice what the largest
 * cache level holds is a stretch of the way to DRAM, not a cache:
 * dropped (it would otherwise force two real levels to merge). */
static size_t drop_shelves(const double *bytes, plateau *out, size_t np,
                           int dram, size_t max_caches,
                           const double *cache_bytes)
{
    if (!cache_bytes || max_caches == 0 || cache_bytes[max_caches - 1] <= 0.0)
        return np;
    for (size_t k = 0; k + (size_t)dram < np;) {
        if (bytes[out[k].last] > 2.0 * cache_bytes[max_caches - 1])
            np = remove_at(out, np, k);
        else
            k++;
    }
    return np;
}

/* Points in a plateau */
static size_t points(const plateau *p)
{
    return p->last - p->first + 1;
}

/* A cache plateau after the first with fewer points than every cache
 * plateau beside it: a bump or a shelf in a transition, the likeliest
 * plateau that is no level. Returns its index, or nc for none. */
static size_t short_shelf(const plateau *out, size_t nc)
{
    size_t pick = nc;
    for (size_t k = 1; k < nc; k++) {
        const size_t n = points(&out[k]);
        if (n < points(&out[k - 1]) &&
            (k + 1 == nc || n < points(&out[k + 1])) &&
            (pick == nc || n < points(&out[pick])))
            pick = k;
    }
    return pick;
}

/* No more cache levels than the machine has: a short shelf between them
 * (short_shelf) is dropped, else the two neighbouring cache plateaus
 * closest in bandwidth are merged, until max_caches remain. (Recorded on
 * a Zen 5 guest, a 1-thread read curve's L1, L2 (153 to 187 GB/s) and
 * L3 (84 to 100) plateaus of 6 to 7 points, then 62, 50 and 50 GB/s from
 * 18 to 40 MiB on the way to DRAM: merging the closest pair joined L2
 * and L3 (1.7 apart, the shelf 1.8 from L3), and the sweep's own roof
 * put its L2 weights under an "L2-L3" of 94 GB/s.) */
static size_t cap_levels(const double *gbs, plateau *out, size_t np, int dram,
                         size_t max_caches)
{
    while (max_caches > 0 && np - (size_t)dram > max_caches) {
        const size_t shelf = short_shelf(out, np - (size_t)dram);
        if (shelf < np - (size_t)dram) {
            np = remove_at(out, np, shelf);
            continue;
        }
        size_t pick = 0;
        double best_ratio = INFINITY;
        for (size_t k = 0; k + 1 < np - (size_t)dram; k++) {
            const double r = out[k].gbs / out[k + 1].gbs;
            if (r < best_ratio) {
                best_ratio = r;
                pick = k;
            }
        }
        out[pick].last = out[pick + 1].last;
        out[pick].gbs = seg_median(gbs, out[pick].first, out[pick].last);
        np = remove_at(out, np, pick + 1);
    }
    return np;
}

/* The last cache level a plateau starting in cache level `level` (1: L1)
 * and holding to last_bytes reaches: the next ones too while it holds at
 * more than twice a level's capacity. */
static size_t top_level(size_t level, double last_bytes, size_t max_caches,
                        const double *cache_bytes)
{
    size_t hi = level;
    while (cache_bytes && hi < max_caches && cache_bytes[hi - 1] > 0.0 &&
           last_bytes > 2.0 * cache_bytes[hi - 1])
        hi++;
    return hi;
}

/* How many cache levels the first np plateaus take up, spans counted
 * whole (as name_levels names them). */
static size_t levels_used(const double *bytes, const plateau *out, size_t np,
                          size_t max_caches, const double *cache_bytes)
{
    size_t level = 1;
    for (size_t k = 0; k < np; k++)
        level =
            top_level(level, bytes[out[k].last], max_caches, cache_bytes) + 1;
    return level - 1;
}

/* Sizes and names: DRAM for the last when the sweep reached it, else the
 * cache level each starts in; a plateau that holds at more than twice its
 * level's capacity spans the next levels too ("L1-L2"). */
static void name_levels(const double *bytes, size_t n, plateau *out, size_t np,
                        int dram, size_t max_caches, const double *cache_bytes)
{
    for (size_t k = 0; k < np; k++) {
        out[k].first_bytes = bytes[out[k].first];
        out[k].last_bytes = bytes[out[k].last];
        out[k].next_bytes = out[k].last + 1 < n ? bytes[out[k].last + 1] : 0.0;
    }
    size_t level = 1; /* the cache level the next plateau starts in */
    for (size_t k = 0; k < np; k++) {
        if (dram && k == np - 1) {
            snprintf(out[k].name, sizeof(out[k].name), "DRAM");
            continue;
        }
        const size_t hi =
            top_level(level, out[k].last_bytes, max_caches, cache_bytes);
        if (hi == level)
            snprintf(out[k].name, sizeof(out[k].name), "L%u",
                     (unsigned)level % 100u);
        else
            snprintf(out[k].name, sizeof(out[k].name), "L%u-L%u",
                     (unsigned)level % 10u, (unsigned)hi % 10u);
        level = hi + 1;
    }
}

/* Whether a cache plateau's name starts past level max_caches. */
static int past_last(const plateau *out, size_t np, int dram, size_t max_caches)
{
    for (size_t k = 0; k + (size_t)dram < np; k++) {
        unsigned a = 0;
        if (sscanf(out[k].name, "L%u", &a) == 1 && a > max_caches)
            return 1;
    }
    return 0;
}

size_t plateau_detect(const double *bytes, const double *gbs, size_t n,
                      double merge_ratio, double past_cache_bytes,
                      size_t max_caches, const double *cache_bytes,
                      plateau *out, size_t max)
{
    if (n == 0 || n > MAX_POINTS || max == 0)
        return 0;
    double y[MAX_POINTS];
    plateau seg[MAX_POINTS];
    const double penalty = smooth(gbs, n, y);
    const size_t nseg = segment(y, n, penalty, seg);
    size_t ns = keep_flat(bytes, gbs, seg, nseg);
    if (bytes[n - 1] >= past_cache_bytes)
        ns = keep_tail(bytes, gbs, n, seg, ns);
    size_t np = merge(gbs, seg, ns, merge_ratio, out, max);
    /* DRAM: the last level of a sweep that went past every cache, once its
     * plateau reaches well beyond the caches too: past an eighth of the sweep's
     * end, and past twice the largest cache where the caches are known (a
     * plateau that ends within twice the largest cache is that cache, whose way
     * to DRAM was not flat enough to keep: the L3 of the record at keep_tail,
     * to 135 MiB of a 260 MiB L3, had been named DRAM), unless the plateaus
     * before it take up every cache level the machine has (a span such as
     * "L1-L2" two): then it cannot be one more cache, whatever a cache's size
     * is believed to be (recorded: a 2-thread read2 curve on a Zen 5 guest
     * whose L3 is believed 128 MiB for the pair, L1, L2 and L3 plateaus to 18
     * MiB, then 40 to 53 GB/s from 90 to 202 MiB and a tail too noisy to keep,
     * 72, 71, 53 and 43 GB/s to 1 GiB; that last plateau, inside twice the L3,
     * was taken for a fourth cache, the cap merged L2 into L3 and the renaming
     * made one "L1-L3" of the whole curve: the read roof lost every level but
     * one) */
    const double largest = cache_bytes && max_caches > 0
                               ? cache_bytes[max_caches - 1]
                               : 0.0;
    const double last = np > 0 ? bytes[out[np - 1].last] : 0.0;
    const int caches_before =
        max_caches > 0 && np >= 2 &&
        levels_used(bytes, out, np - 1, max_caches, cache_bytes) >= max_caches;
    const int inside_largest = largest > 0.0 && last <= 2.0 * largest;
    const int dram = np >= 2 && bytes[n - 1] >= past_cache_bytes &&
                     last >= past_cache_bytes / 8.0 &&
                     (caches_before || !inside_largest);
    np = drop_shelves(bytes, out, np, dram, max_caches, cache_bytes);
    np = cap_levels(gbs, out, np, dram, max_caches);
    name_levels(bytes, n, out, np, dram, max_caches, cache_bytes);
    /* a span ("L1-L2") uses up a level: a cache plateau that would then
     * start past the last level ("L4" of three) is merged away, as the
     * cap does, until every name is a level the machine has */
    while (max_caches > 0 && np - (size_t)dram >= 2 &&
           past_last(out, np, dram, max_caches)) {
        np = cap_levels(gbs, out, np, dram, np - (size_t)dram - 1);
        name_levels(bytes, n, out, np, dram, max_caches, cache_bytes);
    }
    return np;
}
