/* The sweep document (schema roofbench.sweep) and what is read from it:
 * per curve (weights level, dtype, thread count, kernel) the points, the
 * measured knees beside the predicted ridge batch; the knees of two weight
 * levels beside their bandwidths; the reference profiles' predictions.
 * Written as sweep.json (every sample), sweep.csv, sweep-samples.csv, the
 * chart's data and the chart (sweep.png, sweep.svg), and as text. */
#ifndef ROOFBENCH_REPORT_SWEEP_H
#define ROOFBENCH_REPORT_SWEEP_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"
#include "profile.h"
#include "roofline.h"
#include "runfolder.h"
#include "sweep.h"
#include "sweeprun.h"

enum { SWEEP_SCHEMA_VERSION = 1, SWEEP_MAX_PROFILES = 8 };

typedef struct {
    const json_t *context;
    const sweep_plan *plan;
    const sweep_result *res;
    const roofline *roof; /* NULL: no roofline                      */
    const profile *profiles;
    int nprofiles;
    const char *status; /* complete, interrupted or failed         */
    const char *error;
} sweep_doc;

/* One curve: a kernel's points at one level, dtype and team. */
typedef struct {
    int level, d, t;
    const rb_kernel *kernel;
    size_t idx[SWEEP_MAX_POINTS]; /* into res->points, B ascending    */
    size_t n;
    uint64_t p, m;
    int has_roof;       /* peak and the weights' level bandwidth   */
    double peak, bw;    /* GFLOP/s, GB/s                           */
    char bw_level[16];  /* the level the weights sit in            */
    /* the roof bw is read from: the kernel's own access mix (the one its
     * points are judged against), or read where that was not measured,
     * and the bandwidth kernel that set the level ("envelope" between
     * two plateaus) */
    rb_access bw_mix;
    char bw_kernel[16];
    double ridge_b;     /* where the roof turns compute-bound      */
    /* the same at the peak and the read kernel's bandwidth measured
     * around the points (report_sweep_roof_now): the read kernel alone
     * while the curve was measured, where the roofline's figure was taken
     * minutes before (and is the best of several kernels: of read, read2
     * and read4, or for kernels that write the mixed roof's) */
    int has_now;
    double peak_now, bw_now, ridge_now;
    int has_knee;
    sweep_knee knee;
} sweep_curve;

typedef struct {
    sweep_curve *curves;
    size_t ncurves;
} sweep_analysis;

int report_sweep_analyse(const sweep_doc *doc, sweep_analysis *a, rb_err *e);
void report_sweep_analysis_free(sweep_analysis *a);

/* The medians over curve c's points of the peak and the read bandwidth
 * measured around each (the larger of the figures before and after it),
 * points without both left out: *peak in GFLOP/s, *bw in GB/s. Returns
 * -1 where no point has them. */
int report_sweep_roof_now(const sweep_doc *doc, const sweep_curve *c,
                          double *peak, double *bw);

/* The documents and the chart into the folder; *json_text gets
 * sweep.json. A chart that fails costs the chart only: its reason is
 * left in why (also why it was skipped). */
int report_sweep_write(runfolder *f, const sweep_doc *doc,
                       const sweep_analysis *a, char **json_text, char *why,
                       size_t whylen, rb_err *e);

/* The header lines of the files plot-sweep.gp reads, whose columns it
 * takes by position: `roofbench report` checks a folder's copies by them. */
#define REPORT_SWEEP_POINTS_HEADER                                             \
    "weights,p,m,kernel,dtype,threads,batch,flops,bytes,intensity,samples,"    \
    "time_min_s,time_median_s,spread,gflops_best,gflops_median,"               \
    "peak_fraction_best,peak_fraction_median,roof_level,roof_gflops,"          \
    "roof_fraction,peak_now_gflops,read_now_gbs,roof_now_gflops,"              \
    "roof_now_fraction,probe_gflops,probe_fraction,probe_roof_fraction"
#define REPORT_SWEEP_ROOFS_HEADER                                              \
    "source,dtype,threads,weights,batch,peak_fraction"
#define REPORT_SWEEP_KNEES_HEADER                                              \
    "weights,kernel,dtype,threads,knee50,knee50_peak_fraction,knee90,"         \
    "ridge_batch,ridge_batch_now,knee50_at_or_below_first_point"

/* For a matmul curve c with a roof: the curve of its kernel, dtype and
 * team whose weights sat in the fastest level this run measured, when
 * that is faster than c's own (more GB/s) and has a knee; else NULL. Its
 * plateau is what the kernel computes at when memory is out of the way:
 * past the ridge, where c's roof is the peak, c's points compare with
 * it. */
const sweep_curve *report_sweep_fastest_sibling(const sweep_analysis *a,
                                                const sweep_curve *c);

void report_sweep_text(const sweep_doc *doc, const sweep_analysis *a,
                       const char *dir, const char *chart, FILE *f);

#endif
