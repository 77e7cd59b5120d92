/* matmul_outer: C[N,M] = A[N,P] B[P,M] in outer-product form (kij).
 *
 * C = sum_k col_k(A) row_k(B): P rank-1 updates of the whole of C. The
 * inner loop walks row k of B and a row of C contiguously. Row k of B is
 * reused across all N rows of C while it sits in L1, but all of C is read
 * and written once per k: 2*N*M*P element transfers of C as soon as C no
 * longer fits in the cache below, which is why the hardware form of this
 * order works on blocks (matmul_blocked). */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(k, j) b[(k) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

void matmul_outer_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict b = x->b;
    float *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t i = 0; i < x->n; i++)
        for (size_t j = 0; j < x->m; j++)
            C_(i, j) = 0.0f;
    for (size_t k = 0; k < x->p; k++)
        for (size_t i = 0; i < x->n; i++) {
            const float aik = A_(i, k);
            for (size_t j = 0; j < x->m; j++)
                C_(i, j) += aik * B_(k, j);
        }
}

void matmul_outer_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict b = x->b;
    double *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t i = 0; i < x->n; i++)
        for (size_t j = 0; j < x->m; j++)
            C_(i, j) = 0.0;
    for (size_t k = 0; k < x->p; k++)
        for (size_t i = 0; i < x->n; i++) {
            const double aik = A_(i, k);
            for (size_t j = 0; j < x->m; j++)
                C_(i, j) += aik * B_(k, j);
        }
}
