/* AVX-512 micro-kernels of the blocked matmul: an 8 x 24 tile of f64 C (24
 * zmm accumulators, 3 per row) and an 8 x 48 tile of f32 C. Each k loads
 * one row of the B micro-panel (3 registers) and broadcasts the 8 values of
 * the A micro-panel's column k, then does 24 independent FMAs: an outer
 * product of a column of A and a row of B, which is the outer-product form
 * at register level. 24 accumulators cover the FMA latency times two pipes
 * with room, and 24 + 3 + 1 registers fit in the 32 zmm. Only entered when
 * CPUID shows AVX-512F (see config.c). */
#include <immintrin.h>

#include "gemm.h"

enum { MR = 8, NV = 3 };

__attribute__((target("avx512f"))) void
gemm_ukr_avx512_f64(size_t kc, const double *restrict a,
                    const double *restrict b, double *restrict c, size_t ldc,
                    int accumulate)
{
    __m512d acc[MR][NV];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm512_setzero_pd();
    /* The C tile was last touched a whole block ago and is far from L1:
     * ask for it now, so it arrives while the kc loop runs. */
    for (int i = 0; i < MR; i++)
        for (int l = 0; l <= NV; l++)
            _mm_prefetch((const char *)(c + (size_t)i * ldc) + 64 * l,
                         _MM_HINT_T0);
    for (size_t k = 0; k < kc; k++) {
        const __m512d b0 = _mm512_loadu_pd(b), b1 = _mm512_loadu_pd(b + 8),
                      b2 = _mm512_loadu_pd(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            const __m512d ai = _mm512_set1_pd(a[i]);
            acc[i][0] = _mm512_fmadd_pd(ai, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_pd(ai, b1, acc[i][1]);
            acc[i][2] = _mm512_fmadd_pd(ai, b2, acc[i][2]);
        }
        a += MR;
        b += 8 * NV;
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++) {
            double *const p = c + (size_t)i * ldc + 8 * v;
            _mm512_storeu_pd(p, accumulate ? _mm512_add_pd(_mm512_loadu_pd(p),
                                                           acc[i][v])
                                           : acc[i][v]);
        }
}

__attribute__((target("avx512f"))) void
gemm_ukr_avx512_f32(size_t kc, const float *restrict a,
                    const float *restrict b, float *restrict c, size_t ldc,
                    int accumulate)
{
    __m512 acc[MR][NV];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm512_setzero_ps();
    /* The C tile was last touched a whole block ago and is far from L1:
     * ask for it now, so it arrives while the kc loop runs. */
    for (int i = 0; i < MR; i++)
        for (int l = 0; l <= NV; l++)
            _mm_prefetch((const char *)(c + (size_t)i * ldc) + 64 * l,
                         _MM_HINT_T0);
    for (size_t k = 0; k < kc; k++) {
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16),
                     b2 = _mm512_loadu_ps(b + 32);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            const __m512 ai = _mm512_set1_ps(a[i]);
            acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
            acc[i][2] = _mm512_fmadd_ps(ai, b2, acc[i][2]);
        }
        a += MR;
        b += 16 * NV;
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++) {
            float *const p = c + (size_t)i * ldc + 16 * v;
            _mm512_storeu_ps(p, accumulate ? _mm512_add_ps(_mm512_loadu_ps(p),
                                                           acc[i][v])
                                           : acc[i][v]);
        }
}
