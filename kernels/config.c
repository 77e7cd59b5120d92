/* What the kernels may use here: set once by the caller from CPUID and the
 * cache sizes, read by the kernels that dispatch (the blocked matmul and
 * the vectorised dot and matvec). Kernels never query the machine
 * themselves. */
#include "ceiling.h"
#include "gemm.h"
#include "kernel.h"

static rb_config current = {0, 0, 0, 0};

void rb_configure(const rb_config *cfg)
{
    current = *cfg;
}

const rb_config *rb_config_get(void)
{
    return &current;
}

/* A cache size, or the default when the reported one is missing or
 * implausible (a VM's CPUID can claim hundreds of MB). */
static size_t sane(size_t reported, size_t lo, size_t hi, size_t fallback)
{
    return reported >= lo && reported <= hi ? reported : fallback;
}

static size_t clamp(size_t x, size_t lo, size_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

void rb_blocking_of(rb_dtype dt, rb_blocking *out)
{
    const gemm_path *path = gemm_path_select(current.isa);
    const size_t el = rb_dtype_size(dt);
    const size_t l1 = sane(current.l1d, 8 << 10, 512 << 10, 32 << 10);
    const size_t l2 = sane(current.l2, 128 << 10, 32 << 20, 1 << 20);
    const size_t l3 = sane(current.l3, 1 << 20, 256 << 20, 8 << 20);
    out->path = path->name;
    out->mr = dt == RB_F64 ? path->mr64 : path->mr32;
    out->nr = dt == RB_F64 ? path->nr64 : path->nr32;
    /* KC: as deep as an A micro-panel (MR x KC) can be in three quarters
     * of L1. Depth is what pays for the C tile, which lives a whole block
     * away and is loaded and stored once per KC rank-1 updates; both
     * micro-panels stream from L2 at a rate it sustains. (Measured on Zen
     * 4, f64 at n = 2000: KC 80 gave 48.7 GFLOP/s, KC 384 gave 52.5.) */
    out->kc = clamp(l1 * 3 / 4 / (out->mr * el) / 8 * 8, 64, 1024);
    /* MC: the packed A block (MC x KC), reused by every B micro-panel,
     * fills half of L2. */
    out->mc = clamp(l2 / 2 / (out->kc * el) / out->mr * out->mr, out->mr,
                    8192);
    /* NC: the packed B block (KC x NC), reused by every row block, fills
     * half of what L3 offers one core. */
    out->nc = clamp(l3 / 2 / (out->kc * el) / out->nr * out->nr, out->nr,
                    16384);
    out->why = "KC: A micro-panel = 3/4 L1; MC: A block = L2/2; NC: B block "
               "= L3/2 per core (caches as configured, defaults where "
               "implausible)";
}
