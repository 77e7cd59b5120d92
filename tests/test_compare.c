/* The regression gate's statistics: the rank test against brute-force
 * enumeration, the verdicts, and `roofbench compare` on fixtures built
 * from a real run (tests/fixtures/results-xeon-emr-quick.json): one row
 * slowed by 10% fails naming it, the same samples reshuffled pass, a 2%
 * change under the 5% floor passes; bad documents are one line and exit
 * 2. Usage: test_compare PATH-TO-ROOFBENCH. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "compare.h"
#include "ranktest.h"

/* ---- the rank test ------------------------------------------------------- */

/* P(U <= u) and P(U >= u) by enumerating every way to choose which n1 of
 * the n ranks are x's. */
static void brute(size_t n1, size_t n2, double u, double *below, double *above)
{
    const size_t n = n1 + n2;
    double cnt_b = 0, cnt_a = 0, total = 0;
    for (unsigned long mask = 0; mask < (1ul << n); mask++) {
        if ((size_t)__builtin_popcountl(mask) != n1)
            continue;
        /* ranks 0..n-1; bit set: an x. U = pairs y above x */
        double uu = 0;
        size_t xs_below = 0;
        for (size_t r = 0; r < n; r++) {
            if (mask & (1ul << r))
                xs_below++;
            else
                uu += (double)xs_below;
        }
        total++;
        cnt_b += uu <= u;
        cnt_a += uu >= u;
    }
    *below = cnt_b / total;
    *above = cnt_a / total;
}

static unsigned long long lcg = 12345;
static double rnd(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

static void test_rank_exact(void)
{
    const size_t sizes[][2] = {{3, 4}, {5, 5}, {4, 7}, {6, 6}, {2, 9}, {8, 7}};
    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const size_t n1 = sizes[t][0], n2 = sizes[t][1];
        for (int rep = 0; rep < 5; rep++) {
            double x[16], y[16];
            for (size_t i = 0; i < n1; i++)
                x[i] = rnd();
            for (size_t j = 0; j < n2; j++)
                y[j] = rnd() + 0.2 * rep;
            rank_test r;
            CHECK_INT(rank_test_run(x, n1, y, n2, 0.05, &r), 0);
            CHECK(r.exact);
            double u = 0;
            for (size_t i = 0; i < n1; i++)
                for (size_t j = 0; j < n2; j++)
                    u += y[j] > x[i];
            CHECK(fabs(r.u - u) < 1e-9);
            double below, above;
            brute(n1, n2, u, &below, &above);
            const double p = fmin(1.0, 2.0 * fmin(below, above));
            CHECK(fabs(r.p - p) < 1e-12);
            double b0, a0;
            brute(n1, n2, 0.0, &b0, &a0);
            CHECK(fabs(r.p_min - fmin(1.0, 2.0 * b0)) < 1e-12);
        }
    }
    /* 5 and 5: the smallest p is 2 / C(10, 5) = 2 / 252 */
    const double a[5] = {1, 2, 3, 4, 5}, b[5] = {6, 7, 8, 9, 10};
    rank_test r;
    CHECK_INT(rank_test_run(a, 5, b, 5, 0.05, &r), 0);
    CHECK(fabs(r.p - 2.0 / 252.0) < 1e-12);
    CHECK(fabs(r.shift - 5.0) < 1e-12);
    /* the interval: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so
     * it is [3rd, 23rd] of the 25 sorted differences j - i + 5 (1 once,
     * 2 twice, ..., 5 five times, ..., 9 once): 2 and 8 */
    CHECK(fabs(r.lo - 2.0) < 1e-12 && fabs(r.hi - 8.0) < 1e-12);
    /* 3 and 3 cannot reach 0.05: 2 / C(6, 3) = 0.1 */
    CHECK_INT(rank_test_run(a, 3, b, 3, 0.05, &r), 0);
    CHECK(fabs(r.p_min - 0.1) < 1e-12);
    CHECK(isnan(r.lo) && isnan(r.hi));
    /* large samples: the normal approximation, shift recovered */
    double x[60], y[60];
    for (int i = 0; i < 60; i++) {
        x[i] = rnd();
        y[i] = rnd() + 0.5;
    }
    CHECK_INT(rank_test_run(x, 60, y, 60, 0.05, &r), 0);
    CHECK(!r.exact);
    CHECK(r.p < 1e-6);
    CHECK(r.lo < 0.5 && r.hi > 0.5 && r.lo > 0.2 && r.hi < 0.8);
    /* ties: every value equal is p = 1 */
    const double same[6] = {1, 1, 1, 1, 1, 1};
    CHECK_INT(rank_test_run(same, 3, same + 3, 3, 0.05, &r), 0);
    CHECK(r.p == 1.0);
    /* bad samples */
    const double bad[2] = {1.0, NAN};
    CHECK_INT(rank_test_run(bad, 2, a, 5, 0.05, &r), -1);
    CHECK_INT(rank_test_run(a, 0, a, 5, 0.05, &r), -1);
    CHECK(fabs(rank_normal_upper(0.025) - 1.959964) < 1e-5);
}

static void test_judge(void)
{
    const cmp_settings s = {.alpha = 0.05, .threshold = 0.05};
    cmp_stat st = {.ratio = 1.10, .lo = 1.05, .hi = 1.15, .p = 0.008,
                   .p_min = 0.008};
    CHECK_INT(cmp_judge(&st, &s, 1.05), CMP_SLOWER);
    CHECK_INT(cmp_judge(&st, &s, 1.20), CMP_UNCHANGED); /* under the floor */
    st.ratio = 1.02;
    CHECK_INT(cmp_judge(&st, &s, 1.05), CMP_UNCHANGED);
    st.ratio = 1.10;
    st.lo = 0.99; /* the interval holds 1 */
    CHECK_INT(cmp_judge(&st, &s, 1.05), CMP_UNCHANGED);
    st.lo = 1.05;
    st.p = 0.06;
    CHECK_INT(cmp_judge(&st, &s, 1.05), CMP_UNCHANGED);
    st.p_min = 0.1;
    CHECK_INT(cmp_judge(&st, &s, 1.05), CMP_UNRELIABLE);
    cmp_stat f = {.ratio = 0.90, .lo = 0.85, .hi = 0.95, .p = 0.008,
                  .p_min = 0.008};
    CHECK_INT(cmp_judge(&f, &s, 1.05), CMP_FASTER);
}

/* ---- the command on fixtures ---------------------------------------------- */

static char fixture[1024];

static json_t *rows_of(json_t *doc)
{
    return json_object_get(doc, "rows");
}

/* The fixture with edit applied, written to name in the scratch folder. */
static void make(const char *name, void (*edit)(json_t *doc))
{
    json_t *doc = load_json(fixture);
    CHECK(doc != NULL);
    if (!doc)
        return;
    if (edit)
        edit(doc);
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", workdir, name);
    CHECK_INT(json_dump_file(doc, path, JSON_INDENT(1)), 0);
    json_decref(doc);
}

static void scale_row(json_t *row, double f)
{
    json_t *s = json_object_get(row, "samples_s");
    for (size_t i = 0; i < json_array_size(s); i++)
        json_array_set_new(
            s, i, json_real(json_number_value(json_array_get(s, i)) * f));
}

/* the row the tests slow down: the one whose samples spread least (a
 * slowdown of 10% in a row whose own samples spread by 30% is, rightly,
 * not significant with 5 samples a side) */
static char target_key[256];

static json_t *target(json_t *doc)
{
    json_t *rows = rows_of(doc), *best = NULL;
    double least = INFINITY;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i), *s = json_object_get(r, "samples_s");
        double lo = INFINITY, hi = 0.0;
        for (size_t k = 0; k < json_array_size(s); k++) {
            const double v = json_number_value(json_array_get(s, k));
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
        if (hi / lo < least) {
            least = hi / lo;
            best = r;
        }
    }
    json_t *sh = json_object_get(best, "shape");
    snprintf(target_key, sizeof(target_key),
             "slower: %s %s %s %lldx%lldx%lld %lldt, x1.100",
             jstr(best, "kernel", NULL), jstr(best, "form", NULL),
             jstr(best, "dtype", NULL),
             (long long)json_integer_value(json_object_get(sh, "n")),
             (long long)json_integer_value(json_object_get(sh, "p")),
             (long long)json_integer_value(json_object_get(sh, "m")),
             (long long)json_integer_value(json_object_get(best, "threads")));
    return best;
}

static void slow10(json_t *doc) { scale_row(target(doc), 1.10); }
static void slow2(json_t *doc) { scale_row(target(doc), 1.02); }

static void reshuffle(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *s = json_object_get(json_array_get(rows, i), "samples_s");
        const size_t n = json_array_size(s);
        json_t *rev = json_array();
        for (size_t k = n; k-- > 0;)
            json_array_append(rev, json_array_get(s, (k + 2) % n));
        json_object_set_new(json_array_get(rows, i), "samples_s", rev);
    }
}

/* every row 10% slower, and every roof 10% lower: the machine, not the
 * kernels */
static void slow_machine(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        scale_row(r, 1.10);
        json_t *roof = json_object_get(r, "roofline");
        json_t *a = json_object_get(roof, "attainable_gflops");
        if (json_is_number(a))
            json_object_set_new(roof, "attainable_gflops",
                                json_real(json_number_value(a) / 1.10));
    }
}

static void three_samples(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *s = json_object_get(json_array_get(rows, i), "samples_s");
        while (json_array_size(s) > 3)
            json_array_remove(s, 0);
    }
}

/* the same rows as a sweep document */
static void as_sweep(json_t *doc)
{
    json_object_set_new(doc, "schema", json_string("roofbench.sweep"));
    json_object_set(doc, "points", json_object_get(doc, "rows"));
    json_object_del(doc, "rows");
}

static void as_sweep_slow(json_t *doc)
{
    slow10(doc);
    as_sweep(doc);
}

static void drop_row(json_t *doc) { json_array_remove(rows_of(doc), 3); }

/* the target 3x slower and without a roof: by efficiency it is gated on
 * time */
static void slow_noroof(json_t *doc)
{
    json_t *t = target(doc);
    scale_row(t, 3.0);
    json_object_set_new(t, "roofline", json_null());
}

/* half the rows 2x slower: their spread is no noise floor */
static void half_slow(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i += 2)
        scale_row(json_array_get(rows, i), 2.0);
}

static void verify_failed(json_t *doc)
{
    json_object_set_new(
        json_object_get(json_array_get(rows_of(doc), 1), "verify"), "passed",
        json_false());
}

static void other_kernels(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        char name[32];
        snprintf(name, sizeof(name), "elsewhere%zu", i);
        json_object_set_new(json_array_get(rows, i), "kernel",
                            json_string(name));
    }
}

static void other_cores(json_t *doc)
{
    json_object_set_new(
        json_object_get(json_object_get(doc, "context"), "topology"), "cores",
        json_integer(64));
}

static void other_schema(json_t *doc)
{
    json_object_set_new(doc, "schema", json_string("roofbench.orders"));
}
static void other_version(json_t *doc)
{
    json_object_set_new(doc, "schema_version", json_integer(2));
}
static void negative(json_t *doc)
{
    json_array_set_new(
        json_object_get(json_array_get(rows_of(doc), 2), "samples_s"), 1,
        json_real(-1e-3));
}
static void zero(json_t *doc)
{
    json_array_set_new(
        json_object_get(json_array_get(rows_of(doc), 2), "samples_s"), 1,
        json_real(0.0));
}
/* every sample of a row near the largest double: once "out of memory",
 * as the product with the row's roof overflowed to infinity */
static void huge(json_t *doc)
{
    json_t *s = json_object_get(json_array_get(rows_of(doc), 2), "samples_s");
    for (size_t i = 0; i < json_array_size(s); i++)
        json_array_set_new(s, i, json_real(1e308));
}
static void duplicate(json_t *doc)
{
    json_array_append(rows_of(doc), json_array_get(rows_of(doc), 5));
}
static void no_rows(json_t *doc)
{
    json_object_set_new(doc, "rows", json_array());
}

static void expect_bad(const char *name, const char *needle)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", workdir, name);
    result r;
    run(workdir, (const char *[]){"compare", "base.json", name, NULL}, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, name);
    CHECK_STR_HAS(r.err, needle);
    CHECK_INT(count_lines(r.err), 1);
    CHECK_INT(r.out[0], 0);
}

/* A folder of k run folders, each the fixture with every sample scaled
 * by a run factor (the drift between runs) and then edit applied. */
static double run_factor;
static void drift(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i++)
        scale_row(json_array_get(rows, i), run_factor);
}

static void make_runs(const char *name, int k, void (*edit)(json_t *doc))
{
    static const double f[6] = {1.00, 1.06, 0.95, 1.03, 0.98, 1.08};
    char dir[1024], sub[1100], path[1200];
    snprintf(dir, sizeof(dir), "%s/%s", workdir, name);
    mkdir(dir, 0755);
    for (int r = 0; r < k; r++) {
        snprintf(sub, sizeof(sub), "%s/run%d", dir, r);
        mkdir(sub, 0755);
        json_t *doc = load_json(fixture);
        if (!doc)
            return;
        run_factor = f[r % 6];
        drift(doc);
        if (edit)
            edit(doc);
        snprintf(path, sizeof(path), "%s/results.json", sub);
        CHECK_INT(json_dump_file(doc, path, 0), 0);
        json_decref(doc);
    }
}

static void slow30(json_t *doc) { scale_row(target(doc), 1.30); }

/* ten samples a row: the five, and the five again 0.1% slower */
static void ten_samples(json_t *doc)
{
    json_t *rows = rows_of(doc);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *s = json_object_get(json_array_get(rows, i), "samples_s");
        const size_t n = json_array_size(s);
        for (size_t k = 0; k < n; k++)
            json_array_append_new(
                s, json_real(json_number_value(json_array_get(s, k)) * 1.001));
    }
}

static void ten_slow(json_t *doc)
{
    ten_samples(doc);
    scale_row(target(doc), 1.10);
}

static void test_holm(void)
{
    result r;
    /* 5 a side cannot pass 0.05 / 56: every row unreliable under Holm */
    run(workdir,
        (const char *[]){"compare", "--holm", "base.json", "slow10.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "56 unreliable");
    CHECK_STR_HAS(r.out, "with --holm");
    /* 10 a side can (2 / C(20, 10) x 56 = 0.0006): the slow row is found */
    make("ten.json", ten_samples);
    make("ten-slow.json", ten_slow);
    run(workdir,
        (const char *[]){"compare", "--holm", "ten.json", "ten-slow.json",
                         NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "1 slower");
    CHECK_STR_HAS(r.out, "Holm's correction over the 56 matched rows");
}

static void test_runs(void)
{
    result r;
    make_runs("runs-a", 5, NULL);
    make_runs("runs-b", 5, NULL);
    make_runs("runs-slow", 5, slow30);
    make_runs("runs-host", 2, NULL);
    make_runs("runs-dropped", 2, NULL);
    /* drift of up to 8% between runs, the same on both sides: nothing */
    run(workdir, (const char *[]){"compare", "runs-a", "runs-b", NULL}, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "runs-a (5 runs)");
    CHECK_STR_HAS(r.out, "several runs a side");
    /* one row 30% slower in every run: slower, named */
    run(workdir, (const char *[]){"compare", "runs-a", "runs-slow", NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "1 slower");
    /* runs of one side must agree on host and rows */
    char path[1200];
    snprintf(path, sizeof(path), "%s/runs-host/run1/results.json", workdir);
    json_t *doc = load_json(path);
    if (doc) {
        other_cores(doc);
        CHECK_INT(json_dump_file(doc, path, 0), 0);
        json_decref(doc);
    }
    run(workdir, (const char *[]){"compare", "runs-host", "runs-a", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "its runs differ");
    snprintf(path, sizeof(path), "%s/runs-dropped/run1/results.json", workdir);
    doc = load_json(path);
    if (doc) {
        drop_row(doc);
        CHECK_INT(json_dump_file(doc, path, 0), 0);
        json_decref(doc);
    }
    run(workdir, (const char *[]){"compare", "runs-dropped", "runs-a", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "different rows");
}

/* The fixture and the documents made from it, each changed one way. */
static void cli_documents(void)
{
    snprintf(fixture, sizeof(fixture), "%s/results-xeon-emr-quick.json",
             ROOFBENCH_FIXTURES);
    make("base.json", NULL);
    make("same.json", reshuffle);
    make("slow10.json", slow10);
    make("slow2.json", slow2);
    make("machine.json", slow_machine);
    make("three.json", three_samples);
    make("dropped.json", drop_row);
    make("cores.json", other_cores);
    make("sweep.json", as_sweep);
    make("sweep-slow.json", as_sweep_slow);
}

/* Rows without a roof on a side, half the rows slower, no rows in common, and
 * a document against itself. */
static void cli_edges(void)
{
    result r;
    make("noroof.json", slow_noroof);
    make("half.json", half_slow);
    make("verify.json", verify_failed);
    make("disjoint.json", other_kernels);
    run(workdir,
        (const char *[]){"compare", "--by", "efficiency", "base.json",
                         "noroof.json", NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "(time: no roof on a side)");
    run(workdir, (const char *[]){"compare", "base.json", "half.json", NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "28 slower");
    run(workdir,
        (const char *[]){"compare", "--allow-missing", "base.json",
                         "disjoint.json", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "no rows in common");
    run(workdir,
        (const char *[]){"compare", "--", "base.json", "same.json", NULL}, &r);
    CHECK_INT(r.status, 0);
    run(workdir, (const char *[]){"compare", "base.json", "base.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "56 unchanged, 0 unreliable");
}

/* Sweep documents: their points are rows; a run is not compared with a
 * sweep. */
static void cli_sweeps(void)
{
    result r;
    run(workdir,
        (const char *[]){"compare", "sweep.json", "sweep-slow.json", NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "1 slower");
    run(workdir, (const char *[]){"compare", "base.json", "sweep.json", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "compare a run with a run, a sweep with a sweep");
}

/* The verdicts: reshuffled samples, one row 10% slower, 2% under and over
 * the floor, a slower machine, three samples a side, rows on one side only,
 * another host. */
static void cli_verdicts(void)
{
    result r;
    /* the same samples, reshuffled: nothing regressed */
    run(workdir, (const char *[]){"compare", "base.json", "same.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "0 slower");
    CHECK_STR_HAS(r.out, "verdict: nothing regressed (exit 0)");
    /* one row 10% slower: exit 3, that row named */
    run(workdir, (const char *[]){"compare", "base.json", "slow10.json", NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK(target_key[0] != '\0');
    CHECK_STR_HAS(r.out, target_key);
    CHECK_STR_HAS(r.out, "1 slower");
    /* 2%: under the 5% floor */
    run(workdir, (const char *[]){"compare", "base.json", "slow2.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    /* ... but over a 1% one */
    run(workdir,
        (const char *[]){"compare", "--threshold", "1%", "base.json",
                         "slow2.json", NULL},
        &r);
    CHECK_INT(r.status, 3);
    /* a machine 10% slower everywhere, roofs too: slower by time, not by
     * efficiency */
    run(workdir,
        (const char *[]){"compare", "base.json", "machine.json", NULL}, &r);
    CHECK_INT(r.status, 3);
    run(workdir,
        (const char *[]){"compare", "--by", "efficiency", "base.json",
                         "machine.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "gate: efficiency");
    /* three samples a side can never reach p < 0.05: unreliable, never
     * unchanged */
    run(workdir, (const char *[]){"compare", "three.json", "three.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "0 unchanged, 56 unreliable");
    CHECK_STR_HAS(r.out, "56 rows could not be judged");
    /* a row gone from current fails unless allowed */
    run(workdir,
        (const char *[]){"compare", "base.json", "dropped.json", NULL}, &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "only in the baseline (1):");
    run(workdir,
        (const char *[]){"compare", "--allow-missing", "base.json",
                         "dropped.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
    /* the other direction lists the new row and passes */
    run(workdir,
        (const char *[]){"compare", "dropped.json", "base.json", NULL}, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "only in current (1):");
    /* another host */
    run(workdir, (const char *[]){"compare", "base.json", "cores.json", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "cores 2 vs 64");
    run(workdir,
        (const char *[]){"compare", "--allow-host-mismatch", "base.json",
                         "cores.json", NULL},
        &r);
    CHECK_INT(r.status, 0);
}

/* JSON and Markdown, and a results folder as run writes it. */
static void cli_outputs(void)
{
    result r;
    /* JSON and Markdown */
    run(workdir,
        (const char *[]){"compare", "--json", "base.json", "slow10.json",
                         NULL},
        &r);
    CHECK_INT(r.status, 3);
    json_error_t je;
    json_t *j = json_loads(r.out, 0, &je);
    CHECK(j != NULL);
    if (j) {
        CHECK_STR_HAS(jstr(j, "schema", NULL), "roofbench.compare");
        CHECK_INT(json_integer_value(json_object_get(
                      json_object_get(j, "counts"), "slower")),
                  1);
        CHECK_INT(json_array_size(json_object_get(j, "rows")), 56);
        json_decref(j);
    }
    run(workdir,
        (const char *[]){"compare", "--markdown", "base.json", "slow10.json",
                         NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "### roofbench compare: **regressed**");
    CHECK_STR_HAS(r.out, "**slower**");
    char dir[1024], path[1100];
    snprintf(dir, sizeof(dir), "%s/folder", workdir);
    mkdir(dir, 0755);
    snprintf(path, sizeof(path), "%s/results.json", dir);
    json_t *doc = load_json(fixture);
    CHECK_INT(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
    run(workdir, (const char *[]){"compare", "folder", "same.json", NULL}, &r);
    CHECK_INT(r.status, 0);
}

/* Bad documents: one line naming the file, exit 2, nothing printed; not
 * JSON, cut short, NaN (which JSON does not have), an empty folder. */
static void cli_bad_documents(void)
{
    char path[1100];
    make("schema.json", other_schema);
    make("version.json", other_version);
    make("negative.json", negative);
    make("zero.json", zero);
    make("huge.json", huge);
    make("dup.json", duplicate);
    make("norows.json", no_rows);
    expect_bad("missing.json", "No such file");
    expect_bad("schema.json", "schema 'roofbench.orders'");
    expect_bad("version.json", "schema version");
    expect_bad("negative.json", "times must be above zero");
    expect_bad("zero.json", "is 0 s");
    expect_bad("huge.json", "row 3: ");
    expect_bad("huge.json", "sample 1 is 1e+308 s (more than a day");
    expect_bad("dup.json", "are both");
    expect_bad("norows.json", "holds no rows");
    expect_bad("verify.json", "failed verification");
    /* not JSON, cut short, and NaN (which JSON does not have) */
    char text[200000];
    slurp(fixture, text, sizeof(text));
    snprintf(path, sizeof(path), "%s/cut.json", workdir);
    FILE *f = fopen(path, "w");
    fwrite(text, 1, strlen(text) / 2, f);
    fclose(f);
    expect_bad("cut.json", "not JSON, or cut short");
    char *s = strstr(text, "\"samples_s\": [");
    CHECK(s != NULL);
    if (s) {
        s = strchr(s, '[') + 1;
        while (*s == ' ' || *s == '\n')
            s++;
        memcpy(s, "NaN   ", 6); /* overwrites the sample's first digits */
        snprintf(path, sizeof(path), "%s/nan.json", workdir);
        f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
        expect_bad("nan.json", "not JSON");
    }
    snprintf(path, sizeof(path), "%s/empty", workdir);
    mkdir(path, 0755);
    expect_bad("empty", "a folder holding no results");
}

/* Bad flags: one document, a threshold or a gate that is not one. */
static void cli_bad_flags(void)
{
    result r;
    run(workdir, (const char *[]){"compare", "base.json", NULL}, &r);
    CHECK_INT(r.status, 2);
    run(workdir,
        (const char *[]){"compare", "--threshold", "five", "base.json",
                         "same.json", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "--threshold 'five'");
    run(workdir,
        (const char *[]){"compare", "--by", "speed", "base.json", "same.json",
                         NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "--by 'speed'");
}

static void test_cli(void)
{
    cli_documents();
    cli_edges();
    cli_sweeps();
    cli_verdicts();
    cli_outputs();
    cli_bad_documents();
    cli_bad_flags();
}

int main(int argc, char **argv)
{
    test_rank_exact();
    test_judge();
    const int rc = cli_setup(argc, argv, "test_compare");
    if (rc)
        return rc;
    test_cli();
    test_holm();
    test_runs();
    remove_tree(workdir);
    return check_status("test_compare");
}
