/* roofbench network: the network roof over MPI. roofbench itself does not
 * link MPI; the measurement is roofbench-mpi's, beside this executable.
 * Under mpirun (a rank: OpenMPI's or PMI's variables are set) this
 * becomes roofbench-mpi at once; otherwise it checks the command line,
 * starts `mpirun -n N roofbench-mpi network ...` with what one machine
 * needs, prints that command line, and returns its exit status. No shell
 * is involved: mpirun's arguments are passed as a vector. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "netflags.h"
#include "runfolder.h"
#include "session.h"
#include "text.h"
#include "timer.h"

extern char **environ;

/* Whether this process is a rank that mpirun (or another PMI launcher)
 * started. */
static int under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_RANK") || getenv("PMI_SIZE");
}

/* Whether one process may read another's memory (process_vm_readv),
 * which OpenMPI's shared-memory transport uses for large messages
 * (single copy, CMA). Containers often forbid it; then the transport is
 * told to copy through its shared buffers instead. */
static int single_copy_works(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return 0;
    static volatile char probe[64] = "roofbench";
    const pid_t child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (child == 0) {
        close(fds[1]);
        char c;
        while (read(fds[0], &c, 1) < 0 && errno == EINTR) {
        }
        _exit(0);
    }
    close(fds[0]);
    char got[64];
    struct iovec local = {got, sizeof(got)},
                 remote = {(void *)probe, sizeof(probe)};
    const ssize_t n = process_vm_readv(child, &local, 1, &remote, 1, 0);
    close(fds[1]);
    waitpid(child, NULL, 0);
    return n == (ssize_t)sizeof(got) && strcmp(got, "roofbench") == 0;
}

/* A word as a shell would need it quoted, for the line printed (never
 * run by a shell). */
static void quoted(strbuf *b, const char *w)
{
    int plain = *w != 0;
    for (const char *c = w; *c && plain; c++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789-_./=:,+@%",
                       *c) != NULL;
    if (plain) {
        sb_printf(b, "%s", w);
        return;
    }
    sb_printf(b, "'");
    for (const char *c = w; *c; c++)
        if (*c == '\'')
            sb_printf(b, "'\\''");
        else
            sb_putn(b, c, 1);
    sb_printf(b, "'");
}

static volatile sig_atomic_t first_signal, later_signal;

/* mpirun kills the job on SIGINT or SIGTERM and forwards SIGUSR1 and
 * SIGUSR2 to every rank: the first signal is noted and goes on as one of
 * those (the ranks stop together at the next point and rank 0 writes what
 * is finished), from the waiting loop, again until the job ends, since
 * ranks that have not started yet miss it; a second one goes on as
 * itself, which ends the job at once. SIGHUP (the terminal closed) counts
 * as SIGTERM. */
static void note_signal(int sig)
{
    if (!first_signal)
        first_signal = sig == SIGINT ? SIGINT : SIGTERM;
    else
        later_signal = sig == SIGINT ? SIGINT : SIGTERM;
}

/* The command line as roofbench-mpi needs it: the arguments less mpirun's
 * own flags (--ranks, --hostfile), found by position as the flag parser
 * reads them (a value is never taken for a flag). */
static int rank_args(const flag_seen *seen, const char **argv, int *n,
                     int max)
{
    for (int i = 1; i < seen->argc; i++) {
        const char *a = seen->argv[i];
        if (strcmp(a, "--") == 0 || strncmp(a, "--", 2) != 0) {
            if (*n >= max)
                return -1;
            argv[(*n)++] = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        const size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const flag_spec *f = NULL;
        for (size_t k = 0; k < network_table.nflags; k++)
            if (strlen(network_table.flags[k].name) == len &&
                strncmp(network_table.flags[k].name, a + 2, len) == 0)
                f = &network_table.flags[k];
        const int takes = f && f->type != FLAG_SWITCH && !eq;
        const int drop = f && (strcmp(f->name, "ranks") == 0 ||
                               strcmp(f->name, "hostfile") == 0);
        if (!drop) {
            if (*n + 1 + takes >= max)
                return -1;
            argv[(*n)++] = a;
            if (takes && i + 1 < seen->argc)
                argv[(*n)++] = seen->argv[i + 1];
        }
        if (takes)
            i++;
    }
    return 0;
}

enum { MAXARGS = 160 };

/* mpirun's command line for this command: -n, the hostfile, the ranks
 * left to pin themselves, shared memory that copies through its buffers
 * where one process may not read another's (cma 0), then the program and
 * the command's own arguments less mpirun's. Returns argc, or -1. */
static int mpirun_argv(const network_opts *o, const flag_seen *seen,
                       const char *mpirun, const char *prog, int cma,
                       char *ranks, size_t rlen, const char **argv)
{
    int n = 0;
    snprintf(ranks, rlen, "%llu", (unsigned long long)o->ranks);
    argv[n++] = mpirun;
    argv[n++] = "-n";
    argv[n++] = ranks;
    if (o->hostfile) {
        argv[n++] = "--hostfile";
        argv[n++] = o->hostfile;
    }
    if (o->oversubscribe)
        argv[n++] = "--oversubscribe";
    /* the ranks pin themselves with hwloc, one per core */
    argv[n++] = "--bind-to";
    argv[n++] = "none";
    if (!cma) {
        argv[n++] = "--mca";
        argv[n++] = "btl_vader_single_copy_mechanism";
        argv[n++] = "none";
    }
    argv[n++] = prog;
    argv[n++] = "network";
    if (rank_args(seen, argv, &n, MAXARGS - 1))
        return -1;
    argv[n] = NULL;
    return n;
}

/* Says the line it runs on stderr, as a shell would take it, and hands it
 * to the ranks (they record it in their document; rank 0 exits with its
 * statuses 1 and 2 moved out of mpirun's way). OpenMPI refuses root
 * unless told twice, in its environment. */
static void announce(const char *const *argv, int n, int cma)
{
    const int root = geteuid() == 0;
    if (root) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    strbuf line = {0};
    if (root)
        sb_printf(&line, "OMPI_ALLOW_RUN_AS_ROOT=1 "
                         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ");
    for (int i = 0; i < n; i++) {
        if (i)
            sb_printf(&line, " ");
        quoted(&line, argv[i]);
    }
    char *text = sb_take(&line);
    char shown[8192];
    text_escape(text ? text : "", shown, sizeof(shown));
    fprintf(stderr, "roofbench: %s; running:\n  %s\n",
            cma ? "single-copy shared memory (CMA) works here"
                : "one process may not read another's memory here (a "
                  "container?): shared memory copies through its buffers",
            shown);
    setenv("ROOFBENCH_MPIRUN_LINE", text ? text : "", 1);
    setenv("ROOFBENCH_NETWORK_STATUS", "launched", 1);
    free(text);
    fflush(NULL);
}

/* Starts mpirun in its own process group, so that a Ctrl-C on the
 * terminal reaches this process alone (note_signal takes it), reading
 * nothing: a background group must not read the terminal. 0, or an
 * errno. */
static int spawn_mpirun(const char *mpirun, const char *const *argv,
                        pid_t *pid)
{
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    struct sigaction sa = {.sa_handler = note_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    const int err =
        posix_spawn(pid, mpirun, &fa, &attr, (char **)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return err;
}

/* Waits for mpirun, passing a first signal on as a request to stop
 * (SIGUSR1 for SIGINT, SIGUSR2 for the others, again every half second)
 * and a second one as itself, so that the job ends at once. 0, or -1
 * with errno. */
static int wait_forwarding(pid_t pid, int *status)
{
    int forwarded = 0;
    double last = 0;
    for (;;) {
        const pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return -1;
        const double now = timer_now();
        if (later_signal && forwarded < 1000) {
            kill(pid, later_signal);
            forwarded = 1000;
        } else if (first_signal && forwarded < 1000 &&
                   (forwarded == 0 || now - last > 0.5)) {
            kill(pid, first_signal == SIGINT ? SIGUSR1 : SIGUSR2);
            forwarded++;
            last = now;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* This command's exit status from mpirun's wait status. */
static int launched_status(int status, rb_err *e)
{
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    /* stopped on request: the signal's status, whatever the job's end */
    if (first_signal && (rc != 0 || WIFSIGNALED(status)))
        return 128 + first_signal;
    if (WIFSIGNALED(status))
        return rb_fail(e, RB_EINPUT, "mpirun was killed by signal %d",
                       WTERMSIG(status)),
               2;
    /* roofbench-mpi's own statuses, with its own line (1 and 2 come as
     * NETWORK_STATUS_BASE + 1 and + 2, told apart from mpirun's 1);
     * anything else is mpirun's (no slots, a host it cannot reach, a bad
     * hostfile), whose message is above */
    if (rc == 0 || rc == 130 || rc == 143)
        return rc;
    if (rc == NETWORK_STATUS_BASE + 1 || rc == NETWORK_STATUS_BASE + 2)
        return rc - NETWORK_STATUS_BASE;
    return rb_fail(e, RB_EINPUT,
                   "mpirun failed (exit status %d): see its message above",
                   rc),
           2;
}

static int launch(const network_opts *o, const flag_seen *seen, rb_err *e)
{
    char mpirun[PATH_MAX], prog[PATH_MAX], ranks[32];
    if (netflags_find_mpirun(mpirun, sizeof(mpirun), e) ||
        netflags_mpi_program(prog, sizeof(prog), e))
        return 2;
    const char *argv[MAXARGS];
    const int cma = single_copy_works();
    const int n =
        mpirun_argv(o, seen, mpirun, prog, cma, ranks, sizeof(ranks), argv);
    if (n < 0)
        return rb_fail(e, RB_EINPUT, "too many arguments"), 2;
    announce(argv, n, cma);
    pid_t pid;
    const int err = spawn_mpirun(mpirun, argv, &pid);
    if (err)
        return rb_fail(e, RB_EINPUT, "cannot start %s: %s", mpirun,
                       strerror(err)),
               2;
    int status = 0;
    if (wait_forwarding(pid, &status))
        return rb_fail(e, RB_EINPUT, "waiting for mpirun: %s",
                       strerror(errno)),
               2;
    return launched_status(status, e);
}

/* Under mpirun: roofbench-mpi takes the whole command line at once. */
static int network_early(int argc, char **argv, rb_err *e)
{
    if (!under_mpirun())
        return -1;
    char prog[PATH_MAX];
    if (netflags_mpi_program(prog, sizeof(prog), e))
        return 2;
    char **args = calloc((size_t)argc + 2, sizeof(*args));
    if (!args)
        return rb_fail(e, RB_EINPUT, "out of memory"), 2;
    args[0] = prog;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    fflush(NULL);
    execv(prog, args);
    const int err = errno;
    free(args);
    return rb_fail(e, RB_EINPUT, "cannot start %s: %s", prog, strerror(err)),
           2;
}

static int network_main(const rb_machine *m, const void *opts,
                        const flag_seen *seen, rb_err *e)
{
    const network_opts *o = opts;
    /* everything checked before mpirun starts */
    if (!o->hostfile && !o->oversubscribe && o->ranks > (uint64_t)m->ncores)
        return rb_fail(e, RB_EINPUT,
                       "--ranks %llu: this host has %d usable core%s (PUs "
                       "%s); fewer ranks, --hostfile for more hosts, or "
                       "--oversubscribe to share cores",
                       (unsigned long long)o->ranks, m->ncores,
                       rb_plural(m->ncores), m->pus),
               2;
    net_plan plan;
    if (netflags_plan(o, seen, (int)o->ranks, &plan, e))
        return 2;
    struct stat hs;
    if (o->hostfile && (stat(o->hostfile, &hs) != 0 || access(o->hostfile, R_OK) != 0))
        return rb_fail(e, RB_EINPUT, "--hostfile '%s': %s", o->hostfile,
                       strerror(errno)),
               2;
    if (o->hostfile && !S_ISREG(hs.st_mode))
        return rb_fail(e, RB_EINPUT, "--hostfile '%s': not a file",
                       o->hostfile),
               2;
    if (runfolder_check(SESSION_ROOT, o->out, e))
        return 2;
    if (o->ceilings) {
        session_roof r;
        int rc = session_roof_load(m, o->ceilings, &r, e);
        if (!rc)
            rc = netflags_check_roofline(&r, &plan, e);
        session_roof_free(&r);
        if (rc)
            return 2;
    }
    return launch(o, seen, e);
}

const cmd_spec cmd_network = {&network_table, sizeof(network_opts),
                              network_main, network_early};
