/* roofbench _traffic-child: the process `orders --traffic cachegrind`
 * runs under valgrind. It allocates and fills the operands as the harness
 * does, streams through a buffer larger than the last level so the kernel
 * starts cold, runs the kernel once on one thread (nothing for "none", the
 * set-up alone, which the parent subtracts), and prints one line naming
 * the code path and the blocks. Internal: not in the usage. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "harness.h"
#include "parse.h"
#include "simulate.h"

typedef struct {
    const rb_kernel *k; /* NULL: "none" */
    rb_dtype dt;
    rb_shape s;
    uint64_t seed, flush;
} child_args;

static int read_args(int argc, char **argv, child_args *a, rb_err *e)
{
    if (argc != 6)
        return rb_fail(e, RB_EINPUT,
                       "_traffic-child KERNEL|none DTYPE N,P,M SEED "
                       "FLUSH_BYTES (internal: run by --traffic cachegrind)");
    a->k = NULL;
    if (strcmp(argv[1], "none") != 0 && !(a->k = rb_kernel_find(argv[1])))
        return rb_fail(e, RB_EINPUT, "_traffic-child: unknown kernel '%s'",
                       argv[1]);
    if (a->k && a->k->op != RB_OP_MATMUL)
        return rb_fail(e, RB_EINPUT,
                       "_traffic-child: '%s' is not a matmul "
                       "kernel",
                       argv[1]);
    if (rb_dtype_parse(argv[2], &a->dt) != 0)
        return rb_fail(e, RB_EINPUT, "_traffic-child: unknown dtype '%s'",
                       argv[2]);
    if (parse_shape("shape", argv[3], &a->s, e) ||
        parse_count("seed", argv[4], 0, UINT64_MAX, &a->seed, e) ||
        parse_count("flush", argv[5], 0, 1ull << 32, &a->flush, e))
        return RB_EINPUT;
    /* the operands must be countable and fit in memory (a product that
     * wraps would allocate a few bytes and write gigabytes) */
    harness_plan plan;
    memset(&plan, 0, sizeof(plan));
    plan.kernels[0] = a->k ? a->k : rb_kernel_find("matmul_naive");
    plan.nkernels = 1;
    plan.dtypes[0] = a->dt;
    plan.ndtypes = 1;
    plan.threads[0] = 1;
    plan.nthreads = 1;
    plan.shape[RB_OP_MATMUL] = a->s;
    snprintf(plan.shape_source[RB_OP_MATMUL],
             sizeof(plan.shape_source[RB_OP_MATMUL]),
             "_traffic-child shape "
             "%s",
             argv[3]);
    return harness_check_plan(&plan, 0, e);
}

/* Streams through flush bytes, so that what the fill left in the
 * simulated caches is evicted (the set-up run does the same, so the flush
 * cancels out). */
static int flush_caches(uint64_t flush)
{
    if (flush == 0)
        return RB_OK;
    volatile unsigned char *f = malloc(flush);
    if (!f)
        return RB_EINPUT;
    for (size_t i = 0; i < flush; i += 64)
        f[i] = (unsigned char)i;
    unsigned sum = 0;
    for (size_t i = 0; i < flush; i += 64)
        sum += f[i];
    __asm__ volatile("" : : "r"(sum) : "memory");
    free((void *)f);
    return RB_OK;
}

static int child_main(const rb_machine *m, const void *opts,
                      const flag_seen *seen, rb_err *e)
{
    (void)m;
    (void)opts;
    const int argc = seen->argc;
    char **argv = seen->argv;
    child_args a;
    if (read_args(argc, argv, &a, e))
        return 2;
    void *pa, *pb, *pc;
    if (sim_operands(a.dt, a.s, a.seed, &pa, &pb, &pc))
        return rb_exit_status(rb_fail(e, RB_EINPUT,
                                      "_traffic-child: out of "
                                      "memory"));
    rb_blocking blk;
    rb_blocking_of(a.dt, &blk);
    int rc = flush_caches(a.flush);
    if (!rc && a.k)
        rc = sim_call(a.k, a.dt, a.s, pa, pb, pc, NULL, NULL, NULL);
    free(pa);
    free(pb);
    free(pc);
    if (rc)
        return rb_exit_status(rb_fail(e, RB_EINPUT,
                                      "_traffic-child: out of "
                                      "memory"));
    printf("path %s mr %zu nr %zu kc %zu mc %zu nc %zu skinny %zu sw %zu "
           "skb %zu sc %zu openblas %s\n",
           blk.path, blk.mr, blk.nr, blk.kc, blk.mc, blk.nc, blk.skinny_max,
           blk.sw, blk.skb, blk.sc_bytes, openblas_get_corename());
    return 0;
}

const cmd_spec cmd_traffic_child = {NULL, 0, child_main};
