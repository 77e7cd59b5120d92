/* Thread placement with hwloc: plan one thread per core, bind, and check
 * that the binding obtained is the binding asked for. */
#ifndef ROOFBENCH_PIN_H
#define ROOFBENCH_PIN_H

#include <hwloc.h>

#include "error.h"

/* Loads the topology of this machine, restricted to the PUs this process
 * may use: those cgroups allow and its binding at start-up allows
 * (`taskset -c 1 roofbench ...` plans on PU 1 alone). */
int pin_topology_load(hwloc_topology_t *topo, rb_err *e);

/* The PUs of the (restricted) topology, as a list: "0-1". */
void pin_usable_string(hwloc_topology_t topo, char *buf, size_t len);

/* Number of cores with at least one usable PU. */
int pin_ncores(hwloc_topology_t topo);

typedef struct {
    int nthreads;
    hwloc_bitmap_t *pu;   /* thread t's single PU (first PU of core t)     */
    hwloc_bitmap_t all;   /* the union: where a library's own threads run */
} pin_plan;

/* Thread t goes to the first PU of core t, cores in logical order, so that
 * threads fill one package before the next and never share a core.
 * Fails when nthreads is 0 or above the number of usable cores. */
int pin_plan_make(hwloc_topology_t topo, int nthreads, pin_plan *plan,
                  rb_err *e);
void pin_plan_free(pin_plan *plan);

/* Binds the calling thread to set, reads the binding back and fails unless
 * it equals set. */
int pin_bind_self(hwloc_topology_t topo, hwloc_const_bitmap_t set, rb_err *e);

/* The calling thread's binding as a list of OS PU numbers ("0-1"). */
void pin_self_string(hwloc_topology_t topo, char *buf, size_t len);

/* Binds the calling thread to every PU this process may use (no more:
 * the binding it was started with stays the limit). */
int pin_unbind_self(hwloc_topology_t topo, rb_err *e);

/* The same at the end of a measurement that returns rc: rc when it is
 * already an error (its message in e stays), else the unbinding's result. */
int pin_unbind_self_after(hwloc_topology_t topo, int rc, rb_err *e);

#endif
