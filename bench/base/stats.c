#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double stats_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = malloc(n * sizeof(*s));
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    const double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

double stats_max(const double *x, size_t n)
{
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        m = fmax(m, x[i]);
    return m;
}

void stats_summarize(const double *x, size_t n, stats_summary *s)
{
    s->min = s->max = s->mean = s->stddev = s->cv = s->median = NAN;
    if (n == 0)
        return;
    double sum = 0.0;
    s->min = s->max = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < s->min)
            s->min = x[i];
        if (x[i] > s->max)
            s->max = x[i];
    }
    s->mean = sum / (double)n;
    s->median = stats_median(x, n);
    if (n < 2)
        return;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - s->mean) * (x[i] - s->mean);
    s->stddev = sqrt(ss / (double)(n - 1));
    s->cv = s->mean > 0.0 ? s->stddev / s->mean : NAN;
}
