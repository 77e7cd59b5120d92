/* batched: bp,bpm->bm. Row i of C is row i of A times row i's own [P,M]
 * matrix (at b + i*P*ldb), in row form.
 *
 * Unlike matmul (bp,pm->bm), where all N rows share one matrix that can be
 * reused N times, here every row brings its own matrix: each element of B
 * is used exactly once, bytes grow with N, and the intensity stays near one
 * FLOP per element of B however large the batch. This is decode attention
 * over a KV cache.
 *
 * Each row is the one-row product the blocked matmul's skinny path runs
 * for B = 1 with W beyond L2: its run kernel (gemm_skinny.c, on the code
 * path this machine runs; plain C on the portable one) reads four rows of
 * the matrix at a time along all the columns, C's row loaded and stored
 * once for every four, and asks for each run's line 4 KiB on, so that the
 * matrix, not C, sets the traffic and the stream runs at the memory's
 * rate, as the contrast must to stand at its roof. Measured on a Zen 5
 * guest (`roofbench sweep --p 4160`, 69 MB matrices, B = 1, 8 and 16, two
 * alternated rounds), against the plain C loop it replaces (eight rows of
 * the matrix a pass, no requests): f32 1 thread 12.6 to 19.4 GFLOP/s
 * against 7.1 to 10.8 (0.47 to 0.89 of the mixed roof against 0.36 to
 * 0.54), 2 threads 25.5 to 43.5 against 13.0 to 24.2; f64 1 thread 6.3 to
 * 10.0 against 3.3 to 5.2, 2 threads 11.0 to 16.4 against 6.6 to 10.4.
 * In a team the harness gives each member a share of the rows, or of the
 * columns where the rows are few and do not split evenly (harness_slice):
 * x then holds the member's part, its leading dimensions the whole one's. */
#include "gemm.h"
#include "kernel.h"

#define BATCHED_ROW(NAME, T, RUNS)                                             \
    void NAME(const rb_operands *x)                                            \
    {                                                                          \
        const gemm_path *path = gemm_path_select(rb_config_get()->isa);       \
        const T *a = x->a, *b = x->b;                                          \
        T *c = x->c;                                                           \
        for (size_t i = 0; i < x->n; i++)                                      \
            path->RUNS(1, x->p, a + i * x->lda, x->lda,                        \
                       b + i * x->p * x->ldb, x->ldb, c + i * x->ldc, x->ldc,  \
                       x->m, GEMM_RUNS_AHEAD);                                 \
    }

BATCHED_ROW(batched_row_f32, float, runs32)
BATCHED_ROW(batched_row_f64, double, runs64)
