#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "parse.h"

const double sweep_knee_frac[SWEEP_KNEES] = {0.5, 0.9};

/* ---- the grid -------------------------------------------------------------- */

static int push(const char *flag, const char *s, uint64_t *out, size_t *n,
                uint64_t b, rb_err *e)
{
    if (*n > 0 && out[*n - 1] == b)
        return RB_OK;
    if (*n == SWEEP_MAX_POINTS)
        return rb_fail(e, RB_EINPUT, "%s '%s': more than %d batch sizes", flag,
                       s, SWEEP_MAX_POINTS);
    out[(*n)++] = b;
    return RB_OK;
}

static int grid_list(const char *flag, const char *s, uint64_t *out,
                     size_t *n, rb_err *e)
{
    char buf[1024], *items[SWEEP_MAX_POINTS + 1];
    const int k = parse_list(flag, s, buf, sizeof(buf), items,
                             SWEEP_MAX_POINTS + 1, e);
    if (k < 0)
        return RB_EINPUT;
    if (k > SWEEP_MAX_POINTS)
        return rb_fail(e, RB_EINPUT, "%s '%s': more than %d batch sizes", flag,
                       s, SWEEP_MAX_POINTS);
    for (int i = 0; i < k; i++) {
        uint64_t b;
        if (parse_count(flag, items[i], 1, UINT32_MAX, &b, e))
            return RB_EINPUT;
        if (*n > 0 && b <= out[*n - 1])
            return rb_fail(e, RB_EINPUT,
                           "%s '%s': %s after %llu: sizes must ascend", flag,
                           s, items[i], (unsigned long long)out[*n - 1]);
        out[(*n)++] = b;
    }
    return RB_OK;
}

/* The step of "LO:HI:STEP": 'x' and a real factor, or '+' and a count. */
static int grid_step(const char *flag, const char *s, const char *step,
                     int *geometric, double *factor, uint64_t *add, rb_err *e)
{
    *geometric = step[0] == 'x';
    if ((step[0] == 'x' || step[0] == '+') && step[1] == '\0')
        return rb_fail(e, RB_EINPUT, "%s '%s': step '%s' has no %s", flag, s,
                       step, step[0] == 'x' ? "factor" : "count");
    if (step[0] == 'x') {
        if (parse_real(flag, step + 1, 0.0, 1e6, NULL, factor, e))
            return RB_EINPUT;
        if (*factor <= 1.0)
            return rb_fail(e, RB_EINPUT,
                           "%s '%s': step x%s does not advance (the factor must "
                           "be above 1)",
                           flag, s, step + 1);
        return RB_OK;
    }
    if (step[0] == '+') {
        if (parse_count(flag, step + 1, 0, UINT32_MAX, add, e))
            return RB_EINPUT;
        if (*add == 0)
            return rb_fail(e, RB_EINPUT,
                           "%s '%s': step +0 does not advance", flag, s);
        return RB_OK;
    }
    return rb_fail(e, RB_EINPUT,
                   "%s '%s': step '%s' is neither xFACTOR nor +COUNT", flag, s,
                   step);
}

int sweep_grid_parse(const char *flag, const char *s, uint64_t *out, size_t *n,
                     rb_err *e)
{
    *n = 0;
    if (!s || !*s)
        return rb_fail(e, RB_EINPUT, "%s '': no batch size", flag);
    if (!strchr(s, ':'))
        return grid_list(flag, s, out, n, e);
    char range[128];
    const char *second = strchr(strchr(s, ':') + 1, ':');
    const size_t len = second ? (size_t)(second - s) : strlen(s);
    if (len >= sizeof(range))
        return rb_fail(e, RB_EINPUT, "%s: value too long", flag);
    memcpy(range, s, len);
    range[len] = '\0';
    if (range[0] == ':' || range[len - 1] == ':')
        return rb_fail(e, RB_EINPUT, "%s '%s': LO:HI needs both sizes", flag,
                       s);
    if (second && second[1] == '\0')
        return rb_fail(e, RB_EINPUT, "%s '%s': no step after the second ':'",
                       flag, s);
    uint64_t lo, hi;
    if (parse_range(flag, range, 1, UINT32_MAX, &lo, &hi, e))
        return RB_EINPUT;
    int geometric = 0;
    double factor = 0.0;
    uint64_t add = 0;
    if (second &&
        grid_step(flag, s, second + 1, &geometric, &factor, &add, e))
        return RB_EINPUT;
    if (!second) { /* 2^k and 3 x 2^(k-1): 1, 2, 3, 4, 6, 8, 12, ... */
        int rc = push(flag, s, out, n, lo, e);
        for (uint64_t p = 1; !rc && p < hi; p *= 2) {
            if (p > lo)
                rc = push(flag, s, out, n, p, e);
            const uint64_t mid = p + p / 2;
            if (!rc && p >= 2 && mid > lo && mid < hi)
                rc = push(flag, s, out, n, mid, e);
            if (p > hi / 2)
                break;
        }
        return rc ? rc : push(flag, s, out, n, hi, e);
    }
    int rc = RB_OK;
    for (uint64_t b = lo; !rc && b < hi;) {
        rc = push(flag, s, out, n, b, e);
        const double next = geometric ? ceil((double)b * factor)
                                      : (double)b + (double)add;
        /* a factor so close to 1 that the size stays: one more */
        b = next <= (double)b ? b + 1 : next > (double)hi ? hi : (uint64_t)next;
    }
    return rc ? rc : push(flag, s, out, n, hi, e); /* HI always ends it */
}

/* ---- the roof -------------------------------------------------------------- */

double sweep_intensity(double b, double p, double m, double el)
{
    return 2.0 * b * p * m / (el * (b * p + p * m + b * m));
}

double sweep_ridge_batch(uint64_t p, uint64_t m, unsigned el, double peak,
                         double bw)
{
    const double pm = (double)p * (double)m, s = (double)el;
    const double den = 2.0 * pm * bw - s * peak * ((double)p + (double)m);
    return den > 0.0 ? s * peak * pm / den : INFINITY;
}

/* ---- the knee -------------------------------------------------------------- */

int sweep_knee_find(const double *b, const double *g, size_t n,
                    sweep_knee *out)
{
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return -1;
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(g[i] > 0.0) || !(b[i] > 0.0))
            return -1;
        if (g[i] > g[top])
            top = i;
    }
    out->plateau = g[top];
    out->plateau_batch = b[top];
    out->plateau_at_end = n > 1 && top == n - 1;
    for (int k = 0; k < SWEEP_KNEES; k++) {
        const double want = sweep_knee_frac[k] * out->plateau;
        size_t i = 0;
        while (g[i] < want)
            i++; /* ends at top at the latest */
        if (i == 0) {
            out->knee[k] = b[0];
            out->at_first[k] = 1;
            continue;
        }
        const double t = (log(want) - log(g[i - 1])) / (log(g[i]) - log(g[i - 1]));
        out->knee[k] = exp(log(b[i - 1]) + t * (log(b[i]) - log(b[i - 1])));
    }
    return 0;
}

/* ---- the weights' level ---------------------------------------------------- */

const roof_team *sweep_team(const roofline *r, int threads)
{
    for (size_t i = 0; i < r->nteams; i++)
        if (r->teams[i].threads == threads)
            return &r->teams[i];
    return NULL;
}

/* Whether level name `have` is cache level k or a span "La-Lb" holding
 * it (a plateau that ran on through the next level, as stores do on some
 * cores and a noisy edge can make any curve do). */
static int level_holds(const char *have, unsigned k)
{
    unsigned a, b;
    char tail;
    if (sscanf(have, "L%u-L%u%c", &a, &b, &tail) == 2)
        return a <= k && k <= b;
    return sscanf(have, "L%u%c", &a, &tail) == 1 && a == k;
}

const roof_level *sweep_level(const roof_team *t, const char *name)
{
    const roof_bw *b = roof_team_read(t);
    const roof_level *exact = roof_bw_level(b, name);
    if (exact)
        return exact;
    unsigned k;
    char tail;
    if (sscanf(name, "L%u%c", &k, &tail) != 1)
        return NULL;
    for (size_t l = 0; l < b->nlevels; l++)
        if (level_holds(b->levels[l].name, k))
            return &b->levels[l];
    return NULL;
}

/* The side in multiples of unit (at least one) nearest sqrt(bytes / el),
 * or, with end > 0 (a cache), the largest such multiple whose square of
 * el-byte elements is no more than end when the nearest is more; with end
 * 0 (DRAM), the smallest whose square holds bytes. */
static uint64_t side_in(double bytes, unsigned el, uint64_t unit, double end)
{
    uint64_t s = (uint64_t)(sqrt(bytes / el) / (double)unit + 0.5) * unit;
    if (s < unit)
        s = unit;
    while (end <= 0.0 && (double)s * (double)s * el < bytes)
        s += unit;
    while (end > 0.0 && s > unit && (double)s * (double)s * el > end)
        s -= unit;
    return s;
}

/* A side whose rows of el bytes alias in the caches (rb_rows_alias: a
 * multiple of 2 KiB apart) moved by the least step that escapes: a unit,
 * keeping the team's even shares, or where every multiple of the unit
 * aliases (teams of a multiple of 8 threads) 64 elements, one strip more
 * or less for a member. For a cache (hi > 0) down while the weights stay
 * at or past the level's start (lo), else up while they stay within its
 * end (hi), else as it is; for DRAM (hi 0) up, past the floor. STREAM
 * offsets its arrays for the same reason. Measured on a Zen 5 guest,
 * matmul_blocked (f32, 1 thread, W from DRAM) with rows padded by 64
 * elements against the same product unpadded: P = M = 8192 1.40, 1.62
 * and 1.21 times as fast at B = 4, 8 and 16, 4096 1.60 to 1.86 at B = 4
 * and 8, f64 4096 1.55 at B = 8. The sweep is about the ridge, not about
 * that pathology; weights given with --p and --m are taken as given, and
 * every table whose rows alias says so. */
static uint64_t unaliased(uint64_t side, unsigned el, uint64_t unit,
                          double lo, double hi)
{
    if (!rb_rows_alias(side, el))
        return side;
    const uint64_t step = rb_rows_alias(unit, el) ? 64 : unit;
    if (hi <= 0.0)
        return side + step;
    const double below = (double)(side - step), above = (double)(side + step);
    if (side > step && below * below * el >= lo)
        return side - step;
    if (above * above * el <= hi)
        return side + step;
    return side;
}

/* Whole 256-byte column strips for every member of the team, so that a
 * team splits the columns evenly (matmul_blocked's skinny path shares
 * them out in strips of 256 bytes with AVX-512, 64 with AVX2: at 576 f32
 * columns on two threads, 4 and 5 strips of 256 bytes, the team at most
 * 0.9 times as fast as even shares allow): a multiple of 64 elements and
 * of 256 bytes per thread. */
static uint64_t team_unit(unsigned el, int threads)
{
    const uint64_t strips = 256u * (threads > 0 ? (uint64_t)threads : 1) / el;
    uint64_t unit = 64;
    while (unit % strips)
        unit += 64;
    return unit;
}

uint64_t sweep_contrast_side(uint64_t side, unsigned el, int threads,
                             double llc)
{
    if (!(llc > 0.0)) /* a matrix sized from nothing would sit in L1 */
        return side;
    const uint64_t unit = team_unit(el, threads),
                   s = unaliased(side_in(2.0 * llc, el, unit, 0.0), el, unit,
                                 2.0 * llc, 0.0);
    return s < side ? s : side;
}

double sweep_dram_bytes(const roof_level *lv)
{
    return lv->ends_bytes > lv->starts_bytes
               ? sqrt(lv->starts_bytes * lv->ends_bytes)
               : lv->starts_bytes;
}

double sweep_dram_floor(const roofline *r, const int *threads, int n)
{
    double most = 0.0;
    for (int i = 0; i < n; i++) {
        const roof_team *t = sweep_team(r, threads[i]);
        const roof_level *lv = t ? sweep_level(t, "DRAM") : NULL;
        const double bytes = lv ? sweep_dram_bytes(lv) : 0.0;
        if (bytes > most)
            most = bytes;
    }
    return most;
}

int sweep_weights_side(const roof_team *t, const char *name, unsigned el,
                       double cache_bytes, double dram_floor, uint64_t *side,
                       char *why, size_t whylen)
{
    const roof_level *lv = sweep_level(t, name);
    if (!lv) {
        const roof_bw *b = roof_team_read(t);
        char have[96] = "";
        for (size_t l = 0; l < b->nlevels; l++)
            snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
                     l ? ", " : "", b->levels[l].name);
        snprintf(why, whylen,
                 "no %s plateau in the %d-thread roofline (it has %s)", name,
                 t->threads, b->nlevels ? have : "none");
        return -1;
    }
    const int dram = strcmp(name, "DRAM") == 0;
    /* a span of levels ends where the last of them does: the weights of
     * the first then go by that cache's own size (a 2-thread read curve
     * whose L1 to L3 made one plateau, ending near 210 MB, had sized "L2"
     * weights of 105 MB) */
    double end = lv->ends_bytes;
    if (!dram && strcmp(lv->name, name) != 0 && cache_bytes > 0.0 &&
        cache_bytes < end)
        end = fmax(cache_bytes, lv->starts_bytes);
    const double bytes = dram ? fmax(sweep_dram_bytes(lv), dram_floor)
                              : fmax(lv->starts_bytes, end / 2.0);
    uint64_t unit = team_unit(el, t->threads);
    *side = side_in(bytes, el, unit, dram ? 0.0 : end);
    /* a cache too small for one even share of every member: multiples of
     * 64 (the team then splits it unevenly, but it stays in the level) */
    if (!dram && (double)*side * (double)*side * el > end)
        unit = 64;
    *side = unaliased(side_in(bytes, el, unit, dram ? 0.0 : end), el, unit,
                      lv->starts_bytes, dram ? 0.0 : end);
    return 0;
}
