/* AVX2 + FMA micro-kernels of the blocked matmul: a 6 x 8 tile of f64 C
 * (12 ymm accumulators, 2 per row) and a 6 x 16 tile of f32 C. Each k
 * loads one row of the B micro-panel (2 registers), broadcasts the 6
 * values of A's column k and does 12 independent FMAs; 12 + 2 + 1
 * registers fit in the 16 ymm. Only entered when CPUID shows AVX2 and FMA
 * (see config.c). */
#include <immintrin.h>

#include "gemm.h"

enum { MR = 6, NV = 2 };

__attribute__((target("avx2,fma"))) void
gemm_ukr_avx2_f64(size_t kc, const double *restrict a,
                  const double *restrict b, double *restrict c, size_t ldc,
                  int accumulate)
{
    __m256d acc[MR][NV];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm256_setzero_pd();
    /* The C tile was last touched a whole block ago and is far from L1:
     * ask for it now, so it arrives while the kc loop runs. */
    for (int i = 0; i < MR; i++)
        for (int l = 0; l <= NV; l++)
            _mm_prefetch((const char *)(c + (size_t)i * ldc) + 64 * l,
                         _MM_HINT_T0);
    for (size_t k = 0; k < kc; k++) {
        const __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            const __m256d ai = _mm256_broadcast_sd(a + i);
            acc[i][0] = _mm256_fmadd_pd(ai, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_pd(ai, b1, acc[i][1]);
        }
        a += MR;
        b += 4 * NV;
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) {
            double *const p = c + (size_t)i * ldc + 4 * v;
            _mm256_storeu_pd(p, accumulate ? _mm256_add_pd(_mm256_loadu_pd(p),
                                                           acc[i][v])
                                           : acc[i][v]);
        }
}

__attribute__((target("avx2,fma"))) void
gemm_ukr_avx2_f32(size_t kc, const float *restrict a, const float *restrict b,
                  float *restrict c, size_t ldc, int accumulate)
{
    __m256 acc[MR][NV];
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm256_setzero_ps();
    /* The C tile was last touched a whole block ago and is far from L1:
     * ask for it now, so it arrives while the kc loop runs. */
    for (int i = 0; i < MR; i++)
        for (int l = 0; l <= NV; l++)
            _mm_prefetch((const char *)(c + (size_t)i * ldc) + 64 * l,
                         _MM_HINT_T0);
    for (size_t k = 0; k < kc; k++) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            const __m256 ai = _mm256_broadcast_ss(a + i);
            acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
        }
        a += MR;
        b += 8 * NV;
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) {
            float *const p = c + (size_t)i * ldc + 8 * v;
            _mm256_storeu_ps(p, accumulate ? _mm256_add_ps(_mm256_loadu_ps(p),
                                                           acc[i][v])
                                           : acc[i][v]);
        }
}
