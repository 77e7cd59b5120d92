#include "report_ceilings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jdoc.h"
#include "plot.h"
#include "roofline.h"

/* ---- JSON ------------------------------------------------------------------
 */

static json_t *samples_json(jdoc *d, const double *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        jd_push(d, a, "samples", jd_num(x[i]));
    return a;
}

static json_t *settings_json(jdoc *d, const ceilings_plan *p)
{
    json_t *widths = json_array();
    for (int w = 0; w < p->nwidths; w++)
        jd_push(d, widths, "widths", json_integer(p->widths[w]));
    return jd_pack(d, "{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:i}", "widths",
                   widths, "size_min_bytes", jd_num(p->size_min),
                   "size_max_bytes", jd_num(p->size_max), "factor",
                   jd_num(p->factor), "bytes_per_sample",
                   jd_num(p->bw_target_bytes), "min_time_s",
                   jd_num(p->min_time), "samples", p->samples, "gemm_n",
                   (json_int_t)p->gemm_n, "bw_width_bits", (int)p->bw_width);
}

static json_t *clock_json(jdoc *d, const ceilings_result *res)
{
    json_t *measured = json_array();
    for (int i = 0; i < res->nclocks; i++) {
        const ceil_clock *c = &res->clocks[i];
        jd_push(d, measured, "clock",
                jd_pack(d, "{s:i, s:o, s:o, s:o, s:s}", "threads", c->threads,
                        "ghz", jd_num(c->ghz), "ghz_median",
                        jd_num(c->ghz_median), "samples_ghz",
                        samples_json(d, c->samples, c->nsamples), "method",
                        "64 dependent integer adds per iteration, one cycle "
                        "each, on every thread at once; ghz is the best "
                        "sample"));
    }
    return jd_pack(
        d, "{s:o, s:o, s:s}", "measured", measured, "os_reported_mhz",
        res->os_mhz > 0 ? jd_num(res->os_mhz) : json_string("unknown"),
        "os_reported_source", res->os_source ? res->os_source : "none");
}

static json_t *peak_json(jdoc *d, const ceil_peak *p)
{
    return jd_pack(
        d,
        "{s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:i, "
        "s:s, s:b, s:I, s:o, s:o, s:i}",
        "dtype", rb_dtype_name(p->dt), "variant", p->v->name, "width_bits",
        (int)p->v->bits, "lanes", (int)p->lanes, "chains", (int)p->v->chains,
        "threads", p->threads, "fma", p->v->fma, "gflops", jd_num(p->gflops),
        "gflops_median", jd_num(p->gflops_median), "flops_per_cycle_per_core",
        jd_num(p->fpc), "theoretical_gflops", jd_num(p->theoretical),
        "ratio_to_theoretical", jd_num(p->ratio), "fma_pipes", p->pipes,
        "fma_pipes_source", p->pipes_source, "fma_pipes_known", p->pipes_known,
        "iterations_per_sample", (json_int_t)p->iterations, "samples_gflops",
        samples_json(d, p->samples, p->nsamples), "max_abs_error",
        jd_num(p->max_err), "rounds", p->rounds);
}

static json_t *curve_json(jdoc *d, const ceil_curve *c)
{
    json_t *points = json_array(), *levels = json_array();
    for (size_t i = 0; i < c->npoints; i++) {
        const ceil_point *p = &c->points[i];
        jd_push(d, points, "points",
                jd_pack(d, "{s:o, s:o, s:o, s:o, s:I, s:o}", "bytes",
                        jd_num(p->bytes), "bytes_per_thread",
                        jd_num(p->bytes / c->threads), "gbs", jd_num(p->gbs),
                        "gbs_best", jd_num(p->gbs_best), "passes_per_sample",
                        (json_int_t)p->passes, "samples_gbs",
                        samples_json(d, p->samples, p->nsamples)));
    }
    for (size_t i = 0; i < c->nlevels; i++) {
        const plateau *l = &c->levels[i];
        jd_push(d, levels, "levels",
                jd_pack(d, "{s:s, s:o, s:o, s:o, s:o, s:o, s:i}", "name",
                        l->name, "gbs", jd_num(l->gbs), "first_bytes",
                        jd_num(l->first_bytes), "last_bytes",
                        jd_num(l->last_bytes), "last_bytes_per_thread",
                        jd_num(l->last_bytes / c->threads), "next_bytes",
                        jd_num(l->next_bytes), "points",
                        (int)(l->last - l->first + 1)));
    }
    return jd_pack(d, "{s:s, s:i, s:s, s:i, s:i, s:s, s:o, s:o}", "kernel",
                   bw_kernel_name(c->kernel), "threads", c->threads, "variant",
                   c->variant, "width_bits", (int)c->width_bits, "streams",
                   c->streams, "stream_layout",
                   "one mapping per thread, 1 MiB-aligned; stream s at s x (a "
                   "multiple of 256 MiB + 64 KiB + 192 B)",
                   "points", points, "levels", levels);
}

static json_t *gemm_json(jdoc *d, const ceil_gemm *g)
{
    return jd_pack(d, "{s:s, s:i, s:I, s:o, s:o, s:s, s:o, s:o}", "dtype",
                   rb_dtype_name(g->dt), "threads", g->threads, "n",
                   (json_int_t)g->n, "gflops", jd_num(g->gflops),
                   "gflops_median", jd_num(g->gflops_median), "corename",
                   g->corename, "samples_gflops",
                   samples_json(d, g->samples, g->nsamples), "max_rel_error",
                   jd_num(g->max_err));
}

static json_t *cache_json(jdoc *d, const ceil_cache *c)
{
    return jd_pack(
        d, "{s:s, s:o, s:i, s:o, s:o, s:o, s:b, s:s}", "level", c->level,
        "reported_bytes", jd_num(c->reported_bytes), "reported_count", c->count,
        "reported_bytes_per_core", jd_num(c->per_core), "measured_last_bytes",
        c->last > 0 ? jd_num(c->last) : json_null(), "measured_next_bytes",
        c->next > 0 ? jd_num(c->next) : json_null(), "plausible", c->plausible,
        "note", c->note);
}

/* One access mix's roof: the kernels of its envelope, the levels (each
 * with the kernel that set it and its spread) and the envelope itself,
 * for working sets between two plateaus. */
static json_t *roof_json(jdoc *d, const ceil_roof *r, rb_access mix)
{
    json_t *kernels = json_array(), *levels = json_array(),
           *curve = json_array();
    for (int k = 0; k < BW_NKERNELS; k++)
        if (r->kernels >> k & 1u)
            jd_push(d, kernels, "kernels",
                    json_string(bw_kernel_name((bw_kernel)k)));
    for (size_t i = 0; i < r->nlevels; i++) {
        const plateau *l = &r->levels[i];
        jd_push(d, levels, "levels",
                jd_pack(d, "{s:s, s:o, s:o, s:s, s:o, s:o}", "name", l->name,
                        "gbs", jd_num(l->gbs), "spread",
                        jd_num(r->level_spread[i]), "kernel",
                        bw_kernel_name((bw_kernel)r->level_kernel[i]),
                        "starts_bytes", jd_num(l->first_bytes), "ends_bytes",
                        jd_num(l->last_bytes)));
    }
    for (size_t i = 0; i < r->npoints; i++)
        jd_push(d, curve, "curve",
                jd_pack(d, "[o, o]", jd_num(r->bytes[i]), jd_num(r->gbs[i])));
    return jd_pack(d, "{s:s, s:o, s:o, s:o}", "mix", rb_access_name(mix),
                   "kernels", kernels, "levels", levels, "curve", curve);
}

/* A team's roofline: peaks (with the spread of the best peak kernel's
 * samples), GEMM, and the roof of each access mix that was swept. */
static json_t *team_json(jdoc *d, const ceilings_result *res,
                         const ceil_team *t)
{
    json_t *peak = json_object(), *spread = json_object(),
           *variant = json_object(), *gemm = json_object(),
           *roofs = json_array();
    for (int k = 0; k < res->plan.ndtypes; k++) {
        const rb_dtype dt = res->plan.dtypes[k];
        if (t->peak[dt] > 0.0) {
            jd_set(d, peak, rb_dtype_name(dt), jd_num(t->peak[dt]));
            jd_set(d, spread, rb_dtype_name(dt), jd_num(t->peak_spread[dt]));
            jd_set(d, variant, rb_dtype_name(dt), json_string(t->variant[dt]));
        }
        if (t->gemm[dt] > 0.0)
            jd_set(d, gemm, rb_dtype_name(dt), jd_num(t->gemm[dt]));
    }
    for (int m = 0; m < RB_NACCESS; m++)
        if (t->roofs[m].present)
            jd_push(d, roofs, "roofs",
                    roof_json(d, &t->roofs[m], (rb_access)m));
    return jd_pack(d, "{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "threads",
                   t->threads, "ghz", jd_num(t->ghz), "peak_gflops", peak,
                   "peak_spread", spread, "peak_variant", variant,
                   "gemm_gflops", gemm, "roofs", roofs);
}

char *report_ceilings_json(const ceilings_result *res, const json_t *context,
                           const char *status, rb_err *e)
{
    jdoc d = {0};
    json_t *peaks = json_array(), *curves = json_array(), *gemms = json_array(),
           *caches = json_array(), *roofs = json_array();
    for (int i = 0; i < res->npeaks; i++)
        jd_push(&d, peaks, "peak", peak_json(&d, &res->peaks[i]));
    for (int i = 0; i < res->ncurves; i++)
        jd_push(&d, curves, "bandwidth", curve_json(&d, &res->curves[i]));
    for (int i = 0; i < res->ngemms; i++)
        jd_push(&d, gemms, "gemm", gemm_json(&d, &res->gemms[i]));
    for (int i = 0; i < res->ncaches; i++)
        jd_push(&d, caches, "caches", cache_json(&d, &res->caches[i]));
    for (int i = 0; i < res->nteams; i++)
        jd_push(&d, roofs, "roofline", team_json(&d, res, &res->teams[i]));
    json_t *doc =
        jd_pack(&d, "{s:s, s:i, s:s, s:O, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                "schema", "roofbench.ceilings", "schema_version",
                CEILINGS_SCHEMA_VERSION, "status", status, "context", context,
                "ceilings_settings", settings_json(&d, &res->plan), "clock",
                clock_json(&d, res), "peak", peaks, "bandwidth", curves, "gemm",
                gemms, "caches", caches, "roofline", roofs);
    return jd_text(&d, doc, "ceilings.json", 17, e);
}

/* ---- CSV -------------------------------------------------------------------
 */

char *report_ceilings_points_csv(const ceilings_result *res)
{
    csv c = {0};
    csv_header(&c, REPORT_CEILINGS_POINTS_HEADER);
    for (int i = 0; i < res->ncurves; i++) {
        const ceil_curve *cv = &res->curves[i];
        for (size_t j = 0; j < cv->npoints; j++) {
            csv_str(&c, bw_kernel_name(cv->kernel));
            csv_int(&c, (unsigned long long)cv->threads);
            csv_num(&c, "%.0f", cv->points[j].bytes);
            csv_num(&c, "%.6g", cv->points[j].gbs);
            csv_num(&c, "%.6g", cv->points[j].gbs_best);
            csv_end(&c);
        }
    }
    return sb_take(&c.sb);
}

char *report_ceilings_levels_csv(const ceilings_result *res)
{
    csv c = {0};
    csv_header(&c, REPORT_CEILINGS_LEVELS_HEADER);
    for (int i = 0; i < res->ncurves; i++) {
        const ceil_curve *cv = &res->curves[i];
        for (size_t j = 0; j < cv->nlevels; j++) {
            const plateau *l = &cv->levels[j];
            csv_str(&c, bw_kernel_name(cv->kernel));
            csv_int(&c, (unsigned long long)cv->threads);
            csv_str(&c, l->name);
            csv_num(&c, "%.6g", l->gbs);
            csv_num(&c, "%.0f", l->first_bytes);
            csv_num(&c, "%.0f", l->last_bytes);
            csv_num(&c, "%.0f", l->next_bytes);
            csv_empty(&c);
            csv_end(&c);
        }
    }
    /* the roofs, as kernels "roof-read" and "roof-mixed" */
    for (int i = 0; i < res->nteams; i++)
        for (int m = 0; m < RB_NACCESS; m++) {
            const ceil_roof *r = &res->teams[i].roofs[m];
            for (size_t j = 0; j < r->nlevels; j++) {
                const plateau *l = &r->levels[j];
                char name[16];
                snprintf(name, sizeof(name), "roof-%s",
                         rb_access_name((rb_access)m));
                csv_str(&c, name);
                csv_int(&c, (unsigned long long)res->teams[i].threads);
                csv_str(&c, l->name);
                csv_num(&c, "%.6g", l->gbs);
                csv_num(&c, "%.0f", l->first_bytes);
                csv_num(&c, "%.0f", l->last_bytes);
                csv_num(&c, "%.0f", l->next_bytes);
                csv_str(&c, bw_kernel_name((bw_kernel)r->level_kernel[j]));
                csv_end(&c);
            }
        }
    return sb_take(&c.sb);
}

/* ---- text ------------------------------------------------------------------
 */

static void team_text(const ceilings_result *res, const ceil_team *t, FILE *f)
{
    const double f32 = t->peak[RB_F32], f64 = t->peak[RB_F64];
    fprintf(f, "\nhost roofline, %d thread%s at %.2f GHz: peak", t->threads,
            rb_plural(t->threads), t->ghz);
    if (f32 > 0)
        fprintf(f, " f32 %.1f", f32);
    if (f64 > 0)
        fprintf(f, " f64 %.1f", f64);
    fprintf(f, " GFLOP/s");
    int gemm = 0;
    for (int k = 0; k < res->plan.ndtypes; k++) {
        const rb_dtype dt = res->plan.dtypes[k];
        if (t->gemm[dt] > 0)
            fprintf(f, "%s %s %.1f", gemm++ ? "" : "; OpenBLAS GEMM",
                    rb_dtype_name(dt), t->gemm[dt]);
    }
    for (int m = 0; m < RB_NACCESS; m++) {
        const ceil_roof *r = &t->roofs[m];
        if (!r->present)
            continue;
        fprintf(f, "\n  %s roof\n  %-5s %9s %12s %-7s %6s %10s %10s\n",
                rb_access_name((rb_access)m), "level", "GB/s", "ends near",
                "kernel", "spread", "ridge f32", "ridge f64");
        for (size_t i = 0; i < r->nlevels; i++) {
            const plateau *l = &r->levels[i];
            fprintf(f, "  %-5s %9.1f %8.0f KiB %-7s %5.0f%%", l->name, l->gbs,
                    l->last_bytes / 1024,
                    bw_kernel_name((bw_kernel)r->level_kernel[i]),
                    100.0 * r->level_spread[i]);
            fprintf(f, " %6.2f F/B", f32 > 0 ? f32 / l->gbs : NAN);
            fprintf(f, " %6.2f F/B\n", f64 > 0 ? f64 / l->gbs : NAN);
        }
    }
}

void report_ceilings_text(const ceilings_result *res, FILE *f)
{
    for (int i = 0; i < res->nteams; i++)
        team_text(res, &res->teams[i], f);
    fprintf(f, "\ncaches as hwloc reports them, beside the 1-thread read "
               "plateaus:\n");
    for (int i = 0; i < res->ncaches; i++) {
        const ceil_cache *c = &res->caches[i];
        fprintf(f, "  %s %8.0f KiB x %d: %s\n", c->level,
                c->reported_bytes / 1024, c->count, c->note);
    }
    if (res->os_mhz > 0)
        fprintf(f,
                "clock the OS reports: %.0f MHz (%s), beside the measured "
                "clock above\n",
                res->os_mhz, res->os_source);
    else
        fprintf(f, "clock the OS reports: unknown\n");
}

/* ---- the folder -------------------------------------------------------------
 */

static int chart(runfolder *f, const ceilings_result *res, char *why,
                 size_t whylen, rb_err *e)
{
    if (res->ncurves == 0) {
        snprintf(why, whylen, "no bandwidth curve was measured");
        return RB_OK;
    }
    static const char *const outputs[] = {"bandwidth.png", "bandwidth.svg",
                                          NULL};
    int made = 0;
    const int rc = plot_run(f, "plot-bandwidth.gp", rb_plot_bandwidth_gp,
                            outputs, &made, why, whylen, e);
    if (!rc && made)
        why[0] = '\0';
    return rc;
}

/* A chart that fails costs the chart, not the documents: the failure is
 * kept in why and *chart_failed set. */
static int draw(runfolder *f, const ceilings_result *res, char *why,
                size_t whylen, int *chart_failed)
{
    rb_err pe;
    if (chart(f, res, why, whylen, &pe) != RB_OK) {
        snprintf(why, whylen, "%s", pe.msg);
        *chart_failed = 1;
    }
    return RB_OK;
}

int report_ceilings_write(runfolder *f, const ceilings_result *res,
                          const json_t *context, const char *status,
                          char **json_text, char *why, size_t whylen,
                          int *chart_failed, rb_err *e)
{
    *chart_failed = 0;
    *json_text = report_ceilings_json(res, context, status, e);
    char *points = report_ceilings_points_csv(res);
    char *levels = report_ceilings_levels_csv(res);
    int rc = *json_text ? RB_OK : RB_EINPUT;
    if (!rc && (!points || !levels))
        rc = rb_fail(e, RB_EINPUT, "out of memory formatting the curves");
    if (!rc)
        rc = runfolder_write(f, "ceilings.json", *json_text, strlen(*json_text),
                             e);
    if (!rc)
        rc = runfolder_write(f, "bandwidth.csv", points, strlen(points), e);
    if (!rc)
        rc = runfolder_write(f, "levels.csv", levels, strlen(levels), e);
    free(points);
    free(levels);
    snprintf(why, whylen, "the measurement was %s", status);
    if (!rc && strcmp(status, "complete") == 0)
        rc = draw(f, res, why, whylen, chart_failed);
    return rc;
}
