/* matvec: y[N] = A[N,P] x[P], dot-product form.
 *
 * Row i of A is walked contiguously and dotted with x. Every element of A
 * is used once (2NP FLOPs for NP elements), so the intensity stays near one
 * FLOP per element of A for any size; x is reused N times and stays in
 * cache while it fits. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]

void matvec_rows_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict v = x->b;
    float *restrict y = x->c;
    const size_t lda = x->lda;
    for (size_t i = 0; i < x->n; i++) {
        float sum = 0.0f;
        for (size_t k = 0; k < x->p; k++)
            sum += A_(i, k) * v[k];
        y[i] = sum;
    }
}

void matvec_rows_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict v = x->b;
    double *restrict y = x->c;
    const size_t lda = x->lda;
    for (size_t i = 0; i < x->n; i++) {
        double sum = 0.0;
        for (size_t k = 0; k < x->p; k++)
            sum += A_(i, k) * v[k];
        y[i] = sum;
    }
}
