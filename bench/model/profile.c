#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ROOFBENCH_PROFILES_DIR
#define ROOFBENCH_PROFILES_DIR "profiles"
#endif

static const struct {
    const char *name, *alias; /* fp32 and fp64: the kernels' names */
    unsigned size;
} pdtypes[PD_N] = {
    [PD_BF16] = {"bf16", NULL, 2}, [PD_FP16] = {"fp16", "f16", 2},
    [PD_TF32] = {"tf32", NULL, 4}, [PD_FP32] = {"fp32", NULL, 4},
    [PD_FP64] = {"fp64", NULL, 8}, [PD_FP8] = {"fp8", "f8", 1},
    [PD_INT8] = {"int8", "i8", 1},
};

pdtype pdtype_of(rb_dtype dt)
{
    return dt == RB_F32 ? PD_FP32 : PD_FP64;
}

int pdtype_to_kernel(pdtype d, rb_dtype *dt)
{
    for (int k = 0; k < RB_NDTYPES; k++)
        if (pdtype_of((rb_dtype)k) == d) {
            *dt = (rb_dtype)k;
            return 0;
        }
    return -1;
}

const char *pdtype_name(pdtype d)
{
    return (unsigned)d < PD_N ? pdtypes[d].name : "?";
}

unsigned pdtype_size(pdtype d)
{
    return (unsigned)d < PD_N ? pdtypes[d].size : 0;
}

int pdtype_parse(const char *s, pdtype *out)
{
    rb_dtype dt;
    if (rb_dtype_parse(s, &dt) == 0) {
        *out = pdtype_of(dt);
        return 0;
    }
    for (int d = 0; d < PD_N; d++)
        if (strcmp(s, pdtypes[d].name) == 0 ||
            (pdtypes[d].alias && strcmp(s, pdtypes[d].alias) == 0)) {
            *out = (pdtype)d;
            return 0;
        }
    return -1;
}

/* ---- the reader ------------------------------------------------------ */

/* Numbers a profile may hold, per section ("link.*" for every link). A
 * number NAME needs NAME.source and may have NAME.inferred and NAME.note. */
enum { F_TEXT, F_NUM, F_INT };
typedef struct {
    const char *section, *key;
    int type;
    /* numbers: outside [min, max] is absurd for one chip (FLOP/s, B/s,
     * bytes, links) */
    double min, max;
} field;

static const field fields[] = {
    {"chip", "name", F_TEXT, 0, 0},
    {"chip", "vendor", F_TEXT, 0, 0},
    {"chip", "kind", F_TEXT, 0, 0},
    {"chip", "headline", F_TEXT, 0, 0},
    {"chip", "note", F_TEXT, 0, 0},
    {"peak", "bf16", F_NUM, 1e9, 1e21},
    {"peak", "fp16", F_NUM, 1e9, 1e21},
    {"peak", "tf32", F_NUM, 1e9, 1e21},
    {"peak", "fp32", F_NUM, 1e9, 1e21},
    {"peak", "fp64", F_NUM, 1e9, 1e21},
    {"peak", "fp8", F_NUM, 1e9, 1e21},
    {"peak", "int8", F_NUM, 1e9, 1e21},
    {"memory", "bandwidth", F_NUM, 1e9, 1e16},
    {"memory", "capacity", F_NUM, 1e6, 1e18},
    {"memory", "onchip", F_NUM, 1e3, 1e18},
    {"link.*", "bandwidth", F_NUM, 1e6, 1e16},
    {"link.*", "links", F_INT, 1, 1e4},
    {"link.*", "peer_links", F_INT, 1, 1e4},
    {"link.*", "topology", F_TEXT, 0, 0},
};
enum { NFIELDS = sizeof(fields) / sizeof(fields[0]) };

typedef struct {
    const char *what;
    const char *text; /* the rest of the input                         */
    int line;         /* of the line last handed to inih              */
    int first_error;  /* line of the first problem, 0 while none      */
    rb_err *e;
    profile *p;
    /* which fields were seen (per link for link fields), with lines    */
    int seen[PROFILE_MAX_LINKS + 1][NFIELDS];
    int source_seen[PROFILE_MAX_LINKS + 1][NFIELDS];
    int section_line[PROFILE_MAX_LINKS + 1];
    int header_line; /* of the last [section] line                    */
    char headline[16];
    int headline_line;
} reader;

static int fail_at(reader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(reader *r, int line, const char *fmt, ...)
{
    if (r->first_error)
        return 0;
    r->first_error = line;
    char msg[sizeof(r->e->msg)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    rb_fail(r->e, RB_EINPUT, "%s:%d: %s", r->what, line, msg);
    return 0;
}

/* inih's line source: one line at a time, counted, and a line too long
 * for inih's buffer is an error instead of being cut in two. */
static char *next_line(char *str, int num, void *stream)
{
    reader *r = stream;
    if (r->first_error || *r->text == '\0')
        return NULL;
    const char *nl = strchr(r->text, '\n');
    size_t len = nl ? (size_t)(nl - r->text) + 1 : strlen(r->text);
    r->line++;
    if (len + 2 > (size_t)num) {
        fail_at(r, r->line, "line longer than %d characters", num - 3);
        return NULL;
    }
    memcpy(str, r->text, len);
    str[len] = '\0';
    r->text += len;
    if (str[strspn(str, " \t")] == '[')
        r->header_line = r->line;
    return str;
}

static int parse_number(reader *r, const char *key, const char *v,
                        const field *fd, double *out)
{
    errno = 0;
    char *end = NULL;
    /* decimal only: strtod would take 0x10 and inf too */
    const int decimal =
        *v != '\0' && strspn(v, "0123456789.eE+-") == strlen(v);
    const double x = decimal ? strtod(v, &end) : 0.0;
    if (!decimal || end == v || *end != '\0' || errno == ERANGE ||
        !isfinite(x) || x <= 0.0)
        return fail_at(r, r->line,
                       "%s = '%s': not a positive decimal number (write "
                       "1.97e14, 819e9, 16e9)",
                       key, v);
    if (fd->type == F_INT && x != floor(x))
        return fail_at(r, r->line, "%s = '%s': a whole number of links", key,
                       v);
    if (x > fd->max)
        return fail_at(r, r->line, "%s = '%s': above %g, not a figure of one "
                                   "chip",
                       key, v, fd->max);
    if (x < fd->min)
        return fail_at(r, r->line, "%s = '%s': below %g, not a figure of one "
                                   "chip",
                       key, v, fd->min);
    *out = x;
    return 1;
}

/* Whether s is 1 to maxlen lowercase letters, digits and characters of
 * extra: the names typed on the command line and printed in tables (a
 * profile's id, a link's). */
static int lower_name(const char *s, size_t maxlen, const char *extra)
{
    if (*s == '\0' || strlen(s) > maxlen)
        return 0;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              strchr(extra, *c)))
            return 0;
    return 1;
}

/* A link's name is typed after --link and printed in tables, as a
 * profile's id is, so it is held to the same characters but '.' (which
 * would read as a further level of the section), starting with a letter
 * or digit so that it never looks like a flag. */
static int valid_link_name(const char *name, size_t maxlen)
{
    return lower_name(name, maxlen, "-_") && name[0] != '-' &&
           name[0] != '_';
}

static int link_index(reader *r, const char *section)
{
    const char *name = section + 5;
    for (int i = 0; i < r->p->nlinks; i++)
        if (strcmp(r->p->link[i].name, name) == 0)
            return i;
    if (r->p->nlinks == PROFILE_MAX_LINKS)
        return fail_at(r, r->line, "more than %d links", PROFILE_MAX_LINKS) -
               1;
    const size_t maxlen = sizeof(r->p->link[0].name) - 1;
    if (!valid_link_name(name, maxlen))
        return fail_at(r, r->header_line,
                       "[%s]: '%s' is not a link name (lowercase letters, "
                       "digits, '-' and '_', at most %zu, as in [link.ici])",
                       section, name, maxlen) -
               1;
    const int i = r->p->nlinks++;
    snprintf(r->p->link[i].name, sizeof(r->p->link[i].name), "%s", name);
    r->p->link[i].peer_links = 1.0;
    r->section_line[i + 1] = r->header_line;
    return i;
}

/* The schema's field of KEY, KEY.source, KEY.inferred or KEY.note in
 * section (a link's section as link.*): its index, with the key's base
 * name in base and its suffix ("" for none); -1 once the failure is
 * recorded. */
static int key_field(reader *r, const char *section, int is_link,
                     const char *key, char *base, size_t blen_max,
                     const char **suffix)
{
    const char *dot = strchr(key, '.');
    *suffix = dot ? dot + 1 : "";
    const size_t blen = dot ? (size_t)(dot - key) : strlen(key);
    if (blen >= blen_max || (dot && **suffix == '\0')) {
        fail_at(r, r->line, "unknown key '%s' in [%s]", key, section);
        return -1;
    }
    memcpy(base, key, blen);
    base[blen] = '\0';
    for (int f = 0; f < NFIELDS; f++)
        if (strcmp(fields[f].section, is_link ? "link.*" : section) == 0 &&
            strcmp(fields[f].key, base) == 0)
            return f;
    fail_at(r, r->line,
            "unknown key '%s' in [%s] (profiles/README.md lists the schema)",
            key, section);
    return -1;
}

/* KEY.source (not empty; its line noted), KEY.inferred (yes or no) or
 * KEY.note, of field f. 1, or 0 on a failure. */
static int annotation(reader *r, int f, int slot, const char *key,
                      const char *section, const char *base,
                      const char *suffix, const char *value)
{
    if (fields[f].type == F_TEXT || (strcmp(suffix, "source") &&
                                     strcmp(suffix, "inferred") &&
                                     strcmp(suffix, "note")))
        return fail_at(r, r->line, "unknown key '%s' in [%s]", key, section);
    if (strcmp(suffix, "source") == 0) {
        if (*value == '\0')
            return fail_at(r, r->line, "%s is empty", key);
        r->source_seen[slot][f] = r->line;
    } else if (strcmp(suffix, "inferred") == 0) {
        if (strcmp(value, "yes") && strcmp(value, "no"))
            return fail_at(r, r->line, "%s = '%s': yes or no", key, value);
        pdtype d;
        if (strcmp(fields[f].section, "peak") == 0 &&
            pdtype_parse(base, &d) == 0)
            r->p->inferred[d] = strcmp(value, "yes") == 0;
    }
    return 1;
}

/* A text field: the chip's name, vendor, kind or headline, or link li's
 * topology. 1, or 0 on a failure. */
static int text_value(reader *r, const char *section, int li,
                      const char *key, const char *base, const char *value)
{
    profile *p = r->p;
    if (*value == '\0')
        return fail_at(r, r->line, "%s is empty", key);
    if (li >= 0) {
        snprintf(p->link[li].topology, sizeof(p->link[li].topology), "%s",
                 value);
    } else if (strcmp(section, "chip") == 0) {
        if (strcmp(base, "name") == 0)
            snprintf(p->name, sizeof(p->name), "%s", value);
        else if (strcmp(base, "vendor") == 0)
            snprintf(p->vendor, sizeof(p->vendor), "%s", value);
        else if (strcmp(base, "kind") == 0) {
            if (strcmp(value, "tpu") && strcmp(value, "gpu") &&
                strcmp(value, "apple") && strcmp(value, "cpu"))
                return fail_at(r, r->line,
                               "kind = '%s': tpu, gpu, apple or cpu", value);
            snprintf(p->kind, sizeof(p->kind), "%s", value);
        } else if (strcmp(base, "headline") == 0) {
            snprintf(r->headline, sizeof(r->headline), "%s", value);
            r->headline_line = r->line;
        }
    }
    return 1;
}

/* A number field's value x, into the peak, the memory or link li. */
static void number_value(profile *p, const char *section, int li,
                         const char *base, double x)
{
    if (strcmp(section, "peak") == 0) {
        pdtype d = PD_BF16;
        if (pdtype_parse(base, &d) == 0)
            p->peak[d] = x;
    } else if (strcmp(section, "memory") == 0) {
        if (strcmp(base, "bandwidth") == 0)
            p->mem_bw = x;
        else if (strcmp(base, "capacity") == 0)
            p->mem_capacity = x;
        else
            p->onchip_bytes = x;
    } else if (strcmp(base, "bandwidth") == 0) {
        p->link[li].bandwidth = x;
    } else if (strcmp(base, "links") == 0) {
        p->link[li].links = x;
    } else {
        p->link[li].peer_links = x;
    }
}

static int handle(void *user, const char *section, const char *key,
                  const char *value)
{
    reader *r = user;
    if (r->first_error)
        return 0;
    /* Every value is text someone typed (the line ends at a newline): a
     * control byte, a tab or an escape, is an editing accident, and the
     * free-text fields (the chip's name, its sources) would carry it into
     * the documents. Quotes stay allowed: those fields are only written
     * through the JSON, CSV and HTML escapers, and charts label by id. */
    for (const char *c = value; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return fail_at(r, r->line,
                           "%s: a control character (byte 0x%02x) in the "
                           "value",
                           key, (unsigned)(unsigned char)*c);
    const int is_link = strncmp(section, "link.", 5) == 0;
    int li = -1;
    if (is_link && (li = link_index(r, section)) < 0)
        return 0;
    char base[64];
    const char *suffix;
    const int f =
        key_field(r, section, is_link, key, base, sizeof(base), &suffix);
    if (f < 0)
        return 0;
    const int slot = is_link ? li + 1 : 0;
    if (*suffix)
        return annotation(r, f, slot, key, section, base, suffix, value);
    if (r->seen[slot][f])
        return fail_at(r, r->line, "'%s' in [%s] given twice (first on line "
                                   "%d)",
                       key, section, r->seen[slot][f]);
    r->seen[slot][f] = r->line;
    if (fields[f].type == F_TEXT)
        return text_value(r, section, li, key, base, value);
    double x = 0.0;
    if (!parse_number(r, key, value, &fields[f], &x))
        return 0;
    number_value(r->p, section, li, base, x);
    return 1;
}

int profile_parse_string(const char *text, const char *what, profile *p,
                         rb_err *e)
{
    memset(p, 0, sizeof(*p));
    reader *r = calloc(1, sizeof(*r));
    if (!r)
        return rb_fail(e, RB_EINPUT, "%s: out of memory", what);
    r->what = what;
    r->text = text;
    r->e = e;
    r->p = p;
    const int bad = ini_parse_stream(next_line, r, handle, r);
    int rc = RB_OK;
    if (r->first_error) {
        rc = RB_EINPUT;
    } else if (bad) {
        /* inih's own complaint: a line that is not [section] or key = value */
        rc = rb_fail(e, RB_EINPUT,
                     "%s:%d: not a [section] or a key = value line", what,
                     bad < 0 ? r->line : bad);
    }
    /* every number cited; the fields every profile needs */
    for (int slot = 0; !rc && slot <= p->nlinks; slot++)
        for (int f = 0; !rc && f < NFIELDS; f++)
            if (r->seen[slot][f] && fields[f].type != F_TEXT &&
                !r->source_seen[slot][f])
                rc = rb_fail(e, RB_EINPUT,
                             "%s:%d: %s has no %s.source (every number "
                             "cites where it comes from)",
                             what, r->seen[slot][f], fields[f].key,
                             fields[f].key);
    static const struct {
        const char *section, *key;
    } required[] = {{"chip", "name"},
                    {"chip", "kind"},
                    {"chip", "headline"},
                    {"memory", "bandwidth"}};
    for (size_t q = 0; !rc && q < sizeof(required) / sizeof(required[0]);
         q++)
        for (int f = 0; f < NFIELDS; f++)
            if (strcmp(fields[f].section, required[q].section) == 0 &&
                strcmp(fields[f].key, required[q].key) == 0 &&
                !r->seen[0][f])
                rc = rb_fail(e, RB_EINPUT,
                             "%s:%d: [%s] has no %s (a required field)", what,
                             r->line, required[q].section, required[q].key);
    for (int i = 0; !rc && i < p->nlinks; i++)
        if (p->link[i].bandwidth <= 0.0 || p->link[i].links <= 0.0)
            rc = rb_fail(e, RB_EINPUT,
                         "%s:%d: [link.%s] needs bandwidth and links", what,
                         r->section_line[i + 1], p->link[i].name);
        else if (p->link[i].peer_links > p->link[i].links)
            rc = rb_fail(e, RB_EINPUT,
                         "%s:%d: [link.%s] peer_links %g exceeds links %g",
                         what, r->section_line[i + 1], p->link[i].name,
                         p->link[i].peer_links, p->link[i].links);
    if (!rc) {
        int any = 0;
        for (int d = 0; d < PD_N; d++)
            any |= p->peak[d] > 0.0;
        if (!any)
            rc = rb_fail(e, RB_EINPUT, "%s:%d: [peak] gives no dtype", what,
                         r->line);
    }
    if (!rc && (pdtype_parse(r->headline, &p->headline) != 0 ||
                p->peak[p->headline] <= 0.0))
        rc = rb_fail(e, RB_EINPUT,
                     "%s:%d: headline = '%s': not a dtype with a peak in "
                     "[peak]",
                     what, r->headline_line, r->headline);
    free(r);
    return rc;
}

static int read_text(const char *path, char **out, rb_err *e)
{
    /* without blocking, and only a regular file: a FIFO named x.ini would
     * wait for a writer forever */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return rb_fail(e, RB_EINPUT, "%s: cannot open: %s", path,
                       strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return rb_fail(e, RB_EINPUT, "%s: not a regular file", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return rb_fail(e, RB_EINPUT, "%s: cannot open: %s", path,
                       strerror(errno));
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return rb_fail(e, RB_EINPUT, "%s: out of memory", path);
        }
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1)
            break;
        if (cap > (1u << 20)) {
            free(buf);
            fclose(f);
            return rb_fail(e, RB_EINPUT, "%s: larger than 1 MiB", path);
        }
        cap *= 2;
        buf = realloc(buf, cap);
    }
    const int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return rb_fail(e, RB_EINPUT, "%s: read error", path);
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        return rb_fail(e, RB_EINPUT, "%s: holds a NUL byte: not a text file",
                       path);
    }
    *out = buf;
    return RB_OK;
}

static int valid_id(const char *id)
{
    return lower_name(id, 63, "-_.") && id[0] != '.';
}

static int load_file(const char *path, const char *id, profile *p,
                     rb_err *e)
{
    char *text = NULL;
    int rc = read_text(path, &text, e);
    if (rc)
        return rc;
    rc = profile_parse_string(text, path, p, e);
    free(text);
    if (!rc) {
        snprintf(p->id, sizeof(p->id), "%s", id);
        snprintf(p->file, sizeof(p->file), "%s", path);
    }
    return rc;
}

int profile_load(const char *dir, const char *id, profile *p, rb_err *e)
{
    if (!valid_id(id))
        return rb_fail(e, RB_EINPUT,
                       "--profile '%s': not a profile name (roofbench "
                       "profiles lists them)",
                       id);
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.ini", dir, id);
    struct stat st;
    if (lstat(path, &st) != 0)
        return rb_fail(e, RB_EINPUT,
                       "--profile '%s': unknown profile (no %s; roofbench "
                       "profiles lists them)",
                       id, path);
    return load_file(path, id, p, e);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int profile_load_all(const char *dir, profile **out, size_t *n, rb_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return rb_fail(e, RB_EINPUT, "%s: cannot open the profiles folder: %s",
                       dir, strerror(errno));
    char *names[256];
    size_t count = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && count < 256) {
        const size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".ini") == 0 &&
            de->d_name[0] != '.') {
            names[count] = strndup(de->d_name, len - 4);
            if (names[count])
                count++;
        }
    }
    closedir(d);
    qsort(names, count, sizeof(names[0]), cmp_str);
    profile *ps = calloc(count ? count : 1, sizeof(*ps));
    int rc = ps ? RB_OK : rb_fail(e, RB_EINPUT, "out of memory");
    for (size_t i = 0; i < count && !rc; i++) {
        /* every file of the folder, named as a file (no --profile asked
         * for it) */
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.ini", dir, names[i]);
        rc = valid_id(names[i])
                 ? load_file(path, names[i], &ps[i], e)
                 : rb_fail(e, RB_EINPUT,
                           "%s: not a profile name (lowercase letters, "
                           "digits, '-', '_' and '.')",
                           path);
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    if (rc) {
        free(ps);
        return rc;
    }
    *out = ps;
    *n = count;
    return RB_OK;
}

const char *profile_dir(const char *flag_value)
{
    /* An empty value is the caller's to refuse (the flag table does), not
     * a way to ask for the default folder. */
    if (flag_value)
        return flag_value;
    const char *env = getenv("ROOFBENCH_PROFILES");
    if (env && *env)
        return env;
    /* a fixed size whatever the source tree's path: the layout of the
     * constants the kernels read must not move with it (check's counts) */
    static const char dir[4096] = ROOFBENCH_PROFILES_DIR;
    return dir;
}

const profile_link *profile_find_link(const profile *p, const char *name)
{
    for (int i = 0; i < p->nlinks; i++)
        if (strcmp(p->link[i].name, name) == 0)
            return &p->link[i];
    return NULL;
}

double profile_ridge(const profile *p, pdtype d)
{
    return p->peak[d] > 0.0 && p->mem_bw > 0.0 ? p->peak[d] / p->mem_bw : 0.0;
}
