/* Bandwidth kernels (read over one, two or four arrays, write, copy, triad,
 * schoenauer) per vector width.
 *
 * Each walks its arrays reps times, contiguously, in blocks of
 * RB_STREAM_BLOCK elements (512 bytes: eight cache lines); the repetitions
 * run inside the kernel, so a pass over an array that fits in L1 pays for
 * nothing but its loads and stores.
 *
 * schoenauer is the vector triad a = b + c * d (four streams), the kernel
 * likwid-bench calls `triad`, so the two tools can be compared like for
 * like.
 *
 * read sums 64-bit integers into eight independent accumulators: integer
 * adds have more pipes than floating-point adds (on Zen 4, four 256-bit
 * ALUs against two FP adders), so the loads, not the adds, set the pace,
 * and the sum stays exact for the closed-form check. write, copy and triad
 * issue one full-width store per register. Stores are ordinary (not
 * non-temporal), so in DRAM every stored line is also read first
 * (write-allocate); the bytes reported are the bytes the code names, as in
 * STREAM and likwid-bench. */
#include <immintrin.h>

#include "ceiling.h"
#include "kernel.h"


/* Every kernel's loop: reps passes over n elements in blocks, STMT once
 * for each of a block's RB_STREAM_BLOCK / L registers (r, at element
 * i + L * r), unrolled U times (U the same count as a literal). */
#define RB_STREAM_PASSES(U, L, STMT)                                          \
    for (uint64_t rep = 0; rep < reps; rep++)                                 \
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {                     \
            RB_PRAGMA(GCC unroll U)                                           \
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)                     \
                STMT;                                                         \
        }

/* One vector width's read, write, copy, triad and schoenauer: L elements a
 * register of VI (64-bit integers, for read) or VD (doubles), U = the
 * registers a block (RB_STREAM_BLOCK / L, a literal for the unroll
 * pragmas), P the intrinsics' prefix, SI the integer vector's suffix. */
#define RB_STREAM_WIDTH(W, TARGET, VI, VD, L, U, P, SI)                       \
    TARGET static void read_##W(const uint64_t *a, size_t n, uint64_t reps,   \
                                uint64_t *sums)                               \
    {                                                                         \
        enum { ACC = 8 };                                                     \
        VI acc[ACC];                                                          \
        RB_PRAGMA(GCC unroll 8)                                               \
        for (int r = 0; r < ACC; r++)                                         \
            acc[r] = P##_loadu_##SI((const void *)(sums + L * r));            \
        RB_STREAM_PASSES(U, L,                                                \
                         acc[r % ACC] = P##_add_epi64(                        \
                             acc[r % ACC],                                    \
                             P##_loadu_##SI((const void *)(a + i + L * r)))); \
        RB_PRAGMA(GCC unroll 8)                                               \
        for (int r = 0; r < ACC; r++)                                         \
            P##_storeu_##SI((void *)(sums + L * r), acc[r]);                  \
    }                                                                         \
                                                                              \
    TARGET static void write_##W(double *a, size_t n, uint64_t reps,          \
                                 double v)                                    \
    {                                                                         \
        const VD vv = P##_set1_pd(v);                                         \
        RB_STREAM_PASSES(U, L, P##_storeu_pd(a + i + L * r, vv));             \
    }                                                                         \
                                                                              \
    TARGET static void copy_##W(double *restrict a, const double *restrict b, \
                                size_t n, uint64_t reps)                      \
    {                                                                         \
        RB_STREAM_PASSES(U, L,                                                \
                         P##_storeu_pd(a + i + L * r,                         \
                                       P##_loadu_pd(b + i + L * r)));         \
    }                                                                         \
                                                                              \
    TARGET static void triad_##W(double *restrict a,                          \
                                 const double *restrict b,                    \
                                 const double *restrict c, double s, size_t n, \
                                 uint64_t reps)                               \
    {                                                                         \
        const VD vs = P##_set1_pd(s);                                         \
        RB_STREAM_PASSES(                                                     \
            U, L,                                                             \
            P##_storeu_pd(a + i + L * r,                                      \
                          P##_add_pd(P##_loadu_pd(b + i + L * r),             \
                                     P##_mul_pd(vs, P##_loadu_pd(             \
                                                        c + i + L * r)))));   \
    }                                                                         \
                                                                              \
    TARGET static void schoenauer_##W(                                        \
        double *restrict a, const double *restrict b,                         \
        const double *restrict c, const double *restrict d, size_t n,         \
        uint64_t reps)                                                        \
    {                                                                         \
        RB_STREAM_PASSES(                                                     \
            U, L,                                                             \
            P##_storeu_pd(a + i + L * r,                                      \
                          P##_add_pd(P##_loadu_pd(b + i + L * r),             \
                                     P##_mul_pd(P##_loadu_pd(c + i + L * r),  \
                                                P##_loadu_pd(                 \
                                                    d + i + L * r)))));       \
    }

#define RB_NO_TARGET
#define RB_AVX2 __attribute__((target("avx,avx2")))
#define RB_AVX512 __attribute__((target("avx512f")))

/* sse2: 128-bit registers, 2 elements each, 32 per block; avx2: 256-bit,
 * 4 elements, 16 per block; avx512: 512-bit, 8 elements, 8 per block. */
RB_STREAM_WIDTH(sse2, RB_NO_TARGET, __m128i, __m128d, 2, 32, _mm, si128)
RB_STREAM_WIDTH(avx2, RB_AVX2, __m256i, __m256d, 4, 16, _mm256, si256)
RB_STREAM_WIDTH(avx512, RB_AVX512, __m512i, __m512d, 8, 8, _mm512, si512)

/* read2 and read4: the read kernel over two or four arrays at once, one
 * load from each in turn into the same eight accumulators, as a dot
 * product (two) or a four-operand update reads them. Several concurrent
 * streams keep more lines in flight than one (more L2 and DRAM prefetch
 * streams), so the best of one, two and four is the read roof: any read
 * kernel can be held to it. */
#define RB_READ_STREAMS(NAME, TARGET, VEC, LOADU, ADD, STOREU, L, S)          \
    TARGET static void NAME(const uint64_t *const *a, size_t n,               \
                            uint64_t reps, uint64_t *sums)                    \
    {                                                                         \
        enum { ACC = 8 };                                                     \
        VEC acc[ACC];                                                         \
        const uint64_t *src[S];                                               \
        for (int s = 0; s < S; s++)                                           \
            src[s] = a[s];                                                    \
        _Pragma("GCC unroll 8") for (int r = 0; r < ACC; r++) acc[r] =        \
            LOADU((const void *)(sums + L * r));                              \
        for (uint64_t rep = 0; rep < reps; rep++)                             \
            for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {                 \
                _Pragma("GCC unroll 32") for (int r = 0;                      \
                                              r < RB_STREAM_BLOCK / L; r++)   \
                    _Pragma("GCC unroll 4") for (int s = 0; s < S; s++)       \
                        acc[(r * S + s) % ACC] = ADD(                         \
                            acc[(r * S + s) % ACC],                           \
                            LOADU((const void *)(src[s] + i + L * r)));       \
            }                                                                 \
        _Pragma("GCC unroll 8") for (int r = 0; r < ACC; r++)                 \
            STOREU((void *)(sums + L * r), acc[r]);                           \
    }

RB_READ_STREAMS(read2_sse2, RB_NO_TARGET, __m128i, _mm_loadu_si128,
                _mm_add_epi64, _mm_storeu_si128, 2, 2)
RB_READ_STREAMS(read4_sse2, RB_NO_TARGET, __m128i, _mm_loadu_si128,
                _mm_add_epi64, _mm_storeu_si128, 2, 4)
RB_READ_STREAMS(read2_avx2, RB_AVX2, __m256i, _mm256_loadu_si256,
                _mm256_add_epi64, _mm256_storeu_si256, 4, 2)
RB_READ_STREAMS(read4_avx2, RB_AVX2, __m256i, _mm256_loadu_si256,
                _mm256_add_epi64, _mm256_storeu_si256, 4, 4)
RB_READ_STREAMS(read2_avx512, RB_AVX512, __m512i, _mm512_loadu_si512,
                _mm512_add_epi64, _mm512_storeu_si512, 8, 2)
RB_READ_STREAMS(read4_avx512, RB_AVX512, __m512i, _mm512_loadu_si512,
                _mm512_add_epi64, _mm512_storeu_si512, 8, 4)

/* Widest first. */
const rb_stream_variant rb_stream_variants[] = {
    {"avx512", 512, RB_ISA_AVX512F, read_avx512, read2_avx512, read4_avx512, write_avx512, copy_avx512, triad_avx512, schoenauer_avx512},
    {"avx2", 256, RB_ISA_AVX | RB_ISA_AVX2, read_avx2, read2_avx2, read4_avx2, write_avx2, copy_avx2, triad_avx2, schoenauer_avx2},
    {"sse2", 128, RB_ISA_SSE2, read_sse2, read2_sse2, read4_sse2, write_sse2, copy_sse2, triad_sse2, schoenauer_sse2},
};

const size_t rb_nstream_variants =
    sizeof(rb_stream_variants) / sizeof(rb_stream_variants[0]);
