#include "roofline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ceilings.h"

int roofline_from_doc(const json_t *doc, const char *what, roofline *r,
                      rb_err *e)
{
    memset(r, 0, sizeof(*r));
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    const json_t *ver = json_object_get(doc, "schema_version");
    if (!schema || strcmp(schema, "roofbench.ceilings") != 0)
        return rb_fail(e, RB_EINPUT,
                       "%s: not a roofbench ceilings file (schema %s)", what,
                       schema ? schema : "missing");
    if (!json_is_integer(ver) ||
        json_integer_value(ver) != CEILINGS_SCHEMA_VERSION)
        return rb_fail(e, RB_EINPUT,
                       "%s: schema version %lld, this roofbench reads version "
                       "%d",
                       what, json_is_integer(ver) ? json_integer_value(ver) : -1,
                       CEILINGS_SCHEMA_VERSION);
    const char *host = json_string_value(
        json_object_get(json_object_get(doc, "context"), "host"));
    snprintf(r->host, sizeof(r->host), "%s", host ? host : "");
    size_t i, j;
    json_t *team, *lv;
    json_array_foreach(json_object_get(doc, "roofline"), i, team)
    {
        if (r->nteams == ROOF_MAX_TEAMS)
            break;
        roof_team *t = &r->teams[r->nteams];
        memset(t, 0, sizeof(*t));
        t->threads = (int)json_integer_value(json_object_get(team, "threads"));
        const json_t *peak = json_object_get(team, "peak_gflops");
        for (int d = 0; d < RB_NDTYPES; d++) {
            const json_t *v =
                json_object_get(peak, rb_dtype_name((rb_dtype)d));
            t->peak_gflops[d] = json_is_number(v) ? json_number_value(v) : 0.0;
        }
        json_array_foreach(json_object_get(team, "levels"), j, lv)
        {
            if (t->nlevels == ROOF_MAX_LEVELS)
                break;
            roof_level *l = &t->levels[t->nlevels];
            const char *name = json_string_value(json_object_get(lv, "name"));
            snprintf(l->name, sizeof(l->name), "%s", name ? name : "?");
            l->gbs = json_number_value(json_object_get(lv, "gbs"));
            l->starts_bytes =
                json_number_value(json_object_get(lv, "starts_bytes"));
            l->ends_bytes = json_number_value(json_object_get(lv, "ends_bytes"));
            if (l->gbs > 0.0)
                t->nlevels++;
        }
        json_array_foreach(json_object_get(team, "curve"), j, lv)
        {
            if (t->npoints == ROOF_MAX_POINTS)
                break;
            t->curve_bytes[t->npoints] =
                json_number_value(json_array_get(lv, 0));
            t->curve_gbs[t->npoints] = json_number_value(json_array_get(lv, 1));
            if (t->curve_gbs[t->npoints] > 0.0)
                t->npoints++;
        }
        if (t->threads > 0)
            r->nteams++;
    }
    if (r->nteams == 0)
        return rb_fail(e, RB_EINPUT, "%s: holds no roofline", what);
    return RB_OK;
}

int roofline_load(const char *path, const char *host, roofline *r,
                  json_t **doc, rb_err *e)
{
    json_error_t je;
    FILE *f = fopen(path, "r");
    if (!f)
        return rb_fail(e, RB_EINPUT, "--ceilings '%s': %s", path,
                       strerror(errno));
    *doc = json_loadf(f, 0, &je);
    fclose(f);
    if (!*doc)
        return rb_fail(e, RB_EINPUT, "--ceilings '%s': not JSON (line %d: %s)",
                       path, je.line, je.text);
    char what[4200];
    snprintf(what, sizeof(what), "--ceilings '%s'", path);
    int rc = roofline_from_doc(*doc, what, r, e);
    if (rc == RB_OK && strcmp(r->host, host) != 0)
        rc = rb_fail(e, RB_EINPUT,
                     "--ceilings '%s': measured on host '%s', this is '%s'",
                     path, r->host, host);
    if (rc) {
        json_decref(*doc);
        *doc = NULL;
    }
    return rc;
}

/* The read curve at working set ws, interpolated in log-log. */
static double curve_at(const roof_team *t, double ws)
{
    for (size_t i = 1; i < t->npoints; i++)
        if (ws <= t->curve_bytes[i]) {
            const double x0 = log(t->curve_bytes[i - 1]),
                         x1 = log(t->curve_bytes[i]);
            const double y0 = log(t->curve_gbs[i - 1]),
                         y1 = log(t->curve_gbs[i]);
            const double f = x1 > x0 ? (log(ws) - x0) / (x1 - x0) : 0.0;
            return exp(y0 + f * (y1 - y0));
        }
    return t->npoints ? t->curve_gbs[t->npoints - 1] : 0.0;
}

int roofline_bound(const roofline *r, int threads, rb_dtype dt,
                   uint64_t flops, uint64_t bytes, double measured_gflops,
                   roof_bound *out)
{
    const roof_team *t = NULL;
    for (size_t i = 0; i < r->nteams; i++)
        if (r->teams[i].threads == threads)
            t = &r->teams[i];
    if (!t || t->peak_gflops[dt] <= 0.0 || t->nlevels == 0)
        return -1;
    /* Inside a plateau: that level. Below the first or past the last: the
     * first or the last. Between two plateaus (a transition, where the
     * working set spills from one level to the next): the bandwidth the
     * read curve shows at that size, interpolated in log-log, under the
     * name of both levels. */
    const double ws = (double)bytes;
    roof_level lv = t->levels[t->nlevels - 1];
    if (ws <= t->levels[0].ends_bytes)
        lv = t->levels[0];
    for (size_t i = 0; i < t->nlevels; i++) {
        if (ws >= t->levels[i].starts_bytes && ws <= t->levels[i].ends_bytes) {
            lv = t->levels[i];
            break;
        }
        if (i + 1 < t->nlevels && ws > t->levels[i].ends_bytes &&
            ws < t->levels[i + 1].starts_bytes) {
            snprintf(lv.name, sizeof(lv.name), "%s>%s", t->levels[i].name,
                     t->levels[i + 1].name);
            lv.starts_bytes = t->levels[i].ends_bytes;
            lv.ends_bytes = t->levels[i + 1].starts_bytes;
            lv.gbs = curve_at(t, ws);
            break;
        }
    }
    const double intensity = (double)flops / (double)bytes;
    const double mem_roof = intensity * lv.gbs;
    out->level = lv;
    out->peak_gflops = t->peak_gflops[dt];
    out->compute_bound = t->peak_gflops[dt] <= mem_roof;
    out->attainable_gflops = out->compute_bound ? t->peak_gflops[dt]
                                                : mem_roof;
    out->fraction = measured_gflops / out->attainable_gflops;
    return 0;
}

int roofline_to_profile(const roofline *r, profile *p, rb_err *e)
{
    memset(p, 0, sizeof(*p));
    const roof_team *t = NULL;
    for (size_t i = 0; i < r->nteams; i++)
        if (!t || r->teams[i].threads > t->threads)
            t = &r->teams[i];
    if (!t)
        return rb_fail(e, RB_EINPUT, "the host ceilings hold no roofline");
    const roof_level *dram = NULL;
    for (size_t l = 0; l < t->nlevels; l++)
        if (strcmp(t->levels[l].name, "DRAM") == 0)
            dram = &t->levels[l];
    if (!dram)
        return rb_fail(e, RB_EINPUT,
                       "the host ceilings (%d threads) show no DRAM plateau: "
                       "the read sweep must reach past the last cache",
                       t->threads);
    snprintf(p->id, sizeof(p->id), "host");
    snprintf(p->name, sizeof(p->name), "%s, measured, %d thread%s", r->host,
             t->threads, t->threads > 1 ? "s" : "");
    snprintf(p->vendor, sizeof(p->vendor), "this machine");
    snprintf(p->kind, sizeof(p->kind), "host");
    p->peak[PD_FP32] = t->peak_gflops[RB_F32] * 1e9;
    p->peak[PD_FP64] = t->peak_gflops[RB_F64] * 1e9;
    p->headline = p->peak[PD_FP64] > 0.0 ? PD_FP64 : PD_FP32;
    if (p->peak[p->headline] <= 0.0)
        return rb_fail(e, RB_EINPUT,
                       "the host ceilings hold no fp32 or fp64 peak");
    p->mem_bw = dram->gbs * 1e9;
    return RB_OK;
}
