/* The deterministic regression gate: a fixed set of kernels and sizes,
 * each verified natively and then run once under cachegrind with
 * everything that could make the counts differ between machines pinned
 * (code path, the blocked kernel's blocks, OpenBLAS's core, the simulated
 * caches, sizes, seed). Noise cannot move these counts: the same binary
 * gives the same numbers, and a change that makes a kernel execute more
 * instructions or miss more in the simulated caches moves them. */
#ifndef ROOFBENCH_CHECKRUN_H
#define ROOFBENCH_CHECKRUN_H

#include <hwloc.h>

#include "error.h"
#include "kernel.h"
#include "simulate.h"

enum { CHECK_MAX_CASES = 48 };

typedef struct {
    const rb_kernel *k;
    rb_dtype dt;
    rb_shape s;
} check_case;

typedef struct {
    check_case c;
    double flops;
    /* cachegrind's, the set-up subtracted */
    double ir, dr, dw, i1_misses, il_misses, d1_misses, ll_misses;
    /* iai-callgrind's estimate: L1 hits + 5 LL hits + 35 RAM accesses */
    double est_cycles;
    /* FLOPs / (LL data misses x line bytes): where the kernel sits on the
     * simulated roofline; lower is a move to the left */
    double ll_intensity;
} check_counts;

/* What is pinned, and recorded beside the counts: two documents whose
 * facts differ cannot be compared. */
typedef struct {
    char isa[16];           /* the code path the children ran          */
    char blocking[2][160];  /* the blocked kernel's blocks, per dtype  */
    char openblas_core[32], openblas_version[32];
    sim_geometry geom;      /* the simulated I1 is 32K:8:64            */
    size_t caches[3];       /* L1d, L2, L3 the kernels are blocked for */
    unsigned long long seed;
    char valgrind[64], compiler[64], c_flags[128], build_type[32];
} check_facts;

/* The kernels' configuration under the gate, on any CPU: the caches
 * given (L1d, L2, L3 bytes) and one skinny-path order; the ISA is capped
 * by the caller. The cachegrind children pin theirs with it too. */
void check_pin_config(rb_config *cfg, const size_t caches[3]);

/* The fixed set: every kernel in the registry at one size per operation
 * (sizes that run in a second or two under cachegrind), the blocked
 * matmul twice more (its skinny path at a batch of 8, its packed path),
 * f32 and f64. */
void check_cases(check_case *out, size_t *n);

/* The pinned facts this build would record (before any simulation: the
 * child's code path and blocks are filled in by check_run). */
void check_facts_init(check_facts *f, const char *valgrind_version);

/* The code path, the blocked kernel's blocks and OpenBLAS's core the
 * children will run under the pinned configuration, known before any
 * simulation (the same functions the children call): a baseline recorded
 * under others is refused before work. */
void check_facts_expect(check_facts *f);

/* Verifies every case natively under the pinned configuration (the ISA
 * capped at AVX2, the caches of the facts), then simulates each, two at
 * a time, and its set-up alone (the same child doing everything but the
 * call), subtracted. exe is this program (it runs `_traffic-child`),
 * workdir a folder for cachegrind's files. Progress on stderr. The cases
 * finished go to out[0..*nout), in order; with an interrupt the
 * simulations under way are killed, *interrupted set, and RB_OK
 * returned. RB_EMEASURE when a kernel fails verification or a child ran
 * other than the pinned facts. */
int check_run(hwloc_topology_t topo, const char *valgrind, const char *exe,
              const char *workdir, const check_case *cases, size_t n,
              const check_facts *f, check_counts *out, size_t *nout,
              int *interrupted, rb_err *e);

#endif
