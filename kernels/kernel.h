/* The kernel descriptor: shapes, operands, and the one registry table.
 *
 * Storage convention (see kernels/README.md): every matrix is row-major with
 * an explicit leading dimension, so element (i, j) of X lives at
 * X[i * ldx + j]. A kernel is a pure function of its operands: no I/O,
 * allocation, timing or threads inside kernels/. */
#ifndef ROOFBENCH_KERNEL_H
#define ROOFBENCH_KERNEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum { RB_F32 = 0, RB_F64 = 1, RB_NDTYPES = 2 } rb_dtype;

typedef enum {
    RB_OP_DOT = 0,     /* c = a . b,              a, b of length P        */
    RB_OP_MATVEC,      /* y[N] = A[N,P] x[P]                              */
    RB_OP_MATMUL,      /* C[N,M] = A[N,P] B[P,M]                          */
    RB_OP_BATCHED,     /* bp,bpm->bm: C[b,:] = A[b,:] B[b,:,:], N = B     */
    RB_NOPS
} rb_op;

/* The three dimensions of every problem. Operations that do not use one
 * keep it at 1: dot uses P only, matvec N and P. */
typedef struct {
    size_t n, p, m;
} rb_shape;

/* One call's operands. For a thread's share of the work the harness passes
 * a sub-problem: fewer output rows (n) with a, c moved to the first of them
 * (and b too for the batched contraction, where each row owns its matrix);
 * for matmul and batched with few rows that the threads do not divide
 * evenly (a batch of 1 or 3 on 2 threads), fewer columns (m) instead, with
 * b and c moved to the first of them and the leading dimensions kept.
 * Dot is split along P instead and every share writes its own partial sum.
 *   dot:     a[p], b[p], c[0]
 *   matvec:  a = A (lda), b = x, c = y
 *   matmul:  a = A (lda), b = B (ldb), c = C (ldc)
 *   batched: a = A (lda), b = B with row i's [P,M] matrix at b + i*P*ldb,
 *            c = C (ldc) */
/* The threads that share one call of a team kernel (RB_SPLIT_TEAM): every
 * member calls the kernel on the whole problem with its own tid, and the
 * kernel divides the work, meeting the others at barrier(). Workspace
 * comes from the caller (kernels never allocate): `shared` is one buffer
 * for the whole team, `own` is this member's. A single-threaded call is a
 * team of one. */
typedef struct rb_team {
    int tid, nthreads;
    void (*barrier)(const struct rb_team *t);
    void *barrier_ctx;
    void *shared;
    void *own;
} rb_team;

typedef struct {
    size_t n, p, m;
    const void *a;
    size_t lda;
    const void *b;
    size_t ldb;
    void *c;
    size_t ldc;
    const rb_team *team; /* team kernels only; NULL otherwise */
} rb_operands;

typedef void (*rb_kernel_fn)(const rb_operands *x);

/* Analytic counts of a problem (counts.c): 0, or -1 when a count does not
 * fit in 64 bits. */
typedef struct rb_counts rb_counts;
typedef int (*rb_counts_fn)(rb_shape s, size_t elsize, rb_counts *out);

/* A reference (ref.c): output rows [r0, r1) of a problem from dense
 * row-major inputs of dtype dt, as the kernels see them, each output
 * summed in textbook order in a type whose rounding is far below the
 * kernels' tolerance (ref.c says which); val gets the sum and absval the
 * sum of |a||b| over the same terms, both dense [(r1 - r0) x cols] with
 * row r0 first, so that a caller can keep the few rows it checks. */
typedef void (*rb_ref_fn)(rb_shape s, rb_dtype dt, const void *a, const void *b,
                          size_t r0, size_t r1, double *val, double *absval);

/* What a kernel does to memory, and so which bandwidth roofs may bound it
 * (the registry says, per kernel): it only reads (dot, matvec: a scalar or
 * a vector out against a vector or a matrix in), or it also writes a share
 * of its traffic (matmul and batched write C), where copy and triad can
 * beat a pure read stream (loads and stores use different ports). */
typedef enum { RB_ACCESS_READ = 0, RB_ACCESS_MIXED = 1, RB_NACCESS } rb_access;

/* "read" or "mixed". */
const char *rb_access_name(rb_access a);

/* Who spreads a call over threads: the harness (by output rows, or by P for
 * dot), the library inside the call (OpenBLAS with its own threads), or
 * the kernel itself over a team the harness hands it (rb_team). */
typedef enum {
    RB_SPLIT_HARNESS = 0,
    RB_SPLIT_LIBRARY = 1,
    RB_SPLIT_TEAM = 2
} rb_threading;

/* Workspace a team kernel needs for a problem, in bytes: one shared
 * buffer and one per member. */
typedef void (*rb_workspace_fn)(rb_shape s, rb_dtype dt, int nthreads,
                                size_t *shared, size_t *own);

/* The analytic model of cache traffic (traffic.c) that describes a
 * kernel's loop order: one per textbook matmul order, and the blocked
 * kernel's (its packed and its skinny path); none where the order is not
 * known (a library's own blocking) or not modelled (the other
 * operations). */
typedef enum {
    RB_TRAFFIC_NONE = 0,
    RB_TRAFFIC_DOT_PRODUCT, /* ijk */
    RB_TRAFFIC_COLUMN,      /* jki */
    RB_TRAFFIC_ROW,         /* ikj */
    RB_TRAFFIC_OUTER,       /* kij */
    RB_TRAFFIC_BLOCKED      /* rb_blocking's tiles and blocks */
} rb_traffic_form;

typedef struct {
    const char *name;        /* <op>_<form>, e.g. "matmul_outer"            */
    rb_op op;
    const char *form;        /* dot-product, row, column, outer, ...       */
    const char *description; /* one sentence                                */
    rb_kernel_fn fn[RB_NDTYPES];
    rb_threading threading;
    rb_counts_fn counts;     /* FLOPs and compulsory bytes                 */
    rb_ref_fn reference;     /* what the output is checked against         */
    int output_read;         /* 1 if the kernel reads its output before
                                writing it (C += AB); 0: overwritten       */
    rb_access access;        /* the roofs that bound it                    */
    rb_workspace_fn workspace; /* team kernels; NULL for the others        */
    rb_traffic_form traffic; /* its traffic model (RB_TRAFFIC_NONE: none)  */
} rb_kernel;

/* What the kernels may use on this machine, set once by the caller before
 * any call (config.c): the instruction sets CPUID and the OS allow
 * (RB_ISA_* in ceiling.h), and the cache sizes the blocked kernel sizes
 * its blocks from. Until set, only portable code runs and the blocks take
 * defaults. */
/* The order in which the blocked matmul's skinny path reads weights that
 * lie beyond L2 (matmul_blocked.c), chosen per CPU by the caller: */
typedef enum {
    /* each strip's rows asked for while the strip two to the left (one,
     * for a single row group going into L1) is computed (measured the
     * faster on Xeon EMR and on Zen 5) */
    RB_SKINNY_STRIPS = 0,
    /* the whole next W block asked for in memory order, row after row,
     * while this one is computed (measured the faster on one Zen 5 guest,
     * the slower on a later one: host.c) */
    RB_SKINNY_NEXT_BLOCK = 1
} rb_skinny_order;

typedef struct {
    unsigned isa;
    size_t l1d, l2, l3; /* bytes per core (l3: what one core may use) */
    size_t l3_all;      /* bytes of the whole L3 (0: take l3)          */
    rb_skinny_order skinny_order;
    int far_to_l1;      /* the skinny path's strips ahead into L1, not L2 */
    size_t shallow_groups; /* its W blocks from beyond L2 32 rows deep up to
                              this many row groups on the AVX-512 path
                              (0: the default, 6, as on the others) */
    size_t quiet_l3_groups; /* its W within L3 read as from L2 (nothing
                               asked for ahead, L2's blocks) up to this
                               many row groups (0: never)             */
    size_t deep_blocks; /* its W blocks past shallow_groups row groups
                           this many times skb deep (at most 16), from
                           beyond L2 in the strip order and within L2,
                           on the AVX-512 path (0: the default, twice
                           skb beyond L2, skb within)                */
} rb_config;

/* A pragma from inside a macro (the unroll counts of the kernels written
 * once per code path): RB_PRAGMA(GCC unroll N) with N a literal. */
#define RB_PRAGMA(x) _Pragma(#x)

/* A cache claiming more than this per core is not believed: some virtual
 * machines' CPUID reports the whole host's L3 to a guest of two cores.
 * The blocked matmul then blocks on its defaults (gemm_cntx.c); in a
 * virtual machine `roofbench ceilings` calls the size implausible and
 * ends its default sweep 8x past this much a core (host_cache_of). */
#define RB_CACHE_PER_CORE_MAX ((size_t)64 << 20)

void rb_configure(const rb_config *cfg);
const rb_config *rb_config_get(void);

/* The most rows of the blocked matmul's skinny tile: a product of N rows
 * is computed in ceil(N / RB_SKINNY_ROWS) row groups of even height. */
enum { RB_SKINNY_ROWS = 6 };

/* The blocked matmul's blocks and register tile for a dtype under the
 * current configuration, and the code path (e.g. "avx512") they belong
 * to. */
typedef struct {
    const char *path;
    size_t mr, nr;          /* register tile of C                       */
    size_t kc, mc, nc;      /* cache blocks: depth, rows, columns       */
    const char *why;        /* where the block sizes come from          */
    /* the skinny path (rows of A at most skinny_max, more for some
     * shapes and teams: rb_skinny_rows): no packing, C tile
     * of up to RB_SKINNY_ROWS rows x sw columns, W read skb rows at a
     * time, C in blocks of sc_bytes */
    size_t skinny_max, sw, skb, sc_bytes;
    const char *skinny_why;
    rb_skinny_order skinny_order; /* for W beyond L3                   */
    size_t l3_bytes;        /* the whole L3, as configured             */
    int far_to_l1;          /* strips ahead asked into L1 (configured,
                               and the path is AVX-512)                 */
    size_t shallow_groups;  /* 32-row W blocks from beyond L2 up to this
                               many row groups, deeper above
                               (deep_blocks; 0: the default, 6)         */
    size_t quiet_l3_groups; /* W within L3 read as from L2 up to this
                               many row groups (configured, AVX-512
                               path; 0: never)                          */
    size_t deep_blocks;     /* W blocks past shallow_groups groups this
                               many skb deep, beyond L2 in the strip
                               order and within L2 (configured, AVX-512
                               path, at most 16; 0: the default, 2 skb
                               beyond L2, skb within)                   */
    int skinny_in_l2;       /* the skinny path past MC rows where W's
                               share fits in sc_bytes (the SIMD paths:
                               rb_skinny_rows has how many) */
} rb_blocking;

void rb_blocking_of(rb_dtype dt, rb_blocking *out);

/* How the skinny path walks one member's share of a product: rows of A
 * n, contraction p, `cols` columns of W and C, W's rows ld elements
 * apart, in a team of nthreads, el bytes an element. W is "far" when the
 * share is beyond L2 (twice sc_bytes), unless the whole of W (the shares
 * of all nthreads) fits in L3 and the rows make at most quiet_l3_groups
 * row groups, three or more rows (then it is read as from L2): it then
 * comes from memory once and is asked for ahead, in
 * strip order while the whole of W fits in
 * L3, and in the blocking's order beyond it. C is
 * walked in blocks of jc columns (all n rows), W in blocks of skb rows of
 * those columns (with one or two rows and W far, four rows at a time
 * along the block's whole width instead). One function, so that the
 * kernel and the traffic model
 * (traffic.c) block alike. */
typedef struct {
    int far;
    /* one or two rows with W far: W four rows at a time (the portable
     * copy two) along all jc columns of a C block (skb 4), not in strips
     * (gemm_skinny.c) */
    int runs;
    rb_skinny_order order; /* RB_SKINNY_STRIPS unless beyond L3        */
    size_t skb, jc;
    /* in the strip order with W far: the strip this many to the right is
     * the one asked for; with wrap, past a W block's last strip, the
     * next block's strip as far on (else none) */
    size_t ahead;
    int wrap;
    /* with W far: each call also asks for the next call's C tile (the
     * AVX-512 kernels; the AVX2 ones ask for none) */
    int c_tile;
    /* a team's member builds each C block (N x jc) in its own workspace
     * and copies it into C once the block is done (matmul_blocked.c) */
    int own_c;
} rb_skinny_plan;

void rb_skinny_plan_of(const rb_blocking *b, size_t el, size_t n, size_t p,
                       size_t cols, size_t ld, int nthreads,
                       rb_skinny_plan *out);

/* The most rows of A the blocked matmul takes on its skinny path for
 * weights [p, m] of el bytes on a team of nthreads: skinny_max (MC), and
 * more where the packed path measured the slower (gemm_cntx.c says where
 * and by how much). */
size_t rb_skinny_rows(const rb_blocking *b, size_t el, size_t p, size_t m,
                      int nthreads);

/* Whether rows ld elements of el bytes apart alias in the caches: a
 * stride that is a multiple of 2 KiB, so that a column's lines fall in at
 * most two sets of L1 (and few of L2), and kernels that read W down its
 * columns (the skinny path's strips) lose most of what the caches hold
 * (gemm_cntx.c; the sweep's own sizes avoid such strides). */
int rb_rows_alias(size_t ld, size_t el);

/* The most rows of W any skinny plan of b takes a block, whatever the
 * shape and stride (rb_skinny_plan_of): what a buffer for one block needs. */
size_t rb_skinny_deepest(const rb_blocking *b);

/* The registry (registry.c): every kernel, in display order. */
extern const rb_kernel rb_kernels[];
extern const size_t rb_nkernels;

const rb_kernel *rb_kernel_find(const char *name);
const char *rb_op_name(rb_op op);
const char *rb_dtype_name(rb_dtype dt);
size_t rb_dtype_size(rb_dtype dt);
/* Returns 0 and sets *dt, or -1 for an unknown name. */
int rb_dtype_parse(const char *s, rb_dtype *dt);
/* Unit roundoff doubled: the spacing of floating-point numbers at 1. */
double rb_dtype_eps(rb_dtype dt);

/* Analytic counts (counts.c). Exact integers; an FMA counts 2 FLOPs.
 * Compulsory bytes: every input element read once, every output element
 * written once; outputs are overwritten (C = AB), never read. Returns 0, or
 * -1 when a count does not fit in 64 bits. All five matmul forms share
 * these functions: their difference is measured traffic, not compulsory
 * traffic. */
struct rb_counts {
    uint64_t flops;
    uint64_t bytes;
    uint64_t reduction; /* length of each output's sum (P) */
    uint64_t outputs;   /* number of output elements        */
};

int rb_counts_dot(rb_shape s, size_t elsize, rb_counts *out);
int rb_counts_matvec(rb_shape s, size_t elsize, rb_counts *out);
int rb_counts_matmul(rb_shape s, size_t elsize, rb_counts *out);
int rb_counts_batched(rb_shape s, size_t elsize, rb_counts *out);
/* The count function of an operation. */
int rb_counts_of(rb_op op, rb_shape s, size_t elsize, rb_counts *out);
/* Human-readable formulas for `roofbench list`, with s the element size. */
const char *rb_flops_formula(rb_op op);
const char *rb_bytes_formula(rb_op op);
/* Element counts of the three operands (a, b, c) of a problem. Returns 0,
 * or -1 on overflow. */
int rb_operand_elems(rb_op op, rb_shape s, uint64_t elems[3]);
/* Which dimensions an operation uses, e.g. "P" or "N,P,M". */
const char *rb_op_dims(rb_op op);

#endif
