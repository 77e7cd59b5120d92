/* The traffic model (kernels/README.md, "Traffic model"): for each form,
 * which operand is reused across which loop, whether what it needs fits
 * in the cache (with the sets a strided walk can reach), and the lines
 * filled in each case. Counts are lines; a row of n elements is
 * ceil(n / e) lines, e = line / s. */
#include "traffic.h"

#include <math.h>
#include <string.h>

static double gcd(double a, double b)
{
    while (b > 0.5) {
        const double t = fmod(a, b);
        a = b;
        b = t;
    }
    return a;
}

double rb_traffic_capacity(const rb_cache_geom *g, double stride_bytes)
{
    const double sets = g->size / ((double)g->assoc * g->line);
    if (stride_bytes <= g->line || fmod(stride_bytes, g->line) != 0.0)
        return sets * g->assoc;
    const double step = stride_bytes / g->line;
    return sets / gcd(sets, step) * g->assoc;
}

/* Lines missed when a working set of w lines (spread evenly over the
 * sets) is used again after y other lines went through the cache: none
 * when both fit; all of it when w alone does not; in between LRU keeps all
 * but the sets that overflow, and each overflowing line costs its set
 * (ways + 1 lines cycling through ways slots all miss). */
static double repass(double w, double y, const rb_cache_geom *g)
{
    const double lines = g->size / g->line;
    if (w + y <= lines)
        return 0.0;
    if (w > lines)
        return w;
    return fmin(w, (w + y - lines) * (g->assoc + 1.0));
}

/* lines of a row of n contiguous elements */
static double row_lines(double n, double e)
{
    return ceil(n / e);
}

double rb_traffic_lines(const char *name, rb_shape s, size_t el,
                        const rb_cache_geom *g, const rb_blocking *blk)
{
    const double N = (double)s.n, P = (double)s.p, M = (double)s.m;
    const double sz = (double)el, e = (double)g->line / sz;
    const double Z = g->size, lines = Z / g->line;
    const double a_rows = N * row_lines(P, e);   /* A once             */
    const double b_rows = P * row_lines(M, e);   /* B once             */
    const double c_rows = N * row_lines(M, e);   /* C once             */

    if (strcmp(name, "matmul_naive") == 0) {
        /* ijk: row i of A reused across j; column j of B walked with
         * stride M s for every (i, j); C[i,j] written once. */
        double b;
        if ((P * M + P) * sz <= Z)
            b = b_rows;                     /* B stays: read once        */
        else if (P <= rb_traffic_capacity(g, M * sz))
            b = N * b_rows;                 /* a column panel of e
                                               columns serves e values of
                                               j: B once per row of C    */
        else
            b = N * P * M;                  /* every B access a new line */
        return a_rows + b + c_rows;
    }
    if (strcmp(name, "matmul_row") == 0) {
        /* ikj: row i of C reused across k; row k of B streamed for every
         * i; A[i,k] once. */
        const double c = 2.0 * row_lines(M, e) <= lines ? c_rows : P * c_rows;
        /* B again for every row of C, with a row of C and of A between */
        const double b =
            b_rows + (N - 1.0) * repass(b_rows, row_lines(M, e) +
                                                     row_lines(P, e), g);
        return a_rows + b + c;
    }
    if (strcmp(name, "matmul_outer") == 0) {
        /* kij: row k of B reused across i; all of C read and written for
         * every k; column k of A one element per row. */
        const int c_fits = (N * M + M) * sz <= Z;
        /* C again for every k, with a row of B and, on average, N / e new
         * lines of A's column between */
        const double c_again =
            repass(c_rows, row_lines(M, e) + ceil(N / e), g);
        const double c = c_rows + (P - 1.0) * c_again;
        const double b =
            2.0 * row_lines(M, e) <= lines ? b_rows : N * b_rows;
        /* A's column panel (N lines) survives from k to k + 1 only when
         * C does not flush it */
        const double a =
            (c_fits || c_again < c_rows) && N <= rb_traffic_capacity(g, P * sz)
                ? a_rows
                : N * P;
        return a + b + c;
    }
    if (strcmp(name, "matmul_column") == 0) {
        /* jki: column j of C (stride M s) reused across k; column k of A
         * (stride P s) walked for every (j, k); B[k,j] one element. The two
         * columns fall into different sets (their offsets within a line
         * group differ) except for a few (j, k): each must fit on its own,
         * and together in the whole cache. */
        const int a_fits = (N * P + 2.0 * N) * sz <= Z;
        if ((N <= rb_traffic_capacity(g, M * sz) &&
             N <= rb_traffic_capacity(g, P * sz) && 2.0 * N <= lines) ||
            a_fits) {
            const double c = c_rows;
            const double a = a_fits ? a_rows : M * a_rows;
            const double b = a_fits ? b_rows : P * M;
            return a + b + c;
        }
        /* the two columns do not fit together: every access to A and C
         * brings a line, B too */
        return 2.0 * N * P * M + P * M;
    }
    if (strcmp(name, "matmul_blocked") == 0 && blk && blk->skinny_max > 0 &&
        N <= (double)blk->skinny_max && blk->sw > 0 && blk->skb > 0) {
        /* the skinny path (matmul_blocked.c), in place: W read once
         * when a strip block (skb x sw) stays for the row groups after
         * the first, else once per row group; C in blocks of all N rows
         * and JC columns, each reloaded once per skb-deep block of W
         * unless it stays beside the blocks of W and A; the A block
         * (N x skb) once per C block when it stays across the strips,
         * else once per strip */
        const double groups = ceil(N / 6.0);
        /* W beyond L2: blocks of 32 rows with at most three row groups,
         * twice skb from four on (as the kernel blocks it) */
        const int far = P * M * sz > 2.0 * (double)blk->sc_bytes;
        const double skb = far && groups <= 3.0 ? fmin((double)blk->skb, 32.0)
                           : far                ? 2.0 * (double)blk->skb
                                                : (double)blk->skb;
        const double SW = (double)blk->sw, KB = fmin(skb, P);
        double JC = floor((double)blk->sc_bytes / (N * sz) / SW) * SW;
        JC = fmin(JC < SW ? SW : JC, M);
        const double jcn = ceil(M / JC), kbn = ceil(P / KB);
        const double wblock = KB * SW * sz, ablock = N * KB * sz;
        /* rows of the strip block ldb apart: the sets they map to must
         * hold them (a 2 KiB stride leaves an eighth of L1's sets) */
        const double strip_lines = ceil(SW * sz / g->line);
        const int w_stays =
            wblock + ablock <= Z &&
            KB * strip_lines <= rb_traffic_capacity(g, M * sz) * strip_lines;
        const double w = w_stays ? b_rows : groups * b_rows;
        const double a =
            (ablock + wblock <= Z ? jcn : jcn * ceil(JC / SW)) * a_rows;
        const double c = N * JC * sz + wblock + ablock <= Z ? c_rows
                                                            : kbn * c_rows;
        return w + a + c;
    }
    if (strcmp(name, "matmul_blocked") == 0 && blk && blk->kc > 0) {
        const double MR = (double)blk->mr, NR = (double)blk->nr;
        const double KC = fmin((double)blk->kc, P), MC = fmin((double)blk->mc, N),
                     NC = fmin((double)blk->nc, M);
        const double jcn = ceil(M / NC), pcn = ceil(P / KC), icn = ceil(N / MC);
        /* packing: B block read and packed copy written, once per (jc,
         * pc); A block read and packed, once per (jc, pc, ic) */
        const double pack_b = 2.0 * P * row_lines(M, e);
        const double pack_a = jcn * 2.0 * N * row_lines(P, e);
        /* the packed B block serves every ic when it fits beside the
         * packed A block; otherwise its micro-panels stream per ic, and
         * per micro-kernel call when one B and one A micro-panel do not
         * fit together */
        const int b_block_fits = (KC * NC + MC * KC) * sz <= Z;
        const int micro_fits = (KC * NR + MR * KC) * sz <= Z;
        const double bp = b_block_fits
                              ? 0.0
                              : jcn * pcn * icn * (KC * NC / e) *
                                    (micro_fits ? 1.0 : MC / MR);
        /* the packed A block serves every micro-panel of B when it fits
         * beside one; otherwise it streams once per jr */
        const int a_block_fits = (MC * KC + KC * NR) * sz <= Z;
        const double ap =
            a_block_fits ? 0.0 : jcn * pcn * icn * ceil(NC / NR) * (MC * KC / e);
        /* C: each tile once per KC-deep block, unless C stays */
        const double c = N * M * sz <= Z ? c_rows : pcn * c_rows;
        return pack_b + pack_a + bp + ap + c;
    }
    return -1.0;
}
