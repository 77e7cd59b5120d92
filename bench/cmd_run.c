/* roofbench run: verify and time kernels, print a table, write a results
 * folder. A thin layer: flags become a harness_plan, rows come back from
 * the harness and go to the results writers. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cli.h"
#include "cmd.h"
#include "harness.h"
#include "host.h"
#include "results.h"
#include "roofline.h"

#define RESULTS_ROOT "results/runs"

/* Default problems: the memory-bound operations sized well past the last
 * cache (about 80 to 130 MB in f64), matmul at the classic n = 512, so
 * that the whole default run stays within about two minutes on two cores.
 * --quick shrinks them for smoke tests. */
static const rb_shape default_shape[RB_NOPS] = {
    {1, 10000000, 1}, {4000, 4000, 1}, {512, 512, 512}, {64, 512, 512}};
static const rb_shape quick_shape[RB_NOPS] = {
    {1, 1000000, 1}, {1000, 1000, 1}, {128, 128, 128}, {16, 128, 128}};

static void help(void)
{
    printf(
        "usage: roofbench run [options]\n\n"
        "Verifies every selected kernel against its reference on random "
        "data, then\ntimes it: one warm-up discarded, calls per sample grown "
        "until a sample lasts\n--min-time, --samples samples between thread "
        "barriers. Prints one row per\nkernel, dtype and thread count and "
        "writes results.json (context, rows, raw\nsamples) and results.csv "
        "to a new run folder. Rates come from the registry's\nanalytic "
        "counts and the minimum time. Each row is also placed on the host "
        "roofline:\nthe memory level its working set falls in, the "
        "attainable bound\nmin(peak, intensity x that level's bandwidth), "
        "the fraction of it achieved,\nand which roof binds.\n\n"
        "  --kernel LIST     kernels (see roofbench list), operations "
        "(matmul, batched:\n"
        "                    all their kernels) or all; comma-separated "
        "(default all)\n"
        "  --dtype LIST      f32, f64 or both (default f32,f64)\n"
        "  --threads LIST    thread counts, each 1 to the number of cores; "
        "one thread\n"
        "                    per core, pinned (default: 1 and all cores)\n"
        "  --n N             square problems: dot P=N, matvec N=P=N, matmul "
        "and\n"
        "                    batched N=P=M=N\n"
        "  --shape N,P,M     [N,P] x [P,M]; dot uses P, matvec N and P\n"
        "                    (default per operation: dot P=10000000, matvec "
        "4000x4000,\n"
        "                    matmul 512x512x512, batched 64x512x512)\n"
        "  --min-time S      seconds one sample must last (default 0.01)\n"
        "  --samples N       timed samples per row, at least 3 (default 5)\n"
        "  --seed N          seed of the random inputs (default 1)\n"
        "  --quick           small default problems and --min-time 0.002\n"
        "  --events LIST     PAPI preset or native events (or 'default': "
        "cycles,\n"
        "                    instructions, L1D, L2, L3 misses, FLOPs for "
        "this vendor),\n"
        "                    read in one more sample per row on every "
        "thread; an event\n"
        "                    that cannot be counted here is reported "
        "unavailable\n"
        "  --ceilings FILE   the host roofline from an earlier `roofbench "
        "ceilings` (its\n"
        "                    ceilings.json); without it, run measures the "
        "roofs it needs\n"
        "                    first (peak at the widest vector width, read "
        "bandwidth)\n"
        "  --out DIR         results folder (default "
        "results/runs/<host>-<UTC stamp>);\n"
        "                    never one that already holds results\n"
        "  --json            print the results document on stdout instead "
        "of the table\n"
        "  --help            this text\n\n"
        "Sizes take K, M, G suffixes (x1024). Exit status: 0 success, 1 a "
        "kernel failed\nverification, 2 bad input or an unusable "
        "environment, 130 interrupted (the\nfinished rows are kept, marked "
        "incomplete).\n");
}

typedef struct {
    int json;
    int printed_header;
    const roofline *roof;
} print_ctx;

static void format_shape(const harness_row *r, char *buf, size_t len)
{
    switch (r->kernel->op) {
    case RB_OP_DOT:
        snprintf(buf, len, "%zu", r->shape.p);
        break;
    case RB_OP_MATVEC:
        snprintf(buf, len, "%zux%zu", r->shape.n, r->shape.p);
        break;
    default:
        snprintf(buf, len, "%zux%zux%zu", r->shape.n, r->shape.p, r->shape.m);
        break;
    }
}

static void print_row(const harness_row *r, void *vctx)
{
    print_ctx *ctx = vctx;
    if (ctx->json)
        return;
    if (!ctx->printed_header) {
        printf("%-16s %-13s %-5s %-13s %3s %-7s %9s %9s %7s %10s %10s %5s "
               "%8s %8s %7s %-8s %8s %6s %-8s\n",
               "kernel", "form", "dtype", "shape", "thr", "PUs", "FLOPs",
               "bytes", "FLOP/B", "t_min(s)", "t_med(s)", "cv%", "GFLOP/s",
               "GB/s", "err/tol", "level", "roof", "%roof", "binds");
        ctx->printed_header = 1;
    }
    char shape[64];
    format_shape(r, shape, sizeof(shape));
    const double err =
        fmax(r->check_before.max_err, r->check_after.max_err) /
        r->check_after.tol;
    char pus[sizeof(r->binding) + 1];
    snprintf(pus, sizeof(pus), "%s%s", r->binding,
             r->library_threads ? "*" : "");
    printf("%-16s %-13s %-5s %-13s %3d %-7s %9.3g %9.3g %7.3g %10.4g %10.4g "
           "%5.1f %8.3f %8.3f %7.2g ",
           r->kernel->name, r->kernel->form, rb_dtype_name(r->dtype), shape,
           r->threads, pus, (double)r->counts.flops, (double)r->counts.bytes,
           (double)r->counts.flops / (double)r->counts.bytes, r->time.min,
           r->time.median, 100.0 * r->time.cv,
           (double)r->counts.flops / r->time.min / 1e9,
           (double)r->counts.bytes / r->time.min / 1e9, err);
    roof_bound b;
    if (ctx->roof &&
        roofline_bound(ctx->roof, r->threads, r->dtype, r->counts.flops,
                       r->counts.bytes, results_row_gflops(r), &b) == 0)
        printf("%-8s %8.2f %5.1f%% %-8s\n", b.level.name, b.attainable_gflops,
               100.0 * b.fraction, b.compute_bound ? "compute" : b.level.name);
    else
        printf("%-8s %8s %6s %-8s\n", "n/a", "n/a", "n/a", "n/a");
    if (r->counted) {
        printf("    counters per call:");
        for (int i = 0; i < r->events->n; i++)
            if (r->events->usable[i])
                printf(" %s %.4g", r->events->name[i],
                       (double)r->ctr_counts[i] / (double)r->counted_reps);
        printf("%s%s\n", r->counted_note[0] ? "  ! " : "", r->counted_note);
    }
    fflush(stdout);
}

static void on_signal(int sig)
{
    (void)sig;
    harness_stop = 1;
}

/* Adds the kernels that `name` selects: one kernel, an operation's kernels,
 * or all. Duplicates are skipped so a kernel is measured once. */
static int select_kernels(const char *list, harness_plan *plan)
{
    char buf[1024];
    char *items[64];
    rb_err e;
    const int n = cli_split_list("--kernel", list, buf, sizeof(buf), items, 64,
                                 &e);
    if (n < 0)
        return cmd_error(n, e.msg);
    int want[64] = {0};
    for (int i = 0; i < n; i++) {
        /* A kernel's own name wins ("dot" is the kernel dot); otherwise an
         * operation's name selects all its kernels ("matmul"). */
        const rb_kernel *exact = rb_kernel_find(items[i]);
        int matched = 0;
        for (size_t k = 0; k < rb_nkernels; k++) {
            const rb_kernel *kr = &rb_kernels[k];
            if (strcmp(items[i], "all") == 0 || kr == exact ||
                (!exact && strcmp(items[i], rb_op_name(kr->op)) == 0)) {
                want[k] = 1;
                matched = 1;
            }
        }
        if (!matched)
            return cmd_bad("--kernel '%s': unknown kernel (see roofbench "
                           "list; operations dot, matvec, matmul, batched; "
                           "or all)",
                           items[i]);
    }
    plan->nkernels = 0;
    for (size_t k = 0; k < rb_nkernels; k++)
        if (want[k])
            plan->kernels[plan->nkernels++] = &rb_kernels[k];
    return 0;
}

static int select_dtypes(const char *list, harness_plan *plan)
{
    rb_err e;
    if (cli_parse_dtypes("--dtype", list, plan->dtypes, &plan->ndtypes, &e))
        return cmd_error(RB_EINPUT, e.msg);
    return 0;
}

static int select_threads(const char *list, int ncores, harness_plan *plan)
{
    rb_err e;
    if (cli_parse_threads("--threads", list, ncores, plan->threads, 16,
                          &plan->nthreads, &e))
        return cmd_error(RB_EINPUT, e.msg);
    return 0;
}

/* The roofs a run needs, measured before its kernels when no --ceilings
 * file was given: clock and peak at the widest vector width for the run's
 * dtypes, and the read sweep for its thread counts. Written to the run
 * folder as ceilings.json, so a later run can pass it with --ceilings. */
static int measure_roofline(hwloc_topology_t topo, const harness_plan *plan,
                            json_t *context, const char *dir, int quiet,
                            roofline *roof, json_t **doc, rb_err *e)
{
    if (!quiet) {
        printf("measuring the host roofline first (peak at the widest vector "
               "width, read bandwidth 4 KiB to 1 GiB; --ceilings FILE reuses "
               "one)\n");
        fflush(stdout);
    }
    int rc = ceilings_measure_roofline(topo, plan->threads, plan->nthreads,
                                       plan->dtypes, plan->ndtypes, context,
                                       doc, e);
    if (rc)
        return rc;
    char *text = json_dumps(*doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    rc = text ? results_write_file(dir, "ceilings.json", text, strlen(text), e)
              : rb_fail(e, RB_EINPUT, "out of memory formatting ceilings");
    free(text);
    if (!rc)
        rc = roofline_from_doc(*doc, "measured ceilings", roof, e);
    if (rc) {
        json_decref(*doc);
        *doc = NULL;
        return rc;
    }
    for (size_t i = 0; i < roof->nteams && !quiet; i++) {
        const roof_team *t = &roof->teams[i];
        printf("  roofline, %d thread%s: peak", t->threads,
               t->threads > 1 ? "s" : "");
        for (int d = 0; d < RB_NDTYPES; d++)
            if (t->peak_gflops[d] > 0.0)
                printf(" %s %.1f", rb_dtype_name((rb_dtype)d),
                       t->peak_gflops[d]);
        printf(" GFLOP/s;");
        for (size_t l = 0; l < t->nlevels; l++)
            printf(" %s %.1f GB/s%s", t->levels[l].name, t->levels[l].gbs,
                   l + 1 < t->nlevels ? "," : "\n");
    }
    return RB_OK;
}

static json_t *settings_json(const harness_plan *plan, int argc, char **argv)
{
    json_t *cmd = json_array(), *dtypes = json_array(),
           *threads = json_array(), *kernels = json_array();
    json_array_append_new(cmd, json_string("roofbench"));
    for (int i = 0; i < argc; i++)
        json_array_append_new(cmd, json_string(argv[i]));
    for (int d = 0; d < plan->ndtypes; d++)
        json_array_append_new(dtypes,
                              json_string(rb_dtype_name(plan->dtypes[d])));
    for (int t = 0; t < plan->nthreads; t++)
        json_array_append_new(threads, json_integer(plan->threads[t]));
    for (size_t k = 0; k < plan->nkernels; k++)
        json_array_append_new(kernels, json_string(plan->kernels[k]->name));
    return json_pack("{s:o, s:o, s:o, s:o, s:f, s:i, s:I, s:s, s:s}",
                     "command", cmd, "kernels", kernels, "dtypes", dtypes,
                     "threads", threads, "min_time_s", plan->min_time,
                     "samples", plan->samples, "seed",
                     (json_int_t)plan->seed, "time_unit",
                     "seconds per call", "rates",
                     "analytic FLOPs and compulsory bytes of the registry "
                     "divided by the minimum (best) or median time");
}

int cmd_run(int argc, char **argv)
{
    enum { O_KERNEL = 256, O_DTYPE, O_THREADS, O_N, O_SHAPE, O_MINTIME,
           O_SAMPLES, O_SEED, O_QUICK, O_OUT, O_JSON, O_HELP, O_CEILINGS,
           O_EVENTS };
    static const struct option opts[] = {
        {"kernel", required_argument, NULL, O_KERNEL},
        {"dtype", required_argument, NULL, O_DTYPE},
        {"threads", required_argument, NULL, O_THREADS},
        {"n", required_argument, NULL, O_N},
        {"shape", required_argument, NULL, O_SHAPE},
        {"min-time", required_argument, NULL, O_MINTIME},
        {"samples", required_argument, NULL, O_SAMPLES},
        {"seed", required_argument, NULL, O_SEED},
        {"quick", no_argument, NULL, O_QUICK},
        {"out", required_argument, NULL, O_OUT},
        {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, O_HELP},
        {"ceilings", required_argument, NULL, O_CEILINGS},
        {"events", required_argument, NULL, O_EVENTS},
        {NULL, 0, NULL, 0}};
    const char *ceilings_file = NULL, *events = NULL;
    const char *kernels = "all", *dtypes = "f32,f64", *threads = NULL,
               *n_arg = NULL, *shape_arg = NULL, *min_time_arg = NULL,
               *out = NULL;
    uint64_t samples = 5, seed = 1;
    int quick = 0, json = 0, c, rc;
    rb_err e;
    harness_plan plan;
    memset(&plan, 0, sizeof(plan));

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_KERNEL: kernels = optarg; break;
        case O_DTYPE: dtypes = optarg; break;
        case O_THREADS: threads = optarg; break;
        case O_N: n_arg = optarg; break;
        case O_SHAPE: shape_arg = optarg; break;
        case O_MINTIME: min_time_arg = optarg; break;
        case O_SAMPLES:
            rc = cli_parse_count("--samples", optarg, 3, 100000, &samples, &e);
            if (rc)
                return cmd_error(rc, e.msg);
            break;
        case O_SEED:
            rc = cli_parse_count("--seed", optarg, 0, UINT64_MAX, &seed, &e);
            if (rc)
                return cmd_error(rc, e.msg);
            break;
        case O_QUICK: quick = 1; break;
        case O_OUT: out = optarg; break;
        case O_JSON: json = 1; break;
        case O_HELP: help(); return 0;
        case O_CEILINGS: ceilings_file = optarg; break;
        case O_EVENTS: events = optarg; break;
        default:
            if (optopt)
                return cmd_bad("run: option '%s' needs a value",
                               argv[optind - 1]);
            return cmd_bad("run: unknown option '%s' (see roofbench run "
                           "--help)",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_bad("run: unexpected argument '%s'", argv[optind]);
    if (n_arg && shape_arg)
        return cmd_bad("--n and --shape both given: choose one");
    if (out && *out == '\0')
        return cmd_bad("--out '': an empty folder name");

    if ((rc = select_kernels(kernels, &plan)) || (rc = select_dtypes(dtypes,
                                                                     &plan)))
        return rc;
    plan.samples = (int)samples;
    plan.seed = seed;
    plan.min_time = quick ? 0.002 : 0.01;
    if (min_time_arg &&
        (rc = cli_parse_seconds("--min-time", min_time_arg, 1e-4, 60.0,
                                &plan.min_time, &e)))
        return cmd_error(rc, e.msg);

    for (int op = 0; op < RB_NOPS; op++) {
        plan.shape[op] = quick ? quick_shape[op] : default_shape[op];
        snprintf(plan.shape_source[op], sizeof(plan.shape_source[op]),
                 "default %s shape", rb_op_name((rb_op)op));
    }
    if (n_arg || shape_arg) {
        rb_shape s;
        if (n_arg) {
            uint64_t n;
            rc = cli_parse_count("--n", n_arg, 1, SIZE_MAX, &n, &e);
            s.n = s.p = s.m = n;
        } else {
            rc = cli_parse_shape("--shape", shape_arg, &s, &e);
        }
        if (rc)
            return cmd_error(rc, e.msg);
        for (int op = 0; op < RB_NOPS; op++) {
            plan.shape[op] = s;
            if (op == RB_OP_DOT)
                plan.shape[op].n = plan.shape[op].m = 1;
            if (op == RB_OP_MATVEC)
                plan.shape[op].m = 1;
            snprintf(plan.shape_source[op], sizeof(plan.shape_source[op]),
                     "%s %s", n_arg ? "--n" : "--shape",
                     n_arg ? n_arg : shape_arg);
        }
    }

    hwloc_topology_t topo;
    if ((rc = pin_topology_load(&topo, &e)))
        return cmd_error(rc, e.msg);
    const int ncores = pin_ncores(topo);
    char default_threads[32];
    snprintf(default_threads, sizeof(default_threads),
             ncores > 1 ? "1,%d" : "1", ncores);
    if ((rc = select_threads(threads ? threads : default_threads, ncores,
                             &plan)) ||
        (rc = harness_check_plan(&plan, host_mem_available(), &e)
                  ? cmd_error(RB_EINPUT, e.msg)
                  : 0) ||
        (rc = results_check_dest(RESULTS_ROOT, out, &e)
                  ? cmd_error(RB_EINPUT, e.msg)
                  : 0)) {
        hwloc_topology_destroy(topo);
        return rc;
    }

    static counters_events ev;
    if (events) {
        host_cpu cpu;
        host_cpu_probe(&cpu);
        const int f64_first = plan.ndtypes > 0 && plan.dtypes[0] == RB_F64;
        if ((rc = counters_resolve(strcmp(events, "default") == 0
                                       ? counters_default_events(cpu.vendor,
                                                                 f64_first)
                                       : events,
                                   &ev, &e))) {
            hwloc_topology_destroy(topo);
            return cmd_error(rc, e.msg);
        }
        plan.events = &ev;
        if (!json && ev.nusable < ev.n) {
            counters_status st;
            counters_probe(&st);
            for (int i = 0; i < ev.n; i++)
                if (!ev.usable[i])
                    printf("counters: %s unavailable: %s%s%s\n", ev.name[i],
                           ev.reason[i], st.usable ? "" : "; ",
                           st.usable ? "" : st.reason);
        }
    }

    roofline roof;
    json_t *ceil_doc = NULL;
    if (ceilings_file) {
        char host[64];
        host_name(host, sizeof(host));
        if ((rc = roofline_load(ceilings_file, host, &roof, &ceil_doc, &e))) {
            hwloc_topology_destroy(topo);
            return cmd_error(rc, e.msg);
        }
    }

    json_t *context = cmd_info_context(topo);
    const double clock_step = json_real_value(json_object_get(
        json_object_get(context, "clock"), "resolution_measured_s"));
    if (plan.min_time < 1000.0 * clock_step) {
        json_decref(context);
        json_decref(ceil_doc);
        hwloc_topology_destroy(topo);
        return cmd_bad("--min-time %g: below 1000 steps of this clock (%g s "
                       "each)",
                       plan.min_time, clock_step);
    }
    char iso[32], dir[4096];
    results_utc(iso, sizeof(iso), NULL, 0);
    json_object_set_new(context, "date", json_string(iso));
    json_object_set_new(context, "settings", settings_json(&plan, argc, argv));

    if ((rc = results_make_dir(RESULTS_ROOT, out, dir, sizeof(dir), &e))) {
        json_decref(context);
        json_decref(ceil_doc);
        hwloc_topology_destroy(topo);
        return cmd_error(rc, e.msg);
    }
    json_object_set_new(context, "run_folder", json_string(dir));
    if (!json) {
        const json_t *ob = json_object_get(context, "openblas");
        printf("roofbench run on %s: OpenBLAS core %s; results in %s\n",
               json_string_value(json_object_get(context, "host")),
               json_string_value(json_object_get(ob, "corename")), dir);
        fflush(stdout);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (ceilings_file) {
        json_object_set_new(context, "ceilings",
                            json_pack("{s:s, s:O}", "source", ceilings_file,
                                      "roofline",
                                      json_object_get(ceil_doc, "roofline")));
    } else {
        rc = measure_roofline(topo, &plan, context, dir, json, &roof,
                              &ceil_doc, &e);
        if (rc) {
            json_decref(context);
            hwloc_topology_destroy(topo);
            return cmd_error(rc, e.msg);
        }
        json_object_set_new(context, "ceilings",
                            json_pack("{s:s, s:O}", "source",
                                      "measured in this run: ceilings.json",
                                      "roofline",
                                      json_object_get(ceil_doc, "roofline")));
    }
    json_decref(ceil_doc);

    harness_result res;
    print_ctx pctx = {.json = json, .roof = &roof};
    rb_err run_err;
    const int run_rc = harness_run(topo, &plan, &res, print_row, &pctx,
                                   &run_err);
    const char *status = run_rc != RB_OK   ? "failed"
                         : res.interrupted ? "interrupted"
                                           : "complete";
    rc = results_write_run(dir, context, &res, &roof, status,
                           run_rc != RB_OK ? run_err.msg : NULL, &e);
    if (json && rc == RB_OK) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/results.json", dir);
        FILE *f = fopen(path, "r");
        for (int ch; f && (ch = fgetc(f)) != EOF;)
            putchar(ch);
        if (f)
            fclose(f);
    }
    const size_t nrows = res.nrows;
    harness_result_free(&res);
    json_decref(context);
    hwloc_topology_destroy(topo);

    if (rc != RB_OK)
        return cmd_error(rc, e.msg);
    if (run_rc != RB_OK) {
        fprintf(stderr, "roofbench: %s\n", run_err.msg);
        fprintf(stderr, "roofbench: the %zu rows verified before it are in "
                        "%s, marked failed\n",
                nrows, dir);
        return rb_exit_status(run_rc);
    }
    if (harness_stop) {
        fprintf(stderr,
                "roofbench: interrupted: %zu finished rows kept in %s, "
                "marked incomplete\n",
                nrows, dir);
        return 130;
    }
    if (!json)
        printf("%zu rows. PUs: the binding each thread obtained (checked), "
               "';' between threads;\n* the caller bound to all of them, "
               "OpenBLAS running its own threads there.\nRates from the "
               "minimum time and the analytic counts; err/tol: the largest\n"
               "verification error as a fraction of its tolerance.\n"
               "Written: %s/results.json, results.csv\n",
               nrows, dir);
    return 0;
}
