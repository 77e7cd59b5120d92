#include "sweeprun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "progress.h"
#include "region.h"
#include "timer.h"

/* The P = M of op's own matrices at a level, dtype and team: the
 * contrast's where the level gives it some, else 0 (the weights') */
static uint64_t own_side(const sweep_plan *plan, rb_op op, int level, int d,
                         int t)
{
    return op == RB_OP_BATCHED ? plan->levels[level].contrast[d][t] : 0;
}

/* The shape of op's kernels at one point */
static rb_shape shape_of(const sweep_plan *plan, rb_op op, int level, int d,
                         int t, uint64_t b)
{
    const sweep_weights *w = &plan->levels[level];
    const uint64_t own = own_side(plan, op, level, d, t);
    if (own)
        return (rb_shape){(size_t)b, (size_t)own, (size_t)own};
    return (rb_shape){(size_t)b, (size_t)w->p[d][t], (size_t)w->m[d][t]};
}

/* The working set of kernel k at one point: its operands (the counts'
 * compulsory bytes), what the contrast's budget is about; the memory
 * check (harness_check_plan) adds the reference's. */
static int working_set(const sweep_plan *plan, const rb_kernel *k, int level,
                       int d, int t, uint64_t b, uint64_t *bytes)
{
    rb_counts c;
    if (k->counts(shape_of(plan, k->op, level, d, t, b),
                  rb_dtype_size(plan->dtypes[d]), &c))
        return -1;
    *bytes = c.bytes;
    return 0;
}

/* The harness plan of one point: the kernels that run there (the contrast
 * while it fits its budget), one dtype, one team. Returns how many. */
static size_t point_plan(const sweep_plan *plan, int level, int d, int t,
                         uint64_t b, harness_plan *hp)
{
    memset(hp, 0, sizeof(*hp));
    for (size_t i = 0; i < plan->nkernels; i++) {
        const rb_kernel *k = plan->kernels[i];
        uint64_t need;
        if (k->op == RB_OP_BATCHED &&
            (working_set(plan, k, level, d, t, b, &need) ||
             need > plan->batched_budget))
            continue;
        hp->kernels[hp->nkernels++] = k;
    }
    hp->dtypes[0] = plan->dtypes[d];
    hp->ndtypes = 1;
    hp->threads[0] = plan->threads[t];
    hp->nthreads = 1;
    for (int op = 0; op < RB_NOPS; op++) {
        const rb_shape s = shape_of(plan, (rb_op)op, level, d, t, b);
        hp->shape[op] = s;
        snprintf(hp->shape_source[op], sizeof(hp->shape_source[op]),
                 "%s weights, B = %llu: shape %zu,%zu,%zu%s",
                 plan->levels[level].name, (unsigned long long)b, s.n, s.p,
                 s.m,
                 own_side(plan, (rb_op)op, level, d, t)
                     ? " (the contrast's own P = M)"
                     : "");
    }
    hp->min_time = plan->min_time;
    hp->samples = plan->samples;
    hp->seed = plan->seed;
    hp->verify_rows = plan->verify_rows;
    /* the matmul rows share their weights: the probe streams them with B
     * FMAs a weight (the contrast's rows would only read) */
    hp->fmastream = 1u << RB_OP_MATMUL;
    return hp->nkernels;
}

int sweep_check_plan(const sweep_plan *plan, uint64_t mem_available, rb_err *e)
{
    for (int l = 0; l < plan->nlevels; l++)
        for (int d = 0; d < plan->ndtypes; d++)
            for (int t = 0; t < plan->nthreads; t++) {
                harness_plan hp;
                const uint64_t b = plan->batch[plan->nbatch - 1];
                uint64_t need = 0;
                if (point_plan(plan, l, d, t, b, &hp) == 0) {
                    working_set(plan, plan->kernels[0], l, d, t, b, &need);
                    return rb_fail(
                        e, RB_EINPUT,
                        "--batch: at B = %llu batched (every row its own "
                        "[P,M] matrix) needs %.3g GB, past its budget of "
                        "%.3g GB, and no other kernel is asked for: lower "
                        "the largest B or add a matmul kernel",
                        (unsigned long long)b, (double)need / 1e9,
                        (double)plan->batched_budget / 1e9);
                }
                if (harness_check_plan(&hp, mem_available, e))
                    return RB_EINPUT;
            }
    return RB_OK;
}

/* ---- running ------------------------------------------------------------- */

typedef struct {
    sweep_result *res;
    int level;
    uint64_t b;
    int round;
    /* from the second round on: where the point's rows from the first
     * round are, and how many rows this round has brought */
    size_t first, count, seen;
    int failed; /* out of memory for a point */
} point_ctx;

/* The worse of two checks of the same kernel on the same shape. */
static ref_result worse_check(ref_result x, ref_result y)
{
    if (!y.passed || (x.passed && y.max_err > x.max_err))
        return y;
    return x;
}

/* Pools row's samples (this round's) into point p. The row's other fields
 * come from the round whose sample is the best, the checks are the worse
 * of the two. Takes row->samples. Returns -1 out of memory. */
static int pool_row(sweep_point *p, const harness_row *row, int round)
{
    const size_t had = (size_t)p->row.nsamples,
                 n = had + (size_t)row->nsamples;
    double *s = realloc(p->row.samples, n * sizeof(*s));
    if (!s) {
        free(row->samples);
        return -1;
    }
    p->row.samples = s;
    int *rd = realloc(p->round, n * sizeof(*rd));
    if (!rd) {
        free(row->samples);
        return -1;
    }
    p->round = rd;
    memcpy(s + had, row->samples, (size_t)row->nsamples * sizeof(*s));
    for (size_t i = had; i < n; i++)
        rd[i] = round;
    free(row->samples);
    const ref_result
        before = worse_check(p->row.check_before, row->check_before),
        after = worse_check(p->row.check_after, row->check_after);
    if (row->time.min < p->row.time.min)
        p->row = *row;
    p->row.samples = s;
    p->row.nsamples = (int)n;
    p->row.check_before = before;
    p->row.check_after = after;
    stats_summarize(s, n, &p->row.time);
    return 0;
}

/* Called by the harness under interrupt_lock(): the point joins the
 * result there, so a rescue sees it. */
static void on_row(const harness_row *row, void *arg)
{
    point_ctx *pc = arg;
    sweep_result *r = pc->res;
    if (pc->round > 0) {
        /* the same kernels come in the same order every round */
        const size_t i = pc->first + pc->seen++;
        if (pc->seen <= pc->count && r->points[i].row.kernel == row->kernel) {
            if (pool_row(&r->points[i], row, pc->round))
                pc->failed = 1;
            return;
        }
        free(row->samples);
        pc->failed = 1;
        return;
    }
    if (r->npoints == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 64;
        sweep_point *p = realloc(r->points, cap * sizeof(*p));
        if (!p) {
            free(row->samples);
            pc->failed = 1;
            return;
        }
        r->points = p;
        r->cap = cap;
    }
    int *rd = calloc(row->nsamples > 0 ? (size_t)row->nsamples : 1,
                     sizeof(*rd));
    if (!rd) {
        free(row->samples);
        pc->failed = 1;
        return;
    }
    r->points[r->npoints++] = (sweep_point){
        .level = pc->level, .b = pc->b, .row = *row, .round = rd};
}

/* A rough cost of a point in seconds, for the estimate of what is left:
 * each kernel at its roofline bound (or 10 GFLOP/s without one) for the
 * calls of a row (warm-up, two checks, the samples), plus set-up. */
static double point_cost(const sweep_plan *plan, const roofline *roof,
                         const harness_plan *hp)
{
    double s = 0.05;
    for (size_t i = 0; i < hp->nkernels; i++) {
        rb_counts c;
        const rb_kernel *k = hp->kernels[i];
        if (k->counts(hp->shape[k->op], rb_dtype_size(hp->dtypes[0]), &c))
            continue;
        roof_bound bd;
        char why[128];
        double rate = 10.0;
        if (roof && roofline_bound(roof, hp->threads[0], hp->dtypes[0], k->access,
                                   c.flops, c.bytes, 0.0, &bd, why,
                                   sizeof(why)) == 0)
            rate = bd.attainable_gflops / 2.0;
        const double call = (double)c.flops / (rate * 1e9);
        s += (call > plan->min_time ? call : plan->min_time) *
                 (plan->samples + 4) +
             (double)c.bytes * 1e-9; /* filling and the reference */
    }
    return s;
}

static void say_point(const sweep_result *res, const sweep_plan *plan,
                      size_t first, size_t n, int round, size_t i,
                      size_t total, double elapsed, double left)
{
    char rates[512] = "", rounds[48] = "";
    if (n == 0)
        return;
    const rb_shape s = res->points[first].row.shape;
    for (size_t j = first; j < first + n; j++) {
        const harness_row *r = &res->points[j].row;
        snprintf(rates + strlen(rates), sizeof(rates) - strlen(rates),
                 "%s%s %.2f", j > first ? ", " : "", r->kernel->name,
                 harness_row_gflops(r));
        /* the contrast on matrices of its own */
        if (r->shape.p != s.p || r->shape.m != s.m)
            snprintf(rates + strlen(rates), sizeof(rates) - strlen(rates),
                     " (P=%zu M=%zu)", r->shape.p, r->shape.m);
    }
    if (plan->rounds > 1)
        snprintf(rounds, sizeof(rounds), " (round %d/%d, best so far)",
                 round + 1, plan->rounds);
    const sweep_point *p = &res->points[first];
    progress_say("point %zu/%zu  %s %d thread%s B=%llu P=%zu M=%zu: %s "
                 "GFLOP/s%s  (%.0f s, about %.0f s left)",
                 i, total, rb_dtype_name(p->row.dtype), p->row.threads,
                 rb_plural(p->row.threads), (unsigned long long)p->b,
                 p->row.shape.p, p->row.shape.m, rates, rounds, elapsed,
                 left);
}

/* Raises *most to the largest memory a kernel of point hp needs
 * (harness_kernel_bytes: the reference's results and the larger of its
 * inputs and the operands); -1 where that cannot be worked out. */
static int point_need(const harness_plan *hp, uint64_t *most)
{
    for (size_t k = 0; k < hp->nkernels; k++) {
        uint64_t need;
        if (harness_kernel_bytes(hp->kernels[k], hp->shape[hp->kernels[k]->op],
                                 hp->dtypes[0], hp->threads[0], hp->verify_rows,
                                 &need))
            return -1;
        if (need > *most)
            *most = need;
    }
    return 0;
}

/* One grid point in one round: its index g in the grid, its level l,
 * dtype d, team t and batch b, and the round r. */
typedef struct {
    size_t g;
    int l, d, t, r;
    uint64_t b;
} grid_at;

static size_t grid_points(const sweep_plan *plan)
{
    return (size_t)plan->nlevels * (size_t)plan->ndtypes *
           (size_t)plan->nthreads * plan->nbatch;
}

/* Point g of the grid in round r, the grid in the order the sweep runs it:
 * weight levels, then dtypes, then teams, the batches innermost. */
static grid_at grid_point(const sweep_plan *plan, size_t g, int r)
{
    grid_at at = {.g = g, .r = r};
    size_t q = g;
    at.b = plan->batch[q % plan->nbatch];
    q /= plan->nbatch;
    at.t = (int)(q % (size_t)plan->nthreads);
    q /= (size_t)plan->nthreads;
    at.d = (int)(q % (size_t)plan->ndtypes);
    at.l = (int)(q / (size_t)plan->ndtypes);
    return at;
}

/* The whole plan's estimated cost in seconds (all its rounds), and the
 * mapping to keep for its points: with room for a region's layout, an
 * upper bound of any one mapping they make (0: unknown, and then nothing
 * is kept). */
static double plan_totals(const sweep_plan *plan, const roofline *roof,
                          int rounds, size_t *reserve)
{
    double all = 0.0;
    uint64_t most = 0;
    int most_known = 1;
    harness_plan hp;
    for (size_t g = 0; g < grid_points(plan); g++) {
        const grid_at at = grid_point(plan, g, 0);
        point_plan(plan, at.l, at.d, at.t, at.b, &hp);
        all += point_cost(plan, roof, &hp) * rounds;
        most_known &= point_need(&hp, &most) == 0;
    }
    const uint64_t slack = 2 * (uint64_t)RB_REGION_BLOCK;
    *reserve =
        most_known && most < SIZE_MAX - slack ? (size_t)(most + slack) : 0;
    return all;
}

/* Where the sweep stands: the estimate, the progress so far, and where
 * each grid point's rows are (from the first round). */
typedef struct {
    double all, done, t0;
    size_t index, total;
    size_t *first, *count;
} sweep_pace;

/* run_point's answer when an interrupt stopped the point (the RB_ codes
 * are 0 and negative) */
enum { POINT_INTERRUPTED = 1 };

/* Point at in its round: planned, run by the harness, its rows pooled,
 * the progress said. POINT_INTERRUPTED where an interrupt stopped it,
 * else an RB_ code. */
static int run_point(hwloc_topology_t topo, const sweep_plan *plan,
                     const roofline *roof, sweep_result *res, grid_at at,
                     sweep_pace *pace, rb_err *e)
{
    harness_plan hp;
    const size_t n = point_plan(plan, at.l, at.d, at.t, at.b, &hp);
    interrupt_lock();
    if (at.r == 0) {
        res->skipped_batched += plan->nkernels - n;
        pace->first[at.g] = res->npoints;
    }
    interrupt_unlock();
    point_ctx pc = {.res = res, .level = at.l, .b = at.b, .round = at.r,
                    .first = pace->first[at.g], .count = pace->count[at.g]};
    harness_result hr = {0};
    int rc = harness_run(topo, &hp, &hr, on_row, &pc, e);
    free(hr.rows); /* the samples now belong to res */
    if (!rc && pc.failed)
        rc = rb_fail(e, RB_EINPUT, "out of memory for the sweep's points");
    if (rc)
        return rc;
    if (hr.interrupted)
        return POINT_INTERRUPTED;
    if (at.r == 0)
        pace->count[at.g] = res->npoints - pace->first[at.g];
    pace->done += point_cost(plan, roof, &hp);
    const double el = timer_now() - pace->t0;
    say_point(res, plan, pace->first[at.g], pace->count[at.g], at.r,
              ++pace->index, pace->total, el,
              pace->done > 0.0 ? el * (pace->all - pace->done) / pace->done
                               : 0.0);
    return RB_OK;
}

int sweep_run(hwloc_topology_t topo, const sweep_plan *plan,
              const roofline *roof, sweep_result *res, rb_err *e)
{
    const size_t grid = grid_points(plan);
    const int rounds = plan->rounds > 0 ? plan->rounds : 1;
    size_t reserve;
    sweep_pace pace = {.all = plan_totals(plan, roof, rounds, &reserve),
                       .total = grid * (size_t)rounds,
                       .first = calloc(grid ? grid : 1, sizeof(size_t)),
                       .count = calloc(grid ? grid : 1, sizeof(size_t))};
    if (!pace.first || !pace.count) {
        free(pace.first);
        free(pace.count);
        return rb_fail(e, RB_EINPUT, "out of memory for the sweep's points");
    }
    /* The points map their references' inputs and their operands afresh,
     * of the same few sizes again and again: kept mappings spare the page
     * faults (region.h; on a Xeon guest whose hypervisor takes freed pages
     * back, one DRAM configuration's round of the default sweep, f32 at 1
     * thread, took 45 and 38 s without them, 34 and 35 s with them). Not
     * where the memory has more than one NUMA node: a kept page stays on
     * the node where it was first touched, by whichever team or reference
     * touched it first. */
    rb_region_park(
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) <= 1 ? reserve : 0);
    pace.t0 = timer_now();
    int rc = RB_OK;
    for (int r = 0; r < rounds && rc == RB_OK; r++)
        for (size_t g = 0; g < grid && rc == RB_OK; g++)
            rc = interrupt_requested()
                     ? POINT_INTERRUPTED
                     : run_point(topo, plan, roof, res, grid_point(plan, g, r),
                                 &pace, e);
    rb_region_park(0);
    free(pace.first);
    free(pace.count);
    interrupt_lock();
    res->interrupted = interrupt_requested() != 0;
    interrupt_unlock();
    return rc == POINT_INTERRUPTED ? RB_OK : rc;
}

void sweep_result_free(sweep_result *res)
{
    for (size_t i = 0; i < res->npoints; i++) {
        free(res->points[i].row.samples);
        free(res->points[i].round);
    }
    free(res->points);
    memset(res, 0, sizeof(*res));
}
