#include "report_roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jdoc.h"
#include "plot.h"
#include "text.h"

/* The x range every panel shares: FLOP per byte. */
#define X_LO 1e-2
#define X_HI 1e3

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* One segment (a block of its own, so that gnuplot does not join it to
 * the next one). */
static void segment(strbuf *b, const char *kind, const char *dt, long long th,
                    const char *name, double x0, double y0, double x1,
                    double y1)
{
    for (int i = 0; i < 2; i++)
        sb_printf(b, "%s,%s,%lld,%s,%.6g,%.6g\n", kind, dt, th, name,
                  i ? x1 : x0, i ? y1 : y0);
    sb_printf(b, "\n\n");
}

static void label(csv *c, const char *kind, const char *dt, long long th,
                  double x, double y, const char *text)
{
    csv_str(c, kind);
    csv_str(c, dt);
    csv_int(c, (unsigned long long)th);
    csv_num(c, "%.6g", x);
    csv_num(c, "%.6g", y);
    csv_str(c, text);
    csv_end(c);
}

/* The roofs of each team of the ceilings document. */
static void roofs(const json_t *ceil, strbuf *seg, csv *lab)
{
    size_t i, j;
    json_t *team, *p;
    json_array_foreach(json_object_get(ceil, "roofline"), i, team)
    {
        const long long th =
            json_integer_value(json_object_get(team, "threads"));
        const json_t *peaks = json_object_get(team, "peak_gflops");
        const char *dts[2] = {"f32", "f64"};
        for (int d = 0; d < 2; d++) {
            const double top = num(peaks, dts[d]);
            if (!(top > 0))
                continue;
            /* each vector width's peak of this team */
            json_array_foreach(json_object_get(ceil, "peak"), j, p)
            {
                if (strcmp(str(p, "dtype"), dts[d]) != 0 ||
                    json_integer_value(json_object_get(p, "threads")) != th)
                    continue;
                const double g = num(p, "gflops");
                if (!(g > 0))
                    continue;
                segment(seg, "compute", dts[d], th, str(p, "variant"), X_LO, g,
                        X_HI, g);
                char t[96];
                snprintf(t, sizeof(t), "%.40s %.4g", str(p, "variant"), g);
                label(lab, "compute", dts[d], th, X_HI * 0.9, g * 1.08, t);
            }
            const double gemm =
                num(json_object_get(team, "gemm_gflops"), dts[d]);
            if (gemm > 0) {
                segment(seg, "gemm", dts[d], th, "OpenBLAS GEMM", X_LO, gemm,
                        X_HI, gemm);
                char t[64];
                snprintf(t, sizeof(t), "OpenBLAS GEMM %.4g", gemm);
                /* right of every diagonal at its height (the slowest
                 * level reaches it at gemm / bw), away from the widths'
                 * labels at the right end and the levels' at the left */
                double slow = INFINITY;
                json_array_foreach(json_object_get(team, "levels"), j,
                                   p) if (num(p, "gbs") > 0 &&
                                          num(p, "gbs") < slow) slow =
                    num(p, "gbs");
                const double xg =
                    isfinite(slow) ? fmax(3.0, 2.0 * gemm / slow) : 3.0;
                label(lab, "gemm", dts[d], th, xg, gemm * 1.1, t);
            }
            /* each level's diagonal up to the top peak */
            int level = 0;
            json_array_foreach(json_object_get(team, "levels"), j, p)
            {
                const double bw = num(p, "gbs");
                if (!(bw > 0))
                    continue;
                const double ridge = top / bw;
                const double x0 = fmax(X_LO, 1e-3 * ridge);
                segment(seg, "memory", dts[d], th, str(p, "name"), x0, x0 * bw,
                        ridge, top);
                char t[64];
                snprintf(t, sizeof(t), "%.15s %.4g GB/s", str(p, "name"), bw);
                /* above its diagonal (no kernel lives above a roof),
                 * ending at it, each level at its own height (a third of a
                 * decade lower than the one before) */
                const double yl = top * pow(10.0, -0.5 - 0.35 * level++);
                label(lab, "memory", dts[d], th, yl / bw / 1.25, yl, t);
            }
        }
    }
}

/* Every verified row of the results with a positive rate. */
static size_t points(const json_t *res, csv *c)
{
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(json_object_get(res, "rows"), i, row)
    {
        const double in = num(row, "intensity");
        const double g = num(json_object_get(row, "gflop_per_s"), "best");
        const json_t *ok =
            json_object_get(json_object_get(row, "verify"), "passed");
        if (!(in > 0) || !(g > 0) || !json_is_true(ok))
            continue;
        csv_str(c, str(row, "dtype"));
        csv_int(c, (unsigned long long)json_integer_value(
                       json_object_get(row, "threads")));
        csv_str(c, str(row, "kernel"));
        csv_num(c, "%.6g", in);
        csv_num(c, "%.6g", g);
        csv_end(c);
        n++;
    }
    return n;
}

/* The chart: why is emptied when it is drawn, else says why not (a chart
 * that fails costs the chart only). */
static void draw(runfolder *f, const char *name, const char *script,
                 const char *const *outputs, char *why, size_t whylen)
{
    int made = 0;
    rb_err pe;
    if (plot_run(f, name, script, outputs, &made, why, whylen, &pe) != RB_OK)
        snprintf(why, whylen, "%s", pe.msg);
    else if (made)
        why[0] = '\0';
}

int report_roofline_chart(runfolder *f, const json_t *ceilings,
                          const json_t *results, char *why, size_t whylen,
                          rb_err *e)
{
    strbuf seg = {0};
    sb_printf(&seg, "# kind,dtype,threads,name,intensity,gflops: one "
                    "segment a block\n");
    csv lab = {0}, pts = {0};
    csv_header(&lab, "kind,dtype,threads,intensity,gflops,text");
    csv_header(&pts, "dtype,threads,kernel,intensity,gflops");
    roofs(ceilings, &seg, &lab);
    const size_t n = points(results, &pts);
    int rc = runfolder_write_text(f, "roofline-roofs.dat", sb_take(&seg), e);
    if (!rc)
        rc =
            runfolder_write_text(f, "roofline-labels.csv", sb_take(&lab.sb), e);
    else
        sb_free(&lab.sb);
    if (!rc)
        rc =
            runfolder_write_text(f, "roofline-points.csv", sb_take(&pts.sb), e);
    else
        sb_free(&pts.sb);
    if (rc)
        return rc;
    if (!n) {
        snprintf(why, whylen, "no verified kernel row to draw");
        return RB_OK;
    }
    static const char *const outputs[] = {"roofline.png", "roofline.svg", NULL};
    draw(f, "plot-roofline.gp", rb_plot_roofline_gp, outputs, why, whylen);
    return RB_OK;
}

int report_reference_chart(runfolder *f, const json_t *model, char *why,
                           size_t whylen, rb_err *e)
{
    csv roofs = {0}, ridges = {0};
    csv_header(&roofs, "target,intensity,gflops");
    csv_header(&ridges, "target,intensity,gflops,text");
    size_t i, n = 0;
    json_t *t;
    json_array_foreach(json_object_get(model, "targets"), i, t)
    {
        const double peak = num(t, "peak_flops") / 1e9,
                     bw = num(t, "mem_bw") / 1e9;
        if (!(peak > 0) || !(bw > 0))
            continue;
        char name[160];
        snprintf(name, sizeof(name), "%.60s/%.10s", str(t, "profile"),
                 str(t, "dtype"));
        for (double x = 1e-2; x <= 1e4 * 1.0001; x *= pow(10.0, 0.0625)) {
            csv_str(&roofs, name);
            csv_num(&roofs, "%.6g", x);
            csv_num(&roofs, "%.6g", fmin(peak, x * bw));
            csv_end(&roofs);
        }
        char text[200];
        snprintf(text, sizeof(text), "%.60s: ridge %.3g", str(t, "profile"),
                 peak / bw);
        csv_str(&ridges, name);
        csv_num(&ridges, "%.6g", peak / bw);
        csv_num(&ridges, "%.6g", peak);
        csv_str(&ridges, text);
        csv_end(&ridges);
        n++;
    }
    int rc =
        runfolder_write_text(f, "reference-roofs.csv", sb_take(&roofs.sb), e);
    if (!rc)
        rc = runfolder_write_text(f, "reference-ridges.csv",
                                  sb_take(&ridges.sb), e);
    else
        sb_free(&ridges.sb);
    if (rc)
        return rc;
    if (!n) {
        snprintf(why, whylen, "no profile with a peak and a bandwidth");
        return RB_OK;
    }
    static const char *const outputs[] = {"reference.png", "reference.svg",
                                          NULL};
    draw(f, "plot-reference.gp", rb_plot_reference_gp, outputs, why, whylen);
    return RB_OK;
}

int report_roofline_json(runfolder *f, const json_t *ceilings, rb_err *e)
{
    jdoc j = {0};
    json_t *gflops = json_array(), *gbytes = json_array(), *side = json_array();
    size_t i, k;
    json_t *p, *team;
    json_array_foreach(json_object_get(ceilings, "peak"), i, p)
    {
        char name[128];
        const long long th = json_integer_value(json_object_get(p, "threads"));
        snprintf(name, sizeof(name), "%.8s %.40s, %lld thread%s",
                 str(p, "dtype"), str(p, "variant"), th, rb_plural(th));
        jd_push(&j, gflops, "gflops",
                jd_pack(&j, "[s, o]", name, jd_num(num(p, "gflops"))));
        jd_push(&j, side, "ceilings",
                jd_pack(&j, "{s:s, s:s, s:o, s:o, s:o}", "name", name, "unit",
                        "GFLOP/s", "measured", jd_num(num(p, "gflops")),
                        "theoretical", jd_num(num(p, "theoretical_gflops")),
                        "theoretical_source",
                        jd_str("clock x FMA pipes x lanes x 2 (the ceilings "
                               "document's theoretical_gflops)")));
    }
    json_array_foreach(json_object_get(ceilings, "roofline"), i, team)
    {
        const long long th =
            json_integer_value(json_object_get(team, "threads"));
        const char *dts[2] = {"f32", "f64"};
        for (int d = 0; d < 2; d++) {
            const double g = num(json_object_get(team, "gemm_gflops"), dts[d]);
            if (!(g > 0))
                continue;
            char name[96];
            snprintf(name, sizeof(name), "%s OpenBLAS GEMM, %lld thread%s",
                     dts[d], th, rb_plural(th));
            jd_push(&j, gflops, "gflops",
                    jd_pack(&j, "[s, o]", name, jd_num(g)));
        }
        json_array_foreach(json_object_get(team, "levels"), k, p)
        {
            char name[96];
            snprintf(name, sizeof(name), "%.15s, %lld thread%s", str(p, "name"),
                     th, rb_plural(th));
            jd_push(&j, gbytes, "gbytes",
                    jd_pack(&j, "[s, o]", name, jd_num(num(p, "gbs"))));
            jd_push(&j, side, "ceilings",
                    jd_pack(&j, "{s:s, s:s, s:o, s:n, s:s}", "name", name,
                            "unit", "GB/s", "measured", jd_num(num(p, "gbs")),
                            "theoretical", "theoretical_unavailable",
                            "no spec-sheet bandwidth for this host: roofbench "
                            "reads bandwidth from the read sweep only"));
        }
    }
    json_t *root =
        jd_pack(&j, "{s:s, s:i, s:O, s:{s:{s:o}, s:{s:o}}, s:o}", "schema",
                "roofbench.roofline", "schema_version", 1, "context",
                json_object_get(ceilings, "context")
                    ? json_object_get(ceilings, "context")
                    : json_null(),
                "empirical", "gflops", "data", gflops, "gbytes", "data", gbytes,
                "ceilings", side);
    char *text = jd_text(&j, root, "roofline.json", 6, e);
    return text ? runfolder_write_text(f, "roofline.json", text, e) : RB_EINPUT;
}
