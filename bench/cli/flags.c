#include "flags.h"

#include <getopt.h>
#include <string.h>

#include "parse.h"
#include "text.h"
#include "timer.h"

static int find(const flag_table *t, const char *name)
{
    for (size_t i = 0; i < t->nflags; i++)
        if (strcmp(t->flags[i].name, name) == 0)
            return (int)i;
    return -1;
}

int flags_given(const flag_table *t, const flag_seen *seen, const char *name)
{
    const int i = find(t, name);
    return i >= 0 && (seen->given >> i) & 1;
}

const char *flags_text(const flag_table *t, const flag_seen *seen,
                       const char *name)
{
    const int i = find(t, name);
    if (i < 0)
        return NULL;
    return (seen->given >> i) & 1 ? seen->raw[i] : t->flags[i].def;
}

/* Stores a value of flag f into opts (NULL: the flag's zero: 0, NULL). */
static int store(const flag_spec *f, const char *value, void *opts, rb_err *e)
{
    char flag[64];
    snprintf(flag, sizeof(flag), "--%s", f->name);
    char *dst = (char *)opts + f->off;
    switch (f->type) {
    case FLAG_SWITCH:
        *(int *)dst = value != NULL;
        return RB_OK;
    case FLAG_TEXT:
        /* An empty file or folder name must not read as the flag left
         * out, which falls back to a default the user did not ask for. */
        if (value && f->nonempty && *value == '\0')
            return rb_fail(e, RB_EINPUT, "%s: a value is required", flag);
        *(const char **)dst = value;
        return RB_OK;
    case FLAG_COUNT:
        *(uint64_t *)dst = 0; /* not given, no default */
        return value ? parse_count(flag, value, f->cmin, f->cmax,
                                   (uint64_t *)dst, e)
                     : RB_OK;
    case FLAG_REAL:
        *(double *)dst = 0.0;
        return value ? parse_real(flag, value, f->rmin, f->rmax, f->unit,
                                  (double *)dst, e)
                     : RB_OK;
    }
    return RB_OK;
}

/* The defaults of the flags that were not given: def_quick under --quick,
 * else def, parsed like a value. */
static int defaults(const flag_table *t, const flag_seen *seen, void *opts,
                    rb_err *e)
{
    const int quick = flags_given(t, seen, "quick");
    for (size_t i = 0; i < t->nflags; i++) {
        const flag_spec *f = &t->flags[i];
        if ((seen->given >> i) & 1)
            continue;
        const char *v = quick && f->def_quick ? f->def_quick : f->def;
        if (f->type == FLAG_SWITCH)
            v = NULL;
        const int rc = store(f, v, opts, e);
        if (rc)
            return rb_fail(e, RB_EINPUT, "internal: the default of --%s: %s",
                           f->name, e->msg);
    }
    return RB_OK;
}

/* Whether the element arg ("--name" or "--name=value") spells name out:
 * getopt_long also takes any unambiguous prefix of a long option (--thr
 * for --threads), and a prefix that picks one flag in a command may pick
 * another in the next (--w: --width in ceilings, --weights in sweep),
 * against one flag meaning one thing everywhere. */
static int spelled_out(const char *arg, const char *name)
{
    const size_t n = strcspn(arg + 2, "=");
    return n == strlen(name) && strncmp(arg + 2, name, n) == 0;
}

/* What getopt_long returned for the element arg, where it is no flag of
 * t to store: an option it did not know, a prefix of one (with a value or
 * none), or a flag given no value. RB_OK for the rest. */
static int refused(const flag_table *t, int c, const char *arg, rb_err *e)
{
    const int known = c == 'h'   ? spelled_out(arg, "help")
                      : c >= 256 ? spelled_out(arg, t->flags[c - 256].name)
                      : c == ':' ? find(t, arg + 2) >= 0
                                 : c == 1;
    if (!known)
        return rb_fail(e, RB_EINPUT,
                       "%s: unknown option '%.*s' (flags are written out in "
                       "full: see roofbench %s --help)",
                       t->command, (int)strcspn(arg, "="), arg, t->command);
    if (c == ':')
        return rb_fail(e, RB_EINPUT, "%s: option '%s' needs a value",
                       t->command, arg);
    return RB_OK;
}

int flags_parse(const flag_table *t, int argc, char **argv, void *opts,
                flag_seen *seen, int *help, rb_err *e)
{
    struct option opt[FLAGS_MAX + 2];
    memset(seen, 0, sizeof(*seen));
    seen->argc = argc;
    seen->argv = argv;
    *help = 0;
    for (size_t i = 0; i < t->nflags; i++)
        opt[i] = (struct option){
            t->flags[i].name,
            t->flags[i].type == FLAG_SWITCH ? no_argument : required_argument,
            NULL, 256 + (int)i};
    opt[t->nflags] = (struct option){"help", no_argument, NULL, 'h'};
    opt[t->nflags + 1] = (struct option){NULL, 0, NULL, 0};
    opterr = 0;
    optind = 1;
    int c, at = optind;
    while ((c = getopt_long(argc, argv, "-:", opt, NULL)) != -1) {
        /* the element this option came from (getopt_long's "-" mode
         * takes the arguments in order; a value in the next element has
         * moved optind past it as well) */
        const char *const arg = argv[at];
        at = optind;
        if (refused(t, c, arg, e))
            return RB_EINPUT;
        if (c == 'h') {
            *help = 1;
            flags_help(t, stdout);
            return RB_OK;
        }
        if (c == 1) {
            if (!t->positionals)
                return rb_fail(e, RB_EINPUT, "%s: unexpected argument '%s'",
                               t->command, optarg);
            if (seen->npos < (int)(sizeof(seen->pos) / sizeof(seen->pos[0])))
                seen->pos[seen->npos++] = optarg;
            continue;
        }
        const int i = c - 256;
        if ((seen->given >> i) & 1)
            return rb_fail(e, RB_EINPUT, "%s: --%s given twice", t->command,
                           t->flags[i].name);
        seen->given |= 1ull << i;
        seen->raw[i] = optarg;
        const int rc =
            store(&t->flags[i], t->flags[i].type == FLAG_SWITCH ? "" : optarg,
                  opts, e);
        if (rc)
            return rc;
    }
    /* after "--", the rest are arguments, not flags */
    for (; optind < argc; optind++) {
        if (!t->positionals)
            return rb_fail(e, RB_EINPUT, "%s: unexpected argument '%s'",
                           t->command, argv[optind]);
        if (seen->npos < (int)(sizeof(seen->pos) / sizeof(seen->pos[0])))
            seen->pos[seen->npos++] = argv[optind];
    }
    return defaults(t, seen, opts, e);
}

int flags_start(const flag_table *t, int argc, char **argv, void *opts,
                flag_seen *seen, rb_err *e)
{
    int help;
    if (flags_parse(t, argc, argv, opts, seen, &help, e))
        return 2;
    return help ? 0 : -1;
}

/* ---- help
 * -------------------------------------------------------------------- */

/* Writes text from column indent, wrapped at 78 columns, the first line
 * starting at column col. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        const size_t w = strcspn(p, " ");
        if (w == 0)
            break;
        if (col > indent && col + 1 + (int)w > 78) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        } else if (col < indent) {
            fprintf(f, "%*s", indent - col, "");
            col = indent;
        }
        fwrite(p, 1, w, f);
        col += (int)w;
        p += w;
    }
    fputc('\n', f);
}

static void flag_help(const flag_spec *s, FILE *f)
{
    char head[64], text[1024];
    snprintf(head, sizeof(head), "  --%s%s%s", s->name, s->meta ? " " : "",
             s->meta ? s->meta : "");
    size_t n = (size_t)snprintf(text, sizeof(text), "%s", s->help);
    if (s->def_doc)
        snprintf(text + n, sizeof(text) - n, " (default: %s)", s->def_doc);
    else if (s->def && s->def_quick)
        snprintf(text + n, sizeof(text) - n, " (default %s; --quick %s)",
                 s->def, s->def_quick);
    else if (s->def)
        snprintf(text + n, sizeof(text) - n, " (default %s)", s->def);
    fputs(head, f);
    const int col = (int)strlen(head);
    if (col >= 20) {
        fputc('\n', f);
        wrap(f, text, 0, 20);
    } else {
        wrap(f, text, col, 20);
    }
}

void flags_help(const flag_table *t, FILE *f)
{
    fprintf(f, "%s\n\n", t->usage);
    if (t->intro)
        fprintf(f, "%s\n\n", t->intro);
    for (size_t i = 0; i < t->nflags; i++)
        flag_help(&t->flags[i], f);
    fprintf(f, "  --help            this text\n");
    if (t->epilog)
        fprintf(f, "\n%s\n", t->epilog);
}

/* ---- shared values
 * ----------------------------------------------------------- */

int flags_kernels(const char *flag, const char *list, unsigned ops,
                  const char *wrong_op, int sorted, const rb_kernel **out,
                  size_t *n, size_t max, rb_err *e)
{
    char buf[1024], *items[64];
    const int k = parse_list(flag, list, buf, sizeof(buf), items, 64, e);
    if (k < 0)
        return RB_EINPUT;
    int want[HARNESS_MAX_KERNELS] = {0};
    const char *want_by[HARNESS_MAX_KERNELS] = {0};
    *n = 0;
    for (int i = 0; i < k; i++) {
        /* a kernel's own name wins ("dot" is the kernel dot); otherwise an
         * operation's name selects all its kernels ("matmul") */
        const rb_kernel *exact = rb_kernel_find(items[i]);
        if (exact && !((ops >> exact->op) & 1))
            return rb_fail(e, RB_EINPUT, "%s '%s': %s", flag, items[i],
                           wrong_op);
        int matched = 0;
        for (size_t r = 0; r < rb_nkernels && r < HARNESS_MAX_KERNELS; r++) {
            const rb_kernel *kr = &rb_kernels[r];
            const int pick =
                kr == exact || (!exact && (ops >> kr->op) & 1 &&
                                (strcmp(items[i], "all") == 0 ||
                                 strcmp(items[i], rb_op_name(kr->op)) == 0));
            if (!pick)
                continue;
            matched = 1;
            /* "dot,all" or "matmul,matmul_row": a kernel named twice,
             * through an operation or all, is refused like "dot,dot" */
            if (want[r])
                return rb_fail(e, RB_EINPUT,
                               "%s '%s': %s is given twice ('%s' includes "
                               "it)",
                               flag, list, kr->name,
                               kr == exact ? want_by[r] : items[i]);
            want[r] = 1;
            want_by[r] = items[i];
            if (!sorted && *n < max)
                out[(*n)++] = kr;
        }
        if (!matched)
            return rb_fail(e, RB_EINPUT,
                           "%s '%s': unknown kernel (see roofbench list; "
                           "operations dot, matvec, matmul, batched; or all)",
                           flag, items[i]);
    }
    for (size_t r = 0; sorted && r < rb_nkernels && r < HARNESS_MAX_KERNELS;
         r++)
        if (want[r] && *n < max)
            out[(*n)++] = &rb_kernels[r];
    return RB_OK;
}

json_t *flags_command_json(const char *command, int argc, char **argv)
{
    json_t *cmd = json_array();
    json_array_append_new(cmd, json_string("roofbench"));
    json_array_append_new(cmd, json_string(command));
    for (int i = 1; i < argc; i++) {
        json_t *v = json_string(argv[i]);
        if (!v) {
            char buf[1024];
            text_escape(argv[i], buf, sizeof(buf));
            v = json_string(buf);
        }
        json_array_append_new(cmd, v);
    }
    return cmd;
}

int flags_threads(const rb_machine *m, const char *list, int *out, int max,
                  int *n, rb_err *e)
{
    char dflt[32];
    snprintf(dflt, sizeof(dflt), m->ncores > 1 ? "1,%d" : "1", m->ncores);
    return parse_threads("--threads", list ? list : dflt, m->ncores, out, max,
                         n, e);
}

int flags_events(const rb_machine *m, const char *list, int f64_first,
                 counters_events *ev, rb_err *e)
{
    const int dflt = strcmp(list, "default") == 0;
    return counters_resolve(
        dflt ? counters_default_events(m->cpu.vendor, f64_first) : list, ev,
        e);
}

int flags_min_time(double seconds, rb_err *e)
{
    timer_info clk;
    timer_probe(&clk);
    if (seconds < 1000.0 * clk.measured_s)
        return rb_fail(e, RB_EINPUT,
                       "--min-time %g: below 1000 steps of this clock (%g s "
                       "each)",
                       seconds, clk.measured_s);
    return RB_OK;
}
