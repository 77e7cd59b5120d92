/* The host roofline: the bound of a point (roofline_bound), reading a
 * ceilings document with every field checked (roofline_from_doc), the host
 * as a profile (roofline_to_profile), all on hand-computed cases; then
 * golden files: the plateau detector and the roofline on real ceilings.json
 * curves recorded on other machines (tests/fixtures), each with the levels
 * it must give. */
#include <math.h>
#include <stdlib.h>

#include "ceilings.h"
#include "check.h"
#include "drift.h"
#include "plateau.h"
#include "report_run.h"
#include "roofline.h"
#include "sweep.h"

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel)*fabs(b))

/* One thread: peak f32 100, f64 50 GFLOP/s (spread 1%); read roof L1
 * 200 GB/s from 4 KiB to 32 KiB, L2 100 GB/s from 64 KiB to 1 MB, DRAM
 * 20 GB/s from 100 MB to 1 GB (spreads 2%, 5%, 10%), the envelope through
 * (1e6, 100) and (1e8, 20); a mixed roof with L1 at 300 GB/s (triad) and
 * the rest as the read roof's. */
static json_t *levels_json(double l1, const char *l1kernel)
{
    return json_pack(
        "[{s:s, s:f, s:f, s:s, s:f, s:f}, {s:s, s:f, s:f, s:s, s:f, s:f}, "
        "{s:s, s:f, s:f, s:s, s:f, s:f}]",
        "name", "L1", "gbs", l1, "spread", 0.02, "kernel", l1kernel,
        "starts_bytes", 4096.0, "ends_bytes", 32768.0, "name", "L2", "gbs",
        100.0, "spread", 0.05, "kernel", "read2", "starts_bytes", 65536.0,
        "ends_bytes", 1e6, "name", "DRAM", "gbs", 20.0, "spread", 0.10,
        "kernel", "read4", "starts_bytes", 1e8, "ends_bytes", 1e9);
}

static json_t *hand_doc(void)
{
    json_t *curve = json_pack("[[f, f], [f, f], [f, f], [f, f]]", 4096.0, 200.0,
                              1e6, 100.0, 1e8, 20.0, 1e9, 20.0);
    json_t *roofs = json_pack(
        "[{s:s, s:[s, s, s], s:o, s:o}, {s:s, s:[s, s], s:o, s:[]}]", "mix",
        "read", "kernels", "read", "read2", "read4", "levels",
        levels_json(200.0, "read"), "curve", curve, "mix", "mixed", "kernels",
        "read", "triad", "levels", levels_json(300.0, "triad"), "curve");
    return json_pack("{s:s, s:i, s:s, s:{s:s}, s:[{s:i, s:{s:f, s:f}, "
                     "s:{s:f, s:f}, s:o}]}",
                     "schema", "roofbench.ceilings", "schema_version",
                     CEILINGS_SCHEMA_VERSION, "status", "complete", "context",
                     "host", "h", "roofline", "threads", 1, "peak_gflops",
                     "f32", 100.0, "f64", 50.0, "peak_spread", "f32", 0.01,
                     "f64", 0.01, "roofs", roofs);
}

/* The hand-made document as a roofline, checked to load. */
static void hand_roofline(roofline *r)
{
    json_t *doc = hand_doc();
    rb_err e;
    CHECK_INT(roofline_from_doc(doc, "hand", r, &e), RB_OK);
    json_decref(doc);
}

/* The bound lands on the right level for a point in L1, far above the
 * ridge, between L2 and DRAM, and below the first and past the last level. */
static void bound_levels(const roofline *r)
{
    roof_bound b;
    char why[256];
    /* 2000 FLOPs on 16 KiB in L1: 0.1220703125 FLOP/B x 200 GB/s */
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 2000, 16384,
                             12.20703125, &b, why, sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "L1") == 0 && !b.compute_bound);
    CHECK(NEAR(b.attainable_gflops, 24.4140625, 1e-12));
    CHECK(NEAR(b.fraction, 0.5, 1e-12));
    /* far above the ridge: the peak of the dtype binds */
    CHECK_INT(roofline_bound(r, 1, RB_F32, RB_ACCESS_READ, 1000000000, 8192,
                             25.0, &b, why, sizeof(why)),
              0);
    CHECK(b.compute_bound && b.attainable_gflops == 100.0 &&
          NEAR(b.fraction, 0.25, 1e-12));
    /* between L2 and DRAM at 1e7 bytes: the curve halfway in log-log,
     * sqrt(100 x 20) GB/s, under both names */
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 10000000, 10000000,
                             1.0, &b, why, sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "L2>DRAM") == 0);
    CHECK(NEAR(b.level.gbs, sqrt(2000.0), 1e-12));
    CHECK(NEAR(b.attainable_gflops, sqrt(2000.0), 1e-12));
    /* below the first plateau and past the last: the first and the last */
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 100, 100, 1.0, &b,
                             why, sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "L1") == 0 && b.attainable_gflops == 50.0);
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 10, 100000000000ull,
                             0.0, &b, why, sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "DRAM") == 0);
    CHECK(NEAR(b.attainable_gflops, 1e-10 * 20.0, 1e-12));
}

/* The access mix chooses the roof: mixed access is held to the mixed roof
 * and read access to the read roof, each named by its kernel. */
static void bound_mix(const roofline *r)
{
    roof_bound b;
    char why[256];
    /* the mix picks the roof: a kernel that writes is held to the mixed
     * roof, triad's 300 GB/s in L1, and the table names the kernel */
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_MIXED, 2000, 16384, 1.0,
                             &b, why, sizeof(why)),
              0);
    CHECK(b.mix == RB_ACCESS_MIXED && b.level.gbs == 300.0);
    CHECK(strcmp(roof_bound_roof(&b), "triad") == 0);
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 2000, 16384, 1.0,
                             &b, why, sizeof(why)),
              0);
    CHECK(b.mix == RB_ACCESS_READ && b.level.gbs == 200.0);
    CHECK(strcmp(roof_bound_roof(&b), "read") == 0);
}

/* A point is flagged above the roof only beyond the spread of what binds
 * it: a memory level, the peak, or the larger of two levels' spreads. */
static void bound_spread(const roofline *r)
{
    roof_bound b;
    char why[256];
    /* above the roof only beyond its spread: DRAM's is 10%, so 109% of
     * 0.125 x 20 GB/s is noise and 111% is flagged */
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 125000000,
                             1000000000, 2.5 * 1.09, &b, why, sizeof(why)),
              0);
    CHECK(strcmp(b.level.name, "DRAM") == 0 && b.spread == 0.10 && !b.above);
    CHECK(strcmp(roof_bound_roof(&b), "read4") == 0);
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 125000000,
                             1000000000, 2.5 * 1.11, &b, why, sizeof(why)),
              0);
    CHECK(b.above && NEAR(b.fraction, 1.11, 1e-12));
    /* compute-bound: the peak's spread, 1% */
    CHECK_INT(roofline_bound(r, 1, RB_F32, RB_ACCESS_MIXED, 1000000000, 8192,
                             100.5, &b, why, sizeof(why)),
              0);
    CHECK(b.compute_bound && !b.above && b.spread == 0.01);
    CHECK(strcmp(roof_bound_roof(&b), "compute") == 0);
    CHECK_INT(roofline_bound(r, 1, RB_F32, RB_ACCESS_MIXED, 1000000000, 8192,
                             102.0, &b, why, sizeof(why)),
              0);
    CHECK(b.above);
    /* between two levels the larger of their spreads */
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 10000000, 10000000,
                             1.0, &b, why, sizeof(why)),
              0);
    CHECK(b.spread == 0.10 && strcmp(roof_bound_roof(&b), "L2>DRAM") == 0);
}

/* Mixed access falls back to the read roof when the mixed roof found no
 * level and when it was not measured, and leaves it marked unmeasured. */
static void bound_fallback(roofline *r)
{
    roof_bound b;
    char why[256];
    /* a mixed roof that found no level: the read roof too */
    r->teams[0].bw[RB_ACCESS_MIXED].nlevels = 0;
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_MIXED, 2000, 16384, 1.0,
                             &b, why, sizeof(why)),
              0);
    CHECK(b.mix == RB_ACCESS_READ && b.level.gbs == 200.0);
    r->teams[0].bw[RB_ACCESS_MIXED].nlevels = 3;
    /* no mixed roof measured: the read roof, and the bound says so */
    r->teams[0].bw[RB_ACCESS_MIXED].present = 0;
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_MIXED, 2000, 16384, 1.0,
                             &b, why, sizeof(why)),
              0);
    CHECK(b.mix == RB_ACCESS_READ && b.level.gbs == 200.0);
}

/* With no team for the thread count, no peak for the dtype or no memory
 * level there is no bound, and the reason says which is missing. */
static void bound_refusals(roofline *r)
{
    roof_bound b;
    char why[256];
    /* why there is no bound */
    CHECK_INT(roofline_bound(r, 2, RB_F64, RB_ACCESS_READ, 1, 1, 1.0, &b, why,
                             sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no roofline for 2 threads (it has 1)");
    r->teams[0].peak_gflops[RB_F32] = 0.0;
    CHECK_INT(roofline_bound(r, 1, RB_F32, RB_ACCESS_READ, 1, 1, 1.0, &b, why,
                             sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no f32 peak");
    r->teams[0].bw[RB_ACCESS_READ].nlevels = 0;
    CHECK_INT(roofline_bound(r, 1, RB_F64, RB_ACCESS_READ, 1, 1, 1.0, &b, why,
                             sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no memory level");
}

/* roofline_bound on the hand-made roofline, one theme after another; the
 * last two change the roofline they are given. */
static void test_bound(void)
{
    roofline r;
    hand_roofline(&r);
    bound_levels(&r);
    bound_mix(&r);
    bound_spread(&r);
    bound_fallback(&r);
    bound_refusals(&r);
}

/* The hand document with one field changed: path is "levels.0.gbs" (of
 * the read roof), "roofs.0.mix", "threads", "curve" or "peak_spread" (of
 * the first team), "roof" (one more roof), "team" or a top-level key. */
static int edited(const char *path, json_t *value, rb_err *e)
{
    json_t *doc = hand_doc();
    json_t *team = json_array_get(json_object_get(doc, "roofline"), 0);
    json_t *roofs = json_object_get(team, "roofs");
    json_t *read = json_array_get(roofs, 0);
    if (strncmp(path, "levels.", 7) == 0) {
        char key[32];
        const int i = atoi(path + 7);
        snprintf(key, sizeof(key), "%s", strchr(path + 7, '.') + 1);
        json_object_set_new(
            json_array_get(json_object_get(read, "levels"), (size_t)i), key,
            value);
    } else if (strcmp(path, "curve") == 0) {
        json_object_set_new(read, path, value);
    } else if (strcmp(path, "roofs.0.mix") == 0) {
        json_object_set_new(read, "mix", value);
    } else if (strcmp(path, "roof") == 0) {
        json_array_append_new(roofs, value);
    } else if (strcmp(path, "threads") == 0 ||
               strcmp(path, "peak_spread") == 0 || strcmp(path, "roofs") == 0) {
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
    const roof_bw *rd = roof_team_read(&r.teams[0]);
    CHECK(r.teams[0].threads == 1 && rd->nlevels == 3 && rd->npoints == 4);
    CHECK(r.teams[0].peak_gflops[RB_F32] == 100.0 &&
          r.teams[0].peak_gflops[RB_F64] == 50.0 &&
          r.teams[0].peak_spread[RB_F64] == 0.01);
    CHECK(rd->levels[1].ends_bytes == 1e6 && rd->levels[1].spread == 0.05);
    CHECK(strcmp(rd->levels[2].kernel, "read4") == 0);
    CHECK(r.teams[0].bw[RB_ACCESS_MIXED].present &&
          r.teams[0].bw[RB_ACCESS_MIXED].levels[0].gbs == 300.0);
    json_decref(doc);
    static const struct {
        const char *path, *value, *msg;
    } bad[] = {
        {"schema", "\"roofbench.run\"", "not a roofbench ceilings file"},
        {"schema_version", "1",
         "schema version 1, this roofbench reads "
         "version 2"},
        {"status", "\"interrupted\"", "did not complete (status interrupted)"},
        {"status", "5", "did not complete (status not text)"},
        {"levels.1.name", "\"L1\"",
         "roofline[0].roofs[0].levels[1]: level L1 after L1"},
        {"levels.2.name", "\"L1\"",
         "roofline[0].roofs[0].levels[2]: level L1 after L2"},
        {"levels.1.starts_bytes", "16384",
         "roofline[0].roofs[0].levels[1]: level L2 after L1: the levels of "
         "a roof are the plateaus from the smallest working set up"},
        {"levels.0.name", "\"';system(\\\"id\\\")#\"",
         "roofline[0].roofs[0].levels[0].name: ''"},
        {"levels.1.name", "\"L\\u00e9vel\"", "is not a level name"},
        {"levels.0.gbs", "4.9e-324",
         "roofline[0].roofs[0].levels[0].gbs = 4.94066e-324: not a "
         "bandwidth"},
        {"levels.2.gbs", "1e308",
         "roofline[0].roofs[0].levels[2].gbs = 1e+308"},
        {"levels.1.gbs", "\"fast\"",
         "roofline[0].roofs[0].levels[1].gbs: not a number"},
        {"levels.1.ends_bytes", "100",
         "roofline[0].roofs[0].levels[1] ends before"},
        {"threads", "0", "roofline[0].threads: not a thread count"},
        {"curve", "[[4096, 0]]", "roofline[0].roofs[0].curve[0] = 0"},
        {"levels.0.kernel", "\"read;rm\"",
         "roofline[0].roofs[0].levels[0].kernel: not a bandwidth kernel"},
        {"levels.1.spread", "-0.5",
         "roofline[0].roofs[0].levels[1].spread = -0.5: not a spread"},
        {"levels.1.spread", "null",
         "roofline[0].roofs[0].levels[1].spread: not a number"},
        {"peak_spread", "{\"f32\": 0.01}",
         "roofline[0].peak_spread.f64: missing"},
        {"roofs.0.mix", "\"write\"", "roofline[0].roofs[0].mix: not read"},
        {"roof", "{\"mix\": \"mixed\"}", "the mixed roof twice"},
        {"roofs", "[]", "roofline[0]: no read roof"},
        {"team", "{\"threads\": 2}", "roofline[1]: no read roof"},
        {"team", "{\"threads\": 1, \"roofs\": [{\"mix\": \"read\"}]}",
         "roofline[1]: 1 threads twice"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *v = json_loads(bad[i].value, JSON_DECODE_ANY, NULL);
        CHECK(v != NULL);
        CHECK_INT(edited(bad[i].path, v, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
        CHECK_STR_HAS(e.msg, "--ceilings 'x'");
    }
    /* a document that does not say how it ended */
    doc = hand_doc();
    json_object_del(doc, "status");
    CHECK_INT(roofline_from_doc(doc, "hand", &r, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "did not complete (status missing)");
    json_decref(doc);
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
    json_array_append_new(
        json_object_get(doc, "roofline"),
        json_pack("{s:i, s:{s:f}, s:{s:f}, s:[{s:s, s:[{s:s, s:f, s:f, s:s, "
                  "s:f, s:f}]}]}",
                  "threads", 2, "peak_gflops", "f64", 90.0, "peak_spread",
                  "f64", 0.0, "roofs", "mix", "read", "levels", "name", "DRAM",
                  "gbs", 35.0, "spread", 0.0, "kernel", "read2", "starts_bytes",
                  1e8, "ends_bytes", 1e9));
    CHECK_INT(roofline_from_doc(doc, "hand", &r, &e), RB_OK);
    json_decref(doc);
    profile p;
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_READ, &p, &e), RB_OK);
    CHECK(strcmp(p.id, "host") == 0);
    CHECK_STR_HAS(p.name, "h, measured, 2 threads");
    CHECK(strstr(p.name, "mixed") == NULL);
    CHECK(p.peak[PD_FP64] == 90e9 && p.peak[PD_FP32] == 0.0);
    CHECK(p.headline == PD_FP64 && p.mem_bw == 35e9);
    CHECK(p.peak[pdtype_of(RB_F64)] == p.peak[PD_FP64]);
    /* the mixed roof asked for but not measured: the read roof's */
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_MIXED, &p, &e), RB_OK);
    CHECK(p.mem_bw == 35e9);
    CHECK(strstr(p.name, "mixed") == NULL);
    /* measured, with a DRAM plateau of its own (a Schoenauer triad that
     * outran the reads): that one, named so; the read roof's otherwise */
    roof_bw *mx = &r.teams[1].bw[RB_ACCESS_MIXED];
    *mx = r.teams[1].bw[RB_ACCESS_READ];
    mx->levels[0].gbs = 44.0;
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_MIXED, &p, &e), RB_OK);
    CHECK(p.mem_bw == 44e9);
    CHECK_STR_HAS(p.name, "h, measured, 2 threads, mixed roof");
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_READ, &p, &e), RB_OK);
    CHECK(p.mem_bw == 35e9);
    snprintf(mx->levels[0].name, sizeof(mx->levels[0].name), "L3");
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_MIXED, &p, &e), RB_OK);
    CHECK(p.mem_bw == 35e9);
    CHECK(strstr(p.name, "mixed") == NULL);
    /* no DRAM plateau: not a profile */
    r.teams[1].bw[RB_ACCESS_READ].nlevels = 0;
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_READ, &p, &e), RB_EINPUT);
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
    {"ceilings-xeon-emr-curves-1t.json",
     "read",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 279.46, 4096, 46592},
      {"L2", 139.13, 69632, 1195520},
      {"L3", 28.68, 4035584, 45967872},
      {"DRAM", 15.93, 103428608, 2181038080}},
     4},
    {"ceilings-xeon-emr-curves-1t.json",
     "write",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 191.18, 4096, 46592},
      {"L2", 46.91, 69632, 1793536},
      {"L3", 25.74, 2690048, 30645248},
      {"DRAM", 8.50, 155143168, 2181038080}},
     4},
    {"ceilings-xeon-emr-curves-1t.json",
     "copy",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 382.93, 4096, 46080},
      {"L2", 78.18, 69632, 1195008},
      {"L3", 28.40, 4035584, 30645248},
      {"DRAM", 13.34, 155143168, 2181038080}},
     4},
    {"ceilings-xeon-emr-curves-1t.json",
     "triad",
     1,
     {48 * KIB, 2 * MIB, 260 * MIB},
     {{"L1", 433.90, 3072, 46080},
      {"L2", 102.82, 69120, 529920},
      {"L3", 28.54, 1792512, 30644736},
      {"DRAM", 13.88, 103428096, 2181037056}},
     4},
    {"ceilings-xeon-emr-curves-1t.json",
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

/* A recorded document's curves of one team as the measurement holds
 * them (points allocated into curves[i].points; free them). */
static int curves_of(const json_t *doc, int threads, ceil_curve *curves,
                     int max)
{
    int n = 0;
    size_t i, j;
    json_t *cv, *pt;
    json_array_foreach(json_object_get(doc, "bandwidth"), i, cv)
    {
        if (json_integer_value(json_object_get(cv, "threads")) != threads ||
            n == max)
            continue;
        ceil_curve *c = &curves[n];
        memset(c, 0, sizeof(*c));
        const char *name = json_string_value(json_object_get(cv, "kernel"));
        c->kernel = BW_NKERNELS;
        for (int k = 0; k < BW_NKERNELS; k++)
            if (strcmp(name, bw_kernel_name((bw_kernel)k)) == 0)
                c->kernel = (bw_kernel)k;
        CHECK(c->kernel != BW_NKERNELS);
        c->threads = threads;
        const json_t *pts = json_object_get(cv, "points");
        c->points = calloc(json_array_size(pts), sizeof(*c->points));
        json_array_foreach(pts, j, pt)
        {
            c->points[j].bytes =
                json_number_value(json_object_get(pt, "bytes"));
            c->points[j].gbs_best =
                json_number_value(json_object_get(pt, "gbs_best"));
        }
        c->npoints = json_array_size(pts);
        n++;
    }
    return n;
}

/* The curves of one team in a recorded document (points allocated into
 * curves[i].points; free them); -1 where the fixture cannot be read. */
static int fixture_curves(const char *name, int threads, ceil_curve *curves)
{
    json_t *doc = fixture(name);
    CHECK(doc != NULL);
    if (!doc)
        return -1;
    const int n = curves_of(doc, threads, curves, BW_NKERNELS);
    json_decref(doc);
    return n;
}

static const plateau *level_named(const ceil_roof *r, const char *name,
                                  size_t *at)
{
    for (size_t l = 0; l < r->nlevels; l++)
        if (strcmp(r->levels[l].name, name) == 0) {
            *at = l;
            return &r->levels[l];
        }
    return NULL;
}

/* A synthetic curve: flat at l1 up to 32 KiB, at dram from 1 MiB to
 * 1 GiB, a straight line in log-log between; bump multiplies one DRAM
 * point (the roof's own noise). */
static void synthetic(ceil_curve *c, bw_kernel k, double l1, double dram,
                      double bump)
{
    memset(c, 0, sizeof(*c));
    c->kernel = k;
    c->threads = 1;
    c->points = calloc(CEIL_MAX_POINTS, sizeof(*c->points));
    for (double ws = 4096; ws <= 1024 * MIB * 1.0001;
         ws = ws * 1.25 > 1024 * MIB && ws < 1024 * MIB ? 1024 * MIB
                                                        : ws * 1.25) {
        ceil_point *p = &c->points[c->npoints++];
        p->bytes = ws;
        const double f = fmin(1.0, fmax(0.0, log(ws / (32 * KIB)) / log(32.0)));
        p->gbs_best = exp(log(l1) + f * (log(dram) - log(l1)));
    }
    c->points[c->npoints - 3].gbs_best *= bump;
}

/* The roof of each mix on synthetic curves with known levels: reads take
 * the best read kernel per level (read in L1, read2 in DRAM), the mixed
 * roof adds triad (best in L1) but never write (fastest of all in L1, but
 * no kernel that reads is held to a store-only stream); the spread is the
 * level kernel's best point over its median. */
static void test_roof_selection(void)
{
    ceil_curve c[5];
    synthetic(&c[0], BW_READ, 100.0, 10.0, 1.0);
    synthetic(&c[1], BW_READ2, 90.0, 14.0, 1.10);
    synthetic(&c[2], BW_READ4, 95.0, 13.0, 1.0);
    synthetic(&c[3], BW_TRIAD, 150.0, 9.0, 1.0);
    synthetic(&c[4], BW_WRITE, 400.0, 5.0, 1.0);
    const double cache[1] = {48 * KIB};
    ceil_roof read, mixed, only_reads;
    ceilings_roof_build(c, 5, 1, RB_ACCESS_READ, 1024 * MIB, 1, cache, &read);
    ceilings_roof_build(c, 5, 1, RB_ACCESS_MIXED, 1024 * MIB, 1, cache, &mixed);
    CHECK_INT(read.nlevels, 2);
    CHECK_INT(mixed.nlevels, 2);
    if (read.nlevels == 2 && mixed.nlevels == 2) {
        CHECK(strcmp(read.levels[0].name, "L1") == 0);
        CHECK(strcmp(read.levels[1].name, "DRAM") == 0);
        CHECK(read.level_kernel[0] == BW_READ &&
              NEAR(read.levels[0].gbs, 100.0, 1e-9));
        CHECK(read.level_kernel[1] == BW_READ2 &&
              NEAR(read.levels[1].gbs, 14.0, 1e-9));
        if (!NEAR(read.level_spread[1], 0.10, 1e-9))
            fprintf(stderr, "  DRAM spread %g over [%.0f, %.0f]\n",
                    read.level_spread[1], read.levels[1].first_bytes,
                    read.levels[1].last_bytes);
        CHECK(NEAR(read.level_spread[1], 0.10, 1e-9));
        CHECK(read.level_spread[0] == 0.0);
        CHECK(mixed.level_kernel[0] == BW_TRIAD &&
              NEAR(mixed.levels[0].gbs, 150.0, 1e-9));
        CHECK(mixed.level_kernel[1] == BW_READ2);
    }
    CHECK(!(mixed.kernels >> BW_WRITE & 1u) &&
          !(read.kernels >> BW_TRIAD & 1u));
    /* the envelope: read2 wins the bumped DRAM point */
    CHECK(read.winner[read.npoints - 3] == BW_READ2);
    /* no kernel that writes swept: no mixed roof (the read roof would pass
     * under its name) */
    ceilings_roof_build(c, 3, 1, RB_ACCESS_MIXED, 1024 * MIB, 1, cache,
                        &only_reads);
    CHECK(!only_reads.present);
    /* the spread counts every kernel of the mix: read4's best DRAM point
     * (13 x 1.25) beats read2's (14 x 1.10), though read2's median wins */
    free(c[2].points);
    synthetic(&c[2], BW_READ4, 95.0, 13.0, 1.25);
    ceilings_roof_build(c, 5, 1, RB_ACCESS_READ, 1024 * MIB, 1, cache, &read);
    CHECK(read.nlevels == 2 && read.level_kernel[1] == BW_READ2);
    CHECK(NEAR(read.level_spread[1], 13.0 * 1.25 / 14.0 - 1.0, 1e-9));
    /* another team's curves are not this team's */
    ceilings_roof_build(c, 5, 2, RB_ACCESS_READ, 1024 * MIB, 1, cache, &read);
    CHECK(!read.present);
    for (int i = 0; i < 5; i++)
        free(c[i].points);
}

/* The roofs built from recorded curves (Zen 5: read, write, copy, triad,
 * schoenauer on one thread). The read roof is the read curve's levels (the
 * only read kernel recorded there); the mixed roof leaves write out and is
 * about the read roof or above at every level, triad's 770 GB/s in L1
 * against
 * read's 557 (the row of a kernel that stores in L1 is held to that). */
static void test_golden_roofs(void)
{
    ceil_curve curves[BW_NKERNELS];
    const int n = fixture_curves("ceilings-zen5-quick-1t.json", 1, curves);
    if (n < 0)
        return;
    CHECK_INT(n, 5);
    const double cache[3] = {48 * KIB, MIB, 32 * MIB};
    ceil_roof read, mixed;
    ceilings_roof_build(curves, n, 1, RB_ACCESS_READ, 1024 * MIB, 3, cache,
                        &read);
    ceilings_roof_build(curves, n, 1, RB_ACCESS_MIXED, 1024 * MIB, 3, cache,
                        &mixed);
    CHECK(read.present && read.kernels == 1u << BW_READ);
    CHECK(mixed.present && !(mixed.kernels >> BW_WRITE & 1u) &&
          (mixed.kernels >> BW_TRIAD & 1u));
    /* the read roof: the read curve's own levels (test_golden_plateaus) */
    static const want_level rw[4] = {{"L1", 556.76, 4096, 46592},
                                     {"L2", 208.59, 69632, 796672},
                                     {"L3", 131.46, 1195520, 13620224},
                                     {"DRAM", 42.37, 155143168, 1073741824}};
    CHECK_INT(read.nlevels, 4);
    for (size_t l = 0; l < read.nlevels && l < 4; l++) {
        CHECK(strcmp(read.levels[l].name, rw[l].name) == 0);
        CHECK(NEAR(read.levels[l].gbs, rw[l].gbs, 1e-3));
        CHECK(read.level_kernel[l] == BW_READ);
        CHECK(read.level_spread[l] >= 0.0 && read.level_spread[l] < 0.5);
    }
    size_t at = 0;
    const plateau *l1 = level_named(&mixed, "L1", &at);
    CHECK(l1 != NULL);
    if (l1) {
        CHECK(mixed.level_kernel[at] == BW_TRIAD);
        CHECK(NEAR(l1->gbs, 769.90, 0.03));
    }
    for (size_t l = 0; l < mixed.nlevels; l++) {
        size_t k;
        const plateau *r = level_named(&read, mixed.levels[l].name, &k);
        if (r && !(mixed.levels[l].gbs >= r->gbs * 0.97))
            fprintf(
                stderr,
                "  mixed %s %.2f [%.0f, %.0f] below read %.2f [%.0f, %.0f]\n",
                mixed.levels[l].name, mixed.levels[l].gbs,
                mixed.levels[l].first_bytes, mixed.levels[l].last_bytes, r->gbs,
                r->first_bytes, r->last_bytes);
        /* within 3%: the envelope's levels need not end where the read
         * curve's do (Zen 5's mixed L3 runs on to 20 MB, where reads have
         * begun to slow) */
        if (r)
            CHECK(mixed.levels[l].gbs >= r->gbs * 0.97);
    }
    /* the envelope is the best curve at every point */
    for (size_t p = 0; p < mixed.npoints; p++)
        CHECK(mixed.gbs[p] >= read.gbs[p] * 0.999 || p >= read.npoints);
    for (int i = 0; i < n; i++)
        free(curves[i].points);
}

/* Curves recorded on this Xeon while other work ran on the second core: the
 * 2-thread read envelope's L1 plateau runs on through L2 ("L1-L2"), and
 * the detector once named the plateaus after it L3 and L4 on a machine
 * with three caches. Every name must be a level the machine has, and the
 * sweep's "L2" must find the span that holds it. */
static void test_disturbed_roof(void)
{
    ceil_curve curves[BW_NKERNELS];
    const int n = fixture_curves("ceilings-xeon-emr-disturbed-2t.json", 2, curves);
    if (n < 0)
        return;
    CHECK(n >= 3);
    const double cache[3] = {96 * KIB, 4 * MIB, 520 * MIB};
    ceil_roof read;
    ceilings_roof_build(curves, n, 2, RB_ACCESS_READ,
                        fmax(1024 * MIB, 4.0 * 260 * MIB), 3, cache, &read);
    CHECK(read.present && read.nlevels >= 2);
    static const char *const names[] = {"L1",    "L2",    "L3",  "L1-L2",
                                        "L2-L3", "L1-L3", "DRAM"};
    roof_team t;
    memset(&t, 0, sizeof(t));
    t.threads = 2;
    roof_bw *b = &t.bw[RB_ACCESS_READ];
    b->present = 1;
    for (size_t l = 0; l < read.nlevels; l++) {
        int known = 0;
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
            known |= strcmp(read.levels[l].name, names[k]) == 0;
        if (!known)
            fprintf(stderr, "  level %zu named %s\n", l, read.levels[l].name);
        CHECK(known);
        snprintf(b->levels[l].name, sizeof(b->levels[l].name), "%s",
                 read.levels[l].name);
        b->levels[l].gbs = read.levels[l].gbs;
        b->levels[l].starts_bytes = read.levels[l].first_bytes;
        b->levels[l].ends_bytes = read.levels[l].last_bytes;
    }
    b->nlevels = read.nlevels;
    const roof_level *l2 = sweep_level(&t, "L2");
    CHECK(l2 != NULL);
    if (l2)
        CHECK(l2->starts_bytes <= 2 * MIB && l2->ends_bytes >= 2 * MIB);
    CHECK(sweep_level(&t, "L9") == NULL && sweep_level(&t, "DRAM") != NULL);
    for (int i = 0; i < n; i++)
        free(curves[i].points);
}

/* The 2-thread read roof of recorded Xeon curves (fixture name), with
 * the team's caches as hwloc gave them and the DRAM threshold of an
 * implausible L3 (believed 64 MiB a core), checked to have the four
 * levels L1, L2, L3 and DRAM. The curves stay in curves (n of them, -1
 * where the fixture is missing) for the caller to free. */
static const double xeon_2t_cache[3] = {96 * KIB, 4 * MIB, 260 * MIB};

static int xeon_2t_read_roof(const char *name, ceil_curve *curves,
                             ceil_roof *read)
{
    const int n = fixture_curves(name, 2, curves);
    if (n < 0)
        return n;
    CHECK_INT(n, 7);
    ceilings_roof_build(curves, n, 2, RB_ACCESS_READ,
                        fmax(1024 * MIB, 4.0 * 128 * MIB), 3, xeon_2t_cache,
                        read);
    static const char *const want[] = {"L1", "L2", "L3", "DRAM"};
    CHECK_INT(read->nlevels, 4);
    for (size_t l = 0; l < read->nlevels && l < 4; l++) {
        if (strcmp(read->levels[l].name, want[l]) != 0)
            fprintf(stderr, "  level %zu named %s (%.1f GB/s), want %s\n", l,
                    read->levels[l].name, read->levels[l].gbs, want[l]);
        CHECK(strcmp(read->levels[l].name, want[l]) == 0);
    }
    return n;
}

/* Curves recorded on this Xeon (2026-12-03, the main job's ceilings) whose
 * 2-thread read envelope is jagged enough that the segmentation's penalty
 * let its L1 segment take in the first point of the L1-L2 transition and
 * its DRAM segment the last two of the L3 one: both failed the flatness
 * test whole, the roof came out as "L1-L2" and L3 with no DRAM, and the
 * main job's sweep and model steps failed. Trimmed, the four levels. */
static void test_nodram_roof(void)
{
    ceil_curve curves[BW_NKERNELS];
    ceil_roof read;
    const int n =
        xeon_2t_read_roof("ceilings-xeon-emr-nodram-2t.json", curves, &read);
    if (n < 0)
        return;
    if (read.nlevels == 4) {
        /* DRAM to 1 GiB, from past the 135 MiB point (41 GB/s, the
         * transition's, trimmed), at 29 to 32 GB/s */
        CHECK(read.levels[3].first_bytes > 200 * MIB &&
              read.levels[3].last_bytes == 1024 * MIB);
        CHECK(read.levels[3].gbs > 28.0 && read.levels[3].gbs < 33.0);
        CHECK(read.levels[0].last_bytes < 96 * KIB);
    }
    for (int i = 0; i < n; i++)
        free(curves[i].points);
}

/* Curves recorded on this Xeon (2026-12-03, a later main job's ceilings)
 * whose 2-thread read4 and read envelope kept its L3 plateau to 135 MiB
 * and a DRAM tail still falling from 38 to 30 GB/s between 303 MiB and
 * 1 GiB: the tail failed the flatness test, and the L3 plateau, reaching
 * past an eighth of the sweep's end, was named DRAM (58 GB/s), so that
 * the sweep's 2-thread "DRAM" weights were 9 MB. A level named DRAM must
 * reach the sweep's end; here the roof has its L3 at 55 to 60 GB/s and
 * its DRAM at 28 to 34. */
static void test_l3_as_dram_roof(void)
{
    ceil_curve curves[BW_NKERNELS];
    ceil_roof read;
    const int n =
        xeon_2t_read_roof("ceilings-xeon-emr-l3asdram-2t.json", curves, &read);
    if (n < 0)
        return;
    if (read.nlevels == 4) {
        CHECK(read.levels[2].gbs > 55.0 && read.levels[2].gbs < 60.0);
        CHECK(read.levels[3].last_bytes == 1024 * MIB);
        CHECK(read.levels[3].gbs > 28.0 && read.levels[3].gbs < 34.0);
    }
    /* read4 alone has no flat tail at all: its last plateau, ending at 135
     * MiB, within twice the 260 MiB L3, is that L3, not DRAM */
    for (int i = 0; i < n; i++) {
        if (curves[i].kernel != BW_READ4)
            continue;
        double x[64], y[64];
        size_t m = 0;
        for (size_t j = 0; j < curves[i].npoints && m < 64; j++, m++) {
            x[m] = curves[i].points[j].bytes;
            y[m] = curves[i].points[j].gbs_best;
        }
        plateau p[8];
        const size_t np =
            plateau_detect(x, y, m, 1.12, 1024 * MIB * 0.99, 3,
                           xeon_2t_cache, p, 8);
        CHECK_INT(np, 3);
        if (np == 3)
            CHECK_STR_HAS(p[2].name, "L3");
    }
    for (int i = 0; i < n; i++)
        free(curves[i].points);
}

/* The roofline of a recorded v2 ceilings.json (this Xeon, read, read2 and
 * read4 swept), and the bound of default run points on it. */
static void test_golden_roofline(void)
{
    json_t *doc = fixture("ceilings-xeon-emr-quick-1t.json");
    roofline r;
    rb_err e;
    CHECK(doc != NULL);
    CHECK_INT(roofline_from_doc(doc, "fixture", &r, &e), RB_OK);
    json_decref(doc);
    CHECK_INT(r.nteams, 1);
    const roof_bw *rd = roof_team_read(&r.teams[0]);
    CHECK(rd->present && r.teams[0].bw[RB_ACCESS_MIXED].present);
    CHECK(rd->nlevels >= 3);
    CHECK(strcmp(rd->levels[rd->nlevels - 1].name, "DRAM") == 0);
    roof_bound b;
    char why[256];
    /* dot in f64 at P = 10^7 (160 MB): DRAM, 0.125 FLOP/B */
    CHECK_INT(roofline_bound(&r, 1, RB_F64, RB_ACCESS_READ, 20000000, 160000008,
                             1.0, &b, why, sizeof(why)),
              0);
    CHECK(!b.compute_bound && b.mix == RB_ACCESS_READ);
    CHECK(NEAR(b.attainable_gflops, 0.125 * b.level.gbs, 1e-6));
    /* matmul 512^3 f64: compute-bound at 42.7 FLOP/B */
    CHECK_INT(roofline_bound(&r, 1, RB_F64, RB_ACCESS_MIXED, 268435456, 6291456,
                             10.0, &b, why, sizeof(why)),
              0);
    CHECK(b.compute_bound && b.mix == RB_ACCESS_MIXED);
    profile p;
    CHECK_INT(roofline_to_profile(&r, RB_ACCESS_READ, &p, &e), RB_OK);
    CHECK(NEAR(p.mem_bw, rd->levels[rd->nlevels - 1].gbs * 1e9, 1e-9));
}

/* The drift rules on synthetic figures: a change beyond the noise moves,
 * within it does not, a missing end never does; the probe plan takes one
 * probe per roof level at the middle of its working sets, not twice where
 * the mixed roof's level is the read roof's; a transition row is judged by
 * the neighbour that moved most. */
static void test_drift(void)
{
    double change, noise;
    CHECK(!drift_moved(2.0, 2.05, DRIFT_CLOCK_NOISE, &change));
    CHECK(NEAR(change, 0.025, 1e-12));
    CHECK(drift_moved(4.2, 2.1, DRIFT_CLOCK_NOISE, &change));
    CHECK(NEAR(change, -0.5, 1e-12));
    CHECK(!drift_moved(0.0, 2.1, DRIFT_CLOCK_NOISE, &change) && isnan(change));
    /* the clock: a 5% move is noise where a reading spread by 6% */
    CHECK(drift_clock_moved(2.0, 0.01, 2.1, 0.01, &change, &noise) &&
          noise == DRIFT_CLOCK_NOISE);
    CHECK(!drift_clock_moved(2.0, 0.06, 2.1, 0.01, &change, &noise) &&
          noise == 0.06);
    roofline r;
    hand_roofline(&r);
    const int one = 1;
    drift_probes ps;
    drift_plan(&r, &one, 1, 1u << RB_ACCESS_READ | 1u << RB_ACCESS_MIXED, &ps);
    /* read L1, L2, DRAM; mixed L1 (triad) only: its L2 and DRAM are the
     * read roof's levels with the same kernels */
    CHECK_INT(ps.nprobes, 4);
    CHECK(strcmp(ps.probes[0].level, "L1") == 0 &&
          strcmp(ps.probes[0].kernel, "read") == 0 &&
          NEAR(ps.probes[0].bytes, sqrt(4096.0 * 32768.0), 1e-12));
    CHECK(ps.probes[3].mix == RB_ACCESS_MIXED &&
          strcmp(ps.probes[3].kernel, "triad") == 0);
    /* DRAM (read4) at both ends: 20 then 14 GB/s is -30%, beyond 5% */
    drift_probe *dram = &ps.probes[2];
    dram->gbs[0] = 20.0;
    dram->gbs[1] = 14.0;
    dram->have[0] = dram->have[1] = 1;
    dram->spread[0] = 0.02;
    dram->spread[1] = 0.08;
    CHECK(drift_probe_moved(dram, &change, &noise));
    CHECK(NEAR(change, -0.3, 1e-12) && noise == 0.08);
    dram->gbs[1] = 19.0; /* -5%, within its 8% noise */
    CHECK(!drift_probe_moved(dram, &change, &noise));
    dram->have[1] = 0; /* never measured at the end: not a verdict */
    CHECK(!drift_probe_moved(dram, &change, &noise) && isnan(change));
    /* against the roofline's figure (hand_roofline's DRAM: read4, its
     * level's gbs and spread carried by the plan): the better end, off
     * beyond the larger of 20% and the spreads */
    const roof_level *lv =
        roof_bw_level(&r.teams[0].bw[RB_ACCESS_READ], "DRAM");
    CHECK(lv && dram->roof_gbs == lv->gbs && dram->roof_spread == lv->spread);
    double ratio;
    dram->roof_gbs = 16.0;
    dram->roof_spread = 0.0;
    dram->spread[0] = dram->spread[1] = 0.02;
    dram->gbs[0] = 20.0; /* the start only: x1.25 */
    CHECK(drift_probe_off_roof(dram, &ratio, &noise));
    CHECK(NEAR(ratio, 1.25, 1e-12) && noise == DRIFT_ROOF_NOISE);
    dram->have[1] = 1; /* both ends: the better one, 21 */
    dram->gbs[0] = 17.0;
    dram->gbs[1] = 21.0;
    CHECK(drift_probe_off_roof(dram, &ratio, &noise));
    CHECK(NEAR(ratio, 21.0 / 16.0, 1e-12));
    dram->roof_spread = 0.35; /* within a spread of 35% */
    CHECK(!drift_probe_off_roof(dram, &ratio, &noise) && noise == 0.35);
    dram->roof_spread = 0.0;
    dram->gbs[0] = dram->gbs[1] = 12.0; /* x0.75: below it counts too */
    CHECK(drift_probe_off_roof(dram, &ratio, &noise));
    CHECK(NEAR(ratio, 0.75, 1e-12));
    dram->gbs[0] = dram->gbs[1] = 18.0; /* x1.125: within 20% */
    CHECK(!drift_probe_off_roof(dram, &ratio, &noise));
    dram->have[0] = dram->have[1] = 0; /* no end: no verdict */
    CHECK(!drift_probe_off_roof(dram, &ratio, &noise) && isnan(ratio));
    dram->have[0] = dram->have[1] = 1;
    dram->roof_gbs = 0.0; /* no figure: none either */
    CHECK(!drift_probe_off_roof(dram, &ratio, &noise) && isnan(ratio));
    dram->have[1] = 0;
    /* a mixed row in DRAM: the read roof's probe; in L1 its own */
    CHECK(drift_probe_for(&ps, 1, RB_ACCESS_MIXED, "DRAM") == dram);
    CHECK(drift_probe_for(&ps, 1, RB_ACCESS_MIXED, "L1") == &ps.probes[3]);
    /* a transition: the neighbour that moved most */
    dram->have[1] = 1;
    dram->gbs[1] = 10.0;
    ps.probes[1].have[0] = ps.probes[1].have[1] = 1;
    ps.probes[1].gbs[0] = ps.probes[1].gbs[1] = 100.0;
    CHECK(drift_probe_for(&ps, 1, RB_ACCESS_READ, "L2>DRAM") == dram);
    CHECK(drift_probe_for(&ps, 2, RB_ACCESS_READ, "DRAM") == NULL);
    /* no probe for a thread count the run does not use */
    const int two = 2;
    drift_plan(&r, &two, 1, 1u << RB_ACCESS_READ, &ps);
    CHECK_INT(ps.nprobes, 0);
}

/* A constructed row above its roof: dot in f64 on 1e9 bytes (DRAM, 20 GB/s,
 * spread 10%) at 130% of 0.125 x 20 GFLOP/s is flagged in the JSON, with
 * both figures, and in the table (!); one at 105% is within the spread,
 * and says so (+). */
static void test_flag_row(void)
{
    roofline r;
    rb_err e;
    hand_roofline(&r);
    static double samples[3];
    harness_row rows[2];
    memset(rows, 0, sizeof(rows));
    const double want[2] = {1.30, 1.05};
    for (int i = 0; i < 2; i++) {
        harness_row *row = &rows[i];
        row->kernel = rb_kernel_find("dot_simd");
        row->dtype = RB_F64;
        row->shape = (rb_shape){1, 125000000, 1};
        row->threads = 1;
        row->counts.flops = 125000000;
        row->counts.bytes = 1000000000;
        /* 2.5 GFLOP/s is the roof: t = 0.125 GFLOP / (2.5 x want) */
        row->time.min = row->time.median = 0.05 / want[i];
        row->nsamples = 1;
        row->samples = samples;
        row->ghz_before = 3.0;
        row->ghz_after = i ? 3.0 : 2.0; /* the first: its clock fell */
        row->check_after.tol = 1.0;
        row->check_before.passed = row->check_after.passed = 1;
    }
    harness_result res = {.rows = rows, .nrows = 2, .cap = 2};
    json_t *ctx =
        json_pack("{s:s, s:{s:s}}", "host", "h", "openblas", "corename", "x");
    run_doc doc = {
        .context = ctx, .res = &res, .roof = &r, .status = "complete"};
    char *text = report_run_json(&doc, &e);
    CHECK(text != NULL);
    json_t *out = text ? json_loads(text, 0, NULL) : NULL;
    json_t *r0 = json_object_get(
        json_array_get(json_object_get(out, "rows"), 0), "roofline");
    json_t *r1 = json_object_get(
        json_array_get(json_object_get(out, "rows"), 1), "roofline");
    CHECK(json_is_true(json_object_get(r0, "above_measured_roof")));
    CHECK(NEAR(json_number_value(json_object_get(r0, "fraction_of_attainable")),
               1.30, 1e-9));
    CHECK(NEAR(json_number_value(json_object_get(r0, "limit_fraction")), 1.10,
               1e-9));
    CHECK_STR_HAS(json_string_value(json_object_get(r0, "note")),
                  "above the measured roof: 130% of 2.5 GFLOP/s (read4), "
                  "beyond the roof's own spread of 10%");
    CHECK(json_is_false(json_object_get(r1, "above_measured_roof")));
    CHECK_STR_HAS(json_string_value(json_object_get(r1, "note")),
                  "over 100% of the roof, within its spread: 105% of 2.5 "
                  "GFLOP/s (read4), whose own measured points reach 110%");
    /* the clock that fell from 3.0 to 2.0 GHz marks the first row */
    json_t *s0 = json_object_get(
        json_array_get(json_object_get(out, "rows"), 0), "stability");
    CHECK(json_is_true(json_object_get(s0, "unstable")));
    CHECK_STR_HAS(
        json_string_value(json_array_get(json_object_get(s0, "reasons"), 0)),
        "the clock moved from 3.00 to 2.00 GHz (-33%, noise 3%)");
    json_decref(out);
    free(text);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_run_text(&doc, "dir", f);
    fclose(f);
    CHECK_STR_HAS(buf, "130.0%!~ read4");
    CHECK_STR_HAS(buf, "105.0%+  read4");
    CHECK_STR_HAS(buf, "! 1 row above the measured roof");
    CHECK_STR_HAS(buf, "+ 1 row over 100% of the roof but within its spread");
    free(buf);
    json_decref(ctx);
}

int main(void)
{
    test_bound();
    test_from_doc();
    test_to_profile();
    test_golden_plateaus();
    test_roof_selection();
    test_drift();
    test_flag_row();
    test_golden_roofs();
    test_disturbed_roof();
    test_nodram_roof();
    test_l3_as_dram_roof();
    test_golden_roofline();
    return check_status("test_roofline");
}
