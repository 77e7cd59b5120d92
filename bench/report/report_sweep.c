#include "report_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jdoc.h"
#include "plot.h"
#include "report_run.h"
#include "stats.h"

/* ---- the analysis -------------------------------------------------------- */

/* A row's place on the host roofline at its measured rate; 0, or -1 when
 * there is no roof for its team or dtype. */
static int bound_of(const sweep_doc *doc, const harness_row *r, roof_bound *b)
{
    char why[160];
    return doc->roof ? roofline_bound(doc->roof, r->threads, r->dtype,
                                      r->kernel->access, r->counts.flops,
                                      r->counts.bytes, harness_row_gflops(r),
                                      b, why, sizeof(why))
                     : -1;
}

/* A figure measured around a row's samples: the larger of the one before
 * and the one after (the most the core and the memory lent it then), 0
 * where either is missing. */
static double around(double before, double after)
{
    return before > 0.0 && after > 0.0 ? fmax(before, after) : 0.0;
}

/* The bound of a point with the peak and the read bandwidth its team got
 * around its best sample (the larger of the figures before and after: the
 * most the core and the memory lent it then) in place of the roofline's
 * peak and level bandwidth; where the bandwidth was not measured, the
 * roofline's. b: the point's roofline bound (bound_of), NULL where it is
 * unknown. Returns -1 where the bound or the peak is unknown. */
static int bound_now(const roof_bound *b, const harness_row *r,
                     double *bound, double *peak_now, double *read_now)
{
    const double peak = around(r->peak_before, r->peak_after),
                 read = around(r->read_before, r->read_after);
    if (!b || !(peak > 0.0) || r->counts.bytes == 0)
        return -1;
    *read_now = read > 0.0 ? read : b->level.gbs;
    const double mem =
        (double)r->counts.flops / (double)r->counts.bytes * *read_now;
    *peak_now = peak;
    *bound = fmin(*peak_now, mem);
    return 0;
}

/* The streaming FMA probe around a row (harness_row): the better of its
 * figures before and after the samples, GFLOP/s; 0 where not measured. */
static double row_probe(const harness_row *r)
{
    return around(r->fmastream_before, r->fmastream_after);
}

/* The probe of a point: the best around the matmul rows of that weight
 * level, dtype, team and B (they stream the same weights with the same
 * FMAs per element, B), 0 where none was measured. */
static double probe_at(const sweep_doc *doc, int level, rb_dtype dt,
                       int threads, uint64_t b)
{
    double best = 0.0;
    for (size_t i = 0; i < doc->res->npoints; i++) {
        const sweep_point *p = &doc->res->points[i];
        if (p->level == level && p->b == b && p->row.dtype == dt &&
            p->row.threads == threads && p->row.kernel->op == RB_OP_MATMUL)
            best = fmax(best, row_probe(&p->row));
    }
    return best;
}

/* Whether curve i of a is the one that speaks for the probe of its weight
 * level, dtype and team: the first matmul curve there (with a roof, when
 * need_roof). */
static int probe_owner(const sweep_analysis *a, size_t i, int need_roof)
{
    const sweep_curve *c = &a->curves[i];
    if (c->kernel->op != RB_OP_MATMUL || (need_roof && !c->has_roof))
        return 0;
    for (size_t j = 0; j < i; j++) {
        const sweep_curve *o = &a->curves[j];
        if (o->level == c->level && o->d == c->d && o->t == c->t &&
            o->kernel->op == RB_OP_MATMUL && (!need_roof || o->has_roof))
            return 0;
    }
    return 1;
}

/* The probe's own curve: its rate at every B of the grid where it was
 * measured, and its knees where has_knee. */
typedef struct {
    double b[SWEEP_MAX_POINTS], g[SWEEP_MAX_POINTS];
    size_t n;
    sweep_knee knee;
    int has_knee;
} probe_line;

/* The probe's curve at the weight level, dtype and team of curve i, where
 * that curve speaks for it (probe_owner). Returns its points, 0 where
 * curve i does not speak for it. */
static size_t probe_curve(const sweep_doc *doc, const sweep_analysis *a,
                          size_t i, int need_roof, probe_line *pl)
{
    const sweep_plan *plan = doc->plan;
    const sweep_curve *c = &a->curves[i];
    pl->n = 0;
    pl->has_knee = 0;
    if (!probe_owner(a, i, need_roof))
        return 0;
    for (size_t j = 0; j < plan->nbatch; j++) {
        const double v = probe_at(doc, c->level, plan->dtypes[c->d],
                                  plan->threads[c->t], plan->batch[j]);
        if (v > 0.0) {
            pl->b[pl->n] = (double)plan->batch[j];
            pl->g[pl->n++] = v;
        }
    }
    pl->has_knee =
        pl->n >= 2 && sweep_knee_find(pl->b, pl->g, pl->n, &pl->knee) == 0;
    return pl->n;
}

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : dflt;
}

static int index_of_dtype(const sweep_plan *plan, rb_dtype dt)
{
    for (int d = 0; d < plan->ndtypes; d++)
        if (plan->dtypes[d] == dt)
            return d;
    return 0;
}

static int index_of_threads(const sweep_plan *plan, int threads)
{
    for (int t = 0; t < plan->nthreads; t++)
        if (plan->threads[t] == threads)
            return t;
    return 0;
}

/* The bandwidth of the level the weights sit in: that of the bound the
 * curve's first point (row, its smallest B: the weights and a few rows
 * of A and C) is held to (bound_of: the kernel's own access mix, for
 * matmul and batched the mixed roof), so that the ridge, the chart's roof
 * and the bandwidth ratio of two levels are the roof the points are
 * judged against. The weights were sized from the read roof's plateaus
 * (sweep_weights_side); the mixed roof's plateaus of the same names can
 * start and end elsewhere, so the level is the one that point falls in,
 * not a name: between two plateaus the envelope's figure there. */
static void weights_roof(const sweep_doc *doc, sweep_curve *c,
                         const harness_row *row)
{
    roof_bound b; /* fails with no team or no peak for the dtype */
    if (bound_of(doc, row, &b) != 0)
        return;
    c->bw = b.level.gbs;
    c->bw_mix = b.mix;
    snprintf(c->bw_level, sizeof(c->bw_level), "%s", b.level.name);
    /* between two plateaus no one kernel set it */
    snprintf(c->bw_kernel, sizeof(c->bw_kernel), "%s",
             strchr(b.level.name, '>') ? "envelope" : b.level.kernel);
    c->peak = b.peak_gflops;
    c->has_roof = 1;
    const double p = (double)c->p, m = (double)c->m,
                 s = (double)rb_dtype_size(row->dtype);
    if (c->kernel->op == RB_OP_BATCHED) {
        /* every row brings its own matrix: 2PM / s(P + PM + M) whatever B,
         * compute-bound at any B or at none */
        const double in = 2.0 * p * m / (s * (p + p * m + m));
        c->ridge_b = in * c->bw >= c->peak ? 0.0 : INFINITY;
    } else {
        c->ridge_b = sweep_ridge_batch(c->p, c->m, (unsigned)s, c->peak,
                                       c->bw);
    }
}

/* Where a kernel that follows min(its own plateau, I(B) x bw) reaches half
 * of it: the knee the roofline predicts for this kernel. */
static double roof_knee50(const sweep_doc *doc, const sweep_curve *c,
                          const sweep_knee *k)
{
    if (!c->has_roof || !k || c->kernel->op == RB_OP_BATCHED)
        return NAN;
    return sweep_ridge_batch(
        c->p, c->m, (unsigned)rb_dtype_size(doc->plan->dtypes[c->d]),
        0.5 * k->plateau, c->bw);
}

static sweep_curve *curve_for(sweep_analysis *a, const sweep_doc *doc,
                              const sweep_point *p)
{
    const int d = index_of_dtype(doc->plan, p->row.dtype);
    const int t = index_of_threads(doc->plan, p->row.threads);
    for (size_t i = 0; i < a->ncurves; i++) {
        sweep_curve *c = &a->curves[i];
        if (c->level == p->level && c->d == d && c->t == t &&
            c->kernel == p->row.kernel)
            return c;
    }
    sweep_curve *c = &a->curves[a->ncurves++];
    memset(c, 0, sizeof(*c));
    c->level = p->level;
    c->d = d;
    c->t = t;
    c->kernel = p->row.kernel;
    c->p = p->row.shape.p;
    c->m = p->row.shape.m;
    weights_roof(doc, c, &p->row);
    return c;
}

int report_sweep_analyse(const sweep_doc *doc, sweep_analysis *a, rb_err *e)
{
    memset(a, 0, sizeof(*a));
    const sweep_result *res = doc->res;
    a->curves = calloc(res->npoints ? res->npoints : 1, sizeof(*a->curves));
    if (!a->curves)
        return rb_fail(e, RB_EINPUT, "out of memory for the sweep's curves");
    for (size_t i = 0; i < res->npoints; i++) {
        sweep_curve *c = curve_for(a, doc, &res->points[i]);
        if (c->n < SWEEP_MAX_POINTS)
            c->idx[c->n++] = i;
    }
    for (size_t i = 0; i < a->ncurves; i++) {
        sweep_curve *c = &a->curves[i];
        double b[SWEEP_MAX_POINTS], g[SWEEP_MAX_POINTS];
        for (size_t j = 0; j < c->n; j++) {
            const sweep_point *p = &res->points[c->idx[j]];
            b[j] = (double)p->b;
            g[j] = harness_row_gflops(&p->row);
        }
        c->has_knee = c->n >= 2 && sweep_knee_find(b, g, c->n, &c->knee) == 0;
        /* the contrast's ridge is 0 or never, whatever the roof */
        if (c->has_roof && c->kernel->op != RB_OP_BATCHED &&
            report_sweep_roof_now(doc, c, &c->peak_now, &c->bw_now) == 0) {
            c->has_now = 1;
            c->ridge_now = sweep_ridge_batch(
                c->p, c->m, (unsigned)rb_dtype_size(doc->plan->dtypes[c->d]),
                c->peak_now, c->bw_now);
        }
    }
    return RB_OK;
}

int report_sweep_roof_now(const sweep_doc *doc, const sweep_curve *c,
                          double *peak, double *bw)
{
    double pk[SWEEP_MAX_POINTS], rd[SWEEP_MAX_POINTS];
    size_t n = 0;
    for (size_t j = 0; j < c->n && j < SWEEP_MAX_POINTS; j++) {
        const harness_row *r = &doc->res->points[c->idx[j]].row;
        pk[n] = around(r->peak_before, r->peak_after);
        rd[n] = around(r->read_before, r->read_after);
        n += pk[n] > 0.0 && rd[n] > 0.0;
    }
    if (n == 0)
        return -1;
    *peak = stats_median(pk, n);
    *bw = stats_median(rd, n);
    return 0;
}

void report_sweep_analysis_free(sweep_analysis *a)
{
    free(a->curves);
    memset(a, 0, sizeof(*a));
}

/* The curve of the same kernel, dtype and team, among those with a roof
 * and a knee, at the level with the lowest bandwidth (fastest = 0: where
 * the weights stream from farthest) or the highest (fastest = 1); or
 * NULL. */
static const sweep_curve *extreme_of(const sweep_analysis *a,
                                     const sweep_curve *c, int fastest)
{
    const sweep_curve *best = NULL;
    for (size_t i = 0; i < a->ncurves; i++) {
        const sweep_curve *o = &a->curves[i];
        if (o->d == c->d && o->t == c->t && o->kernel == c->kernel &&
            o->has_roof && o->has_knee &&
            (!best || (fastest ? o->bw > best->bw : o->bw < best->bw)))
            best = o;
    }
    return best;
}

const sweep_curve *report_sweep_fastest_sibling(const sweep_analysis *a,
                                                const sweep_curve *c)
{
    const sweep_curve *f = c->has_roof && c->kernel->op == RB_OP_MATMUL
                               ? extreme_of(a, c, 1)
                               : NULL;
    return f && f != c && f->bw > c->bw ? f : NULL;
}

/* The predicted threshold of a profile at the sweep's largest weights
 * (first dtype, largest team). */
typedef struct {
    const profile *p;
    pdtype dt;
    double exact, weights_only; /* batch sizes */
    uint64_t pp, mm;
} prediction;

static void predict(const sweep_doc *doc, int i, prediction *out)
{
    const profile *p = &doc->profiles[i];
    const sweep_plan *plan = doc->plan;
    out->p = p;
    out->dt = p->headline;
    out->pp = out->mm = 0;
    int t = 0; /* the largest team */
    for (int j = 0; j < plan->nthreads; j++)
        if (plan->threads[j] > plan->threads[t])
            t = j;
    for (int l = 0; l < plan->nlevels; l++) /* the largest weights */
        if (plan->levels[l].p[0][t] * plan->levels[l].m[0][t] >
            out->pp * out->mm) {
            out->pp = plan->levels[l].p[0][t];
            out->mm = plan->levels[l].m[0][t];
        }
    const unsigned el = pdtype_size(p->headline);
    const double peak = p->peak[p->headline], bw = p->mem_bw;
    /* weights not sized yet (stopped before the roofline): unknown */
    out->exact = out->pp ? sweep_ridge_batch(out->pp, out->mm, el, peak, bw)
                         : NAN;
    out->weights_only = el * peak / (2.0 * bw);
}

/* Fraction of peak a profile attains at batch b with its own roofline. */
static double profile_fraction(const prediction *pr, double b)
{
    const double f = sweep_intensity(b, (double)pr->pp, (double)pr->mm,
                                     pdtype_size(pr->dt)) *
                     pr->p->mem_bw / pr->p->peak[pr->dt];
    return f < 1.0 ? f : 1.0;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *weights_json(jdoc *jd, const sweep_plan *plan)
{
    json_t *arr = json_array();
    for (int l = 0; l < plan->nlevels; l++) {
        json_t *sizes = json_array();
        for (int d = 0; d < plan->ndtypes; d++)
            for (int t = 0; t < plan->nthreads; t++) {
                const uint64_t p = plan->levels[l].p[d][t],
                               m = plan->levels[l].m[d][t],
                               c = plan->levels[l].contrast[d][t];
                const size_t el = rb_dtype_size(plan->dtypes[d]);
                json_t *o = jd_pack(
                    jd, "{s:s, s:i, s:I, s:I, s:I}", "dtype",
                    rb_dtype_name(plan->dtypes[d]), "threads",
                    plan->threads[t], "p", (json_int_t)p, "m", (json_int_t)m,
                    "weight_bytes", (json_int_t)(p * m * el));
                /* the contrast's own P = M, where it has one */
                if (c)
                    jd_set(jd, o, "contrast",
                           jd_pack(jd, "{s:I, s:I, s:I}", "p", (json_int_t)c,
                                   "m", (json_int_t)c, "matrix_bytes",
                                   (json_int_t)(c * c * el)));
                jd_push(jd, sizes, "sizes", o);
            }
        jd_push(jd, arr, "weights",
                jd_pack(jd, "{s:s, s:o}", "level", plan->levels[l].name,
                        "sizes", sizes));
    }
    return arr;
}

static json_t *knee_json(jdoc *jd, const sweep_curve *c, int k)
{
    if (!c->has_knee)
        return json_null();
    return jd_pack(jd, "{s:f, s:o, s:b}", "fraction_of_plateau",
                   sweep_knee_frac[k], "batch", jd_num(c->knee.knee[k]),
                   "at_or_below_first_point", c->knee.at_first[k]);
}

/* The 50% knee over a ridge batch into o[key], and o[ub_key]: whether it
 * is an upper bound (a knee at the first point is one, so is this); not
 * set without a knee or a finite ridge. */
static void knee_over_ridge(jdoc *jd, json_t *o, const sweep_curve *c,
                            double ridge, const char *key, const char *ub_key)
{
    if (!c->has_knee || !isfinite(ridge) || ridge <= 0.0)
        return;
    jd_set(jd, o, key, jd_num(c->knee.knee[0] / ridge));
    jd_set(jd, o, ub_key, json_boolean(c->knee.at_first[0]));
}

static json_t *curve_json(jdoc *jd, const sweep_doc *doc,
                          const sweep_analysis *a, const sweep_curve *c)
{
    const sweep_plan *plan = doc->plan;
    json_t *o = jd_pack(
        jd, "{s:s, s:s, s:i, s:s, s:I, s:I, s:I}", "weights",
        plan->levels[c->level].name, "dtype", rb_dtype_name(plan->dtypes[c->d]),
        "threads", plan->threads[c->t], "kernel", c->kernel->name, "p",
        (json_int_t)c->p, "m", (json_int_t)c->m, "points", (json_int_t)c->n);
    const size_t el = rb_dtype_size(plan->dtypes[c->d]);
    jd_set(jd, o, "rows_alias", json_boolean(rb_rows_alias(c->m, el)));
    if (c->has_knee) {
        jd_set(jd, o, "plateau_gflops", jd_num(c->knee.plateau));
        jd_set(jd, o, "plateau_batch", jd_num(c->knee.plateau_batch));
        jd_set(jd, o, "plateau_at_last_point",
               json_boolean(c->knee.plateau_at_end));
    }
    jd_set(jd, o, "knee50", knee_json(jd, c, 0));
    jd_set(jd, o, "knee90", knee_json(jd, c, 1));
    if (c->has_roof) {
        jd_set(jd, o, "predicted",
               jd_pack(jd, "{s:s, s:o, s:s, s:s, s:o, s:o, s:s}",
                       "weights_level", c->bw_level, "weights_gbs",
                       jd_num(c->bw), "weights_roof",
                       rb_access_name(c->bw_mix), "weights_gbs_kernel",
                       c->bw_kernel, "peak_gflops", jd_num(c->peak),
                       "ridge_batch", jd_num(c->ridge_b), "how",
                       "B where min(peak, 2BPM / s(BP + PM + BM) x bandwidth) "
                       "reaches peak: exact bytes"));
        knee_over_ridge(jd, o, c, c->ridge_b, "knee50_over_ridge",
                        "knee50_over_ridge_is_upper_bound");
        if (c->has_now) {
            json_t *pr = json_object_get(o, "predicted");
            jd_set(jd, pr, "peak_gflops_now", jd_num(c->peak_now));
            jd_set(jd, pr, "weights_gbs_now", jd_num(c->bw_now));
            jd_set(jd, pr, "ridge_batch_now", jd_num(c->ridge_now));
            jd_set(jd, pr, "how_now",
                   jd_str("the same at the medians of the peak and of the "
                          "read kernel's bandwidth measured around the "
                          "points: the read kernel alone (the read roof is "
                          "the best of read, read2 and read4), where "
                          "ridge_batch takes weights_roof's level"));
            knee_over_ridge(jd, o, c, c->ridge_now, "knee50_over_ridge_now",
                            "knee50_over_ridge_now_is_upper_bound");
        }
        const double k = roof_knee50(doc, c, c->has_knee ? &c->knee : NULL);
        if (isfinite(k) && k > 0.0) {
            jd_set(jd, o, "roofline_knee50", jd_num(k));
            jd_set(jd, o, "knee50_over_roofline_knee50",
                   jd_num(c->knee.knee[0] / k));
        }
    }
    const sweep_curve *fast = report_sweep_fastest_sibling(a, c);
    if (fast && fast->peak > 0.0)
        jd_set(jd, o, "fastest_weights",
               jd_pack(jd, "{s:s, s:o, s:b, s:o, s:s}", "level",
                       plan->levels[fast->level].name, "plateau_gflops",
                       jd_num(fast->knee.plateau), "plateau_at_last_point",
                       fast->knee.plateau_at_end, "plateau_of_peak",
                       jd_num(fast->knee.plateau / fast->peak), "why",
                       "past the ridge B the roof is the peak at every "
                       "level: the fraction reached there compares with "
                       "this plateau, where the memory is out of the way "
                       "(P and M differ between levels)"));
    const sweep_curve *s = extreme_of(a, c, 0);
    /* a ratio over a knee at the first point (an upper bound) is not
     * bounded: none */
    if (s && s != c && c->has_roof && c->has_knee && s->bw > 0.0 &&
        !s->knee.at_first[0])
        jd_set(jd, o, "against_slowest_level",
               jd_pack(jd, "{s:s, s:o, s:b, s:o, s:o}", "level",
                       plan->levels[s->level].name, "knee50_ratio",
                       jd_num(c->knee.knee[0] / s->knee.knee[0]),
                       "knee50_ratio_is_upper_bound", c->knee.at_first[0],
                       "bandwidth_ratio", jd_num(s->bw / c->bw),
                       "knee_ratio_over_bandwidth_ratio",
                       jd_num(c->knee.knee[0] / s->knee.knee[0] /
                              (s->bw / c->bw))));
    return o;
}

static json_t *predictions_json(jdoc *jd, const sweep_doc *doc)
{
    json_t *arr = json_array();
    for (int i = 0; i < doc->nprofiles; i++) {
        prediction pr;
        predict(doc, i, &pr);
        jd_push(jd, arr, "predictions",
                jd_pack(jd, "{s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o}",
                        "profile", pr.p->id, "name", pr.p->name, "dtype",
                        pdtype_name(pr.dt), "peak_flops",
                        jd_num(pr.p->peak[pr.dt]), "bandwidth_bytes_per_s",
                        jd_num(pr.p->mem_bw), "p", (json_int_t)pr.pp, "m",
                        (json_int_t)pr.mm, "threshold_batch", jd_num(pr.exact),
                        "threshold_batch_weights_only",
                        jd_num(pr.weights_only)));
    }
    return arr;
}

/* The streaming probe's curve per weight level, dtype and team that has
 * a matmul curve: its rate at each B, its knees beside the ridge B. */
static json_t *probe_curves_json(jdoc *jd, const sweep_doc *doc,
                                 const sweep_analysis *a)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < a->ncurves; i++) {
        const sweep_curve *c = &a->curves[i];
        probe_line pl;
        if (!probe_curve(doc, a, i, 0, &pl))
            continue;
        const sweep_knee k = pl.knee;
        json_t *pts = json_array();
        for (size_t j = 0; j < pl.n; j++)
            jd_push(jd, pts, "probe points",
                    jd_pack(jd, "{s:I, s:o}", "batch", (json_int_t)pl.b[j],
                            "gflops", jd_num(pl.g[j])));
        json_t *o = jd_pack(
            jd, "{s:s, s:s, s:i, s:I, s:I, s:o}", "weights",
            doc->plan->levels[c->level].name, "dtype",
            rb_dtype_name(doc->plan->dtypes[c->d]), "threads",
            doc->plan->threads[c->t], "p", (json_int_t)c->p, "m",
            (json_int_t)c->m, "points", pts);
        if (pl.has_knee) {
            jd_set(jd, o, "plateau_gflops", jd_num(k.plateau));
            jd_set(jd, o, "plateau_at_last_point",
                   json_boolean(k.plateau_at_end));
            jd_set(jd, o, "knee50", jd_num(k.knee[0]));
            jd_set(jd, o, "knee90", jd_num(k.knee[1]));
            if (c->has_roof && isfinite(c->ridge_b) && c->ridge_b > 0.0) {
                jd_set(jd, o, "ridge_batch", jd_num(c->ridge_b));
                jd_set(jd, o, "knee50_over_ridge",
                       jd_num(k.knee[0] / c->ridge_b));
            }
        }
        jd_push(jd, arr, "probe curves", o);
    }
    return arr;
}

/* The best of round r's samples at p, in seconds per call (INFINITY
 * where that round timed none). */
static double round_best(const sweep_point *p, int r)
{
    double best = INFINITY;
    for (int k = 0; k < p->row.nsamples; k++)
        if ((p->round ? p->round[k] : 0) == r && p->row.samples[k] < best)
            best = p->row.samples[k];
    return best;
}

/* How far apart the rounds' bests at p are: the slowest over the fastest,
 * or NAN where fewer than two rounds timed it (a sweep cut short). */
static double rounds_apart(const sweep_point *p, int rounds)
{
    double lo = INFINITY, hi = 0.0;
    int timed = 0;
    for (int r = 0; r < rounds; r++) {
        const double t = round_best(p, r);
        if (isfinite(t) && t > 0.0) {
            timed++;
            lo = fmin(lo, t);
            hi = fmax(hi, t);
        }
    }
    return timed >= 2 ? hi / lo : NAN;
}

static char *sweep_json(const sweep_doc *doc, const sweep_analysis *a,
                        rb_err *e)
{
    jdoc jd = {0};
    json_t *points = json_array();
    for (size_t i = 0; i < doc->res->npoints; i++) {
        const sweep_point *p = &doc->res->points[i];
        json_t *row = report_run_row_json(&jd, &p->row, doc->roof);
        jd_set(&jd, row, "weights",
               json_string(doc->plan->levels[p->level].name));
        jd_set(&jd, row, "batch", json_integer((json_int_t)p->b));
        roof_bound b;
        double nb, np, nr;
        if (bound_now(bound_of(doc, &p->row, &b) == 0 ? &b : NULL, &p->row,
                      &nb, &np, &nr) == 0)
            jd_set(&jd, row, "roof_now",
                   jd_pack(&jd, "{s:o, s:o, s:o, s:o}", "peak_gflops",
                           jd_num(np), "read_gbs", jd_num(nr), "gflops",
                           jd_num(nb), "fraction",
                           jd_num(harness_row_gflops(&p->row) / nb)));
        const double pr = row_probe(&p->row);
        if (pr > 0.0) {
            json_t *po = jd_pack(&jd, "{s:o, s:o}", "gflops", jd_num(pr),
                                 "fraction",
                                 jd_num(harness_row_gflops(&p->row) / pr));
            roof_bound pb;
            if (bound_of(doc, &p->row, &pb) == 0)
                jd_set(&jd, po, "roof_fraction",
                       jd_num(pr / pb.attainable_gflops));
            jd_set(&jd, row, "probe", po);
        }
        json_t *rounds = json_array();
        for (int k = 0; k < p->row.nsamples; k++)
            jd_push(&jd, rounds, "sample_rounds",
                    json_integer(p->round ? p->round[k] : 0));
        jd_set(&jd, row, "sample_rounds", rounds);
        json_t *bests = json_array();
        for (int r = 0; r < doc->plan->rounds; r++)
            jd_push(&jd, bests, "round_best_s", jd_num(round_best(p, r)));
        jd_set(&jd, row, "round_best_s", bests);
        jd_push(&jd, points, "points", row);
    }
    json_t *curves = json_array();
    for (size_t i = 0; i < a->ncurves; i++)
        jd_push(&jd, curves, "curves", curve_json(&jd, doc, a, &a->curves[i]));
    json_t *batch = json_array();
    for (size_t i = 0; i < doc->plan->nbatch; i++)
        jd_push(&jd, batch, "batch",
                json_integer((json_int_t)doc->plan->batch[i]));
    json_t *root = jd_pack(
        &jd,
        "{s:s, s:i, s:s, s:s?, s:O, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:I, "
        "s:I}}",
        "schema", "roofbench.sweep", "schema_version", SWEEP_SCHEMA_VERSION,
        "status", doc->status, "error", doc->error, "context", doc->context,
        "batch", batch, "weights", weights_json(&jd, doc->plan), "points",
        points, "curves", curves, "probe_curves",
        probe_curves_json(&jd, doc, a), "predictions",
        predictions_json(&jd, doc),
        "contrast", "budget_bytes", (json_int_t)doc->plan->batched_budget,
        "points_left_out", (json_int_t)doc->res->skipped_batched);
    return jd_text(&jd, root, "sweep.json", 17, e);
}

/* ---- CSV ----------------------------------------------------------------- */

static double frac_of(double x, double peak)
{
    return peak > 0.0 ? x / peak : NAN;
}

static void point_csv(csv *c, const sweep_doc *doc, const sweep_analysis *a,
                      const sweep_point *p)
{
    const harness_row *r = &p->row;
    const int d = index_of_dtype(doc->plan, r->dtype),
              t = index_of_threads(doc->plan, r->threads);
    double peak = 0.0;
    for (size_t i = 0; i < a->ncurves; i++)
        if (a->curves[i].level == p->level && a->curves[i].d == d &&
            a->curves[i].t == t && a->curves[i].has_roof)
            peak = a->curves[i].peak;
    const double best = harness_row_gflops(r),
                 med = (double)r->counts.flops / r->time.median / 1e9;
    csv_str(c, doc->plan->levels[p->level].name);
    csv_int(c, r->shape.p);
    csv_int(c, r->shape.m);
    csv_str(c, r->kernel->name);
    csv_str(c, rb_dtype_name(r->dtype));
    csv_int(c, (unsigned long long)r->threads);
    csv_int(c, p->b);
    csv_int(c, r->counts.flops);
    csv_int(c, r->counts.bytes);
    csv_num(c, "%.9g", (double)r->counts.flops / (double)r->counts.bytes);
    csv_int(c, (unsigned long long)r->nsamples);
    csv_num(c, "%.9g", r->time.min);
    csv_num(c, "%.9g", r->time.median);
    csv_num(c, "%.6g", r->time.median / r->time.min - 1.0);
    csv_num(c, "%.6g", best);
    csv_num(c, "%.6g", med);
    csv_num(c, "%.6g", frac_of(best, peak));
    csv_num(c, "%.6g", frac_of(med, peak));
    roof_bound b;
    const int known = bound_of(doc, r, &b) == 0;
    if (known) {
        csv_str(c, b.level.name);
        csv_num(c, "%.6g", b.attainable_gflops);
        csv_num(c, "%.4g", b.fraction);
    } else {
        csv_empty(c);
        csv_empty(c);
        csv_empty(c);
    }
    double nb, np, nr;
    if (bound_now(known ? &b : NULL, r, &nb, &np, &nr) == 0) {
        csv_num(c, "%.6g", np);
        csv_num(c, "%.6g", nr);
        csv_num(c, "%.6g", nb);
        csv_num(c, "%.4g", best / nb);
    } else {
        csv_empty(c);
        csv_empty(c);
        csv_empty(c);
        csv_empty(c);
    }
    const double pr = row_probe(r);
    if (pr > 0.0) {
        csv_num(c, "%.6g", pr);
        csv_num(c, "%.4g", best / pr);
    } else {
        csv_empty(c);
        csv_empty(c);
    }
    if (pr > 0.0 && known)
        csv_num(c, "%.4g", pr / b.attainable_gflops);
    else
        csv_empty(c);
    csv_end(c);
}

static char *points_csv(const sweep_doc *doc, const sweep_analysis *a)
{
    csv c = {0};
    csv_header(&c, REPORT_SWEEP_POINTS_HEADER);
    /* curve by curve, B ascending: the chart draws each as one line */
    for (size_t i = 0; i < a->ncurves; i++)
        for (size_t j = 0; j < a->curves[i].n; j++)
            point_csv(&c, doc, a, &doc->res->points[a->curves[i].idx[j]]);
    return sb_take(&c.sb);
}

static char *samples_csv(const sweep_doc *doc)
{
    csv c = {0};
    csv_header(&c, "weights,kernel,dtype,threads,batch,sample,round,"
                   "seconds_per_call");
    for (size_t i = 0; i < doc->res->npoints; i++) {
        const sweep_point *p = &doc->res->points[i];
        for (int s = 0; s < p->row.nsamples; s++) {
            csv_str(&c, doc->plan->levels[p->level].name);
            csv_str(&c, p->row.kernel->name);
            csv_str(&c, rb_dtype_name(p->row.dtype));
            csv_int(&c, (unsigned long long)p->row.threads);
            csv_int(&c, p->b);
            csv_int(&c, (unsigned long long)s);
            csv_int(&c, (unsigned long long)(p->round ? p->round[s] : 0));
            csv_num(&c, "%.9g", p->row.samples[s]);
            csv_end(&c);
        }
    }
    return sb_take(&c.sb);
}

/* Whether curve c is on the level's own weights (the contrast may have
 * matrices of its own: sweep_weights.contrast). */
static int on_level_weights(const sweep_plan *plan, const sweep_curve *c)
{
    return c->p == plan->levels[c->level].p[c->d][c->t] &&
           c->m == plan->levels[c->level].m[c->d][c->t];
}

/* The chart's lines: each level's host roof and each profile's, as
 * fractions of peak, eight points an octave over the grid. */
static char *roofs_csv(const sweep_doc *doc, const sweep_analysis *a)
{
    csv c = {0};
    csv_header(&c, REPORT_SWEEP_ROOFS_HEADER);
    const double lo = (double)doc->plan->batch[0],
                 hi = (double)doc->plan->batch[doc->plan->nbatch - 1];
    for (size_t i = 0; i < a->ncurves; i++) {
        const sweep_curve *cv = &a->curves[i];
        /* one roof per level, dtype and team: the first curve's on the
         * level's own weights (the contrast may have its own) */
        int first = on_level_weights(doc->plan, cv);
        for (size_t j = 0; j < i && first; j++)
            if (a->curves[j].level == cv->level && a->curves[j].d == cv->d &&
                a->curves[j].t == cv->t &&
                on_level_weights(doc->plan, &a->curves[j]))
                first = 0;
        if (!first || !cv->has_roof)
            continue;
        const double el = (double)rb_dtype_size(doc->plan->dtypes[cv->d]);
        for (double b = lo; b <= hi * 1.0001; b *= pow(2.0, 0.125)) {
            const double in =
                sweep_intensity(b, (double)cv->p, (double)cv->m, el);
            csv_str(&c, "host");
            csv_str(&c, rb_dtype_name(doc->plan->dtypes[cv->d]));
            csv_int(&c, (unsigned long long)doc->plan->threads[cv->t]);
            csv_str(&c, doc->plan->levels[cv->level].name);
            csv_num(&c, "%.6g", b);
            csv_num(&c, "%.6g", fmin(1.0, in * cv->bw / cv->peak));
            csv_end(&c);
        }
    }
    /* the streaming probe's measured curve, per level, dtype and team */
    for (size_t i = 0; i < a->ncurves; i++) {
        const sweep_curve *cv = &a->curves[i];
        probe_line pl;
        probe_curve(doc, a, i, 1, &pl);
        for (size_t j = 0; j < pl.n; j++) {
            csv_str(&c, "probe");
            csv_str(&c, rb_dtype_name(doc->plan->dtypes[cv->d]));
            csv_int(&c, (unsigned long long)doc->plan->threads[cv->t]);
            csv_str(&c, doc->plan->levels[cv->level].name);
            csv_num(&c, "%.6g", pl.b[j]);
            csv_num(&c, "%.6g", pl.g[j] / cv->peak);
            csv_end(&c);
        }
    }
    for (int i = 0; i < doc->nprofiles; i++) {
        prediction pr;
        predict(doc, i, &pr);
        /* the host is drawn per level already, from its own roofline */
        if (pr.p->peak[pr.dt] <= 0.0 || pr.p->mem_bw <= 0.0 || !pr.pp ||
            strcmp(pr.p->kind, "host") == 0)
            continue;
        const double reach =
            isfinite(pr.exact) ? pr.exact : 2.0 * pr.weights_only;
        for (double b = lo; b <= fmax(hi, 2.0 * reach) * 1.0001 && b <= 1e6;
             b *= pow(2.0, 0.125)) {
            csv_str(&c, pr.p->id);
            csv_str(&c, pdtype_name(pr.dt));
            csv_int(&c, 0);
            csv_str(&c, "");
            csv_num(&c, "%.6g", b);
            csv_num(&c, "%.6g", profile_fraction(&pr, b));
            csv_end(&c);
        }
    }
    return sb_take(&c.sb);
}

static char *knees_csv(const sweep_doc *doc, const sweep_analysis *a)
{
    csv c = {0};
    csv_header(&c, REPORT_SWEEP_KNEES_HEADER);
    for (size_t i = 0; i < a->ncurves; i++) {
        const sweep_curve *cv = &a->curves[i];
        if (!cv->has_knee || !cv->has_roof)
            continue;
        csv_str(&c, doc->plan->levels[cv->level].name);
        csv_str(&c, cv->kernel->name);
        csv_str(&c, rb_dtype_name(doc->plan->dtypes[cv->d]));
        csv_int(&c, (unsigned long long)doc->plan->threads[cv->t]);
        csv_num(&c, "%.6g", cv->knee.knee[0]);
        csv_num(&c, "%.6g", 0.5 * cv->knee.plateau / cv->peak);
        csv_num(&c, "%.6g", cv->knee.knee[1]);
        if (isfinite(cv->ridge_b))
            csv_num(&c, "%.6g", cv->ridge_b);
        else
            csv_empty(&c);
        if (cv->has_now && isfinite(cv->ridge_now))
            csv_num(&c, "%.6g", cv->ridge_now);
        else
            csv_empty(&c);
        /* the chart draws no circle for it: the curve is past half its
         * plateau already at the first B, and (B, half the plateau) is
         * no point of it */
        csv_int(&c, (unsigned long long)cv->knee.at_first[0]);
        csv_end(&c);
    }
    return sb_take(&c.sb);
}

int report_sweep_write(runfolder *f, const sweep_doc *doc,
                       const sweep_analysis *a, char **json_text, char *why,
                       size_t whylen, rb_err *e)
{
    *json_text = sweep_json(doc, a, e);
    int rc = *json_text ? runfolder_write(f, "sweep.json", *json_text,
                                          strlen(*json_text), e)
                        : RB_EINPUT;
    if (!rc)
        rc = runfolder_write_text(f, "sweep.csv",
                                  points_csv(doc, a), e);
    if (!rc)
        rc = runfolder_write_text(f, "sweep-samples.csv",
                                  samples_csv(doc), e);
    snprintf(why, whylen, "the measurement was %s", doc->status);
    if (rc || strcmp(doc->status, "complete") != 0)
        return rc;
    if (!doc->roof) {
        snprintf(why, whylen, "no roofline");
        return rc;
    }
    rc = runfolder_write_text(f, "sweep-roofs.csv", roofs_csv(doc, a), e);
    if (!rc)
        rc = runfolder_write_text(f, "sweep-knees.csv",
                                  knees_csv(doc, a), e);
    if (rc)
        return rc;
    static const char *const outputs[] = {"sweep.png", "sweep.svg", NULL};
    int made = 0;
    rb_err pe;
    if (plot_run(f, "plot-sweep.gp", rb_plot_sweep_gp, outputs, &made, why,
                 whylen, &pe) != RB_OK)
        snprintf(why, whylen, "%s", pe.msg);
    else if (made)
        why[0] = '\0';
    return RB_OK;
}

/* ---- text ---------------------------------------------------------------- */

static void fmt_batch(char *buf, size_t len, double b, int at_first)
{
    if (isnan(b))
        snprintf(buf, len, "n/a");
    else if (isinf(b))
        snprintf(buf, len, "never");
    else if (b == 0.0)
        snprintf(buf, len, "any");
    else
        snprintf(buf, len, "%s%.3g", at_first ? "<=" : "", b);
}

/* A ratio, "<=" when its numerator is an upper bound; n/a when it is not a
 * finite positive number. */
static void fmt_ratio(char *buf, size_t len, double r, int upper)
{
    if (isfinite(r) && r > 0.0)
        snprintf(buf, len, "%s%.2f", upper ? "<=" : "", r);
    else
        snprintf(buf, len, "n/a");
}

/* A curve's points at 70% of a bound or more: how many of how many, the
 * lowest fraction and its B, and (against the peak and the bandwidth
 * measured around each point) the ranges of those over the roofline's. */
typedef struct {
    size_t ok, n;
    double low, plo, phi, rlo, rhi;
    uint64_t lowb;
} target_tally;

/* What a point's rate is held against: the roofline's bound, the bound
 * with the peak and bandwidth measured around the point, or the streaming
 * probe around it. */
enum { AGAINST_ROOF, AGAINST_NOW, AGAINST_PROBE, AGAINST_N };

/* Whether a fraction of a bound meets the kernel's target, 70% of it (a
 * NaN does not): what target_line counts and rounds_line's misses fail */
static int at_target(double fr)
{
    return fr >= 0.70;
}

/* Counts one point's fraction fr at batch b into t. */
static void tally_add(target_tally *t, double fr, uint64_t b)
{
    t->n++;
    t->ok += at_target(fr);
    if (fr < t->low) {
        t->low = fr;
        t->lowb = b;
    }
}

static target_tally tally_target(const sweep_doc *doc, const sweep_curve *c,
                                 int against)
{
    target_tally t = {.low = INFINITY, .plo = INFINITY, .rlo = INFINITY};
    for (size_t j = 0; j < c->n; j++) {
        const sweep_point *p = &doc->res->points[c->idx[j]];
        roof_bound b;
        double nb = 0.0, np = 0.0, nr = 0.0;
        const double probe = row_probe(&p->row);
        if (bound_of(doc, &p->row, &b) != 0 ||
            (against == AGAINST_NOW &&
             bound_now(&b, &p->row, &nb, &np, &nr) != 0) ||
            (against == AGAINST_PROBE && !(probe > 0.0)))
            continue;
        const double g = harness_row_gflops(&p->row);
        const double fr = against == AGAINST_NOW     ? g / nb
                          : against == AGAINST_PROBE ? g / probe
                                                     : b.fraction;
        tally_add(&t, fr, p->b);
        if (against == AGAINST_NOW) {
            t.plo = fmin(t.plo, np / b.peak_gflops);
            t.phi = fmax(t.phi, np / b.peak_gflops);
            t.rlo = fmin(t.rlo, nr / b.level.gbs);
            t.rhi = fmax(t.rhi, nr / b.level.gbs);
        }
    }
    return t;
}

/* The probe's own points against their roofline bound (the matmul's
 * counts at that B): how far this host lets any kernel of that
 * arithmetic per weight reach the roof then. */
static target_tally tally_probe(const sweep_doc *doc, const sweep_curve *c)
{
    target_tally t = {.low = INFINITY};
    for (size_t j = 0; j < c->n; j++) {
        const sweep_point *p = &doc->res->points[c->idx[j]];
        roof_bound b;
        const double probe = probe_at(doc, c->level, p->row.dtype,
                                      p->row.threads, p->b);
        if (!(probe > 0.0) || bound_of(doc, &p->row, &b) != 0)
            continue;
        tally_add(&t, probe / b.attainable_gflops, p->b);
    }
    return t;
}

/* How many of a curve's points reach 70% of their roofline bound, and the
 * lowest: the target a kernel at the roof must meet at every B; then the
 * same against the bound with the peak and the read bandwidth the team got
 * around each point, and against the streaming probe around each point;
 * then the probe itself against the roof. */
static void target_line(const sweep_doc *doc, const sweep_curve *const *cs,
                        int nc, FILE *f)
{
    static const char *const lead[AGAINST_N] = {
        "at 70% of the roof or more:",
        "against the peak and bandwidth measured around each point:",
        "against the streaming probe around each point, at 70% or more:"};
    for (int against = 0; against < AGAINST_N; against++) {
        int said = 0;
        for (int k = 0; k < nc; k++) {
            const target_tally t = tally_target(doc, cs[k], against);
            if (!t.n)
                continue;
            fprintf(f, "%s %s %zu of %zu (lowest %.0f%% at B = %llu",
                    said++ ? ";" : lead[against], cs[k]->kernel->name, t.ok,
                    t.n, 100.0 * t.low, (unsigned long long)t.lowb);
            if (against == AGAINST_NOW)
                fprintf(f, "; those %.2f to %.2f and %.2f to %.2f of the "
                           "roofline's",
                        t.plo, t.phi, t.rlo, t.rhi);
            fprintf(f, ")");
        }
        if (said)
            fprintf(f, "\n");
    }
    for (int k = 0; k < nc; k++)
        if (cs[k]->kernel->op == RB_OP_MATMUL) {
            const target_tally t = tally_probe(doc, cs[k]);
            if (t.n)
                fprintf(f, "the streaming probe itself at 70%% of the roof or "
                           "more: %zu of %zu (lowest %.0f%% at B = %llu)\n",
                        t.ok, t.n, 100.0 * t.low, (unsigned long long)t.lowb);
            break;
        }
}

/* With two rounds or more: how far apart each kernel's rounds came
 * (rounds_apart) over its points, with the B of the widest, then over
 * its points under 70% of the roof (at_target, as target_line counts), and
 * how many points only one round timed. */
static void rounds_line(const sweep_doc *doc, const sweep_curve *const *cs,
                        int nc, FILE *f)
{
    const int rounds = doc->plan->rounds;
    if (rounds < 2)
        return;
    int said = 0;
    for (int k = 0; k < nc; k++) {
        double lo = INFINITY, hi = 0.0, miss_lo = INFINITY, miss_hi = 0.0;
        uint64_t hib = 0;
        size_t n = 0, misses = 0, single = 0;
        for (size_t j = 0; j < cs[k]->n; j++) {
            const sweep_point *p = &doc->res->points[cs[k]->idx[j]];
            const double x = rounds_apart(p, rounds);
            roof_bound b;
            if (isnan(x)) {
                single++;
                continue;
            }
            n++;
            lo = fmin(lo, x);
            if (x > hi) {
                hi = x;
                hib = p->b;
            }
            if (bound_of(doc, &p->row, &b) == 0 && !at_target(b.fraction)) {
                misses++;
                miss_lo = fmin(miss_lo, x);
                miss_hi = fmax(miss_hi, x);
            }
        }
        if (!n && !single)
            continue;
        fprintf(f, "%s %s", said++ ? ";" : "the rounds apart:",
                cs[k]->kernel->name);
        if (n)
            fprintf(f, " x%.2f to x%.2f", lo, hi);
        if (hi > lo)
            fprintf(f, " (widest at B = %llu)", (unsigned long long)hib);
        if (misses && misses == n)
            fprintf(f, ", every one under 70%% of the roof");
        else if (misses)
            fprintf(f, ", x%.2f to x%.2f at its %zu point%s under 70%% of "
                       "the roof",
                    miss_lo, miss_hi, misses, rb_plural((long long)misses));
        if (single)
            fprintf(f, "%s%zu point%s timed in one round only",
                    n ? ", " : " ", single, rb_plural((long long)single));
    }
    if (said)
        fprintf(f, "\n");
}

/* Under a level slower than another this run measured: each matmul's
 * plateau with the fastest weights, against the peak (+: the largest B
 * was the fastest, the plateau may be higher). Past the ridge the roof is
 * the peak at every level, so that plateau, where the memory is out of
 * the way, is what the points there compare with (P and M differ between
 * levels, so it is not a hard cap). */
static void ceiling_line(const sweep_doc *doc, const sweep_analysis *a,
                         const sweep_curve *const *cs, int nc, FILE *f)
{
    int said = 0;
    for (int k = 0; k < nc; k++) {
        const sweep_curve *o = report_sweep_fastest_sibling(a, cs[k]);
        if (!o || !(o->peak > 0.0))
            continue;
        fprintf(f, "%s %s %.0f%%%s (%s weights)",
                said++ ? ";"
                       : "plateau with the fastest weights, of the peak (past "
                         "the ridge the roof is the peak at every level: "
                         "%roof there compares with this):",
                cs[k]->kernel->name, 100.0 * o->knee.plateau / o->peak,
                o->knee.plateau_at_end ? "+" : "",
                doc->plan->levels[o->level].name);
    }
    if (said)
        fprintf(f, "\n");
}

/* Each curve's rate at its first and its last B: the contrast batched
 * stays flat (its intensity does not grow with B) while a matmul rises,
 * and the roof's own rise between the two: a curve on the roof at both
 * ends rises that much and no more. Both the roofline's and the roofs
 * measured around the two points (bound_now: the roofline's bandwidth
 * where a point's was not measured), as the host moves between them. */
static void rise_line(const sweep_doc *doc, const sweep_curve *const *cs,
                      int nc, FILE *f)
{
    int said = 0;
    for (int k = 0; k < nc; k++) {
        if (cs[k]->n < 2)
            continue;
        const sweep_point *p0 = &doc->res->points[cs[k]->idx[0]],
                          *p1 = &doc->res->points[cs[k]->idx[cs[k]->n - 1]];
        const double g0 = harness_row_gflops(&p0->row),
                     g1 = harness_row_gflops(&p1->row);
        fprintf(f, "%s %s %.3g -> %.3g GFLOP/s (B %llu -> %llu, x%.2f",
                said++ ? ";" : "first to last B:", cs[k]->kernel->name, g0,
                g1, (unsigned long long)p0->b, (unsigned long long)p1->b,
                g1 / g0);
        roof_bound b0, b1;
        if (bound_of(doc, &p0->row, &b0) == 0 &&
            bound_of(doc, &p1->row, &b1) == 0 && b0.attainable_gflops > 0) {
            fprintf(f, ", the roof's x%.2f",
                    b1.attainable_gflops / b0.attainable_gflops);
            /* the host moves: the same rise at the roofs measured around
             * the two points */
            double n0, n1, pk, rd;
            if (bound_now(&b0, &p0->row, &n0, &pk, &rd) == 0 &&
                bound_now(&b1, &p1->row, &n1, &pk, &rd) == 0 && n0 > 0.0)
                fprintf(f, ", x%.2f at the roofs measured around them",
                        n1 / n0);
        }
        fprintf(f, ")");
    }
    if (said)
        fprintf(f, "\n");
}

/* The table's title (the weights, dtype, team, P and M, their bytes,
 * level and roofs, as the first curve on them is held to), a line for
 * each curve on matrices of its own, and the two header lines. */
static void table_head(const sweep_doc *doc, const sweep_curve *const *cs,
                       int nc, int level, int d, int t, FILE *f)
{
    const sweep_plan *plan = doc->plan;
    const uint64_t p = plan->levels[level].p[d][t],
                   m = plan->levels[level].m[d][t];
    const size_t el = rb_dtype_size(plan->dtypes[d]);
    fprintf(f, "\n%s weights, %s, %d thread%s: P = %llu, M = %llu (%.3g MB",
            plan->levels[level].name, rb_dtype_name(plan->dtypes[d]),
            plan->threads[t], rb_plural(plan->threads[t]),
            (unsigned long long)p, (unsigned long long)m,
            (double)p * (double)m * (double)el / 1e6);
    const sweep_curve *own = NULL;
    for (int k = 0; k < nc && !own; k++)
        if (on_level_weights(plan, cs[k]) && cs[k]->has_roof)
            own = cs[k];
    if (own)
        fprintf(f, ", %s %.1f GB/s, %s roof (%s); peak %.1f GFLOP/s",
                own->bw_level, own->bw, rb_access_name(own->bw_mix),
                own->bw_kernel, own->peak);
    fprintf(f, ")");
    for (int k = 0; k < nc; k++) {
        if (on_level_weights(plan, cs[k]))
            continue;
        fprintf(f,
                "\n%s on matrices of its own, P = %llu, M = %llu (%.3g MB "
                "each, B of them at B: the smallest past twice the last "
                "cache, so that they fit its budget to large B)",
                cs[k]->kernel->name, (unsigned long long)cs[k]->p,
                (unsigned long long)cs[k]->m,
                (double)cs[k]->p * (double)cs[k]->m * (double)el / 1e6);
        if (cs[k]->has_roof)
            fprintf(f, ", at B = 1 held to %s %.1f GB/s", cs[k]->bw_level,
                    cs[k]->bw);
    }
    if (rb_rows_alias(m, el))
        fprintf(f,
                "\nW's rows are %llu bytes apart (M x %zu), a multiple of 2 "
                "KiB: a column's lines share a few cache sets,\nwhich slows "
                "kernels that read W down its columns (STREAM offsets its "
                "arrays for this);\nthe sweep sizes its own weights to "
                "avoid such strides where the level allows",
                (unsigned long long)(m * el), el);
    fprintf(f, "\n%6s %8s %6s %13s", "B", "FLOP/B", "roof", "probe");
    for (int k = 0; k < nc; k++)
        fprintf(f, " %24s", cs[k]->kernel->name);
    fprintf(f, "\n%6s %8s %6s %13s", "", "", "GF/s", "GF/s  %roof");
    for (int k = 0; k < nc; k++)
        fprintf(f, " %24s", "GF/s  %roof  spread");
    fprintf(f, "\n");
}

/* A kernel's cell, 25 columns as the headers: GFLOP/s, %roof and its
 * mark (as roofbench run marks its rows, counted in above and over), the
 * spread; "-" where the kernel has no point at this B. */
static void kernel_cell(const sweep_doc *doc, const sweep_point *pt,
                        int *above, int *over, FILE *f)
{
    if (!pt) {
        fprintf(f, " %24s", "-");
        return;
    }
    const harness_row *r = &pt->row;
    roof_bound rb;
    char frac[16] = "n/a";
    char mark = ' ';
    if (bound_of(doc, r, &rb) == 0) {
        snprintf(frac, sizeof(frac), "%.0f%%", 100.0 * rb.fraction);
        mark = report_run_mark(&rb, above, over);
    }
    fprintf(f, " %9.4g %6s%c %5.1f%%", harness_row_gflops(r), frac, mark,
            100.0 * (r->time.median / r->time.min - 1.0));
}

/* The row of batch b: B, the intensity, the roof and the streaming probe
 * there, then each kernel's cell. */
static void batch_row(const sweep_doc *doc, const sweep_curve *const *cs,
                      int nc, int level, int d, int t, uint64_t b, int *above,
                      int *over, FILE *f)
{
    const sweep_plan *plan = doc->plan;
    const sweep_point *row[SWEEP_MAX_KERNELS] = {0};
    const sweep_point *any = NULL;
    for (int k = 0; k < nc; k++)
        for (size_t j = 0; j < cs[k]->n; j++)
            if (doc->res->points[cs[k]->idx[j]].b == b) {
                row[k] = &doc->res->points[cs[k]->idx[j]];
                if (!any && row[k]->row.kernel->op == RB_OP_MATMUL)
                    any = row[k];
            }
    for (int k = 0; k < nc && !any; k++)
        any = row[k];
    if (!any)
        return;
    roof_bound bd;
    char roof[16] = "n/a", probe[24] = "n/a";
    const double pr =
        probe_at(doc, level, plan->dtypes[d], plan->threads[t], b);
    if (bound_of(doc, &any->row, &bd) == 0) {
        snprintf(roof, sizeof(roof), "%.4g", bd.attainable_gflops);
        if (pr > 0.0 && any->row.kernel->op == RB_OP_MATMUL)
            snprintf(probe, sizeof(probe), "%.4g %5.0f%%", pr,
                     100.0 * pr / bd.attainable_gflops);
    }
    /* the matmul kernels share counts (the contrast's differ: its own
     * %roof column places it on its own bound) */
    fprintf(f, "%6llu %8.3g %6s %13s", (unsigned long long)b,
            (double)any->row.counts.flops / (double)any->row.counts.bytes,
            roof, probe);
    for (int k = 0; k < nc; k++)
        kernel_cell(doc, row[k], above, over, f);
    fprintf(f, "\n");
}

static void curve_table(const sweep_doc *doc, const sweep_analysis *a,
                        int level, int d, int t, int *above, int *over,
                        FILE *f)
{
    const sweep_curve *cs[SWEEP_MAX_KERNELS];
    int nc = 0;
    for (size_t i = 0; i < a->ncurves && nc < SWEEP_MAX_KERNELS; i++)
        if (a->curves[i].level == level && a->curves[i].d == d &&
            a->curves[i].t == t)
            cs[nc++] = &a->curves[i];
    if (nc == 0)
        return;
    table_head(doc, cs, nc, level, d, t, f);
    for (size_t i = 0; i < doc->plan->nbatch; i++)
        batch_row(doc, cs, nc, level, d, t, doc->plan->batch[i], above, over,
                  f);
    target_line(doc, cs, nc, f);
    rounds_line(doc, cs, nc, f);
    ceiling_line(doc, a, cs, nc, f);
    rise_line(doc, cs, nc, f);
}

/* A ridge batch's two cells: the ridge and the 50% knee over it ("n/a"
 * left where there is no ridge, or no knee). */
static void ridge_cells(int has, double ridge, const sweep_knee *k,
                        char *cell, char *ratio, size_t len)
{
    if (!has)
        return;
    fmt_batch(cell, len, ridge, 0);
    if (k)
        fmt_ratio(ratio, len, k->knee[0] / ridge, k->at_first[0]);
}

/* One row of the knee table: curve c's level, dtype and team under
 * `name`, with knee k (NULL: none) beside c's ridge B and the knee of a
 * kernel at the roof with k's plateau (roof_knee50). */
static void knee_row(const sweep_doc *doc, const sweep_curve *c,
                     const char *name, const sweep_knee *k, FILE *f)
{
    char k50[24] = "-", k90[24] = "-", rb[24] = "n/a", ratio[24] = "n/a",
         plat[24] = "-", rk[24] = "n/a", rkr[24] = "n/a", rn[24] = "n/a",
         rnr[24] = "n/a";
    if (k) {
        fmt_batch(k50, sizeof(k50), k->knee[0], k->at_first[0]);
        fmt_batch(k90, sizeof(k90), k->knee[1], k->at_first[1]);
        snprintf(plat, sizeof(plat), "%.4g%s", k->plateau,
                 k->plateau_at_end ? "+" : "");
    }
    ridge_cells(c->has_roof, c->ridge_b, k, rb, ratio, sizeof(rb));
    ridge_cells(c->has_now, c->ridge_now, k, rn, rnr, sizeof(rn));
    const double r = roof_knee50(doc, c, k);
    fmt_batch(rk, sizeof(rk), r, 0);
    if (k)
        fmt_ratio(rkr, sizeof(rkr), k->knee[0] / r, k->at_first[0]);
    fprintf(f, "%-8s %-5s %3d %-16s %10s %8s %8s %8s %9s %8s %8s %8s %9s\n",
            doc->plan->levels[c->level].name,
            rb_dtype_name(doc->plan->dtypes[c->d]), doc->plan->threads[c->t],
            name, plat, k50, k90, rb, ratio, rn, rnr, rk, rkr);
}

static void knee_table(const sweep_doc *doc, const sweep_analysis *a, FILE *f)
{
    fprintf(f, "\nknees: the B at which GFLOP/s reaches 50%% and 90%% of its "
               "plateau (log-log interpolation),\nbeside the B where the "
               "host roof turns compute-bound (measured peak and the "
               "weights'\nlevel bandwidth in the roof the points are judged "
               "against, exact bytes)\n");
    fprintf(f, "%-8s %-5s %3s %-16s %10s %8s %8s %8s %9s %8s %8s %8s %9s\n",
            "weights", "dtype", "thr", "kernel", "plateau", "knee50", "knee90",
            "ridge B", "k50/ridge", "now B", "k50/now", "roof k50",
            "k50/roof");
    for (size_t i = 0; i < a->ncurves; i++)
        knee_row(doc, &a->curves[i], a->curves[i].kernel->name,
                 a->curves[i].has_knee ? &a->curves[i].knee : NULL, f);
    /* the streaming probe's curve where a matmul curve with a roof speaks
     * for it: where a kernel with nothing but the weights' stream and its
     * FMAs crosses half of its plateau, on this host */
    for (size_t i = 0; i < a->ncurves; i++) {
        probe_line pl;
        if (probe_curve(doc, a, i, 1, &pl) && pl.has_knee)
            knee_row(doc, &a->curves[i], "streaming probe", &pl.knee, f);
    }
    fprintf(f, "plateau+: the largest B is the fastest, the plateau may lie "
               "beyond the grid. now B: the ridge B at\nthe medians of the "
               "peak and the read kernel's bandwidth measured around the "
               "curve's points\n(the read kernel alone, while they ran; the "
               "ridge B column takes the roofline's, of the\nroof the points "
               "are judged against: where another kernel sets that, the "
               "two\ndiffer with no drift at all). roof k50: where a "
               "kernel\nthat follows "
               "min(its own plateau, intensity x bandwidth) reaches half of "
               "it; a roofline\nkernel whose plateau is the peak has its "
               "50%% knee at about half the ridge B.\n");
}

static void level_table(const sweep_doc *doc, const sweep_analysis *a, FILE *f)
{
    int header = 0;
    for (size_t i = 0; i < a->ncurves; i++) {
        const sweep_curve *c = &a->curves[i];
        const sweep_curve *s = extreme_of(a, c, 0);
        if (!s || s == c || !c->has_roof || !c->has_knee ||
            s->knee.at_first[0])
            continue;
        if (!header++)
            fprintf(f, "\nthe knee moves with the weights' level: 50%% knees "
                       "and bandwidths against the slowest level\n%-5s %3s "
                       "%-16s %-8s %8s %-8s %8s %10s %10s %8s\n",
                    "dtype", "thr", "kernel", "level", "knee50", "against",
                    "knee50", "knee ratio", "bw ratio", "k/bw");
        const double kr = c->knee.knee[0] / s->knee.knee[0],
                     br = s->bw / c->bw;
        char kc[24], ks[24], krs[24], kbs[24];
        fmt_batch(kc, sizeof(kc), c->knee.knee[0], c->knee.at_first[0]);
        fmt_batch(ks, sizeof(ks), s->knee.knee[0], 0);
        fmt_ratio(krs, sizeof(krs), kr, c->knee.at_first[0]);
        fmt_ratio(kbs, sizeof(kbs), kr / br, c->knee.at_first[0]);
        fprintf(f, "%-5s %3d %-16s %-8s %8s %-8s %8s %10s %10.3f %8s\n",
                rb_dtype_name(doc->plan->dtypes[c->d]),
                doc->plan->threads[c->t], c->kernel->name,
                doc->plan->levels[c->level].name, kc,
                doc->plan->levels[s->level].name, ks, krs, br, kbs);
    }
}

static void prediction_table(const sweep_doc *doc, FILE *f)
{
    if (doc->nprofiles == 0)
        return;
    prediction pr;
    predict(doc, 0, &pr);
    fprintf(f, "\npredicted: the B from which [B,P] x [P,M] is compute-bound "
               "on each profile (its\nheadline dtype, its own peak and "
               "memory bandwidth), exact at P = %llu, M = %llu and\ncounting "
               "the weights alone (s x ridge / 2)\n",
            (unsigned long long)pr.pp, (unsigned long long)pr.mm);
    fprintf(f, "%-14s %-5s %12s %10s %10s %12s\n", "profile", "dtype",
            "peak TFLOP/s", "TB/s", "B exact", "weights only");
    for (int i = 0; i < doc->nprofiles; i++) {
        predict(doc, i, &pr);
        char ex[24];
        fmt_batch(ex, sizeof(ex), pr.exact, 0);
        fprintf(f, "%-14s %-5s %12.4g %10.4g %10s %12.4g\n", pr.p->id,
                pdtype_name(pr.dt), pr.p->peak[pr.dt] / 1e12,
                pr.p->mem_bw / 1e12, ex, pr.weights_only);
    }
    for (int i = 0; doc->roof && i < doc->nprofiles; i++)
        if (strcmp(doc->profiles[i].kind, "host") == 0)
            fprintf(f, "host: the measured roofline's largest team, its "
                       "DRAM plateau %s\n",
                    roofline_profile_mix(doc->roof, SWEEP_HOST_MIX) !=
                            RB_ACCESS_READ
                        ? "in the mixed roof, the matmuls' own (`model "
                          "--profile host` takes the read roof's)"
                        : "in the read roof (the mixed one was not "
                          "measured or shows no DRAM plateau)");
}

void report_sweep_text(const sweep_doc *doc, const sweep_analysis *a,
                       const char *dir, const char *chart, FILE *f)
{
    const json_t *ob = json_object_get(doc->context, "openblas");
    const json_t *env = json_object_get(doc->context, "environment");
    const char *own = json_string_value(
        json_object_get(env, "ROOFBENCH_OPENBLAS_OWN"));
    char forced[96] = "";
    if (own)
        snprintf(forced, sizeof(forced),
                 " (--openblas best; its own choice: %.40s)", own);
    fprintf(f, "roofbench sweep on %s: OpenBLAS core %s%s; results in %s\n",
            str_or(doc->context, "host", "?"), str_or(ob, "corename", "?"),
            forced, dir);
    if (doc->roof)
        report_run_roofline_text(doc->roof, f);
    int above = 0, over = 0;
    for (int l = 0; l < doc->plan->nlevels; l++)
        for (int d = 0; d < doc->plan->ndtypes; d++)
            for (int t = 0; t < doc->plan->nthreads; t++)
                curve_table(doc, a, l, d, t, &above, &over, f);
    fprintf(f, "roof: the host roofline's bound at the point's intensity and "
               "the level its working\nset falls in; %%roof: GFLOP/s (minimum "
               "time) over it; spread: median over minimum time - 1.\n"
               "the peak and bandwidth measured around each point: the "
               "roofline's peak kernel, and its read\nkernel over the point's "
               "weights, on the point's team just before its samples and just\n"
               "after (the larger of each), in place of the roofline's peak "
               "and level bandwidth; on a\nshared host the FMA pipes a core "
               "lends move within seconds while its clock stays, and the\n"
               "memory a guest gets within minutes (the read kernel alone, "
               "where the roofline's level\nis the best of several: the "
               "ranges say how far the two differ).\n"
               "probe: the streaming FMA probe around each point: the "
               "point's weights streamed once\nwith B FMAs a weight on "
               "registers and nothing else (no C tile, no broadcasts of A,\n"
               "the lines asked for 4 KiB ahead, in one stream and in four, "
               "the better), on the point's\nteam just before its samples "
               "and just after (the larger): what this host then lets\n"
               "any kernel of that arithmetic per weight reach; a kernel may "
               "beat it, it is no roof.\n");
    if (doc->plan->rounds > 1)
        fprintf(f, "the rounds apart: at each point, the slowest round's best "
                   "time over the fastest's\n(a point's rate is its fastest "
                   "round's). Where the rounds, a pass of the grid apart,\n"
                   "agree at a point under 70%% of the roof, more rounds "
                   "would likely find no more\nthere: the kernel, or a host "
                   "slow through every round, set that rate; where they\n"
                   "differ widely, the host moved between them.\n");
    report_run_marks_text(above, over, "point", "sweep.json", f);
    if (doc->res->skipped_batched)
        fprintf(f, "batched (every row its own [P,M] matrix) left out at %zu "
                   "point%s: its working set grows with B past the budget of "
                   "%.3g GB.\n",
                doc->res->skipped_batched,
                rb_plural((long long)doc->res->skipped_batched),
                (double)doc->plan->batched_budget / 1e9);
    knee_table(doc, a, f);
    level_table(doc, a, f);
    prediction_table(doc, f);
    if (chart && chart[0])
        fprintf(f, "\nchart skipped: %s\n", chart);
    else
        fprintf(f, "\nchart: %s/sweep.png and .svg\n", dir);
    fprintf(f, "Written: %s/sweep.json, sweep.csv, sweep-samples.csv\n", dir);
}
