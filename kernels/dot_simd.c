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

/* The eight accumulators' turns, one body for every vector path and
 * dtype (gemm_ukr.h does the same for the micro-kernel): VEC registers of
 * LANES elements, P the intrinsics' prefix, SUF the type's suffix; leaves
 * k at the first element not yet summed and acc[0..7] holding the sums. */
#define DOT8_TURNS(P, SUF, LANES)                                             \
    RB_PRAGMA(GCC unroll 8)                                                   \
    for (int r = 0; r < 8; r++)                                               \
        acc[r] = P##_setzero_##SUF();                                         \
    size_t k = 0;                                                             \
    for (; k + 8 * (LANES) <= n; k += 8 * (LANES))                            \
        RB_PRAGMA(GCC unroll 8)                                               \
        for (int r = 0; r < 8; r++)                                           \
            acc[r] = P##_fmadd_##SUF(P##_loadu_##SUF(a + k + (LANES) * r),    \
                                     P##_loadu_##SUF(b + k + (LANES) * r),    \
                                     acc[r])

/* AVX-512: the rest in masked loads (mask type MT), then one reduction. */
#define DOT8_AVX512(NAME, T, VEC, LANES, SUF, MT)                             \
    __attribute__((target("avx512f"))) static T NAME(                         \
        const T *restrict a, const T *restrict b, size_t n)                   \
    {                                                                         \
        VEC acc[8];                                                           \
        DOT8_TURNS(_mm512, SUF, LANES);                                       \
        for (; k < n; k += (LANES)) {                                         \
            const MT m = n - k >= (LANES) ? (MT)((1u << (LANES)) - 1)         \
                                          : (MT)((1u << (n - k)) - 1);        \
            acc[0] = _mm512_fmadd_##SUF(_mm512_maskz_loadu_##SUF(m, a + k),   \
                                        _mm512_maskz_loadu_##SUF(m, b + k),   \
                                        acc[0]);                              \
        }                                                                     \
        for (int r = 1; r < 8; r++)                                           \
            acc[0] = _mm512_add_##SUF(acc[0], acc[r]);                        \
        return _mm512_reduce_add_##SUF(acc[0]);                               \
    }

/* AVX2: the lanes summed in order, then the rest one element at a time. */
#define DOT8_AVX2(NAME, T, VEC, LANES, SUF)                                   \
    __attribute__((target("avx2,fma"))) static T NAME(                        \
        const T *restrict a, const T *restrict b, size_t n)                   \
    {                                                                         \
        VEC acc[8];                                                           \
        DOT8_TURNS(_mm256, SUF, LANES);                                       \
        for (int r = 1; r < 8; r++)                                           \
            acc[0] = _mm256_add_##SUF(acc[0], acc[r]);                        \
        T lanes[LANES];                                                       \
        _mm256_storeu_##SUF(lanes, acc[0]);                                   \
        T sum = lanes[0];                                                     \
        for (int l = 1; l < (LANES); l++)                                     \
            sum += lanes[l];                                                  \
        for (; k < n; k++)                                                    \
            sum += a[k] * b[k];                                               \
        return sum;                                                           \
    }

/* Portable C: eight scalar sums. */
#define DOT8_C(NAME, T)                                                       \
    static T NAME(const T *restrict a, const T *restrict b, size_t n)         \
    {                                                                         \
        T acc[8] = {0}, sum = 0;                                              \
        size_t k = 0;                                                         \
        for (; k + 8 <= n; k += 8)                                            \
            for (int r = 0; r < 8; r++)                                       \
                acc[r] += a[k + r] * b[k + r];                                \
        for (int r = 0; r < 8; r++)                                           \
            sum += acc[r];                                                    \
        for (; k < n; k++)                                                    \
            sum += a[k] * b[k];                                               \
        return sum;                                                           \
    }

DOT8_AVX512(dot_avx512_f64, double, __m512d, 8, pd, __mmask8)
DOT8_AVX512(dot_avx512_f32, float, __m512, 16, ps, __mmask16)
DOT8_AVX2(dot_avx2_f64, double, __m256d, 4, pd)
DOT8_AVX2(dot_avx2_f32, float, __m256, 8, ps)
DOT8_C(dot_c_f64, double)
DOT8_C(dot_c_f32, float)

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
/* ROWS rows of A against x, two accumulators a row, one body for every
 * vector path and dtype (VEC registers of LANES elements, P the
 * intrinsics' prefix, SUF the type's suffix); leaves k at the first
 * element of x not yet used. */
#define MV_TURNS(P, ROWS, VEC, LANES, SUF)                                    \
    VEC acc[ROWS][2];                                                         \
    RB_PRAGMA(GCC unroll ROWS)                                                \
    for (int r = 0; r < (ROWS); r++)                                          \
        acc[r][0] = acc[r][1] = P##_setzero_##SUF();                          \
    size_t k = 0;                                                             \
    for (; k + 2 * (LANES) <= p; k += 2 * (LANES)) {                          \
        const VEC x0 = P##_loadu_##SUF(x + k),                                \
                  x1 = P##_loadu_##SUF(x + k + (LANES));                      \
        RB_PRAGMA(GCC unroll ROWS)                                            \
        for (int r = 0; r < (ROWS); r++) {                                    \
            acc[r][0] = P##_fmadd_##SUF(P##_loadu_##SUF(a + r * lda + k), x0, \
                                        acc[r][0]);                           \
            acc[r][1] = P##_fmadd_##SUF(                                      \
                P##_loadu_##SUF(a + r * lda + k + (LANES)), x1, acc[r][1]);   \
        }                                                                     \
    }

/* AVX-512: the rest of the eight rows in masked loads (mask type MT) */
#define MV8_MASKED(VEC, LANES, SUF, MT)                                       \
    for (; k < p; k += (LANES)) {                                             \
        const MT m = p - k >= (LANES) ? (MT)((1u << (LANES)) - 1)             \
                                      : (MT)((1u << (p - k)) - 1);            \
        const VEC xv = _mm512_maskz_loadu_##SUF(m, x + k);                    \
        for (int r = 0; r < 8; r++)                                           \
            acc[r][0] = _mm512_fmadd_##SUF(                                   \
                _mm512_maskz_loadu_##SUF(m, a + r * lda + k), xv, acc[r][0]); \
    }

/* AVX-512, eight rows: the eight horizontal sums taken together by a
 * transposing tree of adds (instead of eight reductions of their own), so
 * that short rows pay less per row: measured in one process on this Xeon,
 * 10% more in L2 on two threads at P = 128 and 256 (f64), 3% on one. The
 * at most seven rows left over go through the dot kernel one by one. */
__attribute__((target("avx512f"))) static void mv8_avx512_f64(
    const double *restrict a, size_t lda, const double *restrict x, size_t p,
    double *restrict y)
{
    MV_TURNS(_mm512, 8, __m512d, 8, pd);
    MV8_MASKED(__m512d, 8, pd, __mmask8)
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
    MV_TURNS(_mm512, 8, __m512, 16, ps);
    MV8_MASKED(__m512, 16, ps, __mmask16)
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

/* AVX2, four rows: two accumulators a row, then each row's lanes summed
 * in order and the rest of it one element at a time. */
#define MV4_AVX2(NAME, T, VEC, LANES, SUF)                                    \
    __attribute__((target("avx2,fma"))) static void NAME(                     \
        const T *restrict a, size_t lda, const T *restrict x, size_t p,       \
        T *restrict y)                                                        \
    {                                                                         \
        MV_TURNS(_mm256, 4, VEC, LANES, SUF);                                 \
        for (int r = 0; r < 4; r++) {                                         \
            T lanes[LANES];                                                   \
            _mm256_storeu_##SUF(lanes,                                        \
                                _mm256_add_##SUF(acc[r][0], acc[r][1]));      \
            T sum = lanes[0];                                                 \
            for (int l = 1; l < (LANES); l++)                                 \
                sum += lanes[l];                                              \
            for (size_t t = k; t < p; t++)                                    \
                sum += a[r * lda + t] * x[t];                                 \
            y[r] = sum;                                                       \
        }                                                                     \
    }

MV4_AVX2(mv4_avx2_f64, double, __m256d, 4, pd)
MV4_AVX2(mv4_avx2_f32, float, __m256, 8, ps)

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
