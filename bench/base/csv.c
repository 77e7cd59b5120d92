#include "csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
