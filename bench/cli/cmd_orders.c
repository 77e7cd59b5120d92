/* roofbench orders: four orders (and blocked, and OpenBLAS), same FLOPs,
 * different traffic. Flags become an orders plan (measure/orders.h); the
 * forms are verified and timed by the harness, their traffic read from
 * the sources asked for, and the document rendered at the end. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "flags.h"
#include "host.h"
#include "interrupt.h"
#include "orders.h"
#include "parse.h"
#include "progress.h"
#include "report_orders.h"
#include "session.h"

typedef struct {
    const char *shape, *sweep, *dtype, *kernel, *threads, *traffic, *events,
        *cache, *ceilings, *out;
    uint64_t n, samples, seed;
    double min_time;
    int json;
} orders_opts;

#define OFF(f) offsetof(orders_opts, f)

static const flag_spec orders_flags[] = {
    {.name = "n",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(n),
     .def = "512",
     .cmin = 1,
     .cmax = 1u << 20,
     .help = "square problems N=P=M"},
    {.name = "shape",
     .meta = "N,P,M",
     .type = FLAG_TEXT,
     .off = OFF(shape),
     .help = "[N,P] x [P,M]"},
    {.name = "sweep",
     .meta = "A:B|default|LIST",
     .type = FLAG_TEXT,
     .off = OFF(sweep),
     .help = "sizes from A to B in steps of x1.5 and x4/3 (48, 64, 96, 128, "
             "192, ...: powers of two and three times powers of two), showing "
             "where each form falls out of cache and, with --traffic model,"
             "cachegrind, the model / simulation ratio at every size and a "
             "chart of both; 'default' is 48:768; or a rising list "
             "N1,N2,..."},
    FLAG_DTYPE(orders_opts, dtype, "f64,f32"),
    {.name = "kernel",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(kernel),
     .def = "matmul_naive,matmul_column,matmul_row,matmul_outer,"
            "matmul_blocked,matmul_openblas",
     .help = "matmul kernels, in the order to show"},
    {.name = "threads",
     .meta = "N",
     .type = FLAG_TEXT,
     .off = OFF(threads),
     .def = "1",
     .help = "threads of the timed runs (traffic is per call on one "
             "thread)"},
    {.name = "traffic",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(traffic),
     .def = "model,counters",
     .help = "model, counters, cachegrind or all"},
    FLAG_EVENTS(orders_opts, events, "'default'",
                "read by the counters source; an event that cannot be "
                "counted here is reported unavailable"),
    {.name = "cache",
     .meta = "GEOM",
     .type = FLAG_TEXT,
     .off = OFF(cache),
     .def_doc = "L1d and L2 as hwloc reports them",
     .help = "L1=SIZE:WAYS:LINE,LL=SIZE:WAYS:LINE for the model and "
             "cachegrind"},
    FLAG_MIN_TIME(orders_opts, min_time, "0.01", NULL, 1e-4,
                  "seconds one sample must last"),
    FLAG_SAMPLES(orders_opts, samples, "3", NULL, 1000,
                 "timed samples per form"),
    FLAG_SEED(orders_opts, seed),
    FLAG_CEILINGS(orders_opts, ceilings,
                  "the host roofline for the chart (else a quick one is "
                  "measured first, as run does)"),
    FLAG_OUT(orders_opts, out),
    FLAG_JSON(orders_opts, json,
              "print orders.json on stdout instead of the tables"),
};

static const flag_table orders_table = {
    "orders",
    "usage: roofbench orders [options]",
    "The same product C = A B in dot-product, column, row and outer-product "
    "order,\nblocked, and by OpenBLAS: identical FLOPs (asserted), very "
    "different memory\ntraffic. Each form is verified and timed, then its "
    "traffic is taken from each\nsource asked for:\n\n"
    "  model       the analytic model (kernels/README.md, \"Traffic "
    "model\"): lines\n"
    "              filled into L1 and into the last level of the geometry "
    "below\n"
    "  counters    PAPI hardware counters, read in one more sample after the "
    "timed\n"
    "              ones on every thread (L1, L2 and L3 data misses x the "
    "line\n"
    "              size); unavailable where the machine has no PMU\n"
    "  cachegrind  valgrind's cache simulator, deterministic, on one call in "
    "a child\n"
    "              process whose code paths are capped at AVX2 (valgrind "
    "3.19\n"
    "              cannot decode AVX-512); D1 and LL misses x line\n\n"
    "Prints per form: time, GFLOP/s, and per source the bytes at L1 and at "
    "the last\nlevel, the effective intensity (FLOPs / last-level bytes) and "
    "the ratio to\nthe form that moves least; then a sentence saying which "
    "form that is and by\nhow much. Writes orders.json, orders.csv and a "
    "chart per dtype and size\n(orders-<dtype>-<n>.png and .svg) to a new run "
    "folder. A sweep with model and\ncachegrind also prints model / "
    "cachegrind per form, level and size, and\ncharts both against n "
    "(traffic-<dtype>.png and .svg).",
    orders_flags,
    sizeof(orders_flags) / sizeof(orders_flags[0]),
    "Exit status: 0 success, 1 a kernel failed verification, the FLOP counts "
    "differ\nor the chart failed, 2 bad input or an unusable environment, "
    "130 or 143 after\nSIGINT or SIGTERM (the finished forms are kept, "
    "marked interrupted).",
    0};

/* ---- the plan --------------------------------------------------------------
 */

static int plan_sources(const orders_opts *o, const flag_seen *seen,
                        orders_plan *p, rb_err *e)
{
    char buf[256], *items[8];
    const int k =
        parse_list("--traffic", o->traffic, buf, sizeof(buf), items, 8, e);
    if (k < 0)
        return RB_EINPUT;
    p->sources = 0;
    for (int i = 0; i < k; i++) {
        unsigned src = 0;
        if (strcmp(items[i], "model") == 0)
            src = ORDERS_MODEL;
        else if (strcmp(items[i], "counters") == 0)
            src = ORDERS_COUNTERS;
        else if (strcmp(items[i], "cachegrind") == 0)
            src = ORDERS_CACHEGRIND;
        else if (strcmp(items[i], "all") == 0)
            src = ORDERS_MODEL | ORDERS_COUNTERS | ORDERS_CACHEGRIND;
        else
            return rb_fail(e, RB_EINPUT,
                           "--traffic '%s': unknown source (model, counters, "
                           "cachegrind, all)",
                           items[i]);
        /* "model,all" names model twice, as "model,model" does */
        if (p->sources & src)
            return rb_fail(e, RB_EINPUT,
                           "--traffic '%s': a source is given twice (all "
                           "is model, counters and cachegrind)",
                           o->traffic);
        p->sources |= src;
    }
    if (o->events && !flags_given(&orders_table, seen, "traffic"))
        p->sources |= ORDERS_COUNTERS;
    if (o->events && !(p->sources & ORDERS_COUNTERS))
        return rb_fail(e, RB_EINPUT,
                       "--events: only with --traffic counters (or all)");
    return RB_OK;
}

/* The sizes, and what to call them in an error line. */
static int plan_sizes(const orders_opts *o, const flag_seen *seen,
                      orders_plan *p, char *source, size_t len, rb_err *e)
{
    const int n_given = flags_given(&orders_table, seen, "n");
    if (n_given + (o->shape != NULL) + (o->sweep != NULL) > 1)
        return rb_fail(e, RB_EINPUT,
                       "orders: choose one of --n, --shape and --sweep");
    if (o->shape) {
        snprintf(source, len, "--shape %s", o->shape);
        p->nsizes = 1;
        return parse_shape("--shape", o->shape, &p->sizes[0], e);
    }
    if (!o->sweep) {
        snprintf(source, len, "--n %s", flags_text(&orders_table, seen, "n"));
        p->sizes[0] = (rb_shape){o->n, o->n, o->n};
        p->nsizes = 1;
        return RB_OK;
    }
    p->sweep = 1;
    snprintf(source, len, "--sweep %s", o->sweep);
    /* default: the grid 48, 64, 96, ..., 768 */
    const char *const sweep =
        strcmp(o->sweep, "default") == 0 ? "48:768" : o->sweep;
    if (strchr(sweep, ',') || !strchr(sweep, ':')) {
        /* sizes as listed, rising (one size is a list of one) */
        char buf[512], *items[ORDERS_MAX_SIZES];
        const int n = parse_list("--sweep", sweep, buf, sizeof(buf), items,
                                 ORDERS_MAX_SIZES, e);
        if (n < 0)
            return RB_EINPUT;
        for (int i = 0; i < n; i++) {
            uint64_t v;
            if (parse_count("--sweep size", items[i], 8, 8192, &v, e))
                return RB_EINPUT;
            if (i > 0 && v <= p->sizes[i - 1].n)
                return rb_fail(e, RB_EINPUT,
                               "--sweep '%s': %s does not rise from %zu "
                               "(list the sizes smallest first, each once)",
                               sweep, items[i], p->sizes[i - 1].n);
            p->sizes[p->nsizes++] = (rb_shape){v, v, v};
        }
        return RB_OK;
    }
    uint64_t lo, hi;
    if (parse_range("--sweep", sweep, 8, 8192, &lo, &hi, e))
        return RB_EINPUT;
    /* powers of two and the sizes halfway between (x1.5) */
    for (uint64_t p2 = 8; p2 <= hi && p->nsizes < ORDERS_MAX_SIZES - 1;
         p2 *= 2) {
        const uint64_t cand[2] = {p2, p2 * 3 / 2};
        for (int q = 0; q < 2; q++)
            if (cand[q] >= lo && cand[q] <= hi && p->nsizes < ORDERS_MAX_SIZES)
                p->sizes[p->nsizes++] = (rb_shape){cand[q], cand[q], cand[q]};
    }
    if (p->nsizes == 0)
        return rb_fail(e, RB_EINPUT,
                       "--sweep '%s': no size between the ends (sizes are 8, "
                       "12, 16, 24, ...)",
                       sweep);
    return RB_OK;
}

static int plan_timing(const rb_machine *m, const orders_opts *o,
                       orders_plan *p, rb_err *e)
{
    harness_plan *t = &p->timing;
    memset(t, 0, sizeof(*t));
    int rc = flags_kernels("--kernel", o->kernel, 1u << RB_OP_MATMUL,
                           "orders compares the matmul forms (matmul_naive, "
                           "_column, _row, _outer, _blocked, _openblas)",
                           0, t->kernels, &t->nkernels, ORDERS_MAX_FORMS, e);
    if (!rc)
        rc = parse_dtypes("--dtype", o->dtype, p->dtypes, &p->ndtypes, e);
    if (!rc)
        rc = parse_threads("--threads", o->threads, m->ncores, t->threads,
                           HARNESS_MAX_THREADS, &t->nthreads, e);
    if (!rc && t->nthreads != 1)
        rc = rb_fail(e, RB_EINPUT,
                     "--threads %s: orders takes one thread count (one table "
                     "per size and dtype)",
                     o->threads);
    t->min_time = o->min_time;
    t->samples = (int)o->samples;
    t->seed = o->seed;
    return rc;
}

/* The cache geometry, valgrind and the counters: all checked before
 * anything runs. */
static int plan_traffic(const rb_machine *m, const orders_opts *o,
                        orders_plan *p, rb_err *e)
{
    int rc = sim_geometry_default(m->topo, &p->geom, e);
    if (o->cache) {
        if (rc) /* hwloc's caches are not needed when both are given */
            memset(&p->geom, 0, sizeof(p->geom));
        rc = sim_geometry_parse(o->cache, &p->geom, e);
        if (!rc && (p->geom.l1.size <= 0 || p->geom.ll.size <= 0))
            rc = rb_fail(e, RB_EINPUT,
                         "--cache '%s': give both L1 and LL (hwloc reports "
                         "no caches here)",
                         o->cache);
    }
    if (!rc && (p->sources & ORDERS_CACHEGRIND)) {
        rc = sim_find_valgrind(p->valgrind, sizeof(p->valgrind), e);
        const ssize_t len =
            readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
        if (!rc && len <= 0)
            rc = rb_fail(e, RB_EINPUT, "cannot find this executable");
        else if (len > 0)
            p->exe[len] = '\0';
    }
    if (!rc && (p->sources & ORDERS_COUNTERS)) {
        p->timing.events = &p->ev;
        counters_probe(&p->cst);
        rc = flags_events(m, o->events ? o->events : "default",
                          p->dtypes[0] == RB_F64, &p->ev, e);
    }
    return rc;
}

/* Every size fits, with all dtypes: its counts, memory and OpenBLAS's
 * index limit, named as the user gave it. */
static int check_sizes(const orders_plan *p, const char *source, rb_err *e)
{
    for (int i = 0; i < p->nsizes; i++) {
        harness_plan h;
        orders_size_plan(p, p->dtypes[0], p->sizes[i], &h);
        h.ndtypes = p->ndtypes;
        for (int d = 0; d < p->ndtypes; d++)
            h.dtypes[d] = p->dtypes[d];
        for (int op = 0; op < RB_NOPS; op++)
            snprintf(h.shape_source[op], sizeof(h.shape_source[op]), "%.100s%s",
                     source, p->sweep ? " (one of its sizes)" : "");
        const int rc = harness_check_plan(&h, host_mem_available(), e);
        if (rc)
            return rc;
    }
    return RB_OK;
}

static int make_plan(const rb_machine *m, const orders_opts *o,
                     const flag_seen *seen, orders_plan *p, rb_err *e)
{
    char source[128];
    int rc = plan_sources(o, seen, p, e);
    if (!rc)
        rc = plan_sizes(o, seen, p, source, sizeof(source), e);
    if (!rc)
        rc = plan_timing(m, o, p, e);
    if (!rc)
        rc = plan_traffic(m, o, p, e);
    if (!rc)
        rc = check_sizes(p, source, e);
    return rc;
}

/* ---- the measurement and its documents ------------------------------------
 */

typedef struct {
    orders_plan plan;
    orders_result res;
    session_roof roof;
    char chart[512]; /* why there is no chart, or ""         */
    int chart_failed;
} orders_state;

static orders_doc doc_of(const orders_state *st, const session *s,
                         const char *status, const char *error)
{
    return (orders_doc){.context = s->context,
                        .plan = &st->plan,
                        .res = &st->res,
                        .roof = st->roof.ready ? &st->roof.roof : NULL,
                        .status = status,
                        .error = error};
}

static int write_orders(session *s, void *ctx, const char *status,
                        const char *error, char *lost, size_t lostlen,
                        rb_err *e)
{
    orders_state *st = ctx;
    snprintf(lost, lostlen, "%d size%s measured", st->res.nsizes,
             rb_plural(st->res.nsizes));
    const orders_doc d = doc_of(st, s, status, error);
    char *json = NULL;
    const int rc = report_orders_write(&s->folder, &d, &json, st->chart,
                                       sizeof(st->chart), &st->chart_failed, e);
    session_keep(s, json);
    return rc;
}

/* The tables, once the documents are written. */
static void print_orders(session *s, void *ctx, const char *status)
{
    const orders_state *st = ctx;
    if (strcmp(status, "complete") != 0)
        return;
    const orders_doc d = doc_of(st, s, status, NULL);
    report_orders_text(&d, session_dir(s), stdout);
    if (st->chart[0] && st->chart_failed)
        printf("chart: %s\n", st->chart);
    else if (st->chart[0])
        printf("chart skipped: %s\n", st->chart);
    else if (st->plan.nsizes == 1)
        for (int k = 0; k < st->plan.ndtypes; k++)
            printf("chart: %s/orders-%s-%zu.png and .svg\n", session_dir(s),
                   rb_dtype_name(st->plan.dtypes[k]), st->plan.sizes[0].n);
    else {
        printf("charts: %s/orders-<dtype>-<n>.png and .svg\n", session_dir(s));
        if ((st->plan.sources & ORDERS_MODEL) &&
            (st->plan.sources & ORDERS_CACHEGRIND))
            printf("model against cachegrind over n: "
                   "%s/traffic-<dtype>.png and .svg\n",
                   session_dir(s));
    }
    printf("Written: %s/orders.json, orders.csv\n", session_dir(s));
}

static int measure(const rb_machine *m, orders_state *st, const orders_opts *o,
                   rb_err *e)
{
    session s;
    if (session_open(&s, m, "orders", o->out, NULL, e))
        return 2;
    session_on_finish(&s, write_orders, st, o->json);
    snprintf(st->plan.workdir, sizeof(st->plan.workdir), "%s", s.folder.tmp);
    int interrupted = 0;
    int rc =
        session_roofline(&s, &st->roof, st->plan.timing.threads, 1,
                         st->plan.dtypes, st->plan.ndtypes,
                         1u << RB_ACCESS_READ | 1u << RB_ACCESS_MIXED,
                         &interrupted, e);
    rb_err merr = {""};
    const int mrc = rc || interrupted
                        ? RB_OK
                        : orders_measure(m->topo, &st->plan, &st->res, &merr);
    rc = rc ? rb_exit_status(rc)
            : session_conclude(&s, mrc, &merr,
                               interrupted || st->res.interrupted, print_orders,
                               st, e);
    if (rc == 0 && st->chart_failed)
        rc = rb_exit_status(rb_fail(e, RB_EMEASURE, "chart: %s", st->chart));
    session_close(&s);
    return rc;
}

static int orders_main(const rb_machine *m, const void *opts,
                       const flag_seen *seen, rb_err *e)
{
    const orders_opts *o = opts;
    /* one command a process; its state is too large for the stack */
    static orders_state state;
    orders_state *st = &state;
    int rc = make_plan(m, o, seen, &st->plan, e);
    if (!rc)
        rc = session_roof_load(m, o->ceilings, &st->roof, e);
    rc = rc ? 2 : measure(m, st, o, e);
    session_roof_free(&st->roof);
    return rc;
}

const cmd_spec cmd_orders = {&orders_table, sizeof(orders_opts), orders_main, NULL};
