/* The one table of kernels. Each row is the kernel as data: its name, the
 * operation and loop form, one sentence, its function per dtype, who
 * threads it, its analytic counts, its reference, and whether it reads its
 * output. Every form of one operation shares one count function and one
 * reference: the forms differ in measured traffic, not in what they
 * compute or in compulsory traffic. */
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

const rb_kernel rb_kernels[] = {
    {.name = "dot",
     .op = RB_OP_DOT,
     .form = "dot-product",
     .description = "Sum of a[k]*b[k] over two contiguous vectors with one accumulator.",
     .fn = FNS(dot_plain),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_dot,
     .reference = ref_dot,
     .output_read = 0,
     .access = RB_ACCESS_READ,
     .workspace = NULL},
    {.name = "dot_simd",
     .op = RB_OP_DOT,
     .form = "dot-product",
     .description = "Sum of a[k]*b[k] in eight vector accumulators (AVX-512, AVX2 or C).",
     .fn = FNS(dot_simd),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_dot,
     .reference = ref_dot,
     .output_read = 0,
     .access = RB_ACCESS_READ,
     .workspace = NULL},
    {.name = "dot_openblas",
     .op = RB_OP_DOT,
     .form = "openblas",
     .description = "OpenBLAS sdot/ddot.",
     .fn = FNS(dot_openblas),
     .threading = RB_SPLIT_LIBRARY,
     .counts = rb_counts_dot,
     .reference = ref_dot,
     .output_read = 0,
     .access = RB_ACCESS_READ,
     .workspace = NULL},
    {.name = "matvec",
     .op = RB_OP_MATVEC,
     .form = "dot-product",
     .description = "y = A x with each contiguous row of A dotted with x.",
     .fn = FNS(matvec_rows),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_matvec,
     .reference = ref_matvec,
     .output_read = 0,
     .access = RB_ACCESS_READ,
     .workspace = NULL},
    {.name = "matvec_simd",
     .op = RB_OP_MATVEC,
     .form = "dot-product",
     .description = "y = A x, eight rows at a time (four with AVX2) against one load of x, two vector accumulators a row.",
     .fn = FNS(matvec_simd),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_matvec,
     .reference = ref_matvec,
     .output_read = 0,
     .access = RB_ACCESS_READ,
     .workspace = NULL},
    {.name = "matvec_openblas",
     .op = RB_OP_MATVEC,
     .form = "openblas",
     .description = "OpenBLAS sgemv/dgemv, row-major, no transpose.",
     .fn = FNS(matvec_openblas),
     .threading = RB_SPLIT_LIBRARY,
     .counts = rb_counts_matvec,
     .reference = ref_matvec,
     .output_read = 0,
     .access = RB_ACCESS_READ,
     .workspace = NULL},
    {.name = "matmul_naive",
     .op = RB_OP_MATMUL,
     .form = "dot-product",
     .description = "C[i,j] = row i of A . column j of B (ijk): the textbook loop.",
     .fn = FNS(matmul_naive),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_matmul,
     .reference = ref_matmul,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL,
     .traffic = RB_TRAFFIC_DOT_PRODUCT},
    {.name = "matmul_column",
     .op = RB_OP_MATMUL,
     .form = "column",
     .description = "Column j of C = A x column j of B (jki): M matrix-vector products.",
     .fn = FNS(matmul_column),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_matmul,
     .reference = ref_matmul,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL,
     .traffic = RB_TRAFFIC_COLUMN},
    {.name = "matmul_row",
     .op = RB_OP_MATMUL,
     .form = "row",
     .description = "Row i of C = row i of A x B (ikj): N vector-matrix products.",
     .fn = FNS(matmul_row),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_matmul,
     .reference = ref_matmul,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL,
     .traffic = RB_TRAFFIC_ROW},
    {.name = "matmul_outer",
     .op = RB_OP_MATMUL,
     .form = "outer-product",
     .description = "C = sum over k of column k of A x row k of B (kij): P rank-1 updates.",
     .fn = FNS(matmul_outer),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_matmul,
     .reference = ref_matmul,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL,
     .traffic = RB_TRAFFIC_OUTER},
    {.name = "matmul_blocked",
     .op = RB_OP_MATMUL,
     .form = "blocked",
     .description = "Packed KC x NC blocks of B and MC x KC of A, register-tile micro-kernel; the team shares B. Up to MC rows: B read once in place (skinny path).",
     .fn = FNS(matmul_blocked),
     .threading = RB_SPLIT_TEAM,
     .counts = rb_counts_matmul,
     .reference = ref_matmul,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = matmul_blocked_workspace,
     .traffic = RB_TRAFFIC_BLOCKED},
    {.name = "matmul_openblas",
     .op = RB_OP_MATMUL,
     .form = "openblas",
     .description = "OpenBLAS sgemm/dgemm, row-major, beta = 0.",
     .fn = FNS(matmul_openblas),
     .threading = RB_SPLIT_LIBRARY,
     .counts = rb_counts_matmul,
     .reference = ref_matmul,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL},
    {.name = "batched",
     .op = RB_OP_BATCHED,
     .form = "row",
     .description = "bp,bpm->bm: row b of C = row b of A x its own [P,M] matrix (row form).",
     .fn = FNS(batched_row),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_batched,
     .reference = ref_batched,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL},
    {.name = "batched_openblas",
     .op = RB_OP_BATCHED,
     .form = "openblas",
     .description = "bp,bpm->bm as one single-threaded OpenBLAS gemv per row; the harness splits the rows.",
     .fn = FNS(batched_openblas),
     .threading = RB_SPLIT_HARNESS,
     .counts = rb_counts_batched,
     .reference = ref_batched,
     .output_read = 0,
     .access = RB_ACCESS_MIXED,
     .workspace = NULL},
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
