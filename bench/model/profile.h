/* Hardware profiles: one INI file per chip under profiles/, read with
 * libinih. Every number carries a source (KEY.source) and may be marked
 * inferred (KEY.inferred = yes); the schema is in profiles/README.md.
 * The measured host becomes a profile too (roofline_to_profile in
 * roofline.h). */
#ifndef ROOFBENCH_PROFILE_H
#define ROOFBENCH_PROFILE_H

#include <stddef.h>

#include "error.h"
#include "kernel.h"

/* Element types of the analytic model, in the order profiles list them. */
typedef enum {
    PD_BF16 = 0,
    PD_FP16,
    PD_TF32,
    PD_FP32,
    PD_FP64,
    PD_FP8,
    PD_INT8,
    PD_N
} pdtype;

const char *pdtype_name(pdtype d);
/* Bytes per element: 2, 2, 4, 4, 8, 1, 1 (tf32 is stored as fp32). */
unsigned pdtype_size(pdtype d);
/* Canonical names and short ones: bf16, fp16|f16, tf32, fp32|f32,
 * fp64|f64, fp8|f8, int8|i8 (f32 and f64 are the kernels' names, through
 * pdtype_of). Returns 0 or -1. */
int pdtype_parse(const char *s, pdtype *out);

/* The one map between the kernels' element types (rb_dtype: f32, f64)
 * and the model's: every conversion goes through these two. */
pdtype pdtype_of(rb_dtype dt);
/* Returns 0 and sets *dt, or -1 when the kernels have no such type. */
int pdtype_to_kernel(pdtype d, rb_dtype *dt);

enum { PROFILE_MAX_LINKS = 8, PROFILE_TEXT = 128 };

typedef struct {
    char name[16];        /* ici, nvlink, infinity, pcie, dcn           */
    double bandwidth;     /* B/s per link, one way                      */
    double links;         /* links per chip                             */
    double peer_links;    /* links one chip-to-chip transfer can use     */
    char topology[PROFILE_TEXT];
} profile_link;

typedef struct {
    char id[64];          /* file name without .ini: tpu-v5e            */
    char file[512];       /* where it was read from ("" for the host)   */
    char name[PROFILE_TEXT];
    char vendor[64];
    char kind[16];        /* tpu, gpu, apple, cpu, host                 */
    pdtype headline;      /* the dtype its ridge and network ridge use   */
    double peak[PD_N];    /* FLOP/s (OP/s for int8, fp8); 0 = unknown    */
    int inferred[PD_N];   /* 1 where the peak was derived, not published */
    double mem_bw;        /* B/s                                         */
    double mem_capacity;  /* bytes, 0 = unknown                          */
    double onchip_bytes;  /* 0 = unknown                                 */
    profile_link link[PROFILE_MAX_LINKS];
    int nlinks;
} profile;

/* Parses one profile from text; what names it in errors ("file.ini"), and
 * every error reads "<what>:<line>: <problem>". */
int profile_parse_string(const char *text, const char *what, profile *p,
                         rb_err *e);

/* Reads dir/<id>.ini. */
int profile_load(const char *dir, const char *id, profile *p, rb_err *e);

/* Every *.ini in dir, sorted by id; *out is malloc'ed. The first bad file
 * stops the listing with its error. */
int profile_load_all(const char *dir, profile **out, size_t *n, rb_err *e);

/* The folder profiles are read from: --profiles DIR when given (NULL:
 * not given), else $ROOFBENCH_PROFILES when set and not empty, else the
 * source tree's profiles/ recorded at build time. */
const char *profile_dir(const char *flag_value);

/* A link by name, or NULL. */
const profile_link *profile_find_link(const profile *p, const char *name);

/* peak / memory bandwidth in FLOP per byte; 0 when the dtype is unknown. */
double profile_ridge(const profile *p, pdtype d);

#endif
