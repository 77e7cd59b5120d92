/* matmul_blocked: C[N,M] = A[N,P] B[P,M] in tiled outer-product form, the
 * way tuned BLAS libraries compute it (Goto and van de Geijn's algorithm,
 * as in BLIS).
 *
 * Block matrices multiply by the same rules as scalars, so the outer-product
 * form applies to blocks: C = sum over contraction blocks pc of
 * A[:, pc] B[pc, :]. The loop nest, outermost first:
 *
 *   jc: a block column of C and B, NC wide;
 *   pc: a contraction block KC deep: B[pc, jc] (KC x NC) is packed once
 *       into contiguous NR-wide micro-panels, shared by the whole team;
 *   ic: a block of MC rows of A and C, this thread's own: A[ic, pc]
 *       (MC x KC) is packed into MR-tall micro-panels;
 *   jr, ir: an MR x NR tile of C, updated by the micro-kernel as KC rank-1
 *       updates of a tile held in registers (gemm_avx512.c, gemm_avx2.c, or
 *       the portable one below), then added to C.
 *
 * Where the blocks live and why: the B micro-panel (KC x NR) is reused by
 * every tile of an MC block and the A micro-panel by the tile's KC rank-1
 * updates, both near L1 and streaming from L2; the packed A block
 * (MC x KC) is reused by every micro-panel of B and sits in L2; the packed
 * B block (KC x NC) is reused by every row block and sits in L3. The C
 * tile is fetched ahead (prefetch) at the start of each micro-kernel, as it
 * was last touched a whole block ago. So each element of
 * B comes from memory once per pass over N, each of A once per NC columns,
 * and each tile of C moves once per KC-deep block instead of once per k:
 * the n^3 / n^2 reuse on paper survives a cache far smaller than the
 * matrices. The micro-kernel and the block sizes for this machine come
 * from the GEMM context (gemm_cntx.c), in one place per architecture.
 *
 * Threads: the team splits the packing of B by micro-panels and the rows of
 * C by MC blocks; it meets at a barrier after packing B (everyone needs all
 * of it) and before the next B block overwrites it. */
#include <string.h>

#include "gemm.h"
#include "kernel.h"

/* ---- packing, per dtype -------------------------------------------------- */

/* B[0:kc, 0:nc] (leading dimension ldb) into NR-wide micro-panels, each kc
 * rows of NR contiguous values, the last padded with zeros; this member
 * packs panels tid, tid + nt, ... */
static void pack_b_f64(size_t kc, size_t nc, const double *b, size_t ldb,
                       double *bp, size_t nr, int tid, int nt)
{
    const size_t panels = (nc + nr - 1) / nr;
    for (size_t p = (size_t)tid; p < panels; p += (size_t)nt) {
        const size_t j0 = p * nr, w = nc - j0 < nr ? nc - j0 : nr;
        double *dst = bp + p * nr * kc;
        for (size_t k = 0; k < kc; k++, dst += nr) {
            memcpy(dst, b + k * ldb + j0, w * sizeof(*dst));
            for (size_t j = w; j < nr; j++)
                dst[j] = 0.0;
        }
    }
}

static void pack_b_f32(size_t kc, size_t nc, const float *b, size_t ldb,
                       float *bp, size_t nr, int tid, int nt)
{
    const size_t panels = (nc + nr - 1) / nr;
    for (size_t p = (size_t)tid; p < panels; p += (size_t)nt) {
        const size_t j0 = p * nr, w = nc - j0 < nr ? nc - j0 : nr;
        float *dst = bp + p * nr * kc;
        for (size_t k = 0; k < kc; k++, dst += nr) {
            memcpy(dst, b + k * ldb + j0, w * sizeof(*dst));
            for (size_t j = w; j < nr; j++)
                dst[j] = 0.0f;
        }
    }
}

/* A[0:mc, 0:kc] (leading dimension lda) into MR-tall micro-panels, each kc
 * columns of MR contiguous values, the last padded with zeros. */
static void pack_a_f64(size_t mc, size_t kc, const double *a, size_t lda,
                       double *ap, size_t mr)
{
    for (size_t i0 = 0; i0 < mc; i0 += mr, ap += mr * kc) {
        const size_t h = mc - i0 < mr ? mc - i0 : mr;
        for (size_t i = 0; i < mr; i++)
            for (size_t k = 0; k < kc; k++)
                ap[k * mr + i] = i < h ? a[(i0 + i) * lda + k] : 0.0;
    }
}

static void pack_a_f32(size_t mc, size_t kc, const float *a, size_t lda,
                       float *ap, size_t mr)
{
    for (size_t i0 = 0; i0 < mc; i0 += mr, ap += mr * kc) {
        const size_t h = mc - i0 < mr ? mc - i0 : mr;
        for (size_t i = 0; i < mr; i++)
            for (size_t k = 0; k < kc; k++)
                ap[k * mr + i] = i < h ? a[(i0 + i) * lda + k] : 0.0f;
    }
}

/* ---- the driver, shared by both dtypes ----------------------------------- */

static void put_edge_f64(size_t mr, size_t nr, const double *t, size_t tld,
                         double *d, size_t ldc, int accumulate)
{
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++)
            d[i * ldc + j] = (accumulate ? d[i * ldc + j] : 0.0) +
                             t[i * tld + j];
}

static void put_edge_f32(size_t mr, size_t nr, const float *t, size_t tld,
                         float *d, size_t ldc, int accumulate)
{
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++)
            d[i * ldc + j] = (accumulate ? d[i * ldc + j] : 0.0f) +
                             t[i * tld + j];
}

/* The leaves by dtype, so that one driver serves both. */
static void pack_b(rb_dtype dt, size_t kc, size_t nc, const void *b,
                   size_t ldb, void *bp, size_t nr, int tid, int nt)
{
    if (dt == RB_F64)
        pack_b_f64(kc, nc, b, ldb, bp, nr, tid, nt);
    else
        pack_b_f32(kc, nc, b, ldb, bp, nr, tid, nt);
}

static void pack_a(rb_dtype dt, size_t mc, size_t kc, const void *a,
                   size_t lda, void *ap, size_t mr)
{
    if (dt == RB_F64)
        pack_a_f64(mc, kc, a, lda, ap, mr);
    else
        pack_a_f32(mc, kc, a, lda, ap, mr);
}

static void ukr(rb_dtype dt, const gemm_path *path, size_t kc, const void *a,
                const void *b, void *c, size_t ldc, int accumulate)
{
    if (dt == RB_F64)
        path->f64(kc, a, b, c, ldc, accumulate);
    else
        path->f32(kc, a, b, c, ldc, accumulate);
}

static void put_edge(rb_dtype dt, size_t mr, size_t nr, const void *tile,
                     size_t tld, void *c, size_t ldc, int accumulate)
{
    if (dt == RB_F64)
        put_edge_f64(mr, nr, tile, tld, c, ldc, accumulate);
    else
        put_edge_f32(mr, nr, tile, tld, c, ldc, accumulate);
}

static size_t min_sz(size_t x, size_t y)
{
    return x < y ? x : y;
}

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

static void team_sync(const rb_team *t)
{
    if (t->nthreads > 1)
        t->barrier(t);
}

/* ---- the skinny path: few rows of A (or W within L2), W in place --------- */

/* The bytes of a member's workspace the right edge takes (edge_w,
 * edge_tile): a W block as deep as any plan makes one, since the depth
 * also follows W's row stride, and a C tile, both sw wide */
static size_t skinny_edge(const rb_blocking *b, size_t el)
{
    return round_up((rb_skinny_deepest(b) + RB_SKINNY_ROWS) * b->sw * el, 64);
}

static void skinny_tile(rb_dtype dt, const gemm_cntx *cx, size_t h, size_t kb,
                        const char *a, size_t lda, const char *w, size_t ldw,
                        char *c, size_t ldc, int accumulate,
                        const gemm_skinny_pf *pf)
{
    if (dt == RB_F64)
        cx->path->skinny64(h, kb, (const double *)a, lda, (const double *)w,
                           ldw, (double *)c, ldc, accumulate, pf);
    else
        cx->path->skinny32(h, kb, (const float *)a, lda, (const float *)w,
                           ldw, (float *)c, ldc, accumulate, pf);
}

/* The right edge, cols below the strip width sw, in the strip kernels at
 * their full speed: W's edge columns of a block, kb rows, go once into
 * wpad, sw wide with zeros beyond cols (edge_w), and each row group's C
 * edge goes in turn through one tile, sw wide (edge_tile), both in the
 * member's own workspace (matmul_blocked_workspace). The edge used to be
 * plain C, one dot product per element: where it was 52 of 500 f32
 * columns, 64 x 500 x 500 ran at 42 GFLOP/s on 1 thread of a Zen 5 guest
 * (177 to 183 this way) and 48 on 2 (339 to 344), and 16 x 1000 x 1000
 * (40 columns) at 81 to 96 on 1 or 2 threads (145 to 148, 212 to 269),
 * alternated with the old build in `roofbench run`. */
static void edge_w(size_t el, size_t cols, size_t kb, const char *w,
                   size_t ldw, size_t sw, char *wpad)
{
    for (size_t k = 0; k < kb; k++) {
        memcpy(wpad + k * sw * el, w + k * ldw * el, cols * el);
        memset(wpad + (k * sw + cols) * el, 0, (sw - cols) * el);
    }
}

static void edge_tile(rb_dtype dt, const gemm_cntx *cx, size_t h, size_t kb,
                      const char *a, size_t lda, const char *wpad, char *c,
                      size_t ldc, size_t cols, int accumulate, char *ct)
{
    const size_t el = rb_dtype_size(dt), sw = cx->blk.sw;
    if (accumulate)
        for (size_t i = 0; i < h; i++)
            memcpy(ct + i * sw * el, c + i * ldc * el, cols * el);
    skinny_tile(dt, cx, h, kb, a, lda, wpad, sw, ct, sw, accumulate, NULL);
    for (size_t i = 0; i < h; i++)
        memcpy(c + i * ldc * el, ct + i * sw * el, cols * el);
}

/* The W block after the one being computed: its columns [nj, ne), its
 * first element w, and, in the next-block order, its lines in memory order
 * (rows of `run` bytes, `lines` in all: none in the strips' order or after
 * the last block), asked for by the current block's calls, an even share
 * each. */
typedef struct {
    const char *w;
    size_t nk, nj, ne, run, lines;
} skinny_next;

/* The block after rows [k0, k0 + skb) of columns [jb, je) of this member's
 * [j0, j1): the next rows of these columns, or the first rows of the next
 * columns. */
static inline __attribute__((always_inline)) skinny_next
next_block(const rb_operands *x, size_t el, const rb_skinny_plan *plan,
           size_t k0, size_t jb, size_t je, size_t j1)
{
    size_t nk = k0 + plan->skb;
    skinny_next n = {.nj = jb, .ne = je};
    if (nk >= x->p) {
        nk = 0;
        n.nj = je;
        n.ne = min_sz(j1, je + plan->jc);
    }
    n.run = round_up((n.ne - n.nj) * el, 64);
    n.lines = plan->order == RB_SKINNY_NEXT_BLOCK && n.nj < j1
                  ? min_sz(plan->skb, x->p - nk) * (n.run / 64)
                  : 0;
    n.w = (const char *)x->b + (nk * x->ldb + n.nj) * el;
    n.nk = nk;
    return n;
}

/* The requests of one call of a full strip, W from beyond L2 (the record
 * is built for no other call): with n, the next-block order's; with n
 * NULL, the strips order's. strips: each row group asks for its share
 * [r0, r1) of the rows of the strip ahead, so that the requests are spread
 * over the whole strip's time, not one group's (it costs a few
 * instructions a step: 14% more in the check gate's 8x512x512 f64, whose
 * small simulated caches make its W "far"); next block: call `call` of
 * `calls` its share of the block's lines. Both: the next call's C tile,
 * c_rows rows at c_next.
 * Both helpers are always inlined, and this one fills the caller's record:
 * the check gate counts the instructions around every call, and there
 * (AVX2, f64 8 x 512 x 512) the record built in a call of its own ran 1.2
 * to 4.4% more of them, returned by value 0.8%, filled in place 0.3%
 * (while f32 128 x 128 x 128 ran 3.7% fewer). */
static inline __attribute__((always_inline)) void
requests(gemm_skinny_pf *pf, const skinny_next *n, size_t ld, size_t call,
         size_t calls, const char *ahead, size_t r0, size_t r1, int first,
         const char *c_next, size_t c_rows, size_t cld)
{
    *pf =
        n ? (gemm_skinny_pf){.ld = ld,
                             .next = n->lines ? n->w : NULL,
                             .run = n->run,
                             .l0 = n->lines * call / calls,
                             .l1 = n->lines * (call + 1) / calls}
          : (gemm_skinny_pf){.far = ahead && r1 > r0 ? ahead + r0 * ld : NULL,
                             .ld = ld,
                             .rows = r1 - r0,
                             .near = first};
    pf->c_next = c_next;
    pf->c_rows = c_rows;
    pf->c_ld = cld;
}

/* One or two rows of A with W from beyond L2 (plan->runs): each member
 * takes an even share of the rows of W, [p0, p1), which lie one after the
 * other in memory, so that every member streams one region of W along
 * whole rows (a share of the columns would halve the runs at 2 threads:
 * measured on Zen 5, 2 threads alternated call by call in one process, W
 * from DRAM, f32 P = M = 6784 and 11008, f64 4800, the rows' shares ran
 * 1.2 to 1.5 times as fast as the columns', 0.87 to 0.97 of the
 * streaming probe at B = 1 and 0.76 to 0.82 at B = 2, two rows of W at a
 * time then).
 * Its partial product goes to C (member 0) or to its slice of the shared
 * workspace (the others), in blocks of plan->jc columns, each C block
 * (its rows x jc, in L2) updated from four rows of W at a time, the lines
 * GEMM_RUNS_AHEAD bytes on asked for (as the streaming probe asks for its one
 * stream's). Then, past a barrier, each member adds the others' partials
 * into its share of the columns of C, and meets the others once more (a
 * member's next call would otherwise zero C, or its partial, while another
 * still adds from it: the harness's check after the timed calls caught
 * that). */

static void runs_call(rb_dtype dt, const gemm_cntx *cx, size_t n, size_t kb,
                      const char *a, size_t lda, const char *w, size_t ldw,
                      char *c, size_t ldc, size_t cols)
{
    if (dt == RB_F64)
        cx->path->runs64(n, kb, (const double *)a, lda, (const double *)w, ldw,
                         (double *)c, ldc, cols, GEMM_RUNS_AHEAD);
    else
        cx->path->runs32(n, kb, (const float *)a, lda, (const float *)w, ldw,
                         (float *)c, ldc, cols, GEMM_RUNS_AHEAD);
}

/* d[j] += s[j] for j in [j0, j1), one copy per element type */
#define ADD_ROW(NAME, T)                                                       \
    static void NAME(T *restrict d, const T *restrict s, size_t j0,           \
                     size_t j1)                                                \
    {                                                                          \
        for (size_t j = j0; j < j1; j++)                                       \
            d[j] += s[j];                                                      \
    }
ADD_ROW(add_row_f64, double)
ADD_ROW(add_row_f32, float)
#undef ADD_ROW

static void runs(const rb_operands *x, rb_dtype dt, const gemm_cntx *cx,
                  const rb_skinny_plan *plan)
{
    const rb_team *team = x->team;
    const size_t el = rb_dtype_size(dt), nt = (size_t)team->nthreads,
                 t = (size_t)team->tid, n = x->n, m = x->m;
    const size_t p0 = x->p * t / nt, p1 = x->p * (t + 1) / nt;
    /* member t > 0: partial t - 1 of the workspace, n x m, m apart */
    char *const part = (char *)team->shared;
    char *const dst = t == 0 ? (char *)x->c : part + (t - 1) * n * m * el;
    const size_t ld = t == 0 ? x->ldc : m;
    for (size_t jb = 0; jb < m; jb += plan->jc)
        runs_call(dt, cx, n, p1 - p0, (const char *)x->a + p0 * el, x->lda,
                  (const char *)x->b + (p0 * x->ldb + jb) * el, x->ldb,
                  dst + jb * el, ld, min_sz(m, jb + plan->jc) - jb);
    if (nt == 1)
        return;
    team_sync(team);
    const size_t j0 = m * t / nt, j1 = m * (t + 1) / nt;
    for (size_t u = 0; u + 1 < nt; u++)
        for (size_t i = 0; i < n; i++) {
            const size_t at = i * x->ldc, from = (u * n + i) * m;
            if (dt == RB_F64)
                add_row_f64((double *)x->c + at, (const double *)part + from,
                            j0, j1);
            else
                add_row_f32((float *)x->c + at, (const float *)part + from,
                            j0, j1);
        }
    /* and again before any member's next call writes C or its partial */
    team_sync(team);
}

/* For a product with few rows of A (N at most rb_skinny_rows), every
 * element of W is used by only N FMAs: packing it, as the packed path
 * does, would move it three times for that little work (and with W
 * within half of L2, rb_skinny_rows takes more rows, up to what a
 * quarter of L2 holds of a strip of C: there packing W and every A block
 * cost more than reading them in place). Instead each
 * member takes an even share of the columns of C and W (in whole strips;
 * no barrier: the shares are disjoint) and, for a block of C that fits in
 * L2 (all N rows, jc columns), walks W in blocks of skb rows: each strip
 * of the block (skb x sw) comes from memory once, for the first row
 * group, and from L1 or L2 for the others, and the C tile (up to 6 rows x
 * sw) stays in registers for the skb rank-1 updates. W is read once per
 * call, in place. rb_skinny_plan_of (gemm_cntx.c) sizes the blocks.
 *
 * In a team, each member builds its C block in its own workspace (N rows
 * x jc columns, jc apart) and copies it into C when the block is done,
 * instead of updating C in place skb rows of W at a time: the members'
 * column shares lie side by side in every row of C, and with both
 * writing them the team ran far below two lone threads (on a Zen 5
 * guest, 2 threads, f32 16 x 512 x 512, about 280 GFLOP/s where giving
 * member 1 a C of its own gave 395; a copy of W or A for it changed
 * nothing). Without counters the cause is a guess: each core's
 * prefetchers, following its own part of a row, fetch the other's lines
 * of it, which the other must then take back to write. Measured there,
 * old against new build alternated, called directly in one process: W
 * in L2 (P = M = 512 f32) B = 4 214 to 219 GFLOP/s against 299 to 302,
 * B = 16 254 to 259 against 317 to 324, B = 64 257 to 263 against 313
 * to 324; W from DRAM (8960 f32) B = 16 199 to 205 against 237 to 242,
 * B = 8 and 32 within 4%. In three alternated `roofbench sweep` pairs of
 * L2-resident weights at 2 threads the medians of the ratios were 1.06
 * to 1.49 (f32) and 1.02 to 1.37 (f64) over B = 1 to 64; with W from
 * DRAM 0.92 to 1.10, the noise of such sweeps. One thread updates C in
 * place (the same there, 1.00 and 0.99 at B = 16, W in L2).
 *
 * W far (beyond L2, and not read as from L2 within L3: rb_skinny_plan_of)
 * is asked for ahead, in one of two orders (the blocking's, chosen per
 * CPU):
 * - strips: each row group asks for its share of the rows of the strip
 *   plan.ahead to the right (two, or one: rb_skinny_plan_of says when
 *   and why), so that the requests ride along with the
 *   arithmetic instead of stalling it in a burst. Measured on Xeon EMR,
 *   f32 W of 5120 x 5120 from DRAM, B = 16 to 128, 1 thread, each
 *   variant interleaved with this order in one process, and none faster:
 *   copying the strip and the A block into contiguous buffers; the first
 *   row group storing the strip it loads for the others; C blocks small
 *   enough to stay in L2; the requests 1, 4 or 8 strips ahead; W blocks
 *   of 16 to 384 rows; the next W block asked for row after row (0.7 to
 *   0.9 times as fast); and the packed path from B = 24. There this path
 *   reached 0.6 to 0.75 of the peak with W from DRAM and about 0.9 with
 *   W in L2. Later, at P = M = 10944 f32 (479 MB, beyond the L3), 1 and 2
 *   threads, B = 8 to 64, none clearly faster either: each row's first
 *   one, two or three lines of the strip asked for, or its lines 0 and 2
 *   (0.75 to 0.95 times as fast: the hardware does not fetch the rest in
 *   time); four strips' rows asked for 1 KiB at a time; the requests of
 *   a block's last strips carried into the next block's first ones;
 *   blocks of 96 rows instead of 32 for three to six groups, asked for
 *   32 rows of three strips at a time so that each row's page is seen
 *   again soon (0.86 to 1.18, about 1.02 on the whole: from DRAM the
 *   arithmetic is not what waits, though with this path forced onto W
 *   in L2 those deeper blocks were 1.15 to 1.34 times as fast, where W
 *   in L2 takes the blocks of L1/2 and no requests anyway); and, as a
 *   test of the pattern rather than a layout the kernel could assume, W
 *   stored strip after strip, 8 KiB of a block's strip in a row (0.8
 *   times as fast at B = 8 and 16): the pages of a block's 32 rows
 *   (rb_skinny_plan_of), streamed side by side, are what feeds this
 *   path. Later still, on a Zen 5 guest (f32, 1 thread, alternated in
 *   one process), two more: the requests fanned out, row r of a block
 *   asking for the strip plan.ahead + (r mod 3 or 4) to the right, so
 *   that the lines in flight lie at several columns (in a synthetic read
 *   of the same pattern with 4 to 16 FMAs a vector, 0.9 to 1.1 times a
 *   linear stream's rate where the plain order ran 0.65 to 0.9, the
 *   least at rows a multiple of 2 KiB apart), in this kernel 0.83 to
 *   1.07 times as fast (mostly below 0.9; P = M = 4096 and 7296, B = 4
 *   to 16); and the next W block copied into a contiguous buffer by the
 *   steps of this one, a strip's row every `groups` steps (at P = M =
 *   7296, B = 16, 40 to 110 GFLOP/s against the strips' 150: the copy's
 *   loads from DRAM stall the steps).
 * - both orders, W far: each call of the AVX-512 kernels also asks
 *   for the next call's C tile over its first steps (gemm_skinny.c says
 *   why not AVX2's), unless the plan says not to (plan.c_tile: not in
 *   the strip order where the strips go ahead into L1, Zen 5's;
 *   rb_skinny_plan_of has the figures).
 *   Before the kernels' four-step loop that measured no faster; with it,
 *   against the same code without the requests, in one process, W from
 *   DRAM at B = 16 to 64: 1 thread 0.99 to 1.15 (one point 0.82) at P = M
 *   = 5952 and 8960 f32, 4224 and 6336 f64; 2 threads 0.93 to 1.15 (8960
 *   f32, 6336 f64).
 * - next block (beyond L3): every call asks for its share of the lines
 *   of the W block after this one, row after row in memory order, so that
 *   the memory sees runs of a whole block row (jc columns) instead of one
 *   strip's 256 bytes of each of skb rows, and the kernel paces itself
 *   near what DRAM delivers (gemm_skinny.c). Measured on Zen 5, f32 from
 *   DRAM, 1 thread, against this file's strip order before the change:
 *   a pure read of W in strip order ran at 0.6 of a linear one; in
 *   `roofbench run` at P = M = 5120, B = 1, 8, 16, 31.4 to 32.4 GB/s of W
 *   against 22.4 to 22.6, 24.1 to 24.9 against 22.8 to 23.3, and 18.4
 *   against 13.1 to 13.3; over P = 4608 to 6656 in one process, 1.02 to
 *   1.32 times the strip order's rate at B = 1 (0.87 to 1.31 at B = 8
 *   and 16). At 2 threads it is within the noise of the strip order.
 *
 * What W from DRAM still costs the strip order past the ridge (B above
 * about 16 there), measured on a Zen 5 guest: f32, 1 thread, the kernel
 * called directly, variants alternated call by call in one process,
 * medians of 5 to 9 rounds, P = M = 13440 (723 MB, rows 52.5 KiB apart)
 * unless said. At B = 64 it ran at 0.86 times its own rate with every
 * row of W at one address (so in L1), and with W in L3 (P = M = 2112)
 * at 0.95 times that rate. None of these was faster than the defaults
 * beyond the noise: the strip requests as T1, T2 or NTA instead of T0
 * (far_to_l1, host.c; medians 0.80 to 1.04 at B = 8 to 64); W blocks of
 * 96 or 192 rows past shallow_groups (3 on Zen 5: B above 18) instead
 * of 384 (deep_blocks x skb; 0.89 to 0.99 at B = 24 to 64); and, in a
 * prototype beside the kernel, every strip of a W block of 16 or 64
 * rows for one row group per call, so that fewer rows of W stream at
 * once than a 384-row block's (0.87 to 0.99 at B = 24 to 60), and tiles
 * of 8 rows x 3 vectors or 12 x 2 instead of 6 x 4 (0.87 to 1.02 of the
 * kernel; the prototype's own 6 x 4, 0.90 to 1.06). A synthetic read of
 * W alone in the strip order, 24 FMAs a vector on registers and nothing
 * else (no C tile, no A; the lines asked for two strips on, T0, as
 * here), reached 0.77 to 0.79 of the FMA peak at P = M = 8000 with
 * blocks of 8 to 384 rows, where the same read in memory order reached
 * 0.88; at P = M = 8192 (rows 32 KiB apart: rb_rows_alias) the strips
 * fell to 0.66. */
static void skinny(const rb_operands *x, rb_dtype dt, const gemm_cntx *cx)
{
    if (x->n == 0)
        return;
    const rb_team *team = x->team;
    const size_t el = rb_dtype_size(dt), sw = cx->blk.sw;
    const char *const a = x->a, *const b = x->b;
    char *const c = x->c;
    const size_t strips = (x->m + sw - 1) / sw;
    const size_t s0 = strips * (size_t)team->tid / (size_t)team->nthreads;
    const size_t s1 = strips * (size_t)(team->tid + 1) / (size_t)team->nthreads;
    const size_t j0 = min_sz(x->m, s0 * sw), j1 = min_sz(x->m, s1 * sw);
    /* row groups of even height, at most 6 rows each: 8 rows are two
     * tiles of 4, not 6 and a 2 that starves the FMA pipes */
    const size_t groups = (x->n + RB_SKINNY_ROWS - 1) / RB_SKINNY_ROWS,
                 h0 = x->n / groups, ld = x->ldb * el;
    /* planned on an even share of the columns, the same for every
     * member: the run kernels' members meet at a barrier, so they must
     * all take that path or none */
    rb_skinny_plan plan;
    rb_skinny_plan_of(&cx->blk, el, x->n, x->p,
                      x->m / (size_t)team->nthreads, x->ldb, team->nthreads,
                      &plan);
    if (plan.runs) {
        runs(x, dt, cx, &plan);
        return;
    }
    const int next = plan.order == RB_SKINNY_NEXT_BLOCK;
    /* the right edge's W block and C tile (edge_w, edge_tile) */
    char *const wpad = team->own, *const ct = wpad + plan.skb * sw * el;
    /* in a team, each C block in the member's own workspace, after the
     * right edge's part of it */
    char *const own =
        plan.own_c ? team->own + skinny_edge(&cx->blk, el) : NULL;
    const size_t oldc = own ? plan.jc : x->ldc, cld = oldc * el;
    for (size_t jb = j0; jb < j1; jb += plan.jc) {
        const size_t je = min_sz(j1, jb + plan.jc);
        /* this block's C: column jb of C, or of the member's buffer */
        char *const cb = own ? own : c + jb * el;
        /* its full strips, whose calls share the lines (the right edge
         * asks for none), and all its strips, the edge counted */
        const size_t full = (je - jb) / sw,
                     calls = (full > 0 ? full : 1) * groups,
                     here = (je - jb + sw - 1) / sw;
        for (size_t k0 = 0; k0 < x->p; k0 += plan.skb) {
            const size_t kb = min_sz(plan.skb, x->p - k0);
            const skinny_next nb = next_block(x, el, &plan, k0, jb, je, j1);
            size_t call = 0;
            for (size_t j = jb, si = 0; j < je; j += sw, si++) {
                const size_t w = min_sz(sw, je - j);
                const char *wk = b + (k0 * x->ldb + j) * el;
                /* strips: the strip plan.ahead to the right if it is a
                 * full one; with plan.wrap, past this block's last strip
                 * (its right edge counted as one), the next block's strip
                 * as many on, if it is a full one (its rows: fewer where
                 * that block is the last and shallower) */
                const char *ahead = NULL;
                size_t ahead_rows = kb;
                if (plan.far && !next) {
                    const size_t at = si + plan.ahead;
                    if (at < full) {
                        ahead = wk + plan.ahead * sw * el;
                    } else if (plan.wrap && at >= here &&
                               nb.nj + (at - here + 1) * sw <= nb.ne) {
                        ahead = nb.w + (at - here) * sw * el;
                        ahead_rows = min_sz(plan.skb, x->p - nb.nk);
                    }
                }
                /* after this strip's last group: the next full strip's
                 * first group, or that of the next W block's first strip
                 * (this block's first, or the next block's), if that
                 * strip is a full one; else none */
                const int more = j + 2 * sw <= je;
                /* the column of the next call's C tile in its block's C */
                const char *const cn =
                    more ? cb + (j + sw - jb) * el
                         : (own ? own : c + nb.nj * el);
                const int then = more || nb.nj + sw <= nb.ne;
                if (w < sw)
                    edge_w(el, w, kb, wk, x->ldb, sw, wpad);
                /* group g's rows [i0, i1) and share of the strip ahead
                 * [r0, r1), carried from group to group */
                size_t i0 = 0, i1 = h0, r0 = 0, r1 = kb / groups;
                for (size_t g = 0; g < groups; g++) {
                    const size_t h = i1 - i0, i2 = x->n * (g + 2) / groups;
                    const int last = g + 1 == groups;
                    const char *ai = a + (i0 * x->lda + k0) * el;
                    char *ci = cb + i0 * cld + (j - jb) * el;
                    if (w < sw) {
                        edge_tile(dt, cx, h, kb, ai, x->lda, wpad, ci, oldc,
                                  w, k0 > 0, ct);
                    } else {
                        gemm_skinny_pf pf;
                        if (plan.far) {
                            requests(&pf, next ? &nb : NULL, ld, call, calls,
                                     ahead, min_sz(r0, ahead_rows),
                                     min_sz(r1, ahead_rows), g == 0,
                                     !plan.c_tile ? NULL
                                     : !last      ? ci + h * cld
                                     : then       ? cn
                                                  : NULL,
                                     last ? h0 : i2 - i1, cld);
                            pf.far_l1 = cx->blk.far_to_l1;
                        }
                        skinny_tile(dt, cx, h, kb, ai, x->lda, wk, x->ldb, ci,
                                    oldc, k0 > 0, plan.far ? &pf : NULL);
                        call++;
                    }
                    i0 = i1;
                    i1 = i2;
                    r0 = r1;
                    r1 = kb * (g + 2) / groups;
                }
            }
        }
        if (own)
            for (size_t i = 0; i < x->n; i++)
                memcpy(c + (i * x->ldc + jb) * el, own + i * cld,
                       (je - jb) * el);
    }
}

/* ---- the packed path ----------------------------------------------------- */

static void blocked(const rb_operands *x, rb_dtype dt)
{
    gemm_cntx cx;
    gemm_cntx_of(dt, &cx);
    if (x->n <= rb_skinny_rows(&cx.blk, rb_dtype_size(dt), x->p, x->m,
                               x->team->nthreads)) {
        skinny(x, dt, &cx);
        return;
    }
    const rb_blocking bk = cx.blk;
    const gemm_path *path = cx.path;
    const rb_team *team = x->team;
    const size_t el = rb_dtype_size(dt), mr = bk.mr, nr = bk.nr;
    const char *const a = x->a, *const b = x->b;
    char *const c = x->c;
    char *const bp = team->shared; /* KC x NC of B, packed          */
    char *const ap = team->own;    /* MC x KC of A, packed          */
    char *const tile = ap + round_up(bk.mc, mr) * bk.kc * el; /* edges */

    /* This member's rows of C: an even share, in whole micro-panels. */
    const size_t panels = (x->n + mr - 1) / mr;
    const size_t r0 = min_sz(x->n, panels * (size_t)team->tid /
                                       (size_t)team->nthreads * mr);
    const size_t r1 = min_sz(x->n, panels * (size_t)(team->tid + 1) /
                                       (size_t)team->nthreads * mr);

    for (size_t jc = 0; jc < x->m; jc += bk.nc) {
        const size_t nc = min_sz(bk.nc, x->m - jc);
        for (size_t pc = 0; pc < x->p; pc += bk.kc) {
            const size_t kc = min_sz(bk.kc, x->p - pc);
            pack_b(dt, kc, nc, b + (pc * x->ldb + jc) * el, x->ldb, bp, nr,
                   team->tid, team->nthreads);
            team_sync(team);
            for (size_t ic = r0; ic < r1; ic += bk.mc) {
                const size_t mc = min_sz(bk.mc, r1 - ic);
                pack_a(dt, mc, kc, a + (ic * x->lda + pc) * el, x->lda, ap,
                       mr);
                for (size_t jr = 0; jr < nc; jr += nr)
                    for (size_t ir = 0; ir < mc; ir += mr) {
                        const char *pa = ap + ir * kc * el;
                        const char *pb = bp + jr * kc * el;
                        char *cij = c + ((ic + ir) * x->ldc + jc + jr) * el;
                        const size_t h = min_sz(mr, mc - ir),
                                     w = min_sz(nr, nc - jr);
                        if (h == mr && w == nr) {
                            ukr(dt, path, kc, pa, pb, cij, x->ldc, pc > 0);
                        } else {
                            ukr(dt, path, kc, pa, pb, tile, nr, 0);
                            put_edge(dt, h, w, tile, nr, cij, x->ldc, pc > 0);
                        }
                    }
            }
            team_sync(team);
        }
    }
}

void matmul_blocked_f64(const rb_operands *x)
{
    blocked(x, RB_F64);
}

void matmul_blocked_f32(const rb_operands *x)
{
    blocked(x, RB_F32);
}

void matmul_blocked_workspace(rb_shape s, rb_dtype dt, int nthreads,
                              size_t *shared, size_t *own)
{
    gemm_cntx cx;
    gemm_cntx_of(dt, &cx);
    const rb_blocking bk = cx.blk;
    const size_t el = rb_dtype_size(dt);
    const size_t kc = min_sz(bk.kc, s.p), nc = min_sz(bk.nc, s.m);
    *shared = round_up(nc, bk.nr) * kc * el;
    *own = (round_up(bk.mc, bk.mr) * bk.kc + bk.mr * bk.nr) * el;
    if (s.n > rb_skinny_rows(&bk, el, s.p, s.m, nthreads))
        return;
    /* the skinny path, planned as skinny() plans it where W's rows are m
     * apart: the run kernels' team needs the other members' partial
     * products (runs()); the right edge a W block and a C tile
     * (skinny_edge); a member of a team of the strip kernels its C
     * block (N x jc) */
    rb_skinny_plan plan;
    rb_skinny_plan_of(&bk, el, s.n, s.p, s.m / (size_t)nthreads, s.m,
                      nthreads, &plan);
    const size_t parts =
        plan.runs ? (size_t)(nthreads - 1) * s.n * s.m * el : 0;
    if (parts > *shared)
        *shared = parts;
    const size_t edge = skinny_edge(&bk, el) +
                        (plan.own_c ? s.n * plan.jc * el : 0);
    if (edge > *own)
        *own = edge;
}
