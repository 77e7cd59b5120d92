/* Running roofbench as a user does, for the command-line tests: a child
 * process in a folder, its output captured in files, its exit status (or
 * 1000 + the signal that killed it), and helpers to read what it wrote.
 * Each test executable includes this once. */
#ifndef ROOFBENCH_TEST_CLI_H
#define ROOFBENCH_TEST_CLI_H

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "host.h"

static const char *roofbench;
static char workdir[] = "/tmp/roofbench-cli-XXXXXX";

typedef struct {
    int status; /* exit status, or 1000 + the signal that killed it */
    char out[65536];
    char err[8192];
    double seconds; /* wall time from start to exit */
} result;

/* What a child does between fork and exec (set a limit, an affinity). */
typedef void (*child_setup)(void *ctx);

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void sleep_s(double s)
{
    const struct timespec ts = {(time_t)s,
                                (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static inline void slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    const size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static inline void out_path(char *buf, size_t len, const char *which)
{
    snprintf(buf, len, "%s/.%s", workdir, which);
}

/* Starts roofbench with args in cwd, stdout and stderr to files (stdout to
 * out_fd instead when it is >= 0); returns the pid. */
static inline pid_t start_with(const char *cwd, const char *const *args,
                               int out_fd, child_setup setup, void *ctx)
{
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)roofbench;
    for (; args[n - 1] && n < 63; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    /* No stale output from the previous command may be read as this one's. */
    char path[512];
    out_path(path, sizeof(path), "stdout");
    unlink(path);
    out_path(path, sizeof(path), "stderr");
    unlink(path);
    const pid_t pid = fork();
    if (pid == 0) {
        if (chdir(cwd) != 0)
            _exit(126);
        out_path(path, sizeof(path), "stdout");
        const int o = out_fd >= 0
                          ? out_fd
                          : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        out_path(path, sizeof(path), "stderr");
        const int e = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        if (setup)
            setup(ctx);
        execv(roofbench, argv);
        _exit(127);
    }
    return pid;
}

static inline pid_t start(const char *cwd, const char *const *args)
{
    return start_with(cwd, args, -1, NULL, NULL);
}

/* The result of a child that has ended with wait status st. */
static inline void reaped(int st, double t0, result *r)
{
    r->seconds = now_s() - t0;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
    char path[512];
    out_path(path, sizeof(path), "stdout");
    slurp(path, r->out, sizeof(r->out));
    out_path(path, sizeof(path), "stderr");
    slurp(path, r->err, sizeof(r->err));
}

static inline void finish_at(pid_t pid, double t0, result *r)
{
    int st = 0;
    waitpid(pid, &st, 0);
    reaped(st, t0, r);
}

static inline void finish(pid_t pid, result *r)
{
    finish_at(pid, now_s(), r);
}

/* As finish, but a child still running after `seconds` is killed
 * (SIGKILL: status 1009), so that a command that ignores a signal fails
 * the test instead of hanging it. */
static inline void finish_within(pid_t pid, double seconds, result *r)
{
    const double t0 = now_s();
    int st = 0;
    pid_t got;
    while ((got = waitpid(pid, &st, WNOHANG)) == 0 && now_s() - t0 < seconds)
        sleep_s(0.01);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    reaped(st, t0, r);
}

static inline void run(const char *cwd, const char *const *args, result *r)
{
    finish(start(cwd, args), r);
}

/* Waits until the captured stream (stdout or stderr) holds needle, or
 * seconds pass; returns whether it does. */
static inline int wait_for(const char *which, const char *needle,
                           double seconds)
{
    char path[512], text[65536];
    out_path(path, sizeof(path), which);
    for (const double t0 = now_s(); now_s() - t0 < seconds; sleep_s(0.01)) {
        slurp(path, text, sizeof(text));
        if (strstr(text, needle))
            return 1;
    }
    return 0;
}

/* Entries in dir other than . and the captured output files. */
static inline int count_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
             strcmp(de->d_name, ".stdout") && strcmp(de->d_name, ".stderr");
    if (d)
        closedir(d);
    return n;
}

/* The lines in s: an error is one line, never more. */
static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static inline int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline json_t *load_json(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        fprintf(stderr, "%s: %s (line %d)\n", path, je.text, je.line);
    return j;
}

static inline const char *jstr(json_t *j, const char *a, const char *b)
{
    json_t *o = json_object_get(j, a);
    return json_string_value(b ? json_object_get(o, b) : o);
}

/* A recorded ceilings document (tests/fixtures) as if measured on this
 * host, so that --ceilings accepts it; edit (may be NULL) changes it
 * first. Returns 0, or -1 when the fixture cannot be read or written. */
static inline int fixture_here(const char *fixture, const char *dst,
                               void (*edit)(json_t *doc))
{
    char src[1024], host[256];
    snprintf(src, sizeof(src), "%s/%s", ROOFBENCH_FIXTURES, fixture);
    json_t *doc = load_json(src);
    if (!doc)
        return -1;
    host_name(host, sizeof(host));
    json_object_set_new(json_object_get(doc, "context"), "host",
                        json_string(host));
    if (edit)
        edit(doc);
    const int rc = json_dump_file(doc, dst, JSON_INDENT(1));
    json_decref(doc);
    return rc;
}

/* ceilings file src with every roof (the peaks, the levels' bandwidths)
 * scaled by `scale` and, where spread >= 0, every spread set to it,
 * written to dst. */
static inline void scaled_ceilings(const char *src, const char *dst,
                                   double scale, double spread)
{
    json_t *doc = load_json(src);
    CHECK(doc != NULL);
    size_t i, j, k;
    json_t *team, *roof, *lv, *v;
    const char *key;
    json_array_foreach(json_object_get(doc, "roofline"), i, team)
    {
        json_object_foreach(json_object_get(team, "peak_gflops"), key, v)
            json_real_set(v, json_number_value(v) * scale);
        if (spread >= 0.0)
            json_object_foreach(json_object_get(team, "peak_spread"), key, v)
                json_real_set(v, spread);
        json_array_foreach(json_object_get(team, "roofs"), j, roof)
            json_array_foreach(json_object_get(roof, "levels"), k, lv)
        {
            v = json_object_get(lv, "gbs");
            json_real_set(v, json_number_value(v) * scale);
            if (spread >= 0.0)
                json_real_set(json_object_get(lv, "spread"), spread);
        }
    }
    CHECK(doc && json_dump_file(doc, dst, 0) == 0);
    json_decref(doc);
}

static inline void remove_tree(const char *dir)
{
    char cmd[1300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%.1200s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* Common start of a test's main: the roofbench path made absolute, the
 * scratch folder made. Returns 0, or an exit status. */
static inline int cli_setup(int argc, char **argv, const char *name)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH-TO-ROOFBENCH\n", name);
        return 2;
    }
    static char exe[4096];
    if (!realpath(argv[1], exe)) {
        perror(argv[1]);
        return 1;
    }
    roofbench = exe;
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

#endif
