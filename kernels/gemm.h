/* Inside the blocked matmul: the register-tile micro-kernels and the code
 * paths that offer them. Not part of the kernel interface. */
#ifndef ROOFBENCH_GEMM_H
#define ROOFBENCH_GEMM_H

#include <stddef.h>

#include "kernel.h"

/* C[0:MR, 0:NR] = (accumulate ? C : 0) + A_panel B_panel, where A_panel
 * holds kc columns of MR packed values (a[k * MR + i]) and B_panel kc rows
 * of NR packed values (b[k * NR + j]): kc rank-1 updates of an MR x NR
 * tile held in registers. */
typedef void (*gemm_ukr_f32)(size_t kc, const float *restrict a,
                             const float *restrict b, float *restrict c,
                             size_t ldc, int accumulate);
typedef void (*gemm_ukr_f64)(size_t kc, const double *restrict a,
                             const double *restrict b, double *restrict c,
                             size_t ldc, int accumulate);

/* The skinny micro-kernel (gemm_skinny.c): C[0:rows, 0:SW] (+)=
 * A[0:rows, 0:kb] W[0:kb, 0:SW] on the caller's row-major operands,
 * nothing packed, rows at most RB_SKINNY_ROWS (kernel.h). What it asks
 * for ahead while it computes, when pf is not NULL: */
typedef struct {
    /* into L2: `rows` rows (at most kb) of a strip the caller will need
     * soon, SW wide, `ld` bytes apart, spread evenly over the kb steps */
    const void *far;
    size_t ld, rows;
    /* into L1 instead (T0), in the kernels that take it (AVX-512) */
    int far_l1;
    /* or, with next set, lines l0 to l1 - 1 of the region there: rows of
     * `run` bytes (a multiple of 64), `ld` bytes apart, counted row after
     * row, spread evenly over the kb steps */
    const void *next;
    size_t run, l0, l1;
    /* into L1: this strip's row k + 8 by step k */
    int near;
    /* into L1, if not NULL: the C tile of the caller's next call (c_rows
     * rows, SW wide, c_ld bytes apart), a line a step over the first
     * steps (the kernels of 32 vector registers; gemm_skinny.c) */
    const void *c_next;
    size_t c_ld, c_rows;
} gemm_skinny_pf;
typedef void (*gemm_skinny_f32)(size_t rows, size_t kb,
                                const float *restrict a, size_t lda,
                                const float *restrict w, size_t ldw,
                                float *restrict c, size_t ldc, int accumulate,
                                const gemm_skinny_pf *pf);
typedef void (*gemm_skinny_f64)(size_t rows, size_t kb,
                                const double *restrict a, size_t lda,
                                const double *restrict w, size_t ldw,
                                double *restrict c, size_t ldc, int accumulate,
                                const gemm_skinny_pf *pf);

/* How far on the run kernels' callers ask for each run's line, in bytes:
 * as the streaming probe asks for its one stream's (matmul_blocked.c's
 * runs(), batched.c) */
enum { GEMM_RUNS_AHEAD = 4096 };

/* The run kernel (gemm_skinny.c): C[0:rows, 0:cols] = A[0:rows, 0:kb]
 * W[0:kb, 0:cols] for rows 1 or 2, W read four rows (the portable copy
 * two) at a time along all cols columns, each run's line `ahead` bytes on
 * asked for into L1 (0: none). */
typedef void (*gemm_runs_f32)(size_t rows, size_t kb, const float *restrict a,
                              size_t lda, const float *restrict w, size_t ldw,
                              float *restrict c, size_t ldc, size_t cols,
                              size_t ahead);
typedef void (*gemm_runs_f64)(size_t rows, size_t kb,
                              const double *restrict a, size_t lda,
                              const double *restrict w, size_t ldw,
                              double *restrict c, size_t ldc, size_t cols,
                              size_t ahead);

typedef struct {
    const char *name;
    unsigned needs;          /* RB_ISA_* mask                        */
    size_t mr32, nr32;       /* register tile for f32                */
    gemm_ukr_f32 f32;
    size_t mr64, nr64;       /* and for f64                          */
    gemm_ukr_f64 f64;
    size_t sw32, sw64;       /* skinny strip width per dtype         */
    gemm_skinny_f32 skinny32;
    gemm_skinny_f64 skinny64;
    gemm_runs_f32 runs32;    /* one or two rows, W from beyond L2    */
    gemm_runs_f64 runs64;
} gemm_path;

/* Every path, fastest first; the last is portable C and always fits. */
extern const gemm_path gemm_paths[];
extern const size_t gemm_npaths;

/* The first path the mask allows. */
const gemm_path *gemm_path_select(unsigned isa);

/* The path this machine runs (rb_config_get()) and its blocks for dt:
 * what matmul_blocked and its workspace use, from gemm_cntx.c. */
typedef struct {
    const gemm_path *path;
    rb_blocking blk;
} gemm_cntx;

void gemm_cntx_of(rb_dtype dt, gemm_cntx *out);

void gemm_ukr_avx512_f32(size_t kc, const float *restrict a,
                         const float *restrict b, float *restrict c,
                         size_t ldc, int accumulate);
void gemm_ukr_avx512_f64(size_t kc, const double *restrict a,
                         const double *restrict b, double *restrict c,
                         size_t ldc, int accumulate);
void gemm_ukr_avx2_f32(size_t kc, const float *restrict a,
                       const float *restrict b, float *restrict c, size_t ldc,
                       int accumulate);
void gemm_ukr_avx2_f64(size_t kc, const double *restrict a,
                       const double *restrict b, double *restrict c,
                       size_t ldc, int accumulate);

#define GEMM_SKINNY_DECL(isa)                                                  \
    void gemm_skinny_##isa##_f32(size_t rows, size_t kb,                       \
                                 const float *restrict a, size_t lda,          \
                                 const float *restrict w, size_t ldw,          \
                                 float *restrict c, size_t ldc,                \
                                 int accumulate, const gemm_skinny_pf *pf);    \
    void gemm_skinny_##isa##_f64(size_t rows, size_t kb,                       \
                                 const double *restrict a, size_t lda,         \
                                 const double *restrict w, size_t ldw,         \
                                 double *restrict c, size_t ldc,               \
                                 int accumulate, const gemm_skinny_pf *pf);
#define GEMM_RUNS_DECL(isa)                                                    \
    void gemm_runs_##isa##_f32(size_t rows, size_t kb,                         \
                               const float *restrict a, size_t lda,            \
                               const float *restrict w, size_t ldw,            \
                               float *restrict c, size_t ldc, size_t cols,     \
                               size_t ahead);                  \
    void gemm_runs_##isa##_f64(size_t rows, size_t kb,                         \
                               const double *restrict a, size_t lda,           \
                               const double *restrict w, size_t ldw,           \
                               double *restrict c, size_t ldc, size_t cols,    \
                               size_t ahead);
GEMM_RUNS_DECL(avx512)
GEMM_RUNS_DECL(avx2)
GEMM_RUNS_DECL(portable)
GEMM_SKINNY_DECL(avx512)
GEMM_SKINNY_DECL(avx2)
GEMM_SKINNY_DECL(portable)

#endif
