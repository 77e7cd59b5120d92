/* roofbench sweep: [B,P] x [P,M] over a grid of batch sizes B, with the
 * weights in a chosen memory level, every point verified and timed; the
 * knees of each curve beside the ridge the host roofline predicts, the
 * knees of two levels beside their bandwidths, and the reference
 * profiles' thresholds. */
#include <cblas.h>
#include <errno.h>
#include <hwloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "flags.h"
#include "host.h"
#include "interrupt.h"
#include "parse.h"
#include "pin.h"
#include "profile.h"
#include "report_sweep.h"
#include "session.h"
#include "sweep.h"
#include "sweeprun.h"
#include "text.h"

typedef struct {
    const char *batch, *weights, *kernel, *dtype, *threads, *profile,
        *profiles, *openblas, *ceilings, *out;
    uint64_t p, m, samples, rounds, seed;
    double min_time;
    int quick, json;
} sweep_opts;

#define OFF(f) offsetof(sweep_opts, f)

static const flag_spec sweep_flags[] = {
    {.name = "batch",
     .meta = "RANGE",
     .type = FLAG_TEXT,
     .off = OFF(batch),
     .def = "1:64",
     .def_quick = "1:16",
     .help = "batch sizes B: LO:HI (2^k and 3 x 2^(k-1) between: 1, 2, 3, "
             "4, 6, 8, 12, ...), LO:HI:xF (geometric), LO:HI:+S "
             "(arithmetic) or a list 1,5,7"},
    {.name = "weights",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(weights),
     .def = "L2,DRAM",
     .def_quick = "L2",
     .help = "memory levels the weight matrix [P,M] should sit in (L1, L2, "
             "L3, DRAM): P = M is chosen per level, dtype and thread count "
             "from the host read roof's plateaus (a cache's: half of where it "
             "ends; DRAM's: its middle, its figure the median of its "
             "points, for every thread count the largest among those "
             "swept), avoiding "
             "rows a multiple of 2 KiB apart where the level allows (their "
             "lines would share a few cache sets)"},
    {.name = "p",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(p),
     .cmin = 1,
     .cmax = UINT32_MAX,
     .help = "the contraction size P, instead of --weights (M defaults to "
             "it)"},
    {.name = "m",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(m),
     .cmin = 1,
     .cmax = UINT32_MAX,
     .help = "the output columns M, instead of --weights (P defaults to "
             "it)"},
    {.name = "kernel",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(kernel),
     .def = "matmul_blocked,matmul_openblas,batched",
     .help = "matmul kernels (roofbench list; matmul: all of them) and the "
             "contrast batched (bp,bpm->bm, every row its own [P,M] matrix, "
             "run while its working set fits a quarter of the memory "
             "available, at most 6 GB; beside DRAM weights on matrices of "
             "its own, the smallest past twice the last cache)"},
    FLAG_DTYPE(sweep_opts, dtype, "f32,f64"),
    FLAG_THREADS(sweep_opts, threads,
                 "thread counts, each 1 to the number of cores; one thread "
                 "per core, pinned"),
    FLAG_MIN_TIME(sweep_opts, min_time, "0.01", "0.002", 1e-4,
                  "seconds one sample must last"),
    FLAG_SAMPLES(sweep_opts, samples, "5", "3", 100000,
                 "timed samples per point and round, at least 3"),
    {.name = "rounds",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(rounds),
     .def = "1",
     .def_quick = "1",
     .cmin = 1,
     .cmax = 100,
     .help = "times the whole grid is run, one round after the other, each "
             "point's samples pooled over them: a slow spell of a shared "
             "machine then has to last a whole round to own all of a "
             "point's samples (each round verifies again; the tables say "
             "how far apart the rounds' bests came, most of all at the "
             "points under 70% of the roof)"},
    FLAG_SEED(sweep_opts, seed),
    FLAG_QUICK(sweep_opts, quick,
               "batch 1:16, L2-resident weights, short samples"),
    {.name = "profile",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(profile),
     .def = "host,tpu-v5e,h100-sxm",
     .help = "reference profiles whose predicted threshold B is printed and "
             "drawn, each as a fraction of its own peak (host: this "
             "machine's measured roofline)"},
    FLAG_PROFILES(sweep_opts, profiles),
    {.name = "openblas",
     .meta = "CORE",
     .type = FLAG_TEXT,
     .off = OFF(openblas),
     .def = "env",
     .help = "env: OpenBLAS as the environment leaves it; best: with "
             "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset, so that it picks "
             "its own core for this CPU, and, where that core leaves out "
             "vector instructions the CPU runs (a model its release does "
             "not know), OPENBLAS_CORETYPE set to its core for them (the "
             "sweep starts again for each)"},
    FLAG_CEILINGS(sweep_opts, ceilings,
                  "the host roofline from an earlier `roofbench ceilings` "
                  "(its ceilings.json); without it, sweep measures the roofs "
                  "it needs first (peak; read, read2, read4, copy, triad and "
                  "schoenauer bandwidth per level)"),
    FLAG_OUT(sweep_opts, out),
    FLAG_JSON(sweep_opts, json,
              "print the sweep document on stdout instead of the tables"),
};

static const flag_table sweep_table = {
    "sweep",
    "usage: roofbench sweep [options]",
    "Batch size is the lever: [B,P] x [P,M] does 2BPM FLOPs on s(BP + PM + "
    "BM) bytes,\nso its intensity grows with B while the weights dominate, "
    "and it turns\ncompute-bound once B passes the ridge. For each weight "
    "level, dtype, thread\ncount and B this verifies and times every kernel "
    "(the harness of roofbench run),\nplaces each point on the host "
    "roofline, and finds each curve's knees: the B\nat which it reaches 50% "
    "and 90% of its plateau, beside the B where the roof\nturns "
    "compute-bound (exact bytes; the roof the points are judged against:\n"
    "the mixed roof, as the matmuls write C). Writes sweep.json (every "
    "sample),\nsweep.csv, sweep-samples.csv and a chart (sweep.png, "
    "sweep.svg) to a new run\nfolder.",
    sweep_flags,
    sizeof(sweep_flags) / sizeof(sweep_flags[0]),
    "Sizes take K, M, G suffixes (x1024). The default, one round, took "
    "about two\nminutes on two cores: about half a minute measuring the "
    "roofs (--ceilings\nskips that), the rest points (479 to 727 MB of DRAM "
    "weights on a Zen 5 guest,\nand the contrast's own 64 matrices of 69 MB "
    "at B = 64); `roofbench all` runs\ntwo rounds, about three minutes "
    "(--quick: seconds).\nExit "
    "status: 0 success, 1 a kernel failed verification, 2 "
    "bad input or an\nunusable environment, 130 or 143 after SIGINT or "
    "SIGTERM (the finished points\nare kept).",
    0};

/* ---- the plan -------------------------------------------------------------- */

static const char *const level_names[] = {"L1", "L2", "L3", "DRAM"};
static const hwloc_obj_type_t level_cache[] = {
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_MACHINE};

/* --weights: names this machine has (per hwloc), before anything runs. */
static int plan_levels(const rb_machine *m, const sweep_opts *o,
                       const flag_seen *seen, sweep_plan *plan, rb_err *e)
{
    const int given = o->p || o->m;
    if (given && flags_given(&sweep_table, seen, "weights"))
        return rb_fail(e, RB_EINPUT,
                       "--weights and --p/--m both given: choose one");
    if (given) {
        sweep_weights *w = &plan->levels[0];
        snprintf(w->name, sizeof(w->name), "given");
        for (int d = 0; d < RB_NDTYPES; d++)
            for (int t = 0; t < HARNESS_MAX_THREADS; t++) {
                w->p[d][t] = o->p ? o->p : o->m;
                w->m[d][t] = o->m ? o->m : o->p;
            }
        plan->nlevels = 1;
        return RB_OK;
    }
    char buf[128], *items[SWEEP_MAX_LEVELS + 1];
    const int k = parse_list("--weights", o->weights, buf, sizeof(buf), items,
                             SWEEP_MAX_LEVELS + 1, e);
    if (k < 0)
        return RB_EINPUT;
    if (k > SWEEP_MAX_LEVELS)
        return rb_fail(e, RB_EINPUT, "--weights '%s': more than %d levels",
                       o->weights, SWEEP_MAX_LEVELS);
    for (int i = 0; i < k; i++) {
        int which = -1;
        for (int j = 0; j < (int)(sizeof(level_names) / sizeof(*level_names));
             j++)
            if (strcmp(items[i], level_names[j]) == 0)
                which = j;
        if (which < 0)
            return rb_fail(e, RB_EINPUT,
                           "--weights '%s': unknown level (L1, L2, L3 or DRAM)",
                           items[i]);
        if (level_cache[which] != HWLOC_OBJ_MACHINE &&
            hwloc_get_nbobjs_by_type(m->topo, level_cache[which]) <= 0)
            return rb_fail(e, RB_EINPUT,
                           "--weights %s: this machine has no %s cache (hwloc)",
                           items[i], items[i]);
        snprintf(plan->levels[i].name, sizeof(plan->levels[i].name), "%s",
                 items[i]);
    }
    plan->nlevels = k;
    return RB_OK;
}

static int make_plan(const rb_machine *m, const sweep_opts *o,
                     const flag_seen *seen, sweep_plan *plan, rb_err *e)
{
    memset(plan, 0, sizeof(*plan));
    plan->samples = (int)o->samples;
    plan->rounds = (int)o->rounds;
    plan->seed = o->seed;
    plan->min_time = o->min_time;
    plan->verify_rows = 2; /* the first and the last row group's last row */
    const uint64_t avail = host_mem_available();
    /* every point fills its B matrices afresh (0.7 ns an element on a
     * Xeon guest with AVX-512, harness_fill); beside DRAM weights the
     * contrast's own matrices fit it up to B = 64 on a 32 MiB L3 (69 to
     * 71 MB each: 4.4 to 4.6 GB) */
    const uint64_t most = 6000000000ull;
    plan->batched_budget = avail / 4 < most ? avail / 4 : most;
    int rc = sweep_grid_parse("--batch", o->batch, plan->batch, &plan->nbatch, e);
    /* all: every matmul kernel and the contrast (batched_openblas is not
     * one: it is OpenBLAS looping over the rows) */
    const char *kernels = strcmp(o->kernel, "all") == 0 ? "matmul,batched"
                                                        : o->kernel;
    if (!rc)
        rc = flags_kernels("--kernel", kernels,
                           (1u << RB_OP_MATMUL) | (1u << RB_OP_BATCHED),
                           "sweep takes matmul kernels and batched", 0,
                           plan->kernels, &plan->nkernels, SWEEP_MAX_KERNELS,
                           e);
    for (size_t i = 0; !rc && i < plan->nkernels; i++)
        if (plan->kernels[i]->op == RB_OP_BATCHED &&
            strcmp(plan->kernels[i]->name, "batched") != 0)
            rc = rb_fail(e, RB_EINPUT,
                         "--kernel %s: the contrast is batched (bp,bpm->bm); "
                         "sweep takes matmul kernels and batched",
                         plan->kernels[i]->name);
    if (!rc)
        rc = parse_dtypes("--dtype", o->dtype, plan->dtypes, &plan->ndtypes, e);
    if (!rc)
        rc = flags_threads(m, o->threads, plan->threads, HARNESS_MAX_THREADS,
                           &plan->nthreads, e);
    if (!rc)
        rc = plan_levels(m, o, seen, plan, e);
    if (!rc && strcmp(o->openblas, "env") != 0 &&
        strcmp(o->openblas, "best") != 0)
        rc = rb_fail(e, RB_EINPUT, "--openblas '%s': env or best", o->openblas);
    if (!rc)
        rc = flags_min_time(plan->min_time, e);
    return rc;
}

/* The cache levels a team of t threads holds, as the ceilings named the
 * roofline's levels (host_team_caches over the PUs the team is pinned
 * to): *n levels, L1 first. */
static int team_levels(const rb_machine *m, int t, double level[5], size_t *n,
                       rb_err *e)
{
    pin_plan pins;
    if (pin_plan_make(m->topo, t, &pins, e))
        return RB_EINPUT;
    *n = host_team_caches(m->topo, m->cpu.hypervisor, pins.pu, pins.nthreads,
                          level);
    pin_plan_free(&pins);
    return RB_OK;
}

/* What cache level `name` (L1 to L3) of a team's n levels holds; 0 for
 * DRAM or a level hwloc does not know. */
static double level_bytes(const char *name, const double *level, size_t n)
{
    unsigned k;
    char tail;
    if (sscanf(name, "L%u%c", &k, &tail) != 1 || k < 1 || k > n)
        return 0.0;
    return level[k - 1];
}

/* P = M per level, dtype and team from the roofline; then every point
 * checked against the memory. */
static int size_levels(const rb_machine *m, const roofline *roof,
                       sweep_plan *plan, rb_err *e)
{
    /* DRAM weights past the largest middle of DRAM among the teams */
    const double dram_floor =
        sweep_dram_floor(roof, plan->threads, plan->nthreads);
    /* only levels to size need a team's roofline and caches */
    int sized = 0;
    for (int l = 0; l < plan->nlevels; l++)
        sized |= strcmp(plan->levels[l].name, "given") != 0;
    /* each team's roofline and caches once, for every level and dtype */
    for (int t = 0; sized && t < plan->nthreads; t++) {
        const roof_team *team = sweep_team(roof, plan->threads[t]);
        double level[5];
        size_t n;
        if (!team)
            return rb_fail(e, RB_EINPUT,
                           "--ceilings: no roofline for %d thread%s",
                           plan->threads[t], rb_plural(plan->threads[t]));
        if (team_levels(m, plan->threads[t], level, &n, e))
            return RB_EINPUT;
        const double llc = n > 0 ? level[n - 1] : 0.0;
        for (int l = 0; l < plan->nlevels; l++) {
            sweep_weights *w = &plan->levels[l];
            if (strcmp(w->name, "given") == 0)
                continue;
            const double cache = level_bytes(w->name, level, n);
            for (int d = 0; d < plan->ndtypes; d++) {
                const unsigned el = (unsigned)rb_dtype_size(plan->dtypes[d]);
                char why[160];
                uint64_t side;
                if (sweep_weights_side(team, w->name, el, cache, dram_floor,
                                       &side, why, sizeof(why)))
                    return rb_fail(e, RB_EINPUT, "--weights %s: %s", w->name,
                                   why);
                w->p[d][t] = w->m[d][t] = side;
                /* beside DRAM weights the contrast's own matrices, each
                 * still past the team's last cache, so that the batch of
                 * them fits its budget up to large B: on the weights' own
                 * (hundreds of MB) it ran at two or three B only; none
                 * (0) where they would be the weights' own */
                if (strcmp(w->name, "DRAM") == 0) {
                    const uint64_t c =
                        sweep_contrast_side(side, el, plan->threads[t], llc);
                    w->contrast[d][t] = c != side ? c : 0;
                }
            }
        }
    }
    return sweep_check_plan(plan, host_mem_available(), e);
}

/* The same command again in a new process image, with the environment as
 * the caller left it (OpenBLAS reads it when it loads). */
static int start_again(const flag_seen *seen, const char *what, rb_err *e)
{
    char **argv = calloc((size_t)seen->argc + 2, sizeof(*argv));
    if (!argv)
        return rb_fail(e, RB_EINPUT, "--openblas best: out of memory");
    argv[0] = "roofbench";
    for (int i = 0; i < seen->argc; i++)
        argv[i + 1] = seen->argv[i];
    fflush(NULL);
    execv("/proc/self/exe", argv);
    const int err = errno;
    free(argv);
    return rb_fail(e, RB_EINPUT,
                   "--openblas best: cannot start again %s: /proc/self/exe: %s",
                   what, strerror(err));
}

/* --openblas best: first the same command again without the two variables
 * that steer OpenBLAS's choice of core, so that it picks its own; then,
 * where its own choice leaves out vector instructions this CPU runs
 * (host_openblas_best_core), once more with OPENBLAS_CORETYPE set to its
 * core for them, ROOFBENCH_OPENBLAS_OWN naming its own choice (so that
 * the document can say both, and the command starts again only once). */
static int openblas_best(const sweep_opts *o, const flag_seen *seen,
                         const rb_machine *m, rb_err *e)
{
    if (strcmp(o->openblas, "best") != 0 || getenv("ROOFBENCH_OPENBLAS_OWN"))
        return RB_OK;
    if (getenv("OPENBLAS_CORETYPE") || getenv("OPENBLAS_L2_SIZE")) {
        unsetenv("OPENBLAS_CORETYPE");
        unsetenv("OPENBLAS_L2_SIZE");
        return start_again(seen, "without OPENBLAS_CORETYPE", e);
    }
    char why[160];
    const char *own = openblas_get_corename();
    const char *core = host_openblas_best_core(&m->cpu, own, why, sizeof(why));
    if (!core)
        return RB_OK;
    if (setenv("ROOFBENCH_OPENBLAS_OWN", own, 1) ||
        setenv("OPENBLAS_CORETYPE", core, 1))
        return rb_fail(e, RB_EINPUT, "--openblas best: setenv: %s",
                       strerror(errno));
    return start_again(seen, "with OPENBLAS_CORETYPE", e);
}

static int load_profiles(const sweep_opts *o, profile *out, int *n,
                         int *want_host, rb_err *e)
{
    char buf[512], *items[SWEEP_MAX_PROFILES];
    const int k = parse_list("--profile", o->profile, buf, sizeof(buf), items,
                             SWEEP_MAX_PROFILES, e);
    if (k < 0)
        return RB_EINPUT;
    const char *dir = profile_dir(o->profiles);
    *n = 0;
    *want_host = -1;
    for (int i = 0; i < k; i++) {
        if (strcmp(items[i], "host") == 0) {
            *want_host = *n;
            memset(&out[(*n)++], 0, sizeof(*out));
            continue;
        }
        if (profile_load(dir, items[i], &out[(*n)++], e))
            return RB_EINPUT;
    }
    return RB_OK;
}

/* --profile host: the measured roofline as a profile; one that cannot be
 * is the fault of the file it came from, where one was given (host is in
 * --profile by default: given says whether the user named it). */
static int host_profile(const roofline *roof, const char *file, int given,
                        profile *p, rb_err *e)
{
    rb_err why;
    if (roofline_to_profile(roof, SWEEP_HOST_MIX, p, &why) == RB_OK)
        return RB_OK;
    if (!file)
        return rb_fail(e, RB_EINPUT, "--profile host: %s", why.msg);
    char shown[512];
    text_escape(file, shown, sizeof(shown));
    return rb_fail(e, RB_EINPUT,
                   "--ceilings '%s': %s (%s draws the host from it)", shown,
                   why.msg,
                   given ? "--profile host"
                         : "the default --profile, host among others,");
}

static json_t *settings_json(const sweep_plan *plan, const sweep_opts *o,
                             int argc, char **argv)
{
    json_t *dtypes = json_array(), *threads = json_array(),
           *kernels = json_array(), *batch = json_array();
    for (int d = 0; d < plan->ndtypes; d++)
        json_array_append_new(dtypes,
                              json_string(rb_dtype_name(plan->dtypes[d])));
    for (int t = 0; t < plan->nthreads; t++)
        json_array_append_new(threads, json_integer(plan->threads[t]));
    for (size_t k = 0; k < plan->nkernels; k++)
        json_array_append_new(kernels, json_string(plan->kernels[k]->name));
    for (size_t i = 0; i < plan->nbatch; i++)
        json_array_append_new(batch, json_integer((json_int_t)plan->batch[i]));
    return json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:f, s:i, s:i, s:I, s:I, s:s, s:s, s:s}",
        "command", flags_command_json("sweep", argc, argv), "kernels", kernels,
        "dtypes", dtypes, "threads", threads, "batch", batch, "min_time_s",
        plan->min_time, "samples", plan->samples, "rounds", plan->rounds,
        "seed",
        (json_int_t)plan->seed, "verify_rows", (json_int_t)plan->verify_rows,
        "openblas", o->openblas, "time_unit", "seconds per call", "rates",
        "analytic FLOPs and compulsory bytes divided by the minimum (best) or "
        "median time");
}

/* ---- the measurement and its documents ------------------------------------- */

typedef struct {
    sweep_plan plan;
    sweep_result res;
    session_roof roof;
    profile profiles[SWEEP_MAX_PROFILES];
    int nprofiles, host_profile;
    char chart[512];
    sweep_analysis an; /* of the documents last written, for the text */
} sweep_state;

static sweep_doc doc_of(const sweep_state *st, const session *s,
                        const char *status, const char *error)
{
    return (sweep_doc){.context = s->context,
                       .plan = &st->plan,
                       .res = &st->res,
                       .roof = st->roof.ready ? &st->roof.roof : NULL,
                       .profiles = st->profiles,
                       .nprofiles = st->roof.ready || st->host_profile < 0
                                        ? st->nprofiles
                                        : 0,
                       .status = status,
                       .error = error};
}

static int write_sweep(session *s, void *ctx, const char *status,
                       const char *error, char *lost, size_t lostlen, rb_err *e)
{
    sweep_state *st = ctx;
    snprintf(lost, lostlen, "the %zu measured point%s", st->res.npoints,
             rb_plural((long long)st->res.npoints));
    const sweep_doc d = doc_of(st, s, status, error);
    char *json = NULL;
    report_sweep_analysis_free(&st->an);
    int rc = report_sweep_analyse(&d, &st->an, e);
    if (!rc)
        rc = report_sweep_write(&s->folder, &d, &st->an, &json, st->chart,
                                sizeof(st->chart), e);
    session_keep(s, json);
    return rc;
}

/* The tables, from the analysis the documents were written with. */
static void print_sweep(session *s, void *ctx, const char *status)
{
    const sweep_state *st = ctx;
    const sweep_doc d = doc_of(st, s, status, NULL);
    report_sweep_text(&d, &st->an, session_dir(s), st->chart, stdout);
}

static int measure(const rb_machine *m, sweep_state *st, const sweep_opts *o,
                   const flag_seen *seen, rb_err *e)
{
    session s;
    if (session_open(&s, m, "sweep", o->out,
                     settings_json(&st->plan, o, seen->argc, seen->argv), e))
        return 2;
    session_on_finish(&s, write_sweep, st, o->json);
    int interrupted = 0;
    /* the weights' level from the read roof, the rows' bound mixed */
    int rc = session_roofline(&s, &st->roof, st->plan.threads,
                              st->plan.nthreads, st->plan.dtypes,
                              st->plan.ndtypes,
                              1u << RB_ACCESS_READ | 1u << RB_ACCESS_MIXED,
                              &interrupted, e);
    if (!rc && !interrupted)
        rc = size_levels(m, &st->roof.roof, &st->plan, e);
    if (!rc && !interrupted && st->host_profile >= 0 && !o->ceilings)
        rc = host_profile(&st->roof.roof, NULL, 1,
                          &st->profiles[st->host_profile], e);
    rb_err run_err = {""};
    int run_rc = RB_OK;
    if (!rc && !interrupted)
        run_rc = sweep_run(m->topo, &st->plan, &st->roof.roof, &st->res,
                           &run_err);
    rc = rc ? rb_exit_status(rc)
            : session_conclude(&s, run_rc, &run_err,
                               interrupted || st->res.interrupted, print_sweep,
                               st, e);
    session_close(&s);
    return rc;
}

static int sweep_main(const rb_machine *m, const void *opts,
                      const flag_seen *seen, rb_err *e)
{
    const sweep_opts *o = opts;
    static sweep_state state; /* too large for the stack */
    sweep_state *st = &state;
    int rc = make_plan(m, o, seen, &st->plan, e);
    if (!rc)
        rc = load_profiles(o, st->profiles, &st->nprofiles, &st->host_profile,
                           e);
    if (!rc)
        rc = session_roof_load(m, o->ceilings, &st->roof, e);
    /* sizes known now (--p/--m, or a loaded roofline) are checked before
     * any work; measured roofs are checked as soon as they are known */
    if (!rc && (o->ceilings || strcmp(st->plan.levels[0].name, "given") == 0))
        rc = o->ceilings ? size_levels(m, &st->roof.roof, &st->plan, e)
                         : sweep_check_plan(&st->plan, host_mem_available(), e);
    if (!rc && o->ceilings && st->host_profile >= 0)
        rc = host_profile(&st->roof.roof, o->ceilings,
                          flags_given(&sweep_table, seen, "profile"),
                          &st->profiles[st->host_profile], e);
    if (!rc)
        rc = openblas_best(o, seen, m, e);
    rc = rc ? 2 : measure(m, st, o, seen, e);
    report_sweep_analysis_free(&st->an);
    sweep_result_free(&st->res);
    session_roof_free(&st->roof);
    return rc;
}

const cmd_spec cmd_sweep = {&sweep_table, sizeof(sweep_opts), sweep_main, NULL};
