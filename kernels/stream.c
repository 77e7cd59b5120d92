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


/* sse2: 128-bit registers, 2 elements each, 32 per block. */
static void read_sse2(const uint64_t *a, size_t n, uint64_t reps,
                          uint64_t *sums)
{
    enum { L = 2, ACC = 8 };
    __m128i acc[ACC];
#pragma GCC unroll 8
    for (int r = 0; r < ACC; r++)
        acc[r] = _mm_loadu_si128((const void *)(sums + L * r));
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 32
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                acc[r % ACC] =
                    _mm_add_epi64(acc[r % ACC], _mm_loadu_si128((const void *)(a + i + L * r)));
        }
#pragma GCC unroll 8
    for (int r = 0; r < ACC; r++)
        _mm_storeu_si128((void *)(sums + L * r), acc[r]);
}

static void write_sse2(double *a, size_t n, uint64_t reps, double v)
{
    enum { L = 2 };
    const __m128d vv = _mm_set1_pd(v);
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 32
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm_storeu_pd(a + i + L * r, vv);
        }
}

static void copy_sse2(double *restrict a, const double *restrict b,
                          size_t n, uint64_t reps)
{
    enum { L = 2 };
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 32
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm_storeu_pd(a + i + L * r, _mm_loadu_pd(b + i + L * r));
        }
}

static void triad_sse2(double *restrict a, const double *restrict b,
                           const double *restrict c, double s, size_t n,
                           uint64_t reps)
{
    enum { L = 2 };
    const __m128d vs = _mm_set1_pd(s);
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 32
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm_storeu_pd(a + i + L * r,
                     _mm_add_pd(_mm_loadu_pd(b + i + L * r),
                           _mm_mul_pd(vs, _mm_loadu_pd(c + i + L * r))));
        }
}

/* avx2: 256-bit registers, 4 elements each, 16 per block. */
__attribute__((target("avx,avx2")))
static void read_avx2(const uint64_t *a, size_t n, uint64_t reps,
                          uint64_t *sums)
{
    enum { L = 4, ACC = 8 };
    __m256i acc[ACC];
#pragma GCC unroll 8
    for (int r = 0; r < ACC; r++)
        acc[r] = _mm256_loadu_si256((const void *)(sums + L * r));
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 16
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                acc[r % ACC] =
                    _mm256_add_epi64(acc[r % ACC], _mm256_loadu_si256((const void *)(a + i + L * r)));
        }
#pragma GCC unroll 8
    for (int r = 0; r < ACC; r++)
        _mm256_storeu_si256((void *)(sums + L * r), acc[r]);
}

__attribute__((target("avx,avx2")))
static void write_avx2(double *a, size_t n, uint64_t reps, double v)
{
    enum { L = 4 };
    const __m256d vv = _mm256_set1_pd(v);
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 16
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm256_storeu_pd(a + i + L * r, vv);
        }
}

__attribute__((target("avx,avx2")))
static void copy_avx2(double *restrict a, const double *restrict b,
                          size_t n, uint64_t reps)
{
    enum { L = 4 };
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 16
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm256_storeu_pd(a + i + L * r, _mm256_loadu_pd(b + i + L * r));
        }
}

__attribute__((target("avx,avx2")))
static void triad_avx2(double *restrict a, const double *restrict b,
                           const double *restrict c, double s, size_t n,
                           uint64_t reps)
{
    enum { L = 4 };
    const __m256d vs = _mm256_set1_pd(s);
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 16
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm256_storeu_pd(a + i + L * r,
                     _mm256_add_pd(_mm256_loadu_pd(b + i + L * r),
                           _mm256_mul_pd(vs, _mm256_loadu_pd(c + i + L * r))));
        }
}

/* avx512: 512-bit registers, 8 elements each, 8 per block. */
__attribute__((target("avx512f")))
static void read_avx512(const uint64_t *a, size_t n, uint64_t reps,
                          uint64_t *sums)
{
    enum { L = 8, ACC = 8 };
    __m512i acc[ACC];
#pragma GCC unroll 8
    for (int r = 0; r < ACC; r++)
        acc[r] = _mm512_loadu_si512((const void *)(sums + L * r));
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 8
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                acc[r % ACC] =
                    _mm512_add_epi64(acc[r % ACC], _mm512_loadu_si512((const void *)(a + i + L * r)));
        }
#pragma GCC unroll 8
    for (int r = 0; r < ACC; r++)
        _mm512_storeu_si512((void *)(sums + L * r), acc[r]);
}

__attribute__((target("avx512f")))
static void write_avx512(double *a, size_t n, uint64_t reps, double v)
{
    enum { L = 8 };
    const __m512d vv = _mm512_set1_pd(v);
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 8
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm512_storeu_pd(a + i + L * r, vv);
        }
}

__attribute__((target("avx512f")))
static void copy_avx512(double *restrict a, const double *restrict b,
                          size_t n, uint64_t reps)
{
    enum { L = 8 };
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 8
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm512_storeu_pd(a + i + L * r, _mm512_loadu_pd(b + i + L * r));
        }
}

__attribute__((target("avx512f")))
static void triad_avx512(double *restrict a, const double *restrict b,
                           const double *restrict c, double s, size_t n,
                           uint64_t reps)
{
    enum { L = 8 };
    const __m512d vs = _mm512_set1_pd(s);
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 8
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm512_storeu_pd(a + i + L * r,
                     _mm512_add_pd(_mm512_loadu_pd(b + i + L * r),
                           _mm512_mul_pd(vs, _mm512_loadu_pd(c + i + L * r))));
        }
}

static void schoenauer_sse2(double *restrict a, const double *restrict b,
                                const double *restrict c,
                                const double *restrict d, size_t n,
                                uint64_t reps)
{
    enum { L = 2 };
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 32
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm_storeu_pd(a + i + L * r,
                     _mm_add_pd(_mm_loadu_pd(b + i + L * r),
                           _mm_mul_pd(_mm_loadu_pd(c + i + L * r), _mm_loadu_pd(d + i + L * r))));
        }
}

__attribute__((target("avx,avx2")))
static void schoenauer_avx2(double *restrict a, const double *restrict b,
                                const double *restrict c,
                                const double *restrict d, size_t n,
                                uint64_t reps)
{
    enum { L = 4 };
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 16
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm256_storeu_pd(a + i + L * r,
                     _mm256_add_pd(_mm256_loadu_pd(b + i + L * r),
                           _mm256_mul_pd(_mm256_loadu_pd(c + i + L * r), _mm256_loadu_pd(d + i + L * r))));
        }
}

__attribute__((target("avx512f")))
static void schoenauer_avx512(double *restrict a, const double *restrict b,
                                const double *restrict c,
                                const double *restrict d, size_t n,
                                uint64_t reps)
{
    enum { L = 8 };
    for (uint64_t rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {
#pragma GCC unroll 8
            for (int r = 0; r < RB_STREAM_BLOCK / L; r++)
                _mm512_storeu_pd(a + i + L * r,
                     _mm512_add_pd(_mm512_loadu_pd(b + i + L * r),
                           _mm512_mul_pd(_mm512_loadu_pd(c + i + L * r), _mm512_loadu_pd(d + i + L * r))));
        }
}

/* read2 and read4: the read kernel over two or four arrays at once, one
 * load from each in turn into the same eight accumulators, as a dot
 * product (two) or a four-operand update reads them. Several concurrent
 * streams keep more lines in flight than one (more L2 and DRAM prefetch
 * streams), so the best of one, two and four is the read roof: any read
 * kernel can be held to it. */
#define RB_READ_STREAMS(NAME, TARGET, VEC, LOADU, ADD, STOREU, L, S)         \
    TARGET static void NAME(const uint64_t *const *a, size_t n,             \
                            uint64_t reps, uint64_t *sums)                  \
    {                                                                       \
        enum { ACC = 8 };                                                   \
        VEC acc[ACC];                                                       \
        const uint64_t *src[S];                                             \
        for (int s = 0; s < S; s++)                                         \
            src[s] = a[s];                                                  \
        _Pragma("GCC unroll 8") for (int r = 0; r < ACC; r++) acc[r] =      \
            LOADU((const void *)(sums + L * r));                            \
        for (uint64_t rep = 0; rep < reps; rep++)                           \
            for (size_t i = 0; i < n; i += RB_STREAM_BLOCK) {               \
                _Pragma("GCC unroll 32") for (int r = 0;                    \
                                              r < RB_STREAM_BLOCK / L; r++) \
                    _Pragma("GCC unroll 4") for (int s = 0; s < S; s++)     \
                        acc[(r * S + s) % ACC] = ADD(                       \
                            acc[(r * S + s) % ACC],                         \
                            LOADU((const void *)(src[s] + i + L * r)));     \
            }                                                               \
        _Pragma("GCC unroll 8") for (int r = 0; r < ACC; r++)               \
            STOREU((void *)(sums + L * r), acc[r]);                         \
    }

#define RB_NO_TARGET
RB_READ_STREAMS(read2_sse2, RB_NO_TARGET, __m128i, _mm_loadu_si128,
                _mm_add_epi64, _mm_storeu_si128, 2, 2)
RB_READ_STREAMS(read4_sse2, RB_NO_TARGET, __m128i, _mm_loadu_si128,
                _mm_add_epi64, _mm_storeu_si128, 2, 4)
RB_READ_STREAMS(read2_avx2, __attribute__((target("avx,avx2"))), __m256i,
                _mm256_loadu_si256, _mm256_add_epi64, _mm256_storeu_si256, 4,
                2)
RB_READ_STREAMS(read4_avx2, __attribute__((target("avx,avx2"))), __m256i,
                _mm256_loadu_si256, _mm256_add_epi64, _mm256_storeu_si256, 4,
                4)
RB_READ_STREAMS(read2_avx512, __attribute__((target("avx512f"))), __m512i,
                _mm512_loadu_si512, _mm512_add_epi64, _mm512_storeu_si512, 8,
                2)
RB_READ_STREAMS(read4_avx512, __attribute__((target("avx512f"))), __m512i,
                _mm512_loadu_si512, _mm512_add_epi64, _mm512_storeu_si512, 8,
                4)

/* Widest first. */
const rb_stream_variant rb_stream_variants[] = {
    {"avx512", 512, RB_ISA_AVX512F, read_avx512, read2_avx512, read4_avx512, write_avx512, copy_avx512, triad_avx512, schoenauer_avx512},
    {"avx2", 256, RB_ISA_AVX | RB_ISA_AVX2, read_avx2, read2_avx2, read4_avx2, write_avx2, copy_avx2, triad_avx2, schoenauer_avx2},
    {"sse2", 128, RB_ISA_SSE2, read_sse2, read2_sse2, read4_sse2, write_sse2, copy_sse2, triad_sse2, schoenauer_sse2},
};

const size_t rb_nstream_variants =
    sizeof(rb_stream_variants) / sizeof(rb_stream_variants[0]);
