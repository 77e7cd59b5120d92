/* What the suite knows about the machine it runs on: CPUID, hwloc's
 * topology, memory, OpenBLAS and the environment that changes it. The
 * figures here are as reported; measured ones come from `ceilings`. */
#ifndef ROOFBENCH_HOST_H
#define ROOFBENCH_HOST_H

#include <hwloc.h>
#include <jansson.h>
#include <stdint.h>

#include "error.h"

typedef struct {
    char vendor[16];
    char brand[64];
    unsigned family, model, stepping;
    int sse2, avx, fma, avx2, avx512f, avx512dq, avx512bw, avx512vl,
        avx512_bf16, avx512_vnni;
    int os_avx, os_avx512; /* the OS saves the registers (XCR0) */
    int hypervisor;
    char hypervisor_vendor[16];
} host_cpu;

void host_cpu_probe(host_cpu *c);

/* The RB_ISA_* features (kernels/ceiling.h) this CPU has and the OS
 * enables: a variant is only run when all it needs is in this mask. */
unsigned host_isa_mask(const host_cpu *c);

/* The CPU frequency the OS reports in MHz (cpufreq's maximum, else
 * /proc/cpuinfo), or 0 when it reports none; *source says which. */
double host_os_mhz(const char **source);

/* Bytes from /proc/meminfo (MemTotal, MemAvailable); 0 when unknown. */
uint64_t host_mem_total(void);
uint64_t host_mem_available(void);

/* The host name, cut at the first dot, with characters that do not belong
 * in a folder name replaced by '-'. */
void host_name(char *buf, size_t len);

/* One cache level as hwloc reports it: the size of the first cache of
 * that type (0 where hwloc knows none), how many there are, and a core's
 * share of one (its size over the cores below it that this process may
 * use). believed_bytes is what the whole level may be taken to hold: all
 * of it, unless, in a virtual machine (guest: CPUID's hypervisor bit), a
 * core's share exceeds RB_CACHE_PER_CORE_MAX, as CPUID claims in some
 * guests; then each cache counts that much a core and no more. On bare
 * metal a large share is believed: it is what a run restricted to a few
 * cores (taskset, a container) of a large L3 sees, and that L3 is real. */
typedef struct {
    uint64_t bytes;
    int count;
    uint64_t per_core;
    int plausible;
    double believed_bytes;
} host_cache;

void host_cache_of(hwloc_topology_t topo, hwloc_obj_type_t type, int guest,
                   host_cache *out);

/* Data cache levels hwloc reports (L1 to L5) and what the threads whose
 * PUs are pus[0..npus) hold in each together: the sizes of the distinct
 * caches above those PUs (0 where none is found), each as host_cache
 * believes it, so that a guest's claim of 508 MiB of L3 a core counts
 * RB_CACHE_PER_CORE_MAX a core (recorded: a Zen 5 guest whose two cores
 * each claimed such an L3; the 2-thread team's 1016 MiB put DRAM inside
 * "L3" and its read roof lost the DRAM level). Returns the number of
 * levels, 0 when hwloc reports none. */
size_t host_team_caches(hwloc_topology_t topo, int guest,
                        const hwloc_bitmap_t *pus, int npus, double bytes[5]);

/* The last cache level hwloc reports (L3, else L2, else L1), or all zeros
 * where it reports none. */
void host_last_cache(hwloc_topology_t topo, int guest, host_cache *out);

/* Tells the kernels what they may use (rb_configure): the ISA mask of this
 * CPU, capped by the environment variable ROOFBENCH_ISA (avx512, avx2,
 * sse2: the widest code path allowed, to force a slower one), and the
 * cache sizes per core hwloc reports. Fails on a bad ROOFBENCH_ISA. */
int host_configure_kernels(hwloc_topology_t topo, rb_err *e);

/* The configuration the kernels run with, and the blocked matmul's blocks. */
json_t *host_kernels_json(void);

/* Whether the timed buffers ask for transparent huge pages: yes unless
 * the environment sets ROOFBENCH_NO_HUGEPAGES (to compare with 4 KiB
 * pages). */
int host_hugepages_wanted(void);

/* JSON objects for a results file's context block and for `info --json`;
 * host_memory_json: the kernel's transparent huge page mode (the bracketed
 * word of /sys/kernel/mm/transparent_hugepage/enabled, null with the
 * reason where unreadable) and whether the suite asks for them. */
json_t *host_memory_json(void);
json_t *host_cpu_json(const host_cpu *c);
json_t *host_topology_json(hwloc_topology_t topo);
json_t *host_openblas_json(void);
json_t *host_env_json(void);
json_t *host_build_json(void);

/* The core `--openblas best` runs OpenBLAS on. OpenBLAS (DYNAMIC_ARCH)
 * picks its core from the CPU model when it loads, and a release that
 * does not know the model falls back to an old one: OpenBLAS 0.3.21 runs
 * its SSE3 Prescott kernels on a Xeon of CPUID model 207 (sgemm at
 * n = 4000, 1 thread: 23.9 GFLOP/s, and 138.1 on its Cooperlake kernels). Returns NULL when `chosen` (the
 * core OpenBLAS picked on its own) uses the widest vector instructions
 * this CPU runs, or when `chosen` is not a core the table knows;
 * otherwise OpenBLAS's core for those instructions (Cooperlake for
 * AVX-512 with BF16, SkylakeX for AVX-512, Haswell for AVX2, Sandybridge
 * for AVX), with why in `why`. */
const char *host_openblas_best_core(const host_cpu *c, const char *chosen,
                                    char *why, size_t whylen);

/* Environment variables that change what OpenBLAS, OpenMP or the suite do. */
extern const char *const host_env_vars[];

#endif
