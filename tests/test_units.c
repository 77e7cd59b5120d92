/* Small modules: value and list parsing, statistics, thread shares,
 * placement on synthetic topologies and within the allowed CPUs, the run
 * folder (complete or absent), CSV quoting, escaping, checked JSON, the
 * pool's barrier, a signal before any rescue is installed or before a
 * session's writer is. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "csv.h"
#include "harness.h"
#include "interrupt.h"
#include "jdoc.h"
#include "machine.h"
#include "parse.h"
#include "pin.h"
#include "pool.h"
#include "runfolder.h"
#include "session.h"
#include "stats.h"
#include "text.h"

static void test_parse(void)
{
    rb_err e;
    uint64_t v = 0;
    CHECK_INT(parse_count("--n", "512", 1, 1000, &v, &e), RB_OK);
    CHECK_U64(v, 512);
    CHECK_INT(parse_count("--size", "4K", 1, UINT64_MAX, &v, &e), RB_OK);
    CHECK_U64(v, 4096);
    CHECK_INT(parse_count("--size", "3G", 1, UINT64_MAX, &v, &e), RB_OK);
    CHECK_U64(v, 3ull << 30);
    static const char *const bad[] = {"", "-5", "+5", " 5", "5x", "1.5",
                                      "abc", "0x10", "5KB"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(parse_count("--n", bad[i], 1, 1000, &v, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, "--n");
    }
    CHECK_INT(parse_count("--n", "0", 1, 1000, &v, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too small");
    CHECK_INT(parse_count("--n", "1001", 1, 1000, &v, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too large");
    CHECK_INT(parse_count("--n", "99999999999999999999", 1, UINT64_MAX, &v,
                              &e),
              RB_EINPUT);
    CHECK_INT(parse_count("--n", "17179869184G", 1, UINT64_MAX, &v, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too large");

    rb_shape s;
    CHECK_INT(parse_shape("--shape", "3,5,7", &s, &e), RB_OK);
    CHECK(s.n == 3 && s.p == 5 && s.m == 7);
    CHECK_INT(parse_shape("--shape", "3,5", &s, &e), RB_EINPUT);
    CHECK_INT(parse_shape("--shape", "3,,7", &s, &e), RB_EINPUT);
    CHECK_INT(parse_shape("--shape", "3,0,7", &s, &e), RB_EINPUT);

    double sec;
    CHECK_INT(parse_seconds("--min-time", "5e-3", 1e-4, 60, &sec, &e),
              RB_OK);
    CHECK(sec == 5e-3);
    CHECK_INT(parse_seconds("--min-time", "nan", 1e-4, 60, &sec, &e),
              RB_EINPUT);
    CHECK_INT(parse_seconds("--min-time", "-1", 1e-4, 60, &sec, &e),
              RB_EINPUT);
    /* decimal only: strtod alone would read these as 16 and 1 */
    CHECK_INT(parse_seconds("--min-time", "0x10", 1e-4, 60, &sec, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "'0x10': not a number");
    CHECK_INT(parse_seconds("--min-time", "0x1p0", 1e-4, 60, &sec, &e),
              RB_EINPUT);
    CHECK_INT(parse_seconds("--min-time", "infinity", 1e-4, 60, &sec, &e),
              RB_EINPUT);
    /* fractions and percentages: --threshold, --limit */
    double fr;
    CHECK_INT(parse_fraction("--threshold", "5%", 0.99, &fr, &e), RB_OK);
    CHECK(fabs(fr - 0.05) < 1e-15);
    CHECK_INT(parse_fraction("--threshold", "0.05", 0.99, &fr, &e), RB_OK);
    CHECK(fabs(fr - 0.05) < 1e-15);
    CHECK_INT(parse_fraction("--threshold", "0.5%", 0.99, &fr, &e), RB_OK);
    CHECK(fabs(fr - 0.005) < 1e-15);
    static const char *const badfr[] = {"", "%", "5%%", "-5%", "100%", "1",
                                        "five", "nan%", "1e400"};
    for (size_t i = 0; i < sizeof(badfr) / sizeof(badfr[0]); i++) {
        CHECK_INT(parse_fraction("--threshold", badfr[i], 0.99, &fr, &e),
                  RB_EINPUT);
    }
    CHECK_STR_HAS(e.msg, "--threshold '1e400'");
    CHECK_INT(parse_seconds("--min-time", " 1", 1e-4, 60, &sec, &e),
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

/* Placement within the CPUs the process may use: bound to CPU 1 (as
 * `taskset -c 1` does), the topology holds one core, PU 1, and unbinding
 * never leaves it. */
static void test_pin_allowed(void)
{
    cpu_set_t all, one, now;
    CHECK_INT(sched_getaffinity(0, sizeof(all), &all), 0);
    if (!CPU_ISSET(1, &all)) {
        printf("pin_allowed: this process may not use CPU 1: not checked\n");
        return;
    }
    CPU_ZERO(&one);
    CPU_SET(1, &one);
    CHECK_INT(sched_setaffinity(0, sizeof(one), &one), 0);
    hwloc_topology_t topo;
    rb_err e;
    CHECK_INT(pin_topology_load(&topo, &e), RB_OK);
    CHECK_INT(pin_ncores(topo), 1);
    char pus[64];
    pin_usable_string(topo, pus, sizeof(pus));
    CHECK(strcmp(pus, "1") == 0);
    pin_plan plan;
    CHECK_INT(pin_plan_make(topo, 2, &plan, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "the 1 core this process may use (PUs 1)");
    CHECK_INT(pin_plan_make(topo, 1, &plan, &e), RB_OK);
    CHECK_INT(hwloc_bitmap_first(plan.pu[0]), 1);
    pin_plan_free(&plan);
    CHECK_INT(pin_unbind_self(topo, &e), RB_OK);
    CHECK_INT(sched_getaffinity(0, sizeof(now), &now), 0);
    CHECK(CPU_COUNT(&now) == 1 && CPU_ISSET(1, &now));
    hwloc_topology_destroy(topo);
    CHECK_INT(sched_setaffinity(0, sizeof(all), &all), 0);
}

static void remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

/* The one rule for lists: no empty item, no item twice. */
static void test_lists(void)
{
    rb_err e;
    char buf[64], *items[8];
    CHECK_INT(parse_list("--x", "a,b,c", buf, sizeof(buf), items, 8, &e), 3);
    CHECK_INT(parse_list("--x", "a,,c", buf, sizeof(buf), items, 8, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "empty item");
    CHECK_INT(parse_list("--x", "a,b,a", buf, sizeof(buf), items, 8, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "'a' given twice");
    rb_dtype dts[RB_NDTYPES];
    int n;
    CHECK_INT(parse_dtypes("--dtype", "f32,f32", dts, &n, &e), RB_EINPUT);
    int th[8];
    CHECK_INT(parse_threads("--threads", "1,01", 2, th, 8, &n, &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "given twice");
    CHECK_INT(parse_threads("--threads", "2", 1, th, 8, &n, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "the 1 core this process may use");
    /* fields of a value may repeat (a shape, a cache geometry) */
    CHECK_INT(parse_split("--x", "8:8:8", ':', 0, buf, sizeof(buf), items, 8,
                          &e),
              3);
    CHECK_INT(parse_split("--x", "8::8", ':', 0, buf, sizeof(buf), items, 8,
                          &e),
              RB_EINPUT);
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted, its
 * quotes doubled; others are written as they are. */
static void test_csv(void)
{
    csv c = {0};
    csv_str(&c, "plain");
    csv_str(&c, "a,b");
    csv_str(&c, "say \"hi\"");
    csv_str(&c, "two\nlines");
    csv_num(&c, "%.3g", NAN);
    csv_int(&c, 42);
    csv_end(&c);
    char *text = sb_take(&c.sb);
    CHECK(text && strcmp(text, "plain,\"a,b\",\"say \"\"hi\"\"\","
                               "\"two\nlines\",,42\n") == 0);
    free(text);
}

/* csv_check reads back what the writer makes: a record of quoted fields
 * (a comma, doubled quotes, a line break inside) is as wide as the
 * header; one field fewer or more, a record cut short inside its quotes
 * or with no newline, and another header are each refused, naming the
 * line. */
static void test_csv_check(void)
{
    csv c = {0};
    csv_header(&c, "a,b,c");
    csv_str(&c, "x,y");
    csv_str(&c, "say \"hi\"");
    csv_str(&c, "two\nlines");
    csv_end(&c);
    csv_int(&c, 1);
    csv_empty(&c);
    csv_empty(&c);
    csv_end(&c);
    char *text = sb_take(&c.sb);
    CHECK(text != NULL);
    const size_t len = text ? strlen(text) : 0;
    rb_err e;
    CHECK_INT(csv_check(text, len, "a,b,c", "t.csv", &e), RB_OK);
    /* a record after one that holds a line break starts a line later */
    const char *wide = "a,b,c\n\"x,y\",\"q\"\"\",\"1\n2\"\n1,2,3,4\n";
    CHECK_INT(csv_check(wide, strlen(wide), "a,b,c", "t.csv", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "t.csv: line 4 has 4 fields, not the header's 3");
    const char *narrow = "a,b,c\n\"x,y\",2\n";
    CHECK_INT(csv_check(narrow, strlen(narrow), "a,b,c", "t.csv", &e),
              RB_EINPUT);
    CHECK_STR_HAS(e.msg, "line 2 has 2 fields");
    const char *open = "a,b,c\n1,\"2,3\n";
    CHECK_INT(csv_check(open, strlen(open), "a,b,c", "t.csv", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "line 2 is cut short");
    CHECK_INT(csv_check(text, len - 1, "a,b,c", "t.csv", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "t.csv: line 4 is cut short");
    CHECK_INT(csv_check(text, len, "a,b,d", "t.csv", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "line 1 is not the header this build writes");
    free(text);
}

static void test_escape(void)
{
    char out[64];
    text_escape("caf\xc3\xa9 \xff\x01ok\x7f", out, sizeof(out));
    CHECK(strcmp(out, "caf\xc3\xa9 \\xff\\x01ok\\x7f") == 0);
    text_escape("\xed\xa0\x80", out, sizeof(out)); /* a surrogate */
    CHECK(strcmp(out, "\\xed\\xa0\\x80") == 0);
    text_escape("a\nb\tc", out, sizeof(out)); /* one line, one field */
    CHECK(strcmp(out, "a\\x0ab\\x09c") == 0);
    CHECK(text_is_name("L1-L2", 15, "-"));
    CHECK(!text_is_name("L1;x", 15, "-"));
    CHECK(!text_is_name("", 15, "-"));
    CHECK(!text_is_name("abcdefghijklmnop", 15, "-"));
}

/* A value jansson cannot hold makes the document fail, named, instead of
 * vanishing from it. */
static void test_jdoc(void)
{
    jdoc d = {0};
    rb_err e;
    json_t *rows = json_array();
    jd_push(&d, rows, "rows", jd_pack(&d, "{s:f}", "gbs", INFINITY));
    json_t *doc = jd_pack(&d, "{s:o}", "rows", rows);
    CHECK_INT(jd_done(&d, &doc, "results.json", &e), RB_EINPUT);
    CHECK(doc == NULL);
    CHECK_STR_HAS(e.msg, "building results.json");
    jdoc ok = {0};
    json_t *fine = jd_pack(&ok, "{s:o, s:o}", "x", jd_num(NAN), "y",
                           jd_num(1.5));
    CHECK_INT(jd_done(&ok, &fine, "x", &e), RB_OK);
    CHECK(json_is_null(json_object_get(fine, "x")));
    json_decref(fine);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A run folder is absent until it is committed, complete after; a file in
 * it is never replaced; an abandoned one leaves nothing, not even the
 * parents it made. */
static void test_runfolder(void)
{
    char dir[] = "/tmp/roofbench-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    rb_err e;
    runfolder f;
    char out[512], path[700], buf[16] = {0};
    snprintf(out, sizeof(out), "%s/a/b/run", dir);
    CHECK_INT(runfolder_open(&f, "unused", out, "h", "s", &e), RB_OK);
    CHECK_INT(runfolder_write(&f, "results.json", "first", 5, &e), RB_OK);
    CHECK_INT(runfolder_write(&f, "results.json", "again", 5, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "not overwritten");
    CHECK_INT(runfolder_write(&f, "notes.txt", "x", 1, &e), RB_EINPUT);
    CHECK(access(out, F_OK) != 0); /* absent until committed */
    CHECK_INT(runfolder_commit(&f, &e), RB_OK);
    snprintf(path, sizeof(path), "%s/results.json", out);
    FILE *fp = fopen(path, "r");
    CHECK(fp && fread(buf, 1, sizeof(buf) - 1, fp) == 5);
    if (fp)
        fclose(fp);
    CHECK(strcmp(buf, "first") == 0);
    /* nothing else: no temporary file, no folder beside it */
    snprintf(path, sizeof(path), "%s/a/b", dir);
    int entries = 0;
    DIR *d = opendir(path);
    for (struct dirent *de; d && (de = readdir(d));)
        entries += de->d_name[0] != '.';
    if (d)
        closedir(d);
    CHECK_INT(entries, 1);

    /* --out: holds results, holds something else, is empty */
    CHECK_INT(runfolder_check("unused", out, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "already holds results (results.json)");
    snprintf(path, sizeof(path), "%s/other", dir);
    mkdir(path, 0777);
    snprintf(out, sizeof(out), "%s/other/x.txt", dir);
    write_file(out, "x");
    CHECK_INT(runfolder_check("unused", path, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "not empty");
    snprintf(path, sizeof(path), "%s/empty", dir);
    mkdir(path, 0777);
    CHECK_INT(runfolder_check("unused", path, &e), RB_OK);
    CHECK_INT(runfolder_check(NULL, "/dev/null/sub", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "--out '/dev/null/sub'");

    /* an abandoned folder takes the parents it made with it */
    snprintf(out, sizeof(out), "%s/new/deeper/run", dir);
    CHECK_INT(runfolder_open(&f, "unused", out, "h", "s", &e), RB_OK);
    CHECK_INT(runfolder_write(&f, "results.csv", "x", 1, &e), RB_OK);
    runfolder_abandon(&f);
    snprintf(path, sizeof(path), "%s/new", dir);
    CHECK(access(path, F_OK) != 0);

    /* two default folders of the same second get distinct names, chosen
     * (and reserved) when they open, so the documents name the right one */
    snprintf(path, sizeof(path), "%s/runs", dir);
    runfolder g;
    CHECK_INT(runfolder_open(&f, path, NULL, "host", "20261201T000000Z", &e),
              RB_OK);
    CHECK_INT(runfolder_open(&g, path, NULL, "host", "20261201T000000Z", &e),
              RB_OK);
    CHECK(strcmp(f.final, g.final) != 0);
    CHECK_STR_HAS(g.final, "host-20261201T000000Z-2");
    CHECK_INT(runfolder_commit(&g, &e), RB_OK);
    CHECK_INT(runfolder_commit(&f, &e), RB_OK);
    CHECK(access(f.final, F_OK) == 0 && access(g.final, F_OK) == 0);

    /* an existing empty --out is replaced, keeping its permissions; a
     * symbolic link to one leads to it */
    snprintf(out, sizeof(out), "%s/empty", dir);
    chmod(out, 0750);
    char link_path[600];
    snprintf(link_path, sizeof(link_path), "%s/link", dir);
    CHECK_INT(symlink(out, link_path), 0);
    CHECK_INT(runfolder_open(&f, "unused", link_path, "h", "s", &e), RB_OK);
    CHECK_INT(runfolder_write(&f, "results.csv", "x", 1, &e), RB_OK);
    CHECK_INT(runfolder_commit(&f, &e), RB_OK);
    struct stat st;
    CHECK(stat(out, &st) == 0 && (st.st_mode & 07777) == 0750);
    snprintf(path, sizeof(path), "%s/results.csv", link_path);
    CHECK(access(path, F_OK) == 0);
    /* the current folder is refused */
    char cwd[600];
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    snprintf(path, sizeof(path), "%s/cur", dir);
    mkdir(path, 0777);
    CHECK_INT(chdir(path), 0);
    CHECK_INT(runfolder_check("unused", ".", &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "the current folder");
    CHECK_INT(chdir(cwd), 0);
    remove_dir(dir);
}

/* The pool's barrier: in every round each member counts itself in and
 * writes its slot, meets the others, and must then see the whole round
 * counted (none of the next: that needs the second meeting) and every
 * slot written; with as many members as this process may use CPUs and
 * with more, whose spinners must give way. A member that sees a fault
 * notes it and goes on meeting the others, so that none is left waiting;
 * a barrier that strands one fails by the alarm. */
enum { BAR_MAX = 4 };
typedef struct {
    pool_barrier *b;
    _Atomic unsigned *count;
    _Atomic int *go; /* 0 wait, 1 run, -1 stop: a member did not start */
    unsigned *slot, n, rounds, tid;
    int bad;
} bar_member;

static void *bar_main(void *v)
{
    bar_member *m = v;
    int go;
    while ((go = atomic_load(m->go)) == 0)
        sched_yield();
    for (unsigned r = 0; go > 0 && r < m->rounds; r++) {
        atomic_fetch_add_explicit(m->count, 1, memory_order_relaxed);
        m->slot[m->tid] = r + 1;
        pool_barrier_wait(m->b);
        if (!m->bad && atomic_load_explicit(m->count, memory_order_relaxed) !=
                           m->n * (r + 1))
            m->bad = 1;
        for (unsigned t = 0; !m->bad && t < m->n; t++)
            if (m->slot[t] != r + 1)
                m->bad = 2;
        pool_barrier_wait(m->b);
    }
    return NULL;
}

static void bar_round(unsigned n, unsigned rounds)
{
    pool_barrier b;
    pool_barrier_init(&b, n);
    _Atomic unsigned count;
    _Atomic int go;
    atomic_init(&count, 0);
    atomic_init(&go, 0);
    unsigned slot[BAR_MAX] = {0}, started = 0;
    bar_member m[BAR_MAX];
    pthread_t th[BAR_MAX];
    for (unsigned t = 0; t < n; t++) {
        m[t] = (bar_member){.b = &b, .count = &count, .go = &go,
                            .slot = slot, .n = n, .rounds = rounds, .tid = t};
        if (pthread_create(&th[t], NULL, bar_main, &m[t]) != 0)
            break;
        started++;
    }
    CHECK_INT(started, n);
    atomic_store(&go, started == n ? 1 : -1);
    for (unsigned t = 0; t < started; t++) {
        pthread_join(th[t], NULL);
        if (m[t].bad)
            fprintf(stderr, "  pool barrier, %u members: member %u saw %s\n",
                    n, t, m[t].bad == 1 ? "a round half counted"
                                        : "a slot unwritten");
        CHECK_INT(m[t].bad, 0);
    }
    if (started == n)
        CHECK_U64(atomic_load(&count), (uint64_t)n * rounds);
}

static void test_pool_barrier(void)
{
    cpu_set_t set;
    const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0
                         ? CPU_COUNT(&set)
                         : 1;
    /* as many as the CPUs (at least two, at most BAR_MAX - 1), then one
     * more; many rounds only where each member has a CPU of its own */
    const unsigned fit = cpus < 2 ? 2 : cpus < BAR_MAX ? (unsigned)cpus
                                                      : BAR_MAX - 1;
    alarm(120);
    bar_round(1, 100);
    bar_round(fit, cpus >= (int)fit ? 20000 : 300);
    bar_round(fit + 1, 300);
    alarm(0);
}

/* A signal where no rescue is installed but a folder is set (sessions
 * install theirs first; this is interrupt.c's fallback): the process
 * exits with the signal's status and removes that folder when it is empty,
 * keeping one that holds a file. In a child, which the signal ends. */
static int signalled_child(const char *dir, int with_file)
{
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        rb_err e;
        sigset_t set; /* whatever mask the test inherited */
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        interrupt_set_grace(0.01);
        if (interrupt_install(NULL, NULL, &e) || mkdir(dir, 0700) != 0)
            _exit(3);
        if (with_file) {
            char f[600];
            snprintf(f, sizeof(f), "%s/kept", dir);
            FILE *fp = fopen(f, "w");
            if (!fp)
                _exit(3);
            fclose(fp);
        }
        interrupt_set_folder(dir);
        raise(SIGINT);
        for (int i = 0; i < 500; i++) /* the watcher ends it */
            usleep(10000);
        _exit(4);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* A session interrupted before its command registered the writer of its
 * documents (session_on_finish): nothing to keep, so the folder goes
 * (--out and its temporary one alike) and the exit status is the
 * signal's. (It used to end in "no document to write", exit 2.) */
static void test_signal_before_writer(void)
{
    char base[] = "/tmp/roofbench-units-XXXXXX";
    if (!mkdtemp(base)) {
        CHECK(0);
        return;
    }
    char out[600];
    snprintf(out, sizeof(out), "%s/x", base);
    const pid_t pid = fork();
    if (pid == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        rb_machine m;
        rb_err e;
        session s;
        interrupt_set_grace(0.01);
        if (machine_open(&m, &e) ||
            session_open(&s, &m, "run", out, NULL, &e))
            _exit(3);
        raise(SIGINT);
        for (int i = 0; i < 500; i++) /* the watcher ends it */
            usleep(10000);
        _exit(4);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 130);
    DIR *d = opendir(base);
    int left = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        left += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    if (d)
        closedir(d);
    CHECK_INT(left, 0);
    CHECK(rmdir(base) == 0);
}

static void test_signal_before_rescue(void)
{
    char base[] = "/tmp/roofbench-units-XXXXXX";
    if (!mkdtemp(base)) {
        CHECK(0);
        return;
    }
    char empty[600], full[600], f[700];
    snprintf(empty, sizeof(empty), "%s/empty.part", base);
    snprintf(full, sizeof(full), "%s/full.part", base);
    struct stat st;
    CHECK_INT(signalled_child(empty, 0), 130);
    CHECK(stat(empty, &st) != 0);
    CHECK_INT(signalled_child(full, 1), 130);
    CHECK(stat(full, &st) == 0 && S_ISDIR(st.st_mode));
    snprintf(f, sizeof(f), "%s/kept", full);
    CHECK(unlink(f) == 0);
    CHECK(rmdir(full) == 0);
    CHECK(rmdir(base) == 0);
}

int main(void)
{
    test_parse();
    test_stats();
    test_slices();
    test_pin_synthetic();
    test_lists();
    test_csv();
    test_csv_check();
    test_escape();
    test_jdoc();
    test_runfolder();
    test_pin_allowed();
    test_pool_barrier();
    test_signal_before_rescue();
    test_signal_before_writer();
    return check_status("test_units");
}
