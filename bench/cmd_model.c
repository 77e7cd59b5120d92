/* roofbench model: the analytic roofline of any two-operand contraction on
 * one or several profiles: counts, the three times, the binding roof, a
 * sweep of one dimension with the size where the bound changes, a sharded
 * contraction over a link, and a whole layer billed from a file. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cli.h"
#include "cmd.h"
#include "host.h"
#include "model.h"
#include "pin.h"
#include "profile.h"
#include "roofline.h"

enum { MAX_TARGETS = 16, MAX_SPECS = 256, MAX_SWEEP = 64 };

static void help(void)
{
    printf(
        "usage: roofbench model SPEC SIZE... [options]\n"
        "       roofbench model --file FILE [SIZE...] [options]\n\n"
        "The analytic roofline of a contraction of two operands, written "
        "einsum-style,\non the profiles of profiles/ or on this machine's "
        "measured roofline:\n\n"
        "  roofbench model 'bp,pm->bm' b=240 p=8192 m=8192 --dtype bf16 "
        "--profile tpu-v5e\n\n"
        "FLOPs are 2 x the product of every distinct dimension; bytes are "
        "each operand\nread once and the output written once at the dtype's "
        "size. Prints the\ncounts, the intensity, T_math = FLOPs / peak, "
        "T_mem = bytes / bandwidth, the\nbound max(T_math, T_mem[, T_comms]), "
        "the binding roof and the attainable\nFLOP/s; classifies each "
        "dimension (batch, contracting, free, summed) and says\nwhich operand "
        "is reused across which dimension.\n\n"
        "  SIZE               LETTER=N for every dimension (K, M, G suffixes, "
        "x1024)\n"
        "  --profile LIST     profiles by name (roofbench profiles lists "
        "them), or host\n"
        "                     for this machine (default tpu-v5e,h100-sxm)\n"
        "  --dtype LIST       bf16, fp16, tf32, fp32 (f32), fp64 (f64), fp8, "
        "int8\n"
        "                     (default: each profile's headline dtype)\n"
        "  --sweep D=A:B      sizes of D from A to B, doubling, with the size "
        "where the\n"
        "                     product turns compute-bound on each profile\n"
        "  --shard D:N        split contracting dimension D over N chips; the "
        "partial\n"
        "                     sums are all-reduced over --link (a ring: each "
        "chip sends\n"
        "                     2(N-1)/N of the output one way)\n"
        "  --link NAME        ici, nvlink, infinity, pcie, dcn: a link the "
        "profiles have\n"
        "                     (default: each profile's first)\n"
        "  --file FILE        one SPEC [SIZE...] per line (# comments), "
        "billed with a\n"
        "                     total; SIZEs on the command line apply to every "
        "line\n"
        "  --ceilings FILE    the host roofline for --profile host (else it "
        "is measured\n"
        "                     now, about 25 s, and not saved)\n"
        "  --profiles DIR     where profiles are read (default: "
        "$ROOFBENCH_PROFILES or\n"
        "                     the source tree's profiles/)\n"
        "  --json             print a JSON document instead of the tables\n"
        "  --help             this text\n\n"
        "Exit status: 0 success, 2 bad input.\n");
}

/* ---- profiles and targets -------------------------------------------- */

int cmd_load_profiles(const char *list, const char *dir, const char *ceilings,
                      int quiet, profile *out, int max, int *n)
{
    char buf[1024], *items[MAX_TARGETS];
    rb_err e;
    int k = cli_split_list("--profile", list, buf, sizeof(buf), items,
                           MAX_TARGETS, &e);
    if (k < 0)
        return cmd_error(RB_EINPUT, e.msg);
    if (k > max)
        return cmd_bad("--profile: at most %d profiles", max);
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < i; j++)
            if (strcmp(items[i], items[j]) == 0)
                return cmd_bad("--profile: '%s' given twice", items[i]);
        if (strcmp(items[i], "host") != 0) {
            if (profile_load(dir, items[i], &out[i], &e))
                return cmd_error(RB_EINPUT, e.msg);
            continue;
        }
        roofline roof;
        json_t *doc = NULL;
        char host[64];
        host_name(host, sizeof(host));
        int rc;
        if (ceilings) {
            rc = roofline_load(ceilings, host, &roof, &doc, &e);
        } else {
            hwloc_topology_t topo;
            if ((rc = pin_topology_load(&topo, &e)))
                return cmd_error(rc, e.msg);
            const int ncores = pin_ncores(topo);
            const rb_dtype dts[2] = {RB_F32, RB_F64};
            if (!quiet) {
                fprintf(stderr,
                        "measuring the host roofline for --profile host (%d "
                        "thread%s; --ceilings FILE reuses one)\n",
                        ncores, ncores > 1 ? "s" : "");
            }
            json_t *context = cmd_info_context(topo);
            rc = ceilings_measure_roofline(topo, &ncores, 1, dts, 2, context,
                                           &doc, &e);
            json_decref(context);
            hwloc_topology_destroy(topo);
            if (!rc)
                rc = roofline_from_doc(doc, "measured ceilings", &roof, &e);
        }
        json_decref(doc);
        if (!rc)
            rc = roofline_to_profile(&roof, &out[i], &e);
        if (rc)
            return cmd_error(rc, e.msg);
    }
    *n = k;
    return -1;
}

typedef struct {
    const profile *p;
    pdtype dt;
    const profile_link *link; /* when sharded                           */
    model_target t;
    char label[96];
} target;

/* ---- output helpers -------------------------------------------------- */

static void fmt_time(double s, char *buf, size_t len)
{
    if (!(s > 0.0))
        snprintf(buf, len, "-");
    else if (s < 1e-6)
        snprintf(buf, len, "%.3g ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, len, "%.4g us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.4g ms", s * 1e3);
    else
        snprintf(buf, len, "%.4g s", s);
}

/* "d >= 8755.56", "any d" or "never" */
static void fmt_from(char dim, double x, char *buf, size_t len)
{
    if (isinf(x))
        snprintf(buf, len, "never");
    else if (x <= 0.0)
        snprintf(buf, len, "at any %c", dim);
    else
        snprintf(buf, len, "when %c >= %.6g", dim, x);
}

static json_t *eval_json(const target *t, const model_eval *ev)
{
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:f}",
                          "profile", t->p->id, "dtype", pdtype_name(t->dt),
                          "flops_per_chip", ev->flops, "bytes_per_chip",
                          ev->bytes, "intensity", ev->intensity, "t_math_s",
                          ev->t_math, "t_mem_s", ev->t_mem, "t_s", ev->t,
                          "bound", model_bind_name(ev->bind),
                          "attainable_flops", ev->attainable);
    if (t->link) {
        json_object_set_new(o, "comm_bytes_per_chip",
                            json_real(ev->comm_bytes));
        json_object_set_new(o, "t_comms_s", json_real(ev->t_comms));
    }
    return o;
}

/* The sentence on reuse: which operand is read once per element of which
 * dimension. */
static void reuse_text(const einsum *es, const dim_sizes *ds, int op,
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

typedef struct {
    einsum es;
    dim_sizes ds;
    model_counts c[PD_N]; /* per dtype in use                           */
    int line;
} spec_entry;

static int parse_spec_line(char *line, const dim_sizes *global, int lineno,
                           const char *file, spec_entry *se, rb_err *e)
{
    char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
    int rc = einsum_parse(tok, &se->es, e);
    memset(&se->ds, 0, sizeof(se->ds));
    while (!rc && (tok = strtok_r(NULL, " \t\r\n", &save)) != NULL)
        rc = dim_sizes_parse(tok, &se->ds, e);
    if (rc && file) {
        char msg[sizeof(e->msg)];
        snprintf(msg, sizeof(msg), "%.100s:%d: %.900s", file, lineno, e->msg);
        memcpy(e->msg, msg, sizeof(msg));
    }
    if (rc)
        return rc;
    for (int i = 0; i < EINSUM_LETTERS; i++)
        if (!se->ds.set[i] && global->set[i]) {
            se->ds.set[i] = 1;
            se->ds.size[i] = global->size[i];
        }
    se->line = lineno;
    return RB_OK;
}

static int read_spec_file(const char *path, const dim_sizes *global,
                          spec_entry *specs, int *n, rb_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rb_fail(e, RB_EINPUT, "--file %s: cannot open", path);
    char line[1024];
    int lineno = 0, rc = RB_OK;
    *n = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = rb_fail(e, RB_EINPUT, "%s:%d: line longer than %zu "
                                       "characters",
                         path, lineno, sizeof(line) - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        if (*n == MAX_SPECS) {
            rc = rb_fail(e, RB_EINPUT, "%s: more than %d specs", path,
                         MAX_SPECS);
            break;
        }
        rc = parse_spec_line(line, global, lineno, path, &specs[*n], e);
        if (!rc)
            (*n)++;
    }
    fclose(f);
    if (!rc && *n == 0)
        rc = rb_fail(e, RB_EINPUT, "--file %s: holds no spec", path);
    return rc;
}

/* ---- the command ----------------------------------------------------- */

int cmd_model(int argc, char **argv)
{
    static const struct option opts[] = {
        {"profile", required_argument, NULL, 'p'},
        {"dtype", required_argument, NULL, 'd'},
        {"sweep", required_argument, NULL, 's'},
        {"shard", required_argument, NULL, 'S'},
        {"link", required_argument, NULL, 'l'},
        {"file", required_argument, NULL, 'f'},
        {"ceilings", required_argument, NULL, 'c'},
        {"profiles", required_argument, NULL, 'P'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *profiles = "tpu-v5e,h100-sxm", *dtypes = NULL, *sweep = NULL,
               *shard = NULL, *link = NULL, *file = NULL, *ceilings = NULL,
               *pdir = NULL;
    int json = 0, c, npos = 0;
    const char **pos = calloc((size_t)argc + 1, sizeof(*pos));
    if (!pos)
        return cmd_bad("model: out of memory");
    opterr = 0;
    optind = 1;
    /* "-": operands (the spec, the sizes) come back in order among flags */
    while ((c = getopt_long(argc, argv, "-:", opts, NULL)) != -1) {
        switch (c) {
        case 1:
            pos[npos++] = optarg;
            break;
        case 'p': profiles = optarg; break;
        case 'd': dtypes = optarg; break;
        case 's': sweep = optarg; break;
        case 'S': shard = optarg; break;
        case 'l': link = optarg; break;
        case 'f': file = optarg; break;
        case 'c': ceilings = optarg; break;
        case 'P': pdir = optarg; break;
        case 'j': json = 1; break;
        case 'h': free(pos); help(); return 0;
        case ':':
            free(pos);
            return cmd_bad("model: %s needs a value", argv[optind - 1]);
        default:
            free(pos);
            return cmd_bad("model: unknown option '%s' (see roofbench model "
                           "--help)",
                           argv[optind - 1]);
        }
    }
    /* positionals, in order: the spec (unless --file) and sizes */
    const char *spec = NULL;
    dim_sizes global;
    memset(&global, 0, sizeof(global));
    rb_err e;
    for (int i = 0; i < npos; i++) {
        const char *a = pos[i];
        /* the first operand that is not a size is the spec; einsum_parse
         * names what is wrong with a malformed one */
        if (!spec && (strstr(a, "->") || !strchr(a, '='))) {
            spec = a;
            continue;
        }
        if (dim_sizes_parse(a, &global, &e)) {
            free(pos);
            return cmd_error(RB_EINPUT, e.msg);
        }
    }
    free(pos);
    if (file && spec)
        return cmd_bad("model: give a SPEC or --file, not both");
    if (!file && !spec)
        return cmd_bad("model: no SPEC (e.g. roofbench model 'bp,pm->bm' "
                       "b=240 p=8192 m=8192)");
    if (file && sweep)
        return cmd_bad("model: --sweep takes one SPEC, not --file");

    static spec_entry specs[MAX_SPECS];
    int nspecs = 0;
    if (file) {
        if (read_spec_file(file, &global, specs, &nspecs, &e))
            return cmd_error(RB_EINPUT, e.msg);
    } else {
        char line[1024];
        snprintf(line, sizeof(line), "%s", spec);
        if (einsum_parse(line, &specs[0].es, &e))
            return cmd_error(RB_EINPUT, e.msg);
        specs[0].ds = global;
        nspecs = 1;
    }

    /* the sweep: a dimension of the spec, a range */
    int sweep_dim = -1;
    uint64_t sweep_a = 0, sweep_b = 0;
    if (sweep) {
        const char *eq = strchr(sweep, '=');
        if (!eq || eq - sweep != 1 || einsum_index(sweep[0]) < 0)
            return cmd_bad("--sweep '%s': write D=START:END, e.g. b=1:4096",
                           sweep);
        if (!strchr(specs[0].es.dims, sweep[0]))
            return cmd_bad("--sweep '%s': %c is not a dimension of '%s'",
                           sweep, sweep[0], specs[0].es.text);
        if (cli_parse_range("--sweep", eq + 1, 1, UINT64_MAX / 2, &sweep_a,
                            &sweep_b, &e))
            return cmd_error(RB_EINPUT, e.msg);
        sweep_dim = einsum_index(sweep[0]);
        if (!specs[0].ds.set[sweep_dim]) {
            specs[0].ds.set[sweep_dim] = 1;
            specs[0].ds.size[sweep_dim] = sweep_b;
        }
    }
    /* every size given is used by some spec; every dimension has one */
    for (int i = 0; i < EINSUM_LETTERS; i++) {
        if (!global.set[i])
            continue;
        int used = 0;
        for (int s = 0; s < nspecs; s++)
            used |= strchr(specs[s].es.dims, i < 26 ? 'a' + i : 'A' + i - 26) !=
                    NULL;
        if (!used)
            return cmd_bad("size %c=%llu: no dimension %c in %s",
                           i < 26 ? 'a' + i : 'A' + i - 26,
                           (unsigned long long)global.size[i],
                           i < 26 ? 'a' + i : 'A' + i - 26,
                           file ? "any spec of --file" : specs[0].es.text);
    }

    /* the shard */
    int shard_dim = -1;
    uint64_t shard_n = 1;
    if (shard) {
        const char *colon = strchr(shard, ':');
        if (!colon || colon - shard != 1 || einsum_index(shard[0]) < 0)
            return cmd_bad("--shard '%s': write D:N, e.g. p:2", shard);
        if (cli_parse_count("--shard", colon + 1, 2, 1u << 20, &shard_n, &e))
            return cmd_error(RB_EINPUT, e.msg);
        shard_dim = einsum_index(shard[0]);
        for (int s = 0; s < nspecs; s++) {
            if (!strchr(specs[s].es.dims, shard[0]))
                return cmd_bad("--shard '%s': %c is not a dimension of '%s'",
                               shard, shard[0], specs[s].es.text);
            const dim_kind k = einsum_kind(&specs[s].es, shard[0]);
            if (k != DIM_CONTRACTING)
                return cmd_bad("--shard '%s': %c is a %s dimension of '%s'; "
                               "only a contracting one needs the partial-sum "
                               "exchange this models",
                               shard, shard[0], dim_kind_name(k),
                               specs[s].es.text);
            if (specs[s].ds.set[shard_dim] &&
                specs[s].ds.size[shard_dim] < shard_n)
                return cmd_bad("--shard '%s': %c=%llu is smaller than %llu "
                               "chips",
                               shard, shard[0],
                               (unsigned long long)specs[s].ds.size[shard_dim],
                               (unsigned long long)shard_n);
        }
    } else if (link) {
        return cmd_bad("--link %s: only with --shard", link);
    }

    /* profiles, dtypes, targets */
    static profile profs[MAX_TARGETS];
    int nprofs = 0;
    int rc = cmd_load_profiles(profiles, profile_dir(pdir), ceilings, json,
                               profs, MAX_TARGETS, &nprofs);
    if (rc >= 0)
        return rc;
    pdtype dts[PD_N];
    int ndts = 0;
    if (dtypes) {
        char buf[256], *items[PD_N];
        int k = cli_split_list("--dtype", dtypes, buf, sizeof(buf), items,
                               PD_N, &e);
        if (k < 0)
            return cmd_error(RB_EINPUT, e.msg);
        for (int i = 0; i < k; i++) {
            if (pdtype_parse(items[i], &dts[ndts]))
                return cmd_bad("--dtype '%s': unknown (bf16, fp16, tf32, "
                               "fp32, fp64, fp8, int8)",
                               items[i]);
            for (int j = 0; j < ndts; j++)
                if (dts[j] == dts[ndts])
                    return cmd_bad("--dtype: '%s' given twice", items[i]);
            ndts++;
        }
    }
    static target tg[MAX_TARGETS * PD_N];
    int ntg = 0;
    for (int p = 0; p < nprofs; p++) {
        const int nd = ndts ? ndts : 1;
        for (int d = 0; d < nd; d++) {
            target *t = &tg[ntg++];
            memset(t, 0, sizeof(*t));
            t->p = &profs[p];
            t->dt = ndts ? dts[d] : profs[p].headline;
            if (t->p->peak[t->dt] <= 0.0) {
                char have[128] = "";
                for (int q = 0; q < PD_N; q++)
                    if (t->p->peak[q] > 0.0)
                        snprintf(have + strlen(have),
                                 sizeof(have) - strlen(have), "%s%s",
                                 *have ? ", " : "", pdtype_name((pdtype)q));
                return cmd_bad("--dtype %s: profile %s has no %s peak (it "
                               "has %s)",
                               pdtype_name(t->dt), t->p->id,
                               pdtype_name(t->dt), have);
            }
            t->t.peak = t->p->peak[t->dt];
            t->t.mem_bw = t->p->mem_bw;
            t->t.elem = pdtype_size(t->dt);
            t->t.shard_dim = shard_dim;
            t->t.shard_n = (unsigned)shard_n;
            if (shard) {
                if (t->p->nlinks == 0)
                    return cmd_bad("--shard: profile %s has no links",
                                   t->p->id);
                t->link = link ? profile_find_link(t->p, link)
                               : &t->p->link[0];
                if (!t->link) {
                    char have[128] = "";
                    for (int q = 0; q < t->p->nlinks; q++)
                        snprintf(have + strlen(have),
                                 sizeof(have) - strlen(have), "%s%s",
                                 q ? ", " : "", t->p->link[q].name);
                    return cmd_bad("--link %s: profile %s has no such link "
                                   "(it has %s)",
                                   link, t->p->id, have);
                }
                t->t.link_bw = t->link->bandwidth * t->link->peer_links;
            }
            snprintf(t->label, sizeof(t->label), "%s/%s", t->p->id,
                     pdtype_name(t->dt));
        }
    }

    /* counts: exact, per dtype size in use */
    for (int s = 0; s < nspecs; s++)
        for (int i = 0; i < ntg; i++)
            if (model_count(&specs[s].es, &specs[s].ds, tg[i].t.elem,
                            &specs[s].c[tg[i].dt], &e)) {
                if (file) {
                    char msg[sizeof(e.msg)];
                    snprintf(msg, sizeof(msg), "%.100s:%d: %.900s", file,
                             specs[s].line, e.msg);
                    return cmd_error(RB_EINPUT, msg);
                }
                return cmd_error(RB_EINPUT, e.msg);
            }
    /* the sweep's largest point must not overflow either */
    if (sweep_dim >= 0) {
        dim_sizes hi = specs[0].ds;
        hi.size[sweep_dim] = sweep_b;
        model_counts tmp;
        for (int i = 0; i < ntg; i++)
            if (model_count(&specs[0].es, &hi, tg[i].t.elem, &tmp, &e))
                return cmd_error(RB_EINPUT, e.msg);
    }

    json_t *doc = json_pack("{s:s, s:i, s:[], s:[]}", "schema",
                            "roofbench.model", "schema_version", 1, "targets",
                            "specs");
    json_t *jt = json_object_get(doc, "targets");
    for (int i = 0; i < ntg; i++) {
        json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:i}",
                              "profile", tg[i].p->id, "name", tg[i].p->name,
                              "dtype", pdtype_name(tg[i].dt), "peak_flops",
                              tg[i].t.peak, "mem_bw", tg[i].t.mem_bw,
                              "ridge", tg[i].t.peak / tg[i].t.mem_bw,
                              "elem_bytes", (int)tg[i].t.elem);
        if (tg[i].link)
            json_object_set_new(
                o, "link",
                json_pack("{s:s, s:f, s:f, s:f, s:f}", "name",
                          tg[i].link->name, "bandwidth_one_way",
                          tg[i].link->bandwidth, "peer_links",
                          tg[i].link->peer_links, "used_bw", tg[i].t.link_bw,
                          "network_ridge", tg[i].t.peak / tg[i].t.link_bw));
        json_array_append_new(jt, o);
    }

    /* ---- one spec (or each line of the file) --------------------------- */
    double tot_flops[MAX_TARGETS * PD_N] = {0}, tot_bytes[MAX_TARGETS * PD_N] = {0},
           tot_t[MAX_TARGETS * PD_N] = {0}, tot_comm[MAX_TARGETS * PD_N] = {0};
    int tot_bind[MAX_TARGETS * PD_N][3] = {{0}};
    for (int s = 0; s < nspecs; s++) {
        const spec_entry *se = &specs[s];
        json_t *js = json_pack("{s:s, s:{}, s:[], s:[], s:[]}", "spec",
                               se->es.text, "sizes", "dimensions", "reuse",
                               "evaluations");
        if (file)
            json_object_set_new(js, "line", json_integer(se->line));
        char sizes_txt[512] = "";
        for (int i = 0; i < se->es.ndims; i++) {
            const char l = se->es.dims[i];
            const uint64_t v = se->ds.size[einsum_index(l)];
            json_object_set_new(json_object_get(js, "sizes"),
                                (char[]){l, '\0'}, json_integer((json_int_t)v));
            json_array_append_new(
                json_object_get(js, "dimensions"),
                json_pack("{s:s, s:s, s:I}", "letter", (char[]){l, '\0'},
                          "kind",
                          dim_kind_name(einsum_kind(&se->es, l)), "size",
                          (json_int_t)v));
            snprintf(sizes_txt + strlen(sizes_txt),
                     sizeof(sizes_txt) - strlen(sizes_txt), " %c=%llu", l,
                     (unsigned long long)v);
        }
        char reuse[2][512];
        for (int o = 0; o < 2; o++) {
            reuse_text(&se->es, &se->ds, o, reuse[o], sizeof(reuse[o]));
            json_array_append_new(json_object_get(js, "reuse"),
                                  json_string(reuse[o]));
        }
        if (!json && !file) {
            printf("%s:%s\n", se->es.text, sizes_txt);
            printf("  dimensions:");
            for (int i = 0; i < se->es.ndims; i++)
                printf(" %c %s%s", se->es.dims[i],
                       dim_kind_name(einsum_kind(&se->es, se->es.dims[i])),
                       i + 1 < se->es.ndims ? "," : "\n");
            printf("  reuse: operand %s; operand %s\n", reuse[0], reuse[1]);
            /* counts per element size in use */
            int shown[PD_N] = {0};
            for (int i = 0; i < ntg; i++) {
                const pdtype d = tg[i].dt;
                unsigned sz = pdtype_size(d);
                int dup = 0;
                for (int q = 0; q < PD_N; q++)
                    dup |= shown[q] && pdtype_size((pdtype)q) == sz;
                if (dup)
                    continue;
                shown[d] = 1;
                const model_counts *mc = &se->c[d];
                printf("  %u-byte elements (%s): FLOPs %llu, bytes %llu "
                       "(operands %llu + %llu, output %llu elements), "
                       "intensity %.4g FLOP/B\n",
                       sz, pdtype_name(d), (unsigned long long)mc->flops,
                       (unsigned long long)mc->bytes,
                       (unsigned long long)mc->elems[0],
                       (unsigned long long)mc->elems[1],
                       (unsigned long long)mc->elems[2],
                       (double)mc->flops / (double)mc->bytes);
            }
            if (shard)
                printf("  sharded: %c over %llu chips, partial sums "
                       "all-reduced over a ring (per chip below)\n",
                       shard[0], (unsigned long long)shard_n);
            printf("\n%-20s %10s %10s %8s %9s %11s %11s %11s %-8s %11s %6s\n",
                   "profile/dtype", "peak", "mem B/s", "ridge", "intensity",
                   "T_math", "T_mem", "T_comms", "bound", "attainable",
                   "%peak");
        }
        if (!json && file && s == 0) {
            printf("%s: %d specs\n", file, nspecs);
        }
        for (int i = 0; i < ntg; i++) {
            model_eval ev;
            model_evaluate(&se->es, &se->ds, &tg[i].t, &ev);
            json_array_append_new(json_object_get(js, "evaluations"),
                                  eval_json(&tg[i], &ev));
            tot_flops[i] += ev.flops;
            tot_bytes[i] += ev.bytes;
            tot_comm[i] += ev.comm_bytes;
            tot_t[i] += ev.t;
            tot_bind[i][ev.bind]++;
            if (!json && !file) {
                char a[32], b[32], cc[32];
                fmt_time(ev.t_math, a, sizeof(a));
                fmt_time(ev.t_mem, b, sizeof(b));
                fmt_time(ev.t_comms, cc, sizeof(cc));
                printf("%-20s %10.4g %10.4g %8.1f %9.4g %11s %11s %11s %-8s "
                       "%11.4g %5.1f%%\n",
                       tg[i].label, tg[i].t.peak, tg[i].t.mem_bw,
                       tg[i].t.peak / tg[i].t.mem_bw, ev.intensity, a, b, cc,
                       model_bind_name(ev.bind), ev.attainable,
                       100.0 * ev.attainable / tg[i].t.peak);
            }
        }
        /* sharded: where the split dimension pays for the trip */
        if (shard && !file) {
            json_t *jth = json_array();
            for (int i = 0; i < ntg; i++) {
                double xm, xc;
                const double x = model_threshold(&se->es, &se->ds, &tg[i].t,
                                                 shard_dim, &xm, &xc);
                json_array_append_new(
                    jth, json_pack("{s:s, s:s, s:f, s:f, s:f}", "profile",
                                   tg[i].p->id, "dtype",
                                   pdtype_name(tg[i].dt), "network",
                                   isinf(xc) ? -1.0 : xc, "memory",
                                   isinf(xm) ? -1.0 : xm, "both",
                                   isinf(x) ? -1.0 : x));
                if (!json) {
                    char a[48], b[48];
                    fmt_from(shard[0], xc, a, sizeof(a));
                    fmt_from(shard[0], xm, b, sizeof(b));
                    printf("  %s over %s (%.4g B/s one way x %g link%s): "
                           "compute-bound against the link %s, against "
                           "memory %s\n",
                           tg[i].label, tg[i].link->name,
                           tg[i].link->bandwidth, tg[i].link->peer_links,
                           tg[i].link->peer_links > 1 ? "s" : "", a, b);
                }
            }
            json_object_set_new(js, "shard_thresholds", jth);
            json_object_set_new(js, "shard",
                                json_pack("{s:s, s:I}", "dimension",
                                          (char[]){shard[0], '\0'}, "chips",
                                          (json_int_t)shard_n));
        }
        if (!json && file) {
            /* one line per spec per target */
            if (s == 0)
                printf("%5s %-22s %-20s %10s %10s %9s %11s %-8s\n", "line",
                       "spec", "profile/dtype", "FLOPs", "bytes",
                       "intensity", "time", "bound");
            for (int i = 0; i < ntg; i++) {
                model_eval ev;
                model_evaluate(&se->es, &se->ds, &tg[i].t, &ev);
                char a[32];
                fmt_time(ev.t, a, sizeof(a));
                printf("%5d %-22s %-20s %10.4g %10.4g %9.4g %11s %-8s\n",
                       se->line, i ? "" : se->es.text, tg[i].label, ev.flops,
                       ev.bytes, ev.intensity, a, model_bind_name(ev.bind));
            }
        }
        json_array_append_new(json_object_get(doc, "specs"), js);
    }
    if (file) {
        json_t *jtot = json_array();
        if (!json)
            printf("\ntotal (per chip%s):\n", shard ? ", sharded" : "");
        for (int i = 0; i < ntg; i++) {
            const double att = tot_t[i] > 0.0 ? tot_flops[i] / tot_t[i] : 0.0;
            json_array_append_new(
                jtot, json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:i, "
                                "s:i, s:i}",
                                "profile", tg[i].p->id, "dtype",
                                pdtype_name(tg[i].dt), "flops", tot_flops[i],
                                "bytes", tot_bytes[i], "comm_bytes",
                                tot_comm[i], "t_s", tot_t[i],
                                "attainable_flops", att, "math_bound",
                                tot_bind[i][BIND_MATH], "memory_bound",
                                tot_bind[i][BIND_MEM], "network_bound",
                                tot_bind[i][BIND_COMMS]));
            if (!json) {
                char a[32];
                fmt_time(tot_t[i], a, sizeof(a));
                printf("  %-20s FLOPs %.4g, bytes %.4g, time %s (the sum of "
                       "each spec's bound), attainable %.4g FLOP/s = %.1f%% "
                       "of peak; %d math-, %d memory-, %d network-bound\n",
                       tg[i].label, tot_flops[i], tot_bytes[i], a, att,
                       100.0 * att / tg[i].t.peak, tot_bind[i][BIND_MATH],
                       tot_bind[i][BIND_MEM], tot_bind[i][BIND_COMMS]);
            }
        }
        json_object_set_new(doc, "total", jtot);
    }

    /* ---- the sweep ------------------------------------------------------ */
    if (sweep_dim >= 0) {
        const spec_entry *se = &specs[0];
        const char l = sweep[0];
        uint64_t xs[MAX_SWEEP];
        int nx = 0;
        for (uint64_t x = sweep_a; x <= sweep_b && nx < MAX_SWEEP - 1; x *= 2) {
            xs[nx++] = x;
            if (x > UINT64_MAX / 2)
                break;
        }
        if (xs[nx - 1] != sweep_b)
            xs[nx++] = sweep_b;
        json_t *jsw = json_pack("{s:s, s:[], s:[]}", "dimension",
                                (char[]){l, '\0'}, "points", "thresholds");
        if (!json) {
            printf("\nsweep of %c: attainable FLOP/s per chip and the "
                   "binding roof\n%12c",
                   l, l);
            for (int i = 0; i < ntg; i++)
                printf("  %-21s", tg[i].label);
            printf("\n");
        }
        for (int k = 0; k < nx; k++) {
            dim_sizes ds = se->ds;
            ds.size[sweep_dim] = xs[k];
            json_t *jp = json_pack("{s:I, s:[]}", "size", (json_int_t)xs[k],
                                   "evaluations");
            if (!json)
                printf("%12llu", (unsigned long long)xs[k]);
            for (int i = 0; i < ntg; i++) {
                model_eval ev;
                model_evaluate(&se->es, &ds, &tg[i].t, &ev);
                json_array_append_new(json_object_get(jp, "evaluations"),
                                      eval_json(&tg[i], &ev));
                if (!json)
                    printf("  %10.4g %-10s", ev.attainable,
                           model_bind_name(ev.bind));
            }
            if (!json)
                printf("\n");
            json_array_append_new(json_object_get(jsw, "points"), jp);
        }
        for (int i = 0; i < ntg; i++) {
            double xm, xc;
            const double x =
                model_threshold(&se->es, &se->ds, &tg[i].t, sweep_dim, &xm, &xc);
            const double lim =
                model_intensity_limit(&se->es, &se->ds, &tg[i].t, sweep_dim);
            const double ridge = tg[i].t.peak / tg[i].t.mem_bw;
            const double xf = model_threshold_fixed_bytes(&se->es, &se->ds,
                                                          &tg[i].t, sweep_dim);
            json_array_append_new(
                json_object_get(jsw, "thresholds"),
                json_pack("{s:s, s:s, s:f, s:f, s:f, s:f}", "profile",
                          tg[i].p->id, "dtype", pdtype_name(tg[i].dt),
                          "compute_bound_from", isinf(x) ? -1.0 : x,
                          "fixed_bytes_approximation", isinf(xf) ? -1.0 : xf,
                          "ridge", ridge, "intensity_limit",
                          isinf(lim) ? -1.0 : lim));
            if (json)
                continue;
            if (isinf(x))
                printf("  %-20s never compute-bound: as %c grows the "
                       "intensity tends to %.4g FLOP/B, below the ridge "
                       "%.4g\n",
                       tg[i].label, l, lim, ridge);
            else
                printf("  %-20s compute-bound from %c >= %.6g (ridge %.4g "
                       "FLOP/B; counting only the bytes that do not grow "
                       "with %c: %c >= %.6g)%s\n",
                       tg[i].label, l, x, ridge, l, l, xf,
                       xc > xm ? "; the link binds longest" : "");
        }
        json_object_set_new(doc, "sweep", jsw);
    }

    if (json) {
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        if (text)
            puts(text);
        free(text);
    }
    json_decref(doc);
    return 0;
}
