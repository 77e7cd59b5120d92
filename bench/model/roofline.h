/* The host roofline read from a ceilings document (measured in the same
 * run or loaded from an earlier run's ceilings.json), and the bound it sets
 * for a kernel point: min(peak, intensity x bandwidth of the level its
 * working set falls in). A document is checked as it is read: every
 * number finite and plausible, every level name a name, so that nothing
 * absurd reaches a result and no string from the file reaches a chart. */
#ifndef ROOFBENCH_ROOFLINE_H
#define ROOFBENCH_ROOFLINE_H

#include <jansson.h>
#include <stdint.h>

#include "error.h"
#include "kernel.h"
#include "profile.h"

/* The version of the ceilings document (roofbench.ceilings) this build
 * writes and reads. */
enum { CEILINGS_SCHEMA_VERSION = 2 };

enum { ROOF_MAX_TEAMS = 16, ROOF_MAX_LEVELS = 8, ROOF_MAX_POINTS = 256 };

/* What a level may be called: letters, digits and '-' ("L1", "L1-L2",
 * "DRAM"), at most 15 characters. */
int roofline_level_name_ok(const char *name);

typedef struct {
    char name[16];
    double gbs;
    double spread;       /* how far the roof's best point in the level lies
                            above gbs, as a fraction (0.05: 5%)        */
    char kernel[16];     /* the bandwidth kernel that set it ("read2")  */
    double starts_bytes; /* working set (all threads) of its first point */
    double ends_bytes;   /* and of its last                             */
} roof_level;

/* One access mix's bandwidth roof (kernel.h, rb_access): the levels of the
 * best of its kernels, and their envelope. */
typedef struct {
    int present;
    roof_level levels[ROOF_MAX_LEVELS];
    size_t nlevels;
    double curve_bytes[ROOF_MAX_POINTS]; /* the envelope itself        */
    double curve_gbs[ROOF_MAX_POINTS];
    size_t npoints;
} roof_bw;

typedef struct {
    int threads;
    double peak_gflops[RB_NDTYPES]; /* 0 when not measured */
    double peak_spread[RB_NDTYPES]; /* best over median sample, minus 1 */
    roof_bw bw[RB_NACCESS];
} roof_team;

typedef struct {
    char host[64];
    roof_team teams[ROOF_MAX_TEAMS];
    size_t nteams;
} roofline;

/* The read roof of a team (every team of a document has one). */
const roof_bw *roof_team_read(const roof_team *t);
/* The level of a roof called name ("DRAM"), or NULL. */
const roof_level *roof_bw_level(const roof_bw *b, const char *name);

/* The roof of a mix: its own, or the read roof where it was not
 * measured or found no level. */
const roof_bw *roof_team_bw(const roof_team *t, rb_access mix);

/* From a ceilings document: its schema, version and status (complete),
 * and each team checked (each roof's levels in order, once each); errors
 * start with what and name the field, as "roofline[0].levels[1].gbs". */
int roofline_from_doc(const json_t *doc, const char *what, roofline *r,
                      rb_err *e);

/* Loads a ceilings.json given with --ceilings: it must be a file, parse,
 * be a ceilings document of this schema version, and come from host, with
 * no team larger than its ncpus. The document is returned too (for the
 * results context). */
int roofline_load(const char *path, const char *host, int ncpus, roofline *r,
                  json_t **doc, rb_err *e);

typedef struct {
    roof_level level; /* where the working set falls; between two
                         plateaus "L3>DRAM" with the bandwidth the
                         envelope shows at that size                */
    rb_access mix;    /* the roof used: the kernel's own access mix, or
                         read where the mixed roof was not measured  */
    double peak_gflops;
    double attainable_gflops; /* min(peak, intensity x level bandwidth)  */
    int compute_bound;        /* 1: the peak binds; 0: the level's roof  */
    double fraction;          /* measured / attainable                   */
    double spread;            /* the binding roof's own spread           */
    int above;                /* fraction > 1 + spread: above the
                                 measured roof, beyond its noise         */
} roof_bound;

/* The bound of a point with the given counts and access mix on a team of
 * threads. Returns 0, or -1 with the reason in why ("no roofline for 2
 * threads (it has 1)", no peak for the dtype, no level). */
int roofline_bound(const roofline *r, int threads, rb_dtype dt, rb_access mix,
                   uint64_t flops, uint64_t bytes, double measured_gflops,
                   roof_bound *out, char *why, size_t whylen);

/* The name a table shows for the roof that bound a point: "compute", or
 * the level's kernel ("read2", "triad"; "L3>DRAM" between two levels). */
const char *roof_bound_roof(const roof_bound *b);

/* One team's roofline in a line: "roofline, 2 threads: peak f32 345.3
 * f64 166.3 GFLOP/s; read L1 468.4 (read2), ..., DRAM 28.2 (read2);
 * mixed L1 698.1 (triad), ... GB/s". */
void roofline_describe(const roof_team *t, char *buf, size_t len);

/* The measured host as a profile (id "host"): fp32 and fp64 peaks of the
 * largest team, the DRAM plateau of its roof of access mix `mix` (the
 * read roof where that was not measured or has no DRAM plateau) as the
 * memory bandwidth. Fails when the read roof has no DRAM plateau. */
int roofline_to_profile(const roofline *r, rb_access mix, profile *p,
                        rb_err *e);
/* The roof whose DRAM plateau roofline_to_profile(r, mix) takes: mix where
 * the largest team measured that roof and it has a DRAM plateau, else
 * read. */
rb_access roofline_profile_mix(const roofline *r, rb_access mix);

#endif
