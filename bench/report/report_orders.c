#include "report_orders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jdoc.h"
#include "plot.h"

static const char *form_label(const rb_kernel *k)
{
    return strcmp(k->form, "openblas") == 0 ? "OpenBLAS" : k->form;
}

static double size_flops(const orders_size *z)
{
    rb_counts c;
    return rb_counts_matmul(z->s, rb_dtype_size(z->dt), &c) == 0
               ? (double)c.flops
               : NAN;
}

void report_orders_sentence(const orders_size *z, char *buf, size_t len)
{
    orders_summary o;
    orders_summarize(z, &o);
    buf[0] = '\0';
    if (o.ibest < 0 || o.iworst < 0)
        return;
    if (o.ibest == o.iworst) {
        /* one form: nothing to compare it with */
        snprintf(buf, len,
                 "%s moves %.3g MB at the last level (%s) for %.4g "
                 "FLOPs.",
                 form_label(z->forms[o.ibest].k), o.least / 1e6,
                 o.use_sim ? "cachegrind" : "model", size_flops(z));
        return;
    }
    int n = snprintf(buf, len,
                     "%s moves least at the last level (%s: %.3g MB); %s "
                     "moves %.0fx more (%.3g MB) for the same %.4g FLOPs.",
                     form_label(z->forms[o.ibest].k),
                     o.use_sim ? "cachegrind" : "model", o.least / 1e6,
                     form_label(z->forms[o.iworst].k), o.worst / o.least,
                     o.worst / 1e6, size_flops(z));
    if (o.agree_ll > 0.0 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 " Model and simulation agree within x%.2f at the last level "
                 "and x%.2f at L1 for every modelled form.",
                 o.agree_ll, o.agree_l1);
}

/* ---- JSON ------------------------------------------------------------------
 */

static json_t *bytes_json(jdoc *d, double l1, double ll)
{
    return jd_pack(d, "{s:o, s:o}", "l1_bytes", jd_num(l1), "ll_bytes",
                   jd_num(ll));
}

static json_t *sim_json(jdoc *d, const orders_form *f)
{
    json_t *b = bytes_json(d, f->sim_l1, f->sim_ll);
    jd_set(d, b, "d1_misses", jd_num(f->sim.d1_misses));
    jd_set(d, b, "ll_misses", jd_num(f->sim.ll_misses));
    jd_set(d, b, "instructions", jd_num(f->sim.ir));
    json_t *fns = json_array();
    for (int q = 0; q < f->sim.nfn && q < 5; q++)
        jd_push(d, fns, "functions",
                jd_pack(d, "{s:o, s:o, s:o}", "function",
                        jd_str(f->sim.fn[q].name), "d1_misses",
                        jd_num(f->sim.fn[q].d1), "ll_misses",
                        jd_num(f->sim.fn[q].ll)));
    jd_set(d, b, "functions", fns);
    return b;
}

static json_t *form_counters_json(jdoc *d, const orders_plan *p,
                                  const orders_form *f)
{
    if (!f->have_ctr)
        return jd_pack(d, "{s:s}", "unavailable",
                       p->cst.reason[0] ? p->cst.reason : "no usable event");
    json_t *c = json_object();
    for (int q = 0; q < p->ev.n; q++)
        jd_set(d, c, p->ev.name[q],
               p->ev.usable[q]
                   ? jd_num(f->ctr[q])
                   : jd_pack(d, "{s:s}", "unavailable", p->ev.reason[q]));
    if (f->ctr_flag[0])
        jd_set(d, c, "self_check_failed", json_string(f->ctr_flag));
    return c;
}

static json_t *form_json(jdoc *d, const orders_plan *p, const orders_size *z,
                         const orders_form *f)
{
    json_t *jf =
        jd_pack(d, "{s:s, s:s, s:o, s:o, s:o}", "kernel", f->k->name, "form",
                f->k->form, "t_min_s", jd_num(f->t_min), "t_median_s",
                jd_num(f->t_med), "gflops", jd_num(f->gflops));
    if (z->complete && f->have_model)
        jd_set(d, jf, "model", bytes_json(d, f->model_l1, f->model_ll));
    else if (z->complete && (p->sources & ORDERS_MODEL))
        jd_set(d, jf, "model",
               jd_pack(d, "{s:s}", "unavailable",
                       "no model of a library's internal blocking"));
    if (f->have_sim)
        jd_set(d, jf, "cachegrind", sim_json(d, f));
    if (p->sources & ORDERS_COUNTERS)
        jd_set(d, jf, "counters", form_counters_json(d, p, f));
    return jf;
}

static json_t *size_json(jdoc *d, const orders_plan *p, const orders_size *z)
{
    json_t *forms = json_array();
    json_t *js = jd_pack(d, "{s:s, s:I, s:I, s:I, s:o, s:o}", "dtype",
                         rb_dtype_name(z->dt), "n", (json_int_t)z->s.n, "p",
                         (json_int_t)z->s.p, "m", (json_int_t)z->s.m, "flops",
                         jd_num(size_flops(z)), "forms", forms);
    if (z->complete && (p->sources & ORDERS_MODEL))
        jd_set(d, js, "model_blocks",
               jd_pack(d, "{s:s, s:I, s:I, s:I, s:I, s:I}", "path",
                       z->blk.path ? z->blk.path : "?", "mr",
                       (json_int_t)z->blk.mr, "nr", (json_int_t)z->blk.nr, "kc",
                       (json_int_t)z->blk.kc, "mc", (json_int_t)z->blk.mc, "nc",
                       (json_int_t)z->blk.nc));
    if (z->complete && (p->sources & ORDERS_CACHEGRIND))
        jd_set(d, js, "simulated_path", jd_str(z->simulated_path));
    for (int i = 0; i < z->nforms; i++)
        jd_push(d, forms, "forms", form_json(d, p, z, &z->forms[i]));
    char sentence[1024];
    report_orders_sentence(z, sentence, sizeof(sentence));
    if (z->complete && sentence[0]) {
        orders_summary o;
        orders_summarize(z, &o);
        jd_set(d, js, "summary", json_string(sentence));
        if (o.agree_ll > 0.0) {
            jd_set(d, js, "model_vs_cachegrind_worst_factor_ll",
                   jd_num(o.agree_ll));
            jd_set(d, js, "model_vs_cachegrind_worst_factor_l1",
                   jd_num(o.agree_l1));
        }
    }
    return js;
}

char *report_orders_json(const orders_doc *doc, rb_err *e)
{
    jdoc d = {0};
    const orders_plan *p = doc->plan;
    json_t *sizes = json_array(), *sources = json_array();
    for (int i = 0; i < doc->res->nsizes; i++)
        jd_push(&d, sizes, "sizes", size_json(&d, p, &doc->res->sizes[i]));
    static const struct {
        int bit;
        const char *name;
    } names[] = {{ORDERS_MODEL, "model"},
                 {ORDERS_COUNTERS, "counters"},
                 {ORDERS_CACHEGRIND, "cachegrind"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (p->sources & names[i].bit)
            jd_push(&d, sources, "sources", json_string(names[i].name));
    json_t *geom =
        jd_pack(&d, "{s:o, s:{s:o, s:i, s:i}, s:{s:o, s:i, s:i}}", "source",
                jd_str(p->geom.source), "l1", "bytes", jd_num(p->geom.l1.size),
                "ways", (int)p->geom.l1.assoc, "line", (int)p->geom.l1.line,
                "ll", "bytes", jd_num(p->geom.ll.size), "ways",
                (int)p->geom.ll.assoc, "line", (int)p->geom.ll.line);
    json_t *root = jd_pack(
        &d, "{s:s, s:i, s:O, s:i, s:o, s:o, s:o, s:s, s:s*}", "schema",
        "roofbench.orders", "schema_version", 1, "context", doc->context,
        "threads", p->timing.nthreads > 0 ? p->timing.threads[0] : 1, "sizes",
        sizes, "sources", sources, "geometry", geom, "status", doc->status,
        "error", doc->error);
    /* the worst agreement over every size, when both sources ran */
    double w1 = 0.0, wll = 0.0;
    for (int i = 0; i < doc->res->nsizes; i++) {
        if (!doc->res->sizes[i].complete)
            continue;
        orders_summary o;
        orders_summarize(&doc->res->sizes[i], &o);
        w1 = fmax(w1, o.agree_l1);
        wll = fmax(wll, o.agree_ll);
    }
    if (w1 > 0.0 && wll > 0.0 && root)
        jd_set(&d, root, "model_vs_cachegrind_worst_factor",
               jd_pack(&d, "{s:o, s:o}", "l1", jd_num(w1), "ll",
                       jd_num(wll)));
    return jd_text(&d, root, "orders.json", 12, e);
}

/* ---- CSV -------------------------------------------------------------------
 */

/* The columns every line of a form starts with. */
static void csv_form(csv *c, const orders_size *z, const orders_form *f,
                     const char *source)
{
    csv_str(c, rb_dtype_name(z->dt));
    csv_int(c, z->s.n);
    csv_int(c, z->s.p);
    csv_int(c, z->s.m);
    csv_str(c, f->k->name);
    csv_str(c, f->k->form);
    csv_num(c, "%.0f", f->flops);
    csv_num(c, "%.9g", f->t_min);
    csv_num(c, "%.6g", f->gflops);
    csv_str(c, source);
}

static void csv_bytes(csv *c, double l1, double ll, const char *name,
                      double intensity)
{
    csv_num(c, "%.0f", l1);
    csv_num(c, "%.0f", ll);
    csv_str(c, name);
    csv_num(c, "%.6g", intensity);
    csv_end(c);
}

static void csv_form_lines(csv *c, const orders_plan *p, const orders_size *z,
                           const orders_form *f)
{
    csv_form(c, z, f, "time");
    csv_bytes(c, NAN, NAN, "", NAN);
    if (f->have_model) {
        csv_form(c, z, f, "model");
        csv_bytes(c, f->model_l1, f->model_ll, "LL", f->flops / f->model_ll);
    }
    if (f->have_sim) {
        csv_form(c, z, f, "cachegrind");
        csv_bytes(c, f->sim_l1, f->sim_ll, "LL", f->flops / f->sim_ll);
    }
    if ((p->sources & ORDERS_COUNTERS) && f->have_ctr) {
        const double line = p->geom.l1.line;
        const double l1m = orders_counter(f, &p->ev, CE_L1D_MISSES),
                     l3m = orders_counter(f, &p->ev, CE_L3_MISSES);
        csv_form(c, z, f, "counters");
        csv_bytes(c, l1m >= 0 ? l1m * line : NAN, l3m >= 0 ? l3m * line : NAN,
                  "L3", l3m > 0 ? f->flops / (l3m * line) : NAN);
    }
    const char *src;
    const double ll = orders_best_ll(f, p, &src);
    if (ll > 0.0) {
        csv_form(c, z, f, "best");
        csv_bytes(c, NAN, ll, src, f->flops / ll);
    }
}

char *report_orders_csv(const orders_doc *doc, rb_err *e)
{
    csv c = {0};
    csv_header(&c, REPORT_ORDERS_HEADER);
    for (int i = 0; i < doc->res->nsizes; i++) {
        const orders_size *z = &doc->res->sizes[i];
        for (int k = 0; k < z->nforms; k++)
            csv_form_lines(&c, doc->plan, z, &z->forms[k]);
    }
    char *text = sb_take(&c.sb);
    if (!text)
        rb_fail(e, RB_EINPUT, "out of memory formatting orders.csv");
    return text;
}

/* ---- text ------------------------------------------------------------------
 */

static void table_header(const orders_plan *p, FILE *f)
{
    fprintf(f, "%-15s %-13s %10s %9s", "kernel", "form", "t_min(s)", "GFLOP/s");
    if (p->sources & ORDERS_MODEL)
        fprintf(f, " | %10s %10s %8s %7s", "model L1", "model LL", "I_LL",
                "xbest");
    if (p->sources & ORDERS_CACHEGRIND)
        fprintf(f, " | %10s %10s %8s %7s", "sim D1", "sim LL", "I_LL", "xbest");
    if ((p->sources & ORDERS_COUNTERS) && p->ev.nusable > 0)
        fprintf(f, " | %10s %10s %10s %8s", "ctr L1", "ctr L2", "ctr L3",
                "I_L3");
    fprintf(f, "\n");
}

static void counters_cells(const orders_plan *p, const orders_form *fm, FILE *f)
{
    const double line = p->geom.l1.line;
    const double l1m = orders_counter(fm, &p->ev, CE_L1D_MISSES),
                 l2m = orders_counter(fm, &p->ev, CE_L2_MISSES),
                 l3m = orders_counter(fm, &p->ev, CE_L3_MISSES);
    char a[24], b2[24], b[24], c[24];
    snprintf(a, sizeof(a), l1m >= 0 ? "%.4g" : "n/a", l1m * line);
    snprintf(b2, sizeof(b2), l2m >= 0 ? "%.4g" : "n/a", l2m * line);
    snprintf(b, sizeof(b), l3m >= 0 ? "%.4g" : "n/a", l3m * line);
    snprintf(c, sizeof(c), l3m > 0 ? "%.3g" : "n/a", fm->flops / (l3m * line));
    fprintf(f, " | %10s %10s %10s %8s%s%s", a, b2, b, c,
            fm->ctr_flag[0] ? "  ! " : "", fm->ctr_flag);
}

static void table_row(const orders_plan *p, const orders_form *fm,
                      const orders_summary *o, FILE *f)
{
    fprintf(f, "%-15s %-13s %10.4g %9.3f", fm->k->name, fm->k->form, fm->t_min,
            fm->gflops);
    if (p->sources & ORDERS_MODEL) {
        if (fm->have_model)
            fprintf(f, " | %10.4g %10.4g %8.3g %7.1f", fm->model_l1,
                    fm->model_ll, fm->flops / fm->model_ll,
                    fm->model_ll / o->least_model);
        else
            fprintf(f, " | %10s %10s %8s %7s", "-", "-", "-", "-");
    }
    if (p->sources & ORDERS_CACHEGRIND)
        fprintf(f, " | %10.4g %10.4g %8.3g %7.1f", fm->sim_l1, fm->sim_ll,
                fm->flops / fm->sim_ll, fm->sim_ll / o->least_sim);
    if ((p->sources & ORDERS_COUNTERS) && p->ev.nusable > 0)
        counters_cells(p, fm, f);
    fprintf(f, "\n");
}

/* The functions that missed, per form: those with at least 0.5% of D1 or
 * LL misses, four at most. */
static void functions_text(const orders_size *z, FILE *f)
{
    for (int i = 0; i < z->nforms; i++) {
        const orders_form *fm = &z->forms[i];
        fprintf(f, "  %-15s misses by function (D1, LL):", fm->k->name);
        int shown = 0, rest = 0;
        for (int q = 0; q < fm->sim.nfn; q++) {
            const double d1 = fm->sim.fn[q].d1 / fm->sim.d1_misses,
                         ll = fm->sim.ll_misses > 0
                                  ? fm->sim.fn[q].ll / fm->sim.ll_misses
                                  : 0.0;
            if (shown < 4 && (d1 >= 0.005 || ll >= 0.005))
                fprintf(f, "%s %s %.0f%% %.0f%%", shown++ ? "," : "",
                        fm->sim.fn[q].name, 100.0 * d1, 100.0 * ll);
            else
                rest++;
        }
        if (rest)
            fprintf(f, " (%d more, each under 0.5%% or beyond the first 4)",
                    rest);
        fprintf(f, "\n");
    }
}

static void notes_text(const orders_plan *p, const orders_size *z, FILE *f)
{
    fprintf(f,
            "FLOPs: %.0f in every form (asserted equal). Bytes are lines "
            "filled x line size (reads and write-allocates; write-backs not "
            "counted); I_LL = FLOPs / last-level bytes; xbest: bytes / the "
            "least of any form.\n",
            size_flops(z));
    if (p->sources & ORDERS_MODEL)
        fprintf(f,
                "model: blocked form with MR %zu NR %zu KC %zu MC %zu NC %zu "
                "(%s); OpenBLAS has no model (its blocking is internal).\n",
                z->blk.mr, z->blk.nr, z->blk.kc, z->blk.mc, z->blk.nc,
                (p->sources & ORDERS_CACHEGRIND) ? "the simulated path's blocks"
                                                 : "this machine's path");
    if (p->sources & ORDERS_CACHEGRIND) {
        fprintf(f,
                "cachegrind: simulated code path: %s (valgrind 3.19 cannot "
                "decode AVX-512); D1 %.0f bytes %u-way, LL %.0f bytes %u-way, "
                "%u-byte lines (%s); kernel run minus set-up run.\n",
                z->simulated_path, p->geom.l1.size, p->geom.l1.assoc,
                p->geom.ll.size, p->geom.ll.assoc, p->geom.ll.line,
                p->geom.source);
        functions_text(z, f);
    }
    if ((p->sources & ORDERS_COUNTERS) && p->ev.nusable == 0)
        fprintf(f, "counters: unavailable: %s\n",
                p->cst.reason[0] ? p->cst.reason : p->ev.reason[0]);
    else if (p->sources & ORDERS_COUNTERS)
        for (int q = 0; q < p->ev.n; q++)
            if (!p->ev.usable[q])
                fprintf(f, "counters: %s unavailable: %s\n", p->ev.name[q],
                        p->ev.reason[q]);
    char sentence[1024];
    report_orders_sentence(z, sentence, sizeof(sentence));
    if (sentence[0])
        fprintf(f, "%s\n", sentence);
}

static void size_text(const orders_plan *p, const orders_size *z, FILE *f)
{
    const int nt = p->timing.threads[0];
    fprintf(f,
            "\nC[%zu,%zu] = A[%zu,%zu] B[%zu,%zu], %s, %d thread%s: %d "
            "form%s\n",
            z->s.n, z->s.m, z->s.n, z->s.p, z->s.p, z->s.m,
            rb_dtype_name(z->dt), nt, rb_plural(nt), z->nforms,
            rb_plural(z->nforms));
    orders_summary o;
    orders_summarize(z, &o);
    table_header(p, f);
    for (int i = 0; i < z->nforms; i++)
        table_row(p, &z->forms[i], &o, f);
    if (z->complete)
        notes_text(p, z, f);
}

/* A sweep: one line per form and size with the best last-level figure,
 * then where each form falls out of the last level. */
static void agreement_text(const orders_doc *doc, FILE *f);

static void sweep_text(const orders_doc *doc, FILE *f)
{
    const orders_plan *p = doc->plan;
    fprintf(f, "\n%5s %-5s %-14s %10s %9s %12s %-10s %8s\n", "n", "dtype",
            "kernel", "t_min(s)", "GFLOP/s", "LL bytes", "source", "xcompul");
    for (int i = 0; i < doc->res->nsizes; i++) {
        const orders_size *z = &doc->res->sizes[i];
        const double compulsory = orders_compulsory(z);
        for (int k = 0; k < z->nforms; k++) {
            const char *src;
            const double ll = orders_best_ll(&z->forms[k], p, &src);
            fprintf(f, "%5zu %-5s %-14s %10.4g %9.3f %12.4g %-10s %8.1f\n",
                    z->s.n, rb_dtype_name(z->dt), z->forms[k].k->name,
                    z->forms[k].t_min, z->forms[k].gflops, ll, src,
                    ll > 0 ? ll / compulsory : NAN);
        }
    }
    if (strcmp(doc->status, "complete") != 0)
        return;
    agreement_text(doc, f);
    for (int d = 0; d < p->ndtypes; d++) {
        const rb_dtype dt = p->dtypes[d];
        fprintf(f,
                "\n%s: where each form falls out of the last level (its "
                "traffic passes 4x the compulsory bytes):\n",
                rb_dtype_name(dt));
        for (size_t k = 0; k < p->timing.nkernels; k++) {
            const size_t at = doc->res->falls[dt][k];
            if (at)
                fprintf(f, "  %-16s at n = %zu (x%.1f, %s)\n",
                        p->timing.kernels[k]->name, at,
                        doc->res->falls_x[dt][k], doc->res->falls_src[dt][k]);
            else
                fprintf(f,
                        "  %-16s stays within 4x of compulsory up to n = "
                        "%zu\n",
                        p->timing.kernels[k]->name, p->sizes[p->nsizes - 1].n);
        }
    }
}

/* A sweep's model / cachegrind ratios, one row per form and a column per
 * size, for each dtype and level; then the worst factor of all. */
static void agreement_text(const orders_doc *doc, FILE *f)
{
    const orders_plan *p = doc->plan;
    double worst = 0.0;
    char where[160] = "";
    for (int d = 0; d < p->ndtypes; d++)
        for (int lv = 0; lv < 2; lv++) {
            const rb_dtype dt = p->dtypes[d];
            int any = 0;
            for (size_t k = 0; k < p->timing.nkernels; k++) {
                char row[1024];
                int len = snprintf(row, sizeof(row), "  %-16s",
                                   p->timing.kernels[k]->name);
                int have = 0;
                for (int i = 0; i < doc->res->nsizes; i++) {
                    const orders_size *z = &doc->res->sizes[i];
                    if (z->dt != dt || (size_t)len >= sizeof(row))
                        continue;
                    const orders_form *fm = NULL;
                    for (int q = 0; q < z->nforms; q++)
                        if (z->forms[q].k == p->timing.kernels[k])
                            fm = &z->forms[q];
                    const double m = fm ? (lv ? fm->model_ll : fm->model_l1)
                                        : 0.0,
                                 c = fm ? (lv ? fm->sim_ll : fm->sim_l1) : 0.0;
                    if (!fm || !fm->have_model || !fm->have_sim || c <= 0.0) {
                        len += snprintf(row + len, sizeof(row) - (size_t)len,
                                        " %6s", "-");
                        continue;
                    }
                    const double r = m / c, x = r >= 1.0 ? r : 1.0 / r;
                    have = 1;
                    len += snprintf(row + len, sizeof(row) - (size_t)len,
                                    " %6.2f", r);
                    if (x > worst) {
                        worst = x;
                        snprintf(where, sizeof(where), "%s %s n = %zu at %s",
                                 fm->k->name, rb_dtype_name(dt), z->s.n,
                                 lv ? "the last level" : "L1");
                    }
                }
                if (!have)
                    continue;
                if (!any++) {
                    fprintf(f, "\nmodel / cachegrind, %s, %s:\n  %-16s",
                            rb_dtype_name(dt), lv ? "last level" : "L1", "n");
                    for (int i = 0; i < doc->res->nsizes; i++)
                        if (doc->res->sizes[i].dt == dt)
                            fprintf(f, " %6zu", doc->res->sizes[i].s.n);
                    fputc('\n', f);
                }
                fprintf(f, "%s\n", row);
            }
        }
    if (worst > 0.0)
        fprintf(f,
                "\nthe model is within x%.2f of cachegrind at every size, "
                "form and level (the farthest: %s)\n",
                worst, where);
}

void report_orders_text(const orders_doc *doc, const char *dir, FILE *f)
{
    fprintf(f, "roofbench orders on %s: results in %s\n",
            json_string_value(json_object_get(doc->context, "host")), dir);
    if (doc->plan->sweep)
        sweep_text(doc, f);
    else
        for (int i = 0; i < doc->res->nsizes; i++)
            size_text(doc->plan, &doc->res->sizes[i], f);
}

/* ---- the folder
 * -------------------------------------------------------------- */

/* The roofline team the chart draws: the timed thread count's, else the
 * first. */
static const roof_team *chart_team(const orders_doc *doc)
{
    const roofline *r = doc->roof;
    for (size_t i = 0; i < r->nteams; i++)
        if (r->teams[i].threads == doc->plan->timing.threads[0])
            return &r->teams[i];
    return &r->teams[0];
}

/* orders-roofline.csv: the host's peaks per dtype and memory levels (of
 * the mixed roof: every form writes C), the only figures the chart needs
 * beside orders.csv. */
static char *roofline_csv(const orders_doc *doc)
{
    const roof_team *t = chart_team(doc);
    csv c = {0};
    csv_header(&c, REPORT_ORDERS_ROOFLINE_HEADER);
    for (int d = 0; d < doc->plan->ndtypes; d++) {
        csv_str(&c, "peak");
        csv_str(&c, rb_dtype_name(doc->plan->dtypes[d]));
        csv_num(&c, "%.6g", t->peak_gflops[doc->plan->dtypes[d]]);
        csv_end(&c);
    }
    /* the forms write C: the mixed roof where it was measured */
    const roof_bw *b = roof_team_bw(t, RB_ACCESS_MIXED);
    for (size_t l = 0; l < b->nlevels; l++) {
        csv_str(&c, "level");
        csv_str(&c, b->levels[l].name);
        csv_num(&c, "%.6g", b->levels[l].gbs);
        csv_end(&c);
    }
    return sb_take(&c.sb);
}

/* orders-traffic.csv, for a sweep's model against cachegrind chart: one
 * series per dtype, form and source (model, cachegrind, and the
 * compulsory bytes), its sizes in a run, so that gnuplot draws each as one
 * line. */
static char *traffic_csv(const orders_doc *doc)
{
    const orders_plan *p = doc->plan;
    csv c = {0};
    csv_header(&c, "dtype,kernel,source,n,l1_bytes,ll_bytes");
    for (int d = 0; d < p->ndtypes; d++) {
        for (size_t k = 0; k < p->timing.nkernels; k++)
            for (int src = 0; src < 2; src++)
                for (int i = 0; i < doc->res->nsizes; i++) {
                    const orders_size *z = &doc->res->sizes[i];
                    for (int q = 0; z->dt == p->dtypes[d] && q < z->nforms;
                         q++) {
                        const orders_form *fm = &z->forms[q];
                        if (fm->k != p->timing.kernels[k] ||
                            !(src ? fm->have_sim : fm->have_model))
                            continue;
                        csv_str(&c, rb_dtype_name(z->dt));
                        csv_str(&c, fm->k->name);
                        csv_str(&c, src ? "cachegrind" : "model");
                        csv_num(&c, "%.0f", (double)z->s.n);
                        csv_num(&c, "%.6g", src ? fm->sim_l1 : fm->model_l1);
                        csv_num(&c, "%.6g", src ? fm->sim_ll : fm->model_ll);
                        csv_end(&c);
                    }
                }
        /* the compulsory bytes, once per size */
        for (int i = 0; i < doc->res->nsizes; i++) {
            const orders_size *z = &doc->res->sizes[i];
            if (z->dt != p->dtypes[d])
                continue;
            const double cb = orders_compulsory(z);
            csv_str(&c, rb_dtype_name(z->dt));
            csv_str(&c, "all");
            csv_str(&c, "compulsory");
            csv_num(&c, "%.0f", (double)z->s.n);
            csv_num(&c, "%.6g", cb);
            csv_num(&c, "%.6g", cb);
            csv_end(&c);
        }
    }
    return sb_take(&c.sb);
}

/* A sweep with both the model and cachegrind: the chart of both. */
static int traffic_chart(runfolder *f, const orders_doc *doc, char *why,
                         size_t whylen, rb_err *e)
{
    const orders_plan *p = doc->plan;
    if (!p->sweep || !(p->sources & ORDERS_MODEL) ||
        !(p->sources & ORDERS_CACHEGRIND))
        return RB_OK;
    char *text = traffic_csv(doc);
    int rc =
        text ? runfolder_write(f, "orders-traffic.csv", text, strlen(text), e)
             : rb_fail(e, RB_EINPUT, "out of memory");
    free(text);
    static const char *const outputs[] = {"traffic-*.png", "traffic-*.svg",
                                          NULL};
    int made = 0;
    if (!rc)
        rc = plot_run(f, "plot-traffic.gp", rb_plot_traffic_gp, outputs, &made,
                      why, whylen, e);
    return rc;
}

static int charts(runfolder *f, const orders_doc *doc, char *why, size_t whylen,
                  rb_err *e)
{
    char *text = roofline_csv(doc);
    int rc =
        text ? runfolder_write(f, "orders-roofline.csv", text, strlen(text), e)
             : rb_fail(e, RB_EINPUT, "out of memory");
    free(text);
    static const char *const outputs[] = {"orders-*.png", "orders-*.svg", NULL};
    int made = 0;
    if (!rc)
        rc = plot_run(f, "plot-orders.gp", rb_plot_orders_gp, outputs, &made,
                      why, whylen, e);
    if (!rc && made)
        why[0] = '\0';
    /* its data even where gnuplot is missing (plot_run then says why) */
    if (!rc)
        rc = traffic_chart(f, doc, made ? why : NULL, made ? whylen : 0, e);
    return rc;
}

/* A chart that fails costs the chart, not the documents: the failure is
 * kept in why and *chart_failed set. */
static int draw(runfolder *f, const orders_doc *doc, char *why, size_t whylen,
                int *chart_failed)
{
    rb_err pe;
    if (charts(f, doc, why, whylen, &pe) != RB_OK) {
        snprintf(why, whylen, "%s", pe.msg);
        *chart_failed = 1;
    }
    return RB_OK;
}

int report_orders_write(runfolder *f, const orders_doc *doc, char **json_text,
                        char *why, size_t whylen, int *chart_failed, rb_err *e)
{
    *chart_failed = 0;
    char *csvtext = report_orders_csv(doc, e);
    *json_text = csvtext ? report_orders_json(doc, e) : NULL;
    int rc = csvtext && *json_text ? RB_OK : RB_EINPUT;
    if (!rc)
        rc = runfolder_write(f, "orders.csv", csvtext, strlen(csvtext), e);
    if (!rc)
        rc = runfolder_write(f, "orders.json", *json_text, strlen(*json_text),
                             e);
    free(csvtext);
    snprintf(why, whylen, "the measurement was %s", doc->status);
    if (!rc && strcmp(doc->status, "complete") == 0 && doc->roof)
        rc = draw(f, doc, why, whylen, chart_failed);
    return rc;
}
