/* The blocked GEMM's context for this machine, in one place (as BLIS's
 * bli_cntx_init_<arch>.c): every code path with its register tile and
 * micro-kernel per dtype, the CPU features it needs, and the cache blocks
 * (KC, MC, NC) sized from the caches the caller configured. The paths are
 * listed fastest first; the portable C path closes the table, so every
 * machine has one. */
#include <math.h>

#include "ceiling.h"
#include "gemm.h"
#include "kernel.h"

/* ---- the portable micro-kernel --------------------------------------------
 */

enum { PMR = 4, PNR64 = 8, PNR32 = 16 };

static void ukr_c_f64(size_t kc, const double *restrict a,
                      const double *restrict b, double *restrict c, size_t ldc,
                      int accumulate)
{
    double acc[PMR][PNR64] = {{0}};
    for (size_t k = 0; k < kc; k++, a += PMR, b += PNR64)
        for (int i = 0; i < PMR; i++)
            for (int j = 0; j < PNR64; j++)
                acc[i][j] += a[i] * b[j];
    for (int i = 0; i < PMR; i++)
        for (int j = 0; j < PNR64; j++)
            c[i * ldc + j] =
                accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

static void ukr_c_f32(size_t kc, const float *restrict a,
                      const float *restrict b, float *restrict c, size_t ldc,
                      int accumulate)
{
    float acc[PMR][PNR32] = {{0}};
    for (size_t k = 0; k < kc; k++, a += PMR, b += PNR32)
        for (int i = 0; i < PMR; i++)
            for (int j = 0; j < PNR32; j++)
                acc[i][j] += a[i] * b[j];
    for (int i = 0; i < PMR; i++)
        for (int j = 0; j < PNR32; j++)
            c[i * ldc + j] =
                accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

/* The portable skinny kernel: the same rows x PSW tile in plain C. */
enum { PSW = 16 };

#define PORTABLE_SKINNY(T, SUFFIX)                                             \
    void gemm_skinny_portable_##SUFFIX(                                        \
        size_t rows, size_t kb, const T *restrict a, size_t lda,               \
        const T *restrict w, size_t ldw, T *restrict c, size_t ldc,            \
        int accumulate, const gemm_skinny_pf *pf)                              \
    {                                                                          \
        (void)pf;                                                              \
        T acc[RB_SKINNY_ROWS][PSW];                                            \
        for (size_t i = 0; i < rows; i++)                                      \
            for (int j = 0; j < PSW; j++)                                      \
                acc[i][j] = accumulate ? c[i * ldc + j] : (T)0;                \
        for (size_t k = 0; k < kb; k++)                                        \
            for (size_t i = 0; i < rows; i++)                                  \
                for (int j = 0; j < PSW; j++)                                  \
                    acc[i][j] += a[i * lda + k] * w[k * ldw + j];              \
        for (size_t i = 0; i < rows; i++)                                      \
            for (int j = 0; j < PSW; j++)                                      \
                c[i * ldc + j] = acc[i][j];                                    \
    }

PORTABLE_SKINNY(double, f64)
PORTABLE_SKINNY(float, f32)

/* The portable run kernel: W two rows at a time, in plain C,
 * nothing asked for ahead. */
#define PORTABLE_RUNS(T, SUFFIX)                                               \
    void gemm_runs_portable_##SUFFIX(                                          \
        size_t rows, size_t kb, const T *restrict a, size_t lda,               \
        const T *restrict w, size_t ldw, T *restrict c, size_t ldc,            \
        size_t cols, size_t ahead)                                             \
    {                                                                          \
        (void)ahead;                                                           \
        for (size_t i = 0; i < rows; i++)                                      \
            for (size_t j = 0; j < cols; j++)                                  \
                c[i * ldc + j] = (T)0;                                         \
        size_t k = 0;                                                          \
        for (; k + 2 <= kb; k += 2)                                            \
            for (size_t i = 0; i < rows; i++) {                                \
                const T a0 = a[i * lda + k], a1 = a[i * lda + k + 1];          \
                for (size_t j = 0; j < cols; j++)                              \
                    c[i * ldc + j] +=                                          \
                        a0 * w[k * ldw + j] + a1 * w[(k + 1) * ldw + j];       \
            }                                                                  \
        for (; k < kb; k++)                                                    \
            for (size_t i = 0; i < rows; i++)                                  \
                for (size_t j = 0; j < cols; j++)                              \
                    c[i * ldc + j] += a[i * lda + k] * w[k * ldw + j];         \
    }

PORTABLE_RUNS(double, f64)
PORTABLE_RUNS(float, f32)

const gemm_path gemm_paths[] = {
    {"avx512", RB_ISA_AVX512F, 8, 48, gemm_ukr_avx512_f32, 8, 24,
     gemm_ukr_avx512_f64, 64, 32, gemm_skinny_avx512_f32,
     gemm_skinny_avx512_f64, gemm_runs_avx512_f32, gemm_runs_avx512_f64},
    {"avx2", RB_ISA_AVX | RB_ISA_AVX2 | RB_ISA_FMA, 6, 16, gemm_ukr_avx2_f32, 6,
     8, gemm_ukr_avx2_f64, 16, 8, gemm_skinny_avx2_f32, gemm_skinny_avx2_f64,
     gemm_runs_avx2_f32, gemm_runs_avx2_f64},
    {"portable", 0, PMR, PNR32, ukr_c_f32, PMR, PNR64, ukr_c_f64, PSW, PSW,
     gemm_skinny_portable_f32, gemm_skinny_portable_f64,
     gemm_runs_portable_f32, gemm_runs_portable_f64},
};

const size_t gemm_npaths = sizeof(gemm_paths) / sizeof(gemm_paths[0]);

const gemm_path *gemm_path_select(unsigned isa)
{
    for (size_t i = 0; i < gemm_npaths; i++)
        if ((gemm_paths[i].needs & isa) == gemm_paths[i].needs)
            return &gemm_paths[i];
    return &gemm_paths[gemm_npaths - 1];
}

/* Beyond L2, W blocks of at most 32 rows up to this many row groups of
 * the C tile, deeper from one more (deep_of), unless the configuration
 * names another count for its CPU (rb_skinny_plan_of says why) */
#define SHALLOW_GROUPS 6

/* The next-block order's W blocks beyond one row group at one thread */
enum { NEXT_DEEP = 192 };

/* The row groups up to which W's blocks are shallow, as configured */
static size_t shallow_of(const rb_blocking *b)
{
    return b->shallow_groups ? b->shallow_groups : SHALLOW_GROUPS;
}

/* The W block depth past shallow_of row groups, W from beyond L2 (far)
 * or within it: deep_blocks skb where the blocking says (rb_skinny_plan_of
 * has the figures), else twice skb beyond L2 and skb within */
static size_t deep_of(const rb_blocking *b, int far)
{
    return b->deep_blocks ? b->deep_blocks * b->skb
           : far          ? 2 * b->skb
                          : b->skb;
}

size_t rb_skinny_deepest(const rb_blocking *b)
{
    const size_t deep = deep_of(b, 1);
    return deep > NEXT_DEEP ? deep : NEXT_DEEP;
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

/* The blocks of a path for a dtype on the caches configured. */
static void blocking(const gemm_path *path, rb_dtype dt, rb_blocking *out)
{
    const rb_config *current = rb_config_get();
    const size_t el = rb_dtype_size(dt);
    const size_t l1 = sane(current->l1d, 8 << 10, 512 << 10, 32 << 10);
    const size_t l2 = sane(current->l2, 128 << 10, 32 << 20, 1 << 20);
    const size_t l3 =
        sane(current->l3, 1 << 20, RB_CACHE_PER_CORE_MAX, 8 << 20);
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
    out->mc = clamp(l2 / 2 / (out->kc * el) / out->mr * out->mr, out->mr, 8192);
    /* NC: the packed B block (KC x NC), reused by every row block, fills
     * half of what L3 offers one core. (On a Xeon guest whose CPUID
     * claims 252 MiB of L3 a core, and whose measured L3 plateau ends
     * near 90 MiB, blocking on the 8 MiB default, NC 1008 in f32,
     * instead of on the claim, NC clamped to 16384, measured 0.96 to
     * 1.10 times as fast, f32 and f64 at n = 2048 and 3072, 1 thread,
     * alternated: no slower, and no block sized from a cache that is
     * not there.) */
    out->nc =
        clamp(l3 / 2 / (out->kc * el) / out->nr * out->nr, out->nr, 16384);
    /* The skinny path: a W block of skb rows x sw columns, reused by every
     * row group of the C tile, fills half of L1 (plans take shallower or
     * deeper ones: rb_skinny_plan_of); a C block of all the rows fills
     * sc_bytes = half of L2, as many columns as that holds. */
    out->sw = dt == RB_F64 ? path->sw64 : path->sw32;
    out->skb = clamp(l1 / 2 / (out->sw * el) / 8 * 8, 8, 512);
    out->sc_bytes = l2 / 2;
    /* Up to MC rows a thread has one A block, so a packed B block would
     * serve a single A block and its packing (read, write, read again)
     * would be paid by at most MC rows; below that, reading W in place
     * wins. (Measured on Xeon EMR, f32 4096 x 4096 weights, 1 thread:
     * 128 rows 88 to 125 GFLOP/s skinny, 60 to 66 packed.) In a team and
     * with W beyond L3 it also won past MC rows, and with W within half
     * of L2 up to the rows a quarter of L2 holds of a strip of C:
     * rb_skinny_rows. */
    out->skinny_max = out->mc;
    out->skinny_in_l2 =
        (path->needs & (RB_ISA_AVX2 | RB_ISA_AVX512F)) != 0;
    out->skinny_order = current->skinny_order;
    /* The rules below were measured on the AVX-512 copies only, and only
     * those are built to take the strips ahead into L1 (gemm_skinny.c) */
    const int avx512 = (path->needs & RB_ISA_AVX512F) != 0;
    out->far_to_l1 = avx512 && current->far_to_l1;
    out->shallow_groups = avx512 && current->shallow_groups
                              ? current->shallow_groups
                              : SHALLOW_GROUPS;
    out->quiet_l3_groups = avx512 ? current->quiet_l3_groups : 0;
    /* at most 16 (measured, and slower: strips_depth) */
    out->deep_blocks = !avx512                     ? 0
                       : current->deep_blocks > 16 ? 16
                                                   : current->deep_blocks;
    out->l3_bytes =
        current->l3_all ? sane(current->l3_all, 1 << 20, 256 << 20, l3) : l3;
    /* the two orders' accounts share all but where the strips' depths
     * apply (rb_skinny_plan_of) */
#define SKINNY_WHY(STRIPS_FROM, NEXT)                                          \
    "skinny up to MC rows, the base (2 MC in a team with two strips a "      \
    "member, 4 MC for W beyond L3; on the SIMD paths, with W's share "       \
    "within L2/2, as many as L2/4 holds of a strip of C and L3/2 of A); "    \
    "W block skb x sw = L1/2 (from " STRIPS_FROM                             \
    ": 32 rows up to shallow_groups row groups, skb from two where W's "      \
    "rows are a multiple of 2 KiB apart and the strips go ahead into L1, "    \
    "2 skb above" NEXT                                                         \
    "; on the AVX-512 path, W whose whole fits in L3 as in L2 up to "         \
    "quiet_l3_groups row groups, from three rows; past shallow_groups, "      \
    "deep_blocks skb where set, from beyond L2 in the strip order and "       \
    "within L2, and within L2 for one row group the deepest); C block of "  \
    "all rows = L2/2 (two to shallow_groups groups "                          \
    "beyond L2 in the strip order where the strips go ahead into L1: with "   \
    "a pass of 32 W rows = L2/4, even blocks, the requests running on into " \
    "the next W block)"
    out->skinny_why =
        out->skinny_order == RB_SKINNY_NEXT_BLOCK
            ? SKINNY_WHY("L3", "; from beyond L3: 64 rows for one row group "
                               "at one thread, else 192, x L2/4, the next "
                               "one asked for in memory order; 1 or 2 rows "
                               "from beyond L2: four W rows at a time "
                               "(portable: two)")
            : SKINNY_WHY("beyond L2", "; 1 or 2 rows from beyond L2: four W "
                                      "rows at a time (portable: two)");
#undef SKINNY_WHY
    out->why = "KC: A micro-panel = 3/4 L1; MC: A block = L2/2; NC: B block "
               "= L3/2 per core (caches as configured, defaults where "
               "implausible)";
}

/* Whether rows of W ld elements apart start in at most two of L1's sets:
 * rows whose stride is a multiple of 2 KiB. (Every L1 data cache of the
 * cores this suite runs on, 32 KiB of 8 ways or 48 KiB of 12, has 64 sets
 * of 64 bytes, so addresses 4 KiB apart share a set.) A strip of 32 such
 * rows, four lines each, then wants 16 or 32 lines of a set that holds 8
 * or 12. */
int rb_rows_alias(size_t ld, size_t el)
{
    return ld * el % 2048 == 0;
}

/* The strip order's W block depth from beyond L2 for `groups` row groups
 * of C, W's rows ld elements apart. */
static size_t strips_depth(const rb_blocking *b, size_t el, size_t groups,
                           size_t ld)
{
    /* With few row groups a strip is reused little, and what pays is
     * a W block of at most 32 rows, the streams an L2 hardware
     * prefetcher follows (one per 4 KiB page, 32 on Intel's):
     * measured in the same process on Xeon EMR, DRAM-resident W, B =
     * 8 to 18, 5 to 25% faster at 1 thread. Up to six groups (B = 36):
     * measured against blocks twice as deep (the whole of L1) with
     * the spread requests, in alternated sweeps of DRAM-resident W, 1
     * and 2 threads: on a Xeon guest of 105 MiB L3 (P = M = 3520 f32),
     * at B = 20 to 30 32 rows won 30 of 30 pairs (f32 1 thread B = 24:
     * 44 to 55% of the roof against 34 to 35%), at six groups (B = 31
     * to 36) 38 of 46; on a Xeon guest of 504 MiB L3, B = 24 13 of 13
     * pairs, six groups mixed. From seven groups on, blocks twice as
     * deep: there the two were mixed (f32 and f64, 1 thread, B = 40 to
     * 64), and earlier, with the requests spread, the deep blocks
     * measured 1.09 to 1.10 times as fast as 32 rows first-group
     * requests at f64 B = 32 to 64 on Xeon EMR. Later, on a Xeon
     * guest of 260 MiB L3, 1 thread, the kernel called directly with
     * the two depths alternated call by call in one process: 96 rows
     * (L1/2) at B = 18 to 36 were 1.06 to 1.16 times as fast at P = M
     * = 8960 f32 and 1.01 to 1.09 at 6336 f64 (row strides of 35 and
     * 49.5 KiB), 0.75 to 0.85 at 5952 f32 (23.3 KiB) and 1.00 to 1.06
     * at 3520 (and 0.95 to 1.00 at B = 13 and 16): the better depth
     * follows the stride, so 32 stays.
     * Against the streaming probe interleaved the same way, this path
     * reached 0.80 to 0.89 of it at B = 32 and 64 (118 to 128 and
     * 131 to 147 GFLOP/s, 8960 f32) while the host was quiet, and 0.55
     * to 0.65 in its spells of a second or two, when the probe lost
     * only a tenth: those spells, not the depth, are what cost the
     * sweep its points near the ridge there.
     * On a Zen 5 guest (48 KiB L1d, 1 MiB L2), called directly with
     * the depths alternated call by call in one process, W from DRAM,
     * the strips ahead into L1: twice skb (192 rows) against 32 at
     * four and six groups (B = 24 and 32) was 1.07 to 1.34 times as
     * fast at 1 thread (f32 P = M = 5952, 8960, 10496; f64 4224,
     * 6336, 7424) and 1.05 to 1.28 at 2 threads (f32 6016, 8960,
     * 10496; f64 the same), 96 rows in between; at two and three
     * groups (B = 12 and 16) 0.87 to 1.25 at 1 thread (10 of 12
     * below 1) and 0.89 to 1.31 at 2. So there the configuration
     * (host.c) takes 32 rows up to three groups only.
     * Rows a multiple of 2 KiB apart (rb_rows_alias) take skb rows
     * (L1/2) from two groups on, on the same CPUs and copies: on that
     * Zen 5 guest, in `roofbench run` with the depth set from outside
     * and alternated, 12 x 4096 x 4096 ran at 109 to 115 GFLOP/s with
     * 192 rows against 85 to 96 with 32 (f32, 1 thread; 228 to 254
     * against 162 to 177 at 2, f64 1.1 to 1.3 times), 18 x 2048 x
     * 2048 164 to 172 against 134 (f64 73 to 77 against 59), 12 x
     * 4608 x 4608 136 to 141 against 95 to 119; where the stride is a
     * multiple of 1 KiB only (f32 4352) 32 rows stayed as fast or
     * faster (148 to 150 against 134 to 147). With one group (B = 6,
     * f32 P = M = 4096, the kernel called directly) 32 rows were
     * still the faster; and 64 or 96 rows took most of 192's gain at
     * 4096 (0.69 to 0.75 of the streaming probe against 0.65 to
     * 0.68), less of it at 2048 in L3 (0.71 to 0.79 against 0.75 to
     * 0.83). Not twice skb: with the rule first on every path, the
     * check gate's simulated caches (32 KiB L1, 1 MiB last level, 16
     * ways, AVX2) saw f64 8 x 512 x 512, one-line strips 512 rows
     * deep, read W from memory twice (twice the LL misses; 1.5 times
     * with skb), which is also why the rule keeps to the copies it was
     * measured on. As built (skb =
     * 96), alternated with the build before it in `roofbench run`:
     * 12 x 4096 x 4096 f32 94 to 115 GFLOP/s against 80 to 104 on 1
     * thread, 191 to 247 against 156 to 161 on 2; 18 x 2048 x 2048
     * 119 to 121 against 95 to 100, and 236 to 243 against 188 to
     * 194; f64 1.04 to 1.4 times.
     * Past the shallow groups, blocks deeper than twice skb pay on the
     * same Zen 5 guest: each call of the kernel costs time besides its
     * steps (about 85 cycles fitted from the driver's rates at 96, 192
     * and 384 rows with W in L2; some 50 in calls timed alone, before
     * gemm_skinny.c's running C pointer; keeping the C tile in L1 by
     * walking a strip's blocks before the next strip, or starting the
     * accumulators at zero and adding C at the end, took none of it),
     * and a block twice as deep halves the calls. The kernel called
     * directly with the depths alternated call by call in one process,
     * 4 skb (384 rows) against 2 skb, W from DRAM: 1 thread f32 P = M
     * = 7296 B = 19 to 64 1.01 to 1.05 (5952: 1.00 to 1.03, 8960 B = 20
     * and 48 1.02 and 1.05),
     * f64 5184 B = 24 to 64 1.01 to 1.04, 4224 B = 20 1.04 and B = 48
     * 0.98; 2 threads f32 7296 B = 24 and 64 1.02 and 1.06, f64 5184 B
     * = 24 and 64 1.07 and 1.03, f64 6336 B = 20 to 48 0.98 to 1.02;
     * W in L3 (f32 1280, 2048) B = 20 to 64 1.01 to 1.03; rows 16 KiB
     * apart (f32 4096) B = 20 1.03, B = 48 0.99. Three skb measured
     * between the two, eight 1.01, sixteen 0.94 to 0.97, all of P (W's
     * column strip in one block) 0.47. So there deep_blocks is 4
     * (host.c). */
    return groups > shallow_of(b) ? deep_of(b, 1)
           : groups > 1 && b->far_to_l1 && rb_rows_alias(ld, el)
               ? b->skb
               : b->skb < 32 ? b->skb : 32;
}

/* What a plan's calls ask for ahead besides W's strips: how far to the
 * right the strip asked for lies, and whether the next call's C tile is
 * asked for too (out's order set). */
static void plan_requests(const rb_blocking *b, size_t groups,
                          rb_skinny_plan *out)
{
    /* The strip order asks for the strip two to the right; with one row
     * group, on the copies whose requests go into L1, the next one. Its
     * lines then come a strip's time (32 steps of one tile) before they
     * are read instead of two. Measured on a Zen 5 guest, the kernel
     * called directly with the two distances alternated call by call in
     * one process, medians of the ratios of 5 to 9 rounds: at 1 thread
     * f32 P = M = 5952 (DRAM) B = 3, 4 and 6 1.02 to 1.09 times as fast,
     * f64 4224 B = 3 to 6 1.01 to 1.05, f32 2112 (L3) B = 4 and 6 1.02
     * to 1.03, 4096 1.03 and 0.995; at 2 threads f32 8960 B = 3 and 4
     * 1.06, f64 6336 B = 3 to 6 0.97 to 1.07. With two groups it was
     * mixed (B = 8 0.98 and 1.08 an hour apart, B = 12 1.00 to 1.03, f64
     * B = 12 0.98), with three 0.97 (B = 16, f32 and f64), and three or
     * four strips ahead were slower everywhere (0.88 to 0.95 at B = 4 to
     * 16). In five alternated `roofbench sweep` pairs (W from DRAM, the
     * medians of the ratios): B = 3 and 4 1.03 to 1.09 at 1 thread, 1.03
     * at 2 in f32, 0.95 to 0.98 at 2 in f64, B = 6 0.97 to 1.00, where B
     * = 8, not changed, drew 0.96 to 1.00: the noise of such sweeps. */
    out->ahead = groups == 1 && b->far_to_l1 ? 1 : 2;
    /* The next call's C tile asked for (matmul_blocked.c), except in the
     * strip order on the copies whose strips go ahead into L1: there the
     * two sets of requests, both into L1, cost more than the C tile's
     * misses. Measured on a Zen 5 guest, the kernel called directly with
     * and without the C tile's requests, alternated call by call in one
     * process, W from DRAM, medians of the ratios of 5 rounds, without
     * against with: 1 thread, f32 P = M = 5952, eight series over five
     * minutes, B = 8 1.04 to 1.32, B = 12 0.98 to 1.13, B = 16 0.96 to
     * 1.17, B = 24 to 64 1.00 to 1.04; f64 4224 B = 8 1.03 to 1.12, B =
     * 16 1.00 to 1.13; 2 threads f32 8960 B = 8 to 64 1.01 to 1.18, f64
     * 6336 B = 12 and 24 1.06 and 1.03; W in L3 (f32 2112) B = 12 and 24
     * 1.24 and 1.03. (An hour earlier one series had B = 12 at 0.96.) */
    out->c_tile = out->order != RB_SKINNY_STRIPS || !b->far_to_l1;
}

/* Past MC rows the packed path has more than one A block a thread to
 * share each packed B block, yet reading W in place stayed the faster in
 * two cases. Measured on a Zen 5 guest (MC 128 f32, 112 f64; l3_bytes 8
 * MiB, the default, as hwloc claimed 508 MiB of L3 a core), `roofbench
 * run` with the bound set from outside, skinny against packed,
 * alternated, two rounds:
 * - W beyond L3, 1 thread: f32 P = M = 6720 (181 MB) 1.13 to 1.15 times
 *   as fast at 192 rows, 1.11 at 256, 1.05 to 1.07 at 384, 1.03 to 1.07
 *   at 512, 0.97 to 1.02 at 768; f64 4752 1.08 to 1.12 at 192, 1.00 to
 *   1.07 at 384, 1.00 at 448 and 512; f64 2048 at 224 1.08 to 1.12.
 *   At 2 threads f32 6720 1.43 to 1.45 at 192, 1.24 at 384, 1.14 to 1.16
 *   at 512; f64 4752 1.33 to 1.36 at 256, 1.06 to 1.12 at 448; f32 2048
 *   1.15 to 1.44 at 192 and 448. So up to 4 MC rows there.
 * - A team, W within L3: f32 256 cubed 1.16 and 1.50, 192 x 384 x 384
 *   1.14 and 1.42, 256 x 768 x 768 1.21 to 1.32, 256 x 1024 x 1024 1.10
 *   to 1.12, but 512 x 1024 x 1024 0.91 to 0.98; f64 224 x 1024 x 1024
 *   1.01 and 1.36, 224 x 512 x 512 0.82 and 1.26. So up to 2 MC rows.
 *   (The packed path's team, each member its rows against one shared
 *   packed B block, scaled 1.4 to 1.6 times from 1 thread to 2 there.)
 * - One thread, W within L3: no; f32 1024 x 1024 at 256 and 512 rows
 *   0.91 to 0.98, 2048 x 2048 (16 MB, beyond the 8 MiB) at 192 1.01 to
 *   1.05.
 * - W whose share a member fits in sc_bytes (half of L2), on the SIMD
 *   paths: up to the rows whose C block of one strip fills half of
 *   sc_bytes, and A half of l3_bytes. There the
 *   packed path packs W and every A block for few FMAs a packed element
 *   (P = M = 64 f32: 106 to 119 GFLOP/s at 128 to 4096 rows, half the
 *   peak). Measured on a Zen 5 guest (MC 128 f32, l3_bytes 32 MiB, L2 1
 *   MiB), `roofbench sweep` with the bound set from outside, skinny
 *   against packed, two alternated rounds, rows 128 to 4096: AVX-512, 1
 *   thread, f32 P = M = 64 2.0 to 2.2 times as fast (230 to 253
 *   GFLOP/s), 192 1.3, 362 (512 KiB) 1.05 to 1.17, 512 (1 MiB) 1.04 to
 *   1.17 but 724 (2 MiB) 0.94 to 1.04; f64 128 1.3 to 1.5, 256 1.07 to
 *   1.23; 2 threads f32 384 1.02 to 1.49, f64 320 1.05 to 1.41, with 1
 *   MiB a member (f32 724, f64 512) 1.3 to 1.45 at 192 rows but 0.91 to
 *   1.0 at 1024; AVX2 (ROOFBENCH_ISA=avx2) 1 thread f32 192 1.09 to
 *   1.16, f64 128 1.02 to 1.09, 2 threads f32 384 0.95 to 1.42. With A
 *   past L3 (f64 256 at 16384 rows, 34 MB: each strip of W reads all of
 *   A again) 0.91 to 0.94, f32 362 at 16384 (24 MB) 1.04. Where the C
 *   block of all the rows no longer fits in L2 even a strip wide, the C
 *   tiles (loaded and stored once per call of at most P steps) come from
 *   L3 or memory: `roofbench run`, the two builds alternated, f32 and f64
 *   at 1 and 2 threads, 100000 x 16 x 512 0.3 to 0.6 times as fast,
 *   8192 x 16 x 512 0.4 to 0.5, 32768 x 64 x 512 0.45 to 0.83; and with W
 *   wide and shallow (M = 512, P = 16 to 64) 0.8 to 0.98 at 2048 rows,
 *   0.8 to 1.9 (most above 1) at 1024 and 256. So up to the rows that
 *   fill a quarter of L2 a strip wide (1024 on the AVX-512 path, 4096 on
 *   AVX2's narrower strips). The portable copy's skinny kernel ran at
 *   0.22 to 0.5 times its packed path. */
size_t rb_skinny_rows(const rb_blocking *b, size_t el, size_t p, size_t m,
                      int nthreads)
{
    /* A team shares out W's strips, the packed path its rows: past MC
     * rows only where every member gets two strips or more (as in the
     * figures above; 256 x 256 x 256 f32 at 2 threads had two a member),
     * lest a wide team leave members idle on a narrow W */
    const size_t strips = b->sw > 0 ? (m + b->sw - 1) / b->sw : 0;
    if (nthreads > 1 && strips < 2 * (size_t)nthreads)
        return b->skinny_max;
    const int team = nthreads > 1 ? nthreads : 1;
    const double w = (double)p * (double)m * (double)el;
    size_t rows = team > 1 ? 2 * b->skinny_max : b->skinny_max;
    /* an L3 not known (0) is not one W lies beyond */
    if (b->l3_bytes > 0 && w > (double)b->l3_bytes)
        rows = 4 * b->skinny_max;
    else if (b->skinny_in_l2 && p > 0 && b->sw > 0 &&
             w / team <= (double)b->sc_bytes) {
        /* the rows of A (p elements each) that half of L3 holds, and of a
         * strip of C that half of sc_bytes holds */
        const double cap = fmin(
            (double)(b->l3_bytes / 2) / ((double)p * (double)el),
            (double)(b->sc_bytes / 2) / ((double)b->sw * (double)el));
        if (cap > (double)rows)
            rows = cap < (double)SIZE_MAX ? (size_t)cap : SIZE_MAX;
    }
    return rows;
}

/* The width of blocks of at most `most` columns (a multiple of sw) that
 * split cols evenly in whole strips of sw: the fewest such blocks, as
 * wide as one another as strips allow. */
static size_t even_blocks(size_t cols, size_t most, size_t sw)
{
    if (cols == 0)
        return sw;
    const size_t blocks = (cols + most - 1) / most;
    const size_t per = (cols + blocks - 1) / blocks;
    return (per + sw - 1) / sw * sw;
}

void rb_skinny_plan_of(const rb_blocking *b, size_t el, size_t n, size_t p,
                       size_t cols, size_t ld, int nthreads,
                       rb_skinny_plan *out)
{
    const size_t sw = b->sw > 0 ? b->sw : 1;
    const size_t groups = (n + RB_SKINNY_ROWS - 1) / RB_SKINNY_ROWS;
    /* W that fits in L2 is there after the first call, and asking for it
     * again only holds fill buffers (from L2 it then streamed a quarter
     * slower) */
    const double share = (double)p * (double)cols * (double)el;
    const int beyond_l2 = share > 2.0 * (double)b->sc_bytes,
              beyond_l3 = share * (double)(nthreads > 0 ? nthreads : 1) >
                          (double)b->l3_bytes;
    /* One or two rows of A, W from beyond L2: the run kernels (below) */
    out->runs = beyond_l2 && n <= 2;
    out->wrap = 0;
    /* W within L3 on the copies configured so (quiet_l3_groups: the
     * AVX-512 path on Zen 5, host.c), up to that many row groups: read as
     * from L2, its blocks and nothing asked for ahead, which the hardware
     * prefetchers then do better. Measured on a Zen 5 guest (l3_bytes 8
     * MiB, the default; its L3 32 MiB), the kernel called directly and
     * the two alternated call by call in one process, medians of 3 to 5
     * rounds, against the strips with their requests: 1 thread f32 P = M
     * = 640, 960 and 1280 (1.6 to 6.6 MB), B = 3 to 18, 1.04 to 1.18
     * times as fast (most 1.08 to 1.16); f64 704 (4 MB) B = 6 to 16 1.07
     * to 1.11; but B = 24 to 128 0.98 to 1.01 (f32) and 0.95 to 0.98
     * (f64), so not from four groups on. The requests dropped but the
     * shallow blocks kept: 0.94 to 1.0; L2's blocks (96 rows) with the
     * first group's near requests: 1.10 to 1.13. At 8.3 MB (f32 1440,
     * just within l3_bytes) 1.04 to 1.09 as well; past l3_bytes, where
     * the requests stay, at 16.8 MB (f32 2048) 0.92 to 1.21, from 26 MB
     * (f32 2560) 0.82 to 0.91. */
    out->far = beyond_l2 &&
               (out->runs || beyond_l3 || groups > b->quiet_l3_groups);
    /* the next-block order paces the loop near DRAM's rate (gemm_skinny.c):
     * with W in L3 it measured 0.7 times the strip order at B = 1 (f32
     * 2048 x 2048 on Zen 5), so only for W beyond all of L3 */
    out->order =
        out->far && beyond_l3 ? b->skinny_order : RB_SKINNY_STRIPS;
    /* C blocks of all n rows in sc_bytes */
    size_t jc = b->sc_bytes / ((n > 0 ? n : 1) * el) / sw * sw;
    /* One or two rows of A, W from beyond L2: long runs of W, four at a
     * time (the run kernels, gemm_skinny.c; two at a time when this was
     * measured). Measured on Zen 5 (f32, 1
     * thread, called directly and alternated call by call in one
     * process, beside the streaming probe): at P = M = 10496 (441 MB),
     * B = 1, 19.1 to 21.4 GFLOP/s, 0.95 to 1.0 of the probe, where the
     * strip order's 32-row blocks gave 13.3 to 14.6 (0.65 to 0.7) and the
     * next-block order 8.1 to 14.1; B = 2, 31.4 to 34.8 (0.85 of the
     * probe) against 25.8 to 29.1 and 15.9 to 23.7; at P = M = 2048 (17
     * MB, in L3) B = 1 and 2, 1.4 to 1.6 times the strip order. From B =
     * 3 on the C rows' loads and stores, a pair of W rows apart, cost
     * more than the runs save (0.9 of the strip order at B = 3) while C
     * sits in L2. With three to five rows, C blocks of a third of L1 and
     * the requests wrapping onto the next pair, against the strips at P =
     * M = 5952 and 10496 f32, 4224 and 7424 f64: B = 4 1.07 to 1.43
     * times as fast, but B = 3 0.91 to 1.02 and B = 5 0.96 to 1.07, so
     * one or two rows only (the strips' B = 4, 0.58 of the probe where
     * B = 3 and 5 reach 0.75, is the oddity there). */
    if (out->runs) {
        out->order = RB_SKINNY_STRIPS;
        out->skb = 4;
    } else if (!out->far) {
        /* past the shallow groups, deep_blocks skb where configured
         * (strips_depth has why): on the Zen 5 guest, W in L2, 1 thread,
         * B = 24 and 48, f32 P = M = 256 and 384 1.05 to 1.06 times as
         * fast with blocks of 384 rows (all of P: one block a strip) as
         * with skb (96), 1.02 to 1.04 with 192; f64 320 at B = 32 1.06
         * (all 320 rows); 2 threads f32 512 at B = 32 1.04. W within L3
         * read as from L2 (quiet_l3_groups) would take them too past
         * shallow_groups: on Zen 5 both are 3, so it never does.
         * With one row group and W within L2, where deep_blocks is
         * configured, the deepest blocks the workspace takes
         * (rb_skinny_deepest): each element of a block then serves that
         * one group only, so the depth buys no reuse in L1 and sets only
         * how many calls there are, each with its C tile and its own
         * cost. On the Zen 5 guest, the sweep's L2 weights (P = M = 192
         * and 384 f32, 128 and 320 f64), B = 1 to 6, six alternated
         * rounds of `roofbench sweep`, the medians of the ratios against
         * skb (96 rows; 384 instead): 2 threads 1.02 to 1.12 (f32) and
         * 1.02 to 1.17 (f64), 1 thread 0.97 to 1.04 and 1.00 to 1.07 (the
         * rounds 0.62 to 1.71 apart: the host's noise). */
        out->skb = groups > shallow_of(b) ? deep_of(b, 0)
                   : groups == 1 && !beyond_l2 && b->deep_blocks
                       ? rb_skinny_deepest(b)
                       : b->skb;
    } else if (out->order == RB_SKINNY_STRIPS) {
        out->skb = strips_depth(b, el, groups, ld);
        /* Two to shallow_groups row groups, on the copies whose strips
         * go ahead into L1 (Zen 5's; where it was measured): C blocks
         * that a quarter of L2 holds beside one pass of W over them (n +
         * 32 rows), split evenly in whole strips over the member's
         * columns, the requests running on into the next W block past a
         * block's last strips. With all the columns in one block (8960
         * f32: 430 KB of C at B = 12 beside 1.1 MB of W a pass) C left L2
         * between passes. Measured on a Zen 5 guest, W from DRAM, B =
         * 8, 12 and 16 (two and three groups): the kernel called
         * directly, this rule against one block of all the columns,
         * alternated call by call in one process, medians of 5 rounds, 1
         * thread: f32 P = M = 7296 and 10496 1.03 to 1.12 times as fast,
         * f64 4224 1.05 to 1.11, f64 7424 and 8960 0.99 to 1.01; fixed
         * widths before it, f32 8960: 2048 columns 1.08 to 1.13 (512 as
         * good at B = 12), f64 6336 1024 columns 1.06 to 1.14, 2 threads
         * f32 8960 1536 columns 1.07 (2048: 1.02 to 1.03). In `roofbench
         * run` against the build before, two alternated pairs: f32 8960
         * B = 12 1.11 at 1 thread and 1.07 at 2, B = 16 1.09 at 1, B = 8
         * and B = 16 at 2 within the noise; f64 6336 B = 8 and 12 1.04 to
         * 1.15 at 1 and 2 threads, B = 16 0.96 to 1.09; f64 5184 (called
         * directly) 1.06 to 1.15. Where C and a pass already fit (f32
         * 5952, B = 8) 0.99 to 1.0. Not with one group (B = 3 to 6, 2048
         * columns: 0.94 to 0.99) nor past shallow_groups (B = 24 and 32:
         * 0.94 to 0.98, B = 64 1.0 to 1.02). Without the wrap, blocks of
         * 4 strips ran 0.94 times as fast at B = 64. */
        if (b->far_to_l1 && groups > 1 && groups <= shallow_of(b)) {
            /* a pass as deep as where rows do not alias, whatever ld:
             * the workspace (own_c) is sized from the shape alone */
            const size_t pass = b->skb < 32 ? b->skb : 32;
            const size_t most = b->sc_bytes / 2 / ((n + pass) * el) / sw * sw;
            const size_t even = even_blocks(cols, most < sw ? sw : most, sw);
            if (even < jc)
                jc = even;
            out->wrap = 1;
        }
    } else {
        /* The next W block asked for row after row: the block (skb rows
         * x jc columns) and the next one in half of L2. Measured on Zen 5
         * (L2 1 MiB), W from DRAM, at 1 thread: against the strip order
         * (f32 5120 x 5120, interleaved in one process), 64 rows gave
         * 1.26 to 1.37 times its rate at B = 1 to 16 and 192 rows 1.06 to
         * 1.18, and from four groups on (B = 24 to 64) 192 rows 1.05 to
         * 1.15; then 192 against 64 rows directly (alternated sweeps of
         * P = M = 4864 f32, 3456 f64, medians of 6 to 8 rounds) was 0.98
         * to 1.10 at B = 1 to 6 and 1.02 to 1.13 at B = 8 to 16 (1.08 to
         * 1.13 at 12 and 16). So 64 rows for one row group only. At 2
         * threads 192 rows (0.98 to 1.13 times the strip order, where 64
         * gave 0.89 to 0.97). */
        out->skb = groups == 1 && nthreads == 1 ? 64 : NEXT_DEEP;
        const size_t wjc = b->sc_bytes / 2 / (out->skb * el) / sw * sw;
        if (wjc < jc)
            jc = wjc;
    }
    out->jc = jc < sw ? sw : jc;
    out->own_c = nthreads > 1 && !out->runs;
    plan_requests(b, groups, out);
}

void gemm_cntx_of(rb_dtype dt, gemm_cntx *out)
{
    out->path = gemm_path_select(rb_config_get()->isa);
    blocking(out->path, dt, &out->blk);
}

void rb_blocking_of(rb_dtype dt, rb_blocking *out)
{
    gemm_cntx cx;
    gemm_cntx_of(dt, &cx);
    *out = cx.blk;
}
