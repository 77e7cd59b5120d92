/* The batch sweep's arithmetic, without measuring anything: the grid of
 * batch sizes, the size of the weights that sits in a memory level, the
 * batch at which [B,P] x [P,M] turns compute-bound on a roof (exact bytes),
 * and the knee of a measured curve.
 *
 * [B,P] x [P,M] does 2BPM FLOPs on s(BP + PM + BM) bytes: while the
 * weights (PM) dominate, the intensity is about 2B/s FLOP per byte, so the
 * product crosses the ridge point (peak / bandwidth) near B = s x ridge / 2;
 * the exact crossing counts every byte. */
#ifndef ROOFBENCH_SWEEP_H
#define ROOFBENCH_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "roofline.h"

enum { SWEEP_MAX_POINTS = 64 };

/* --batch: "LO:HI" (the sizes 2^k and 3 x 2^k between, LO and HI
 * included: 1, 2, 3, 4, 6, 8, 12, ...), "LO:HI:xF" (geometric, each size
 * F times the last rounded up, at least one more), "LO:HI:+S"
 * (arithmetic), or a list "1,5,7" (ascending). Sizes at least 1 with K, M
 * suffixes; an empty or inverted range, a step that does not advance (F
 * at most 1, S = 0), or more than SWEEP_MAX_POINTS sizes is an error
 * naming the value. */
int sweep_grid_parse(const char *flag, const char *s, uint64_t *out, size_t *n,
                     rb_err *e);

/* I(B) = 2BPM / el(BP + PM + BM): FLOP per byte of [B,P] x [P,M]. */
double sweep_intensity(double b, double p, double m, double el);

/* The batch size from which min(peak, I(B) x bw) is peak for
 * [B,P] x [P,M] in elements of el bytes (I(B) = 2BPM / el(BP + PM + BM)),
 * with peak in GFLOP/s and bw in GB/s: el peak PM / (2 PM bw - el peak
 * (P + M)), or INFINITY when the intensity never reaches peak / bw. With
 * peak = f x plateau it is where the roof reaches f of that plateau. */
double sweep_ridge_batch(uint64_t p, uint64_t m, unsigned el, double peak,
                         double bw);

/* The knee of a measured curve (b ascending, g GFLOP/s): the plateau is
 * the largest rate; knee[i] the batch at which the curve first reaches
 * frac[i] of it, interpolated on log-log axes between the two grid points
 * around the crossing. at_first[i]: already reached at the first point
 * (the knee is at or below it); plateau_at_end: the largest rate is the
 * last point's, so the plateau may lie beyond the grid. */
enum { SWEEP_KNEES = 2 }; /* 50% and 90% */
extern const double sweep_knee_frac[SWEEP_KNEES];

typedef struct {
    double plateau;
    double plateau_batch;
    double knee[SWEEP_KNEES];
    int at_first[SWEEP_KNEES];
    int plateau_at_end;
} sweep_knee;

/* Returns 0, or -1 when there is no point or a rate is not positive. */
int sweep_knee_find(const double *b, const double *g, size_t n,
                    sweep_knee *out);

/* The side P = M of a square weight matrix of el-byte elements that sits
 * in level `name` of the team's roofline: half the working set (all
 * threads) at which the level's plateau ends, so that A and C fit beside
 * the weights up to large B, and no less than where it starts; for DRAM
 * sweep_dram_bytes, or dram_floor bytes if more (sweep_dram_floor). Where
 * the roofline has the cache only as a span of levels ("L1-L3"), the
 * plateau ends at cache_bytes instead (what that cache holds for the
 * team; 0: not known), if sooner. In
 * multiples of 64 elements and of 256 bytes per thread (whole 256-byte
 * strips for every member), at least one, never past a cache's plateau
 * (multiples of 64 where one even share for each is already past it).
 * Returns 0, or -1 with why ("no L3 plateau in the 2-thread roofline (it
 * has L1, L2, DRAM)"). */
int sweep_weights_side(const roof_team *t, const char *name, unsigned el,
                       double cache_bytes, double dram_floor, uint64_t *side,
                       char *why, size_t whylen);

/* The side P = M of the contrast's own matrices (batched: every row its
 * own [P,M]) beside DRAM-resident weights of side `side`: the smallest
 * whose matrix is past twice the last-level cache (llc bytes), so that
 * one alone streams from DRAM and B of them fit the contrast's budget up
 * to as large a B as may be; never more than side, and side itself
 * where the cache is not known (llc 0). In the units of
 * sweep_weights_side, rows that alias moved up as it moves them. */
uint64_t sweep_contrast_side(uint64_t side, unsigned el, int threads,
                             double llc);

/* The size of DRAM-resident weights for a DRAM plateau: the geometric
 * middle of where it starts and ends, the plateau's median point on the
 * ceilings' geometric grid, whose rate the level's figure is (the median
 * of its points' best rates). The plateau is where the read roof's
 * segmentation found it flat within 20% (plateau.c): where the roof still
 * falls through it, weights sized at its first point read faster than
 * the figure they are held to. On a Zen 5 guest, in one run of the
 * ceilings, the 1-thread read roof's DRAM plateau ran from 352 MB (read2,
 * best 46.7 GB/s) to 1 GB (40.7), its figure 42.4; in the main jobs of
 * an earlier session, whose plateaus started at 213 MB, weights sized
 * there ran matmul_blocked and the streaming probe at B = 1 at 1.04 to
 * 1.22 times the DRAM roof. */
double sweep_dram_bytes(const roof_level *lv);

/* The largest sweep_dram_bytes of DRAM's plateau in the read roofs of
 * the teams of r with these thread counts (0 where none has one): the
 * weights of every team go past it (each team's side in its own units,
 * so the sides can differ by a unit), so that a team whose curve a noisy
 * host cut short of the caches' end (a 2-thread read curve's DRAM from
 * 95 MB where the 1-thread one's started at 213) still streams them from
 * DRAM. A team swept alone has only its own curve to go by. */
double sweep_dram_floor(const roofline *r, const int *threads, int n);

/* The access mix of the sweep's host profile (--profile host) and of the
 * note under its predictions: the matmuls write C, so the mixed roof, as
 * their points and ridges take it (`model --profile host` takes the read
 * roof's). */
#define SWEEP_HOST_MIX RB_ACCESS_MIXED

/* The level called name in the read roof of team t: that name, else for a
 * cache level "Lk" a span "La-Lb" that holds it; NULL when neither. */
const roof_level *sweep_level(const roof_team *t, const char *name);

/* The team of a roofline with this many threads, or NULL. */
const roof_team *sweep_team(const roofline *r, int threads);

#endif
