#include "host.h"

#include <cblas.h>
#include <cpuid.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ceiling.h"
#include "kernel.h"
#include "buildinfo.h"
#include "text.h"

const char *const host_env_vars[] = {
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
    "OPENBLAS_VERBOSE",  "GOTO_NUM_THREADS", "OMP_NUM_THREADS",
    "OMP_PROC_BIND",     "OMP_PLACES",       "ROOFBENCH_NO_HUGEPAGES",
    "ROOFBENCH_OPENBLAS_OWN", "ROOFBENCH_ISA", "ROOFBENCH_SKINNY_ORDER",
    NULL};

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

void host_cpu_probe(host_cpu *c)
{
    memset(c, 0, sizeof(*c));
    unsigned a, b, d, x;
    if (!__get_cpuid(0, &a, &b, &x, &d))
        return;
    const unsigned maxleaf = a;
    memcpy(c->vendor, &b, 4);
    memcpy(c->vendor + 4, &d, 4);
    memcpy(c->vendor + 8, &x, 4);

    __get_cpuid(1, &a, &b, &x, &d);
    const unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    c->family = base_family == 0xf ? base_family + ((a >> 20) & 0xff)
                                   : base_family;
    c->model = (base_family == 0x6 || base_family == 0xf)
                   ? base_model + (((a >> 16) & 0xf) << 4)
                   : base_model;
    c->stepping = a & 0xf;
    c->sse2 = (d >> 26) & 1;
    c->fma = (x >> 12) & 1;
    c->avx = (x >> 28) & 1;
    c->hypervisor = (x >> 31) & 1;
    const int osxsave = (x >> 27) & 1;
    if (osxsave) {
        const uint64_t xcr0 = xgetbv0();
        c->os_avx = (xcr0 & 0x6) == 0x6;
        c->os_avx512 = (xcr0 & 0xe6) == 0xe6;
    }
    if (maxleaf >= 7) {
        __cpuid_count(7, 0, a, b, x, d);
        c->avx2 = (b >> 5) & 1;
        c->avx512f = (b >> 16) & 1;
        c->avx512dq = (b >> 17) & 1;
        c->avx512bw = (b >> 30) & 1;
        c->avx512vl = (b >> 31) & 1;
        c->avx512_vnni = (x >> 11) & 1;
        __cpuid_count(7, 1, a, b, x, d);
        c->avx512_bf16 = (a >> 5) & 1;
    }
    if (c->hypervisor) {
        __cpuid(0x40000000, a, b, x, d);
        memcpy(c->hypervisor_vendor, &b, 4);
        memcpy(c->hypervisor_vendor + 4, &x, 4);
        memcpy(c->hypervisor_vendor + 8, &d, 4);
    }
    __cpuid(0x80000000, a, b, x, d);
    if (a >= 0x80000004) {
        unsigned r[12];
        for (unsigned i = 0; i < 3; i++)
            __cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2],
                    r[4 * i + 3]);
        memcpy(c->brand, r, 48);
        c->brand[48] = '\0';
        /* Trim the padding some vendors put around the brand string. */
        char *s = c->brand;
        while (*s == ' ')
            s++;
        memmove(c->brand, s, strlen(s) + 1);
        for (size_t n = strlen(c->brand); n > 0 && c->brand[n - 1] == ' ';)
            c->brand[--n] = '\0';
    }
}

unsigned host_isa_mask(const host_cpu *c)
{
    unsigned m = 0;
    if (c->sse2)
        m |= RB_ISA_SSE2;
    if (c->avx && c->os_avx)
        m |= RB_ISA_AVX;
    if (c->fma && c->os_avx)
        m |= RB_ISA_FMA;
    if (c->avx2 && c->os_avx)
        m |= RB_ISA_AVX2;
    if (c->avx512f && c->os_avx512)
        m |= RB_ISA_AVX512F;
    return m;
}

double host_os_mhz(const char **source)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
                    "r");
    double v = 0.0;
    if (f) {
        if (fscanf(f, "%lf", &v) == 1 && v > 0.0) {
            fclose(f);
            *source = "cpufreq cpuinfo_max_freq";
            return v / 1000.0;
        }
        fclose(f);
    }
    f = fopen("/proc/cpuinfo", "r");
    char line[256];
    v = 0.0;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "cpu MHz", 7) == 0) {
            const char *colon = strchr(line, ':');
            if (colon)
                v = strtod(colon + 1, NULL);
            break;
        }
    if (f)
        fclose(f);
    *source = v > 0.0 ? "/proc/cpuinfo cpu MHz" : "none";
    return v;
}

static uint64_t meminfo_field(const char *field)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t kib = 0;
    const size_t len = strlen(field);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            kib = strtoull(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kib * 1024;
}

uint64_t host_mem_total(void)
{
    return meminfo_field("MemTotal");
}

uint64_t host_mem_available(void)
{
    return meminfo_field("MemAvailable");
}

void host_name(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0 || buf[0] == '\0')
        snprintf(buf, len, "unknown-host");
    buf[len - 1] = '\0';
    char *dot = strchr(buf, '.');
    if (dot)
        *dot = '\0';
    for (char *p = buf; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
            *p = '-';
}

/* The cores below cache o that this process may use, at least 1. */
static unsigned cores_below(hwloc_topology_t topo, hwloc_obj_t o)
{
    const int below =
        hwloc_get_nbobjs_inside_cpuset_by_type(topo, o->cpuset, HWLOC_OBJ_CORE);
    return below > 0 ? (unsigned)below : 1;
}

/* What a cache of `bytes` over `cores` cores may be taken to hold: in a
 * guest, at most RB_CACHE_PER_CORE_MAX a core (host_cache's rule). */
static double believed(uint64_t bytes, unsigned cores, int guest)
{
    return guest && bytes / cores > RB_CACHE_PER_CORE_MAX
               ? (double)RB_CACHE_PER_CORE_MAX * cores
               : (double)bytes;
}

void host_cache_of(hwloc_topology_t topo, hwloc_obj_type_t type, int guest,
                   host_cache *out)
{
    memset(out, 0, sizeof(*out));
    const hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, 0);
    if (!o || !o->attr)
        return;
    const unsigned cores = cores_below(topo, o);
    out->bytes = o->attr->cache.size;
    out->count = hwloc_get_nbobjs_by_type(topo, type);
    out->per_core = out->bytes / cores;
    out->plausible = !guest || out->per_core <= RB_CACHE_PER_CORE_MAX;
    out->believed_bytes =
        (double)out->count * believed(out->bytes, cores, guest);
}

size_t host_team_caches(hwloc_topology_t topo, int guest,
                        const hwloc_bitmap_t *pus, int npus, double bytes[5])
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
        HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
    enum { MAX_SEEN = 256 };
    size_t n = 0;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (hwloc_get_nbobjs_by_type(topo, types[i]) <= 0)
            continue;
        hwloc_obj_t seen[MAX_SEEN];
        int nseen = 0;
        double sum = 0.0;
        for (int t = 0; t < npus && nseen < MAX_SEEN; t++) {
            const hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(
                topo, pus[t], HWLOC_OBJ_PU, 0);
            const hwloc_obj_t c =
                pu ? hwloc_get_ancestor_obj_by_type(topo, types[i], pu) : NULL;
            int dup = !c || !c->attr;
            for (int j = 0; j < nseen && !dup; j++)
                dup = seen[j] == c;
            if (dup)
                continue;
            seen[nseen++] = c;
            sum += believed(c->attr->cache.size, cores_below(topo, c), guest);
        }
        bytes[n++] = sum;
    }
    return n;
}

void host_last_cache(hwloc_topology_t topo, int guest, host_cache *out)
{
    for (int t = HWLOC_OBJ_L3CACHE; t >= HWLOC_OBJ_L1CACHE; t--) {
        host_cache_of(topo, (hwloc_obj_type_t)t, guest, out);
        if (out->count > 0)
            return;
    }
}

int host_configure_kernels(hwloc_topology_t topo, rb_err *e)
{
    host_cpu cpu;
    host_cpu_probe(&cpu);
    unsigned isa = host_isa_mask(&cpu);
    const char *cap = getenv("ROOFBENCH_ISA");
    if (cap && *cap) {
        if (strcmp(cap, "avx512") == 0)
            ;
        else if (strcmp(cap, "avx2") == 0)
            isa &= ~(unsigned)RB_ISA_AVX512F;
        else if (strcmp(cap, "sse2") == 0)
            isa &= RB_ISA_SSE2;
        else
            return rb_fail(e, RB_EINPUT,
                           "ROOFBENCH_ISA='%s': unknown (avx512, avx2 or "
                           "sse2: the widest code path the kernels may use)",
                           cap);
    }
    /* The skinny path's order for weights beyond L3: the strips, unless
     * ROOFBENCH_SKINNY_ORDER=next asks for the next block. The strips
     * measured the faster on Xeon EMR and on a later Xeon guest (CPUID
     * model 167, 2 MiB of L2: f32 B = 1 to 64 at 1 thread with W from
     * DRAM within the noise of each other in two alternated series, then
     * the next block 0.4 to 0.9 times as fast in three more a day later).
     * On Zen 5 (AMD family 26) the next block had measured the faster in
     * alternated sweeps (B = 1 to 6, 1 thread: 0.66 to 0.76 of the DRAM
     * roof against 0.57 to 0.67) and was its default; on a later Zen 5
     * guest, called directly and alternated call by call in one process,
     * 1 thread, W from DRAM, the strips were 1.08 to 1.38 times as fast at
     * every B from 3 to 64 (f32 P = M = 8192, f64 5792) and 1.2 to 2 times
     * at B = 1 and 2 (where the run kernels now serve), and at f32 2048
     * x 2048 (17 MB) 1.7 times: no CPU has it by default now
     * (matmul_blocked.c). */
    rb_skinny_order order = RB_SKINNY_STRIPS;
    const char *ord = getenv("ROOFBENCH_SKINNY_ORDER");
    if (ord && *ord) {
        if (strcmp(ord, "next") == 0)
            order = RB_SKINNY_NEXT_BLOCK;
        else if (strcmp(ord, "strips") != 0)
            return rb_fail(e, RB_EINPUT,
                           "ROOFBENCH_SKINNY_ORDER='%s': unknown (strips or "
                           "next: the order of the blocked matmul's skinny "
                           "path for weights beyond L3)",
                           ord);
    }
    /* The strips ahead into L1 (T0) rather than L2 (T1) on Zen 5 (AMD
     * family 26) and later: there, against T1, alternated call by call
     * in one process, 1 thread, W from DRAM, f32 P = M = 5952 and 10496
     * ran 0.97 to 1.20 times as fast at B = 3 to 32 (most 1.03 to 1.14),
     * f64 4224 and 7424 0.97 to 1.04; T2 and NTA were no better. On the
     * Xeons the strips order was measured with T1 only, which stays. */
    const int zen5 =
        strcmp(cpu.vendor, "AuthenticAMD") == 0 && cpu.family >= 26;
    /* With those requests, on the same CPUs the AVX-512 skinny path's W
     * blocks from beyond L2 are 32 rows deep up to three row groups (B =
     * 18), not six (rb_skinny_plan_of has the figures); elsewhere, and on
     * the other paths, the default. */
    host_cache l1, l2, l3;
    host_cache_of(topo, HWLOC_OBJ_L1CACHE, cpu.hypervisor, &l1);
    host_cache_of(topo, HWLOC_OBJ_L2CACHE, cpu.hypervisor, &l2);
    host_cache_of(topo, HWLOC_OBJ_L3CACHE, cpu.hypervisor, &l3);
    const rb_config cfg = {
        .isa = isa,
        .l1d = (size_t)l1.per_core,
        .l2 = (size_t)l2.per_core,
        .l3 = (size_t)l3.per_core,
        .l3_all = (size_t)l3.bytes,
        .skinny_order = order,
        .far_to_l1 = zen5,
        .shallow_groups = zen5 ? 3 : 0,
        /* and W within L3 read as from L2 up to three row groups there
         * (rb_skinny_plan_of has the figures) */
        .quiet_l3_groups = zen5 ? 3 : 0,
        /* and from four groups on, W blocks of 4 skb (strips_depth in
         * gemm_cntx.c has the figures) */
        .deep_blocks = zen5 ? 4 : 0};
    rb_configure(&cfg);
    return RB_OK;
}

json_t *host_kernels_json(void)
{
    const rb_config *c = rb_config_get();
    const char *cap = getenv("ROOFBENCH_ISA");
    json_t *blk = json_object();
    for (int d = 0; d < RB_NDTYPES; d++) {
        rb_blocking b;
        rb_blocking_of((rb_dtype)d, &b);
        json_object_set_new(
            blk, rb_dtype_name((rb_dtype)d),
            json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:s, s:{s:I, s:b, "
                      "s:I, s:I, s:I, s:s, s:s, s:I, s:I, s:I, s:s}}",
                      "path", b.path, "mr", (json_int_t)b.mr, "nr",
                      (json_int_t)b.nr, "kc", (json_int_t)b.kc, "mc",
                      (json_int_t)b.mc, "nc", (json_int_t)b.nc, "why", b.why,
                      "skinny", "base_rows", (json_int_t)b.skinny_max,
                      "past_mc_where_w_within_half_l2", b.skinny_in_l2,
                      "strip", (json_int_t)b.sw, "depth", (json_int_t)b.skb,
                      "c_block_bytes", (json_int_t)b.sc_bytes, "beyond_l3_order",
                      b.skinny_order == RB_SKINNY_NEXT_BLOCK ? "next block"
                                                             : "strips",
                      "strips_ahead_into", b.far_to_l1 ? "L1" : "L2",
                      "shallow_groups", (json_int_t)b.shallow_groups,
                      "quiet_l3_groups", (json_int_t)b.quiet_l3_groups,
                      "deep_blocks", (json_int_t)b.deep_blocks,
                      "why", b.skinny_why));
    }
    return json_pack("{s:b, s:b, s:b, s:s?, s:I, s:I, s:I, s:o}", "avx512f",
                     (c->isa & RB_ISA_AVX512F) != 0, "avx2_fma",
                     (c->isa & (RB_ISA_AVX2 | RB_ISA_FMA)) ==
                         (RB_ISA_AVX2 | RB_ISA_FMA),
                     "isa_capped", cap && *cap, "ROOFBENCH_ISA",
                     cap && *cap ? cap : NULL, "l1d_per_core",
                     (json_int_t)c->l1d, "l2_per_core", (json_int_t)c->l2,
                     "l3_per_core", (json_int_t)c->l3, "matmul_blocked", blk);
}

json_t *host_cpu_json(const host_cpu *c)
{
    json_t *isa = json_pack(
        "{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b}", "sse2", c->sse2,
        "avx", c->avx && c->os_avx, "fma", c->fma && c->os_avx, "avx2",
        c->avx2 && c->os_avx, "avx512f", c->avx512f && c->os_avx512,
        "avx512dq", c->avx512dq && c->os_avx512, "avx512bw",
        c->avx512bw && c->os_avx512, "avx512vl", c->avx512vl && c->os_avx512,
        "avx512_bf16", c->avx512_bf16 && c->os_avx512, "avx512_vnni",
        c->avx512_vnni && c->os_avx512);
    return json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:b, s:s?}", "vendor",
                     c->vendor, "brand", c->brand, "family", (int)c->family,
                     "model", (int)c->model, "stepping", (int)c->stepping,
                     "isa", isa, "virtual_machine", c->hypervisor,
                     "hypervisor", c->hypervisor ? c->hypervisor_vendor : NULL);
}

json_t *host_topology_json(hwloc_topology_t topo)
{
    json_t *caches = json_array();
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
        HWLOC_OBJ_L4CACHE};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        const int n = hwloc_get_nbobjs_by_type(topo, types[i]);
        if (n <= 0)
            continue;
        const hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
        char name[32];
        hwloc_obj_type_snprintf(name, sizeof(name), o, 0);
        json_array_append_new(
            caches,
            json_pack("{s:s, s:I, s:i, s:i, s:i}", "level", name, "size_bytes",
                      (json_int_t)o->attr->cache.size, "count", n,
                      "line_bytes", (int)o->attr->cache.linesize,
                      "associativity", o->attr->cache.associativity));
    }
    char usable[128];
    hwloc_bitmap_list_snprintf(usable, sizeof(usable),
                               hwloc_topology_get_topology_cpuset(topo));
    return json_pack(
        "{s:i, s:i, s:i, s:i, s:s, s:o, s:I, s:I, s:s}", "packages",
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), "numa_nodes",
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), "cores",
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), "pus",
        hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), "usable_pus", usable,
        "caches", caches, "memory_total_bytes", (json_int_t)host_mem_total(),
        "memory_available_bytes", (json_int_t)host_mem_available(),
        "source", "hwloc " HWLOC_VERSION " (as reported, within the PUs this "
                  "process may use; caches may be implausible in a virtual "
                  "machine)");
}

json_t *host_openblas_json(void)
{
    static const char *const parallel[] = {"sequential", "pthreads",
                                           "openmp"};
    const int par = openblas_get_parallel();
    /* OPENBLAS_VERSION is " OpenBLAS 0.3.21 ": keep the number. */
    char version[32];
    if (sscanf(OPENBLAS_VERSION, " OpenBLAS %31s", version) != 1)
        snprintf(version, sizeof(version), "unknown");
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:s}", "version", version, "config", openblas_get_config(),
                     "corename", openblas_get_corename(), "parallel",
                     par, "procs", openblas_get_num_procs(), "threading",
                     (par >= 0 && par <= 2) ? parallel[par] : "unknown");
}

/* The widest vector instructions a core's kernels use: 0 SSE, 1 AVX,
 * 2 AVX2 and FMA, 3 AVX-512, 4 AVX-512 with BF16 (OpenBLAS's x86-64
 * DYNAMIC_ARCH cores, by the names openblas_get_corename gives). */
static const struct {
    const char *name;
    int level;
} openblas_cores[] = {
    {"Katmai", 0},      {"Coppermine", 0},   {"Northwood", 0},
    {"Prescott", 0},    {"Banias", 0},       {"Atom", 0},
    {"Core2", 0},       {"Penryn", 0},       {"Dunnington", 0},
    {"Nehalem", 0},     {"Athlon", 0},       {"Opteron", 0},
    {"Opteron_SSE3", 0}, {"Barcelona", 0},   {"Nano", 0},
    {"Bobcat", 0},      {"Sandybridge", 1},  {"Bulldozer", 1},
    {"Piledriver", 1},  {"Steamroller", 1},  {"Excavator", 2},
    {"Haswell", 2},     {"Zen", 2},          {"SkylakeX", 3},
    {"Cooperlake", 4},  {"SapphireRapids", 4},
};

static const char *const openblas_level_core[] = {NULL, "Sandybridge",
                                                  "Haswell", "SkylakeX",
                                                  "Cooperlake"};
static const char *const openblas_level_name[] = {
    "SSE", "AVX", "AVX2", "AVX-512", "AVX-512 with BF16"};

static int cpu_vector_level(const host_cpu *c)
{
    const int avx512 = c->avx512f && c->avx512dq && c->avx512bw &&
                       c->avx512vl && c->os_avx512;
    if (avx512)
        return c->avx512_bf16 ? 4 : 3;
    if (c->avx2 && c->fma && c->os_avx)
        return 2;
    return c->avx && c->os_avx ? 1 : 0;
}

const char *host_openblas_best_core(const host_cpu *c, const char *chosen,
                                    char *why, size_t whylen)
{
    int have = -1;
    for (size_t i = 0; i < sizeof(openblas_cores) / sizeof(*openblas_cores);
         i++)
        if (chosen && strcasecmp(chosen, openblas_cores[i].name) == 0)
            have = openblas_cores[i].level;
    const int cpu = cpu_vector_level(c);
    if (have < 0 || have >= cpu)
        return NULL;
    snprintf(why, whylen,
             "OpenBLAS's own choice, %s, uses %s kernels; this CPU runs %s",
             chosen, openblas_level_name[have], openblas_level_name[cpu]);
    return openblas_level_core[cpu];
}

json_t *host_env_json(void)
{
    json_t *env = json_object();
    for (size_t i = 0; host_env_vars[i]; i++) {
        const char *v = getenv(host_env_vars[i]);
        /* a value that is not UTF-8 is kept as printed, not dropped */
        char shown[512];
        json_t *s = v ? json_string(v) : json_null();
        if (!s) {
            text_escape(v, shown, sizeof(shown));
            s = json_string(shown);
        }
        json_object_set_new(env, host_env_vars[i], s);
    }
    return env;
}

int host_hugepages_wanted(void)
{
    return getenv("ROOFBENCH_NO_HUGEPAGES") == NULL;
}

json_t *host_memory_json(void)
{
    const char *path = "/sys/kernel/mm/transparent_hugepage/enabled";
    char *text = text_read_file(path);
    char mode[32] = "";
    const char *open = text ? strchr(text, '[') : NULL;
    const char *close = open ? strchr(open, ']') : NULL;
    if (close && (size_t)(close - open - 1) < sizeof(mode))
        memcpy(mode, open + 1, (size_t)(close - open - 1));
    free(text);
    json_t *o = json_pack("{s:b}", "hugepages_advised",
                          host_hugepages_wanted());
    if (mode[0])
        json_object_set_new(o, "transparent_hugepages", json_string(mode));
    else {
        json_object_set_new(o, "transparent_hugepages", json_null());
        json_object_set_new(o, "transparent_hugepages_unavailable",
                            json_string("no [mode] in "
                                        "/sys/kernel/mm/transparent_hugepage/"
                                        "enabled"));
    }
    return o;
}

json_t *host_build_json(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "roofbench_version",
                     RB_VERSION, "git_revision", rb_git_revision, "compiler",
                     RB_COMPILER, "c_flags", RB_C_FLAGS, "build_type",
                     RB_BUILD_TYPE);
}
