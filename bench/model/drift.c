#include "drift.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int drift_moved(double before, double after, double noise, double *change)
{
    if (!(before > 0.0) || !(after > 0.0)) {
        *change = NAN;
        return 0;
    }
    *change = after / before - 1.0;
    return fabs(*change) > noise;
}

int drift_clock_moved(double before, double spread_before, double after,
                      double spread_after, double *change, double *noise)
{
    *noise = fmax(DRIFT_CLOCK_NOISE, fmax(spread_before, spread_after));
    return drift_moved(before, after, *noise, change);
}

/* The probe of (threads, mix, level) once it is planned, or NULL. */
static const drift_probe *find(const drift_probes *ps, int threads,
                               rb_access mix, const char *level)
{
    for (int i = 0; i < ps->nprobes; i++)
        if (ps->probes[i].threads == threads && ps->probes[i].mix == mix &&
            strcmp(ps->probes[i].level, level) == 0)
            return &ps->probes[i];
    return NULL;
}

void drift_plan(const roofline *r, const int *threads, int nthreads,
                unsigned mixes, drift_probes *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t t = 0; t < r->nteams; t++) {
        const roof_team *team = &r->teams[t];
        int wanted = 0;
        for (int k = 0; k < nthreads; k++)
            wanted |= threads[k] == team->threads;
        if (!wanted)
            continue;
        for (int m = 0; m < RB_NACCESS; m++) {
            if (!(mixes >> m & 1u) || !team->bw[m].present)
                continue;
            const roof_bw *b = &team->bw[m];
            for (size_t l = 0; l < b->nlevels; l++) {
                const roof_level *lv = &b->levels[l];
                if (out->nprobes == DRIFT_MAX_PROBES)
                    return;
                drift_probe *p = &out->probes[out->nprobes];
                memset(p, 0, sizeof(*p));
                p->threads = team->threads;
                p->mix = (rb_access)m;
                snprintf(p->level, sizeof(p->level), "%s", lv->name);
                snprintf(p->kernel, sizeof(p->kernel), "%s", lv->kernel);
                p->bytes = sqrt(lv->starts_bytes * lv->ends_bytes);
                p->roof_gbs = lv->gbs;
                p->roof_spread = lv->spread;
                /* the same level, kernel and figure in the read roof: one
                 * probe (where the figures differ, as the mixed roof's
                 * plateaus can on their own envelope, each its own, so
                 * that each figure is checked) */
                const drift_probe *same =
                    m ? find(out, team->threads, RB_ACCESS_READ, lv->name)
                      : NULL;
                if (same && strcmp(same->kernel, lv->kernel) == 0 &&
                    same->roof_gbs == lv->gbs &&
                    same->roof_spread == lv->spread)
                    continue;
                out->nprobes++;
            }
        }
    }
}

int drift_probe_moved(const drift_probe *p, double *change, double *noise)
{
    *noise = fmax(DRIFT_BW_NOISE, fmax(p->spread[0], p->spread[1]));
    if (!p->have[0] || !p->have[1]) {
        *change = NAN;
        return 0;
    }
    return drift_moved(p->gbs[0], p->gbs[1], *noise, change);
}

/* The probe of one level name: the mix's own, else the read roof's
 * (where the mixed level was the read roof's and not probed twice). */
static const drift_probe *one(const drift_probes *ps, int threads,
                              rb_access mix, const char *level)
{
    const drift_probe *p = find(ps, threads, mix, level);
    return p ? p : find(ps, threads, RB_ACCESS_READ, level);
}

const drift_probe *drift_probe_for(const drift_probes *ps, int threads,
                                   rb_access mix, const char *level)
{
    const char *gt = strchr(level, '>');
    if (!gt)
        return one(ps, threads, mix, level);
    char lo[16];
    snprintf(lo, sizeof(lo), "%.*s", (int)(gt - level), level);
    const drift_probe *a = one(ps, threads, mix, lo),
                      *b = one(ps, threads, mix, gt + 1);
    if (!a || !b)
        return a ? a : b;
    double ca, cb, na, nb;
    drift_probe_moved(a, &ca, &na);
    drift_probe_moved(b, &cb, &nb);
    return fabs(cb) > fabs(ca) ? b : a; /* NAN compares false: a */
}

int drift_probe_off_roof(const drift_probe *p, double *ratio, double *noise)
{
    *noise = fmax(DRIFT_ROOF_NOISE,
                  fmax(p->roof_spread, fmax(p->spread[0], p->spread[1])));
    /* the better end: a roof is the most the machine delivers, so one end
     * above the figure shows it low, and both ends below it, high */
    const double best = fmax(p->have[0] ? p->gbs[0] : 0.0,
                             p->have[1] ? p->gbs[1] : 0.0);
    if (!(best > 0.0) || !(p->roof_gbs > 0.0)) {
        *ratio = NAN;
        return 0;
    }
    *ratio = best / p->roof_gbs;
    return fabs(*ratio - 1.0) > *noise;
}
