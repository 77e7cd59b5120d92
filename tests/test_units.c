/* Small modules: number parsing, statistics, thread shares, placement on
 * synthetic topologies, and atomic results files. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../bench/cli.h"
#include "../bench/harness.h"
#include "../bench/pin.h"
#include "../bench/results.h"
#include "../bench/stats.h"
#include "check.h"

static void test_parse(void)
{
    rb_err e;
    uint64_t v = 0;
    CHECK_INT(cli_parse_count("--n", "512", 1, 1000, &v, &e), RB_OK);
    CHECK_U64(v, 512);
    CHECK_INT(cli_parse_count("--size", "4K", 1, UINT64_MAX, &v, &e), RB_OK);
    CHECK_U64(v, 4096);
    CHECK_INT(cli_parse_count("--size", "3G", 1, UINT64_MAX, &v, &e), RB_OK);
    CHECK_U64(v, 3ull << 30);
    static const char *const bad[] = {"", "-5", "+5", " 5", "5x", "1.5",
                                      "abc", "0x10", "5KB"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(cli_parse_count("--n", bad[i], 1, 1000, &v, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, "--n");
    }
    CHECK_INT(cli_parse_count("--n", "0", 1, 1000, &v, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too small");
    CHECK_INT(cli_parse_count("--n", "1001", 1, 1000, &v, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too large");
    CHECK_INT(cli_parse_count("--n", "99999999999999999999", 1, UINT64_MAX, &v,
                              &e),
              RB_EINPUT);
    CHECK_INT(cli_parse_count("--n", "17179869184G", 1, UINT64_MAX, &v, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too large");

    rb_shape s;
    CHECK_INT(cli_parse_shape("--shape", "3,5,7", &s, &e), RB_OK);
    CHECK(s.n == 3 && s.p == 5 && s.m == 7);
    CHECK_INT(cli_parse_shape("--shape", "3,5", &s, &e), RB_EINPUT);
    CHECK_INT(cli_parse_shape("--shape", "3,,7", &s, &e), RB_EINPUT);
    CHECK_INT(cli_parse_shape("--shape", "3,0,7", &s, &e), RB_EINPUT);

    double sec;
    CHECK_INT(cli_parse_seconds("--min-time", "5e-3", 1e-4, 60, &sec, &e),
              RB_OK);
    CHECK(sec == 5e-3);
    CHECK_INT(cli_parse_seconds("--min-time", "nan", 1e-4, 60, &sec, &e),
              RB_EINPUT);
    CHECK_INT(cli_parse_seconds("--min-time", "-1", 1e-4, 60, &sec, &e),
              RB_EINPUT);
}

static void test_stats(void)
{
    const double x[] = {4.0, 1.0, 3.0, 2.0, 5.0};
    stats_summary s;
    stats_summarize(x, 5, &s);
    CHECK(s.min == 1.0 && s.max == 5.0 && s.median == 3.0 && s.mean == 3.0);
    /* sample stddev of 1..5 is sqrt(2.5) */
    CHECK(fabs(s.stddev - sqrt(2.5)) < 1e-12);
    CHECK(fabs(s.cv - sqrt(2.5) / 3.0) < 1e-12);
    CHECK(stats_median(x, 4) == 2.5); /* 1 2 3 4 */
    stats_summarize(x, 1, &s);
    CHECK(isnan(s.cv));
}

/* Shares cover every output row exactly once, for any thread count. */
static void test_slices(void)
{
    for (int nt = 1; nt <= 5; nt++) {
        const rb_shape s = {7, 11, 3};
        double a[77], b[33], c[21];
        size_t covered = 0;
        for (int t = 0; t < nt; t++) {
            rb_operands x;
            harness_slice(RB_OP_MATMUL, s, sizeof(double), a, b, c, t, nt, &x);
            CHECK((double *)x.a == a + covered * 11);
            CHECK((double *)x.c == c + covered * 3);
            CHECK(x.b == b && x.p == 11 && x.m == 3);
            covered += x.n;
        }
        CHECK_U64(covered, 7);

        const rb_shape d = {1, 1000, 1};
        size_t p = 0;
        for (int t = 0; t < nt; t++) {
            rb_operands x;
            harness_slice(RB_OP_DOT, d, sizeof(float), a, b, c, t, nt, &x);
            CHECK((const char *)x.a == (const char *)a + p * sizeof(float));
            CHECK(t == 0 || p % 16 == 0); /* shares start on cache lines */
            p += x.p;
        }
        CHECK_U64(p, 1000);
    }
    /* The data are a function of the seed and index only. */
    CHECK(harness_value(1, 0, 12345, RB_F64) ==
          harness_value(1, 0, 12345, RB_F64));
    CHECK(harness_value(1, 0, 12345, RB_F64) !=
          harness_value(2, 0, 12345, RB_F64));
    CHECK(harness_value(1, 0, 5, RB_F32) ==
          (double)(float)harness_value(1, 0, 5, RB_F64));
}

/* Placement on synthetic machines, without their hardware. */
static void test_pin_synthetic(void)
{
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    CHECK_INT(hwloc_topology_set_synthetic(topo, "pack:2 core:4 pu:2"), 0);
    hwloc_topology_load(topo);
    CHECK_INT(pin_ncores(topo), 8);
    pin_plan plan;
    rb_err e;
    CHECK_INT(pin_plan_make(topo, 5, &plan, &e), RB_OK);
    hwloc_bitmap_t seen = hwloc_bitmap_alloc();
    for (int t = 0; t < 5; t++) {
        /* one PU per thread, never two threads on one core */
        CHECK_INT(hwloc_bitmap_weight(plan.pu[t]), 1);
        const hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE,
                                                       (unsigned)t);
        CHECK(hwloc_bitmap_isincluded(plan.pu[t], core->cpuset));
        CHECK(!hwloc_bitmap_intersects(seen, plan.pu[t]));
        hwloc_bitmap_or(seen, seen, plan.pu[t]);
    }
    CHECK(hwloc_bitmap_isequal(seen, plan.all));
    /* threads 0-3 fill package 0 before thread 4 goes to package 1 */
    const hwloc_obj_t pack1 =
        hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 1);
    CHECK(hwloc_bitmap_isincluded(plan.pu[4], pack1->cpuset));
    CHECK(!hwloc_bitmap_intersects(plan.pu[3], pack1->cpuset));
    hwloc_bitmap_free(seen);
    pin_plan_free(&plan);
    CHECK_INT(pin_plan_make(topo, 9, &plan, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "8 cores");
    CHECK_INT(pin_plan_make(topo, 0, &plan, &e), RB_EINPUT);
    hwloc_topology_destroy(topo);

    /* On this machine: binding the calling thread is obtained as asked. */
    CHECK_INT(pin_topology_load(&topo, &e), RB_OK);
    CHECK_INT(pin_plan_make(topo, 1, &plan, &e), RB_OK);
    CHECK_INT(pin_bind_self(topo, plan.pu[0], &e), RB_OK);
    hwloc_bitmap_t now = hwloc_bitmap_alloc();
    hwloc_get_cpubind(topo, now, HWLOC_CPUBIND_THREAD);
    CHECK(hwloc_bitmap_isequal(now, plan.pu[0]));
    CHECK_INT(pin_unbind_self(topo, &e), RB_OK);
    hwloc_bitmap_free(now);
    pin_plan_free(&plan);
    hwloc_topology_destroy(topo);
}

static void test_atomic_files(void)
{
    char dir[] = "/tmp/roofbench-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    rb_err e;
    CHECK_INT(results_write_file(dir, "a.json", "first", 5, &e), RB_OK);
    CHECK_INT(results_write_file(dir, "a.json", "second", 6, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "not overwritten");
    char path[256], buf[16] = {0};
    snprintf(path, sizeof(path), "%s/a.json", dir);
    FILE *f = fopen(path, "r");
    CHECK(f && fread(buf, 1, sizeof(buf) - 1, f) == 5);
    if (f)
        fclose(f);
    CHECK(strcmp(buf, "first") == 0);
    /* no temporary file is left behind */
    int entries = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        entries += de->d_name[0] != '.' || strlen(de->d_name) > 2;
    if (d)
        closedir(d);
    CHECK_INT(entries, 1);

    /* A folder that holds results is refused as --out. */
    CHECK_INT(results_check_dest("unused", dir, &e), RB_OK);
    snprintf(path, sizeof(path), "%s/results.json", dir);
    f = fopen(path, "w");
    if (f)
        fclose(f);
    CHECK_INT(results_check_dest("unused", dir, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "already holds results");
    char out[256];
    CHECK_INT(results_make_dir("unused", dir, out, sizeof(out), &e),
              RB_EINPUT);
    CHECK_INT(results_check_dest(NULL, "/dev/null/sub", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "--out '/dev/null/sub'");

    /* Two default run folders made in the same second differ. */
    char a[512], b[512];
    snprintf(path, sizeof(path), "%s/runs", dir);
    CHECK_INT(results_make_dir(path, NULL, a, sizeof(a), &e), RB_OK);
    CHECK_INT(results_make_dir(path, NULL, b, sizeof(b), &e), RB_OK);
    CHECK(strcmp(a, b) != 0);
    CHECK(results_num(NAN) != NULL && json_is_null(results_num(NAN)));

    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

int main(void)
{
    test_parse();
    test_stats();
    test_slices();
    test_pin_synthetic();
    test_atomic_files();
    return check_status("test_units");
}
