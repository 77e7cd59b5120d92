/* roofbench ceilings: measure this machine's roofs and write the host
 * profile (ceilings.json), the bandwidth curves as CSV, and a chart. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cmd.h"
#include "flags.h"
#include "host.h"
#include "interrupt.h"
#include "parse.h"
#include "progress.h"
#include "report_ceilings.h"
#include "session.h"

typedef struct {
    const char *threads, *dtype, *width, *kernel, *size, *out;
    uint64_t bw_width, sample_bytes, gemm_n, samples;
    double factor, min_time;
    int quick, json;
} ceil_opts;

#define OFF(f) offsetof(ceil_opts, f)

static const flag_spec ceil_flags[] = {
    FLAG_THREADS(ceil_opts, threads, "thread counts, one per core, pinned"),
    FLAG_DTYPE(ceil_opts, dtype, "f32,f64"),
    {.name = "width",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(width),
     .def_doc = "every width this CPU has",
     .help = "peak vector widths in bits: 64 (scalar), 128, 256, 512, or "
             "none"},
    {.name = "kernel",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(kernel),
     .def = "read,read2,read4,write,copy,triad,schoenauer",
     .help = "bandwidth kernels: read (one array), read2, read4 (two or "
             "four at once), write, copy, triad (STREAM's a = b + s*c), "
             "schoenauer (a = b + c*d, likwid's triad), or none"},
    {.name = "bw-width",
     .meta = "BITS",
     .type = FLAG_COUNT,
     .off = OFF(bw_width),
     .def_doc = "the widest this CPU has",
     .cmin = 1,
     .cmax = 4096,
     .help = "vector width of the bandwidth kernels: 128, 256, 512"},
    {.name = "size",
     .meta = "START:END",
     .type = FLAG_TEXT,
     .off = OFF(size),
     .def_doc = "4K to the larger of 1G and 8x the last cache (in a virtual "
                "machine at most 64M a core of it), at most a third of the "
                "free memory",
     .help = "working sets to sweep, all threads together (suffixes K, M, "
             "G)"},
    {.name = "factor",
     .meta = "F",
     .type = FLAG_REAL,
     .off = OFF(factor),
     .def = "1.25",
     .def_quick = "1.5",
     .rmin = 1.01,
     .rmax = 16.0,
     .help = "geometric step of the sweep"},
    {.name = "sample-bytes",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(sample_bytes),
     .def = "1G",
     .def_quick = "256M",
     .cmin = 4096,
     .cmax = 1ull << 40,
     .help = "traffic of one bandwidth sample, about; more gives longer "
             "samples"},
    {.name = "gemm-n",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(gemm_n),
     .def = "4000",
     .def_quick = "2000",
     .cmax = 65536,
     .help = "size of the OpenBLAS GEMM roof, 0 to skip"},
    FLAG_MIN_TIME(ceil_opts, min_time, "0.05", "0.02", 1e-3,
                  "seconds per clock, peak and GEMM sample"),
    FLAG_SAMPLES(ceil_opts, samples, "5", "3", 64,
                 "samples per figure, at least 3"),
    FLAG_QUICK(ceil_opts, quick,
               "fewer points and samples: under a minute on two cores"),
    FLAG_OUT(ceil_opts, out),
    FLAG_JSON(ceil_opts, json,
              "print ceilings.json on stdout instead of the summary"),
};

static const flag_table ceil_table = {
    "ceilings",
    "usage: roofbench ceilings [options]",
    "Measures the host's own roofs on pinned threads: the core clock (a "
    "chain of\ndependent adds), peak FLOP/s per dtype and vector width "
    "(independent FMA\nchains; AVX-512 only where CPUID shows it), bandwidth "
    "of read (one, two and\nfour arrays), write, copy, triad and Schoenauer "
    "triad against working-set size\nwith the L1, L2, L3 and DRAM plateaus "
    "found in each curve, and OpenBLAS GEMM (a\nharness row, verified) as "
    "the practical compute roof. Each level's roof is the\nbest of the "
    "kernels that serve an access mix: for reads the best of read,\nread2 "
    "and read4; for kernels that also write, those and copy, triad and\n"
    "schoenauer.\n"
    "Every kernel's result is checked against a closed form. Writes\n"
    "ceilings.json (the host profile that `run --ceilings` reads), "
    "bandwidth.csv,\nlevels.csv and bandwidth.png/.svg (with gnuplot) to a "
    "new run folder, then\nprints the summary; progress goes to standard "
    "error.",
    ceil_flags,
    sizeof(ceil_flags) / sizeof(ceil_flags[0]),
    "Exit status: 0 success, 1 a measurement failed its check (or the chart "
    "failed;\nthe documents are kept), 2 bad input, 130 or 143 after SIGINT "
    "or SIGTERM (the\nfinished parts are kept, marked interrupted).",
    0};

/* ---- the plan --------------------------------------------------------------
 */

static int plan_widths(const char *list, ceilings_plan *plan, rb_err *e)
{
    char buf[256], *items[CEIL_MAX_WIDTHS];
    const int n = parse_list("--width", list, buf, sizeof(buf), items,
                             CEIL_MAX_WIDTHS, e);
    if (n < 0)
        return RB_EINPUT;
    plan->nwidths = 0;
    if (n == 1 && strcmp(items[0], "none") == 0)
        return RB_OK;
    static const char *const names[] = {"64", "128", "256", "512"};
    static const unsigned bits[] = {64, 128, 256, 512};
    for (int i = 0; i < n; i++) {
        const char *w = strcmp(items[i], "scalar") == 0 ? "64" : items[i];
        int k = 0;
        while (k < 4 && strcmp(w, names[k]) != 0)
            k++;
        if (k == 4)
            return rb_fail(e, RB_EINPUT,
                           "--width '%s': unknown vector width (64 or scalar, "
                           "128, 256, 512)",
                           items[i]);
        for (int j = 0; j < plan->nwidths; j++)
            if (plan->widths[j] == bits[k])
                return rb_fail(e, RB_EINPUT, "--width: '%s' given twice",
                               items[i]);
        plan->widths[plan->nwidths++] = bits[k];
    }
    return RB_OK;
}

static int plan_kernels(const char *list, ceilings_plan *plan, rb_err *e)
{
    char buf[256], *items[BW_NKERNELS + 1];
    const int n = parse_list("--kernel", list, buf, sizeof(buf), items,
                             BW_NKERNELS + 1, e);
    if (n < 0)
        return RB_EINPUT;
    memset(plan->bw_kernels, 0, sizeof(plan->bw_kernels));
    if (n == 1 && strcmp(items[0], "none") == 0)
        return RB_OK;
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < BW_NKERNELS; k++)
            if (strcmp(items[i], bw_kernel_name((bw_kernel)k)) == 0)
                found = plan->bw_kernels[k] = 1;
        if (!found)
            return rb_fail(e, RB_EINPUT,
                           "--kernel '%s': unknown bandwidth kernel (read, "
                           "read2, read4, write, copy, triad, schoenauer)",
                           items[i]);
    }
    return RB_OK;
}

static int plan_values(const ceil_opts *o, ceilings_plan *plan, rb_err *e)
{
    if (o->bw_width) {
        if (o->bw_width != 128 && o->bw_width != 256 && o->bw_width != 512)
            return rb_fail(e, RB_EINPUT,
                           "--bw-width %llu: unknown vector width (128, 256, "
                           "512)",
                           (unsigned long long)o->bw_width);
        plan->bw_width = (unsigned)o->bw_width;
    }
    if (o->size) {
        uint64_t a, b;
        if (parse_range("--size", o->size, 1024, UINT64_MAX / 4, &a, &b, e))
            return RB_EINPUT;
        plan->size_min = (double)a;
        plan->size_max = (double)b;
    }
    plan->factor = o->factor;
    plan->bw_target_bytes = (double)o->sample_bytes;
    plan->gemm_n = (size_t)o->gemm_n;
    plan->min_time = o->min_time;
    plan->samples = (int)o->samples;
    return RB_OK;
}

static int make_plan(const rb_machine *m, const ceil_opts *o,
                     ceilings_plan *plan, rb_err *e)
{
    const double mem = (double)host_mem_available();
    /* the default sweep ends at 8x the last cache: what it may be believed
     * to hold, not a guest's CPUID claim of hundreds of MiB a core, which
     * would stretch the sweep to GiBs for no plateau */
    host_cache llc;
    host_last_cache(m->topo, m->cpu.hypervisor, &llc);
    ceilings_plan_defaults(plan, o->quick, m->ncores, m->isa,
                           llc.believed_bytes, mem);
    const int most =
        m->ncores < CEIL_MAX_THREADS ? m->ncores : CEIL_MAX_THREADS;
    int rc = o->threads
                 ? parse_threads("--threads", o->threads, most, plan->threads,
                                 CEIL_MAX_THREADS, &plan->nthreads, e)
                 : RB_OK;
    if (!rc)
        rc = parse_dtypes("--dtype", o->dtype, plan->dtypes, &plan->ndtypes, e);
    if (!rc && o->width)
        rc = plan_widths(o->width, plan, e);
    if (!rc)
        rc = plan_kernels(o->kernel, plan, e);
    if (!rc)
        rc = plan_values(o, plan, e);
    if (!rc)
        rc = ceilings_check_plan(plan, m->isa, mem, e);
    return rc;
}

/* ---- the measurement and its documents ------------------------------------
 */

typedef struct {
    ceilings_result res;
    char chart[512]; /* why there is no chart, or ""         */
    int chart_failed;
} ceil_state;

static int write_ceilings(session *s, void *ctx, const char *status,
                          const char *error, char *lost, size_t lostlen,
                          rb_err *e)
{
    (void)error;
    ceil_state *st = ctx;
    snprintf(lost, lostlen, "%d peak%s and %d bandwidth curve%s",
             st->res.npeaks, rb_plural(st->res.npeaks), st->res.ncurves,
             rb_plural(st->res.ncurves));
    char *json = NULL;
    const int rc = report_ceilings_write(
        &s->folder, &st->res, s->context, status, &json, st->chart,
        sizeof(st->chart), &st->chart_failed, e);
    session_keep(s, json);
    return rc;
}

/* The summary, once the documents are written. */
static void print_ceilings(session *s, void *ctx, const char *status)
{
    const ceil_state *st = ctx;
    if (strcmp(status, "complete") != 0)
        return;
    printf("roofbench ceilings on %s: results in %s\n",
           json_string_value(json_object_get(s->context, "host")),
           session_dir(s));
    report_ceilings_text(&st->res, stdout);
    printf("\nWritten: %s/ceilings.json, bandwidth.csv, levels.csv%s\n",
           session_dir(s),
           st->chart[0] ? "" : ", bandwidth.png, bandwidth.svg");
    if (st->chart[0] && !st->chart_failed)
        printf("chart skipped: %s\n", st->chart);
}

static int measure(const rb_machine *m, ceil_state *st, const ceil_opts *o,
                   const ceilings_plan *plan, rb_err *e)
{
    session s;
    if (session_open(&s, m, "ceilings", o->out, NULL, e))
        return 2;
    session_on_finish(&s, write_ceilings, st, o->json);
    rb_err merr = {""};
    const int mrc = ceilings_measure(m->topo, plan, &m->cpu, &st->res, &merr);
    int rc = session_conclude(&s, mrc, &merr, st->res.interrupted,
                              print_ceilings, st, e);
    if (rc == 0 && st->chart_failed)
        rc = rb_exit_status(rb_fail(e, RB_EMEASURE, "chart: %s", st->chart));
    session_close(&s);
    return rc;
}

static int ceilings_main(const rb_machine *m, const void *opts,
                         const flag_seen *seen, rb_err *e)
{
    (void)seen;
    const ceil_opts *o = opts;
    /* one command a process; its state is too large for the stack */
    static ceil_state state;
    ceil_state *st = &state;
    ceilings_plan plan;
    const int rc = make_plan(m, o, &plan, e) ? 2 : measure(m, st, o, &plan, e);
    ceilings_result_free(&st->res);
    return rc;
}

const cmd_spec cmd_ceilings = {&ceil_table, sizeof(ceil_opts), ceilings_main, NULL};
