#include "ranktest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EXACT_MAX = 50 };

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double rank_normal_upper(double q)
{
    /* P(Z > z) = erfc(z / sqrt 2) / 2 falls as z rises: bisection */
    double lo = -40.0, hi = 40.0;
    for (int i = 0; i < 200; i++) {
        const double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(mid / sqrt(2.0)) > q)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The null distribution of U for samples of n1 and n2 values without
 * ties, as probabilities pr[0..n1 n2]: the number of arrangements with U
 * = u is the coefficient of q^u in the Gaussian binomial [n1+n2 over k]_q,
 * built a factor (1 - q^(N-k+i)) / (1 - q^i) at a time, every
 * intermediate itself a Gaussian binomial (non-negative coefficients). */
static long double *exact_null(size_t n1, size_t n2)
{
    const size_t n = n1 + n2, k = n1 < n2 ? n1 : n2, deg = n1 * n2;
    /* before each division the degree is i (N - k) + i: up to deg + k */
    long double *c = calloc(deg + k + 1, sizeof(*c));
    if (!c)
        return NULL;
    c[0] = 1.0L;
    size_t d = 0; /* current degree */
    for (size_t i = 1; i <= k; i++) {
        const size_t a = n - k + i;
        /* times (1 - q^a) */
        for (size_t u = d + a; u >= a; u--) {
            c[u] -= c[u - a];
            if (u == a)
                break;
        }
        d += a;
        /* over (1 - q^i): c'[u] = c[u] + c'[u - i] */
        for (size_t u = i; u <= d; u++)
            c[u] += c[u - i];
        d -= i;
    }
    long double total = 0.0L;
    for (size_t u = 0; u <= deg; u++) {
        if (c[u] < 0.0L) /* rounding of a zero */
            c[u] = 0.0L;
        total += c[u];
    }
    for (size_t u = 0; u <= deg; u++)
        c[u] /= total;
    return c;
}

/* The rank sum of y among the pooled samples, ties given their mean
 * rank, and the ties' correction sum(t^3 - t). -1 when out of memory. */
static int rank_sum_y(const double *x, size_t n1, const double *y, size_t n2,
                      double *rank_y, double *ties)
{
    typedef struct {
        double v;
        int from_y;
    } item;
    const size_t n = n1 + n2;
    item *pool = malloc(n * sizeof(*pool));
    if (!pool)
        return -1;
    for (size_t i = 0; i < n1; i++)
        pool[i] = (item){x[i], 0};
    for (size_t j = 0; j < n2; j++)
        pool[n1 + j] = (item){y[j], 1};
    qsort(pool, n, sizeof(*pool), cmp_double); /* v is the first member */
    *rank_y = *ties = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && pool[j + 1].v == pool[i].v)
            j++;
        const double t = (double)(j - i + 1), mean_rank = 0.5 * (i + j) + 1.0;
        *ties += t * t * t - t;
        for (size_t q = i; q <= j; q++)
            if (pool[q].from_y)
                *rank_y += mean_rank;
        i = j + 1;
    }
    free(pool);
    return 0;
}

/* Without ties and for small samples: p and p_min from the exact null
 * distribution of U, and in *k the CI's index. -1 when out of memory. */
static int exact_test(rank_test *out, double alpha, long long *k)
{
    const size_t pairs = out->n1 * out->n2;
    long double *pr = exact_null(out->n1, out->n2);
    if (!pr)
        return -1;
    out->exact = 1;
    const size_t u = (size_t)llround(out->u);
    long double below = 0.0L, above = 0.0L;
    for (size_t v = 0; v <= pairs; v++) {
        if (v <= u)
            below += pr[v];
        if (v >= u)
            above += pr[v];
    }
    out->p = fmin(1.0, 2.0 * (double)fminl(below, above));
    out->p_min = fmin(1.0, 2.0 * (double)pr[0]);
    long double cdf = 0.0L;
    for (size_t v = 0; v <= pairs; v++) {
        cdf += pr[v];
        if (cdf > 0.5L * (long double)alpha * (1.0L + 1e-12L))
            break;
        *k = (long long)v;
    }
    free(pr);
    return 0;
}

/* The normal approximation with continuity and tie corrections: p,
 * p_min and in *k the CI's index. */
static void normal_test(rank_test *out, double ties, double alpha,
                        long long *k)
{
    const double n = (double)(out->n1 + out->n2),
                 pairs = (double)out->n1 * (double)out->n2,
                 mean = 0.5 * pairs;
    const double var = pairs / 12.0 * (n + 1.0 - ties / (n * (n - 1.0)));
    const double sd = var > 0.0 ? sqrt(var) : 0.0;
    if (sd > 0.0) {
        const double z = fmax(0.0, fabs(out->u - mean) - 0.5) / sd;
        out->p = fmin(1.0, erfc(z / sqrt(2.0)));
        out->p_min = fmin(1.0, erfc(fmax(0.0, mean - 0.5) / sd / sqrt(2.0)));
        const double c = floor(mean - rank_normal_upper(0.5 * alpha) * sd);
        *k = c >= 0.0 ? (long long)c : -1;
    } else {
        /* every value the same on both sides: no difference, and no
         * doubt about it */
        out->p = 1.0;
        out->p_min = 0.0;
    }
}

int rank_test_run(const double *x, size_t n1, const double *y, size_t n2,
                  double alpha, rank_test *out)
{
    memset(out, 0, sizeof(*out));
    out->n1 = n1;
    out->n2 = n2;
    out->p = out->p_min = out->shift = out->lo = out->hi = NAN;
    if (n1 == 0 || n2 == 0 || n1 > 100000 || n2 > 100000 ||
        (double)n1 * (double)n2 > 1e7 || !(alpha > 0.0 && alpha < 1.0))
        return -1;
    for (size_t i = 0; i < n1; i++)
        if (!isfinite(x[i]))
            return -1;
    for (size_t j = 0; j < n2; j++)
        if (!isfinite(y[j]))
            return -1;
    const size_t pairs = n1 * n2;
    double rank_y, ties;
    double *diff = malloc(pairs * sizeof(*diff));
    if (!diff || rank_sum_y(x, n1, y, n2, &rank_y, &ties)) {
        free(diff);
        return -1;
    }
    out->u = rank_y - 0.5 * (double)n2 * (double)(n2 + 1);
    /* Hodges-Lehmann: every y_j - x_i, sorted */
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++)
            diff[i * n2 + j] = y[j] - x[i];
    qsort(diff, pairs, sizeof(*diff), cmp_double);
    out->shift = pairs % 2 ? diff[pairs / 2]
                           : 0.5 * (diff[pairs / 2 - 1] + diff[pairs / 2]);
    long long k = -1; /* the CI is [diff[k], diff[pairs - 1 - k]] */
    if (ties == 0.0 && n1 <= EXACT_MAX && n2 <= EXACT_MAX) {
        if (exact_test(out, alpha, &k)) {
            free(diff);
            return -1;
        }
    } else {
        normal_test(out, ties, alpha, &k);
    }
    if (k >= 0 && (size_t)k < pairs) {
        out->lo = diff[k];
        out->hi = diff[pairs - 1 - (size_t)k];
    }
    free(diff);
    return 0;
}
