/* Two-sample rank statistics for timing samples: the Mann-Whitney U test
 * (two-sided) and the Hodges-Lehmann estimate of the shift between the
 * samples with its confidence interval. Nothing is assumed about the
 * shape of the distributions: timing samples are skewed (a preempted
 * sample is slow, never fast) and a t-test would trust their mean.
 *
 * Exact when there are no ties and both samples hold at most 50 values
 * (the null distribution of U counted, as the coefficients of a Gaussian
 * binomial); otherwise the normal approximation with the tie correction
 * and a continuity correction. */
#ifndef ROOFBENCH_RANKTEST_H
#define ROOFBENCH_RANKTEST_H

#include <stddef.h>

typedef struct {
    size_t n1, n2;
    double u;     /* pairs with y > x, ties counting one half            */
    double p;     /* two-sided p-value of "x and y come from one law"     */
    double p_min; /* the smallest p these sample counts can give: above
                     alpha, no difference can ever be significant (0
                     when every value is the same: nothing differs)     */
    int exact;    /* 1: the exact null distribution; 0: normal            */
    double shift; /* Hodges-Lehmann: median of y_j - x_i over all pairs  */
    double lo, hi; /* its 1 - alpha confidence interval; NaN when the
                      sample counts cannot bound it                      */
} rank_test;

/* Runs both on x[0..n1) (the baseline) and y[0..n2). alpha in (0, 1).
 * Returns 0, or -1 when a sample is empty, holds a value that is not
 * finite, or memory runs out. */
int rank_test_run(const double *x, size_t n1, const double *y, size_t n2,
                  double alpha, rank_test *out);

/* The standard normal's upper quantile: z with P(Z > z) = q, q in (0, 1). */
double rank_normal_upper(double q);

#endif
