/* The traffic model (kernels/README.md, "Traffic model"): for each form,
 * the compulsory lines plus, for every reuse its loops make, how often it
 * happens times the lines of the reused piece gone when it comes back.
 * Those are counted set by set, in closed form: the sets each walk
 * reaches (a column's stride decides), the lines it puts in each, where
 * the lines that go through in between land relative to it, and LRU
 * losing every line of the piece in a set that holds more than its ways.
 * Counts are lines; a row of n elements is ceil(n / e) lines, e = line /
 * s. Nothing here follows the accesses one by one: cachegrind does. */
#include "traffic.h"

#include <math.h>

static double gcd(double a, double b)
{
    while (b > 0.5) {
        const double t = fmod(a, b);
        a = b;
        b = t;
    }
    return a;
}

/* ---- where a walk lands: sets and lines per set ------------------------- */

typedef struct {
    double sets, ways, line; /* line: bytes                               */
    double page;             /* lines of a 4 KiB page                     */
} geo;

static geo geo_of(const rb_cache_geom *g)
{
    const geo o = {g->size / ((double)g->assoc * g->line), (double)g->assoc,
                   (double)g->line, 4096.0 / g->line};
    return o;
}

/* The sets between two row starts of a walk with this byte stride: the
 * starts fall on multiples of gcd(stride, sets x line) bytes of the sets'
 * span, so every spacing-th set (1: all of them). */
static double spacing(const geo *g, double stride)
{
    return fmax(1.0, gcd(g->sets * g->line, stride) / g->line);
}

double rb_traffic_sets(const rb_cache_geom *c, double rows, double run,
                       double stride_bytes)
{
    const geo g = geo_of(c);
    if (rows <= 1.0 || stride_bytes == run * g.line)
        return fmin(g.sets, fmax(rows, 1.0) * run);
    if (stride_bytes <= 0.0) /* the same row again and again */
        return fmin(g.sets, run);
    /* the row starts take span / gcd(stride, span) places of the sets'
     * span, gcd bytes apart: all of them cover every spacing-th set (or
     * every set, when the gcd is less than a line) with run sets each;
     * fewer rows cover run sets each at most */
    const double span = g.sets * g.line, gb = gcd(span, stride_bytes);
    const double places = span / gb, sp = gb / g.line;
    const double full = sp >= 1.0 ? g.sets / sp * fmin(run, sp) : g.sets;
    return fmin(full, fmin(rows, places) * run);
}

/* A walk's footprint: the sets it covers and its lines in each (the
 * mean; they differ by one at most), times mult when mult walks of one
 * pattern fall into the same sets (they are full or short together). */
typedef struct {
    double sets, per, mult;
} foot;

/* rows of row_bytes contiguous bytes each, stride bytes apart (a column of
 * a row-major matrix: one element a row, the row's bytes apart). Rows
 * that touch or overlap (stride at most the row, or within a line) make
 * one contiguous run of bytes. */
static foot walk(const rb_cache_geom *c, double rows, double row_bytes,
                 double stride)
{
    const double L = (double)c->line;
    foot f = {0.0, 0.0, 1.0};
    if (rows <= 1.0 || stride <= row_bytes || stride < L) {
        const double bytes =
            rows <= 1.0 ? row_bytes : (rows - 1.0) * stride + row_bytes;
        const double lines = fmax(1.0, ceil(bytes / L));
        f.sets = rb_traffic_sets(c, 1.0, lines, 0.0);
        f.per = lines / f.sets;
        return f;
    }
    const double run = ceil(row_bytes / L);
    f.sets = rb_traffic_sets(c, rows, run, stride);
    f.per = rows * run / f.sets;
    return f;
}

/* two walks of one pattern (the same rows, stride and start) in
 * different operands, as one */
static foot twice(foot a)
{
    const foot f = {a.sets, a.per, 2.0 * a.mult};
    return f;
}

/* Page-aligned operands start in the same set when the sets span a page
 * at most (an L1 of 64 sets of 64-byte lines): then two walks of one
 * pattern in different operands hold the same number of lines in every
 * set, not just the same sets. */
static int coherent(const geo *g)
{
    return g->sets <= g->page;
}

/* What else goes through the cache between two uses of a walk, and where
 * it lands relative to the walk's sets: in the same ones (SAME); in one of
 * them, any (IN: a line at the same column offset of a page-aligned
 * operand falls into the column's own sets); in sets drawn independently
 * of them (ANY: a given set of the walk gets it with probability its sets
 * / all sets); or wherever the other before it landed (WITH: the same
 * column of another operand). A walk that never meets it is left out. */
enum { SAME, IN, ANY, WITH };
typedef struct {
    foot f;
    int rel;
    int moves; /* lands elsewhere in the next pass (a row of the next k) */
} other;

/* The lines of a walk in one of its sets: the floor or the ceiling of
 * its mean (times mult), weighted to give the mean; the weight. */
static double split(foot f, int hi, double *v, int mean)
{
    if (mean) { /* where the pattern's start is not known: the mean */
        *v = f.per * f.mult;
        return hi ? 0.0 : 1.0;
    }
    const double lo = floor(f.per), w = f.per - lo;
    *v = (lo + hi) * f.mult;
    return hi ? w : 1.0 - w;
}

/* The expected loss in one set of r holding r lines and load lines of
 * the others so far; prev: whether the other before o landed in it;
 * stay: the probability that none of the moving others that missed the
 * set landed in it in the pass before. A set full to its last way loses
 * r again in the pass after an intruder: LRU keeps the intruder, used
 * late, and evicts the set's own lines one after the other. */
static double lost_rec(double ways, double r, double load, const other *o,
                       int n, int prev, int mean, double stay)
{
    if (n == 0)
        return r + load > ways                ? r
               : r + load == ways && !mean ? r * (1.0 - stay)
                                            : 0.0;
    double sum = 0.0, v;
    /* o->f.sets holds the probability that o lands in the set */
    const double p = o->rel == WITH ? (double)prev : o->f.sets;
    for (int hi = 0; hi < 2 && p > 0.0; hi++) {
        const double w = split(o->f, hi, &v, mean);
        if (w > 0.0)
            sum += p * w *
                   lost_rec(ways, r, load + v, o + 1, n - 1, 1, mean, stay);
    }
    if (p < 1.0)
        sum += (1.0 - p) * lost_rec(ways, r, load, o + 1, n - 1, 0, mean,
                                    o->moves ? stay * (1.0 - p) : stay);
    return sum;
}

/* Lines of walk r that miss when it is used again after the others went
 * through, under LRU: a set whose lines of r and of the others are more
 * than its ways loses all of r's lines in it (a cycle of ways + 1 lines
 * through ways slots misses every time); a set with room loses none. */
static double lost(const geo *g, foot r, const other *o, int n)
{
    other rel[8];
    for (int i = 0; i < n && i < 8; i++) {
        rel[i] = o[i];
        rel[i].f.sets = o[i].rel == SAME ? 1.0
                        : o[i].rel == IN ? fmin(1.0, o[i].f.sets / r.sets)
                                         : fmin(1.0, o[i].f.sets / g->sets);
    }
    double sum = 0.0, v;
    for (int hi = 0; hi < 2; hi++) {
        const double w = split(r, hi, &v, 0);
        if (w > 0.0)
            sum += w * lost_rec(g->ways, v, 0.0, rel, n < 8 ? n : 8, 0,
                                !coherent(g), 1.0);
    }
    return r.sets * sum; /* sum is per set, mult included */
}

double rb_traffic_again(const rb_cache_geom *c, double rows, double run,
                        double stride_bytes)
{
    const geo g = geo_of(c);
    return lost(&g, walk(c, rows, run * g.line, stride_bytes), NULL, 0);
}

/* Two column walks of the same stride in different operands start in
 * sets that agree modulo the spacing when the operands are page-aligned
 * (as the harness and cachegrind's child allocate them) and the spacing
 * divides a page's lines: then the columns of one index fall into the
 * same sets. */
static int aligned(const geo *g, double stride)
{
    return fmod(g->page, spacing(g, stride)) == 0.0;
}

/* lines of a row of n contiguous elements */
static double row_lines(double n, double e)
{
    return ceil(n / e);
}

/* ---- the four loop orders ------------------------------------------------ */

typedef struct {
    double N, P, M, sz, e;
    double A1, B1, C1; /* one pass over each operand, lines */
    const rb_cache_geom *c;
    geo g;
} shape_in;

/* ijk: row i of A serves every j; column j of B (P lines, M s apart)
 * serves the e values of j that share its lines; C[i,j] once. */
static double naive(const shape_in *x)
{
    const double N = x->N, P = x->P, M = x->M, sz = x->sz;
    const foot colB = walk(x->c, P, sz, M * sz),
               rowA = walk(x->c, 1, P * sz, 0),
               line = walk(x->c, 1, sz, 0),
               B = walk(x->c, P, M * sz, M * sz),
               rowC = walk(x->c, 1, M * sz, 0);
    /* B's column panel again at j + 1: one k loop went through, and
     * C's line, at the same column offset: in the column's sets */
    const int al = aligned(&x->g, M * sz);
    const other o1[] = {{rowA, ANY, 0}, {line, al ? IN : ANY, 0}};
    /* all of B again at i + 1: a row of A and of C went through */
    const other o2[] = {{rowA, ANY, 1}, {rowC, ANY, 1}};
    /* row i of A again at j + 1: a column of B */
    const other o3[] = {{colB, ANY, 0}, {line, ANY, 0}};
    /* C's line again at j + 1: a column of B and the row of A */
    const other o4[] = {{colB, ANY, 0}, {rowA, ANY, 0}};
    const double later_j = M - row_lines(M, x->e); /* j not first of a line */
    const double b = x->B1 + (N - 1.0) * lost(&x->g, B, o2, 2) +
                     N * later_j * lost(&x->g, colB, o1, 2);
    const double a = x->A1 + N * (M - 1.0) * lost(&x->g, rowA, o3, 2);
    const double c = x->C1 + N * later_j * lost(&x->g, line, o4, 2);
    return a + b + c;
}

/* ikj: row i of C serves every k; row k of B streams for every i; A[i,k]
 * one scalar per k, its line serving e of them. */
static double row(const shape_in *x)
{
    const double N = x->N, P = x->P, sz = x->sz;
    const foot rowB = walk(x->c, 1, x->M * sz, 0),
               rowC = rowB, rowA = walk(x->c, 1, P * sz, 0),
               line = walk(x->c, 1, sz, 0),
               B = walk(x->c, P, x->M * sz, x->M * sz);
    /* C's row again at k + 1: a row of B and A's line */
    const other o1[] = {{rowB, ANY, 1}, {line, ANY, 0}};
    /* all of B again at i + 1: a row of C and of A */
    const other o2[] = {{rowC, ANY, 1}, {rowA, ANY, 1}};
    /* A's line again at k + 1: a row of B and of C */
    const other o3[] = {{rowB, ANY, 1}, {rowC, ANY, 0}};
    const double c = x->C1 + N * P * lost(&x->g, rowC, o1, 2);
    const double b = x->B1 + (N - 1.0) * lost(&x->g, B, o2, 2);
    const double a = x->A1 + N * (P - row_lines(P, x->e)) *
                                 lost(&x->g, line, o3, 2);
    return a + b + c;
}

/* kij: row k of B serves every i; all of C is read and written for every
 * k; column k of A (N lines, P s apart) one element per row, its lines
 * serving e values of k. */
static double outer(const shape_in *x)
{
    const double N = x->N, P = x->P, M = x->M, sz = x->sz;
    const foot rowB = walk(x->c, 1, M * sz, 0), rowC = rowB,
               line = walk(x->c, 1, sz, 0),
               colA = walk(x->c, N, sz, P * sz),
               C = walk(x->c, N, M * sz, M * sz);
    /* B's row again at i + 1: a row of C and A's line */
    const other o1[] = {{rowC, ANY, 1}, {line, ANY, 0}};
    /* all of C again at k + 1 (and after the zeroing): a row of B and a
     * column of A */
    const other o2[] = {{rowB, ANY, 1}, {colA, ANY, 0}};
    /* A's column again at k + 1: all of C and a row of B */
    const other o3[] = {{C, ANY, 0}, {rowB, ANY, 1}};
    const double b = x->B1 + P * (N - 1.0) * lost(&x->g, rowB, o1, 2);
    const double c = x->C1 + P * lost(&x->g, C, o2, 2);
    const double a =
        x->A1 + (P - row_lines(P, x->e)) * lost(&x->g, colA, o3, 2);
    return a + b + c;
}

/* The column form's columns of A and C, each used again at k + 1 with the
 * other and B's line in between: for a share same_ac of the k the other
 * column lies in the same sets (the line as in_same), else apart (the
 * line as in_else); same_ac < 0: wherever (strides that differ). */
static double lost_panel(const geo *g, foot r, foot col, foot line,
                         int in_same, int in_else, int moves, double same_ac)
{
    const other same[] = {{col, SAME, 0}, {line, in_same, moves}},
                apart[] = {{line, in_else, moves}},
                any[] = {{col, ANY, 0}, {line, in_else, moves}};
    return same_ac < 0.0 ? lost(g, r, any, 2)
                         : same_ac * lost(g, r, same, 2) +
                               (1.0 - same_ac) * lost(g, r, apart, 1);
}

/* jki: column j of C (N lines, M s apart) serves every k; column k of A
 * (N lines, P s apart) is walked for every (j, k), its lines serving e
 * values of k; B[k,j] one element, its line serving e values of j. */
static double column(const shape_in *x)
{
    const double N = x->N, P = x->P, M = x->M, sz = x->sz, e = x->e;
    const geo *g = &x->g;
    const foot colC = walk(x->c, N, sz, M * sz),
               colA = walk(x->c, N, sz, P * sz),
               colB = walk(x->c, P, sz, M * sz), line = walk(x->c, 1, sz, 0),
               A = walk(x->c, N, P * sz, P * sz);
    /* B's and C's columns of one j: the same sets when page-aligned */
    const int bc = aligned(g, M * sz);
    /* A's column k and C's column j: the same stride when P = M, in the
     * same sets for one k panel in every spacing of them (aligned), else
     * apart */
    const double same_ac =
        P == M && aligned(g, M * sz) ? 1.0 / fmin(spacing(g, M * sz),
                                                   fmax(1.0, P / e))
                                     : -1.0;
    /* C's column again at k + 1: A's column and B's line (at the
     * column's offset: in its sets when aligned) */
    const int inb = aligned(g, M * sz) ? IN : ANY;
    const double lc = lost_panel(g, colC, colA, line, inb, inb, 1, same_ac);
    /* A's column again at k + 1 (same panel): C's column went through */
    const double la = lost_panel(g, colA, colC, line, inb, ANY, 0, same_ac);
    /* a whole j went through before A, B's column and C's lines are used
     * again at j + 1: all of A, B's column and C's column */
    /* with N = P the two columns hold as many lines in each set (in an L1
     * of a page, the same counts set by set); otherwise C's lies in B's
     * sets with its own count */
    const other oa[] = {{twice(colC), ANY, 0}};
    const other oa2[] = {{colB, ANY, 0}, {colC, bc ? WITH : ANY, 0}};
    const double lA = bc && coherent(g) && N == P ? lost(g, A, oa, 1)
                                                  : lost(g, A, oa2, 2);
    const other ob[] = {{A, ANY, 0},
                        {colC, !bc ? ANY : N == P ? SAME : IN, 0}};
    const double lB = lost(g, colB, ob, 2);
    const double later_j = M - row_lines(M, e);
    const double a = x->A1 + (M - 1.0) * lA +
                     M * (P - row_lines(P, e)) * la;
    const double b = x->B1 + later_j * lB;
    /* C's column is zeroed and then used for every k; at j + 1 it is
     * the same lines, touched again right after */
    const double c = x->C1 + M * P * lc;
    return a + b + c;
}

/* The blocked kernel's skinny path (matmul_blocked.c), in place: for
 * each block of C (all N rows, JC columns), for each skb-deep block of W,
 * for each strip of sw columns, for each row group (at most 6 rows): the
 * C tile += the group's rows of the A block x the strip block (skb x
 * sw). Each strip block serves every row group, each A block (N x skb)
 * every strip of the C block, each C block every W block. */
static double skinny(const shape_in *x, const rb_blocking *blk)
{
    const double N = x->N, P = x->P, M = x->M, sz = x->sz;
    const rb_cache_geom *c = x->c;
    const double groups = ceil(N / (double)RB_SKINNY_ROWS), h = N / groups;
    /* the kernel's own blocks, one thread */
    rb_skinny_plan plan;
    rb_skinny_plan_of(blk, (size_t)sz, (size_t)N, (size_t)P, (size_t)M,
                      (size_t)M, 1, &plan);
    const double SW = (double)blk->sw, KB = fmin((double)plan.skb, P);
    const double JC = fmin((double)plan.jc, M);
    /* blocks of C and of W, and the strips of all C blocks together (the
     * last block's may be fewer) */
    const double jcn = ceil(M / JC), kbn = ceil(P / KB),
                 strips = ceil(M / SW);
    const int in = aligned(&x->g, M * sz) ? IN : ANY;
    const foot strip = walk(c, KB, SW * sz, M * sz),
               tile = walk(c, h, SW * sz, M * sz),
               arow = walk(c, h, KB * sz, P * sz),
               ablk = walk(c, N, KB * sz, P * sz),
               ccol = walk(c, N, SW * sz, M * sz),
               wblk = walk(c, KB, JC * sz, M * sz),
               cblk = walk(c, N, JC * sz, M * sz);
    /* the strip block again for the next row group: that group's rows of
     * the A block and its C tile (the strip's columns: its sets) */
    const other ow[] = {{arow, ANY, 1}, {tile, in, 1}};
    /* the A block again for the next strip: the strip block and the C
     * tiles of every group */
    const other oa[] = {{strip, ANY, 1}, {ccol, ANY, 1}};
    /* the C block again for the next W block: that W block and A block */
    const other oc[] = {{wblk, ANY, 1}, {ablk, ANY, 1}};
    /* all of A again for the next C block (past MC rows the C blocks can
     * be a few strips wide): that block's pass went through its columns
     * of W (all P rows) and its C block. With one W block the accesses
     * between A's uses at a block's end are those at a strip's (oa), but
     * counted so the model read 9% under cachegrind (1024 x 64 x 256 f64,
     * the gate's geometry: 50944 LL misses against 55754; this way 56320):
     * a block's end loses more of A than a strip's, for a reason this
     * model does not hold. */
    const foot afull = walk(c, N, P * sz, P * sz),
               wcol = walk(c, P, JC * sz, M * sz);
    const other oaa[] = {{wcol, ANY, 1}, {cblk, ANY, 1}};
    const double w = x->B1 + (groups - 1.0) * kbn * ceil(M / SW) *
                                 lost(&x->g, strip, ow, 2);
    const double a = x->A1 + (jcn - 1.0) * lost(&x->g, afull, oaa, 2) +
                     kbn * (strips - jcn) * lost(&x->g, ablk, oa, 2);
    const double cc = x->C1 + jcn * (kbn - 1.0) * lost(&x->g, cblk, oc, 2);
    return w + a + cc;
}

/* The packed path (rb_blocking's tile and blocks): KC x NC blocks of B and
 * MC x KC blocks of A packed, an MR x NR tile of C in registers. */
static double packed(const shape_in *x, const rb_blocking *blk)
{
    const double N = x->N, P = x->P, M = x->M, sz = x->sz, e = x->e;
    const double Z = x->c->size;
    const rb_cache_geom *g = x->c;
    const double MR = (double)blk->mr, NR = (double)blk->nr;
    const double KC = fmin((double)blk->kc, P), MC = fmin((double)blk->mc, N),
                 NC = fmin((double)blk->nc, M);
    const double jcn = ceil(M / NC), pcn = ceil(P / KC), icn = ceil(N / MC);
    /* packing: B block read and packed copy written, once per (jc,
     * pc); A block read and packed, once per (jc, pc, ic) */
    const double pack_b = 2.0 * P * row_lines(M, e);
    const double pack_a = jcn * 2.0 * N * row_lines(P, e);
    /* the packed B block serves every ic when it fits beside the
     * packed A block; otherwise its micro-panels stream per ic, and
     * per micro-kernel call when one B and one A micro-panel do not
     * fit together */
    const int b_block_fits = (KC * NC + MC * KC) * sz <= Z;
    /* summed over the blocks, remainders included: every row block
     * streams all of packed B (P M / e lines); the micro-panel of B
     * (KC x NR, contiguous) then serves the block's other micro-rows
     * as far as it survives an A micro-panel (MR x KC) and a C tile
     * in its sets */
    const foot bmicro = walk(g, 1, KC * NR * sz, 0),
               amicro = walk(g, 1, MR * KC * sz, 0),
               ctile = walk(g, MR, NR * sz, M * sz);
    const other om[] = {{amicro, ANY, 1}, {ctile, ANY, 1}};
    const double bp =
        b_block_fits
            ? 0.0
            : icn * (P * M / e) + (ceil(N / MR) - icn) * ceil(M / NR) *
                                      pcn * lost(&x->g, bmicro, om, 2);
    /* the packed A block serves every micro-panel of B when it fits
     * beside one; otherwise it streams once per micro-panel: all of
     * packed A (N P / e lines) once per NR columns */
    const int a_block_fits = (MC * KC + KC * NR) * sz <= Z;
    const double ap = a_block_fits ? 0.0 : ceil(M / NR) * (N * P / e);
    /* C: each tile once per KC-deep block, unless C stays */
    const double c = N * M * sz <= Z ? x->C1 : pcn * x->C1;
    return pack_b + pack_a + bp + ap + c;
}

/* The blocked kernel (one thread): its skinny path up to the rows
 * rb_skinny_rows gives, else the packed one; -1 without the blocks that
 * path needs. */
static double blocked(const shape_in *x, const rb_blocking *blk)
{
    if (blk && blk->skinny_max > 0 &&
        x->N <= (double)rb_skinny_rows(blk, (size_t)x->sz, (size_t)x->P,
                                       (size_t)x->M, 1) &&
        blk->sw > 0 && blk->skb > 0)
        return skinny(x, blk);
    if (blk && blk->kc > 0 && blk->mr > 0 && blk->nr > 0 && blk->mc > 0 &&
        blk->nc > 0)
        return packed(x, blk);
    return -1.0;
}

double rb_traffic_lines(const rb_kernel *k, rb_shape s, size_t el,
                        const rb_cache_geom *g, const rb_blocking *blk)
{
    const double N = (double)s.n, P = (double)s.p, M = (double)s.m;
    const double sz = (double)el, e = (double)g->line / sz;
    if (N <= 0.0 || P <= 0.0 || M <= 0.0)
        return 0.0;
    /* each matrix once: contiguous (its leading dimension is its width),
     * page-aligned, so its bytes in whole lines */
    const double a_rows = ceil(N * P / e);   /* A once                    */
    const double b_rows = ceil(P * M / e);   /* B once                    */
    const double c_rows = ceil(N * M / e);   /* C once                    */
    const shape_in x = {N, P, M, sz, e, a_rows, b_rows, c_rows, g, geo_of(g)};

    switch (k->traffic) {
    case RB_TRAFFIC_DOT_PRODUCT:
        return naive(&x);
    case RB_TRAFFIC_ROW:
        return row(&x);
    case RB_TRAFFIC_OUTER:
        return outer(&x);
    case RB_TRAFFIC_COLUMN:
        return column(&x);
    case RB_TRAFFIC_BLOCKED:
        return blocked(&x, blk);
    case RB_TRAFFIC_NONE:
    default:
        return -1.0;
    }
}
