/* Finding the memory levels in a bandwidth curve: the flat stretches
 * (plateaus) of bandwidth against working-set size, one per level that
 * holds the working set (L1, L2, L3, DRAM). */
#ifndef ROOFBENCH_PLATEAU_H
#define ROOFBENCH_PLATEAU_H

#include <stddef.h>

typedef struct {
    size_t first, last;   /* indices of the first and last point          */
    double gbs;           /* median bandwidth of its points               */
    double first_bytes;   /* working set at the first point               */
    double last_bytes;    /* working set at the last point: the level ends
                             between here and the next point's size       */
    double next_bytes;    /* size of the point after it, 0 if none        */
    char name[8];         /* L1, L2, L3, ..., DRAM; L1-L2 for a span      */
} plateau;

/* Finds the plateaus of a curve sampled at increasing sizes. The curve is
 * smoothed by a running median of three and split into segments of
 * near-constant log bandwidth by dynamic programming (least squares plus a
 * penalty per segment scaled to the noise, estimated from successive
 * differences). Segments of fewer than 3 points, spanning less than a
 * factor 2 of working set, or whose second half's median bandwidth
 * differs from the first half's by more than 20% (a slope), are
 * transitions.
 * Neighbouring levels within merge_ratio of each other, or where the larger
 * working set is faster, are merged; a slow first level followed by a faster
 * one is start-up overhead and dropped. The last plateau is named DRAM when the
 * curve reaches past_cache_bytes (a size beyond every cache) and the plateau
 * reaches past an eighth of it and past twice the largest cache, or when the
 * plateaus before it take up every cache level; the others are L1, L2, ... in
 * order. A machine cannot show more cache levels than it has: with max_caches >
 * 0, a shelf (a cache plateau after the first with fewer points than every
 * cache plateau beside it) is dropped, else the two neighbouring cache plateaus
 * closest in bandwidth are merged, until at most max_caches remain (a bump in a
 * noisy transition otherwise becomes a level of its own and shifts every name
 * after it). cache_bytes (NULL, or max_caches entries, 0 where unknown) is what
 * the threads can hold at each level together: a plateau that still holds at
 * more than twice its level's capacity spans the next level too (stores run at
 * one rate in L1 and L2 on some cores) and is named "L1-L2", the next plateau
 * then "L3". Only an overflow renames, so a cache size that is reported too
 * large (as CPUID does in some virtual machines) cannot. A plateau other than
 * DRAM that holds past twice the largest level's capacity is a stretch of the
 * way to DRAM and is dropped before the cap on the number of levels applies.
 * Returns the number of plateaus written (at most max). */
size_t plateau_detect(const double *bytes, const double *gbs, size_t n,
                      double merge_ratio, double past_cache_bytes,
                      size_t max_caches, const double *cache_bytes,
                      plateau *out, size_t max);

#endif
