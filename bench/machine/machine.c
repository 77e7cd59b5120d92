#include "machine.h"

#include <string.h>
#include <unistd.h>

#include "pin.h"

int machine_open(rb_machine *m, rb_err *e)
{
    memset(m, 0, sizeof(*m));
    int rc = pin_topology_load(&m->topo, e);
    if (rc)
        return rc;
    host_cpu_probe(&m->cpu);
    m->isa = host_isa_mask(&m->cpu);
    m->ncores = pin_ncores(m->topo);
    /* the CPUs configured, whatever this process may use (taskset) */
    const long conf = sysconf(_SC_NPROCESSORS_CONF);
    m->ncpus = conf > m->ncores ? (int)conf : m->ncores;
    host_name(m->host, sizeof(m->host));
    pin_usable_string(m->topo, m->pus, sizeof(m->pus));
    rc = host_configure_kernels(m->topo, e);
    if (rc)
        machine_close(m);
    return rc;
}

void machine_close(rb_machine *m)
{
    if (m->topo)
        hwloc_topology_destroy(m->topo);
    m->topo = NULL;
}
