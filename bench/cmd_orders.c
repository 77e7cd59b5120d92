/* roofbench orders: four orders (and blocked, and OpenBLAS), same FLOPs,
 * different traffic. Each matmul form is verified and timed by the
 * harness, then its memory traffic is taken from up to three independent
 * sources: hardware counters (PAPI), cache simulation (cachegrind) and the
 * analytic model (kernels/traffic.c). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ceilings.h"
#include "cli.h"
#include "cmd.h"
#include "counters.h"
#include "harness.h"
#include "host.h"
#include "plot.h"
#include "results.h"
#include "roofline.h"
#include "simulate.h"

#define RESULTS_ROOT "results/runs"

extern const char rb_plot_orders_gp[];

enum { SRC_MODEL = 1, SRC_COUNTERS = 2, SRC_CACHEGRIND = 4 };
enum { MAX_FORMS = 8, MAX_SIZES = 32 };

static const char *const default_forms[] = {
    "matmul_naive", "matmul_column", "matmul_row",
    "matmul_outer", "matmul_blocked", "matmul_openblas"};

static void help(void)
{
    printf(
        "usage: roofbench orders [options]\n\n"
        "The same product C = A B in dot-product, column, row and "
        "outer-product order,\nblocked, and by OpenBLAS: identical FLOPs "
        "(asserted), very different memory\ntraffic. Each form is verified "
        "and timed (1 thread by default), then its\ntraffic is taken from "
        "each source asked for:\n\n"
        "  model       the analytic model (kernels/README.md, \"Traffic "
        "model\"): lines\n"
        "              filled into L1 and into the last level of the "
        "geometry below\n"
        "  counters    PAPI hardware counters, read in one more sample "
        "after the timed\n"
        "              ones on every thread (L1, L2 and L3 data misses x "
        "the line\n"
        "              size); unavailable where the machine has no PMU\n"
        "  cachegrind  valgrind's cache simulator, deterministic, on one "
        "call in a child\n"
        "              process whose code paths are capped at AVX2 "
        "(valgrind 3.19\n"
        "              cannot decode AVX-512); D1 and LL misses x line\n\n"
        "Prints per form: time, GFLOP/s, and per source the bytes at L1 and "
        "at the last\nlevel, the effective intensity (FLOPs / last-level "
        "bytes) and the ratio to\nthe form that moves least; then a "
        "sentence saying which form that is and by\nhow much. Writes "
        "orders.json, orders.csv and a chart per dtype and size\n"
        "(orders-<dtype>-<n>.png and .svg) to a new run folder.\n\n"
        "  --n N             square problems N=P=M (default 512)\n"
        "  --shape N,P,M     [N,P] x [P,M]\n"
        "  --sweep A:B       sizes from A to B in steps of x1.5 and x4/3 "
        "(64, 96, 128,\n"
        "                    192, ...: powers of two and sizes between), "
        "showing where\n"
        "                    each form falls out of cache\n"
        "  --dtype LIST      f32, f64 or both (default f64,f32)\n"
        "  --kernel LIST     matmul kernels (default: naive, column, row, "
        "outer,\n"
        "                    blocked, openblas)\n"
        "  --threads N       threads of the timed runs (default 1; traffic "
        "is per call\n"
        "                    on one thread)\n"
        "  --traffic LIST    model, counters, cachegrind or all (default "
        "model,counters)\n"
        "  --events LIST     PAPI preset or native events for counters "
        "(default per\n"
        "                    vendor: cycles, instructions, L1D, L2 and L3 "
        "misses, FLOPs)\n"
        "  --cache GEOM      L1=SIZE:WAYS:LINE,LL=SIZE:WAYS:LINE for the "
        "model and\n"
        "                    cachegrind (default: L1d and L2 as hwloc "
        "reports them)\n"
        "  --min-time S, --samples N, --seed N    as in run\n"
        "  --ceilings FILE   the host roofline for the chart (else a quick "
        "one is\n"
        "                    measured first, as run does)\n"
        "  --out DIR         results folder (default "
        "results/runs/<host>-<UTC stamp>)\n"
        "  --json            print orders.json on stdout instead of the "
        "tables\n"
        "  --help            this text\n\n"
        "Exit status: 0 success, 1 a kernel failed verification or the FLOP "
        "counts\ndiffer, 2 bad input or an unusable environment, 130 "
        "interrupted.\n");
}

static void on_signal(int sig)
{
    (void)sig;
    harness_stop = 1;
}

/* ---- one form's figures ------------------------------------------------------ */

typedef struct {
    const rb_kernel *k;
    double flops, t_min, t_med, gflops;
    int have_model;
    double model_l1, model_ll; /* bytes                               */
    int have_sim;
    sim_counts sim;
    double sim_l1, sim_ll;
    int have_ctr;
    double ctr[COUNTERS_MAX]; /* per call, from the harness's counted
                                 sample                                */
    char ctr_flag[256];       /* a failed self-check or a limit, else "" */
} form_row;

typedef struct {
    form_row rows[MAX_FORMS];
    int n;
} collect_ctx;

static void collect(const harness_row *r, void *vctx)
{
    collect_ctx *c = vctx;
    if (c->n == MAX_FORMS)
        return;
    form_row *f = &c->rows[c->n++];
    memset(f, 0, sizeof(*f));
    f->k = r->kernel;
    f->flops = (double)r->counts.flops;
    f->t_min = r->time.min;
    f->t_med = r->time.median;
    f->gflops = results_row_gflops(r);
    if (r->counted) {
        f->have_ctr = 1;
        for (int i = 0; i < r->events->n; i++)
            f->ctr[i] = (double)r->ctr_counts[i] / (double)r->counted_reps;
        snprintf(f->ctr_flag, sizeof(f->ctr_flag), "%s", r->counted_note);
    }
}

static const char *form_label(const rb_kernel *k)
{
    return strcmp(k->form, "openblas") == 0 ? "OpenBLAS" : k->form;
}

/* ---- counters ------------------------------------------------------------- */

static double ctr_of(const form_row *f, const counters_events *ev,
                     counter_kind kind)
{
    for (int i = 0; i < ev->n; i++)
        if (ev->kind[i] == kind && ev->usable[i])
            return f->ctr[i];
    return -1.0;
}

/* ---- one size: time, traffic, print ---------------------------------------- */

typedef struct {
    hwloc_topology_t topo;
    harness_plan plan;        /* kernels, threads, timing; dtype and shape set per call */
    int sources;
    sim_geometry geom;
    counters_events ev;
    counters_status cst;
    char valgrind[512];
    char exe[4096];
    char workdir[4200];
    int json, sweep;
    /* the sweep: per dtype and form, the first size whose last-level
     * traffic passes four times the compulsory bytes */
    size_t falls[RB_NDTYPES][MAX_FORMS];
    double falls_x[RB_NDTYPES][MAX_FORMS];
    char falls_src[RB_NDTYPES][MAX_FORMS][16];
} orders_ctx;

static json_t *bytes_json(double l1, double ll)
{
    return json_pack("{s:o, s:o}", "l1_bytes", results_num(l1), "ll_bytes",
                     results_num(ll));
}

/* The best source for a row's last-level bytes: counters, then cachegrind,
 * then the model. */
static double best_ll(const form_row *f, const orders_ctx *o, const char **src)
{
    if (f->have_ctr) {
        const double l3 = ctr_of(f, &o->ev, CE_L3_MISSES);
        if (l3 >= 0.0) {
            *src = "counters";
            return l3 * o->geom.l1.line;
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

static int run_size(orders_ctx *o, rb_dtype dt, rb_shape s, json_t *jsizes,
                    FILE *csv, int *interrupted, rb_err *e)
{
    harness_plan plan = o->plan;
    plan.dtypes[0] = dt;
    plan.ndtypes = 1;
    for (int op = 0; op < RB_NOPS; op++) {
        plan.shape[op] = s;
        snprintf(plan.shape_source[op], sizeof(plan.shape_source[op]),
                 "--shape %zu,%zu,%zu", s.n, s.p, s.m);
    }
    int rc = harness_check_plan(&plan, host_mem_available(), e);
    if (rc)
        return rc;
    if (!o->json && !o->sweep) {
        printf("\nC[%zu,%zu] = A[%zu,%zu] B[%zu,%zu], %s, %d thread%s: "
               "verifying and timing %zu forms ...\n",
               s.n, s.m, s.n, s.p, s.p, s.m, rb_dtype_name(dt),
               plan.threads[0], plan.threads[0] > 1 ? "s" : "",
               plan.nkernels);
        fflush(stdout);
    }
    collect_ctx cc = {.n = 0};
    harness_result res;
    rc = harness_run(o->topo, &plan, &res, collect, &cc, e);
    *interrupted = res.interrupted;
    harness_result_free(&res);
    if (rc || *interrupted)
        return rc;
    /* the same FLOPs in every form, to the last digit */
    for (int i = 1; i < cc.n; i++)
        if (cc.rows[i].flops != cc.rows[0].flops)
            return rb_fail(e, RB_EMEASURE,
                           "FLOP counts differ: %s %.0f, %s %.0f",
                           cc.rows[0].k->name, cc.rows[0].flops,
                           cc.rows[i].k->name, cc.rows[i].flops);

    /* cachegrind: the set-up alone, then each form; the difference is the
     * form's own traffic */
    sim_counts base;
    memset(&base, 0, sizeof(base));
    if (o->sources & SRC_CACHEGRIND) {
        if (!o->json && !o->sweep) {
            printf("simulating each form under cachegrind (D1 %.0fK %u-way, "
                   "LL %.0fK %u-way, %u-byte lines) ...\n",
                   o->geom.l1.size / 1024, o->geom.l1.assoc,
                   o->geom.ll.size / 1024, o->geom.ll.assoc, o->geom.ll.line);
            fflush(stdout);
        }
        rc = sim_run(o->valgrind, o->exe, "none", dt, s, plan.seed, &o->geom,
                     o->workdir, &base, e);
        for (int i = 0; i < cc.n && !rc && !harness_stop; i++) {
            form_row *f = &cc.rows[i];
            sim_counts with;
            rc = sim_run(o->valgrind, o->exe, f->k->name, dt, s, plan.seed,
                         &o->geom, o->workdir, &with, e);
            if (rc)
                break;
            sim_subtract(&with, &base, &f->sim);
            f->have_sim = 1;
            f->sim_l1 = f->sim.d1_misses * o->geom.l1.line;
            f->sim_ll = f->sim.ll_misses * o->geom.ll.line;
        }
        if (rc)
            return rc;
        if (harness_stop) {
            *interrupted = 1;
            return RB_OK;
        }
    }
    /* the model, for the code path the traffic describes: the simulated
     * one's blocks when cachegrind ran, else this process's */
    rb_blocking blk;
    rb_blocking_of(dt, &blk);
    if ((o->sources & SRC_CACHEGRIND) && base.blk.kc > 0) {
        const char *path = blk.path;
        blk = base.blk;
        blk.path = path;
    }
    if (o->sources & SRC_MODEL)
        for (int i = 0; i < cc.n; i++) {
            form_row *f = &cc.rows[i];
            const double l1 = rb_traffic_lines(f->k->name, s,
                                               rb_dtype_size(dt), &o->geom.l1,
                                               &blk);
            const double ll = rb_traffic_lines(f->k->name, s,
                                               rb_dtype_size(dt), &o->geom.ll,
                                               &blk);
            if (l1 >= 0.0 && ll >= 0.0) {
                f->have_model = 1;
                f->model_l1 = l1 * o->geom.l1.line;
                f->model_ll = ll * o->geom.ll.line;
            }
        }
    /* the least traffic at the last level, per source */
    double least_model = INFINITY, least_sim = INFINITY;
    int imodel = -1, isim = -1;
    for (int i = 0; i < cc.n; i++) {
        if (cc.rows[i].have_model && cc.rows[i].model_ll < least_model) {
            least_model = cc.rows[i].model_ll;
            imodel = i;
        }
        if (cc.rows[i].have_sim && cc.rows[i].sim_ll < least_sim) {
            least_sim = cc.rows[i].sim_ll;
            isim = i;
        }
    }

    /* JSON and CSV */
    json_t *js = json_pack("{s:s, s:I, s:I, s:I, s:f, s:[]}", "dtype",
                           rb_dtype_name(dt), "n", (json_int_t)s.n, "p",
                           (json_int_t)s.p, "m", (json_int_t)s.m, "flops",
                           cc.rows[0].flops, "forms");
    if (o->sources & SRC_MODEL)
        json_object_set_new(js, "model_blocks",
                            json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "path",
                                      blk.path ? blk.path : "?", "mr",
                                      (json_int_t)blk.mr, "nr",
                                      (json_int_t)blk.nr, "kc",
                                      (json_int_t)blk.kc, "mc",
                                      (json_int_t)blk.mc, "nc",
                                      (json_int_t)blk.nc));
    if (o->sources & SRC_CACHEGRIND)
        json_object_set_new(js, "simulated_path", json_string(base.path));
    for (int i = 0; i < cc.n; i++) {
        const form_row *f = &cc.rows[i];
        json_t *jf = json_pack("{s:s, s:s, s:f, s:f, s:f}", "kernel",
                               f->k->name, "form", f->k->form, "t_min_s",
                               f->t_min, "t_median_s", f->t_med, "gflops",
                               f->gflops);
        fprintf(csv, "%s,%zu,%zu,%zu,%s,%s,%.0f,%.9g,%.6g,time,,,,\n",
                rb_dtype_name(dt), s.n, s.p, s.m, f->k->name, f->k->form,
                f->flops, f->t_min, f->gflops);
        if (f->have_model) {
            json_object_set_new(jf, "model",
                                bytes_json(f->model_l1, f->model_ll));
            fprintf(csv, "%s,%zu,%zu,%zu,%s,%s,%.0f,%.9g,%.6g,model,%.0f,%.0f,"
                         "LL,%.6g\n",
                    rb_dtype_name(dt), s.n, s.p, s.m, f->k->name, f->k->form,
                    f->flops, f->t_min, f->gflops, f->model_l1, f->model_ll,
                    f->flops / f->model_ll);
        } else if (o->sources & SRC_MODEL) {
            json_object_set_new(jf, "model",
                                json_pack("{s:s}", "unavailable",
                                          "no model of a library's "
                                          "internal blocking"));
        }
        if (f->have_sim) {
            json_t *b = bytes_json(f->sim_l1, f->sim_ll);
            json_object_set_new(b, "d1_misses", json_real(f->sim.d1_misses));
            json_object_set_new(b, "ll_misses", json_real(f->sim.ll_misses));
            json_object_set_new(b, "instructions", json_real(f->sim.ir));
            json_t *fns = json_array();
            for (int q = 0; q < f->sim.nfn && q < 5; q++)
                json_array_append_new(
                    fns, json_pack("{s:s, s:f, s:f}", "function",
                                   f->sim.fn[q].name, "d1_misses",
                                   f->sim.fn[q].d1, "ll_misses",
                                   f->sim.fn[q].ll));
            json_object_set_new(b, "functions", fns);
            json_object_set_new(jf, "cachegrind", b);
            fprintf(csv, "%s,%zu,%zu,%zu,%s,%s,%.0f,%.9g,%.6g,cachegrind,%.0f,"
                         "%.0f,LL,%.6g\n",
                    rb_dtype_name(dt), s.n, s.p, s.m, f->k->name, f->k->form,
                    f->flops, f->t_min, f->gflops, f->sim_l1, f->sim_ll,
                    f->flops / f->sim_ll);
        }
        if (o->sources & SRC_COUNTERS) {
            if (f->have_ctr) {
                json_t *c = json_object();
                for (int q = 0; q < o->ev.n; q++)
                    json_object_set_new(
                        c, o->ev.name[q],
                        o->ev.usable[q]
                            ? json_real(f->ctr[q])
                            : json_pack("{s:s}", "unavailable",
                                        o->ev.reason[q]));
                if (f->ctr_flag[0])
                    json_object_set_new(c, "self_check_failed",
                                        json_string(f->ctr_flag));
                json_object_set_new(jf, "counters", c);
                const double line = o->geom.l1.line;
                const double l1m = ctr_of(f, &o->ev, CE_L1D_MISSES),
                             l3m = ctr_of(f, &o->ev, CE_L3_MISSES);
                fprintf(csv,
                        "%s,%zu,%zu,%zu,%s,%s,%.0f,%.9g,%.6g,counters,%.0f,"
                        "%.0f,L3,%.6g\n",
                        rb_dtype_name(dt), s.n, s.p, s.m, f->k->name,
                        f->k->form, f->flops, f->t_min, f->gflops,
                        l1m >= 0 ? l1m * line : NAN,
                        l3m >= 0 ? l3m * line : NAN,
                        l3m > 0 ? f->flops / (l3m * line) : NAN);
            } else {
                json_object_set_new(jf, "counters",
                                    json_pack("{s:s}", "unavailable",
                                              o->cst.reason[0]
                                                  ? o->cst.reason
                                                  : "no usable event"));
            }
        }
        const char *src;
        const double ll = best_ll(f, o, &src);
        if (ll > 0.0)
            fprintf(csv, "%s,%zu,%zu,%zu,%s,%s,%.0f,%.9g,%.6g,best,,%.0f,%s,"
                         "%.6g\n",
                    rb_dtype_name(dt), s.n, s.p, s.m, f->k->name, f->k->form,
                    f->flops, f->t_min, f->gflops, ll, src, f->flops / ll);
        json_array_append_new(json_object_get(js, "forms"), jf);
    }

    /* the sentence */
    char sentence[1024] = "";
    const int use_sim = isim >= 0;
    const int ib = use_sim ? isim : imodel;
    if (ib >= 0) {
        int iw = -1;
        double worst = 0.0;
        for (int i = 0; i < cc.n; i++) {
            const double v = use_sim ? cc.rows[i].sim_ll : cc.rows[i].model_ll;
            if ((use_sim ? cc.rows[i].have_sim : cc.rows[i].have_model) &&
                v > worst) {
                worst = v;
                iw = i;
            }
        }
        const double least = use_sim ? least_sim : least_model;
        double agree = 0.0, agree_l1 = 0.0;
        if (use_sim && imodel >= 0)
            for (int i = 0; i < cc.n; i++)
                if (cc.rows[i].have_sim && cc.rows[i].have_model) {
                    const double r = cc.rows[i].model_ll / cc.rows[i].sim_ll;
                    const double r1 = cc.rows[i].model_l1 / cc.rows[i].sim_l1;
                    agree = fmax(agree, fmax(r, 1.0 / r));
                    agree_l1 = fmax(agree_l1, fmax(r1, 1.0 / r1));
                }
        snprintf(sentence, sizeof(sentence),
                 "%s moves least at the last level (%s: %.3g MB); %s moves "
                 "%.0fx more (%.3g MB) for the same %.4g FLOPs.",
                 form_label(cc.rows[ib].k), use_sim ? "cachegrind" : "model",
                 least / 1e6, form_label(cc.rows[iw].k), worst / least,
                 worst / 1e6, cc.rows[0].flops);
        if (agree > 0.0)
            snprintf(sentence + strlen(sentence),
                     sizeof(sentence) - strlen(sentence),
                     " Model and simulation agree within x%.2f at the last "
                     "level and x%.2f at L1 for every modelled form.",
                     agree, agree_l1);
        json_object_set_new(js, "summary", json_string(sentence));
        if (agree > 0.0) {
            json_object_set_new(js, "model_vs_cachegrind_worst_factor_ll",
                                json_real(agree));
            json_object_set_new(js, "model_vs_cachegrind_worst_factor_l1",
                                json_real(agree_l1));
        }
    }
    json_array_append_new(jsizes, js);
    if (o->json)
        return RB_OK;

    if (o->sweep) {
        /* one line per form: time and the best last-level figure */
        for (int i = 0; i < cc.n; i++) {
            const char *src;
            const double ll = best_ll(&cc.rows[i], o, &src);
            const double compulsory =
                (double)rb_dtype_size(dt) * (s.n * s.p + s.p * s.m + s.n * s.m);
            if (ll > 4.0 * compulsory && !o->falls[dt][i]) {
                o->falls[dt][i] = s.n;
                o->falls_x[dt][i] = ll / compulsory;
                snprintf(o->falls_src[dt][i], sizeof(o->falls_src[dt][i]),
                         "%s", src);
            }
            printf("%5zu %-5s %-14s %10.4g %9.3f %12.4g %-10s %8.1f\n", s.n,
                   rb_dtype_name(dt), cc.rows[i].k->name, cc.rows[i].t_min,
                   cc.rows[i].gflops, ll, src,
                   ll > 0 ? ll / compulsory : NAN);
        }
        fflush(stdout);
        return RB_OK;
    }

    printf("%-15s %-13s %10s %9s", "kernel", "form", "t_min(s)", "GFLOP/s");
    if (o->sources & SRC_MODEL)
        printf(" | %10s %10s %8s %7s", "model L1", "model LL", "I_LL",
               "xbest");
    if (o->sources & SRC_CACHEGRIND)
        printf(" | %10s %10s %8s %7s", "sim D1", "sim LL", "I_LL", "xbest");
    if ((o->sources & SRC_COUNTERS) && o->ev.nusable > 0)
        printf(" | %10s %10s %10s %8s", "ctr L1", "ctr L2", "ctr L3", "I_L3");
    printf("\n");
    for (int i = 0; i < cc.n; i++) {
        const form_row *f = &cc.rows[i];
        printf("%-15s %-13s %10.4g %9.3f", f->k->name, f->k->form, f->t_min,
               f->gflops);
        if (o->sources & SRC_MODEL) {
            if (f->have_model)
                printf(" | %10.4g %10.4g %8.3g %7.1f", f->model_l1,
                       f->model_ll, f->flops / f->model_ll,
                       f->model_ll / least_model);
            else
                printf(" | %10s %10s %8s %7s", "-", "-", "-", "-");
        }
        if (o->sources & SRC_CACHEGRIND)
            printf(" | %10.4g %10.4g %8.3g %7.1f", f->sim_l1, f->sim_ll,
                   f->flops / f->sim_ll, f->sim_ll / least_sim);
        if ((o->sources & SRC_COUNTERS) && o->ev.nusable > 0) {
            const double line = o->geom.l1.line;
            const double l1m = ctr_of(f, &o->ev, CE_L1D_MISSES),
                         l2m = ctr_of(f, &o->ev, CE_L2_MISSES),
                         l3m = ctr_of(f, &o->ev, CE_L3_MISSES);
            char a[24], b2[24], b[24], c[24];
            snprintf(a, sizeof(a), l1m >= 0 ? "%.4g" : "n/a", l1m * line);
            snprintf(b2, sizeof(b2), l2m >= 0 ? "%.4g" : "n/a", l2m * line);
            snprintf(b, sizeof(b), l3m >= 0 ? "%.4g" : "n/a", l3m * line);
            snprintf(c, sizeof(c), l3m > 0 ? "%.3g" : "n/a",
                     f->flops / (l3m * line));
            printf(" | %10s %10s %10s %8s%s%s", a, b2, b, c,
                   f->ctr_flag[0] ? "  ! " : "",
                   f->ctr_flag);
        }
        printf("\n");
    }
    printf("FLOPs: %.0f in every form (asserted equal). Bytes are lines "
           "filled x line size (reads and write-allocates; write-backs not "
           "counted); I_LL = FLOPs / last-level bytes; xbest: bytes / the "
           "least of any form.\n",
           cc.rows[0].flops);
    if (o->sources & SRC_MODEL)
        printf("model: blocked form with MR %zu NR %zu KC %zu MC %zu NC %zu "
               "(%s); OpenBLAS has no model (its blocking is internal).\n",
               blk.mr, blk.nr, blk.kc, blk.mc, blk.nc,
               (o->sources & SRC_CACHEGRIND) ? "the simulated path's blocks"
                                             : "this machine's path");
    if (o->sources & SRC_CACHEGRIND)
        printf("cachegrind: simulated code path: %s (valgrind 3.19 cannot "
               "decode AVX-512); D1 %.0f bytes %u-way, LL %.0f bytes %u-way, "
               "%u-byte lines (%s); kernel run minus set-up run.\n",
               base.path, o->geom.l1.size, o->geom.l1.assoc, o->geom.ll.size,
               o->geom.ll.assoc, o->geom.ll.line, o->geom.source);
    if (o->sources & SRC_CACHEGRIND)
        for (int i = 0; i < cc.n; i++) {
            const form_row *f = &cc.rows[i];
            printf("  %-15s misses by function (D1, LL):", f->k->name);
            int shown = 0, rest = 0;
            for (int q = 0; q < f->sim.nfn; q++) {
                const double d1 = f->sim.fn[q].d1 / f->sim.d1_misses,
                             ll = f->sim.ll_misses > 0
                                      ? f->sim.fn[q].ll / f->sim.ll_misses
                                      : 0.0;
                if (shown < 4 && (d1 >= 0.005 || ll >= 0.005))
                    printf("%s %s %.0f%% %.0f%%", shown++ ? "," : "",
                           f->sim.fn[q].name, 100.0 * d1, 100.0 * ll);
                else
                    rest++;
            }
            if (rest)
                printf(" (%d more, each under 0.5%% or beyond the first 4)",
                       rest);
            printf("\n");
        }
    if ((o->sources & SRC_COUNTERS) && o->ev.nusable == 0)
        printf("counters: unavailable: %s\n",
               o->cst.reason[0] ? o->cst.reason : o->ev.reason[0]);
    else if (o->sources & SRC_COUNTERS)
        for (int q = 0; q < o->ev.n; q++)
            if (!o->ev.usable[q])
                printf("counters: %s unavailable: %s\n", o->ev.name[q],
                       o->ev.reason[q]);
    if (sentence[0])
        printf("%s\n", sentence);
    fflush(stdout);
    return RB_OK;
}

/* ---- the command ------------------------------------------------------------- */

static int parse_sources(const char *s, int *out, rb_err *e)
{
    char buf[256], *items[8];
    const int k = cli_split_list("--traffic", s, buf, sizeof(buf), items, 8, e);
    if (k < 0)
        return RB_EINPUT;
    *out = 0;
    for (int i = 0; i < k; i++) {
        if (strcmp(items[i], "model") == 0)
            *out |= SRC_MODEL;
        else if (strcmp(items[i], "counters") == 0)
            *out |= SRC_COUNTERS;
        else if (strcmp(items[i], "cachegrind") == 0)
            *out |= SRC_CACHEGRIND;
        else if (strcmp(items[i], "all") == 0)
            *out |= SRC_MODEL | SRC_COUNTERS | SRC_CACHEGRIND;
        else
            return rb_fail(e, RB_EINPUT,
                           "--traffic '%s': unknown source (model, counters, "
                           "cachegrind, all)",
                           items[i]);
    }
    return RB_OK;
}

int cmd_orders(int argc, char **argv)
{
    static const struct option opts[] = {
        {"n", required_argument, NULL, 'n'},
        {"shape", required_argument, NULL, 's'},
        {"sweep", required_argument, NULL, 'w'},
        {"dtype", required_argument, NULL, 'd'},
        {"kernel", required_argument, NULL, 'k'},
        {"threads", required_argument, NULL, 't'},
        {"traffic", required_argument, NULL, 'T'},
        {"events", required_argument, NULL, 'E'},
        {"cache", required_argument, NULL, 'C'},
        {"min-time", required_argument, NULL, 'm'},
        {"samples", required_argument, NULL, 'S'},
        {"seed", required_argument, NULL, 'r'},
        {"ceilings", required_argument, NULL, 'c'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *n_arg = NULL, *shape_arg = NULL, *sweep_arg = NULL,
               *dtypes = "f64,f32", *kernels = NULL, *threads_arg = "1",
               *traffic = "model,counters", *events = NULL, *cache = NULL,
               *min_time = "0.01", *samples = "3", *seed_arg = "1",
               *ceilings = NULL, *out = NULL;
    int json = 0, c, traffic_given = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'n': n_arg = optarg; break;
        case 's': shape_arg = optarg; break;
        case 'w': sweep_arg = optarg; break;
        case 'd': dtypes = optarg; break;
        case 'k': kernels = optarg; break;
        case 't': threads_arg = optarg; break;
        case 'T': traffic = optarg; traffic_given = 1; break;
        case 'E': events = optarg; break;
        case 'C': cache = optarg; break;
        case 'm': min_time = optarg; break;
        case 'S': samples = optarg; break;
        case 'r': seed_arg = optarg; break;
        case 'c': ceilings = optarg; break;
        case 'o': out = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        case ':':
            return cmd_bad("orders: %s needs a value", argv[optind - 1]);
        default:
            return cmd_bad("orders: unknown option '%s' (see roofbench "
                           "orders --help)",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_bad("orders: unexpected argument '%s'", argv[optind]);
    if ((n_arg != NULL) + (shape_arg != NULL) + (sweep_arg != NULL) > 1)
        return cmd_bad("orders: choose one of --n, --shape and --sweep");

    static orders_ctx o;
    memset(&o, 0, sizeof(o));
    o.json = json;
    rb_err e;
    int rc = parse_sources(traffic, &o.sources, &e);
    if (rc)
        return cmd_error(rc, e.msg);
    if (events && !traffic_given)
        o.sources |= SRC_COUNTERS;
    if (events && !(o.sources & SRC_COUNTERS))
        return cmd_bad("--events: only with --traffic counters (or all)");

    /* sizes */
    rb_shape sizes[MAX_SIZES];
    int nsizes = 0;
    if (sweep_arg) {
        uint64_t lo, hi;
        if (cli_parse_range("--sweep", sweep_arg, 8, 8192, &lo, &hi, &e))
            return cmd_error(RB_EINPUT, e.msg);
        /* powers of two and the sizes halfway between (x1.5) */
        for (uint64_t p2 = 8; p2 <= hi && nsizes < MAX_SIZES - 1; p2 *= 2) {
            const uint64_t cand[2] = {p2, p2 * 3 / 2};
            for (int q = 0; q < 2; q++)
                if (cand[q] >= lo && cand[q] <= hi && nsizes < MAX_SIZES)
                    sizes[nsizes++] = (rb_shape){cand[q], cand[q], cand[q]};
        }
        if (nsizes == 0)
            return cmd_bad("--sweep '%s': no size between the ends (sizes "
                           "are 8, 12, 16, 24, ...)",
                           sweep_arg);
        o.sweep = 1;
    } else if (shape_arg) {
        if (cli_parse_shape("--shape", shape_arg, &sizes[0], &e))
            return cmd_error(RB_EINPUT, e.msg);
        nsizes = 1;
    } else {
        uint64_t n = 512;
        if (n_arg && cli_parse_count("--n", n_arg, 1, 1u << 20, &n, &e))
            return cmd_error(RB_EINPUT, e.msg);
        sizes[0] = (rb_shape){n, n, n};
        nsizes = 1;
    }

    /* the plan: kernels, dtypes, threads, timing */
    harness_plan *plan = &o.plan;
    memset(plan, 0, sizeof(*plan));
    {
        char buf[1024], *items[MAX_FORMS];
        int k;
        if (kernels) {
            k = cli_split_list("--kernel", kernels, buf, sizeof(buf), items,
                               MAX_FORMS, &e);
            if (k < 0)
                return cmd_error(RB_EINPUT, e.msg);
        } else {
            k = (int)(sizeof(default_forms) / sizeof(default_forms[0]));
            for (int i = 0; i < k; i++)
                items[i] = (char *)default_forms[i];
        }
        for (int i = 0; i < k; i++) {
            const rb_kernel *kr = rb_kernel_find(items[i]);
            if (!kr)
                return cmd_bad("--kernel '%s': unknown kernel (roofbench list)",
                               items[i]);
            if (kr->op != RB_OP_MATMUL)
                return cmd_bad("--kernel '%s': orders compares the matmul "
                               "forms (matmul_naive, _column, _row, _outer, "
                               "_blocked, _openblas)",
                               items[i]);
            for (size_t j = 0; j < plan->nkernels; j++)
                if (plan->kernels[j] == kr)
                    return cmd_bad("--kernel: '%s' given twice", items[i]);
            plan->kernels[plan->nkernels++] = kr;
        }
    }
    rb_dtype dts[RB_NDTYPES];
    int ndts = 0;
    if (cli_parse_dtypes("--dtype", dtypes, dts, &ndts, &e))
        return cmd_error(RB_EINPUT, e.msg);
    if ((rc = pin_topology_load(&o.topo, &e)))
        return cmd_error(rc, e.msg);
    const int ncores = pin_ncores(o.topo);
    uint64_t v;
    double mt;
    if (cli_parse_threads("--threads", threads_arg, ncores, plan->threads, 16,
                          &plan->nthreads, &e) ||
        cli_parse_seconds("--min-time", min_time, 1e-4, 60.0, &mt, &e)) {
        hwloc_topology_destroy(o.topo);
        return cmd_error(RB_EINPUT, e.msg);
    }
    if (plan->nthreads != 1) {
        hwloc_topology_destroy(o.topo);
        return cmd_bad("--threads %s: orders takes one thread count (one "
                       "table per size and dtype)",
                       threads_arg);
    }
    plan->min_time = mt;
    if (cli_parse_count("--samples", samples, 3, 1000, &v, &e) ||
        cli_parse_count("--seed", seed_arg, 0, UINT64_MAX, &plan->seed, &e)) {
        hwloc_topology_destroy(o.topo);
        return cmd_error(RB_EINPUT, e.msg);
    }
    plan->samples = (int)v;

    /* geometry, valgrind, counters: all checked before anything runs */
    rc = sim_geometry_default(o.topo, &o.geom, &e);
    if (cache) {
        if (rc) /* hwloc's caches are not needed when both are given */
            memset(&o.geom, 0, sizeof(o.geom));
        rc = sim_geometry_parse(cache, &o.geom, &e);
        if (!rc && (o.geom.l1.size <= 0 || o.geom.ll.size <= 0))
            rc = rb_fail(&e, RB_EINPUT,
                         "--cache '%s': give both L1 and LL (hwloc reports "
                         "no caches here)",
                         cache);
    }
    if (!rc && (o.sources & SRC_CACHEGRIND)) {
        rc = sim_find_valgrind(o.valgrind, sizeof(o.valgrind), &e);
        ssize_t len = readlink("/proc/self/exe", o.exe, sizeof(o.exe) - 1);
        if (!rc && len <= 0)
            rc = rb_fail(&e, RB_EINPUT, "cannot find this executable");
        else if (len > 0)
            o.exe[len] = '\0';
    }
    if (!rc && (o.sources & SRC_COUNTERS)) {
        plan->events = &o.ev;
        counters_probe(&o.cst);
        host_cpu cpu;
        host_cpu_probe(&cpu);
        rc = counters_resolve(events ? events
                                     : counters_default_events(
                                           cpu.vendor, dts[0] == RB_F64),
                              &o.ev, &e);
    }
    for (int i = 0; !rc && i < nsizes; i++) {
        harness_plan p = *plan;
        p.dtypes[0] = dts[0];
        p.ndtypes = ndts;
        for (int d = 0; d < ndts; d++)
            p.dtypes[d] = dts[d];
        for (int op = 0; op < RB_NOPS; op++)
            p.shape[op] = sizes[i];
        rc = harness_check_plan(&p, host_mem_available(), &e);
    }
    if (!rc)
        rc = results_check_dest(RESULTS_ROOT, out, &e);
    roofline roof;
    json_t *ceil_doc = NULL;
    if (!rc && ceilings) {
        char host[64];
        host_name(host, sizeof(host));
        rc = roofline_load(ceilings, host, &roof, &ceil_doc, &e);
    }
    if (rc) {
        hwloc_topology_destroy(o.topo);
        return cmd_error(rc, e.msg);
    }

    json_t *context = cmd_info_context(o.topo);
    char iso[32], dir[4096];
    results_utc(iso, sizeof(iso), NULL, 0);
    json_object_set_new(context, "date", json_string(iso));
    if ((rc = results_make_dir(RESULTS_ROOT, out, dir, sizeof(dir), &e))) {
        json_decref(context);
        json_decref(ceil_doc);
        hwloc_topology_destroy(o.topo);
        return cmd_error(rc, e.msg);
    }
    snprintf(o.workdir, sizeof(o.workdir), "%s", dir);
    if (!json)
        printf("roofbench orders on %s: results in %s\n",
               json_string_value(json_object_get(context, "host")), dir);

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* the host roofline, for the chart */
    if (!ceilings) {
        if (!json) {
            printf("measuring the host roofline for the chart (peak, read "
                   "bandwidth; --ceilings FILE reuses one) ...\n");
            fflush(stdout);
        }
        rc = ceilings_measure_roofline(o.topo, plan->threads, 1, dts, ndts,
                                       context, &ceil_doc, &e);
        if (!rc)
            rc = roofline_from_doc(ceil_doc, "measured ceilings", &roof, &e);
        if (!rc) {
            char *text = json_dumps(ceil_doc, JSON_INDENT(2) |
                                                  JSON_REAL_PRECISION(17));
            rc = results_write_file(dir, "ceilings.json", text, strlen(text),
                                    &e);
            free(text);
        }
        if (rc) {
            json_decref(context);
            json_decref(ceil_doc);
            hwloc_topology_destroy(o.topo);
            return cmd_error(rc, e.msg);
        }
    }
    json_decref(ceil_doc);

    json_t *doc = json_pack("{s:s, s:i, s:o, s:[]}", "schema",
                            "roofbench.orders", "schema_version", 1,
                            "context", context, "sizes");
    json_t *jsources = json_array();
    if (o.sources & SRC_MODEL)
        json_array_append_new(jsources, json_string("model"));
    if (o.sources & SRC_COUNTERS)
        json_array_append_new(jsources, json_string("counters"));
    if (o.sources & SRC_CACHEGRIND)
        json_array_append_new(jsources, json_string("cachegrind"));
    json_object_set_new(doc, "sources", jsources);
    json_object_set_new(
        doc, "geometry",
        json_pack("{s:s, s:{s:f, s:i, s:i}, s:{s:f, s:i, s:i}}", "source",
                  o.geom.source, "l1", "bytes", o.geom.l1.size, "ways",
                  (int)o.geom.l1.assoc, "line", (int)o.geom.l1.line, "ll",
                  "bytes", o.geom.ll.size, "ways", (int)o.geom.ll.assoc,
                  "line", (int)o.geom.ll.line));
    /* the CSV grows in memory and is written once, whole, at the end */
    char *csvbuf = NULL;
    size_t csvlen = 0;
    FILE *csv = open_memstream(&csvbuf, &csvlen);
    if (!csv) {
        json_decref(doc);
        hwloc_topology_destroy(o.topo);
        return cmd_bad("out of memory for orders.csv");
    }
    fprintf(csv, "dtype,n,p,m,kernel,form,flops,t_min_s,gflops,source,"
                 "l1_bytes,ll_bytes,ll_name,intensity_ll\n");
    if (o.sweep && !json)
        printf("\n%5s %-5s %-14s %10s %9s %12s %-10s %8s\n", "n", "dtype",
               "kernel", "t_min(s)", "GFLOP/s", "LL bytes", "source",
               "xcompul");
    int interrupted = 0;
    rc = RB_OK;
    for (int d = 0; d < ndts && !rc && !interrupted; d++)
        for (int i = 0; i < nsizes && !rc && !interrupted; i++)
            rc = run_size(&o, dts[d], sizes[i], json_object_get(doc, "sizes"),
                          csv, &interrupted, &e);
    fclose(csv);
    if (o.sweep && !json && !rc && !interrupted)
        for (int d = 0; d < ndts; d++) {
            printf("\n%s: where each form falls out of the last level (its "
                   "traffic passes 4x the compulsory bytes):\n",
                   rb_dtype_name(dts[d]));
            for (size_t k = 0; k < plan->nkernels; k++) {
                const size_t f = o.falls[dts[d]][k];
                if (f)
                    printf("  %-16s at n = %zu (x%.1f, %s)\n",
                           plan->kernels[k]->name, f, o.falls_x[dts[d]][k],
                           o.falls_src[dts[d]][k]);
                else
                    printf("  %-16s stays within 4x of compulsory up to n = "
                           "%zu\n",
                           plan->kernels[k]->name, sizes[nsizes - 1].n);
            }
        }
    const char *status = rc ? "failed" : interrupted ? "interrupted" : "complete";
    json_object_set_new(doc, "status", json_string(status));
    if (rc)
        json_object_set_new(doc, "error", json_string(e.msg));
    /* the CSV and JSON, written as new files */
    rb_err we;
    int wrc = RB_OK;
    {
        wrc = results_write_file(dir, "orders.csv", csvbuf, csvlen, &we);
        free(csvbuf);
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        if (!wrc)
            wrc = results_write_file(dir, "orders.json", text, strlen(text),
                                     &we);
        if (json && !wrc)
            puts(text);
        free(text);
    }
    /* the charts: one per dtype and size */
    if (!wrc && !rc && !interrupted) {
        char roofs[512] = "";
        double peak = 0.0;
        const roof_team *t = &roof.teams[0];
        for (size_t l = 0; l < t->nlevels; l++)
            snprintf(roofs + strlen(roofs), sizeof(roofs) - strlen(roofs),
                     "%s%s %.1f", l ? " " : "", t->levels[l].name,
                     t->levels[l].gbs);
        char charts[600] = "", peaks[128] = "";
        for (int d = 0; d < ndts; d++) {
            peak = t->peak_gflops[dts[d]];
            snprintf(peaks + strlen(peaks), sizeof(peaks) - strlen(peaks),
                     "%s%s %.3f", d ? " " : "", rb_dtype_name(dts[d]), peak);
            for (int i = 0; i < nsizes; i++)
                snprintf(charts + strlen(charts),
                         sizeof(charts) - strlen(charts), "%s%s %zu",
                         charts[0] ? " " : "", rb_dtype_name(dts[d]),
                         sizes[i].n);
        }
        char vars[1400], why[256];
        int made = 0;
        snprintf(vars, sizeof(vars), "charts='%s'; peaks='%s'; roofs='%s'",
                 charts, peaks, roofs);
        rb_err pe;
        if (plot_run(dir, "plot-orders.gp", rb_plot_orders_gp, vars, &made,
                     why, sizeof(why), &pe) != RB_OK) {
            if (!json)
                printf("chart: %s\n", pe.msg);
        } else if (!made) {
            if (!json)
                printf("chart skipped: %s\n", why);
        } else if (!json && nsizes == 1) {
            for (int d = 0; d < ndts; d++)
                printf("chart: %s/orders-%s-%zu.png and .svg\n", dir,
                       rb_dtype_name(dts[d]), sizes[0].n);
        }
        if (!json && nsizes > 1 && made)
            printf("charts: %s/orders-<dtype>-<n>.png and .svg\n", dir);
    }
    json_decref(doc);
    hwloc_topology_destroy(o.topo);
    if (wrc)
        return cmd_error(wrc, we.msg);
    if (rc)
        return cmd_error(rc, e.msg);
    if (interrupted) {
        fprintf(stderr, "roofbench: interrupted: partial results in %s\n",
                dir);
        return 130;
    }
    if (!json)
        printf("Written: %s/orders.json, orders.csv\n", dir);
    return 0;
}
