/* The check document (schema roofbench.check): the pinned facts and each
 * kernel's simulated counts; a committed one is the baseline `roofbench
 * check` compares with, metric by metric, against per-metric limits. */
#ifndef ROOFBENCH_REPORT_CHECK_H
#define ROOFBENCH_REPORT_CHECK_H

#include <jansson.h>
#include <stdio.h>

#include "checkrun.h"
#include "error.h"

enum { CHECK_SCHEMA_VERSION = 1 };

/* The metrics a baseline gates on, in this order. For the first four more
 * is worse; for the intensity (FLOPs per LL byte) less is. */
enum { CM_IR, CM_CYCLES, CM_D1, CM_LL, CM_INTENSITY, CM_N };
extern const char *const check_metric_names[CM_N]; /* ir, cycles, ...   */
extern const char *const check_metric_fields[CM_N]; /* the JSON members */

typedef struct {
    double limit[CM_N]; /* fractions: 0.01 for 1% */
} check_limits;

/* The defaults: 1% on Ir and estimated cycles, 2% on D1 and LL misses
 * and on the intensity. */
void check_limits_default(check_limits *l);
/* "ir=0.5%,ll=3%" (fractions like 0.005 too) over the defaults. */
int check_limits_parse(const char *s, check_limits *l, rb_err *e);

typedef struct {
    char key[128]; /* "matmul_blocked f32 8x512x512" */
    double m[CM_N];   /* NaN for an intensity without LL misses */
} check_rec;

typedef struct {
    check_facts facts;
    check_rec *rows;
    size_t n;
    char shown[1024];
} check_baseline;

/* A check document: missing, not JSON, cut short, another schema or
 * version, a count that is missing, negative or not finite, a row given
 * twice, no rows: one line naming the file and the problem. */
int check_baseline_load(const char *path, check_baseline *b, rb_err *e);
void check_baseline_free(check_baseline *b);

/* What differs between two sets of pinned facts ("valgrind valgrind-3.19.0
 * vs valgrind-3.22.0; ..."), "" when none. With children 0, only what is
 * known before any simulation (not the code path, blocks or core). */
void check_facts_diff(const check_facts *a, const check_facts *b,
                      int children, char *buf, size_t len);

void check_rec_of(const check_counts *c, check_rec *r);

typedef struct {
    const check_rec *base, *cur;
    double change[CM_N]; /* worse-is-positive: cur/base - 1, for the
                            intensity base/cur - 1; NaN when not judged */
    int over[CM_N];      /* beyond its limit, worse                     */
    int regressed;
} check_cmp_row;

typedef struct {
    check_cmp_row *rows;
    size_t n;
    const check_rec **only_base, **only_cur;
    size_t nonly_base, nonly_cur;
    size_t regressed;
} check_cmp;

int check_compare(const check_baseline *b, const check_rec *cur, size_t n,
                  const check_limits *l, check_cmp *out, rb_err *e);
void check_cmp_free(check_cmp *c);
/* 3 when a row regressed or a baseline row is missing, else 0. */
int check_cmp_status(const check_cmp *c);

/* The document: context, facts, counts and (cmp not NULL) the comparison
 * with the baseline at baseline_path. NULL with e set on failure. */
char *report_check_json(const json_t *context, const check_facts *f,
                        const check_counts *c, size_t n, const char *status,
                        const char *error, const check_cmp *cmp,
                        const char *baseline_path, const check_limits *l,
                        rb_err *e);

void report_check_text(const check_facts *f, const check_counts *c, size_t n,
                       const check_cmp *cmp, const char *baseline_shown,
                       const check_limits *l, FILE *out);

#endif
