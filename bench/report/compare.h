/* Two results documents side by side: the regression gate's statistics.
 *
 * A document is a run's results.json (roofbench.run) or a sweep's
 * sweep.json (roofbench.sweep), given as the file or as the results folder
 * holding it. Rows are matched by kernel, form, dtype, shape and threads;
 * for each matched row the raw samples of both sides go through the
 * Mann-Whitney U test on log time, and the Hodges-Lehmann shift gives the
 * ratio's confidence interval. The same test runs on the samples scaled
 * by each side's own roofline bound (efficiency: the fraction of that
 * run's measured roof), so that a machine that is uniformly slower today
 * does not read as every kernel regressing. */
#ifndef ROOFBENCH_COMPARE_H
#define ROOFBENCH_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "kernel.h"
#include "ranktest.h"

typedef struct {
    char kernel[64], form[32], dtype[8];
    rb_shape shape;
    int threads;
    char key[192]; /* "matmul_blocked blocked f32 64x512x512 2t" */
    double flops;
    double *samples; /* seconds per call */
    size_t nsamples;
    double attainable; /* GFLOP/s of the run's roof at this row; NaN: none */
    /* several runs merged: samples are the runs' medians, and each has
     * its own run's roof here (NULL for one run: attainable for all) */
    double *sample_roof;
    size_t index;      /* position in the document, from 0                */
} cmp_row;

typedef struct {
    char path[2200];  /* the document read                               */
    char shown[2048]; /* the same, printable                             */
    char schema[32];
    /* what must agree for two runs to be compared */
    char cpu[160], isa[16], openblas_core[64];
    int family, model, cores;
    cmp_row *rows;
    size_t nrows;
    int nruns; /* 1, or the runs of a folder of run folders, merged */
} cmp_doc;

/* Reads path (a results folder or its results.json / sweep.json) and
 * checks every row: kernel, form, dtype, shape, threads, FLOPs, and
 * samples that are finite and above zero; no two rows with one key.
 * A folder of run folders (at least two, each with one document, all of
 * one schema and host and with the same rows) is one side of several
 * runs: each row's samples become the runs' medians, so that the test
 * sees the variation between runs, not only within one. RB_EINPUT with
 * one line naming the file and the problem. */
int cmp_load(const char *path, cmp_doc *d, rb_err *e);
void cmp_free(cmp_doc *d);

/* What differs between the two hosts ("cores 2 vs 4; ..."), or "" */
void cmp_host_diff(const cmp_doc *a, const cmp_doc *b, char *buf,
                   size_t len);

typedef enum {
    CMP_UNCHANGED,
    CMP_FASTER,
    CMP_SLOWER,
    CMP_UNRELIABLE, /* the sample counts cannot reach significance */
    CMP_NO_ROOF     /* efficiency: a side has no roofline bound     */
} cmp_verdict;

const char *cmp_verdict_name(cmp_verdict v);

typedef struct {
    double ratio;         /* current median / baseline median (> 1 slower) */
    double hl_ratio;      /* exp(Hodges-Lehmann shift of log time)         */
    double lo, hi;        /* its confidence interval, NaN when unbounded   */
    double p, p_min;
    int exact;
    cmp_verdict verdict;
} cmp_stat;

typedef struct {
    const cmp_row *base, *cur;
    cmp_stat time, eff;
    double frac_base, frac_cur; /* median rate / roof; NaN without roofs */
    int gated_slower;           /* the gated statistic says slower       */
    int gated_by_time;          /* time gates this row (no roof, or the
                                   gate is time)                        */
} cmp_pair;

typedef struct {
    double alpha, threshold; /* 0.05, 0.05 */
    int by_efficiency;       /* gate on efficiency, not time */
    /* the run-to-run noise floor: a row is slower only when its ratio
     * also exceeds exp(noise_z x s), s the robust spread (1.4826 x MAD)
     * of the log ratios of all matched rows. The samples of one run
     * cannot see the drift between two runs (on a shared VM it moves
     * whole groups of rows by 20% and more); the other rows can, as
     * long as most of them did not change. 0: no floor. */
    double noise_z;
    double noise_cap; /* the floor never exceeds it (1.5): a change beyond
                         is called whatever the other rows did     */
    /* Holm's correction over the matched rows: the chance of any false
     * verdict among them at most alpha, not alpha per row (p and p_min
     * are then the adjusted ones) */
    int holm;
} cmp_settings;

typedef struct {
    cmp_pair *pairs;
    size_t npairs;
    const cmp_row **only_base, **only_cur;
    size_t nonly_base, nonly_cur;
    double geo_time, geo_eff; /* geometric means of the ratios; NaN: none */
    /* the run-to-run spread s of the log ratios, and the floor the ratio
     * must pass: max(1 + threshold, exp(noise_z s)), for time and for
     * efficiency */
    double spread_time, spread_eff, floor_time, floor_eff;
    size_t slower, faster, unchanged, unreliable; /* by the gated test */
    size_t no_roof; /* rows without a roof on a side (efficiency n/a)    */
} cmp_result;

/* Matches and tests. Returns RB_OK, or RB_EINPUT when memory runs out. */
int cmp_compare(const cmp_doc *base, const cmp_doc *cur,
                const cmp_settings *s, cmp_result *r, rb_err *e);
void cmp_result_free(cmp_result *r);

/* One statistic's verdict from its figures and the ratio's floor
 * (1 + threshold, or the noise floor when higher); exposed for tests. */
cmp_verdict cmp_judge(const cmp_stat *s, const cmp_settings *set,
                      double floor);

#endif
