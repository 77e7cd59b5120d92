/* roofbench all: the main job. Each step is roofbench itself, started
 * again as a child (a subcommand never calls another's functions, and a
 * step that fails or crashes costs that step only), writing into its own
 * subfolder of one run folder: the roofline measured once by the ceilings
 * step and given to every later step with --ceilings. The run folder is
 * in its place from the start (each step's folder is complete or absent,
 * and finished steps stay after an interrupt); steps.json, written last,
 * says how each went, and the summary gathers the headline figures from
 * the steps' documents. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "flags.h"
#include "jdoc.h"
#include "netflags.h"
#include "parse.h"
#include "progress.h"
#include "report_all.h"
#include "roofline.h"
#include "runfolder.h"
#include "session.h"
#include "simulate.h"
#include "text.h"
#include "timer.h"

typedef struct {
    const char *steps, *ceilings, *out;
    int quick;
} all_opts;

#define OFF(f) offsetof(all_opts, f)

static const flag_spec all_flags[] = {
    {.name = "steps",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(steps),
     .def = "info,ceilings,run,orders,sweep,network,model",
     .help = "the steps, in this order whatever the list's: info, ceilings "
             "(the roofline every later step is judged against), run, "
             "orders, sweep, network (2 ranks, where MPI is installed), "
             "model (the reference profiles beside the host)"},
    FLAG_QUICK(all_opts, quick,
               "every step's --quick (under 3 minutes on two cores)"),
    FLAG_CEILINGS(all_opts, ceilings,
                  "an earlier ceilings.json for every step, instead of the "
                  "ceilings step"),
    FLAG_OUT(all_opts, out),
};

static const flag_table all_table = {
    "all",
    "usage: roofbench all [--quick] [--steps LIST] [--out DIR]",
    "The main job: the machine, its measured roofs, every default kernel on "
    "them (f32\nand f64, 1 thread and all cores), the four orders, the batch "
    "sweep, the network\nroof and the reference profiles, each step into its "
    "own subfolder of one run\nfolder, the roofline measured once (the "
    "ceilings step) and reused by every later\nstep. A step that fails is "
    "reported and the others still run. Writes steps.json\n(each step's "
    "status, time and folder), info.json, model.json and each step's\n"
    "output (STEP.txt, STEP.log); prints a summary.",
    all_flags,
    sizeof(all_flags) / sizeof(all_flags[0]),
    "The default took 7.5 minutes on two cores, --quick 2.5 minutes.\n"
    "Exit status: 0 every step succeeded (or was skipped with its reason), "
    "1 a step\nfailed, 2 bad input, 130 or 143 after SIGINT or SIGTERM (the "
    "finished steps\nare kept).",
    0};

/* ---- the steps ----------------------------------------------------------- */

enum {
    STEP_INFO,
    STEP_CEILINGS,
    STEP_RUN,
    STEP_ORDERS,
    STEP_SWEEP,
    STEP_NETWORK,
    STEP_MODEL,
    NSTEPS
};

static const struct {
    const char *name, *what;
    double quick_s, full_s; /* planned seconds on two cores */
} steps[NSTEPS] = {
    {"info", "this machine", 2, 2},
    {"ceilings", "the roofs: clock, peak, bandwidth per level", 45, 60},
    {"run", "every default kernel on the roofline", 35, 90},
    {"orders", "four orders, same FLOPs", 15, 150},
    {"sweep", "the batch sweep", 20, 210},
    {"network", "the network roof over MPI, 2 ranks", 10, 50},
    {"model", "the reference profiles beside the host", 3, 3},
};

typedef struct {
    int wanted;
    const char *status; /* ok, failed, skipped, interrupted, not run */
    int exit;
    double seconds;
    char why[512]; /* skipped: why; failed: its last error line */
} step_result;

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child;

static void on_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
    /* the step stops and keeps what it finished (it has its own
     * handling); it is in a process group of its own, so this is the one
     * signal it gets */
    if (child > 0)
        kill((pid_t)child, sig);
}

static int parse_steps(const char *list, step_result *res, rb_err *e)
{
    char buf[256], *items[NSTEPS + 1];
    const int k =
        parse_list("--steps", list, buf, sizeof(buf), items, NSTEPS + 1, e);
    if (k < 0)
        return RB_EINPUT;
    for (int i = 0; i < k; i++) {
        int s = 0;
        while (s < NSTEPS && strcmp(items[i], steps[s].name) != 0)
            s++;
        if (s == NSTEPS)
            return rb_fail(e, RB_EINPUT,
                           "--steps '%s': unknown (info, ceilings, run, "
                           "orders, sweep, network, model)",
                           items[i]);
        if (res[s].wanted)
            return rb_fail(e, RB_EINPUT, "--steps: '%s' given twice", items[i]);
        res[s].wanted = 1;
    }
    return RB_OK;
}

/* Where this executable is, for the children and for roofbench-mpi. */
static int self_path(char *buf, size_t len, rb_err *e)
{
    const ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return rb_fail(e, RB_EINPUT, "cannot read /proc/self/exe: %s",
                       strerror(errno));
    buf[n] = 0;
    return RB_OK;
}

/* Why the network step cannot run here (in why), or 0. */
static int network_missing(char *why, size_t len)
{
    char path[PATH_MAX];
    rb_err e;
    if (netflags_mpi_program(path, sizeof(path), &e) == RB_OK &&
        netflags_find_mpirun(path, sizeof(path), &e) == RB_OK)
        return 0;
    snprintf(why, len, "%.400s", e.msg);
    return 1;
}

/* Whether valgrind is installed, for orders' simulated traffic. */
static int cachegrind_here(void)
{
    char path[PATH_MAX];
    rb_err e;
    return sim_find_valgrind(path, sizeof(path), &e) == RB_OK;
}

/* The step's command line: roofbench STEP [flags], its output into
 * dir/STEP unless it prints a document (info, model). */
static int step_argv(int s, const all_opts *o, const char *self,
                     const char *dir, const char *ceil, char *outdir,
                     size_t outlen, const char **argv)
{
    int n = 0;
    argv[n++] = self;
    argv[n++] = steps[s].name;
    snprintf(outdir, outlen, "%s/%s", dir, steps[s].name);
    switch (s) {
    case STEP_INFO:
        argv[n++] = "--json";
        break;
    case STEP_MODEL:
        /* [B,P] x [P,M] on the host and the reference profiles, B swept
         * to where each turns compute-bound */
        argv[n++] = "bp,pm->bm";
        argv[n++] = "p=4096";
        argv[n++] = "m=4096";
        argv[n++] = "--sweep";
        argv[n++] = "b=1:4096";
        argv[n++] = "--profile";
        argv[n++] = ceil ? "host,tpu-v5e,h100-sxm,apple-m4-max"
                         : "tpu-v5e,h100-sxm,apple-m4-max";
        argv[n++] = "--json";
        break;
    default:
        if (o->quick && s != STEP_ORDERS) /* orders has one size, n = 512 */
            argv[n++] = "--quick";
        if (s == STEP_ORDERS && !o->quick && cachegrind_here()) {
            /* the simulated traffic beside the model (two minutes on two
             * cores; left out of --quick) */
            argv[n++] = "--traffic";
            argv[n++] = "model,counters,cachegrind";
        }
        if (s == STEP_CEILINGS && !o->quick)
            argv[n++] = "--quick"; /* the full sweep alone takes 6 minutes */
        if (s == STEP_SWEEP && !o->quick) {
            /* two rounds, each point's samples pooled over both: the main
             * job's knees and fractions then need a slow spell of the
             * host to last a whole round (sweep's own default is one:
             * a minute and a half to two minutes on two cores, most of it
             * points, the rest measuring the roofs that --ceilings gives
             * here) */
            argv[n++] = "--rounds";
            argv[n++] = "2";
        }
        argv[n++] = "--out";
        argv[n++] = outdir;
    }
    if (ceil && s != STEP_INFO && s != STEP_CEILINGS) {
        argv[n++] = "--ceilings";
        argv[n++] = ceil;
    }
    argv[n] = NULL;
    return n;
}

/* Runs argv with stdout and stderr into two files; the exit status (or
 * 128 + the signal). */
static int spawn(const char *const *argv, const char *out, const char *err)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        /* a group of its own: a terminal's Ctrl-C reaches this process
         * alone, which passes it on once (a step takes a second signal as
         * "stop at once, write nothing more"); and nothing to read */
        setpgid(0, 0);
        const int i = open("/dev/null", O_RDONLY);
        const int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (i < 0 || o < 0 || e < 0)
            _exit(2);
        dup2(i, 0);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], (char **)argv);
        _exit(127);
    }
    child = pid;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    child = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A step's error: the last line of its stderr that roofbench wrote
 * ("roofbench: ..."), else its last line (mpirun's own, say). */
static void last_line(const char *text, char *buf, size_t len)
{
    buf[0] = 0;
    if (!text)
        return;
    const char *pick = NULL, *last = NULL;
    size_t pick_len = 0, last_len = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n > 0) {
            last = p;
            last_len = n;
            if (strncmp(p, "roofbench: ", 11) == 0) {
                pick = p;
                pick_len = n;
            }
        }
        p += n + (nl ? 1 : 0);
    }
    if (!pick) {
        pick = last;
        pick_len = last_len;
    }
    if (!pick)
        return;
    char line[512];
    snprintf(line, sizeof(line), "%.*s", (int)pick_len, pick);
    text_escape(line, buf, len);
}

/* ---- the command --------------------------------------------------------- */

static json_t *steps_json(const step_result *res, const char *status,
                          const char *date)
{
    jdoc j = {0};
    json_t *arr = json_array();
    for (int s = 0; s < NSTEPS; s++)
        if (res[s].wanted)
            jd_push(&j, arr, "steps",
                    jd_pack(&j, "{s:s, s:s, s:i, s:f, s:o}", "name",
                            steps[s].name, "status", res[s].status, "exit",
                            res[s].exit, "seconds", res[s].seconds, "note",
                            jd_str(res[s].why)));
    json_t *root =
        jd_pack(&j, "{s:s, s:i, s:s, s:s, s:o}", "schema", "roofbench.all",
                "schema_version", 1, "date", date, "status", status, "steps",
                arr);
    rb_err e;
    return jd_done(&j, &root, "steps.json", &e) ? NULL : root;
}

/* One step: started, its output kept in the folder (STEP.txt or its
 * document, STEP.log), its status in r. Returns RB_OK, or an error
 * writing the folder. */
static int run_step(int s, const all_opts *o, const char *self, runfolder *f,
                    const char *ceil_file, step_result *r, char *outdir,
                    size_t outlen, rb_err *e)
{
    const char *argv[32];
    char outf[4500], errf[4500];
    step_argv(s, o, self, f->tmp, ceil_file, outdir, outlen, argv);
    /* the step's output beside the folder until it is kept in it */
    snprintf(outf, sizeof(outf), "%s/.%s.out", f->tmp, steps[s].name);
    snprintf(errf, sizeof(errf), "%s/.%s.err", f->tmp, steps[s].name);
    const double s0 = timer_now();
    r->exit = spawn(argv, outf, errf);
    r->seconds = timer_now() - s0;
    char *out = text_read_file(outf), *err = text_read_file(errf);
    unlink(outf);
    unlink(errf);
    r->status = r->exit == 0                         ? "ok"
                : (r->exit == 130 || r->exit == 143) ? "interrupted"
                                                     : "failed";
    if (r->exit)
        last_line(err, r->why, sizeof(r->why));
    else if (s == STEP_CEILINGS || s == STEP_RUN || s == STEP_ORDERS ||
             s == STEP_SWEEP || s == STEP_NETWORK)
        snprintf(r->why, sizeof(r->why), "%s/", steps[s].name);
    char name[64];
    int wrc = RB_OK;
    snprintf(name, sizeof(name), "%s.%s", steps[s].name,
             s == STEP_INFO || s == STEP_MODEL ? "json" : "txt");
    if (out && out[0])
        wrc = runfolder_write(f, name, out, strlen(out), e);
    snprintf(name, sizeof(name), "%s.log", steps[s].name);
    if (!wrc && err && err[0])
        wrc = runfolder_write(f, name, err, strlen(err), e);
    free(out);
    free(err);
    return wrc;
}

/* The steps the job was asked for, as the report layer reads them. */
static size_t job_steps(const step_result *res, job_step *out)
{
    size_t n = 0;
    for (int s = 0; s < NSTEPS; s++)
        if (res[s].wanted)
            out[n++] = (job_step){steps[s].name, res[s].status,
                                  res[s].seconds, res[s].why};
    return n;
}

/* After the steps: the job's charts, steps.json, the summary and the
 * report; the job's exit status. */
static int finish(const rb_machine *m, const all_opts *o, runfolder *f,
                  const step_result *res, const char *ceil_file,
                  const char *iso, int failed, rb_err *e)
{
    char chart_why[512], ref_why[512];
    const int run_ok = res[STEP_RUN].wanted && res[STEP_RUN].exit == 0 &&
                       !stop_signal;
    const int model_ok = res[STEP_MODEL].wanted &&
                         res[STEP_MODEL].exit == 0 && !stop_signal;
    if (report_all_charts(f, f->tmp, ceil_file, run_ok, model_ok, chart_why,
                          sizeof(chart_why), ref_why, sizeof(ref_why), e))
        return 2;
    const char *status = stop_signal ? "interrupted" : "complete";
    json_t *doc = steps_json(res, status, iso);
    char *text = doc ? jd_dump(doc, 6) : NULL;
    json_decref(doc);
    int rc = text ? runfolder_write(f, "steps.json", text, strlen(text), e)
                  : rb_fail(e, RB_EINPUT, "steps.json: cannot be built");
    if (rc) {
        free(text);
        return 2;
    }
    /* the summary reads the steps' documents where they now are */
    char ceil_final[4400];
    const char *cf = o->ceilings;
    if (!o->ceilings && res[STEP_CEILINGS].exit == 0 &&
        res[STEP_CEILINGS].wanted &&
        strcmp(res[STEP_CEILINGS].status, "ok") == 0) {
        snprintf(ceil_final, sizeof(ceil_final), "%s/ceilings/ceilings.json",
                 f->final);
        cf = ceil_final;
    }
    char *sum = NULL;
    size_t sumlen = 0;
    FILE *ms = open_memstream(&sum, &sumlen);
    if (ms) {
        job_step js[NSTEPS];
        report_all_summary(f->final, cf, js, job_steps(res, js), ms);
        fclose(ms);
    }
    fputs(sum ? sum : "", stdout);
    const char *body = sum ? sum : "";
    if (strncmp(body, "\nsummary\n", 9) == 0) /* the report has its own */
        body += 9;
    rc = report_all_write(f, m->host, iso, body, text, e);
    free(sum);
    free(text);
    if (rc)
        return 2;
    printf("\nreport: %s/report.html and report.md\n", f->shown);
    if (chart_why[0])
        printf("\nroofline chart: skipped: %s\n", chart_why);
    else
        printf("\nroofline chart: %s/roofline.png and .svg\n", f->shown);
    printf("results: %s\n", f->shown);
    if (stop_signal)
        return 128 + stop_signal;
    if (failed)
        return rb_fail(e, RB_EMEASURE,
                       "a step failed (see steps.json and "
                       "its STEP.log)"),
               1;
    return 0;
}

/* The job's folder, in its place from the start: the steps record where
 * their folders are, and a step that finished stays after an interrupt;
 * each document in it is still written whole. A roofline given with
 * --ceilings is kept with the job, so that the folder alone holds what
 * every step was judged against. */
static int open_job(const rb_machine *m, const all_opts *o, runfolder *f,
                    const char *stamp, rb_err *e)
{
    if (runfolder_open(f, SESSION_ROOT, o->out, m->host, stamp, e))
        return -1;
    if (runfolder_publish(f, e) ||
        (o->ceilings &&
         runfolder_write_text(f, "ceilings.json", text_read_file(o->ceilings),
                              e))) {
        runfolder_abandon(f);
        return -1;
    }
    return 0;
}

/* Whether step s is skipped (its reason in r->why): the network without
 * MPI, the ceilings with a roofline given. */
static int skipped(int s, const all_opts *o, step_result *r)
{
    if (s == STEP_NETWORK && network_missing(r->why, sizeof(r->why)))
        return 1;
    if (s == STEP_CEILINGS && o->ceilings) {
        snprintf(r->why, sizeof(r->why), "--ceilings given");
        return 1;
    }
    return 0;
}

/* How far the job is: the planned seconds of the wanted steps and of the
 * finished ones, the start, how many steps are wanted and which one runs. */
typedef struct {
    double planned, done, t0;
    int wanted, k;
} job_pace;

/* The progress line of step s starting: elapsed, and the plan's seconds
 * left scaled by how the finished steps went against theirs. */
static void say_start(const job_pace *p, int s)
{
    const double el = timer_now() - p->t0;
    const double left =
        (p->planned - p->done) * (p->done > 0 ? el / p->done : 1.0);
    char te[16], tl[16];
    report_all_clock(te, sizeof(te), el);
    report_all_clock(tl, sizeof(tl), left);
    progress_note("all: step %d of %d, %s (%s), %s elapsed, about %s left",
                  p->k, p->wanted, steps[s].name, steps[s].what, te, tl);
}

static int all_main(const rb_machine *m, const void *opts,
                    const flag_seen *seen, rb_err *e)
{
    (void)seen;
    const all_opts *o = opts;
    step_result res[NSTEPS];
    memset(res, 0, sizeof(res));
    char self[PATH_MAX];
    if (parse_steps(o->steps, res, e) || self_path(self, sizeof(self), e))
        return 2;
    if (o->ceilings) { /* checked once, before any step */
        roofline roof;
        json_t *cdoc = NULL;
        const int crc = roofline_load(o->ceilings, m->host, m->ncpus,
                                       &roof, &cdoc, e);
        json_decref(cdoc);
        if (crc)
            return 2;
    }
    runfolder f;
    char iso[32], stamp[32];
    runfolder_utc(iso, sizeof(iso), stamp, sizeof(stamp));
    if (open_job(m, o, &f, stamp, e))
        return 2;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char ceil[4400];
    const char *ceil_file = o->ceilings;
    job_pace pace = {.t0 = timer_now()};
    for (int s = 0; s < NSTEPS; s++)
        if (res[s].wanted) {
            pace.planned += o->quick ? steps[s].quick_s : steps[s].full_s;
            pace.wanted++;
        }
    int failed = 0;
    for (int s = 0; s < NSTEPS; s++) {
        step_result *r = &res[s];
        if (!r->wanted)
            continue;
        pace.k++;
        r->status = "not run";
        if (stop_signal)
            continue;
        if (skipped(s, o, r)) {
            r->status = "skipped";
            progress_say("all: step %d of %d, %s: skipped: %s", pace.k,
                         pace.wanted, steps[s].name, r->why);
            continue;
        }
        say_start(&pace, s);
        char outdir[4400];
        if (run_step(s, o, self, &f, ceil_file, r, outdir, sizeof(outdir), e))
            return 2;
        pace.done += o->quick ? steps[s].quick_s : steps[s].full_s;
        failed |= r->exit != 0 && !(r->exit == 130 || r->exit == 143);
        progress_say("all: step %d of %d, %s: %s%s%s", pace.k, pace.wanted,
                     steps[s].name, r->status, r->why[0] ? ": " : "", r->why);
        if (s == STEP_CEILINGS && r->exit == 0) {
            snprintf(ceil, sizeof(ceil), "%.4370s/ceilings.json", outdir);
            ceil_file = ceil;
        }
    }
    return finish(m, o, &f, res, ceil_file, iso, failed, e);
}

const cmd_spec cmd_all = {&all_table, sizeof(all_opts), all_main, NULL};
