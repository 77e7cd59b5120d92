/* dot_simd: c = sum_k a[k] b[k] with eight independent vector accumulators.
 *
 * The plain dot keeps one running sum, so every add waits for the one
 * before it: one add per 3-4 cycles, far below what memory delivers once
 * the vectors are in cache. Here eight accumulators, each a full vector
 * register, take turns, so the FMAs never wait and the loads set the pace:
 * the kernel runs at the read bandwidth of whichever level holds a and b.
 * The code path (AVX-512, AVX2 + FMA, or portable C with eight scalar
 * sums) is chosen from the configured ISA (config.c). The sum is taken in
 * a different order than the plain dot's, within the same error bound. */
#include <immintrin.h>

#include "ceiling.h"
#include "kernel.h"

__attribute__((target("avx512f"))) static double dot_avx512_f64(
    const double *restrict a, const double *restrict b, size_t n)
{
    __m512d acc[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        acc[r] = _mm512_setzero_pd();
    size_t k = 0;
    for (; k + 64 <= n; k += 64)
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++)
            acc[r] = _mm512_fmadd_pd(_mm512_loadu_pd(a + k + 8 * r),
                                     _mm512_loadu_pd(b + k + 8 * r), acc[r]);
    for (; k < n; k += 8) {
        const __mmask8 m = n - k >= 8 ? 0xff : (__mmask8)((1u << (n - k)) - 1);
        acc[0] = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, a + k),
                                 _mm512_maskz_loadu_pd(m, b + k), acc[0]);
    }
    for (int r = 1; r < 8; r++)
        acc[0] = _mm512_add_pd(acc[0], acc[r]);
    return _mm512_reduce_add_pd(acc[0]);
}

__attribute__((target("avx512f"))) static float dot_avx512_f32(
    const float *restrict a, const float *restrict b, size_t n)
{
    __m512 acc[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        acc[r] = _mm512_setzero_ps();
    size_t k = 0;
    for (; k + 128 <= n; k += 128)
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++)
            acc[r] = _mm512_fmadd_ps(_mm512_loadu_ps(a + k + 16 * r),
                                     _mm512_loadu_ps(b + k + 16 * r), acc[r]);
    for (; k < n; k += 16) {
        const __mmask16 m =
            n - k >= 16 ? 0xffff : (__mmask16)((1u << (n - k)) - 1);
        acc[0] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + k),
                                 _mm512_maskz_loadu_ps(m, b + k), acc[0]);
    }
    for (int r = 1; r < 8; r++)
        acc[0] = _mm512_add_ps(acc[0], acc[r]);
    return _mm512_reduce_add_ps(acc[0]);
}

__attribute__((target("avx2,fma"))) static double dot_avx2_f64(
    const double *restrict a, const double *restrict b, size_t n)
{
    __m256d acc[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        acc[r] = _mm256_setzero_pd();
    size_t k = 0;
    for (; k + 32 <= n; k += 32)
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++)
            acc[r] = _mm256_fmadd_pd(_mm256_loadu_pd(a + k + 4 * r),
                                     _mm256_loadu_pd(b + k + 4 * r), acc[r]);
    for (int r = 1; r < 8; r++)
        acc[0] = _mm256_add_pd(acc[0], acc[r]);
    double lanes[4];
    _mm256_storeu_pd(lanes, acc[0]);
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; k < n; k++)
        sum += a[k] * b[k];
    return sum;
}

__attribute__((target("avx2,fma"))) static float dot_avx2_f32(
    const float *restrict a, const float *restrict b, size_t n)
{
    __m256 acc[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        acc[r] = _mm256_setzero_ps();
    size_t k = 0;
    for (; k + 64 <= n; k += 64)
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++)
            acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8 * r),
                                     _mm256_loadu_ps(b + k + 8 * r), acc[r]);
    for (int r = 1; r < 8; r++)
        acc[0] = _mm256_add_ps(acc[0], acc[r]);
    float lanes[8];
    _mm256_storeu_ps(lanes, acc[0]);
    float sum = 0.0f;
    for (int l = 0; l < 8; l++)
        sum += lanes[l];
    for (; k < n; k++)
        sum += a[k] * b[k];
    return sum;
}

static double dot_c_f64(const double *restrict a, const double *restrict b,
                        size_t n)
{
    double acc[8] = {0};
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int r = 0; r < 8; r++)
            acc[r] += a[k + r] * b[k + r];
    double sum = 0.0;
    for (int r = 0; r < 8; r++)
        sum += acc[r];
    for (; k < n; k++)
        sum += a[k] * b[k];
    return sum;
}

static float dot_c_f32(const float *restrict a, const float *restrict b,
                       size_t n)
{
    float acc[8] = {0};
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int r = 0; r < 8; r++)
            acc[r] += a[k + r] * b[k + r];
    float sum = 0.0f;
    for (int r = 0; r < 8; r++)
        sum += acc[r];
    for (; k < n; k++)
        sum += a[k] * b[k];
    return sum;
}

/* The code path the configured ISA allows: 2 AVX-512, 1 AVX2 + FMA, 0 C. */
static int simd_level(void)
{
    const unsigned isa = rb_config_get()->isa;
    if (isa & RB_ISA_AVX512F)
        return 2;
    return (isa & (RB_ISA_AVX2 | RB_ISA_FMA)) == (RB_ISA_AVX2 | RB_ISA_FMA);
}

/* Used by matvec_simd too: one row of A dotted with x. */
double rb_dot_simd_f64(const double *a, const double *b, size_t n)
{
    switch (simd_level()) {
    case 2:
        return dot_avx512_f64(a, b, n);
    case 1:
        return dot_avx2_f64(a, b, n);
    default:
        return dot_c_f64(a, b, n);
    }
}

float rb_dot_simd_f32(const float *a, const float *b, size_t n)
{
    switch (simd_level()) {
    case 2:
        return dot_avx512_f32(a, b, n);
    case 1:
        return dot_avx2_f32(a, b, n);
    default:
        return dot_c_f32(a, b, n);
    }
}

void dot_simd_f64(const rb_operands *x)
{
    *(double *)x->c = rb_dot_simd_f64(x->a, x->b, x->p);
}

void dot_simd_f32(const rb_operands *x)
{
    *(float *)x->c = rb_dot_simd_f32(x->a, x->b, x->p);
}

/* matvec_simd: y = A x, eight rows of A at a time (four with AVX2) against
 * one load of x.
 *
 * A streams through once, contiguously (its rows follow each other in
 * memory); x is reused by every row and stays in cache while it fits. Each
 * chunk of x is loaded once and used by eight rows, each row keeping two
 * vector accumulators, so there are sixteen independent FMA chains (of
 * AVX-512's 32 registers; AVX2's 16 hold four rows, eight chains) and the
 * horizontal sums are paid once per row at the end. Eight rows are eight
 * concurrent streams of A: measured in one process against four rows on a
 * Xeon (Emerald Rapids), 4-10% more from DRAM on two threads, the same in
 * L2; two rows (fewer streams, x loaded twice as often) were 10-25%
 * slower. The kernel then reads A at the bandwidth of the level that holds
 * it. */
/* AVX-512, eight rows: the eight horizontal sums taken together by a
 * transposing tree of adds (instead of eight reductions of their own), so
 * that short rows pay less per row: measured in one process on this Xeon,
 * 10% more in L2 on two threads at P = 128 and 256 (f64), 3% on one. The
 * at most seven rows left over go through the dot kernel one by one. */
__attribute__((target("avx512f"))) static void mv8_avx512_f64(
    const double *restrict a, size_t lda, const double *restrict x, size_t p,
    double *restrict y)
{
    __m512d acc[8][2];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_pd();
    size_t k = 0;
    for (; k + 16 <= p; k += 16) {
        const __m512d x0 = _mm512_loadu_pd(x + k),
                      x1 = _mm512_loadu_pd(x + k + 8);
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++) {
            acc[r][0] = _mm512_fmadd_pd(_mm512_loadu_pd(a + r * lda + k), x0,
                                        acc[r][0]);
            acc[r][1] = _mm512_fmadd_pd(_mm512_loadu_pd(a + r * lda + k + 8),
                                        x1, acc[r][1]);
        }
    }
    for (; k < p; k += 8) {
        const __mmask8 m = p - k >= 8 ? 0xff : (__mmask8)((1u << (p - k)) - 1);
        const __m512d xv = _mm512_maskz_loadu_pd(m, x + k);
        for (int r = 0; r < 8; r++)
            acc[r][0] = _mm512_fmadd_pd(
                _mm512_maskz_loadu_pd(m, a + r * lda + k), xv, acc[r][0]);
    }
    /* the eight horizontal sums at once: pairs within 128-bit lanes, then
     * 128-bit blocks twice, one store of y[0..7] */
    __m512d s[8], u[4], v[2];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        s[r] = _mm512_add_pd(acc[r][0], acc[r][1]);
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++)
        u[q] = _mm512_add_pd(_mm512_unpacklo_pd(s[2 * q], s[2 * q + 1]),
                             _mm512_unpackhi_pd(s[2 * q], s[2 * q + 1]));
#pragma GCC unroll 2
    for (int q = 0; q < 2; q++)
        v[q] = _mm512_add_pd(
            _mm512_shuffle_f64x2(u[2 * q], u[2 * q + 1], 0x88),
            _mm512_shuffle_f64x2(u[2 * q], u[2 * q + 1], 0xdd));
    _mm512_storeu_pd(y, _mm512_add_pd(_mm512_shuffle_f64x2(v[0], v[1], 0x88),
                                      _mm512_shuffle_f64x2(v[0], v[1], 0xdd)));
}

__attribute__((target("avx512f"))) static void mv8_avx512_f32(
    const float *restrict a, size_t lda, const float *restrict x, size_t p,
    float *restrict y)
{
    __m512 acc[8][2];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    size_t k = 0;
    for (; k + 32 <= p; k += 32) {
        const __m512 x0 = _mm512_loadu_ps(x + k),
                     x1 = _mm512_loadu_ps(x + k + 16);
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++) {
            acc[r][0] = _mm512_fmadd_ps(_mm512_loadu_ps(a + r * lda + k), x0,
                                        acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(_mm512_loadu_ps(a + r * lda + k + 16),
                                        x1, acc[r][1]);
        }
    }
    for (; k < p; k += 16) {
        const __mmask16 m =
            p - k >= 16 ? 0xffff : (__mmask16)((1u << (p - k)) - 1);
        const __m512 xv = _mm512_maskz_loadu_ps(m, x + k);
        for (int r = 0; r < 8; r++)
            acc[r][0] = _mm512_fmadd_ps(
                _mm512_maskz_loadu_ps(m, a + r * lda + k), xv, acc[r][0]);
    }
    /* the eight horizontal sums at once: pairs of floats, then pairs of
     * pairs within 128-bit lanes, then the four lanes, two stores */
    __m512 v[8], u[4], w[2];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++)
        v[r] = _mm512_add_ps(acc[r][0], acc[r][1]);
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++)
        u[q] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * q], v[2 * q + 1]),
                             _mm512_unpackhi_ps(v[2 * q], v[2 * q + 1]));
#pragma GCC unroll 2
    for (int q = 0; q < 2; q++) {
        const __m512d lo = _mm512_castps_pd(u[2 * q]),
                      hi = _mm512_castps_pd(u[2 * q + 1]);
        w[q] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(lo, hi)),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(lo, hi)));
    }
    const __m512 t = _mm512_add_ps(_mm512_shuffle_f32x4(w[0], w[1], 0x88),
                                   _mm512_shuffle_f32x4(w[0], w[1], 0xdd));
    _mm_storeu_ps(y, _mm_add_ps(_mm512_extractf32x4_ps(t, 0),
                                _mm512_extractf32x4_ps(t, 1)));
    _mm_storeu_ps(y + 4, _mm_add_ps(_mm512_extractf32x4_ps(t, 2),
                                    _mm512_extractf32x4_ps(t, 3)));
}

__attribute__((target("avx2,fma"))) static void mv4_avx2_f64(
    const double *restrict a, size_t lda, const double *restrict x, size_t p,
    double *restrict y)
{
    __m256d acc[4][2];
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_pd();
    size_t k = 0;
    for (; k + 8 <= p; k += 8) {
        const __m256d x0 = _mm256_loadu_pd(x + k), x1 = _mm256_loadu_pd(x + k + 4);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            acc[r][0] = _mm256_fmadd_pd(_mm256_loadu_pd(a + r * lda + k), x0,
                                        acc[r][0]);
            acc[r][1] = _mm256_fmadd_pd(_mm256_loadu_pd(a + r * lda + k + 4),
                                        x1, acc[r][1]);
        }
    }
    for (int r = 0; r < 4; r++) {
        double lanes[4];
        _mm256_storeu_pd(lanes, _mm256_add_pd(acc[r][0], acc[r][1]));
        double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
        for (size_t t = k; t < p; t++)
            sum += a[r * lda + t] * x[t];
        y[r] = sum;
    }
}

__attribute__((target("avx2,fma"))) static void mv4_avx2_f32(
    const float *restrict a, size_t lda, const float *restrict x, size_t p,
    float *restrict y)
{
    __m256 acc[4][2];
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    size_t k = 0;
    for (; k + 16 <= p; k += 16) {
        const __m256 x0 = _mm256_loadu_ps(x + k), x1 = _mm256_loadu_ps(x + k + 8);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            acc[r][0] = _mm256_fmadd_ps(_mm256_loadu_ps(a + r * lda + k), x0,
                                        acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(_mm256_loadu_ps(a + r * lda + k + 8),
                                        x1, acc[r][1]);
        }
    }
    for (int r = 0; r < 4; r++) {
        float lanes[8], sum = 0.0f;
        _mm256_storeu_ps(lanes, _mm256_add_ps(acc[r][0], acc[r][1]));
        for (int l = 0; l < 8; l++)
            sum += lanes[l];
        for (size_t t = k; t < p; t++)
            sum += a[r * lda + t] * x[t];
        y[r] = sum;
    }
}

void matvec_simd_f64(const rb_operands *x)
{
    const double *a = x->a;
    double *y = x->c;
    const int level = simd_level();
    size_t i = 0;
    for (; i + 8 <= x->n && level == 2; i += 8)
        mv8_avx512_f64(a + i * x->lda, x->lda, x->b, x->p, y + i);
    /* AVX2: four rows at a time; the rows AVX-512's eights leave (at most
     * seven) go one by one below */
    for (; i + 4 <= x->n && level == 1; i += 4)
        mv4_avx2_f64(a + i * x->lda, x->lda, x->b, x->p, y + i);
    for (; i < x->n; i++)
        y[i] = rb_dot_simd_f64(a + i * x->lda, x->b, x->p);
}

void matvec_simd_f32(const rb_operands *x)
{
    const float *a = x->a;
    float *y = x->c;
    const int level = simd_level();
    size_t i = 0;
    for (; i + 8 <= x->n && level == 2; i += 8)
        mv8_avx512_f32(a + i * x->lda, x->lda, x->b, x->p, y + i);
    /* AVX2: four rows at a time; the rows AVX-512's eights leave (at most
     * seven) go one by one below */
    for (; i + 4 <= x->n && level == 1; i += 4)
        mv4_avx2_f32(a + i * x->lda, x->lda, x->b, x->p, y + i);
    for (; i < x->n; i++)
        y[i] = rb_dot_simd_f32(a + i * x->lda, x->b, x->p);
}
