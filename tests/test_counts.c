/* Analytic counts against values worked out by hand. */
#include "kernel.h"
#include "ref.h"
#include "check.h"

int main(void)
{
    rb_counts c;

    /* dot, P = 1000, f64: 2*1000 FLOPs; (1000 + 1000 + 1) * 8 bytes. */
    CHECK(rb_counts_of(RB_OP_DOT, (rb_shape){1, 1000, 1}, 8, &c) == 0);
    CHECK_U64(c.flops, 2000);
    CHECK_U64(c.bytes, 16008);
    CHECK_U64(c.reduction, 1000);
    CHECK_U64(c.outputs, 1);

    /* matvec [3,5] x [5], f32: 30 FLOPs; (15 + 5 + 3) * 4 = 92 bytes. */
    CHECK(rb_counts_of(RB_OP_MATVEC, (rb_shape){3, 5, 1}, 4, &c) == 0);
    CHECK_U64(c.flops, 30);
    CHECK_U64(c.bytes, 92);
    CHECK_U64(c.outputs, 3);

    /* matmul [2,3] x [3,4], f64: 2*2*3*4 = 48 FLOPs;
     * (6 + 12 + 8) * 8 = 208 bytes. */
    CHECK(rb_counts_of(RB_OP_MATMUL, (rb_shape){2, 3, 4}, 8, &c) == 0);
    CHECK_U64(c.flops, 48);
    CHECK_U64(c.bytes, 208);
    CHECK_U64(c.outputs, 8);

    /* Square 512 matmul, f64: 2*512^3 = 268435456 FLOPs;
     * 3 * 512^2 * 8 = 6291456 bytes; intensity 512/12 = 42.67. */
    CHECK(rb_counts_of(RB_OP_MATMUL, (rb_shape){512, 512, 512}, 8, &c) == 0);
    CHECK_U64(c.flops, 268435456ull);
    CHECK_U64(c.bytes, 6291456ull);

    /* batched bp,bpm->bm with b=2, p=3, m=4, f32: 48 FLOPs like matmul, but
     * every row brings its own 3x4 matrix: (6 + 24 + 8) * 4 = 152 bytes. */
    CHECK(rb_counts_of(RB_OP_BATCHED, (rb_shape){2, 3, 4}, 4, &c) == 0);
    CHECK_U64(c.flops, 48);
    CHECK_U64(c.bytes, 152);

    /* Batch is the lever: matmul intensity grows with N, batched does not. */
    rb_counts m1, m64, b1, b64;
    rb_counts_of(RB_OP_MATMUL, (rb_shape){1, 1024, 1024}, 2, &m1);
    rb_counts_of(RB_OP_MATMUL, (rb_shape){64, 1024, 1024}, 2, &m64);
    rb_counts_of(RB_OP_BATCHED, (rb_shape){1, 1024, 1024}, 2, &b1);
    rb_counts_of(RB_OP_BATCHED, (rb_shape){64, 1024, 1024}, 2, &b64);
    const double im1 = (double)m1.flops / (double)m1.bytes;
    const double im64 = (double)m64.flops / (double)m64.bytes;
    const double ib1 = (double)b1.flops / (double)b1.bytes;
    const double ib64 = (double)b64.flops / (double)b64.bytes;
    CHECK(im64 > 50.0 * im1);
    CHECK(ib64 < 1.01 * ib1 && ib64 > 0.99 * ib1);

    /* All five matmul forms (and OpenBLAS) report identical counts. */
    const rb_shape sh = {37, 101, 53};
    rb_counts first = {0};
    int nmatmul = 0;
    for (size_t i = 0; i < rb_nkernels; i++) {
        if (rb_kernels[i].op != RB_OP_MATMUL)
            continue;
        rb_counts k;
        CHECK(rb_kernels[i].counts(sh, 8, &k) == 0);
        CHECK(rb_kernels[i].counts == rb_counts_matmul);
        CHECK(rb_kernels[i].reference == ref_matmul);
        if (nmatmul++ == 0)
            first = k;
        CHECK_U64(k.flops, first.flops);
        CHECK_U64(k.bytes, first.bytes);
    }
    CHECK_U64(first.flops, 2ull * 37 * 101 * 53);
    CHECK_INT(nmatmul, 6); /* naive, column, row, outer, blocked, openblas */

    /* Counts that do not fit in 64 bits are refused, not wrapped. */
    const size_t big = (size_t)1 << 22;
    CHECK(rb_counts_of(RB_OP_MATMUL, (rb_shape){big, big, big}, 8, &c) == -1);
    CHECK(rb_counts_of(RB_OP_DOT, (rb_shape){1, SIZE_MAX, 1}, 8, &c) == -1);
    CHECK(rb_counts_of(RB_OP_BATCHED, (rb_shape){big, big, 1 << 21}, 4, &c) ==
          -1);
    /* ...while the largest 64-bit-safe square matmul still counts. */
    CHECK(rb_counts_of(RB_OP_MATMUL, (rb_shape){1 << 20, 1 << 20, 1 << 20}, 8,
                       &c) == 0);
    CHECK_U64(c.flops, 1ull << 61);

    /* Every kernel of an operation shares its counts and reference, and
     * no kernel reads its output (outputs are overwritten). */
    for (size_t i = 0; i < rb_nkernels; i++)
        for (size_t j = 0; j < rb_nkernels; j++)
            if (rb_kernels[i].op == rb_kernels[j].op) {
                CHECK(rb_kernels[i].counts == rb_kernels[j].counts);
                CHECK(rb_kernels[i].reference == rb_kernels[j].reference);
            }
    for (size_t i = 0; i < rb_nkernels; i++)
        CHECK_INT(rb_kernels[i].output_read, 0);

    return check_status("test_counts");
}
