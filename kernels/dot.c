/* dot: c = sum_k a[k] b[k].
 *
 * One pass over two contiguous vectors: 2P FLOPs for 2P elements read, so
 * the intensity is about 1/s FLOP per byte whatever P is. Nothing is reused,
 * so the kernel runs at the bandwidth of whichever level holds the vectors.
 * A single accumulator keeps the order of the sum fixed and obvious. */
#include "kernel.h"

void dot_plain_f32(const rb_operands *x)
{
    const float *restrict a = x->a;
    const float *restrict b = x->b;
    float sum = 0.0f;
    for (size_t k = 0; k < x->p; k++)
        sum += a[k] * b[k];
    *(float *)x->c = sum;
}

void dot_plain_f64(const rb_operands *x)
{
    const double *restrict a = x->a;
    const double *restrict b = x->b;
    double sum = 0.0;
    for (size_t k = 0; k < x->p; k++)
        sum += a[k] * b[k];
    *(double *)x->c = sum;
}
