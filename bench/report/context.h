/* The context block every results document holds, and `roofbench info`
 * prints: host, CPU, topology, OpenBLAS, the environment that changes it,
 * PAPI's counters, the clock, the build, the kernels' configuration. */
#ifndef ROOFBENCH_CONTEXT_H
#define ROOFBENCH_CONTEXT_H

#include <jansson.h>

#include "machine.h"
#include "timer.h"

json_t *context_build(const rb_machine *m);
json_t *context_clock_json(const timer_info *t);

#endif
