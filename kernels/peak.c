/* Peak-FLOP kernels, one per vector width and instruction set.
 *
 * Every variant keeps CHAINS independent accumulators, one register each,
 * and applies acc = acc * x + y to all of them in turn, iters times. The
 * chains do not depend on each other, so the only limit is how many FMAs
 * (or multiplies and adds) the core can start per cycle: with latency 4 and
 * two pipes, 8 chains in flight keep both pipes busy; 12 leave room and
 * still fit the 16 registers of SSE and AVX2 beside x and y; AVX-512 has 32
 * registers and uses 24. Intrinsics name the instruction, so the compiler
 * cannot contract, widen or narrow it; the unroll pragmas keep each chain
 * in its own register.
 *
 * The result is a closed form: with x < 1, acc_n = f + x^n (acc_0 - f)
 * where f = y / (1 - x), which bench/ceilings.c checks after timing. */
#include <immintrin.h>

#include "ceiling.h"
#include "kernel.h"

/* Separate multiply and add, for the SSE2 variants on CPUs without FMA. */
static inline __m128d muladd_sd(__m128d a, __m128d x, __m128d y)
{
    return _mm_add_sd(_mm_mul_sd(a, x), y);
}

static inline __m128 muladd_ss(__m128 a, __m128 x, __m128 y)
{
    return _mm_add_ss(_mm_mul_ss(a, x), y);
}

static inline __m128d muladd_pd(__m128d a, __m128d x, __m128d y)
{
    return _mm_add_pd(_mm_mul_pd(a, x), y);
}

static inline __m128 muladd_ps(__m128 a, __m128 x, __m128 y)
{
    return _mm_add_ps(_mm_mul_ps(a, x), y);
}


/* One variant: CH chains of VEC registers (LANES lanes of T each), the
 * update acc = OP(acc, x, y). ATTR is its target attribute (none for the
 * SSE2 baseline of x86-64). */
#define PEAK_KERNEL(NAME, ATTR, T, VEC, CH, LANES, SET, LOAD, STORE, OP)      \
    ATTR static void NAME(uint64_t iters, T x, T y, T *acc)                   \
    {                                                                         \
        VEC a[CH];                                                            \
        const VEC vx = SET(x), vy = SET(y);                                   \
        RB_PRAGMA(GCC unroll CH)                                              \
        for (int c = 0; c < CH; c++)                                          \
            a[c] = LOAD(acc + LANES * c);                                     \
        for (uint64_t i = 0; i < iters; i++) {                                \
            RB_PRAGMA(GCC unroll CH)                                          \
            for (int c = 0; c < CH; c++)                                      \
                a[c] = OP(a[c], vx, vy);                                      \
        }                                                                     \
        RB_PRAGMA(GCC unroll CH)                                              \
        for (int c = 0; c < CH; c++)                                          \
            STORE(acc + LANES * c, a[c]);                                     \
    }

#define PEAK_FMA __attribute__((target("fma")))
#define PEAK_AVX2_FMA __attribute__((target("avx,fma")))
#define PEAK_AVX512 __attribute__((target("avx512f")))

/* scalar-sse2 and scalar-fma: 12 chains of 64-bit multiply + add or FMA,
 * one lane each. */
PEAK_KERNEL(peak_f32_scalar_sse2, , float, __m128, 12, 1, _mm_set_ss,
            _mm_load_ss, _mm_store_ss, muladd_ss)
PEAK_KERNEL(peak_f64_scalar_sse2, , double, __m128d, 12, 1, _mm_set_sd,
            _mm_load_sd, _mm_store_sd, muladd_sd)
PEAK_KERNEL(peak_f32_scalar_fma, PEAK_FMA, float, __m128, 12, 1,
            _mm_set_ss, _mm_load_ss, _mm_store_ss, _mm_fmadd_ss)
PEAK_KERNEL(peak_f64_scalar_fma, PEAK_FMA, double, __m128d, 12, 1,
            _mm_set_sd, _mm_load_sd, _mm_store_sd, _mm_fmadd_sd)

/* sse2 and sse-fma: 12 chains of 128-bit multiply + add or FMA, 4 f32 or
 * 2 f64 lanes each. */
PEAK_KERNEL(peak_f32_sse2, , float, __m128, 12, 4, _mm_set1_ps, _mm_loadu_ps,
            _mm_storeu_ps, muladd_ps)
PEAK_KERNEL(peak_f64_sse2, , double, __m128d, 12, 2, _mm_set1_pd,
            _mm_loadu_pd, _mm_storeu_pd, muladd_pd)
PEAK_KERNEL(peak_f32_sse_fma, PEAK_FMA, float, __m128, 12, 4, _mm_set1_ps,
            _mm_loadu_ps, _mm_storeu_ps, _mm_fmadd_ps)
PEAK_KERNEL(peak_f64_sse_fma, PEAK_FMA, double, __m128d, 12, 2,
            _mm_set1_pd, _mm_loadu_pd, _mm_storeu_pd, _mm_fmadd_pd)

/* avx2-fma: 12 chains of 256-bit FMA, 8 f32 or 4 f64 lanes each. */
PEAK_KERNEL(peak_f32_avx2_fma, PEAK_AVX2_FMA, float, __m256, 12, 8,
            _mm256_set1_ps, _mm256_loadu_ps, _mm256_storeu_ps,
            _mm256_fmadd_ps)
PEAK_KERNEL(peak_f64_avx2_fma, PEAK_AVX2_FMA, double, __m256d, 12, 4,
            _mm256_set1_pd, _mm256_loadu_pd, _mm256_storeu_pd,
            _mm256_fmadd_pd)

/* avx512-fma: 24 chains of 512-bit FMA, 16 f32 or 8 f64 lanes each. */
PEAK_KERNEL(peak_f32_avx512_fma, PEAK_AVX512, float, __m512, 24, 16,
            _mm512_set1_ps, _mm512_loadu_ps, _mm512_storeu_ps,
            _mm512_fmadd_ps)
PEAK_KERNEL(peak_f64_avx512_fma, PEAK_AVX512, double, __m512d, 24, 8,
            _mm512_set1_pd, _mm512_loadu_pd, _mm512_storeu_pd,
            _mm512_fmadd_pd)

/* Widest first within each width: FMA before multiply + add. */
const rb_peak_variant rb_peak_variants[] = {
    {"avx512-fma", 512, 24, 1, RB_ISA_AVX512F, peak_f32_avx512_fma, peak_f64_avx512_fma},
    {"avx2-fma", 256, 12, 1, RB_ISA_AVX | RB_ISA_FMA, peak_f32_avx2_fma, peak_f64_avx2_fma},
    {"sse-fma", 128, 12, 1, RB_ISA_SSE2 | RB_ISA_FMA, peak_f32_sse_fma, peak_f64_sse_fma},
    {"sse2", 128, 12, 0, RB_ISA_SSE2, peak_f32_sse2, peak_f64_sse2},
    {"scalar-fma", 64, 12, 1, RB_ISA_SSE2 | RB_ISA_FMA, peak_f32_scalar_fma, peak_f64_scalar_fma},
    {"scalar-sse2", 64, 12, 0, RB_ISA_SSE2, peak_f32_scalar_sse2, peak_f64_scalar_sse2},
};

const size_t rb_npeak_variants =
    sizeof(rb_peak_variants) / sizeof(rb_peak_variants[0]);

/* The addend comes from a register: Intel cores from Golden Cove on fold
 * adds of an immediate at rename, so `add $1` chains ran four to the cycle
 * here (17 GHz "measured" on a 2.9 GHz Xeon); a register addend is a real
 * one-cycle add on every x86-64 core. */
uint64_t rb_clock_chain(uint64_t iters)
{
    uint64_t sum = 0, one = 1;
    for (uint64_t i = 0; i < iters; i++)
        __asm__ volatile(".rept 64\n\tadd %1, %0\n\t.endr"
                         : "+r"(sum)
                         : "r"(one));
    return sum;
}
