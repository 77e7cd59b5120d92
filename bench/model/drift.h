/* Drift: whether the machine moved while a run measured. A shared VM's
 * DRAM bandwidth moves by 30% within minutes and its clock can halve while
 * a neighbour is busy, so a roof measured once at the start can be wrong
 * by the end. Two checks, both a comparison of one figure measured the
 * same way twice:
 *   - the clock of the row's team, read just before and just after its
 *     timed samples (harness_row.ghz_before, ghz_after);
 *   - a probe of each roof level the run can use: the kernel that set the
 *     level, at the middle of the level's working sets, measured after the
 *     roofline and again after the last row.
 * A figure moved when it changed by more than its noise: DRIFT_CLOCK_NOISE
 * for the clock, and for a probe the larger of DRIFT_BW_NOISE and the
 * probe's own spread (best over median sample) at either end. The rules
 * are here; the measurements in ceilings.c and harness.c. */
#ifndef ROOFBENCH_DRIFT_H
#define ROOFBENCH_DRIFT_H

#include "kernel.h"
#include "roofline.h"

/* Two clock readings of a quiet core agree within about 1%; 3% is a
 * change, or the readings' own spread where that is larger. */
#define DRIFT_CLOCK_NOISE 0.03
/* Bandwidth samples of one size on a quiet machine agree within a few
 * percent; 5% is a change. */
#define DRIFT_BW_NOISE 0.05
/* A probe against the roofline's figure for its level compares one size
 * of the level, measured now, with the level's median over all its sizes,
 * measured minutes earlier: the plateau detector joins steps below 12%
 * into one level and keeps a level whose halves lie up to 20% apart, so
 * one size may sit that far from the figure on a quiet machine; 20% is a
 * change. */
#define DRIFT_ROOF_NOISE 0.20

/* after / before - 1 into *change (NAN when either is not positive);
 * 1 when |change| > noise. */
int drift_moved(double before, double after, double noise, double *change);

enum { DRIFT_MAX_PROBES = 64 };

typedef struct {
    int threads;
    rb_access mix;
    char level[16];  /* the roof level it checks ("DRAM")         */
    char kernel[16]; /* the bandwidth kernel that set the level  */
    double bytes;    /* working set, all threads                  */
    double gbs[2];   /* best sample at the start [0] and end [1]  */
    double spread[2];
    int have[2];
    double roof_gbs;    /* the level's figure in the roofline        */
    double roof_spread; /* and its spread                            */
} drift_probe;

typedef struct {
    drift_probe probes[DRIFT_MAX_PROBES];
    int nprobes;
} drift_probes;

/* The probes for a run on these thread counts and access mixes (bit
 * 1 << rb_access): one per level of each roof (of the mix's own, or the
 * read roof where the mixed one is absent), at the geometric middle of the
 * level's working sets; a level another mix already probes with the same
 * kernel and the same figure is not probed twice. */
void drift_plan(const roofline *r, const int *threads, int nthreads,
                unsigned mixes, drift_probes *out);

/* Whether a row's clock moved: before against after, beyond the larger of
 * DRIFT_CLOCK_NOISE and either reading's spread (*noise). */
int drift_clock_moved(double before, double spread_before, double after,
                      double spread_after, double *change, double *noise);

/* Whether a probe measured at both ends moved; *change and *noise as
 * drift_moved's. 0 when it lacks either end. */
int drift_probe_moved(const drift_probe *p, double *change, double *noise);

/* Whether the roofline's figure for a probe's level held during the run:
 * the probe's best end over roof_gbs into *ratio (NAN when it has no end
 * or the roof no figure), 1 when that is off 1 by more than the larger of
 * DRIFT_ROOF_NOISE and the spreads of the probe's ends and of the roof's
 * level (*noise). A roofline measured in a slow spell shows here as
 * levels the run's probes find well above it, where drift_probe_moved,
 * which compares the probe's two ends, sees nothing. */
int drift_probe_off_roof(const drift_probe *p, double *ratio, double *noise);

/* The probe of a level: by thread count, mix (its own or read) and the
 * level's name; for a transition "A>B" the probe of A or B that moved
 * most. NULL when none. */
const drift_probe *drift_probe_for(const drift_probes *ps, int threads,
                                   rb_access mix, const char *level);

#endif
