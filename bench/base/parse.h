/* Parsing of values from the command line and from files, with range
 * checks. Each parser names the flag (or field) and the bad value in its
 * error, so the caller can print it as it is.
 *
 * One rule for lists, everywhere: items are separated by commas, an empty
 * item is an error, and so is an item given twice (`--dtype f32,f32`,
 * `--width 64,64`). */
#ifndef ROOFBENCH_PARSE_H
#define ROOFBENCH_PARSE_H

#include <stdint.h>

#include "error.h"
#include "kernel.h"

/* An unsigned integer, optionally with a binary suffix K, M or G (x1024,
 * x1024^2, x1024^3), within [min, max]. Rejects signs, blanks, fractions,
 * trailing characters and values that do not fit in 64 bits. */
int parse_count(const char *flag, const char *s, uint64_t min, uint64_t max,
                uint64_t *out, rb_err *e);

/* A finite decimal number (e.g. 1.25, 0.005 or 5e-3) within [min, max];
 * unit ("seconds", or NULL for a plain number) names it in the errors. */
int parse_real(const char *flag, const char *s, double min, double max,
               const char *unit, double *out, rb_err *e);

/* A fraction as 0.05 or a percentage as 5%, from 0 to max (a fraction):
 * the threshold and limit flags. */
int parse_fraction(const char *flag, const char *s, double max, double *out,
                   rb_err *e);

/* A number of seconds within [min, max]: parse_real with that unit. */
int parse_seconds(const char *flag, const char *s, double min, double max,
                  double *out, rb_err *e);

/* "START:END": two counts with suffixes, START >= min, END <= max and
 * START <= END. */
int parse_range(const char *flag, const char *s, uint64_t min, uint64_t max,
                uint64_t *start, uint64_t *end, rb_err *e);

/* "N,P,M": three counts, each at least 1. */
int parse_shape(const char *flag, const char *s, rb_shape *out, rb_err *e);

/* Splits s at sep into at most max fields (pointers into buf, a copy);
 * an empty field is an error, and with unique a field given twice too.
 * Returns the count or a negative code. */
int parse_split(const char *flag, const char *s, char sep, int unique,
                char *buf, size_t buflen, char **items, int max, rb_err *e);

/* A comma-separated list under the one rule above. */
int parse_list(const char *flag, const char *s, char *buf, size_t buflen,
               char **items, int max, rb_err *e);

/* "1,2": thread counts in the order given, each between 1 and the ncores
 * this process may use, at most max of them. */
int parse_threads(const char *flag, const char *s, int ncores, int *out,
                  int max, int *n, rb_err *e);

/* "f32,f64": dtypes in the order given, at most RB_NDTYPES. */
int parse_dtypes(const char *flag, const char *s, rb_dtype *out, int *n,
                 rb_err *e);

#endif
