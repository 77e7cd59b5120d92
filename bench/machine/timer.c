/* Like STREAM, the suite checks the clock before trusting it: the smallest
 * step it can see bounds the shortest sample worth timing. */
#include "timer.h"

#include <time.h>

#include "stats.h"

double timer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void timer_probe(timer_info *t)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    t->reported_s = (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;

    double step = 1.0;
    for (int i = 0; i < 1000; i++) {
        const double a = timer_now();
        double b = timer_now();
        while (b == a)
            b = timer_now();
        if (b - a < step)
            step = b - a;
    }
    t->measured_s = step;

    enum { READS = 1000, ROUNDS = 21 };
    double per_read[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        const double a = timer_now();
        for (int i = 0; i < READS; i++)
            (void)timer_now();
        per_read[r] = (timer_now() - a) / READS;
    }
    t->overhead_s = stats_median(per_read, ROUNDS);
}
