#include "report_check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jdoc.h"
#include "parse.h"
#include "text.h"

const char *const check_metric_names[CM_N] = {"ir", "cycles", "d1", "ll",
                                              "intensity"};
const char *const check_metric_fields[CM_N] = {
    "ir", "est_cycles", "d1_misses", "ll_misses", "ll_intensity"};

void check_limits_default(check_limits *l)
{
    l->limit[CM_IR] = 0.01;
    l->limit[CM_CYCLES] = 0.01;
    l->limit[CM_D1] = 0.02;
    l->limit[CM_LL] = 0.02;
    l->limit[CM_INTENSITY] = 0.02;
}

int check_limits_parse(const char *s, check_limits *l, rb_err *e)
{
    char buf[512], shown[512], *items[4 * CM_N];
    /* The list rule of every other flag: strtok_r would pass over an empty
     * item ("ir=1%,,d1=2%") without a word. A metric given twice is found
     * below by its name, so that "ir=1%,ir=2%" is refused too. */
    const int n = parse_split("--limit", s, ',', 0, buf, sizeof(buf), items,
                              4 * CM_N, e);
    if (n < 0)
        return RB_EINPUT;
    int seen[CM_N] = {0};
    for (int k = 0; k < n; k++) {
        char *t = items[k];
        char *eq = strchr(t, '=');
        int m = -1;
        if (eq) {
            *eq = '\0';
            for (int i = 0; i < CM_N; i++)
                if (strcmp(t, check_metric_names[i]) == 0)
                    m = i;
        }
        text_escape(t, shown, sizeof(shown));
        if (m < 0)
            return rb_fail(e, RB_EINPUT,
                           "--limit: '%s' is not METRIC=LIMIT with a metric "
                           "of ir, cycles, d1, ll, intensity",
                           shown);
        char flag[64];
        snprintf(flag, sizeof(flag), "--limit %s", check_metric_names[m]);
        double x;
        if (parse_fraction(flag, eq + 1, 10.0, &x, e))
            return RB_EINPUT;
        if (seen[m]++)
            return rb_fail(e, RB_EINPUT, "--limit: %s given twice", shown);
        l->limit[m] = x;
    }
    return RB_OK;
}

/* ---- the document -------------------------------------------------------- */

static void geom_text(const rb_cache_geom *g, char *buf, size_t len)
{
    snprintf(buf, len, "%.0f,%u,%u", g->size, g->assoc, g->line);
}

static json_t *facts_json(jdoc *d, const check_facts *f)
{
    char l1[64], ll[64];
    geom_text(&f->geom.l1, l1, sizeof(l1));
    geom_text(&f->geom.ll, ll, sizeof(ll));
    return jd_pack(
        d,
        "{s:s, s:{s:s, s:s}, s:s, s:s, s:{s:s, s:s, s:s}, s:[I, I, I], s:I, "
        "s:o, s:o, s:o, s:o}",
        "isa", f->isa, "blocking", "f32", f->blocking[RB_F32], "f64",
        f->blocking[RB_F64], "openblas_core", f->openblas_core,
        "openblas_version", f->openblas_version, "caches_simulated", "I1",
        "32768,8,64", "D1", l1, "LL", ll, "kernel_caches",
        (json_int_t)f->caches[0], (json_int_t)f->caches[1],
        (json_int_t)f->caches[2], "seed", (json_int_t)f->seed, "valgrind",
        jd_str(f->valgrind), "compiler", jd_str(f->compiler), "c_flags",
        jd_str(f->c_flags), "build_type", jd_str(f->build_type));
}

void check_rec_of(const check_counts *c, check_rec *r)
{
    snprintf(r->key, sizeof(r->key), "%s %s %zux%zux%zu", c->c.k->name,
             rb_dtype_name(c->c.dt), c->c.s.n, c->c.s.p, c->c.s.m);
    r->m[CM_IR] = c->ir;
    r->m[CM_CYCLES] = c->est_cycles;
    r->m[CM_D1] = c->d1_misses;
    r->m[CM_LL] = c->ll_misses;
    r->m[CM_INTENSITY] = c->ll_misses > 0.0 ? c->ll_intensity : NAN;
}

char *report_check_json(const json_t *context, const check_facts *f,
                        const check_counts *c, size_t n, const char *status,
                        const char *error, const check_cmp *cmp,
                        const char *baseline_path, const check_limits *l,
                        rb_err *e)
{
    jdoc d = {0};
    json_t *rows = json_array();
    for (size_t i = 0; i < n; i++) {
        const check_counts *k = &c[i];
        check_rec r;
        check_rec_of(k, &r);
        jd_push(&d, rows, "kernels",
                jd_pack(&d,
                        "{s:s, s:s, s:s, s:{s:I, s:I, s:I}, s:o, s:o, s:o, "
                        "s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                        "kernel", k->c.k->name, "op", rb_op_name(k->c.k->op),
                        "dtype", rb_dtype_name(k->c.dt), "shape", "n",
                        (json_int_t)k->c.s.n, "p", (json_int_t)k->c.s.p, "m",
                        (json_int_t)k->c.s.m, "flops", jd_num(k->flops), "ir",
                        jd_num(k->ir), "dr", jd_num(k->dr), "dw",
                        jd_num(k->dw), "i1_misses", jd_num(k->i1_misses),
                        "il_misses", jd_num(k->il_misses), "d1_misses",
                        jd_num(k->d1_misses), "ll_misses",
                        jd_num(k->ll_misses), "est_cycles",
                        jd_num(k->est_cycles), "ll_intensity",
                        jd_num(r.m[CM_INTENSITY])));
    }
    json_t *root = jd_pack(
        &d, "{s:s, s:i, s:s, s:o, s:O, s:o, s:s, s:o}", "schema",
        "roofbench.check", "schema_version", CHECK_SCHEMA_VERSION, "status",
        status, "error", error ? jd_str(error) : json_null(), "context",
        context, "pinned", facts_json(&d, f), "est_cycles",
        "L1 hits + 5 x LL hits + 35 x memory accesses (iai-callgrind's "
        "convention); ll_intensity: FLOPs / (LL data misses x line bytes)",
        "kernels", rows);
    if (cmp && root) {
        json_t *lim = json_object(), *res = json_array(), *ob = json_array(),
               *oc = json_array();
        for (int m = 0; m < CM_N; m++)
            jd_set(&d, lim, check_metric_names[m], jd_num(l->limit[m]));
        for (size_t i = 0; i < cmp->n; i++) {
            const check_cmp_row *r = &cmp->rows[i];
            json_t *ch = json_object();
            for (int m = 0; m < CM_N; m++)
                jd_set(&d, ch, check_metric_names[m],
                       jd_pack(&d, "{s:o, s:o, s:o, s:b}", "baseline",
                               jd_num(r->base->m[m]), "current",
                               jd_num(r->cur->m[m]), "worse_by",
                               jd_num(r->change[m]), "over_limit",
                               r->over[m]));
            jd_push(&d, res, "comparison",
                    jd_pack(&d, "{s:s, s:o, s:b}", "key", r->base->key,
                            "metrics", ch, "regressed", r->regressed));
        }
        for (size_t i = 0; i < cmp->nonly_base; i++)
            jd_push(&d, ob, "only_in_baseline", jd_str(cmp->only_base[i]->key));
        for (size_t i = 0; i < cmp->nonly_cur; i++)
            jd_push(&d, oc, "only_in_current", jd_str(cmp->only_cur[i]->key));
        jd_set(&d, root, "comparison",
               jd_pack(&d, "{s:o, s:o, s:o, s:o, s:o, s:I, s:i}", "baseline",
                       jd_str(baseline_path), "limits", lim, "rows", res,
                       "only_in_baseline", ob, "only_in_current", oc,
                       "regressed", (json_int_t)cmp->regressed,
                       "exit_status", check_cmp_status(cmp)));
    }
    return jd_text(&d, root, "check.json", 17, e);
}

/* ---- reading a baseline -------------------------------------------------- */

static const char *get_str(json_t *o, const char *k)
{
    json_t *v = json_is_object(o) ? json_object_get(o, k) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int copy_str(const check_baseline *b, json_t *o, const char *k,
                    char *dst, size_t len, rb_err *e)
{
    const char *s = get_str(o, k);
    if (!s || strlen(s) >= len)
        return rb_fail(e, RB_EINPUT, "%s: pinned.%s is missing or too long",
                       b->shown, k);
    snprintf(dst, len, "%s", s);
    return RB_OK;
}

static int read_facts(check_baseline *b, json_t *p, rb_err *e)
{
    check_facts *f = &b->facts;
    if (!json_is_object(p))
        return rb_fail(e, RB_EINPUT, "%s: no 'pinned' facts", b->shown);
    json_t *blk = json_object_get(p, "blocking"),
           *geo = json_object_get(p, "caches_simulated"),
           *kc = json_object_get(p, "kernel_caches"),
           *seed = json_object_get(p, "seed");
    if (copy_str(b, p, "isa", f->isa, sizeof(f->isa), e) ||
        copy_str(b, p, "openblas_core", f->openblas_core,
                 sizeof(f->openblas_core), e) ||
        copy_str(b, p, "openblas_version", f->openblas_version,
                 sizeof(f->openblas_version), e) ||
        copy_str(b, p, "valgrind", f->valgrind, sizeof(f->valgrind), e) ||
        copy_str(b, p, "compiler", f->compiler, sizeof(f->compiler), e) ||
        copy_str(b, p, "c_flags", f->c_flags, sizeof(f->c_flags), e) ||
        copy_str(b, p, "build_type", f->build_type, sizeof(f->build_type),
                 e))
        return RB_EINPUT;
    const char *b32 = get_str(blk, "f32"), *b64 = get_str(blk, "f64"),
               *d1 = get_str(geo, "D1"), *ll = get_str(geo, "LL");
    if (!b32 || !b64 || strlen(b32) >= sizeof(f->blocking[0]) ||
        strlen(b64) >= sizeof(f->blocking[0]))
        return rb_fail(e, RB_EINPUT, "%s: pinned.blocking is incomplete",
                       b->shown);
    snprintf(f->blocking[RB_F32], sizeof(f->blocking[0]), "%s", b32);
    snprintf(f->blocking[RB_F64], sizeof(f->blocking[0]), "%s", b64);
    if (!d1 || !ll ||
        sscanf(d1, "%lf,%u,%u", &f->geom.l1.size, &f->geom.l1.assoc,
               &f->geom.l1.line) != 3 ||
        sscanf(ll, "%lf,%u,%u", &f->geom.ll.size, &f->geom.ll.assoc,
               &f->geom.ll.line) != 3)
        return rb_fail(e, RB_EINPUT,
                       "%s: pinned.caches_simulated is not D1 and LL as "
                       "SIZE,WAYS,LINE",
                       b->shown);
    if (!json_is_array(kc) || json_array_size(kc) != 3)
        return rb_fail(e, RB_EINPUT,
                       "%s: pinned.kernel_caches is not three sizes",
                       b->shown);
    for (int i = 0; i < 3; i++) {
        json_t *v = json_array_get(kc, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return rb_fail(e, RB_EINPUT,
                           "%s: pinned.kernel_caches is not three sizes",
                           b->shown);
        f->caches[i] = (size_t)json_integer_value(v);
    }
    if (!json_is_integer(seed) || json_integer_value(seed) < 0)
        return rb_fail(e, RB_EINPUT, "%s: pinned.seed is not a count",
                       b->shown);
    f->seed = (unsigned long long)json_integer_value(seed);
    return RB_OK;
}

static int read_rec(check_baseline *b, json_t *k, size_t i, check_rec *r,
                    rb_err *e)
{
    const char *name = get_str(k, "kernel"), *dt = get_str(k, "dtype");
    json_t *sh = json_is_object(k) ? json_object_get(k, "shape") : NULL;
    json_t *n = json_object_get(sh, "n"), *p = json_object_get(sh, "p"),
           *m = json_object_get(sh, "m");
    if (!name || !text_is_name(name, 63, "_-") || !dt ||
        (strcmp(dt, "f32") != 0 && strcmp(dt, "f64") != 0) ||
        !json_is_integer(n) || !json_is_integer(p) || !json_is_integer(m) ||
        json_integer_value(n) < 1 || json_integer_value(p) < 1 ||
        json_integer_value(m) < 1)
        return rb_fail(e, RB_EINPUT,
                       "%s: kernel %zu: no kernel name, dtype or shape",
                       b->shown, i + 1);
    snprintf(r->key, sizeof(r->key), "%s %s %lldx%lldx%lld", name, dt,
             (long long)json_integer_value(n), (long long)json_integer_value(p),
             (long long)json_integer_value(m));
    for (int q = 0; q < CM_N; q++) {
        json_t *v = json_object_get(k, check_metric_fields[q]);
        if (q == CM_INTENSITY && json_is_null(v)) {
            r->m[q] = NAN; /* no LL misses */
            continue;
        }
        const double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!isfinite(x) || x < 0.0 || (q == CM_IR && x == 0.0))
            return rb_fail(e, RB_EINPUT,
                           "%s: %s: %s is %s (a count of at least 0%s)",
                           b->shown, r->key, check_metric_fields[q],
                           json_is_number(v) ? "negative" : "missing or not a "
                                                            "number",
                           q == CM_IR ? ", above 0 for Ir" : "");
        r->m[q] = x;
    }
    return RB_OK;
}

int check_baseline_load(const char *path, check_baseline *b, rb_err *e)
{
    memset(b, 0, sizeof(*b));
    text_escape(path, b->shown, sizeof(b->shown));
    struct stat st;
    if (stat(path, &st) != 0)
        return rb_fail(e, RB_EINPUT,
                       "baseline %s: %s (record one with --update-baseline)",
                       b->shown, strerror(errno));
    if (!S_ISREG(st.st_mode) || st.st_size > (64 << 20))
        return rb_fail(e, RB_EINPUT, "baseline %s: not a regular file of at "
                       "most 64 MiB", b->shown);
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return rb_fail(e, RB_EINPUT,
                       "baseline %s: not JSON, or cut short (line %d: %s)",
                       b->shown, je.line, je.text);
    int rc = RB_OK;
    const char *schema = get_str(doc, "schema");
    json_t *ver = json_object_get(doc, "schema_version");
    json_t *rows = json_object_get(doc, "kernels");
    if (!schema || strcmp(schema, "roofbench.check") != 0) {
        char s[64];
        text_escape(schema ? schema : "missing", s, sizeof(s));
        rc = rb_fail(e, RB_EINPUT,
                     "baseline %s: schema '%s', not roofbench.check", b->shown,
                     s);
    } else if (!json_is_integer(ver) ||
               json_integer_value(ver) != CHECK_SCHEMA_VERSION) {
        rc = rb_fail(e, RB_EINPUT,
                     "baseline %s: schema version %s: this roofbench reads "
                     "version %d",
                     b->shown, json_is_integer(ver) ? "other" : "missing",
                     CHECK_SCHEMA_VERSION);
    } else if (!get_str(doc, "status") ||
               strcmp(get_str(doc, "status"), "complete") != 0) {
        rc = rb_fail(e, RB_EINPUT, "baseline %s: not a complete check",
                     b->shown);
    } else if (!json_is_array(rows) || json_array_size(rows) == 0) {
        rc = rb_fail(e, RB_EINPUT, "baseline %s: holds no kernels", b->shown);
    }
    if (!rc)
        rc = read_facts(b, json_object_get(doc, "pinned"), e);
    if (!rc) {
        b->n = json_array_size(rows);
        b->rows = calloc(b->n, sizeof(*b->rows));
        if (!b->rows)
            rc = rb_fail(e, RB_EINPUT, "out of memory");
    }
    for (size_t i = 0; !rc && i < b->n; i++)
        rc = read_rec(b, json_array_get(rows, i), i, &b->rows[i], e);
    for (size_t i = 0; !rc && i < b->n; i++)
        for (size_t j = 0; !rc && j < i; j++)
            if (strcmp(b->rows[i].key, b->rows[j].key) == 0)
                rc = rb_fail(e, RB_EINPUT,
                             "baseline %s: kernels %zu and %zu are both '%s'",
                             b->shown, j + 1, i + 1, b->rows[i].key);
    json_decref(doc);
    if (rc)
        check_baseline_free(b);
    return rc;
}

void check_baseline_free(check_baseline *b)
{
    free(b->rows);
    b->rows = NULL;
    b->n = 0;
}

/* ---- comparing ------------------------------------------------------------ */

static void diff_str(strbuf *s, const char *what, const char *a,
                     const char *b)
{
    if (strcmp(a, b) == 0)
        return;
    char x[200], y[200];
    text_escape(a, x, sizeof(x));
    text_escape(b, y, sizeof(y));
    sb_printf(s, "%s%s '%s' vs '%s'", s->len ? "; " : "", what, x, y);
}

void check_facts_diff(const check_facts *a, const check_facts *b,
                      int children, char *buf, size_t len)
{
    strbuf s = {0};
    char x[64], y[64];
    if (children) {
        diff_str(&s, "code path", a->isa, b->isa);
        diff_str(&s, "f32 blocks", a->blocking[RB_F32], b->blocking[RB_F32]);
        diff_str(&s, "f64 blocks", a->blocking[RB_F64], b->blocking[RB_F64]);
        diff_str(&s, "OpenBLAS core", a->openblas_core, b->openblas_core);
    }
    diff_str(&s, "OpenBLAS", a->openblas_version, b->openblas_version);
    geom_text(&a->geom.l1, x, sizeof(x));
    geom_text(&b->geom.l1, y, sizeof(y));
    diff_str(&s, "simulated D1", x, y);
    geom_text(&a->geom.ll, x, sizeof(x));
    geom_text(&b->geom.ll, y, sizeof(y));
    diff_str(&s, "simulated LL", x, y);
    snprintf(x, sizeof(x), "%zu,%zu,%zu", a->caches[0], a->caches[1],
             a->caches[2]);
    snprintf(y, sizeof(y), "%zu,%zu,%zu", b->caches[0], b->caches[1],
             b->caches[2]);
    diff_str(&s, "kernel caches", x, y);
    snprintf(x, sizeof(x), "%llu", a->seed);
    snprintf(y, sizeof(y), "%llu", b->seed);
    diff_str(&s, "seed", x, y);
    diff_str(&s, "valgrind", a->valgrind, b->valgrind);
    diff_str(&s, "compiler", a->compiler, b->compiler);
    diff_str(&s, "C flags", a->c_flags, b->c_flags);
    diff_str(&s, "build type", a->build_type, b->build_type);
    snprintf(buf, len, "%s", s.s && !s.failed ? s.s : "");
    sb_free(&s);
}

int check_compare(const check_baseline *b, const check_rec *cur, size_t n,
                  const check_limits *l, check_cmp *out, rb_err *e)
{
    memset(out, 0, sizeof(*out));
    out->rows = calloc(b->n + 1, sizeof(*out->rows));
    out->only_base = calloc(b->n + 1, sizeof(*out->only_base));
    out->only_cur = calloc(n + 1, sizeof(*out->only_cur));
    if (!out->rows || !out->only_base || !out->only_cur) {
        check_cmp_free(out);
        return rb_fail(e, RB_EINPUT, "out of memory");
    }
    for (size_t i = 0; i < b->n; i++) {
        const check_rec *c = NULL;
        for (size_t j = 0; j < n && !c; j++)
            if (strcmp(cur[j].key, b->rows[i].key) == 0)
                c = &cur[j];
        if (!c) {
            out->only_base[out->nonly_base++] = &b->rows[i];
            continue;
        }
        check_cmp_row *r = &out->rows[out->n++];
        r->base = &b->rows[i];
        r->cur = c;
        for (int m = 0; m < CM_N; m++) {
            const double x = r->base->m[m], y = c->m[m];
            double ch;
            if (m == CM_INTENSITY) {
                /* NaN: no LL misses, everything from the cache */
                if (isnan(x) && isnan(y))
                    ch = 0.0;
                else if (isnan(x))
                    ch = INFINITY; /* it misses now */
                else if (isnan(y))
                    ch = -1.0;
                else
                    ch = y > 0.0 ? x / y - 1.0 : INFINITY;
            } else {
                ch = x > 0.0 ? y / x - 1.0 : (y > 0.0 ? INFINITY : 0.0);
            }
            r->change[m] = ch;
            r->over[m] = ch > l->limit[m];
            r->regressed |= r->over[m];
        }
        out->regressed += (size_t)r->regressed;
    }
    for (size_t j = 0; j < n; j++) {
        int found = 0;
        for (size_t i = 0; i < b->n && !found; i++)
            found = strcmp(cur[j].key, b->rows[i].key) == 0;
        if (!found)
            out->only_cur[out->nonly_cur++] = &cur[j];
    }
    return RB_OK;
}

void check_cmp_free(check_cmp *c)
{
    free(c->rows);
    free(c->only_base);
    free(c->only_cur);
    memset(c, 0, sizeof(*c));
}

int check_cmp_status(const check_cmp *c)
{
    return c->regressed || c->nonly_base ? 3 : 0;
}

/* ---- the table ------------------------------------------------------------- */

static void fmt_change(double ch, int over, char *buf, size_t len)
{
    if (isinf(ch))
        snprintf(buf, len, "%s", over ? "new!" : "new");
    else if (isnan(ch))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.2f%%%s", 100.0 * ch, over ? "!" : "");
}

void report_check_text(const check_facts *f, const check_counts *c, size_t n,
                       const check_cmp *cmp, const char *baseline_shown,
                       const check_limits *l, FILE *out)
{
    char l1[64], ll[64];
    geom_text(&f->geom.l1, l1, sizeof(l1));
    geom_text(&f->geom.ll, ll, sizeof(ll));
    fprintf(out,
            "check: %zu kernels under cachegrind (%s), code path %s, OpenBLAS "
            "%s core %s, D1 %s, LL %s, seed %llu\n\n",
            n, f->valgrind, f->isa, f->openblas_version, f->openblas_core, l1,
            ll, f->seed);
    fprintf(out, "%-18s %-5s %-13s %12s %12s %10s %10s %10s", "kernel",
            "dtype", "shape", "Ir", "est cycles", "D1 miss", "LL miss",
            "FLOP/LL B");
    if (cmp)
        fprintf(out, "  %9s %9s %9s %9s %9s", "dIr", "dcycles", "dD1", "dLL",
                "-dint");
    fprintf(out, "\n");
    for (size_t i = 0; i < n; i++) {
        const check_counts *k = &c[i];
        check_rec r;
        check_rec_of(k, &r);
        char shape[48], in[24];
        snprintf(shape, sizeof(shape), "%zux%zux%zu", k->c.s.n, k->c.s.p,
                 k->c.s.m);
        if (isnan(r.m[CM_INTENSITY]))
            snprintf(in, sizeof(in), "no misses");
        else
            snprintf(in, sizeof(in), "%.4g", r.m[CM_INTENSITY]);
        fprintf(out, "%-18s %-5s %-13s %12.0f %12.0f %10.0f %10.0f %10s",
                k->c.k->name, rb_dtype_name(k->c.dt), shape, k->ir,
                k->est_cycles, k->d1_misses, k->ll_misses, in);
        const check_cmp_row *row = NULL;
        for (size_t j = 0; cmp && j < cmp->n && !row; j++)
            if (strcmp(cmp->rows[j].cur->key, r.key) == 0)
                row = &cmp->rows[j];
        if (row)
            for (int m = 0; m < CM_N; m++) {
                char t[24];
                fmt_change(row->change[m], row->over[m], t, sizeof(t));
                fprintf(out, "%s%9s", m ? " " : "  ", t);
            }
        else if (cmp)
            fprintf(out, "  (not in the baseline)");
        fprintf(out, "\n");
    }
    fprintf(out, "\nest cycles: L1 hits + 5 x LL hits + 35 x memory accesses "
                 "(iai-callgrind's convention); FLOP/LL B: FLOPs per byte "
                 "missed in the simulated LL\n");
    if (!cmp)
        return;
    fprintf(out,
            "against %s: worse by (+) or better by (-); '!' beyond the "
            "limit (ir %.2g%%, cycles %.2g%%, d1 %.2g%%, ll %.2g%%, "
            "intensity %.2g%%); -dint: the intensity's fall\n",
            baseline_shown, 100.0 * l->limit[CM_IR],
            100.0 * l->limit[CM_CYCLES], 100.0 * l->limit[CM_D1],
            100.0 * l->limit[CM_LL], 100.0 * l->limit[CM_INTENSITY]);
    for (size_t i = 0; i < cmp->nonly_base; i++)
        fprintf(out, "missing from this build: %s\n", cmp->only_base[i]->key);
    for (size_t i = 0; i < cmp->n; i++) {
        const check_cmp_row *r = &cmp->rows[i];
        if (!r->regressed)
            continue;
        fprintf(out, "regressed: %s:", r->base->key);
        for (int m = 0; m < CM_N; m++)
            if (r->over[m]) {
                char t[24];
                fmt_change(r->change[m], 0, t, sizeof(t));
                fprintf(out, " %s %s", check_metric_names[m], t);
            }
        fprintf(out, "\n");
    }
    fprintf(out, "verdict: %s (exit %d)\n",
            check_cmp_status(cmp) ? "regressed" : "nothing regressed",
            check_cmp_status(cmp));
}
