/* The ceiling kernels: a peak-FLOP kernel and four bandwidth kernels per
 * vector width, each compiled for the instructions it needs with a target
 * attribute, so one binary runs on any x86-64 and an AVX-512 path is only
 * entered after CPUID said the CPU has it (see bench/ceilings.c). */
#ifndef ROOFBENCH_CEILING_H
#define ROOFBENCH_CEILING_H

#include <stddef.h>
#include <stdint.h>

/* Instruction-set features a variant needs, as a bit mask. */
enum {
    RB_ISA_SSE2 = 1u << 0,
    RB_ISA_AVX = 1u << 1,
    RB_ISA_FMA = 1u << 2,
    RB_ISA_AVX2 = 1u << 3,
    RB_ISA_AVX512F = 1u << 4,
};

/* A peak kernel keeps `chains` independent accumulators of one register
 * each and applies acc = acc * x + y to every one, iters times: enough
 * independent chains to cover the latency of every FMA pipe (latency 4 x 2
 * pipes needs 8). acc holds chains x lanes values in and out. Each
 * iteration does chains x lanes x 2 FLOPs. Without FMA the update is a
 * multiply and an add, still 2 FLOPs. */
typedef struct {
    const char *name;   /* e.g. "avx512-fma"                              */
    unsigned bits;      /* register width: 64 (scalar), 128, 256 or 512   */
    unsigned chains;
    int fma;
    unsigned needs;     /* RB_ISA_* mask                                   */
    void (*f32)(uint64_t iters, float x, float y, float *acc);
    void (*f64)(uint64_t iters, double x, double y, double *acc);
} rb_peak_variant;

extern const rb_peak_variant rb_peak_variants[];
extern const size_t rb_npeak_variants;

/* Bandwidth kernels, each making reps passes over arrays of n elements
 * (n a multiple of RB_STREAM_BLOCK, 8 bytes an element):
 *   read:  adds the 64-bit integers a[i] into sums[], RB_STREAM_SUMS
 *          running sums that the caller zeroes and adds up; 8 bytes read
 *   read2, read4: the same over two or four arrays a[0..S-1] at once,
 *          one load from each in turn; 8 bytes read per element of each
 *   write: a[i] = v;                    8 bytes written
 *   copy:  a[i] = b[i];                 8 read, 8 written
 *   triad: a[i] = b[i] + s * c[i];      16 read, 8 written (STREAM's)
 *   schoenauer: a[i] = b[i] + c[i] * d[i];  24 read, 8 written (the
 *          vector triad of likwid-bench's `triad` test)
 * Byte counts are those the code names; write-allocate traffic of the
 * stores is not counted (as in STREAM and likwid-bench). */
enum { RB_STREAM_BLOCK = 64, RB_STREAM_SUMS = 64 };

typedef struct {
    const char *name;   /* e.g. "avx512"                                  */
    unsigned bits;      /* 128, 256 or 512                                */
    unsigned needs;
    void (*read)(const uint64_t *a, size_t n, uint64_t reps, uint64_t *sums);
    void (*read2)(const uint64_t *const *a, size_t n, uint64_t reps,
                  uint64_t *sums);
    void (*read4)(const uint64_t *const *a, size_t n, uint64_t reps,
                  uint64_t *sums);
    void (*write)(double *a, size_t n, uint64_t reps, double v);
    void (*copy)(double *restrict a, const double *restrict b, size_t n,
                 uint64_t reps);
    void (*triad)(double *restrict a, const double *restrict b,
                  const double *restrict c, double s, size_t n,
                  uint64_t reps);
    void (*schoenauer)(double *restrict a, const double *restrict b,
                       const double *restrict c, const double *restrict d,
                       size_t n, uint64_t reps);
} rb_stream_variant;

extern const rb_stream_variant rb_stream_variants[];
extern const size_t rb_nstream_variants;

/* The streaming FMA kernel (fmastream.c): streams `streams` arrays a[s]
 * of n elements each once, in memory order, blocks of
 * RB_FMASTREAM_VECS vectors from each in turn (n a multiple of
 * RB_FMASTREAM_VECS x lanes), asking for the lines `ahead` bytes further
 * on (0: none), and applies `fmas` FMAs acc = x * m + acc (fmas >= 1) to
 * every vector it loads: 2 x fmas FLOPs per element, on
 * RB_FMASTREAM_VECS accumulators that start from out and end there
 * (RB_FMASTREAM_VECS x lanes values). */
enum { RB_FMASTREAM_VECS = 16 };

typedef struct {
    const char *name; /* e.g. "avx512-fma"                               */
    unsigned bits;
    unsigned needs;
    void (*f32)(const float *const *a, int streams, size_t n, unsigned fmas,
                size_t ahead, float m, float *out);
    void (*f64)(const double *const *a, int streams, size_t n, unsigned fmas,
                size_t ahead, double m, double *out);
} rb_fmastream_variant;

extern const rb_fmastream_variant rb_fmastream_variants[];
extern const size_t rb_nfmastream_variants;

/* A chain of 64 dependent integer adds per iteration: one cycle each on
 * every x86-64 core, so iters * 64 / seconds is the core clock. Returns
 * iters * 64 (the sum), so the work cannot be dropped. */
uint64_t rb_clock_chain(uint64_t iters);

#endif
