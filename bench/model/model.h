/* The analytic roofline of a tensor contraction on a profile: einsum
 * parsing, exact FLOP and byte counts, the three times (math, memory,
 * network) and the size of a dimension at which the bound changes.
 *
 * FLOPs are 2 x the product of every distinct dimension (one multiply and
 * one add per term); bytes are each operand read once and the output
 * written once at the element size. A dimension is
 *   batch       in both operands and the output,
 *   contracting in both operands, not the output (summed over),
 *   free        in one operand and the output,
 *   summed      in one operand only (summed before the product). */
#ifndef ROOFBENCH_MODEL_H
#define ROOFBENCH_MODEL_H

#include <stdint.h>

#include "error.h"

enum { EINSUM_LETTERS = 52, EINSUM_TEXT = 160 };

typedef enum { DIM_BATCH, DIM_CONTRACTING, DIM_FREE, DIM_SUMMED } dim_kind;

typedef struct {
    char in[2][EINSUM_LETTERS + 1]; /* the two operands' letters       */
    char out[EINSUM_LETTERS + 1];
    char dims[EINSUM_LETTERS + 1];  /* distinct letters, first seen first */
    int ndims;
    char text[EINSUM_TEXT];         /* "bp,pm->bm"                       */
} einsum;

/* Parses "A,B->C" (letters a-z, A-Z; blanks ignored). Errors name the
 * spec and the problem: no arrow, not two operands, an empty operand, a
 * letter repeated inside one operand or the output, an output letter no
 * operand has, a character that is not a letter. */
int einsum_parse(const char *spec, einsum *es, rb_err *e);

/* Index of a letter in size tables (a-z 0-25, A-Z 26-51), or -1. */
int einsum_index(char c);
/* The letter of an index (einsum_index's inverse). */
char einsum_letter(int index);
dim_kind einsum_kind(const einsum *es, char c);
const char *dim_kind_name(dim_kind k);

/* Sizes by letter; set[i] says whether size[i] was given. */
typedef struct {
    uint64_t size[EINSUM_LETTERS];
    int set[EINSUM_LETTERS];
} dim_sizes;

/* "b=240" (K, M, G suffixes as everywhere, x1024): one size, at least 1. */
int dim_sizes_parse(const char *token, dim_sizes *ds, rb_err *e);

/* The sentence on reuse of operand op (0 or 1): which dimensions it is
 * reused across (each element serves that many terms), or that it is not
 * reused at all. */
void einsum_reuse_text(const einsum *es, const dim_sizes *ds, int op,
                       char *buf, size_t len);

typedef struct {
    uint64_t flops;
    uint64_t elems[3]; /* operand 1, operand 2, output                   */
    uint64_t bytes;    /* element size x (elems[0] + elems[1] + elems[2]) */
} model_counts;

/* Exact counts; every dimension of the spec needs a size. Overflow of 64
 * bits is an error naming the spec. */
int model_count(const einsum *es, const dim_sizes *ds, unsigned elem_bytes,
                model_counts *c, rb_err *e);

/* A chip (or a group of chips) to evaluate on. */
typedef struct {
    double peak;        /* FLOP/s per chip of the dtype                  */
    double mem_bw;      /* B/s per chip                                  */
    unsigned elem;      /* bytes per element                             */
    int shard_dim;      /* letter index of the split dimension, -1: none */
    unsigned shard_n;   /* chips                                         */
    double link_bw;     /* B/s one way between two chips                 */
} model_target;

enum { BIND_MATH = 0, BIND_MEM = 1, BIND_COMMS = 2 };
const char *model_bind_name(int bind);

typedef struct {
    double flops, bytes;   /* per chip                                    */
    double comm_bytes;     /* per chip, sent over the link                */
    double intensity;      /* flops / bytes (per chip)                    */
    double t_math, t_mem, t_comms, t;
    int bind;
    double attainable;     /* flops / t, per chip                         */
} model_eval;

/* The three times. Sharded over N chips along a contracting dimension,
 * each chip does 1/N of the FLOPs, reads the slices of the operands that
 * hold the dimension (and all of the others), writes a full partial
 * output, and the partial sums are all-reduced over a ring: each chip
 * sends 2 (N-1)/N of the output over one link direction, so for two chips
 * T_comms = s x |output| / W. Sizes as doubles: no overflow here. */
void model_evaluate(const einsum *es, const dim_sizes *ds,
                    const model_target *t, model_eval *ev);

/* The size of dimension `dim` (letter index) from which the product is
 * compute-bound, the other sizes as given: every time is linear in one
 * size, so the crossing is exact. *mem and *comms receive the crossing
 * against each roof (0: already bound by math at any size, INFINITY: never,
 * as with bp,bpm->bm whose intensity does not grow). Returns the larger. */
double model_threshold(const einsum *es, const dim_sizes *ds,
                       const model_target *t, int dim, double *mem,
                       double *comms);

/* The usual approximation of that size (the book's "batch above the
 * ridge"): the crossing against memory counting only the bytes that do not
 * grow with `dim` (the shared weights, for a batch dimension). For
 * bp,pm->bm in 2-byte elements it is the ridge itself; INFINITY when every
 * byte grows with `dim`. */
double model_threshold_fixed_bytes(const einsum *es, const dim_sizes *ds,
                                   const model_target *t, int dim);

/* The limit of the intensity as `dim` grows (FLOP per byte), INFINITY when
 * it grows without bound. */
double model_intensity_limit(const einsum *es, const dim_sizes *ds,
                             const model_target *t, int dim);

#endif
