#include "interrupt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MEASURING, FINISHING, RESCUING };

static volatile sig_atomic_t requested;
static int wake[2] = {-1, -1};
static int installed;
static int state = MEASURING;
static interrupt_rescue rescue_fn;
static void *rescue_ctx;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_cond = PTHREAD_COND_INITIALIZER;
/* recursive, so that a rescue may call code that takes it too */
static pthread_mutex_t data_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static double grace_s = INTERRUPT_GRACE_S;
/* The folder a second signal removes when it is empty; under state_lock. */
static char folder[4096];

void interrupt_set_grace(double seconds)
{
    grace_s = seconds;
}

static void on_signal(int sig)
{
    const int saved = errno;
    if (!requested)
        requested = sig;
    const char b = (char)sig;
    ssize_t w = write(wake[1], &b, 1);
    (void)w;
    errno = saved;
}

static void deadline_in(struct timespec *ts, double s)
{
    clock_gettime(CLOCK_REALTIME, ts);
    const long ns = ts->tv_nsec + (long)(s * 1e9);
    ts->tv_sec += ns / 1000000000L;
    ts->tv_nsec = ns % 1000000000L;
}

/* The next signal from the handler, or 0 when the pipe fails. */
static int next_signal(void)
{
    char b = 0;
    for (;;) {
        if (read(wake[0], &b, 1) == 1)
            return (unsigned char)b;
        if (errno != EINTR)
            return 0;
    }
}

/* The first signal: the grace period for the main thread, then the
 * rescue if it is still measuring. Returns when it stopped in time. */
static void first_signal(int sig)
{
    struct timespec until;
    deadline_in(&until, grace_s);
    pthread_mutex_lock(&state_lock);
    while (state == MEASURING &&
           pthread_cond_timedwait(&state_cond, &state_lock, &until) == 0)
        ;
    if (state != MEASURING) {
        /* the main thread stops on its own and writes the documents */
        pthread_mutex_unlock(&state_lock);
        return;
    }
    state = RESCUING;
    pthread_mutex_unlock(&state_lock);
    pthread_mutex_lock(&data_lock);
    int status = interrupt_exit_status(sig);
    if (rescue_fn) {
        status = rescue_fn(rescue_ctx, sig);
    } else {
        /* No rescue (a process that set a folder without one): an empty
         * folder would be left behind for good; rmdir keeps one that is
         * not empty. Sessions install theirs before making their folder
         * (session_open), so this is the fallback. */
        pthread_mutex_lock(&state_lock);
        if (folder[0])
            rmdir(folder);
        pthread_mutex_unlock(&state_lock);
        fprintf(stderr, "roofbench: interrupted\n");
    }
    fflush(stderr);
    _exit(status);
}

static void *watcher(void *arg)
{
    (void)arg;
    for (int n = 0;; n++) {
        const int sig = next_signal();
        if (!sig)
            return NULL;
        if (n == 0) {
            first_signal(sig);
            continue;
        }
        /* a second signal: now, unless a rescue is writing */
        pthread_mutex_lock(&state_lock);
        const int rescuing = state == RESCUING;
        /* Nothing will be written into the temporary folder now, and an
         * empty one would be left behind for good. One that holds
         * documents already is kept as it is (rmdir refuses it): this
         * way out writes and removes nothing else. */
        if (!rescuing && folder[0])
            rmdir(folder);
        pthread_mutex_unlock(&state_lock);
        if (!rescuing) {
            fprintf(stderr, "roofbench: stopped by a second signal; nothing "
                            "more is written\n");
            _exit(interrupt_exit_status(sig));
        }
    }
}

int interrupt_install(interrupt_rescue rescue, void *ctx, rb_err *e)
{
    pthread_mutex_lock(&data_lock);
    rescue_fn = rescue;
    rescue_ctx = ctx;
    pthread_mutex_unlock(&data_lock);
    if (installed)
        return RB_OK;
    if (pipe(wake) != 0)
        return rb_fail(e, RB_EINPUT, "cannot set up the signal handling: %s",
                       strerror(errno));
    pthread_t t;
    if (pthread_create(&t, NULL, watcher, NULL) != 0)
        return rb_fail(e, RB_EINPUT, "cannot start the signal watcher");
    pthread_detach(t);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    installed = 1;
    return RB_OK;
}

void interrupt_set_folder(const char *dir)
{
    pthread_mutex_lock(&state_lock);
    /* A name cut short could be another folder's: none is kept then. */
    const int fits = dir && strlen(dir) < sizeof(folder);
    snprintf(folder, sizeof(folder), "%s", fits ? dir : "");
    pthread_mutex_unlock(&state_lock);
}

int interrupt_requested(void)
{
    return requested;
}

void interrupt_lock(void)
{
    pthread_mutex_lock(&data_lock);
}

void interrupt_unlock(void)
{
    pthread_mutex_unlock(&data_lock);
}

int interrupt_finish(void)
{
    pthread_mutex_lock(&state_lock);
    if (state == RESCUING) {
        /* the watcher writes and exits; wait for it */
        pthread_mutex_unlock(&state_lock);
        for (;;)
            pause();
    }
    state = FINISHING;
    pthread_cond_broadcast(&state_cond);
    pthread_mutex_unlock(&state_lock);
    return requested;
}

int interrupt_exit_status(int sig)
{
    return 128 + sig;
}
