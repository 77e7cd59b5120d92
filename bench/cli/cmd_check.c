/* roofbench check: the deterministic gate. Runs the fixed set under
 * cachegrind with the pinned facts, writes check.json to a new run folder
 * and compares it with the committed baseline metric by metric: 0 nothing
 * regressed, 3 something did, 2 bad input or an incomparable baseline.
 * --update-baseline writes the baseline, and only then. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkrun.h"
#include "cmd.h"
#include "flags.h"
#include "report_check.h"
#include "session.h"
#include "simulate.h"
#include "text.h"

#ifndef ROOFBENCH_BASELINES_DIR
#define ROOFBENCH_BASELINES_DIR "results/baselines"
#endif

typedef struct {
    const char *baseline, *limit, *out;
    int update, json;
} check_opts;

static const flag_spec check_flags[] = {
    {.name = "baseline", .meta = "FILE", .type = FLAG_TEXT,
     .off = offsetof(check_opts, baseline), .nonempty = 1,
     .def_doc = "results/baselines/check.json of the source tree",
     .help = "the check document to compare with"},
    {.name = "update-baseline", .type = FLAG_SWITCH,
     .off = offsetof(check_opts, update),
     .help = "write this build's counts as the baseline (replacing it, "
             "atomically) instead of comparing"},
    {.name = "limit", .meta = "LIST", .type = FLAG_TEXT,
     .off = offsetof(check_opts, limit),
     .def_doc = "ir=1%,cycles=1%,d1=2%,ll=2%,intensity=2%",
     .help = "how much worse a metric may get, per metric, as "
             "ir=0.5%,ll=3% (the others keep their defaults)"},
    FLAG_OUT(check_opts, out),
    FLAG_JSON(check_opts, json, "print check.json on stdout instead of the "
                                "table"),
};

static const flag_table check_table = {
    "check",
    "usage: roofbench check [options]",
    "Runs a fixed set (every kernel: dot, matvec, each matmul form, the "
    "batched\ncontrast, at sizes that take seconds) once each under "
    "cachegrind, with every\nfact that could make counts differ between "
    "machines pinned: the AVX2 code\npath, the blocked kernel's blocks "
    "(from fixed caches, not this machine's),\nOpenBLAS's core (Haswell), "
    "the simulated caches, sizes and seed; valgrind's\nversion, the "
    "compiler and its flags are recorded. Each kernel is verified\nnatively "
    "first. Per kernel: instructions (Ir), D1 and LL misses, the estimated\n"
    "cycles (L1 hits + 5 x LL hits + 35 x memory accesses) and the LL "
    "intensity\n(FLOPs per LL-missed byte). Compared with the baseline: a "
    "metric worse by\nmore than its limit is a regression. Writes check.json "
    "to a new run folder.",
    check_flags,
    sizeof(check_flags) / sizeof(check_flags[0]),
    "Exit status: 0 nothing regressed, 3 a kernel regressed (or is missing), "
    "2 bad\ninput or a baseline recorded under other pinned facts, 1 a "
    "kernel failed\nverification or a simulation failed.",
    0};

typedef struct {
    check_case cases[CHECK_MAX_CASES];
    size_t ncases, ndone;
    check_counts counts[CHECK_MAX_CASES];
    check_rec recs[CHECK_MAX_CASES];
    check_facts facts;
    check_baseline base;
    int have_base;
    check_cmp cmp;
    int have_cmp;
    check_limits limits;
    char baseline[2048], incomparable[1024];
    int done;
    const check_opts *o;
} check_state;

static int write_check(session *s, void *ctx, const char *status,
                       const char *error, char *lost, size_t lostlen,
                       rb_err *e)
{
    check_state *st = ctx;
    snprintf(lost, lostlen, "the counts of %zu kernels", st->ndone);
    const size_t n = st->done ? st->ndone : 0;
    char *json = report_check_json(s->context, &st->facts, st->counts, n,
                                   status, error,
                                   st->have_cmp ? &st->cmp : NULL,
                                   st->baseline, &st->limits, e);
    if (!json)
        return RB_EINPUT;
    int rc = session_put(s, "check.json", json, strlen(json), e);
    session_keep(s, json);
    return rc;
}

static void print_check(session *s, void *ctx, const char *status)
{
    const check_state *st = ctx;
    if (strcmp(status, "complete") != 0)
        return;
    report_check_text(&st->facts, st->counts, st->ndone,
                      st->have_cmp ? &st->cmp : NULL, st->base.shown,
                      &st->limits, stdout);
    printf("Written: %s/check.json\n", session_dir(s));
}

/* The baseline, whole or not at all: a temporary file beside it, synced,
 * renamed over it. */
static int write_baseline(const char *path, const char *text, rb_err *e)
{
    char dir[4096], tmp[4200], shown[1024];
    text_escape(path, shown, sizeof(shown));
    snprintf(dir, sizeof(dir), "%s", path);
    snprintf(tmp, sizeof(tmp), "%s/.check.json.XXXXXX", dirname(dir));
    const int fd = mkstemp(tmp);
    if (fd < 0)
        return rb_fail(e, RB_EINPUT, "baseline %s: %s", shown,
                       strerror(errno));
    /* the mode of the file it replaces, else what the umask allows (a
     * temporary file is made 0600) */
    struct stat old;
    const mode_t um = umask(0);
    umask(um);
    const mode_t mode =
        stat(path, &old) == 0 ? (old.st_mode & 07777) : (0666 & ~um);
    const size_t len = strlen(text);
    int ok = fchmod(fd, mode) == 0 && write(fd, text, len) == (ssize_t)len &&
             fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        const int err = errno;
        unlink(tmp);
        return rb_fail(e, RB_EINPUT, "baseline %s: %s", shown,
                       strerror(err));
    }
    return RB_OK;
}

static int prepare(const check_opts *o, check_state *st, char *valgrind,
                   size_t vlen, rb_err *e)
{
    check_limits_default(&st->limits);
    if (o->limit && check_limits_parse(o->limit, &st->limits, e))
        return RB_EINPUT;
    /* a fixed size whatever the source tree's path (see profile_dir) */
    static const char def[4096] = ROOFBENCH_BASELINES_DIR "/check.json";
    snprintf(st->baseline, sizeof(st->baseline), "%s",
             o->baseline ? o->baseline : def);
    text_escape(st->baseline, st->base.shown, sizeof(st->base.shown));
    if (sim_find_valgrind(valgrind, vlen, e))
        return rb_fail(e, RB_EINPUT,
                       "check needs valgrind, which is not installed: sudo "
                       "apt-get install -y valgrind");
    char version[64];
    if (sim_valgrind_version(valgrind, version, sizeof(version), e))
        return RB_EINPUT;
    check_facts_init(&st->facts, version);
    check_cases(st->cases, &st->ncases);
    if (o->update) {
        /* where it goes must be a folder this process may write */
        char dir[2048];
        snprintf(dir, sizeof(dir), "%s", st->baseline);
        const char *folder = dirname(dir); /* "." for a bare name */
        struct stat sb;
        if (stat(folder, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
            access(folder, W_OK) != 0)
            return rb_fail(e, RB_EINPUT,
                           "--update-baseline: %s is not in a folder this "
                           "process may write",
                           st->base.shown);
        const int found = stat(st->baseline, &sb) == 0;
        const int err = found ? 0 : errno;
        if (found ? !S_ISREG(sb.st_mode) : err != ENOENT)
            return rb_fail(e, RB_EINPUT,
                           "--update-baseline: %s is not a regular file (%s)",
                           st->base.shown,
                           found ? "another kind" : strerror(err));
        check_facts_expect(&st->facts);
        return RB_OK;
    }
    if (check_baseline_load(st->baseline, &st->base, e))
        return RB_EINPUT;
    st->have_base = 1;
    check_facts_expect(&st->facts);
    check_facts_diff(&st->base.facts, &st->facts, 1, st->incomparable,
                     sizeof(st->incomparable));
    if (st->incomparable[0])
        return rb_fail(e, RB_EINPUT,
                       "baseline %s is incomparable: it was recorded with %s "
                       "(baseline vs this build); record one here with "
                       "--update-baseline",
                       st->base.shown, st->incomparable);
    return RB_OK;
}

static int check_main(const rb_machine *m, const void *opts,
                      const flag_seen *seen, rb_err *e)
{
    (void)seen;
    const check_opts *o = opts;
    static check_state state;
    check_state *st = &state;
    st->o = o;
    char valgrind[4096], exe[4096];
    if (prepare(o, st, valgrind, sizeof(valgrind), e)) {
        check_baseline_free(&st->base);
        return 2;
    }
    const ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (el <= 0) {
        check_baseline_free(&st->base);
        return rb_exit_status(
            rb_fail(e, RB_EINPUT, "cannot find this program's path"));
    }
    exe[el] = '\0';
    session s;
    if (session_open(&s, m, "check", o->out, NULL, e)) {
        check_baseline_free(&st->base);
        return 2;
    }
    session_on_finish(&s, write_check, st, o->json);
    rb_err merr = {""};
    int interrupted = 0;
    int mrc = check_run(m->topo, valgrind, exe, s.folder.tmp, st->cases,
                        st->ncases, &st->facts, st->counts, &st->ndone,
                        &interrupted, &merr);
    st->done = 1;
    if (!mrc && !interrupted) {
        for (size_t i = 0; i < st->ndone; i++)
            check_rec_of(&st->counts[i], &st->recs[i]);
        if (st->have_base &&
            !check_compare(&st->base, st->recs, st->ndone, &st->limits,
                           &st->cmp, &merr))
            st->have_cmp = 1;
    }
    int status =
        session_conclude(&s, mrc, &merr, interrupted, print_check, st, e);
    if (status == 0 && o->update) {
        status = rb_exit_status(write_baseline(st->baseline, s.document, e));
        if (status == 0)
            fprintf(stderr, "baseline written: %s\n", st->base.shown);
    } else if (status == 0 && st->have_cmp) {
        status = check_cmp_status(&st->cmp);
    }
    session_close(&s);
    check_cmp_free(&st->cmp);
    check_baseline_free(&st->base);
    return status;
}

const cmd_spec cmd_check = {&check_table, sizeof(check_opts), check_main, NULL};
