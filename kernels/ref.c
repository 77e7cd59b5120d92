/* References: the textbook definition of each operation, every output its
 * sum over k in ascending order, in long double (a matmul row of f32
 * inputs in double: REF_ROW) so that their own rounding error is far
 * below the tolerance of the kernels they judge. Slow on purpose (no
 * blocking), and simple enough to be read as the specification. Inputs
 * are dense row-major, in the kernels' dtype: the values the kernels
 * get, not a copy widened to double. */
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

/* Element i of an input of dtype dt. */
static long double in(const void *x, size_t i, rb_dtype dt)
{
    return dt == RB_F32 ? (long double)((const float *)x)[i]
                        : (long double)((const double *)x)[i];
}

/* c = sum_k a[k] b[k]; one output, row 0. */
void ref_dot(rb_shape s, rb_dtype dt, const void *a, const void *b, size_t r0,
             size_t r1, double *val, double *absval)
{
    if (r0 > 0 || r1 < 1)
        return;
    long double sum = 0.0L, abs_sum = 0.0L;
    for (size_t k = 0; k < s.p; k++) {
        const long double t = in(a, k, dt) * in(b, k, dt);
        sum += t;
        abs_sum += fabsl(t);
    }
    val[0] = (double)sum;
    absval[0] = (double)abs_sum;
}

/* y[i] = sum_k A[i,k] x[k]. */
void ref_matvec(rb_shape s, rb_dtype dt, const void *a, const void *b,
                size_t r0, size_t r1, double *val, double *absval)
{
    for (size_t i = r0; i < r1; i++) {
        long double sum = 0.0L, abs_sum = 0.0L;
        for (size_t k = 0; k < s.p; k++) {
            const long double t = in(a, i * s.p + k, dt) * in(b, k, dt);
            sum += t;
            abs_sum += fabsl(t);
        }
        val[i - r0] = (double)sum;
        absval[i - r0] = (double)abs_sum;
    }
}

/* One output row of a matmul: C[j] = sum_k a[k] B[k,j] over the P x M
 * matrix B, each sum over k in ascending order, as the definition reads;
 * the loops run k outside j so that B is read row by row (walking a
 * column of a B beyond the caches missed at every step and took half of a
 * sweep point's time). The sums, and the order in which their terms are
 * added, are the same either way. ACC is the sums' type: long double for
 * f64 inputs; double for f32 ones, whose products are exact in double and
 * whose sums then err by at most P x 2^-53 of sum |a||b|, 2^-30 of the f32
 * tolerance (and, unlike long double, double runs vector-wide: it made
 * the sweep's references five times faster). -1: no room for the sums. */
#define REF_ROW(NAME, IN_T, ACC, ABS)                                          \
    static int NAME(rb_shape s, const IN_T *a, const IN_T *b, double *val,    \
                    double *absval)                                            \
    {                                                                          \
        ACC *sum = malloc(2 * (s.m ? s.m : 1) * sizeof(*sum));                 \
        if (!sum)                                                              \
            return -1;                                                         \
        ACC *abs_sum = sum + s.m;                                              \
        for (size_t j = 0; j < s.m; j++)                                       \
            sum[j] = abs_sum[j] = 0;                                           \
        for (size_t k = 0; k < s.p; k++) {                                     \
            const ACC ak = a[k];                                               \
            const IN_T *bk = b + k * s.m;                                      \
            for (size_t j = 0; j < s.m; j++) {                                 \
                const ACC t = ak * (ACC)bk[j];                                 \
                sum[j] += t;                                                   \
                abs_sum[j] += ABS(t);                                          \
            }                                                                  \
        }                                                                      \
        for (size_t j = 0; j < s.m; j++) {                                     \
            val[j] = (double)sum[j];                                           \
            absval[j] = (double)abs_sum[j];                                    \
        }                                                                      \
        free(sum);                                                             \
        return 0;                                                              \
    }

REF_ROW(ref_row_f32, float, double, fabs)
REF_ROW(ref_row_f64, double, long double, fabsl)

/* C[i,j] = sum_k A[i,k] B_i[k,j], B_i = b + i * bstep (bstep 0: one B for
 * every row), rows [r0, r1). */
static void ref_rows(rb_shape s, rb_dtype dt, const void *a, const void *b,
                     size_t bstep, size_t r0, size_t r1, double *val,
                     double *absval)
{
    for (size_t i = r0; i < r1; i++) {
        const size_t bi = i * bstep; /* where row i's B starts */
        double *vi = val + (i - r0) * s.m, *ai = absval + (i - r0) * s.m;
        const int rc =
            dt == RB_F32
                ? ref_row_f32(s, (const float *)a + i * s.p,
                              (const float *)b + bi, vi, ai)
                : ref_row_f64(s, (const double *)a + i * s.p,
                              (const double *)b + bi, vi, ai);
        if (rc == 0)
            continue;
        /* no room for the row's sums: one output at a time */
        for (size_t j = 0; j < s.m; j++) {
            long double t_sum = 0.0L, t_abs = 0.0L;
            for (size_t k = 0; k < s.p; k++) {
                const long double t =
                    in(a, i * s.p + k, dt) * in(b, bi + k * s.m + j, dt);
                t_sum += t;
                t_abs += fabsl(t);
            }
            vi[j] = (double)t_sum;
            ai[j] = (double)t_abs;
        }
    }
}

/* C[i,j] = sum_k A[i,k] B[k,j]. */
void ref_matmul(rb_shape s, rb_dtype dt, const void *a, const void *b,
                size_t r0, size_t r1, double *val, double *absval)
{
    ref_rows(s, dt, a, b, 0, r0, r1, val, absval);
}

/* C[i,j] = sum_k A[i,k] B_i[k,j], where B_i is row i's own [P,M] matrix. */
void ref_batched(rb_shape s, rb_dtype dt, const void *a, const void *b,
                 size_t r0, size_t r1, double *val, double *absval)
{
    ref_rows(s, dt, a, b, s.p * s.m, r0, r1, val, absval);
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
