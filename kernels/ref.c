/* References: the textbook definition of each operation, every output its
 * sum over k in ascending order, in long double so that their own
 * rounding error is far below the tolerance of the kernels they judge.
 * Slow on purpose (scalar, no blocking), and simple enough to be read as
 * the specification. Inputs are dense row-major doubles. */
#include <math.h>
#include <stdlib.h>

#include "ref.h"

size_t ref_out_rows(rb_op op, rb_shape s)
{
    return op == RB_OP_DOT ? 1 : s.n;
}

size_t ref_out_cols(rb_op op, rb_shape s)
{
    return (op == RB_OP_DOT || op == RB_OP_MATVEC) ? 1 : s.m;
}

/* c = sum_k a[k] b[k]; one output, row 0. */
void ref_dot(rb_shape s, const double *a, const double *b, size_t r0,
             size_t r1, double *val, double *absval)
{
    if (r0 > 0 || r1 < 1)
        return;
    long double sum = 0.0L, abs_sum = 0.0L;
    for (size_t k = 0; k < s.p; k++) {
        sum += (long double)a[k] * b[k];
        abs_sum += fabsl((long double)a[k] * b[k]);
    }
    val[0] = (double)sum;
    absval[0] = (double)abs_sum;
}

/* y[i] = sum_k A[i,k] x[k]. */
void ref_matvec(rb_shape s, const double *a, const double *b, size_t r0,
                size_t r1, double *val, double *absval)
{
    for (size_t i = r0; i < r1; i++) {
        long double sum = 0.0L, abs_sum = 0.0L;
        for (size_t k = 0; k < s.p; k++) {
            sum += (long double)a[i * s.p + k] * b[k];
            abs_sum += fabsl((long double)a[i * s.p + k] * b[k]);
        }
        val[i - r0] = (double)sum;
        absval[i - r0] = (double)abs_sum;
    }
}

/* C[i,j] = sum_k A[i,k] B_i[k,j], B_i = b + i * bstep (bstep 0: one B for
 * every row). Each output is its sum over k in ascending order, as the
 * definition reads; the loops run k outside j so that B is read row by
 * row: walking a column of a B beyond the caches missed at every step and
 * took half of a sweep point's time. The sums, and the order in which
 * their terms are added, are the same either way. */
static void ref_rows(rb_shape s, const double *a, const double *b,
                     size_t bstep, size_t r0, size_t r1, double *val,
                     double *absval)
{
    long double *sum = malloc(2 * (s.m ? s.m : 1) * sizeof(*sum));
    for (size_t i = r0; i < r1; i++) {
        const double *bi = b + i * bstep;
        if (!sum) { /* no room for the row's sums: one output at a time */
            for (size_t j = 0; j < s.m; j++) {
                long double t_sum = 0.0L, t_abs = 0.0L;
                for (size_t k = 0; k < s.p; k++) {
                    const long double t = (long double)a[i * s.p + k] *
                                          bi[k * s.m + j];
                    t_sum += t;
                    t_abs += fabsl(t);
                }
                val[(i - r0) * s.m + j] = (double)t_sum;
                absval[(i - r0) * s.m + j] = (double)t_abs;
            }
            continue;
        }
        long double *abs_sum = sum + s.m;
        for (size_t j = 0; j < s.m; j++)
            sum[j] = abs_sum[j] = 0.0L;
        for (size_t k = 0; k < s.p; k++) {
            const long double aik = a[i * s.p + k];
            const double *bk = bi + k * s.m;
            for (size_t j = 0; j < s.m; j++) {
                const long double t = aik * bk[j];
                sum[j] += t;
                abs_sum[j] += fabsl(t);
            }
        }
        for (size_t j = 0; j < s.m; j++) {
            val[(i - r0) * s.m + j] = (double)sum[j];
            absval[(i - r0) * s.m + j] = (double)abs_sum[j];
        }
    }
    free(sum);
}

/* C[i,j] = sum_k A[i,k] B[k,j]. */
void ref_matmul(rb_shape s, const double *a, const double *b, size_t r0,
                size_t r1, double *val, double *absval)
{
    ref_rows(s, a, b, 0, r0, r1, val, absval);
}

/* C[i,j] = sum_k A[i,k] B_i[k,j], where B_i is row i's own [P,M] matrix. */
void ref_batched(rb_shape s, const double *a, const double *b, size_t r0,
                 size_t r1, double *val, double *absval)
{
    ref_rows(s, a, b, s.p * s.m, r0, r1, val, absval);
}

double ref_tolerance(rb_dtype dt, uint64_t k)
{
    return ((double)k + 2.0) * rb_dtype_eps(dt);
}

void ref_check(rb_dtype dt, size_t rows, size_t cols, const void *c,
               size_t ldc, const double *val, const double *absval, double tol,
               ref_result *r)
{
    r->max_err = 0.0;
    r->tol = tol;
    r->worst_row = r->worst_col = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            const double got = dt == RB_F32 ? ((const float *)c)[i * ldc + j]
                                            : ((const double *)c)[i * ldc + j];
            const double want = val[i * cols + j];
            /* absval is positive for random nonzero data; the floor keeps an
             * all-zero row from dividing by zero without hiding an error. */
            const double scale = absval[i * cols + j] > 0.0
                                     ? absval[i * cols + j]
                                     : 1.0;
            const double err =
                isfinite(got) ? fabs(got - want) / scale : INFINITY;
            if (err > r->max_err) {
                r->max_err = err;
                r->worst_row = i;
                r->worst_col = j;
            }
        }
    r->passed = r->max_err <= tol;
}
