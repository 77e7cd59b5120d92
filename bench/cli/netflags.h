/* The flags of `roofbench network`, shared by the command that starts
 * mpirun (cmd_network.c, in roofbench) and by the program every rank runs
 * (bench/mpi/, roofbench-mpi), so that both read the same command line
 * the same way and bad input is refused before mpirun starts. */
#ifndef ROOFBENCH_NETFLAGS_H
#define ROOFBENCH_NETFLAGS_H
#include <stdint.h>
#include "flags.h"
#include "network.h"

typedef struct {
    uint64_t ranks;
    const char *hostfile;
    int oversubscribe;
    const char *parts, *sizes, *dtype, *kernel, *batch, *d, *ceilings, *out;
    uint64_t f, chunks, samples, seed, budget;
    double min_time;
    int quick, json;
} network_opts;

extern const flag_table network_table;

/* The plan for `ranks` ranks (0: not known yet; then D is checked but not
 * rounded): every value checked, D rounded up to multiples of the ranks,
 * the working set of each rank checked against the memory available.
 * Errors name the flag and the value. */
int netflags_plan(const network_opts *o, const flag_seen *seen, int ranks,
                  net_plan *p, rb_err *e);

/* The settings block of the document. */
json_t *netflags_settings(const net_plan *p, const network_opts *o, int argc,
                          char **argv);
#endif
