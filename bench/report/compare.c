#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats.h"
#include "text.h"

/* ---- reading a document -------------------------------------------------- */

static const char *str_at(json_t *o, const char *path)
{
    /* "a.b.c": nested objects; NULL when any step is missing */
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", path);
    json_t *v = o;
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && v;
         t = strtok_r(NULL, ".", &save))
        v = json_is_object(v) ? json_object_get(v, t) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int int_at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    v = json_is_object(v) ? json_object_get(v, b) : NULL;
    return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

/* A positive integer member, or 0. */
static size_t dim(json_t *o, const char *name)
{
    json_t *v = json_object_get(o, name);
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return 0;
    return (size_t)json_integer_value(v);
}

static int row_fail(rb_err *e, const cmp_doc *d, size_t i, const char *what)
{
    return rb_fail(e, RB_EINPUT, "%s: row %zu: %s", d->shown, i + 1, what);
}

/* The row's kernel, form and dtype: names a key may hold. */
static int row_names(const cmp_doc *d, json_t *j, size_t i, cmp_row *r,
                     rb_err *e)
{
    const char *k = str_at(j, "kernel"), *f = str_at(j, "form"),
               *t = str_at(j, "dtype");
    if (!k)
        return row_fail(e, d, i, "no kernel name");
    if (!text_is_name(k, sizeof(r->kernel) - 1, "_-"))
        return row_fail(e, d, i,
                        "the kernel name is not letters, digits, _ and - "
                        "(at most 63)");
    if (!f)
        return row_fail(e, d, i, "no form");
    if (!text_is_name(f, sizeof(r->form) - 1, "_-"))
        return row_fail(e, d, i,
                        "the form is not letters, digits, _ and - (at most "
                        "31)");
    if (!t || (strcmp(t, "f32") != 0 && strcmp(t, "f64") != 0))
        return row_fail(e, d, i, "dtype is not f32 or f64");
    snprintf(r->kernel, sizeof(r->kernel), "%s", k);
    snprintf(r->form, sizeof(r->form), "%s", f);
    snprintf(r->dtype, sizeof(r->dtype), "%s", t);
    return RB_OK;
}

/* The row's shape and team, and with its names the key that matches it
 * to the other side's row. */
static int row_key(const cmp_doc *d, json_t *j, size_t i, cmp_row *r,
                   rb_err *e)
{
    json_t *sh = json_object_get(j, "shape");
    r->shape.n = dim(sh, "n");
    r->shape.p = dim(sh, "p");
    r->shape.m = dim(sh, "m");
    if (!r->shape.n || !r->shape.p || !r->shape.m)
        return row_fail(e, d, i, "shape is not three positive integers");
    json_t *th = json_object_get(j, "threads");
    if (!json_is_integer(th) || json_integer_value(th) < 1 ||
        json_integer_value(th) > 4096)
        return row_fail(e, d, i, "threads is not a positive integer");
    r->threads = (int)json_integer_value(th);
    snprintf(r->key, sizeof(r->key), "%s %s %s %zux%zux%zu %dt", r->kernel,
             r->form, r->dtype, r->shape.n, r->shape.p, r->shape.m,
             r->threads);
    return RB_OK;
}

/* The longest sample a document may hold, in seconds per call: no call
 * the suite times takes a day, so a longer one is a damaged or edited
 * document (the rank test itself stays finite for any positive sample:
 * stat_of sums logs). */
static const double sample_max_s = 86400.0;

/* Why sample q (x, or v when not a number) is refused, into what. */
static void bad_sample(const cmp_row *r, size_t q, const json_t *v, double x,
                       char *what, size_t len)
{
    if (!json_is_number(v))
        snprintf(what, len, "%s: sample %zu is not a number", r->key, q + 1);
    else if (x > sample_max_s)
        snprintf(what, len,
                 "%s: sample %zu is %g s (more than a day, %g s: no call "
                 "the suite times takes that long)",
                 r->key, q + 1, x, sample_max_s);
    else
        snprintf(what, len, "%s: sample %zu is %g s (times must be above zero)",
                 r->key, q + 1, x);
}

/* The raw samples: 1 to 3000 times, each above zero and at most a day. */
static int row_samples(const cmp_doc *d, json_t *j, size_t i, cmp_row *r,
                       rb_err *e)
{
    json_t *s = json_object_get(j, "samples_s");
    if (!json_is_array(s) || json_array_size(s) == 0)
        return row_fail(e, d, i, "no samples_s (the raw samples)");
    r->nsamples = json_array_size(s);
    if (r->nsamples > 3000)
        return row_fail(e, d, i,
                        "more than 3000 samples (compare tests up to 3000 a "
                        "side)");
    r->samples = malloc(r->nsamples * sizeof(*r->samples));
    if (!r->samples)
        return rb_fail(e, RB_EINPUT, "out of memory");
    for (size_t q = 0; q < r->nsamples; q++) {
        json_t *v = json_array_get(s, q);
        const double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!(x > 0.0 && x <= sample_max_s)) {
            char what[320];
            bad_sample(r, q, v, x, what, sizeof(what));
            return row_fail(e, d, i, what);
        }
        r->samples[q] = x;
    }
    return RB_OK;
}

static int read_row(const cmp_doc *d, json_t *j, size_t i, cmp_row *r,
                    rb_err *e)
{
    memset(r, 0, sizeof(*r));
    r->index = i;
    r->attainable = NAN;
    if (!json_is_object(j))
        return row_fail(e, d, i, "not an object");
    if (row_names(d, j, i, r, e) || row_key(d, j, i, r, e))
        return RB_EINPUT;
    json_t *fl = json_object_get(j, "flops");
    r->flops = json_is_number(fl) ? json_number_value(fl) : 0.0;
    if (!(r->flops > 0.0) || !isfinite(r->flops))
        return row_fail(e, d, i, "flops is not a number above zero");
    if (row_samples(d, j, i, r, e))
        return RB_EINPUT;
    json_t *ver = json_object_get(j, "verify");
    json_t *passed = json_is_object(ver) ? json_object_get(ver, "passed")
                                         : NULL;
    if (json_is_false(passed))
        return row_fail(e, d, i,
                        "failed verification: its times are not of a correct "
                        "result");
    json_t *roof = json_object_get(j, "roofline");
    json_t *att = json_is_object(roof)
                      ? json_object_get(roof, "attainable_gflops")
                      : NULL;
    if (json_is_number(att) && json_number_value(att) > 0.0 &&
        isfinite(json_number_value(att)))
        r->attainable = json_number_value(att);
    return RB_OK;
}

static int cmp_key(const void *pa, const void *pb)
{
    const cmp_row *a = *(const cmp_row *const *)pa,
                  *b = *(const cmp_row *const *)pb;
    return strcmp(a->key, b->key);
}

/* The file to read for path: itself, or the document in the folder. */
static int resolve(const char *path, cmp_doc *d, rb_err *e)
{
    text_escape(path, d->shown, sizeof(d->shown));
    struct stat st;
    if (stat(path, &st) != 0)
        return rb_fail(e, RB_EINPUT, "%s: %s", d->shown, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        static const char *const names[] = {"results.json", "sweep.json"};
        for (size_t i = 0; i < 2; i++) {
            char f[2100];
            snprintf(f, sizeof(f), "%s/%s", path, names[i]);
            if (stat(f, &st) == 0) {
                snprintf(d->path, sizeof(d->path), "%s", f);
                text_escape(f, d->shown, sizeof(d->shown));
                break;
            }
            if (errno != ENOENT)
                return rb_fail(e, RB_EINPUT, "%s: %s", d->shown,
                               strerror(errno));
        }
        if (!d->path[0])
            return rb_fail(e, RB_EINPUT,
                           "%s: a folder holding no results (no results.json "
                           "or sweep.json)",
                           d->shown);
    } else {
        snprintf(d->path, sizeof(d->path), "%s", path);
    }
    if (stat(d->path, &st) != 0 || !S_ISREG(st.st_mode))
        return rb_fail(e, RB_EINPUT, "%s: not a regular file", d->shown);
    if (st.st_size > (256 << 20))
        return rb_fail(e, RB_EINPUT, "%s: larger than 256 MiB", d->shown);
    if (st.st_size == 0)
        return rb_fail(e, RB_EINPUT, "%s: empty", d->shown);
    if (access(d->path, R_OK) != 0)
        return rb_fail(e, RB_EINPUT, "%s: %s", d->shown, strerror(errno));
    return RB_OK;
}

static int read_context(cmp_doc *d, json_t *ctx)
{
    const char *cpu = str_at(ctx, "cpu.brand"),
               *isa = str_at(ctx, "kernels.matmul_blocked.f32.path"),
               *ob = str_at(ctx, "openblas.corename");
    snprintf(d->cpu, sizeof(d->cpu), "%s", cpu ? cpu : "unknown");
    snprintf(d->isa, sizeof(d->isa), "%s", isa ? isa : "unknown");
    snprintf(d->openblas_core, sizeof(d->openblas_core), "%s",
             ob ? ob : "unknown");
    d->family = int_at(ctx, "cpu", "family");
    d->model = int_at(ctx, "cpu", "model");
    d->cores = int_at(ctx, "topology", "cores");
    return RB_OK;
}

/* The document's rows, if it is one compare reads: a run's (rows) or a
 * sweep's (points), of schema version 1, complete, with rows and a
 * context block; the schema into d. NULL once the failure is recorded. */
static json_t *doc_rows(json_t *doc, cmp_doc *d, rb_err *e)
{
    const char *schema = str_at(doc, "schema");
    json_t *ver = json_object_get(doc, "schema_version");
    const char *status = str_at(doc, "status");
    const char *rows_name = NULL;
    char shown[64];
    if (!json_is_object(doc) || !schema) {
        rb_fail(e, RB_EINPUT, "%s: no schema: not a roofbench results document",
                d->shown);
        return NULL;
    }
    if (strcmp(schema, "roofbench.run") == 0) {
        rows_name = "rows";
    } else if (strcmp(schema, "roofbench.sweep") == 0) {
        rows_name = "points";
    } else {
        text_escape(schema, shown, sizeof(shown));
        rb_fail(e, RB_EINPUT,
                "%s: schema '%s': compare reads roofbench.run "
                "(results.json) and roofbench.sweep (sweep.json)",
                d->shown, shown);
        return NULL;
    }
    if (!json_is_integer(ver) || json_integer_value(ver) != 1) {
        rb_fail(e, RB_EINPUT,
                "%s: schema version %s: this roofbench reads version 1",
                d->shown, json_is_integer(ver) ? "other than 1" : "missing");
        return NULL;
    }
    if (!status || strcmp(status, "complete") != 0) {
        text_escape(status ? status : "missing", shown, sizeof(shown));
        rb_fail(e, RB_EINPUT,
                "%s: status '%s': only a complete run can be compared",
                d->shown, shown);
        return NULL;
    }
    json_t *rows = json_object_get(doc, rows_name);
    if (!json_is_array(rows))
        rb_fail(e, RB_EINPUT, "%s: no '%s' array", d->shown, rows_name);
    else if (json_array_size(rows) == 0)
        rb_fail(e, RB_EINPUT, "%s: holds no rows", d->shown);
    else if (!json_is_object(json_object_get(doc, "context")))
        rb_fail(e, RB_EINPUT,
                "%s: no context block (the host the run measured)", d->shown);
    else {
        snprintf(d->schema, sizeof(d->schema), "%s", schema);
        return rows;
    }
    return NULL;
}

/* One key, one row: which of two would be meant? */
static int keys_unique(const cmp_doc *d, rb_err *e)
{
    const cmp_row **by = malloc((d->nrows + 1) * sizeof(*by));
    if (!by)
        return rb_fail(e, RB_EINPUT, "out of memory");
    for (size_t i = 0; i < d->nrows; i++)
        by[i] = &d->rows[i];
    qsort(by, d->nrows, sizeof(*by), cmp_key);
    int rc = RB_OK;
    for (size_t i = 1; !rc && i < d->nrows; i++)
        if (strcmp(by[i - 1]->key, by[i]->key) == 0) {
            const size_t a = by[i - 1]->index, b = by[i]->index;
            rc = rb_fail(e, RB_EINPUT, "%s: rows %zu and %zu are both '%s'",
                         d->shown, (a < b ? a : b) + 1, (a < b ? b : a) + 1,
                         by[i]->key);
        }
    free(by);
    return rc;
}

static int load_one(const char *path, cmp_doc *d, rb_err *e)
{
    memset(d, 0, sizeof(*d));
    d->nruns = 1;
    if (resolve(path, d, e))
        return RB_EINPUT;
    json_error_t je;
    json_t *doc = json_load_file(d->path, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return rb_fail(e, RB_EINPUT, "%s: not JSON, or cut short (line %d: %s)",
                       d->shown, je.line, je.text);
    json_t *rows = doc_rows(doc, d, e);
    int rc = rows ? RB_OK : RB_EINPUT;
    if (!rc) {
        read_context(d, json_object_get(doc, "context"));
        d->nrows = json_array_size(rows);
        d->rows = calloc(d->nrows, sizeof(*d->rows));
        if (!d->rows)
            rc = rb_fail(e, RB_EINPUT, "out of memory");
    }
    for (size_t i = 0; !rc && i < d->nrows; i++)
        rc = read_row(d, json_array_get(rows, i), i, &d->rows[i], e);
    json_decref(doc);
    if (!rc)
        rc = keys_unique(d, e);
    if (rc)
        cmp_free(d);
    return rc;
}

/* The run folders under dir (those holding results.json or sweep.json,
 * hidden ones left out), sorted by name; -1 when dir is not a folder or
 * holds a document itself. */
static int run_folders(const char *dir, char ***out, rb_err *e)
{
    *out = NULL;
    struct stat st;
    char f[4400];
    if (strlen(dir) > 2048 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    snprintf(f, sizeof(f), "%s/results.json", dir);
    if (stat(f, &st) == 0)
        return -1;
    snprintf(f, sizeof(f), "%s/sweep.json", dir);
    if (stat(f, &st) == 0)
        return -1;
    struct dirent **names = NULL;
    const int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        return -1;
    int k = 0;
    char **runs = calloc((size_t)n + 1, sizeof(*runs));
    for (int i = 0; i < n; i++) {
        if (runs && names[i]->d_name[0] != '.') {
            char sub[4300];
            snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]->d_name);
            snprintf(f, sizeof(f), "%s/results.json", sub);
            const int has = stat(f, &st) == 0 ||
                            (snprintf(f, sizeof(f), "%s/sweep.json", sub),
                             stat(f, &st) == 0);
            if (has && (runs[k] = strdup(sub)) != NULL)
                k++;
        }
        free(names[i]);
    }
    free(names);
    if (!runs)
        return rb_fail(e, RB_EINPUT, "out of memory");
    *out = runs;
    return k;
}

static void free_runs(char **runs)
{
    for (size_t i = 0; runs && runs[i]; i++)
        free(runs[i]);
    free(runs);
}

/* The runs' documents as one: same schema, host and rows; each row's
 * samples the runs' medians, each with its run's roof. */
static int merge_runs(const char *dir, cmp_doc *runs, int k, cmp_doc *d,
                      rb_err *e)
{
    char shown[1024];
    text_escape(dir, shown, sizeof(shown));
    for (int r = 1; r < k; r++) {
        char diff[1024];
        cmp_host_diff(&runs[0], &runs[r], diff, sizeof(diff));
        if (strcmp(runs[r].schema, runs[0].schema) != 0 || diff[0])
            return rb_fail(e, RB_EINPUT,
                           "%s: its runs differ: %s and %s (%s)", shown,
                           runs[0].shown, runs[r].shown,
                           diff[0] ? diff : "schema");
        if (runs[r].nrows != runs[0].nrows)
            return rb_fail(e, RB_EINPUT,
                           "%s: its runs have different rows: %zu in %s, %zu "
                           "in %s",
                           shown, runs[0].nrows, runs[0].shown, runs[r].nrows,
                           runs[r].shown);
    }
    *d = runs[0]; /* its context and rows, taken over */
    d->nruns = k;
    snprintf(d->path, sizeof(d->path), "%s", dir);
    snprintf(d->shown, sizeof(d->shown), "%s (%d runs)", shown, k);
    for (size_t i = 0; i < d->nrows; i++) {
        cmp_row *row = &d->rows[i];
        double *med = malloc((size_t)k * sizeof(*med)),
               *roof = malloc((size_t)k * sizeof(*roof));
        if (!med || !roof) {
            free(med);
            free(roof);
            return rb_fail(e, RB_EINPUT, "out of memory");
        }
        int roofs = 1;
        for (int r = 0; r < k; r++) {
            const cmp_row *o = NULL;
            for (size_t j = 0; j < runs[r].nrows && !o; j++)
                if (strcmp(runs[r].rows[j].key, row->key) == 0)
                    o = &runs[r].rows[j];
            if (!o) {
                free(med);
                free(roof);
                return rb_fail(e, RB_EINPUT, "%s: %s has no row '%s'", shown,
                               runs[r].shown, row->key);
            }
            med[r] = stats_median(o->samples, o->nsamples);
            roof[r] = o->attainable;
            roofs &= isfinite(o->attainable);
        }
        free(row->samples);
        row->samples = med;
        row->nsamples = (size_t)k;
        row->sample_roof = roof;
        row->attainable = roofs ? stats_median(roof, (size_t)k) : NAN;
    }
    return RB_OK;
}

int cmp_load(const char *path, cmp_doc *d, rb_err *e)
{
    char **runs = NULL;
    const int k = run_folders(path, &runs, e);
    if (k < 2) {
        const int rc = k == 1 ? load_one(runs[0], d, e) : load_one(path, d, e);
        free_runs(runs);
        return rc;
    }
    cmp_doc *docs = calloc((size_t)k, sizeof(*docs));
    int rc = docs ? RB_OK : rb_fail(e, RB_EINPUT, "out of memory");
    int loaded = 0;
    for (; !rc && loaded < k; loaded++)
        if ((rc = load_one(runs[loaded], &docs[loaded], e)))
            break;
    if (!rc)
        rc = merge_runs(path, docs, k, d, e);
    /* docs[0]'s rows now belong to d (or, on failure, to nobody else) */
    for (int r = rc ? 0 : 1; r < loaded; r++)
        cmp_free(&docs[r]);
    if (rc)
        memset(d, 0, sizeof(*d));
    free(docs);
    free_runs(runs);
    return rc;
}

void cmp_free(cmp_doc *d)
{
    for (size_t i = 0; d->rows && i < d->nrows; i++) {
        free(d->rows[i].samples);
        free(d->rows[i].sample_roof);
    }
    free(d->rows);
    d->rows = NULL;
    d->nrows = 0;
}

void cmp_host_diff(const cmp_doc *a, const cmp_doc *b, char *buf, size_t len)
{
    strbuf s = {0};
    char x[200], y[200];
    if (strcmp(a->cpu, b->cpu) != 0 || a->family != b->family ||
        a->model != b->model) {
        char ea[170], eb[170];
        text_escape(a->cpu, ea, sizeof(ea));
        text_escape(b->cpu, eb, sizeof(eb));
        snprintf(x, sizeof(x), "%s (family %d model %d)", ea, a->family,
                 a->model);
        snprintf(y, sizeof(y), "%s (family %d model %d)", eb, b->family,
                 b->model);
        sb_printf(&s, "%sCPU '%s' vs '%s'", s.len ? "; " : "", x, y);
    }
    if (a->cores != b->cores)
        sb_printf(&s, "%scores %d vs %d", s.len ? "; " : "", a->cores,
                  b->cores);
    if (strcmp(a->isa, b->isa) != 0) {
        text_escape(a->isa, x, sizeof(x));
        text_escape(b->isa, y, sizeof(y));
        sb_printf(&s, "%sISA path %s vs %s", s.len ? "; " : "", x, y);
    }
    if (strcmp(a->openblas_core, b->openblas_core) != 0) {
        text_escape(a->openblas_core, x, sizeof(x));
        text_escape(b->openblas_core, y, sizeof(y));
        sb_printf(&s, "%sOpenBLAS core %s vs %s", s.len ? "; " : "", x, y);
    }
    snprintf(buf, len, "%s", s.s && !s.failed ? s.s : "");
    sb_free(&s);
}

/* ---- the statistics -------------------------------------------------------- */

const char *cmp_verdict_name(cmp_verdict v)
{
    static const char *const names[] = {"unchanged", "faster", "slower",
                                        "unreliable", "no roof"};
    return names[v];
}

cmp_verdict cmp_judge(const cmp_stat *s, const cmp_settings *set,
                      double floor)
{
    if (!(s->p_min <= set->alpha))
        return CMP_UNRELIABLE;
    if (s->p < set->alpha && s->lo > 1.0 && s->ratio > floor)
        return CMP_SLOWER;
    if (s->p < set->alpha && s->hi < 1.0 && s->ratio < 1.0 / floor &&
        s->ratio < 1.0 - set->threshold)
        return CMP_FASTER;
    return CMP_UNCHANGED;
}

static int cmp_stat_p(const void *pa, const void *pb)
{
    const double a = (*(cmp_stat *const *)pa)->p,
                 b = (*(cmp_stat *const *)pb)->p;
    return (a > b) - (a < b);
}

/* Holm's step-down adjustment of m p-values: sorted, the i-th (from 0)
 * becomes the running maximum of (m - i) p, at most 1; the smallest
 * attainable p becomes m p_min (a row must be able to pass alpha / m). */
static void holm_adjust(cmp_stat **v, size_t m)
{
    qsort(v, m, sizeof(*v), cmp_stat_p);
    double run = 0.0;
    for (size_t i = 0; i < m; i++) {
        run = fmax(run, fmin(1.0, (double)(m - i) * v[i]->p));
        v[i]->p = run;
        v[i]->p_min = fmin(1.0, (double)m * v[i]->p_min);
    }
}

static int cmp_dbl(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* 1.4826 x the median absolute deviation of x[0..n) from its median (the
 * standard deviation, for normal data, that a few outliers cannot move);
 * 0 with fewer than 5 values. x is reordered. */
static double robust_spread(double *x, size_t n)
{
    if (n < 5)
        return 0.0;
    qsort(x, n, sizeof(*x), cmp_dbl);
    const double med = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
    for (size_t i = 0; i < n; i++)
        x[i] = fabs(x[i] - med);
    qsort(x, n, sizeof(*x), cmp_dbl);
    return 1.4826 * (n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]));
}

/* The test on log(scale x sample): time (roof 0: scale 1) or time
 * against the roof (each sample scaled by its run's bound). */
static double scale_of(const cmp_row *r, size_t i, int roof)
{
    if (!roof)
        return 1.0;
    return r->sample_roof ? r->sample_roof[i] : r->attainable;
}

static int stat_of(const cmp_row *b, const cmp_row *c, int roof,
                   const cmp_settings *set, cmp_stat *out)
{
    double *x = malloc(b->nsamples * sizeof(*x)),
           *y = malloc(c->nsamples * sizeof(*y));
    int rc = -1;
    if (x && y) {
        /* a sum of logs, not the log of a product: a product of two
         * finite values can overflow to infinity, their logs' sum cannot,
         * and the rank test refuses a value that is not finite */
        for (size_t i = 0; i < b->nsamples; i++)
            x[i] = log(b->samples[i]) + log(scale_of(b, i, roof));
        for (size_t j = 0; j < c->nsamples; j++)
            y[j] = log(c->samples[j]) + log(scale_of(c, j, roof));
        rank_test t;
        rc = rank_test_run(x, b->nsamples, y, c->nsamples, set->alpha, &t);
        if (!rc) {
            out->ratio = exp(stats_median(y, c->nsamples) -
                             stats_median(x, b->nsamples));
            out->hl_ratio = exp(t.shift);
            out->lo = exp(t.lo); /* exp(NaN) is NaN */
            out->hi = exp(t.hi);
            out->p = t.p;
            out->p_min = t.p_min;
            out->exact = t.exact;
        }
    }
    free(x);
    free(y);
    return rc;
}

static const cmp_row *find(const cmp_doc *d, const char *key)
{
    for (size_t i = 0; i < d->nrows; i++)
        if (strcmp(d->rows[i].key, key) == 0)
            return &d->rows[i];
    return NULL;
}

/* Pairs each row of base with its match in cur (by key) and takes their
 * time and, where both sides have a roof, efficiency statistics; rows of
 * base alone are listed. The geometric means' log sums go to lt, le (ne
 * terms). -1 when out of memory. */
static int match_rows(const cmp_doc *base, const cmp_doc *cur,
                      const cmp_settings *s, cmp_result *r, double *lt,
                      double *le, size_t *ne)
{
    for (size_t i = 0; i < base->nrows; i++) {
        const cmp_row *b = &base->rows[i], *c = find(cur, b->key);
        if (!c) {
            r->only_base[r->nonly_base++] = b;
            continue;
        }
        cmp_pair *p = &r->pairs[r->npairs++];
        p->base = b;
        p->cur = c;
        if (stat_of(b, c, 0, s, &p->time))
            return -1;
        *lt += log(p->time.ratio);
        p->frac_base = p->frac_cur = NAN;
        if (isfinite(b->attainable) && isfinite(c->attainable)) {
            if (stat_of(b, c, 1, s, &p->eff))
                return -1;
            p->frac_base = b->flops / stats_median(b->samples, b->nsamples) /
                           1e9 / b->attainable;
            p->frac_cur = c->flops / stats_median(c->samples, c->nsamples) /
                          1e9 / c->attainable;
            *le += log(p->eff.ratio);
            (*ne)++;
        } else {
            p->eff.ratio = p->eff.hl_ratio = p->eff.lo = p->eff.hi = NAN;
            p->eff.p = p->eff.p_min = NAN;
        }
    }
    return 0;
}

/* The run-to-run spread, from every matched row's log ratio, of time and
 * of efficiency. -1 when out of memory. */
static int noise_spreads(cmp_result *r)
{
    double *lr = malloc((r->npairs + 1) * sizeof(*lr));
    if (!lr)
        return -1;
    for (size_t i = 0; i < r->npairs; i++)
        lr[i] = log(r->pairs[i].time.ratio);
    r->spread_time = robust_spread(lr, r->npairs);
    size_t k = 0;
    for (size_t i = 0; i < r->npairs; i++)
        if (isfinite(r->pairs[i].eff.ratio))
            lr[k++] = log(r->pairs[i].eff.ratio);
    r->spread_eff = robust_spread(lr, k);
    free(lr);
    return 0;
}

/* Holm's adjustment of the p-values, over the time statistics and over
 * the efficiency ones. -1 when out of memory. */
static int holm_all(cmp_result *r)
{
    cmp_stat **v = malloc((r->npairs + 1) * sizeof(*v));
    if (!v)
        return -1;
    for (size_t i = 0; i < r->npairs; i++)
        v[i] = &r->pairs[i].time;
    holm_adjust(v, r->npairs);
    size_t m = 0;
    for (size_t i = 0; i < r->npairs; i++)
        if (isfinite(r->pairs[i].eff.ratio))
            v[m++] = &r->pairs[i].eff;
    holm_adjust(v, m);
    free(v);
    return 0;
}

/* Each pair's verdicts, the one that gates it, and the counts. */
static void judge_pairs(const cmp_settings *s, cmp_result *r)
{
    for (size_t i = 0; i < r->npairs; i++) {
        cmp_pair *p = &r->pairs[i];
        p->time.verdict = cmp_judge(&p->time, s, r->floor_time);
        p->eff.verdict = isfinite(p->eff.ratio)
                             ? cmp_judge(&p->eff, s, r->floor_eff)
                             : CMP_NO_ROOF;
        /* a row without a roof on a side is gated on its time */
        const cmp_verdict v = s->by_efficiency && p->eff.verdict != CMP_NO_ROOF
                                  ? p->eff.verdict
                                  : p->time.verdict;
        p->gated_by_time = !s->by_efficiency || p->eff.verdict == CMP_NO_ROOF;
        p->gated_slower = v == CMP_SLOWER;
        r->slower += v == CMP_SLOWER;
        r->faster += v == CMP_FASTER;
        r->unchanged += v == CMP_UNCHANGED;
        r->unreliable += v == CMP_UNRELIABLE;
        r->no_roof += p->eff.verdict == CMP_NO_ROOF;
    }
}

int cmp_compare(const cmp_doc *base, const cmp_doc *cur,
                const cmp_settings *s, cmp_result *r, rb_err *e)
{
    memset(r, 0, sizeof(*r));
    r->pairs = calloc(base->nrows, sizeof(*r->pairs));
    r->only_base = calloc(base->nrows, sizeof(*r->only_base));
    r->only_cur = calloc(cur->nrows, sizeof(*r->only_cur));
    double lt = 0.0, le = 0.0;
    size_t ne = 0;
    if (!r->pairs || !r->only_base || !r->only_cur ||
        match_rows(base, cur, s, r, &lt, &le, &ne) || noise_spreads(r) ||
        (s->holm && holm_all(r))) {
        cmp_result_free(r);
        return rb_fail(e, RB_EINPUT, "out of memory");
    }
    /* at most noise_cap: when a large share of the rows changed, their
     * spread is no longer noise, and a change beyond the cap is called
     * whatever the others did; with several runs a side the test itself
     * sees the drift between runs: no floor beyond the threshold */
    const double z = base->nruns > 1 && cur->nruns > 1 ? 0.0 : s->noise_z;
    r->floor_time = fmax(1.0 + s->threshold,
                         fmin(s->noise_cap, exp(z * r->spread_time)));
    r->floor_eff = fmax(1.0 + s->threshold,
                        fmin(s->noise_cap, exp(z * r->spread_eff)));
    judge_pairs(s, r);
    for (size_t j = 0; j < cur->nrows; j++)
        if (!find(base, cur->rows[j].key))
            r->only_cur[r->nonly_cur++] = &cur->rows[j];
    r->geo_time = r->npairs ? exp(lt / (double)r->npairs) : NAN;
    r->geo_eff = ne ? exp(le / (double)ne) : NAN;
    return RB_OK;
}

void cmp_result_free(cmp_result *r)
{
    free(r->pairs);
    free(r->only_base);
    free(r->only_cur);
    memset(r, 0, sizeof(*r));
}
