/* The streaming FMA kernel: the sweep's probe of what this host delivers
 * when its memory and its FMA pipes have to work at once (the idea of
 * ERT's kernel: a stream with a chosen number of FLOPs per element).
 *
 * It streams `streams` arrays of n elements each once, in memory order, a
 * block of 16 vectors from each in turn, asks for the lines `ahead` bytes
 * further on (0: the hardware prefetchers alone), and applies `fmas` FMAs
 * acc = x * m + acc to every vector it loads: 2 x fmas FLOPs per element
 * streamed, and nothing else (no stores, no second operand). A [B,P] x
 * [P,M] product does B FMAs per element of its weights, so with fmas = B
 * over the same weights this is that product's arithmetic and traffic
 * without any of a real kernel's overheads: the C tile, the broadcasts of
 * A, the blocking.
 *
 * 16 accumulator registers. Up to 15 FMAs per vector, F known when it
 * is compiled (one copy of the loop per F): the f-th FMA of vector v of
 * a block goes to accumulator (v F + f) mod 16, so every accumulator is
 * updated F times a block and 16 chains are in flight whatever F (two
 * pipes of latency 4 need 8). From 16 on, every vector's FMAs run over
 * all 16 accumulators, 16 at a time, and the rest over the first ones (a
 * chain then waits for nothing: it is updated at most twice per vector,
 * 8 cycles of two pipes apart). The accumulators start from out (16 x
 * lanes values) and end there, so the work cannot be dropped. */
#include <immintrin.h>

#include "ceiling.h"
#include "kernel.h"

enum { FS_VECS = RB_FMASTREAM_VECS };

/* Up to 15 FMAs on 16 accumulators: case r applies r FMAs, r - 1 down to
 * 0 (a switch that falls through, so every accumulator keeps its
 * register). */
#define FS_REST(FMA, ACC, X, MV, R)                                            \
    switch (R) {                                                               \
    case 15: ACC[14] = FMA(X, MV, ACC[14]); /* fall through */               \
    case 14: ACC[13] = FMA(X, MV, ACC[13]); /* fall through */               \
    case 13: ACC[12] = FMA(X, MV, ACC[12]); /* fall through */               \
    case 12: ACC[11] = FMA(X, MV, ACC[11]); /* fall through */               \
    case 11: ACC[10] = FMA(X, MV, ACC[10]); /* fall through */               \
    case 10: ACC[9] = FMA(X, MV, ACC[9]);   /* fall through */               \
    case 9: ACC[8] = FMA(X, MV, ACC[8]);    /* fall through */               \
    case 8: ACC[7] = FMA(X, MV, ACC[7]);    /* fall through */               \
    case 7: ACC[6] = FMA(X, MV, ACC[6]);    /* fall through */               \
    case 6: ACC[5] = FMA(X, MV, ACC[5]);    /* fall through */               \
    case 5: ACC[4] = FMA(X, MV, ACC[4]);    /* fall through */               \
    case 4: ACC[3] = FMA(X, MV, ACC[3]);    /* fall through */               \
    case 3: ACC[2] = FMA(X, MV, ACC[2]);    /* fall through */               \
    case 2: ACC[1] = FMA(X, MV, ACC[1]);    /* fall through */               \
    case 1: ACC[0] = FMA(X, MV, ACC[0]);    /* fall through */               \
    default: break;                                                            \
    }

/* One block of FS_VECS vectors from p with F FMAs each, F a literal. */
#define FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, F)                               \
    ATTR __attribute__((always_inline)) static inline void NAME##_##F(         \
        VEC *acc, const T *p, VEC mv)                                          \
    {                                                                          \
        RB_PRAGMA(GCC unroll 16)                                               \
        for (int v = 0; v < FS_VECS; v++) {                                    \
            const VEC x = P##_loadu_##S(p + L * v);                            \
            RB_PRAGMA(GCC unroll 16)                                           \
            for (int f = 0; f < F; f++)                                        \
                acc[(v * F + f) % FS_VECS] =                                   \
                    P##_fmadd_##S(x, mv, acc[(v * F + f) % FS_VECS]);          \
        }                                                                      \
    }

/* A block with 16 or more FMAs a vector: full rounds over all 16
 * accumulators, then rest over the first ones. */
#define FS_BLOCK_WIDE(NAME, ATTR, T, VEC, L, P, S)                             \
    ATTR __attribute__((always_inline)) static inline void NAME##_wide(        \
        VEC *acc, const T *p, VEC mv, unsigned full, unsigned rest)            \
    {                                                                          \
        for (int v = 0; v < FS_VECS; v++) {                                    \
            const VEC x = P##_loadu_##S(p + L * v);                            \
            for (unsigned c = 0; c < full; c++) {                              \
                RB_PRAGMA(GCC unroll 16)                                       \
                for (int r = 0; r < FS_VECS; r++)                              \
                    acc[r] = P##_fmadd_##S(x, mv, acc[r]);                     \
            }                                                                  \
            FS_REST(P##_fmadd_##S, acc, x, mv, rest)                           \
        }                                                                      \
    }

/* Every block of every stream, in turn, with BLOCK(p) on each and the
 * lines `ahead` bytes further asked for first. */
#define FS_WALK(T, VEC, L, BLOCK)                                              \
    for (size_t i = 0; i < n; i += (size_t)FS_VECS * L)                        \
        for (int s = 0; s < streams; s++) {                                    \
            const T *p = a[s] + i;                                             \
            if (ahead)                                                         \
                for (size_t o = 0; o < sizeof(VEC) * FS_VECS; o += 64)         \
                    _mm_prefetch((const char *)p + ahead + o, _MM_HINT_T0);    \
            BLOCK;                                                             \
        }

#define FS_CASE(NAME, T, VEC, L, F)                                            \
    case F:                                                                    \
        FS_WALK(T, VEC, L, NAME##_##F(acc, p, mv))                             \
        break;

/* One kernel: T elements, VEC registers of L lanes, P the intrinsics'
 * prefix and S their suffix. */
#define FS_KERNEL(NAME, ATTR, T, VEC, L, P, S)                                 \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 1)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 2)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 3)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 4)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 5)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 6)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 7)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 8)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 9)                                   \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 10)                                  \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 11)                                  \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 12)                                  \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 13)                                  \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 14)                                  \
    FS_BLOCK(NAME, ATTR, T, VEC, L, P, S, 15)                                  \
    FS_BLOCK_WIDE(NAME, ATTR, T, VEC, L, P, S)                                 \
    ATTR static void NAME(const T *const *a, int streams, size_t n,           \
                          unsigned fmas, size_t ahead, T m, T *out)          \
    {                                                                          \
        /* the accumulators start from out, values the compiler cannot     \
         * know: started equal (zero), the ones that get the same vectors   \
         * (all 16 / gcd(F, 16) of a set, for even F) would stay equal, and \
         * it computed one of each set and copied it */                     \
        VEC acc[FS_VECS];                                                      \
        const VEC mv = P##_set1_##S(m);                                        \
        RB_PRAGMA(GCC unroll 16)                                               \
        for (int r = 0; r < FS_VECS; r++)                                      \
            acc[r] = P##_loadu_##S(out + L * r);                               \
        switch (fmas) {                                                        \
            FS_CASE(NAME, T, VEC, L, 1)                                        \
            FS_CASE(NAME, T, VEC, L, 2)                                        \
            FS_CASE(NAME, T, VEC, L, 3)                                        \
            FS_CASE(NAME, T, VEC, L, 4)                                        \
            FS_CASE(NAME, T, VEC, L, 5)                                        \
            FS_CASE(NAME, T, VEC, L, 6)                                        \
            FS_CASE(NAME, T, VEC, L, 7)                                        \
            FS_CASE(NAME, T, VEC, L, 8)                                        \
            FS_CASE(NAME, T, VEC, L, 9)                                        \
            FS_CASE(NAME, T, VEC, L, 10)                                       \
            FS_CASE(NAME, T, VEC, L, 11)                                       \
            FS_CASE(NAME, T, VEC, L, 12)                                       \
            FS_CASE(NAME, T, VEC, L, 13)                                       \
            FS_CASE(NAME, T, VEC, L, 14)                                       \
            FS_CASE(NAME, T, VEC, L, 15)                                       \
        default:                                                               \
            if (fmas >= FS_VECS)                                               \
                FS_WALK(T, VEC, L,                                             \
                        NAME##_wide(acc, p, mv, fmas / FS_VECS,                \
                                    fmas % FS_VECS))                           \
        }                                                                      \
        RB_PRAGMA(GCC unroll 16)                                               \
        for (int r = 0; r < FS_VECS; r++)                                      \
            P##_storeu_##S(out + L * r, acc[r]);                               \
    }

#define FS_FMA128 __attribute__((target("fma")))
#define FS_AVX2 __attribute__((target("avx,fma")))
#define FS_AVX512 __attribute__((target("avx512f")))

FS_KERNEL(fs_f32_avx512, FS_AVX512, float, __m512, 16, _mm512, ps)
FS_KERNEL(fs_f64_avx512, FS_AVX512, double, __m512d, 8, _mm512, pd)
FS_KERNEL(fs_f32_avx2, FS_AVX2, float, __m256, 8, _mm256, ps)
FS_KERNEL(fs_f64_avx2, FS_AVX2, double, __m256d, 4, _mm256, pd)
FS_KERNEL(fs_f32_sse, FS_FMA128, float, __m128, 4, _mm, ps)
FS_KERNEL(fs_f64_sse, FS_FMA128, double, __m128d, 2, _mm, pd)

/* Widest first. */
const rb_fmastream_variant rb_fmastream_variants[] = {
    {"avx512-fma", 512, RB_ISA_AVX512F, fs_f32_avx512, fs_f64_avx512},
    {"avx2-fma", 256, RB_ISA_AVX | RB_ISA_FMA, fs_f32_avx2, fs_f64_avx2},
    {"sse-fma", 128, RB_ISA_SSE2 | RB_ISA_FMA, fs_f32_sse, fs_f64_sse},
};

const size_t rb_nfmastream_variants =
    sizeof(rb_fmastream_variants) / sizeof(rb_fmastream_variants[0]);
