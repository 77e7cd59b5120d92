/* The host's own ceilings, measured: core clock, peak FLOP/s per dtype and
 * vector width, bandwidth against working-set size for five kernels with
 * the memory levels found in each curve, and OpenBLAS GEMM (through the
 * harness) as the practical compute roof. The result is a struct; the
 * reporters (report_ceilings.h) render it as ceilings.json, the host
 * profile that `run` judges kernels against, and as CSV, text and a
 * chart. */
#ifndef ROOFBENCH_CEILINGS_H
#define ROOFBENCH_CEILINGS_H

#include <hwloc.h>

#include "ceiling.h"
#include "drift.h"
#include "error.h"
#include "host.h"
#include "kernel.h"
#include "plateau.h"
#include "pool.h"
#include "region.h"

enum {
    CEIL_MAX_THREADS = 16,
    CEIL_MAX_WIDTHS = 4,
    CEIL_MAX_POINTS = 256,
    CEIL_MAX_LEVELS = 8,
    CEIL_MAX_SAMPLES = 64,
    CEIL_PASSES = 2
};

typedef enum {
    BW_READ = 0,
    BW_READ2,
    BW_READ4,
    BW_WRITE,
    BW_COPY,
    BW_TRIAD,
    BW_SCHOENAUER,
    BW_NKERNELS
} bw_kernel;

const char *bw_kernel_name(bw_kernel k);
/* Arrays a kernel streams: 1, 2, 4, 1, 2, 3 or 4. */
int bw_kernel_streams(bw_kernel k);
/* 1 for the kernels that only read (read, read2, read4). */
int bw_kernel_reads_only(bw_kernel k);

/* Each thread's bandwidth streams lie in one rb_region (region.h): unit
 * RB_REGION_SPAN and this shift, so the first 64 KiB of every stream stay
 * clear of L1 utag aliasing whatever the sweep's size, and the streams
 * are staggered by three cache lines within a page. */
#define BW_STREAM_SHIFT ((size_t)(64 << 10) + 192)

typedef struct {
    int threads[CEIL_MAX_THREADS];
    int nthreads;
    rb_dtype dtypes[RB_NDTYPES];
    int ndtypes;
    unsigned widths[CEIL_MAX_WIDTHS]; /* bits: 64, 128, 256, 512          */
    int nwidths;
    int bw_kernels[BW_NKERNELS]; /* which bandwidth kernels to sweep  */
    unsigned bw_width;           /* vector width of the sweep         */
    double size_min, size_max;   /* working set, all threads, bytes   */
    double past_cache_bytes;     /* a working set past every cache:
                                    max(1 GiB, 4x what the last cache
                                    is believed to hold); DRAM is named
                                    only when the sweep reaches it    */
    double factor;               /* geometric step of the sweep       */
    double bw_target_bytes;      /* traffic per sample, about         */
    double min_time;             /* seconds per peak/clock sample     */
    int samples;
    size_t gemm_n; /* 0: no GEMM roof                   */
} ceilings_plan;

/* ---- the result --------------------------------------------------------- */

typedef struct {
    int threads;
    double ghz, ghz_median; /* best and median sample           */
    double samples[CEIL_MAX_SAMPLES];
    int nsamples;
} ceil_clock;

typedef struct {
    rb_dtype dt;
    const rb_peak_variant *v;
    int threads;
    unsigned lanes;
    double gflops, gflops_median; /* of the better of the rounds      */
    double fpc;                   /* FLOPs per cycle per core         */
    double theoretical, ratio;    /* GFLOP/s, and best / that         */
    int pipes, pipes_known;
    const char *pipes_source;
    uint64_t iterations;              /* per sample, of the better round  */
    double samples[CEIL_MAX_SAMPLES]; /* every round's                  */
    int nsamples, rounds;
    double max_err; /* against the closed form          */
} ceil_peak;

typedef struct {
    double bytes;         /* working set, all threads         */
    double gbs, gbs_best; /* median and best sample           */
    double passes;        /* over the working set per sample  */
    double samples[CEIL_MAX_SAMPLES];
    int nsamples;
} ceil_point;

typedef struct {
    bw_kernel kernel;
    int threads, streams;
    const char *variant;
    unsigned width_bits;
    ceil_point *points;
    size_t npoints;
    plateau levels[CEIL_MAX_LEVELS];
    size_t nlevels;
} ceil_curve;

typedef struct {
    rb_dtype dt;
    int threads;
    size_t n;
    double gflops, gflops_median;
    char corename[32];
    double samples[CEIL_MAX_SAMPLES]; /* GFLOP/s                        */
    int nsamples;
    double max_err; /* verification against the reference */
} ceil_gemm;

typedef struct {
    char level[8];
    double reported_bytes, per_core;
    int count;
    double last, next; /* the plateau's end; 0: none found */
    int plausible;
    char note[256];
} ceil_cache;

/* One access mix's bandwidth roof on a team (kernel.h, rb_access): the
 * envelope of the curves of every swept kernel that can serve the mix
 * (for reads read, read2 and read4; for mixed access those and copy,
 * triad and schoenauer), each point the best of them at that working set
 * (log-log interpolation between each curve's own points), and the levels
 * found in the envelope. A level's bandwidth is one kernel's: the kernel
 * with the highest median over the level's points, measured the same way
 * as the others; its spread is how far the best point any kernel of the
 * mix measured in the level lies above that median (the roof's own noise:
 * a kernel faster than gbs x (1 + spread) beat every point the roof
 * measured there). */
typedef struct {
    int present;      /* some kernel of the mix was swept        */
    unsigned kernels; /* bit k: bw_kernel k is in the envelope   */
    double bytes[CEIL_MAX_POINTS], gbs[CEIL_MAX_POINTS];
    int winner[CEIL_MAX_POINTS]; /* the kernel best at that point */
    size_t npoints;
    plateau levels[CEIL_MAX_LEVELS]; /* gbs: the level kernel's median */
    int level_kernel[CEIL_MAX_LEVELS];
    double level_spread[CEIL_MAX_LEVELS];
    size_t nlevels;
} ceil_roof;

/* One thread count's roofline: its best peak per dtype (and that peak
 * kernel's spread, best over median sample), GEMM, and the bandwidth roof
 * of each access mix. */
typedef struct {
    int threads;
    double ghz;
    double peak[RB_NDTYPES]; /* 0: not measured                  */
    double peak_spread[RB_NDTYPES];
    const char *variant[RB_NDTYPES];
    double gemm[RB_NDTYPES]; /* 0: not measured                  */
    int read;                /* index of its read curve, or -1   */
    ceil_roof roofs[RB_NACCESS];
} ceil_team;

/* The kernels that may serve an access mix: reads for RB_ACCESS_READ,
 * every kernel but write for RB_ACCESS_MIXED. */
int bw_kernel_serves(bw_kernel k, rb_access mix);

/* Builds the roof of one mix from a team's curves (roofs.c), with the
 * plateau rules of the sweep (plateau.h): past_cache_bytes, cache_levels
 * and cache_bytes as in ceilings_bw_curve. A mix with no curve is left
 * with present 0. */
void ceilings_roof_build(const ceil_curve *curves, int ncurves, int threads,
                         rb_access mix, double past_cache_bytes,
                         size_t cache_levels, const double *cache_bytes,
                         ceil_roof *out);

enum {
    CEIL_MAX_PEAKS = CEIL_MAX_THREADS * RB_NDTYPES * CEIL_MAX_WIDTHS,
    CEIL_MAX_CURVES = CEIL_MAX_THREADS * BW_NKERNELS
};

typedef struct {
    ceilings_plan plan;
    double os_mhz; /* 0: the OS reports none           */
    const char *os_source;
    ceil_clock clocks[CEIL_MAX_THREADS];
    int nclocks;
    ceil_peak peaks[CEIL_MAX_PEAKS];
    int npeaks;
    ceil_curve curves[CEIL_MAX_CURVES];
    int ncurves;
    ceil_gemm gemms[CEIL_MAX_THREADS * RB_NDTYPES];
    int ngemms;
    ceil_cache caches[3];
    int ncaches;
    ceil_team teams[CEIL_MAX_THREADS];
    int nteams;
    int interrupted; /* stopped by a signal: what is here
                        finished, the rest is missing     */
} ceilings_result;

/* The best variant for a width that an ISA mask allows (FMA before
 * multiply + add), or NULL. Never returns a variant the mask lacks. */
const rb_peak_variant *ceilings_peak_select(unsigned isa, unsigned bits);
/* The widest peak variant isa runs (FMA first), or NULL. */
const rb_peak_variant *ceilings_peak_widest(unsigned isa);
/* The peak variant ceilings_peak_now runs: the widest this CPU runs. */
const rb_peak_variant *ceilings_peak_now_variant(void);
/* The vector FMA rate the team gets now, in GFLOP/s of the team: the
 * roofline's peak variant (the widest this CPU runs, whatever
 * ROOFBENCH_ISA caps the kernels at), in dt,
 * reps iterations on every member between barriers, the best of tries;
 * 0 where no variant runs. On a shared host a core's FMA pipes are lent to
 * whatever else runs on it (an SMT sibling, another guest): the clock does
 * not move then, but this does. */
double ceilings_peak_now(pool *team, int nt, rb_dtype dt, uint64_t reps,
                         int tries);
/* The read kernel ceilings_read_now runs: the widest this CPU runs. */
const rb_stream_variant *ceilings_read_now_variant(void);
/* The read bandwidth the team gets now from a buffer of its own (a row's
 * operand), in GB/s of the team: each member reads its contiguous share
 * with the read kernel, at most 256 MB of the buffer in all and, where
 * that is less than 64 MB, pass after pass (so from the cache it fits),
 * the best of tries; *read_bytes gets the bytes read per pass. 0 where no
 * read kernel runs or nothing was read. On a shared host the memory a
 * guest gets moves by a factor within minutes: this tells what the row's
 * level gave it then. */
double ceilings_read_now(pool *team, int nt, const void *buf, size_t bytes,
                         int tries, size_t *read_bytes);
const rb_stream_variant *ceilings_stream_select(unsigned isa, unsigned bits);
/* The streaming FMA kernel ceilings_fmastream_now runs: the widest this
 * CPU runs (NULL without FMA). */
const rb_fmastream_variant *ceilings_fmastream_now_variant(void);
/* The streaming FMA probe: the GFLOP/s of the team when each member
 * streams its contiguous share of the buffer once with `fmas` FMAs per
 * element and nothing else (rb_fmastream_variant), its lines asked for
 * 4 KiB ahead, in one stream and in four, the best of tries runs of each:
 * what this host delivers, now, to a kernel of that much arithmetic per
 * element of that operand, where it lives. At most 256 MB of the buffer,
 * pass after pass until a run has streamed 64 MB (a cache-sized buffer
 * from its cache), and no more than 2e9 FLOPs a member a run (a
 * compute-bound probe need not stream it all); *streamed gets the bytes a
 * pass streamed. 0 where no kernel runs. */
double ceilings_fmastream_now(pool *team, int nt, rb_dtype dt, const void *buf,
                              size_t bytes, unsigned fmas, int tries,
                              size_t *streamed);

/* FMA instructions of a width the core can start per cycle, from a table
 * of microarchitectures; 0 when the CPU is not in the table. *source names
 * the table row. */
int ceilings_fma_pipes(const host_cpu *cpu, unsigned bits, const char **source);

/* Theoretical peak: threads x GHz x lanes x 2 x pipes, in GFLOP/s. */
double ceilings_theoretical_gflops(int threads, double ghz, unsigned lanes,
                                   int pipes);

/* Fills the plan's defaults for this machine (full or quick); llc_bytes is
 * what the last cache level may be believed to hold, all of it
 * (host_last_cache), 0 where unknown. */
void ceilings_plan_defaults(ceilings_plan *plan, int quick, int ncores,
                            unsigned isa, double llc_bytes, double mem_avail);

/* The quick roofline `run`, `orders` and `model --profile host` need when
 * no ceilings file is given: clock, peak at the widest vector width for
 * the dtypes, and the sweeps (4 KiB to 1 GiB) for the thread counts of
 * the roofs of the access mixes in `mixes` (bit 1 << rb_access): read,
 * read2 and read4 always; copy, triad and schoenauer for the mixed roof,
 * the same kernels `roofbench ceilings` gives it (write, in no roof, is
 * left out). */
void ceilings_plan_roofline(ceilings_plan *plan, int ncores, unsigned isa,
                            double mem_avail, const int *threads, int nthreads,
                            const rb_dtype *dtypes, int ndtypes,
                            unsigned mixes);

/* The working sets of a bandwidth sweep: geometric steps of plan->factor
 * down from size_max to size_min, in ascending order, each as elements
 * per stream per thread (per_elem bytes each: 8 x streams x threads), in
 * whole RB_STREAM_BLOCKs, none twice. Anchored at size_max, so that the
 * last points, where DRAM is named, are whole steps apart. Returns how
 * many (at most CEIL_MAX_POINTS). */
size_t ceilings_bw_points(const ceilings_plan *plan, double per_elem,
                          size_t *elems);

/* Checks a plan against this machine before anything runs: something to
 * measure, widths the CPU has, sizes that fit. */
int ceilings_check_plan(const ceilings_plan *plan, unsigned isa,
                        double mem_avail, rb_err *e);

/* Appends to res->caches L1 to L3 as hwloc reports them (guest: CPUID's
 * hypervisor bit), each with a verdict against where the 1-thread read
 * curve's plateau of that name ends, or the 1-thread read roof's where
 * the curve has none (ceilings_measure calls it last). */
void ceilings_compare_caches(hwloc_topology_t topo, int guest,
                             ceilings_result *res);

/* Runs the plan into res (allocate it zeroed), one progress line per
 * finished step. What is finished is added under interrupt_lock(); on an
 * interrupt the step in flight is dropped and res->interrupted set, and
 * RB_OK is returned. */
int ceilings_measure(hwloc_topology_t topo, const ceilings_plan *plan,
                     const host_cpu *cpu, ceilings_result *res, rb_err *e);

void ceilings_result_free(ceilings_result *res);

/* Measures one end of the drift probes (drift.h; which: 0 the start, 1
 * the end): each its level kernel at its working set, on a team of its
 * thread count pinned as the ceilings are, six samples of the quick
 * roofline's length; gbs the best sample, spread best over median minus 1. A
 * probe whose kernel is not a bandwidth kernel of this build is left
 * unmeasured. Stops between probes on an interrupt (RB_OK). */
int ceilings_probe(hwloc_topology_t topo, unsigned isa, double mem_avail,
                   drift_probes *ps, int which, rb_err *e);

/* The sweep of one bandwidth kernel on one team (bandwidth.c); the points
 * are allocated into out. Returns RB_OK with out->npoints 0 when
 * interrupted. */
int ceilings_bw_curve(pool *team, int nt, bw_kernel k,
                      const ceilings_plan *plan, unsigned isa,
                      size_t cache_levels, const double *cache_bytes,
                      ceil_curve *out, rb_err *e);

#endif
