/* The one table of kernels. Each row is the kernel as data: its name, the
 * operation and loop form, one sentence, its function per dtype, who
 * threads it, and what the operation brings (DOT, MATMUL, ...: its
 * analytic counts, its reference and the roofs that bound it). Every form
 * of one operation shares one count function and one reference: the forms
 * differ in measured traffic, not in what they compute or in compulsory
 * traffic. */
#include <string.h>

#include "kernel.h"
#include "ref.h"

#define DECLARE(name)                                                          \
    void name##_f32(const rb_operands *x);                                     \
    void name##_f64(const rb_operands *x)

DECLARE(dot_plain);
DECLARE(dot_simd);
DECLARE(dot_openblas);
DECLARE(matvec_rows);
DECLARE(matvec_simd);
DECLARE(matvec_openblas);
DECLARE(matmul_naive);
DECLARE(matmul_row);
DECLARE(matmul_column);
DECLARE(matmul_outer);
DECLARE(matmul_blocked);
DECLARE(matmul_openblas);
DECLARE(batched_row);
DECLARE(batched_openblas);

void matmul_blocked_workspace(rb_shape s, rb_dtype dt, int nthreads,
                              size_t *shared, size_t *own);

#define FNS(name) {name##_f32, name##_f64}

/* What every form of one operation shares: its counts, its reference and
 * the roofs that bound it (every kernel here writes its output without
 * reading it first: output_read 0; only team kernels have a workspace) */
#define DOT                                                                    \
    .op = RB_OP_DOT, .counts = rb_counts_dot, .reference = ref_dot,            \
    .access = RB_ACCESS_READ
#define MATVEC                                                                 \
    .op = RB_OP_MATVEC, .counts = rb_counts_matvec, .reference = ref_matvec,   \
    .access = RB_ACCESS_READ
#define MATMUL                                                                 \
    .op = RB_OP_MATMUL, .counts = rb_counts_matmul, .reference = ref_matmul,   \
    .access = RB_ACCESS_MIXED
#define BATCHED                                                                \
    .op = RB_OP_BATCHED, .counts = rb_counts_batched,                          \
    .reference = ref_batched, .access = RB_ACCESS_MIXED

const rb_kernel rb_kernels[] = {
    {DOT,
     .name = "dot",
     .form = "dot-product",
     .description = "Sum of a[k]*b[k] over two contiguous vectors with one accumulator.",
     .fn = FNS(dot_plain),
     .threading = RB_SPLIT_HARNESS},
    {DOT,
     .name = "dot_simd",
     .form = "dot-product",
     .description = "Sum of a[k]*b[k] in eight vector accumulators (AVX-512, AVX2 or C).",
     .fn = FNS(dot_simd),
     .threading = RB_SPLIT_HARNESS},
    {DOT,
     .name = "dot_openblas",
     .form = "openblas",
     .description = "OpenBLAS sdot/ddot.",
     .fn = FNS(dot_openblas),
     .threading = RB_SPLIT_LIBRARY},
    {MATVEC,
     .name = "matvec",
     .form = "dot-product",
     .description = "y = A x with each contiguous row of A dotted with x.",
     .fn = FNS(matvec_rows),
     .threading = RB_SPLIT_HARNESS},
    {MATVEC,
     .name = "matvec_simd",
     .form = "dot-product",
     .description = "y = A x, eight rows at a time (four with AVX2) against one load of x, two vector accumulators a row.",
     .fn = FNS(matvec_simd),
     .threading = RB_SPLIT_HARNESS},
    {MATVEC,
     .name = "matvec_openblas",
     .form = "openblas",
     .description = "OpenBLAS sgemv/dgemv, row-major, no transpose.",
     .fn = FNS(matvec_openblas),
     .threading = RB_SPLIT_LIBRARY},
    {MATMUL,
     .name = "matmul_naive",
     .form = "dot-product",
     .description = "C[i,j] = row i of A . column j of B (ijk): the textbook loop.",
     .fn = FNS(matmul_naive),
     .threading = RB_SPLIT_HARNESS,
     .traffic = RB_TRAFFIC_DOT_PRODUCT},
    {MATMUL,
     .name = "matmul_column",
     .form = "column",
     .description = "Column j of C = A x column j of B (jki): M matrix-vector products.",
     .fn = FNS(matmul_column),
     .threading = RB_SPLIT_HARNESS,
     .traffic = RB_TRAFFIC_COLUMN},
    {MATMUL,
     .name = "matmul_row",
     .form = "row",
     .description = "Row i of C = row i of A x B (ikj): N vector-matrix products.",
     .fn = FNS(matmul_row),
     .threading = RB_SPLIT_HARNESS,
     .traffic = RB_TRAFFIC_ROW},
    {MATMUL,
     .name = "matmul_outer",
     .form = "outer-product",
     .description = "C = sum over k of column k of A x row k of B (kij): P rank-1 updates.",
     .fn = FNS(matmul_outer),
     .threading = RB_SPLIT_HARNESS,
     .traffic = RB_TRAFFIC_OUTER},
    {MATMUL,
     .name = "matmul_blocked",
     .form = "blocked",
     .description = "Packed KC x NC blocks of B and MC x KC of A, register-tile micro-kernel; the team shares B. Up to MC rows (more in a team, with B beyond L3, or with B within half of L2): B read once in place (skinny path).",
     .fn = FNS(matmul_blocked),
     .threading = RB_SPLIT_TEAM,
     .workspace = matmul_blocked_workspace,
     .traffic = RB_TRAFFIC_BLOCKED},
    {MATMUL,
     .name = "matmul_openblas",
     .form = "openblas",
     .description = "OpenBLAS sgemm/dgemm, row-major, beta = 0.",
     .fn = FNS(matmul_openblas),
     .threading = RB_SPLIT_LIBRARY},
    {BATCHED,
     .name = "batched",
     .form = "row",
     .description = "bp,bpm->bm: row b of C = row b of A x its own [P,M] matrix (row form).",
     .fn = FNS(batched_row),
     .threading = RB_SPLIT_HARNESS},
    {BATCHED,
     .name = "batched_openblas",
     .form = "openblas",
     .description = "bp,bpm->bm as one single-threaded OpenBLAS gemv per row; the harness splits the rows.",
     .fn = FNS(batched_openblas),
     .threading = RB_SPLIT_HARNESS},
};


const size_t rb_nkernels = sizeof(rb_kernels) / sizeof(rb_kernels[0]);

const rb_kernel *rb_kernel_find(const char *name)
{
    for (size_t i = 0; i < rb_nkernels; i++)
        if (strcmp(rb_kernels[i].name, name) == 0)
            return &rb_kernels[i];
    return NULL;
}

const char *rb_op_name(rb_op op)
{
    static const char *const names[RB_NOPS] = {"dot", "matvec", "matmul",
                                               "batched"};
    return op < RB_NOPS ? names[op] : "?";
}
