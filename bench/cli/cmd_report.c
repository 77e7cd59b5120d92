/* roofbench report RUN: an old main job's report and charts again, in a
 * new folder, from that job's own files: steps.json, each step's document
 * and data files. Everything is checked before anything is written: the
 * folder, steps.json (whole, of schema roofbench.all), the document of
 * every step it records as ok, and the data files that step's chart is
 * drawn from (there, of the header and width this build writes). Then the
 * steps' data files are copied, the steps' charts drawn again from them
 * with this build's gnuplot scripts (never a script from the folder: no
 * string from a file reaches gnuplot's command language), the job's own
 * charts and roofline.json rebuilt from the documents, and report.md and
 * report.html written. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cmd.h"
#include "csv.h"
#include "flags.h"
#include "plot.h"
#include "report_all.h"
#include "report_ceilings.h"
#include "report_network.h"
#include "report_orders.h"
#include "report_sweep.h"
#include "runfolder.h"
#include "session.h"
#include "text.h"

typedef struct {
    const char *out;
} report_opts;

static const flag_spec report_flags[] = {
    FLAG_OUT(report_opts, out),
};

static const flag_table report_table = {
    "report",
    "usage: roofbench report [--out DIR] RUN_FOLDER",
    "Draws the charts and writes the report of a `roofbench all` folder "
    "again,\n"
    "into a new folder, from that folder's documents and data files alone: an "
    "old\nrun re-rendered by this build. Checks the folder first: steps.json "
    "must be\nwhole and of schema roofbench.all, the document of every step "
    "it records as\nok whole and of that step's schema, every file it "
    "copies the folder's own\nregular file (no link, FIFO or device), and "
    "every data file a chart is\ndrawn from there, with this build's header "
    "and as many fields on each line.\nNever writes into the folder it reads. "
    "Copies steps.json, info.json,\nmodel.json and each step's documents and "
    "data files, draws each step's chart\nagain from its data, rebuilds "
    "roofline.json, the host roofline and the\nreference rooflines from the "
    "documents, and writes report.md and report.html.\nMeasures nothing.",
    report_flags,
    sizeof(report_flags) / sizeof(report_flags[0]),
    "Exit status: 0 written, 2 bad input (one line naming the file; nothing "
    "written).",
    1};

enum { MAX_STEPS = 16 };

enum { MAX_INPUTS = 6 };

/* The steps whose subfolder holds a chart: how it is drawn, and the data
 * files it is drawn from. The script reads each of those by name and
 * takes its columns by position, so each must be there, with the header
 * its writer gives it. always: written however the step's measurement
 * ended; otherwise only where it completed, as the chart is. */
static const struct {
    const char *step, *script_name, *script;
    const char *outputs[3];
    struct {
        const char *file, *header;
        int always;
    } inputs[MAX_INPUTS]; /* up to the first without a file */
} step_charts[] = {
    {"ceilings",
     "plot-bandwidth.gp",
     rb_plot_bandwidth_gp,
     {"bandwidth.png", "bandwidth.svg", NULL},
     {{"bandwidth.csv", REPORT_CEILINGS_POINTS_HEADER, 1},
      {"levels.csv", REPORT_CEILINGS_LEVELS_HEADER, 1}}},
    {"orders",
     "plot-orders.gp",
     rb_plot_orders_gp,
     {"orders-*.png", "orders-*.svg", NULL},
     {{"orders.csv", REPORT_ORDERS_HEADER, 1},
      {"orders-roofline.csv", REPORT_ORDERS_ROOFLINE_HEADER, 0}}},
    {"sweep",
     "plot-sweep.gp",
     rb_plot_sweep_gp,
     {"sweep.png", "sweep.svg", NULL},
     {{"sweep.csv", REPORT_SWEEP_POINTS_HEADER, 1},
      {"sweep-roofs.csv", REPORT_SWEEP_ROOFS_HEADER, 0},
      {"sweep-knees.csv", REPORT_SWEEP_KNEES_HEADER, 0}}},
    {"network",
     "plot-network.gp",
     rb_plot_network_gp,
     {"network.png", "network.svg", NULL},
     {{"network-p2p.csv", REPORT_NETWORK_P2P_HEADER, 1},
      {"network-allreduce.csv", REPORT_NETWORK_ALLREDUCE_HEADER, 1},
      {"network-shard.csv", REPORT_NETWORK_SHARD_HEADER, 1},
      {"network-crossover.csv", REPORT_NETWORK_CROSSOVER_HEADER, 1},
      {"network-roofs.csv", REPORT_NETWORK_ROOFS_HEADER, 1},
      {"network-parts.csv", REPORT_NETWORK_PARTS_HEADER, 1}}},
};

enum { NCHARTS = sizeof(step_charts) / sizeof(step_charts[0]) };

/* The row of step_charts of the step named step, or -1. */
static int chart_of(const char *step)
{
    for (int c = 0; c < NCHARTS; c++)
        if (strcmp(step_charts[c].step, step) == 0)
            return c;
    return -1;
}

/* The folder's path as printed. */
static void shown(const char *path, char *buf, size_t len)
{
    text_escape(path, buf, len);
}

/* A file of the folder must be its own: a regular file (not a link, a
 * FIFO or a device, which could lead out of it or never end), at most
 * 1 GiB. RB_OK, or e naming it. */
static int own_file(const char *path, rb_err *e)
{
    char sh[4 * 4400];
    shown(path, sh, sizeof(sh));
    struct stat st;
    if (lstat(path, &st) != 0)
        return rb_fail(e, RB_EINPUT, "%s: %s", sh, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return rb_fail(e, RB_EINPUT,
                       "%s: not a regular file (a link, folder, FIFO or "
                       "device: a run folder holds only its own files)",
                       sh);
    if (st.st_size > (1LL << 30))
        return rb_fail(e, RB_EINPUT, "%s: %lld bytes, more than a run writes",
                       sh, (long long)st.st_size);
    return RB_OK;
}

/* A document of the folder: its own file, whole JSON, an object, and of
 * the given schema (NULL: any). NULL with e naming the file otherwise. */
static json_t *load(const char *dir, const char *rel, const char *schema,
                    rb_err *e)
{
    char path[4400], sh[4 * 4400];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    shown(path, sh, sizeof(sh));
    if (own_file(path, e))
        return NULL;
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        char msg[400];
        text_escape(je.text, msg, sizeof(msg));
        rb_fail(e, RB_EINPUT, "%s: not a whole JSON document (line %d: %s)", sh,
                je.line, msg);
        return NULL;
    }
    const char *got = json_string_value(json_object_get(doc, "schema"));
    if (!json_is_object(doc) || (schema && (!got || strcmp(got, schema)))) {
        char g[200];
        text_escape(got ? got : "(none)", g, sizeof(g));
        if (json_is_object(doc))
            rb_fail(e, RB_EINPUT, "%s: schema '%s', not %s", sh, g, schema);
        else
            rb_fail(e, RB_EINPUT, "%s: not a JSON object", sh);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* The schema of each step's document (info's has none). */
static const char *step_schema(const char *step)
{
    static const char *const map[][2] = {
        {"ceilings", "roofbench.ceilings"}, {"run", "roofbench.run"},
        {"orders", "roofbench.orders"},     {"sweep", "roofbench.sweep"},
        {"network", "roofbench.network"},   {"model", "roofbench.model"}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(step, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* The checks of steps.json past its schema, its steps read into steps
 * (pointing into doc); the count, or -1. */
static int steps_of(const json_t *doc, const char *sh, job_step *steps,
                    rb_err *e)
{
    static const char *const statuses[] = {"ok", "failed", "skipped",
                                           "interrupted", "not run"};
    if (json_integer_value(json_object_get(doc, "schema_version")) != 1)
        return rb_fail(e, RB_EINPUT, "%s: schema_version is not 1", sh), -1;
    const json_t *arr = json_object_get(doc, "steps");
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return rb_fail(e, RB_EINPUT, "%s: no steps", sh), -1;
    if (json_array_size(arr) > MAX_STEPS)
        return rb_fail(e, RB_EINPUT, "%s: %zu steps, more than the job has", sh,
                       json_array_size(arr)),
               -1;
    size_t i;
    json_t *s;
    json_array_foreach(arr, i, s)
    {
        const char *name = json_string_value(json_object_get(s, "name"));
        const char *status = json_string_value(json_object_get(s, "status"));
        const json_t *secs = json_object_get(s, "seconds");
        const json_t *note = json_object_get(s, "note");
        int known = 0;
        for (size_t k = 0; status && k < 5; k++)
            known |= strcmp(status, statuses[k]) == 0;
        const double t = json_is_number(secs) ? json_number_value(secs) : -1;
        if (!name || !report_all_document(name) || !known || !(t >= 0) ||
            t > 1e7 || !(json_is_string(note) || !note || json_is_null(note)))
            return rb_fail(e, RB_EINPUT,
                           "%s: steps[%zu] is not a step (a known name and "
                           "status, seconds from 0 to 1e7, a note)",
                           sh, i),
                   -1;
        for (size_t k = 0; k < i; k++)
            if (strcmp(steps[k].name, name) == 0)
                return rb_fail(e, RB_EINPUT, "%s: step '%s' recorded twice", sh,
                               name),
                       -1;
        steps[i] = (job_step){name, status, t, json_string_value(note)};
    }
    return (int)json_array_size(arr);
}

/* steps.json read into steps (pointing into *doc); the count, or -1 (and
 * *doc NULL). */
static int read_steps(const char *run, json_t **doc, job_step *steps, rb_err *e)
{
    char sh[4 * 4400], path[4400];
    snprintf(path, sizeof(path), "%s/steps.json", run);
    shown(path, sh, sizeof(sh));
    *doc = load(run, "steps.json", NULL, e);
    if (!*doc)
        return -1;
    const char *schema = json_string_value(json_object_get(*doc, "schema"));
    int n = -1;
    if (!schema || strcmp(schema, "roofbench.all") != 0) {
        char got[200];
        text_escape(schema ? schema : "(none)", got, sizeof(got));
        rb_fail(e, RB_EINPUT,
                "%s: schema '%s', not roofbench.all (the record of "
                "`roofbench all`)",
                sh, got);
    } else
        n = steps_of(*doc, sh, steps, e);
    if (n < 0) {
        json_decref(*doc);
        *doc = NULL;
    }
    return n;
}

static int step_ok(const job_step *steps, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(steps[i].name, name) == 0)
            return strcmp(steps[i].status, "ok") == 0;
    return 0;
}

/* A file of the folder, copied whole into f under name. */
static int copy_file(runfolder *f, const char *from, const char *name,
                     rb_err *e)
{
    if (own_file(from, e))
        return RB_EINPUT;
    size_t len = 0;
    char *data = text_read_file_n(from, &len);
    if (!data) {
        char sh[4 * 4400];
        shown(from, sh, sizeof(sh));
        return rb_fail(e, RB_EINPUT, "%s: cannot be read", sh);
    }
    const int rc = runfolder_write(f, name, data, len, e);
    free(data);
    return rc;
}

static int is_chart(const char *name)
{
    return fnmatch("*.png", name, 0) == 0 || fnmatch("*.svg", name, 0) == 0 ||
           fnmatch("plot-*.gp", name, 0) == 0 || strcmp(name, "plot.log") == 0;
}

/* A step's subfolder: its documents and data files copied into the same
 * subfolder of f (charts and scripts left behind), then its chart drawn
 * again from them. why: "" when drawn, else why not. */
static int redraw_step(runfolder *f, const char *run, size_t c, char *why,
                       size_t whylen, rb_err *e)
{
    runfolder sub = *f;
    char src[4400];
    snprintf(src, sizeof(src), "%s/%s", run, step_charts[c].step);
    snprintf(sub.tmp, sizeof(sub.tmp), "%.2300s/%s", f->tmp,
             step_charts[c].step);
    snprintf(sub.shown, sizeof(sub.shown), "%.8000s/%s", f->shown,
             step_charts[c].step);
    if (mkdir(sub.tmp, 0755) != 0)
        return rb_fail(e, RB_EINPUT, "%s: %s", sub.shown, strerror(errno));
    DIR *d = opendir(src);
    int rc = RB_OK;
    for (struct dirent *de; !rc && d && (de = readdir(d));) {
        char from[4700];
        snprintf(from, sizeof(from), "%s/%s", src, de->d_name);
        struct stat st;
        if (lstat(from, &st) != 0 || !S_ISREG(st.st_mode) ||
            !runfolder_is_ours(de->d_name) || is_chart(de->d_name))
            continue;
        rc = copy_file(&sub, from, de->d_name, e);
    }
    if (d)
        closedir(d);
    if (rc)
        return rc;
    int made = 0;
    rb_err pe;
    if (plot_run(&sub, step_charts[c].script_name, step_charts[c].script,
                 step_charts[c].outputs, &made, why, whylen, &pe) != RB_OK)
        snprintf(why, whylen, "%.400s", pe.msg);
    else if (made)
        why[0] = 0;
    return RB_OK;
}

/* The roofline the job's steps were judged against: its ceilings step's,
 * else the one `all --ceilings` kept in the folder; NULL if neither. */
static const char *job_ceilings(const char *run, const job_step *steps, int n,
                                char *buf, size_t len)
{
    struct stat st;
    if (step_ok(steps, n, "ceilings"))
        snprintf(buf, len, "%s/ceilings/ceilings.json", run);
    else
        snprintf(buf, len, "%s/ceilings.json", run);
    return lstat(buf, &st) == 0 ? buf : NULL;
}

/* Every file of an ok step's subfolder that a run writes (its charts
 * aside) is its own regular file: they are copied. RB_OK, or e naming
 * the first that is not. */
static int check_step_files(const char *run, const char *step, rb_err *e)
{
    char dir[4400];
    snprintf(dir, sizeof(dir), "%s/%s", run, step);
    DIR *d = opendir(dir);
    int rc = RB_OK;
    for (struct dirent *de; !rc && d && (de = readdir(d));) {
        if (!runfolder_is_ours(de->d_name) || is_chart(de->d_name))
            continue;
        char path[4700];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        rc = own_file(path, e);
    }
    if (d)
        closedir(d);
    return rc;
}

/* Data file i of step chart c's (step_charts): there, the folder's own
 * regular file, readable, and of its header's width throughout. RB_OK,
 * or e naming it. */
static int check_chart_input(const char *run, size_t c, size_t i, rb_err *e)
{
    char path[4700], sh[4 * 4700];
    snprintf(path, sizeof(path), "%s/%s/%s", run, step_charts[c].step,
             step_charts[c].inputs[i].file);
    shown(path, sh, sizeof(sh));
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return rb_fail(e, RB_EINPUT,
                       "%s: missing (the %s chart is drawn from it)", sh,
                       step_charts[c].step);
    if (own_file(path, e))
        return RB_EINPUT;
    size_t len = 0;
    char *text = text_read_file_n(path, &len);
    if (!text)
        return rb_fail(e, RB_EINPUT, "%s: cannot be read (%s)", sh,
                       strerror(errno));
    const int rc = csv_check(text, len, step_charts[c].inputs[i].header, sh, e);
    free(text);
    return rc;
}

/* An ok step's document (its own file, whole, of its schema) and, for a
 * step that writes a subfolder, its files (check_step_files) and the data
 * files of its chart, those its status says it wrote. RB_OK, or e naming
 * the first that is not as written. */
static int check_step(const char *run, const char *step, rb_err *e)
{
    const char *rel = report_all_document(step);
    json_t *doc = load(run, rel, step_schema(step), e);
    int rc = doc ? RB_OK : RB_EINPUT;
    if (!rc && strchr(rel, '/'))
        rc = check_step_files(run, step, e);
    const char *status = json_string_value(json_object_get(doc, "status"));
    const int complete = status && strcmp(status, "complete") == 0;
    const int c = chart_of(step);
    for (size_t i = 0;
         !rc && c >= 0 && i < MAX_INPUTS && step_charts[c].inputs[i].file; i++)
        if (step_charts[c].inputs[i].always || complete)
            rc = check_chart_input(run, (size_t)c, i, e);
    json_decref(doc);
    return rc;
}

/* Checks the folder, steps.json and, for every step it records as ok,
 * its document (its own file, whole, of its schema), its data files and
 * those its chart is drawn from; the steps (count) and steps.json, or -1
 * with e set. */
static int check_folder(const char *run, json_t **steps_doc, job_step *steps,
                        rb_err *e)
{
    char sh[4 * 4400];
    shown(run, sh, sizeof(sh));
    struct stat st;
    if (stat(run, &st) != 0)
        return rb_fail(e, RB_EINPUT, "%s: %s", sh, strerror(errno)), -1;
    if (!S_ISDIR(st.st_mode))
        return rb_fail(e, RB_EINPUT, "%s: not a folder", sh), -1;
    char path[4400];
    snprintf(path, sizeof(path), "%s/steps.json", run);
    if (lstat(path, &st) != 0)
        return rb_fail(e, RB_EINPUT,
                       "%s/steps.json: missing (not the folder of "
                       "`roofbench all`)",
                       sh),
               -1;
    const int n = read_steps(run, steps_doc, steps, e);
    int rc = n < 0 ? RB_EINPUT : RB_OK;
    for (int i = 0; !rc && i < n; i++)
        if (strcmp(steps[i].status, "ok") == 0)
            rc = check_step(run, steps[i].name, e);
    char ceil[4400];
    if (!rc && !step_ok(steps, n, "ceilings") &&
        job_ceilings(run, steps, n, ceil, sizeof(ceil))) {
        json_t *kept = load(run, "ceilings.json", "roofbench.ceilings", e);
        rc = kept ? RB_OK : RB_EINPUT;
        json_decref(kept);
    }
    if (rc && *steps_doc) {
        json_decref(*steps_doc);
        *steps_doc = NULL;
    }
    return rc ? -1 : n;
}

/* The job's host and date, from its documents. */
static void job_host(const char *run, const json_t *steps_doc,
                     const job_step *steps, int n, char *host, size_t hlen,
                     char *date, size_t dlen)
{
    rb_err e;
    snprintf(host, hlen, "unknown-host");
    snprintf(date, dlen, "date unknown");
    const char *jd = json_string_value(json_object_get(steps_doc, "date"));
    json_t *info =
        step_ok(steps, n, "info") ? load(run, "info.json", NULL, &e) : NULL;
    const char *h = json_string_value(json_object_get(info, "host"));
    if (h)
        text_escape(h, host, hlen);
    json_decref(info);
    json_t *res = step_ok(steps, n, "run")
                      ? load(run, "run/results.json", "roofbench.run", &e)
                      : NULL;
    const json_t *ctx = json_object_get(res, "context");
    const char *rh = json_string_value(json_object_get(ctx, "host"));
    const char *rd = json_string_value(json_object_get(ctx, "date"));
    if (!h && rh)
        text_escape(rh, host, hlen);
    if (jd || rd) /* the job's start, else its run step's */
        text_escape(jd ? jd : rd, date, dlen);
    json_decref(res);
}

static int write_report(runfolder *f, const char *run, json_t *steps_doc,
                        const job_step *steps, int n, rb_err *e)
{
    /* the documents of the steps that print one, where those steps went
     * well (checked: the folder's own files) */
    static const char *const top[][2] = {{"info", "info.json"},
                                         {"model", "model.json"}};
    char from[4400];
    int rc = RB_OK;
    for (size_t i = 0; !rc && i < 2; i++) {
        snprintf(from, sizeof(from), "%s/%s", run, top[i][1]);
        if (step_ok(steps, n, top[i][0]))
            rc = copy_file(f, from, top[i][1], e);
    }
    char whys[NCHARTS][512];
    for (size_t c = 0; !rc && c < NCHARTS; c++) {
        snprintf(whys[c], sizeof(whys[c]), "the step did not run");
        if (step_ok(steps, n, step_charts[c].step))
            rc = redraw_step(f, run, c, whys[c], sizeof(whys[c]), e);
    }
    /* run's documents travel too: the host roofline is drawn from them */
    if (!rc && step_ok(steps, n, "run")) {
        runfolder sub = *f;
        snprintf(sub.tmp, sizeof(sub.tmp), "%.2300s/run", f->tmp);
        rc = mkdir(sub.tmp, 0755) == 0 ? RB_OK
                                       : rb_fail(e, RB_EINPUT, "%s/run: %s",
                                                 f->shown, strerror(errno));
        static const char *const docs[] = {"results.json", "results.csv"};
        for (size_t i = 0; !rc && i < 2; i++) {
            snprintf(from, sizeof(from), "%s/run/%s", run, docs[i]);
            struct stat st;
            if (lstat(from, &st) == 0) /* checked: a regular file */
                rc = copy_file(&sub, from, docs[i], e);
        }
    }
    if (rc)
        return rc;
    char ceil[4400], chart_why[512], ref_why[512];
    const char *cf = job_ceilings(run, steps, n, ceil, sizeof(ceil));
    if (cf && !step_ok(steps, n, "ceilings"))
        rc = copy_file(f, cf, "ceilings.json", e);
    if (!rc)
        rc = report_all_charts(f, run, cf, step_ok(steps, n, "run"),
                               step_ok(steps, n, "model"), chart_why,
                               sizeof(chart_why), ref_why, sizeof(ref_why), e);
    char *text = rc ? NULL : json_dumps(steps_doc, JSON_INDENT(2));
    if (!rc)
        rc = text ? runfolder_write(f, "steps.json", text, strlen(text), e)
                  : rb_fail(e, RB_EINPUT, "steps.json: cannot be written");
    char *sum = NULL;
    size_t sumlen = 0;
    FILE *ms = rc ? NULL : open_memstream(&sum, &sumlen);
    if (ms) {
        report_all_summary(run, cf, steps, (size_t)n, ms);
        fclose(ms);
    }
    char host[256], date[128];
    job_host(run, steps_doc, steps, n, host, sizeof(host), date, sizeof(date));
    const char *body = sum ? sum : "";
    if (strncmp(body, "\nsummary\n", 9) == 0)
        body += 9;
    if (!rc)
        rc = report_all_write(f, host, date, body, text, e);
    if (!rc) {
        fputs(sum ? sum : "", stdout);
        for (size_t c = 0; c < NCHARTS; c++)
            if (whys[c][0])
                printf("%s chart: not drawn: %s\n", step_charts[c].step,
                       whys[c]);
        if (chart_why[0])
            printf("roofline chart: not drawn: %s\n", chart_why);
        if (ref_why[0])
            printf("reference chart: not drawn: %s\n", ref_why);
    }
    free(sum);
    free(text);
    return rc;
}

static int report_main(const rb_machine *m, const void *opts,
                       const flag_seen *seen, rb_err *e)
{
    const report_opts *o = opts;
    if (seen->npos != 1)
        return rb_fail(e, RB_EINPUT,
                       "report: give one folder of `roofbench all` (got "
                       "%d)",
                       seen->npos),
               2;
    const char *run = seen->pos[0];
    json_t *steps_doc = NULL;
    job_step steps[MAX_STEPS];
    const int n = check_folder(run, &steps_doc, steps, e);
    if (n < 0)
        return 2;
    runfolder f;
    char iso[32], stamp[32];
    runfolder_utc(iso, sizeof(iso), stamp, sizeof(stamp));
    if (runfolder_open(&f, SESSION_ROOT, o->out, m->host, stamp, e)) {
        json_decref(steps_doc);
        return 2;
    }
    /* never into the folder it reads */
    char rr[PATH_MAX], rt[PATH_MAX];
    if (realpath(run, rr) && realpath(f.tmp, rt) &&
        strncmp(rt, rr, strlen(rr)) == 0 && rt[strlen(rr)] == '/') {
        char sh[4 * 4400];
        shown(run, sh, sizeof(sh));
        runfolder_abandon(&f);
        json_decref(steps_doc);
        return rb_fail(e, RB_EINPUT,
                       "--out: inside %s, the folder it reads; choose one "
                       "outside it",
                       sh),
               2;
    }
    int rc = write_report(&f, run, steps_doc, steps, n, e);
    json_decref(steps_doc);
    if (!rc)
        rc = runfolder_commit(&f, e);
    if (rc) {
        runfolder_abandon(&f);
        return 2;
    }
    printf("\nreport: %s/report.html and report.md\nresults: %s\n", f.shown,
           f.shown);
    return 0;
}

const cmd_spec cmd_report = {&report_table, sizeof(report_opts), report_main,
                             NULL};
