/* A counter is usable only if an event set with a real event can be
 * started and stopped: a VM without a PMU loads PAPI's perf_event component
 * and lists native events, yet every start fails. The probe does exactly
 * that and keeps PAPI's error text as the reason. */
#include "counters.h"

#include <papi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"

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

/* ---- events and per-thread event sets ------------------------------------ */

#include <pthread.h>
#include <stdlib.h>

static int library_ready(rb_err *e)
{
    static int done = 0, ok = 0;
    if (!done) {
        done = 1;
        const int rc = PAPI_is_initialized()
                           ? (int)PAPI_VER_CURRENT
                           : PAPI_library_init(PAPI_VER_CURRENT);
        ok = rc == (int)PAPI_VER_CURRENT &&
             PAPI_thread_init((unsigned long (*)(void))pthread_self) ==
                 PAPI_OK;
    }
    if (!ok)
        return rb_fail(e, RB_EINPUT, "PAPI could not be initialised");
    return RB_OK;
}

const char *counters_default_events(const char *vendor, int f64)
{
    if (vendor && strcmp(vendor, "GenuineIntel") == 0)
        return f64 ? "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,"
                     "PAPI_L3_TCM,PAPI_DP_OPS"
                   : "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,"
                     "PAPI_L3_TCM,PAPI_SP_OPS";
    /* AMD Zen: PAPI_FP_OPS is the only FLOP preset */
    return "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,PAPI_L3_TCM,"
           "PAPI_FP_OPS";
}

static counter_kind kind_of(const char *name)
{
    static const struct {
        const char *name;
        counter_kind kind;
    } known[] = {{"PAPI_TOT_CYC", CE_CYCLES},   {"perf::CYCLES", CE_CYCLES},
                 {"PAPI_TOT_INS", CE_INSTRUCTIONS},
                 {"perf::INSTRUCTIONS", CE_INSTRUCTIONS},
                 {"PAPI_L1_DCM", CE_L1D_MISSES}, {"PAPI_L2_DCM", CE_L2_MISSES},
                 {"PAPI_L2_TCM", CE_L2_MISSES}, {"PAPI_L3_TCM", CE_L3_MISSES},
                 {"PAPI_FP_OPS", CE_FLOPS},     {"PAPI_DP_OPS", CE_FLOPS},
                 {"PAPI_SP_OPS", CE_FLOPS}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(name, known[i].name) == 0)
            return known[i].kind;
    return CE_OTHER;
}

int counters_resolve(const char *list, counters_events *ev, rb_err *e)
{
    memset(ev, 0, sizeof(*ev));
    /* the list rule of every flag: no empty item, none twice */
    char buf[2048], *items[COUNTERS_MAX + 1];
    const int n = parse_list("--events", list, buf, sizeof(buf), items,
                             COUNTERS_MAX + 1, e);
    if (n < 0)
        return RB_EINPUT;
    if (n > COUNTERS_MAX)
        return rb_fail(e, RB_EINPUT, "--events: more than %d events",
                       COUNTERS_MAX);
    int rc = library_ready(e);
    if (rc)
        return rc;
    for (int k = 0; k < n; k++) {
        const char *const name = items[k];
        int code = 0;
        const int r = PAPI_event_name_to_code(name, &code);
        if (r != PAPI_OK)
            return rb_fail(e, RB_EINPUT,
                           "--events: unknown event '%s' (%s; papi_avail and "
                           "papi_native_avail list the events)",
                           name, PAPI_strerror(r));
        const int i = ev->n++;
        snprintf(ev->name[i], sizeof(ev->name[i]), "%s", name);
        ev->code[i] = code;
        ev->kind[i] = kind_of(name);
    }
    /* one by one into a test set: what cannot join, or cannot start and
     * stop with the others, is unavailable here */
    int set = PAPI_NULL;
    if ((rc = PAPI_create_eventset(&set)) != PAPI_OK)
        return rb_fail(e, RB_EINPUT, "PAPI_create_eventset: %s",
                       PAPI_strerror(rc));
    for (int i = 0; i < ev->n; i++) {
        rc = PAPI_add_event(set, ev->code[i]);
        if (rc == PAPI_OK) {
            long long v[COUNTERS_MAX];
            rc = PAPI_start(set);
            if (rc == PAPI_OK)
                rc = PAPI_stop(set, v);
            if (rc != PAPI_OK) {
                snprintf(ev->reason[i], sizeof(ev->reason[i]),
                         "starting %s with the events before it: %s",
                         ev->name[i], PAPI_strerror(rc));
                PAPI_remove_event(set, ev->code[i]);
                continue;
            }
            ev->usable[i] = 1;
            ev->nusable++;
        } else {
            snprintf(ev->reason[i], sizeof(ev->reason[i]), "adding %s: %s",
                     ev->name[i], PAPI_strerror(rc));
        }
    }
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    return RB_OK;
}

int counters_thread_open(counters_events *ev, counters_thread *t, rb_err *e)
{
    memset(t, 0, sizeof(*t));
    t->set = PAPI_NULL;
    for (int i = 0; i < COUNTERS_MAX; i++)
        t->slot[i] = -1;
    int rc = library_ready(e);
    if (rc)
        return rc;
    PAPI_register_thread();
    if ((rc = PAPI_create_eventset(&t->set)) != PAPI_OK)
        return rb_fail(e, RB_EINPUT, "PAPI_create_eventset: %s",
                       PAPI_strerror(rc));
    for (int i = 0; i < ev->n; i++) {
        if (!ev->usable[i])
            continue;
        rc = PAPI_add_event(t->set, ev->code[i]);
        if (rc != PAPI_OK) {
            ev->usable[i] = 0;
            ev->nusable--;
            snprintf(ev->reason[i], sizeof(ev->reason[i]),
                     "adding %s on a measuring thread: %s", ev->name[i],
                     PAPI_strerror(rc));
            continue;
        }
        t->slot[i] = t->nin++;
    }
    return RB_OK;
}

int counters_thread_start(counters_thread *t, rb_err *e)
{
    if (t->nin == 0)
        return RB_OK;
    const int rc = PAPI_start(t->set);
    return rc == PAPI_OK ? RB_OK
                         : rb_fail(e, RB_EMEASURE, "PAPI_start: %s",
                                   PAPI_strerror(rc));
}

int counters_thread_stop(counters_thread *t, const counters_events *ev,
                         long long *sum, rb_err *e)
{
    if (t->nin == 0)
        return RB_OK;
    long long v[COUNTERS_MAX];
    const int rc = PAPI_stop(t->set, v);
    if (rc != PAPI_OK)
        return rb_fail(e, RB_EMEASURE, "PAPI_stop: %s", PAPI_strerror(rc));
    for (int i = 0; i < ev->n; i++)
        if (t->slot[i] >= 0)
            sum[i] += v[t->slot[i]];
    return RB_OK;
}

void counters_thread_close(counters_thread *t)
{
    if (t->set != PAPI_NULL) {
        PAPI_cleanup_eventset(t->set);
        PAPI_destroy_eventset(&t->set);
    }
    PAPI_unregister_thread();
}
