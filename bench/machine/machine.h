/* The machine a command runs on, loaded once at start-up: the topology
 * (restricted to the PUs this process may use), CPUID's facts and the ISA
 * mask the kernels run with. Every command receives it; nothing loads the
 * topology a second time. */
#ifndef ROOFBENCH_MACHINE_H
#define ROOFBENCH_MACHINE_H

#include <hwloc.h>

#include "error.h"
#include "host.h"

typedef struct {
    hwloc_topology_t topo;
    host_cpu cpu;
    unsigned isa;  /* host_isa_mask(&cpu): what CPUID and the OS allow */
    int ncores;    /* usable cores                                     */
    int ncpus;     /* CPUs (PUs) configured, usable or not, >= ncores  */
    char host[64]; /* host_name()                                      */
    char pus[128]; /* the usable PUs, "0-1"                            */
} rb_machine;

/* Loads the machine and tells the kernels what they may use (ISA, capped
 * by ROOFBENCH_ISA, and the caches): host_configure_kernels. */
int machine_open(rb_machine *m, rb_err *e);
void machine_close(rb_machine *m);

#endif
