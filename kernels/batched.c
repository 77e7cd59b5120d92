/* batched: bp,bpm->bm. Row i of C is row i of A times row i's own [P,M]
 * matrix (at b + i*P*ldb), in row form.
 *
 * Unlike matmul (bp,pm->bm), where all N rows share one matrix that can be
 * reused N times, here every row brings its own matrix: each element of B
 * is used exactly once, bytes grow with N, and the intensity stays near one
 * FLOP per element of B however large the batch. This is decode attention
 * over a KV cache.
 *
 * Row i of C takes eight rows of its matrix a pass, so C's row is read and
 * written once for every eight rows of B, not once for each: the matrix, not
 * C, sets the traffic, as it must for the contrast to stand at a memory roof.
 * One row a pass ran at 19 GB/s from DRAM on a Zen 5 core, eight at 31 (the
 * read roof 43); on two cores, a single row split by columns, 19 and 55. */
#include "kernel.h"

#define A_(i, k) a[(i) * lda + (k)]
#define B_(i, k, j) b[((i) * x->p + (k)) * ldb + (j)]
#define C_(i, j) c[(i) * ldc + (j)]

#define BATCHED_ROW(NAME, T)                                                   \
    void NAME(const rb_operands *x)                                            \
    {                                                                          \
        const T *restrict a = x->a;                                            \
        const T *restrict b = x->b;                                            \
        T *restrict c = x->c;                                                  \
        const size_t lda = x->lda, ldb = x->ldb, ldc = x->ldc;                 \
        for (size_t i = 0; i < x->n; i++) {                                    \
            T *restrict ci = &C_(i, 0);                                        \
            for (size_t j = 0; j < x->m; j++)                                  \
                ci[j] = 0;                                                     \
            size_t k = 0;                                                      \
            for (; k + 8 <= x->p; k += 8) {                                    \
                const T *restrict r0 = &B_(i, k, 0), *restrict r1 = r0 + ldb,  \
                                  *restrict r2 = r1 + ldb,                     \
                                  *restrict r3 = r2 + ldb,                     \
                                  *restrict r4 = r3 + ldb,                     \
                                  *restrict r5 = r4 + ldb,                     \
                                  *restrict r6 = r5 + ldb,                     \
                                  *restrict r7 = r6 + ldb;                     \
                const T a0 = A_(i, k), a1 = A_(i, k + 1), a2 = A_(i, k + 2),   \
                        a3 = A_(i, k + 3), a4 = A_(i, k + 4),                  \
                        a5 = A_(i, k + 5), a6 = A_(i, k + 6),                  \
                        a7 = A_(i, k + 7);                                     \
                for (size_t j = 0; j < x->m; j++)                              \
                    ci[j] += a0 * r0[j] + a1 * r1[j] + a2 * r2[j] +            \
                             a3 * r3[j] + a4 * r4[j] + a5 * r5[j] +            \
                             a6 * r6[j] + a7 * r7[j];                          \
            }                                                                  \
            for (; k < x->p; k++) {                                            \
                const T aik = A_(i, k);                                        \
                const T *restrict rk = &B_(i, k, 0);                           \
                for (size_t j = 0; j < x->m; j++)                              \
                    ci[j] += aik * rk[j];                                      \
            }                                                                  \
        }                                                                      \
    }

BATCHED_ROW(batched_row_f32, float)
BATCHED_ROW(batched_row_f64, double)
