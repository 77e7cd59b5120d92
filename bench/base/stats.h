/* Summary statistics of timing samples. */
#ifndef ROOFBENCH_STATS_H
#define ROOFBENCH_STATS_H

#include <stddef.h>

typedef struct {
    double min, median, max, mean, stddev;
    double cv; /* stddev / mean; 0 samples of spread give 0, n < 2 gives NaN */
} stats_summary;

double stats_median(const double *x, size_t n);
/* The largest of x[0..n) (n >= 1): the best sample of a rate. */
double stats_max(const double *x, size_t n);
void stats_summarize(const double *x, size_t n, stats_summary *s);

#endif
