/* The network document (schema roofbench.network) and what is read from
 * it: the link fitted to the ping-pong, the windowed bandwidth, the
 * all-reduce's algorithm and bus bandwidth, and the sharded matmul's
 * measured crossover beside D* = (N-1) s C / W. Written as network.json
 * (every sample), CSVs, the chart's data and the chart (network.png,
 * network.svg), and as text. */
#ifndef ROOFBENCH_REPORT_NETWORK_H
#define ROOFBENCH_REPORT_NETWORK_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"
#include "network.h"
#include "roofline.h"
#include "runfolder.h"

typedef struct {
    const json_t *context;
    const net_plan *plan;
    const net_result *res;
    const roofline *roof; /* NULL: none                               */
    const char *launch;   /* the mpirun line roofbench ran, or NULL   */
    const char *status;   /* complete, interrupted or failed          */
    const char *error;
} network_doc;

/* One curve of the sharded matmul: a dtype and a batch size. */
typedef struct {
    rb_dtype dt;
    uint64_t b;
    size_t idx[NET_MAX_D]; /* into res->shard, D ascending             */
    size_t n;
    double c;           /* FLOP/s per rank: the median over D of the
                           compute step's rate (median times)         */
    double w;           /* the link the all-reduce sees (its fit), B/s */
    double predicted;   /* D* = (N-1) s C / W                         */
    double w_p2p;       /* the point-to-point link (ping-pong fit)    */
    double predicted_p2p; /* D* with it: the textbook assumption that
                             the all-reduce runs at link speed         */
    double t_comm;      /* the step's all-reduce of s B F bytes: its
                           median over D, s                           */
    double w_step;      /* the bus bandwidth that is                  */
    double measured;    /* from where compute stays above t_comm      */
    int measured_status;
    double overlap;     /* where overlapped comes within 10% of compute */
    int overlap_status;
} net_curve;

/* Two links are fitted, each T(bytes) = latency + bytes / W:
 *   p2p: to the ping-pong's one-way times (the raw link);
 *   link (named mpi): to the all-reduce's times with bytes counted as a
 *   ring sends them, 2(N-1)/N x the buffer (W is then nccl-tests' bus
 *   bandwidth), over every dtype measured. This is the W a sharded
 *   contraction meets and the one D* uses: on shared memory the
 *   reduction and the copies run on the ranks' own cores, so it can be
 *   well below the ping-pong's. */
typedef struct {
    int has_p2p;
    net_link p2p;
    char p2p_why[160];
    double residual[NET_MAX_SIZES];
    int has_link;
    net_link link;
    char link_why[160];
    double ar_residual[RB_NDTYPES][NET_MAX_SIZES];
    net_curve curves[RB_NDTYPES * NET_MAX_B];
    size_t ncurves;
} network_analysis;

/* The overlapped step is "within" compute alone below this ratio. */
#define NET_OVERLAP_LIMIT 1.10

void report_network_analyse(const network_doc *d, network_analysis *a);

/* The documents and the chart into the folder; *json_text gets
 * network.json. A chart that fails costs the chart only: its reason is
 * left in why. */
int report_network_write(runfolder *f, const network_doc *d,
                         const network_analysis *a, char **json_text,
                         char *why, size_t whylen, rb_err *e);

/* The header lines of the files plot-network.gp reads, whose columns it
 * takes by position: `roofbench report` checks a folder's copies by them. */
#define REPORT_NETWORK_P2P_HEADER                                              \
    "kind,bytes,window,samples,time_min_s,time_median_s,gbs_best,gbs_median,"  \
    "fit_s,residual"
#define REPORT_NETWORK_ALLREDUCE_HEADER                                        \
    "dtype,bytes,samples,time_min_s,time_median_s,algbw_gbs,busbw_gbs"
#define REPORT_NETWORK_SHARD_HEADER                                            \
    "dtype,b,d,f,ranks,compute_s,allreduce_s,sequential_s,overlapped_s,"       \
    "predicted_compute_s,predicted_allreduce_s,sequential_gflops_per_rank,"    \
    "link_intensity,verified,max_error"
#define REPORT_NETWORK_CROSSOVER_HEADER "dtype,b,kind,d,time_s"
#define REPORT_NETWORK_ROOFS_HEADER "source,dtype,intensity,gflops"
#define REPORT_NETWORK_PARTS_HEADER "part,rows"

void report_network_text(const network_doc *d, const network_analysis *a,
                         const char *dir, const char *chart, FILE *f);

#endif
