/* roofbench compare BASELINE CURRENT: the regression gate's statistics.
 * Reads two results documents, refuses runs from different hosts unless
 * told, tests every matched row's samples and exits 0 (nothing
 * regressed), 3 (something did) or 2 (bad input). Writes nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "flags.h"
#include "parse.h"
#include "report_compare.h"
#include "text.h"

typedef struct {
    double alpha, noise_z, noise_cap;
    const char *threshold, *by;
    int json, markdown, allow_host, allow_missing, holm;
} compare_opts;

static const flag_spec compare_flags[] = {
    {.name = "alpha", .meta = "A", .type = FLAG_REAL,
     .off = offsetof(compare_opts, alpha), .def = "0.05", .rmin = 1e-6,
     .rmax = 0.5,
     .help = "significance level of the Mann-Whitney U test (two-sided); "
             "the interval is 1 - A"},
    {.name = "threshold", .meta = "T", .type = FLAG_TEXT,
     .off = offsetof(compare_opts, threshold), .def = "5%",
     .help = "the smallest change that counts, as 5% or 0.05: slower needs "
             "a ratio of medians above 1 + T"},
    {.name = "noise-z", .meta = "Z", .type = FLAG_REAL,
     .off = offsetof(compare_opts, noise_z), .def = "3", .rmin = 0.0,
     .rmax = 50.0,
     .help = "the run-to-run noise floor: slower also needs a ratio above "
             "exp(Z s), s the robust spread (1.4826 MAD) of all matched "
             "rows' log ratios; 0 turns it off"},
    {.name = "noise-cap", .meta = "R", .type = FLAG_REAL,
     .off = offsetof(compare_opts, noise_cap), .def = "1.5", .rmin = 1.0,
     .rmax = 1000.0,
     .help = "the noise floor never exceeds the ratio R: a change beyond it "
             "is called slower even when many rows moved"},
    {.name = "by", .meta = "WHAT", .type = FLAG_TEXT,
     .off = offsetof(compare_opts, by), .def = "time",
     .help = "what gates: time, or efficiency (time against each run's own "
             "measured roof, so that a uniformly slower machine is no "
             "regression)"},
    {.name = "holm", .type = FLAG_SWITCH, .off = offsetof(compare_opts, holm),
     .help = "Holm's correction over the matched rows: at most alpha for "
             "any false verdict among them, not per row (p shown adjusted; "
             "a row must be able to reach alpha / rows: 7 samples or runs a "
             "side for 56 rows)"},
    {.name = "allow-host-mismatch", .type = FLAG_SWITCH,
     .off = offsetof(compare_opts, allow_host),
     .help = "compare runs from hosts that differ in CPU, cores, ISA path "
             "or OpenBLAS core"},
    {.name = "allow-missing", .type = FLAG_SWITCH,
     .off = offsetof(compare_opts, allow_missing),
     .help = "a baseline row missing from current does not fail the gate"},
    FLAG_JSON(compare_opts, json,
              "print the comparison as JSON (schema roofbench.compare)"),
    {.name = "markdown", .type = FLAG_SWITCH,
     .off = offsetof(compare_opts, markdown),
     .help = "print the comparison as Markdown, for a CI comment"},
};

static const flag_table compare_table = {
    "compare",
    "usage: roofbench compare [options] BASELINE CURRENT",
    "Compares two results (a run's or a sweep's folder, or the results.json or\n"
    "sweep.json in it). Rows are matched by kernel, form, dtype, shape and threads;\n"
    "rows on one side only are listed. For each matched row the raw samples go\n"
    "through the Mann-Whitney U test on log time, and the Hodges-Lehmann shift\n"
    "gives the ratio's confidence interval. A row is slower when p < alpha, the\n"
    "interval lies above 1, and the ratio of medians exceeds both 1 + threshold\n"
    "and the run-to-run noise floor (at most --noise-cap): the samples of one\n"
    "run cannot see the drift between two runs, the spread of all matched rows'\n"
    "ratios can. Without a roof on a side, a row is gated on time. A row is\n"
    "unreliable when its sample counts cannot reach p < alpha at all. The same\n"
    "test runs on time against each run's own roofline bound (efficiency), shown\n"
    "beside it. Runs from different hosts are refused unless allowed. Writes\n"
    "nothing.",
    compare_flags,
    sizeof(compare_flags) / sizeof(compare_flags[0]),
    "Exit status: 0 nothing regressed, 3 a row is slower (or a baseline "
    "row is\nmissing from current), 2 bad input.",
    1};

/* The test's settings from the flags: --threshold, --by, one output. */
static int settings_of(const compare_opts *o, cmp_settings *set, rb_err *e)
{
    *set = (cmp_settings){.alpha = o->alpha,
                          .noise_z = o->noise_z,
                          .noise_cap = o->noise_cap,
                          .holm = o->holm};
    if (parse_fraction("--threshold", o->threshold, 0.99, &set->threshold, e))
        return RB_EINPUT;
    if (strcmp(o->by, "time") == 0)
        set->by_efficiency = 0;
    else if (strcmp(o->by, "efficiency") == 0)
        set->by_efficiency = 1;
    else {
        char shown[64];
        text_escape(o->by, shown, sizeof(shown));
        return rb_fail(e, RB_EINPUT, "--by '%s': time or efficiency", shown);
    }
    if (o->json && o->markdown)
        return rb_fail(e, RB_EINPUT, "--json and --markdown: choose one");
    return RB_OK;
}

/* Whether the two documents may be compared: one schema, one host (unless
 * allowed; the difference, if any, into diff either way). */
static int comparable(const cmp_doc *base, const cmp_doc *cur, int allow_host,
                      char *diff, size_t dlen, rb_err *e)
{
    if (strcmp(base->schema, cur->schema) != 0)
        return rb_fail(e, RB_EINPUT,
                       "%s is a %s document, %s a %s one: compare a run with "
                       "a run, a sweep with a sweep",
                       base->shown, base->schema, cur->shown, cur->schema);
    cmp_host_diff(base, cur, diff, dlen);
    if (diff[0] && !allow_host)
        return rb_fail(e, RB_EINPUT,
                       "the runs come from different hosts: %s "
                       "(--allow-host-mismatch compares them anyway)",
                       diff);
    return RB_OK;
}

/* The comparison in the output asked for; the exit status it calls for
 * (2 where the JSON could not be written). */
static int print_comparison(const compare_opts *o, compare_view *v,
                            rb_err *e)
{
    v->status = report_compare_status(v->res, o->allow_missing);
    if (o->json) {
        char *s = report_compare_json(v, e);
        if (!s)
            return 2;
        puts(s);
        free(s);
    } else if (o->markdown) {
        report_compare_markdown(v, stdout);
    } else {
        report_compare_text(v, stdout);
    }
    return v->status;
}

static int compare_main(const rb_machine *m, const void *opts,
                        const flag_seen *seen, rb_err *e)
{
    (void)m;
    const compare_opts *o = opts;
    if (seen->npos != 2)
        return rb_exit_status(rb_fail(
            e, RB_EINPUT,
            "compare: give two results, BASELINE and CURRENT (%d given)",
            seen->npos));
    cmp_settings set;
    if (settings_of(o, &set, e))
        return 2;
    cmp_doc base, cur;
    if (cmp_load(seen->pos[0], &base, e))
        return 2;
    if (cmp_load(seen->pos[1], &cur, e)) {
        cmp_free(&base);
        return 2;
    }
    char diff[1024] = "";
    cmp_result res;
    memset(&res, 0, sizeof(res));
    int rc = comparable(&base, &cur, o->allow_host, diff, sizeof(diff), e);
    if (!rc)
        rc = cmp_compare(&base, &cur, &set, &res, e);
    if (!rc && res.npairs == 0)
        rc = rb_fail(e, RB_EINPUT,
                     "%s and %s have no rows in common (kernel, form, dtype, "
                     "shape and threads): nothing to compare",
                     base.shown, cur.shown);
    int status = rb_exit_status(rc);
    if (!rc) {
        compare_view v = {&base, &cur, &set, &res, diff, o->allow_missing, 0};
        status = print_comparison(o, &v, e);
    }
    cmp_result_free(&res);
    cmp_free(&base);
    cmp_free(&cur);
    return status;
}

const cmd_spec cmd_compare = {&compare_table, sizeof(compare_opts),
                              compare_main, NULL};
