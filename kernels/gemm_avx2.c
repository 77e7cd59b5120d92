/* AVX2 + FMA micro-kernels of the blocked matmul: a 6 x 8 tile of f64 C
 * (12 ymm accumulators, 2 per row) and a 6 x 16 tile of f32 C, the body of
 * gemm_ukr.h; 12 + 2 + 1 registers fit in the 16 ymm. Only entered when
 * CPUID shows AVX2 and FMA (see config.c). */
#include "gemm.h"
#include "gemm_ukr.h"

GEMM_UKR(gemm_ukr_avx2_f64, "avx2,fma", double, __m256d, 4, 6, 2, _mm256, pd,
         _mm256_broadcast_sd)
GEMM_UKR(gemm_ukr_avx2_f32, "avx2,fma", float, __m256, 8, 6, 2, _mm256, ps,
         _mm256_broadcast_ss)
