/* Measured and modelled traffic: the model's formulas on hand-checked
 * cases, the cache geometry parser, cachegrind's determinism and its miss
 * counts against compulsory traffic, and the counters module on a machine
 * without a PMU (unavailable, with a reason; never a 0). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "counters.h"
#include "simulate.h"

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel) * fabs(b))

static const rb_cache_geom l1 = {32768, 8, 64}, l2 = {1048576, 8, 64};

static void test_capacity(void)
{
    /* 64 sets x 8 ways: a contiguous walk can use all 512 lines */
    CHECK(rb_traffic_capacity(&l1, 8) == 512.0);
    /* a 4096-byte stride is 64 lines: every line in one set, 8 ways */
    CHECK(rb_traffic_capacity(&l1, 4096) == 8.0);
    /* 1024 bytes = 16 lines: 64 / 16 = 4 sets, 32 lines */
    CHECK(rb_traffic_capacity(&l1, 1024) == 32.0);
    /* an odd stride (not a multiple of the line) spreads over all sets */
    CHECK(rb_traffic_capacity(&l1, 4000) == 512.0);
    CHECK(rb_traffic_capacity(&l1, 64 * 3) == 512.0); /* 3 lines: coprime */
    /* L2: 2048 sets; 4096-byte stride -> 2048 / 64 = 32 sets x 8 */
    CHECK(rb_traffic_capacity(&l2, 4096) == 256.0);
}

static void test_model(void)
{
    rb_blocking blk = {"avx2", 6, 8, 512, 126, 2048, "", 0, 0, 0, 0, ""}; /* skinny path off */
    const rb_shape tiny = {4, 4, 4}, n128 = {128, 128, 128},
                   n512 = {512, 512, 512};
    /* everything fits: each matrix once, a 4-element row is one line */
    static const char *forms[] = {"matmul_naive", "matmul_column",
                                  "matmul_row", "matmul_outer"};
    for (int i = 0; i < 4; i++)
        CHECK(rb_traffic_lines(forms[i], tiny, 8, &l2, &blk) == 12.0);
    /* no model for a library */
    CHECK(rb_traffic_lines("matmul_openblas", n128, 8, &l1, &blk) < 0.0);

    /* n = 128 f64 in a 32 KiB 8-way L1 (e = 8):
     * naive: B's column walk (stride 1024 B) reaches 32 lines < 128: every
     * B access misses: 128^3 + A 128*16 + C 128*16 */
    CHECK(rb_traffic_lines("matmul_naive", n128, 8, &l1, &blk) ==
          2097152.0 + 2048 + 2048);
    /* row: B (128 KiB) does not fit: 128 passes of 2048 lines, plus A, C */
    CHECK(rb_traffic_lines("matmul_row", n128, 8, &l1, &blk) ==
          128.0 * 2048 + 2048 + 2048);
    /* outer: C does not fit: 128 passes over C; A's column one line per
     * element; B once */
    CHECK(rb_traffic_lines("matmul_outer", n128, 8, &l1, &blk) ==
          128.0 * 2048 + 128.0 * 128 + 2048);
    /* column: the A and C columns (256 lines) do not fit in 32: every A
     * and C access a line, B one per element */
    CHECK(rb_traffic_lines("matmul_column", n128, 8, &l1, &blk) ==
          2.0 * 128 * 128 * 128 + 128.0 * 128);
    /* n = 512 f64 in the 1 MiB L2: naive thrashes (32 sets x 8 ways for a
     * 512-line column); row streams B per row of C; blocked: packing B
     * (2 x 32768) and A (2 x 32768), the packed B block (512 x 2048 is
     * capped to 512 x 512) streamed once per row block (5 of them), C once
     * per KC block (1) */
    CHECK(rb_traffic_lines("matmul_naive", n512, 8, &l2, &blk) ==
          134217728.0 + 32768 + 32768);
    CHECK(rb_traffic_lines("matmul_row", n512, 8, &l2, &blk) ==
          512.0 * 32768 + 32768 + 32768);
    CHECK(rb_traffic_lines("matmul_blocked", n512, 8, &l2, &blk) ==
          2.0 * 32768 + 2.0 * 32768 + 5.0 * 32768 + 32768);
    /* the worst form moves far more than the blocked one */
    CHECK(rb_traffic_lines("matmul_column", n512, 8, &l2, &blk) >
          100.0 * rb_traffic_lines("matmul_blocked", n512, 8, &l2, &blk));
}

static void test_geometry(void)
{
    sim_geometry g;
    rb_err e;
    memset(&g, 0, sizeof(g));
    CHECK_INT(sim_geometry_parse("L1=48K:12:64,LL=1M:16:64", &g, &e), RB_OK);
    CHECK(g.l1.size == 49152.0 && g.l1.assoc == 12 && g.l1.line == 64);
    CHECK(g.ll.size == 1048576.0 && g.ll.assoc == 16);
    static const struct {
        const char *s, *msg;
    } bad[] = {
        {"L1=48K:12", "expected SIZE:WAYS:LINE"},
        {"L1=48K:12:48,LL=1M:16:64", "line size 48 is not a power of two"},
        {"L1=40K:8:64,LL=1M:16:64", "80 sets, not a power of two"},
        {"L1=32K:8:64,LL=3M:16:64", "3072 sets, not a power of two"},
        {"L2=1M:16:64", "'L2' is not L1 or LL"},
        {"L1=32K:8:64,L1=32K:8:64", "given twice"},
        {"L1=x:8:64", "--cache L1 size 'x'"},
        {"L1=32K:0:64", "too small"},
        {"L1=1M:8:64,LL=32K:8:64", "smaller than L1"},
        {"", "expected L1=SIZE"},
        {"nonsense", "not L1=... or LL=..."},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sim_geometry h;
        memset(&h, 0, sizeof(h));
        CHECK_INT(sim_geometry_parse(bad[i].s, &h, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
    }
}

/* Returns 0, or 77 when valgrind is missing (nothing was checked). */
static int test_cachegrind(const char *exe)
{
    char vg[512];
    rb_err e;
    if (sim_find_valgrind(vg, sizeof(vg), &e) != RB_OK) {
        printf("skipped: %s\n", e.msg);
        return 77;
    }
    sim_geometry g;
    memset(&g, 0, sizeof(g));
    CHECK_INT(sim_geometry_parse("L1=32K:8:64,LL=1M:8:64", &g, &e), RB_OK);
    char dir[] = "/tmp/roofbench-cg-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const rb_shape s = {64, 64, 64};
    sim_counts base, a1, a2, d1, d2;
    CHECK_INT(sim_run(vg, exe, "none", RB_F64, s, 1, &g, dir, &base, &e),
              RB_OK);
    CHECK_INT(sim_run(vg, exe, "matmul_row", RB_F64, s, 1, &g, dir, &a1, &e),
              RB_OK);
    CHECK_INT(sim_run(vg, exe, "matmul_row", RB_F64, s, 1, &g, dir, &a2, &e),
              RB_OK);
    /* deterministic: the same binary and geometry, the same counts */
    CHECK(a1.d1_misses == a2.d1_misses && a1.ll_misses == a2.ll_misses &&
          a1.ir == a2.ir);
    sim_subtract(&a1, &base, &d1);
    sim_subtract(&a2, &base, &d2);
    CHECK(d1.ll_misses == d2.ll_misses);
    /* the simulated path never holds AVX-512 */
    CHECK_STR_HAS(a1.path, "path avx2");
    /* everything fits in the LL: the row form streams A, B and C once:
     * 3 x 64 x 64 x 8 bytes / 64 = 1536 compulsory lines */
    printf("cachegrind matmul_row n=64 f64: %.0f LL misses (compulsory "
           "1536), %.0f D1 misses\n",
           d1.ll_misses, d1.d1_misses);
    CHECK(NEAR(d1.ll_misses, 1536.0, 0.03));
    /* and the model says the same at both levels */
    rb_blocking blk = {"avx2", 6, 8, 512, 126, 2048, "", 0, 0, 0, 0, ""};
    CHECK(NEAR(rb_traffic_lines("matmul_row", s, 8, &g.ll, &blk),
               d1.ll_misses, 0.03));
    /* B (32 KiB) on the edge of a 32 KiB L1: LRU keeps all but the sets
     * a row of A and of C overflow; at n = 96 (B 72 KiB) B streams */
    const double m64 = rb_traffic_lines("matmul_row", s, 8, &g.l1, &blk);
    printf("cachegrind matmul_row n=64 f64: model %.0f D1 misses\n", m64);
    CHECK(NEAR(m64, d1.d1_misses, 0.25));
    const rb_shape s96 = {96, 96, 96};
    sim_counts b96, r96, k96;
    CHECK_INT(sim_run(vg, exe, "none", RB_F64, s96, 1, &g, dir, &b96, &e),
              RB_OK);
    CHECK_INT(sim_run(vg, exe, "matmul_row", RB_F64, s96, 1, &g, dir, &r96,
                      &e),
              RB_OK);
    sim_subtract(&r96, &b96, &k96);
    const double m96 = rb_traffic_lines("matmul_row", s96, 8, &g.l1, &blk);
    printf("cachegrind matmul_row n=96 f64: %.0f D1 misses, model %.0f\n",
           k96.d1_misses, m96);
    CHECK(NEAR(m96, k96.d1_misses, 0.10));
    /* the misses are the kernel function's */
    CHECK(d1.nfn > 0);
    if (d1.nfn > 0)
        CHECK_STR_HAS(d1.fn[0].name, "matmul_row");
    /* the dot-product form thrashes a tiny L1 with a power-of-two stride:
     * D1 misses near N P M */
    CHECK_INT(sim_run(vg, exe, "matmul_naive", RB_F64, s, 1, &g, dir, &a1,
                      &e),
              RB_OK);
    sim_subtract(&a1, &base, &d1);
    const double model = rb_traffic_lines("matmul_naive", s, 8, &g.l1, &blk);
    printf("cachegrind matmul_naive n=64 f64: %.0f D1 misses, model %.0f\n",
           d1.d1_misses, model);
    CHECK(d1.d1_misses < 2.0 * model && model < 2.0 * d1.d1_misses);
    /* the blocked kernel's skinny path (64 rows, at most MC): the model
     * with the blocks the simulated child reports */
    const rb_shape sk[] = {{64, 64, 64}, {8, 256, 256}};
    for (int i = 0; i < 2; i++) {
        sim_counts sb, sr, sd;
        CHECK_INT(sim_run(vg, exe, "none", RB_F64, sk[i], 1, &g, dir, &sb, &e),
                  RB_OK);
        CHECK_INT(sim_run(vg, exe, "matmul_blocked", RB_F64, sk[i], 1, &g,
                          dir, &sr, &e),
                  RB_OK);
        sim_subtract(&sr, &sb, &sd);
        CHECK(sr.blk.skinny_max >= sk[i].n && sr.blk.sw > 0);
        const double ll =
            rb_traffic_lines("matmul_blocked", sk[i], 8, &g.ll, &sr.blk);
        const double d1m =
            rb_traffic_lines("matmul_blocked", sk[i], 8, &g.l1, &sr.blk);
        printf("cachegrind matmul_blocked (skinny) %zux%zux%zu f64: %.0f LL "
               "misses, model %.0f; %.0f D1 misses, model %.0f\n",
               sk[i].n, sk[i].p, sk[i].m, sd.ll_misses, ll, sd.d1_misses, d1m);
        CHECK(NEAR(ll, sd.ll_misses, 0.10));
        /* at 64^3 the strip block just fits its sets beside A's and C's
         * lines and LRU keeps part of it; the model is binary there
         * (stays or not) and reads the upper end: within 35% */
        CHECK(NEAR(d1m, sd.d1_misses, 0.35));
    }
    char cmd[100];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);

    /* a file cachegrind did not write is an error, not zeros */
    CHECK_INT(sim_parse_file("/nonexistent/cg.out", &a1, &e), RB_EMEASURE);
    return 0;
}

/* Here (no PMU) every event is unavailable with PAPI's reason; a name
 * PAPI does not know is an error naming it. */
static void test_counters(void)
{
    counters_status st;
    counters_probe(&st);
    counters_events ev;
    rb_err e;
    CHECK_INT(counters_resolve("PAPI_NOT_AN_EVENT", &ev, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "unknown event 'PAPI_NOT_AN_EVENT'");
    CHECK_INT(counters_resolve("PAPI_TOT_CYC,PAPI_TOT_CYC", &ev, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "given twice");
    CHECK_INT(counters_resolve(counters_default_events("AuthenticAMD", 1),
                               &ev, &e),
              RB_OK);
    CHECK_INT(ev.n, 6);
    CHECK_STR_HAS(ev.name[5], "PAPI_FP_OPS");
    CHECK_INT(ev.kind[5], CE_FLOPS);
    if (st.usable) {
        printf("counters usable here: the hw test compares them\n");
        return;
    }
    printf("counters unavailable here: %s\n", st.reason);
    CHECK(st.reason[0] != '\0');
    CHECK_INT(ev.nusable, 0);
    for (int i = 0; i < ev.n; i++) {
        CHECK_INT(ev.usable[i], 0);
        CHECK_STR_HAS(ev.reason[i], ev.name[i]);
    }
}

/* test_traffic: the model, the geometry and the counters;
 * test_traffic --cachegrind ROOFBENCH: cachegrind's counts (its own CTest
 * entry, skipped with 77 where valgrind is missing). */
/* kernel minus set-up, per function: a loader function that missed once
 * more in the set-up run counts 0, never -1 */
static void test_subtract(void)
{
    static sim_counts with, base, own;
    with.nfn = base.nfn = 2;
    snprintf(with.fn[0].name, sizeof(with.fn[0].name), "matmul_row");
    with.fn[0].d1 = 900, with.fn[0].ll = 800;
    snprintf(with.fn[1].name, sizeof(with.fn[1].name), "do_lookup_x");
    with.fn[1].d1 = 60, with.fn[1].ll = 2;
    snprintf(base.fn[0].name, sizeof(base.fn[0].name), "do_lookup_x");
    base.fn[0].d1 = 2, base.fn[0].ll = 3;
    snprintf(base.fn[1].name, sizeof(base.fn[1].name), "main");
    base.fn[1].d1 = 5, base.fn[1].ll = 1;
    with.d1_misses = 1000, base.d1_misses = 100;
    sim_subtract(&with, &base, &own);
    CHECK(own.d1_misses == 900);
    CHECK_INT(own.nfn, 2);
    CHECK_STR_HAS(own.fn[0].name, "matmul_row");
    CHECK(own.fn[0].ll == 800);
    CHECK(own.fn[1].d1 == 58 && own.fn[1].ll == 0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--cachegrind") == 0) {
        if (test_cachegrind(argv[2]) == 77)
            return 77;
        return check_status("test_traffic --cachegrind");
    }
    test_capacity();
    test_model();
    test_geometry();
    test_counters();
    test_subtract();
    return check_status("test_traffic");
}
