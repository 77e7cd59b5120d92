/* Buffers laid out in one mapping so that the parts of them that live in
 * the L1 at the same time never compete for one L1 way-predictor tag.
 *
 * AMD Zen cores pick the L1 way from a "utag", a hash of linear-address
 * bits 12-27 in which each of the eight bits XORs one bit of 12-19 with
 * one of 20-27 (12^27, 13^26, 14^25, 15^20, 16^21, 17^22, 18^23, 19^24;
 * Lipp et al., "Take A Way", AsiaCCS 2020). Two lines of one set with equal
 * utags cannot both stay in L1. So where the allocator happens to put the
 * buffers can cost a third of the L1 rate: here a 10 KiB buffer straddling
 * a 64 MiB boundary (pages 0x3ffe and 0x4000 hash alike) read at 146 GB/s
 * on one core against 210 anywhere else.
 *
 * Lines that agree in bits 20-27 and differ in bits 12-19 never share a
 * utag. The mapping starts on a 1 MiB boundary (bits 12-19 zero), and
 * buffer k starts at offset[k] = offset[k-1] + (bytes[k-1] rounded up to
 * unit) + shift:
 *   - buffers that together fit in 1 MiB (unit 4 KiB) lie in one aligned
 *     1 MiB block, so any two of their lines in one set have distinct
 *     utags;
 *   - long buffers of which only a prefix is L1-resident (the bandwidth
 *     sweep) use a unit of 2^28 and a shift of a few pages: every buffer
 *     then starts with the same bits 20-27, a few pages after the last, so
 *     the prefixes up to the shift in length have distinct utags. */
#ifndef ROOFBENCH_REGION_H
#define ROOFBENCH_REGION_H

#include <stddef.h>

#include "error.h"

enum { RB_REGION_MAX = 4 };

#define RB_REGION_BLOCK ((size_t)1 << 20) /* alignment of the mapping */
#define RB_REGION_SPAN ((size_t)1 << 28)  /* unit for long buffers   */

typedef struct {
    void *map;
    size_t len;
    int n;
    void *buf[RB_REGION_MAX];
    size_t offset[RB_REGION_MAX]; /* from the aligned start */
} rb_region;

/* Maps n buffers of bytes[k] (at least 1 each) with that layout; unit is a
 * power of two of at least 4096, shift a multiple of 64. The mapping does
 * not reserve swap: pages count when first touched. what names the
 * buffers in the out-of-memory message. */
int rb_region_map(rb_region *r, int n, const size_t *bytes, size_t unit,
                  size_t shift, const char *what, rb_err *e);

/* Unmaps; safe on a zeroed or already unmapped region. While parking is
 * on, the mapping is kept instead (rb_region_park). */
void rb_region_unmap(rb_region *r);

/* Parking, for a caller that maps and unmaps buffers of similar sizes again
 * and again (the sweep: a reference's inputs, then the operands, at every
 * point). While it is on, an unmapped region's mapping is kept (the larger
 * where two meet) and the next rb_region_map that fits in it takes it
 * instead of a fresh one, whose pages are then already there; a fresh
 * mapping made while it is on spans at least `bytes`, the caller's
 * largest need, so that one serves them all (its untouched pages cost
 * nothing; where the system will not map that much, just the need). A
 * fresh mapping's first touch can cost more than the point's
 * timed work: under a hypervisor that takes freed memory back
 * (virtio-balloon free page reporting), a page the process touches again
 * faults in the host too; on such a guest 330 MB took 0.7 to 1.3 s to
 * touch a few seconds after the last was freed, against 0.07 s at once. A
 * reused mapping holds the last buffers' values (every caller writes all
 * of its buffers first). 0 turns it off and unmaps what is kept. One
 * thread maps at a time. */
void rb_region_park(size_t bytes);

/* One buffer of bytes on a huge page boundary, advised as rb_region_map's
 * are, outside the parking (a team kernel's workspace: a page can only be
 * huge where a whole aligned one lies in the mapping, and the packed path
 * streams its micro-panels across what would be a 4 KiB page every 64
 * lines); NULL when out of memory. Freed by rb_region_buffer_free with
 * the same bytes. */
void *rb_region_buffer(size_t bytes);
void rb_region_buffer_free(void *buf, size_t bytes);

#endif
