/* The analytic model and the profile reader: einsum parsing, exact counts
 * on hand-checked sizes, the book's thresholds computed from the profile
 * files, the sharded threshold s x C / W, and the reader's errors naming
 * file and line. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "model.h"
#include "profile.h"

#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel) * fabs(b))

static void test_parse(void)
{
    einsum es;
    rb_err e;
    CHECK_INT(einsum_parse("bp,pm->bm", &es, &e), RB_OK);
    CHECK_STR_HAS(es.dims, "bpm");
    CHECK_INT(es.ndims, 3);
    CHECK_INT(einsum_kind(&es, 'b'), DIM_FREE);
    CHECK_INT(einsum_kind(&es, 'p'), DIM_CONTRACTING);
    CHECK_INT(einsum_kind(&es, 'm'), DIM_FREE);
    CHECK_INT(einsum_parse(" bp , bpm -> bm ", &es, &e), RB_OK);
    CHECK_STR_HAS(es.text, "bp,bpm->bm");
    CHECK_INT(einsum_kind(&es, 'b'), DIM_BATCH);
    CHECK_INT(einsum_parse("p,p->", &es, &e), RB_OK); /* dot: no output */
    CHECK_INT(einsum_kind(&es, 'p'), DIM_CONTRACTING);
    CHECK_INT(einsum_parse("bpk,pm->bm", &es, &e), RB_OK);
    CHECK_INT(einsum_kind(&es, 'k'), DIM_SUMMED);
    CHECK_INT(einsum_parse("Bp,pM->BM", &es, &e), RB_OK);

    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"", "empty spec"},
        {"bp,pm", "no '->'"},
        {"bp,pm->bm->b", "more than one '->'"},
        {"bp,pm->bx", "output letter 'x' is in neither operand"},
        {"bb,pm->bm", "'b' repeats inside the first operand"},
        {"bp,pmm->bm", "'m' repeats inside the second operand"},
        {"bp,pm->bmm", "'m' repeats in the output"},
        {"bp->b", "one operand"},
        {"bp,pm,mk->bk", "more than two operands"},
        {",pm->pm", "the first operand is empty"},
        {"bp,->b", "the second operand is empty"},
        {"b1,1m->bm", "'1' is not a dimension letter"},
        {"bp,pm->b.", "'.' in the output is not a dimension letter"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(einsum_parse(bad[i].spec, &es, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
    }
    char longspec[400];
    memset(longspec, 'a', sizeof(longspec) - 1);
    longspec[sizeof(longspec) - 1] = '\0';
    CHECK_INT(einsum_parse(longspec, &es, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "too long");
}

static void test_sizes(void)
{
    dim_sizes ds;
    rb_err e;
    memset(&ds, 0, sizeof(ds));
    CHECK_INT(dim_sizes_parse("b=240", &ds, &e), RB_OK);
    CHECK_U64(ds.size[einsum_index('b')], 240);
    CHECK_INT(dim_sizes_parse("p=8K", &ds, &e), RB_OK);
    CHECK_U64(ds.size[einsum_index('p')], 8192);
    static const struct {
        const char *tok, *msg;
    } bad[] = {
        {"b=1", "given twice"},
        {"m=0", "m '0': too small"},
        {"m=-4", "m '-4': not a non-negative integer"},
        {"m=x", "m 'x'"},
        {"m=", "m: a value is required"},
        {"m=1.5", "m '1.5'"},
        {"m=99999999999999999999", "too large"},
        {"mm=4", "one letter"},
        {"m", "not a size"},
        {"=4", "not a size"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(dim_sizes_parse(bad[i].tok, &ds, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
    }
}

static void sizes3(dim_sizes *ds, uint64_t b, uint64_t p, uint64_t m)
{
    memset(ds, 0, sizeof(*ds));
    ds->size[einsum_index('b')] = b;
    ds->size[einsum_index('p')] = p;
    ds->size[einsum_index('m')] = m;
    ds->set[einsum_index('b')] = ds->set[einsum_index('p')] =
        ds->set[einsum_index('m')] = 1;
}

/* Hand-checked counts at b=2, p=3, m=4, 4-byte elements:
 *   bp,pm->bm : FLOPs 2*2*3*4 = 48; elements 6 + 12 + 8 = 26; bytes 104
 *   bp,bpm->bm: FLOPs 48; elements 6 + 24 + 8 = 38; bytes 152 */
static void test_counts(void)
{
    einsum shared, own;
    dim_sizes ds;
    model_counts c;
    rb_err e;
    einsum_parse("bp,pm->bm", &shared, &e);
    einsum_parse("bp,bpm->bm", &own, &e);
    sizes3(&ds, 2, 3, 4);
    CHECK_INT(model_count(&shared, &ds, 4, &c, &e), RB_OK);
    CHECK_U64(c.flops, 48);
    CHECK_U64(c.elems[0], 6);
    CHECK_U64(c.elems[1], 12);
    CHECK_U64(c.elems[2], 8);
    CHECK_U64(c.bytes, 104);
    CHECK_INT(model_count(&own, &ds, 4, &c, &e), RB_OK);
    CHECK_U64(c.flops, 48);
    CHECK_U64(c.elems[1], 24);
    CHECK_U64(c.bytes, 152);
    /* dot: 2P FLOPs, 2P elements read, intensity 1/s */
    einsum dot;
    einsum_parse("p,p->", &dot, &e);
    CHECK_INT(model_count(&dot, &ds, 2, &c, &e), RB_OK);
    CHECK_U64(c.flops, 6);
    CHECK_U64(c.bytes, 2 * (3 + 3 + 1));

    /* intensity: grows with b for the shared weights, constant otherwise */
    model_target t = {1e12, 1e11, 2, -1, 1, 0.0};
    model_eval e1, e64;
    sizes3(&ds, 1, 4096, 4096);
    model_evaluate(&shared, &ds, &t, &e1);
    sizes3(&ds, 64, 4096, 4096);
    model_evaluate(&shared, &ds, &t, &e64);
    CHECK(e64.intensity > 50.0 * e1.intensity);
    model_evaluate(&own, &ds, &t, &e64);
    sizes3(&ds, 1, 4096, 4096);
    model_evaluate(&own, &ds, &t, &e1);
    CHECK(NEAR(e64.intensity, e1.intensity, 1e-12));
    /* a missing size and an overflow are errors */
    ds.set[einsum_index('m')] = 0;
    CHECK_INT(model_count(&shared, &ds, 2, &c, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "dimension m has no size");
    sizes3(&ds, 1ull << 22, 1ull << 21, 1ull << 20); /* 2^64 FLOPs */
    CHECK_INT(model_count(&shared, &ds, 2, &c, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "overflow");
    sizes3(&ds, 1ull << 21, 1ull << 21, 1ull << 20); /* 2^63 FLOPs fit */
    CHECK_INT(model_count(&shared, &ds, 1, &c, &e), RB_OK);
    CHECK_U64(c.flops, 1ull << 63);
}

static const profile *find(const profile *ps, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ps[i].id, id) == 0)
            return &ps[i];
    fprintf(stderr, "no profile %s\n", id);
    exit(1);
}

static model_target target_of(const profile *p, pdtype d)
{
    model_target t = {p->peak[d], p->mem_bw, pdtype_size(d), -1, 1, 0.0};
    return t;
}

/* The book's thresholds, from the profile files as they are. */
static void test_book(const profile *ps, size_t n)
{
    const profile *v5e = find(ps, n, "tpu-v5e");
    const profile *h100 = find(ps, n, "h100-sxm");
    const profile *b200 = find(ps, n, "b200");
    einsum mm;
    rb_err e;
    einsum_parse("bp,pm->bm", &mm, &e);
    dim_sizes ds;
    sizes3(&ds, 1, 8192, 8192);
    const int b = einsum_index('b');

    /* weights-dominated threshold = ridge x s / 2 */
    model_target t = target_of(v5e, PD_BF16);
    double x = model_threshold_fixed_bytes(&mm, &ds, &t, b);
    printf("v5e bf16 batch threshold %.2f (book: about 240)\n", x);
    CHECK(x > 236.0 && x < 245.0);
    CHECK(NEAR(x, profile_ridge(v5e, PD_BF16), 1e-9));
    t = target_of(v5e, PD_INT8);
    x = model_threshold_fixed_bytes(&mm, &ds, &t, b);
    printf("v5e int8 batch threshold %.2f (book: about 243)\n", x);
    CHECK(x > 240.0 && x < 246.0);
    CHECK(NEAR(x, profile_ridge(v5e, PD_INT8) / 2.0, 1e-9));
    t = target_of(h100, PD_BF16);
    x = model_threshold_fixed_bytes(&mm, &ds, &t, b);
    printf("H100 bf16 batch threshold %.2f (book: about 295 to 298)\n", x);
    CHECK(x >= 294.5 && x <= 298.5);
    t = target_of(b200, PD_BF16);
    x = model_threshold_fixed_bytes(&mm, &ds, &t, b);
    CHECK(x > 279.0 && x < 283.0); /* book: about 281 */

    /* the exact crossing: memory just below it, math just above, and it
     * tends to the approximation as the weights grow */
    t = target_of(v5e, PD_BF16);
    double xm, xc;
    const double exact = model_threshold(&mm, &ds, &t, b, &xm, &xc);
    CHECK(exact > x || exact > 243.0);
    model_eval ev;
    dim_sizes at = ds;
    at.size[b] = (uint64_t)floor(exact * 0.99);
    model_evaluate(&mm, &at, &t, &ev);
    CHECK_INT(ev.bind, BIND_MEM);
    at.size[b] = (uint64_t)ceil(exact * 1.01);
    model_evaluate(&mm, &at, &t, &ev);
    CHECK_INT(ev.bind, BIND_MATH);
    sizes3(&ds, 1, 1ull << 24, 1ull << 24);
    const double big = model_threshold(&mm, &ds, &t, b, NULL, NULL);
    CHECK(NEAR(big, profile_ridge(v5e, PD_BF16), 1e-4));

    /* bp,bpm->bm never becomes compute-bound: its intensity tends to
     * 2pm / (s (p + pm + m)), below any ridge here */
    einsum own;
    einsum_parse("bp,bpm->bm", &own, &e);
    sizes3(&ds, 1, 8192, 8192);
    CHECK(isinf(model_threshold(&own, &ds, &t, b, NULL, NULL)));
    const double lim = model_intensity_limit(&own, &ds, &t, b);
    CHECK(NEAR(lim, 2.0 * 8192 * 8192 / (2.0 * (8192 + 8192.0 * 8192 + 8192)),
               1e-9));
    CHECK(isinf(model_intensity_limit(&mm, &ds, &t, b)) == 0);
}

/* Two chips over ICI, the contracting dimension split: compute-bound over
 * the link exactly when D > s C / W, whatever the batch. */
static void test_shard(const profile *ps, size_t n)
{
    const profile *v5e = find(ps, n, "tpu-v5e");
    const profile_link *ici = profile_find_link(v5e, "ici");
    CHECK(ici != NULL);
    if (!ici)
        return;
    einsum mm;
    rb_err e;
    einsum_parse("bd,df->bf", &mm, &e);
    const int d = einsum_index('d');
    const pdtype dts[2] = {PD_BF16, PD_INT8};
    for (int k = 0; k < 2; k++) {
        model_target t = target_of(v5e, dts[k]);
        t.shard_dim = d;
        t.shard_n = 2;
        t.link_bw = ici->bandwidth * ici->peer_links;
        const double want = pdtype_size(dts[k]) * t.peak / t.link_bw;
        const uint64_t batches[] = {1, 240, 4096};
        for (int i = 0; i < 3; i++) {
            dim_sizes ds;
            memset(&ds, 0, sizeof(ds));
            ds.size[einsum_index('b')] = batches[i];
            ds.size[d] = 8192;
            ds.size[einsum_index('f')] = 8192;
            ds.set[einsum_index('b')] = ds.set[d] =
                ds.set[einsum_index('f')] = 1;
            double xm, xc;
            model_threshold(&mm, &ds, &t, d, &xm, &xc);
            CHECK(NEAR(xc, want, 1e-9));
            /* per chip: T_comms = s B F / W, T_math = 2 B (D/2) F / C */
            model_eval ev;
            model_evaluate(&mm, &ds, &t, &ev);
            CHECK(NEAR(ev.t_comms,
                       pdtype_size(dts[k]) * (double)batches[i] * 8192.0 /
                           t.link_bw,
                       1e-12));
            CHECK(NEAR(ev.t_math,
                       2.0 * batches[i] * 4096.0 * 8192.0 / t.peak, 1e-12));
        }
        if (k == 0) {
            printf("v5e two-chip ICI threshold D > %.1f (s C / W = 2 x "
                   "1.97e14 / 4.5e10 = 8755.6)\n",
                   want);
            CHECK(want > 8700.0 && want < 8800.0);
        }
    }
    /* N chips: (N - 1) s C / W for a ring all-reduce */
    model_target t = target_of(v5e, PD_BF16);
    t.shard_dim = d;
    t.shard_n = 4;
    t.link_bw = ici->bandwidth;
    dim_sizes ds;
    memset(&ds, 0, sizeof(ds));
    for (const char *c = "bdf"; *c; c++) {
        ds.size[einsum_index(*c)] = 1024;
        ds.set[einsum_index(*c)] = 1;
    }
    double xc;
    model_threshold(&mm, &ds, &t, d, NULL, &xc);
    CHECK(NEAR(xc, 3.0 * 2.0 * t.peak / t.link_bw, 1e-9));
}

static int parse(const char *text, profile *p, rb_err *e)
{
    return profile_parse_string(text, "t.ini", p, e);
}

#define GOOD                                                                   \
    "[chip]\nname = Test\nkind = gpu\nheadline = bf16\n"                       \
    "[peak]\nbf16 = 1e15\nbf16.source = a datasheet\n"                        \
    "[memory]\nbandwidth = 2e12\nbandwidth.source = a datasheet\n"

static void test_reader(void)
{
    profile p;
    rb_err e;
    CHECK_INT(parse(GOOD, &p, &e), RB_OK);
    CHECK(p.peak[PD_BF16] == 1e15 && p.mem_bw == 2e12);
    CHECK(NEAR(profile_ridge(&p, PD_BF16), 500.0, 1e-12));
    CHECK_INT(parse(GOOD "[link.nvlink]\nbandwidth = 25e9 ; one way\n"
                         "bandwidth.source = x\nbandwidth.inferred = yes\n"
                         "links = 18\nlinks.source = y\npeer_links = 18\n"
                         "peer_links.source = z\ntopology = switch\n",
                    &p, &e),
              RB_OK);
    CHECK_INT(p.nlinks, 1);
    CHECK(p.link[0].bandwidth == 25e9 && p.link[0].peer_links == 18.0);
    /* a display name may hold quotes: it is only written escaped */
    CHECK_INT(parse("[chip]\nname = Apple 14\" \"M4\"\nkind = apple\n"
                    "headline = bf16\n[peak]\nbf16 = 1e15\nbf16.source = s\n"
                    "[memory]\nbandwidth = 2e12\nbandwidth.source = s\n",
                    &p, &e),
              RB_OK);
    CHECK_STR_HAS(p.name, "14\" \"M4\"");

    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"[chip]\nname = T\nkind = gpu\nheadline = bf16\n[peak]\nbf16 = "
         "1e15\nbf16.source = s\n",
         "t.ini:7: [memory] has no bandwidth"},
        {GOOD "[peak]\nfp32 = fast\n", "t.ini:12: fp32 = 'fast': not a "
                                       "positive decimal number"},
        {GOOD "[peak]\nfp32 = -3e12\nfp32.source = s\n", "t.ini:12: fp32"},
        {GOOD "[peak]\nfp32 = 1e300000\nfp32.source = s\n", "t.ini:12"},
        {GOOD "[peak]\nfp32 = 3e12\n", "t.ini:12: fp32 has no fp32.source"},
        {GOOD "[peak]\nfp99 = 3e12\n", "t.ini:12: unknown key 'fp99'"},
        {GOOD "[memory]\nbandwidth = 3e12\n", "t.ini:12: 'bandwidth' in "
                                              "[memory] given twice"},
        {GOOD "[gpu]\nx = 1\n", "t.ini:12: unknown key 'x' in [gpu]"},
        /* found by scripts/fuzz: a trailing dot once stored the value as
         * on-chip memory and left the bandwidth 0 */
        {"[chip]\nname = T\nkind = gpu\nheadline = bf16\n[peak]\nbf16 = "
         "1e15\nbf16.source = s\n[memory]\nbandwidth. = 1e12\n"
         "bandwidth.source = s\n",
         "t.ini:9: unknown key 'bandwidth.' in [memory]"},
        {GOOD "just words\n", "t.ini:11: not a [section] or a key = value"},
        {GOOD "[link.ici]\nbandwidth = 4.5e10\nbandwidth.source = s\n",
         "t.ini:11: [link.ici] needs bandwidth and links"},
        {GOOD "[peak]\nbf16.inferred = maybe\n", "t.ini:12: bf16.inferred"},
        {"[chip]\nname = T\nkind = gpu\nheadline = fp64\n[peak]\nbf16 = "
         "1e15\nbf16.source = s\n[memory]\nbandwidth = 1e12\n"
         "bandwidth.source = s\n",
         "t.ini:4: headline = 'fp64'"},
        {"[chip]\nname = T\nkind = fpga\n", "t.ini:3: kind = 'fpga'"},
        /* numbers no chip has, and numbers that are not decimal */
        {"[chip]\nname = T\nkind = gpu\nheadline = bf16\n[peak]\nbf16 = "
         "1e-300\n",
         "t.ini:6: bf16 = '1e-300': below 1e+09"},
        {"[chip]\nname = T\nkind = gpu\nheadline = bf16\n[peak]\nbf16 = "
         "0x1p50\n",
         "t.ini:6: bf16 = '0x1p50': not a positive decimal number"},
        {"[chip]\nname = T\nkind = gpu\nheadline = bf16\n[memory]\n"
         "bandwidth = 1e-300\n",
         "t.ini:6: bandwidth = '1e-300': below 1e+09"},
        {GOOD "[link.ici]\nbandwidth = 4.5e10\nbandwidth.source = s\n"
              "links = 18.5\n",
         "t.ini:14: links = '18.5': a whole number of links"},
        {GOOD "[link.ici]\nbandwidth = 1e-300\n",
         "t.ini:12: bandwidth = '1e-300': below 1e+06"},
        /* link names are held to a profile id's characters, as --link
         * takes them; the line is the section's */
        {GOOD "[link.ICI;rm]\nbandwidth = 4.5e10\n",
         "t.ini:11: [link.ICI;rm]: 'ICI;rm' is not a link name"},
        {GOOD "[link.ici x]\n\nlinks = 4\n",
         "t.ini:11: [link.ici x]: 'ici x' is not a link name"},
        {GOOD "[link.a`b`]\nlinks = 4\n", "'a`b`' is not a link name"},
        {GOOD "[link.a\"b]\nlinks = 4\n", "'a\"b' is not a link name"},
        {GOOD "[link.-x]\nlinks = 4\n", "'-x' is not a link name"},
        {GOOD "[link.]\nlinks = 4\n", "'' is not a link name"},
        /* a control byte in any value, the display name's included */
        {"[chip]\nname = T\x1b[31mX\n",
         "t.ini:2: name: a control character (byte 0x1b) in the value"},
        {GOOD "[peak]\nfp32 = 1e12\nfp32.source = a\tb\n",
         "t.ini:13: fp32.source: a control character (byte 0x09)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(parse(bad[i].text, &p, &e), RB_EINPUT);
        CHECK_STR_HAS(e.msg, bad[i].msg);
    }
    /* a line too long for inih is refused, not cut in two */
    char text[1024];
    snprintf(text, sizeof(text), GOOD "[peak]\nfp32 = 1e12\nfp32.source = %0300d\n",
             7);
    CHECK_INT(parse(text, &p, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "t.ini:13: line longer than");
}

int main(void)
{
    test_parse();
    test_sizes();
    test_counts();
    test_reader();
    profile *ps = NULL;
    size_t n = 0;
    rb_err e;
    const int rc = profile_load_all(profile_dir(NULL), &ps, &n, &e);
    if (rc)
        fprintf(stderr, "%s\n", e.msg);
    CHECK_INT(rc, RB_OK);
    if (!rc) {
        /* every reference chip of the brief is there */
        static const char *ids[] = {
            "tpu-v4p",   "tpu-v5e",   "tpu-v5p",      "tpu-v6e",
            "a100-40gb", "a100-80gb", "h100-sxm",     "h200",
            "b200",      "mi300x",    "apple-m4",     "apple-m4-pro",
            "apple-m4-max", "apple-m2-ultra", "xeon-8480plus", "epyc-9654"};
        for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
            CHECK(find(ps, n, ids[i]) != NULL);
        test_book(ps, n);
        test_shard(ps, n);
        free(ps);
    }
    return check_status("test_model");
}
