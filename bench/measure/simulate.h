/* Memory traffic by cache simulation: a kernel re-run under valgrind's
 * cachegrind with an explicit cache geometry, its D1 and LL misses read
 * from cachegrind's output and attributed to the functions that ran them.
 * Deterministic: the same binary and geometry give the same counts.
 *
 * Valgrind 3.19 cannot decode AVX-512: the simulated process runs with
 * ROOFBENCH_ISA=avx2 and OPENBLAS_CORETYPE=Haswell, and under valgrind
 * CPUID reports no AVX-512 anyway; the child says which code path ran. */
#ifndef ROOFBENCH_SIMULATE_H
#define ROOFBENCH_SIMULATE_H

#include <hwloc.h>

#include "kernel.h"
#include "traffic.h"
#include "error.h"

typedef struct {
    rb_cache_geom l1, ll;
    char source[128]; /* "hwloc: L1d and L2 of this machine", "--cache" */
} sim_geometry;

/* The default: the L1d and L2 caches hwloc reports for core 0 (size,
 * ways, line), the L2 as cachegrind's last level. */
int sim_geometry_default(hwloc_topology_t topo, sim_geometry *g, rb_err *e);

/* "L1=48K:12:64,LL=1M:16:64" (either part may be left out, keeping the
 * default's). Sizes take K and M suffixes. cachegrind needs a line size
 * that is a power of two and a number of sets (size / (ways x line)) that
 * is a whole power of two: anything else is an error naming it. */
int sim_geometry_parse(const char *s, sim_geometry *g, rb_err *e);

/* "--D1=32768,8,64" style text for a cache. */
void sim_geometry_arg(const rb_cache_geom *c, char *buf, size_t len);

typedef struct {
    char name[96];
    double d1;               /* D1 misses in this function               */
    double ll;               /* LL misses in this function               */
} sim_fn;

typedef struct {
    double ir, dr, dw;       /* instructions, data reads and writes     */
    double i1_misses;        /* I1mr                                     */
    double il_misses;        /* ILmr                                     */
    double d1_misses;        /* D1mr + D1mw                              */
    double ll_misses;        /* DLmr + DLmw                              */
    sim_fn fn[64];           /* the functions with the most D1 misses    */
    int nfn;
    char path[256];          /* what the child ran: code path, blocks    */
    rb_blocking blk;         /* the blocked kernel's blocks in the child */
    char openblas[32];       /* OpenBLAS's core in the child             */
} sim_counts;

/* valgrind's path, or an error with the install line. */
int sim_find_valgrind(char *path, size_t len, rb_err *e);

/* Runs `exe _traffic-child` under cachegrind for one kernel (or "none",
 * the set-up alone), dtype and shape, and reads the counts. workdir holds
 * cachegrind's output file, removed afterwards. */
int sim_run(const char *valgrind, const char *exe, const char *kernel,
            rb_dtype dt, rb_shape s, uint64_t seed, const sim_geometry *g,
            const char *workdir, sim_counts *out, rb_err *e);

/* One simulated call of any operation's kernel. */
typedef struct {
    const char *kernel; /* a registry name, or "none": the set-up alone */
    rb_op op;           /* whose operands are set up                   */
    rb_dtype dt;
    rb_shape s;
    uint64_t seed;
    /* the L1d, L2 and L3 bytes the child configures its kernels for (the
     * blocked matmul's blocks follow them), so that the counts do not
     * depend on this machine's caches; NULL: this machine's */
    const size_t *caches;
    /* with caches: 1 runs the set-up of kernel (not "none") alone, in a
     * child whose arguments take the same bytes as the kernel's own */
    int setup_only;
    /* where the running child's pid is published (0 when none), so that
     * another thread may kill it; NULL: nowhere */
    int *running;
} sim_job;

/* sim_run for a job; the environment of the child is fixed (the ISA cap,
 * OpenBLAS's core and one thread, nothing else) and address-space
 * randomisation off, so that the same binary gives the same counts. The
 * child dies with the thread that started it. */
int sim_run_job(const char *valgrind, const char *exe, const sim_job *job,
                const sim_geometry *g, const char *workdir, sim_counts *out,
                rb_err *e);

/* The first line `valgrind --version` prints ("valgrind-3.19.0"). */
int sim_valgrind_version(const char *valgrind, char *buf, size_t len,
                         rb_err *e);

/* kernel minus set-up: what the kernel itself did, totals and per
 * function (matched by name), the functions sorted by D1 misses. */
void sim_subtract(const sim_counts *with, const sim_counts *base,
                  sim_counts *out);

/* Parses a cachegrind output file: totals into out, and the 64 functions
 * with the most D1 misses. Exposed for tests. */
int sim_parse_file(const char *path, sim_counts *out, rb_err *e);

/* The operands of a matmul as the harness fills them (A and B random from
 * the seed, C zero), page-aligned. Returns RB_EINPUT when the sizes
 * overflow or memory runs out. */
int sim_operands(rb_dtype dt, rb_shape s, uint64_t seed, void **a, void **b,
                 void **c);
/* The same for any operation. */
int sim_operands_op(rb_op op, rb_dtype dt, rb_shape s, uint64_t seed,
                    void **a, void **b, void **c);

/* One call of a kernel (any operation) on one thread (a team kernel gets a team of
 * one and its workspace), with before(ctx) and after(ctx) right around
 * it (counters start and stop there). */
int sim_call(const rb_kernel *k, rb_dtype dt, rb_shape s, const void *a,
             const void *b, void *c, void (*before)(void *),
             void (*after)(void *), void *ctx);

#endif
