/* The defects a second hostile probe, of bad input, found (issue 11): one
 * function or table entry each, run against the roofbench given on the
 * command line, each printing its verdict, so that a run against an older
 * binary shows which of them it still has. */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>

#include "probe.h"

static char fx1[700], fx2[700]; /* fixtures rewritten for this host */
static char scratch[] = "/tmp/roofbench-inputs-XXXXXX";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The environment of a child: PATH with a folder first, or one variable
 * set (NAME=VALUE). */
static const char *child_path_first, *child_var;
static int child_limit_memory; /* 4 GiB of address space: a leak ends */

static void child_env(void *ctx)
{
    (void)ctx;
    if (child_path_first) {
        char path[4096];
        const char *old = getenv("PATH");
        snprintf(path, sizeof(path), "%s:%s", child_path_first,
                 old ? old : "/usr/bin:/bin");
        setenv("PATH", path, 1);
    }
    if (child_var)
        putenv((char *)child_var);
    if (child_limit_memory) {
        const struct rlimit lim = {4ull << 30, 4ull << 30};
        setrlimit(RLIMIT_AS, &lim);
    }
}

/* Runs args with child_env, killing it after seconds (a hang is status
 * 1000 + SIGKILL). */
static void run_env(const char *const *args, double seconds, result *r)
{
    finish_within(start_with(workdir, args, -1, child_env, NULL), seconds, r);
}

/* A program that stands in for the real one of that name, first on the
 * child's PATH: script is its body. */
static void fake_tool(const char *name, const char *script)
{
    char dir[800], exe[900], text[1200];
    snprintf(dir, sizeof(dir), "%s/fakebin", scratch);
    mkdir(dir, 0755);
    snprintf(exe, sizeof(exe), "%s/%s", dir, name);
    snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", script);
    write_file(exe, text);
    chmod(exe, 0755);
    static char first[800];
    snprintf(first, sizeof(first), "%s", dir);
    child_path_first = first;
}

static void fake_gnuplot(const char *script)
{
    fake_tool("gnuplot", script);
}

static const char *orders_args[] = {
    "orders",    "--n",   "24", "--kernel", "matmul_row", "--dtype", "f64",
    "--traffic", "model", NULL, NULL,       NULL,         NULL,      NULL};

/* orders_args with --ceilings fx1 --out out */
static void orders_into(const char **args, const char *out)
{
    memcpy(args, orders_args, sizeof(orders_args));
    args[9] = "--ceilings";
    args[10] = fx1;
    args[11] = "--out";
    args[12] = out;
}

/* ---- 1 and 2: the chart step ------------------------------------------ */

static void defect_chart(void)
{
    begin("1: a signal while gnuplot draws");
    char out[700], marker[800], script[1200], json[800];
    path_in(out, sizeof(out), "C");
    snprintf(marker, sizeof(marker), "%s/gnuplot-started", scratch);
    unlink(marker);
    snprintf(script, sizeof(script), "touch '%s'\nexec sleep 30", marker);
    fake_gnuplot(script);
    const char *args[14];
    orders_into(args, out);
    args[13] = NULL;
    const pid_t pid = start_with(workdir, args, -1, child_env, NULL);
    for (const double t0 = now_s(); !exists(marker) && now_s() - t0 < 60;)
        sleep_s(0.02);
    CHECK(exists(marker));
    kill(pid, SIGINT);
    result r;
    finish_within(pid, 60.0, &r); /* seconds from here, just after SIGINT */
    printf("  stopped %.2f s after SIGINT, exit %d\n", r.seconds, r.status);
    CHECK_INT(r.status, 130);
    CHECK(r.seconds < 2.0);
    CHECK_STR_HAS(r.err, "interrupted while writing");
    CHECK_STR_HAS(r.out, "chart skipped: interrupted");
    snprintf(json, sizeof(json), "%s/orders.json", out);
    json_t *doc = load_json(json);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    json_decref(doc);
    end("chart signal");

    begin("2: a chart cut short (a full disk) is a failure");
    /* a gnuplot that exits 0 having written half a PNG, as it does when
     * the disk fills */
    fake_gnuplot("printf '\\211PNG\\r\\n' > orders-f64-24.png\n"
                 "printf '<svg>' > orders-f64-24.svg");
    run_env(args, 60, &r);
    CHECK_INT(r.status, 1);
    CHECK_STR_HAS(r.err, "cut-off");
    char png[800];
    snprintf(png, sizeof(png), "%s/orders-f64-24.png", out);
    CHECK(!exists(png));
    CHECK(strstr(r.out, "orders-f64-24.png and .svg") == NULL);
    child_path_first = NULL;
    end("cut-off chart");
}

/* ---- 3: bytes that are not printable never reach the terminal -------- */

static void defect_escapes(void)
{
    begin("3: control bytes from flags and the environment");
    char out[700];
    path_in(out, sizeof(out), "a\x1b[31mb\nc");
    const char *args[] = {
        "run", "--quick",    "--kernel", "dot",   "--dtype", "f64", "--threads",
        "1",   "--ceilings", fx2,        "--out", out,       NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK(strchr(r.out, '\x1b') == NULL);
    CHECK(strstr(r.out, "\nc/results.json") == NULL);
    CHECK_STR_HAS(r.out, "\\x1b[31mb\\x0ac/results.json");

    child_var = "OMP_NUM_THREADS=1\nFAKE LINE";
    const char *info[] = {"info", NULL};
    run_env(info, 60, &r);
    CHECK_INT(r.status, 0);
    CHECK(strstr(r.out, "\nFAKE LINE") == NULL);
    CHECK_STR_HAS(r.out, "OMP_NUM_THREADS=1\\x0aFAKE LINE");
    child_var = "OPENBLAS_NUM_THREADS=1\xff";
    const char *json[] = {"info", "--json", NULL};
    run_env(json, 60, &r);
    CHECK_STR_HAS(r.out, "\"OPENBLAS_NUM_THREADS\": \"1\\\\xff\"");
    child_var = NULL;
    end("escapes");
}

/* ---- 5 and 9: profiles ------------------------------------------------- */

#define PROFILE_GOOD                                                           \
    "[chip]\nname = T\nkind = gpu\nheadline = bf16\n[peak]\nbf16 = %s\n"       \
    "bf16.source = s\n[memory]\nbandwidth = 2e12\nbandwidth.source = s\n"

static void defect_profiles(void)
{
    begin("5: absurd and non-decimal numbers in a profile");
    char dir[700], ini[800], text[512];
    path_in(dir, sizeof(dir), "p");
    mkdir(dir, 0755);
    snprintf(ini, sizeof(ini), "%s/t.ini", dir);
    const char *args[] = {"profiles", "--profiles", dir, NULL};
    static const struct {
        const char *value, *message;
    } bad[] = {{"1e-300", "bf16 = '1e-300': below 1e+09"},
               {"0x1p50", "not a positive decimal"},
               {"0x10", "not a positive decimal"}};
    result r;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(text, sizeof(text), PROFILE_GOOD, bad[i].value);
        write_file(ini, text);
        run(workdir, args, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, bad[i].message);
    }
    snprintf(text, sizeof(text), PROFILE_GOOD, "1e15");
    write_file(ini, text);
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    end("profile numbers");

    begin("5: a link name that is not a name");
    path_in(dir, sizeof(dir), "p");
    mkdir(dir, 0755);
    snprintf(ini, sizeof(ini), "%s/t.ini", dir);
    snprintf(text, sizeof(text),
             PROFILE_GOOD "[link.a\"b]\nbandwidth = 1e10\nbandwidth.source "
                          "= s\nlinks = 1\nlinks.source = s\n",
             "1e15");
    write_file(ini, text);
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "t.ini:11: [link.a\"b]: 'a\"b' is not a link name");
    const char *model[] = {"model",   "bp,pm->bm", "b=1",     "p=8",
                           "m=1",     "--shard",   "p:2",     "--link",
                           "a\"b",    "--profile", "t",       "--profiles",
                           dir,       NULL};
    run(workdir, model, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "is not a link name");
    const char *nl = strchr(r.err, '\n');
    CHECK(nl != NULL && nl[1] == '\0');
    end("link name");

    begin("9: a FIFO and a dangling link in the profiles folder");
    path_in(dir, sizeof(dir), "p");
    mkdir(dir, 0755);
    snprintf(ini, sizeof(ini), "%s/fifo.ini", dir);
    CHECK_INT(mkfifo(ini, 0644), 0);
    run_env(args, 10, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "fifo.ini: not a regular file");
    unlink(ini);
    snprintf(ini, sizeof(ini), "%s/dangle.ini", dir);
    CHECK_INT(symlink("nowhere", ini), 0);
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "dangle.ini: cannot open");
    CHECK(strstr(r.err, "--profile") == NULL);
    end("profile files");
}

/* ---- 7: bad input caught before measuring ----------------------------- */

static void defect_before(void)
{
    begin("7: --out a link to nothing");
    char link[700];
    path_in(link, sizeof(link), "dangling");
    CHECK_INT(symlink("nothing-here", link), 0);
    const char *args[] = {
        "run", "--quick",    "--kernel", "dot",   "--dtype", "f64", "--threads",
        "1",   "--ceilings", fx2,        "--out", link,      NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "a symbolic link to nothing");
    CHECK(strstr(r.out, "dot") == NULL);
    end("dangling --out");

    if (!exists("/usr/bin/valgrind")) {
        printf("  (valgrind missing: --out with %% under cachegrind not "
               "tried)\n");
        return;
    }
    begin("7: an --out with %p under cachegrind");
    char out[700], json[800];
    path_in(out, sizeof(out), "a%p%q{HOME}");
    const char *cg[] = {"orders",     "--n",        "16",  "--kernel",
                        "matmul_row", "--dtype",    "f64", "--traffic",
                        "cachegrind", "--ceilings", fx1,   "--out",
                        out,          NULL};
    run(workdir, cg, &r);
    CHECK_INT(r.status, 0);
    snprintf(json, sizeof(json), "%s/orders.json", out);
    json_t *doc = load_json(json);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    json_decref(doc);
    end("%p");
}

/* ---- 8: a value given twice in a file --------------------------------- */

static void drop_host(json_t *doc)
{
    json_object_del(json_object_get(doc, "context"), "host");
}

static void defect_files(void)
{
    begin("8: a key given twice in a ceilings file");
    char twice[700], text[300000];
    path_in(twice, sizeof(twice), "twice.json");
    CHECK_INT(fixture_here("ceilings-xeon-emr-run-roofline.json", twice, NULL),
              0);
    slurp(twice, text, sizeof(text));
    char *at = strstr(text, "\"status\":");
    CHECK(at != NULL);
    if (at) {
        /* "status": "complete" twice, the second one different */
        char edited[300100];
        snprintf(edited, sizeof(edited), "%.*s\"status\": \"failed\", %s",
                 (int)(at - text), text, at);
        write_file(twice, edited);
    }
    const char *args[] = {"run",        "--quick", "--kernel",  "dot",
                          "--dtype",    "f64",     "--threads", "1",
                          "--ceilings", twice,     NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "duplicate");
    CHECK_INT(count_entries(workdir), 1);
    end("duplicate key");

    begin("9: a ceilings file without context.host");
    char nohost[700];
    path_in(nohost, sizeof(nohost), "nohost.json");
    CHECK_INT(
        fixture_here("ceilings-xeon-emr-run-roofline.json", nohost, drop_host),
        0);
    args[9] = nohost;
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "no context.host");
    end("host");
}

/* ---- 9: CSV and charts ------------------------------------------------ */

static void defect_outputs(void)
{
    begin("9: results.csv has no 0 where results.json has null");
    char out[700], csv[800], text[8192];
    path_in(out, sizeof(out), "R");
    const char *args[] = {
        "run", "--quick",    "--kernel", "dot",   "--dtype", "f64", "--threads",
        "1",   "--ceilings", fx2,        "--out", out,       NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    snprintf(csv, sizeof(csv), "%s/results.csv", out);
    slurp(csv, text, sizeof(text));
    /* threads,library_threads,binding: 1,,<binding> */
    CHECK_STR_HAS(text, "threads,library_threads,binding");
    CHECK_STR_HAS(text, ",1,,");
    end("library_threads");

    begin("9: a sweep too short for a level still gets its chart");
    path_in(out, sizeof(out), "L");
    const char *ceil[] = {
        "ceilings", "--quick", "--threads", "1",    "--kernel", "read",
        "--gemm-n", "0",       "--width",   "none", "--dtype",  "f64",
        "--size",   "4K:8K",   "--out",     out,    NULL};
    run(workdir, ceil, &r);
    CHECK_INT(r.status, 0);
    CHECK(strstr(r.err, "gnuplot failed") == NULL);
    end("chart without levels");
}

/* ---- 10: two signals during check ------------------------------------ */

/* check under a valgrind that records its arguments and waits: two
 * SIGINTs at once leave no empty temporary folder beside --out (the
 * second ends the process before anything is written), and valgrind is
 * started without gdbserver, whose FIFOs in /tmp a killed valgrind never
 * removes. The main thread may have begun the interrupted document by
 * the time the second signal is read, and a folder that holds anything
 * is kept as it is: what must never stay is an empty ".out.part-*". */
static void defect_signals(void)
{
    begin("10: two signals during check");
    char argsfile[800], marker[800], script[2000], out[700], base[800];
    snprintf(argsfile, sizeof(argsfile), "%s/valgrind-args", scratch);
    snprintf(marker, sizeof(marker), "%s/valgrind-started", scratch);
    snprintf(base, sizeof(base), "%s/check-baseline.json", scratch);
    unlink(marker);
    /* the child's environment is pinned and has no PATH: builtins and
     * full paths only */
    snprintf(script, sizeof(script),
             "if [ \"$1\" = --version ]; then echo valgrind-3.19.0; exit 0; "
             "fi\nprintf '%%s\\n' \"$@\" > '%s'\n: > '%s'\n"
             "exec /bin/sleep 30",
             argsfile, marker);
    fake_tool("valgrind", script);
    path_in(out, sizeof(out), "out");
    const char *args[] = {"check",    "--update-baseline", "--baseline",
                          base,       "--out",             out,
                          NULL};
    const pid_t pid = start_with(workdir, args, -1, child_env, NULL);
    for (const double t0 = now_s(); !exists(marker) && now_s() - t0 < 120;)
        sleep_s(0.02);
    CHECK(exists(marker));
    /* a few milliseconds apart: two SIGINTs pending at once are one */
    kill(pid, SIGINT);
    sleep_s(0.005);
    kill(pid, SIGINT);
    result r;
    finish_within(pid, 30.0, &r);
    child_path_first = NULL;
    printf("  exit %d: %s", r.status, r.err);
    CHECK_INT(r.status, 130);
    CHECK(!exists(base));
    DIR *d = opendir(workdir);
    for (struct dirent *de; d && (de = readdir(d));)
        if (strncmp(de->d_name, ".out.part", 9) == 0) {
            char part[1200];
            snprintf(part, sizeof(part), "%s/%s", workdir, de->d_name);
            const int n = count_entries(part);
            printf("  left behind: %s, %d entr%s\n", de->d_name, n,
                   n == 1 ? "y" : "ies");
            CHECK(n > 0);
        }
    if (d)
        closedir(d);
    char text[4096];
    slurp(argsfile, text, sizeof(text));
    CHECK_STR_HAS(text, "--vgdb=no\n");
    end("second signal");
}

/* ---- 4, 6, 7, 8: refused at once, nothing written --------------------- */

typedef struct {
    const char *what;
    const char *args[16];
    const char *message; /* in stderr */
} probe_case;

static const probe_case cases[] = {
    {"4: a --file that never ends",
     {"model", "--file", "/dev/zero"},
     "longer than 1022 characters"},
    {"5: a hexadecimal flag",
     {"run", "--min-time", "0x10"},
     "--min-time '0x10': not a number"},
    {"5: a hexadecimal factor",
     {"ceilings", "--factor", "0x2"},
     "--factor '0x2': not a number"},
    {"7: a cache cachegrind cannot simulate",
     {"orders", "--traffic", "cachegrind", "--cache",
      "L1=32K:8:64,LL=4G:16:64"},
     "--cache LL size '4G': too large"},
    {"8: a kernel named twice through all",
     {"run", "--kernel", "dot,all"},
     "dot is given twice ('all' includes it)"},
    {"8: a kernel named twice through its operation",
     {"orders", "--kernel", "matmul,matmul_row"},
     "matmul_row is given twice ('matmul' includes it)"},
    {"8: a source named twice through all",
     {"orders", "--traffic", "model,all"},
     "a source is given twice"},
    {"8: a swept size given too",
     {"model", "bp,pm->bm", "b=8", "p=8", "m=8", "--sweep", "b=1:16"},
     "b=8 is given too"},
    {"3: a newline in a flag's value",
     {"run", "--kernel", "a\nb"},
     "'a\\x0ab'"},
};

static void defect_cases(void)
{
    child_limit_memory = 1;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        begin(cases[i].what);
        result r;
        run_env(cases[i].args, 30, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, cases[i].message);
        const char *nl = strchr(r.err, '\n');
        CHECK(nl != NULL && nl[1] == '\0');
        CHECK_INT(count_entries(workdir), 0);
        end(cases[i].what);
    }
    child_limit_memory = 0;
}

int main(int argc, char **argv)
{
    const int rc = cli_setup(argc, argv, "test_probe_inputs");
    if (rc)
        return rc;
    if (probe_fixtures(scratch, fx1, fx2, sizeof(fx1), "test_probe_inputs"))
        return 1;
    defect_cases();
    defect_escapes();
    defect_profiles();
    defect_before();
    defect_files();
    defect_outputs();
    defect_chart();
    defect_signals();
    remove_tree(workdir);
    remove_tree(scratch);
    return check_status("test_probe_inputs");
}
