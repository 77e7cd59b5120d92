/* The skinny micro-kernels of the blocked matmul: C[0:rows, 0:SW] (+)=
 * A[0:rows, 0:kb] W[0:kb, 0:SW] straight from the caller's row-major
 * operands, nothing packed (the blocked matmul also calls them for many
 * rows with W within half of L2: rb_skinny_rows). For a product with few
 * rows of A (a small batch) the weights W are the traffic: each element
 * is used by only `rows` FMAs, so packing it (read, write, read again)
 * costs more than the arithmetic it feeds. These kernels read every row
 * of the W strip once per call, SW values wide (four vectors), and hold
 * the rows x SW tile of C in registers across the kb rank-1 updates: up
 * to 6 rows x 4 vectors = 24 accumulators + 4 + 1 registers in the 32 zmm
 * (AVX-512), 6 x 2 = 12 + 2 + 1 in the 16 ymm (AVX2). A row count below
 * the tile's is a smaller tile, not a padded one: no FMA is spent on rows
 * that are not there. Each entry switches on rows so that the compiler
 * builds one loop per row count with the accumulators in registers. */
#include <immintrin.h>

#include "gemm.h"

enum { ROWS = RB_SKINNY_ROWS, NV512 = 4, NV256 = 2, AHEAD = 8, UNROLL = 4 };
/* the unroll pragmas of the four-step loop name it */
_Static_assert(UNROLL == 4, "GCC unroll 4 below is UNROLL");

/* With pf->far, `rows` rows of a strip the caller will need soon go into
 * L2 (into L1 with pf->far_l1, in the copies built with FAR_L1: the
 * AVX-512 ones; host.c says where and why), one row (the strip's width)
 * at the steps a running sum picks, so
 * that the requests are spread evenly over the arithmetic of every caller
 * that shares the strip instead of stalling one of them in a burst; with
 * pf->near, row k + AHEAD of this strip goes into L1 by step k, which no
 * hardware prefetcher does for rows a leading dimension apart (from L2
 * they arrived at a third of its bandwidth without it).
 * With pf->next (NEXT, a constant in each copy), the lines of a region
 * are asked for instead (T0: as fast as T1 where both were tried), one
 * at a time at the steps a running sum picks, and no row into L1 (with
 * the near requests too it measured 0.9 times as fast at B = 8 to 16),
 * each line's address from its index (row = index / lines a row). On Zen
 * 5 that division paces the loop (by our estimate of the divider's rate,
 * about a line per 6 to 7 cycles, close to what DRAM delivers) and the
 * loads then stay behind the requests: with the address kept in a
 * running pointer instead, the loop ran ahead of them and the skinny path
 * measured about 0.7 times as fast (f32 W of 5120 x 5120 from DRAM, B = 1
 * to 16, 1 thread); pacing only the requests (a chain of multiplies), a
 * load trailing them, or one division per pair of lines (0.87 to 0.9 at
 * B = 1 to 8 in alternated sweeps) did not help.
 * In the strip order the far and near requests of four steps go together
 * at the first of them (SKINNY_BODY says why). */
/* The requests of steps k to k + n - 1, at the rates of one step each */
#define SKINNY_ASK(VEC, NV, NEXT, k, n)                                        \
    do {                                                                       \
        for (line_due += lines * (n); (NEXT) && line_due >= kb;                \
             line_due -= kb) {                                                 \
            _mm_prefetch(next + line / per_row * far_ld + line % per_row * 64, \
                         _MM_HINT_T0);                                         \
            line++;                                                            \
        }                                                                      \
        for (due += far_rows * (n); due >= kb; due -= kb) {                    \
            for (size_t o = 0; o < sizeof(VEC) * NV; o += 64)                  \
                if (far_l1)                                                    \
                    _mm_prefetch(far + o, _MM_HINT_T0);                        \
                else                                                           \
                    _mm_prefetch(far + o, _MM_HINT_T1);                        \
            far += far_ld;                                                     \
        }                                                                      \
        if (near)                                                              \
            for (size_t r = (k) + AHEAD; r < (k) + AHEAD + (n) && r < kb; r++) \
                for (size_t o = 0; o < sizeof(VEC) * NV; o += 64)              \
                    _mm_prefetch((const char *)(w + r * ldw) + o,              \
                                 _MM_HINT_T0);                                 \
    } while (0)

/* The next call's C tile, lines k to k + n - 1 of it */
#define SKINNY_ASK_C(k, n)                                                     \
    for (size_t q = (k); q < (k) + (n) && q < c_lines; q++)                    \
    _mm_prefetch(c_next + q / C_LINES * c_ld + q % C_LINES * 64, _MM_HINT_T0)

/* With CTILE 1: the first steps, UNROLL at a time, also ask for the C
 * tile of the caller's next call, a line a step, in a loop of their own
 * (the steps after it test nothing more and its pointer is dead there;
 * the strip order's last kb % UNROLL steps ask for none of it); in the
 * next-block order, a line at each of the first steps. SKINNY_C_FIRST_1
 * declares what SKINNY_C_STEP_1 uses. With CTILE 0, nothing. */
#define SKINNY_C_FIRST_1(VEC, LANES, NV, LOAD, SET1, FMA, T, NEXT)            \
    enum { C_LINES = sizeof(VEC) * NV / 64 }; /* a C tile row's */             \
    const char *const c_next = pf ? (const char *)pf->c_next : NULL;           \
    const size_t c_ld = pf ? pf->c_ld : 0,                                     \
                 c_lines = c_next ? pf->c_rows * C_LINES : 0;                  \
    for (; !(NEXT) && k + UNROLL <= kb && k < c_lines; k += UNROLL) {          \
        SKINNY_ASK_C(k, UNROLL);                                               \
        SKINNY_TURN(VEC, LANES, NV, LOAD, SET1, FMA, T, k);                    \
    }
#define SKINNY_C_STEP_1(NEXT, k)                                               \
    do {                                                                       \
        if (NEXT)                                                              \
            SKINNY_ASK_C(k, 1);                                                \
    } while (0)
#define SKINNY_C_FIRST_0(VEC, LANES, NV, LOAD, SET1, FMA, T, NEXT)
#define SKINNY_C_STEP_0(NEXT, k)                                               \
    do {                                                                       \
    } while (0)

/* Step k: the strip's row k times column k of the rows of A */
#define SKINNY_STEP(VEC, LANES, NV, LOAD, SET1, FMA, T, k)                     \
    do {                                                                       \
        const T *const wk = w + (k) * ldw;                                     \
        VEC wv[NV];                                                            \
        /* into registers once: left to itself the compiler folds the load  \
         * into every row's FMA, loading the strip once per row */          \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) {                 \
            wv[v] = LOAD(wk + LANES * v);                                      \
            __asm__("" : "+v"(wv[v]));                                         \
        }                                                                      \
        _Pragma("GCC unroll 6") for (int i = 0; i < rows; i++) {               \
            const VEC ai = SET1(a[(size_t)i * lda + (k)]);                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)               \
                acc[i][v] = FMA(ai, wv[v], acc[i][v]);                         \
        }                                                                      \
    } while (0)

/* One turn of the strip order's loop: steps k to k + UNROLL - 1, their
 * far and near requests made at the first */
#define SKINNY_TURN(VEC, LANES, NV, LOAD, SET1, FMA, T, k)                     \
    do {                                                                       \
        SKINNY_ASK(VEC, NV, 0, k, UNROLL);                                     \
        _Pragma("GCC unroll 4") for (int u = 0; u < UNROLL; u++)               \
            SKINNY_STEP(VEC, LANES, NV, LOAD, SET1, FMA, T, (k) + u);          \
    } while (0)

/* In the strip order the steps go UNROLL at a time, their requests made
 * together at the first: one test of each kind and one loop branch per
 * UNROLL steps, and fewer live registers (the step loop kept two of its
 * pointers in vector registers and one on the stack). With the C tile
 * requests as well (matmul_blocked.c), against an unchanged copy of the
 * step loop, in one process, variants interleaved, Xeon EMR, 1 thread
 * unless said:
 * - W in L2 (P = M = 384 f32, 256 f64; no C tile requests there), B = 4
 *   to 64: 0.94 to 1.16 times as fast, most near 1.08; through `roofbench
 *   run` at 24 x 384 x 384 f32, six alternated pairs: the same (medians
 *   152.0 GFLOP/s before, 151.8 after);
 * - W from DRAM, B = 8 to 64: f32 0.89 to 1.11 at P = M = 5952 and 1.05
 *   to 1.19 at 8960; f64 0.98 to 1.28 at 4224 and 1.07 to 1.48 at 6336;
 *   at 2 threads 0.89 to 1.12 (8960 f32) and 1.11 to 1.30 (6336 f64);
 * - W in L3 (2112 f32, 1568 f64, ten rounds): 0.87 and 0.90 at B = 16,
 *   0.97 to 1.05 at B = 24 to 48.
 * (A first comparison, against a copy of the step loop that carried
 * test hooks, had put W in L2 at 1.10 to 1.15: the hooks slowed it.) The
 * AVX2 copy measured the same or up to 2% faster. The next-block
 * order keeps one step a turn: its requests, a step apart, pace it.
 * The C tile's rows go through one running pointer, stepped before each
 * row but the first (never past the tile): written as c + i * ldc +
 * LANES * v, the compiler computed all rows x NV addresses up front and
 * spilled them (a 392-byte frame, 264 with the pointer; the AVX-512 f32
 * entry's code 10% shorter; stepped after each row but the last, 200
 * bytes, but the check gate's AVX2 f64 8 x 512 x 512 then counted 5% more
 * simulated L1 misses). Measured on a Zen 5 guest, the two builds'
 * kernels called alternately in one process on W in L1 and C tiles in
 * L2: the time of a call 0.93 to 1.0 of the old at 5 and 6 rows (kb = 16
 * to 64), 0.90 to 1.0 at 3 rows, 0.99 to 1.01 at kb = 256 (f64 6 rows
 * alike); the check gate's AVX2 matmul_blocked counts 1.0 to 2.6% fewer
 * instructions. A call of 32 steps still takes some 12% more than its
 * steps (six rows): the price of the shallow blocks that DRAM wants
 * (strips_depth in gemm_cntx.c). */
#define SKINNY_BODY(VEC, LANES, NV, LOAD, STORE, SET1, FMA, ZERO, T, NEXT,    \
                    CTILE, FAR_L1)                                             \
    VEC acc[ROWS][NV];                                                         \
    {                                                                          \
        const T *ci = c;                                                       \
        _Pragma("GCC unroll 6") for (int i = 0; i < rows; i++) {               \
            if (i > 0)                                                         \
                ci += ldc;                                                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)               \
                acc[i][v] = accumulate ? LOAD(ci + LANES * v) : ZERO();        \
        }                                                                      \
    }                                                                          \
    const char *far = pf ? (const char *)pf->far : NULL;                      \
    const size_t far_ld = pf ? pf->ld : 0;                                     \
    const size_t far_rows = far ? (pf->rows < kb ? pf->rows : kb) : 0;         \
    const int far_l1 = (FAR_L1) && far && pf->far_l1;                          \
    const int near = pf && pf->near;                                           \
    size_t due = 0;                                                            \
    const char *next = NEXT ? (const char *)pf->next : NULL;                   \
    const size_t lines = NEXT && pf->l1 > pf->l0 ? pf->l1 - pf->l0 : 0,        \
                 per_row = NEXT ? pf->run / 64 : 1;                            \
    size_t line = NEXT ? pf->l0 : 0, line_due = 0;                             \
    size_t k = 0;                                                              \
    SKINNY_C_FIRST_##CTILE(VEC, LANES, NV, LOAD, SET1, FMA, T, NEXT)           \
    if (!(NEXT))                                                               \
        for (; k + UNROLL <= kb; k += UNROLL)                                  \
            SKINNY_TURN(VEC, LANES, NV, LOAD, SET1, FMA, T, k);                \
    for (; k < kb; k++) {                                                      \
        SKINNY_C_STEP_##CTILE(NEXT, k);                                        \
        SKINNY_ASK(VEC, NV, NEXT, k, 1);                                       \
        SKINNY_STEP(VEC, LANES, NV, LOAD, SET1, FMA, T, k);                    \
    }                                                                          \
    {                                                                          \
        T *ci = c;                                                             \
        _Pragma("GCC unroll 6") for (int i = 0; i < rows; i++) {               \
            if (i > 0)                                                         \
                ci += ldc;                                                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)               \
                STORE(ci + LANES * v, acc[i][v]);                              \
        }                                                                      \
    }

#define SKINNY_CASES(NAME, NEXT)                                               \
    switch (rows) {                                                            \
    case 1: NAME(1, NEXT, kb, a, lda, w, ldw, c, ldc, accumulate, pf); break;  \
    case 2: NAME(2, NEXT, kb, a, lda, w, ldw, c, ldc, accumulate, pf); break;  \
    case 3: NAME(3, NEXT, kb, a, lda, w, ldw, c, ldc, accumulate, pf); break;  \
    case 4: NAME(4, NEXT, kb, a, lda, w, ldw, c, ldc, accumulate, pf); break;  \
    case 5: NAME(5, NEXT, kb, a, lda, w, ldw, c, ldc, accumulate, pf); break;  \
    default: NAME(6, NEXT, kb, a, lda, w, ldw, c, ldc, accumulate, pf); break; \
    }

#define SKINNY_SWITCH(NAME)                                                    \
    if (pf && pf->next)                                                        \
        SKINNY_CASES(NAME, 1)                                                  \
    else                                                                       \
        SKINNY_CASES(NAME, 0)

#define SKINNY_PARAMS(T)                                                       \
    size_t kb, const T *restrict a, size_t lda, const T *restrict w,          \
        size_t ldw, T *restrict c, size_t ldc, int accumulate,                 \
        const gemm_skinny_pf *pf

/* One code path for one dtype: the body inlined per row count, and the
 * entry that switches on it. P is the intrinsics' prefix, SUF the type. */
#define SKINNY_KERNEL(ENTRY, TARGET, VEC, LANES, NV, P, SUF, T, CTILE, FAR_L1) \
    __attribute__((target(TARGET), always_inline)) static inline void         \
        ENTRY##_rows(const int rows, const int next_block, SKINNY_PARAMS(T))  \
    {                                                                          \
        SKINNY_BODY(VEC, LANES, NV, P##_loadu_##SUF, P##_storeu_##SUF,        \
                    P##_set1_##SUF, P##_fmadd_##SUF, P##_setzero_##SUF, T,    \
                    next_block, CTILE, FAR_L1)                                 \
    }                                                                          \
    __attribute__((target(TARGET))) void ENTRY(size_t rows,                   \
                                               SKINNY_PARAMS(T))              \
    {                                                                          \
        SKINNY_SWITCH(ENTRY##_rows)                                            \
    }

SKINNY_KERNEL(gemm_skinny_avx512_f32, "avx512f", __m512, 16, NV512, _mm512,
              ps, float, 1, 1)
SKINNY_KERNEL(gemm_skinny_avx512_f64, "avx512f", __m512d, 8, NV512, _mm512,
              pd, double, 1, 1)
/* without the C tile's requests: with them the AVX2 copies' four-step
 * loop compiled to 17% more instructions (f32, six rows: 116 against 98,
 * registers spilled to the stack) and the check gate's AVX2 8x512x512
 * counted 10 to 15% more */
SKINNY_KERNEL(gemm_skinny_avx2_f32, "avx2,fma", __m256, 8, NV256, _mm256, ps,
              float, 0, 0)
SKINNY_KERNEL(gemm_skinny_avx2_f64, "avx2,fma", __m256d, 4, NV256, _mm256, pd,
              double, 0, 0)

/* ---- the run kernels: one or two rows of A, W in long runs --------------
 *
 * C[0:rows, 0:cols] = A[0:rows, 0:kb] W[0:kb, 0:cols] for rows 1 or 2: W
 * is read four rows at a time, each along the whole of its cols columns,
 * and C (rows x cols, in L1 or L2) is loaded and stored
 * once per four W rows. With so few rows a W element feeds one or two
 * FMAs, so the kernel is the memory's: where the strip kernels above walk
 * skb rows side by side in pieces of one strip (SW values of each row in
 * turn), these see four long runs, as a linear read of four streams does,
 * and ask for each run's line `ahead` bytes on (0: none), wrapping onto
 * the next four rows as a run ends. A line (64 bytes) of each run a step,
 * the tail columns and the last kb % 4 rows in plain C.
 * Four rows, not two: C's loads and stores, R a line of each of two runs
 * before, are then R a line of each four. Measured on a Zen 5 guest, W
 * from DRAM (f32 P = M = 5952), 1 thread: a four-row copy against the
 * two-row kernel it replaced, called directly and alternated call by call
 * in one process, 1.15 to 1.32 times as fast at B = 1 and 2 (medians of
 * 7 to 9 rounds), eight rows 0.99 to 1.06; the built kernel, in
 * alternated `roofbench sweep` pairs over the default DRAM sizes
 * (medians of 5 to 8), at B = 1 1.01 to 1.24 times the two-row build's
 * rate (f32 and f64, 1 and 2 threads, AVX-512 and AVX2) and at B = 2 1.10
 * to 1.21 at 1 thread, 0.91 to 1.07 at 2; four rows for B = 3 and 4 (C
 * in L2) were no faster than the strips at 3 and 0.66 times as fast at
 * 4. The portable copy (gemm_cntx.c) still reads two. */
#define RUNS_STEP(VEC, LANES, LOAD, STORE, FMA, T, R, j)                       \
    do {                                                                       \
        _Pragma("GCC unroll 2") for (size_t v = 0; v < 64 / sizeof(VEC);      \
                                     v++) {                                    \
            const size_t jv = (j) + v * (LANES);                               \
            const VEC x0 = LOAD(w0 + jv), x1 = LOAD(w1 + jv),                  \
                      x2 = LOAD(w2 + jv), x3 = LOAD(w3 + jv);                  \
            _Pragma("GCC unroll 2") for (int i = 0; i < (R); i++) {            \
                VEC acc = LOAD(c + (size_t)i * ldc + jv);                      \
                acc = FMA(a0[i], x0, acc);                                     \
                acc = FMA(a1[i], x1, acc);                                     \
                acc = FMA(a2[i], x2, acc);                                     \
                acc = FMA(a3[i], x3, acc);                                     \
                STORE(c + (size_t)i * ldc + jv, acc);                          \
            }                                                                  \
        }                                                                      \
    } while (0)

/* each of the four runs' line at o (bytes past the step's column) */
#define RUNS_ASK(o)                                                            \
    do {                                                                       \
        _mm_prefetch((const char *)(w0 + j) + (o), _MM_HINT_T0);               \
        _mm_prefetch((const char *)(w1 + j) + (o), _MM_HINT_T0);               \
        _mm_prefetch((const char *)(w2 + j) + (o), _MM_HINT_T0);               \
        _mm_prefetch((const char *)(w3 + j) + (o), _MM_HINT_T0);               \
    } while (0)

#define RUNS_BODY(VEC, LANES, LOAD, STORE, SET1, FMA, T, R)                    \
    enum { CL = 64 / sizeof(T) }; /* columns a line */                         \
    const size_t lc = cols / CL * CL, da = ahead / sizeof(T);                  \
    /* the steps whose lines `ahead` on are still in their own run */          \
    const size_t jm = ahead && lc > da ? (lc - da) / CL * CL : 0;              \
    for (int i = 0; i < (R); i++)                                              \
        for (size_t j = 0; j < cols; j++)                                      \
            c[(size_t)i * ldc + j] = (T)0;                                     \
    size_t k = 0;                                                              \
    for (; k + 4 <= kb; k += 4) {                                              \
        VEC a0[2], a1[2], a2[2], a3[2];                                        \
        for (int i = 0; i < (R); i++) {                                        \
            a0[i] = SET1(a[(size_t)i * lda + k]);                              \
            a1[i] = SET1(a[(size_t)i * lda + k + 1]);                          \
            a2[i] = SET1(a[(size_t)i * lda + k + 2]);                          \
            a3[i] = SET1(a[(size_t)i * lda + k + 3]);                          \
        }                                                                      \
        const T *const w0 = w + k * ldw, *const w1 = w0 + ldw,                 \
                       *const w2 = w1 + ldw, *const w3 = w2 + ldw;             \
        size_t j = 0;                                                          \
        for (; j < jm; j += CL) {                                              \
            RUNS_ASK(ahead);                                                   \
            RUNS_STEP(VEC, LANES, LOAD, STORE, FMA, T, R, j);                  \
        }                                                                      \
        /* the next four rows' first lines, while there are four more */       \
        const int on = ahead && k + 8 <= kb;                                   \
        for (; j < lc; j += CL) {                                              \
            if (on)                                                            \
                RUNS_ASK((4 * ldw - jm) * sizeof(T));                          \
            RUNS_STEP(VEC, LANES, LOAD, STORE, FMA, T, R, j);                  \
        }                                                                      \
        for (int i = 0; i < (R); i++)                                          \
            for (size_t jt = lc; jt < cols; jt++)                              \
                c[(size_t)i * ldc + jt] += a[(size_t)i * lda + k] * w0[jt] +   \
                                           a[(size_t)i * lda + k + 1] * w1[jt] + \
                                           a[(size_t)i * lda + k + 2] * w2[jt] + \
                                           a[(size_t)i * lda + k + 3] * w3[jt]; \
    }                                                                          \
    for (; k < kb; k++) /* the last kb % 4 rows */                             \
        for (int i = 0; i < (R); i++)                                          \
            for (size_t j = 0; j < cols; j++)                                  \
                c[(size_t)i * ldc + j] += a[(size_t)i * lda + k] * w[k * ldw + j];

#define RUNS_PARAMS(T)                                                         \
    size_t kb, const T *restrict a, size_t lda, const T *restrict w,          \
        size_t ldw, T *restrict c, size_t ldc, size_t cols, size_t ahead

#define RUNS_KERNEL(ENTRY, TARGET, VEC, LANES, P, SUF, T)                     \
    __attribute__((target(TARGET), always_inline)) static inline void         \
        ENTRY##_rows(const int rows, RUNS_PARAMS(T))                          \
    {                                                                          \
        RUNS_BODY(VEC, LANES, P##_loadu_##SUF, P##_storeu_##SUF,              \
                  P##_set1_##SUF, P##_fmadd_##SUF, T, rows)                    \
    }                                                                          \
    __attribute__((target(TARGET))) void ENTRY(size_t rows, RUNS_PARAMS(T))   \
    {                                                                          \
        if (rows >= 2)                                                         \
            ENTRY##_rows(2, kb, a, lda, w, ldw, c, ldc, cols, ahead);     \
        else                                                                   \
            ENTRY##_rows(1, kb, a, lda, w, ldw, c, ldc, cols, ahead);     \
    }

RUNS_KERNEL(gemm_runs_avx512_f32, "avx512f", __m512, 16, _mm512, ps, float)
RUNS_KERNEL(gemm_runs_avx512_f64, "avx512f", __m512d, 8, _mm512, pd, double)
RUNS_KERNEL(gemm_runs_avx2_f32, "avx2,fma", __m256, 8, _mm256, ps, float)
RUNS_KERNEL(gemm_runs_avx2_f64, "avx2,fma", __m256d, 4, _mm256, pd, double)
