/* What `roofbench model` computes, as a document: one or several
 * contractions (a spec, or each line of a file) evaluated on targets (a
 * profile and a dtype, with a link when the contraction is sharded), the
 * sizes at which the bound changes, a sweep of one dimension, and a
 * file's total. report_model.h renders it. */
#ifndef ROOFBENCH_STUDY_H
#define ROOFBENCH_STUDY_H

#include <stdint.h>

#include "error.h"
#include "model.h"
#include "profile.h"

enum {
    STUDY_MAX_PROFILES = 16,
    STUDY_MAX_TARGETS = STUDY_MAX_PROFILES * PD_N,
    STUDY_MAX_SPECS = 256,
    STUDY_MAX_SWEEP = 64
};

typedef struct {
    const profile *p;
    pdtype dt;
    const profile_link *link; /* when sharded                           */
    model_target t;
    char label[96]; /* "tpu-v5e/bf16"                         */
} study_target;

/* The size of a dimension from which a product is compute-bound, against
 * each roof (INFINITY: never; 0: at any size). */
typedef struct {
    double both, mem, comms;
    double fixed_bytes;  /* the usual approximation (sweep)        */
    double ridge, limit; /* FLOP/B; the intensity as it grows      */
} study_threshold;

typedef struct {
    einsum es;
    dim_sizes ds;
    int line;             /* in --file; 0 for a spec                */
    model_counts c[PD_N]; /* per dtype in use                       */
    char reuse[2][512];   /* which operand is reused across what    */
    model_eval ev[STUDY_MAX_TARGETS];
    study_threshold shard[STUDY_MAX_TARGETS]; /* with a shard             */
} study_spec;

typedef struct {
    double flops, bytes, comm, t;
    int bind[3]; /* specs bound by math, memory, network   */
} study_total;

typedef struct {
    /* inputs */
    study_spec *specs;
    int nspecs;
    const char *file; /* --file, or NULL                        */
    study_target tg[STUDY_MAX_TARGETS];
    int ntg;
    int shard_dim; /* letter index, -1: none                 */
    uint64_t shard_n;
    int sweep_dim; /* letter index, -1: none                 */
    uint64_t sweep_a, sweep_b;
    /* results */
    uint64_t xs[STUDY_MAX_SWEEP];
    int nx;
    model_eval sweep[STUDY_MAX_SWEEP][STUDY_MAX_TARGETS];
    study_threshold sweep_th[STUDY_MAX_TARGETS];
    study_total total[STUDY_MAX_TARGETS];
} study;

/* The targets: each profile with each dtype (or its headline one), and
 * with a shard, the link (named, or each profile's first). Errors name
 * the profile and what it lacks. */
int study_targets(study *s, const profile *profs, int nprofs, const pdtype *dts,
                  int ndts, const char *link, rb_err *e);

/* Counts (exact; an overflow names the spec, and the file's line),
 * evaluations, thresholds, the sweep and the total. */
int study_run(study *s, rb_err *e);

#endif
