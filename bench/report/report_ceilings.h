/* The ceilings document rendered: ceilings.json (schema
 * roofbench.ceilings, the host profile `run --ceilings` reads), the
 * curves and levels as CSV, the summary as text, and the chart. */
#ifndef ROOFBENCH_REPORT_CEILINGS_H
#define ROOFBENCH_REPORT_CEILINGS_H

#include <jansson.h>
#include <stdio.h>

#include "ceilings.h"
#include "error.h"
#include "runfolder.h"

/* The document with the given context and status ("complete",
 * "interrupted", "failed"), as text; NULL with e set when a field cannot
 * be represented. */
char *report_ceilings_json(const ceilings_result *res, const json_t *context,
                           const char *status, rb_err *e);

/* bandwidth.csv (every point) and levels.csv (every level). */
char *report_ceilings_points_csv(const ceilings_result *res);
char *report_ceilings_levels_csv(const ceilings_result *res);

/* Their header lines: plot-bandwidth.gp takes their columns by position,
 * and `roofbench report` checks a folder's copies by them. */
#define REPORT_CEILINGS_POINTS_HEADER "kernel,threads,bytes,gbs,gbs_best"
#define REPORT_CEILINGS_LEVELS_HEADER                                          \
    "kernel,threads,level,gbs,first_bytes,last_bytes,next_bytes,set_by"

/* The roofs per thread count, the ridge points, and the cache report. */
void report_ceilings_text(const ceilings_result *res, FILE *f);

/* The files of a ceilings folder: ceilings.json, the CSVs and, when the
 * measurement is complete and has a curve, the chart. why says what became
 * of the chart ("" when drawn), *chart_failed whether gnuplot failed (the
 * documents are kept); *json_text is the document (free it). */
int report_ceilings_write(runfolder *f, const ceilings_result *res,
                          const json_t *context, const char *status,
                          char **json_text, char *why, size_t whylen,
                          int *chart_failed, rb_err *e);

#endif
