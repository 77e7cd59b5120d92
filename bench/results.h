/* Results files: a new run folder per run, JSON (context + rows with raw
 * samples) and CSV, each written to a temporary file and linked into place,
 * so a reader never sees half a file and an existing file is never
 * replaced. */
#ifndef ROOFBENCH_RESULTS_H
#define ROOFBENCH_RESULTS_H

#include <jansson.h>

#include "harness.h"
#include "roofline.h"
#include "util.h"

enum { RESULTS_SCHEMA_VERSION = 1 };

/* Creates the run folder. With out == NULL: root/<host>-<UTC stamp>, with
 * a -2, -3, ... suffix when that name is taken. With out: that folder,
 * created if missing, refused if it already holds results. The path is
 * written to path. Errors are RB_EINPUT and name the folder. */
int results_make_dir(const char *root, const char *out, char *path,
                     size_t len, rb_err *e);

/* Checks, before a run, that a folder for results can be made under root or
 * at out, without creating anything. */
int results_check_dest(const char *root, const char *out, rb_err *e);

/* Writes data to dir/name atomically; fails if dir/name exists. */
int results_write_file(const char *dir, const char *name, const char *data,
                       size_t len, rb_err *e);

/* A JSON number, or null for NaN and infinities (JSON has neither). */
json_t *results_num(double x);

/* A row as JSON; with a roofline, its bound on the host roofline. */
json_t *results_row_json(const harness_row *row, const roofline *roof);
/* The CSV header line and one line per row, as one string (free it). */
char *results_csv(const harness_result *res, const roofline *roof);

/* Builds the whole document and writes results.json and results.csv. */
int results_write_run(const char *dir, json_t *context,
                      const harness_result *res, const roofline *roof,
                      const char *status, const char *error, rb_err *e);

/* Best GFLOP/s of a row: analytic FLOPs over the minimum time. */
double results_row_gflops(const harness_row *row);

/* The UTC time as 2026-11-30T06:10:16Z (iso) and 20261130T061016Z. */
void results_utc(char *iso, size_t isolen, char *stamp, size_t stamplen);

#endif
