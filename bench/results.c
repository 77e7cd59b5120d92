#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

void results_utc(char *iso, size_t isolen, char *stamp, size_t stamplen)
{
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    if (iso)
        strftime(iso, isolen, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (stamp)
        strftime(stamp, stamplen, "%Y%m%dT%H%M%SZ", &tm);
}

/* mkdir -p; returns 0 or -1 with errno set. */
static int make_dirs(const char *path)
{
    char buf[4096];
    if (strlen(path) >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(buf, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Whether dir already holds any file a run or a ceilings measurement
 * writes. */
static int holds_results(const char *dir)
{
    static const char *const names[] = {"results.json", "results.csv",
                                        "ceilings.json", "bandwidth.csv",
                                        "levels.csv"};
    char p[4200];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
        if (access(p, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* The deepest existing ancestor of path must be a writable folder. */
static int check_creatable(const char *flag, const char *path, rb_err *e)
{
    char buf[4096];
    if (strlen(path) >= sizeof(buf))
        return rb_fail(e, RB_EINPUT, "%s '%s': path too long", flag, path);
    strcpy(buf, path);
    for (;;) {
        struct stat st;
        if (stat(buf, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return rb_fail(e, RB_EINPUT,
                               "%s '%s': '%s' exists and is not a folder",
                               flag, path, buf);
            if (access(buf, W_OK | X_OK) != 0)
                return rb_fail(e, RB_EINPUT,
                               "%s '%s': folder '%s' is not writable: %s",
                               flag, path, buf, strerror(errno));
            return RB_OK;
        }
        if (errno != ENOENT)
            return rb_fail(e, RB_EINPUT, "%s '%s': cannot use '%s': %s", flag,
                           path, buf, strerror(errno));
        char *slash = strrchr(buf, '/');
        if (!slash) {
            strcpy(buf, ".");
        } else if (slash == buf) {
            buf[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
}

int results_check_dest(const char *root, const char *out, rb_err *e)
{
    if (out) {
        if (holds_results(out))
            return rb_fail(e, RB_EINPUT,
                           "--out '%s': the folder already holds results; "
                           "results are never overwritten, choose a new "
                           "folder",
                           out);
        return check_creatable("--out", out, e);
    }
    return check_creatable("results folder", root, e);
}

int results_make_dir(const char *root, const char *out, char *path,
                     size_t len, rb_err *e)
{
    if (out) {
        const int rc = results_check_dest(NULL, out, e);
        if (rc)
            return rc;
        if (make_dirs(out) != 0)
            return rb_fail(e, RB_EINPUT, "--out '%s': cannot create: %s", out,
                           strerror(errno));
        snprintf(path, len, "%s", out);
        return RB_OK;
    }
    if (make_dirs(root) != 0)
        return rb_fail(e, RB_EINPUT, "results folder '%s': cannot create: %s",
                       root, strerror(errno));
    char host[64], stamp[32];
    host_name(host, sizeof(host));
    results_utc(NULL, 0, stamp, sizeof(stamp));
    for (int i = 1; i < 1000; i++) {
        if (i == 1)
            snprintf(path, len, "%s/%s-%s", root, host, stamp);
        else
            snprintf(path, len, "%s/%s-%s-%d", root, host, stamp, i);
        if (mkdir(path, 0777) == 0)
            return RB_OK;
        if (errno != EEXIST)
            return rb_fail(e, RB_EINPUT, "cannot create run folder '%s': %s",
                           path, strerror(errno));
    }
    return rb_fail(e, RB_EINPUT, "no free run folder name under '%s'", root);
}

int results_write_file(const char *dir, const char *name, const char *data,
                       size_t len, rb_err *e)
{
    char tmp[4200], final[4200];
    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name);
    snprintf(final, sizeof(final), "%s/%s", dir, name);
    const int fd = mkstemp(tmp);
    if (fd < 0)
        return rb_fail(e, RB_EINPUT, "cannot write in '%s': %s", dir,
                       strerror(errno));
    size_t done = 0;
    while (done < len) {
        const ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            const int err = errno;
            close(fd);
            unlink(tmp);
            return rb_fail(e, RB_EINPUT, "writing '%s': %s", final,
                           strerror(err));
        }
        done += (size_t)w;
    }
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0 || close(fd) != 0) {
        const int err = errno;
        unlink(tmp);
        return rb_fail(e, RB_EINPUT, "writing '%s': %s", final,
                       strerror(err));
    }
    /* link() refuses to replace an existing name, unlike rename(). */
    if (link(tmp, final) != 0) {
        const int err = errno;
        unlink(tmp);
        return rb_fail(e, RB_EINPUT, "'%s' %s", final,
                       err == EEXIST ? "already exists: not overwritten"
                                     : strerror(err));
    }
    unlink(tmp);
    return RB_OK;
}

json_t *results_num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}


static double rate(uint64_t count, double seconds, double unit)
{
    return seconds > 0.0 ? (double)count / seconds / unit : NAN;
}

double results_row_gflops(const harness_row *r)
{
    return rate(r->counts.flops, r->time.min, 1e9);
}

/* The row's place on the host roofline, or null when the roofline has no
 * team of its thread count. */
static json_t *roof_json(const harness_row *r, const roofline *roof)
{
    roof_bound b;
    if (!roof || roofline_bound(roof, r->threads, r->dtype, r->counts.flops,
                                r->counts.bytes, results_row_gflops(r),
                                &b) != 0)
        return json_null();
    return json_pack("{s:s, s:f, s:f, s:f, s:s, s:f}", "level", b.level.name,
                     "level_gbs", b.level.gbs, "peak_gflops", b.peak_gflops,
                     "attainable_gflops", b.attainable_gflops, "binds",
                     b.compute_bound ? "compute" : b.level.name,
                     "fraction_of_attainable", b.fraction);
}

/* The counters of a row: per event the count per call, or unavailable
 * with PAPI's reason; never a 0 in place of a count. */
static json_t *counters_row_json(const harness_row *r)
{
    const counters_events *ev = r->events;
    json_t *events = json_object();
    for (int i = 0; i < ev->n; i++) {
        if (r->counted && ev->usable[i])
            json_object_set_new(
                events, ev->name[i],
                results_num((double)r->ctr_counts[i] /
                            (double)r->counted_reps));
        else
            json_object_set_new(events, ev->name[i],
                                json_pack("{s:s}", "unavailable",
                                          ev->reason[i][0]
                                              ? ev->reason[i]
                                              : "not counted"));
    }
    json_t *o = json_pack("{s:o, s:s}", "per_call", events, "counted",
                          r->counted ? "one extra sample, every thread "
                                       "between start and stop, summed"
                                     : "no event can be counted here");
    if (r->counted)
        json_object_set_new(o, "calls", json_integer((json_int_t)r->counted_reps));
    if (r->counted_note[0])
        json_object_set_new(o, "note", json_string(r->counted_note));
    return o;
}

json_t *results_row_json(const harness_row *r, const roofline *roof)
{
    json_t *samples = json_array();
    for (int i = 0; i < r->nsamples; i++)
        json_array_append_new(samples, results_num(r->samples[i]));
    json_t *binding = json_array();
    char buf[sizeof(r->binding)];
    strcpy(buf, r->binding);
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
        json_array_append_new(binding, json_string(tok));
    const double tmin = r->time.min, tmed = r->time.median;
    json_t *row = json_pack(
        "{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:I}, s:i, s:o, s:o, s:I, s:I, "
        "s:b, s:o, s:I, s:o, "
        "s:{s:o, s:o, s:o, s:o, s:o}, s:{s:o, s:o}, s:{s:o, s:o}, "
        "s:{s:o, s:o, s:o, s:b}, s:o}",
        "kernel", r->kernel->name, "op", rb_op_name(r->kernel->op), "form",
        r->kernel->form, "dtype", rb_dtype_name(r->dtype), "shape", "n",
        (json_int_t)r->shape.n, "p", (json_int_t)r->shape.p, "m",
        (json_int_t)r->shape.m, "threads", r->threads, "library_threads",
        r->library_threads ? json_integer(r->library_threads) : json_null(),
        "binding", binding, "flops", (json_int_t)r->counts.flops, "bytes",
        (json_int_t)r->counts.bytes, "output_read", r->kernel->output_read,
        "intensity",
        results_num((double)r->counts.flops / (double)r->counts.bytes),
        "calls_per_sample", (json_int_t)r->reps, "samples_s", samples,
        "time_s", "min", results_num(tmin), "median", results_num(tmed),
        "mean", results_num(r->time.mean), "max", results_num(r->time.max),
        "cv", results_num(r->time.cv), "gflop_per_s", "best",
        results_num(rate(r->counts.flops, tmin, 1e9)), "median",
        results_num(rate(r->counts.flops, tmed, 1e9)), "gbyte_per_s", "best",
        results_num(rate(r->counts.bytes, tmin, 1e9)), "median",
        results_num(rate(r->counts.bytes, tmed, 1e9)), "verify",
        "max_rel_err_before", results_num(r->check_before.max_err),
        "max_rel_err_after", results_num(r->check_after.max_err), "tolerance",
        results_num(r->check_after.tol), "passed",
        r->check_before.passed && r->check_after.passed, "roofline",
        roof_json(r, roof));
    if (r->events)
        json_object_set_new(row, "counters", counters_row_json(r));
    return row;
}

/* Appends printf output to a growing buffer. */
typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} strbuf;

__attribute__((format(printf, 2, 3))) static void sb_printf(strbuf *b,
                                                            const char *fmt,
                                                            ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        const int n = vsnprintf(b->s ? b->s + b->len : NULL,
                                b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        const size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

char *results_csv(const harness_result *res, const roofline *roof)
{
    strbuf b = {0};
    sb_printf(&b, "kernel,op,form,dtype,n,p,m,threads,library_threads,"
                  "binding,flops,bytes,intensity,calls_per_sample,samples,"
                  "time_min_s,time_median_s,time_mean_s,cv,gflops_best,"
                  "gflops_median,gbytes_best,gbytes_median,verify_max_rel_err,"
                  "verify_tolerance,roof_level,roof_attainable_gflops,"
                  "roof_binds,roof_fraction\n");
    for (size_t i = 0; i < res->nrows; i++) {
        const harness_row *r = &res->rows[i];
        const double err = fmax(r->check_before.max_err,
                                 r->check_after.max_err);
        sb_printf(&b,
                  "%s,%s,%s,%s,%zu,%zu,%zu,%d,%d,\"%s\",%llu,%llu,%.9g,%llu,"
                  "%d,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,%.3g,",
                  r->kernel->name, rb_op_name(r->kernel->op), r->kernel->form,
                  rb_dtype_name(r->dtype), r->shape.n, r->shape.p, r->shape.m,
                  r->threads, r->library_threads, r->binding,
                  (unsigned long long)r->counts.flops,
                  (unsigned long long)r->counts.bytes,
                  (double)r->counts.flops / (double)r->counts.bytes,
                  (unsigned long long)r->reps, r->nsamples, r->time.min,
                  r->time.median, r->time.mean, r->time.cv,
                  rate(r->counts.flops, r->time.min, 1e9),
                  rate(r->counts.flops, r->time.median, 1e9),
                  rate(r->counts.bytes, r->time.min, 1e9),
                  rate(r->counts.bytes, r->time.median, 1e9), err,
                  r->check_after.tol);
        roof_bound rb;
        if (roof && roofline_bound(roof, r->threads, r->dtype, r->counts.flops,
                                   r->counts.bytes, results_row_gflops(r),
                                   &rb) == 0)
            sb_printf(&b, "%s,%.6g,%s,%.4g\n", rb.level.name,
                      rb.attainable_gflops,
                      rb.compute_bound ? "compute" : rb.level.name,
                      rb.fraction);
        else
            sb_printf(&b, ",,,\n");
    }
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

int results_write_run(const char *dir, json_t *context,
                      const harness_result *res, const roofline *roof,
                      const char *status, const char *error, rb_err *e)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < res->nrows; i++)
        json_array_append_new(rows, results_row_json(&res->rows[i], roof));
    json_t *doc = json_pack("{s:s, s:i, s:s, s:s?, s:O, s:o}", "schema",
                            "roofbench.run", "schema_version",
                            RESULTS_SCHEMA_VERSION, "status", status, "error",
                            error, "context", context, "rows", rows);
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(
                                                            17))
                     : NULL;
    json_decref(doc);
    char *csv = results_csv(res, roof);
    int rc = RB_OK;
    if (!text || !csv)
        rc = rb_fail(e, RB_EINPUT, "out of memory formatting results");
    if (rc == RB_OK)
        rc = results_write_file(dir, "results.json", text, strlen(text), e);
    if (rc == RB_OK)
        rc = results_write_file(dir, "results.csv", csv, strlen(csv), e);
    free(text);
    free(csv);
    return rc;
}
