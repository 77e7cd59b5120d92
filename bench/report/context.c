#include "context.h"

#include "counters.h"
#include "host.h"

json_t *context_clock_json(const timer_info *t)
{
    return json_pack("{s:s, s:o, s:o, s:o}", "source", "CLOCK_MONOTONIC",
                     "resolution_reported_s", json_real(t->reported_s),
                     "resolution_measured_s", json_real(t->measured_s),
                     "read_overhead_s", json_real(t->overhead_s));
}

json_t *context_build(const rb_machine *m)
{
    timer_info clk;
    counters_status ctr;
    timer_probe(&clk);
    counters_probe(&ctr);
    return json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "host", m->host,
        "cpu", host_cpu_json(&m->cpu), "topology", host_topology_json(m->topo),
        "memory", host_memory_json(),
        "openblas", host_openblas_json(), "environment", host_env_json(),
        "counters", counters_json(&ctr), "clock", context_clock_json(&clk),
        "build", host_build_json(), "kernels", host_kernels_json());
}
