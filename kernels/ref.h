/* Obviously correct references and the comparison against them. */
#ifndef ROOFBENCH_REF_H
#define ROOFBENCH_REF_H

#include "kernel.h"

/* Output rows of a problem: 1 for dot, N otherwise; and outputs per row:
 * 1 for dot and matvec, M for matmul and batched. */
size_t ref_out_rows(rb_op op, rb_shape s);
size_t ref_out_cols(rb_op op, rb_shape s);

/* The references, one per operation (see rb_ref_fn in kernel.h). */
void ref_dot(rb_shape s, rb_dtype dt, const void *a, const void *b,
             size_t r0, size_t r1, double *val, double *absval);
void ref_matvec(rb_shape s, rb_dtype dt, const void *a, const void *b,
                size_t r0, size_t r1, double *val, double *absval);
void ref_matmul(rb_shape s, rb_dtype dt, const void *a, const void *b,
                size_t r0, size_t r1, double *val, double *absval);
void ref_batched(rb_shape s, rb_dtype dt, const void *a, const void *b,
                 size_t r0, size_t r1, double *val, double *absval);

typedef struct {
    double max_err; /* max over outputs of |c - ref| / sum |a||b|         */
    double tol;     /* the bound that max_err must not exceed            */
    size_t worst_row, worst_col;
    int passed;     /* 1 when every output is finite and within tol       */
} ref_result;

/* Tolerance for a reduction of length k in dtype dt: (k + 2) * eps, the
 * classic error bound of a recursive sum gamma_k = k*u/(1 - k*u) with room
 * for any summation order and the final rounding. */
double ref_tolerance(rb_dtype dt, uint64_t k);

/* Compares rows x cols outputs of dtype dt (leading dimension ldc) with the
 * reference; fills r. */
void ref_check(rb_dtype dt, size_t rows, size_t cols, const void *c,
               size_t ldc, const double *val, const double *absval, double tol,
               ref_result *r);

#endif
