#include "report_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "stats.h"
#include "text.h"

int report_compare_status(const cmp_result *r, int allow_missing)
{
    return r->slower > 0 || (r->nonly_base > 0 && !allow_missing) ? 3 : 0;
}

static void fmt_ci(const cmp_stat *s, char *buf, size_t len)
{
    if (isfinite(s->lo) && isfinite(s->hi))
        snprintf(buf, len, "[%.3f, %.3f]", s->lo, s->hi);
    else
        snprintf(buf, len, "[unbounded]");
}

static void fmt_pct(double f, char *buf, size_t len)
{
    if (isfinite(f))
        snprintf(buf, len, "%.1f%%", 100.0 * f);
    else
        snprintf(buf, len, "-");
}

static void fmt_ratio(double r, char *buf, size_t len)
{
    if (isfinite(r))
        snprintf(buf, len, "%.3f", r);
    else
        snprintf(buf, len, "-");
}

static void fmt_p(double p, char *buf, size_t len)
{
    if (isfinite(p))
        snprintf(buf, len, p < 0.001 ? "%.1e" : "%.3f", p);
    else
        snprintf(buf, len, "-");
}

static void fmt_shape(const cmp_row *r, char *buf, size_t len)
{
    snprintf(buf, len, "%zux%zux%zu", r->shape.n, r->shape.p, r->shape.m);
}

static const char *gated_name(const compare_view *v)
{
    return v->set->by_efficiency ? "efficiency (time against each run's own "
                                   "roof)"
                                 : "time";
}

static double gated_floor(const compare_view *v)
{
    return v->set->by_efficiency ? v->res->floor_eff : v->res->floor_time;
}

static void rule_line(const compare_view *v, FILE *f)
{
    const double spread = v->set->by_efficiency ? v->res->spread_eff
                                                : v->res->spread_time;
    fprintf(f,
            "gate: %s; slower = p < %g, the %g%% interval above 1 and the "
            "ratio of medians above %.3f (the larger of 1 + threshold %.3f "
            "and the run-to-run noise floor exp(%g x %.3f) = %.3f, from the "
            "spread of all rows' log ratios, capped at %g); faster, the "
            "mirror image; unreliable = these sample counts cannot reach p "
            "< %g\n",
            gated_name(v), v->set->alpha, 100.0 * (1.0 - v->set->alpha),
            gated_floor(v), 1.0 + v->set->threshold, v->set->noise_z, spread,
            exp(v->set->noise_z * spread), v->set->noise_cap, v->set->alpha);
}

static void list_only(const char *what, const cmp_row *const *rows, size_t n,
                      FILE *f, const char *bullet)
{
    if (n == 0)
        return;
    fprintf(f, "%s (%zu):\n", what, n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s\n", bullet, rows[i]->key);
}

static void summary_line(const compare_view *v, FILE *f)
{
    const cmp_result *r = v->res;
    fprintf(f,
            "%zu matched: %zu slower, %zu faster, %zu unchanged, %zu "
            "unreliable",
            r->npairs, r->slower, r->faster, r->unchanged, r->unreliable);
    if (r->no_roof)
        fprintf(f, ", %zu without a roof%s", r->no_roof,
                v->set->by_efficiency ? " (gated on time)" : "");
    fprintf(f, "; %zu only in the baseline, %zu only in current", r->nonly_base,
            r->nonly_cur);
    if (r->nonly_base && !v->allow_missing)
        fprintf(f, " (a baseline row missing from current fails the gate; "
                   "--allow-missing accepts it)");
    fprintf(f, "\n");
}

/* The two documents, how their samples are taken, the hosts, the rule
 * and Holm's correction. */
static void text_head(const compare_view *v, FILE *f)
{
    fprintf(f, "baseline: %s\ncurrent:  %s\n", v->base->shown, v->cur->shown);
    if (v->base->nruns > 1 && v->cur->nruns > 1)
        fprintf(f, "several runs a side: each row's samples are its runs' "
                   "medians, so the test sees the drift between runs; no "
                   "noise floor\n");
    if (v->host_diff[0])
        fprintf(f, "hosts differ (--allow-host-mismatch): %s\n", v->host_diff);
    rule_line(v, f);
    if (v->set->holm)
        fprintf(f, "Holm's correction over the %zu matched rows: p is "
                   "adjusted, and alpha bounds any false verdict among "
                   "them\n",
                v->res->npairs);
}

/* One matched row: times, ratio, interval, p, fractions of the roofs and
 * both verdicts, marked where it gates the exit. */
static void text_pair(const cmp_pair *p, FILE *f)
{
    char shape[64], ratio[16], ci[48], pv[16], fb[16], fc[16], er[16];
    fmt_shape(p->base, shape, sizeof(shape));
    fmt_ratio(p->time.ratio, ratio, sizeof(ratio));
    fmt_ci(&p->time, ci, sizeof(ci));
    fmt_p(p->time.p, pv, sizeof(pv));
    fmt_pct(p->frac_base, fb, sizeof(fb));
    fmt_pct(p->frac_cur, fc, sizeof(fc));
    fmt_ratio(p->eff.ratio, er, sizeof(er));
    fprintf(f,
            "%-18s %-11s %-5s %-16s %3d %10.4g %10.4g %7s %-16s %8s %7s "
            "%7s %7s %-10s %-10s%s\n",
            p->base->kernel, p->base->form, p->base->dtype, shape,
            p->base->threads,
            stats_median(p->base->samples, p->base->nsamples),
            stats_median(p->cur->samples, p->cur->nsamples), ratio, ci, pv,
            fb, fc, er, cmp_verdict_name(p->time.verdict),
            cmp_verdict_name(p->eff.verdict),
            p->gated_slower ? "  <- slower" : "");
}

/* The table of matched rows, with their geometric means and a legend. */
static void text_table(const compare_view *v, FILE *f)
{
    const cmp_result *r = v->res;
    fprintf(f,
            "\n%-18s %-11s %-5s %-16s %3s %10s %10s %7s %-16s %8s %7s %7s "
            "%7s %-10s %-10s\n",
            "kernel", "form", "dtype", "shape", "thr", "base med s",
            "cur med s", "ratio", "HL 95% CI", "p", "roof%b", "roof%c",
            "eff", "time", "vs roof");
    for (size_t i = 0; i < r->npairs; i++)
        text_pair(&r->pairs[i], f);
    char gt[16], ge[16];
    fmt_ratio(r->geo_time, gt, sizeof(gt));
    fmt_ratio(r->geo_eff, ge, sizeof(ge));
    fprintf(f, "%-18s %-11s %-5s %-16s %3s %10s %10s %7s %-16s %8s %7s %7s "
               "%7s\n",
            "geometric mean", "", "", "", "", "", "", gt, "", "", "", "", ge);
    fprintf(f, "\nratio: current / baseline median time (above 1: slower); "
               "HL: Hodges-Lehmann ratio's interval (Mann-Whitney U on log "
               "time); roof%%: median rate as a fraction of that run's own "
               "roofline bound; eff: the same ratio on time against the "
               "roof\n");
}

/* The rows of one side only, the summary, the rows that could not be
 * judged and those that gate the exit as slower. */
static void text_foot(const compare_view *v, FILE *f)
{
    const cmp_result *r = v->res;
    list_only("only in the baseline", r->only_base, r->nonly_base, f, "  ");
    list_only("only in current", r->only_cur, r->nonly_cur, f, "  ");
    summary_line(v, f);
    if (r->unreliable)
        fprintf(f, "%zu row%s could not be judged: take more --samples or "
                   "runs a side (5 a side reach p = 0.008, 3 only 0.1%s)\n",
                r->unreliable, rb_plural((long long)r->unreliable),
                v->set->holm ? "; with --holm each row must be able to reach "
                               "alpha / rows"
                             : "");
    for (size_t i = 0; i < r->npairs; i++) {
        const cmp_pair *p = &r->pairs[i];
        if (!p->gated_slower)
            continue;
        const cmp_stat *s = p->gated_by_time ? &p->time : &p->eff;
        char ci[48];
        fmt_ci(s, ci, sizeof(ci));
        fprintf(f, "slower: %s, x%.3f %s, p = %.2g%s\n", p->base->key,
                s->ratio, ci, s->p,
                v->set->by_efficiency && p->gated_by_time
                    ? " (time: no roof on a side)"
                    : "");
    }
}

void report_compare_text(const compare_view *v, FILE *f)
{
    text_head(v, f);
    text_table(v, f);
    text_foot(v, f);
    fprintf(f, "verdict: %s (exit %d)\n",
            v->status ? "regressed" : "nothing regressed", v->status);
}

void report_compare_markdown(const compare_view *v, FILE *f)
{
    const cmp_result *r = v->res;
    fprintf(f, "### roofbench compare: %s\n\n",
            v->status ? "**regressed**" : "nothing regressed");
    if (v->host_diff[0])
        fprintf(f, "Hosts differ (compared anyway): %s\n\n", v->host_diff);
    fprintf(f,
            "Gate: %s; slower means p < %g, the %g%% interval above 1 and "
            "the ratio above %.3f (1 + threshold, or the run-to-run noise "
            "floor when higher).\n\n",
            gated_name(v), v->set->alpha, 100.0 * (1.0 - v->set->alpha),
            gated_floor(v));
    fprintf(f, "| kernel | form | dtype | shape | threads | ratio | 95%% CI | "
               "p | roof%% base | roof%% current | verdict |\n"
               "|---|---|---|---|---:|---:|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < r->npairs; i++) {
        const cmp_pair *p = &r->pairs[i];
        const cmp_stat *s = p->gated_by_time ? &p->time : &p->eff;
        char shape[64], ratio[16], ci[48], pv[16], fb[16], fc[16];
        fmt_shape(p->base, shape, sizeof(shape));
        fmt_ratio(s->ratio, ratio, sizeof(ratio));
        fmt_ci(s, ci, sizeof(ci));
        fmt_p(s->p, pv, sizeof(pv));
        fmt_pct(p->frac_base, fb, sizeof(fb));
        fmt_pct(p->frac_cur, fc, sizeof(fc));
        fprintf(f,
                "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s%s%s "
                "|\n",
                p->base->kernel, p->base->form, p->base->dtype, shape,
                p->base->threads,
                ratio, ci, pv, fb, fc, p->gated_slower ? "**" : "",
                cmp_verdict_name(s->verdict), p->gated_slower ? "**" : "");
    }
    char gt[16], ge[16];
    fmt_ratio(r->geo_time, gt, sizeof(gt));
    fmt_ratio(r->geo_eff, ge, sizeof(ge));
    fprintf(f, "\nGeometric mean of the ratios: time %s, against the roof %s.\n",
            gt, ge);
    fprintf(f, "\n");
    list_only("Only in the baseline", r->only_base, r->nonly_base, f, "- ");
    list_only("Only in current", r->only_cur, r->nonly_cur, f, "- ");
    summary_line(v, f);
}

static json_t *stat_json(jdoc *d, const cmp_stat *s)
{
    json_t *ci = json_array();
    jd_push(d, ci, "interval", jd_num(s->lo));
    jd_push(d, ci, "interval", jd_num(s->hi));
    return jd_pack(d, "{s:o, s:o, s:o, s:o, s:o, s:b, s:s}", "ratio",
                   jd_num(s->ratio), "hodges_lehmann_ratio",
                   jd_num(s->hl_ratio), "interval", ci, "p", jd_num(s->p),
                   "p_min", jd_num(s->p_min), "exact", s->exact, "verdict",
                   cmp_verdict_name(s->verdict));
}

static json_t *key_json(jdoc *d, const cmp_row *r)
{
    return jd_pack(d, "{s:s, s:s, s:s, s:{s:I, s:I, s:I}, s:i}", "kernel",
                   r->kernel, "form", r->form, "dtype", r->dtype, "shape", "n",
                   (json_int_t)r->shape.n, "p", (json_int_t)r->shape.p, "m",
                   (json_int_t)r->shape.m, "threads", r->threads);
}

char *report_compare_json(const compare_view *v, rb_err *e)
{
    jdoc d = {0};
    const cmp_result *r = v->res;
    json_t *rows = json_array(), *ob = json_array(), *oc = json_array();
    for (size_t i = 0; i < r->npairs; i++) {
        const cmp_pair *p = &r->pairs[i];
        json_t *o = key_json(&d, p->base);
        jd_set(&d, o, "baseline",
               jd_pack(&d, "{s:I, s:o, s:o}", "samples",
                       (json_int_t)p->base->nsamples, "median_s",
                       jd_num(stats_median(p->base->samples,
                                           p->base->nsamples)),
                       "fraction_of_roof", jd_num(p->frac_base)));
        jd_set(&d, o, "current",
               jd_pack(&d, "{s:I, s:o, s:o}", "samples",
                       (json_int_t)p->cur->nsamples, "median_s",
                       jd_num(stats_median(p->cur->samples, p->cur->nsamples)),
                       "fraction_of_roof", jd_num(p->frac_cur)));
        jd_set(&d, o, "time", stat_json(&d, &p->time));
        jd_set(&d, o, "efficiency", stat_json(&d, &p->eff));
        jd_set(&d, o, "regressed", json_boolean(p->gated_slower));
        jd_push(&d, rows, "rows", o);
    }
    for (size_t i = 0; i < r->nonly_base; i++)
        jd_push(&d, ob, "only_in_baseline", key_json(&d, r->only_base[i]));
    for (size_t i = 0; i < r->nonly_cur; i++)
        jd_push(&d, oc, "only_in_current", key_json(&d, r->only_cur[i]));
    json_t *root = jd_pack(
        &d,
        "{s:s, s:i, s:o, s:o, s:{s:f, s:f, s:f, s:f, s:b, s:s, s:b}, s:o, s:o, "
        "s:o, "
        "s:o, s:{s:o, s:o}, s:{s:o, s:o, s:o, s:o}, s:{s:I, s:I, s:I, s:I, "
        "s:I}, s:s, s:i}",
        "schema", "roofbench.compare", "schema_version",
        COMPARE_SCHEMA_VERSION, "baseline", jd_str(v->base->path), "current",
        jd_str(v->cur->path), "settings", "alpha", v->set->alpha, "threshold",
        v->set->threshold, "noise_z", v->set->noise_z, "noise_cap",
        v->set->noise_cap, "holm", v->set->holm, "by",
        v->set->by_efficiency ? "efficiency" : "time",
        "allow_missing", v->allow_missing, "host_differences",
        v->host_diff[0] ? jd_str(v->host_diff) : json_null(), "rows", rows,
        "only_in_baseline", ob, "only_in_current", oc, "geometric_mean",
        "time_ratio", jd_num(r->geo_time), "efficiency_ratio",
        jd_num(r->geo_eff), "noise", "time_spread", jd_num(r->spread_time),
        "time_floor", jd_num(r->floor_time), "efficiency_spread",
        jd_num(r->spread_eff), "efficiency_floor", jd_num(r->floor_eff),
        "counts", "slower", (json_int_t)r->slower,
        "faster", (json_int_t)r->faster, "unchanged", (json_int_t)r->unchanged,
        "unreliable", (json_int_t)r->unreliable, "no_roof",
        (json_int_t)r->no_roof, "verdict",
        v->status ? "regressed" : "nothing regressed", "exit_status",
        v->status);
    return jd_text(&d, root, "the compare document", 10, e);
}
