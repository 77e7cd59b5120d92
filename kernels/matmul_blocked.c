/* matmul_blocked: C[N,M] = A[N,P] B[P,M] in tiled outer-product form.
 *
 * Block matrices multiply by the same rules as scalars, so the outer-product
 * form applies to blocks: C = sum over contraction blocks kb of
 * A[:, kb] B[kb, :]. For each block column of C (NC wide) and each
 * contraction block (KC deep), the KC x NC block of B is loaded once and
 * reused by every MC-row block of A; inside that, an MR x NR tile of C is
 * accumulated in local variables as KC rank-1 updates (the register-level
 * outer product) and written back once per contraction block.
 *
 * Traffic: B is read once per MC-row block instead of once per row, A once
 * per NC-column block, and each tile of C moves once per KC-deep block
 * instead of once per k. Correctness is the point here; packing and a
 * vectorised micro-kernel come with the performance work.
 *
 * Block sizes (in elements), chosen so the working sets fit a 32 KiB L1 and
 * a 1 MiB L2 in f64 (f32 halves every byte figure):
 *   MR x NR = 4 x 8   tile of C held in registers (32 accumulators);
 *   KC = 128          MR x KC of A (4 KiB) and KC x NR of B (8 KiB) stay in
 *                     L1 while the tile is updated;
 *   NC = 256          the KC x NC block of B (256 KiB) stays in L2;
 *   MC = 64           the MC x KC block of A (64 KiB) is reused across NC. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(k, j) b[(k) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

enum { MR = 4, NR = 8, KC = 128, NC = 256, MC = 64 };

static size_t min_sz(size_t x, size_t y)
{
    return x < y ? x : y;
}

/* C[0:mr, 0:nr] += A[0:mr, 0:kc] B[0:kc, 0:nr], as kc rank-1 updates of a
 * tile kept in local accumulators. */
static void tile_f32(size_t mr, size_t nr, size_t kc, const float *restrict a,
                     size_t lda, const float *restrict b, size_t ldb,
                     float *restrict c, size_t ldc)
{
    float acc[MR][NR] = {{0}};
    for (size_t k = 0; k < kc; k++)
        for (size_t i = 0; i < mr; i++) {
            const float aik = A_(i, k);
            for (size_t j = 0; j < nr; j++)
                acc[i][j] += aik * B_(k, j);
        }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++)
            C_(i, j) += acc[i][j];
}

static void tile_f64(size_t mr, size_t nr, size_t kc, const double *restrict a,
                     size_t lda, const double *restrict b, size_t ldb,
                     double *restrict c, size_t ldc)
{
    double acc[MR][NR] = {{0}};
    for (size_t k = 0; k < kc; k++)
        for (size_t i = 0; i < mr; i++) {
            const double aik = A_(i, k);
            for (size_t j = 0; j < nr; j++)
                acc[i][j] += aik * B_(k, j);
        }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++)
            C_(i, j) += acc[i][j];
}

void matmul_blocked_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict b = x->b;
    float *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    const size_t n = x->n, p = x->p, m = x->m;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            C_(i, j) = 0.0f;
    for (size_t jc = 0; jc < m; jc += NC) {
        const size_t nc = min_sz(NC, m - jc);
        for (size_t pc = 0; pc < p; pc += KC) {
            const size_t kc = min_sz(KC, p - pc);
            for (size_t ic = 0; ic < n; ic += MC) {
                const size_t mc = min_sz(MC, n - ic);
                for (size_t jr = 0; jr < nc; jr += NR)
                    for (size_t ir = 0; ir < mc; ir += MR)
                        tile_f32(min_sz(MR, mc - ir), min_sz(NR, nc - jr), kc,
                                 &A_(ic + ir, pc), lda, &B_(pc, jc + jr), ldb,
                                 &C_(ic + ir, jc + jr), ldc);
            }
        }
    }
}

void matmul_blocked_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict b = x->b;
    double *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    const size_t n = x->n, p = x->p, m = x->m;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            C_(i, j) = 0.0;
    for (size_t jc = 0; jc < m; jc += NC) {
        const size_t nc = min_sz(NC, m - jc);
        for (size_t pc = 0; pc < p; pc += KC) {
            const size_t kc = min_sz(KC, p - pc);
            for (size_t ic = 0; ic < n; ic += MC) {
                const size_t mc = min_sz(MC, n - ic);
                for (size_t jr = 0; jr < nc; jr += NR)
                    for (size_t ir = 0; ir < mc; ir += MR)
                        tile_f64(min_sz(MR, mc - ir), min_sz(NR, nc - jr), kc,
                                 &A_(ic + ir, pc), lda, &B_(pc, jc + jr), ldb,
                                 &C_(ic + ir, jc + jr), ldc);
            }
        }
    }
}
