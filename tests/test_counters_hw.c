/* Hardware counters on a machine with a PMU (CTest label hw): one counted
 * call of a matmul form, its FLOPs against the analytic 2NPM and its
 * instructions and cycles plausible. Skipped (77) where PAPI cannot count,
 * as in a VM without a virtual PMU. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "counters.h"
#include "host.h"
#include "simulate.h"

typedef struct {
    counters_thread *t;
    const counters_events *ev;
    long long *sum;
    rb_err *e;
    int rc;
} ctx_t;

static void start(void *p)
{
    ctx_t *c = p;
    c->rc = counters_thread_start(c->t, c->e);
}

static void stop(void *p)
{
    ctx_t *c = p;
    if (!c->rc)
        c->rc = counters_thread_stop(c->t, c->ev, c->sum, c->e);
}

int main(void)
{
    counters_status st;
    counters_probe(&st);
    if (!st.usable) {
        printf("SKIP: hardware counters unavailable: %s\n", st.reason);
        return 77;
    }
    host_cpu cpu;
    host_cpu_probe(&cpu);
    counters_events ev;
    rb_err e;
    CHECK_INT(counters_resolve(counters_default_events(cpu.vendor, 1), &ev,
                               &e),
              RB_OK);
    const rb_shape s = {128, 128, 128};
    void *a, *b, *c;
    CHECK_INT(sim_operands(RB_F64, s, 1, &a, &b, &c), RB_OK);
    counters_thread t;
    CHECK_INT(counters_thread_open(&ev, &t, &e), RB_OK);
    long long sum[COUNTERS_MAX] = {0};
    ctx_t ctx = {&t, &ev, sum, &e, 0};
    CHECK_INT(sim_call(rb_kernel_find("matmul_row"), RB_F64, s, a, b, c,
                       start, stop, &ctx),
              RB_OK);
    CHECK_INT(ctx.rc, RB_OK);
    counters_thread_close(&t);
    const double flops = 2.0 * 128 * 128 * 128;
    for (int i = 0; i < ev.n; i++) {
        printf("%-14s %s %lld\n", ev.name[i],
               ev.usable[i] ? "" : "unavailable:", ev.usable[i] ? sum[i] : 0);
        if (!ev.usable[i])
            continue;
        if (ev.kind[i] == CE_FLOPS)
            CHECK(fabs((double)sum[i] / flops - 1.0) < 0.05);
        if (ev.kind[i] == CE_INSTRUCTIONS || ev.kind[i] == CE_CYCLES)
            CHECK(sum[i] > 0);
    }
    free(a);
    free(b);
    free(c);
    return check_status("test_counters_hw");
}
