/* What the kernels may use here: set once by the caller from CPUID and the
 * cache sizes, read by the kernels that dispatch (the blocked matmul's
 * context in gemm_cntx.c, and the vectorised dot and matvec). Kernels
 * never query the machine themselves. */
#include "kernel.h"

static rb_config current = {0, 0, 0, 0, 0, RB_SKINNY_STRIPS, 0, 0, 0, 0};

void rb_configure(const rb_config *cfg)
{
    current = *cfg;
}

const rb_config *rb_config_get(void)
{
    return &current;
}
