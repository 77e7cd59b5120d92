/* batched: bp,bpm->bm. Row i of C is row i of A times row i's own [P,M]
 * matrix (at b + i*P*ldb), in row form.
 *
 * Unlike matmul (bp,pm->bm), where all N rows share one matrix that can be
 * reused N times, here every row brings its own matrix: each element of B
 * is used exactly once, bytes grow with N, and the intensity stays near one
 * FLOP per element of B however large the batch. This is decode attention
 * over a KV cache. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(i, k, j) b[((i) * x->p + (k)) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

void batched_row_f32(const rb_operands *x)
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
                C_(i, j) += aik * B_(i, k, j);
        }
    }
}

void batched_row_f64(const rb_operands *x)
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
                C_(i, j) += aik * B_(i, k, j);
        }
    }
}
