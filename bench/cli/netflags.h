/* The flags of `roofbench network`, shared by the command that starts
 * mpirun (cmd_network.c, in roofbench) and by the program every rank runs
 * (bench/mpi/, roofbench-mpi), so that both read the same command line
 * the same way and bad input is refused before mpirun starts. */
#ifndef ROOFBENCH_NETFLAGS_H
#define ROOFBENCH_NETFLAGS_H
#include <stdint.h>
#include "flags.h"
#include "network.h"
#include "session.h"

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

/* Started by `roofbench network` (ROOFBENCH_NETWORK_STATUS=launched),
 * roofbench-mpi exits 1 and 2 as this + 1 and + 2, since mpirun's own
 * failures (no slots, a bad hostfile) exit 1 too; the launcher maps them
 * back. */
enum { NETWORK_STATUS_BASE = 64 };

/* The plan for `ranks` ranks (0: not known yet; then D is checked but not
 * rounded): every value checked, D rounded up to multiples of the ranks,
 * the working set of each rank checked against the memory available.
 * Errors name the flag and the value. */
int netflags_plan(const network_opts *o, const flag_seen *seen, int ranks,
                  net_plan *p, rb_err *e);

/* A --ceilings roofline must have one rank's roofs: a 1-thread team with
 * a peak for every dtype of the plan (r not ready: nothing to check). */
int netflags_check_roofline(const session_roof *r, const net_plan *p,
                            rb_err *e);

/* roofbench-mpi beside this executable, into path; an error saying how
 * to get it when it was not built. */
int netflags_mpi_program(char *path, size_t len, rb_err *e);
/* mpirun on PATH, as execvp would find it; an error saying how to get it
 * when it is missing. */
int netflags_find_mpirun(char *path, size_t len, rb_err *e);

/* The settings block of the document. */
json_t *netflags_settings(const net_plan *p, const network_opts *o, int argc,
                          char **argv);
#endif
