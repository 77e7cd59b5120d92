#include "csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static void sep(csv *c)
{
    if (c->col++ > 0)
        sb_putn(&c->sb, ",", 1);
}

void csv_str(csv *c, const char *s)
{
    sep(c);
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        sb_putn(&c->sb, s, strlen(s));
        return;
    }
    sb_putn(&c->sb, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            sb_putn(&c->sb, "\"\"", 2);
        else
            sb_putn(&c->sb, p, 1);
    }
    sb_putn(&c->sb, "\"", 1);
}

void csv_num(csv *c, const char *fmt, double x)
{
    sep(c);
    if (isfinite(x))
        sb_printf(&c->sb, fmt, x);
}

void csv_int(csv *c, unsigned long long x)
{
    sep(c);
    sb_printf(&c->sb, "%llu", x);
}

void csv_empty(csv *c)
{
    sep(c);
}

void csv_end(csv *c)
{
    sb_putn(&c->sb, "\n", 1);
    c->col = 0;
}

void csv_header(csv *c, const char *names)
{
    sb_putn(&c->sb, names, strlen(names));
    csv_end(c);
}

/* The fields of the record that starts at *p (text ends at end), as the
 * writer above quotes them; *p is left past the newline that ends it and
 * *lines counts every newline, a quoted one too. -1 when the text ends
 * inside the record (cut short, or a quote left open). */
static long record_fields(const char **p, const char *end, size_t *lines)
{
    long n = 1;
    int quoted = 0;
    for (const char *s = *p; s < end; s++) {
        /* a doubled quote inside a quoted field toggles twice */
        if (*s == '"')
            quoted = !quoted;
        else if (*s == ',' && !quoted)
            n++;
        if (*s != '\n')
            continue;
        ++*lines;
        if (!quoted) {
            *p = s + 1;
            return n;
        }
    }
    return -1;
}

/* The start of the record at p, printable, for a message. */
static void record_shown(const char *p, const char *end, char *out, size_t len)
{
    char raw[48];
    size_t n = 0;
    while (p + n < end && p[n] != '\n' && n + 1 < sizeof(raw))
        n++;
    memcpy(raw, p, n);
    raw[n] = '\0';
    text_escape(raw, out, len);
}

int csv_check(const char *text, size_t len, const char *header,
              const char *shown, rb_err *e)
{
    const size_t hl = strlen(header);
    /* the charts take columns by position: another version's columns
     * would be drawn as the wrong figures */
    if (len <= hl || memcmp(text, header, hl) != 0 || text[hl] != '\n')
        return rb_fail(e, RB_EINPUT,
                       "%s: line 1 is not the header this build writes, "
                       "'%.40s...' (a file of another roofbench version, "
                       "whose charts this one cannot draw)",
                       shown, header);
    const char *end = text + len, *p = text;
    size_t line = 1;
    const long want = record_fields(&p, end, &line);
    while (p < end) {
        const char *start = p;
        const size_t at = line;
        const long got = record_fields(&p, end, &line);
        if (got == want)
            continue;
        char begins[4 * 48];
        record_shown(start, end, begins, sizeof(begins));
        if (got < 0)
            return rb_fail(e, RB_EINPUT,
                           "%s: line %zu is cut short (no newline ends it, "
                           "or a quote is left open): '%s'",
                           shown, at, begins);
        return rb_fail(e, RB_EINPUT,
                       "%s: line %zu has %ld field%s, not the header's %ld: "
                       "'%s'",
                       shown, at, got, rb_plural(got), want, begins);
    }
    return RB_OK;
}
