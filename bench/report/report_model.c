#include "report_model.h"

#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"

/* -1 for "never" in the JSON (JSON has no infinity). */
static double finite_or(double x)
{
    return isinf(x) ? -1.0 : x;
}

/* ---- JSON ------------------------------------------------------------------
 */

static json_t *eval_json(jdoc *d, const study_target *t, const model_eval *ev)
{
    json_t *o = jd_pack(
        d, "{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o}", "profile",
        t->p->id, "dtype", pdtype_name(t->dt), "flops_per_chip",
        jd_num(ev->flops), "bytes_per_chip", jd_num(ev->bytes), "intensity",
        jd_num(ev->intensity), "t_math_s", jd_num(ev->t_math), "t_mem_s",
        jd_num(ev->t_mem), "t_s", jd_num(ev->t), "bound",
        model_bind_name(ev->bind), "attainable_flops", jd_num(ev->attainable));
    if (t->link) {
        jd_set(d, o, "comm_bytes_per_chip", jd_num(ev->comm_bytes));
        jd_set(d, o, "t_comms_s", jd_num(ev->t_comms));
    }
    return o;
}

static json_t *target_json(jdoc *d, const study_target *t)
{
    json_t *o = jd_pack(
        d, "{s:s, s:o, s:s, s:o, s:o, s:o, s:i}", "profile", t->p->id, "name",
        jd_str(t->p->name), "dtype", pdtype_name(t->dt), "peak_flops",
        jd_num(t->t.peak), "mem_bw", jd_num(t->t.mem_bw), "ridge",
        jd_num(t->t.peak / t->t.mem_bw), "elem_bytes", (int)t->t.elem);
    if (t->link)
        jd_set(d, o, "link",
               jd_pack(d, "{s:s, s:o, s:o, s:o, s:o}", "name", t->link->name,
                       "bandwidth_one_way", jd_num(t->link->bandwidth),
                       "peer_links", jd_num(t->link->peer_links), "used_bw",
                       jd_num(t->t.link_bw), "network_ridge",
                       jd_num(t->t.peak / t->t.link_bw)));
    return o;
}

static json_t *spec_json(jdoc *d, const study *s, const study_spec *sp)
{
    json_t *sizes = json_object(), *dims = json_array(), *reuse = json_array(),
           *evs = json_array();
    for (int i = 0; i < sp->es.ndims; i++) {
        const char l[2] = {sp->es.dims[i], '\0'};
        const uint64_t v = sp->ds.size[einsum_index(l[0])];
        jd_set(d, sizes, l, json_integer((json_int_t)v));
        jd_push(d, dims, "dimensions",
                jd_pack(d, "{s:s, s:s, s:I}", "letter", l, "kind",
                        dim_kind_name(einsum_kind(&sp->es, l[0])), "size",
                        (json_int_t)v));
    }
    for (int o = 0; o < 2; o++)
        jd_push(d, reuse, "reuse", json_string(sp->reuse[o]));
    for (int i = 0; i < s->ntg; i++)
        jd_push(d, evs, "evaluations", eval_json(d, &s->tg[i], &sp->ev[i]));
    json_t *js =
        jd_pack(d, "{s:s, s:o, s:o, s:o, s:o}", "spec", sp->es.text, "sizes",
                sizes, "dimensions", dims, "reuse", reuse, "evaluations", evs);
    if (s->file)
        jd_set(d, js, "line", json_integer(sp->line));
    if (s->shard_dim >= 0 && !s->file) {
        json_t *th = json_array();
        for (int i = 0; i < s->ntg; i++)
            jd_push(d, th, "shard_thresholds",
                    jd_pack(d, "{s:s, s:s, s:o, s:o, s:o}", "profile",
                            s->tg[i].p->id, "dtype", pdtype_name(s->tg[i].dt),
                            "network", jd_num(finite_or(sp->shard[i].comms)),
                            "memory", jd_num(finite_or(sp->shard[i].mem)),
                            "both", jd_num(finite_or(sp->shard[i].both))));
        jd_set(d, js, "shard_thresholds", th);
        const char l[2] = {einsum_letter(s->shard_dim), '\0'};
        jd_set(d, js, "shard",
               jd_pack(d, "{s:s, s:I}", "dimension", l, "chips",
                       (json_int_t)s->shard_n));
    }
    return js;
}

static json_t *total_json(jdoc *d, const study *s)
{
    json_t *jtot = json_array();
    for (int i = 0; i < s->ntg; i++) {
        const study_total *t = &s->total[i];
        const double att = t->t > 0.0 ? t->flops / t->t : 0.0;
        jd_push(d, jtot, "total",
                jd_pack(d, "{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i}",
                        "profile", s->tg[i].p->id, "dtype",
                        pdtype_name(s->tg[i].dt), "flops", jd_num(t->flops),
                        "bytes", jd_num(t->bytes), "comm_bytes",
                        jd_num(t->comm), "t_s", jd_num(t->t),
                        "attainable_flops", jd_num(att), "math_bound",
                        t->bind[BIND_MATH], "memory_bound", t->bind[BIND_MEM],
                        "network_bound", t->bind[BIND_COMMS]));
    }
    return jtot;
}

static json_t *sweep_json(jdoc *d, const study *s)
{
    json_t *points = json_array(), *ths = json_array();
    for (int k = 0; k < s->nx; k++) {
        json_t *evs = json_array();
        for (int i = 0; i < s->ntg; i++)
            jd_push(d, evs, "evaluations",
                    eval_json(d, &s->tg[i], &s->sweep[k][i]));
        jd_push(d, points, "points",
                jd_pack(d, "{s:I, s:o}", "size", (json_int_t)s->xs[k],
                        "evaluations", evs));
    }
    for (int i = 0; i < s->ntg; i++) {
        const study_threshold *th = &s->sweep_th[i];
        jd_push(d, ths, "thresholds",
                jd_pack(d, "{s:s, s:s, s:o, s:o, s:o, s:o}", "profile",
                        s->tg[i].p->id, "dtype", pdtype_name(s->tg[i].dt),
                        "compute_bound_from", jd_num(finite_or(th->both)),
                        "fixed_bytes_approximation",
                        jd_num(finite_or(th->fixed_bytes)), "ridge",
                        jd_num(th->ridge), "intensity_limit",
                        jd_num(finite_or(th->limit))));
    }
    const char l[2] = {einsum_letter(s->sweep_dim), '\0'};
    return jd_pack(d, "{s:s, s:o, s:o}", "dimension", l, "points", points,
                   "thresholds", ths);
}

char *report_model_json(const study *s, rb_err *e)
{
    jdoc d = {0};
    json_t *targets = json_array(), *specs = json_array();
    for (int i = 0; i < s->ntg; i++)
        jd_push(&d, targets, "targets", target_json(&d, &s->tg[i]));
    for (int k = 0; k < s->nspecs; k++)
        jd_push(&d, specs, "specs", spec_json(&d, s, &s->specs[k]));
    json_t *doc =
        jd_pack(&d, "{s:s, s:i, s:o, s:o}", "schema", "roofbench.model",
                "schema_version", 1, "targets", targets, "specs", specs);
    if (s->file)
        jd_set(&d, doc, "total", total_json(&d, s));
    if (s->sweep_dim >= 0)
        jd_set(&d, doc, "sweep", sweep_json(&d, s));
    return jd_text(&d, doc, "the model document", 10, e);
}

/* ---- text ------------------------------------------------------------------
 */

static void fmt_time(double s, char *buf, size_t len)
{
    if (!(s > 0.0))
        snprintf(buf, len, "-");
    else if (s < 1e-6)
        snprintf(buf, len, "%.3g ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, len, "%.4g us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else
        snprintf(buf, len, "%.4g s", s);
}

/* "when d >= 8755.56", "at any d" or "never" */
static void fmt_from(char dim, double x, char *buf, size_t len)
{
    if (isinf(x))
        snprintf(buf, len, "never");
    else if (x <= 0.0)
        snprintf(buf, len, "at any %c", dim);
    else
        snprintf(buf, len, "when %c >= %.6g", dim, x);
}

/* The counts per element size in use. */
static void counts_text(const study *s, const study_spec *sp, FILE *f)
{
    int shown[PD_N] = {0};
    for (int i = 0; i < s->ntg; i++) {
        const pdtype d = s->tg[i].dt;
        const unsigned sz = pdtype_size(d);
        int dup = 0;
        for (int q = 0; q < PD_N; q++)
            dup |= shown[q] && pdtype_size((pdtype)q) == sz;
        if (dup)
            continue;
        shown[d] = 1;
        const model_counts *mc = &sp->c[d];
        fprintf(f,
                "  %u-byte elements (%s): FLOPs %llu, bytes %llu (operands "
                "%llu + %llu, output %llu elements), intensity %.4g FLOP/B\n",
                sz, pdtype_name(d), (unsigned long long)mc->flops,
                (unsigned long long)mc->bytes, (unsigned long long)mc->elems[0],
                (unsigned long long)mc->elems[1],
                (unsigned long long)mc->elems[2],
                (double)mc->flops / (double)mc->bytes);
    }
}

static void spec_text(const study *s, const study_spec *sp, FILE *f)
{
    fprintf(f, "%s:", sp->es.text);
    for (int i = 0; i < sp->es.ndims; i++)
        fprintf(f, " %c=%llu", sp->es.dims[i],
                (unsigned long long)sp->ds.size[einsum_index(sp->es.dims[i])]);
    fprintf(f, "\n  dimensions:");
    for (int i = 0; i < sp->es.ndims; i++)
        fprintf(f, " %c %s%s", sp->es.dims[i],
                dim_kind_name(einsum_kind(&sp->es, sp->es.dims[i])),
                i + 1 < sp->es.ndims ? "," : "\n");
    fprintf(f, "  reuse: operand %s; operand %s\n", sp->reuse[0], sp->reuse[1]);
    counts_text(s, sp, f);
    if (s->shard_dim >= 0)
        fprintf(f,
                "  sharded: %c over %llu chips, partial sums all-reduced "
                "over a ring (per chip below)\n",
                einsum_letter(s->shard_dim), (unsigned long long)s->shard_n);
    fprintf(f, "\n%-20s %10s %10s %8s %9s %11s %11s %11s %-8s %11s %6s\n",
            "profile/dtype", "peak", "mem B/s", "ridge", "intensity", "T_math",
            "T_mem", "T_comms", "bound", "attainable", "%peak");
    for (int i = 0; i < s->ntg; i++) {
        const study_target *t = &s->tg[i];
        const model_eval *ev = &sp->ev[i];
        char a[32], b[32], c[32];
        fmt_time(ev->t_math, a, sizeof(a));
        fmt_time(ev->t_mem, b, sizeof(b));
        fmt_time(ev->t_comms, c, sizeof(c));
        fprintf(f,
                "%-20s %10.4g %10.4g %8.1f %9.4g %11s %11s %11s %-8s %11.4g "
                "%5.1f%%\n",
                t->label, t->t.peak, t->t.mem_bw, t->t.peak / t->t.mem_bw,
                ev->intensity, a, b, c, model_bind_name(ev->bind),
                ev->attainable, 100.0 * ev->attainable / t->t.peak);
    }
    for (int i = 0; s->shard_dim >= 0 && i < s->ntg; i++) {
        const study_target *t = &s->tg[i];
        char a[48], b[48];
        fmt_from(einsum_letter(s->shard_dim), sp->shard[i].comms, a, sizeof(a));
        fmt_from(einsum_letter(s->shard_dim), sp->shard[i].mem, b, sizeof(b));
        fprintf(f,
                "  %s over %s (%.4g B/s one way x %g link%s): compute-bound "
                "against the link %s, against memory %s\n",
                t->label, t->link->name, t->link->bandwidth,
                t->link->peer_links, t->link->peer_links > 1 ? "s" : "", a, b);
    }
}

/* A file: one line per spec per target, then the total. */
static void file_text(const study *s, FILE *f)
{
    char shown[1024];
    text_escape(s->file, shown, sizeof(shown));
    fprintf(f, "%s: %d spec%s\n", shown, s->nspecs, s->nspecs == 1 ? "" : "s");
    fprintf(f, "%5s %-22s %-20s %10s %10s %9s %11s %-8s\n", "line", "spec",
            "profile/dtype", "FLOPs", "bytes", "intensity", "time", "bound");
    for (int k = 0; k < s->nspecs; k++)
        for (int i = 0; i < s->ntg; i++) {
            const model_eval *ev = &s->specs[k].ev[i];
            char a[32];
            fmt_time(ev->t, a, sizeof(a));
            fprintf(f, "%5d %-22s %-20s %10.4g %10.4g %9.4g %11s %-8s\n",
                    s->specs[k].line, i ? "" : s->specs[k].es.text,
                    s->tg[i].label, ev->flops, ev->bytes, ev->intensity, a,
                    model_bind_name(ev->bind));
        }
    fprintf(f, "\ntotal (per chip%s):\n", s->shard_dim >= 0 ? ", sharded" : "");
    for (int i = 0; i < s->ntg; i++) {
        const study_total *t = &s->total[i];
        const double att = t->t > 0.0 ? t->flops / t->t : 0.0;
        char a[32];
        fmt_time(t->t, a, sizeof(a));
        fprintf(f,
                "  %-20s FLOPs %.4g, bytes %.4g, time %s (the sum of each "
                "spec's bound), attainable %.4g FLOP/s = %.1f%% of peak; %d "
                "math-, %d memory-, %d network-bound\n",
                s->tg[i].label, t->flops, t->bytes, a, att,
                100.0 * att / s->tg[i].t.peak, t->bind[BIND_MATH],
                t->bind[BIND_MEM], t->bind[BIND_COMMS]);
    }
}

static void sweep_text(const study *s, FILE *f)
{
    const char l = einsum_letter(s->sweep_dim);
    fprintf(f,
            "\nsweep of %c: attainable FLOP/s per chip and the binding "
            "roof\n%12c",
            l, l);
    for (int i = 0; i < s->ntg; i++)
        fprintf(f, "  %-21s", s->tg[i].label);
    fprintf(f, "\n");
    for (int k = 0; k < s->nx; k++) {
        fprintf(f, "%12llu", (unsigned long long)s->xs[k]);
        for (int i = 0; i < s->ntg; i++)
            fprintf(f, "  %10.4g %-10s", s->sweep[k][i].attainable,
                    model_bind_name(s->sweep[k][i].bind));
        fprintf(f, "\n");
    }
    for (int i = 0; i < s->ntg; i++) {
        const study_threshold *th = &s->sweep_th[i];
        if (isinf(th->both))
            fprintf(f,
                    "  %-20s never compute-bound: as %c grows the intensity "
                    "tends to %.4g FLOP/B, below the ridge %.4g\n",
                    s->tg[i].label, l, th->limit, th->ridge);
        else
            fprintf(f,
                    "  %-20s compute-bound from %c >= %.6g (ridge %.4g "
                    "FLOP/B; counting only the bytes that do not grow with "
                    "%c: %c >= %.6g)%s\n",
                    s->tg[i].label, l, th->both, th->ridge, l, l,
                    th->fixed_bytes,
                    th->comms > th->mem ? "; the link binds longest" : "");
    }
}

void report_model_text(const study *s, FILE *f)
{
    if (s->file)
        file_text(s, f);
    else
        spec_text(s, &s->specs[0], f);
    if (s->sweep_dim >= 0)
        sweep_text(s, f);
}
