/* Parsing of command-line values with range checks. Each parser names the
 * flag and the bad value in its error, so main can print it as it is. */
#ifndef ROOFBENCH_CLI_H
#define ROOFBENCH_CLI_H

#include <stdint.h>

#include "../kernels/kernel.h"
#include "util.h"

/* An unsigned integer, optionally with a binary suffix K, M or G (x1024,
 * x1024^2, x1024^3), within [min, max]. Rejects signs, blanks, fractions,
 * trailing characters and values that do not fit in 64 bits. */
int cli_parse_count(const char *flag, const char *s, uint64_t min, uint64_t max,
                    uint64_t *out, rb_err *e);

/* A finite decimal number (e.g. 1.25, 0.005 or 5e-3) within [min, max];
 * unit ("seconds", or NULL for a plain number) names it in the errors. */
int cli_parse_real(const char *flag, const char *s, double min, double max,
                   const char *unit, double *out, rb_err *e);

/* A number of seconds within [min, max]: cli_parse_real with that unit. */
int cli_parse_seconds(const char *flag, const char *s, double min, double max,
                      double *out, rb_err *e);

/* "START:END": two counts with suffixes, START >= min, END <= max and
 * START <= END. */
int cli_parse_range(const char *flag, const char *s, uint64_t min,
                    uint64_t max, uint64_t *start, uint64_t *end, rb_err *e);

/* "N,P,M": three counts, each at least 1. */
int cli_parse_shape(const char *flag, const char *s, rb_shape *out, rb_err *e);

/* Splits a comma-separated list into at most max items (pointers into a
 * copy kept in buf); empty items are an error. Returns the count or a
 * negative code. */
int cli_split_list(const char *flag, const char *s, char *buf, size_t buflen,
                   char **items, int max, rb_err *e);

/* "1,2": thread counts in the order given, each between 1 and ncores,
 * repeats dropped, at most max of them. */
int cli_parse_threads(const char *flag, const char *s, int ncores, int *out,
                      int max, int *n, rb_err *e);

/* "f32,f64": dtypes in the order given, each once (a repeat is an error),
 * at most RB_NDTYPES. */
int cli_parse_dtypes(const char *flag, const char *s, rb_dtype *out, int *n,
                     rb_err *e);

#endif
