/* References: the textbook definition of each operation, one output at a
 * time, in long double so that their own rounding error is far below the
 * tolerance of the kernels they judge. Slow on purpose, and simple enough
 * to be read as the specification. */
#include <math.h>

#include "ref.h"

size_t ref_out_rows(rb_op op, rb_shape s)
{
    return op == RB_OP_DOT ? 1 : s.n;
}

size_t ref_out_cols(rb_op op, rb_shape s)
{
    return (op == RB_OP_DOT || op == RB_OP_MATVEC) ? 1 : s.m;
}

void ref_rows(rb_op op, rb_shape s, const double *a, const double *b,
              size_t r0, size_t r1, double *val, double *absval)
{
    const size_t cols = ref_out_cols(op, s);
    for (size_t i = r0; i < r1; i++)
        for (size_t j = 0; j < cols; j++) {
            long double sum = 0.0L, abs_sum = 0.0L;
            for (size_t k = 0; k < s.p; k++) {
                double x, y;
                switch (op) {
                case RB_OP_DOT:
                    x = a[k];
                    y = b[k];
                    break;
                case RB_OP_MATVEC:
                    x = a[i * s.p + k];
                    y = b[k];
                    break;
                case RB_OP_MATMUL:
                    x = a[i * s.p + k];
                    y = b[k * s.m + j];
                    break;
                default: /* batched: row i's own [P,M] matrix */
                    x = a[i * s.p + k];
                    y = b[(i * s.p + k) * s.m + j];
                    break;
                }
                sum += (long double)x * y;
                abs_sum += fabsl((long double)x * y);
            }
            val[i * cols + j] = (double)sum;
            absval[i * cols + j] = (double)abs_sum;
        }
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
