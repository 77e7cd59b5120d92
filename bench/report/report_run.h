/* The run document (schema roofbench.run) rendered: results.json with the
 * context and every row with its raw samples, results.csv, and the table
 * `roofbench run` prints. Each row is placed on the host roofline when
 * there is one. */
#ifndef ROOFBENCH_REPORT_RUN_H
#define ROOFBENCH_REPORT_RUN_H

#include <jansson.h>
#include <stdio.h>

#include "drift.h"
#include "error.h"
#include "harness.h"
#include "jdoc.h"
#include "roofline.h"

enum { RUN_SCHEMA_VERSION = 1 };

typedef struct {
    const json_t *context;
    const harness_result *res;
    const roofline *roof;          /* NULL: no roofline               */
    const char *status;            /* complete, interrupted or failed */
    const char *error;             /* with failed                     */
    const counters_events *events; /* --events, or NULL         */
    const drift_probes *probes;    /* the roof probes, or NULL   */
} run_doc;

/* One row as JSON (the row's place on the roofline, or why it has none). */
json_t *report_run_row_json(jdoc *d, const harness_row *r,
                            const roofline *roof);

/* results.json and results.csv as text; NULL with e set on failure. */
char *report_run_json(const run_doc *doc, rb_err *e);
char *report_run_csv(const run_doc *doc, rb_err *e);

/* The roofline the rows are placed on, one line per thread count. */
void report_run_roofline_text(const roofline *roof, FILE *f);

/* The mark of a %roof cell: '!' above its measured roof by more than
 * the roof's spread, '+' over 100% within it, else ' '; *above or *over
 * counts it. */
char report_run_mark(const roof_bound *b, int *above, int *over);

/* The notes of a %roof column's marks: `above` rows (or points: unit)
 * marked '!', above their measured roof by more than its spread, `over`
 * marked '+', over 100% within it; file is the document with both
 * figures. Nothing where both are 0. */
void report_run_marks_text(int above, int over, const char *unit,
                           const char *file, FILE *f);

/* The table, the notes under it (counters, rows without a roof, what the
 * columns mean) and where the files are. */
void report_run_text(const run_doc *doc, const char *dir, FILE *f);

#endif
