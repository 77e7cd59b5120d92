/* The blocked matmul's packed micro-kernel, one body for every code path:
 * C[0:MR, 0:NV*LANES] (+)= A-panel x B-panel over kc, the MR x NV tile of
 * C in registers. Each k loads one row of the B micro-panel (NV
 * registers), broadcasts the MR values of the A micro-panel's column k and
 * does MR x NV independent FMAs: an outer product of a column of A and a
 * row of B, the outer-product form at register level. MR and NV are
 * literals (the unroll pragmas take them); P is the intrinsics' prefix,
 * SUF the type's suffix, BCAST the broadcast of one element from memory. */
#ifndef ROOFBENCH_GEMM_UKR_H
#define ROOFBENCH_GEMM_UKR_H

#include <immintrin.h>

#include "kernel.h"

#define GEMM_UKR(NAME, TARGET, T, VEC, LANES, MR, NV, P, SUF, BCAST)          \
    __attribute__((target(TARGET))) void NAME(                                \
        size_t kc, const T *restrict a, const T *restrict b, T *restrict c,   \
        size_t ldc, int accumulate)                                           \
    {                                                                         \
        VEC acc[MR][NV];                                                      \
        RB_PRAGMA(GCC unroll MR)                                              \
        for (int i = 0; i < MR; i++)                                          \
            RB_PRAGMA(GCC unroll NV)                                          \
            for (int v = 0; v < NV; v++)                                      \
                acc[i][v] = P##_setzero_##SUF();                              \
        /* The C tile was last touched a whole block ago and is far from L1:  \
         * ask for it now, so it arrives while the kc loop runs. */           \
        for (int i = 0; i < MR; i++)                                          \
            for (int l = 0; l <= NV; l++)                                     \
                _mm_prefetch((const char *)(c + (size_t)i * ldc) + 64 * l,    \
                             _MM_HINT_T0);                                    \
        for (size_t k = 0; k < kc; k++) {                                     \
            VEC bv[NV];                                                       \
            RB_PRAGMA(GCC unroll NV)                                          \
            for (int v = 0; v < NV; v++)                                      \
                bv[v] = P##_loadu_##SUF(b + LANES * v);                       \
            RB_PRAGMA(GCC unroll MR)                                          \
            for (int i = 0; i < MR; i++) {                                    \
                const VEC ai = BCAST(a + i);                                  \
                RB_PRAGMA(GCC unroll NV)                                      \
                for (int v = 0; v < NV; v++)                                  \
                    acc[i][v] = P##_fmadd_##SUF(ai, bv[v], acc[i][v]);        \
            }                                                                 \
            a += MR;                                                          \
            b += LANES * NV;                                                  \
        }                                                                     \
        RB_PRAGMA(GCC unroll MR)                                              \
        for (int i = 0; i < MR; i++)                                          \
            RB_PRAGMA(GCC unroll NV)                                          \
            for (int v = 0; v < NV; v++) {                                    \
                T *const p = c + (size_t)i * ldc + LANES * v;                 \
                P##_storeu_##SUF(p, accumulate                                \
                                        ? P##_add_##SUF(P##_loadu_##SUF(p),   \
                                                        acc[i][v])            \
                                        : acc[i][v]);                         \
            }                                                                 \
    }

#endif
