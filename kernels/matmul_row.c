/* matmul_row: C[N,M] = A[N,P] B[P,M] in row form (ikj).
 *
 * Row i of C is row i of A times B: N vector-matrix products. The inner
 * loop walks row k of B and row i of C contiguously, so it vectorises and
 * uses every byte of each cache line. Row i of C (M elements) is reused P
 * times while it sits in L1; all of B is re-streamed once per row of C,
 * which is cheap while B fits in the cache below and costs N*P*M element
 * loads once it does not. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(k, j) b[(k) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

void matmul_row_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict b = x->b;
    float *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t i = 0; i < x->n; i++) {
        for (size_t j = 0; j < x->m; j++)
            C_(i, j) = 0.0f;
        for (size_t k = 0; k < x->p; k++) {
            const float aik = A_(i, k);
            for (size_t j = 0; j < x->m; j++)
                C_(i, j) += aik * B_(k, j);
        }
    }
}

void matmul_row_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict b = x->b;
    double *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t i = 0; i < x->n; i++) {
        for (size_t j = 0; j < x->m; j++)
            C_(i, j) = 0.0;
        for (size_t k = 0; k < x->p; k++) {
            const double aik = A_(i, k);
            for (size_t j = 0; j < x->m; j++)
                C_(i, j) += aik * B_(k, j);
        }
    }
}
