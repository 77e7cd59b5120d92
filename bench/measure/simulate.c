#include "simulate.h"

#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parse.h"
#include "harness.h"

/* ---- geometry ------------------------------------------------------------- */

static int is_pow2(double x)
{
    if (x < 1.0 || x != floor(x))
        return 0;
    const unsigned long long v = (unsigned long long)x;
    return (v & (v - 1)) == 0;
}

static int check_geom(const char *name, const rb_cache_geom *c, rb_err *e)
{
    if (!is_pow2(c->line) || c->line < 16)
        return rb_fail(e, RB_EINPUT,
                       "--cache %s: line size %u is not a power of two of "
                       "at least 16 bytes (cachegrind needs one)",
                       name, c->line);
    if (c->assoc < 1)
        return rb_fail(e, RB_EINPUT, "--cache %s: no ways", name);
    if (c->size <= c->line)
        return rb_fail(e, RB_EINPUT,
                       "--cache %s: %.0f bytes is not more than one %u-byte "
                       "line (cachegrind needs more)",
                       name, c->size, c->line);
    const double sets = c->size / ((double)c->assoc * c->line);
    if (!is_pow2(sets))
        return rb_fail(e, RB_EINPUT,
                       "--cache %s: %.0f bytes / (%u ways x %u-byte lines) "
                       "= %g sets, not a power of two (cachegrind needs "
                       "one)",
                       name, c->size, c->assoc, c->line, sets);
    return RB_OK;
}

int sim_geometry_default(hwloc_topology_t topo, sim_geometry *g, rb_err *e)
{
    memset(g, 0, sizeof(*g));
    static const hwloc_obj_type_t types[2] = {HWLOC_OBJ_L1CACHE,
                                              HWLOC_OBJ_L2CACHE};
    rb_cache_geom *dst[2] = {&g->l1, &g->ll};
    for (int i = 0; i < 2; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
        if (!o)
            return rb_fail(e, RB_EINPUT,
                           "hwloc reports no L%d cache: give --cache "
                           "L1=SIZE:WAYS:LINE,LL=SIZE:WAYS:LINE",
                           i + 1);
        dst[i]->size = (double)o->attr->cache.size;
        dst[i]->line = o->attr->cache.linesize > 0
                           ? (unsigned)o->attr->cache.linesize
                           : 64;
        dst[i]->assoc = o->attr->cache.associativity > 0
                            ? (unsigned)o->attr->cache.associativity
                            : 8;
    }
    snprintf(g->source, sizeof(g->source),
             "L1d and L2 of this machine as hwloc reports them");
    int rc = check_geom("L1 (from hwloc)", &g->l1, e);
    if (!rc)
        rc = check_geom("LL (from hwloc)", &g->ll, e);
    return rc;
}

static int parse_one(const char *name, const char *spec, rb_cache_geom *c,
                     rb_err *e)
{
    char flag[32], buf[128], *f[4];
    snprintf(flag, sizeof(flag), "--cache %s", name);
    const int n = strchr(spec, ':')
                      ? parse_split(flag, spec, ':', 0, buf, sizeof(buf), f, 4,
                                    e)
                      : 1;
    if (n < 0 || n != 3)
        return rb_fail(e, RB_EINPUT,
                       "--cache %s=%s: expected SIZE:WAYS:LINE, e.g. "
                       "48K:12:64",
                       name, spec);
    uint64_t size, ways, line;
    snprintf(flag, sizeof(flag), "--cache %s size", name);
    /* cachegrind takes sizes up to 1 GiB (an int, in powers of two) */
    int rc = parse_count(flag, f[0], 1024, 1ull << 30, &size, e);
    snprintf(flag, sizeof(flag), "--cache %s ways", name);
    if (!rc)
        rc = parse_count(flag, f[1], 1, 1024, &ways, e);
    snprintf(flag, sizeof(flag), "--cache %s line", name);
    if (!rc)
        rc = parse_count(flag, f[2], 1, 4096, &line, e);
    if (rc)
        return rc;
    c->size = (double)size;
    c->assoc = (unsigned)ways;
    c->line = (unsigned)line;
    return check_geom(name, c, e);
}

int sim_geometry_parse(const char *s, sim_geometry *g, rb_err *e)
{
    if (!s || !*s)
        return rb_fail(e, RB_EINPUT,
                       "--cache '': expected L1=SIZE:WAYS:LINE,LL=SIZE:WAYS:"
                       "LINE");
    char buf[256], *items[2];
    const int n = parse_list("--cache", s, buf, sizeof(buf), items, 2, e);
    if (n < 0)
        return n;
    int seen_l1 = 0, seen_ll = 0;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(items[i], '=');
        if (!eq)
            return rb_fail(e, RB_EINPUT,
                           "--cache '%s': '%s' is not L1=... or LL=...", s,
                           items[i]);
        *eq = '\0';
        int rc;
        if (strcmp(items[i], "L1") == 0 && !seen_l1++)
            rc = parse_one("L1", eq + 1, &g->l1, e);
        else if (strcmp(items[i], "LL") == 0 && !seen_ll++)
            rc = parse_one("LL", eq + 1, &g->ll, e);
        else
            return rb_fail(e, RB_EINPUT,
                           "--cache '%s': '%s' is not L1 or LL, or given "
                           "twice",
                           s, items[i]);
        if (rc)
            return rc;
    }
    if (g->ll.size < g->l1.size)
        return rb_fail(e, RB_EINPUT,
                       "--cache '%s': the last level (%.0f bytes) is smaller "
                       "than L1 (%.0f bytes)",
                       s, g->ll.size, g->l1.size);
    snprintf(g->source, sizeof(g->source), "--cache %s", s);
    return RB_OK;
}

void sim_geometry_arg(const rb_cache_geom *c, char *buf, size_t len)
{
    snprintf(buf, len, "%.0f,%u,%u", c->size, c->assoc, c->line);
}

/* ---- running valgrind ------------------------------------------------------ */

int sim_find_valgrind(char *path, size_t len, rb_err *e)
{
    const char *env = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", env ? env : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/valgrind", d);
        if (access(path, X_OK) == 0)
            return RB_OK;
    }
    return rb_fail(e, RB_EINPUT,
                   "--traffic cachegrind needs valgrind, which is not "
                   "installed: sudo apt-get install -y valgrind");
}

static void add_fn(sim_counts *o, const char *name, double d1, double ll)
{
    for (int i = 0; i < o->nfn; i++)
        if (strcmp(o->fn[i].name, name) == 0) {
            o->fn[i].d1 += d1;
            o->fn[i].ll += ll;
            return;
        }
    /* keep the 64 largest */
    int slot = o->nfn < 64 ? o->nfn++ : -1;
    if (slot < 0) {
        int min = 0;
        for (int i = 1; i < 64; i++)
            if (o->fn[i].d1 < o->fn[min].d1)
                min = i;
        if (o->fn[min].d1 >= d1)
            return;
        slot = min;
    }
    snprintf(o->fn[slot].name, sizeof(o->fn[slot].name), "%s", name);
    o->fn[slot].d1 = d1;
    o->fn[slot].ll = ll;
}

static int cmp_fn(const void *a, const void *b)
{
    const double x = ((const sim_fn *)a)->d1, y = ((const sim_fn *)b)->d1;
    return (x < y) - (x > y);
}

static void sort_fns(sim_counts *o)
{
    qsort(o->fn, (size_t)o->nfn, sizeof(o->fn[0]), cmp_fn);
}

int sim_parse_file(const char *path, sim_counts *out, rb_err *e)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "r");
    if (!f)
        return rb_fail(e, RB_EMEASURE, "cachegrind wrote no %s", path);
    char line[4096], fn[96] = "";
    int idx[9] = {-1, -1, -1, -1, -1, -1, -1, -1, -1}, nev = 0;
    /* per function: the D1 misses of its cost lines; whole file: totals */
    double fn_d1 = 0.0, fn_ll = 0.0;
    int have_events = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "events:", 7) == 0) {
            static const char *want[9] = {"Ir",  "I1mr", "ILmr",
                                          "Dr",  "D1mr", "DLmr",
                                          "Dw",  "D1mw", "DLmw"};
            char *save = NULL;
            nev = 0;
            for (char *t = strtok_r(line + 7, " \t\n", &save); t;
                 t = strtok_r(NULL, " \t\n", &save), nev++)
                for (int w = 0; w < 9; w++)
                    if (strcmp(t, want[w]) == 0)
                        idx[w] = nev;
            have_events = idx[4] >= 0 && idx[5] >= 0 && idx[7] >= 0 &&
                          idx[8] >= 0;
            continue;
        }
        if (strncmp(line, "fn=", 3) == 0) {
            if (*fn)
                add_fn(out, fn, fn_d1, fn_ll);
            fn_d1 = fn_ll = 0.0;
            line[strcspn(line, "\n")] = '\0';
            snprintf(fn, sizeof(fn), "%.95s", line + 3);
            continue;
        }
        if (!*fn || line[0] < '0' || line[0] > '9')
            continue;
        /* "lineno v0 v1 ...", trailing zeros may be left out */
        double v[16] = {0};
        char *p = line, *end;
        strtoull(p, &end, 10); /* the source line number */
        p = end;
        for (int k = 0; k < nev && k < 16; k++) {
            const double x = strtod(p, &end);
            if (end == p)
                break;
            v[k] = x;
            p = end;
        }
        if (!have_events)
            continue;
        out->ir += idx[0] >= 0 ? v[idx[0]] : 0.0;
        out->i1_misses += idx[1] >= 0 ? v[idx[1]] : 0.0;
        out->il_misses += idx[2] >= 0 ? v[idx[2]] : 0.0;
        out->dr += idx[3] >= 0 ? v[idx[3]] : 0.0;
        out->dw += idx[6] >= 0 ? v[idx[6]] : 0.0;
        out->d1_misses += v[idx[4]] + v[idx[7]];
        out->ll_misses += v[idx[5]] + v[idx[8]];
        fn_d1 += v[idx[4]] + v[idx[7]];
        fn_ll += v[idx[5]] + v[idx[8]];
    }
    if (*fn)
        add_fn(out, fn, fn_d1, fn_ll);
    fclose(f);
    if (!have_events)
        return rb_fail(e, RB_EMEASURE,
                       "%s: no D1 and LL miss events (was --cache-sim=yes "
                       "given?)",
                       path);
    sort_fns(out);
    return RB_OK;
}

void sim_subtract(const sim_counts *with, const sim_counts *base,
                  sim_counts *out)
{
    sim_counts r = *with;
    r.ir -= base->ir;
    r.i1_misses -= base->i1_misses;
    r.il_misses -= base->il_misses;
    r.dr -= base->dr;
    r.dw -= base->dw;
    r.d1_misses -= base->d1_misses;
    r.ll_misses -= base->ll_misses;
    for (int i = 0; i < r.nfn; i++)
        for (int j = 0; j < base->nfn; j++)
            if (strcmp(r.fn[i].name, base->fn[j].name) == 0) {
                /* the dynamic loader's functions run in both, and their
                 * misses differ by one or two between runs: a difference
                 * below zero is that noise, not a negative count */
                r.fn[i].d1 = fmax(0.0, r.fn[i].d1 - base->fn[j].d1);
                r.fn[i].ll = fmax(0.0, r.fn[i].ll - base->fn[j].ll);
            }
    sort_fns(&r);
    while (r.nfn > 0 && r.fn[r.nfn - 1].d1 <= 0.0)
        r.nfn--;
    *out = r;
}

/* A child running path with argv and envp (NULL: this environment), its
 * standard output read back into out (at most len - 1 bytes), its
 * standard error sent to /dev/null when quiet; setup(ctx), when given,
 * runs in the child right before the exec and may _exit. While it runs
 * its pid is published in *running (when not NULL). Returns RB_OK with
 * the wait status in *status. */
static int spawn_capture(const char *path, char *const argv[],
                         char *const envp[], int quiet,
                         void (*setup)(const void *), const void *ctx,
                         int *running, char *out, size_t len, int *status,
                         rb_err *e)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return rb_fail(e, RB_EMEASURE, "pipe: %s", strerror(errno));
    const pid_t pid = fork();
    if (pid < 0)
        return rb_fail(e, RB_EMEASURE, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        const int devnull = quiet ? open("/dev/null", O_WRONLY) : -1;
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        if (setup)
            setup(ctx);
        if (envp)
            execve(path, argv, envp);
        else
            execv(path, argv);
        _exit(127);
    }
    if (running)
        __atomic_store_n(running, (int)pid, __ATOMIC_SEQ_CST);
    close(pipefd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(pipefd[0], out + n, len - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = '\0';
    close(pipefd[0]);
    *status = 0;
    waitpid(pid, status, 0);
    if (running)
        __atomic_store_n(running, 0, __ATOMIC_SEQ_CST);
    return RB_OK;
}

/* In the simulated child, before valgrind starts: the same addresses and
 * stack every time. */
static void sim_child_setup(const void *ctx)
{
    const char *exe = ctx;
    personality(ADDR_NO_RANDOMIZE);
    /* never outlives roofbench (an interrupt ends it with _exit) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* the program by a name of fixed length: its path's length moves the
     * client's stack (argv and the auxiliary vector's file name lie on
     * it), and with it misses in the kernel's frames */
    const int fd = open(exe, O_RDONLY);
    if (fd < 0 || (fd != 3 && dup2(fd, 3) != 3))
        _exit(127);
    /* and in one folder: valgrind lays the working folder's name on the
     * client's stack too */
    if (chdir("/") != 0)
        _exit(127);
}

int sim_run(const char *valgrind, const char *exe, const char *kernel,
            rb_dtype dt, rb_shape s, uint64_t seed, const sim_geometry *g,
            const char *workdir, sim_counts *out, rb_err *e)
{
    const sim_job job = {kernel, RB_OP_MATMUL, dt, s, seed, NULL, 0, NULL};
    return sim_run_job(valgrind, exe, &job, g, workdir, out, e);
}

/* The text arguments of one job's valgrind command line. */
typedef struct {
    char outfile[6400];
    char a_out[6500], a_d1[80], a_ll[80], a_i1[80];
    char shape[96], seed[32], flush[32], caches[96];
} sim_args;

/* Fills a's texts for job: cachegrind's output file, one name per job
 * (check runs two at a time in one folder) and an absolute one (the
 * child runs in /); the simulated caches; the child's shape, seed, flush
 * size and configured caches. */
static int sim_args_of(const sim_job *job, const sim_geometry *g,
                       const char *workdir, sim_args *a, rb_err *e)
{
    const rb_shape s = job->s;
    memset(a, 0, sizeof(*a));
    if (job->caches)
        snprintf(a->caches, sizeof(a->caches), "%zu,%zu,%zu", job->caches[0],
                 job->caches[1], job->caches[2]);
    char cwd[2048] = "";
    if (workdir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
        return rb_fail(e, RB_EINPUT, "getcwd: %s", strerror(errno));
    snprintf(a->outfile, sizeof(a->outfile),
             "%s%s%s/cachegrind.%s%s.%s.%s.%zux%zux%zu.%d", cwd,
             cwd[0] ? "/" : "", workdir, job->kernel,
             job->setup_only ? "-setup" : "", rb_op_name(job->op),
             rb_dtype_name(job->dt), s.n, s.p, s.m, (int)getpid());
    /* valgrind expands %p and %q{VAR} in the file name; the folder's name
     * (from --out) is only a name: every % doubled */
    size_t o = (size_t)snprintf(a->a_out, sizeof(a->a_out),
                                "--cachegrind-out-file=");
    for (const char *c = a->outfile; *c && o + 3 < sizeof(a->a_out); c++) {
        if (*c == '%')
            a->a_out[o++] = '%';
        a->a_out[o++] = *c;
    }
    a->a_out[o] = '\0';
    char d1[64], ll[64];
    sim_geometry_arg(&g->l1, d1, sizeof(d1));
    sim_geometry_arg(&g->ll, ll, sizeof(ll));
    snprintf(a->a_d1, sizeof(a->a_d1), "--D1=%s", d1);
    snprintf(a->a_ll, sizeof(a->a_ll), "--LL=%s", ll);
    /* an explicit I1 so that valgrind never has to guess this CPU's */
    snprintf(a->a_i1, sizeof(a->a_i1), "--I1=%s", "32768,8,64");
    snprintf(a->shape, sizeof(a->shape), "%zu,%zu,%zu", s.n, s.p, s.m);
    snprintf(a->seed, sizeof(a->seed), "%llu", (unsigned long long)job->seed);
    snprintf(a->flush, sizeof(a->flush), "%.0f", 4.0 * g->ll.size);
    return RB_OK;
}

/* The child's line on the blocking it used: "path P mr X nr X kc X mc X
 * nc X skinny X sw X skb X sc X openblas CORE order O l3 X shallow X
 * far_l1 X quiet X deep X in_l2 X" (from an older build without the
 * last fields: those left 0). */
static void parse_child_info(char *info, sim_counts *out)
{
    info[strcspn(info, "\n")] = '\0';
    snprintf(out->path, sizeof(out->path), "%.255s", info);
    char p[32] = "";
    unsigned long v[9] = {0}, l3 = 0, shallow = 0, quiet = 0, deep = 0;
    int order = RB_SKINNY_STRIPS, far_l1 = 0, in_l2 = 0;
    if (sscanf(info,
               "path %31s mr %lu nr %lu kc %lu mc %lu nc %lu skinny %lu sw %lu "
               "skb %lu sc %lu openblas %31s order %d l3 %lu shallow %lu "
               "far_l1 %d quiet %lu deep %lu in_l2 %d",
               p, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
               &v[8], out->openblas, &order, &l3, &shallow, &far_l1,
               &quiet, &deep, &in_l2) < 10)
        return;
    out->blk.shallow_groups = shallow; /* 0 (not said): the default */
    out->blk.quiet_l3_groups = quiet;  /* 0 (not said): never */
    out->blk.deep_blocks = deep;       /* 0 (not said): the default */
    out->blk.far_to_l1 = far_l1;       /* the plan's 2 KiB rule reads it */
    out->blk.skinny_in_l2 = in_l2;     /* 0 (not said): MC's rows */
    out->blk.skinny_order = order == RB_SKINNY_NEXT_BLOCK
                                ? RB_SKINNY_NEXT_BLOCK
                                : RB_SKINNY_STRIPS;
    out->blk.l3_bytes = l3;
    out->blk.mr = v[0];
    out->blk.nr = v[1];
    out->blk.kc = v[2];
    out->blk.mc = v[3];
    out->blk.nc = v[4];
    out->blk.skinny_max = v[5];
    out->blk.sw = v[6];
    out->blk.skb = v[7];
    out->blk.sc_bytes = v[8];
}

int sim_run_job(const char *valgrind, const char *exe, const sim_job *job,
                const sim_geometry *g, const char *workdir, sim_counts *out,
                rb_err *e)
{
    sim_args a;
    if (sim_args_of(job, g, workdir, &a, e))
        return RB_EINPUT;
    /* the same environment every time: what the stack holds at start
     * (the environment's strings) moves the kernel's frames, and with
     * them a miss or two */
    char *const envp[] = {"ROOFBENCH_ISA=avx2", "OPENBLAS_CORETYPE=Haswell",
                          "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
                          "LC_ALL=C", NULL};
    /* No gdbserver (--vgdb=no), so no FIFOs in /tmp: valgrind removes
     * them only when it exits by itself, and an interrupt ends it with
     * SIGKILL. */
    char *const argv[] = {"valgrind",
                          "--tool=cachegrind",
                          "--vgdb=no",
                          "--cache-sim=yes",
                          a.a_out,
                          a.a_i1,
                          a.a_d1,
                          a.a_ll,
                          "/dev/fd/3",
                          "_traffic-child",
                          (char *)job->kernel,
                          (char *)rb_dtype_name(job->dt),
                          a.shape,
                          a.seed,
                          a.flush,
                          job->caches ? (char *)rb_op_name(job->op) : NULL,
                          a.caches,
                          job->caches ? (job->setup_only ? "skip" : "call")
                                      : NULL,
                          NULL};
    char info[512];
    int status;
    if (spawn_capture(valgrind, argv, envp, 1, sim_child_setup, exe,
                      job->running, info, sizeof(info), &status, e))
        return RB_EMEASURE;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        unlink(a.outfile);
        return rb_fail(e, RB_EMEASURE,
                       "valgrind --tool=cachegrind on %s %s failed (status "
                       "%d)",
                       job->kernel, rb_dtype_name(job->dt),
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    const int rc = sim_parse_file(a.outfile, out, e);
    unlink(a.outfile);
    if (!rc)
        parse_child_info(info, out);
    return rc;
}

/* ---- the child ------------------------------------------------------------ */

static void nobarrier(const rb_team *t)
{
    (void)t;
}

int sim_operands(rb_dtype dt, rb_shape s, uint64_t seed, void **a, void **b,
                 void **c)
{
    return sim_operands_op(RB_OP_MATMUL, dt, s, seed, a, b, c);
}

int sim_operands_op(rb_op op, rb_dtype dt, rb_shape s, uint64_t seed,
                    void **a, void **b, void **c)
{
    const size_t el = rb_dtype_size(dt);
    uint64_t n[3], bytes;
    if (rb_operand_elems(op, s, n))
        return RB_EINPUT;
    for (int o = 0; o < 3; o++)
        if (__builtin_mul_overflow(n[o], el, &bytes) ||
            bytes > (uint64_t)SIZE_MAX / 2)
            return RB_EINPUT;
    void **dst[3] = {a, b, c};
    for (int o = 0; o < 3; o++) {
        *dst[o] = aligned_alloc(4096, (n[o] * el + 4095) / 4096 * 4096 + 4096);
        if (!*dst[o]) {
            for (int q = 0; q < o; q++)
                free(*dst[q]);
            return RB_EINPUT;
        }
        if (o < 2)
            harness_fill(*dst[o], dt, seed, o, 0, n[o]);
        else
            memset(*dst[o], 0, n[o] * el);
    }
    return RB_OK;
}

int sim_call(const rb_kernel *k, rb_dtype dt, rb_shape s, const void *a,
             const void *b, void *c, void (*before)(void *), void (*after)(void *),
             void *ctx)
{
    rb_operands x;
    harness_slice(k->op, s, rb_dtype_size(dt), (void *)a, (void *)b, c, 0, 1,
                  &x);
    rb_team team = {0, 1, nobarrier, NULL, NULL, NULL};
    if (k->threading == RB_SPLIT_TEAM) {
        size_t shared, own;
        k->workspace(s, dt, 1, &shared, &own);
        team.shared = aligned_alloc(4096, (shared + 4095) / 4096 * 4096 + 4096);
        team.own = aligned_alloc(4096, (own + 4095) / 4096 * 4096 + 4096);
        if (!team.shared || !team.own) {
            free(team.shared);
            free(team.own);
            return RB_EINPUT;
        }
        x.team = &team;
    }
    if (before)
        before(ctx);
    k->fn[dt](&x);
    __asm__ volatile("" : : "r"(c) : "memory");
    if (after)
        after(ctx);
    free(team.shared);
    free(team.own);
    return RB_OK;
}

int sim_valgrind_version(const char *valgrind, char *buf, size_t len,
                         rb_err *e)
{
    char *const argv[] = {"valgrind", "--version", NULL};
    char text[256];
    int status;
    if (spawn_capture(valgrind, argv, NULL, 0, NULL, NULL, NULL, text,
                      sizeof(text), &status, e))
        return RB_EINPUT;
    text[strcspn(text, "\n")] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !text[0])
        return rb_fail(e, RB_EINPUT, "valgrind --version failed");
    snprintf(buf, len, "%s", text);
    return RB_OK;
}
