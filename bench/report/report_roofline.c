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

/* The levels of a team's roof of that mix ("read" or "mixed"), or NULL. */
static const json_t *roof_levels(const json_t *team, const char *mix)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(team, "roofs"), i, r)
    {
        const char *m = json_string_value(json_object_get(r, "mix"));
        if (m && strcmp(m, mix) == 0)
            return json_object_get(r, "levels");
    }
    return NULL;
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

/* Where a label may go without covering a kernel or another roof: text
 * of font 8 on a panel of about 100 px per decade of intensity and 130 px
 * per decade of GFLOP/s is about 0.055 decades of x per character and
 * 0.08 decades of y tall. */
#define CHAR_DX 0.075
#define TEXT_DY 0.08

/* A box in decades: log10 of intensity and of GFLOP/s. */
typedef struct {
    double x0, x1, y0, y1;
} box;

typedef struct {
    double y[32]; /* the panel's horizontal roofs, GFLOP/s */
    size_t ny;
    box b[64]; /* the labels placed so far */
    size_t nb;
    double px[512], py[512]; /* its kernels' points */
    size_t np;
} panel_obstacles;

/* The box of text of len characters whose left end is at x, centred on
 * y. */
static box text_box(double x, double y, size_t len)
{
    const double lx = log10(x), ly = log10(y);
    return (box){lx, lx + (double)len * CHAR_DX, ly - TEXT_DY / 2,
                 ly + TEXT_DY / 2};
}

/* Whether the box covers a point of the panel, crosses one of its
 * horizontal roofs or overlaps a label placed before. */
static int covers(const panel_obstacles *o, box t)
{
    if (t.x0 < log10(X_LO) + 0.005 || t.x1 > log10(X_HI)) /* off the panel */
        return 1;
    for (size_t i = 0; i < o->ny; i++) {
        const double ly = log10(o->y[i]);
        if (ly > t.y0 - 0.01 && ly < t.y1 + 0.01)
            return 1;
    }
    for (size_t i = 0; i < o->nb; i++)
        if (t.x0 < o->b[i].x1 + 0.03 && o->b[i].x0 < t.x1 + 0.03 &&
            t.y0 < o->b[i].y1 + 0.01 && o->b[i].y0 < t.y1 + 0.01)
            return 1;
    for (size_t i = 0; i < o->np; i++) {
        const double lx = log10(o->px[i]), ly = log10(o->py[i]);
        if (lx > t.x0 - 0.06 && lx < t.x1 + 0.06 && ly > t.y0 - 0.04 &&
            ly < t.y1 + 0.04)
            return 1;
    }
    return 0;
}

static void placed(panel_obstacles *o, box t)
{
    if (o->nb < 64)
        o->b[o->nb++] = t;
}

/* Where a compute roof's label goes (right-aligned at *xl): just above
 * its line at the right end, else just below it, else a step further
 * above or below, else the same a decade to the left; clear of the panel's
 * points, the labels placed so far and every other horizontal roof (lines, nl
 * of them, its own among them). */
static void place_compute(const panel_obstacles *obs, const double *lines,
                          size_t nl, double g, size_t len, double *xl,
                          double *yl)
{
    panel_obstacles o = *obs;
    for (size_t i = 0; i < nl && o.ny < 31; i++)
        if (fabs(lines[i] - g) > 1e-9 * g)
            o.y[o.ny++] = lines[i];
    *xl = X_HI * 0.9;
    *yl = g * 1.08;
    /* just above, just below, then a step further out each way (two roofs
     * within a few percent leave no room between them), at the right end
     * and then a decade to the left */
    static const double off[6] = {1.08,      1.0 / 1.08, 1.2,
                                  1.0 / 1.2, 1.35,       1.0 / 1.35};
    for (int c = 0; c < 12; c++) {
        const double x = c < 6 ? X_HI * 0.9 : X_HI * 0.09;
        const double y = g * off[c % 6];
        if (!covers(&o,
                    text_box(x / pow(10.0, (double)len * CHAR_DX), y, len))) {
            *xl = x;
            *yl = y;
            return;
        }
    }
}

/* Where GEMM's label goes: just above or below its line, rightwards from
 * x0, then against the right edge; failing that, the same with the short
 * text "GEMM value" (the legend names OpenBLAS), and failing that the
 * first place. t holds the text and is shortened when the short one
 * fits. */
static void place_gemm(const panel_obstacles *obs, double x0, double gemm,
                       char *t, size_t tlen, double *xg, double *yg)
{
    char tries[2][64];
    snprintf(tries[0], sizeof(tries[0]), "%s", t);
    snprintf(tries[1], sizeof(tries[1]), "GEMM %.4g", gemm);
    *xg = x0;
    *yg = gemm * 1.12;
    for (int k = 0; k < 2; k++) {
        const size_t len = strlen(tries[k]);
        for (int c = 0; c < 14; c++) {
            const double x =
                c < 12 ? x0 * pow(10.0, 0.25 * (c / 2))
                       : X_HI * 0.9 / pow(10.0, (double)len * CHAR_DX);
            const double y = c % 2 ? gemm / 1.15 : gemm * 1.12;
            if (!covers(obs, text_box(x, y, len))) {
                *xg = x;
                *yg = y;
                snprintf(t, tlen, "%s", tries[k]);
                return;
            }
        }
    }
}

/* The points of the results rows of one panel. */
static void panel_points(const json_t *res, const char *dt, long long th,
                         panel_obstacles *o)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(res, "rows"), i, row)
    {
        const double in = num(row, "intensity");
        const double g = num(json_object_get(row, "gflop_per_s"), "best");
        if (o->np < 512 && in > 0 && g > 0 &&
            strcmp(str(row, "dtype"), dt) == 0 &&
            json_integer_value(json_object_get(row, "threads")) == th) {
            o->px[o->np] = in;
            o->py[o->np++] = g;
        }
    }
}

/* One form of the orders document on the hierarchical roofline: the
 * intensity of its traffic into L1, into the last level and from memory
 * (FLOPs over the bytes filled into L1, into the last level, and the
 * compulsory bytes), cachegrind's where it simulated the form, else the
 * model's, at its measured rate. */
typedef struct {
    const char *dtype, *kernel, *source;
    long long threads;
    double x[3], gflops;
} form_levels;

/* Calls each(ctx, form) for every form of the orders document that has
 * its traffic per level and a rate; the count. */
static size_t each_form(const json_t *orders,
                        void (*each)(void *ctx, const form_levels *fl),
                        void *ctx)
{
    const json_t *jt = json_object_get(orders, "threads");
    const long long th = json_is_integer(jt) ? json_integer_value(jt) : 1;
    size_t i, j, n = 0;
    json_t *z, *f;
    json_array_foreach(json_object_get(orders, "sizes"), i, z)
    {
        const double flops = num(z, "flops");
        const char *dt = str(z, "dtype");
        const double el = strcmp(dt, "f32") == 0 ? 4.0 : 8.0;
        const double np = num(z, "n"), pp = num(z, "p"), mp = num(z, "m");
        const double compulsory = el * (np * pp + pp * mp + np * mp);
        json_array_foreach(json_object_get(z, "forms"), j, f)
        {
            const double g = num(f, "gflops");
            const json_t *sim = json_object_get(f, "cachegrind");
            const json_t *src =
                num(sim, "l1_bytes") > 0 ? sim : json_object_get(f, "model");
            const double l1 = num(src, "l1_bytes"), ll = num(src, "ll_bytes");
            if (!(g > 0) || !(flops > 0) || !(l1 > 0) || !(ll > 0) ||
                !(compulsory > 0))
                continue;
            const form_levels fl = {
                dt,
                str(f, "kernel"),
                src == sim ? "cachegrind" : "model",
                th,
                {flops / l1, flops / ll, flops / compulsory},
                g};
            each(ctx, &fl);
            n++;
        }
    }
    return n;
}

typedef struct {
    const char *dt;
    long long th;
    panel_obstacles *o;
} panel_ctx;

/* A form of the panel as obstacles: points along its line, from its L1
 * point to its memory point, every 0.1 decade. */
static void form_obstacle(void *ctx, const form_levels *fl)
{
    const panel_ctx *p = ctx;
    if (strcmp(fl->dtype, p->dt) != 0 || fl->threads != p->th)
        return;
    for (double lx = log10(fl->x[0]); lx <= log10(fl->x[2]) + 0.05; lx += 0.1)
        if (p->o->np < 512) {
            p->o->px[p->o->np] = pow(10.0, lx);
            p->o->py[p->o->np++] = fl->gflops;
        }
}

/* The hierarchical roofline's points of one panel, so that no label
 * covers them. */
static void panel_levels(const json_t *orders, const char *dt, long long th,
                         panel_obstacles *o)
{
    panel_ctx p = {dt, th, o};
    if (orders)
        each_form(orders, form_obstacle, &p);
}

/* The mixed roof, matmul's and batched's (they write C), where it lies
 * 10% or more above the read roof's level of the same name (triad or copy
 * in L1, whose stores have ports of their own): diagonals up to the top
 * peak, drawn dashed. */
static void mixed_diagonals(const json_t *team, const char *dt, long long th,
                            double top, strbuf *seg)
{
    size_t j, k;
    json_t *p, *q;
    json_array_foreach(roof_levels(team, "mixed"), j, p)
    {
        const double bw = num(p, "gbs");
        double rbw = 0.0;
        json_array_foreach(roof_levels(team, "read"), k, q)
        {
            if (strcmp(str(q, "name"), str(p, "name")) == 0)
                rbw = num(q, "gbs");
        }
        if (!(bw > 1.10 * rbw)) /* noise apart */
            continue;
        const double ridge = top / bw;
        const double x0 = fmax(X_LO, 1e-3 * ridge);
        segment(seg, "mixed", dt, th, str(p, "name"), x0, x0 * bw, ridge, top);
    }
}

/* One panel of the host roofline: a team's roofs for one dtype, what its
 * labels must keep clear of, and where its segments and labels go. */
typedef struct {
    const json_t *ceil, *team;
    const char *dt;
    long long th;
    double top; /* the highest peak: where the diagonals end */
    panel_obstacles obs;
    double lines[32]; /* every horizontal roof of the panel */
    size_t nl;
    strbuf *seg;
    csv *lab;
} panel;

/* Whether peak p of the ceilings document is one of the panel's. */
static int panel_peak(const panel *pn, const json_t *p)
{
    return strcmp(str(p, "dtype"), pn->dt) == 0 &&
           json_integer_value(json_object_get(p, "threads")) == pn->th &&
           num(p, "gflops") > 0;
}

/* Every horizontal roof of the panel (each vector width's peak and GEMM),
 * known before any is labelled, so that each compute label can keep clear
 * of the others' lines. */
static void panel_lines(panel *pn)
{
    size_t j;
    json_t *p;
    json_array_foreach(json_object_get(pn->ceil, "peak"), j, p)
    {
        if (panel_peak(pn, p) && pn->nl < 31)
            pn->lines[pn->nl++] = num(p, "gflops");
    }
    const double gemm = num(json_object_get(pn->team, "gemm_gflops"), pn->dt);
    if (gemm > 0)
        pn->lines[pn->nl++] = gemm;
}

/* A horizontal roof at g, labelled, is an obstacle to the labels after
 * it. */
static void horizontal(panel *pn, double g)
{
    if (pn->obs.ny < 31)
        pn->obs.y[pn->obs.ny++] = g;
}

/* Each vector width's peak, from the highest down: where two roofs lie
 * close, the upper one's label takes the place above the pair and the
 * lower one's below it. */
static void compute_roofs(panel *pn)
{
    const json_t *pk[32];
    size_t npk = 0, j;
    json_t *p;
    json_array_foreach(json_object_get(pn->ceil, "peak"), j, p)
    {
        if (panel_peak(pn, p) && npk < 32)
            pk[npk++] = p;
    }
    for (size_t a = 1; a < npk; a++)
        for (size_t b = a;
             b > 0 && num(pk[b], "gflops") > num(pk[b - 1], "gflops"); b--) {
            const json_t *tmp = pk[b];
            pk[b] = pk[b - 1];
            pk[b - 1] = tmp;
        }
    for (size_t k = 0; k < npk; k++) {
        const double g = num(pk[k], "gflops");
        const char *variant = str(pk[k], "variant");
        segment(pn->seg, "compute", pn->dt, pn->th, variant, X_LO, g, X_HI, g);
        char t[96];
        snprintf(t, sizeof(t), "%.40s %.4g", variant, g);
        double xl, yl;
        place_compute(&pn->obs, pn->lines, pn->nl, g, strlen(t), &xl, &yl);
        label(pn->lab, "compute", pn->dt, pn->th, xl, yl, t);
        /* right-aligned at xl */
        placed(&pn->obs,
               text_box(xl / pow(10.0, (double)strlen(t) * CHAR_DX), yl,
                        strlen(t)));
        horizontal(pn, g);
    }
}

/* OpenBLAS's GEMM, labelled right of every diagonal at its height (the
 * slowest level reaches it at gemm / bw), just above or below the line,
 * moved right past kernels and roofs it would cover. */
static void gemm_roof(panel *pn)
{
    const double gemm = num(json_object_get(pn->team, "gemm_gflops"), pn->dt);
    if (!(gemm > 0))
        return;
    segment(pn->seg, "gemm", pn->dt, pn->th, "OpenBLAS GEMM", X_LO, gemm, X_HI,
            gemm);
    char t[64];
    snprintf(t, sizeof(t), "OpenBLAS GEMM %.4g", gemm);
    double slow = INFINITY;
    size_t j;
    json_t *p;
    json_array_foreach(roof_levels(pn->team, "read"), j, p)
    {
        if (num(p, "gbs") > 0 && num(p, "gbs") < slow)
            slow = num(p, "gbs");
    }
    const double x0 = isfinite(slow) ? fmax(3.0, 2.0 * gemm / slow) : 3.0;
    double xg, yg;
    place_gemm(&pn->obs, x0, gemm, t, sizeof(t), &xg, &yg);
    label(pn->lab, "gemm", pn->dt, pn->th, xg, yg, t);
    placed(&pn->obs, text_box(xg, yg, strlen(t)));
    horizontal(pn, gemm);
}

/* The box of a label of len characters beside the diagonal of bw at
 * height y: at intensity y / bw * at, ending there (right) or starting
 * there. */
static box diagonal_box(double bw, double at, int right, double y, size_t len)
{
    const double x = y / bw * at;
    return text_box(right ? x / pow(10.0, (double)len * CHAR_DX) : x, y, len);
}

/* Where the label of len characters beside the diagonal of bw goes (as
 * in diagonal_box): the first of y0, a step of dec decades lower, higher,
 * lower still, ... (twelve tries), below the peak and above floor, that
 * covers nothing placed on the panel; else y0. */
static double diagonal_label_y(const panel *pn, double bw, double at,
                               int right, size_t len, double y0, double dec,
                               double floor)
{
    for (int c = 0; c < 12; c++) {
        const double step = c % 2 ? (c + 1) / 2 : -(c / 2);
        const double y = y0 * pow(10.0, -dec * step);
        if (y > pn->top / 1.3 || y < floor)
            continue;
        if (!covers(&pn->obs, diagonal_box(bw, at, right, y, len)))
            return y;
    }
    return y0;
}

/* Each level's diagonal up to the top peak, labelled at its right end
 * (at intensity y / bw / 1.25): above the diagonal (no kernel lives above
 * a roof), each level at its own height (a third of a decade lower than
 * the one before), moved past a horizontal roof or label it would cover
 * (diagonal_label_y, steps of 0.08 decades), never above the peak. */
static void memory_roofs(panel *pn)
{
    int level = 0;
    size_t j;
    json_t *p;
    json_array_foreach(roof_levels(pn->team, "read"), j, p)
    {
        const double bw = num(p, "gbs");
        if (!(bw > 0))
            continue;
        const double ridge = pn->top / bw;
        const double x0 = fmax(X_LO, 1e-3 * ridge);
        segment(pn->seg, "memory", pn->dt, pn->th, str(p, "name"), x0,
                x0 * bw, ridge, pn->top);
        char t[64];
        snprintf(t, sizeof(t), "%.15s %.4g GB/s", str(p, "name"), bw);
        const size_t len = strlen(t);
        const double y0 = pn->top * pow(10.0, -0.5 - 0.35 * level++);
        const double yl =
            diagonal_label_y(pn, bw, 1 / 1.25, 1, len, y0, 0.08, 0.0);
        label(pn->lab, "memory", pn->dt, pn->th, yl / bw / 1.25, yl, t);
        placed(&pn->obs, diagonal_box(bw, 1 / 1.25, 1, yl, len));
    }
}

/* The network roof on a 1-thread panel (each rank computes on one core):
 * FLOP per byte crossing the link against the all-reduce's fitted bus
 * bandwidth w, a diagonal from three decades below the peak (not below
 * the panel) up to it, labelled just right of it (left-aligned at 1.3
 * times its intensity there) at a third of the peak, else a tenth of a
 * decade lower, higher, lower still, ... (below the peak, above the
 * diagonal's foot): clear of the kernels, the horizontal roofs and the
 * labels placed before it (GEMM's lies near that height). Where no height
 * is clear, a third of the peak. */
static void network_roof(panel *pn, double w)
{
    if (!(w > 0) || pn->th != 1)
        return;
    const double ridge = pn->top / w, x0 = fmax(X_LO, pn->top / 300.0 / w);
    segment(pn->seg, "network", pn->dt, 1, "network", x0, x0 * w, ridge,
            pn->top);
    char t[64];
    snprintf(t, sizeof(t), "network %.3g GB/s", w);
    const size_t len = strlen(t);
    const double yl =
        diagonal_label_y(pn, w, 1.3, 0, len, pn->top / 3.0, 0.1, 3.0 * x0 * w);
    label(pn->lab, "network", pn->dt, 1, yl / w * 1.3, yl, t);
    placed(&pn->obs, diagonal_box(w, 1.3, 0, yl, len));
}

/* The roofs of each team of the ceilings document, each labelled where it
 * covers neither a kernel of the results nor another roof. */
static void roofs(const json_t *ceil, const json_t *res, const json_t *orders,
                  double net_w, strbuf *seg, csv *lab)
{
    static const char *const dts[2] = {"f32", "f64"};
    size_t i;
    json_t *team;
    json_array_foreach(json_object_get(ceil, "roofline"), i, team)
    {
        for (int d = 0; d < 2; d++) {
            panel pn = {
                .ceil = ceil,
                .team = team,
                .dt = dts[d],
                .th = json_integer_value(json_object_get(team, "threads")),
                .top = num(json_object_get(team, "peak_gflops"), dts[d]),
                .seg = seg,
                .lab = lab};
            if (!(pn.top > 0))
                continue;
            panel_points(res, pn.dt, pn.th, &pn.obs);
            panel_levels(orders, pn.dt, pn.th, &pn.obs);
            panel_lines(&pn);
            compute_roofs(&pn);
            gemm_roof(&pn);
            memory_roofs(&pn);
            network_roof(&pn, net_w);
            mixed_diagonals(team, pn.dt, pn.th, pn.top, seg);
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

/* A form's three points, one row each, in roofline-levels.csv. */
static void form_rows(void *ctx, const form_levels *fl)
{
    csv *c = ctx;
    static const char *const lv[3] = {"L1", "LL", "memory"};
    for (int k = 0; k < 3; k++) {
        csv_str(c, fl->dtype);
        csv_int(c, (unsigned long long)fl->threads);
        csv_str(c, fl->kernel);
        csv_str(c, lv[k]);
        csv_int(c, (unsigned long long)k);
        csv_num(c, "%.6g", fl->x[k]);
        csv_num(c, "%.6g", fl->gflops);
        csv_str(c, fl->source);
        csv_end(c);
    }
}

/* The hierarchical roofline of the orders document (see form_levels):
 * the form's points, joined, show where its traffic is made. */
static size_t levels(const json_t *orders, csv *c)
{
    return each_form(orders, form_rows, c);
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
                          const json_t *results, const json_t *orders,
                          const json_t *network, char *why, size_t whylen,
                          rb_err *e)
{
    strbuf seg = {0};
    sb_printf(&seg, "# kind,dtype,threads,name,intensity,gflops: one "
                    "segment a block\n");
    csv lab = {0}, pts = {0};
    csv_header(&lab, "kind,dtype,threads,intensity,gflops,text");
    csv_header(&pts, "dtype,threads,kernel,intensity,gflops");
    /* the network document's link: GB/s, 0 where there is none */
    const double net_w =
        network ? num(json_object_get(network, "link"), "bandwidth_Bps") / 1e9
                : 0.0;
    roofs(ceilings, results, orders, net_w, &seg, &lab);
    const size_t n = points(results, &pts);
    csv lev = {0};
    csv_header(&lev, "dtype,threads,kernel,level,order,intensity,gflops,"
                     "source");
    if (orders)
        levels(orders, &lev);
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
    if (!rc)
        rc =
            runfolder_write_text(f, "roofline-levels.csv", sb_take(&lev.sb), e);
    else
        sb_free(&lev.sb);
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
        static const char *const mixes[2] = {"read", "mixed"};
        for (int m = 0; m < 2; m++)
            json_array_foreach(roof_levels(team, mixes[m]), k, p)
            {
                char name[128];
                snprintf(name, sizeof(name), "%.15s %s (%.15s), %lld thread%s",
                         str(p, "name"), mixes[m], str(p, "kernel"), th,
                         rb_plural(th));
                jd_push(&j, gbytes, "gbytes",
                        jd_pack(&j, "[s, o]", name, jd_num(num(p, "gbs"))));
                jd_push(&j, side, "ceilings",
                        jd_pack(&j, "{s:s, s:s, s:o, s:o, s:n, s:s}", "name",
                                name, "unit", "GB/s", "measured",
                                jd_num(num(p, "gbs")), "spread",
                                jd_num(num(p, "spread")), "theoretical",
                                "theoretical_unavailable",
                                "no spec-sheet bandwidth for this host: "
                                "roofbench measures bandwidth only"));
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
