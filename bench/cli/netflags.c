/* The flags of roofbench network and the plan they make (netflags.h). */
#include "netflags.h"

#include <limits.h>
#include <unistd.h>
#include <stdlib.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "parse.h"
#include "sweep.h"

#define OFF(f) offsetof(network_opts, f)

static const flag_spec network_flags[] = {
    {.name = "ranks",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(ranks),
     .def = "2",
     .cmin = 2,
     .cmax = NET_MAX_RANKS,
     .help = "ranks mpirun starts (not under mpirun: there the world size "
             "counts)"},
    {.name = "hostfile",
     .meta = "FILE",
     .type = FLAG_TEXT,
     .off = OFF(hostfile),
     .help = "mpirun's --hostfile: the hosts the ranks run on (each needs "
             "roofbench-mpi at the same path)"},
    {.name = "oversubscribe",
     .type = FLAG_SWITCH,
     .off = OFF(oversubscribe),
     .help = "allow more ranks than cores on a host (ranks then share cores: "
             "the figures say so)"},
    {.name = "parts",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(parts),
     .def = "latency,bandwidth,allreduce,shard",
     .help = "what to measure: latency (ping-pong), bandwidth (a window of "
             "non-blocking sends), allreduce, shard (the sharded matmul)"},
    {.name = "sizes",
     .meta = "RANGE",
     .type = FLAG_TEXT,
     .off = OFF(sizes),
     .def = "1:64M:x2",
     .def_quick = "1:16M:x4",
     .help = "message sizes in bytes, as --batch of sweep: LO:HI:xF, LO:HI "
             "or a list; at most 1G"},
    FLAG_DTYPE(network_opts, dtype, "f32,f64"),
    {.name = "kernel",
     .meta = "NAME",
     .type = FLAG_TEXT,
     .off = OFF(kernel),
     .def = "matmul_blocked",
     .help = "the partial product's kernel: a matmul kernel (roofbench list), "
             "e.g. matmul_openblas"},
    {.name = "batch",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(batch),
     .def = "16,128",
     .help = "batch sizes B of the sharded matmul (up to 4), as --batch of "
             "sweep; the default pair is a factor 8 apart, both within the "
             "blocked kernel's skinny path (up to MC rows with W past half "
             "of L2), where its rate, the C of D*, hardly depends on B"},
    {.name = "f",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(f),
     .def = "2048",
     .def_quick = "512",
     .cmin = 1,
     .cmax = 1u << 20,
     .help = "output columns F of the sharded matmul: the all-reduced "
             "[B,F] is 128 KiB to 2 MiB at the default B, where a shared-"
             "memory all-reduce's bandwidth is flattest"},
    {.name = "d",
     .meta = "RANGE",
     .type = FLAG_TEXT,
     .off = OFF(d),
     .def = "16:8K",
     .def_quick = "16:4K:x2",
     .help = "contraction sizes D of the sharded matmul, as --batch of "
             "sweep; each rounded up to a multiple of the ranks"},
    {.name = "chunks",
     .meta = "N",
     .type = FLAG_COUNT,
     .off = OFF(chunks),
     .def = "8",
     .cmin = 1,
     .cmax = 256,
     .help = "output chunks of the overlapped step (F must be a multiple)"},
    FLAG_MIN_TIME(network_opts, min_time, "0.01", "0.002", 1e-4,
                  "seconds one sample must last"),
    FLAG_SAMPLES(network_opts, samples, "5", "3", NET_MAX_SAMPLES,
                 "timed samples per point, at least 3"),
    FLAG_SEED(network_opts, seed),
    {.name = "window-memory",
     .meta = "BYTES",
     .type = FLAG_COUNT,
     .off = OFF(budget),
     .def = "256M",
     .cmin = 1,
     .cmax = 1ull << 40,
     .help = "receive buffers one bandwidth window may use: the window is "
             "64 sends, fewer for messages above this / 64"},
    FLAG_QUICK(network_opts, quick,
               "message sizes x4 to 16M, D to 4K, F 512, short samples"),
    FLAG_CEILINGS(network_opts, ceilings,
                  "the host roofline from an earlier `roofbench ceilings` "
                  "(its ceilings.json); without it, rank 0 measures the "
                  "1-thread roofs first"),
    FLAG_OUT(network_opts, out),
    FLAG_JSON(network_opts, json,
              "print the network document on stdout instead of the tables"),
};

const flag_table network_table = {
    "network",
    "usage: roofbench network [--ranks N] [--hostfile FILE] [options]\n"
    "       mpirun [mpirun options] roofbench network [options]",
    "The network is a roof too. Under MPI (OpenMPI), ranks pinned one per "
    "core with\nhwloc measure the link: ping-pong latency and windowed "
    "bandwidth (as the OSU\nmicro-benchmarks) from rank 0 to one partner, "
    "MPI_Allreduce with its algorithm\nand bus bandwidth (2(n-1)/n, as "
    "nccl-tests); T(bytes) = latency + bytes / W is\nfitted to the "
    "ping-pong. Then [B,D] x [D,F] is sharded over the ranks along D:\n"
    "each computes its [B,D/N] x [D/N,F] partial product and the partial "
    "sums are\nall-reduced, timed apart, in sequence and overlapped chunk by "
    "chunk, and the\ncrossover D where the link stops binding is read off "
    "beside D* = (N-1) s C / W.\nEvery message and every product is "
    "verified. Without mpirun around it, this\nstarts `mpirun -n N` itself "
    "and prints the command line it used. Writes\nnetwork.json (the fitted "
    "link, which `roofbench model --network` reads), CSVs\nand a chart "
    "(network.png, network.svg) to a new run folder.",
    network_flags,
    sizeof(network_flags) / sizeof(network_flags[0]),
    "Sizes take K, M, G suffixes (x1024). Several hosts: write a hostfile "
    "(one line\nper host, `host slots=N`) and pass --hostfile, or run "
    "`mpirun --hostfile FILE -n N\n--bind-to none roofbench network` "
    "yourself. The default takes about a minute\non two cores. Exit status: "
    "0 success, 1 a verification failed, 2 bad input,\nno MPI or an "
    "unusable environment, 130 or 143 after SIGINT or SIGTERM.",
    0};

static int parse_parts(const char *s, unsigned *out, rb_err *e)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"latency", NET_LATENCY},
                 {"bandwidth", NET_BANDWIDTH},
                 {"allreduce", NET_ALLREDUCE},
                 {"shard", NET_SHARD}};
    char buf[256], *items[8];
    const int k = parse_list("--parts", s, buf, sizeof(buf), items, 8, e);
    if (k < 0)
        return RB_EINPUT;
    *out = 0;
    for (int i = 0; i < k; i++) {
        unsigned bit = 0;
        for (size_t j = 0; j < sizeof(names) / sizeof(*names); j++)
            if (strcmp(items[i], names[j].name) == 0)
                bit = names[j].bit;
        if (!bit)
            return rb_fail(e, RB_EINPUT,
                           "--parts '%s': unknown (latency, bandwidth, "
                           "allreduce, shard)",
                           items[i]);
        if (*out & bit)
            return rb_fail(e, RB_EINPUT, "--parts: '%s' given twice", items[i]);
        *out |= bit;
    }
    return RB_OK;
}

static int grid(const char *flag, const char *s, uint64_t *out, size_t *n,
                size_t max, rb_err *e)
{
    uint64_t tmp[SWEEP_MAX_POINTS];
    size_t k = 0;
    if (sweep_grid_parse(flag, s, tmp, &k, e))
        return RB_EINPUT;
    if (k > max)
        return rb_fail(e, RB_EINPUT, "%s '%s': %zu values, at most %zu", flag,
                       s, k, max);
    memcpy(out, tmp, k * sizeof(*tmp));
    *n = k;
    return RB_OK;
}

/* The plan's lists from their flags: parts, sizes (at most 1G), dtypes,
 * one matmul kernel, batches and D, rounded up to multiples of the ranks
 * with duplicates dropped. */
static int plan_lists(const network_opts *o, int ranks, net_plan *p,
                      rb_err *e)
{
    int rc = parse_parts(o->parts, &p->parts, e);
    if (!rc)
        rc = grid("--sizes", o->sizes, p->sizes, &p->nsizes, NET_MAX_SIZES, e);
    if (!rc && p->sizes[p->nsizes - 1] > (1ull << 30))
        rc = rb_fail(e, RB_EINPUT, "--sizes '%s': the largest is above 1G",
                     o->sizes);
    if (!rc)
        rc = parse_dtypes("--dtype", o->dtype, p->dtypes, &p->ndtypes, e);
    const rb_kernel *k[2];
    size_t nk = 0;
    if (!rc)
        rc = flags_kernels("--kernel", o->kernel, 1u << RB_OP_MATMUL,
                           "the partial product is a matmul", 0, k, &nk, 2, e);
    if (!rc && nk != 1)
        rc = rb_fail(e, RB_EINPUT, "--kernel '%s': name one matmul kernel",
                     o->kernel);
    if (!rc)
        p->kernel = k[0];
    if (!rc)
        rc = grid("--batch", o->batch, p->batch, &p->nbatch, NET_MAX_B, e);
    uint64_t d[SWEEP_MAX_POINTS];
    size_t nd = 0;
    if (!rc)
        rc = grid("--d", o->d, d, &nd, NET_MAX_D, e);
    for (size_t i = 0; !rc && i < nd; i++) {
        uint64_t v = d[i];
        if (ranks > 0)
            v = (v + (uint64_t)ranks - 1) / (uint64_t)ranks * (uint64_t)ranks;
        if (p->nd == 0 || v > p->d[p->nd - 1])
            p->d[p->nd++] = v;
    }
    return rc;
}

/* The all-reduce needs sizes that hold whole elements of every dtype. */
static int allreduce_sizes(const network_opts *o, const net_plan *p,
                           rb_err *e)
{
    for (int t = 0; (p->parts & NET_ALLREDUCE) && t < p->ndtypes; t++) {
        const size_t el = rb_dtype_size(p->dtypes[t]);
        size_t usable = 0;
        for (size_t i = 0; i < p->nsizes; i++)
            usable += p->sizes[i] >= el && p->sizes[i] % el == 0;
        if (!usable)
            return rb_fail(e, RB_EINPUT,
                           "--sizes '%s': no size holds whole %s elements "
                           "(%zu bytes) for the all-reduce",
                           o->sizes, rb_dtype_name(p->dtypes[t]), el);
    }
    return RB_OK;
}

/* The most one rank holds: the largest message and its receive window,
 * or the sharded contraction's operands, here ranks sharing D. */
static uint64_t rank_bytes(const net_plan *p, int here)
{
    uint64_t most = 0;
    if (p->parts & (NET_LATENCY | NET_BANDWIDTH | NET_ALLREDUCE)) {
        /* the largest message sent, and the receive buffers */
        most = p->sizes[p->nsizes - 1] + net_receive_bytes(p);
    }
    if (p->parts & NET_SHARD) {
        const uint64_t dl = p->d[p->nd - 1] / (uint64_t)here;
        uint64_t bmax = 0;
        for (size_t i = 0; i < p->nbatch; i++)
            bmax = p->batch[i] > bmax ? p->batch[i] : bmax;
        const double set =
            8.0 * ((double)bmax * (double)dl + (double)dl * (double)p->f +
                   4.0 * (double)bmax * (double)p->f);
        if ((double)most < set)
            most = (uint64_t)set;
    }
    return most;
}

int netflags_plan(const network_opts *o, const flag_seen *seen, int ranks,
                  net_plan *p, rb_err *e)
{
    memset(p, 0, sizeof(*p));
    p->samples = (int)o->samples;
    p->min_time = o->min_time;
    p->seed = o->seed;
    p->f = o->f;
    p->chunks = (int)o->chunks;
    p->buffer_budget = o->budget;
    int rc = plan_lists(o, ranks, p, e);
    if (!rc && p->f % (uint64_t)p->chunks)
        rc = rb_fail(e, RB_EINPUT,
                     "--chunks %llu: F (--f %llu) must be a multiple of it",
                     (unsigned long long)p->chunks, (unsigned long long)p->f);
    if (!rc)
        rc = allreduce_sizes(o, p, e);
    if (rc)
        return rc;
    if (!flags_given(&network_table, seen, "parts") || (p->parts & NET_SHARD)) {
        for (size_t i = 0; i < p->nbatch; i++)
            if (p->batch[i] * p->f > INT_MAX)
                return rb_fail(
                    e, RB_EINPUT,
                    "--batch %llu with --f %llu: the output has more "
                    "than 2^31 - 1 elements (an MPI count)",
                    (unsigned long long)p->batch[i], (unsigned long long)p->f);
    }
    /* the working set of every rank on this host, against the memory */
    const int here = ranks > 0 ? ranks : 2;
    const uint64_t most = rank_bytes(p, here), avail = host_mem_available();
    if (avail && (double)most * here > 0.5 * (double)avail)
        return rb_fail(e, RB_EINPUT,
                       "%d ranks of %.3g GB each need more than half of the "
                       "%.3g GB available: smaller --sizes, --d, --f or "
                       "--batch",
                       here, (double)most / 1e9, (double)avail / 1e9);
    return RB_OK;
}

int netflags_check_roofline(const session_roof *r, const net_plan *p,
                            rb_err *e)
{
    if (!r->ready)
        return RB_OK;
    const roof_team *t = sweep_team(&r->roof, 1);
    if (!t)
        return rb_fail(e, RB_EINPUT,
                       "--ceilings '%s': no 1-thread roofs (one rank's): "
                       "measure them with roofbench ceilings --threads 1",
                       r->file);
    for (int d = 0; d < p->ndtypes; d++)
        if (!(t->peak_gflops[p->dtypes[d]] > 0))
            return rb_fail(e, RB_EINPUT,
                           "--ceilings '%s': no %s peak for 1 thread",
                           r->file, rb_dtype_name(p->dtypes[d]));
    return RB_OK;
}

json_t *netflags_settings(const net_plan *p, const network_opts *o, int argc,
                          char **argv)
{
    json_t *dtypes = json_array(), *sizes = json_array(), *batch = json_array(),
           *d = json_array(), *parts = json_array();
    for (int i = 0; i < p->ndtypes; i++)
        json_array_append_new(dtypes, json_string(rb_dtype_name(p->dtypes[i])));
    for (size_t i = 0; i < p->nsizes; i++)
        json_array_append_new(sizes, json_integer((json_int_t)p->sizes[i]));
    for (size_t i = 0; i < p->nbatch; i++)
        json_array_append_new(batch, json_integer((json_int_t)p->batch[i]));
    for (size_t i = 0; i < p->nd; i++)
        json_array_append_new(d, json_integer((json_int_t)p->d[i]));
    static const char *const names[] = {"latency", "bandwidth", "allreduce",
                                        "shard"};
    for (int i = 0; i < 4; i++)
        if (p->parts & (1u << i))
            json_array_append_new(parts, json_string(names[i]));
    return json_pack(
        "{s:o, s:o, s:o, s:s, s:o, s:I, s:o, s:i, s:f, s:i, s:I, s:I, s:i, "
        "s:o}",
        "command", flags_command_json("network", argc, argv), "parts", parts,
        "sizes_bytes", sizes, "kernel", p->kernel->name, "batch", batch, "f",
        (json_int_t)p->f, "d", d, "chunks", p->chunks, "min_time_s",
        p->min_time, "samples", p->samples, "seed", (json_int_t)p->seed,
        "window_memory_bytes", (json_int_t)p->buffer_budget, "oversubscribe",
        o->oversubscribe, "dtypes", dtypes);
}

/* roofbench-mpi beside this executable. */
int netflags_mpi_program(char *path, size_t len, rb_err *e)
{
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return rb_fail(e, RB_EINPUT, "cannot read /proc/self/exe: %s",
                       strerror(errno));
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    if ((size_t)snprintf(path, len, "%.4000s/roofbench-mpi", self) >= len ||
        access(path, X_OK) != 0)
        return rb_fail(e, RB_EINPUT,
                       "roofbench-mpi was not built (no MPI when CMake ran): "
                       "apt-get install openmpi-bin libopenmpi-dev, then "
                       "scripts/setup");
    return RB_OK;
}

/* mpirun on PATH, as execvp would find it. */
int netflags_find_mpirun(char *path, size_t len, rb_err *e)
{
    const char *env = getenv("PATH");
    char buf[8192];
    snprintf(buf, sizeof(buf), "%s", env && *env ? env : "/usr/bin:/bin");
    for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/mpirun", *dir ? dir : ".");
        if (access(path, X_OK) == 0)
            return RB_OK;
    }
    return rb_fail(e, RB_EINPUT,
                   "mpirun not found on PATH: apt-get install openmpi-bin "
                   "libopenmpi-dev (as root), then scripts/setup");
}
