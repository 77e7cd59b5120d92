/* The host's own ceilings, measured: core clock, peak FLOP/s per dtype and
 * vector width, bandwidth against working-set size for four kernels with
 * the memory levels found in each curve, and OpenBLAS GEMM as the
 * practical compute roof. The result is the host profile (JSON) that
 * `run` judges kernels against. */
#ifndef ROOFBENCH_CEILINGS_H
#define ROOFBENCH_CEILINGS_H

#include <hwloc.h>
#include <jansson.h>

#include "../kernels/ceiling.h"
#include "../kernels/kernel.h"
#include "host.h"
#include "plateau.h"
#include "region.h"
#include "util.h"

enum {
    CEIL_MAX_THREADS = 16,
    CEIL_MAX_WIDTHS = 4,
    CEIL_MAX_POINTS = 256,
    CEIL_MAX_LEVELS = 8,
    CEIL_PASSES = 2,
    CEILINGS_SCHEMA_VERSION = 1
};

typedef enum {
    BW_READ = 0,
    BW_WRITE,
    BW_COPY,
    BW_TRIAD,
    BW_SCHOENAUER,
    BW_NKERNELS
} bw_kernel;

const char *bw_kernel_name(bw_kernel k);
/* Arrays a kernel streams: 1, 1, 2, 3 or 4. */
int bw_kernel_streams(bw_kernel k);

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
    int bw_kernels[BW_NKERNELS];      /* which bandwidth kernels to sweep  */
    unsigned bw_width;                /* vector width of the sweep         */
    double size_min, size_max;        /* working set, all threads, bytes   */
    double past_cache_bytes;          /* a working set past every cache:
                                         max(1 GiB, 4x the caches hwloc
                                         reports); DRAM is named only when
                                         the sweep reaches it              */
    double factor;                    /* geometric step of the sweep       */
    double bw_target_bytes;           /* traffic per sample, about         */
    double min_time;                  /* seconds per peak/clock sample     */
    int samples;
    size_t gemm_n;                    /* 0: no GEMM roof                   */
} ceilings_plan;

/* The best variant for a width that an ISA mask allows (FMA before
 * multiply + add), or NULL. Never returns a variant the mask lacks. */
const rb_peak_variant *ceilings_peak_select(unsigned isa, unsigned bits);
const rb_stream_variant *ceilings_stream_select(unsigned isa, unsigned bits);

/* FMA instructions of a width the core can start per cycle, from a table
 * of microarchitectures; 0 when the CPU is not in the table. *source names
 * the table row. */
int ceilings_fma_pipes(const host_cpu *cpu, unsigned bits,
                       const char **source);

/* Theoretical peak: threads x GHz x lanes x 2 x pipes, in GFLOP/s. */
double ceilings_theoretical_gflops(int threads, double ghz, unsigned lanes,
                                   int pipes);

/* Fills the plan's defaults for this machine (full or quick). */
void ceilings_plan_defaults(ceilings_plan *plan, int quick, int ncores,
                            unsigned isa, double llc_bytes, double mem_avail);

/* Checks a plan against this machine before anything runs. */
int ceilings_check_plan(const ceilings_plan *plan, unsigned isa,
                        double mem_avail, rb_err *e);

/* Runs the plan and returns the ceilings document (schema
 * roofbench.ceilings), context included. progress, when set, receives one
 * line per finished step. */
int ceilings_measure(hwloc_topology_t topo, const ceilings_plan *plan,
                     const host_cpu *cpu, json_t *context, json_t **doc,
                     void (*progress)(const char *line), rb_err *e);

/* The quick roofline `run` and `model --profile host` need when no
 * ceilings file is given: clock, peak at the widest vector width for the
 * dtypes, and the read sweep (4 KiB to 1 GiB) for the thread counts. */
int ceilings_measure_roofline(hwloc_topology_t topo, const int *threads,
                              int nthreads, const rb_dtype *dtypes,
                              int ndtypes, json_t *context, json_t **doc,
                              rb_err *e);

#endif
