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
DECLARE(dot_openblas);
DECLARE(matvec_rows);
DECLARE(matvec_openblas);
DECLARE(matmul_naive);
DECLARE(matmul_row);
DECLARE(matmul_column);
DECLARE(matmul_outer);
DECLARE(matmul_blocked);
DECLARE(matmul_openblas);
DECLARE(batched_row);
DECLARE(batched_openblas);

#define FNS(name) {name##_f32, name##_f64}

const rb_kernel rb_kernels[] = {
    {"dot", RB_OP_DOT, "dot-product",
     "Sum of a[k]*b[k] over two contiguous vectors with one accumulator.",
     FNS(dot_plain), RB_SPLIT_HARNESS, rb_counts_dot,
     ref_dot, 0},
    {"dot_openblas", RB_OP_DOT, "openblas", "OpenBLAS sdot/ddot.",
     FNS(dot_openblas), RB_SPLIT_LIBRARY, rb_counts_dot,
     ref_dot, 0},
    {"matvec", RB_OP_MATVEC, "dot-product",
     "y = A x with each contiguous row of A dotted with x.", FNS(matvec_rows),
     RB_SPLIT_HARNESS, rb_counts_matvec,
     ref_matvec, 0},
    {"matvec_openblas", RB_OP_MATVEC, "openblas",
     "OpenBLAS sgemv/dgemv, row-major, no transpose.", FNS(matvec_openblas),
     RB_SPLIT_LIBRARY, rb_counts_matvec,
     ref_matvec, 0},
    {"matmul_naive", RB_OP_MATMUL, "dot-product",
     "C[i,j] = row i of A . column j of B (ijk): the textbook loop.",
     FNS(matmul_naive), RB_SPLIT_HARNESS, rb_counts_matmul,
     ref_matmul, 0},
    {"matmul_column", RB_OP_MATMUL, "column",
     "Column j of C = A x column j of B (jki): M matrix-vector products.",
     FNS(matmul_column), RB_SPLIT_HARNESS, rb_counts_matmul,
     ref_matmul, 0},
    {"matmul_row", RB_OP_MATMUL, "row",
     "Row i of C = row i of A x B (ikj): N vector-matrix products.",
     FNS(matmul_row), RB_SPLIT_HARNESS, rb_counts_matmul,
     ref_matmul, 0},
    {"matmul_outer", RB_OP_MATMUL, "outer-product",
     "C = sum over k of column k of A x row k of B (kij): P rank-1 updates.",
     FNS(matmul_outer), RB_SPLIT_HARNESS, rb_counts_matmul,
     ref_matmul, 0},
    {"matmul_blocked", RB_OP_MATMUL, "blocked",
     "Outer-product form over KC x NC blocks with a 4x8 register tile of C.",
     FNS(matmul_blocked), RB_SPLIT_HARNESS, rb_counts_matmul,
     ref_matmul, 0},
    {"matmul_openblas", RB_OP_MATMUL, "openblas",
     "OpenBLAS sgemm/dgemm, row-major, beta = 0.", FNS(matmul_openblas),
     RB_SPLIT_LIBRARY, rb_counts_matmul,
     ref_matmul, 0},
    {"batched", RB_OP_BATCHED, "row",
     "bp,bpm->bm: row b of C = row b of A x its own [P,M] matrix (row form).",
     FNS(batched_row), RB_SPLIT_HARNESS, rb_counts_batched,
     ref_batched, 0},
    {"batched_openblas", RB_OP_BATCHED, "openblas",
     "bp,bpm->bm as one single-threaded OpenBLAS gemv per row; the harness "
     "splits the rows.",
     FNS(batched_openblas), RB_SPLIT_HARNESS, rb_counts_batched,
     ref_batched, 0},
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

const char *rb_dtype_name(rb_dtype dt)
{
    return dt == RB_F32 ? "f32" : "f64";
}

size_t rb_dtype_size(rb_dtype dt)
{
    return dt == RB_F32 ? sizeof(float) : sizeof(double);
}

double rb_dtype_eps(rb_dtype dt)
{
    return dt == RB_F32 ? 0x1p-23 : 0x1p-52;
}

int rb_dtype_parse(const char *s, rb_dtype *dt)
{
    if (strcmp(s, "f32") == 0) {
        *dt = RB_F32;
        return 0;
    }
    if (strcmp(s, "f64") == 0) {
        *dt = RB_F64;
        return 0;
    }
    return -1;
}
