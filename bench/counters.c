/* A counter is usable only if an event set with a real event can be
 * started and stopped: a VM without a PMU loads PAPI's perf_event component
 * and lists native events, yet every start fails. The probe does exactly
 * that and keeps PAPI's error text as the reason. */
#include "counters.h"

#include <papi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int try_event(const char *name, counters_status *st)
{
    int set = PAPI_NULL, code = 0, rc;
    long long value = 0;
    snprintf(st->event, sizeof(st->event), "%s", name);
    rc = PAPI_event_name_to_code(name, &code);
    if (rc != PAPI_OK) {
        snprintf(st->reason, sizeof(st->reason), "event %s: %s", name,
                 PAPI_strerror(rc));
        return -1;
    }
    rc = PAPI_create_eventset(&set);
    if (rc == PAPI_OK)
        rc = PAPI_add_event(set, code);
    if (rc != PAPI_OK) {
        snprintf(st->reason, sizeof(st->reason), "adding %s: %s", name,
                 PAPI_strerror(rc));
    } else if ((rc = PAPI_start(set)) != PAPI_OK) {
        snprintf(st->reason, sizeof(st->reason), "starting %s: %s", name,
                 PAPI_strerror(rc));
    } else if ((rc = PAPI_stop(set, &value)) != PAPI_OK) {
        snprintf(st->reason, sizeof(st->reason), "stopping %s: %s", name,
                 PAPI_strerror(rc));
    } else if (value <= 0) {
        snprintf(st->reason, sizeof(st->reason), "%s counted %lld cycles",
                 name, value);
        rc = PAPI_EMISC;
    }
    if (set != PAPI_NULL) {
        PAPI_cleanup_eventset(set);
        PAPI_destroy_eventset(&set);
    }
    return rc == PAPI_OK ? 0 : -1;
}

void counters_probe(counters_status *st)
{
    memset(st, 0, sizeof(*st));
    snprintf(st->papi_version, sizeof(st->papi_version), "%d.%d.%d.%d",
             PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION),
             PAPI_VERSION_REVISION(PAPI_VERSION),
             PAPI_VERSION_INCREMENT(PAPI_VERSION));
    const int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        snprintf(st->reason, sizeof(st->reason), "PAPI_library_init: %s",
                 rc > 0 ? "version mismatch" : PAPI_strerror(rc));
        return;
    }
    st->library_ok = 1;
    const int cidx = PAPI_get_component_index("perf_event");
    const PAPI_component_info_t *ci =
        cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    if (!ci) {
        snprintf(st->reason, sizeof(st->reason),
                 "PAPI has no perf_event component");
        return;
    }
    snprintf(st->component, sizeof(st->component), "%s", ci->name);
    st->ncounters = ci->num_cntrs;
    if (ci->disabled) {
        snprintf(st->reason, sizeof(st->reason), "perf_event disabled: %.400s",
                 ci->disabled_reason);
        return;
    }
    /* The preset first; a machine whose PAPI has no presets mapped (as in a
     * VM) may still count the generic perf cycle event. */
    char first[sizeof(st->reason)];
    if (try_event("PAPI_TOT_CYC", st) == 0) {
        st->usable = 1;
        return;
    }
    snprintf(first, sizeof(first), "%s", st->reason);
    if (try_event("perf::CYCLES", st) == 0) {
        st->usable = 1;
        st->reason[0] = '\0';
        return;
    }
    char second[sizeof(st->reason)];
    snprintf(second, sizeof(second), "%s", st->reason);
    /* Say why, when the kernel itself shows no core PMU (a VM without a
     * virtual PMU): PAPI only says the events do not exist. */
    const int pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
                    access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
    snprintf(st->reason, sizeof(st->reason), "%.200s; %.200s%s", first, second,
             pmu ? "" : " (the kernel exposes no CPU PMU: no "
                        "/sys/bus/event_source/devices/cpu)");
}

json_t *counters_json(const counters_status *st)
{
    return json_pack("{s:s, s:b, s:s?, s:i, s:s?, s:s?}", "papi_version",
                     st->papi_version, "usable", st->usable, "component",
                     st->component[0] ? st->component : NULL,
                     "hardware_counters", st->ncounters, "event_tried",
                     st->event[0] ? st->event : NULL, "unavailable_reason",
                     st->usable ? NULL : st->reason);
}
