/* References: the textbook definition of each operation, every output its
 * sum over k in ascending order, in long double (a matmul row in double,
 * of f64 inputs in pairs of doubles) so that their own rounding error is far
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
 * added, are the same either way. Both run vector-wide, which long double
 * cannot (double made the f32 rows five times faster). -1: no room for
 * the sums.
 *
 * f32 inputs: the sums in double. A product of two floats is exact there,
 * and a sum of P of them errs by at most P x 2^-53 of sum |a||b|, 2^-30 of
 * the f32 tolerance. */
static int ref_row_f32(rb_shape s, const float *a, const float *b, double *val,
                       double *absval)
{
    double *sum = malloc(2 * (s.m ? s.m : 1) * sizeof(*sum));
    if (!sum)
        return -1;
    double *abs_sum = sum + s.m;
    for (size_t j = 0; j < s.m; j++)
        sum[j] = abs_sum[j] = 0;
    for (size_t k = 0; k < s.p; k++) {
        const double ak = a[k];
        const float *bk = b + k * s.m;
        for (size_t j = 0; j < s.m; j++) {
            const double t = ak * (double)bk[j];
            sum[j] += t;
            abs_sum[j] += fabs(t);
        }
    }
    for (size_t j = 0; j < s.m; j++) {
        val[j] = sum[j];
        absval[j] = abs_sum[j];
    }
    free(sum);
    return 0;
}

/* f64 inputs: each sum a pair of doubles, hi + lo, every step exact but
 * for lo's own additions (Ogita, Rump and Oishi's Dot2, "Accurate Sum and
 * Dot Product", SIAM J. Sci. Comput. 26(6), 2005): the product's rounding
 * error from an FMA, the sum's from Knuth's TwoSum. The result errs by at
 * most 2^-53 of itself plus (P 2^-53)^2 / (1 - P 2^-53)^2 of sum |a||b|,
 * below long double's P 2^-64 for any P under 2^42. It relies on every
 * operation being rounded as written (ref.c is built with
 * -ffp-contract=off: an addition fused with the product before it would
 * make TwoSum's error term wrong). The FMA is the hardware's where the
 * CPU has one (a clone for it), glibc's exact fma otherwise. */
__attribute__((target_clones("fma", "default"))) static int
ref_row_f64(rb_shape s, const double *a, const double *b, double *val,
            double *absval)
{
    double *hi = malloc(3 * (s.m ? s.m : 1) * sizeof(*hi));
    if (!hi)
        return -1;
    double *lo = hi + s.m, *abs_sum = lo + s.m;
    for (size_t j = 0; j < s.m; j++)
        hi[j] = lo[j] = abs_sum[j] = 0;
    for (size_t k = 0; k < s.p; k++) {
        const double ak = a[k];
        const double *bk = b + k * s.m;
        for (size_t j = 0; j < s.m; j++) {
            const double p = ak * bk[j];
            const double pe = __builtin_fma(ak, bk[j], -p); /* p + pe exact */
            const double t = hi[j] + p;
            const double z = t - hi[j];
            const double te = (hi[j] - (t - z)) + (p - z); /* t + te exact */
            hi[j] = t;
            lo[j] += te + pe;
            abs_sum[j] += fabs(p);
        }
    }
    for (size_t j = 0; j < s.m; j++) {
        val[j] = hi[j] + lo[j];
        absval[j] = abs_sum[j];
    }
    free(hi);
    return 0;
}

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
