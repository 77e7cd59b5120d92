/* matmul_naive: C[N,M] = A[N,P] B[P,M] in dot-product form (ijk).
 *
 * C[i,j] = row_i(A) . col_j(B). The inner loop walks a row of A
 * contiguously but a column of B with stride ldb, touching a new cache line
 * of B for every k. Row i of A is reused across all j while it sits in L1,
 * but all of B is re-streamed once per row of C: about N*P*M element loads
 * of B from wherever B lives, and one cache line per element once a column
 * of B no longer fits. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(k, j) b[(k) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

void matmul_naive_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict b = x->b;
    float *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t i = 0; i < x->n; i++)
        for (size_t j = 0; j < x->m; j++) {
            float sum = 0.0f;
            for (size_t k = 0; k < x->p; k++)
                sum += A_(i, k) * B_(k, j);
            C_(i, j) = sum;
        }
}

void matmul_naive_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict b = x->b;
    double *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t i = 0; i < x->n; i++)
        for (size_t j = 0; j < x->m; j++) {
            double sum = 0.0;
            for (size_t k = 0; k < x->p; k++)
                sum += A_(i, k) * B_(k, j);
            C_(i, j) = sum;
        }
}
