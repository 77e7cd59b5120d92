/* Four orders, same FLOPs: each matmul form verified and timed by the
 * harness, then its memory traffic taken from up to three independent
 * sources: hardware counters (PAPI, in the harness's counted sample),
 * cache simulation (cachegrind, simulate.h) and the analytic model
 * (kernels/traffic.c). The result is a struct; report_orders.h renders
 * it. */
#ifndef ROOFBENCH_ORDERS_H
#define ROOFBENCH_ORDERS_H

#include <hwloc.h>

#include "counters.h"
#include "harness.h"
#include "simulate.h"

enum { ORDERS_MODEL = 1, ORDERS_COUNTERS = 2, ORDERS_CACHEGRIND = 4 };
enum { ORDERS_MAX_FORMS = 8, ORDERS_MAX_SIZES = 32 };

typedef struct {
    harness_plan timing; /* kernels, threads, min time, samples,
                            seed; dtype and shape set per size     */
    int sources;         /* ORDERS_* bits                          */
    sim_geometry geom;
    counters_events ev; /* with ORDERS_COUNTERS                   */
    counters_status cst;
    char valgrind[512]; /* with ORDERS_CACHEGRIND                 */
    char exe[4096];
    char workdir[4200]; /* where cachegrind writes (and removes)  */
    rb_dtype dtypes[RB_NDTYPES];
    int ndtypes;
    rb_shape sizes[ORDERS_MAX_SIZES];
    int nsizes;
    int sweep; /* sizes from --sweep                     */
} orders_plan;

typedef struct {
    const rb_kernel *k;
    double flops, t_min, t_med, gflops;
    int have_model;
    double model_l1, model_ll; /* bytes                                  */
    int have_sim;
    sim_counts sim;
    double sim_l1, sim_ll;
    int have_ctr;
    double ctr[COUNTERS_MAX]; /* per call                               */
    char ctr_flag[256];       /* a failed self-check or a limit         */
} orders_form;

typedef struct {
    rb_dtype dt;
    rb_shape s;
    orders_form forms[ORDERS_MAX_FORMS];
    int nforms;
    int complete;             /* every form timed and every source read */
    rb_blocking blk;          /* the blocks the model used              */
    char simulated_path[256]; /* what the cachegrind child ran          */
} orders_size;

typedef struct {
    orders_size sizes[RB_NDTYPES * ORDERS_MAX_SIZES];
    int nsizes;
    /* the sweep: per dtype and form, the first size whose last-level
     * traffic passes four times the compulsory bytes (0: none) */
    size_t falls[RB_NDTYPES][ORDERS_MAX_FORMS];
    double falls_x[RB_NDTYPES][ORDERS_MAX_FORMS];
    char falls_src[RB_NDTYPES][ORDERS_MAX_FORMS][16];
    int interrupted;
} orders_result;

/* The plan of one size, as the harness takes it. */
void orders_size_plan(const orders_plan *plan, rb_dtype dt, rb_shape s,
                      harness_plan *out);

/* Runs every dtype and size (res zeroed by the caller). A size joins the
 * result when its timing starts, and each form when it is timed, under
 * interrupt_lock(); on an interrupt the result holds what is finished.
 * RB_EMEASURE when a form fails verification or the FLOP counts differ. */
int orders_measure(hwloc_topology_t topo, const orders_plan *plan,
                   orders_result *res, rb_err *e);

/* The best source of a form's last-level bytes: counters, then
 * cachegrind, then the model; -1 with *src "none" when there is none. */
double orders_best_ll(const orders_form *f, const orders_plan *plan,
                      const char **src);

/* A counter's count per call by kind, or -1 when it was not counted. */
double orders_counter(const orders_form *f, const counters_events *ev,
                      counter_kind kind);

/* The form that moves least at the last level by the simulation (when it
 * ran) or the model, the one that moves most, and the worst factor between
 * model and simulation at each level; ibest < 0 when neither source has a
 * figure. */
typedef struct {
    int use_sim, ibest, iworst;
    double least, worst; /* last-level bytes of the two            */
    double least_model, least_sim;
    double agree_ll, agree_l1; /* 0 when not both sources ran            */
} orders_summary;

void orders_summarize(const orders_size *z, orders_summary *out);

/* The compulsory bytes of a size: A and B read, C written, once. */
double orders_compulsory(const orders_size *z);

#endif
