/* The defects a hostile probe of the command layer found (issue 11), one
 * function each, run against the roofbench given on the command line.
 * Each prints its verdict, so a run against an older binary shows which
 * of them it still has. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>

#include "probe.h"

static char fx1[700], fx2[700]; /* fixtures rewritten for this host */

/* The smallest measured run: `run --quick --kernel dot --dtype f64
 * --threads T --ceilings C [--out O]`, into args (13 slots, NULL ended). */
static void dot_args(const char **args, const char *threads,
                     const char *ceilings, const char *out)
{
    const char *const a[13] = {
        "run",        "--quick", "--kernel",           "dot",
        "--dtype",    "f64",     "--threads",          threads,
        "--ceilings", ceilings,  out ? "--out" : NULL, out,
        NULL};
    memcpy(args, a, sizeof(a));
}

/* ---- 1: no string from a file reaches gnuplot or a shell -------------- */

static const char *evil_name = "';system\"id>p\"#";

static void edit_evil(json_t *doc)
{
    json_t *lv = json_array_get(read_levels(doc), 0);
    json_object_set_new(lv, "name", json_string(evil_name));
}

static void defect_injection(void)
{
    begin("1: shell command injection through a level name");
    char evil[700], out[700], p[800];
    path_in(evil, sizeof(evil), "evil.json");
    CHECK_INT(fixture_here("ceilings-xeon-emr-quick-1t.json", evil, edit_evil),
              0);
    path_in(out, sizeof(out), "X");
    const char *args[] = {
        "orders",  "--n",   "32",        "--kernel", "matmul_naive",
        "--dtype", "f64",   "--traffic", "model",    "--ceilings",
        evil,      "--out", out,         NULL};
    result r;
    run(workdir, args, &r);
    snprintf(p, sizeof(p), "%s/p", out);
    CHECK(!exists(p));
    path_in(p, sizeof(p), "p");
    CHECK(!exists(p));
    /* the name is refused, naming the field, before anything runs */
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "levels[0].name");
    CHECK(!exists(out));
    end("injection");
}

/* ---- 2: non-finite and absurd numbers are refused ------------------- */

static double edit_gbs;
static int edit_level;

static void edit_level_gbs(json_t *doc)
{
    json_t *levels = read_levels(doc);
    json_object_set_new(json_array_get(levels, (size_t)edit_level), "gbs",
                        json_real(edit_gbs));
}

static void defect_nonfinite(void)
{
    begin("2: non-finite or absurd numbers in a ceilings file");
    char bad[700], out[700];
    path_in(bad, sizeof(bad), "tiny.json");
    edit_gbs = 4.9e-324;
    edit_level = 0;
    CHECK_INT(fixture_here("ceilings-xeon-emr-run-roofline.json", bad,
                           edit_level_gbs),
              0);
    path_in(out, sizeof(out), "R");
    const char *args[13];
    dot_args(args, "1", bad, out);
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "levels[0].gbs");
    CHECK(!exists(out));

    /* DRAM at 1e308 GB/s: the host profile would overflow */
    edit_gbs = 1e308;
    edit_level = 3;
    CHECK_INT(
        fixture_here("ceilings-xeon-emr-quick-1t.json", bad, edit_level_gbs),
        0);
    const char *model[] = {"model", "bp,pm->bm", "b=1",  "p=64",
                           "m=64",  "--profile", "host", "--ceilings",
                           bad,     "--json",    NULL};
    run(workdir, model, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "levels[3].gbs");
    CHECK(strstr(r.out, "\"targets\": []") == NULL);
    unlink(bad);
    end("non-finite");
}

/* ---- 3: results survive a closed or full standard output ------------- */

static void defect_stdout(void)
{
    begin("3: a closed pipe or a full disk on standard output");
    char out[700], json[800];
    path_in(out, sizeof(out), "P");
    snprintf(json, sizeof(json), "%s/results.json", out);
    int fds[2];
    CHECK_INT(pipe(fds), 0);
    close(fds[0]); /* the reader is gone before the first line */
    const char *args[13];
    dot_args(args, "1", fx2, out);
    result r;
    finish(start_with(workdir, args, fds[1], NULL, NULL), &r);
    close(fds[1]);
    CHECK(r.status != 1000 + SIGPIPE);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "standard output");
    json_t *doc = load_json(json);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    CHECK_INT(json_array_size(json_object_get(doc, "rows")), 1);
    json_decref(doc);

    const int full = open("/dev/full", O_WRONLY);
    if (full >= 0) {
        const char *model[] = {"model", "bp,pm->bm", "b=1", "p=8",
                               "m=8",   "--json",    NULL};
        finish(start_with(workdir, model, full, NULL, NULL), &r);
        close(full);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, "standard output");
    }
    end("stdout");
}

/* ---- 4: threads are planned within the CPUs the process may use ------ */

static void pin_to(void *ctx)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*(const int *)ctx, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

static void defect_pinning(void)
{
    begin("4: pinning within the allowed CPUs (taskset)");
    cpu_set_t set;
    CHECK_INT(sched_getaffinity(0, sizeof(set), &set), 0);
    if (CPU_COUNT(&set) < 2 || !CPU_ISSET(0, &set) || !CPU_ISSET(1, &set)) {
        printf("  skipped: needs CPUs 0 and 1 (this process has %d)\n",
               CPU_COUNT(&set));
        return;
    }
    char out[700], json[800];
    path_in(out, sizeof(out), "T");
    const char *two[13];
    dot_args(two, "2", fx2, out);
    int cpu = 0;
    result r;
    finish(start_with(workdir, two, -1, pin_to, &cpu), &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "--threads 2");
    CHECK_STR_HAS(r.err, "1 core ");
    CHECK(!exists(out));

    const char *one[13];
    dot_args(one, "1", fx2, out);
    cpu = 1;
    finish(start_with(workdir, one, -1, pin_to, &cpu), &r);
    CHECK_INT(r.status, 0);
    snprintf(json, sizeof(json), "%s/results.json", out);
    json_t *doc = load_json(json);
    json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
    const char *pu =
        json_string_value(json_array_get(json_object_get(row, "binding"), 0));
    CHECK(pu != NULL && strcmp(pu, "1") == 0);
    if (pu && strcmp(pu, "1") != 0)
        fprintf(stderr, "  taskset -c 1: thread bound to PU %s\n", pu);
    json_decref(doc);
    end("pinning");
}

/* ---- 5: a full disk leaves no half folder ----------------------------- */

static void limit_files(void *ctx)
{
    signal(SIGXFSZ, SIG_IGN);
    const struct rlimit rl = {*(const rlim_t *)ctx, *(const rlim_t *)ctx};
    setrlimit(RLIMIT_FSIZE, &rl);
}

static void defect_full_disk(void)
{
    begin("5: a full disk while writing the results");
    char out[700];
    path_in(out, sizeof(out), "F");
    const char *args[13];
    dot_args(args, "1", fx2, out);
    /* room for the CSV (about 400 bytes), not for the JSON */
    static const rlim_t limits[] = {2000, 0};
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        rlim_t lim = limits[i];
        result r;
        finish(start_with(workdir, args, -1, limit_files, &lim), &r);
        CHECK_INT(r.status, 2);
        CHECK(!exists(out));
        /* (with no room at all, the captured stderr cannot be written) */
        if (lim > 0)
            CHECK_STR_HAS(r.err, "lost");
        CHECK_INT(count_entries(workdir), 0);
        if (exists(out))
            remove_tree(out);
    }
    /* the default folder: nothing under results/runs either */
    const char *dflt[13];
    dot_args(dflt, "1", fx2, NULL);
    rlim_t lim = 0;
    result r;
    finish(start_with(workdir, dflt, -1, limit_files, &lim), &r);
    CHECK_INT(r.status, 2);
    char runs[700];
    path_in(runs, sizeof(runs), "results/runs");
    CHECK_INT(count_entries(runs), 0);
    path_in(runs, sizeof(runs), "results");
    remove_tree(runs);
    end("full disk");
}

/* ---- 6: --out knows every file any command writes --------------------- */

static void defect_out_check(void)
{
    begin("6: --out on a folder that holds an orders measurement");
    char out[700];
    path_in(out, sizeof(out), "O");
    const char *orders[] = {"orders",     "--n",        "24",  "--kernel",
                            "matmul_row", "--dtype",    "f64", "--traffic",
                            "model",      "--ceilings", fx1,   "--out",
                            out,          NULL};
    result r;
    run(workdir, orders, &r);
    CHECK_INT(r.status, 0);
    char before[65536], after[65536], json[800];
    snprintf(json, sizeof(json), "%s/orders.json", out);
    slurp(json, before, sizeof(before));
    /* again into the same folder: refused before measuring */
    run(workdir, orders, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "already holds results");
    CHECK(strstr(r.out, "matmul_row") == NULL);
    slurp(json, after, sizeof(after));
    CHECK(strcmp(before, after) == 0);
    /* and run into the orders folder */
    const char *runo[13];
    dot_args(runo, "1", fx2, out);
    run(workdir, runo, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "already holds results");
    char res[800];
    snprintf(res, sizeof(res), "%s/results.json", out);
    CHECK(!exists(res));
    remove_tree(out);
    end("--out check");
}

/* ---- 7: every long command stops at once on SIGINT and SIGTERM ------- */

/* Starts args, waits for needle on stderr (or `wait` seconds), sends sig,
 * and checks the exit status and how long the stop took. */
static void stop_case(const char *const *args, const char *needle, double wait,
                      int sig, const char *doc, const char *what, result *r)
{
    const pid_t pid = start(workdir, args);
    if (needle)
        wait_for("stderr", needle, wait);
    else
        sleep_s(wait);
    kill(pid, sig);
    finish_within(pid, 60.0, r); /* seconds from here, just after sig */
    printf("  %s: stopped %.2f s after %s, exit %d\n", what, r->seconds,
           sig == SIGINT ? "SIGINT" : "SIGTERM", r->status);
    CHECK_INT(r->status, sig == SIGINT ? 130 : 143);
    /* half a second on an idle machine; this one may be shared */
    CHECK(r->seconds < 2.0);
    CHECK_STR_HAS(r->err, "interrupted");
    json_t *j = load_json(doc);
    CHECK(j != NULL);
    CHECK_STR_HAS(jstr(j, "status", NULL), "interrupted");
    json_decref(j);
}

static void defect_signals(void)
{
    begin("7: SIGINT and SIGTERM stop every long command within 0.5 s");
    char out[700], doc[800];
    result r;
    /* ceilings: the finished parts kept */
    path_in(out, sizeof(out), "S1");
    snprintf(doc, sizeof(doc), "%s/ceilings.json", out);
    const char *ceil[] = {"ceilings", "--quick", "--threads", "1",
                          "--out",    out,       NULL};
    stop_case(ceil, NULL, 2.0, SIGINT, doc, "ceilings", &r);
    json_t *j = load_json(doc);
    CHECK(json_array_size(json_object_get(j, "peak")) > 0);
    json_decref(j);
    remove_tree(out);
    stop_case(ceil, NULL, 1.0, SIGTERM, doc, "ceilings", &r);
    remove_tree(out);

    /* run: inside the reference (as soon as it says it has begun: 1.5 s
     * on two cores at n = 1536, less on more) and inside one call of the
     * naive kernel (seconds per call) */
    path_in(out, sizeof(out), "S2");
    snprintf(doc, sizeof(doc), "%s/results.json", out);
    const char *naive[] = {"run",        "--kernel",  "matmul_naive",
                           "--n",        "1536",      "--dtype",
                           "f64",        "--threads", "1",
                           "--ceilings", fx2,         "--out",
                           out,          NULL};
    stop_case(naive, "the reference of matmul f64", 30.0, SIGINT, doc,
              "run, in the reference", &r);
    remove_tree(out);
    stop_case(naive, NULL, 6.0, SIGTERM, doc, "run, in a kernel call", &r);
    remove_tree(out);

    /* orders: the finished forms of the size in flight are kept */
    path_in(out, sizeof(out), "S3");
    snprintf(doc, sizeof(doc), "%s/orders.json", out);
    const char *ord[] = {"orders",
                         "--n",
                         "1024",
                         "--kernel",
                         "matmul_blocked,matmul_naive",
                         "--dtype",
                         "f64",
                         "--traffic",
                         "model",
                         "--ceilings",
                         fx1,
                         "--out",
                         out,
                         NULL};
    /* up to 30 s for the blocked form (its reference and calls, a few
     * seconds, more beside another test): the naive one runs longer */
    stop_case(ord, "matmul_blocked", 30.0, SIGINT, doc, "orders", &r);
    j = load_json(doc);
    json_t *forms = json_object_get(
        json_array_get(json_object_get(j, "sizes"), 0), "forms");
    CHECK_INT(json_array_size(forms), 1);
    CHECK_STR_HAS(jstr(json_array_get(forms, 0), "kernel", NULL),
                  "matmul_blocked");
    json_decref(j);
    remove_tree(out);
    end("signals");
}

/* ---- 8 to 12 ---------------------------------------------------------- */

typedef struct {
    const char *what;
    const char *args[16];
    int status;
    const char *message; /* in stderr */
    const char *absent;  /* never in stderr (NULL: no such check) */
} probe_case;

static const probe_case cases[] = {
    {"8: nothing to measure",
     {"ceilings", "--width", "none", "--kernel", "none", "--gemm-n", "0"},
     2,
     "nothing to measure",
     NULL},
    {"9: a seed that JSON cannot hold",
     {"run", "--quick", "--kernel", "dot", "--seed", "18446744073709551615"},
     2,
     "--seed '18446744073709551615': too large",
     NULL},
    {"10: a sweep below the chips of the shard",
     {"model", "bp,pm->bm", "b=2", "m=2", "--shard", "p:8", "--sweep",
      "p=1:64"},
     2,
     "--sweep 'p=1:64'",
     NULL},
    {"11: a child shape whose product wraps",
     {"_traffic-child", "matmul_naive", "f64",
      "4294967296,4294967296,4294967296", "1", "0"},
     2,
     "overflow",
     NULL},
    {"12a: an empty field in --cache",
     {"orders", "--cache", "L1=32K::8:64"},
     2,
     "SIZE:WAYS:LINE",
     NULL},
    {"12a: empty items in --cache",
     {"orders", "--cache", ",,"},
     2,
     "empty item",
     NULL},
    {"12b: a folder as --ceilings",
     {"run", "--quick", "--ceilings", "/tmp"},
     2,
     "a folder",
     NULL},
    {"12b: a folder as --file",
     {"model", "--file", "/tmp"},
     2,
     "a folder",
     NULL},
    {"12d: invalid UTF-8 in a value",
     {"run", "--kernel", "\xff\xfe"},
     2,
     "\\xff\\xfe",
     "\xff"},
    {"12i: a repeated width",
     {"ceilings", "--width", "64,64"},
     2,
     "given twice",
     NULL},
    {"12j: a problem too large for orders",
     {"orders", "--n", "1M"},
     2,
     "--n 1M",
     "roofbench: :"},
};

static void defect_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        begin(cases[i].what);
        result r;
        run(workdir, cases[i].args, &r);
        CHECK_INT(r.status, cases[i].status);
        CHECK_STR_HAS(r.err, cases[i].message);
        if (cases[i].absent)
            CHECK(strstr(r.err, cases[i].absent) == NULL);
        const char *nl = strchr(r.err, '\n');
        CHECK(nl != NULL && nl[1] == '\0');
        CHECK_INT(count_entries(workdir), 0);
        end(cases[i].what);
    }
}

/* 12c: a NUL byte in a --file */
static void defect_nul(void)
{
    begin("12c: a NUL byte in --file");
    char path[700];
    path_in(path, sizeof(path), "nul.txt");
    FILE *f = fopen(path, "w");
    fwrite("bp,pm->bm b=1 p=1 m=1\nbp,\0pm->bm\n", 1, 33, f);
    fclose(f);
    const char *args[] = {"model", "--file", path, NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, ":2: a NUL byte");
    unlink(path);
    end("NUL");
}

/* 12e: a name with a comma reaches no CSV unquoted */
static void edit_comma(json_t *doc)
{
    json_object_set_new(json_array_get(read_levels(doc), 0), "name",
                        json_string("L,1\"x"));
}

static void defect_csv(void)
{
    begin("12e: CSV fields with commas and quotes");
    char bad[700], out[700], csv[800];
    path_in(bad, sizeof(bad), "comma.json");
    CHECK_INT(
        fixture_here("ceilings-xeon-emr-run-roofline.json", bad, edit_comma),
        0);
    path_in(out, sizeof(out), "C");
    const char *args[] = {"run",     "--quick", "--kernel",   "matvec",
                          "--dtype", "f32",     "--threads",  "1",
                          "--n",     "8",       "--ceilings", bad,
                          "--out",   out,       NULL};
    result r;
    run(workdir, args, &r);
    snprintf(csv, sizeof(csv), "%s/results.csv", out);
    if (exists(csv)) {
        /* a CSV reader sees as many fields in the row as in the header */
        char text[8192];
        slurp(csv, text, sizeof(text));
        int fields[2] = {1, 1}, line = 0, quoted = 0;
        for (const char *p = text; *p && line < 2; p++) {
            if (*p == '"')
                quoted = !quoted;
            else if (*p == ',' && !quoted)
                fields[line]++;
            else if (*p == '\n' && !quoted)
                line++;
        }
        CHECK_INT(fields[1], fields[0]);
    } else {
        /* or the name is refused */
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, "levels[0].name");
    }
    remove_tree(out);
    unlink(bad);
    end("CSV");
}

/* 12f, 12g, 12h: the text says why and says it right */
static void defect_words(void)
{
    begin("12f: a row without a roof says why");
    char out[700], json[800];
    path_in(out, sizeof(out), "W");
    const char *args[13];
    dot_args(args, "2", fx1, out);
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "no roofline for 2 threads");
    snprintf(json, sizeof(json), "%s/results.json", out);
    json_t *doc = load_json(json);
    json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
    CHECK(json_is_null(json_object_get(row, "roofline")));
    CHECK_STR_HAS(jstr(row, "roofline_unavailable", NULL),
                  "no roofline for 2 threads");
    json_decref(doc);
    remove_tree(out);
    end("n/a");

    begin("12h: the help names the status that is written");
    const char *help[] = {"run", "--help", NULL};
    run(workdir, help, &r);
    CHECK_INT(r.status, 0);
    CHECK(strstr(r.out, "incomplete") == NULL);
    CHECK_STR_HAS(r.out, "interrupted");
    end("help");
}

int main(int argc, char **argv)
{
    const int rc = cli_setup(argc, argv, "test_probe");
    if (rc)
        return rc;
    char scratch[] = "/tmp/roofbench-probe-XXXXXX";
    if (probe_fixtures(scratch, fx1, fx2, sizeof(fx1), "test_probe"))
        return 1;
    defect_injection();
    defect_nonfinite();
    defect_stdout();
    defect_pinning();
    defect_full_disk();
    defect_out_check();
    defect_cases();
    defect_nul();
    defect_csv();
    defect_words();
    defect_signals();
    remove_tree(workdir);
    remove_tree(scratch);
    return check_status("test_probe");
}
