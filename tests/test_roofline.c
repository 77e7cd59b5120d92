/* The host roofline: the bound of a point (roofline_bound), reading a
 * ceilings document with every field checked (roofline_from_doc), the host
 * as a profile (roofline_to_profile), all on hand-computed cases; then
 * golden files: the plateau detector and the roofline on real ceilings.json
 * curves recorded on other machines (tests/fixtures), each with the levels
 * it must give. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "plateau.h"
#include "roofline.h"

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel)*fabs(b))

/* One thread: peak f32 100, f64 50 GFLOP/s; L1 200 GB/s from 4 KiB to
 * 32 KiB, L2 100 GB/s from 64 KiB to 1 MB, DRAM 20 GB/s from 100 MB to
 * 1 GB; the read curve through (1e6, 100) and (1e8, 20). */
static json_t *hand_doc(void)
{
    json_t *levels = json_pack(
        "[{s:s, s:f, s:f, s:f}, {s:s, s:f, s:f, s:f}, {s:s, s:f, s:f, s:f}]",
        "name", "L1", "gbs", 200.0, "starts_bytes", 4096.0, "ends_bytes",
        32768.0, "name", "L2", "gbs", 100.0, "starts_bytes", 65536.0,
        "ends_bytes", 1e6, "name", "DRAM", "gbs", 20.0, "starts_bytes", 1e8,
        "ends_bytes", 1e9);
    json_t *curve = json_pack("[[f, f], [f, f], [f, f], [f, f]]", 4096.0, 200.0,
                              1e6, 100.0, 1e8, 20.0, 1e9, 20.0);
    return json_pack("{s:s, s:i, s:s, s:{s:s}, s:[{s:i, s:{s:f, s:f}, s:o, "
                     "s:o}]}",
                     "schema", "roofbench.ceilings", "schema_version",
                     CEILINGS_SCHEMA_VERSION, "status", "complete", "context",
                     "host", "h", "roofline", "threads", 1, "peak_gflops",
                     "f32", 100.0, "f64", 50.0, "levels", levels, "curve",
                     curve);
}

static void test_bound(void)
{
    json_t *doc = hand_doc();
    roofline r;
    rb_err e;
    CHECK_INT(roofline_from_doc(doc, "hand", &r, &e), RB_OK);
    json_decref(doc);
    roof_bound b;
    char why[256];
    /* 2000 FLOPs on 16 KiB in L1: 0.1220703125 FLOP/B x 200 GB/s */
    CHECK_INT(roofline_bound(&r, 1, RB_F64, 2000, 16384, 12.20703125, &b, why,
                             sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "L1") == 0 && !b.compute_bound);
    CHECK(NEAR(b.attainable_gflops, 24.4140625, 1e-12));
    CHECK(NEAR(b.fraction, 0.5, 1e-12));
    /* far above the ridge: the peak of the dtype binds */
    CHECK_INT(roofline_bound(&r, 1, RB_F32, 1000000000, 8192, 25.0, &b, why,
                             sizeof(why)),
              0);
    CHECK(b.compute_bound && b.attainable_gflops == 100.0 &&
          NEAR(b.fraction, 0.25, 1e-12));
    /* between L2 and DRAM at 1e7 bytes: the curve halfway in log-log,
     * sqrt(100 x 20) GB/s, under both names */
    CHECK_INT(roofline_bound(&r, 1, RB_F64, 10000000, 10000000, 1.0, &b, why,
                             sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "L2>DRAM") == 0);
    CHECK(NEAR(b.level.gbs, sqrt(2000.0), 1e-12));
    CHECK(NEAR(b.attainable_gflops, sqrt(2000.0), 1e-12));
    /* below the first plateau and past the last: the first and the last */
    CHECK_INT(
        roofline_bound(&r, 1, RB_F64, 100, 100, 1.0, &b, why, sizeof(why)), 0);
    CHECK(strcmp(b.level.name, "L1") == 0 && b.attainable_gflops == 50.0);
    CHECK_INT(roofline_bound(&r, 1, RB_F64, 10, 100000000000ull, 0.0, &b, why,
                             sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "DRAM") == 0);
    CHECK(NEAR(b.attainable_gflops, 1e-10 * 20.0, 1e-12));
    /* why there is no bound */
    CHECK_INT(roofline_bound(&r, 2, RB_F64, 1, 1, 1.0, &b, why, sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no roofline for 2 threads (it has 1)");
    r.teams[0].peak_gflops[RB_F32] = 0.0;
    CHECK_INT(roofline_bound(&r, 1, RB_F32, 1, 1, 1.0, &b, why, sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no f32 peak");
    r.teams[0].nlevels = 0;
    CHECK_INT(roofline_bound(&r, 1, RB_F64, 1, 1, 1.0, &b, why, sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no memory level");
}

/* The hand document with one field changed: path is "levels.0.gbs" or
 * "threads" (of the first team) or a top-level key. */
static int edited(const char *path, json_t *value, rb_err *e)
{
    json_t *doc = hand_doc();
    json_t *team = json_array_get(json_object_get(doc, "roofline"), 0);
    if (strncmp(path, "levels.", 7) == 0) {
        char key[32];
        const int i = atoi(path + 7);
        snprintf(key, sizeof(key), "%s", strchr(path + 7, '.') + 1);
        json_object_set_new(
            json_array_get(json_object_get(team, "levels"), (size_t)i), key,
            value);
    } else if (strcmp(path, "threads") == 0 || strcmp(path, "curve") == 0) {
        json_object_set_new(team, path, value);
    } else if (strcmp(path, "team") == 0) {
        json_array_append_new(json_object_get(doc, "roofline"), value);
    } else {
        json_object_set_new(doc, path, value);
    }
    roofline r;
    const int rc = roofline_from_doc(doc, "--ceilings 'x'", &r, e);
    json_decref(doc);
    return rc;
}

static void test_from_doc(void)
{
    roofline r;
    rb_err e;
    json_t *doc = hand_doc();
    CHECK_INT(roofline_from_doc(doc, "hand", &r, &e), RB_OK);
    CHECK(strcmp(r.host, "h") == 0 && r.nteams == 1);
    CHECK(r.teams[0].threads == 1 && r.teams[0].nlevels == 3 &&
          r.teams[0].npoints == 4);
    CHECK(r.teams[0].peak_gflops[RB_F32] == 100.0 &&
          r.teams[0].peak_gflops[RB_F64] == 50.0);
    CHECK(r.teams[0].levels[1].ends_bytes == 1e6);
    json_decref(doc);
    static const struct {
        const char *path, *value, *msg;
    } bad[] = {
        {"schema", "\"roofbench.run\"", "not a roofbench ceilings file"},
        {"schema_version", "2", "schema version 2"},
        {"status", "\"interrupted\"", "did not complete (status interrupted)"},
        {"levels.0.name", "\"';system(\\\"id\\\")#\"",
         "roofline[0].levels[0].name: ''"},
        {"levels.1.name", "\"L\\u00e9vel\"", "is not a level name"},
        {"levels.0.gbs", "4.9e-324",
         "roofline[0].levels[0].gbs = 4.94066e-324: not a bandwidth"},
        {"levels.2.gbs", "1e308", "roofline[0].levels[2].gbs = 1e+308"},
        {"levels.1.gbs", "\"fast\"", "roofline[0].levels[1].gbs: not a number"},
        {"levels.1.ends_bytes", "100", "roofline[0].levels[1] ends before"},
        {"threads", "0", "roofline[0].threads: not a thread count"},
        {"curve", "[[4096, 0]]", "roofline[0].curve[0] = 0"},
        {"team", "{\"threads\": 1}", "roofline[1]: 1 threads twice"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *v = json_loads(bad[i].value, JSON_DECODE_ANY, NULL);
        CHECK(v != NULL);
        CHECK_INT(edited(bad[i].path, v, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
        CHECK_STR_HAS(e.msg, "--ceilings 'x'");
    }
    /* a level name from the file never reaches the message raw */
    CHECK_INT(edited("levels.0.name", json_string("a\x01"), &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "'a\\x01'");
}

static void test_to_profile(void)
{
    roofline r;
    rb_err e;
    json_t *doc = hand_doc();
    /* a second, larger team: the profile is the largest */
    json_array_append_new(json_object_get(doc, "roofline"),
                          json_pack("{s:i, s:{s:f}, s:[{s:s, s:f, s:f, s:f}]}",
                                    "threads", 2, "peak_gflops", "f64", 90.0,
                                    "levels", "name", "DRAM", "gbs", 35.0,
                                    "starts_bytes", 1e8, "ends_bytes", 1e9));
    CHECK_INT(roofline_from_doc(doc, "hand", &r, &e), RB_OK);
    json_decref(doc);
    profile p;
    CHECK_INT(roofline_to_profile(&r, &p, &e), RB_OK);
    CHECK(strcmp(p.id, "host") == 0);
    CHECK_STR_HAS(p.name, "h, measured, 2 threads");
    CHECK(p.peak[PD_FP64] == 90e9 && p.peak[PD_FP32] == 0.0);
    CHECK(p.headline == PD_FP64 && p.mem_bw == 35e9);
    CHECK(p.peak[pdtype_of(RB_F64)] == p.peak[PD_FP64]);
    /* no DRAM plateau: not a profile */
    r.teams[1].nlevels = 0;
    CHECK_INT(roofline_to_profile(&r, &p, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "no DRAM plateau");
}

/* ---- golden files
 * ------------------------------------------------------------ */

typedef struct {
    const char *name;
    double gbs, first, last;
} want_level;

typedef struct {
    const char *fixture, *kernel;
    int threads;
    double cache[3]; /* what the team's threads hold at L1, L2, L3 */
    want_level want[4];
    int nwant;
} golden;

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* Zen 5 EPYC (48 KiB L1d, 1 MiB L2 per core, 32 MiB L3), recorded
 * 2026-12-01; the levels are what the detector gave there. The write
 * curve runs at one rate through L1 and L2: L1-L2. */
static const golden goldens[] = {
    {"ceilings-zen5-quick-1t.json",
     "read",
     1,
     {48 * KIB, MIB, 32 * MIB},
     {{"L1", 556.76, 4096, 46592},
      {"L2", 208.59, 69632, 796672},
      {"L3", 131.46, 1195520, 13620224},
      {"DRAM", 42.37, 155143168, 1073741824}},
     4},
    {"ceilings-zen5-quick-1t.json",
     "write",
     1,
     {48 * KIB, MIB, 32 * MIB},
     {{"L1-L2", 284.51, 4096, 530944},
      {"L3", 118.57, 1793536, 20430336},
      {"DRAM", 29.62, 155143168, 1073741824}},
     3},
    {"ceilings-zen5-quick-1t.json",
     "copy",
     1,
     {48 * KIB, MIB, 32 * MIB},
     {{"L1", 571.65, 4096, 46080},
      {"L2", 209.51, 69632, 353280},
      {"L3", 124.46, 1793024, 20429824},
      {"DRAM", 40.38, 232714240, 1073741824}},
     4},
    {"ceilings-zen5-quick-1t.json",
     "triad",
     1,
     {48 * KIB, MIB, 32 * MIB},
     {{"L1", 769.90, 3072, 46080},
      {"L2", 218.97, 69120, 795648},
      {"L3", 128.48, 1792512, 20430336},
      {"DRAM", 42.94, 155142144, 1073740800}},
     4},
    {"ceilings-zen5-quick-1t.json",
     "schoenauer",
     1,
     {48 * KIB, MIB, 32 * MIB},
     {{"L1", 729.75, 4096, 45056},
      {"L2", 208.71, 69632, 796672},
      {"L3", 125.70, 1792000, 20428800},
      {"DRAM", 42.86, 155142144, 1073741824}},
     4},
    {"ceilings-zen5-run-roofline.json",
     "read",
     1,
     {48 * KIB, MIB, 32 * MIB},
     {{"L1", 531.80, 4096, 46592},
      {"L2", 197.14, 69632, 353792},
      {"L3", 123.37, 1793536, 9079808},
      {"DRAM", 40.49, 155143168, 1073741824}},
     4},
    {"ceilings-zen5-run-roofline.json",
     "read",
     2,
     {96 * KIB, 2 * MIB, 32 * MIB},
     {{"L1", 957.87, 4096, 69632},
      {"L2", 389.40, 104448, 1793024},
      {"L3", 241.54, 2690048, 20429824},
      {"DRAM", 47.09, 155143168, 1073741824}},
     4},
    /* Intel Xeon, family 6 model 207 (Emerald Rapids), 2 vCPUs of KVM,
     * recorded 2026-12-01 by `ceilings --quick --threads 1`: hwloc reports
     * an L3 of 260 MiB (implausible; the plateau ends near 44 MiB), so
     * DRAM is named only past 4 x 260 MiB. */
    {"ceilings-xeon-emr-quick-1t.json",
     "read",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 279.46, 4096, 46592},
      {"L2", 139.13, 69632, 1195520},
      {"L3", 28.68, 4035584, 45967872},
      {"DRAM", 15.93, 103428608, 2181038080}},
     4},
    {"ceilings-xeon-emr-quick-1t.json",
     "write",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 191.18, 4096, 46592},
      {"L2", 46.91, 69632, 1793536},
      {"L3", 25.74, 2690048, 30645248},
      {"DRAM", 8.50, 155143168, 2181038080}},
     4},
    {"ceilings-xeon-emr-quick-1t.json",
     "copy",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 382.93, 4096, 46080},
      {"L2", 78.18, 69632, 1195008},
      {"L3", 28.40, 4035584, 30645248},
      {"DRAM", 13.34, 155143168, 2181038080}},
     4},
    {"ceilings-xeon-emr-quick-1t.json",
     "triad",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 433.90, 3072, 46080},
      {"L2", 102.82, 69120, 529920},
      {"L3", 28.54, 1792512, 30644736},
      {"DRAM", 13.88, 103428096, 2181037056}},
     4},
    {"ceilings-xeon-emr-quick-1t.json",
     "schoenauer",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 458.97, 4096, 45056},
      {"L2", 107.07, 69632, 1193984},
      {"L3", 27.11, 2689024, 45967360},
      {"DRAM", 14.76, 103428096, 2181038080}},
     4},
};

static json_t *fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", ROOFBENCH_FIXTURES, name);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        fprintf(stderr, "%s: %s\n", path, je.text);
    return doc;
}

static const json_t *curve_of(const json_t *doc, const char *kernel,
                              int threads)
{
    size_t i;
    json_t *cv;
    json_array_foreach(json_object_get(doc, "bandwidth"), i, cv)
    {
        if (strcmp(json_string_value(json_object_get(cv, "kernel")), kernel) ==
                0 &&
            json_integer_value(json_object_get(cv, "threads")) == threads)
            return cv;
    }
    return NULL;
}

static void check_levels(const golden *g, const plateau *p, size_t np)
{
    CHECK_INT(np, g->nwant);
    for (int i = 0; i < g->nwant && (size_t)i < np; i++) {
        const want_level *w = &g->want[i];
        if (strcmp(p[i].name, w->name) != 0 || !NEAR(p[i].gbs, w->gbs, 1e-3) ||
            p[i].first_bytes != w->first || p[i].last_bytes != w->last)
            fprintf(stderr,
                    "  %s %s %d thread(s), level %d: got %s %.2f [%.0f, %.0f], "
                    "want %s %.2f [%.0f, %.0f]\n",
                    g->fixture, g->kernel, g->threads, i, p[i].name, p[i].gbs,
                    p[i].first_bytes, p[i].last_bytes, w->name, w->gbs,
                    w->first, w->last);
        CHECK(strcmp(p[i].name, w->name) == 0);
        CHECK(NEAR(p[i].gbs, w->gbs, 1e-3));
        CHECK(p[i].first_bytes == w->first && p[i].last_bytes == w->last);
    }
}

/* The detector on a recorded curve (its best samples, as ceilings uses
 * them), with the caches of the machine it was recorded on. */
static void test_golden_plateaus(void)
{
    for (size_t k = 0; k < sizeof(goldens) / sizeof(goldens[0]); k++) {
        const golden *g = &goldens[k];
        json_t *doc = fixture(g->fixture);
        const json_t *cv = doc ? curve_of(doc, g->kernel, g->threads) : NULL;
        CHECK(cv != NULL);
        if (!cv) {
            json_decref(doc);
            continue;
        }
        double x[256], y[256];
        size_t n = 0, i;
        json_t *pt;
        json_array_foreach(json_object_get(cv, "points"), i, pt)
        {
            if (n == 256)
                break;
            x[n] = json_number_value(json_object_get(pt, "bytes"));
            y[n++] = json_number_value(json_object_get(pt, "gbs_best"));
        }
        plateau p[8];
        const double past = fmax(1024.0 * MIB, 4.0 * g->cache[2]);
        const size_t np =
            plateau_detect(x, y, n, 1.12, past * 0.99, 3, g->cache, p, 8);
        check_levels(g, p, np);
        json_decref(doc);
    }
}

/* The roofline of a recorded ceilings.json, and the bound of a default run
 * point on it: dot in f64 at P = 10^7 (160 MB) is in DRAM, 0.125 FLOP/B. */
static void test_golden_roofline(void)
{
    json_t *doc = fixture("ceilings-zen5-run-roofline.json");
    roofline r;
    rb_err e;
    CHECK(doc != NULL);
    CHECK_INT(roofline_from_doc(doc, "fixture", &r, &e), RB_OK);
    json_decref(doc);
    CHECK_INT(r.nteams, 2);
    CHECK(r.teams[0].threads == 1 && r.teams[1].threads == 2);
    CHECK(NEAR(r.teams[0].peak_gflops[RB_F64], 134.82, 1e-4));
    CHECK(NEAR(r.teams[1].peak_gflops[RB_F32], 526.51, 1e-4));
    CHECK_INT(r.teams[0].nlevels, 4);
    CHECK(strcmp(r.teams[0].levels[3].name, "DRAM") == 0);
    roof_bound b;
    char why[256];
    CHECK_INT(roofline_bound(&r, 1, RB_F64, 20000000, 160000008, 5.0, &b, why,
                             sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "DRAM") == 0 && !b.compute_bound);
    CHECK(NEAR(b.attainable_gflops, 0.125 * 40.49, 1e-3));
    /* matmul 512^3 f64 (6.29 MB, in L3): compute-bound at 42.7 FLOP/B */
    CHECK_INT(roofline_bound(&r, 2, RB_F64, 268435456, 6291456, 100.0, &b, why,
                             sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "L3") == 0 && b.compute_bound);
    profile p;
    CHECK_INT(roofline_to_profile(&r, &p, &e), RB_OK);
    CHECK(NEAR(p.mem_bw, 47.09e9, 1e-3));
}

int main(void)
{
    test_bound();
    test_from_doc();
    test_to_profile();
    test_golden_plateaus();
    test_golden_roofline();
    return check_status("test_roofline");
}
