#include "study.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a profile has, as "fp32, fp64" or "ici, pcie". */
static void peaks_of(const profile *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int q = 0; q < PD_N; q++)
        if (p->peak[q] > 0.0)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
                     *buf ? ", " : "", pdtype_name((pdtype)q));
}

static void links_of(const profile *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int q = 0; q < p->nlinks; q++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", q ? ", " : "",
                 p->link[q].name);
}

static int add_target(study *s, const profile *p, pdtype dt, const char *link,
                      rb_err *e)
{
    study_target *t = &s->tg[s->ntg];
    memset(t, 0, sizeof(*t));
    t->p = p;
    t->dt = dt;
    char have[128];
    if (p->peak[dt] <= 0.0) {
        peaks_of(p, have, sizeof(have));
        return rb_fail(e, RB_EINPUT,
                       "--dtype %s: profile %s has no %s peak (it has %s)",
                       pdtype_name(dt), p->id, pdtype_name(dt), have);
    }
    t->t.peak = p->peak[dt];
    t->t.mem_bw = p->mem_bw;
    t->t.elem = pdtype_size(dt);
    t->t.shard_dim = s->shard_dim;
    t->t.shard_n = (unsigned)s->shard_n;
    if (s->shard_dim >= 0) {
        if (p->nlinks == 0)
            return rb_fail(e, RB_EINPUT, "--shard: profile %s has no links",
                           p->id);
        t->link = link ? profile_find_link(p, link) : &p->link[0];
        if (!t->link) {
            links_of(p, have, sizeof(have));
            return rb_fail(e, RB_EINPUT,
                           "--link %s: profile %s has no such link (it has "
                           "%s)",
                           link, p->id, have);
        }
        t->t.link_bw = t->link->bandwidth * t->link->peer_links;
    }
    snprintf(t->label, sizeof(t->label), "%s/%s", p->id, pdtype_name(dt));
    s->ntg++;
    return RB_OK;
}

int study_targets(study *s, const profile *profs, int nprofs, const pdtype *dts,
                  int ndts, const char *link, rb_err *e)
{
    s->ntg = 0;
    for (int p = 0; p < nprofs; p++)
        for (int d = 0; d < (ndts ? ndts : 1); d++) {
            const int rc = add_target(
                s, &profs[p], ndts ? dts[d] : profs[p].headline, link, e);
            if (rc)
                return rc;
        }
    return RB_OK;
}

/* Exact counts per element size in use, and for a sweep its largest
 * point too: an overflow is an error before anything is printed. */
static int count(study *s, rb_err *e)
{
    for (int k = 0; k < s->nspecs; k++)
        for (int i = 0; i < s->ntg; i++) {
            study_spec *sp = &s->specs[k];
            if (model_count(&sp->es, &sp->ds, s->tg[i].t.elem,
                            &sp->c[s->tg[i].dt], e) == RB_OK)
                continue;
            if (s->file) {
                char msg[sizeof(e->msg)];
                snprintf(msg, sizeof(msg), "%.100s:%d: %.900s", s->file,
                         sp->line, e->msg);
                memcpy(e->msg, msg, sizeof(msg));
            }
            return RB_EINPUT;
        }
    if (s->sweep_dim >= 0) {
        dim_sizes hi = s->specs[0].ds;
        hi.size[s->sweep_dim] = s->sweep_b;
        model_counts tmp;
        for (int i = 0; i < s->ntg; i++)
            if (model_count(&s->specs[0].es, &hi, s->tg[i].t.elem, &tmp, e))
                return RB_EINPUT;
    }
    return RB_OK;
}

static void evaluate(study *s)
{
    for (int k = 0; k < s->nspecs; k++) {
        study_spec *sp = &s->specs[k];
        for (int o = 0; o < 2; o++)
            einsum_reuse_text(&sp->es, &sp->ds, o, sp->reuse[o],
                              sizeof(sp->reuse[o]));
        for (int i = 0; i < s->ntg; i++) {
            const model_target *t = &s->tg[i].t;
            model_eval *ev = &sp->ev[i];
            model_evaluate(&sp->es, &sp->ds, t, ev);
            study_total *tot = &s->total[i];
            tot->flops += ev->flops;
            tot->bytes += ev->bytes;
            tot->comm += ev->comm_bytes;
            tot->t += ev->t;
            tot->bind[ev->bind]++;
            if (s->shard_dim >= 0) {
                study_threshold *th = &sp->shard[i];
                th->both = model_threshold(&sp->es, &sp->ds, t, s->shard_dim,
                                           &th->mem, &th->comms);
            }
        }
    }
}

/* The sweep: sizes from sweep_a doubling to sweep_b (and sweep_b itself),
 * each evaluated on every target, and each target's crossings. */
static void sweep(study *s)
{
    const study_spec *sp = &s->specs[0];
    s->nx = 0;
    for (uint64_t x = s->sweep_a;
         x <= s->sweep_b && s->nx < STUDY_MAX_SWEEP - 1; x *= 2) {
        s->xs[s->nx++] = x;
        if (x > UINT64_MAX / 2)
            break;
    }
    if (s->xs[s->nx - 1] != s->sweep_b)
        s->xs[s->nx++] = s->sweep_b;
    for (int k = 0; k < s->nx; k++) {
        dim_sizes ds = sp->ds;
        ds.size[s->sweep_dim] = s->xs[k];
        for (int i = 0; i < s->ntg; i++)
            model_evaluate(&sp->es, &ds, &s->tg[i].t, &s->sweep[k][i]);
    }
    for (int i = 0; i < s->ntg; i++) {
        const model_target *t = &s->tg[i].t;
        study_threshold *th = &s->sweep_th[i];
        th->both = model_threshold(&sp->es, &sp->ds, t, s->sweep_dim, &th->mem,
                                   &th->comms);
        th->limit = model_intensity_limit(&sp->es, &sp->ds, t, s->sweep_dim);
        th->ridge = t->peak / t->mem_bw;
        th->fixed_bytes =
            model_threshold_fixed_bytes(&sp->es, &sp->ds, t, s->sweep_dim);
    }
}

int study_run(study *s, rb_err *e)
{
    memset(s->total, 0, sizeof(s->total));
    const int rc = count(s, e);
    if (rc)
        return rc;
    evaluate(s);
    if (s->sweep_dim >= 0)
        sweep(s);
    return RB_OK;
}
