/* The network roof, without measuring anything: what `roofbench network`
 * measures (its plan and its results, filled under MPI by roofbench-mpi),
 * the link model fitted to the ping-pong, and the sharded matmul's
 * crossover, predicted and read off the measured curves.
 *
 * Split the contraction D of [B,D] x [D,F] over N ranks: each computes a
 * [B,D/N] x [D/N,F] partial product in 2B(D/N)F / C seconds, and the
 * partial [B,F] sums are all-reduced over a ring, each rank sending
 * 2(N-1)/N x s B F bytes over one link of W bytes per second. Compute
 * hides the link while 2BDF / (N C) > 2(N-1) s B F / (N W), that is while
 * D > D* = (N-1) s C / W: B and F cancel. */
#ifndef ROOFBENCH_NETWORK_H
#define ROOFBENCH_NETWORK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kernel.h"

enum {
    NET_MAX_SIZES = 40,   /* message sizes                               */
    NET_MAX_D = 48,       /* contraction sizes of the sharded matmul     */
    NET_MAX_B = 4,        /* batch sizes                                 */
    NET_MAX_SAMPLES = 200,
    NET_MAX_RANKS = 256,  /* ranks whose binding the document lists      */
    NET_WINDOW = 64,      /* non-blocking sends in flight (as osu_bw)    */
    NET_SCHEMA_VERSION = 1
};

/* What to measure, bit per part. */
enum {
    NET_LATENCY = 1u << 0,   /* ping-pong                                */
    NET_BANDWIDTH = 1u << 1, /* a window of non-blocking sends           */
    NET_ALLREDUCE = 1u << 2, /* MPI_Allreduce, sum                       */
    NET_SHARD = 1u << 3      /* the sharded matmul                       */
};

typedef struct {
    unsigned parts;
    uint64_t sizes[NET_MAX_SIZES]; /* message bytes, ascending           */
    size_t nsizes;
    rb_dtype dtypes[RB_NDTYPES];
    int ndtypes;
    const rb_kernel *kernel; /* the partial product's kernel          */
    uint64_t batch[NET_MAX_B];
    size_t nbatch;
    uint64_t f;              /* output columns                          */
    uint64_t d[NET_MAX_D];   /* contraction sizes, multiples of ranks   */
    size_t nd;
    int chunks;              /* the overlapped step's output chunks     */
    int samples;
    double min_time;         /* seconds a sample lasts at least         */
    uint64_t seed;
    uint64_t buffer_budget;  /* bytes of receive buffers a window may use */
} net_plan;

/* One timed quantity: seconds per operation in each sample. */
typedef struct {
    double s[NET_MAX_SAMPLES];
    int n;
    uint64_t iters; /* operations per sample                           */
} net_timing;

double net_timing_min(const net_timing *t);
double net_timing_median(const net_timing *t);

typedef struct {
    uint64_t bytes;
    net_timing t;   /* latency: one way (half a round trip); bandwidth:
                       one window; allreduce: one call (slowest rank)  */
    int window;     /* bandwidth: sends per window                     */
} net_point;

/* One point of the sharded matmul: dtype, B, D (F from the plan). */
typedef struct {
    rb_dtype dt;
    uint64_t b, d;
    net_timing compute;    /* the partial product alone (slowest rank)   */
    net_timing comm;       /* the all-reduce of [B,F] alone             */
    net_timing seq;        /* compute then all-reduce                   */
    net_timing overlap;    /* chunked: all-reduce of chunk j while j+1 is
                              computed                                  */
    double max_err, tol;   /* verification of the reduced product       */
    int verified;          /* 1: every rank's part and the sum checked  */
} net_shard_point;

typedef struct {
    int ranks, hosts;
    int peer;              /* rank 0's partner in the point-to-point tests */
    char label[96];        /* intra-node shared memory / interconnect     */
    char transport[160];   /* what OpenMPI was told and chose             */
    char binding[NET_MAX_RANKS][96]; /* host:PUs per rank              */
    char mpi_version[160];
    net_point latency[NET_MAX_SIZES];
    size_t nlatency;
    net_point bandwidth[NET_MAX_SIZES];
    size_t nbandwidth;
    net_point allreduce[RB_NDTYPES][NET_MAX_SIZES];
    size_t nallreduce[RB_NDTYPES];
    net_shard_point *shard; /* dtype-major, then B, then D             */
    size_t nshard, shard_cap;
    int interrupted;
} net_result;

/* ---- the link model ------------------------------------------------------ */

/* T(bytes) = latency + bytes / bandwidth, fitted to (bytes, seconds) by
 * least squares on the relative error (each point weighted by 1/T^2, so
 * that a 1-byte message counts as much as a 64 MiB one), with the
 * residuals: T_fit / T - 1 at each point. */
typedef struct {
    double latency;   /* s                                              */
    double bandwidth; /* B/s                                            */
    double rms_rel, max_rel; /* of the residuals                        */
    uint64_t max_rel_bytes;  /* where the largest one is                */
    size_t n;
} net_link;

/* Returns 0, or -1 with why (fewer than 2 points, a time that is not
 * positive, a fit with no positive bandwidth). */
int net_fit_link(const uint64_t *bytes, const double *t, size_t n,
                 net_link *out, double *residual, char *why, size_t whylen);

/* ---- the crossover ------------------------------------------------------- */

/* D* = (N - 1) s C / W: C in FLOP/s per rank, W in B/s, s bytes. */
double net_predicted_crossover(int ranks, unsigned el, double c, double w);

/* The windowed bandwidth's window at a message size: as many messages as
 * the plan's buffer budget holds, 1 to NET_WINDOW. */
int net_window(const net_plan *p, uint64_t bytes);

/* The receive buffer a rank of the pair needs: the largest message, or the
 * largest window of the windowed bandwidth where the plan measures it. */
uint64_t net_receive_bytes(const net_plan *p);

enum {
    NET_CROSS_FOUND = 0,  /* interpolated between two grid points        */
    NET_CROSS_BEFORE = 1, /* already at or below the threshold at x[0]   */
    NET_CROSS_NEVER = 2   /* above it at the largest x                   */
};

/* The x from which ratio[] stays at or below limit (x ascending): the
 * crossing between the last point above it and the next, interpolated on
 * log x and log ratio. *status says which case; the value is x[0] for
 * BEFORE and NAN for NEVER. */
double net_crossover(const double *x, const double *ratio, size_t n,
                     double limit, int *status);

/* ---- the sharded product's layout and its check ------------------------- */

/* One rank's operands: A [b, dl] row-major; W [dl, f] and the output
 * [b, f] each in chunks of fc columns (chunk j contiguous: W's is
 * [dl, fc], the output's [b, fc]), so that every chunk is a plain
 * row-major product and the all-reduce of one chunk is contiguous. */
typedef struct {
    rb_dtype dt;
    size_t b, dl, f, fc;
} net_shard_shape;

size_t net_w_index(const net_shard_shape *s, size_t k, size_t j);
size_t net_out_index(const net_shard_shape *s, size_t i, size_t j);

/* Freivalds' check of out = A W (or of a sum of such products): with a
 * vector x, y = A (W x) and ya = |A| (|W| |x|), in double (u, ua: dl
 * doubles of scratch). Summed over the ranks they check the all-reduced
 * output. */
void net_freivalds_rhs(const net_shard_shape *s, const void *a, const void *w,
                       const double *x, double *u, double *ua, double *y,
                       double *ya);

/* max over rows of |out x - y| / ya (the row in *worst): within the
 * product's rounding bound, ref_tolerance(dt, terms), when out is right;
 * z gets out x. */
double net_freivalds_error(const net_shard_shape *s, const void *out,
                           const double *x, const double *y, const double *ya,
                           double *z, size_t *worst);

/* ---- the result's storage ------------------------------------------------ */

int net_result_init(net_result *r, const net_plan *p, rb_err *e);
void net_result_free(net_result *r);

/* ---- the link in a network document ------------------------------------ */

/* A link `roofbench network` wrote (its network.json, or the folder
 * holding it), for `model --network`: member "link" (the all-reduce's,
 * named mpi) or "link_p2p" (the ping-pong's, mpi-p2p), with what it
 * measured (label). Checks the schema, the status and that host is the
 * host the document was measured on. Returns 0, RB_EINPUT, or 1 (with
 * why in e) for a member the run could not fit (a part it did not
 * measure). */
int net_link_load(const char *path, const char *host, const char *member,
                  net_link *out, char *label, size_t labellen, rb_err *e);

#endif
