/* The reference library beside every hand-written kernel: OpenBLAS's
 * sdot/ddot, sgemv/dgemv and sgemm/dgemm on the same row-major operands,
 * with beta = 0 so the output is overwritten as in the other kernels.
 * OpenBLAS spreads one call over its own threads; the caller sets how many.
 * The batched contraction has no single BLAS call: it is one gemv per row,
 * x_i^T B_i computed as B_i^T x_i. */
#include <cblas.h>

#include "kernel.h"

void dot_openblas_f32(const rb_operands *x)
{
    *(float *)x->c = cblas_sdot((blasint)x->p, x->a, 1, x->b, 1);
}

void dot_openblas_f64(const rb_operands *x)
{
    *(double *)x->c = cblas_ddot((blasint)x->p, x->a, 1, x->b, 1);
}

void matvec_openblas_f32(const rb_operands *x)
{
    cblas_sgemv(CblasRowMajor, CblasNoTrans, (blasint)x->n, (blasint)x->p,
                1.0f, x->a, (blasint)x->lda, x->b, 1, 0.0f, x->c, 1);
}

void matvec_openblas_f64(const rb_operands *x)
{
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (blasint)x->n, (blasint)x->p,
                1.0, x->a, (blasint)x->lda, x->b, 1, 0.0, x->c, 1);
}

void matmul_openblas_f32(const rb_operands *x)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)x->n,
                (blasint)x->m, (blasint)x->p, 1.0f, x->a, (blasint)x->lda,
                x->b, (blasint)x->ldb, 0.0f, x->c, (blasint)x->ldc);
}

void matmul_openblas_f64(const rb_operands *x)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)x->n,
                (blasint)x->m, (blasint)x->p, 1.0, x->a, (blasint)x->lda,
                x->b, (blasint)x->ldb, 0.0, x->c, (blasint)x->ldc);
}

void batched_openblas_f32(const rb_operands *x)
{
    const float *a = x->a;
    const float *b = x->b;
    float *c = x->c;
    for (size_t i = 0; i < x->n; i++)
        cblas_sgemv(CblasRowMajor, CblasTrans, (blasint)x->p, (blasint)x->m,
                    1.0f, b + i * x->p * x->ldb, (blasint)x->ldb,
                    a + i * x->lda, 1, 0.0f, c + i * x->ldc, 1);
}

void batched_openblas_f64(const rb_operands *x)
{
    const double *a = x->a;
    const double *b = x->b;
    double *c = x->c;
    for (size_t i = 0; i < x->n; i++)
        cblas_dgemv(CblasRowMajor, CblasTrans, (blasint)x->p, (blasint)x->m,
                    1.0, b + i * x->p * x->ldb, (blasint)x->ldb,
                    a + i * x->lda, 1, 0.0, c + i * x->ldc, 1);
}
