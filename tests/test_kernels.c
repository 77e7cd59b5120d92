/* Every kernel and dtype against the reference on awkward shapes, called
 * whole and split into thread shares exactly as the harness splits them.
 * Also checks that the check itself catches a wrong answer. */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "host.h"
#include "ceiling.h"
#include "kernel.h"
#include "ref.h"
#include "check.h"

enum { SEED = 42 };

/* A team kernel runs on real threads that meet at a real barrier. */
typedef struct {
    const rb_kernel *k;
    rb_dtype dt;
    rb_operands x;
    rb_team team;
} member;

static void test_barrier(const rb_team *t)
{
    pthread_barrier_wait(t->barrier_ctx);
}

/* Each member calls the kernel twice, as the harness's timed calls do
 * back to back: a member that starts its next call while another still
 * finishes the last (writing C or the shared workspace under it) shows
 * as a wrong result, at least some of the time. */
static void *member_main(void *vm)
{
    member *m = vm;
    m->x.team = &m->team;
    for (int r = 0; r < 2; r++)
        m->k->fn[m->dt](&m->x);
    return NULL;
}

/* Bytes past each workspace the kernel must leave as they were: a kernel
 * that uses more than its workspace function asked for writes there. */
enum { GUARD = 256, GUARD_BYTE = 0xa5 };

static void *guarded(size_t bytes)
{
    const size_t at = (bytes + 63) / 64 * 64;
    unsigned char *p = aligned_alloc(64, at + GUARD);
    memset(p + at, GUARD_BYTE, GUARD);
    return p;
}

static int intact(const void *p, size_t bytes)
{
    const unsigned char *g = (const unsigned char *)p + (bytes + 63) / 64 * 64;
    for (size_t i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE)
            return 0;
    return 1;
}

static void run_team(const rb_kernel *k, rb_dtype dt, rb_shape s, int nt,
                     void *a, void *b, void *c)
{
    size_t shared, own;
    k->workspace(s, dt, nt, &shared, &own);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    member m[8];
    pthread_t th[8];
    void *sh = guarded(shared);
    for (int t = 0; t < nt; t++) {
        m[t].k = k;
        m[t].dt = dt;
        harness_slice(k->op, s, rb_dtype_size(dt), a, b, c, 0, 1, &m[t].x);
        m[t].team = (rb_team){.tid = t,
                              .nthreads = nt,
                              .barrier = test_barrier,
                              .barrier_ctx = &bar,
                              .shared = sh,
                              .own = guarded(own)};
        pthread_create(&th[t], NULL, member_main, &m[t]);
    }
    for (int t = 0; t < nt; t++) {
        pthread_join(th[t], NULL);
        if (!intact(m[t].team.own, own))
            fprintf(stderr, "  %s %s shape %zu,%zu,%zu: member %d wrote past "
                    "its own workspace of %zu bytes\n", k->name,
                    rb_dtype_name(dt), s.n, s.p, s.m, t, own);
        CHECK(intact(m[t].team.own, own));
        free(m[t].team.own);
    }
    if (!intact(sh, shared))
        fprintf(stderr, "  %s %s shape %zu,%zu,%zu: past the shared workspace "
                "of %zu bytes\n", k->name, rb_dtype_name(dt), s.n, s.p, s.m,
                shared);
    CHECK(intact(sh, shared));
    free(sh);
    pthread_barrier_destroy(&bar);
}

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
    if (k->threading == RB_SPLIT_TEAM) {
        run_team(k, dt, s, nparts, a, b, c);
    } else {
        for (int t = 0; t < nparts; t++) {
            rb_operands x;
            harness_slice(k->op, s, el, a, b, c, t, nparts, &x);
            k->fn[dt](&x);
        }
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

static void test_op(rb_op op, rb_shape s, const char *only)
{
    if (op == RB_OP_DOT)
        s.n = s.m = 1;
    if (op == RB_OP_MATVEC)
        s.m = 1;
    uint64_t el[3];
    rb_operand_elems(op, s, el);
    const size_t rows = ref_out_rows(op, s), cols = ref_out_cols(op, s);
    double *val = malloc(rows * cols * sizeof(double));
    double *absval = malloc(rows * cols * sizeof(double));
    void *a = malloc(el[0] * sizeof(double));
    void *b = malloc(el[1] * sizeof(double));
    void *c = malloc((rows * cols + 64) * sizeof(double));
    for (int d = 0; d < RB_NDTYPES; d++) {
        const rb_dtype dt = (rb_dtype)d;
        harness_fill(a, dt, SEED, 0, 0, el[0]);
        harness_fill(b, dt, SEED, 1, 0, el[1]);
        for (size_t ki = 0; ki < rb_nkernels; ki++) {
            const rb_kernel *k = &rb_kernels[ki];
            if (k->op != op || (only && strcmp(k->name, only) != 0))
                continue;
            k->reference(s, dt, a, b, 0, rows, val, absval);
            /* Library kernels thread themselves: they get the whole
             * problem; harness kernels also get 2 and 3 shares. */
            const int maxparts = k->threading == RB_SPLIT_LIBRARY ? 1 : 3;
            for (int parts = 1; parts <= maxparts; parts++)
                CHECK(run_case(k, dt, s, parts, val, absval, a, b, c) <= 1.0);
        }
    }
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
    harness_fill(a, RB_F64, SEED, 0, 0, 35);
    harness_fill(b, RB_F64, SEED, 1, 0, 21);
    ref_matmul(s, RB_F64, a, b, 0, 5, val, absval);
    const rb_operands x = {.n = 5, .p = 7, .m = 3, .a = a, .lda = 7, .b = b,
                           .ldb = 3, .c = c, .ldc = 3, .team = NULL};
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
    ref_dot((rb_shape){1, 3, 1}, RB_F64, a, b, 0, 1, val, absval);
    CHECK(val[0] == 4 - 10 - 18 && absval[0] == 4 + 10 + 18);
    /* f32 inputs are read as floats: 0.1f is not 0.1 */
    const float af[] = {0.1f, 2, 3}, bf[] = {1, 0.5f, -0.25f};
    ref_dot((rb_shape){1, 3, 1}, RB_F32, af, bf, 0, 1, val, absval);
    CHECK(val[0] == (double)0.1f + 1.0 - 0.75 && val[0] != 0.1 + 1.0 - 0.75);
    /* and an f32 matmul row (summed in double): [1,3] x [3,2] */
    const float bf2[] = {1, 2, 0.5f, 1, -0.25f, 1};
    ref_matmul((rb_shape){1, 3, 2}, RB_F32, af, bf2, 0, 1, val, absval);
    CHECK(val[0] == (double)0.1f + 0.25 && val[0] != 0.1 + 0.25);
    CHECK(val[1] == 2.0 * (double)0.1f + 5.0);
    CHECK(absval[0] == (double)0.1f + 1.75);
    /* [2,3] x [3,2]: A = [1 -2 3; 4 5 6], B = [1 2; 3 4; 5 6] */
    const double A[] = {1, -2, 3, 4, 5, 6};
    const double B[] = {1, 2, 3, 4, 5, 6};
    ref_matmul((rb_shape){2, 3, 2}, RB_F64, A, B, 0, 2, val, absval);
    CHECK(val[0] == 1 - 6 + 15 && val[1] == 2 - 8 + 18);
    CHECK(val[2] == 4 + 15 + 30 && val[3] == 8 + 20 + 36);
    CHECK(absval[0] == 1 + 6 + 15);
    ref_matvec((rb_shape){2, 3, 1}, RB_F64, A, b, 0, 2, val, absval);
    CHECK(val[0] == 4 - 10 - 18 && val[1] == 16 + 25 - 36);
    /* batched: row 0 uses B[0:3], row 1 the next [3,1] matrix */
    const double Bb[] = {1, 3, 5, 2, 4, 6};
    ref_batched((rb_shape){2, 3, 1}, RB_F64, A, Bb, 0, 2, val, absval);
    CHECK(val[0] == 1 - 6 + 15 && val[1] == 8 + 20 + 36);
}

/* The fill (eight elements at a time where the CPU has AVX-512DQ) gives
 * harness_value's numbers, element for element, in both dtypes, from an
 * odd start and over an odd count (the vector loop's remainder). */
static void test_fill_values(void)
{
    enum { N = 1000 };
    const uint64_t lo = 12345;
    float f[N];
    double d[N];
    for (int which = 0; which < 2; which++) {
        harness_fill(f, RB_F32, SEED, which, lo + 3, lo + 3 + N - 7);
        harness_fill(d, RB_F64, SEED, which, lo, lo + N);
        int same32 = 1, same64 = 1;
        for (int i = 0; i < N - 7; i++)
            same32 &= (double)f[i] ==
                      harness_value(SEED, which, lo + 3 + (uint64_t)i, RB_F32);
        for (int i = 0; i < N; i++)
            same64 &=
                d[i] == harness_value(SEED, which, lo + (uint64_t)i, RB_F64);
        CHECK(same32);
        CHECK(same64);
    }
}

/* An f64 matmul row is summed exactly where double alone loses all of it:
 * (1 + 2^-30)^2 - (1 + 2^-29) = 2^-60, whose product rounds the 2^-60
 * away in double, and 1e17 + 1 - 1e17 = 1, whose first sum does; in the
 * order 1 + 1e17 - 1e17 too, where the running sum is smaller than the
 * term it takes (Fast2Sum, which assumes the opposite, loses the 1); every
 * column of a row that is wider than a vector, the remainder's too. Only
 * the clone the CPU picks runs (with an FMA: the hardware's; the other
 * calls glibc's fma). */
static void test_reference_exact_sums(void)
{
    enum { M = 11 };
    const double u = ldexp(1.0, -30), a[] = {1 + u, -1};
    double b[2 * M], val[M], absval[M];
    for (int j = 0; j < M; j++) {
        b[j] = 1 + u;
        b[M + j] = 1 + 2 * u;
    }
    ref_matmul((rb_shape){1, 2, M}, RB_F64, a, b, 0, 1, val, absval);
    for (int j = 0; j < M; j++) /* |products| rounded: 2 (1 + 2^-29) */
        CHECK(val[j] == ldexp(1.0, -60) && absval[j] == 2 + 4 * u);
    const double a3[] = {1, 1, 1};
    double b3[3 * M];
    for (int j = 0; j < M; j++) {
        b3[j] = 1e17;
        b3[M + j] = 1;
        b3[2 * M + j] = -1e17;
    }
    ref_matmul((rb_shape){1, 3, M}, RB_F64, a3, b3, 0, 1, val, absval);
    for (int j = 0; j < M; j++) /* 2e17 + 1 is 2e17 in double */
        CHECK(val[j] == 1.0 && absval[j] == 2e17);
    for (int j = 0; j < M; j++) {
        b3[j] = 1;
        b3[M + j] = 1e17;
    }
    ref_matmul((rb_shape){1, 3, M}, RB_F64, a3, b3, 0, 1, val, absval);
    for (int j = 0; j < M; j++)
        CHECK(val[j] == 1.0);
    /* and batched, whose rows take the same path */
    ref_batched((rb_shape){1, 3, M}, RB_F64, a3, b3, 0, 1, val, absval);
    CHECK(val[0] == 1.0 && val[M - 1] == 1.0);
}

/* A problem's memory at its peak: the reference's results and the larger
 * of its inputs (freed before the operands are mapped) and the operands,
 * worked out by hand. */
static void test_problem_bytes(void)
{
    uint64_t b = 0;
    /* matmul [2,1000] x [1000,1000] f32, every row kept: operands
     * (2000 + 1e6 + 2000) x 4, reference inputs (2000 + 1e6) x 4, results
     * 2000 x 2 doubles */
    CHECK(harness_problem_bytes(RB_OP_MATMUL, (rb_shape){2, 1000, 1000},
                                RB_F32, 1, 0, &b) == 0);
    CHECK_U64(b, 4016000 + 32000);
    /* batched, 4 rows of [100] x [100,50] f64, 2 rows kept: operands
     * (400 + 20000 + 200) x 8; inputs 2 x (5000 + 100) x 8; results
     * 2 x 50 x 16 */
    CHECK(harness_problem_bytes(RB_OP_BATCHED, (rb_shape){4, 100, 50},
                                RB_F64, 2, 2, &b) == 0);
    CHECK_U64(b, 164800 + 1600);
    /* too large to count */
    CHECK(harness_problem_bytes(RB_OP_BATCHED,
                                (rb_shape){1u << 31, 1u << 31, 1u << 31},
                                RB_F64, 1, 2, &b) == -1);
}

/* The blocked matmul against OpenBLAS on the same inputs. */
static void test_blocked_vs_openblas(rb_shape s)
{
    const rb_kernel *blk = rb_kernel_find("matmul_blocked");
    const rb_kernel *ob = rb_kernel_find("matmul_openblas");
    for (int d = 0; d < RB_NDTYPES; d++) {
        const rb_dtype dt = (rb_dtype)d;
        const size_t el = rb_dtype_size(dt);
        char *a = malloc(s.n * s.p * el), *b = malloc(s.p * s.m * el);
        char *c1 = malloc(s.n * s.m * el), *c2 = malloc(s.n * s.m * el);
        harness_fill(a, dt, 3, 0, 0, s.n * s.p);
        harness_fill(b, dt, 3, 1, 0, s.p * s.m);
        run_team(blk, dt, s, 2, a, b, c1);
        rb_operands x;
        harness_slice(RB_OP_MATMUL, s, el, a, b, c2, 0, 1, &x);
        ob->fn[dt](&x);
        double worst = 0.0;
        for (size_t i = 0; i < s.n * s.m; i++) {
            const double u = dt == RB_F32 ? ((float *)c1)[i] : ((double *)c1)[i];
            const double v = dt == RB_F32 ? ((float *)c2)[i] : ((double *)c2)[i];
            worst = fmax(worst, fabs(u - v) / (double)s.p);
        }
        /* |a_ik b_kj| < 1, so both are within P eps of the truth */
        CHECK(worst <= 2.0 * ref_tolerance(dt, s.p));
        free(a);
        free(b);
        free(c1);
        free(c2);
    }
}

/* An L3 claimed beyond RB_CACHE_PER_CORE_MAX a core (a guest told of its
 * host's whole L3) blocks as a missing one does; one at the bound is
 * believed. */
static void test_implausible_cache(unsigned isa)
{
    const size_t claims[] = {0, RB_CACHE_PER_CORE_MAX + 1,
                             (size_t)252 << 20, RB_CACHE_PER_CORE_MAX};
    size_t nc[4][RB_NDTYPES];
    for (int i = 0; i < 4; i++) {
        const rb_config cfg = {
            .isa = isa, .l1d = 48 << 10, .l2 = 2 << 20, .l3 = claims[i]};
        rb_configure(&cfg);
        for (int d = 0; d < RB_NDTYPES; d++) {
            rb_blocking b;
            rb_blocking_of((rb_dtype)d, &b);
            nc[i][d] = b.nc;
        }
    }
    for (int d = 0; d < RB_NDTYPES; d++) {
        CHECK(nc[1][d] == nc[0][d]);
        CHECK(nc[2][d] == nc[0][d]);
        CHECK(nc[3][d] > nc[0][d]);
    }
    const rb_config def = {.isa = isa};
    rb_configure(&def);
}

/* The blocked matmul over shapes that cross KC, MC and NC and take the
 * skinny path, the SIMD dot and matvec, and the blocked matmul against
 * OpenBLAS, all under the code path and caches of cfg. */
static void test_blocked_on_path(const rb_config *cfg)
{
    rb_configure(cfg);
    rb_blocking bk;
    rb_blocking_of(RB_F64, &bk);
    printf("matmul_blocked path %s, KC %zu MC %zu NC %zu\n", bk.path, bk.kc,
           bk.mc, bk.nc);
    /* rows past MC with W within half of L2: the SIMD paths only */
    CHECK_INT(bk.skinny_in_l2, strcmp(bk.path, "portable") != 0);
    static const rb_shape blocked_shapes[] = {
        {1, 1, 1},     {7, 7, 7},      {33, 33, 33},
        {255, 255, 255}, {257, 257, 257}, {300, 200, 520},
        {9, 70, 1100}, {61, 1, 45},    {1000, 17, 3},
        {1000, 1000, 130}, {130, 1000, 1000},
        /* W past half of L2 in both dtypes: the packed path at these
         * rows (with W within, the SIMD paths take the skinny one) */
        {400, 600, 520},
        /* and within it, rows past MC (the skinny path with the larger
         * caches, C blocks of two strips or more, full strips and a right
         * edge, each member's C block its own; past the rows a strip of C
         * may have with the small ones: packed) */
        {1000, 24, 300},
        /* the skinny path: one row group (in place), a partial one, several
         * (packed), P across skb blocks, M not a whole number of strips */
        {6, 500, 129}, {5, 97, 64}, {12, 97, 64}, {13, 300, 65},
        {2, 1025, 33}};
    for (size_t i = 0; i < sizeof(blocked_shapes) / sizeof(blocked_shapes[0]);
         i++)
        test_op(RB_OP_MATMUL, blocked_shapes[i], "matmul_blocked");
    test_op(RB_OP_DOT, (rb_shape){1, 1000, 1}, "dot_simd");
    test_op(RB_OP_DOT, (rb_shape){1, 77, 1}, "dot_simd");
    test_op(RB_OP_MATVEC, (rb_shape){37, 1003, 1}, "matvec_simd");
    test_op(RB_OP_MATVEC, (rb_shape){5, 7, 1}, "matvec_simd");
    /* eight rows, four, one; P past a whole vector chunk */
    test_op(RB_OP_MATVEC, (rb_shape){13, 48, 1}, "matvec_simd");
    test_blocked_vs_openblas((rb_shape){130, 257, 100});
    /* and a team of two past the skinny path's rows in both dtypes: the
     * packed path's team */
    rb_blocking b32;
    rb_blocking_of(RB_F32, &b32);
    const size_t n64 = rb_skinny_rows(&bk, 8, 257, 100, 2),
                 n32 = rb_skinny_rows(&b32, 4, 257, 100, 2);
    test_blocked_vs_openblas((rb_shape){(n64 > n32 ? n64 : n32) + 3, 257, 100});
}

/* The skinny path's rows: MC (skinny_max) at one thread, 4 MC with W
 * beyond L3 (strictly; an L3 of 0 is unknown), 2 MC in a team where each
 * member gets two strips or more, and MC in a team with fewer; on the
 * SIMD paths with W's share within sc_bytes, if more, the fewer of the
 * rows of A that half of L3 holds and of a strip of C that half of
 * sc_bytes holds. */
static void test_skinny_rows(void)
{
    rb_blocking b = {.skinny_max = 100, .sw = 16, .l3_bytes = 1 << 20};
    CHECK_INT(rb_skinny_rows(&b, 4, 100, 100, 1), 100);
    CHECK_INT(rb_skinny_rows(&b, 4, 512, 512, 1), 100); /* 1 MiB: within */
    CHECK_INT(rb_skinny_rows(&b, 4, 512, 513, 1), 400);
    CHECK_INT(rb_skinny_rows(&b, 4, 100, 64, 2), 200); /* 2 strips a member */
    CHECK_INT(rb_skinny_rows(&b, 4, 100, 48, 2), 100); /* 3 strips */
    CHECK_INT(rb_skinny_rows(&b, 4, 100, 80, 3), 100); /* 5 strips for 3 */
    CHECK_INT(rb_skinny_rows(&b, 4, 100, 96, 3), 200);
    CHECK_INT(rb_skinny_rows(&b, 8, 4096, 64, 2), 400); /* beyond, 4 strips */
    CHECK_INT(rb_skinny_rows(&b, 8, 65536, 16, 2), 100); /* beyond, 1 strip */
    b.l3_bytes = 0;
    CHECK_INT(rb_skinny_rows(&b, 4, 4096, 4096, 1), 100);
    /* on a SIMD path, W's share within sc_bytes: as many rows as half of
     * L3 holds of A (P elements a row) and half of sc_bytes of a strip of
     * C (sw elements), where that is more */
    rb_blocking s = {.skinny_max = 100, .sw = 16, .l3_bytes = 1 << 20,
                     .sc_bytes = 64 << 10, .skinny_in_l2 = 1};
    CHECK_INT(rb_skinny_rows(&s, 4, 128, 128, 1), 512); /* 64 KiB: within */
    CHECK_INT(rb_skinny_rows(&s, 4, 128, 129, 1), 100);  /* past it */
    CHECK_INT(rb_skinny_rows(&s, 4, 128, 256, 2), 512); /* a member's */
    CHECK_INT(rb_skinny_rows(&s, 4, 128, 257, 2), 200);
    CHECK_INT(rb_skinny_rows(&s, 8, 64, 32, 4), 100); /* 2 strips for 4 */
    CHECK_INT(rb_skinny_rows(&s, 4, 2048, 8, 1), 100); /* A: 64 rows */
    CHECK_INT(rb_skinny_rows(&s, 4, 1024, 16, 1), 128); /* A: 128 */
    CHECK_INT(rb_skinny_rows(&s, 8, 256, 32, 1), 256);  /* both 256 */
    CHECK_INT(rb_skinny_rows(&s, 8, 16, 16, 1), 256);   /* C: 256 */
    CHECK_INT(rb_skinny_rows(&s, 4, 100, 64, 1), 512);  /* A: 1310.72 */
    CHECK_INT(rb_skinny_rows(&s, 4, 300, 16, 1), 436);  /* A: 436.9 */
    s.l3_bytes = 0; /* not known: no rows from it */
    CHECK_INT(rb_skinny_rows(&s, 4, 128, 128, 1), 100);
    s.l3_bytes = 1 << 20;
    s.skinny_in_l2 = 0; /* the portable path */
    CHECK_INT(rb_skinny_rows(&s, 4, 128, 128, 1), 100);
}

/* The skinny path's next-block order under cfg: the blocked matmul matches
 * the reference, and with the small caches every shape is planned that way. */
static void test_skinny_next_block(const rb_config *cfg, int small_caches)
{
    /* The skinny path's other order, for W beyond L3 (the small caches put
     * these there, in both dtypes, at one thread): one row group (64-row
     * blocks at one thread) and more (192), P across blocks, the next block
     * in the next columns, M not a whole number of strips. */
    rb_config next = *cfg;
    next.skinny_order = RB_SKINNY_NEXT_BLOCK;
    rb_configure(&next);
    static const rb_shape next_shapes[] = {
        {3, 1100, 300}, {6, 1000, 301}, {13, 1000, 300},
        {40, 700, 500}, {17, 300, 1100},
        /* a last block of 3 rows: fewer steps than C tile lines */
        {6, 1027, 301}};
    for (size_t i = 0; i < sizeof(next_shapes) / sizeof(next_shapes[0]); i++) {
        const rb_shape s = next_shapes[i];
        for (int d = 0; small_caches && d < RB_NDTYPES; d++) {
            rb_blocking nb;
            rb_blocking_of((rb_dtype)d, &nb);
            rb_skinny_plan plan;
            rb_skinny_plan_of(&nb, rb_dtype_size((rb_dtype)d), s.n, s.p, s.m,
                              s.m, 1, &plan);
            CHECK(s.n <= nb.skinny_max && plan.far &&
                  plan.order == RB_SKINNY_NEXT_BLOCK &&
                  plan.skb == (s.n <= RB_SKINNY_ROWS ? 64u : 192u) &&
                  plan.jc < s.m && plan.c_tile);
        }
        test_op(RB_OP_MATMUL, s, "matmul_blocked");
    }
}

/* The run kernels under cfg: one or two rows with W beyond L2 (the
 * small caches put these there in both dtypes) take them, in either
 * order, and match the reference: P from 1 to 3 past a multiple of four
 * (the last rows in plain C) and a multiple of it, M
 * not a whole number of lines, wider than a C block (two blocks) and
 * narrower than the lines asked for ahead; 3 rows do not take them. */
static void test_skinny_runs(const rb_config *cfg, int small_caches)
{
    static const rb_shape runs_shapes[] = {
        {1, 1100, 300}, {2, 1025, 301}, {2, 7, 9000},
        {1, 4, 20000},  {2, 2000, 40},  {1, 1, 70000},
        {1, 1030, 333}, {2, 6, 12000},
        /* both kinds of request in one call: lines ahead in the runs and
         * the next four rows' first lines (kb of 8 or more, the runs
         * longer than 4 KiB) */
        {2, 13, 5000}};
    for (int o = 0; o < 2; o++) {
        rb_config pc = *cfg;
        pc.skinny_order = o ? RB_SKINNY_NEXT_BLOCK : RB_SKINNY_STRIPS;
        rb_configure(&pc);
        for (size_t i = 0; i < sizeof(runs_shapes) / sizeof(runs_shapes[0]);
             i++) {
            const rb_shape s = runs_shapes[i];
            for (int d = 0; small_caches && d < RB_NDTYPES; d++) {
                rb_blocking pb;
                rb_blocking_of((rb_dtype)d, &pb);
                rb_skinny_plan plan;
                rb_skinny_plan_of(&pb, rb_dtype_size((rb_dtype)d), s.n, s.p,
                                  s.m, s.m, 1, &plan);
                CHECK(plan.far && plan.runs && plan.skb == 4 &&
                      plan.order == RB_SKINNY_STRIPS);
                /* and so for a member of two, on half the columns */
                rb_skinny_plan_of(&pb, rb_dtype_size((rb_dtype)d), s.n, s.p,
                                  s.m / 2, s.m, 2, &plan);
                CHECK(plan.far == plan.runs);
                rb_skinny_plan_of(&pb, rb_dtype_size((rb_dtype)d), 3, s.p,
                                  s.m, s.m, 1, &plan);
                CHECK(plan.far && !plan.runs);
            }
            test_op(RB_OP_MATMUL, s, "matmul_blocked");
        }
    }
    rb_configure(cfg);
}

/* Every kernel of every operation (dot, matvec, matmul, batched) on shapes
 * from 1 to 520 a side, under the full code path and the default cache
 * sizes. */
static void test_every_op(unsigned isa)
{
    const rb_config def = {.isa = isa};
    rb_configure(&def);
    static const rb_shape shapes[] = {
        {1, 1, 1},       {3, 3, 3},     {7, 7, 7},     {31, 31, 31},
        {64, 64, 64},    {100, 100, 100}, {257, 257, 257},
        {7, 31, 100},    {100, 3, 257}, {257, 64, 1},  {1, 257, 7},
        {65, 129, 257},  {33, 1, 5},    {300, 200, 520}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        const rb_shape s = shapes[i];
        test_op(RB_OP_DOT, s, NULL);
        test_op(RB_OP_MATVEC, s, NULL);
        test_op(RB_OP_MATMUL, s, NULL);
        /* Batched holds N*P*M elements of B: keep N small for big P, M. */
        test_op(RB_OP_BATCHED,
                (rb_shape){s.p * s.m > 4096 && s.n > 9 ? 9 : s.n, s.p, s.m},
                NULL);
    }
}

/* The strips' W block depth from beyond L2 under cfg's small caches: at
 * most 32 rows up to the configured row groups (6 by default, and on the
 * paths other than AVX-512's), twice skb from one group more; and both
 * depths match the reference. */
static void test_skinny_depth(const rb_config *cfg)
{
    static const size_t counts[] = {0, 3};
    for (size_t c = 0; c < 2; c++) {
        rb_config dc = *cfg;
        dc.skinny_order = RB_SKINNY_STRIPS;
        dc.shallow_groups = counts[c];
        rb_configure(&dc);
        for (int d = 0; d < RB_NDTYPES; d++) {
            rb_blocking b;
            rb_blocking_of((rb_dtype)d, &b);
            const size_t groups =
                counts[c] && strcmp(b.path, "avx512") == 0 ? counts[c] : 6;
            const size_t el = rb_dtype_size((rb_dtype)d),
                         last = groups * RB_SKINNY_ROWS;
            rb_skinny_plan plan;
            CHECK(b.shallow_groups == groups);
            rb_skinny_plan_of(&b, el, last, 1000, 300, 300, 1, &plan);
            CHECK(plan.far && !plan.runs &&
                  plan.skb == (b.skb < 32 ? b.skb : 32));
            rb_skinny_plan_of(&b, el, last + 1, 1000, 300, 300, 1, &plan);
            CHECK(plan.far && !plan.runs && plan.skb == 2 * b.skb);
            /* a blocking that does not say (0), as the cachegrind child's
             * line before it named the count: the default, six */
            rb_blocking unsaid = b;
            unsaid.shallow_groups = 0;
            rb_skinny_plan_of(&unsaid, el, 6 * RB_SKINNY_ROWS, 1000, 300, 300,
                              1, &plan);
            CHECK(plan.skb == (b.skb < 32 ? b.skb : 32));
            rb_skinny_plan_of(&unsaid, el, 6 * RB_SKINNY_ROWS + 1, 1000, 300,
                              300, 1, &plan);
            CHECK(plan.skb == 2 * b.skb);
            /* rows of W a multiple of 2 KiB apart, with the strips ahead
             * into L1: skb rows from two groups on, 32 rows for one; 1
             * KiB apart, or without those requests, 32 rows */
            const size_t k2 = 2048 / el;
            rb_blocking al = b;
            al.skb = 96;
            al.far_to_l1 = 1;
            rb_skinny_plan_of(&al, el, RB_SKINNY_ROWS + 1, 1000, 300, 3 * k2,
                              1, &plan);
            CHECK(plan.far && plan.skb == 96);
            rb_skinny_plan_of(&al, el, RB_SKINNY_ROWS, 1000, 300, 3 * k2, 1,
                              &plan);
            CHECK(plan.skb == 32);
            /* and the strip asked for: the next one for one row group
             * with those requests, the one after it otherwise */
            CHECK(plan.ahead == 1);
            rb_skinny_plan_of(&al, el, RB_SKINNY_ROWS + 1, 1000, 300, 300, 1,
                              &plan);
            CHECK(plan.ahead == 2);
            /* no C tile asked for where the strips go ahead into L1 */
            CHECK(!plan.c_tile);
            rb_skinny_plan_of(&al, el, RB_SKINNY_ROWS + 1, 1000, 300, k2 / 2,
                              1, &plan);
            CHECK(plan.skb == 32);
            al.far_to_l1 = 0;
            rb_skinny_plan_of(&al, el, RB_SKINNY_ROWS + 1, 1000, 300, 3 * k2,
                              1, &plan);
            CHECK(plan.skb == 32);
            rb_skinny_plan_of(&al, el, 1 + RB_SKINNY_ROWS / 2, 1000, 300, 300,
                              1, &plan);
            CHECK(plan.far && !plan.runs && plan.ahead == 2 && plan.c_tile);
        }
        test_op(RB_OP_MATMUL, (rb_shape){19, 1000, 300}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){18, 1001, 301}, "matmul_blocked");
        /* W's rows 2 or 4 KiB apart, with blocks of L1/2 (96 rows with
         * AVX-512's strips of 256 bytes) deeper than 32: the kernel plans
         * them and computes right */
        rb_config ac = dc;
        ac.l1d = 48 << 10;
        ac.far_to_l1 = 1;
        rb_configure(&ac);
        for (int d = 0; d < RB_NDTYPES; d++) {
            rb_blocking b;
            rb_blocking_of((rb_dtype)d, &b);
            if (!b.far_to_l1)
                continue;
            rb_skinny_plan plan;
            rb_skinny_plan_of(&b, rb_dtype_size((rb_dtype)d), 12, 1000, 512,
                              512, 1, &plan);
            CHECK(b.skb > 32 && plan.far && plan.skb == b.skb);
        }
        test_op(RB_OP_MATMUL, (rb_shape){12, 1000, 512}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){12, 1000, 520}, "matmul_blocked");
        /* one row group, the next strip asked for: full strips, an edge
         * one, and one strip only */
        test_op(RB_OP_MATMUL, (rb_shape){5, 1000, 300}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){4, 1001, 301}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){6, 3000, 70}, "matmul_blocked");
        rb_configure(&dc);
    }
    rb_configure(cfg);
}

/* W within L3 on a configuration that reads it as from L2 up to three
 * row groups (quiet_l3_groups, AVX-512 only): no requests and L2's blocks
 * up to 18 rows, the strips' requests and their 32-row blocks from 19,
 * the run kernels for one or two rows whatever the count, and the
 * requests again where the team's whole W passes l3_bytes; the kernel
 * computes right on both sides of each bound. An L1 of 48 KiB makes L2's
 * blocks (L1/2: 96 rows of 256 bytes) deeper than the strips' 32. */
static void test_skinny_quiet(const rb_config *cfg)
{
    rb_config qc = *cfg;
    qc.quiet_l3_groups = 3;
    qc.l1d = 48 << 10;
    rb_configure(&qc);
    for (int d = 0; d < RB_NDTYPES; d++) {
        rb_blocking b;
        rb_blocking_of((rb_dtype)d, &b);
        if (strcmp(b.path, "avx512") != 0) {
            CHECK(b.quiet_l3_groups == 0);
            continue;
        }
        CHECK(b.quiet_l3_groups == 3);
        const size_t el = rb_dtype_size((rb_dtype)d), cols = 64;
        /* a share of half of L3: beyond L2 (twice sc_bytes), within L3 */
        const size_t p = b.l3_bytes / 2 / (cols * el);
        CHECK((double)p * cols * el > 2.0 * (double)b.sc_bytes);
        rb_skinny_plan plan;
        rb_skinny_plan_of(&b, el, 3 * RB_SKINNY_ROWS, p, cols, cols, 1, &plan);
        CHECK(b.skb > 32);
        CHECK(!plan.far && !plan.runs && plan.skb == b.skb &&
              plan.order == RB_SKINNY_STRIPS);
        rb_skinny_plan_of(&b, el, 3 * RB_SKINNY_ROWS + 1, p, cols, cols, 1,
                          &plan);
        CHECK(plan.far && !plan.runs && plan.skb == 32);
        rb_skinny_plan_of(&b, el, 2, p, cols, cols, 1, &plan);
        CHECK(plan.far && plan.runs);
        /* two members' shares fill L3 exactly, three pass it */
        rb_skinny_plan_of(&b, el, 12, p, cols, cols, 2, &plan);
        CHECK(!plan.far);
        rb_skinny_plan_of(&b, el, 12, p, cols, cols, 3, &plan);
        CHECK(plan.far);
        rb_skinny_plan_of(&b, el, 12, 4 * p, cols, cols, 1, &plan);
        CHECK(plan.far);
        /* as the configuration not saying */
        b.quiet_l3_groups = 0;
        rb_skinny_plan_of(&b, el, 12, p, cols, cols, 1, &plan);
        CHECK(plan.far);
    }
    /* W of 1.02 MB within the 1 MiB L3 in f32, past it in f64; of 0.5
     * and 1 MB within it in both; a right edge (131 columns); 19 rows */
    test_op(RB_OP_MATMUL, (rb_shape){18, 2000, 128}, "matmul_blocked");
    test_op(RB_OP_MATMUL, (rb_shape){18, 1000, 128}, "matmul_blocked");
    test_op(RB_OP_MATMUL, (rb_shape){13, 900, 131}, "matmul_blocked");
    test_op(RB_OP_MATMUL, (rb_shape){19, 1000, 128}, "matmul_blocked");
    rb_configure(cfg);
}

/* Past the shallow row groups on a configuration that sets deep_blocks
 * (AVX-512 only): W blocks deep_blocks skb deep from beyond L2 and within
 * it, the shallow groups' blocks as before, the defaults (twice skb
 * beyond L2, skb within) where the blocking does not say or on another
 * path; the workspace's deepest block covers them, and the kernel
 * computes right with them. With an L1 of 48 KiB (skb 96 rows of 256
 * bytes) the deep blocks, 384 rows, pass the next-block order's 192, so
 * the right edge's copy needs the deeper workspace. */
static void test_skinny_deep(const rb_config *cfg)
{
    static const size_t l1s[] = {0, 48 << 10};
    for (size_t li = 0; li < 2; li++) {
        rb_config dc = *cfg;
        dc.skinny_order = RB_SKINNY_STRIPS;
        dc.shallow_groups = 3;
        dc.deep_blocks = 4;
        if (l1s[li])
            dc.l1d = l1s[li];
        rb_configure(&dc);
        for (int d = 0; d < RB_NDTYPES; d++) {
            rb_blocking b;
            rb_blocking_of((rb_dtype)d, &b);
            const size_t el = rb_dtype_size((rb_dtype)d);
            rb_skinny_plan plan;
            if (strcmp(b.path, "avx512") != 0) {
                CHECK(b.deep_blocks == 0);
                rb_skinny_plan_of(&b, el, 6 * RB_SKINNY_ROWS + 1, 1000, 300,
                                  300, 1, &plan);
                CHECK(plan.far && plan.skb == 2 * b.skb);
                continue;
            }
            CHECK(b.deep_blocks == 4 && b.shallow_groups == 3);
            if (l1s[li])
                CHECK(b.skb == 96 && rb_skinny_deepest(&b) == 384);
            const size_t last = 3 * RB_SKINNY_ROWS;
            /* W of 1000 x 300 beyond the small L2 */
            rb_skinny_plan_of(&b, el, last, 1000, 300, 300, 1, &plan);
            CHECK(plan.far && !plan.runs &&
                  plan.skb == (b.skb < 32 ? b.skb : 32));
            rb_skinny_plan_of(&b, el, last + 1, 1000, 300, 300, 1, &plan);
            CHECK(plan.far && !plan.runs && plan.skb == 4 * b.skb);
            CHECK(rb_skinny_deepest(&b) >= 4 * b.skb);
            /* W of 40 x 300 within it (twice sc_bytes) */
            CHECK(40.0 * 300 * (double)el <= 2.0 * (double)b.sc_bytes);
            rb_skinny_plan_of(&b, el, last, 40, 300, 300, 1, &plan);
            CHECK(!plan.far && plan.skb == b.skb);
            rb_skinny_plan_of(&b, el, last + 1, 40, 300, 300, 1, &plan);
            CHECK(!plan.far && plan.skb == 4 * b.skb);
            /* one row group within L2: the deepest blocks; two groups,
             * or one beyond L2, not */
            rb_skinny_plan_of(&b, el, RB_SKINNY_ROWS, 40, 300, 300, 1, &plan);
            CHECK(!plan.far && plan.skb == rb_skinny_deepest(&b));
            rb_skinny_plan_of(&b, el, RB_SKINNY_ROWS + 1, 40, 300, 300, 1,
                              &plan);
            CHECK(!plan.far && plan.skb == b.skb);
            rb_skinny_plan_of(&b, el, 3, 1000, 300, 300, 1, &plan);
            CHECK(plan.far && plan.skb != rb_skinny_deepest(&b));
            /* a blocking that does not say: the defaults */
            rb_blocking unsaid = b;
            unsaid.deep_blocks = 0;
            rb_skinny_plan_of(&unsaid, el, last + 1, 1000, 300, 300, 1, &plan);
            CHECK(plan.far && plan.skb == 2 * b.skb);
            rb_skinny_plan_of(&unsaid, el, last + 1, 40, 300, 300, 1, &plan);
            CHECK(!plan.far && plan.skb == b.skb);
            rb_skinny_plan_of(&unsaid, el, 3, 40, 300, 300, 1, &plan);
            CHECK(!plan.far && plan.skb == b.skb);
        }
        /* deep blocks beyond L2: full ones, a short last one and a right
         * edge, at 1 and 2 threads (test_op's teams); within L2; and the
         * shallow side of the bound */
        test_op(RB_OP_MATMUL, (rb_shape){19, 1000, 300}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){25, 1001, 301}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){24, 40, 300}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){19, 150, 131}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){18, 1000, 300}, "matmul_blocked");
        /* one group within L2: blocks deeper than P, and P past the
         * deepest block with a right edge */
        test_op(RB_OP_MATMUL, (rb_shape){1, 40, 300}, "matmul_blocked");
        test_op(RB_OP_MATMUL, (rb_shape){5, 400, 131}, "matmul_blocked");
    }
    rb_configure(cfg);
}

/* C blocks beside a pass of W in the strip order, two to shallow_groups
 * row groups, W beyond L2, the strips ahead into L1 (the AVX-512 path):
 * whole strips, as even as strips allow, that a quarter of L2 holds
 * with 32 rows of W, whatever W's stride; the requests wrapping into the
 * next block. Not with one group, past shallow_groups, nor where the
 * strips go ahead into L2. Then the products themselves: many blocks, a
 * short last block of rows, a right edge, at 1 and 2 threads. */
static void test_skinny_c_blocks(const rb_config *cfg)
{
    rb_config dc = *cfg;
    dc.skinny_order = RB_SKINNY_STRIPS;
    dc.shallow_groups = 3;
    dc.far_to_l1 = 1;
    /* an L1 whose half holds 64 rows of a strip: skb 64, so that rows
     * that alias take deeper blocks than the 32 others take */
    dc.l1d = 32 << 10;
    rb_configure(&dc);
    for (int d = 0; d < RB_NDTYPES; d++) {
        rb_blocking b;
        rb_blocking_of((rb_dtype)d, &b);
        const size_t el = rb_dtype_size((rb_dtype)d), sw = b.sw;
        rb_skinny_plan plan, wide;
        for (size_t n = 1; n <= 4 * RB_SKINNY_ROWS; n++) {
            const size_t groups = (n + RB_SKINNY_ROWS - 1) / RB_SKINNY_ROWS;
            rb_skinny_plan_of(&b, el, n, 1000, 1500, 1500, 1, &plan);
            CHECK(plan.far && !plan.runs == (n > 2));
            const int rule = strcmp(b.path, "avx512") == 0 && groups > 1 &&
                             groups <= 3;
            CHECK_INT(plan.wrap, rule);
            if (!rule)
                continue;
            /* the widest a quarter of L2 holds with a pass of W, at
             * least a strip, and the fewest blocks of at most that */
            const size_t pass = b.skb < 32 ? b.skb : 32;
            size_t most = b.sc_bytes / 2 / ((n + pass) * el) / sw * sw;
            if (most < sw)
                most = sw;
            if (plan.jc % sw || plan.jc > most ||
                (1500 + plan.jc - 1) / plan.jc != (1500 + most - 1) / most)
                fprintf(stderr, "n %zu: jc %zu, most %zu, sw %zu\n", n,
                        plan.jc, most, sw);
            CHECK_INT(plan.jc % sw, 0);
            CHECK(plan.jc <= most);
            CHECK_INT((1500 + plan.jc - 1) / plan.jc, (1500 + most - 1) / most);
            /* whatever the stride: rows 8 or 16 KiB apart take deeper
             * blocks, not other C blocks */
            CHECK(b.skb > 32);
            rb_skinny_plan_of(&b, el, n, 1000, 1500, 2048, 1, &wide);
            CHECK(wide.skb > plan.skb);
            CHECK_INT(wide.jc, plan.jc);
            rb_skinny_plan_of(&b, el, n, 1000, 1500, 1500, 2, &wide);
            CHECK_INT(wide.jc, plan.jc);
        }
        /* the strips ahead into L2: all the columns in one C block */
        rb_config l2c = dc;
        l2c.far_to_l1 = 0;
        rb_configure(&l2c);
        rb_blocking_of((rb_dtype)d, &b);
        rb_skinny_plan_of(&b, el, 12, 1000, 1500, 1500, 1, &plan);
        CHECK(plan.far && !plan.wrap);
        rb_configure(&dc);
    }
    test_op(RB_OP_MATMUL, (rb_shape){12, 1000, 1500}, "matmul_blocked");
    test_op(RB_OP_MATMUL, (rb_shape){13, 1001, 1501}, "matmul_blocked");
    test_op(RB_OP_MATMUL, (rb_shape){18, 97, 2000}, "matmul_blocked");
    rb_configure(cfg);
}

int main(void)
{
    openblas_set_num_threads(1);
    /* Every code path this CPU has (ROOFBENCH_ISA's caps), with the cache
     * sizes of this machine and with the smallest the blocks allow, so
     * that shapes cross KC, MC and NC. */
    host_cpu cpu;
    host_cpu_probe(&cpu);
    const unsigned full = host_isa_mask(&cpu);
    const unsigned caps[] = {full, full & ~(unsigned)RB_ISA_AVX512F,
                             full & RB_ISA_SSE2};
    /* the small caches also ask for the strips ahead into L1 (the
     * AVX-512 kernels' other branch) */
    const rb_config small = {.isa = 0, .l1d = 8 << 10, .l2 = 128 << 10,
                             .l3 = 1 << 20, .far_to_l1 = 1};
    for (int ci = 0; ci < 3; ci++)
        for (int cache = 0; cache < 2; cache++) {
            rb_config cfg = cache ? small
                                  : (rb_config){.isa = 0,
                                                .l1d = 32 << 10,
                                                .l2 = 1 << 20,
                                                .l3 = 8 << 20};
            cfg.isa = caps[ci];
            test_blocked_on_path(&cfg);
            test_skinny_next_block(&cfg, cache);
            test_skinny_runs(&cfg, cache);
            if (cache) {
                test_skinny_depth(&cfg);
                test_skinny_quiet(&cfg);
                test_skinny_deep(&cfg);
                test_skinny_c_blocks(&cfg);
            }
        }
    test_skinny_rows();
    test_every_op(full);
    test_implausible_cache(full);
    test_check_catches_errors();
    test_reference_by_hand();
    test_reference_exact_sums();
    test_fill_values();
    test_problem_bytes();
    return check_status("test_kernels");
}
