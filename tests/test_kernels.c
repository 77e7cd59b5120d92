/* Every kernel and dtype against the reference on awkward shapes, called
 * whole and split into thread shares exactly as the harness splits them.
 * Also checks that the check itself catches a wrong answer. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "../bench/harness.h"
#include "../kernels/kernel.h"
#include "../kernels/ref.h"
#include "check.h"

enum { SEED = 42 };

/* Runs kernel k on shape s split into nparts shares and compares with the
 * reference. Returns the relative error over the tolerance. */
static double run_case(const rb_kernel *k, rb_dtype dt, rb_shape s,
                       int nparts, const double *val, const double *absval,
                       void *a, void *b, void *c)
{
    const size_t el = rb_dtype_size(dt);
    const size_t rows = ref_out_rows(k->op, s), cols = ref_out_cols(k->op, s);
    for (size_t i = 0; i < (k->op == RB_OP_DOT ? 64 * 8 / el : rows * cols);
         i++)
        dt == RB_F32 ? (((float *)c)[i] = NAN) : (((double *)c)[i] = NAN);
    for (int t = 0; t < nparts; t++) {
        rb_operands x;
        harness_slice(k->op, s, el, a, b, c, t, nparts, &x);
        k->fn[dt](&x);
    }
    ref_result r;
    const double tol = ref_tolerance(dt, s.p);
    if (k->op == RB_OP_DOT) {
        long double sum = 0.0L;
        for (int t = 0; t < nparts; t++) {
            const char *slot = (const char *)c + (size_t)t * 64;
            sum += dt == RB_F32 ? *(const float *)slot : *(const double *)slot;
        }
        const double total = (double)sum;
        ref_check(RB_F64, 1, 1, &total, 1, val, absval, tol, &r);
    } else {
        ref_check(dt, rows, cols, c, cols, val, absval, tol, &r);
    }
    if (!r.passed)
        fprintf(stderr,
                "  %s %s shape %zu,%zu,%zu parts %d: error %.3g > tol %.3g at "
                "[%zu,%zu]\n",
                k->name, rb_dtype_name(dt), s.n, s.p, s.m, nparts, r.max_err,
                r.tol, r.worst_row, r.worst_col);
    return r.max_err / r.tol;
}

static void test_op(rb_op op, rb_shape s)
{
    if (op == RB_OP_DOT)
        s.n = s.m = 1;
    if (op == RB_OP_MATVEC)
        s.m = 1;
    uint64_t el[3];
    rb_operand_elems(op, s, el);
    const size_t rows = ref_out_rows(op, s), cols = ref_out_cols(op, s);
    double *ad = malloc(el[0] * sizeof(double));
    double *bd = malloc(el[1] * sizeof(double));
    double *val = malloc(rows * cols * sizeof(double));
    double *absval = malloc(rows * cols * sizeof(double));
    void *a = malloc(el[0] * sizeof(double));
    void *b = malloc(el[1] * sizeof(double));
    void *c = malloc((rows * cols + 64) * sizeof(double));
    for (int d = 0; d < RB_NDTYPES; d++) {
        const rb_dtype dt = (rb_dtype)d;
        for (uint64_t i = 0; i < el[0]; i++) {
            ad[i] = harness_value(SEED, 0, i, dt);
            dt == RB_F32 ? (((float *)a)[i] = (float)ad[i])
                         : (((double *)a)[i] = ad[i]);
        }
        for (uint64_t i = 0; i < el[1]; i++) {
            bd[i] = harness_value(SEED, 1, i, dt);
            dt == RB_F32 ? (((float *)b)[i] = (float)bd[i])
                         : (((double *)b)[i] = bd[i]);
        }
        for (size_t ki = 0; ki < rb_nkernels; ki++) {
            const rb_kernel *k = &rb_kernels[ki];
            if (k->op != op)
                continue;
            k->reference(s, ad, bd, 0, rows, val, absval);
            /* Library kernels thread themselves: they get the whole
             * problem; harness kernels also get 2 and 3 shares. */
            const int maxparts = k->threading == RB_SPLIT_LIBRARY ? 1 : 3;
            for (int parts = 1; parts <= maxparts; parts++)
                CHECK(run_case(k, dt, s, parts, val, absval, a, b, c) <= 1.0);
        }
    }
    free(ad);
    free(bd);
    free(val);
    free(absval);
    free(a);
    free(b);
    free(c);
}

/* A kernel that is wrong in one output, or writes nothing, must fail. */
static void test_check_catches_errors(void)
{
    const rb_shape s = {5, 7, 3};
    double a[35], b[21], val[15], absval[15], c[15];
    for (int i = 0; i < 35; i++)
        a[i] = harness_value(SEED, 0, (uint64_t)i, RB_F64);
    for (int i = 0; i < 21; i++)
        b[i] = harness_value(SEED, 1, (uint64_t)i, RB_F64);
    ref_matmul(s, a, b, 0, 5, val, absval);
    const rb_operands x = {5, 7, 3, a, 7, b, 3, c, 3};
    rb_kernel_find("matmul_row")->fn[RB_F64](&x);
    ref_result r;
    const double tol = ref_tolerance(RB_F64, 7);
    ref_check(RB_F64, 5, 3, c, 3, val, absval, tol, &r);
    CHECK(r.passed);
    c[7] += 1e-9;
    ref_check(RB_F64, 5, 3, c, 3, val, absval, tol, &r);
    CHECK(!r.passed);
    CHECK_U64(r.worst_row, 2);
    CHECK_U64(r.worst_col, 1);
    c[7] = NAN;
    ref_check(RB_F64, 5, 3, c, 3, val, absval, tol, &r);
    CHECK(!r.passed);
    /* Random inputs are never all zero and cover both signs. */
    int neg = 0, pos = 0;
    for (int i = 0; i < 35; i++) {
        neg += a[i] < 0.0;
        pos += a[i] > 0.0;
    }
    CHECK(neg > 5 && pos > 5);
}

/* The references themselves, on numbers small enough to check by hand. */
static void test_reference_by_hand(void)
{
    double val[4], absval[4];
    const double a[] = {1, -2, 3};
    const double b[] = {4, 5, -6};
    ref_dot((rb_shape){1, 3, 1}, a, b, 0, 1, val, absval);
    CHECK(val[0] == 4 - 10 - 18 && absval[0] == 4 + 10 + 18);
    /* [2,3] x [3,2]: A = [1 -2 3; 4 5 6], B = [1 2; 3 4; 5 6] */
    const double A[] = {1, -2, 3, 4, 5, 6};
    const double B[] = {1, 2, 3, 4, 5, 6};
    ref_matmul((rb_shape){2, 3, 2}, A, B, 0, 2, val, absval);
    CHECK(val[0] == 1 - 6 + 15 && val[1] == 2 - 8 + 18);
    CHECK(val[2] == 4 + 15 + 30 && val[3] == 8 + 20 + 36);
    CHECK(absval[0] == 1 + 6 + 15);
    ref_matvec((rb_shape){2, 3, 1}, A, b, 0, 2, val, absval);
    CHECK(val[0] == 4 - 10 - 18 && val[1] == 16 + 25 - 36);
    /* batched: row 0 uses B[0:3], row 1 the next [3,1] matrix */
    const double Bb[] = {1, 3, 5, 2, 4, 6};
    ref_batched((rb_shape){2, 3, 1}, A, Bb, 0, 2, val, absval);
    CHECK(val[0] == 1 - 6 + 15 && val[1] == 8 + 20 + 36);
}

int main(void)
{
    openblas_set_num_threads(1);
    static const rb_shape shapes[] = {
        {1, 1, 1},       {3, 3, 3},     {7, 7, 7},     {31, 31, 31},
        {64, 64, 64},    {100, 100, 100}, {257, 257, 257},
        {7, 31, 100},    {100, 3, 257}, {257, 64, 1},  {1, 257, 7},
        {65, 129, 257},  {33, 1, 5},    {300, 200, 520}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        const rb_shape s = shapes[i];
        test_op(RB_OP_DOT, s);
        test_op(RB_OP_MATVEC, s);
        test_op(RB_OP_MATMUL, s);
        /* Batched holds N*P*M elements of B: keep N small for big P, M. */
        test_op(RB_OP_BATCHED,
                (rb_shape){s.p * s.m > 4096 && s.n > 9 ? 9 : s.n, s.p, s.m});
    }
    test_check_catches_errors();
    test_reference_by_hand();
    return check_status("test_kernels");
}
