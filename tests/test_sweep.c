/* The batch sweep's arithmetic on inputs with known answers: the grid of
 * batch sizes and its refusals, the ridge batch against the crossing of
 * the roof computed point by point, the knee finder on synthetic
 * roofline-shaped curves, and the weights' side for a level's plateau. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernel.h"
#include "report_sweep.h"
#include "sweep.h"

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel) * fabs(b))

static void grid_is(const char *spec, const uint64_t *want, size_t n)
{
    uint64_t got[SWEEP_MAX_POINTS];
    size_t k = 0;
    rb_err e = {""};
    const int rc = sweep_grid_parse("--batch", spec, got, &k, &e);
    if (rc || k != n)
        fprintf(stderr, "grid '%s': rc %d, %zu sizes, %s\n", spec, rc, k, e.msg);
    CHECK_INT(rc, RB_OK);
    CHECK_INT(k, n);
    for (size_t i = 0; i < n && i < k; i++)
        CHECK_INT(got[i], want[i]);
}

static void test_grid(void)
{
    grid_is("1:16", (const uint64_t[]){1, 2, 3, 4, 6, 8, 12, 16}, 8);
    grid_is("5:20", (const uint64_t[]){5, 6, 8, 12, 16, 20}, 6);
    grid_is("1:1", (const uint64_t[]){1}, 1);
    grid_is("7", (const uint64_t[]){7}, 1);
    grid_is("1,5,7", (const uint64_t[]){1, 5, 7}, 3);
    grid_is("1:10:x2", (const uint64_t[]){1, 2, 4, 8, 10}, 5);
    grid_is("1:5:x1.2", (const uint64_t[]){1, 2, 3, 4, 5}, 5);
    grid_is("1:64:x3", (const uint64_t[]){1, 3, 9, 27, 64}, 5);
    grid_is("1:4:x1000000", (const uint64_t[]){1, 4}, 2);
    grid_is("1:7:+3", (const uint64_t[]){1, 4, 7}, 3);
    grid_is("2:8:+3", (const uint64_t[]){2, 5, 8}, 3);
    grid_is("1:10:+4", (const uint64_t[]){1, 5, 9, 10}, 4);
    uint64_t got[SWEEP_MAX_POINTS];
    size_t k;
    rb_err e;
    CHECK_INT(sweep_grid_parse("--batch", "1:1024", got, &k, &e), RB_OK);
    CHECK_INT(k, 20); /* 1, 2, 3, 4, 6, ..., 512, 768, 1024 */
    CHECK_INT(got[k - 2], 768);
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"", "--batch '': no batch size"},
        {"16:1", "an empty range"},
        {"0:8", "too small"},
        {"1:8:x1", "does not advance"},
        {"1:8:x0.5", "does not advance"},
        {"1:8:+0", "does not advance"},
        {"1:8:y2", "neither xFACTOR nor +COUNT"},
        {"4,2", "sizes must ascend"},
        {"4,4", "given twice"},
        {"1:100:+1", "more than 64 batch sizes"},
        {"1:8:", "--batch '1:8:': no step after the second ':'"},
        {"1:4:+", "--batch '1:4:+': step '+' has no count"},
        {"1:4:x", "--batch '1:4:x': step 'x' has no factor"},
        {":4", "--batch ':4': LO:HI needs both sizes"},
        {"1:", "--batch '1:': LO:HI needs both sizes"},
        {"a:8", "--batch 'a'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e.msg[0] = '\0';
        CHECK_INT(sweep_grid_parse("--batch", bad[i].spec, got, &k, &e),
                  RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
    }
}

/* min(peak, I(B) bw) for [B,P] x [P,M] */
static double roof_at(double b, double p, double m, double el, double peak,
                      double bw)
{
    return fmin(peak, sweep_intensity(b, p, m, el) * bw);
}

static void test_ridge(void)
{
    /* by hand: 2 x 4 x 8 x 16 / (4 x (4 x 8 + 8 x 16 + 4 x 16)) */
    CHECK(NEAR(sweep_intensity(4, 8, 16, 4), 1024.0 / 896.0, 1e-15));
    /* 4-byte elements, peak 100, bandwidth 10: the weights-only answer is
     * s x ridge / 2 = 4 x 10 / 2 = 20; the exact one a little above it */
    const double b = sweep_ridge_batch(4096, 4096, 4, 100.0, 10.0);
    CHECK(b > 20.0 && b < 20.5);
    CHECK(NEAR(roof_at(b, 4096, 4096, 4, 100.0, 10.0), 100.0, 1e-9));
    CHECK(roof_at(b * 0.99, 4096, 4096, 4, 100.0, 10.0) < 100.0 * 0.995);
    /* by hand: 4 x 100 x 4096^2 / (2 x 4096^2 x 10 - 4 x 100 x 8192) */
    const double hand = 4.0 * 100.0 * 4096.0 * 4096.0 /
                        (2.0 * 4096.0 * 4096.0 * 10.0 - 4.0 * 100.0 * 8192.0);
    CHECK(NEAR(b, hand, 1e-12));
    /* bf16 on a v5e-like chip: ridge 240 F/B, so about B = 240 */
    const double v5e = sweep_ridge_batch(8192, 8192, 2, 197e12, 819e9);
    CHECK(v5e > 240.0 && v5e < 256.0);
    /* small weights never reach the ridge: intensity stays below 2PM/s(P+M) */
    CHECK(isinf(sweep_ridge_batch(64, 64, 4, 100.0, 1.0)));
    /* f64 at half the rate: same B (s doubles, the ridge halves) */
    CHECK(NEAR(sweep_ridge_batch(4096, 4096, 8, 50.0, 10.0), b, 1e-12));
}

static void test_knee(void)
{
    /* a roofline-shaped curve: 10 B GFLOP/s up to a plateau of 100; on
     * log-log axes it is straight below the bend, so the interpolated
     * 50% knee is exact (B = 5); the 90% one lies on the chord from
     * (8, 80) to (12, 100) across the bend */
    const double b[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    double g[10];
    for (int i = 0; i < 10; i++)
        g[i] = fmin(100.0, 10.0 * b[i]);
    sweep_knee k;
    CHECK_INT(sweep_knee_find(b, g, 10, &k), 0);
    CHECK(NEAR(k.plateau, 100.0, 1e-12));
    CHECK(NEAR(k.plateau_batch, 12.0, 1e-12));
    CHECK(NEAR(k.knee[0], 5.0, 1e-9));
    const double t90 = (log(90.0) - log(80.0)) / (log(100.0) - log(80.0));
    CHECK(NEAR(k.knee[1], exp(log(8.0) + t90 * (log(12.0) - log(8.0))), 1e-12));
    CHECK(k.knee[1] > 9.0 && k.knee[1] < 10.0);
    CHECK_INT(k.at_first[0], 0);
    CHECK_INT(k.plateau_at_end, 0);
    /* a curve like B^0.5: 50% of the last point (sqrt 32 = 5.66) at B = 8
     * exactly, and the plateau is at the end of the grid */
    for (int i = 0; i < 10; i++)
        g[i] = sqrt(b[i]);
    CHECK_INT(sweep_knee_find(b, g, 10, &k), 0);
    CHECK(NEAR(k.knee[0], 8.0, 1e-9));
    CHECK(NEAR(k.knee[1], 0.81 * 32.0, 1e-9));
    CHECK_INT(k.plateau_at_end, 1);
    /* already past half at the first point */
    for (int i = 0; i < 10; i++)
        g[i] = fmin(100.0, 60.0 + b[i]);
    CHECK_INT(sweep_knee_find(b, g, 10, &k), 0);
    CHECK_INT(k.at_first[0], 1);
    CHECK(NEAR(k.knee[0], 1.0, 1e-12));
    CHECK_INT(k.at_first[1], 0);
    /* 90% of the last point's 92 lies between 76 (B = 16) and 84 (24) */
    const double t9 = (log(0.9 * 92.0) - log(76.0)) / (log(84.0) - log(76.0));
    CHECK(NEAR(k.knee[1], exp(log(16.0) + t9 * (log(24.0) - log(16.0))),
               1e-12));
    /* a noisy dip after the knee does not move it */
    const double d[] = {10, 20, 30, 40, 60, 50, 100, 90, 100, 95};
    CHECK_INT(sweep_knee_find(b, d, 10, &k), 0);
    CHECK(NEAR(k.knee[0], 5.0, 1e-9));
    /* refusals */
    CHECK_INT(sweep_knee_find(b, g, 0, &k), -1);
    g[3] = 0.0;
    CHECK_INT(sweep_knee_find(b, g, 10, &k), -1);
    g[3] = NAN;
    CHECK_INT(sweep_knee_find(b, g, 10, &k), -1);
}

static void test_weights(void)
{
    roof_team t;
    memset(&t, 0, sizeof(t));
    t.threads = 2;
    const char *names[] = {"L1", "L2", "DRAM"};
    /* DRAM a plateau of one point: its middle is its start */
    const double starts[] = {4096, 65536, 100e6}, ends[] = {32768, 1048576,
                                                             100e6};
    roof_bw *b = &t.bw[RB_ACCESS_READ];
    b->present = 1;
    for (int i = 0; i < 3; i++) {
        snprintf(b->levels[i].name, sizeof(b->levels[i].name), "%s", names[i]);
        b->levels[i].gbs = 100.0 / (i + 1);
        b->levels[i].starts_bytes = starts[i];
        b->levels[i].ends_bytes = ends[i];
    }
    b->nlevels = 3;
    uint64_t s;
    char why[160];
    /* L2: half of the 1 MiB where the plateau ends, 512 KiB: 362 x 362
     * f32, rounded to 384 */
    CHECK_INT(sweep_weights_side(&t, "L2", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 384);
    /* DRAM: the smallest multiple of 64 at or past the plateau's start,
     * 3584 (3535.5 x 3535.5 f64 is 100 MB), but its rows are 28 KiB
     * apart, a multiple of 2 KiB (rb_rows_alias): one more, 3648 */
    CHECK_INT(sweep_weights_side(&t, "DRAM", 8, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 3648);
    CHECK(!rb_rows_alias(s, 8) && rb_rows_alias(s - 64, 8));
    CHECK((double)(s - 128) * (double)(s - 128) * 8.0 < 100e6);
    /* f32 on two threads: whole 256-byte strips (64 columns) for both,
     * so a multiple of 128: the DRAM side the smallest at or past the
     * start, 5120, whose 20 KiB rows alias: 5248; an L2 side of 576
     * (1.33 MB, 4.5 x 128) goes to 640 */
    CHECK_INT(sweep_weights_side(&t, "DRAM", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 5248);
    CHECK((double)(s - 256) * (double)(s - 256) * 4.0 < 100e6);
    b->levels[1].ends_bytes = 2.0 * 576 * 576 * 4;
    CHECK_INT(sweep_weights_side(&t, "L2", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 640);
    t.threads = 1; /* one thread: 576 is 9 strips of its own */
    CHECK_INT(sweep_weights_side(&t, "L2", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 576);
    /* three threads, f64: 96 columns a share (256 bytes each), and 64:
     * multiples of 192 */
    t.threads = 3;
    CHECK_INT(sweep_weights_side(&t, "DRAM", 8, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s % 192, 0);
    CHECK((double)(s - 192) * (double)(s - 192) * 8.0 < 100e6);
    /* four threads, f32, an L1 of 48 KiB each (192 KiB, half of it 157 x
     * 157): one even share of 64 columns each is 256 x 256, 256 KiB, past
     * the plateau: multiples of 64 instead, 128 */
    t.threads = 4;
    b->levels[0].ends_bytes = 4.0 * 48 * 1024;
    CHECK_INT(sweep_weights_side(&t, "L1", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 128);
    b->levels[0].ends_bytes = ends[0];
    t.threads = 2;
    /* L1: 16 KiB of f64 is 45 x 45, rounded to 64 (never below 64) */
    CHECK_INT(sweep_weights_side(&t, "L1", 8, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 64);
    CHECK_INT(sweep_weights_side(&t, "L3", 4, 0.0, 0.0, &s, why, sizeof(why)),
              -1);
    CHECK_STR_HAS(why, "no L3 plateau in the 2-thread roofline (it has L1, "
                       "L2, DRAM)");
    /* L2 only as part of a span "L1-L3" ending at 200 MB: sized by the
     * cache's own 2 MiB for the team (half of it: 512 x 512 f32), not by
     * the span's end, whose 2 KiB rows alias, so one unit (128) below:
     * 384; without the cache's size, by the span's; an exact L2 plateau
     * ignores it */
    snprintf(b->levels[1].name, sizeof(b->levels[1].name), "L1-L3");
    b->levels[1].ends_bytes = 200e6;
    CHECK_INT(sweep_weights_side(&t, "L2", 4, 2.0 * 1048576, 0.0, &s, why,
                                 sizeof(why)),
              0);
    CHECK_INT(s, 384);
    CHECK_INT(sweep_weights_side(&t, "L2", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK((double)s * (double)s * 4.0 > 50e6);
    snprintf(b->levels[1].name, sizeof(b->levels[1].name), "L2");
    b->levels[1].ends_bytes = ends[1];
    CHECK_INT(
        sweep_weights_side(&t, "L2", 4, 65536.0, 0.0, &s, why, sizeof(why)), 0);
    CHECK_INT(s, 384);
    /* DRAM past a floor above the team's start: at or past the floor, by
     * the same units (8704, 34 KiB rows, aliases: 8832); a floor below
     * the start changes nothing */
    CHECK_INT(
        sweep_weights_side(&t, "DRAM", 4, 0.0, 300e6, &s, why, sizeof(why)), 0);
    CHECK_INT(s, 8832);
    CHECK((double)(s - 256) * (double)(s - 256) * 4.0 < 300e6);
    /* eight threads, f32: multiples of 512 (2 KiB), which all alias, so
     * 64 more than the smallest at or past the start, 5120 */
    t.threads = 8;
    CHECK_INT(sweep_weights_side(&t, "DRAM", 4, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 5184);
    /* a cache level moves down only while the weights stay in it: an L2
     * plateau from 480 to 700 KiB, f64 on one thread (multiples of 64):
     * 256 (512 KiB) aliases, 192 (288 KiB) would fall below the start and
     * 320 (800 KiB) past the end, so 256 stays; ending at 900 KiB, 320 */
    t.threads = 1;
    b->levels[1].starts_bytes = 480.0 * 1024;
    b->levels[1].ends_bytes = 700.0 * 1024;
    CHECK_INT(sweep_weights_side(&t, "L2", 8, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 256);
    CHECK(rb_rows_alias(s, 8));
    b->levels[1].ends_bytes = 900.0 * 1024;
    CHECK_INT(sweep_weights_side(&t, "L2", 8, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 320);
    b->levels[1].starts_bytes = starts[1];
    b->levels[1].ends_bytes = ends[1];
    t.threads = 2;
    /* the rule: rows a multiple of 2 KiB apart */
    CHECK(rb_rows_alias(4096, 4) && rb_rows_alias(512, 4) &&
          rb_rows_alias(256, 8) && rb_rows_alias(8192, 8));
    CHECK(!rb_rows_alias(8960, 4) && !rb_rows_alias(4112, 4) &&
          !rb_rows_alias(6336, 8) && !rb_rows_alias(128, 8));
    /* DRAM from 100 MB to 2 GB: its median point, the geometric middle,
     * 447 MB: 7476.7 x 7476.7 f64, the next multiple of 64, 7488 (rows
     * of 58.5 KiB) */
    b->levels[2].ends_bytes = 2e9;
    CHECK(fabs(sweep_dram_bytes(&b->levels[2]) - sqrt(2e17)) < 1.0);
    CHECK_INT(sweep_weights_side(&t, "DRAM", 8, 0.0, 0.0, &s, why, sizeof(why)),
              0);
    CHECK_INT(s, 7488);
    b->levels[2].ends_bytes = ends[2];
    uint64_t s0;
    CHECK_INT(
        sweep_weights_side(&t, "DRAM", 4, 0.0, 0.0, &s0, why, sizeof(why)), 0);
    CHECK_INT(
        sweep_weights_side(&t, "DRAM", 4, 0.0, 50e6, &s, why, sizeof(why)), 0);
    CHECK_INT(s, s0);
    /* the floor over the teams swept: the largest middle of DRAM among
     * them (213 MB to 852 MB: 426 MB; 95 to 855 MB: 285 MB, a larger
     * plateau's smaller middle); a team without DRAM, or not in the
     * roofline, adds nothing */
    static roofline r;
    memset(&r, 0, sizeof(r));
    r.teams[0] = t;
    r.teams[0].threads = 1;
    r.teams[0].bw[RB_ACCESS_READ].levels[2].starts_bytes = 213e6;
    r.teams[0].bw[RB_ACCESS_READ].levels[2].ends_bytes = 4 * 213e6;
    r.teams[1] = t;
    r.teams[1].threads = 2;
    r.teams[1].bw[RB_ACCESS_READ].levels[2].starts_bytes = 95e6;
    r.teams[1].bw[RB_ACCESS_READ].levels[2].ends_bytes = 9 * 95e6;
    r.teams[2] = t;
    r.teams[2].threads = 4;
    r.teams[2].bw[RB_ACCESS_READ].nlevels = 2; /* L1, L2 only */
    r.nteams = 3;
    const int both[] = {1, 2}, two[] = {2}, more[] = {2, 4, 8};
    CHECK(fabs(sweep_dram_floor(&r, both, 2) - 426e6) < 1.0);
    CHECK(fabs(sweep_dram_floor(&r, two, 1) - 285e6) < 1.0);
    CHECK(fabs(sweep_dram_floor(&r, more, 3) - 285e6) < 1.0);
    /* the larger middle, not the later start: 95 MB to 2.375 GB is 475 MB */
    r.teams[1].bw[RB_ACCESS_READ].levels[2].ends_bytes = 25 * 95e6;
    CHECK(fabs(sweep_dram_floor(&r, both, 2) - 475e6) < 1.0);
    CHECK(sweep_dram_floor(&r, more + 1, 2) == 0.0);
}

/* The curve whose plateau caps another's past the ridge: the same kernel,
 * dtype and team with the fastest weights measured, only when faster. */
static void test_fastest_sibling(void)
{
    const rb_kernel *blk = rb_kernel_find("matmul_blocked"),
                    *obl = rb_kernel_find("matmul_openblas");
    CHECK(blk != NULL && obl != NULL);
    sweep_curve c[7];
    memset(c, 0, sizeof(c));
    const struct {
        int level, d, t;
        const rb_kernel *k;
        double bw, plateau;
    } spec[7] = {
        {0, 0, 0, blk, 150.0, 130.0}, /* L2 */
        {1, 0, 0, blk, 30.0, 120.0},  /* L3 */
        {2, 0, 0, blk, 18.0, 110.0},  /* DRAM */
        {0, 0, 0, obl, 150.0, 125.0}, /* another kernel */
        {0, 1, 0, blk, 150.0, 60.0},  /* another dtype */
        {0, 0, 1, blk, 300.0, 250.0}, /* another team */
        {3, 0, 0, blk, 400.0, 0.0},   /* faster, but no knee */
    };
    for (int i = 0; i < 7; i++) {
        c[i].level = spec[i].level;
        c[i].d = spec[i].d;
        c[i].t = spec[i].t;
        c[i].kernel = spec[i].k;
        c[i].has_roof = 1;
        c[i].peak = 190.0;
        c[i].bw = spec[i].bw;
        c[i].has_knee = spec[i].plateau > 0.0;
        c[i].knee.plateau = spec[i].plateau;
    }
    const sweep_analysis a = {c, 7};
    CHECK(report_sweep_fastest_sibling(&a, &c[2]) == &c[0]);
    CHECK(report_sweep_fastest_sibling(&a, &c[1]) == &c[0]);
    CHECK(report_sweep_fastest_sibling(&a, &c[0]) == NULL);
    CHECK(report_sweep_fastest_sibling(&a, &c[3]) == NULL);
    CHECK(report_sweep_fastest_sibling(&a, &c[4]) == NULL);
    CHECK(report_sweep_fastest_sibling(&a, &c[5]) == NULL);
    /* not a matmul: the contrast's roof is never the peak */
    const rb_kernel *bat = rb_kernel_find("batched");
    CHECK(bat != NULL);
    const rb_kernel *keep = c[2].kernel;
    c[0].kernel = c[2].kernel = bat;
    CHECK(report_sweep_fastest_sibling(&a, &c[2]) == NULL);
    c[0].kernel = c[2].kernel = keep;
    CHECK(report_sweep_fastest_sibling(&a, &c[2]) == &c[0]);
    /* a curve without a roof has no sibling to compare with */
    c[2].has_roof = 0;
    CHECK(report_sweep_fastest_sibling(&a, &c[2]) == NULL);
}

/* The roof around a curve's points: the medians of each point's larger
 * figure, before or after it, of the peak and of the read bandwidth;
 * points missing either left out. */
static void test_roof_now(void)
{
    sweep_point pts[5];
    memset(pts, 0, sizeof(pts));
    const double fig[5][4] = {
        /* peak before, after, read before, after */
        {100.0, 110.0, 30.0, 20.0}, /* 110, 30 */
        {120.0, 90.0, 25.0, 40.0},  /* 120, 40 */
        {80.0, 95.0, 10.0, 12.0},   /* 95, 12 */
        {500.0, 500.0, 0.0, 99.0},  /* read not measured: left out */
        {0.0, 700.0, 70.0, 70.0},   /* peak not measured: left out */
    };
    for (int i = 0; i < 5; i++) {
        pts[i].row.peak_before = fig[i][0];
        pts[i].row.peak_after = fig[i][1];
        pts[i].row.read_before = fig[i][2];
        pts[i].row.read_after = fig[i][3];
    }
    sweep_result res = {.points = pts, .npoints = 5};
    sweep_doc doc = {.res = &res};
    sweep_curve c;
    memset(&c, 0, sizeof(c));
    for (size_t i = 0; i < 5; i++)
        c.idx[c.n++] = i;
    double peak = 0.0, bw = 0.0;
    CHECK_INT(report_sweep_roof_now(&doc, &c, &peak, &bw), 0);
    CHECK(NEAR(peak, 110.0, 1e-12));
    CHECK(NEAR(bw, 30.0, 1e-12));
    /* an even count: the mean of the middle two */
    c.n = 2;
    CHECK_INT(report_sweep_roof_now(&doc, &c, &peak, &bw), 0);
    CHECK(NEAR(peak, 115.0, 1e-12));
    CHECK(NEAR(bw, 35.0, 1e-12));
    /* none measured: no roof */
    c.idx[0] = 3;
    c.idx[1] = 4;
    CHECK_INT(report_sweep_roof_now(&doc, &c, &peak, &bw), -1);
}

/* The contrast's own matrices beside DRAM weights: the smallest past
 * twice the last cache, in the weights' units, moved up off rows that
 * alias, never past the weights' own side, the weights' own where the
 * cache is not known. */
static void test_contrast_side(void)
{
    const double llc = 32.0 * 1048576; /* twice: 67.1 MB */
    /* f32, 2 threads (multiples of 128): 4096 x 4096 is 2 x 32 MiB
     * exactly, but its 16 KiB rows alias: one unit more, 4224 */
    CHECK_INT(sweep_contrast_side(8832, 4, 2, llc), 4224);
    /* f64, 1 thread (multiples of 64): 2896.3 rounds to 2880, whose
     * square of 8 bytes is 66.4 MB, short of 67.1: 2944, whose 23 KiB
     * rows do not alias */
    CHECK_INT(sweep_contrast_side(7744, 8, 1, llc), 2944);
    /* a 16 MiB cache: 2048 x 2048 f64 is twice it exactly, its 16 KiB
     * rows alias: 2112 */
    CHECK_INT(sweep_contrast_side(7744, 8, 1, 16.0 * 1048576), 2112);
    /* never larger than the weights' own; theirs where the cache is not
     * known (0, or not a number) */
    CHECK_INT(sweep_contrast_side(2048, 4, 1, llc), 2048);
    CHECK_INT(sweep_contrast_side(7744, 8, 1, 0.0), 7744);
    CHECK_INT(sweep_contrast_side(7744, 8, 1, NAN), 7744);
}

int main(void)
{
    test_roof_now();
    test_fastest_sibling();
    test_grid();
    test_ridge();
    test_knee();
    test_weights();
    test_contrast_side();
    return check_status("test_sweep");
}
