/* The command line as a user meets it: a table of bad inputs (exit 2, one
 * line naming the value, nothing written), then real runs whose files are
 * parsed, never overwritten, and kept when a run is interrupted. */
#include <math.h>
#include <signal.h>

#include "cli.h"
#include "kernel.h"
#include "sweep.h"

/* A small ceilings measurement made once, outside workdir, for runs. */
static char ceildir[] = "/tmp/roofbench-ceil-XXXXXX";
static char ceilfile[600];

typedef struct {
    const char *args[12];
    int status;
    const char *message;
} cli_case;

static const cli_case cases[] = {
    {{NULL}, 2, "usage: roofbench"},
    {{"bogus"}, 2, "unknown command 'bogus'"},
    {{"--help"}, 0, "usage: roofbench"},
    {{"run", "--help"}, 0, "usage: roofbench run"},
    {{"info", "--help"}, 0, "usage: roofbench info"},
    {{"list", "--help"}, 0, "usage: roofbench list"},
    {{"list", "--bogus"}, 2, "unknown option '--bogus'"},
    {{"info", "extra"}, 2, "unexpected argument 'extra'"},
    {{"run", "--bogus"}, 2, "unknown option '--bogus'"},
    /* a prefix of a flag is no flag (getopt_long alone would take it),
     * with its value attached or apart, and of --help too */
    /* an empty file name is no file, not the flag left out */
    {{"run", "--ceilings", ""}, 2, "--ceilings: a value is required"},
    {{"check", "--baseline", ""}, 2, "--baseline: a value is required"},
    {{"model", "bp,pm->bm", "b=1", "--file", ""}, 2,
     "--file: a value is required"},
    {{"model", "bp,pm->bm", "b=1", "--network="}, 2,
     "--network: a value is required"},
    {{"sweep", "--thr", "1"}, 2, "unknown option '--thr' (flags are written"},
    {{"sweep", "--bat=1:2"}, 2, "unknown option '--bat'"},
    {{"ceilings", "--w", "256"}, 2, "unknown option '--w'"},
    {{"run", "--he"}, 2, "unknown option '--he'"},
    {{"run", "--quick", "--kern", "dot"}, 2, "unknown option '--kern'"},
    {{"run", "--quick", "--kern"}, 2, "unknown option '--kern'"},
    {{"run", "--quick", "-xy"}, 2, "unknown option '-xy'"},
    {{"run", "--kernel"}, 2, "needs a value"},
    {{"run", "extra"}, 2, "unexpected argument 'extra'"},
    {{"run", "--kernel", "nope"}, 2, "--kernel 'nope': unknown kernel"},
    {{"run", "--kernel", "dot,,matvec"}, 2, "empty item"},
    {{"run", "--dtype", "f16"}, 2, "--dtype 'f16': unknown dtype"},
    {{"run", "--n", "0"}, 2, "--n '0': too small"},
    {{"run", "--n", "-5"}, 2, "--n '-5': not a non-negative integer"},
    {{"run", "--n", "abc"}, 2, "--n 'abc': not a non-negative integer"},
    {{"run", "--n", "12.5"}, 2, "--n '12.5'"},
    {{"run", "--n", "99999999999999999999999"}, 2, "too large"},
    {{"run", "--n", "5", "--shape", "1,2,3"}, 2, "choose one"},
    {{"run", "--shape", "3,4"}, 2, "expected three sizes"},
    {{"run", "--shape", "3,0,4"}, 2, "--shape '0': too small"},
    {{"run", "--kernel", "matmul_row", "--n", "4000000000"},
     2,
     "overflow 64 bits"},
    {{"run", "--kernel", "matmul_row", "--n", "100000"},
     2,
     "of memory available"},
    {{"run", "--kernel", "dot_openblas", "--n", "3G", "--dtype", "f32"},
     2,
     ""}, /* memory or OpenBLAS's index limit, whichever is hit first */
    {{"run", "--threads", "0"}, 2, "--threads 0: must be between 1"},
    {{"run", "--threads", "999"}, 2, "--threads 999: must be between 1"},
    {{"run", "--threads", "two"}, 2, "--threads 'two'"},
    {{"run", "--samples", "1"}, 2, "--samples '1': too small"},
    {{"run", "--min-time", "abc"}, 2, "--min-time 'abc'"},
    {{"run", "--min-time", "0"}, 2, "--min-time '0': out of range"},
    {{"run", "--seed", "-1"}, 2, "--seed '-1'"},
    {{"run", "--out", "", "--quick"}, 2, "--out ''"},
    {{"run", "--quick", "--kernel", "dot", "--out", "/dev/null/x"},
     2,
     "--out '/dev/null/x'"},
    {{"run", "--quick", "--ceilings", "/nonexistent/ceilings.json"},
     2,
     "--ceilings '/nonexistent/ceilings.json': No such file"},
    {{"run", "--quick", "--ceilings", "/etc/hostname"}, 2, "not JSON"},
    {{"ceilings", "--help"}, 0, "usage: roofbench ceilings"},
    {{"ceilings", "--size", "1M:4K"}, 2, "--size '1M:4K': an empty range"},
    {{"ceilings", "--size", "4K"}, 2, "expected START:END"},
    {{"ceilings", "--size", "4K:100000G"}, 2, "do not fit"},
    {{"ceilings", "--kernel", "stream"}, 2, "--kernel 'stream': unknown"},
    {{"ceilings", "--width", "1024"}, 2, "--width '1024': unknown vector"},
    {{"ceilings", "--width", "12x"}, 2, "--width '12x': unknown vector"},
    {{"ceilings", "--bw-width", "64"}, 2, "--bw-width 64: unknown"},
    {{"ceilings", "--threads", "0"}, 2, "--threads 0: must be between 1"},
    {{"ceilings", "--factor", "1"}, 2, "--factor '1': out of range (between 1.01 and 16)\n"},
    {{"ceilings", "--factor", "fast"}, 2, "--factor 'fast': not a number\n"},
    {{"ceilings", "--samples", "2"}, 2, "--samples '2': too small"},
    {{"ceilings", "--dtype", "bf16"}, 2, "--dtype 'bf16': unknown"},
    {{"ceilings", "extra"}, 2, "unexpected argument 'extra'"},
    {{"orders", "--help"}, 0, "usage: roofbench orders"},
    {{"orders", "--traffic", "bogus"}, 2, "--traffic 'bogus': unknown source"},
    {{"orders", "--events", "PAPI_BOGUS"}, 2, "unknown event 'PAPI_BOGUS'"},
    {{"orders", "--events", "PAPI_TOT_CYC,,PAPI_TOT_INS"}, 2,
     "--events 'PAPI_TOT_CYC,,PAPI_TOT_INS': empty item in the list"},
    {{"run", "--events", "default,"}, 2, "empty item in the list"},
    {{"orders", "--events", "default", "--traffic", "model"}, 2,
     "only with --traffic counters"},
    {{"orders", "--events", "PAPI_TOT_CYC", "--traffic", "model"}, 2,
     "only with --traffic counters"},
    {{"orders", "--cache", "L1=48K:12"}, 2, "expected SIZE:WAYS:LINE"},
    {{"orders", "--cache", "L1=40K:8:64,LL=1M:16:64"}, 2,
     "80 sets, not a power of two"},
    {{"orders", "--cache", "L1=32K:8:60"}, 2, "line size 60 is not a power"},
    {{"orders", "--kernel", "dot"}, 2, "orders compares the matmul forms"},
    {{"orders", "--kernel", "matmul_row,matmul_row"}, 2, "given twice"},
    {{"orders", "--n", "0"}, 2, "--n '0': too small"},
    {{"orders", "--n", "64", "--sweep", "64:128"}, 2, "choose one"},
    {{"orders", "--sweep", "100:110"}, 2, "no size between"},
    {{"orders", "--sweep", "512:64"}, 2, "an empty range"},
    {{"orders", "--sweep", "96,64"}, 2, "64 does not rise from 96"},
    {{"orders", "--sweep", "64,64"}, 2, "'64' given twice"},
    {{"orders", "--sweep", "64,x"}, 2, "--sweep size 'x'"},
    {{"orders", "--sweep", "64,4"}, 2, "--sweep size '4'"},
    {{"orders", "--sweep", "defaults"}, 2, "--sweep size 'defaults'"},
    {{"orders", "--dtype", "f16"}, 2, "--dtype 'f16': unknown dtype"},
    {{"orders", "--threads", "0"}, 2, "--threads 0: must be between 1"},
    {{"orders", "--threads", "1,2"}, 2, "orders takes one thread count"},
    {{"orders", "extra"}, 2, "unexpected argument 'extra'"},
    {{"sweep", "--help"}, 0, "usage: roofbench sweep"},
    {{"sweep", "--batch", ""}, 2, "--batch '': no batch size"},
    {{"sweep", "--batch", "16:1"}, 2, "--batch '16:1': an empty range"},
    {{"sweep", "--batch", "1:8:x1"}, 2, "step x1 does not advance"},
    {{"sweep", "--batch", "1:8:+0"}, 2, "step +0 does not advance"},
    {{"sweep", "--batch", "1:100:+1"}, 2, "more than 64 batch sizes"},
    {{"sweep", "--kernel", "dot"}, 2,
     "--kernel 'dot': sweep takes matmul kernels and batched"},
    {{"sweep", "--kernel", "batched_openblas"}, 2, "the contrast is batched"},
    {{"sweep", "--weights", "L4"}, 2, "--weights 'L4': unknown level"},
    {{"sweep", "--weights", "L2,L2"}, 2, "'L2' given twice"},
    {{"sweep", "--weights", "L2", "--p", "64"}, 2, "choose one"},
    {{"sweep", "--p", "300000", "--m", "300000"}, 2,
     "more than the"},
    {{"sweep", "--openblas", "fast"}, 2, "--openblas 'fast': env or best"},
    {{"sweep", "--kernel", "batched", "--p", "1024", "--m", "1024", "--batch",
      "1,2048"},
     2,
     "past its budget"},
    {{"sweep", "--batch", "1:4:+"}, 2, "step '+' has no count"},
    {{"sweep", "--profile", "tpu-v9"}, 2, "--profile 'tpu-v9': unknown"},
    {{"sweep", "--threads", "0"}, 2, "--threads 0: must be between 1"},
    {{"sweep", "extra"}, 2, "unexpected argument 'extra'"},
    {{"check", "--limit", "ir=0.5%,"}, 2,
     "--limit 'ir=0.5%,': empty item in the list"},
    {{"check", "--limit", ",ir=1%"}, 2, "empty item in the list"},
    {{"check", "--limit", "ir=1%,,d1=2%", "--out", "out"}, 2,
     "empty item in the list"},
    {{"check", "--limit", "ir=1%,ir=2%"}, 2, "--limit: ir given twice"},
    {{"profiles", "--help"}, 0, "usage: roofbench profiles"},
    {{"profiles"}, 0, "tpu-v5e"},
    {{"profiles", "extra"}, 2, "unexpected argument 'extra'"},
    {{"profiles", "--profiles", "/nonexistent"}, 2, "/nonexistent: cannot open"},
    {{"profiles", "--profiles", ""}, 2, "--profiles: a value is required"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--profiles", ""}, 2,
     "--profiles: a value is required"},
    {{"sweep", "--quick", "--profiles", ""}, 2,
     "--profiles: a value is required"},
    {{"profiles", "--ceilings", "/nonexistent.json"}, 2, "/nonexistent.json"},
    {{"model", "--help"}, 0, "usage: roofbench model"},
    {{"model", "bp,pm->bm", "b=240", "p=8192", "m=8192", "--profile",
      "tpu-v5e"},
     0,
     "tpu-v5e/bf16"},
    {{"model"}, 2, "no SPEC"},
    {{"model", "bp,pm", "b=1", "p=1", "m=1"}, 2, "no '->'"},
    {{"model", "bp,pm->bx", "b=1", "p=1", "m=1"}, 2,
     "output letter 'x' is in neither operand"},
    {{"model", "bb,pm->bm", "b=1", "p=1", "m=1"}, 2, "'b' repeats inside"},
    {{"model", "bp,pm->bm", "b=1", "p=1"}, 2, "dimension m has no size"},
    {{"model", "bp,pm->bm", "b=0", "p=1", "m=1"}, 2, "b '0': too small"},
    {{"model", "bp,pm->bm", "b=-3", "p=1", "m=1"}, 2,
     "b '-3': not a non-negative integer"},
    {{"model", "bp,pm->bm", "b=x", "p=1", "m=1"}, 2, "b 'x'"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "q=4"}, 2,
     "no dimension q in bp,pm->bm"},
    {{"model", "bp,pm->bm", "b=4G", "p=4G", "m=4G"}, 2, "overflow 64 bits"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--profile", "tpu-v9"}, 2,
     "--profile 'tpu-v9': unknown profile"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--profile", "../x"}, 2,
     "not a profile name"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--profile", "tpu-v5e",
      "--dtype", "fp64"},
     2,
     "profile tpu-v5e has no fp64 peak"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--dtype", "fp12"}, 2,
     "--dtype 'fp12': unknown"},
    {{"model", "bp,pm->bm", "b=1", "p=8", "m=1", "--shard", "p:2", "--link",
      "nvlink", "--profile", "tpu-v5e"},
     2,
     "profile tpu-v5e has no such link (it has ici, pcie, dcn)"},
    {{"model", "bp,pm->bm", "b=1", "p=8", "m=1", "--shard", "b:2"}, 2,
     "b is a free dimension"},
    {{"model", "bp,pm->bm", "b=1", "p=8", "m=1", "--shard", "p"}, 2,
     "write D:N"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--shard", "p:2"}, 2,
     "smaller than 2 chips"},
    {{"model", "bp,pm->bm", "p=1", "m=1", "--sweep", "b=8:2"}, 2,
     "an empty range"},
    {{"model", "bp,pm->bm", "p=1", "m=1", "--sweep", "z=1:8"}, 2,
     "z is not a dimension"},
    {{"model", "--file", "/nonexistent.txt"}, 2, "cannot open"},
    {{"model", "bp,pm->bm", "--file", "/etc/hostname"}, 2, "not both"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--link", "ici"}, 2,
     "only with --shard"},
    {{"model", "bp,pm->bm", "b=1", "p=1", "m=1", "--profile", "host",
      "--ceilings", "/nonexistent.json"},
     2,
     "/nonexistent.json"},
};

static void test_bad_input(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        result r;
        run(workdir, cases[i].args, &r);
        if (r.status != cases[i].status)
            fprintf(stderr, "case %zu (%s %s %s): status %d, stderr: %s\n", i,
                    cases[i].args[0] ? cases[i].args[0] : "",
                    cases[i].args[1] ? cases[i].args[1] : "",
                    cases[i].args[2] ? cases[i].args[2] : "", r.status, r.err);
        CHECK_INT(r.status, cases[i].status);
        CHECK_STR_HAS(cases[i].status ? r.err : r.out, cases[i].message);
        if (cases[i].status == 2) {
            /* one line, prefixed, and nothing written */
            const char *nl = strchr(r.err, '\n');
            CHECK(nl != NULL && (nl[1] == '\0' || cases[i].args[0] == NULL));
            CHECK_INT(count_entries(workdir), 0);
        }
    }
}

/* The environment's knobs of the kernels, set to values that do not
 * exist: one line naming the variable and the value, exit 2, nothing
 * written, before any work. */
static void test_bad_environment(void)
{
    static const char *const vars[][2] = {
        {"ROOFBENCH_SKINNY_ORDER", "diagonal"}, {"ROOFBENCH_ISA", "avx9"}};
    const char *args[] = {"run", "--kernel", "matmul_blocked", "--shape",
                          "8,64,64", NULL};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        setenv(vars[i][0], vars[i][1], 1);
        result r;
        run(workdir, args, &r);
        unsetenv(vars[i][0]);
        CHECK_INT(r.status, 2);
        char want[96];
        snprintf(want, sizeof(want), "%s='%s': unknown", vars[i][0],
                 vars[i][1]);
        CHECK_STR_HAS(r.err, want);
        const char *nl = strchr(r.err, '\n');
        CHECK(nl != NULL && nl[1] == '\0');
        CHECK_INT(count_entries(workdir), 0);
    }
}

/* The run itself: three kernels into a named folder, exit 0, and the
 * matmul kernels named in its report. */
static void run_kernels(const char *const *args)
{
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "matmul_blocked");
    CHECK_STR_HAS(r.out, "matmul_openblas");
}

/* The context results.json records: host, date, CPU, topology, build,
 * OpenBLAS and its environment, and how the buffers ask for huge pages. */
static void check_context(json_t *ctx)
{
    CHECK(jstr(ctx, "host", NULL) != NULL);
    CHECK(jstr(ctx, "date", NULL) != NULL);
    CHECK(json_is_object(json_object_get(ctx, "cpu")));
    CHECK(json_integer_value(json_object_get(json_object_get(ctx, "topology"),
                                             "cores")) >= 1);
    CHECK(jstr(ctx, "build", "compiler") != NULL);
    CHECK(jstr(ctx, "build", "c_flags") != NULL);
    CHECK(jstr(ctx, "build", "build_type") != NULL);
    CHECK(jstr(ctx, "build", "git_revision") != NULL);
    CHECK(jstr(ctx, "openblas", "corename") != NULL);
    CHECK(json_object_get(json_object_get(ctx, "environment"),
                          "OPENBLAS_CORETYPE") != NULL);
    /* the huge page mode as the kernel states it, or null with the reason;
     * the test runs without ROOFBENCH_NO_HUGEPAGES, so the buffers ask */
    json_t *mem = json_object_get(ctx, "memory");
    CHECK(json_is_true(json_object_get(mem, "hugepages_advised")));
    json_t *thp = json_object_get(mem, "transparent_hugepages");
    CHECK(json_is_string(thp) ||
          jstr(ctx, "memory", "transparent_hugepages_unavailable") != NULL);
}

/* One row per kernel, each with its samples, a passed verification, its
 * place on the host roofline and the clock and stability around it. */
static void check_rows(json_t *rows)
{
    CHECK_INT(json_array_size(rows), 3);
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        CHECK_INT(json_array_size(json_object_get(row, "samples_s")), 5);
        CHECK(json_integer_value(json_object_get(row, "flops")) > 0);
        CHECK(json_is_true(
            json_object_get(json_object_get(row, "verify"), "passed")));
        CHECK(json_real_value(json_object_get(json_object_get(row, "time_s"),
                                              "min")) > 0.0);
        /* each row sits on the host roofline of the ceilings file */
        json_t *roof = json_object_get(row, "roofline");
        CHECK(json_is_object(roof));
        CHECK(json_real_value(json_object_get(roof, "attainable_gflops")) >
              0.0);
        CHECK(json_string_value(json_object_get(roof, "binds")) != NULL);
        /* judged against its access mix's roof (dot reads; matmul writes
         * C), with the roof's kernel, spread and the above-roof verdict */
        const int is_dot = strcmp(jstr(row, "kernel", NULL), "dot") == 0;
        CHECK_STR_HAS(jstr(roof, "mix", NULL), is_dot ? "read" : "mixed");
        CHECK(jstr(roof, "roof", NULL) != NULL);
        CHECK(json_number_value(json_object_get(roof, "spread")) >= 0.0);
        CHECK(json_is_boolean(json_object_get(roof, "above_measured_roof")));
        CHECK(json_is_true(json_object_get(roof, "above_measured_roof")) ==
              (json_number_value(json_object_get(
                   roof, "fraction_of_attainable")) >
               json_number_value(json_object_get(roof, "limit_fraction"))));
        /* drift: the clock just before and after its samples, a verdict */
        json_t *clk = json_object_get(row, "clock_ghz");
        CHECK(json_number_value(json_object_get(clk, "before")) > 0.1);
        CHECK(json_number_value(json_object_get(clk, "after")) > 0.1);
        json_t *st = json_object_get(row, "stability");
        CHECK(json_is_boolean(json_object_get(st, "unstable")));
        CHECK(json_is_array(json_object_get(st, "reasons")));
        CHECK(json_is_true(json_object_get(st, "unstable")) ==
              (json_array_size(json_object_get(st, "reasons")) > 0));
    }
}

/* The run's stability: each roof level probed at the start and the end of
 * the run, and a verdict. */
static void check_probes(json_t *stab)
{
    json_t *probes = json_object_get(stab, "probes");
    CHECK(json_array_size(probes) >= 2);
    size_t i;
    json_t *pr;
    json_array_foreach(probes, i, pr)
    {
        CHECK(json_number_value(json_object_get(pr, "start_gbs")) > 0.0);
        CHECK(json_number_value(json_object_get(pr, "end_gbs")) > 0.0);
        CHECK(json_is_boolean(json_object_get(pr, "moved")));
        /* the roofline's figure beside the probe's better end */
        const double roof = json_number_value(json_object_get(pr, "roof_gbs")),
                     ratio =
                         json_number_value(json_object_get(pr, "roof_ratio"));
        CHECK(roof > 0.0 && ratio > 0.0);
        CHECK(fabs(ratio * roof -
                   fmax(json_number_value(json_object_get(pr, "start_gbs")),
                        json_number_value(json_object_get(pr, "end_gbs")))) <=
              1e-9 * ratio * roof);
        CHECK(json_is_boolean(json_object_get(pr, "off_roof")));
    }
    CHECK(json_is_boolean(json_object_get(stab, "unstable")));
    CHECK(json_is_integer(json_object_get(stab, "probes_off_roof")));
}

/* A roofline a thousand times below this host: every level the run
 * probes is off its figure, said under the table and counted in
 * results.json. */
static void check_off_roof(void)
{
    char low[700], out[700], json[760];
    snprintf(low, sizeof(low), "%s/thousandth-ceilings.json", ceildir);
    snprintf(out, sizeof(out), "%s/r-off-roof", workdir);
    snprintf(json, sizeof(json), "%s/results.json", out);
    scaled_ceilings(ceilfile, low, 1e-3, -1.0);
    const char *args[] = {"run",       "--quick", "--kernel", "dot",
                          "--dtype",   "f64",     "--threads", "1",
                          "--ceilings", low,      "--out",    out,
                          NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "~ the run's probes did not find the roofline's "
                         "figures");
    CHECK_STR_HAS(r.out, "GB/s in the roofline, ");
    json_t *doc = load_json(json);
    CHECK(doc != NULL);
    json_t *stab = json_object_get(doc, "stability");
    const size_t n = json_array_size(json_object_get(stab, "probes"));
    CHECK(n >= 2);
    CHECK_INT(json_integer_value(json_object_get(stab, "probes_off_roof")),
              (json_int_t)n);
    json_decref(doc);
}

/* results.json: a complete document of schema 1, its context, rows and
 * stability, and the ceilings file it was judged against. */
static void check_results_json(const char *json)
{
    json_t *doc = load_json(json);
    CHECK(doc != NULL);
    CHECK_INT(json_integer_value(json_object_get(doc, "schema_version")), 1);
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    json_t *ctx = json_object_get(doc, "context");
    check_context(ctx);
    check_rows(json_object_get(doc, "rows"));
    check_probes(json_object_get(doc, "stability"));
    CHECK_STR_HAS(jstr(ctx, "ceilings", "source"), ceilfile);
    json_decref(doc);
}

/* results.csv: a header and one line per kernel. */
static void check_results_csv(const char *csv)
{
    char text[8192];
    slurp(csv, text, sizeof(text));
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 4);
}

/* args refused before any work: exit 2, want in the error, nothing
 * written into the working folder. */
static void check_refused(const char *const *args, const char *want)
{
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, want);
    CHECK_INT(count_entries(workdir), 0);
}

/* The same folder again: refused before measuring, first run intact. */
static void check_refused_again(const char *const *args, const char *json)
{
    result r;
    char before[65536], after[65536];
    slurp(json, before, sizeof(before));
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "already holds results");
    slurp(json, after, sizeof(after));
    CHECK(strcmp(before, after) == 0);
}

/* The team kernel through the harness, on 1 thread and all cores. */
static void check_team(void)
{
    result r;
    char out2[600], json2[700];
    snprintf(out2, sizeof(out2), "%s/team", workdir);
    snprintf(json2, sizeof(json2), "%s/results.json", out2);
    const char *team[] = {"run",        "--quick",  "--kernel",
                          "matmul_blocked,dot_simd,matvec_simd",
                          "--ceilings", ceilfile, "--out",
                          out2,         NULL};
    run(workdir, team, &r);
    CHECK_INT(r.status, 0);
    json_t *doc = load_json(json2);
    CHECK(json_array_size(json_object_get(doc, "rows")) >= 6);
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row)
        CHECK(json_is_true(
            json_object_get(json_object_get(row, "verify"), "passed")));
    CHECK(json_is_object(json_object_get(
        json_object_get(json_object_get(doc, "context"), "kernels"),
        "matmul_blocked")));
    json_decref(doc);
}

/* Default folders: two runs, two new folders under results/runs. */
static void check_default_folders(void)
{
    result r;
    const char *quick[] = {"run",     "--quick", "--kernel",   "dot",
                           "--dtype", "f32",     "--threads",  "1",
                           "--ceilings", ceilfile, NULL};
    run(workdir, quick, &r);
    CHECK_INT(r.status, 0);
    run(workdir, quick, &r);
    CHECK_INT(r.status, 0);
    char runs[600];
    snprintf(runs, sizeof(runs), "%s/results/runs", workdir);
    CHECK_INT(count_entries(runs), 2);
}

/* A real run's files, each checked in turn, then the runs that must not
 * overwrite them or that write elsewhere. */
static void test_run_files(void)
{
    char out[600], json[700], csv[700];
    snprintf(out, sizeof(out), "%s/r1", workdir);
    snprintf(json, sizeof(json), "%s/results.json", out);
    snprintf(csv, sizeof(csv), "%s/results.csv", out);
    const char *args[] = {"run",      "--quick",   "--kernel",
                          "dot,matmul_blocked,matmul_openblas",
                          "--dtype",  "f64",       "--threads",
                          "1",        "--ceilings", ceilfile,
                          "--out",    out,         NULL};
    run_kernels(args);
    check_results_json(json);
    check_results_csv(csv);
    check_refused_again(args, json);
    check_team();
    check_default_folders();
    check_off_roof();
}

/* Starts args, sends SIGINT once its standard error holds `after`, and
 * checks exit 130 with "interrupted" said; returns the document at json,
 * which must say so too (NULL if there is none). */
static json_t *interrupted(const char *const *args, const char *after,
                           const char *json)
{
    const pid_t pid = start(workdir, args);
    CHECK(wait_for("stderr", after, 60.0));
    kill(pid, SIGINT);
    result r;
    finish_within(pid, 120.0, &r);
    CHECK_INT(r.status, 130);
    CHECK_STR_HAS(r.err, "interrupted");
    json_t *doc = load_json(json);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "status", NULL), "interrupted");
    return doc;
}

static void test_interrupt(void)
{
    char out[600], json[700];
    snprintf(out, sizeof(out), "%s/int", workdir);
    snprintf(json, sizeof(json), "%s/results.json", out);
    /* dot finishes in about a second; matmul_naive at n = 700 then needs
     * many seconds, and the interrupt lands inside it. */
    const char *args[] = {"run",       "--kernel",   "dot,matmul_naive",
                          "--n",       "700",        "--dtype",
                          "f64",       "--threads",  "1",
                          "--samples", "40",         "--min-time",
                          "0.02",      "--ceilings", ceilfile,
                          "--out",     out,          NULL};
    /* after the progress line of the finished dot row */
    json_t *doc = interrupted(args, " dot ", json);
    json_t *rows = json_object_get(doc, "rows");
    CHECK_INT(json_array_size(rows), 1);
    CHECK_STR_HAS(jstr(json_array_get(rows, 0), "kernel", NULL), "dot");
    json_decref(doc);
}

/* The sweep stopped by SIGINT after its second point: exit 130, and the
 * finished points kept in a document marked interrupted. */
static void test_sweep_interrupt(void)
{
    char out[600], json[700];
    snprintf(out, sizeof(out), "%s/sweep-int", workdir);
    snprintf(json, sizeof(json), "%s/sweep.json", out);
    /* 64 points of a second or more each: the interrupt lands early */
    const char *args[] = {"sweep",   "--p",        "256",     "--m",
                          "256",     "--batch",    "1:64:+1", "--dtype",
                          "f64",     "--threads",  "1",       "--kernel",
                          "matmul_blocked", "--min-time", "0.05",
                          "--samples", "20",       "--rounds",  "1",
                          "--profile", "tpu-v5e",
                          "--ceilings", ceilfile,  "--out",     out,
                          NULL};
    json_t *doc = interrupted(args, "point 2/64", json);
    const size_t n = json_array_size(json_object_get(doc, "points"));
    CHECK(n >= 2 && n < 64);
    json_decref(doc);
}

/* SIGINT as the run receives it from a terminal, whatever this test
 * inherited (ignored under a script's `&`, or blocked) */
static void default_sigint(void *ctx)
{
    (void)ctx;
    signal(SIGINT, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* SIGINT at any moment of a run's start, from before its handlers exist
 * to after its folder is made (0 to 150 ms in, 10 ms apart): whatever it
 * meets, no temporary folder (".x.part...") is left beside --out, and
 * --out is absent or a whole folder whose document says interrupted. At
 * least one signal must have been caught (exit 130), or the test saw
 * nothing of the handlers. (Once a signal between making the temporary
 * folder and installing the rescue left it behind: at 30 to 70 ms in,
 * against 1addf45.) */
static void test_early_interrupt(void)
{
    char dir[600], out[700], json[800];
    snprintf(dir, sizeof(dir), "%s/early", workdir);
    mkdir(dir, 0755);
    snprintf(out, sizeof(out), "%s/x", dir);
    snprintf(json, sizeof(json), "%s/results.json", out);
    const char *args[] = {"run",       "--kernel",   "matmul_naive",
                          "--n",       "700",        "--dtype",
                          "f64",       "--threads",  "1",
                          "--samples", "40",         "--ceilings",
                          ceilfile,    "--out",      out,
                          NULL};
    int caught = 0;
    for (int i = 0; i < 16; i++) {
        const pid_t pid = start_with(workdir, args, -1, default_sigint, NULL);
        sleep_s(0.01 * i);
        kill(pid, SIGINT);
        result r;
        finish_within(pid, 60.0, &r);
        /* 130: caught; killed by SIGINT itself before the handlers */
        CHECK(r.status == 130 || r.status == 1000 + SIGINT);
        caught += r.status == 130;
        DIR *d = opendir(dir);
        for (struct dirent *de; d && (de = readdir(d));)
            if (strstr(de->d_name, ".part")) {
                fprintf(stderr, "left after %d ms: %s\n", 10 * i, de->d_name);
                CHECK(0);
            }
        if (d)
            closedir(d);
        struct stat st;
        if (stat(out, &st) == 0) {
            json_t *doc = load_json(json);
            CHECK(doc != NULL);
            CHECK_STR_HAS(jstr(doc, "status", NULL), "interrupted");
            json_decref(doc);
            remove_tree(out);
        }
    }
    CHECK(caught > 0);
    remove_tree(dir);
}

/* The ceilings command: a small measurement whose document is complete
 * and whose kernels all passed their checks; then --ceilings files that
 * are of another schema, version or host are refused. */
static void test_ceilings(void)
{
    const char *args[] = {"ceilings", "--quick",   "--kernel", "read,triad",
                          "--size",   "4K:1M",     "--gemm-n", "256",
                          "--threads", "1",        "--out",    ceildir,
                          NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "host roofline, 1 thread");
    snprintf(ceilfile, sizeof(ceilfile), "%s/ceilings.json", ceildir);
    json_t *doc = load_json(ceilfile);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "schema", NULL), "roofbench.ceilings");
    CHECK(json_array_size(json_object_get(doc, "peak")) >= 4);
    CHECK_INT(json_array_size(json_object_get(doc, "bandwidth")), 2);
    CHECK_INT(json_array_size(json_object_get(doc, "gemm")), 2);
    json_t *roof = json_array_get(json_object_get(doc, "roofline"), 0);
    /* read and triad swept: a read roof of read alone, a mixed roof */
    json_t *roofs = json_object_get(roof, "roofs");
    CHECK_INT(json_array_size(roofs), 2);
    json_t *rd = json_array_get(roofs, 0), *mx = json_array_get(roofs, 1);
    CHECK_STR_HAS(jstr(rd, "mix", NULL), "read");
    CHECK_STR_HAS(jstr(mx, "mix", NULL), "mixed");
    CHECK_INT(json_array_size(json_object_get(rd, "kernels")), 1);
    CHECK_INT(json_array_size(json_object_get(mx, "kernels")), 2);
    CHECK(json_array_size(json_object_get(rd, "levels")) >= 1);
    json_t *lv0 = json_array_get(json_object_get(rd, "levels"), 0);
    CHECK_STR_HAS(jstr(lv0, "kernel", NULL), "read");
    CHECK(json_number_value(json_object_get(lv0, "spread")) >= 0.0);
    size_t i;
    json_t *pk;
    json_array_foreach(json_object_get(doc, "peak"), i, pk)
    {
        CHECK(json_real_value(json_object_get(pk, "gflops")) > 0.0);
        CHECK(json_real_value(json_object_get(pk, "ratio_to_theoretical")) >
              0.0);
    }
    char path[700];
    snprintf(path, sizeof(path), "%s/bandwidth.csv", ceildir);
    CHECK(access(path, R_OK) == 0);
    snprintf(path, sizeof(path), "%s/bandwidth.png", ceildir);
    if (access(path, R_OK) != 0)
        CHECK_STR_HAS(r.out, "chart skipped: gnuplot not found");

    /* Doctored copies: another version, another host, another schema, a
     * team larger than this machine (the same host name, resized) */
    static const char *const edits[][3] = {
        {"schema_version", "1", "schema version 1, this roofbench reads "
                                "version 2"},
        {"host", "\"elsewhere\"", "measured on host 'elsewhere'"},
        {"schema", "\"roofbench.run\"", "not a roofbench ceilings file"},
        {"threads", "4096", "roofline[0] is a team of 4096 threads, this "
                            "machine has"}};
    for (int k = 0; k < 4 && doc; k++) {
        json_t *copy = json_deep_copy(doc);
        json_t *val = json_loads(edits[k][1], JSON_DECODE_ANY, NULL);
        if (k == 1)
            json_object_set_new(json_object_get(copy, "context"), "host", val);
        else if (k == 3)
            json_object_set_new(
                json_array_get(json_object_get(copy, "roofline"), 0),
                "threads", val);
        else
            json_object_set_new(copy, edits[k][0], val);
        char bad[700];
        snprintf(bad, sizeof(bad), "%s/bad%d.json", ceildir, k);
        json_dump_file(copy, bad, 0);
        json_decref(copy);
        const char *bargs[] = {"run", "--quick", "--kernel", "dot",
                               "--ceilings", bad, NULL};
        check_refused(bargs, edits[k][2]);
    }
    json_decref(doc);
}

/* model on the measured host, from a ceilings file, and a layer billed
 * from a file; the JSON figures follow from the inputs. */
static void test_model(void)
{
    result r;
    /* the small test measurement stops at 1 MiB: no DRAM plateau */
    const char *nodram[] = {"model",     "bp,pm->bm", "b=1",        "p=64",
                            "m=64",      "--profile", "host",       "--ceilings",
                            ceilfile,    NULL};
    check_refused(nodram, "no DRAM plateau");
    /* --ceilings with no host among the profiles would change nothing */
    const char *nohost[] = {"model", "bp,pm->bm", "b=1",        "p=64",
                            "m=64",  "--profile", "tpu-v5e",    "--ceilings",
                            ceilfile, NULL};
    run(workdir, nohost, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "--ceilings: it gives the host's roofline; "
                         "--profile 'tpu-v5e' has no host");
    nohost[5] = "--dtype";
    nohost[6] = "fp32";
    run(workdir, nohost, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "; the default --profile 'tpu-v5e,h100-sxm' has no "
                         "host");
    CHECK_INT(count_entries(workdir), 0);
    /* sweep draws the host (its default --profile) from the file: the
     * line names the file, not a flag the user never gave */
    const char *sweep[] = {"sweep", "--p", "64", "--batch", "1",
                           "--ceilings", ceilfile, NULL};
    run(workdir, sweep, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "--ceilings '");
    CHECK_STR_HAS(r.err, "no DRAM plateau");
    CHECK_STR_HAS(r.err, "(the default --profile, host among others, "
                         "draws the host from it)");
    CHECK_INT(count_entries(workdir), 0);

    /* the same measurement with a DRAM plateau of 25 GB/s added */
    json_t *doc = load_json(ceilfile);
    json_t *team = json_array_get(json_object_get(doc, "roofline"), 0);
    json_array_append_new(
        json_object_get(json_array_get(json_object_get(team, "roofs"), 0),
                        "levels"),
        json_pack("{s:s, s:f, s:f, s:s, s:f, s:f}", "name", "DRAM", "gbs", 25.0,
                  "spread", 0.0, "kernel", "read", "starts_bytes", 1e9,
                  "ends_bytes", 2e9));
    const double f64 = json_number_value(json_object_get(
        json_object_get(team, "peak_gflops"), "f64"));
    char host[700];
    snprintf(host, sizeof(host), "%s/host-dram.json", ceildir);
    json_dump_file(doc, host, 0);
    json_decref(doc);
    const char *args[] = {"model",   "bp,pm->bm", "b=1",        "p=4096",
                          "m=4096",  "--profile", "host",       "--ceilings",
                          host,      "--json",    NULL};
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    json_error_t je;
    json_t *out = json_loads(r.out, 0, &je);
    CHECK(out != NULL);
    json_t *t0 = json_array_get(json_object_get(out, "targets"), 0);
    CHECK_STR_HAS(jstr(t0, "dtype", NULL), "fp64");
    CHECK(fabs(json_number_value(json_object_get(t0, "mem_bw")) - 25e9) < 1.0);
    CHECK(fabs(json_number_value(json_object_get(t0, "peak_flops")) -
               f64 * 1e9) < 1e-6 * f64 * 1e9);
    /* 1 x 4096 x 4096 in f64: memory-bound at one FLOP per 4 bytes */
    json_t *ev = json_array_get(
        json_object_get(json_array_get(json_object_get(out, "specs"), 0),
                        "evaluations"),
        0);
    CHECK_STR_HAS(jstr(ev, "bound", NULL), "memory");
    CHECK(fabs(json_number_value(json_object_get(ev, "t_mem_s")) -
               8.0 * (4096.0 + 4096.0 * 4096 + 4096) / 25e9) < 1e-12);
    json_decref(out);

    /* a layer from a file: one line per spec, a total that adds up */
    char layer[700];
    snprintf(layer, sizeof(layer), "%s/layer.txt", ceildir);
    FILE *f = fopen(layer, "w");
    fprintf(f, "# two projections and a decode attention\n"
               "bd,df->bf f=16384   # up\n\n"
               "bf,fd->bd f=16384   # down\n"
               "bhk,bhkd->bhd h=32 k=8192 d=128\n");
    fclose(f);
    const char *bill[] = {"model", "--file", layer, "b=8", "d=4096",
                          "--profile", "tpu-v5e", "--json", NULL};
    run(workdir, bill, &r);
    CHECK_INT(r.status, 0);
    out = json_loads(r.out, 0, &je);
    CHECK(out != NULL);
    json_t *specs = json_object_get(out, "specs");
    CHECK_INT(json_array_size(specs), 3);
    double flops = 0.0, t = 0.0;
    for (size_t i = 0; i < json_array_size(specs); i++) {
        json_t *e0 = json_array_get(
            json_object_get(json_array_get(specs, i), "evaluations"), 0);
        flops += json_number_value(json_object_get(e0, "flops_per_chip"));
        t += json_number_value(json_object_get(e0, "t_s"));
    }
    /* 2 x 8 x 4096 x 16384 twice, and 2 x 8 x 32 x 8192 x 128 */
    CHECK(fabs(flops - (2.0 * 2 * 8 * 4096 * 16384 + 2.0 * 8 * 32 * 8192 * 128)) < 1.0);
    json_t *tot = json_array_get(json_object_get(out, "total"), 0);
    CHECK(fabs(json_number_value(json_object_get(tot, "flops")) - flops) < 1.0);
    CHECK(fabs(json_number_value(json_object_get(tot, "t_s")) - t) < 1e-9 * t);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(specs, 1), "line")), 4);
    json_decref(out);

    /* a bad line is named by file and line */
    f = fopen(layer, "w");
    fprintf(f, "bd,df->bf\nbd,df-bf\n");
    fclose(f);
    run(workdir, bill, &r);
    CHECK_INT(r.status, 2);
    char want[800];
    snprintf(want, sizeof(want), "%s:2: einsum 'bd,df-bf': no '->'", layer);
    CHECK_STR_HAS(r.err, want);
}

static int lines_of(const char *path);

/* One size with every traffic source: the same FLOPs in every form,
 * cachegrind's figures in range, and counters present or unavailable with
 * a reason; the JSON and CSV are written. */
static void orders_every_source(void)
{
    char out[600];
    snprintf(out, sizeof(out), "%s/orders", ceildir);
    const char *args[] = {"orders",     "--n",       "48",      "--traffic",
                          "all",        "--dtype",   "f64",     "--min-time",
                          "0.001",      "--ceilings", ceilfile, "--out",
                          out,          NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "in every form (asserted equal)");
    CHECK_STR_HAS(r.out, "moves least at the last level");
    CHECK_STR_HAS(r.out, "simulated code path: path avx2");
    char path[700];
    snprintf(path, sizeof(path), "%s/orders.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    json_t *size = json_array_get(json_object_get(doc, "sizes"), 0);
    CHECK(json_number_value(json_object_get(size, "flops")) ==
          2.0 * 48 * 48 * 48);
    json_t *forms = json_object_get(size, "forms");
    CHECK_INT(json_array_size(forms), 6);
    size_t i;
    json_t *f;
    int usable = -1;
    json_array_foreach(forms, i, f)
    {
        json_t *cg = json_object_get(f, "cachegrind");
        CHECK(cg != NULL);
        /* at n = 48 everything fits in the LL: about the compulsory 864
         * lines (3 x 48 x 48 x 8 / 64), more for the packing forms */
        const double ll = json_number_value(json_object_get(cg, "ll_misses"));
        CHECK(ll > 800.0 && ll < 4000.0);
        json_t *ctr = json_object_get(f, "counters");
        CHECK(ctr != NULL);
        if (usable < 0)
            usable = json_object_get(ctr, "unavailable") == NULL;
        if (!usable)
            CHECK(strlen(json_string_value(
                      json_object_get(ctr, "unavailable"))) > 10);
    }
    json_decref(doc);
    snprintf(path, sizeof(path), "%s/orders.csv", out);
    CHECK(access(path, F_OK) == 0);
}

/* A sweep of listed sizes with both model and cachegrind: the ratio table
 * per dtype and level, the worst factor, and the chart's data as one
 * series per form and source. */
static void orders_sweep_listed_sizes(void)
{
    char out[600];
    snprintf(out, sizeof(out), "%s/orders-sweep", ceildir);
    const char *sw[] = {"orders",   "--sweep",      "16,24",
                        "--traffic", "model,cachegrind", "--kernel",
                        "matmul_row,matmul_column", "--dtype", "f64",
                        "--min-time", "0.001", "--ceilings", ceilfile,
                        "--out", out, NULL};
    result r;
    run(workdir, sw, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "model / cachegrind, f64, L1:");
    CHECK_STR_HAS(r.out, "model / cachegrind, f64, last level:");
    CHECK_STR_HAS(r.out, "of cachegrind at every size, form and level");
    char path[700];
    snprintf(path, sizeof(path), "%s/orders.json", out);
    json_t *doc = load_json(path);
    json_t *worst = json_object_get(doc, "model_vs_cachegrind_worst_factor");
    CHECK(worst != NULL);
    const double w1 = json_number_value(json_object_get(worst, "l1")),
                 wll = json_number_value(json_object_get(worst, "ll"));
    CHECK(w1 > 0.0 && w1 <= 1.5 && wll > 0.0 && wll <= 1.5);
    json_decref(doc);
    snprintf(path, sizeof(path), "%s/orders-traffic.csv", out);
    /* header, 2 forms x 2 sources x 2 sizes, the compulsory bytes at 2 */
    CHECK_INT(lines_of(path), 1 + 8 + 2);
    char png[700];
    snprintf(png, sizeof(png), "%s/orders-f64-16.png", out);
    snprintf(path, sizeof(path), "%s/traffic-f64.png", out);
    if (access(png, F_OK) == 0) /* gnuplot ran */
        CHECK(access(path, F_OK) == 0);
}

/* The default sweep runs the grid 48, 64, 96, ..., 768, here with the
 * blocked form and the model alone so that it takes seconds. */
static void orders_sweep_default_grid(void)
{
    char out[600];
    snprintf(out, sizeof(out), "%s/orders-default", ceildir);
    const char *dg[] = {"orders",    "--sweep",   "default",  "--traffic",
                        "model",     "--kernel",  "matmul_blocked",
                        "--dtype",   "f32",       "--min-time", "0.001",
                        "--ceilings", ceilfile,   "--out",    out,
                        NULL};
    result r;
    run(workdir, dg, &r);
    CHECK_INT(r.status, 0);
    char path[700];
    snprintf(path, sizeof(path), "%s/orders.json", out);
    json_t *doc = load_json(path);
    static const int grid[] = {48, 64, 96, 128, 192, 256, 384, 512, 768};
    json_t *zs = json_object_get(doc, "sizes");
    CHECK_INT(json_array_size(zs), 9);
    for (size_t q = 0; q < 9 && q < json_array_size(zs); q++)
        CHECK_INT(json_integer_value(
                      json_object_get(json_array_get(zs, q), "n")),
                  grid[q]);
    json_decref(doc);
}

/* --events default means in orders what it means in run: this vendor's
 * set, each event counted or, without a PMU, unavailable with PAPI's
 * reason (never 0). */
static void orders_events_default(void)
{
    char out[600];
    snprintf(out, sizeof(out), "%s/orders-events", ceildir);
    const char *args[] = {"orders",     "--n",       "24",       "--kernel",
                          "matmul_row", "--dtype",   "f64",      "--events",
                          "default",    "--min-time", "0.001",   "--ceilings",
                          ceilfile,     "--out",     out,        NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    char path[700];
    snprintf(path, sizeof(path), "%s/orders.json", out);
    json_t *doc = load_json(path);
    json_t *size = json_array_get(json_object_get(doc, "sizes"), 0);
    json_t *ctr = json_object_get(
        json_array_get(json_object_get(size, "forms"), 0), "counters");
    CHECK(ctr != NULL);
    const char *why = json_string_value(json_object_get(ctr, "unavailable"));
    CHECK(why == NULL || strlen(why) > 10);
    json_decref(doc);
}

/* With valgrind missing from PATH, cachegrind traffic exits 2 with the
 * command that installs it and leaves nothing behind. */
static void orders_without_valgrind(void)
{
    const char *saved = getenv("PATH");
    char keep[4096];
    snprintf(keep, sizeof(keep), "%s", saved ? saved : "/usr/bin:/bin");
    setenv("PATH", "/nonexistent", 1);
    const char *cg[] = {"orders", "--traffic", "cachegrind", NULL};
    result r;
    run(workdir, cg, &r);
    setenv("PATH", keep, 1);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "sudo apt-get install -y valgrind");
    CHECK_INT(count_entries(workdir), 0);
}

/* orders end to end at a small size with every source: the same FLOPs in
 * every form, cachegrind's figures present, counters unavailable with a
 * reason (never 0) on a machine without a PMU; then a sweep of listed sizes
 * and the default grid; --events default; without valgrind, one line with
 * the install command. */
static void test_orders(void)
{
    orders_every_source();
    orders_sweep_listed_sizes();
    orders_sweep_default_grid();
    orders_events_default();
    orders_without_valgrind();
}

/* The sweep end to end on tiny weights, in two rounds: every point
 * verified and timed with its samples pooled over the rounds (each
 * sample's round recorded), one curve per kernel and dtype with its knees
 * and ridge, the profile's threshold, the CSVs, the chart (or why not);
 * and a weight level the loaded roofline lacks refused before any work. */
static int lines_of(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, ch;
    while (f && (ch = fgetc(f)) != EOF)
        n += ch == '\n';
    if (f)
        fclose(f);
    return f ? n : -1;
}

/* How many %roof cells of the sweep's tables carry mark ("nn%" then
 * it), counted on the tables' rows alone (those that start with B). */
static int count_marked(const char *text, char mark)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t k = strspn(line, " ");
        const size_t digits = strspn(line + k, "0123456789");
        if (digits > 0 && k + digits < len && line[k + digits] == ' ')
            for (size_t q = k + digits; q + 1 < len; q++)
                n += line[q] == '%' && line[q + 1] == mark;
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* One point of the tiny sweep: its batch and shape, six samples over two
 * rounds, verified, the peak, read bandwidth and (for a matmul) the
 * streaming probe measured around it, its bound with them, and its exact
 * bytes; the points marked '!' and '+' counted, and matmul_blocked's
 * smallest fraction of its roof at f32, B = 1 and 2, kept. */
static void sweep_point(json_t *p, int *above_json, int *over_json,
                        double *frac_min)
{
    const json_int_t b = json_integer_value(json_object_get(p, "batch"));
    CHECK(b >= 1 && b <= 4);
    CHECK_INT(json_integer_value(
                  json_object_get(json_object_get(p, "shape"), "n")),
              b);
    /* three samples a round, the first round's first */
    json_t *rounds = json_object_get(p, "sample_rounds");
    CHECK_INT(json_array_size(json_object_get(p, "samples_s")), 6);
    CHECK_INT(json_array_size(rounds), 6);
    for (size_t q = 0; q < json_array_size(rounds); q++)
        CHECK_INT(json_integer_value(json_array_get(rounds, q)),
                  q < 3 ? 0 : 1);
    /* each round's best, the smaller of them the point's minimum */
    json_t *bests = json_object_get(p, "round_best_s");
    json_t *samples = json_object_get(p, "samples_s");
    CHECK_INT(json_array_size(bests), 2);
    for (size_t r = 0; r < 2; r++) {
        double best = INFINITY;
        for (size_t q = 3 * r; q < 3 * r + 3; q++)
            best = fmin(best, json_number_value(json_array_get(samples, q)));
        CHECK(json_number_value(json_array_get(bests, r)) == best);
    }
    CHECK(fmin(json_number_value(json_array_get(bests, 0)),
               json_number_value(json_array_get(bests, 1))) ==
          json_number_value(
              json_object_get(json_object_get(p, "time_s"), "min")));
    CHECK(json_is_true(
        json_object_get(json_object_get(p, "verify"), "passed")));
    /* the peak the team got around the point, and the bound with it */
    json_t *pn = json_object_get(p, "peak_now_gflops");
    CHECK(json_number_value(json_object_get(pn, "before")) > 0.0);
    CHECK(json_number_value(json_object_get(pn, "after")) > 0.0);
    /* and the read bandwidth from its largest input, a whole number
     * of the read kernel's blocks (512 bytes) of it */
    json_t *rd = json_object_get(p, "read_now_gbs");
    CHECK(json_number_value(json_object_get(rd, "before")) > 0.0);
    CHECK(json_number_value(json_object_get(rd, "after")) > 0.0);
    const json_int_t rbytes =
        json_integer_value(json_object_get(rd, "bytes"));
    CHECK(rbytes > 0 && rbytes % 512 == 0);
    json_t *rn = json_object_get(p, "roof_now");
    const double np = json_number_value(json_object_get(rn, "peak_gflops")),
                 nr = json_number_value(json_object_get(rn, "read_gbs")),
                 nb = json_number_value(json_object_get(rn, "gflops")),
                 in = json_number_value(json_object_get(p, "intensity"));
    CHECK(np > 0.0 && nb > 0.0 && nb <= np * (1.0 + 1e-12));
    CHECK(nr > 0.0 && in > 0.0 && nb <= in * nr * (1.0 + 1e-9));
    /* the streaming probe around every matmul point: its weights with
     * B FMAs a weight; none around the contrast's */
    const char *k = jstr(p, "kernel", NULL);
    json_t *fs = json_object_get(p, "fmastream_now_gflops");
    if (k && strncmp(k, "matmul", 6) == 0) {
        CHECK(json_number_value(json_object_get(fs, "before")) > 0.0);
        CHECK(json_number_value(json_object_get(fs, "after")) > 0.0);
        CHECK_INT(json_integer_value(
                      json_object_get(fs, "fmas_per_element")),
                  b);
        json_t *pr = json_object_get(p, "probe");
        const double pg =
            json_number_value(json_object_get(pr, "gflops"));
        CHECK(pg > 0.0);
        CHECK(fabs(json_number_value(json_object_get(pr, "fraction")) -
                   json_number_value(json_object_get(
                       json_object_get(p, "gflop_per_s"), "best")) /
                       pg) < 1e-9);
    } else {
        CHECK(fs == NULL);
        CHECK(json_object_get(p, "probe") == NULL);
    }
    /* the table marks a point as run marks a row: '!' above its
     * roof by more than the roof's spread, '+' over 100% within it */
    json_t *place = json_object_get(p, "roofline");
    const int above =
        json_is_true(json_object_get(place, "above_measured_roof"));
    *above_json += above;
    const double frac =
        json_number_value(json_object_get(place, "fraction_of_attainable"));
    *over_json += !above && frac > 1.0;
    if (strcmp(jstr(p, "kernel", NULL), "matmul_blocked") == 0 &&
        strcmp(jstr(p, "dtype", NULL), "f32") == 0 && b <= 2 &&
        frac > 0.0 && !(*frac_min <= frac))
        *frac_min = frac;
    /* exact compulsory bytes: s (BP + PM + BM) for the matmuls */
    const double el = strcmp(jstr(p, "dtype", NULL), "f32") ? 8.0 : 4.0;
    if (k && strncmp(k, "matmul", 6) == 0)
        CHECK(json_integer_value(json_object_get(p, "bytes")) ==
              (json_int_t)(el * (b * 96 + 96 * 80 + b * 80)));
}

/* The tiny sweep's curves and knees, the probe's curves, and tpu-v5e's
 * threshold. */
static void sweep_curves(json_t *doc)
{
    size_t i;
    json_t *curves = json_object_get(doc, "curves");
    CHECK_INT(json_array_size(curves), 6);
    json_t *c;
    json_array_foreach(curves, i, c)
    {
        CHECK_INT(json_integer_value(json_object_get(c, "points")), 4);
        CHECK(json_number_value(json_object_get(c, "plateau_gflops")) > 0.0);
        json_t *k50 = json_object_get(c, "knee50");
        CHECK(json_number_value(json_object_get(k50, "batch")) >= 1.0);
        CHECK(json_number_value(json_object_get(k50, "batch")) <= 4.0);
        /* a matmul's ridge at the roof measured around its points, where
         * the roofline gives one: B where 2BPM / s(BP + PM + BM) x bw
         * reaches pk, from the medians given beside it; the contrast's
         * (batched*, every row its own matrix) is 0 or never */
        json_t *pr = json_object_get(c, "predicted");
        const char *k = jstr(c, "kernel", NULL);
        if (pr && k && strncmp(k, "batched", 7) != 0) {
            const double pk = json_number_value(
                             json_object_get(pr, "peak_gflops_now")),
                         bw = json_number_value(
                             json_object_get(pr, "weights_gbs_now")),
                         rn = json_number_value(
                             json_object_get(pr, "ridge_batch_now"));
            const char *dt = jstr(c, "dtype", NULL);
            const double p =
                             (double)json_integer_value(json_object_get(c, "p")),
                         m =
                             (double)json_integer_value(json_object_get(c, "m")),
                         el = dt && strcmp(dt, "f64") == 0 ? 8.0 : 4.0;
            CHECK(pk > 0.0 && bw > 0.0 && rn > 0.0);
            const double den = 2.0 * p * m * bw - pk * el * (p + m);
            if (den > 0.0)
                CHECK(fabs(rn - pk * el * p * m / den) <= 1e-6 * rn);
            const double kn = json_number_value(json_object_get(k50, "batch"));
            CHECK(fabs(json_number_value(
                           json_object_get(c, "knee50_over_ridge_now")) -
                       kn / rn) <= 1e-9 * (kn / rn));
            CHECK(json_is_boolean(
                json_object_get(c, "knee50_over_ridge_now_is_upper_bound")));
        }
    }
    /* the probe's own curve per dtype, with a point at every B */
    json_t *pcs = json_object_get(doc, "probe_curves");
    CHECK_INT(json_array_size(pcs), 2);
    json_array_foreach(pcs, i, c)
    {
        CHECK_INT(json_array_size(json_object_get(c, "points")), 4);
        CHECK(json_number_value(json_object_get(c, "knee50")) >= 1.0);
    }
    json_t *pred = json_array_get(json_object_get(doc, "predictions"), 0);
    CHECK_STR_HAS(jstr(pred, "profile", NULL), "tpu-v5e");
    const double wo =
        json_number_value(json_object_get(pred, "threshold_batch_weights_only"));
    CHECK(wo > 230.0 && wo < 250.0); /* 197 TFLOP/s / 819 GB/s, bf16 */
}

/* Roofs a thousandth of what was measured: every point lies above its
 * roof, past its spread, and is marked '!', in the table and its note;
 * then every roof scaled by a third of the smallest fraction of its
 * roof that matmul_blocked reached at f32, B = 1 and 2, above (so that
 * those points lie at 1 to 11 times their roof even if the machine has
 * since slowed down or sped up threefold), with spreads of 10: every
 * point over its roof within its spread, marked '+' */
static void sweep_marks(double frac_min)
{
    result r;
    char lowfile[700], lowout[700];
    const char *marked[] = {
        "sweep",     "--p",         "96",      "--m",        "80",
        "--batch",   "1:2",         "--dtype", "f32",        "--threads",
        "1",         "--kernel",    "matmul_blocked",        "--min-time",
        "0.001",     "--samples",   "3",       "--rounds",   "1",
        "--profile", "tpu-v5e",     "--ceilings",            lowfile,
        "--out",     lowout,        NULL};
    snprintf(lowfile, sizeof(lowfile), "%s/low-ceilings.json", ceildir);
    snprintf(lowout, sizeof(lowout), "%s/sweep-low", ceildir);
    scaled_ceilings(ceilfile, lowfile, 1e-3, -1.0);
    run(workdir, marked, &r);
    CHECK_INT(r.status, 0);
    CHECK_INT(count_marked(r.out, '!'), 2);
    CHECK_INT(count_marked(r.out, '+'), 0);
    CHECK_STR_HAS(r.out, "! 2 points above the measured roof");
    /* one round: nothing to say of rounds apart */
    CHECK(strstr(r.out, "the rounds apart") == NULL);
    CHECK(frac_min > 0.0);
    snprintf(lowfile, sizeof(lowfile), "%s/near-ceilings.json", ceildir);
    snprintf(lowout, sizeof(lowout), "%s/sweep-near", ceildir);
    scaled_ceilings(ceilfile, lowfile, frac_min / 3.0, 10.0);
    run(workdir, marked, &r);
    CHECK_INT(r.status, 0);
    CHECK_INT(count_marked(r.out, '+'), 2);
    CHECK_INT(count_marked(r.out, '!'), 0);
    CHECK_STR_HAS(r.out, "+ 2 points over 100% of the roof but within its "
                         "spread");
}

/* Given weights whose rows alias in the caches (512 f32 columns: 2 KiB
 * apart) are swept as given, with a note under their table and
 * rows_alias in every curve; 80 columns (320 bytes) have neither. */
static void sweep_alias_note(void)
{
    char out[700], path[760];
    snprintf(out, sizeof(out), "%s/sweep-alias", ceildir);
    const char *args[] = {"sweep",     "--p",        "64",     "--m",
                          "512",       "--batch",    "1:2",    "--dtype",
                          "f32",       "--threads",  "1",      "--kernel",
                          "matmul_blocked",          "--min-time", "0.001",
                          "--samples", "3",          "--rounds", "1",
                          "--profile", "tpu-v5e",
                          "--ceilings", ceilfile,    "--out",  out,
                          NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "P = 64, M = 512");
    CHECK_STR_HAS(r.out, "W's rows are 2048 bytes apart (M x 4), a multiple "
                         "of 2 KiB");
    snprintf(path, sizeof(path), "%s/sweep.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    json_t *curves = json_object_get(doc, "curves");
    CHECK(json_array_size(curves) >= 1);
    size_t i;
    json_t *c;
    json_array_foreach(curves, i, c)
        CHECK(json_is_true(json_object_get(c, "rows_alias")));
    json_decref(doc);
    args[4] = "80";
    snprintf(out, sizeof(out), "%s/sweep-noalias", ceildir);
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK(strstr(r.out, "W's rows are") == NULL);
    snprintf(path, sizeof(path), "%s/sweep.json", out);
    doc = load_json(path);
    CHECK(doc != NULL);
    json_array_foreach(json_object_get(doc, "curves"), i, c)
        CHECK(json_is_false(json_object_get(c, "rows_alias")));
    json_decref(doc);
}

/* Reads run folder `out`'s sweep.svg whole into svg (len bytes) and
 * returns 1; 0, with the run's output saying so, where gnuplot is not
 * installed. */
static int sweep_svg(const char *out, const result *r, char *svg, size_t len)
{
    char path[760];
    if (strstr(r->out, "chart skipped: gnuplot not found"))
        return 0;
    snprintf(path, sizeof(path), "%s/sweep.svg", out);
    CHECK(access(path, R_OK) == 0);
    slurp(path, svg, len);
    CHECK(strlen(svg) + 1 < len); /* not cut short */
    CHECK_STR_HAS(svg, "</svg>");
    return 1;
}

/* The chart's key names only what its panel draws: a sweep of batched
 * alone runs no streaming probe and marks no knee (batched starts past
 * half its plateau); a sweep of one B has no knee at all (and its chart
 * is still drawn, with no warning: gnuplot stopped on the empty knee file
 * once, and warned of it after that). */
static void sweep_legend(void)
{
    char out[700];
    static char svg[1 << 20];
    const char *args[] = {"sweep",     "--p",        "64",     "--m",
                          "80",        "--batch",    "1:3",    "--dtype",
                          "f32",       "--threads",  "1",      "--kernel",
                          "batched",   "--min-time", "0.001",  "--samples",
                          "3",         "--rounds",   "1",      "--profile",
                          "tpu-v5e",   "--ceilings", ceilfile, "--out",
                          out,         NULL};
    result r;
    snprintf(out, sizeof(out), "%s/sweep-batched-only", ceildir);
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    if (sweep_svg(out, &r, svg, sizeof(svg))) {
        CHECK_STR_HAS(svg, "batched, given weights");
        CHECK(strstr(svg, "streaming probe") == NULL);
        CHECK(strstr(svg, "50% knees") == NULL);
    }
    snprintf(out, sizeof(out), "%s/sweep-one-batch", ceildir);
    args[6] = "8";
    args[12] = "matmul_blocked";
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    if (sweep_svg(out, &r, svg, sizeof(svg))) {
        CHECK_STR_HAS(svg, "blocked, given weights");
        CHECK_STR_HAS(svg, "streaming probe, given weights");
        CHECK(strstr(svg, "50% knees") == NULL);
        /* nor did it warn of the knee file with no rows (plot.log holds
         * gnuplot's warnings) */
        char log[4096], path[760];
        snprintf(path, sizeof(path), "%s/plot.log", out);
        slurp(path, log, sizeof(log));
        CHECK(strstr(log, "no valid points") == NULL);
    }
}

/* A matmul sweep's chart: the probe in its key, and the knees' entry
 * exactly where sweep-knees.csv gives a circle (a row whose last field,
 * knee50_at_or_below_first_point, is 0). */
static void sweep_chart_key(const char *out, const result *r)
{
    static char svg[1 << 20];
    char path[760], knees[8192];
    if (!sweep_svg(out, r, svg, sizeof(svg)))
        return;
    CHECK_STR_HAS(svg, "streaming probe, given weights");
    snprintf(path, sizeof(path), "%s/sweep-knees.csv", out);
    slurp(path, knees, sizeof(knees));
    CHECK(strlen(knees) > 0);
    const int circle = strstr(knees, ",0\n") != NULL;
    CHECK_INT(strstr(svg, "50% knees (open circles)") != NULL, circle);
}

/* A level the roofline does not have: refused before any work. */
static void sweep_bad_level(void)
{
    const char *bad[] = {"sweep",     "--weights", "DRAM",  "--threads",
                         "1",         "--dtype",   "f32",   "--ceilings",
                         ceilfile,    NULL};
    check_refused(bad, "--weights DRAM: no DRAM plateau in the 1-thread "
                       "roofline");
}

/* ceilfile's roofline as file, with nteams teams (its one copied; team t
 * runs t + 1 threads) whose every roof is one level: DRAM at 10 GB/s
 * from starts[t] to ends[t]. */
static void dram_fixture(const char *file, int nteams, const double *starts,
                         const double *ends)
{
    json_t *doc = load_json(ceilfile);
    CHECK(doc != NULL);
    if (!doc)
        return;
    json_t *teams = json_object_get(doc, "roofline");
    CHECK_INT(json_array_size(teams), 1);
    for (int t = 1; t < nteams; t++)
        json_array_append_new(teams, json_deep_copy(json_array_get(teams, 0)));
    size_t i, j;
    json_t *team, *roof;
    json_array_foreach(teams, i, team)
    {
        json_object_set_new(team, "threads", json_integer((json_int_t)i + 1));
        json_array_foreach(json_object_get(team, "roofs"), j, roof)
            json_object_set_new(
                roof, "levels",
                json_pack("[{s:s, s:s, s:f, s:f, s:f, s:f}]", "name", "DRAM",
                          "kernel", "read", "gbs", 10.0, "spread", 0.05,
                          "starts_bytes", starts[i], "ends_bytes",
                          ends[i]));
    }
    CHECK(json_dump_file(doc, file, 0) == 0);
    json_decref(doc);
}

/* A sweep of DRAM weights at B = 1 and 2 on file's ceilings into out: its
 * sweep.json (NULL if it failed), the text in r. */
static json_t *dram_sweep(const char *file, const char *out,
                          const char *threads, const char *dtype,
                          const char *kernels, result *r)
{
    char path[760];
    const char *args[] = {"sweep",      "--weights", "DRAM",    "--threads",
                          threads,      "--dtype",   dtype,     "--batch",
                          "1:2",        "--kernel",  kernels,   "--min-time",
                          "0.001",      "--samples", "3",       "--ceilings",
                          file,         "--out",     out,       NULL};
    run(workdir, args, r);
    CHECK_INT(r->status, 0);
    snprintf(path, sizeof(path), "%s/sweep.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    return doc;
}

/* DRAM weights for two teams whose read curves put DRAM at different
 * sizes (a 1-thread one from 4 to 9 MB, a 2-thread one from 1 to 4 MB):
 * both teams' weights go past the larger of the plateaus' middles, 6 MB
 * (sweep_dram_floor), not each past its own, nor past a start. */
static void sweep_dram_floor_teams(void)
{
    char file[700], out[700];
    snprintf(file, sizeof(file), "%s/dram-ceilings.json", ceildir);
    snprintf(out, sizeof(out), "%s/sweep-dram", ceildir);
    const double starts[2] = {4e6, 1e6}, ends[2] = {9e6, 4e6};
    dram_fixture(file, 2, starts, ends);
    result r;
    json_t *doc = dram_sweep(file, out, "1,2", "f32", "matmul_blocked", &r);
    size_t i;
    json_t *p;
    int seen[2] = {0, 0};
    json_array_foreach(json_object_get(doc, "points"), i, p)
    {
        const json_int_t t = json_integer_value(json_object_get(p, "threads"));
        const double side = (double)json_integer_value(
            json_object_get(json_object_get(p, "shape"), "p"));
        CHECK(t == 1 || t == 2);
        if (t == 1 || t == 2)
            seen[t - 1]++;
        /* past 6 MB of f32 (1224.7 x 1224.7), the smallest multiple of
         * 64 (one thread) and of 128 (two), 1280, whose rows do not
         * alias */
        CHECK(side * side * 4.0 >= 6e6);
        CHECK_INT((json_int_t)side, 1280);
    }
    CHECK(seen[0] > 0 && seen[1] > 0);
    json_decref(doc);
}

static int same(const char *s, const char *want)
{
    return s && strcmp(s, want) == 0;
}

/* What one cache of the last level in a document's context holds (a
 * 1-thread team sits under one), and whether it is within what a core may
 * plausibly have (RB_CACHE_PER_CORE_MAX a core, as host_cache believes);
 * 0 where the topology has no cache. */
static double context_llc(json_t *doc, int *plausible)
{
    json_t *topo =
        json_object_get(json_object_get(doc, "context"), "topology");
    json_t *caches = json_object_get(topo, "caches");
    json_t *last = json_array_get(caches, json_array_size(caches) - 1);
    const double size = (double)json_integer_value(
                     json_object_get(last, "size_bytes")),
                 count = (double)json_integer_value(
                     json_object_get(last, "count")),
                 cores = (double)json_integer_value(
                     json_object_get(topo, "cores"));
    *plausible = count > 0 && cores > 0 &&
                 size / (cores / count) <= (double)RB_CACHE_PER_CORE_MAX;
    return size;
}

/* Beside DRAM weights the contrast takes matrices of its own, the
 * smallest past twice the last cache, so that B of them fit its budget:
 * f64 weights of 126 MB (a DRAM plateau from 80 to 200 MB) and on a
 * machine whose last cache is 32 MiB, batched on 2944 x 2944 (69.3 MB);
 * its points, the document and the table say so. */
static void sweep_contrast_own(void)
{
    char file[700], out[700];
    snprintf(file, sizeof(file), "%s/contrast-ceilings.json", ceildir);
    snprintf(out, sizeof(out), "%s/sweep-contrast", ceildir);
    const double starts[1] = {80e6}, ends[1] = {200e6};
    dram_fixture(file, 1, starts, ends);
    result r;
    json_t *doc =
        dram_sweep(file, out, "1", "f64", "matmul_blocked,batched", &r);
    if (!doc)
        return;
    size_t i;
    json_t *size = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "weights"), 0),
                        "sizes"),
        0);
    const json_int_t side = json_integer_value(json_object_get(size, "p"));
    /* 126.5 MB: 3977 x 3977 f64, up to 4032 */
    CHECK_INT(side, 4032);
    json_t *own = json_object_get(size, "contrast");
    int plausible;
    const double llc = context_llc(doc, &plausible);
    if (plausible && llc > 0.0 && 2.2 * llc < 4032.0 * 4032.0 * 8.0)
        CHECK(own != NULL);
    const json_int_t cp =
        own ? json_integer_value(json_object_get(own, "p")) : side;
    if (own) {
        CHECK(cp < side);
        CHECK_INT(json_integer_value(json_object_get(own, "m")), cp);
        CHECK_INT(json_integer_value(json_object_get(own, "matrix_bytes")),
                  cp * cp * 8);
        /* one unit (64 at 1 thread, f64) past the smallest side whose
         * square holds twice the cache where that side's rows alias */
        const json_int_t least =
            (json_int_t)sweep_contrast_side((uint64_t)side, 8, 1, llc);
        if (plausible)
            CHECK_INT(cp, least);
        CHECK(!rb_rows_alias((size_t)cp, 8));
        char line[160];
        snprintf(line, sizeof(line),
                 "batched on matrices of its own, P = %lld, M = %lld",
                 (long long)cp, (long long)cp);
        CHECK_STR_HAS(r.out, line);
    } else {
        CHECK(strstr(r.out, "on matrices of its own") == NULL);
    }
    json_t *p;
    int seen = 0;
    json_array_foreach(json_object_get(doc, "points"), i, p)
    {
        json_t *sh = json_object_get(p, "shape");
        const json_int_t want =
            same(jstr(p, "kernel", NULL), "batched") ? (seen++, cp) : side;
        CHECK_INT(json_integer_value(json_object_get(sh, "p")), want);
        CHECK_INT(json_integer_value(json_object_get(sh, "m")), want);
    }
    CHECK_INT(seen, 2); /* B = 1 and 2 */
    json_decref(doc);
}

/* A ceilings file of one team: its read roof one level, DRAM at 10 GB/s
 * from 4 to 9 MB; its mixed roof L3 (1 to 3 MB, 40 GB/s) and DRAM at
 * mixed_gbs from starts to 9 MB, its envelope those two figures at their
 * plateaus' ends, or no mixed roof at all where mixed_gbs is 0. */
static void mixed_fixture(const char *file, double mixed_gbs, double starts)
{
    json_t *doc = load_json(ceilfile);
    CHECK(doc != NULL);
    json_t *team = json_array_get(json_object_get(doc, "roofline"), 0);
    json_t *roofs = json_object_get(team, "roofs");
    for (size_t j = json_array_size(roofs); j-- > 0;) {
        json_t *roof = json_array_get(roofs, j);
        const int mixed = same(jstr(roof, "mix", NULL), "mixed");
        if (mixed && mixed_gbs <= 0.0) {
            json_array_remove(roofs, j);
            continue;
        }
        json_object_set_new(
            roof, "curve",
            mixed ? json_pack("[[f, f], [f, f], [f, f], [f, f]]", 1e6, 40.0,
                              3e6, 40.0, starts, mixed_gbs, 9e6, mixed_gbs)
                  : json_pack("[[f, f], [f, f]]", 4e6, 10.0, 9e6, 10.0));
        json_object_set_new(
            roof, "levels",
            mixed ? json_pack("[{s:s, s:s, s:f, s:f, s:f, s:f}, "
                              "{s:s, s:s, s:f, s:f, s:f, s:f}]",
                              "name", "L3", "kernel", "triad", "gbs", 40.0,
                              "spread", 0.05, "starts_bytes", 1e6,
                              "ends_bytes", 3e6, "name", "DRAM", "kernel",
                              "schoenauer", "gbs", mixed_gbs, "spread", 0.05,
                              "starts_bytes", starts, "ends_bytes", 9e6)
                  : json_pack("[{s:s, s:s, s:f, s:f, s:f, s:f}]", "name",
                              "DRAM", "kernel", "read2", "gbs", 10.0,
                              "spread", 0.05, "starts_bytes", 4e6,
                              "ends_bytes", 9e6));
    }
    CHECK(json_dump_file(doc, file, 0) == 0);
    json_decref(doc);
}

/* One DRAM sweep of matmul_blocked, f32, 1 thread, on mixed_fixture's
 * ceilings (mixed_gbs, starts) into the folder name of ceildir; its
 * sweep.json (NULL if it failed), the text in r. */
static json_t *mixed_sweep(double mixed_gbs, double starts, const char *name,
                           result *r)
{
    char file[700], out[700], path[760];
    snprintf(file, sizeof(file), "%s/%s.json", ceildir, name);
    snprintf(out, sizeof(out), "%s/%s", ceildir, name);
    mixed_fixture(file, mixed_gbs, starts);
    const char *args[] = {"sweep",     "--weights",  "DRAM",  "--threads",
                          "1",         "--dtype",    "f32",   "--batch",
                          "1:2",       "--kernel",   "matmul_blocked",
                          "--min-time", "0.001",     "--samples", "3",
                          "--profile", "host",       "--ceilings", file,
                          "--out",     out,          NULL};
    run(workdir, args, r);
    CHECK_INT(r->status, 0);
    snprintf(path, sizeof(path), "%s/sweep.json", out);
    return load_json(path);
}

/* The first curve's predicted block. */
static json_t *first_predicted(json_t *doc)
{
    return json_object_get(
        json_array_get(json_object_get(doc, "curves"), 0), "predicted");
}

/* The B = 1 point's bound and its level's bandwidth in doc. */
static double b1_level_gbs(json_t *doc, double *attainable)
{
    json_t *pt;
    size_t i;
    double gbs = -1.0;
    json_array_foreach(json_object_get(doc, "points"), i, pt)
    {
        if (json_integer_value(json_object_get(pt, "batch")) != 1 ||
            !same(jstr(pt, "kernel", NULL), "matmul_blocked"))
            continue;
        json_t *place = json_object_get(pt, "roofline");
        gbs = json_number_value(json_object_get(place, "level_gbs"));
        *attainable =
            json_number_value(json_object_get(place, "attainable_gflops"));
    }
    return gbs;
}

/* The curves' bandwidth is that of the roof their points are judged
 * against: a matmul writes C, so the mixed roof, here 20 GB/s at DRAM
 * where the read roof (which sizes the weights) has 10. The ridge, the
 * chart's roof and the host's threshold all follow the 20. Where the
 * weights fall between two of the mixed roof's plateaus, the envelope's
 * figure there, as for the points; with no mixed roof, the read one. */
static void sweep_mixed_roof(void)
{
    char path[760];
    result r;
    json_t *doc = mixed_sweep(20.0, 4e6, "sweep-mixed", &r);
    CHECK(doc != NULL);
    CHECK_STR_HAS(r.out, "DRAM 20.0 GB/s, mixed roof (schoenauer)");
    CHECK_STR_HAS(r.out, "host: the measured roofline's largest team, its "
                         "DRAM plateau in the mixed roof");
    json_t *c = json_array_get(json_object_get(doc, "curves"), 0);
    json_t *pr = first_predicted(doc);
    const double p = (double)json_integer_value(json_object_get(c, "p")),
                 m = (double)json_integer_value(json_object_get(c, "m")),
                 pk = json_number_value(json_object_get(pr, "peak_gflops"));
    CHECK(json_number_value(json_object_get(pr, "weights_gbs")) == 20.0);
    CHECK(same(jstr(pr, "weights_roof", NULL), "mixed"));
    CHECK(same(jstr(pr, "weights_gbs_kernel", NULL), "schoenauer"));
    /* sized from the read roof: the middle of 4 to 9 MB, 6 MB */
    CHECK(p * m * 4.0 >= 6e6 && p * m * 4.0 < 7e6);
    const double den = 2.0 * p * m * 20.0 - pk * 4.0 * (p + m),
                 ridge = json_number_value(json_object_get(pr, "ridge_batch"));
    CHECK(pk > 0.0 && den > 0.0);
    CHECK(fabs(ridge - pk * 4.0 * p * m / den) <= 1e-9 * ridge);
    /* the points' own bound at B = 1: the same 20 GB/s */
    const double in = 2.0 * p * m / (4.0 * (p + p * m + m));
    double att = 0.0;
    CHECK(b1_level_gbs(doc, &att) == 20.0);
    CHECK(fabs(att - in * 20.0) <= 1e-9 * in * 20.0);
    /* the chart's roof at B = 1: that bound over the peak */
    char text[8192];
    snprintf(path, sizeof(path), "%s/sweep-mixed/sweep-roofs.csv", ceildir);
    slurp(path, text, sizeof(text));
    const char *row = strstr(text, "\nhost,f32,1,DRAM,1,");
    const double frac =
        row ? strtod(row + strlen("\nhost,f32,1,DRAM,1,"), NULL) : -1.0;
    CHECK(fabs(frac - in * 20.0 / pk) <= 1e-5 * frac);
    json_t *host = json_array_get(json_object_get(doc, "predictions"), 0);
    CHECK(same(jstr(host, "profile", NULL), "host"));
    CHECK(json_number_value(json_object_get(host, "bandwidth_bytes_per_s")) ==
          20e9);
    CHECK(jstr(host, "name", NULL) &&
          strstr(jstr(host, "name", NULL), "mixed roof") != NULL);
    json_decref(doc);

    /* the mixed DRAM plateau from 7 MB: the 6 MB of weights lie between
     * its L3 (to 3 MB, 40 GB/s) and DRAM (20 GB/s), at the envelope's
     * figure there, log-log between the two, the B = 1 point's too */
    doc = mixed_sweep(20.0, 7e6, "sweep-mixed-gap", &r);
    CHECK(doc != NULL);
    pr = first_predicted(doc);
    CHECK(same(jstr(pr, "weights_level", NULL), "L3>DRAM"));
    CHECK(same(jstr(pr, "weights_gbs_kernel", NULL), "envelope"));
    const double gap = json_number_value(json_object_get(pr, "weights_gbs"));
    const double ws = 4.0 * (p + p * m + m),
                 want = exp(log(40.0) + (log(ws) - log(3e6)) /
                                            (log(7e6) - log(3e6)) *
                                            (log(20.0) - log(40.0)));
    CHECK(fabs(gap - want) <= 1e-9 * want && gap > 20.0 && gap < 40.0);
    CHECK(b1_level_gbs(doc, &att) == gap);
    CHECK_STR_HAS(r.out, "mixed roof (envelope)");
    json_decref(doc);

    /* no mixed roof measured: the read roof's 10, said so */
    doc = mixed_sweep(0.0, 4e6, "sweep-read", &r);
    CHECK(doc != NULL);
    pr = first_predicted(doc);
    CHECK(json_number_value(json_object_get(pr, "weights_gbs")) == 10.0);
    CHECK(same(jstr(pr, "weights_roof", NULL), "read"));
    CHECK(same(jstr(pr, "weights_gbs_kernel", NULL), "read2"));
    CHECK(b1_level_gbs(doc, &att) == 10.0);
    CHECK_STR_HAS(r.out, "DRAM 10.0 GB/s, read roof (read2)");
    CHECK_STR_HAS(r.out, "DRAM plateau in the read roof (the mixed one was "
                         "not measured or shows no DRAM plateau)");
    host = json_array_get(json_object_get(doc, "predictions"), 0);
    CHECK(json_number_value(json_object_get(host, "bandwidth_bytes_per_s")) ==
          10e9);
    json_decref(doc);
}

static void test_sweep(void)
{
    char out[600], path[700];
    snprintf(out, sizeof(out), "%s/sweep", ceildir);
    const char *args[] = {"sweep",      "--p",        "96",     "--m",
                          "80",         "--batch",    "1:4",    "--dtype",
                          "f32,f64",    "--threads",  "1",      "--min-time",
                          "0.001",      "--samples",  "3",      "--rounds",
                          "2",          "--profile",  "tpu-v5e",
                          "--ceilings", ceilfile,     "--out",  out,
                          NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "knees:");
    CHECK_STR_HAS(r.out,
                  "against the peak and bandwidth measured around each point:");
    CHECK_STR_HAS(r.out, "given weights, f64, 1 thread: P = 96, M = 80");
    CHECK_STR_HAS(r.out, "against the streaming probe around each point");
    CHECK_STR_HAS(r.out, "the streaming probe itself at 70% of the roof");
    CHECK_STR_HAS(r.out, "the rounds apart: matmul_blocked x");
    CHECK_STR_HAS(r.out, "(widest at B = ");
    CHECK_STR_HAS(r.out, "the rounds apart: at each point, the slowest");
    CHECK_STR_HAS(r.out, "f64     1 streaming probe");
    CHECK_STR_HAS(r.out, "tpu-v5e");
    CHECK_STR_HAS(r.err, "point 16/16");
    CHECK_STR_HAS(r.err, "(round 2/2, best so far)");
    snprintf(path, sizeof(path), "%s/sweep.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "schema", NULL), "roofbench.sweep");
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    json_t *points = json_object_get(doc, "points");
    /* 1, 2, 3, 4 x three kernels x two dtypes */
    CHECK_INT(json_array_size(points), 24);
    size_t i;
    json_t *p;
    int above_json = 0, over_json = 0;
    double frac_min = NAN; /* matmul_blocked's, f32, B = 1 and 2 */
    json_array_foreach(points, i, p)
        sweep_point(p, &above_json, &over_json, &frac_min);
    /* each curve's rise from B = 1 to 4 beside the roof's own, which is
     * the ratio of the two points' bounds (matmul_blocked, f64) */
    double bound1 = NAN, bound4 = NAN, now1 = NAN, now4 = NAN;
    json_array_foreach(points, i, p)
    {
        if (strcmp(jstr(p, "kernel", NULL), "matmul_blocked") != 0 ||
            strcmp(jstr(p, "dtype", NULL), "f64") != 0)
            continue;
        const json_int_t b = json_integer_value(json_object_get(p, "batch"));
        const double at = json_number_value(json_object_get(
            json_object_get(p, "roofline"), "attainable_gflops"));
        const double now = json_number_value(
            json_object_get(json_object_get(p, "roof_now"), "gflops"));
        if (b == 1) {
            bound1 = at;
            now1 = now;
        } else if (b == 4) {
            bound4 = at;
            now4 = now;
        }
    }
    CHECK(bound1 > 0.0 && bound4 > bound1);
    char rise[96];
    snprintf(rise, sizeof(rise), "(B 1 -> 4, x");
    CHECK_STR_HAS(r.out, rise);
    snprintf(rise, sizeof(rise), ", the roof's x%.2f,", bound4 / bound1);
    CHECK_STR_HAS(r.out, rise);
    /* and at the roofs measured around the two points */
    CHECK(now1 > 0.0 && now4 > 0.0);
    snprintf(rise, sizeof(rise), ", x%.2f at the roofs measured around them)",
             now4 / now1);
    CHECK_STR_HAS(r.out, rise);
    CHECK_INT(count_marked(r.out, '!'), above_json);
    CHECK_INT(count_marked(r.out, '+'), over_json);
    char note[96];
    snprintf(note, sizeof(note), "! %d point%s above the measured roof",
             above_json, above_json == 1 ? "" : "s");
    if (above_json)
        CHECK_STR_HAS(r.out, note);
    else
        CHECK(strstr(r.out, "above the measured roof") == NULL);
    sweep_curves(doc);
    snprintf(path, sizeof(path), "%s/sweep.csv", out);
    CHECK_INT(lines_of(path), 25);
    snprintf(path, sizeof(path), "%s/sweep-samples.csv", out);
    CHECK_INT(lines_of(path), 145);
    /* the knees with both ridges: every matmul row has the one at the
     * roof measured around its points, the contrast's nothing; each row
     * ends in whether its 50% knee is at or below the first B (then the
     * chart draws no circle for it), as sweep.json's curves say */
    snprintf(path, sizeof(path), "%s/sweep-knees.csv", out);
    {
        static char knees[8192];
        slurp(path, knees, sizeof(knees));
        CHECK_STR_HAS(knees, ",ridge_batch,ridge_batch_now,"
                             "knee50_at_or_below_first_point\n");
        int matmul_rows = 0, firsts = 0, rows = 0;
        for (char *line = strchr(knees, '\n'); line && line[1];
             line = strchr(line + 1, '\n')) {
            const char *end = strchr(line + 1, '\n');
            if (!end)
                break;
            rows++;
            CHECK(end - line > 3 && end[-2] == ',' &&
                  (end[-1] == '0' || end[-1] == '1'));
            firsts += end[-1] == '1';
            const int contrast = strstr(line + 1, ",batched,") != NULL &&
                                 strstr(line + 1, ",batched,") < end;
            if (!contrast) {
                matmul_rows++;
                CHECK(end[-3] != ',');
            }
        }
        CHECK_INT(matmul_rows, 4);
        CHECK_INT(rows, 6);
        /* each curve's row, found by its first four fields, ends in
         * its own knee's flag */
        int json_firsts = 0, matched = 0;
        size_t ci;
        json_t *cv;
        json_array_foreach(json_object_get(doc, "curves"), ci, cv)
        {
            const int at = json_is_true(json_object_get(
                json_object_get(cv, "knee50"), "at_or_below_first_point"));
            json_firsts += at;
            char key[96];
            snprintf(key, sizeof(key), "\n%s,%s,%s,%lld,",
                     jstr(cv, "weights", NULL), jstr(cv, "kernel", NULL),
                     jstr(cv, "dtype", NULL),
                     (long long)json_integer_value(
                         json_object_get(cv, "threads")));
            const char *row = strstr(knees, key);
            const char *end = row ? strchr(row + 1, '\n') : NULL;
            if (end) {
                matched++;
                CHECK_INT(end[-1] - '0', at);
            }
        }
        CHECK_INT(matched, 6);
        CHECK_INT(firsts, json_firsts);
        CHECK(json_firsts > 0); /* batched, flat from B = 1 */
    }
    json_decref(doc);
    snprintf(path, sizeof(path), "%s/sweep.png", out);
    if (access(path, R_OK) != 0)
        CHECK_STR_HAS(r.out, "chart skipped: gnuplot not found");
    sweep_chart_key(out, &r);
    sweep_marks(frac_min);
    sweep_bad_level();
    sweep_alias_note();
    sweep_legend();
    sweep_dram_floor_teams();
    sweep_contrast_own();
    sweep_mixed_roof();
}

int main(int argc, char **argv)
{
    const int rc = cli_setup(argc, argv, "test_cli");
    if (rc)
        return rc;
    unsetenv("ROOFBENCH_NO_HUGEPAGES");
    if (!mkdtemp(ceildir)) {
        perror("mkdtemp");
        return 1;
    }
    test_bad_input();
    test_bad_environment();
    test_ceilings();
    test_model();
    test_orders();
    test_sweep();
    test_run_files();
    test_interrupt();
    test_sweep_interrupt();
    test_early_interrupt();
    remove_tree(workdir);
    remove_tree(ceildir);
    return check_status("test_cli");
}
