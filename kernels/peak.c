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


/* scalar-sse2: 12 chains of 64-bit multiply + add, 1 f32 lane each. */
static void peak_f32_scalar_sse2(uint64_t iters, float x, float y, float *acc)
{
    enum { CHAINS = 12, LANES = 1 };
    __m128 a[CHAINS];
    const __m128 vx = _mm_set_ss(x), vy = _mm_set_ss(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_load_ss(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = muladd_ss(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_store_ss(acc + LANES * c, a[c]);
}

/* scalar-sse2: 12 chains of 64-bit multiply + add, 1 f64 lane each. */
static void peak_f64_scalar_sse2(uint64_t iters, double x, double y, double *acc)
{
    enum { CHAINS = 12, LANES = 1 };
    __m128d a[CHAINS];
    const __m128d vx = _mm_set_sd(x), vy = _mm_set_sd(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_load_sd(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = muladd_sd(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_store_sd(acc + LANES * c, a[c]);
}

/* scalar-fma: 12 chains of 64-bit FMA, 1 f32 lane each. */
__attribute__((target("fma"))) static void peak_f32_scalar_fma(uint64_t iters, float x, float y, float *acc)
{
    enum { CHAINS = 12, LANES = 1 };
    __m128 a[CHAINS];
    const __m128 vx = _mm_set_ss(x), vy = _mm_set_ss(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_load_ss(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm_fmadd_ss(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_store_ss(acc + LANES * c, a[c]);
}

/* scalar-fma: 12 chains of 64-bit FMA, 1 f64 lane each. */
__attribute__((target("fma"))) static void peak_f64_scalar_fma(uint64_t iters, double x, double y, double *acc)
{
    enum { CHAINS = 12, LANES = 1 };
    __m128d a[CHAINS];
    const __m128d vx = _mm_set_sd(x), vy = _mm_set_sd(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_load_sd(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm_fmadd_sd(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_store_sd(acc + LANES * c, a[c]);
}

/* sse2: 12 chains of 128-bit multiply + add, 4 f32 lanes each. */
static void peak_f32_sse2(uint64_t iters, float x, float y, float *acc)
{
    enum { CHAINS = 12, LANES = 4 };
    __m128 a[CHAINS];
    const __m128 vx = _mm_set1_ps(x), vy = _mm_set1_ps(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_loadu_ps(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = muladd_ps(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_storeu_ps(acc + LANES * c, a[c]);
}

/* sse2: 12 chains of 128-bit multiply + add, 2 f64 lanes each. */
static void peak_f64_sse2(uint64_t iters, double x, double y, double *acc)
{
    enum { CHAINS = 12, LANES = 2 };
    __m128d a[CHAINS];
    const __m128d vx = _mm_set1_pd(x), vy = _mm_set1_pd(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_loadu_pd(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = muladd_pd(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_storeu_pd(acc + LANES * c, a[c]);
}

/* sse-fma: 12 chains of 128-bit FMA, 4 f32 lanes each. */
__attribute__((target("fma"))) static void peak_f32_sse_fma(uint64_t iters, float x, float y, float *acc)
{
    enum { CHAINS = 12, LANES = 4 };
    __m128 a[CHAINS];
    const __m128 vx = _mm_set1_ps(x), vy = _mm_set1_ps(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_loadu_ps(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm_fmadd_ps(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_storeu_ps(acc + LANES * c, a[c]);
}

/* sse-fma: 12 chains of 128-bit FMA, 2 f64 lanes each. */
__attribute__((target("fma"))) static void peak_f64_sse_fma(uint64_t iters, double x, double y, double *acc)
{
    enum { CHAINS = 12, LANES = 2 };
    __m128d a[CHAINS];
    const __m128d vx = _mm_set1_pd(x), vy = _mm_set1_pd(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm_loadu_pd(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm_fmadd_pd(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm_storeu_pd(acc + LANES * c, a[c]);
}

/* avx2-fma: 12 chains of 256-bit FMA, 8 f32 lanes each. */
__attribute__((target("avx,fma"))) static void peak_f32_avx2_fma(uint64_t iters, float x, float y, float *acc)
{
    enum { CHAINS = 12, LANES = 8 };
    __m256 a[CHAINS];
    const __m256 vx = _mm256_set1_ps(x), vy = _mm256_set1_ps(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm256_loadu_ps(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm256_fmadd_ps(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm256_storeu_ps(acc + LANES * c, a[c]);
}

/* avx2-fma: 12 chains of 256-bit FMA, 4 f64 lanes each. */
__attribute__((target("avx,fma"))) static void peak_f64_avx2_fma(uint64_t iters, double x, double y, double *acc)
{
    enum { CHAINS = 12, LANES = 4 };
    __m256d a[CHAINS];
    const __m256d vx = _mm256_set1_pd(x), vy = _mm256_set1_pd(y);
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm256_loadu_pd(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm256_fmadd_pd(a[c], vx, vy);
    }
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++)
        _mm256_storeu_pd(acc + LANES * c, a[c]);
}

/* avx512-fma: 24 chains of 512-bit FMA, 16 f32 lanes each. */
__attribute__((target("avx512f"))) static void peak_f32_avx512_fma(uint64_t iters, float x, float y, float *acc)
{
    enum { CHAINS = 24, LANES = 16 };
    __m512 a[CHAINS];
    const __m512 vx = _mm512_set1_ps(x), vy = _mm512_set1_ps(y);
#pragma GCC unroll 24
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm512_loadu_ps(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm512_fmadd_ps(a[c], vx, vy);
    }
#pragma GCC unroll 24
    for (int c = 0; c < CHAINS; c++)
        _mm512_storeu_ps(acc + LANES * c, a[c]);
}

/* avx512-fma: 24 chains of 512-bit FMA, 8 f64 lanes each. */
__attribute__((target("avx512f"))) static void peak_f64_avx512_fma(uint64_t iters, double x, double y, double *acc)
{
    enum { CHAINS = 24, LANES = 8 };
    __m512d a[CHAINS];
    const __m512d vx = _mm512_set1_pd(x), vy = _mm512_set1_pd(y);
#pragma GCC unroll 24
    for (int c = 0; c < CHAINS; c++)
        a[c] = _mm512_loadu_pd(acc + LANES * c);
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int c = 0; c < CHAINS; c++)
            a[c] = _mm512_fmadd_pd(a[c], vx, vy);
    }
#pragma GCC unroll 24
    for (int c = 0; c < CHAINS; c++)
        _mm512_storeu_pd(acc + LANES * c, a[c]);
}

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
