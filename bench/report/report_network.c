#include "report_network.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "jdoc.h"
#include "plot.h"
#include "stats.h"
#include "sweep.h"

/* ---- the analysis -------------------------------------------------------- */

/* Bytes each rank sends in a ring all-reduce of `bytes`, per link. */
static double ring_bytes(int ranks, double bytes)
{
    return 2.0 * (ranks - 1) / ranks * bytes;
}

static double shard_flops(const net_plan *p, int ranks,
                          const net_shard_point *s)
{
    return 2.0 * (double)s->b * (double)(s->d / (uint64_t)ranks) * (double)p->f;
}

/* The two links: the ping-pong's one-way times, and the all-reduce's in
 * bus bytes with every dtype together, each fitted to latency + bytes /
 * W with its residuals (or why not). */
static void fit_links(const network_doc *d, network_analysis *a)
{
    const net_result *r = d->res;
    uint64_t bytes[RB_NDTYPES * NET_MAX_SIZES];
    double t[RB_NDTYPES * NET_MAX_SIZES], res[RB_NDTYPES * NET_MAX_SIZES];
    for (size_t i = 0; i < r->nlatency; i++) {
        bytes[i] = r->latency[i].bytes;
        t[i] = net_timing_median(&r->latency[i].t);
    }
    a->has_p2p = net_fit_link(bytes, t, r->nlatency, &a->p2p, a->residual,
                              a->p2p_why, sizeof(a->p2p_why)) == 0;
    if (!(d->plan->parts & NET_LATENCY))
        snprintf(a->p2p_why, sizeof(a->p2p_why),
                 "the ping-pong was not measured (--parts)");
    size_t nb = 0;
    for (int dt = 0; dt < RB_NDTYPES; dt++)
        for (size_t i = 0; i < r->nallreduce[dt]; i++, nb++) {
            bytes[nb] = (uint64_t)llround(
                ring_bytes(r->ranks, (double)r->allreduce[dt][i].bytes));
            t[nb] = net_timing_median(&r->allreduce[dt][i].t);
        }
    a->has_link = net_fit_link(bytes, t, nb, &a->link, res, a->link_why,
                               sizeof(a->link_why)) == 0;
    if (!(d->plan->parts & NET_ALLREDUCE))
        snprintf(a->link_why, sizeof(a->link_why),
                 "the all-reduce was not measured (--parts)");
    nb = 0;
    for (int dt = 0; dt < RB_NDTYPES; dt++)
        for (size_t i = 0; i < r->nallreduce[dt]; i++, nb++)
            a->ar_residual[dt][i] = a->has_link ? res[nb] : NAN;
}

/* The curves: one per dtype and batch, D ascending as measured. */
static void group_curves(const net_result *r, network_analysis *a)
{
    for (size_t i = 0; i < r->nshard; i++) {
        const net_shard_point *s = &r->shard[i];
        net_curve *c = NULL;
        for (size_t j = 0; j < a->ncurves && !c; j++)
            if (a->curves[j].dt == s->dt && a->curves[j].b == s->b)
                c = &a->curves[j];
        if (!c) {
            if (a->ncurves == sizeof(a->curves) / sizeof(a->curves[0]))
                continue;
            c = &a->curves[a->ncurves++];
            c->dt = s->dt;
            c->b = s->b;
        }
        if (c->n < NET_MAX_D)
            c->idx[c->n++] = i;
    }
}

/* A curve's crossovers: predicted from C and each link's W, measured
 * where compute stops being shorter than the all-reduce, and where the
 * overlapped step stays near compute alone. */
static void crossovers(const network_doc *d, const network_analysis *a,
                       net_curve *c)
{
    const net_result *r = d->res;
    const int n = r->ranks;
    const double el = (double)rb_dtype_size(c->dt);
    /* C: the compute step's rate per rank, the median over D of each D's
     * rate (median times): what the kernel sustains on this product,
     * robust to one fast or slow point */
    double rates[NET_MAX_D];
    for (size_t i = 0; i < c->n; i++) {
        const net_shard_point *s = &r->shard[c->idx[i]];
        rates[i] = shard_flops(d->plan, n, s) / net_timing_median(&s->compute);
    }
    c->c = stats_median(rates, c->n);
    c->w = a->has_link ? a->link.bandwidth : NAN;
    c->predicted = net_predicted_crossover(n, (unsigned)el, c->c, c->w);
    c->w_p2p = a->has_p2p ? a->p2p.bandwidth : NAN;
    c->predicted_p2p = net_predicted_crossover(n, (unsigned)el, c->c, c->w_p2p);
    /* The all-reduce moves the same [B,F] at every D: its time is one
     * figure, the median over D, against which each D's compute time is
     * compared (a noisy all-reduce sample cannot move the crossover on
     * its own). */
    double x[NET_MAX_D], comm[NET_MAX_D], ovl[NET_MAX_D], tc[NET_MAX_D];
    for (size_t i = 0; i < c->n; i++)
        tc[i] = net_timing_median(&r->shard[c->idx[i]].comm);
    c->t_comm = stats_median(tc, c->n);
    c->w_step =
        ring_bytes(n, el * (double)c->b * (double)d->plan->f) / c->t_comm;
    for (size_t i = 0; i < c->n; i++) {
        const net_shard_point *s = &r->shard[c->idx[i]];
        x[i] = (double)s->d;
        const double comp = net_timing_median(&s->compute);
        comm[i] = c->t_comm / comp;
        ovl[i] = net_timing_median(&s->overlap) / comp;
    }
    c->measured = net_crossover(x, comm, c->n, 1.0, &c->measured_status);
    c->overlap =
        net_crossover(x, ovl, c->n, NET_OVERLAP_LIMIT, &c->overlap_status);
}

void report_network_analyse(const network_doc *d, network_analysis *a)
{
    memset(a, 0, sizeof(*a));
    fit_links(d, a);
    group_curves(d->res, a);
    for (size_t k = 0; k < a->ncurves; k++)
        crossovers(d, a, &a->curves[k]);
}

/* ---- the document -------------------------------------------------------- */

static json_t *timing_json(jdoc *j, const net_timing *t)
{
    json_t *s = json_array();
    for (int i = 0; i < t->n; i++)
        jd_push(j, s, "samples_s", jd_num(t->s[i]));
    stats_summary st;
    stats_summarize(t->s, (size_t)t->n, &st);
    return jd_pack(j, "{s:I, s:o, s:o, s:o, s:o}", "iters_per_sample",
                   (json_int_t)t->iters, "min_s", jd_num(st.min), "median_s",
                   jd_num(st.median), "max_s", jd_num(st.max), "samples_s", s);
}

static json_t *link_json(jdoc *j, const char *name, const char *label, int has,
                         const net_link *l, const char *why, const char *fit)
{
    if (!has)
        return jd_pack(j, "{s:s, s:o}", "name", name, "unavailable",
                       jd_str(why));
    return jd_pack(j, "{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:s}",
                   "name", name, "label", jd_str(label), "model",
                   "T(bytes) = latency + bytes / bandwidth", "latency_s",
                   jd_num(l->latency), "bandwidth_Bps", jd_num(l->bandwidth),
                   "rms_relative_residual", jd_num(l->rms_rel),
                   "max_relative_residual", jd_num(l->max_rel),
                   "max_residual_bytes", (json_int_t)l->max_rel_bytes, "sizes",
                   (json_int_t)l->n, "fit", fit);
}

static const char *cross_status(int s)
{
    return s == NET_CROSS_FOUND    ? "found"
           : s == NET_CROSS_BEFORE ? "at or below the smallest D"
                                   : "above the largest D";
}

/* The MPI library, the ranks and their bindings, and how they were
 * started. */
static json_t *mpi_json(jdoc *j, const network_doc *d)
{
    const net_result *r = d->res;
    json_t *ranks = json_array();
    for (int i = 0; i < r->ranks && i < NET_MAX_RANKS; i++)
        jd_push(j, ranks, "binding", jd_str(r->binding[i]));
    return jd_pack(j, "{s:o, s:i, s:i, s:i, s:o, s:o, s:o}", "library",
                   jd_str(r->mpi_version), "ranks", r->ranks, "hosts", r->hosts,
                   "peer", r->peer, "label", jd_str(r->label), "launched_by",
                   d->launch ? jd_str(d->launch) : json_null(), "binding",
                   ranks);
}

/* The ping-pong's one-way times, each with its residual from the fitted
 * point-to-point link. */
static json_t *latency_json(jdoc *j, const net_result *r,
                            const network_analysis *a)
{
    json_t *lat = json_array();
    for (size_t i = 0; i < r->nlatency; i++)
        jd_push(j, lat, "latency",
                jd_pack(j, "{s:I, s:o, s:o}", "bytes",
                        (json_int_t)r->latency[i].bytes, "one_way",
                        timing_json(j, &r->latency[i].t), "fit_residual",
                        a->has_p2p ? jd_num(a->residual[i]) : json_null()));
    return lat;
}

/* The windowed bandwidth: each size's time per window and its rates. */
static json_t *bandwidth_json(jdoc *j, const net_result *r)
{
    json_t *bw = json_array();
    for (size_t i = 0; i < r->nbandwidth; i++) {
        const net_point *p = &r->bandwidth[i];
        const double moved = (double)p->bytes * p->window;
        jd_push(j, bw, "bandwidth",
                jd_pack(j, "{s:I, s:i, s:o, s:o, s:o}", "bytes",
                        (json_int_t)p->bytes, "window", p->window, "per_window",
                        timing_json(j, &p->t), "gbs_best",
                        jd_num(moved / net_timing_min(&p->t) / 1e9),
                        "gbs_median",
                        jd_num(moved / net_timing_median(&p->t) / 1e9)));
    }
    return bw;
}

/* MPI_Allreduce per dtype and size: its time per call, algorithm and bus
 * bandwidth (nccl-tests' algbw and busbw), residual from the link. */
static json_t *allreduce_json(jdoc *j, const net_result *r,
                              const network_analysis *a)
{
    json_t *ar = json_array();
    for (int dt = 0; dt < RB_NDTYPES; dt++)
        for (size_t i = 0; i < r->nallreduce[dt]; i++) {
            const net_point *p = &r->allreduce[dt][i];
            const double algbw =
                (double)p->bytes / net_timing_median(&p->t) / 1e9;
            jd_push(j, ar, "allreduce",
                    jd_pack(j, "{s:s, s:I, s:o, s:o, s:o, s:o}", "dtype",
                            rb_dtype_name((rb_dtype)dt), "bytes",
                            (json_int_t)p->bytes, "per_call",
                            timing_json(j, &p->t), "algbw_gbs", jd_num(algbw),
                            "busbw_gbs",
                            jd_num(algbw * 2.0 * (r->ranks - 1) / r->ranks),
                            "fit_residual", jd_num(a->ar_residual[dt][i])));
        }
    return ar;
}

/* The sharded contraction's points: each D's steps timed and verified. */
static json_t *shard_points_json(jdoc *j, const network_doc *d)
{
    const net_result *r = d->res;
    json_t *pts = json_array();
    for (size_t i = 0; i < r->nshard; i++) {
        const net_shard_point *s = &r->shard[i];
        jd_push(j, pts, "shard.points",
                jd_pack(j,
                        "{s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:o, "
                        "s:o}",
                        "dtype", rb_dtype_name(s->dt), "b", (json_int_t)s->b,
                        "d", (json_int_t)s->d, "flops_per_rank",
                        jd_num(shard_flops(d->plan, r->ranks, s)), "compute",
                        timing_json(j, &s->compute), "allreduce",
                        timing_json(j, &s->comm), "sequential",
                        timing_json(j, &s->seq), "overlapped",
                        timing_json(j, &s->overlap), "verified", s->verified,
                        "max_error", jd_num(s->max_err), "tolerance",
                        jd_num(s->tol)));
    }
    return pts;
}

/* Each curve's crossover D: predicted from the links, measured, and with
 * the all-reduce overlapped. */
static json_t *crossover_json(jdoc *j, const network_analysis *a)
{
    json_t *cross = json_array();
    for (size_t k = 0; k < a->ncurves; k++) {
        const net_curve *c = &a->curves[k];
        jd_push(j, cross, "shard.crossover",
                jd_pack(j,
                        "{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
                        "s:s, s:o, s:s}",
                        "dtype", rb_dtype_name(c->dt), "b", (json_int_t)c->b,
                        "c_flops_per_rank", jd_num(c->c), "w_link_Bps",
                        jd_num(c->w), "predicted_d", jd_num(c->predicted),
                        "w_p2p_Bps", jd_num(c->w_p2p), "predicted_d_p2p",
                        jd_num(c->predicted_p2p), "w_step_Bps",
                        jd_num(c->w_step), "t_allreduce_s", jd_num(c->t_comm),
                        "measured_d", jd_num(c->measured), "measured_status",
                        cross_status(c->measured_status), "overlap_d",
                        jd_num(c->overlap), "overlap_status",
                        cross_status(c->overlap_status)));
    }
    return cross;
}

static json_t *shard_json(jdoc *j, const network_doc *d,
                          const network_analysis *a)
{
    return jd_pack(
        j, "{s:s, s:I, s:i, s:i, s:s, s:s, s:s, s:o, s:o}", "kernel",
        d->plan->kernel->name, "f", (json_int_t)d->plan->f, "chunks",
        d->plan->chunks, "ranks", d->res->ranks, "split",
        "D over the ranks; each computes [B,D/N] x [D/N,F], the "
        "partial [B,F] sums all-reduced",
        "predicted",
        "D* = (N-1) s C / W, C the compute step's FLOP/s per rank "
        "(the median over D of each D's rate), W the link fitted to "
        "the all-reduce "
        "(predicted_d_p2p: with the ping-pong's W instead)",
        "measured",
        "the D from which the compute step's median time stays "
        "above the all-reduce's (its median over every D: the "
        "same [B,F] at each), log-log interpolation; "
        "overlap_d: from which the overlapped step stays within "
        "10% of compute alone",
        "points", shard_points_json(j, d), "crossover", crossover_json(j, a));
}

static char *network_json(const network_doc *d, const network_analysis *a,
                          rb_err *e)
{
    jdoc j = {0};
    const net_result *r = d->res;
    json_t *root = jd_pack(
        &j, "{s:s, s:i, s:s, s:o, s:O}", "schema", "roofbench.network",
        "schema_version", NET_SCHEMA_VERSION, "status", d->status, "error",
        d->error ? jd_str(d->error) : json_null(), "context", d->context);
    jd_set(&j, root, "mpi", mpi_json(&j, d));
    jd_set(&j, root, "link",
           link_json(&j, "mpi", r->label, a->has_link, &a->link, a->link_why,
                     "least squares on the relative error of the all-reduce's "
                     "median times, bytes counted as a ring sends them "
                     "(2(N-1)/N x the buffer), every dtype: W is the bus "
                     "bandwidth, what a sharded contraction's all-reduce "
                     "meets"));
    jd_set(&j, root, "link_p2p",
           link_json(&j, "mpi-p2p", r->label, a->has_p2p, &a->p2p, a->p2p_why,
                     "least squares on the relative error of the ping-pong's "
                     "median one-way times"));
    jd_set(&j, root, "latency", latency_json(&j, r, a));
    jd_set(&j, root, "bandwidth", bandwidth_json(&j, r));
    jd_set(&j, root, "allreduce", allreduce_json(&j, r, a));
    jd_set(&j, root, "shard", shard_json(&j, d, a));
    return jd_text(&j, root, "network.json", 6, e);
}

/* ---- CSVs for the chart -------------------------------------------------- */

static char *p2p_csv(const network_doc *d, const network_analysis *a)
{
    const net_result *r = d->res;
    csv c = {0};
    csv_header(&c, REPORT_NETWORK_P2P_HEADER);
    for (size_t i = 0; i < r->nlatency; i++) {
        const net_point *p = &r->latency[i];
        csv_str(&c, "latency");
        csv_int(&c, p->bytes);
        csv_int(&c, 1);
        csv_int(&c, (unsigned long long)p->t.n);
        csv_num(&c, "%.6g", net_timing_min(&p->t));
        csv_num(&c, "%.6g", net_timing_median(&p->t));
        csv_num(&c, "%.6g", (double)p->bytes / net_timing_min(&p->t) / 1e9);
        csv_num(&c, "%.6g", (double)p->bytes / net_timing_median(&p->t) / 1e9);
        if (a->has_p2p) {
            csv_num(&c, "%.6g",
                    a->p2p.latency + (double)p->bytes / a->p2p.bandwidth);
            csv_num(&c, "%.4f", a->residual[i]);
        } else {
            csv_empty(&c);
            csv_empty(&c);
        }
        csv_end(&c);
    }
    for (size_t i = 0; i < r->nbandwidth; i++) {
        const net_point *p = &r->bandwidth[i];
        const double moved = (double)p->bytes * p->window;
        csv_str(&c, "bandwidth");
        csv_int(&c, p->bytes);
        csv_int(&c, (unsigned long long)p->window);
        csv_int(&c, (unsigned long long)p->t.n);
        csv_num(&c, "%.6g", net_timing_min(&p->t));
        csv_num(&c, "%.6g", net_timing_median(&p->t));
        csv_num(&c, "%.6g", moved / net_timing_min(&p->t) / 1e9);
        csv_num(&c, "%.6g", moved / net_timing_median(&p->t) / 1e9);
        csv_empty(&c);
        csv_empty(&c);
        csv_end(&c);
    }
    return sb_take(&c.sb);
}

static char *allreduce_csv(const network_doc *d)
{
    const net_result *r = d->res;
    csv c = {0};
    csv_header(&c, REPORT_NETWORK_ALLREDUCE_HEADER);
    for (int dt = 0; dt < RB_NDTYPES; dt++)
        for (size_t i = 0; i < r->nallreduce[dt]; i++) {
            const net_point *p = &r->allreduce[dt][i];
            const double algbw =
                (double)p->bytes / net_timing_median(&p->t) / 1e9;
            csv_str(&c, rb_dtype_name((rb_dtype)dt));
            csv_int(&c, p->bytes);
            csv_int(&c, (unsigned long long)p->t.n);
            csv_num(&c, "%.6g", net_timing_min(&p->t));
            csv_num(&c, "%.6g", net_timing_median(&p->t));
            csv_num(&c, "%.6g", algbw);
            csv_num(&c, "%.6g", algbw * 2.0 * (r->ranks - 1) / r->ranks);
            csv_end(&c);
        }
    return sb_take(&c.sb);
}

static const net_curve *curve_of(const network_analysis *a, rb_dtype dt,
                                 uint64_t b)
{
    for (size_t k = 0; k < a->ncurves; k++)
        if (a->curves[k].dt == dt && a->curves[k].b == b)
            return &a->curves[k];
    return NULL;
}

static char *shard_csv(const network_doc *d, const network_analysis *a)
{
    const net_result *r = d->res;
    csv c = {0};
    csv_header(&c, REPORT_NETWORK_SHARD_HEADER);
    for (size_t i = 0; i < r->nshard; i++) {
        const net_shard_point *s = &r->shard[i];
        const net_curve *cv = curve_of(a, s->dt, s->b);
        const double el = (double)rb_dtype_size(s->dt);
        const double fl = shard_flops(d->plan, r->ranks, s);
        csv_str(&c, rb_dtype_name(s->dt));
        csv_int(&c, s->b);
        csv_int(&c, s->d);
        csv_int(&c, d->plan->f);
        csv_int(&c, (unsigned long long)r->ranks);
        csv_num(&c, "%.6g", net_timing_median(&s->compute));
        csv_num(&c, "%.6g", net_timing_median(&s->comm));
        csv_num(&c, "%.6g", net_timing_median(&s->seq));
        csv_num(&c, "%.6g", net_timing_median(&s->overlap));
        csv_num(&c, "%.6g", cv ? fl / cv->c : NAN);
        csv_num(&c, "%.6g",
                a->has_link ? a->link.latency +
                                  ring_bytes(r->ranks, el * (double)s->b *
                                                           (double)d->plan->f) /
                                      a->link.bandwidth
                            : NAN);
        csv_num(&c, "%.6g", fl / net_timing_median(&s->seq) / 1e9);
        csv_num(
            &c, "%.6g",
            fl / ring_bytes(r->ranks, el * (double)s->b * (double)d->plan->f));
        csv_int(&c, (unsigned long long)s->verified);
        csv_num(&c, "%.3g", s->max_err);
        csv_end(&c);
    }
    return sb_take(&c.sb);
}

/* Each crossover with the time it is drawn at: the predicted one on the
 * predicted compute time, the measured ones on the measured all-reduce. */
static char *crossover_csv(const network_doc *d, const network_analysis *a)
{
    const net_result *r = d->res;
    csv c = {0};
    csv_header(&c, REPORT_NETWORK_CROSSOVER_HEADER);
    for (size_t k = 0; k < a->ncurves; k++) {
        const net_curve *cv = &a->curves[k];
        const double el = (double)rb_dtype_size(cv->dt);
        /* D* on the predicted compute line, where it meets the link's
         * bytes / W; the measured ones at the step's all-reduce time */
        const double t_link =
            ring_bytes(r->ranks, el * (double)cv->b * (double)d->plan->f) /
            cv->w;
        const double t_ar =
            ring_bytes(r->ranks, el * (double)cv->b * (double)d->plan->f) /
            cv->w_step;
        const struct {
            const char *kind;
            double d, t;
            int ok;
        } rows[] = {
            {"predicted", cv->predicted, t_link, isfinite(cv->predicted)},
            {"measured", cv->measured, t_ar,
             cv->measured_status == NET_CROSS_FOUND},
            {"overlap", cv->overlap, t_ar * NET_OVERLAP_LIMIT,
             cv->overlap_status == NET_CROSS_FOUND}};
        for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
            if (!rows[i].ok)
                continue;
            csv_str(&c, rb_dtype_name(cv->dt));
            csv_int(&c, cv->b);
            csv_str(&c, rows[i].kind);
            csv_num(&c, "%.6g", rows[i].d);
            csv_num(&c, "%.6g", rows[i].t);
            csv_end(&c);
        }
    }
    return sb_take(&c.sb);
}

/* The roofs of the last panel, per rank: each dtype's peak, the host's
 * memory levels and the link, as GFLOP/s against FLOP per byte, each
 * diagonal up to where it meets the peak. */
static char *roofs_csv(const network_doc *d, const network_analysis *a)
{
    csv c = {0};
    csv_header(&c, REPORT_NETWORK_ROOFS_HEADER);
    const roof_team *team = d->roof ? sweep_team(d->roof, 1) : NULL;
    for (int k = 0; k < d->plan->ndtypes; k++) {
        const rb_dtype dt = d->plan->dtypes[k];
        const double peak =
            team && team->peak_gflops[dt] > 0 ? team->peak_gflops[dt] : NAN;
        if (!isfinite(peak))
            continue;
        const double lo = 1e-3, hi = 1e5;
        for (double x = lo; x <= hi * 1.0001; x *= pow(10.0, 0.125)) {
            csv_str(&c, "peak");
            csv_str(&c, rb_dtype_name(dt));
            csv_num(&c, "%.6g", x);
            csv_num(&c, "%.6g", peak);
            csv_end(&c);
        }
        /* the diagonals: memory levels of the 1-thread roofline (mixed: the
         * sharded matmul writes C), the link */
        const roof_bw *b = team ? roof_team_bw(team, RB_ACCESS_MIXED) : NULL;
        for (size_t l = 0; b && l <= b->nlevels; l++) {
            const int link = l == b->nlevels;
            if (link && !a->has_link)
                continue;
            const double gbs =
                link ? a->link.bandwidth / 1e9 : b->levels[l].gbs;
            char name[48];
            snprintf(name, sizeof(name), "%s",
                     link ? "link" : b->levels[l].name);
            for (double x = lo; x <= hi * 1.0001; x *= pow(10.0, 0.125)) {
                if (x * gbs > peak * 1.0001)
                    break;
                csv_str(&c, name);
                csv_str(&c, rb_dtype_name(dt));
                csv_num(&c, "%.6g", x);
                csv_num(&c, "%.6g", x * gbs);
                csv_end(&c);
            }
            csv_str(&c, name);
            csv_str(&c, rb_dtype_name(dt));
            csv_num(&c, "%.6g", peak / gbs);
            csv_num(&c, "%.6g", peak);
            csv_end(&c);
        }
    }
    return sb_take(&c.sb);
}

/* How many rows each file holds, for the chart. */
static char *parts_csv(const network_doc *d, const char *roofs)
{
    const net_result *r = d->res;
    size_t rows = 0;
    for (const char *c = roofs; c && *c; c++)
        rows += *c == '\n';
    csv c = {0};
    csv_header(&c, REPORT_NETWORK_PARTS_HEADER);
    csv_str(&c, "latency");
    csv_int(&c, r->nlatency);
    csv_end(&c);
    csv_str(&c, "bandwidth");
    csv_int(&c, r->nbandwidth);
    csv_end(&c);
    csv_str(&c, "allreduce");
    csv_int(&c, r->nallreduce[0] + r->nallreduce[1]);
    csv_end(&c);
    csv_str(&c, "shard");
    csv_int(&c, r->nshard);
    csv_end(&c);
    csv_str(&c, "roofs");
    csv_int(&c, rows > 0 ? rows - 1 : 0);
    csv_end(&c);
    return sb_take(&c.sb);
}

int report_network_write(runfolder *f, const network_doc *d,
                         const network_analysis *a, char **json_text, char *why,
                         size_t whylen, rb_err *e)
{
    *json_text = network_json(d, a, e);
    int rc = *json_text ? runfolder_write(f, "network.json", *json_text,
                                          strlen(*json_text), e)
                        : RB_EINPUT;
    if (!rc)
        rc = runfolder_write_text(f, "network-p2p.csv", p2p_csv(d, a), e);
    if (!rc)
        rc = runfolder_write_text(f, "network-allreduce.csv", allreduce_csv(d),
                                  e);
    if (!rc)
        rc = runfolder_write_text(f, "network-shard.csv", shard_csv(d, a), e);
    if (!rc)
        rc = runfolder_write_text(f, "network-crossover.csv",
                                  crossover_csv(d, a), e);
    char *roofs = roofs_csv(d, a);
    if (!rc)
        rc = runfolder_write_text(f, "network-parts.csv", parts_csv(d, roofs),
                                  e);
    if (!rc)
        rc = runfolder_write_text(f, "network-roofs.csv", roofs, e);
    else
        free(roofs);
    snprintf(why, whylen, "the measurement %s",
             strcmp(d->status, "failed") == 0 ? "failed" : "was interrupted");
    if (rc || strcmp(d->status, "complete") != 0)
        return rc;
    /* the panels plot-network.gp draws (it says "nothing to draw" and
     * writes no chart otherwise) */
    const net_result *r = d->res;
    const size_t nar = r->nallreduce[0] + r->nallreduce[1];
    if (r->nlatency < 2 && r->nlatency + r->nbandwidth + nar < 2 &&
        r->nshard == 0) {
        snprintf(why, whylen, "too few points to draw");
        return RB_OK;
    }
    static const char *const outputs[] = {"network.png", "network.svg", NULL};
    int made = 0;
    rb_err pe;
    if (plot_run(f, "plot-network.gp", rb_plot_network_gp, outputs, &made, why,
                 whylen, &pe) != RB_OK)
        snprintf(why, whylen, "%s", pe.msg);
    else if (made)
        why[0] = '\0';
    return RB_OK;
}

/* ---- text ---------------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t len, double b)
{
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, len, "%.4gG", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, len, "%.4gM", b / (1024.0 * 1024));
    else if (b >= 1024.0)
        snprintf(buf, len, "%.4gK", b / 1024.0);
    else
        snprintf(buf, len, "%.0f", b);
}

/* A figure, or n/a where it could not be had (no link fitted, no
 * crossover in range). */
static void fmt_num(char *buf, size_t len, const char *fmt, double x)
{
    if (isfinite(x))
        snprintf(buf, len, fmt, x);
    else
        snprintf(buf, len, "n/a");
}

static void fmt_cross(char *buf, size_t len, double x, int status)
{
    if (status == NET_CROSS_NEVER)
        snprintf(buf, len, "above range");
    else if (status == NET_CROSS_BEFORE)
        snprintf(buf, len, "<=%.4g", x);
    else
        snprintf(buf, len, "%.4g", x);
}

static void print_link(FILE *f, const char *what, const net_link *l)
{
    char mb[16];
    fmt_bytes(mb, sizeof(mb), (double)l->max_rel_bytes);
    fprintf(f,
            "%s: T(bytes) = %.3f us + bytes / %.3f GB/s, fitted to %zu "
            "sizes; residuals %.0f%% rms, %.0f%% at most (at %s bytes)\n",
            what, l->latency * 1e6, l->bandwidth / 1e9, l->n, 100 * l->rms_rel,
            100 * l->max_rel, mb);
}

static void text_p2p(const network_doc *d, const network_analysis *a, FILE *f)
{
    const net_result *r = d->res;
    fprintf(f,
            "\npoint to point, rank 0 and rank %d (one-way time: half a "
            "ping-pong; bandwidth: a window of non-blocking sends)\n",
            r->peer);
    fprintf(f, "%8s %12s %12s %9s %8s %11s %11s\n", "bytes", "one-way us",
            "(median)", "fit resid", "window", "GB/s best", "(median)");
    for (size_t i = 0; i < d->plan->nsizes; i++) {
        const uint64_t b = d->plan->sizes[i];
        const net_point *lp = NULL, *bp = NULL;
        size_t li = 0;
        for (size_t k = 0; k < r->nlatency; k++)
            if (r->latency[k].bytes == b) {
                lp = &r->latency[k];
                li = k;
            }
        for (size_t k = 0; k < r->nbandwidth; k++)
            if (r->bandwidth[k].bytes == b)
                bp = &r->bandwidth[k];
        if (!lp && !bp)
            continue;
        char bs[16];
        fmt_bytes(bs, sizeof(bs), (double)b);
        fprintf(f, "%8s", bs);
        if (lp) {
            fprintf(f, " %12.3f %12.3f", net_timing_min(&lp->t) * 1e6,
                    net_timing_median(&lp->t) * 1e6);
            if (a->has_p2p)
                fprintf(f, " %+8.0f%%", 100.0 * a->residual[li]);
            else
                fprintf(f, " %9s", "n/a");
        } else
            fprintf(f, " %12s %12s %9s", "", "", "");
        if (bp) {
            const double moved = (double)b * bp->window;
            fprintf(f, " %8d %11.3f %11.3f", bp->window,
                    moved / net_timing_min(&bp->t) / 1e9,
                    moved / net_timing_median(&bp->t) / 1e9);
        }
        fprintf(f, "\n");
    }
    if (a->has_p2p)
        print_link(f, "point-to-point link (ping-pong)", &a->p2p);
    else if (r->nlatency)
        fprintf(f, "point-to-point link fit: unavailable: %s\n", a->p2p_why);
}

static void text_allreduce(const network_doc *d, const network_analysis *a,
                           FILE *f)
{
    const net_result *r = d->res;
    for (int dt = 0; dt < RB_NDTYPES; dt++) {
        if (!r->nallreduce[dt])
            continue;
        fprintf(f,
                "\nall-reduce (%s, sum, %d ranks; busbw = algbw x 2(n-1)/n)\n",
                rb_dtype_name((rb_dtype)dt), r->ranks);
        fprintf(f, "%8s %12s %11s %11s\n", "bytes", "time us", "algbw GB/s",
                "busbw GB/s");
        for (size_t i = 0; i < r->nallreduce[dt]; i++) {
            const net_point *p = &r->allreduce[dt][i];
            char bs[16];
            fmt_bytes(bs, sizeof(bs), (double)p->bytes);
            const double t = net_timing_median(&p->t);
            fprintf(f, "%8s %12.3f %11.3f %11.3f\n", bs, t * 1e6,
                    (double)p->bytes / t / 1e9,
                    (double)p->bytes / t / 1e9 * 2.0 * (r->ranks - 1) /
                        r->ranks);
        }
    }
    if (a->has_link)
        print_link(f,
                   "the link as the all-reduce sees it (bus bytes "
                   "2(N-1)/N x the buffer; link.mpi)",
                   &a->link);
    else if (r->nallreduce[0] || r->nallreduce[1])
        fprintf(f, "all-reduce link fit: unavailable: %s\n", a->link_why);
}

/* Every point of the sharded product: its steps' median times and
 * whether each was verified. */
static void shard_points_text(const network_doc *d, FILE *f)
{
    const net_result *r = d->res;
    fprintf(f,
            "\nsharded matmul [B,D] x [D,F], F = %llu, D split over %d "
            "ranks (%s), all-reduce of [B,F]; median times in us\n",
            (unsigned long long)d->plan->f, r->ranks, d->plan->kernel->name);
    fprintf(f, "%5s %5s %7s %10s %10s %10s %10s %8s\n", "dtype", "B", "D",
            "compute", "allreduce", "sequence", "overlap", "verified");
    for (size_t i = 0; i < r->nshard; i++) {
        const net_shard_point *s = &r->shard[i];
        fprintf(
            f, "%5s %5llu %7llu %10.2f %10.2f %10.2f %10.2f %8s\n",
            rb_dtype_name(s->dt), (unsigned long long)s->b,
            (unsigned long long)s->d, net_timing_median(&s->compute) * 1e6,
            net_timing_median(&s->comm) * 1e6, net_timing_median(&s->seq) * 1e6,
            net_timing_median(&s->overlap) * 1e6, s->verified ? "yes" : "NO");
    }
}

/* Each curve's crossover D: C, W, the prediction, the measured D and
 * their ratio, with the ping-pong's W, and where overlapping keeps within
 * 10% of compute. */
static void crossover_text(const network_analysis *a, FILE *f)
{
    fprintf(f, "\ncrossover D: predicted D* = (N-1) s C / W (C: the compute "
               "step's FLOP/s per rank, median over D; W: link.mpi), measured "
               "where compute rises above the all-reduce (its median over "
               "D); D* p2p: with the ping-pong's W\n");
    fprintf(f, "%5s %5s %10s %9s %9s %12s %9s %10s %12s\n", "dtype", "B",
            "C GFLOP/s", "W GB/s", "D*", "measured D", "meas/D*", "D* p2p",
            "overlap<=10%");
    for (size_t k = 0; k < a->ncurves; k++) {
        const net_curve *c = &a->curves[k];
        char m[32], o[32];
        fmt_cross(m, sizeof(m), c->measured, c->measured_status);
        fmt_cross(o, sizeof(o), c->overlap, c->overlap_status);
        char w[16], ds[16], ratio[16], dp[16];
        fmt_num(w, sizeof(w), "%.3f", c->w / 1e9);
        fmt_num(ds, sizeof(ds), "%.4g", c->predicted);
        fmt_num(ratio, sizeof(ratio), "%.2f",
                c->measured_status == NET_CROSS_FOUND
                    ? c->measured / c->predicted
                    : NAN);
        fmt_num(dp, sizeof(dp), "%.4g", c->predicted_p2p);
        fprintf(f, "%5s %5llu %10.2f %9s %9s %12s %9s %10s %12s\n",
                rb_dtype_name(c->dt), (unsigned long long)c->b, c->c / 1e9, w,
                ds, m, ratio, dp, o);
    }
}

/* What overlapping bought: the overlapped step against the sequence where
 * the all-reduce matters most (the smallest D) and where it matters least
 * (the largest). */
static void overlap_text(const net_result *r, const network_analysis *a,
                         FILE *f)
{
    fprintf(f, "overlapped / in sequence, at the smallest and the largest "
               "D:");
    for (size_t k = 0; k < a->ncurves; k++) {
        const net_curve *c = &a->curves[k];
        const net_shard_point *lo = &r->shard[c->idx[0]],
                              *hi = &r->shard[c->idx[c->n - 1]];
        fprintf(f, "%s %s B=%llu %.2f, %.2f", k ? ";" : "",
                rb_dtype_name(c->dt), (unsigned long long)c->b,
                net_timing_median(&lo->overlap) / net_timing_median(&lo->seq),
                net_timing_median(&hi->overlap) / net_timing_median(&hi->seq));
    }
    fprintf(f, "\n(on one host the all-reduce's copies and sums run on "
               "the ranks' own cores, and OpenMPI drives a non-blocking "
               "all-reduce only inside MPI calls: there is little idle "
               "time to hide it in)\n");
}

/* B cancels: the measured crossovers of one dtype side by side. */
static void b_cancels_text(const network_analysis *a, FILE *f)
{
    for (int dt = 0; dt < RB_NDTYPES; dt++) {
        double lo = INFINITY, hi = 0;
        uint64_t blo = 0, bhi = 0;
        for (size_t k = 0; k < a->ncurves; k++) {
            const net_curve *c = &a->curves[k];
            if (c->dt != (rb_dtype)dt || c->measured_status != NET_CROSS_FOUND)
                continue;
            if (c->b < blo || !blo) {
                blo = c->b;
                lo = c->measured;
            }
            if (c->b > bhi) {
                bhi = c->b;
                hi = c->measured;
            }
        }
        if (blo && bhi > blo)
            fprintf(f,
                    "%s: measured crossover at B = %llu over B = %llu: "
                    "%.2f (B cancels when 1)\n",
                    rb_dtype_name((rb_dtype)dt), (unsigned long long)bhi,
                    (unsigned long long)blo, hi / lo);
    }
}

static void text_shard(const network_doc *d, const network_analysis *a, FILE *f)
{
    shard_points_text(d, f);
    crossover_text(a, f);
    overlap_text(d->res, a, f);
    b_cancels_text(a, f);
}

void report_network_text(const network_doc *d, const network_analysis *a,
                         const char *dir, const char *chart, FILE *f)
{
    const net_result *r = d->res;
    fprintf(f, "network: %s; %s\n", r->label, r->mpi_version);
    if (r->nlatency || r->nbandwidth)
        text_p2p(d, a, f);
    text_allreduce(d, a, f);
    if (a->ncurves)
        text_shard(d, a, f);
    if (dir)
        fprintf(f, "\nresults: %s\n", dir);
    if (chart && chart[0])
        fprintf(f, "chart: skipped: %s\n", chart);
    else if (dir && strcmp(d->status, "complete") == 0)
        fprintf(f, "chart: %s/network.png\n", dir);
}
