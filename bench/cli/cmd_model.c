/* roofbench model: the analytic roofline of any two-operand contraction on
 * one or several profiles: counts, the three times, the binding roof, a
 * sweep of one dimension with the size where the bound changes, a sharded
 * contraction over a link, and a whole layer billed from a file. Flags and
 * arguments become a study (model/study.h), which the reporters render. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "flags.h"
#include "interrupt.h"
#include "network.h"
#include "parse.h"
#include "profile.h"
#include "report_model.h"
#include "session.h"
#include "study.h"
#include "text.h"

typedef struct {
    const char *profile, *dtype, *sweep, *shard, *link, *file, *ceilings,
        *network, *profiles;
    int json;
} model_opts;

#define OFF(f) offsetof(model_opts, f)

static const flag_spec model_flags[] = {
    {.name = "profile",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(profile),
     .def = "tpu-v5e,h100-sxm",
     .help = "profiles by name (roofbench profiles lists them), or host for "
             "this machine"},
    {.name = "dtype",
     .meta = "LIST",
     .type = FLAG_TEXT,
     .off = OFF(dtype),
     .def_doc = "each profile's headline dtype",
     .help = "bf16, fp16, tf32, fp32 (f32), fp64 (f64), fp8, int8"},
    {.name = "sweep",
     .meta = "D=A:B",
     .type = FLAG_TEXT,
     .off = OFF(sweep),
     .help = "sizes of D from A to B, doubling, with the size where the "
             "product turns compute-bound on each profile"},
    {.name = "shard",
     .meta = "D:N",
     .type = FLAG_TEXT,
     .off = OFF(shard),
     .help = "split contracting dimension D over N chips; the partial sums "
             "are all-reduced over --link (a ring: each chip sends 2(N-1)/N "
             "of the output one way)"},
    {.name = "link",
     .meta = "NAME",
     .type = FLAG_TEXT,
     .off = OFF(link),
     .def_doc = "each profile's first",
     .help = "ici, nvlink, infinity, pcie, dcn: a link the profiles have "
             "(the host's, with --network: mpi, mpi-p2p)"},
    {.name = "file",
     .meta = "FILE",
     .type = FLAG_TEXT,
     .off = OFF(file),
     .nonempty = 1,
     .help = "one SPEC [SIZE...] per line (# comments), billed with a total; "
             "SIZEs on the command line apply to every line that does not "
             "give its own"},
    FLAG_CEILINGS(model_opts, ceilings,
                  "the host roofline for --profile host (else it is measured "
                  "now, about 25 s, and not saved)"),
    {.name = "network",
     .meta = "RUN",
     .type = FLAG_TEXT,
     .off = OFF(network),
     .nonempty = 1,
     .help = "a `roofbench network` run (its folder or network.json): "
             "--profile host becomes one rank of it (the 1-thread roofs, "
             "from the run's ceilings.json unless --ceilings) with the links "
             "it measured: mpi (as the all-reduce sees it) and mpi-p2p "
             "(ping-pong)"},
    FLAG_PROFILES(model_opts, profiles),
    FLAG_JSON(model_opts, json, "print a JSON document instead of the tables"),
};

static const flag_table model_table = {
    "model",
    "usage: roofbench model SPEC SIZE... [options]\n"
    "       roofbench model --file FILE [SIZE...] [options]",
    "The analytic roofline of a contraction of two operands, written "
    "einsum-style,\non the profiles of profiles/ or on this machine's "
    "measured roofline:\n\n"
    "  roofbench model 'bp,pm->bm' b=240 p=8192 m=8192 --dtype bf16 "
    "--profile tpu-v5e\n\n"
    "FLOPs are 2 x the product of every distinct dimension; bytes are each "
    "operand\nread once and the output written once at the dtype's size. "
    "Prints the\ncounts, the intensity, T_math = FLOPs / peak, T_mem = bytes "
    "/ bandwidth, the\nbound max(T_math, T_mem[, T_comms]), the binding roof "
    "and the attainable\nFLOP/s; classifies each dimension (batch, "
    "contracting, free, summed) and says\nwhich operand is reused across "
    "which dimension.\n\n"
    "  SIZE              LETTER=N for every dimension (K, M, G suffixes, "
    "x1024)",
    model_flags,
    sizeof(model_flags) / sizeof(model_flags[0]),
    "Exit status: 0 success, 2 bad input.",
    1};

/* ---- specs -----------------------------------------------------------------
 */

static int parse_spec_line(char *line, const dim_sizes *global, int lineno,
                           const char *file, study_spec *se, rb_err *e)
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
    /* a line's own size wins: d=128 for the heads of a layer whose d is
     * 4096 on the command line */
    for (int i = 0; i < EINSUM_LETTERS; i++)
        if (!se->ds.set[i] && global->set[i]) {
            se->ds.set[i] = 1;
            se->ds.size[i] = global->size[i];
        }
    se->line = lineno;
    return RB_OK;
}

/* One line of a spec file: comments dropped, blank lines skipped (*n
 * unchanged), else parsed into specs[*n]. */
static int read_spec_line(const char *path, char *line, size_t len, int lineno,
                          const dim_sizes *global, study_spec *specs, int *n,
                          rb_err *e)
{
    if (memchr(line, '\0', len))
        return rb_fail(e, RB_EINPUT, "%s:%d: a NUL byte (not a text file)",
                       path, lineno);
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    if (strspn(line, " \t\r\n") == strlen(line))
        return RB_OK;
    if (*n == STUDY_MAX_SPECS)
        return rb_fail(e, RB_EINPUT, "%s: more than %d specs", path,
                       STUDY_MAX_SPECS);
    const int rc = parse_spec_line(line, global, lineno, path, &specs[*n], e);
    if (!rc)
        (*n)++;
    return rc;
}

/* One line of f into buf with its newline, NUL bytes kept: its length,
 * 0 at the end, len - 1 when the line does not fit. */
static size_t read_line(FILE *f, char *buf, size_t len)
{
    size_t n = 0;
    int c;
    while (n + 1 < len && (c = getc(f)) != EOF) {
        buf[n++] = (char)c;
        if (c == '\n')
            break;
    }
    buf[n] = '\0';
    return n;
}

static int read_spec_file(const char *path, const dim_sizes *global,
                          study_spec *specs, int *n, rb_err *e)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rb_fail(e, RB_EINPUT, "--file %s: a folder, not a spec file",
                       path);
    FILE *f = fopen(path, "r");
    if (!f)
        return rb_fail(e, RB_EINPUT, "--file %s: cannot open", path);
    /* bounded: lines of 1022 characters, and enough of them for every spec
     * with comments between (a FILE of /dev/zero or `yes` ends here) */
    char line[1024];
    size_t len;
    int lineno = 0, rc = RB_OK;
    *n = 0;
    while (!rc && (len = read_line(f, line, sizeof(line))) > 0) {
        lineno++;
        if (len >= sizeof(line) - 1)
            rc =
                rb_fail(e, RB_EINPUT, "%s:%d: line longer than 1022 characters",
                        path, lineno);
        else if (lineno > 64 * STUDY_MAX_SPECS)
            rc = rb_fail(e, RB_EINPUT, "%s: more than %d lines", path,
                         64 * STUDY_MAX_SPECS);
        else
            rc = read_spec_line(path, line, len, lineno, global, specs, n, e);
    }
    fclose(f);
    if (!rc && *n == 0)
        rc = rb_fail(e, RB_EINPUT, "--file %s: holds no spec", path);
    return rc;
}

/* The positionals: the spec (unless --file) and sizes, in order. */
static int read_positionals(const flag_seen *seen, const char **spec,
                            dim_sizes *global, rb_err *e)
{
    memset(global, 0, sizeof(*global));
    *spec = NULL;
    for (int i = 0; i < seen->npos; i++) {
        const char *a = seen->pos[i];
        /* the first operand that is not a size is the spec; einsum_parse
         * names what is wrong with a malformed one */
        if (!*spec && (strstr(a, "->") || !strchr(a, '='))) {
            *spec = a;
            continue;
        }
        if (dim_sizes_parse(a, global, e))
            return RB_EINPUT;
    }
    return RB_OK;
}

static int read_specs(const model_opts *o, const flag_seen *seen, study *s,
                      dim_sizes *global, rb_err *e)
{
    const char *spec;
    if (read_positionals(seen, &spec, global, e))
        return RB_EINPUT;
    if (o->file && spec)
        return rb_fail(e, RB_EINPUT, "model: give a SPEC or --file, not both");
    if (!o->file && !spec)
        return rb_fail(e, RB_EINPUT,
                       "model: no SPEC (e.g. roofbench model 'bp,pm->bm' "
                       "b=240 p=8192 m=8192)");
    if (o->file && o->sweep)
        return rb_fail(e, RB_EINPUT,
                       "model: --sweep takes one SPEC, not --file");
    s->file = o->file;
    if (o->file)
        return read_spec_file(o->file, global, s->specs, &s->nspecs, e);
    if (einsum_parse(spec, &s->specs[0].es, e))
        return RB_EINPUT;
    s->specs[0].ds = *global;
    s->nspecs = 1;
    return RB_OK;
}

/* ---- sweep, sizes, shard ---------------------------------------------------
 */

static int read_sweep(const char *sweep, study *s, rb_err *e)
{
    s->sweep_dim = -1;
    if (!sweep)
        return RB_OK;
    const char *eq = strchr(sweep, '=');
    study_spec *sp = &s->specs[0];
    if (!eq || eq - sweep != 1 || einsum_index(sweep[0]) < 0)
        return rb_fail(e, RB_EINPUT,
                       "--sweep '%s': write D=START:END, e.g. b=1:4096", sweep);
    if (!strchr(sp->es.dims, sweep[0]))
        return rb_fail(e, RB_EINPUT,
                       "--sweep '%s': %c is not a dimension of "
                       "'%s'",
                       sweep, sweep[0], sp->es.text);
    if (parse_range("--sweep", eq + 1, 1, UINT64_MAX / 2, &s->sweep_a,
                    &s->sweep_b, e))
        return RB_EINPUT;
    s->sweep_dim = einsum_index(sweep[0]);
    if (sp->ds.set[s->sweep_dim])
        return rb_fail(e, RB_EINPUT,
                       "--sweep '%s': %c=%llu is given too; give %c once",
                       sweep, sweep[0],
                       (unsigned long long)sp->ds.size[s->sweep_dim], sweep[0]);
    sp->ds.set[s->sweep_dim] = 1;
    sp->ds.size[s->sweep_dim] = s->sweep_b;
    return RB_OK;
}

/* Every size given is used by some spec. */
static int check_sizes(const dim_sizes *global, const study *s, rb_err *e)
{
    for (int i = 0; i < EINSUM_LETTERS; i++) {
        if (!global->set[i])
            continue;
        const char l = einsum_letter(i);
        int used = 0;
        for (int k = 0; k < s->nspecs; k++)
            used |= strchr(s->specs[k].es.dims, l) != NULL;
        if (!used)
            return rb_fail(e, RB_EINPUT, "size %c=%llu: no dimension %c in %s",
                           l, (unsigned long long)global->size[i], l,
                           s->file ? "any spec of --file"
                                   : s->specs[0].es.text);
    }
    return RB_OK;
}

/* The shard: a contracting dimension of every spec, at least as large as
 * the chips, in a sweep too. */
static int check_shard(const char *shard, const study *s, rb_err *e)
{
    for (int k = 0; k < s->nspecs; k++) {
        const study_spec *sp = &s->specs[k];
        if (!strchr(sp->es.dims, shard[0]))
            return rb_fail(e, RB_EINPUT,
                           "--shard '%s': %c is not a dimension of '%s'", shard,
                           shard[0], sp->es.text);
        const dim_kind kind = einsum_kind(&sp->es, shard[0]);
        if (kind != DIM_CONTRACTING)
            return rb_fail(e, RB_EINPUT,
                           "--shard '%s': %c is a %s dimension of '%s'; only "
                           "a contracting one needs the partial-sum exchange "
                           "this models",
                           shard, shard[0], dim_kind_name(kind), sp->es.text);
        if (sp->ds.set[s->shard_dim] && sp->ds.size[s->shard_dim] < s->shard_n)
            return rb_fail(e, RB_EINPUT,
                           "--shard '%s': %c=%llu is smaller than %llu chips",
                           shard, shard[0],
                           (unsigned long long)sp->ds.size[s->shard_dim],
                           (unsigned long long)s->shard_n);
    }
    if (s->sweep_dim == s->shard_dim && s->sweep_a < s->shard_n)
        return rb_fail(e, RB_EINPUT,
                       "--sweep '%c=%llu:%llu': %c must be at least the %llu "
                       "chips of --shard %s",
                       shard[0], (unsigned long long)s->sweep_a,
                       (unsigned long long)s->sweep_b, shard[0],
                       (unsigned long long)s->shard_n, shard);
    return RB_OK;
}

static int read_shard(const model_opts *o, study *s, rb_err *e)
{
    s->shard_dim = -1;
    s->shard_n = 1;
    if (!o->shard)
        return o->link ? rb_fail(e, RB_EINPUT, "--link %s: only with --shard",
                                 o->link)
                       : RB_OK;
    const char *colon = strchr(o->shard, ':');
    if (!colon || colon - o->shard != 1 || einsum_index(o->shard[0]) < 0)
        return rb_fail(e, RB_EINPUT, "--shard '%s': write D:N, e.g. p:2",
                       o->shard);
    if (parse_count("--shard", colon + 1, 2, 1u << 20, &s->shard_n, e))
        return RB_EINPUT;
    s->shard_dim = einsum_index(o->shard[0]);
    return check_shard(o->shard, s, e);
}

/* ---- profiles and dtypes
 * ----------------------------------------------------- */

/* --network: the links a network run fitted, as the host's, read (and
 * checked) before anything is measured. */
static int read_links(const rb_machine *m, const char *run, profile_link *out,
                      rb_err *e)
{
    static const char *const member[2] = {"link", "link_p2p"},
                             *const name[2] = {"mpi", "mpi-p2p"};
    int found = 0;
    for (int i = 0; i < 2; i++) {
        net_link l;
        char label[128];
        /* a run of some parts has one link: the other is not added */
        const int rc = net_link_load(run, m->host, member[i], &l, label,
                                     sizeof(label), e);
        out[i].name[0] = 0;
        if (rc < 0)
            return RB_EINPUT;
        if (rc > 0)
            continue;
        found++;
        profile_link *pl = &out[i];
        memset(pl, 0, sizeof(*pl));
        snprintf(pl->name, sizeof(pl->name), "%s", name[i]);
        pl->bandwidth = l.bandwidth;
        pl->links = 1;
        pl->peer_links = 1;
        snprintf(pl->topology, sizeof(pl->topology),
                 "%.60s; measured: latency %.3g us, fit residuals %.0f%% rms",
                 label, l.latency * 1e6, 100 * l.rms_rel);
    }
    /* neither link: e says why the last is missing */
    return found ? RB_OK : RB_EINPUT;
}

/* The network run's ceilings.json, when --ceilings is not given. */
static const char *network_ceilings(const char *run, char *buf, size_t len)
{
    struct stat st;
    if (stat(run, &st) != 0)
        return NULL;
    if (S_ISDIR(st.st_mode))
        snprintf(buf, len, "%s/ceilings.json", run);
    else {
        snprintf(buf, len, "%s", run);
        char *slash = strrchr(buf, '/');
        if (slash)
            snprintf(slash + 1, len - (size_t)(slash + 1 - buf),
                     "ceilings.json");
        else
            snprintf(buf, len, "ceilings.json");
    }
    return access(buf, R_OK) == 0 ? buf : NULL;
}

/* The measured host: from --ceilings, or measured now on all cores. With
 * --network it is one rank: the 1-thread team, and the run's links. */
static int host_profile(const rb_machine *m, const model_opts *o, profile *p,
                        rb_err *e)
{
    char found[4096];
    profile_link links[2];
    if (o->network && read_links(m, o->network, links, e))
        return RB_EINPUT;
    const char *ceilings = o->ceilings;
    if (!ceilings && o->network)
        ceilings = network_ceilings(o->network, found, sizeof(found));
    session_roof r;
    int rc = session_roof_load(m, ceilings, &r, e);
    if (!rc && !ceilings) {
        const rb_dtype dts[2] = {RB_F32, RB_F64};
        const int one = 1;
        rc = session_measure_roofline(m, o->network ? &one : &m->ncores, 1,
                                      dts, 2, &r.roof, e);
        if (rc && interrupt_requested())
            return -interrupt_exit_status(interrupt_requested());
    }
    if (!rc && o->network) {
        /* one rank: keep the 1-thread team alone */
        size_t k = 0;
        for (size_t i = 0; i < r.roof.nteams; i++)
            if (r.roof.teams[i].threads == 1)
                r.roof.teams[k++] = r.roof.teams[i];
        if (!k)
            rc = rb_fail(e, RB_EINPUT,
                         "--network: the roofline has no 1-thread roofs (one "
                         "rank's)");
        r.roof.nteams = k;
    }
    if (!rc)
        rc = roofline_to_profile(&r.roof, RB_ACCESS_READ, p, e);
    for (int i = 0; !rc && o->network && i < 2; i++)
        if (links[i].name[0] && p->nlinks < PROFILE_MAX_LINKS)
            p->link[p->nlinks++] = links[i];
    session_roof_free(&r);
    return rc;
}

static int load_profiles(const rb_machine *m, const model_opts *o,
                         const flag_seen *seen, profile *out, int *n,
                         rb_err *e)
{
    char buf[1024], *items[STUDY_MAX_PROFILES];
    const int k = parse_list("--profile", o->profile, buf, sizeof(buf), items,
                             STUDY_MAX_PROFILES, e);
    if (k < 0)
        return RB_EINPUT;
    const char *dir = profile_dir(o->profiles);
    int host = 0;
    for (int i = 0; i < k; i++)
        host |= strcmp(items[i], "host") == 0;
    /* a flag that would change nothing was meant to change something */
    const char *which = o->network ? "--network: it gives the host's links"
                        : o->ceilings
                            ? "--ceilings: it gives the host's roofline"
                            : NULL;
    if (which && !host)
        return rb_fail(e, RB_EINPUT, "%s; %s--profile '%s' has no host", which,
                       flags_given(&model_table, seen, "profile")
                           ? ""
                           : "the default ",
                       o->profile);
    for (int i = 0; i < k; i++) {
        const int rc = strcmp(items[i], "host") == 0
                           ? host_profile(m, o, &out[i], e)
                           : profile_load(dir, items[i], &out[i], e);
        if (rc)
            return rc;
    }
    *n = k;
    return RB_OK;
}

static int read_dtypes(const char *list, pdtype *dts, int *n, rb_err *e)
{
    *n = 0;
    if (!list)
        return RB_OK;
    char buf[256], *items[PD_N];
    const int k = parse_list("--dtype", list, buf, sizeof(buf), items, PD_N, e);
    if (k < 0)
        return RB_EINPUT;
    for (int i = 0; i < k; i++) {
        if (pdtype_parse(items[i], &dts[*n]))
            return rb_fail(e, RB_EINPUT,
                           "--dtype '%s': unknown (bf16, fp16, tf32, fp32, "
                           "fp64, fp8, int8)",
                           items[i]);
        for (int j = 0; j < *n; j++)
            if (dts[j] == dts[*n])
                return rb_fail(e, RB_EINPUT, "--dtype: '%s' given twice",
                               items[i]);
        (*n)++;
    }
    return RB_OK;
}

/* ---- the command
 * --------------------------------------------------------------- */

static int make_study(const rb_machine *m, const model_opts *o,
                      const flag_seen *seen, study *s, profile *profs,
                      rb_err *e)
{
    dim_sizes global;
    pdtype dts[PD_N];
    int nprofs = 0, ndts = 0;
    int rc = read_specs(o, seen, s, &global, e);
    if (!rc)
        rc = read_sweep(o->sweep, s, e);
    if (!rc)
        rc = check_sizes(&global, s, e);
    if (!rc)
        rc = read_shard(o, s, e);
    if (!rc)
        rc = read_dtypes(o->dtype, dts, &ndts, e);
    if (!rc)
        rc = load_profiles(m, o, seen, profs, &nprofs, e);
    if (!rc)
        rc = study_targets(s, profs, nprofs, dts, ndts, o->link, e);
    if (!rc)
        rc = study_run(s, e);
    return rc;
}

static int model_main(const rb_machine *m, const void *opts,
                      const flag_seen *seen, rb_err *e)
{
    /* one command a process; the study is too large for the stack */
    static study s;
    static study_spec specs[STUDY_MAX_SPECS];
    static profile profs[STUDY_MAX_PROFILES];
    const model_opts *o = opts;
    s.specs = specs;
    int rc = make_study(m, o, seen, &s, profs, e);
    char *json = !rc && o->json ? report_model_json(&s, e) : NULL;
    if (!rc && o->json && json)
        puts(json);
    else if (!rc && o->json)
        rc = RB_EINPUT;
    else if (!rc)
        report_model_text(&s, stdout);
    free(json);
    return rc > 0 ? rc : rb_exit_status(rc);
}

const cmd_spec cmd_model = {&model_table, sizeof(model_opts), model_main, NULL};
