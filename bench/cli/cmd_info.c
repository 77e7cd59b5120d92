/* roofbench info: what this machine is, as reported by CPUID, hwloc,
 * OpenBLAS and PAPI. Text for people, --json for scripts; both come from
 * the same objects that a results file's context block holds. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "context.h"
#include "flags.h"
#include "jdoc.h"
#include "text.h"

typedef struct {
    int json;
} info_opts;

static const flag_spec info_flags[] = {
    FLAG_JSON(info_opts, json, "print the same facts as JSON")};

static const flag_table info_table = {
    "info",
    "usage: roofbench info [--json]",
    "Describes this machine: CPU and ISA flags (AVX2, AVX-512, AVX512_BF16) "
    "from\nCPUID, whether it is a virtual machine, the topology and caches as "
    "hwloc reports\nthem (within the PUs this process may use), memory, the "
    "OpenBLAS version and\nthe core it selected, the environment variables "
    "that change OpenBLAS, whether\nPAPI hardware counters can be used (with "
    "PAPI's reason when not), the clock,\nand the build.",
    info_flags,
    1,
    NULL,
    0};

/* A field of the context document (NULL or 0 when it is absent). */
static const char *str_at(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static long long int_at(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

static double real_at(const json_t *o, const char *key)
{
    return json_real_value(json_object_get(o, key));
}

static void print_bytes(double b)
{
    if (b >= 1 << 30)
        printf("%.1f GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        printf("%.1f MiB", b / (1 << 20));
    else
        printf("%.0f KiB", b / (1 << 10));
}

static const char *plural(long long n)
{
    return n == 1 ? "" : "s";
}

/* host, cpu, isa, topology, caches, memory */
static void print_machine(json_t *doc)
{
    const json_t *cpu = json_object_get(doc, "cpu");
    const json_t *topo = json_object_get(doc, "topology");
    const char *key;
    json_t *v;

    printf("%-12s %s\n", "host", str_at(doc, "host"));
    printf("%-12s %s (%s family %lld model %lld stepping %lld)\n", "cpu",
           str_at(cpu, "brand"), str_at(cpu, "vendor"), int_at(cpu, "family"),
           int_at(cpu, "model"), int_at(cpu, "stepping"));
    const json_t *hv = json_object_get(cpu, "hypervisor");
    printf("%-12s %s%s%s%s\n", "virtual",
           json_is_true(json_object_get(cpu, "virtual_machine")) ? "yes" : "no",
           json_is_string(hv) ? " (hypervisor " : "",
           json_is_string(hv) ? json_string_value(hv) : "",
           json_is_string(hv) ? ")" : "");
    printf("%-12s", "isa");
    json_object_foreach(json_object_get(cpu, "isa"), key,
                        v) if (json_is_true(v)) printf(" %s", key);
    printf("\n%-12s", "isa missing");
    int missing = 0;
    json_object_foreach(json_object_get(cpu, "isa"), key,
                        v) if (!json_is_true(v))
    {
        printf(" %s", key);
        missing = 1;
    }
    printf("%s\n", missing ? "" : " none");
    const long long pk = int_at(topo, "packages");
    const long long nn = int_at(topo, "numa_nodes");
    const long long co = int_at(topo, "cores");
    const long long pu = int_at(topo, "pus");
    printf("%-12s %lld package%s, %lld NUMA node%s, %lld core%s, %lld PU%s "
           "(%s)\n",
           "topology", pk, plural(pk), nn, plural(nn), co, plural(co), pu,
           plural(pu), str_at(topo, "source"));
    size_t i;
    json_array_foreach(json_object_get(topo, "caches"), i, v)
    {
        printf("%-12s %s ", i == 0 ? "caches" : "", str_at(v, "level"));
        print_bytes((double)int_at(v, "size_bytes"));
        printf(" x %lld, %lld-byte lines, %lld-way (as reported)\n",
               int_at(v, "count"), int_at(v, "line_bytes"),
               int_at(v, "associativity"));
    }
    printf("%-12s ", "memory");
    print_bytes((double)int_at(topo, "memory_total_bytes"));
    printf(" total, ");
    print_bytes((double)int_at(topo, "memory_available_bytes"));
    printf(" available\n");
    const json_t *mem = json_object_get(doc, "memory");
    const char *thp = str_at(mem, "transparent_hugepages");
    const int asked = json_is_true(json_object_get(mem, "hugepages_advised"));
    printf("%-12s transparent huge pages: mode %s; the timed buffers %s\n", "",
           thp ? thp : "unreadable",
           asked ? "ask for them"
                 : "use 4 KiB pages (ROOFBENCH_NO_HUGEPAGES is set)");
}

/* openblas, environment, counters, clock, kernels, build */
static void print_software(json_t *doc)
{
    const json_t *ob = json_object_get(doc, "openblas");
    const json_t *ctr = json_object_get(doc, "counters");
    const json_t *clk = json_object_get(doc, "clock");
    const json_t *bld = json_object_get(doc, "build");
    const char *key;
    json_t *v;
    printf("%-12s OpenBLAS %s, core %s, %s threading, %lld procs\n", "openblas",
           str_at(ob, "version"), str_at(ob, "corename"),
           str_at(ob, "threading"), int_at(ob, "procs"));
    printf("%-12s %s\n", "", str_at(ob, "config"));
    printf("%-12s", "environment");
    json_object_foreach(json_object_get(doc, "environment"), key, v)
    {
        char shown[512];
        text_escape(json_is_string(v) ? json_string_value(v) : "(unset)", shown,
                    sizeof(shown));
        printf(" %s=%s", key, shown);
    }
    printf("\n");
    if (json_is_true(json_object_get(ctr, "usable")))
        printf("%-12s usable (PAPI %s, %s, %lld hardware counters)\n",
               "counters", str_at(ctr, "papi_version"),
               str_at(ctr, "component"), int_at(ctr, "hardware_counters"));
    else
        printf("%-12s unavailable: %s (PAPI %s)\n", "counters",
               str_at(ctr, "unavailable_reason"), str_at(ctr, "papi_version"));
    printf(
        "%-12s %s, resolution %.3g s reported, %.3g s measured, %.3g s "
        "per read\n",
        "clock", str_at(clk, "source"), real_at(clk, "resolution_reported_s"),
        real_at(clk, "resolution_measured_s"), real_at(clk, "read_overhead_s"));
    const json_t *kn = json_object_get(doc, "kernels");
    const char *dk;
    json_t *dv;
    json_object_foreach(json_object_get(kn, "matmul_blocked"), dk, dv)
        printf("%-12s matmul_blocked %s: %s path, tile %lld x %lld, blocks "
               "KC %lld MC %lld NC %lld\n",
               strcmp(dk, "f32") == 0 ? "kernels" : "", dk, str_at(dv, "path"),
               int_at(dv, "mr"), int_at(dv, "nr"), int_at(dv, "kc"),
               int_at(dv, "mc"), int_at(dv, "nc"));
    printf("%-12s roofbench %s (%s), %s, %s build, flags: %s\n", "build",
           str_at(bld, "roofbench_version"), str_at(bld, "git_revision"),
           str_at(bld, "compiler"), str_at(bld, "build_type"),
           str_at(bld, "c_flags"));
}

static void print_text(json_t *doc)
{
    print_machine(doc);
    print_software(doc);
}

static int info_main(const rb_machine *m, const void *opts,
                     const flag_seen *seen, rb_err *e)
{
    (void)seen;
    const info_opts *o = opts;
    json_t *doc = context_build(m);
    if (!doc)
        return rb_exit_status(
            rb_fail(e, RB_EINPUT, "building the facts of this machine"));
    if (o->json) {
        char *s = jd_dump(doc, 17);
        if (s)
            puts(s);
        free(s);
    } else {
        print_text(doc);
    }
    json_decref(doc);
    return 0;
}

const cmd_spec cmd_info = {&info_table, sizeof(info_opts), info_main, NULL};
