/* The network roof's arithmetic: the link fit, the crossover, the
 * result's storage and the link read back from a network document. */
#include "network.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stats.h"

double net_timing_min(const net_timing *t)
{
    double m = INFINITY;
    for (int i = 0; i < t->n; i++)
        if (t->s[i] < m)
            m = t->s[i];
    return t->n ? m : NAN;
}

double net_timing_median(const net_timing *t)
{
    return t->n ? stats_median(t->s, (size_t)t->n) : NAN;
}

int net_fit_link(const uint64_t *bytes, const double *t, size_t n,
                 net_link *out, double *residual, char *why, size_t whylen)
{
    memset(out, 0, sizeof(*out));
    if (n < 2) {
        snprintf(why, whylen, "%zu message size%s: the fit needs 2", n,
                 n == 1 ? "" : "s");
        return -1;
    }
    /* minimise sum w (t - a - b x)^2 with w = 1/t^2: the normal equations
     * of a weighted straight line */
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(t[i] > 0) || !isfinite(t[i])) {
            snprintf(why, whylen, "the time at %llu bytes is not positive",
                     (unsigned long long)bytes[i]);
            return -1;
        }
        const double w = 1.0 / (t[i] * t[i]), x = (double)bytes[i];
        sw += w;
        sx += w * x;
        sy += w * t[i];
        sxx += w * x * x;
        sxy += w * x * t[i];
    }
    const double det = sw * sxx - sx * sx;
    double b = det != 0 ? (sw * sxy - sx * sy) / det : 0;
    double a = det != 0 ? (sy - b * sx) / sw : 0;
    if (a < 0) { /* no negative latency: the best line through 0 */
        a = 0;
        b = sxy / sxx;
    }
    if (!(b > 0)) {
        snprintf(why, whylen,
                 "the time does not grow with the size (no bandwidth to fit)");
        return -1;
    }
    out->latency = a;
    out->bandwidth = 1.0 / b;
    out->n = n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        const double r = (a + b * (double)bytes[i]) / t[i] - 1.0;
        if (residual)
            residual[i] = r;
        ss += r * r;
        if (fabs(r) > out->max_rel) {
            out->max_rel = fabs(r);
            out->max_rel_bytes = bytes[i];
        }
    }
    out->rms_rel = sqrt(ss / (double)n);
    return 0;
}

int net_window(const net_plan *p, uint64_t bytes)
{
    const uint64_t w = p->buffer_budget / bytes;
    return (int)(w < 1 ? 1 : w > NET_WINDOW ? NET_WINDOW : w);
}

uint64_t net_receive_bytes(const net_plan *p)
{
    uint64_t most = p->sizes[p->nsizes - 1];
    if (p->parts & NET_BANDWIDTH)
        for (size_t i = 0; i < p->nsizes; i++) {
            const uint64_t w = (uint64_t)net_window(p, p->sizes[i]);
            if (w * p->sizes[i] > most)
                most = w * p->sizes[i];
        }
    return most;
}

double net_predicted_crossover(int ranks, unsigned el, double c, double w)
{
    return (double)(ranks - 1) * (double)el * c / w;
}

double net_crossover(const double *x, const double *ratio, size_t n,
                     double limit, int *status)
{
    if (n == 0 || ratio[n - 1] > limit) {
        *status = NET_CROSS_NEVER;
        return NAN;
    }
    size_t i = n - 1; /* the first point of the run that stays at or below */
    while (i > 0 && ratio[i - 1] <= limit)
        i--;
    if (i == 0) {
        *status = NET_CROSS_BEFORE;
        return x[0];
    }
    *status = NET_CROSS_FOUND;
    /* log ratio linear in log x between x[i-1] (above) and x[i] */
    const double l0 = log(ratio[i - 1] / limit), l1 = log(ratio[i] / limit);
    const double f = l0 == l1 ? 1.0 : l0 / (l0 - l1);
    return exp(log(x[i - 1]) + f * (log(x[i]) - log(x[i - 1])));
}

size_t net_w_index(const net_shard_shape *s, size_t k, size_t j)
{
    return (j / s->fc) * s->dl * s->fc + k * s->fc + j % s->fc;
}

size_t net_out_index(const net_shard_shape *s, size_t i, size_t j)
{
    return (j / s->fc) * s->b * s->fc + i * s->fc + j % s->fc;
}

static double value(const void *buf, size_t i, rb_dtype dt)
{
    return dt == RB_F32 ? (double)((const float *)buf)[i]
                        : ((const double *)buf)[i];
}

void net_freivalds_rhs(const net_shard_shape *s, const void *a, const void *w,
                       const double *x, double *u, double *ua, double *y,
                       double *ya)
{
    for (size_t k = 0; k < s->dl; k++) {
        double v = 0, va = 0;
        for (size_t j = 0; j < s->f; j++) {
            const double wk = value(w, net_w_index(s, k, j), s->dt);
            v += wk * x[j];
            va += fabs(wk) * fabs(x[j]);
        }
        u[k] = v;
        ua[k] = va;
    }
    for (size_t i = 0; i < s->b; i++) {
        double v = 0, va = 0;
        for (size_t k = 0; k < s->dl; k++) {
            const double ak = value(a, i * s->dl + k, s->dt);
            v += ak * u[k];
            va += fabs(ak) * ua[k];
        }
        y[i] = v;
        ya[i] = va;
    }
}

double net_freivalds_error(const net_shard_shape *s, const void *out,
                           const double *x, const double *y, const double *ya,
                           double *z, size_t *worst)
{
    double most = 0;
    *worst = 0;
    for (size_t i = 0; i < s->b; i++) {
        double v = 0;
        for (size_t j = 0; j < s->f; j++)
            v += value(out, net_out_index(s, i, j), s->dt) * x[j];
        z[i] = v;
        const double err = ya[i] > 0 ? fabs(v - y[i]) / ya[i] : fabs(v - y[i]);
        if (!(err <= most)) { /* a NaN is the worst */
            most = isnan(err) ? INFINITY : err;
            *worst = i;
        }
    }
    return most;
}

int net_result_init(net_result *r, const net_plan *p, rb_err *e)
{
    memset(r, 0, sizeof(*r));
    r->shard_cap = (size_t)p->ndtypes * p->nbatch * p->nd;
    if (r->shard_cap) {
        r->shard = calloc(r->shard_cap, sizeof(*r->shard));
        if (!r->shard)
            return rb_fail(e, RB_EINPUT, "out of memory for %zu points",
                           r->shard_cap);
    }
    return RB_OK;
}

void net_result_free(net_result *r)
{
    free(r->shard);
    r->shard = NULL;
    r->nshard = r->shard_cap = 0;
}

/* The network document at path, or in the folder path names. */
static json_t *network_doc(const char *path, char *file, size_t flen,
                           rb_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        rb_fail(e, RB_EINPUT, "--network '%s': %s", path, strerror(errno));
        return NULL;
    }
    snprintf(file, flen, "%s%s", path,
             S_ISDIR(st.st_mode) ? "/network.json" : "");
    if (S_ISDIR(st.st_mode) && stat(file, &st) != 0) {
        rb_fail(e, RB_EINPUT, "--network '%s': no network.json in it", path);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        rb_fail(e, RB_EINPUT, "--network '%s': not a file", file);
        return NULL;
    }
    json_error_t je;
    json_t *doc = json_load_file(file, 0, &je);
    if (!doc)
        rb_fail(e, RB_EINPUT, "--network '%s': %s (line %d)", file, je.text,
                je.line);
    return doc;
}

/* Whether doc is a whole network document of this build's schema,
 * measured on host (where given). */
static int network_whole(const json_t *doc, const char *file,
                         const char *host, rb_err *e)
{
    const char *schema = NULL, *status = NULL, *doc_host = NULL;
    json_int_t version = 0;
    if (json_unpack((json_t *)doc, "{s:s, s:I, s:s, s:{s:s}}", "schema",
                    &schema, "schema_version", &version, "status", &status,
                    "context", "host", &doc_host) != 0 ||
        strcmp(schema, "roofbench.network") != 0)
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': not a roofbench network document",
                       file);
    if (version != NET_SCHEMA_VERSION)
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': schema version %lld, this build reads "
                       "%d",
                       file, (long long)version, NET_SCHEMA_VERSION);
    if (strcmp(status, "complete") != 0)
        return rb_fail(e, RB_EINPUT, "--network '%s': its run is %s", file,
                       status);
    if (host && strcmp(doc_host, host) != 0)
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': measured on %s, not on this host (%s)",
                       file, doc_host, host);
    return RB_OK;
}

/* The fitted link `member` of doc, if it is one a link can be: 1 kB/s to
 * 10 TB/s, under a second of latency, residuals that are residuals, a
 * fit of 2 sizes or more. 1 where the document says it is unavailable. */
static int fitted_link(const json_t *doc, const char *file,
                       const char *member, net_link *out, char *label,
                       size_t labellen, rb_err *e)
{
    const json_t *l = json_object_get(doc, member);
    const char *why = json_string_value(json_object_get(l, "unavailable"));
    if (why)
        return rb_fail(e, 1, "--network '%s': no %s: %s", file, member, why);
    const char *lab = NULL;
    double lat = -1, bw = -1, rms = 0, mx = 0;
    json_int_t n = 0;
    if (json_unpack((json_t *)l, "{s:s, s:F, s:F, s:F, s:F, s:I}", "label",
                    &lab, "latency_s", &lat, "bandwidth_Bps", &bw,
                    "rms_relative_residual", &rms, "max_relative_residual", &mx,
                    "sizes", &n) != 0)
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': no fitted %s (latency_s, "
                       "bandwidth_Bps)",
                       file, member);
    if (!(bw >= 1e3 && bw <= 1e13))
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': %s.bandwidth_Bps %g is not between "
                       "1e3 and 1e13",
                       file, member, bw);
    if (!(lat >= 0 && lat <= 1))
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': %s.latency_s %g is not between 0 "
                       "and 1",
                       file, member, lat);
    if (!(rms >= 0 && rms < 1e6) || !(mx >= 0 && mx < 1e6))
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': %s's residuals are not plausible",
                       file, member);
    if (n < 2)
        return rb_fail(e, RB_EINPUT,
                       "--network '%s': %s was fitted to %lld size%s", file,
                       member, (long long)n, rb_plural(n));
    *out = (net_link){.latency = lat,
                      .bandwidth = bw,
                      .rms_rel = rms,
                      .max_rel = mx,
                      .n = (size_t)n};
    snprintf(label, labellen, "%s", lab);
    return RB_OK;
}

int net_link_load(const char *path, const char *host, const char *member,
                  net_link *out, char *label, size_t labellen, rb_err *e)
{
    char file[4096];
    json_t *doc = network_doc(path, file, sizeof(file), e);
    if (!doc)
        return RB_EINPUT;
    int rc = network_whole(doc, file, host, e);
    if (!rc)
        rc = fitted_link(doc, file, member, out, label, labellen, e);
    json_decref(doc);
    return rc;
}
