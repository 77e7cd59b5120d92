/* The analytic traffic model of the matmul forms: lines a cache of a given
 * geometry must fill from the level below while C[N,M] = A[N,P] B[P,M]
 * runs in each loop order, row-major operands, element size s. A fill is a
 * miss: a line brought in for a read, or for a write (write-allocate);
 * write-backs are not counted, as cachegrind does not count them. The
 * derivation is in kernels/README.md ("Traffic model"). */
#ifndef ROOFBENCH_TRAFFIC_H
#define ROOFBENCH_TRAFFIC_H

#include <stddef.h>

#include "kernel.h"

typedef struct {
    double size;     /* bytes                                           */
    unsigned assoc;  /* ways                                            */
    unsigned line;   /* bytes                                           */
} rb_cache_geom;

/* Sets of the cache that `rows` rows of `run` contiguous lines each,
 * stride_bytes apart, fall into (a column of a row-major matrix: run 1,
 * the row's bytes apart). A walk down a column whose row is a multiple
 * of a power of two in lines touches few sets, so the cache holds far
 * fewer of its lines than its size says; a stride of a multiple of sets
 * x line bytes puts every row in one set. */
double rb_traffic_sets(const rb_cache_geom *g, double rows, double run,
                       double stride_bytes);

/* Lines of that walk that miss when it is walked again right after
 * itself, under LRU: none while every set holds at most its ways of it;
 * a set holding more loses all of its lines (ways + 1 lines cycling
 * through ways slots all miss). A contiguous walk one line larger than
 * the cache loses one set's ways + 1 lines, not all of them (all of them
 * only when the cache has one set). */
double rb_traffic_again(const rb_cache_geom *g, double rows, double run,
                        double stride_bytes);

/* Lines filled for one call of kernel k on shape s with element size el,
 * by the model its registry row names (k->traffic); blk gives the blocked
 * kernel's tile and blocks (ignored otherwise). Returns a negative number
 * for a kernel without a model (a library's internal blocking is not
 * known), or a blocked kernel without its blocks. */
double rb_traffic_lines(const rb_kernel *k, rb_shape s, size_t el,
                        const rb_cache_geom *g, const rb_blocking *blk);

#endif
