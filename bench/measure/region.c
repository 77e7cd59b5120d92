#include "region.h"

#include "host.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* While parking is on (reserve > 0): the kept mapping. */
static size_t reserve;
static void *parked;
static size_t parked_len;

/* Unmaps the kept mapping, if any. */
static void drop_parked(void)
{
    if (parked)
        munmap(parked, parked_len);
    parked = NULL;
    parked_len = 0;
}

void rb_region_park(size_t bytes)
{
    reserve = bytes;
    if (!bytes)
        drop_parked();
}

/* Transparent huge pages where the system offers them (Linux's "madvise"
 * mode, Debian's default): a kernel that walks a matrix by rows a leading
 * dimension apart touches a new 4 KiB page on every row, and its TLB
 * misses would be measured as memory time. Every buffer the suite times,
 * kernels' operands and workspaces and ceilings' streams alike, is mapped
 * the same way, so the roofs and the rows stay comparable. Advice only: a
 * refusal leaves ordinary pages. */
static void advise(void *m, size_t len)
{
    if (host_hugepages_wanted())
        (void)madvise(m, len, MADV_HUGEPAGE);
}

/* Anonymous memory of len bytes that reserves no swap, or MAP_FAILED. */
static void *map_anon(size_t len)
{
    return mmap(NULL, len, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/* The buffers at their offsets from the first 1 MiB boundary of r->map. */
static int lay_out(rb_region *r, int n)
{
    r->n = n;
    const uintptr_t base = ((uintptr_t)r->map + RB_REGION_BLOCK - 1) /
                           RB_REGION_BLOCK * (uintptr_t)RB_REGION_BLOCK;
    for (int k = 0; k < n; k++)
        r->buf[k] = (void *)(base + r->offset[k]);
    return RB_OK;
}

int rb_region_map(rb_region *r, int n, const size_t *bytes, size_t unit,
                  size_t shift, const char *what, rb_err *e)
{
    memset(r, 0, sizeof(*r));
    if (n < 1 || n > RB_REGION_MAX || unit < 4096 || (unit & (unit - 1)) ||
        shift % 64)
        return rb_fail(e, RB_EINPUT, "%s: bad buffer layout (%d buffers, "
                       "unit %zu, shift %zu)", what, n, unit, shift);
    size_t off = 0, end = 0;
    for (int k = 0; k < n; k++) {
        if (bytes[k] == 0 || bytes[k] > SIZE_MAX / 4 - unit ||
            off > SIZE_MAX / 4)
            return rb_fail(e, RB_EINPUT, "%s: buffer %d of %zu bytes cannot "
                           "be laid out", what, k, bytes[k]);
        r->offset[k] = off;
        end = off + bytes[k];
        off += (bytes[k] + unit - 1) / unit * unit + shift;
    }
    r->len = end + RB_REGION_BLOCK;
    if (parked && parked_len >= r->len) {
        /* the kept mapping, advised as it was made */
        r->map = parked;
        r->len = parked_len;
        parked = NULL;
        parked_len = 0;
        return lay_out(r, n);
    }
    drop_parked(); /* too small: freed before the larger one is made */
    const size_t need = r->len;
    void *m = MAP_FAILED;
    if (reserve > need) {
        /* untouched pages cost nothing, unless the system counts them
         * (overcommit off, an address-space limit): then just the need */
        r->len = reserve;
        m = map_anon(r->len);
    }
    if (m == MAP_FAILED) {
        r->len = need;
        m = map_anon(r->len);
    }
    if (m == MAP_FAILED) {
        r->len = 0;
        return rb_fail(e, RB_EINPUT, "out of memory for %s (%zu bytes)",
                       what, end);
    }
    advise(m, r->len);
    r->map = m;
    return lay_out(r, n);
}

void rb_region_unmap(rb_region *r)
{
    if (r->map && reserve) {
        /* keep the larger of this one and the one kept */
        if (parked && parked_len >= r->len) {
            munmap(r->map, r->len);
        } else {
            drop_parked();
            parked = r->map;
            parked_len = r->len;
        }
    } else if (r->map) {
        munmap(r->map, r->len);
    }
    memset(r, 0, sizeof(*r));
}

enum { HUGE_PAGE = 2 << 20 };

/* A buffer's length: whole huge pages */
static size_t buffer_len(size_t bytes)
{
    return ((bytes ? bytes : 1) + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

/* Mapped a huge page longer than the buffer, which then starts on the
 * first huge page boundary in it; what lies before and after the buffer
 * goes back, so that the buffer alone is the mapping. */
void *rb_region_buffer(size_t bytes)
{
    const size_t len = buffer_len(bytes);
    char *const m = map_anon(len + HUGE_PAGE);
    if (m == MAP_FAILED)
        return NULL;
    char *const buf =
        (char *)(((uintptr_t)m + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
    if (buf > m)
        munmap(m, (size_t)(buf - m));
    /* never empty: the buffer starts less than a huge page in */
    munmap(buf + len, (size_t)(m + HUGE_PAGE - buf));
    advise(buf, len);
    return buf;
}

void rb_region_buffer_free(void *buf, size_t bytes)
{
    if (buf)
        munmap(buf, buffer_len(bytes));
}
