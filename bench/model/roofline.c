#include "roofline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "text.h"

int roofline_level_name_ok(const char *name)
{
    return text_is_name(name, 15, "-");
}

/* Plausible figures of one host: a tenth of a MB/s to ten PB/s, a
 * thousandth of a GFLOP/s to an EFLOP/s, working sets of a byte to an
 * exabyte. A document outside them was edited or broken. */
static const struct {
    const char *what;
    double lo, hi;
} ranges[] = {
    {"a bandwidth in GB/s", 1e-3, 1e7},
    {"a peak in GFLOP/s", 1e-3, 1e9},
    {"a working set in bytes", 1.0, 1e18},
    {"a spread (a fraction, 0 to 10)", 0.0, 10.0},
};
enum { R_GBS, R_GFLOPS, R_BYTES, R_SPREAD };

typedef struct {
    const char *what; /* "--ceilings 'file'" */
    rb_err *e;
} reader;

/* The number at o[key] (o an array index when key is NULL), checked
 * against its range; field names it in the error, e.g.
 * "roofline[0].levels[1].gbs". */
static int number(reader *rd, const json_t *v, const char *field, int range,
                  int required, double *out)
{
    if (!v && !required) {
        *out = 0.0;
        return RB_OK;
    }
    if (!json_is_number(v))
        return rb_fail(rd->e, RB_EINPUT, "%s: %s: %s", rd->what, field,
                       v ? "not a number" : "missing");
    const double x = json_number_value(v);
    if (!(x >= ranges[range].lo && x <= ranges[range].hi))
        return rb_fail(rd->e, RB_EINPUT, "%s: %s = %g: not %s (%g to %g)",
                       rd->what, field, x, ranges[range].what, ranges[range].lo,
                       ranges[range].hi);
    *out = x;
    return RB_OK;
}

static int read_level(reader *rd, const json_t *lv, const char *at,
                      roof_level *l)
{
    char field[160];
    const char *name = json_string_value(json_object_get(lv, "name"));
    if (!name || !roofline_level_name_ok(name)) {
        char shown[64];
        text_escape(name ? name : "", shown, sizeof(shown));
        return rb_fail(rd->e, RB_EINPUT,
                       "%s: %s.name: '%s' is not a level name (letters, "
                       "digits and '-', at most 15)",
                       rd->what, at, shown);
    }
    snprintf(l->name, sizeof(l->name), "%s", name);
    const char *kernel = json_string_value(json_object_get(lv, "kernel"));
    if (!kernel || !text_is_name(kernel, 15, ""))
        return rb_fail(rd->e, RB_EINPUT,
                       "%s: %s.kernel: not a bandwidth kernel's name", rd->what,
                       at);
    snprintf(l->kernel, sizeof(l->kernel), "%s", kernel);
    static const char *const keys[4] = {"gbs", "spread", "starts_bytes",
                                        "ends_bytes"};
    static const int range[4] = {R_GBS, R_SPREAD, R_BYTES, R_BYTES};
    double *dst[4] = {&l->gbs, &l->spread, &l->starts_bytes, &l->ends_bytes};
    for (int k = 0; k < 4; k++) {
        snprintf(field, sizeof(field), "%.100s.%s", at, keys[k]);
        const int rc = number(rd, json_object_get(lv, keys[k]), field, range[k],
                              1, dst[k]);
        if (rc)
            return rc;
    }
    if (l->ends_bytes < l->starts_bytes)
        return rb_fail(rd->e, RB_EINPUT, "%s: %s ends before it starts",
                       rd->what, at);
    return RB_OK;
}

static int read_curve(reader *rd, const json_t *curve, const char *at,
                      roof_bw *b)
{
    size_t j;
    json_t *pt;
    char field[160];
    json_array_foreach(curve, j, pt)
    {
        if (b->npoints == ROOF_MAX_POINTS)
            break;
        snprintf(field, sizeof(field), "%.100s.curve[%zu]", at, j);
        int rc = number(rd, json_array_get(pt, 0), field, R_BYTES, 1,
                        &b->curve_bytes[b->npoints]);
        if (!rc)
            rc = number(rd, json_array_get(pt, 1), field, R_GBS, 1,
                        &b->curve_gbs[b->npoints]);
        if (rc)
            return rc;
        b->npoints++;
    }
    return RB_OK;
}

/* Whether level n of b comes after those before it as the detector finds
 * plateaus: it starts where the one before ends or later, under a name
 * none of them has, so neither a level twice nor levels out of order
 * (roof_bw_level would find the first of two, and the bound look sizes up
 * in the wrong place). */
static int level_follows(const roof_bw *b, size_t n)
{
    const roof_level *l = &b->levels[n];
    for (size_t i = 0; i < n; i++)
        if (strcmp(l->name, b->levels[i].name) == 0)
            return 0;
    return n == 0 || l->starts_bytes >= b->levels[n - 1].ends_bytes;
}

/* One entry of a team's "roofs": its mix (once each), levels and curve. */
static int read_roof(reader *rd, const json_t *roof, int ti, size_t ri,
                     roof_team *t)
{
    char at[96], field[160];
    snprintf(at, sizeof(at), "roofline[%d].roofs[%zu]", ti, ri);
    const char *mix = json_string_value(json_object_get(roof, "mix"));
    int m = -1;
    for (int k = 0; mix && k < RB_NACCESS; k++)
        if (strcmp(mix, rb_access_name((rb_access)k)) == 0)
            m = k;
    if (m < 0)
        return rb_fail(rd->e, RB_EINPUT, "%s: %s.mix: not read or mixed",
                       rd->what, at);
    roof_bw *b = &t->bw[m];
    if (b->present)
        return rb_fail(rd->e, RB_EINPUT, "%s: %s: the %s roof twice", rd->what,
                       at, mix);
    b->present = 1;
    size_t j;
    json_t *lv;
    json_array_foreach(json_object_get(roof, "levels"), j, lv)
    {
        if (b->nlevels == ROOF_MAX_LEVELS)
            break;
        snprintf(field, sizeof(field), "%s.levels[%zu]", at, j);
        const int rc = read_level(rd, lv, field, &b->levels[b->nlevels]);
        if (rc)
            return rc;
        if (!level_follows(b, b->nlevels))
            return rb_fail(rd->e, RB_EINPUT,
                           "%s: %s: level %s after %s: the levels of a roof "
                           "are the plateaus from the smallest working set "
                           "up, each once and after the last one ends",
                           rd->what, field, b->levels[b->nlevels].name,
                           b->levels[b->nlevels - 1].name);
        b->nlevels++;
    }
    return read_curve(rd, json_object_get(roof, "curve"), at, b);
}

static int read_team(reader *rd, const json_t *team, int ti, roof_team *t)
{
    memset(t, 0, sizeof(*t));
    char field[96];
    const json_t *th = json_object_get(team, "threads");
    if (!json_is_integer(th) || json_integer_value(th) < 1 ||
        json_integer_value(th) > 4096)
        return rb_fail(rd->e, RB_EINPUT,
                       "%s: roofline[%d].threads: not a thread count", rd->what,
                       ti);
    t->threads = (int)json_integer_value(th);
    const json_t *peak = json_object_get(team, "peak_gflops");
    const json_t *spread = json_object_get(team, "peak_spread");
    for (int d = 0; d < RB_NDTYPES; d++) {
        const char *dn = rb_dtype_name((rb_dtype)d);
        snprintf(field, sizeof(field), "roofline[%d].peak_gflops.%s", ti, dn);
        int rc = number(rd, json_object_get(peak, dn), field, R_GFLOPS, 0,
                        &t->peak_gflops[d]);
        snprintf(field, sizeof(field), "roofline[%d].peak_spread.%s", ti, dn);
        if (!rc)
            rc = number(rd, json_object_get(spread, dn), field, R_SPREAD,
                        t->peak_gflops[d] > 0.0, &t->peak_spread[d]);
        if (rc)
            return rc;
    }
    size_t j;
    json_t *roof;
    json_array_foreach(json_object_get(team, "roofs"), j, roof)
    {
        const int rc = read_roof(rd, roof, ti, j, t);
        if (rc)
            return rc;
    }
    if (!t->bw[RB_ACCESS_READ].present)
        return rb_fail(rd->e, RB_EINPUT,
                       "%s: roofline[%d]: no read roof (the read kernels were "
                       "not swept)",
                       rd->what, ti);
    return RB_OK;
}

int roofline_from_doc(const json_t *doc, const char *what, roofline *r,
                      rb_err *e)
{
    memset(r, 0, sizeof(*r));
    reader rd = {.what = what, .e = e};
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    const json_t *ver = json_object_get(doc, "schema_version");
    if (!schema || strcmp(schema, "roofbench.ceilings") != 0)
        return rb_fail(
            e, RB_EINPUT, "%s: not a roofbench ceilings file (schema %s)", what,
            schema && text_is_name(schema, 40, ".") ? schema : "missing");
    if (!json_is_integer(ver) ||
        json_integer_value(ver) != CEILINGS_SCHEMA_VERSION)
        return rb_fail(e, RB_EINPUT,
                       "%s: schema version %lld, this roofbench reads version "
                       "%d",
                       what,
                       json_is_integer(ver) ? json_integer_value(ver) : -1,
                       CEILINGS_SCHEMA_VERSION);
    /* every ceilings document roofbench writes says how it ended: one
     * without a word of it was not written whole by roofbench */
    const json_t *sv = json_object_get(doc, "status");
    const char *status = json_string_value(sv);
    if (!status || strcmp(status, "complete") != 0)
        return rb_fail(e, RB_EINPUT,
                       "%s: the measurement did not complete (status %s): "
                       "measure the ceilings again",
                       what,
                       !sv                              ? "missing"
                       : !status                        ? "not text"
                       : text_is_name(status, 20, "") ? status
                                                        : "unknown");
    const char *host = json_string_value(
        json_object_get(json_object_get(doc, "context"), "host"));
    if (!host || !*host)
        return rb_fail(e, RB_EINPUT,
                       "%s: no context.host (the machine it was measured "
                       "on): not a ceilings document roofbench wrote",
                       what);
    snprintf(r->host, sizeof(r->host), "%s", host);
    size_t i;
    json_t *team;
    json_array_foreach(json_object_get(doc, "roofline"), i, team)
    {
        if (r->nteams == ROOF_MAX_TEAMS)
            break;
        const int rc = read_team(&rd, team, (int)i, &r->teams[r->nteams]);
        if (rc)
            return rc;
        for (size_t k = 0; k < r->nteams; k++)
            if (r->teams[k].threads == r->teams[r->nteams].threads)
                return rb_fail(e, RB_EINPUT,
                               "%s: roofline[%zu]: %d threads twice", what, i,
                               r->teams[k].threads);
        r->nteams++;
    }
    if (r->nteams == 0)
        return rb_fail(e, RB_EINPUT, "%s: holds no roofline", what);
    return RB_OK;
}

/* Whether every team of r fits a machine of ncpus CPUs: one measured
 * with more threads than this machine has CPUs came from another machine
 * (or this one before it was resized), whatever its host name. The CPUs
 * the machine has, not those this process may use: a team the affinity
 * leaves out (taskset) is refused where it is asked for, and the others
 * serve. */
static int teams_fit(const roofline *r, int ncpus, const char *shown,
                     rb_err *e)
{
    for (size_t i = 0; i < r->nteams; i++)
        if (r->teams[i].threads > ncpus)
            return rb_fail(e, RB_EINPUT,
                           "--ceilings '%s': roofline[%zu] is a team of %d "
                           "threads, this machine has %d CPU%s: measured on "
                           "another machine",
                           shown, i, r->teams[i].threads, ncpus,
                           rb_plural(ncpus));
    return RB_OK;
}

int roofline_load(const char *path, const char *host, int ncpus, roofline *r,
                  json_t **doc, rb_err *e)
{
    char shown[512];
    text_escape(path, shown, sizeof(shown));
    *doc = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return rb_fail(e, RB_EINPUT, "--ceilings '%s': %s", shown,
                       strerror(errno));
    if (S_ISDIR(st.st_mode))
        return rb_fail(e, RB_EINPUT,
                       "--ceilings '%s': a folder, not a ceilings file (give "
                       "the ceilings.json in it)",
                       shown);
    /* a FIFO or a device would hang or never end */
    if (!S_ISREG(st.st_mode) || st.st_size > (64 << 20))
        return rb_fail(
            e, RB_EINPUT, "--ceilings '%s': %s, not a ceilings file", shown,
            S_ISREG(st.st_mode) ? "larger than 64 MiB" : "not a regular file");
    json_error_t je;
    /* a key given twice is refused: which of the two was meant? */
    *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!*doc)
        return rb_fail(e, RB_EINPUT, "--ceilings '%s': not JSON (line %d: %s)",
                       shown, je.line, je.text);
    char what[600];
    snprintf(what, sizeof(what), "--ceilings '%s'", shown);
    int rc = roofline_from_doc(*doc, what, r, e);
    if (rc == RB_OK && strcmp(r->host, host) != 0) {
        char other[64];
        text_escape(r->host, other, sizeof(other));
        rc = rb_fail(e, RB_EINPUT,
                     "--ceilings '%s': measured on host '%s', this is '%s'",
                     shown, other, host);
    }
    if (rc == RB_OK)
        rc = teams_fit(r, ncpus, shown, e);
    if (rc) {
        json_decref(*doc);
        *doc = NULL;
    }
    return rc;
}

const roof_bw *roof_team_read(const roof_team *t)
{
    return &t->bw[RB_ACCESS_READ];
}

const roof_level *roof_bw_level(const roof_bw *b, const char *name)
{
    for (size_t l = 0; l < b->nlevels; l++)
        if (strcmp(b->levels[l].name, name) == 0)
            return &b->levels[l];
    return NULL;
}

const roof_bw *roof_team_bw(const roof_team *t, rb_access mix)
{
    return mix < RB_NACCESS && t->bw[mix].present && t->bw[mix].nlevels > 0
               ? &t->bw[mix]
               : roof_team_read(t);
}

/* The envelope at working set ws, interpolated in log-log. */
static double curve_at(const roof_bw *b, double ws)
{
    for (size_t i = 1; i < b->npoints; i++)
        if (ws <= b->curve_bytes[i]) {
            const double x0 = log(b->curve_bytes[i - 1]),
                         x1 = log(b->curve_bytes[i]);
            const double y0 = log(b->curve_gbs[i - 1]),
                         y1 = log(b->curve_gbs[i]);
            const double f = x1 > x0 ? (log(ws) - x0) / (x1 - x0) : 0.0;
            return exp(y0 + f * (y1 - y0));
        }
    return b->npoints ? b->curve_gbs[b->npoints - 1] : 0.0;
}

/* The level a working set falls in. Inside a plateau: that level. Below
 * the first or past the last: the first or the last. Between two plateaus
 * (a transition, where the working set spills from one level to the
 * next): the bandwidth the envelope shows at that size, interpolated in
 * log-log, under the name of both levels, with the larger of their
 * spreads; the next level's figure when the document has no curve. */
static roof_level level_of(const roof_bw *b, double ws)
{
    roof_level lv = b->levels[b->nlevels - 1];
    if (ws <= b->levels[0].ends_bytes)
        lv = b->levels[0];
    for (size_t i = 0; i < b->nlevels; i++) {
        if (ws >= b->levels[i].starts_bytes && ws <= b->levels[i].ends_bytes)
            return b->levels[i];
        if (i + 1 < b->nlevels && ws > b->levels[i].ends_bytes &&
            ws < b->levels[i + 1].starts_bytes) {
            const roof_level *lo = &b->levels[i], *hi = &b->levels[i + 1];
            snprintf(lv.name, sizeof(lv.name), "%.7s>%.7s", lo->name, hi->name);
            snprintf(lv.kernel, sizeof(lv.kernel), "%s", lv.name);
            lv.starts_bytes = lo->ends_bytes;
            lv.ends_bytes = hi->starts_bytes;
            lv.gbs = b->npoints ? curve_at(b, ws) : hi->gbs;
            lv.spread = fmax(lo->spread, hi->spread);
            return lv;
        }
    }
    return lv;
}

int roofline_bound(const roofline *r, int threads, rb_dtype dt, rb_access mix,
                   uint64_t flops, uint64_t bytes, double measured_gflops,
                   roof_bound *out, char *why, size_t whylen)
{
    const roof_team *t = NULL;
    char have[128] = "";
    for (size_t i = 0; i < r->nteams; i++) {
        if (r->teams[i].threads == threads)
            t = &r->teams[i];
        snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%d",
                 i ? ", " : "", r->teams[i].threads);
    }
    if (!t) {
        snprintf(why, whylen, "no roofline for %d thread%s (it has %s)",
                 threads, rb_plural(threads), r->nteams ? have : "none");
        return -1;
    }
    if (t->peak_gflops[dt] <= 0.0) {
        snprintf(why, whylen, "no %s peak in the roofline for %d thread%s",
                 rb_dtype_name(dt), threads, rb_plural(threads));
        return -1;
    }
    /* a mixed kernel without a mixed roof: the read roof, said so */
    const roof_bw *b = roof_team_bw(t, mix);
    mix = b == roof_team_read(t) ? RB_ACCESS_READ : mix;
    if (b->nlevels == 0) {
        snprintf(why, whylen,
                 "no memory level in the roofline for %d thread%s (the read "
                 "curves were not measured)",
                 threads, rb_plural(threads));
        return -1;
    }
    const roof_level lv = level_of(b, (double)bytes);
    const double intensity = (double)flops / (double)bytes;
    const double mem_roof = intensity * lv.gbs;
    out->level = lv;
    out->mix = mix;
    out->peak_gflops = t->peak_gflops[dt];
    out->compute_bound = t->peak_gflops[dt] <= mem_roof;
    out->attainable_gflops = out->compute_bound ? t->peak_gflops[dt] : mem_roof;
    out->fraction = measured_gflops / out->attainable_gflops;
    out->spread = out->compute_bound ? t->peak_spread[dt] : lv.spread;
    out->above = out->fraction > 1.0 + out->spread;
    return 0;
}

const char *roof_bound_roof(const roof_bound *b)
{
    return b->compute_bound ? "compute" : b->level.kernel;
}

void roofline_describe(const roof_team *t, char *buf, size_t len)
{
    size_t n = 0;
#define ADD(...)                                                               \
    do {                                                                       \
        if (n < len)                                                           \
            n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);              \
    } while (0)
    ADD("roofline, %d thread%s: peak", t->threads, rb_plural(t->threads));
    for (int d = 0; d < RB_NDTYPES; d++)
        if (t->peak_gflops[d] > 0.0)
            ADD(" %s %.1f", rb_dtype_name((rb_dtype)d), t->peak_gflops[d]);
    ADD(" GFLOP/s");
    for (int m = 0; m < RB_NACCESS; m++) {
        const roof_bw *b = &t->bw[m];
        if (!b->present)
            continue;
        ADD("; %s", rb_access_name((rb_access)m));
        for (size_t l = 0; l < b->nlevels; l++)
            ADD(" %s %.1f (%s)%s", b->levels[l].name, b->levels[l].gbs,
                b->levels[l].kernel, l + 1 < b->nlevels ? "," : " GB/s");
    }
#undef ADD
}

/* The team the host profile describes: the largest; NULL: none. */
static const roof_team *largest_team(const roofline *r)
{
    const roof_team *t = NULL;
    for (size_t i = 0; i < r->nteams; i++)
        if (!t || r->teams[i].threads > t->threads)
            t = &r->teams[i];
    return t;
}

rb_access roofline_profile_mix(const roofline *r, rb_access mix)
{
    const roof_team *t = largest_team(r);
    if (!t)
        return RB_ACCESS_READ;
    const roof_bw *b = roof_team_bw(t, mix);
    return b != roof_team_read(t) && roof_bw_level(b, "DRAM") ? mix
                                                              : RB_ACCESS_READ;
}

int roofline_to_profile(const roofline *r, rb_access mix, profile *p,
                        rb_err *e)
{
    memset(p, 0, sizeof(*p));
    const roof_team *t = largest_team(r);
    if (!t)
        return rb_fail(e, RB_EINPUT, "the host ceilings hold no roofline");
    const roof_level *dram = roof_bw_level(roof_team_read(t), "DRAM");
    if (!dram)
        return rb_fail(e, RB_EINPUT,
                       "the host ceilings (%d thread%s) show no DRAM plateau: "
                       "the read sweep must reach past the last cache",
                       t->threads, rb_plural(t->threads));
    mix = roofline_profile_mix(r, mix);
    if (mix != RB_ACCESS_READ)
        dram = roof_bw_level(roof_team_bw(t, mix), "DRAM");
    snprintf(p->id, sizeof(p->id), "host");
    snprintf(p->name, sizeof(p->name), "%s, measured, %d thread%s%s", r->host,
             t->threads, rb_plural(t->threads),
             mix == RB_ACCESS_READ ? "" : ", mixed roof");
    snprintf(p->vendor, sizeof(p->vendor), "this machine");
    snprintf(p->kind, sizeof(p->kind), "host");
    for (int d = 0; d < RB_NDTYPES; d++)
        p->peak[pdtype_of((rb_dtype)d)] = t->peak_gflops[d] * 1e9;
    p->headline = p->peak[pdtype_of(RB_F64)] > 0.0 ? pdtype_of(RB_F64)
                                                   : pdtype_of(RB_F32);
    if (p->peak[p->headline] <= 0.0)
        return rb_fail(e, RB_EINPUT,
                       "the host ceilings hold no fp32 or fp64 peak");
    p->mem_bw = dram->gbs * 1e9;
    return RB_OK;
}
