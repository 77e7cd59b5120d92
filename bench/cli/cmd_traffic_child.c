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

#include "checkrun.h"
#include "cmd.h"
#include "harness.h"
#include "parse.h"
#include "simulate.h"

typedef struct {
    const rb_kernel *k; /* NULL: "none" */
    int setup_only;     /* MODE skip: everything but the call            */
    rb_op op;
    int fixed_caches;  /* the kernels configured for caches[], not ours */
    size_t caches[3];  /* L1d, L2, L3 bytes                            */
    rb_dtype dt;
    rb_shape s;
    uint64_t seed, flush;
} child_args;

static int read_args(int argc, char **argv, child_args *a, rb_err *e)
{
    if (argc != 6 && argc != 9)
        return rb_fail(e, RB_EINPUT,
                       "_traffic-child KERNEL|none DTYPE N,P,M SEED "
                       "FLUSH_BYTES [OP L1D,L2,L3 call|skip] (internal: run "
                       "by --traffic cachegrind and check)");
    a->k = NULL;
    a->op = RB_OP_MATMUL;
    a->fixed_caches = argc == 9;
    if (a->fixed_caches) {
        int found = 0;
        for (int o = 0; o < RB_NOPS; o++)
            if (strcmp(argv[6], rb_op_name((rb_op)o)) == 0) {
                a->op = (rb_op)o;
                found = 1;
            }
        char rest[64];
        if (!found ||
            sscanf(argv[7], "%zu,%zu,%zu%63s", &a->caches[0], &a->caches[1],
                   &a->caches[2], rest) != 3)
            return rb_fail(e, RB_EINPUT,
                           "_traffic-child: bad operation '%s' or caches "
                           "'%s'",
                           argv[6], argv[7]);
    }
    /* skip does all that call does (the same lookups, the same plan
     * check, the same argument bytes on the stack) but the call, so that
     * subtracting it leaves the call alone */
    const char *name = argv[1];
    if (a->fixed_caches && strcmp(argv[8], "call") != 0 &&
        strcmp(argv[8], "skip") != 0)
        return rb_fail(e, RB_EINPUT, "_traffic-child: mode '%s' is not call "
                       "or skip", argv[8]);
    a->setup_only = a->fixed_caches && strcmp(argv[8], "skip") == 0;
    if (strcmp(name, "none") != 0 && !(a->k = rb_kernel_find(name)))
        return rb_fail(e, RB_EINPUT, "_traffic-child: unknown kernel '%s'",
                       name);
    if (a->k && a->k->op != a->op)
        return rb_fail(e, RB_EINPUT,
                       "_traffic-child: '%s' is not a %s kernel", argv[1],
                       rb_op_name(a->op));
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
    plan.kernels[0] = a->k;
    for (size_t i = 0; !plan.kernels[0] && i < rb_nkernels; i++)
        if (rb_kernels[i].op == a->op)
            plan.kernels[0] = &rb_kernels[i];
    plan.nkernels = 1;
    plan.dtypes[0] = a->dt;
    plan.ndtypes = 1;
    plan.threads[0] = 1;
    plan.nthreads = 1;
    plan.shape[a->op] = a->s;
    snprintf(plan.shape_source[a->op], sizeof(plan.shape_source[a->op]),
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
    if (a.fixed_caches) {
        /* the blocks follow the caches given, not this machine's; the ISA
         * stays as the environment capped it */
        rb_config cfg = *rb_config_get();
        check_pin_config(&cfg, a.caches);
        rb_configure(&cfg);
    }
    void *pa, *pb, *pc;
    if (sim_operands_op(a.op, a.dt, a.s, a.seed, &pa, &pb, &pc))
        return rb_exit_status(rb_fail(e, RB_EINPUT,
                                      "_traffic-child: out of "
                                      "memory"));
    rb_blocking blk;
    rb_blocking_of(a.dt, &blk);
    int rc = flush_caches(a.flush);
    if (!rc && a.k && !a.setup_only)
        rc = sim_call(a.k, a.dt, a.s, pa, pb, pc, NULL, NULL, NULL);
    free(pa);
    free(pb);
    free(pc);
    if (rc)
        return rb_exit_status(rb_fail(e, RB_EINPUT,
                                      "_traffic-child: out of "
                                      "memory"));
    printf("path %s mr %zu nr %zu kc %zu mc %zu nc %zu skinny %zu sw %zu "
           "skb %zu sc %zu openblas %s order %d l3 %zu shallow %zu far_l1 "
           "%d quiet %zu deep %zu in_l2 %d\n",
           blk.path, blk.mr, blk.nr, blk.kc, blk.mc, blk.nc, blk.skinny_max,
           blk.sw, blk.skb, blk.sc_bytes, openblas_get_corename(),
           (int)blk.skinny_order, blk.l3_bytes, blk.shallow_groups,
           blk.far_to_l1, blk.quiet_l3_groups, blk.deep_blocks,
           blk.skinny_in_l2);
    return 0;
}

const cmd_spec cmd_traffic_child = {NULL, 0, child_main, NULL};
