/* roofbench run: verify and time kernels, place each on the host roofline,
 * write a results folder, print a table. Flags become a harness plan; the
 * rows come back from the harness into the run document, which the
 * reporters render once the measurement is over. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cmd.h"
#include "counters.h"
#include "flags.h"
#include "harness.h"
#include "host.h"
#include "interrupt.h"
#include "parse.h"
#include "progress.h"
#include "report_run.h"
#include "session.h"

typedef struct {
    const char *kernel, *dtype, *threads, *shape, *events, *ceilings, *out;
    uint64_t n, samples, seed;
    double min_time;
    int quick, json;
} run_opts;

#define OFF(f) offsetof(run_opts, f)

static const flag_spec run_flags[] = {
    {.name = "kernel",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(kernel),
     .def = "all",
     .help = "kernels (see roofbench list), operations (matmul, batched: all "
             "their kernels) or all, comma-separated"},
    FLAG_DTYPE(run_opts, dtype, "f32,f64"),
    FLAG_THREADS(run_opts, threads,
                 "thread counts, each 1 to the number of cores; one thread "
                 "per core, pinned"),
    {.name = "n",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(n),
     .cmin = 1,
     .cmax = SIZE_MAX,
     .help = "square problems: dot P=N, matvec N=P=N, matmul and batched "
             "N=P=M=N"},
    {.name = "shape",
     .meta = "N,P,M",
     .type = FLAG_TEXT,
     .off = OFF(shape),
     .def_doc = "dot P=10000000, matvec 4000x4000, matmul 512x512x512, "
                "batched 64x512x512; with --quick 1000000, 1000x1000, "
                "128x128x128, 16x128x128",
     .help = "[N,P] x [P,M]; dot uses P, matvec N and P"},
    FLAG_MIN_TIME(run_opts, min_time, "0.01", "0.002", 1e-4,
                  "seconds one sample must last"),
    FLAG_SAMPLES(run_opts, samples, "5", NULL, 100000,
                 "timed samples per row, at least 3"),
    FLAG_SEED(run_opts, seed),
    FLAG_QUICK(run_opts, quick, "small default problems and short samples"),
    FLAG_EVENTS(run_opts, events, NULL,
                "read in one more sample per row on every thread; an event "
                "that cannot be counted here is reported unavailable"),
    FLAG_CEILINGS(run_opts, ceilings,
                  "the host roofline from an earlier `roofbench ceilings` "
                  "(its ceilings.json); without it, run measures the roofs it "
                  "needs first (peak at the widest vector width, read, "
                  "read2 and read4 bandwidth, copy, triad and schoenauer "
                  "when a kernel writes)"),
    FLAG_OUT(run_opts, out),
    FLAG_JSON(run_opts, json,
              "print the results document on stdout instead of the table"),
};

static const flag_table run_table = {
    "run",
    "usage: roofbench run [options]",
    "Verifies every selected kernel against its reference on random data, "
    "then\ntimes it: one warm-up discarded, calls per sample grown until a "
    "sample lasts\n--min-time, --samples samples between thread barriers. "
    "Writes results.json\n(context, rows, raw samples) and results.csv to a "
    "new run folder, then prints\none row per kernel, dtype and thread "
    "count. Rates come from the registry's\nanalytic counts and the minimum "
    "time. Each row is also placed on the host\nroofline: the memory level "
    "its working set falls in, the attainable bound\nmin(peak, intensity x "
    "that level's bandwidth), the fraction of it achieved,\nand which roof "
    "binds. The level's bandwidth is that of its access mix's roof\n(the "
    "registry says which: dot and matvec read, matmul and batched also "
    "write),\nthe best of the bandwidth kernels that serve it; a row above "
    "it by more than\nthe roof's own spread is flagged '!'. The roof levels "
    "are probed before the\nrows and again after them, each row's clock "
    "just before and after its\nsamples; rows timed while either moved "
    "beyond its noise are marked '~', and\nthe levels whose probes found "
    "their roofline figure off by more than\n20% (or the spreads) are "
    "named: a roofline measured in a slow spell.\nProgress goes to "
    "standard error while it measures.",
    run_flags,
    sizeof(run_flags) / sizeof(run_flags[0]),
    "Sizes take K, M, G suffixes (x1024). Exit status: 0 success, 1 a kernel "
    "failed\nverification (the rows before it are kept, marked failed), 2 "
    "bad input or an\nunusable environment, 130 or 143 after SIGINT or "
    "SIGTERM (the finished rows are\nkept, marked interrupted).",
    0};

/* Default problems: the memory-bound operations sized well past the last
 * cache (about 80 to 130 MB in f64), matmul at the classic n = 512, so
 * that the whole default run stays within about two minutes on two cores.
 * --quick shrinks them for smoke tests. */
static const rb_shape default_shape[RB_NOPS] = {
    {1, 10000000, 1}, {4000, 4000, 1}, {512, 512, 512}, {64, 512, 512}};
static const rb_shape quick_shape[RB_NOPS] = {
    {1, 1000000, 1}, {1000, 1000, 1}, {128, 128, 128}, {16, 128, 128}};

/* ---- the plan --------------------------------------------------------------
 */

static int plan_shapes(const run_opts *o, const flag_seen *seen,
                       harness_plan *plan, rb_err *e)
{
    const int n_given = flags_given(&run_table, seen, "n");
    if (n_given && o->shape)
        return rb_fail(e, RB_EINPUT, "--n and --shape both given: choose one");
    for (int op = 0; op < RB_NOPS; op++) {
        plan->shape[op] = o->quick ? quick_shape[op] : default_shape[op];
        snprintf(plan->shape_source[op], sizeof(plan->shape_source[op]),
                 "default %s shape", rb_op_name((rb_op)op));
    }
    if (!n_given && !o->shape)
        return RB_OK;
    rb_shape s = {o->n, o->n, o->n};
    if (o->shape && parse_shape("--shape", o->shape, &s, e))
        return RB_EINPUT;
    for (int op = 0; op < RB_NOPS; op++) {
        plan->shape[op] = s;
        if (op == RB_OP_DOT)
            plan->shape[op].n = plan->shape[op].m = 1;
        if (op == RB_OP_MATVEC)
            plan->shape[op].m = 1;
        snprintf(plan->shape_source[op], sizeof(plan->shape_source[op]),
                 "%s %s", o->shape ? "--shape" : "--n",
                 o->shape ? o->shape : flags_text(&run_table, seen, "n"));
    }
    return RB_OK;
}

static int plan_events(const rb_machine *m, const run_opts *o,
                       harness_plan *plan, counters_events *ev, rb_err *e)
{
    if (!o->events)
        return RB_OK;
    const int f64_first = plan->ndtypes > 0 && plan->dtypes[0] == RB_F64;
    const int rc = flags_events(m, o->events, f64_first, ev, e);
    if (!rc)
        plan->events = ev;
    return rc;
}

static int make_plan(const rb_machine *m, const run_opts *o,
                     const flag_seen *seen, harness_plan *plan,
                     counters_events *ev, rb_err *e)
{
    memset(plan, 0, sizeof(*plan));
    plan->samples = (int)o->samples;
    plan->seed = o->seed;
    plan->min_time = o->min_time;
    int rc = flags_kernels("--kernel", o->kernel, ~0u, "", 1, plan->kernels,
                           &plan->nkernels, HARNESS_MAX_KERNELS, e);
    if (!rc)
        rc = parse_dtypes("--dtype", o->dtype, plan->dtypes, &plan->ndtypes, e);
    if (!rc)
        rc = plan_shapes(o, seen, plan, e);
    if (!rc)
        rc = flags_threads(m, o->threads, plan->threads, HARNESS_MAX_THREADS,
                           &plan->nthreads, e);
    if (!rc)
        rc = harness_check_plan(plan, host_mem_available(), e);
    if (!rc)
        rc = plan_events(m, o, plan, ev, e);
    if (!rc)
        rc = flags_min_time(plan->min_time, e);
    return rc;
}

static json_t *settings_json(const harness_plan *plan, int argc, char **argv)
{
    json_t *dtypes = json_array(), *threads = json_array(),
           *kernels = json_array();
    for (int d = 0; d < plan->ndtypes; d++)
        json_array_append_new(dtypes,
                              json_string(rb_dtype_name(plan->dtypes[d])));
    for (int t = 0; t < plan->nthreads; t++)
        json_array_append_new(threads, json_integer(plan->threads[t]));
    for (size_t k = 0; k < plan->nkernels; k++)
        json_array_append_new(kernels, json_string(plan->kernels[k]->name));
    return json_pack("{s:o, s:o, s:o, s:o, s:f, s:i, s:I, s:s, s:s}", "command",
                     flags_command_json("run", argc, argv), "kernels", kernels,
                     "dtypes", dtypes, "threads", threads, "min_time_s",
                     plan->min_time, "samples", plan->samples, "seed",
                     (json_int_t)plan->seed, "time_unit", "seconds per call",
                     "rates",
                     "analytic FLOPs and compulsory bytes of the registry "
                     "divided by the minimum (best) or median time");
}

/* ---- the measurement and its document -------------------------------------
 */

typedef struct {
    harness_plan plan;
    harness_result res;
    session_roof roof;
    counters_events ev;
    drift_probes probes; /* the roof levels, before and after the rows */
} run_state;

static run_doc doc_of(const run_state *st, const session *s, const char *status,
                      const char *error)
{
    return (run_doc){.context = s->context,
                     .res = &st->res,
                     .roof = st->roof.ready ? &st->roof.roof : NULL,
                     .status = status,
                     .error = error,
                     .events = st->plan.events,
                     .probes = &st->probes};
}

static int write_run(session *s, void *ctx, const char *status,
                     const char *error, char *lost, size_t lostlen, rb_err *e)
{
    run_state *st = ctx;
    snprintf(lost, lostlen, "the %zu measured row%s", st->res.nrows,
             rb_plural((long long)st->res.nrows));
    const run_doc d = doc_of(st, s, status, error);
    char *json = report_run_json(&d, e);
    char *csv = json ? report_run_csv(&d, e) : NULL;
    int rc =
        csv ? session_put(s, "results.json", json, strlen(json), e) : RB_EINPUT;
    if (!rc)
        rc = session_put(s, "results.csv", csv, strlen(csv), e);
    free(csv);
    session_keep(s, json);
    return rc;
}

static void on_row(const harness_row *r, void *ctx)
{
    const run_state *st = ctx;
    progress_say("%3zu  %-16s %s %d thread%s: %.3f GFLOP/s, %.3f GB/s",
                 st->res.nrows, r->kernel->name, rb_dtype_name(r->dtype),
                 r->threads, rb_plural(r->threads), harness_row_gflops(r),
                 (double)r->counts.bytes / r->time.min / 1e9);
}

/* The table, once the documents are written. */
static void print_run(session *s, void *ctx, const char *status)
{
    const run_state *st = ctx;
    const run_doc d = doc_of(st, s, status, NULL);
    report_run_text(&d, session_dir(s), stdout);
}

/* One end of the drift probes. A probe that fails costs its verdict, not
 * the run: it is left unmeasured and the failure said. */
static void probe(const rb_machine *m, double avail, drift_probes *ps,
                  int which)
{
    rb_err pe = {""};
    if (ceilings_probe(m->topo, m->isa, avail, ps, which, &pe) != RB_OK)
        progress_say("drift probe at the %s failed, left unmeasured: %s",
                     which ? "end" : "start", pe.msg);
}

static int measure(const rb_machine *m, run_state *st, const run_opts *o,
                   const flag_seen *seen, rb_err *e)
{
    session s;
    int rc = session_open(&s, m, "run", o->out,
                          settings_json(&st->plan, seen->argc, seen->argv), e);
    if (rc)
        return 2;
    session_on_finish(&s, write_run, st, o->json);
    int interrupted = 0;
    unsigned mixes = 1u << RB_ACCESS_READ;
    for (size_t k = 0; k < st->plan.nkernels; k++)
        mixes |= 1u << st->plan.kernels[k]->access;
    rc = session_roofline(&s, &st->roof, st->plan.threads, st->plan.nthreads,
                          st->plan.dtypes, st->plan.ndtypes, mixes,
                          &interrupted, e);
    rb_err run_err = {""};
    int run_rc = RB_OK;
    const double avail = (double)host_mem_available();
    if (!rc && !interrupted) {
        drift_plan(&st->roof.roof, st->plan.threads, st->plan.nthreads, mixes,
                   &st->probes);
        progress_say("probing the %d roof level%s the rows may use, before "
                     "the rows and again after them (drift)",
                     st->probes.nprobes, rb_plural(st->probes.nprobes));
        probe(m, avail, &st->probes, 0);
    }
    if (!rc && !interrupted && !interrupt_requested())
        run_rc =
            harness_run(m->topo, &st->plan, &st->res, on_row, st, &run_err);
    if (!rc && !interrupted && !run_rc && !interrupt_requested())
        probe(m, avail, &st->probes, 1);
    rc = rc ? rb_exit_status(rc)
            : session_conclude(&s, run_rc, &run_err,
                               /* a signal during a drift probe, before
                                * or after the rows, stops the run too */
                               interrupted || st->res.interrupted ||
                                   interrupt_requested(),
                               print_run, st, e);
    session_close(&s);
    return rc;
}

static int run_main(const rb_machine *m, const void *opts,
                    const flag_seen *seen, rb_err *e)
{
    const run_opts *o = opts;
    /* one command a process; its state is too large for the stack */
    static run_state state;
    run_state *st = &state;
    int rc = make_plan(m, o, seen, &st->plan, &st->ev, e);
    if (!rc)
        rc = session_roof_load(m, o->ceilings, &st->roof, e);
    rc = rc ? 2 : measure(m, st, o, seen, e);
    harness_result_free(&st->res);
    session_roof_free(&st->roof);
    return rc;
}

const cmd_spec cmd_run = {&run_table, sizeof(run_opts), run_main, NULL};
