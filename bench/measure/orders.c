#include "orders.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "interrupt.h"
#include "progress.h"
#include "traffic.h"

void orders_size_plan(const orders_plan *plan, rb_dtype dt, rb_shape s,
                      harness_plan *out)
{
    *out = plan->timing;
    out->dtypes[0] = dt;
    out->ndtypes = 1;
    for (int op = 0; op < RB_NOPS; op++) {
        out->shape[op] = s;
        snprintf(out->shape_source[op], sizeof(out->shape_source[op]),
                 "--shape %zu,%zu,%zu", s.n, s.p, s.m);
    }
}

double orders_counter(const orders_form *f, const counters_events *ev,
                      counter_kind kind)
{
    for (int i = 0; i < ev->n; i++)
        if (ev->kind[i] == kind && ev->usable[i])
            return f->ctr[i];
    return -1.0;
}

double orders_best_ll(const orders_form *f, const orders_plan *plan,
                      const char **src)
{
    if (f->have_ctr) {
        const double l3 = orders_counter(f, &plan->ev, CE_L3_MISSES);
        if (l3 >= 0.0) {
            *src = "counters";
            return l3 * plan->geom.l1.line;
        }
    }
    if (f->have_sim) {
        *src = "cachegrind";
        return f->sim_ll;
    }
    if (f->have_model) {
        *src = "model";
        return f->model_ll;
    }
    *src = "none";
    return -1.0;
}

double orders_compulsory(const orders_size *z)
{
    const rb_shape s = z->s;
    return (double)rb_dtype_size(z->dt) *
           ((double)s.n * s.p + (double)s.p * s.m + (double)s.n * s.m);
}

void orders_summarize(const orders_size *z, orders_summary *o)
{
    memset(o, 0, sizeof(*o));
    int imodel = -1, isim = -1;
    o->least_model = o->least_sim = INFINITY;
    for (int i = 0; i < z->nforms; i++) {
        const orders_form *f = &z->forms[i];
        if (f->have_model && f->model_ll < o->least_model) {
            o->least_model = f->model_ll;
            imodel = i;
        }
        if (f->have_sim && f->sim_ll < o->least_sim) {
            o->least_sim = f->sim_ll;
            isim = i;
        }
    }
    o->use_sim = isim >= 0;
    o->ibest = o->use_sim ? isim : imodel;
    o->iworst = -1;
    if (o->ibest < 0)
        return;
    o->least = o->use_sim ? o->least_sim : o->least_model;
    for (int i = 0; i < z->nforms; i++) {
        const orders_form *f = &z->forms[i];
        const double v = o->use_sim ? f->sim_ll : f->model_ll;
        if ((o->use_sim ? f->have_sim : f->have_model) && v > o->worst) {
            o->worst = v;
            o->iworst = i;
        }
        /* a count of 0 on either side has no ratio (it would be inf) */
        if (o->use_sim && imodel >= 0 && f->have_sim && f->have_model &&
            f->sim_ll > 0.0 && f->sim_l1 > 0.0 && f->model_ll > 0.0 &&
            f->model_l1 > 0.0) {
            const double r = f->model_ll / f->sim_ll;
            const double r1 = f->model_l1 / f->sim_l1;
            o->agree_ll = fmax(o->agree_ll, fmax(r, 1.0 / r));
            o->agree_l1 = fmax(o->agree_l1, fmax(r1, 1.0 / r1));
        }
    }
}

/* ---- timing ----------------------------------------------------------------
 */

typedef struct {
    orders_size *z;
} collect_ctx;

/* A timed form joins its size (under the interrupt lock, from the
 * harness). */
static void collect(const harness_row *r, void *vctx)
{
    orders_size *z = ((collect_ctx *)vctx)->z;
    if (z->nforms == ORDERS_MAX_FORMS)
        return;
    orders_form *f = &z->forms[z->nforms];
    memset(f, 0, sizeof(*f));
    f->k = r->kernel;
    f->flops = (double)r->counts.flops;
    f->t_min = r->time.min;
    f->t_med = r->time.median;
    f->gflops = harness_row_gflops(r);
    if (r->counted) {
        f->have_ctr = 1;
        for (int i = 0; i < r->events->n; i++)
            f->ctr[i] = (double)r->ctr_counts[i] / (double)r->counted_reps;
        snprintf(f->ctr_flag, sizeof(f->ctr_flag), "%s", r->counted_note);
    }
    z->nforms++;
    progress_say("%s %s %zu: %.4g s, %.3f GFLOP/s", f->k->name,
                 rb_dtype_name(z->dt), z->s.n, f->t_min, f->gflops);
}

static int time_forms(hwloc_topology_t topo, const orders_plan *plan,
                      orders_size *z, rb_err *e)
{
    harness_plan hp;
    orders_size_plan(plan, z->dt, z->s, &hp);
    collect_ctx cc = {.z = z};
    harness_result hr;
    memset(&hr, 0, sizeof(hr));
    int rc = harness_run(topo, &hp, &hr, collect, &cc, e);
    harness_result_free(&hr);
    if (rc || interrupt_requested())
        return rc;
    /* the same FLOPs in every form, to the last digit */
    for (int i = 1; i < z->nforms; i++)
        if (z->forms[i].flops != z->forms[0].flops)
            return rb_fail(e, RB_EMEASURE,
                           "FLOP counts differ: %s %.0f, %s %.0f",
                           z->forms[0].k->name, z->forms[0].flops,
                           z->forms[i].k->name, z->forms[i].flops);
    return RB_OK;
}

/* ---- traffic ---------------------------------------------------------------
 */

/* cachegrind: the set-up alone, then each form; the difference is the
 * form's own traffic. A child that dies of the same Ctrl-C as this process
 * is an interrupt, not a failure. */
static int simulate_forms(const orders_plan *plan, orders_size *z,
                          sim_counts *base, rb_err *e)
{
    progress_note("simulating %d forms under cachegrind", z->nforms);
    const uint64_t seed = plan->timing.seed;
    int rc = sim_run(plan->valgrind, plan->exe, "none", z->dt, z->s, seed,
                     &plan->geom, plan->workdir, base, e);
    for (int i = 0; i < z->nforms && !rc && !interrupt_requested(); i++) {
        orders_form *f = &z->forms[i];
        sim_counts with, own;
        rc = sim_run(plan->valgrind, plan->exe, f->k->name, z->dt, z->s, seed,
                     &plan->geom, plan->workdir, &with, e);
        if (rc)
            break;
        sim_subtract(&with, base, &own);
        interrupt_lock();
        f->sim = own;
        f->have_sim = 1;
        f->sim_l1 = own.d1_misses * plan->geom.l1.line;
        f->sim_ll = own.ll_misses * plan->geom.ll.line;
        interrupt_unlock();
    }
    return interrupt_requested() ? RB_OK : rc;
}

/* The model, for the code path the traffic describes: the simulated one's
 * blocks when cachegrind ran, else this process's. */
static void model_forms(const orders_plan *plan, orders_size *z,
                        const sim_counts *base)
{
    rb_blocking blk;
    rb_blocking_of(z->dt, &blk);
    if ((plan->sources & ORDERS_CACHEGRIND) && base->blk.kc > 0) {
        const char *path = blk.path;
        blk = base->blk;
        blk.path = path;
    }
    interrupt_lock();
    z->blk = blk;
    for (int i = 0; i < z->nforms; i++) {
        orders_form *f = &z->forms[i];
        const size_t el = rb_dtype_size(z->dt);
        const double l1 =
            rb_traffic_lines(f->k, z->s, el, &plan->geom.l1, &blk);
        const double ll =
            rb_traffic_lines(f->k, z->s, el, &plan->geom.ll, &blk);
        if (l1 >= 0.0 && ll >= 0.0) {
            f->have_model = 1;
            f->model_l1 = l1 * plan->geom.l1.line;
            f->model_ll = ll * plan->geom.ll.line;
        }
    }
    interrupt_unlock();
}

/* Where each form falls out of the last level in a sweep: the first size
 * whose traffic passes four times the compulsory bytes. */
static void note_falls(const orders_plan *plan, const orders_size *z,
                       orders_result *res)
{
    const double compulsory = orders_compulsory(z);
    for (int i = 0; i < z->nforms; i++) {
        const char *src;
        const double ll = orders_best_ll(&z->forms[i], plan, &src);
        if (ll > 4.0 * compulsory && !res->falls[z->dt][i]) {
            res->falls[z->dt][i] = z->s.n;
            res->falls_x[z->dt][i] = ll / compulsory;
            snprintf(res->falls_src[z->dt][i], sizeof(res->falls_src[z->dt][i]),
                     "%s", src);
        }
    }
}

static int measure_size(hwloc_topology_t topo, const orders_plan *plan,
                        orders_size *z, orders_result *res, rb_err *e)
{
    int rc = time_forms(topo, plan, z, e);
    sim_counts base;
    memset(&base, 0, sizeof(base));
    if (!rc && !interrupt_requested() && (plan->sources & ORDERS_CACHEGRIND))
        rc = simulate_forms(plan, z, &base, e);
    if (rc || interrupt_requested())
        return rc;
    interrupt_lock();
    snprintf(z->simulated_path, sizeof(z->simulated_path), "%s", base.path);
    interrupt_unlock();
    if (plan->sources & ORDERS_MODEL)
        model_forms(plan, z, &base);
    interrupt_lock();
    z->complete = 1;
    if (plan->sweep)
        note_falls(plan, z, res);
    interrupt_unlock();
    return RB_OK;
}

int orders_measure(hwloc_topology_t topo, const orders_plan *plan,
                   orders_result *res, rb_err *e)
{
    int rc = RB_OK;
    for (int d = 0; d < plan->ndtypes && !rc; d++)
        for (int i = 0; i < plan->nsizes && !rc && !interrupt_requested();
             i++) {
            interrupt_lock();
            orders_size *z = &res->sizes[res->nsizes++];
            memset(z, 0, sizeof(*z));
            z->dt = plan->dtypes[d];
            z->s = plan->sizes[i];
            interrupt_unlock();
            rc = measure_size(topo, plan, z, res, e);
        }
    interrupt_lock();
    res->interrupted = interrupt_requested() != 0;
    interrupt_unlock();
    return rc;
}
