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

/* ---- packing, per dtype ----------------------------------------------------- */

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

/* ---- the driver, shared by both dtypes ------------------------------------- */

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

static void blocked(const rb_operands *x, rb_dtype dt)
{
    gemm_cntx cx;
    gemm_cntx_of(dt, &cx);
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
    (void)nthreads;
    gemm_cntx cx;
    gemm_cntx_of(dt, &cx);
    const rb_blocking bk = cx.blk;
    const size_t el = rb_dtype_size(dt);
    const size_t kc = min_sz(bk.kc, s.p), nc = min_sz(bk.nc, s.m);
    *shared = round_up(nc, bk.nr) * kc * el;
    *own = (round_up(bk.mc, bk.mr) * bk.kc + bk.mr * bk.nr) * el;
}
