#include "pin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pin_topology_load(hwloc_topology_t *topo, rb_err *e)
{
    if (hwloc_topology_init(topo) != 0)
        return rb_fail(e, RB_EINPUT, "hwloc: cannot initialise a topology");
    if (hwloc_topology_load(*topo) != 0) {
        hwloc_topology_destroy(*topo);
        return rb_fail(e, RB_EINPUT, "hwloc: cannot load the topology: %s",
                       strerror(errno));
    }
    /* The PUs this process may use: what cgroups allow (hwloc's allowed
     * set) and what the binding it was started with allows (taskset,
     * numactl, a parent's binding: the calling thread's, read before it is
     * bound; library threads started earlier carry the same). Everything
     * is planned inside them. */
    hwloc_bitmap_t use = hwloc_bitmap_alloc();
    int rc = use ? RB_OK : rb_fail(e, RB_EINPUT, "out of memory");
    if (!rc && hwloc_get_cpubind(*topo, use, HWLOC_CPUBIND_THREAD) != 0)
        hwloc_bitmap_copy(use, hwloc_topology_get_allowed_cpuset(*topo));
    if (!rc)
        hwloc_bitmap_and(use, use, hwloc_topology_get_allowed_cpuset(*topo));
    if (!rc && hwloc_bitmap_iszero(use))
        rc = rb_fail(e, RB_EINPUT, "hwloc: this process may use no PU");
    if (!rc &&
        !hwloc_bitmap_isequal(use, hwloc_topology_get_topology_cpuset(*topo)) &&
        hwloc_topology_restrict(*topo, use, 0) != 0)
        rc = rb_fail(e, RB_EINPUT,
                     "hwloc: cannot restrict the topology to the PUs this "
                     "process may use: %s",
                     strerror(errno));
    hwloc_bitmap_free(use);
    if (rc)
        hwloc_topology_destroy(*topo);
    return rc;
}

void pin_usable_string(hwloc_topology_t topo, char *buf, size_t len)
{
    hwloc_bitmap_list_snprintf(buf, len,
                               hwloc_topology_get_topology_cpuset(topo));
}

int pin_ncores(hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
}

void pin_plan_free(pin_plan *plan)
{
    if (plan->pu) {
        for (int t = 0; t < plan->nthreads; t++)
            hwloc_bitmap_free(plan->pu[t]);
        free(plan->pu);
    }
    hwloc_bitmap_free(plan->all);
    memset(plan, 0, sizeof(*plan));
}

int pin_plan_make(hwloc_topology_t topo, int nthreads, pin_plan *plan,
                  rb_err *e)
{
    memset(plan, 0, sizeof(*plan));
    const int ncores = pin_ncores(topo);
    if (nthreads < 1 || nthreads > ncores) {
        char pus[128];
        pin_usable_string(topo, pus, sizeof(pus));
        return rb_fail(e, RB_EINPUT,
                       "--threads %d: must be between 1 and the %d core%s "
                       "this process may use (PUs %s)",
                       nthreads, ncores, rb_plural(ncores), pus);
    }
    plan->pu = calloc((size_t)nthreads, sizeof(*plan->pu));
    plan->all = hwloc_bitmap_alloc();
    if (!plan->pu || !plan->all) {
        pin_plan_free(plan);
        return rb_fail(e, RB_EINPUT, "out of memory planning threads");
    }
    plan->nthreads = nthreads;
    for (int t = 0; t < nthreads; t++) {
        const hwloc_obj_t core =
            hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)t);
        plan->pu[t] = hwloc_bitmap_dup(core->cpuset);
        if (!plan->pu[t]) {
            pin_plan_free(plan);
            return rb_fail(e, RB_EINPUT, "out of memory planning threads");
        }
        hwloc_bitmap_singlify(plan->pu[t]);
        hwloc_bitmap_or(plan->all, plan->all, plan->pu[t]);
    }
    return RB_OK;
}

int pin_bind_self(hwloc_topology_t topo, hwloc_const_bitmap_t set, rb_err *e)
{
    char want[128], got[128];
    hwloc_bitmap_list_snprintf(want, sizeof(want), set);
    if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0)
        return rb_fail(e, RB_EINPUT, "hwloc: cannot bind a thread to PU %s: %s",
                       want, strerror(errno));
    hwloc_bitmap_t now = hwloc_bitmap_alloc();
    if (!now)
        return rb_fail(e, RB_EINPUT, "out of memory checking a binding");
    const int rc = hwloc_get_cpubind(topo, now, HWLOC_CPUBIND_THREAD);
    const int same = rc == 0 && hwloc_bitmap_isequal(now, set);
    hwloc_bitmap_list_snprintf(got, sizeof(got), now);
    hwloc_bitmap_free(now);
    if (!same)
        return rb_fail(e, RB_EINPUT,
                       "hwloc: asked to bind a thread to PU %s, obtained %s",
                       want, rc == 0 ? got : "nothing readable");
    return RB_OK;
}

void pin_self_string(hwloc_topology_t topo, char *buf, size_t len)
{
    hwloc_bitmap_t now = hwloc_bitmap_alloc();
    if (now && hwloc_get_cpubind(topo, now, HWLOC_CPUBIND_THREAD) == 0)
        hwloc_bitmap_list_snprintf(buf, len, now);
    else
        snprintf(buf, len, "unknown");
    hwloc_bitmap_free(now);
}

int pin_unbind_self(hwloc_topology_t topo, rb_err *e)
{
    return pin_bind_self(topo, hwloc_topology_get_topology_cpuset(topo), e);
}

int pin_unbind_self_after(hwloc_topology_t topo, int rc, rb_err *e)
{
    rb_err e2;
    const int rc2 = pin_unbind_self(topo, &e2);
    if (rc == RB_OK && rc2 != RB_OK) {
        *e = e2;
        return rc2;
    }
    return rc;
}
