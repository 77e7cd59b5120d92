/* `roofbench check`, the deterministic gate: two runs of one build give
 * identical counts; a baseline whose counts are 3% lower fails (exit 3)
 * naming the kernels; a baseline recorded under other pinned facts is
 * incomparable (exit 2, before any work); bad baselines are one line and
 * exit 2 with nothing written; the baseline is written only with
 * --update-baseline. Skipped (77) without valgrind.
 * Usage: test_checkgate PATH-TO-ROOFBENCH. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "simulate.h"

static const char *const metrics[] = {"ir",        "dr",        "dw",
                                      "i1_misses", "il_misses", "d1_misses",
                                      "ll_misses", "est_cycles"};
enum { NMETRICS = sizeof(metrics) / sizeof(metrics[0]) };

static json_t *kernels_of(const char *path)
{
    json_t *d = load_json(path);
    json_t *k = d ? json_incref(json_object_get(d, "kernels")) : NULL;
    json_decref(d);
    return k;
}

static void edit_file(const char *src, const char *dst,
                      void (*edit)(json_t *doc))
{
    json_t *d = load_json(src);
    CHECK(d != NULL);
    if (!d)
        return;
    edit(d);
    CHECK_INT(json_dump_file(d, dst, JSON_INDENT(1)), 0);
    json_decref(d);
}

static void lower3(json_t *doc)
{
    json_t *ks = json_object_get(doc, "kernels");
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *k = json_array_get(ks, i);
        for (int m = 0; m < NMETRICS; m++) {
            json_t *v = json_object_get(k, metrics[m]);
            json_object_set_new(k, metrics[m],
                                json_real(floor(json_number_value(v) * 0.97)));
        }
    }
}

static void other_valgrind(json_t *doc)
{
    json_object_set_new(json_object_get(doc, "pinned"), "valgrind",
                        json_string("valgrind-9.99.0"));
}
static void other_schema(json_t *doc)
{
    json_object_set_new(doc, "schema", json_string("roofbench.run"));
}
static void other_version(json_t *doc)
{
    json_object_set_new(doc, "schema_version", json_integer(7));
}
static void negative(json_t *doc)
{
    json_object_set_new(json_array_get(json_object_get(doc, "kernels"), 4),
                        "ll_misses", json_integer(-5));
}
static void duplicate(json_t *doc)
{
    json_t *ks = json_object_get(doc, "kernels");
    json_array_append(ks, json_array_get(ks, 2));
}
static void no_kernels(json_t *doc)
{
    json_object_set_new(doc, "kernels", json_array());
}

static mode_t umask_now;

static void expect_bad(const char *name, const char *needle)
{
    char out[1100];
    snprintf(out, sizeof(out), "%s/never", workdir);
    result r;
    run(workdir,
        (const char *[]){"check", "--baseline", name, "--out", out, NULL}, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, name);
    CHECK_STR_HAS(r.err, needle);
    CHECK_INT(count_lines(r.err), 1);
    CHECK(!exists(out));
}

/* With no baseline yet the gate refuses; --update-baseline records one
 * with the umask's permissions and reports the kernels and code path. */
static void check_record(const char *base, const char *r1)
{
    result r;
    /* no baseline yet: exit 2, nothing written */
    expect_bad("baseline.json", "record one with --update-baseline");
    /* recorded, explicitly */
    run(workdir,
        (const char *[]){"check", "--update-baseline", "--baseline", base,
                         "--out", r1, NULL},
        &r);
    CHECK_INT(r.status, 0);
    CHECK(exists(base));
    struct stat sb;
    CHECK(stat(base, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~umask_now));
    CHECK_STR_HAS(r.out, "matmul_blocked");
    CHECK_STR_HAS(r.out, "code path avx2");
}

/* The same commit again: nothing regressed, the baseline untouched (its
 * text is left in before), and every count identical to the first run's. */
static void check_identical(const char *base, const char *r1, char *before,
                            size_t len)
{
    char r2[1100], p1[1200], p2[1200], after[300000];
    snprintf(r2, sizeof(r2), "%s/r2", workdir);
    result r;
    slurp(base, before, len);
    run(workdir,
        (const char *[]){"check", "--baseline", base, "--out", r2, NULL}, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "verdict: nothing regressed (exit 0)");
    slurp(base, after, sizeof(after));
    CHECK(strcmp(before, after) == 0);
    snprintf(p1, sizeof(p1), "%s/check.json", r1);
    snprintf(p2, sizeof(p2), "%s/check.json", r2);
    json_t *k1 = kernels_of(p1), *k2 = kernels_of(p2);
    CHECK(k1 && k2 && json_array_size(k1) == json_array_size(k2) &&
          json_array_size(k1) >= 28);
    for (size_t i = 0; k1 && k2 && i < json_array_size(k1); i++)
        for (int m = 0; m < NMETRICS; m++) {
            const double a = json_number_value(
                             json_object_get(json_array_get(k1, i), metrics[m])),
                         b = json_number_value(
                             json_object_get(json_array_get(k2, i), metrics[m]));
            if (a != b)
                fprintf(stderr, "kernel %zu %s: %.0f vs %.0f\n", i,
                        metrics[m], a, b);
            CHECK(a == b);
        }
    json_decref(k1);
    json_decref(k2);
}

/* A baseline 3% lower than this build: every kernel regressed, exit 3,
 * with the kernels named. */
static void check_regressed(const char *base)
{
    char r3[1100], lower[1100];
    snprintf(r3, sizeof(r3), "%s/r3", workdir);
    snprintf(lower, sizeof(lower), "%s/lower.json", workdir);
    result r;
    edit_file(base, lower, lower3);
    run(workdir,
        (const char *[]){"check", "--baseline", lower, "--out", r3, NULL},
        &r);
    CHECK_INT(r.status, 3);
    CHECK_STR_HAS(r.out, "regressed: dot f32 1x262144x1: ir +3.");
    CHECK_STR_HAS(r.out, "regressed: matmul_blocked f64 8x512x512:");
    CHECK_STR_HAS(r.out, "verdict: regressed (exit 3)");
}

/* Baselines the gate must refuse in one line with nothing written: one
 * from another valgrind, then ones edited, cut short or not JSON at all;
 * text is the recorded baseline's. */
static void check_bad_baselines(const char *base, const char *text)
{
    char tmp[1100];
    /* incomparable: recorded with another valgrind; refused before work */
    snprintf(tmp, sizeof(tmp), "%s/valgrind.json", workdir);
    edit_file(base, tmp, other_valgrind);
    expect_bad("valgrind.json", "incomparable");
    expect_bad("valgrind.json", "valgrind 'valgrind-9.99.0' vs");
    /* bad baselines */
    snprintf(tmp, sizeof(tmp), "%s/schema.json", workdir);
    edit_file(base, tmp, other_schema);
    expect_bad("schema.json", "not roofbench.check");
    snprintf(tmp, sizeof(tmp), "%s/version.json", workdir);
    edit_file(base, tmp, other_version);
    expect_bad("version.json", "schema version");
    snprintf(tmp, sizeof(tmp), "%s/negative.json", workdir);
    edit_file(base, tmp, negative);
    expect_bad("negative.json", "ll_misses is negative");
    snprintf(tmp, sizeof(tmp), "%s/dup.json", workdir);
    edit_file(base, tmp, duplicate);
    expect_bad("dup.json", "are both");
    snprintf(tmp, sizeof(tmp), "%s/none.json", workdir);
    edit_file(base, tmp, no_kernels);
    expect_bad("none.json", "holds no kernels");
    snprintf(tmp, sizeof(tmp), "%s/cut.json", workdir);
    FILE *f = fopen(tmp, "w");
    fwrite(text, 1, strlen(text) / 3, f);
    fclose(f);
    expect_bad("cut.json", "not JSON, or cut short");
    snprintf(tmp, sizeof(tmp), "%s/text.json", workdir);
    f = fopen(tmp, "w");
    fputs("ir 12345\n", f);
    fclose(f);
    expect_bad("text.json", "not JSON");
}

/* --limit values that are not a percentage, name no metric, or name one
 * twice: exit 2 with the value named. */
static void check_bad_limits(const char *base)
{
    result r;
    run(workdir,
        (const char *[]){"check", "--baseline", base, "--limit", "ir=lots",
                         NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "--limit ir 'lots'");
    run(workdir,
        (const char *[]){"check", "--baseline", base, "--limit", "speed=1%",
                         NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "'speed'");
    run(workdir,
        (const char *[]){"check", "--baseline", base, "--limit",
                         "ir=1%,ir=2%", NULL},
        &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "given twice");
}

int main(int argc, char **argv)
{
    char vg[4096];
    rb_err e;
    if (sim_find_valgrind(vg, sizeof(vg), &e) != RB_OK) {
        printf("test_checkgate: skipped: %s\n", e.msg);
        return 77;
    }
    umask_now = umask(022);
    umask(umask_now);
    const int rc = cli_setup(argc, argv, "test_checkgate");
    if (rc)
        return rc;
    char base[1100], r1[1100], before[300000];
    snprintf(base, sizeof(base), "%s/baseline.json", workdir);
    snprintf(r1, sizeof(r1), "%s/r1", workdir);

    check_record(base, r1);
    check_identical(base, r1, before, sizeof(before));
    check_regressed(base);
    check_bad_baselines(base, before);
    check_bad_limits(base);
    remove_tree(workdir);
    return check_status("test_checkgate");
}
