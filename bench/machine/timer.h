/* The monotonic clock and its measured resolution. */
#ifndef ROOFBENCH_TIMER_H
#define ROOFBENCH_TIMER_H

/* Seconds on CLOCK_MONOTONIC. */
double timer_now(void);

typedef struct {
    double reported_s; /* clock_getres                                  */
    double measured_s; /* smallest nonzero step seen between two reads   */
    double overhead_s; /* median cost of one read                        */
} timer_info;

void timer_probe(timer_info *t);

#endif
