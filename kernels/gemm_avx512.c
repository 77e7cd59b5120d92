/* AVX-512 micro-kernels of the blocked matmul: an 8 x 24 tile of f64 C (24
 * zmm accumulators, 3 per row) and an 8 x 48 tile of f32 C, the body of
 * gemm_ukr.h. 24 accumulators cover the FMA latency times two pipes with
 * room, and 24 + 3 + 1 registers fit in the 32 zmm. Only entered when
 * CPUID shows AVX-512F (see config.c). */
#include "gemm.h"
#include "gemm_ukr.h"

#define SET1_PD(p) _mm512_set1_pd(*(p))
#define SET1_PS(p) _mm512_set1_ps(*(p))

GEMM_UKR(gemm_ukr_avx512_f64, "avx512f", double, __m512d, 8, 8, 3, _mm512,
         pd, SET1_PD)
GEMM_UKR(gemm_ukr_avx512_f32, "avx512f", float, __m512, 16, 8, 3, _mm512, ps,
         SET1_PS)
