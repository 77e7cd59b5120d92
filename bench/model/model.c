#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

int einsum_index(char c)
{
    if (c >= 'a' && c <= 'z')
        return c - 'a';
    if (c >= 'A' && c <= 'Z')
        return 26 + (c - 'A');
    return -1;
}

char einsum_letter(int index)
{
    return (char)(index < 26 ? 'a' + index : 'A' + index - 26);
}

static const char *ordinal[] = {"first", "second"};

/* The spec without its blanks, into s (EINSUM_TEXT bytes). */
static int compact(const char *spec, char *s, rb_err *e)
{
    size_t n = 0;
    for (const char *c = spec; *c; c++) {
        if (*c == ' ' || *c == '\t')
            continue;
        if (n + 1 >= EINSUM_TEXT)
            return rb_fail(e, RB_EINPUT, "einsum '%.40s...': too long", spec);
        s[n++] = *c;
    }
    s[n] = '\0';
    return RB_OK;
}

/* The two operands, s up to the arrow: letters, none repeated within an
 * operand, neither empty. */
static int parse_operands(const char *spec, const char *s, const char *arrow,
                          einsum *es, rb_err *e)
{
    int nops = 0;
    size_t len = 0;
    char *cur = es->in[0];
    for (const char *c = s; c < arrow; c++) {
        if (*c == ',') {
            if (len == 0)
                return rb_fail(e, RB_EINPUT,
                               "einsum '%s': the %s operand is empty", spec,
                               ordinal[nops]);
            if (++nops == 2)
                return rb_fail(e, RB_EINPUT,
                               "einsum '%s': more than two operands (the "
                               "model takes one contraction of two)",
                               spec);
            cur = es->in[nops];
            len = 0;
            continue;
        }
        if (einsum_index(*c) < 0)
            return rb_fail(e, RB_EINPUT,
                           "einsum '%s': '%c' is not a dimension letter "
                           "(a-z, A-Z)",
                           spec, *c);
        if (memchr(cur, *c, len))
            return rb_fail(e, RB_EINPUT,
                           "einsum '%s': '%c' repeats inside the %s operand "
                           "(a diagonal has no meaning in a contraction)",
                           spec, *c, ordinal[nops]);
        cur[len++] = *c;
    }
    if (len == 0)
        return rb_fail(e, RB_EINPUT, "einsum '%s': the %s operand is empty",
                       spec, ordinal[nops]);
    if (nops != 1)
        return rb_fail(e, RB_EINPUT,
                       "einsum '%s': one operand; the model takes a "
                       "contraction of two (A,B->C)",
                       spec);
    return RB_OK;
}

/* The output, after the arrow: letters of the operands, none repeated. */
static int parse_output(const char *spec, const char *out, einsum *es,
                        rb_err *e)
{
    size_t len = 0;
    for (const char *c = out; *c; c++) {
        if (einsum_index(*c) < 0)
            return rb_fail(e, RB_EINPUT,
                           "einsum '%s': '%c' in the output is not a "
                           "dimension letter (a-z, A-Z)",
                           spec, *c);
        if (!strchr(es->in[0], *c) && !strchr(es->in[1], *c))
            return rb_fail(e, RB_EINPUT,
                           "einsum '%s': output letter '%c' is in neither "
                           "operand",
                           spec, *c);
        if (memchr(es->out, *c, len))
            return rb_fail(e, RB_EINPUT,
                           "einsum '%s': '%c' repeats in the output", spec,
                           *c);
        es->out[len++] = *c;
    }
    return RB_OK;
}

int einsum_parse(const char *spec, einsum *es, rb_err *e)
{
    memset(es, 0, sizeof(*es));
    if (spec == NULL || *spec == '\0')
        return rb_fail(e, RB_EINPUT,
                       "einsum: empty spec (write A,B->C, e.g. 'bp,pm->bm')");
    char s[EINSUM_TEXT];
    if (compact(spec, s, e))
        return RB_EINPUT;
    const char *arrow = strstr(s, "->");
    if (!arrow)
        return rb_fail(e, RB_EINPUT,
                       "einsum '%s': no '->' (write A,B->C, e.g. "
                       "'bp,pm->bm')",
                       spec);
    if (strstr(arrow + 2, "->"))
        return rb_fail(e, RB_EINPUT, "einsum '%s': more than one '->'", spec);
    if (parse_operands(spec, s, arrow, es, e) ||
        parse_output(spec, arrow + 2, es, e))
        return RB_EINPUT;
    for (int o = 0; o < 2; o++)
        for (const char *c = es->in[o]; *c; c++)
            if (!strchr(es->dims, *c))
                es->dims[es->ndims++] = *c;
    snprintf(es->text, sizeof(es->text), "%s,%s->%s", es->in[0], es->in[1],
             es->out);
    return RB_OK;
}

dim_kind einsum_kind(const einsum *es, char c)
{
    const int a = strchr(es->in[0], c) != NULL;
    const int b = strchr(es->in[1], c) != NULL;
    const int o = strchr(es->out, c) != NULL;
    if (a && b)
        return o ? DIM_BATCH : DIM_CONTRACTING;
    return o ? DIM_FREE : DIM_SUMMED;
}

const char *dim_kind_name(dim_kind k)
{
    static const char *names[] = {"batch", "contracting", "free", "summed"};
    return names[k];
}

int dim_sizes_parse(const char *token, dim_sizes *ds, rb_err *e)
{
    const char *eq = strchr(token, '=');
    if (!eq || eq == token)
        return rb_fail(e, RB_EINPUT,
                       "'%s': not a size (write LETTER=SIZE, e.g. b=240)",
                       token);
    if (eq - token != 1 || einsum_index(token[0]) < 0)
        return rb_fail(e, RB_EINPUT,
                       "'%s': a dimension is one letter (a-z, A-Z)", token);
    const int i = einsum_index(token[0]);
    if (ds->set[i])
        return rb_fail(e, RB_EINPUT, "'%s': size of %c given twice", token,
                       token[0]);
    char flag[8];
    snprintf(flag, sizeof(flag), "%c", token[0]);
    uint64_t v;
    int rc = parse_count(flag, eq + 1, 1, UINT64_MAX, &v, e);
    if (rc)
        return rc;
    ds->size[i] = v;
    ds->set[i] = 1;
    return RB_OK;
}

void einsum_reuse_text(const einsum *es, const dim_sizes *ds, int op,
                       char *buf, size_t len)
{
    const char *me = es->in[op];
    size_t n = (size_t)snprintf(buf, len, "'%s' ", me);
    int any = 0;
    for (int i = 0; i < es->ndims && n < len; i++) {
        const char c = es->dims[i];
        if (strchr(me, c))
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%c (%llu times)",
                              any ? ", " : "is reused across ", c,
                              (unsigned long long)ds->size[einsum_index(c)]);
        any = 1;
    }
    if (!any && n < len)
        snprintf(buf + n, len - n,
                 "is not reused: each element serves one term, so its bytes "
                 "grow with every dimension");
}

static int mul(uint64_t *acc, uint64_t x)
{
    return __builtin_mul_overflow(*acc, x, acc);
}

int model_count(const einsum *es, const dim_sizes *ds, unsigned elem_bytes,
                model_counts *c, rb_err *e)
{
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < es->ndims; i++)
        if (!ds->set[einsum_index(es->dims[i])])
            return rb_fail(e, RB_EINPUT,
                           "einsum '%s': dimension %c has no size (add "
                           "%c=SIZE)",
                           es->text, es->dims[i], es->dims[i]);
    int over = 0;
    c->flops = 2;
    for (int i = 0; i < es->ndims; i++)
        over |= mul(&c->flops, ds->size[einsum_index(es->dims[i])]);
    const char *ops[3] = {es->in[0], es->in[1], es->out};
    uint64_t total = 0;
    for (int o = 0; o < 3; o++) {
        c->elems[o] = 1;
        for (const char *l = ops[o]; *l; l++)
            over |= mul(&c->elems[o], ds->size[einsum_index(*l)]);
        over |= __builtin_add_overflow(total, c->elems[o], &total);
    }
    c->bytes = total;
    over |= mul(&c->bytes, elem_bytes);
    if (over)
        return rb_fail(e, RB_EINPUT,
                       "einsum '%s': the sizes overflow 64 bits (FLOPs or "
                       "bytes above 1.8e19)",
                       es->text);
    return RB_OK;
}

const char *model_bind_name(int bind)
{
    static const char *names[] = {"math", "memory", "network"};
    return names[bind];
}

/* The evaluation with real-valued sizes, so that a threshold can be found
 * by evaluating at two sizes. */
static void evaluate(const einsum *es, const double *size,
                     const model_target *t, model_eval *ev)
{
    memset(ev, 0, sizeof(*ev));
    double sz[EINSUM_LETTERS];
    memcpy(sz, size, sizeof(sz));
    const int sharded = t->shard_dim >= 0 && t->shard_n > 1;
    if (sharded)
        sz[t->shard_dim] /= (double)t->shard_n;
    ev->flops = 2.0;
    for (int i = 0; i < es->ndims; i++)
        ev->flops *= sz[einsum_index(es->dims[i])];
    const char *ops[3] = {es->in[0], es->in[1], es->out};
    double elems = 0.0, out = 1.0;
    for (int o = 0; o < 3; o++) {
        double x = 1.0;
        for (const char *l = ops[o]; *l; l++)
            x *= sz[einsum_index(*l)];
        elems += x;
        if (o == 2)
            out = x;
    }
    ev->bytes = elems * t->elem;
    ev->intensity = ev->bytes > 0.0 ? ev->flops / ev->bytes : 0.0;
    ev->t_math = ev->flops / t->peak;
    ev->t_mem = ev->bytes / t->mem_bw;
    if (sharded) {
        const double n = (double)t->shard_n;
        ev->comm_bytes = 2.0 * (n - 1.0) / n * out * t->elem;
        ev->t_comms = ev->comm_bytes / t->link_bw;
    }
    ev->t = ev->t_math;
    ev->bind = BIND_MATH;
    if (ev->t_mem > ev->t) {
        ev->t = ev->t_mem;
        ev->bind = BIND_MEM;
    }
    if (ev->t_comms > ev->t) {
        ev->t = ev->t_comms;
        ev->bind = BIND_COMMS;
    }
    ev->attainable = ev->t > 0.0 ? ev->flops / ev->t : 0.0;
}

static void sizes_of(const dim_sizes *ds, double *size)
{
    for (int i = 0; i < EINSUM_LETTERS; i++)
        size[i] = ds->set[i] ? (double)ds->size[i] : 1.0;
}

void model_evaluate(const einsum *es, const dim_sizes *ds,
                    const model_target *t, model_eval *ev)
{
    double size[EINSUM_LETTERS];
    sizes_of(ds, size);
    evaluate(es, size, t, ev);
}

/* smallest x >= 0 with slope_m x >= c0 + c1 x */
static double crossing(double slope_m, double c0, double c1)
{
    const double rel = 1e-12 * fmax(fabs(slope_m), fabs(c1));
    if (c0 <= 0.0 && slope_m >= c1)
        return 0.0;
    if (slope_m - c1 <= rel)
        return INFINITY;
    return fmax(0.0, c0 / (slope_m - c1));
}

/* Every figure is linear in one size x (f(x) = f0 + f1 x): the model at
 * x = 1 and x = 2 gives f1 = f(2) - f(1) and f0 = 2 f(1) - f(2). */
static void at_one_and_two(const einsum *es, const dim_sizes *ds,
                           const model_target *t, int dim, model_eval *one,
                           model_eval *two)
{
    double size[EINSUM_LETTERS];
    sizes_of(ds, size);
    size[dim] = 1.0;
    evaluate(es, size, t, one);
    size[dim] = 2.0;
    evaluate(es, size, t, two);
}

double model_threshold(const einsum *es, const dim_sizes *ds,
                       const model_target *t, int dim, double *mem,
                       double *comms)
{
    model_eval a, b;
    at_one_and_two(es, ds, t, dim, &a, &b);
    /* T_math has no constant part (every dimension is in the FLOPs) */
    const double m1 = b.t_math - a.t_math;
    const double mem1 = b.t_mem - a.t_mem, mem0 = 2.0 * a.t_mem - b.t_mem;
    const double c1 = b.t_comms - a.t_comms, c0 = 2.0 * a.t_comms - b.t_comms;
    const double xm = crossing(m1, mem0, mem1);
    const double xc =
        (t->shard_dim >= 0 && t->shard_n > 1) ? crossing(m1, c0, c1) : 0.0;
    if (mem)
        *mem = xm;
    if (comms)
        *comms = xc;
    return fmax(xm, xc);
}

double model_intensity_limit(const einsum *es, const dim_sizes *ds,
                             const model_target *t, int dim)
{
    model_eval a, b;
    at_one_and_two(es, ds, t, dim, &a, &b);
    const double bytes1 = b.bytes - a.bytes, flops1 = b.flops - a.flops;
    if (bytes1 <= 1e-12 * b.bytes)
        return INFINITY;
    return flops1 / bytes1;
}

double model_threshold_fixed_bytes(const einsum *es, const dim_sizes *ds,
                                   const model_target *t, int dim)
{
    model_eval a, b;
    at_one_and_two(es, ds, t, dim, &a, &b);
    const double fixed = 2.0 * a.t_mem - b.t_mem;
    if (fixed <= 1e-12 * a.t_mem)
        return INFINITY;
    return crossing(b.t_math - a.t_math, fixed, 0.0);
}
