/* roofbench-mpi: the program every rank of `roofbench network` runs
 * (`roofbench network` starts it under mpirun, or becomes it when mpirun
 * started roofbench). It reads the command line with the same flag table
 * as roofbench; rank 0 owns the run folder, the roofline, the documents
 * and everything printed. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "machine.h"
#include "netflags.h"
#include "netrun.h"
#include "progress.h"
#include "report_network.h"
#include "session.h"
#include "text.h"

typedef struct {
    net_plan plan;
    net_result res;
    session_roof roof;
    const char *launch;
    char chart[512];
    network_analysis an;
} network_state;

static network_doc doc_of(const network_state *st, const session *s,
                          const char *status, const char *error)
{
    return (network_doc){.context = s->context,
                         .plan = &st->plan,
                         .res = &st->res,
                         .roof = st->roof.ready ? &st->roof.roof : NULL,
                         .launch = st->launch,
                         .status = status,
                         .error = error};
}

static int write_network(session *s, void *ctx, const char *status,
                         const char *error, char *lost, size_t lostlen,
                         rb_err *e)
{
    network_state *st = ctx;
    snprintf(lost, lostlen, "the network measurements");
    const network_doc d = doc_of(st, s, status, error);
    report_network_analyse(&d, &st->an);
    char *json = NULL;
    const int rc = report_network_write(&s->folder, &d, &st->an, &json,
                                        st->chart, sizeof(st->chart), e);
    session_keep(s, json);
    return rc;
}

static void print_network(session *s, void *ctx, const char *status)
{
    const network_state *st = ctx;
    const network_doc d = doc_of(st, s, status, NULL);
    report_network_text(&d, &st->an, session_dir(s), st->chart, stdout);
}

/* Stopping together. mpirun kills the whole job on SIGINT and SIGTERM
 * (SIGTERM to every rank, then SIGKILL), which would lose the finished
 * points; it forwards SIGUSR1 and SIGUSR2 to every rank instead, and
 * `roofbench network` turns the user's SIGINT and SIGTERM into those.
 * The handlers are in place before MPI_Init, so that a signal at start-up
 * is not lost. Rank 0 takes them as SIGINT and SIGTERM once its session
 * handles those (stop() raises the first), and stops at the next point;
 * the other ranks take no signal as an order to die: they stop when rank
 * 0 says so, between points. */
static volatile sig_atomic_t pending;
static int raised, session_ready;

static void on_usr(int sig)
{
    if (!pending)
        pending = sig == SIGUSR1 ? SIGINT : SIGTERM;
}

static void on_ignored(int sig)
{
    (void)sig;
}

static void install_signals(void)
{
    struct sigaction sa = {.sa_handler = on_usr};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
}

/* The ranks other than 0: SIGINT and SIGTERM (mpirun's, a terminal's)
 * wait for rank 0's word. */
static void ignore_stops(void)
{
    struct sigaction sa = {.sa_handler = on_ignored};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int stop(void)
{
    if (pending && !raised && session_ready) {
        raised = 1;
        raise(pending);
    }
    return interrupt_requested();
}

/* The exit status as the launcher reads it (netflags.h). */
static int launched_status(int status)
{
    const char *v = getenv("ROOFBENCH_NETWORK_STATUS");
    if (v && strcmp(v, "launched") == 0 && (status == 1 || status == 2))
        return NETWORK_STATUS_BASE + status;
    return status;
}

static void say(int me, const char *msg)
{
    if (me != 0 || !msg[0])
        return;
    char shown[2048];
    text_escape(msg, shown, sizeof(shown));
    progress_end();
    fprintf(stderr, "roofbench: %s\n", shown);
}

/* The ranks placed first (a rank that cannot be is found before any
 * folder is made); then rank 0's session and roofline while the others
 * wait; then the measurements, all ranks together. */
static int run(const rb_machine *m, const network_opts *o,
               const flag_seen *seen, network_state *st, rb_err *e)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int rc = netrun_place(m->topo, o->oversubscribe, &st->res, e);
    if (rc)
        return rb_exit_status(rc);
    session s;
    int opened = 0, interrupted = 0;
    if (me == 0) {
        /* the watcher's rescue would leave the other ranks waiting: the
         * main thread stops at the next point, which comes within seconds */
        interrupt_set_grace(20.0);
        rc = session_roof_load(m, o->ceilings, &st->roof, e);
        if (!rc)
            rc = netflags_check_roofline(&st->roof, &st->plan, e);
        if (!rc)
            rc = session_open(
                &s, m, "network", o->out,
                netflags_settings(&st->plan, o, seen->argc, seen->argv), e);
        opened = rc == RB_OK;
        if (opened) {
            session_on_finish(&s, write_network, st, o->json);
            session_ready = 1;
            stop(); /* a signal that came at start-up */
            const rb_dtype *dts = st->plan.dtypes;
            const int one = 1;
            rc = session_roofline(&s, &st->roof, &one, 1, dts, st->plan.ndtypes,
                                  1u << RB_ACCESS_READ | 1u << RB_ACCESS_MIXED,
                                  &interrupted, e);
        }
    }
    rc = netrun_agree(rc, e);
    if (rc) {
        if (opened)
            session_close(&s);
        return rb_exit_status(rc);
    }
    rb_err run_err = {""};
    int run_rc = RB_OK;
    MPI_Bcast(&interrupted, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!interrupted)
        run_rc = netrun_measure(&st->plan, &st->res, stop, &run_err);
    if (me != 0)
        return rb_exit_status(run_rc);
    progress_end();
    rc = session_conclude(&s, run_rc, &run_err,
                          interrupted || st->res.interrupted, print_network, st,
                          e);
    session_close(&s);
    return rc;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    install_signals();
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me != 0)
        ignore_stops();
    rb_err e = {""};
    int status = 2;
    static network_opts opts;
    static network_state state;
    flag_seen seen = {.argc = argc - 1, .argv = argv + 1};
    if (argc < 2 || strcmp(argv[1], "network") != 0) {
        say(me, "usage: roofbench-mpi network [options] (roofbench network "
                "--help)");
        MPI_Finalize();
        return launched_status(2);
    }
    int wants_help = 0;
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
        wants_help |= strcmp(argv[i], "--help") == 0;
    if (wants_help && me != 0) {
        MPI_Finalize();
        return 0;
    }
    const int start =
        flags_start(&network_table, argc - 1, argv + 1, &opts, &seen, &e);
    if (start >= 0) {
        say(me, e.msg);
        MPI_Finalize();
        return launched_status(start);
    }
    if (n < 2) {
        say(me, "roofbench network needs at least 2 ranks (mpirun -n 2)");
        MPI_Finalize();
        return launched_status(2);
    }
    if (flags_given(&network_table, &seen, "hostfile")) {
        say(me, "--hostfile: under mpirun, the hosts are mpirun's (mpirun "
                "--hostfile FILE ...)");
        MPI_Finalize();
        return launched_status(2);
    }
    if (flags_given(&network_table, &seen, "ranks") &&
        (uint64_t)n != opts.ranks) {
        snprintf(e.msg, sizeof(e.msg),
                 "--ranks %llu: mpirun started %d ranks (under mpirun, -n "
                 "decides)",
                 (unsigned long long)opts.ranks, n);
        say(me, e.msg);
        MPI_Finalize();
        return launched_status(2);
    }
    state.launch = getenv("ROOFBENCH_MPIRUN_LINE");
    rb_machine m;
    int rc = machine_open(&m, &e);
    if (!rc)
        rc = netflags_plan(&opts, &seen, n, &state.plan, &e);
    if (!rc)
        rc = net_result_init(&state.res, &state.plan, &e);
    rc = netrun_agree(rc, &e);
    if (!rc)
        status = run(&m, &opts, &seen, &state, &e);
    else
        status = rb_exit_status(rc);
    if (status != 0)
        say(me, e.msg);
    if (!rc)
        machine_close(&m);
    net_result_free(&state.res);
    session_roof_free(&state.roof);
    MPI_Finalize();
    return launched_status(status);
}
