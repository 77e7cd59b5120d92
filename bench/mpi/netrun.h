/* The measurements of `roofbench network` under MPI (roofbench-mpi only:
 * the one part of the suite that links MPI). Every rank calls them
 * together; rank 0 receives the figures. */
#ifndef ROOFBENCH_NETRUN_H
#define ROOFBENCH_NETRUN_H

#include <hwloc.h>

#include "error.h"
#include "network.h"

/* Pins this rank to one core of its host (local rank i to the i-th usable
 * core, as the harness pins threads), checks the binding, and on rank 0
 * fills r's ranks, hosts, peer, label and bindings. Ranks of one host that
 * would share a PU are an error unless oversubscribe. Collective. */
int netrun_place(hwloc_topology_t topo, int oversubscribe, net_result *r,
                 rb_err *e);

/* Every part of the plan, each point verified on every rank before its
 * times are kept. stop() is polled between points (rank 0's answer
 * counts for all). Collective; on rank 0 r holds the figures. Returns
 * RB_OK, RB_EMEASURE (a verification failed: e names the rank and the
 * point) or RB_EINPUT. */
int netrun_measure(const net_plan *p, net_result *r, int (*stop)(void),
                   rb_err *e);

/* Agrees on rc across the ranks: the first failing rank's message goes
 * to rank 0's e, and every rank returns the worst rc. */
int netrun_agree(int rc, rb_err *e);

#endif
