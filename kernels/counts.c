/* Analytic FLOP and compulsory-byte counts as exact integers.
 *
 * With element size s:
 *   dot      2P FLOPs,   s(2P + 1) bytes        (a, b read; c written)
 *   matvec   2NP FLOPs,  s(NP + P + N) bytes    (A, x read; y written)
 *   matmul   2NPM FLOPs, s(NP + PM + NM) bytes  (A, B read; C written)
 *   batched  2NPM FLOPs, s(NP + NPM + NM) bytes (bp,bpm->bm: every row
 *            brings its own [P,M] matrix, so nothing is reused)
 * Outputs are overwritten, never read, so no output read is counted. */
#include "kernel.h"

static int mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_mul_overflow(a, b, r) ? -1 : 0;
}

static int add_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_add_overflow(a, b, r) ? -1 : 0;
}

int rb_operand_elems(rb_op op, rb_shape s, uint64_t elems[3])
{
    uint64_t t;
    switch (op) {
    case RB_OP_DOT:
        elems[0] = s.p;
        elems[1] = s.p;
        elems[2] = 1;
        return 0;
    case RB_OP_MATVEC:
        elems[1] = s.p;
        elems[2] = s.n;
        return mul_ok(s.n, s.p, &elems[0]);
    case RB_OP_MATMUL:
        if (mul_ok(s.n, s.p, &elems[0]) || mul_ok(s.p, s.m, &elems[1]))
            return -1;
        return mul_ok(s.n, s.m, &elems[2]);
    case RB_OP_BATCHED:
        if (mul_ok(s.n, s.p, &elems[0]) || mul_ok(s.n, s.p, &t) ||
            mul_ok(t, s.m, &elems[1]))
            return -1;
        return mul_ok(s.n, s.m, &elems[2]);
    case RB_NOPS:
        break;
    }
    return -1;
}

/* Bytes: every operand element once, at elsize bytes each. */
static int compulsory(rb_op op, rb_shape s, size_t elsize, rb_counts *out)
{
    uint64_t e[3], sum;
    if (rb_operand_elems(op, s, e) || add_ok(e[0], e[1], &sum) ||
        add_ok(sum, e[2], &sum) || mul_ok(sum, elsize, &out->bytes))
        return -1;
    out->reduction = s.p;
    out->outputs = e[2];
    return 0;
}

int rb_counts_dot(rb_shape s, size_t elsize, rb_counts *out)
{
    if (compulsory(RB_OP_DOT, s, elsize, out))
        return -1;
    return mul_ok(s.p, 2, &out->flops);
}

int rb_counts_matvec(rb_shape s, size_t elsize, rb_counts *out)
{
    uint64_t f;
    if (compulsory(RB_OP_MATVEC, s, elsize, out) || mul_ok(s.n, s.p, &f))
        return -1;
    return mul_ok(f, 2, &out->flops);
}

int rb_counts_matmul(rb_shape s, size_t elsize, rb_counts *out)
{
    uint64_t f;
    if (compulsory(RB_OP_MATMUL, s, elsize, out) || mul_ok(s.n, s.p, &f) ||
        mul_ok(f, s.m, &f))
        return -1;
    return mul_ok(f, 2, &out->flops);
}

int rb_counts_batched(rb_shape s, size_t elsize, rb_counts *out)
{
    uint64_t f;
    if (compulsory(RB_OP_BATCHED, s, elsize, out) || mul_ok(s.n, s.p, &f) ||
        mul_ok(f, s.m, &f))
        return -1;
    return mul_ok(f, 2, &out->flops);
}

int rb_counts_of(rb_op op, rb_shape s, size_t elsize, rb_counts *out)
{
    static const rb_counts_fn fns[RB_NOPS] = {
        rb_counts_dot, rb_counts_matvec, rb_counts_matmul, rb_counts_batched};
    return op < RB_NOPS ? fns[op](s, elsize, out) : -1;
}

const char *rb_flops_formula(rb_op op)
{
    static const char *const f[RB_NOPS] = {"2*P", "2*N*P", "2*N*P*M",
                                           "2*N*P*M"};
    return op < RB_NOPS ? f[op] : "?";
}

const char *rb_bytes_formula(rb_op op)
{
    static const char *const f[RB_NOPS] = {
        "s*(2*P + 1)", "s*(N*P + P + N)", "s*(N*P + P*M + N*M)",
        "s*(N*P + N*P*M + N*M)"};
    return op < RB_NOPS ? f[op] : "?";
}

const char *rb_op_dims(rb_op op)
{
    static const char *const f[RB_NOPS] = {"P", "N,P", "N,P,M", "N,P,M"};
    return op < RB_NOPS ? f[op] : "?";
}
