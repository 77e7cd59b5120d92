/* matmul_column: C[N,M] = A[N,P] B[P,M] in column form (jki).
 *
 * Column j of C is A times column j of B: M matrix-vector products. The
 * inner loop runs down a column of A and a column of C, both with a stride
 * of a whole row, so every element touched costs a cache line in row-major
 * storage. All of A is re-streamed once per column of C (N*P*M loads of A),
 * and column j of C is revisited P times; only B[k,j] stays in a register.
 * This is the order that moves the most memory for row-major operands. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(k, j) b[(k) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

void matmul_column_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict b = x->b;
    float *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t j = 0; j < x->m; j++) {
        for (size_t i = 0; i < x->n; i++)
            C_(i, j) = 0.0f;
        for (size_t k = 0; k < x->p; k++) {
            const float bkj = B_(k, j);
            for (size_t i = 0; i < x->n; i++)
                C_(i, j) += A_(i, k) * bkj;
        }
    }
}

void matmul_column_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict b = x->b;
    double *restrict c = x->c;
    const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;
    for (size_t j = 0; j < x->m; j++) {
        for (size_t i = 0; i < x->n; i++)
            C_(i, j) = 0.0;
        for (size_t k = 0; k < x->p; k++) {
            const double bkj = B_(k, j);
            for (size_t i = 0; i < x->n; i++)
                C_(i, j) += A_(i, k) * bkj;
        }
    }
}
