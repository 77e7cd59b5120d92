#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_count(const char *flag, const char *s, uint64_t min, uint64_t max,
                    uint64_t *out, rb_err *e)
{
    if (s == NULL || *s == '\0')
        return rb_fail(e, RB_EINPUT, "%s: a value is required", flag);
    if (!isdigit((unsigned char)s[0]))
        return rb_fail(e, RB_EINPUT,
                       "%s '%s': not a non-negative integer (expected digits "
                       "with an optional K, M or G suffix)",
                       flag, s);
    errno = 0;
    char *end = NULL;
    const unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return rb_fail(e, RB_EINPUT, "%s '%s': too large (at most %llu)", flag,
                       s, (unsigned long long)max);
    uint64_t mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mult = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mult = 1ull << 30;
    if (mult != 1)
        end++;
    if (*end != '\0')
        return rb_fail(e, RB_EINPUT,
                       "%s '%s': not a non-negative integer (expected digits "
                       "with an optional K, M or G suffix)",
                       flag, s);
    uint64_t r;
    if (__builtin_mul_overflow((uint64_t)v, mult, &r) || r > max)
        return rb_fail(e, RB_EINPUT, "%s '%s': too large (at most %llu)", flag,
                       s, (unsigned long long)max);
    if (r < min)
        return rb_fail(e, RB_EINPUT, "%s '%s': too small (at least %llu)",
                       flag, s, (unsigned long long)min);
    *out = r;
    return RB_OK;
}

int parse_real(const char *flag, const char *s, double min, double max,
                   const char *unit, double *out, rb_err *e)
{
    if (s == NULL || *s == '\0')
        return rb_fail(e, RB_EINPUT, "%s: a value is required", flag);
    errno = 0;
    char *end = NULL;
    /* decimal only: strtod would take 0x10, inf and nan too */
    const int decimal = strspn(s, "0123456789.eE+-") == strlen(s);
    const double v = decimal ? strtod(s, &end) : 0.0;
    if (!decimal || end == s || *end != '\0' || !isfinite(v) ||
        errno == ERANGE)
        return rb_fail(e, RB_EINPUT, "%s '%s': not a number%s%s", flag, s,
                       unit ? " of " : "", unit ? unit : "");
    if (v < min || v > max)
        return rb_fail(e, RB_EINPUT, "%s '%s': out of range (between %g and %g%s%s)",
                       flag, s, min, max, unit ? " " : "", unit ? unit : "");
    *out = v;
    return RB_OK;
}

int parse_fraction(const char *flag, const char *s, double max, double *out,
                   rb_err *e)
{
    char buf[64];
    const size_t n = s ? strlen(s) : 0;
    const int pct = n > 0 && s[n - 1] == '%';
    double v = 0.0;
    rb_err ignored;
    if (n == 0 || n >= sizeof(buf))
        return rb_fail(e, RB_EINPUT, "%s: a value is required", flag);
    memcpy(buf, s, n + 1);
    if (pct)
        buf[n - 1] = '\0';
    if (parse_real(flag, buf, 0.0, pct ? 100.0 * max : max, NULL, &v,
                   &ignored))
        return rb_fail(e, RB_EINPUT,
                       "%s '%s': a fraction (0.05) or a percentage (5%%) "
                       "from 0 to %g%%",
                       flag, s, 100.0 * max);
    *out = pct ? v / 100.0 : v;
    return RB_OK;
}

int parse_seconds(const char *flag, const char *s, double min, double max,
                      double *out, rb_err *e)
{
    return parse_real(flag, s, min, max, "seconds", out, e);
}

int parse_split(const char *flag, const char *s, char sep, int unique,
                char *buf, size_t buflen, char **items, int max, rb_err *e)
{
    if (s == NULL || *s == '\0')
        return rb_fail(e, RB_EINPUT, "%s: a value is required", flag);
    if (strlen(s) >= buflen)
        return rb_fail(e, RB_EINPUT, "%s: list too long (%zu characters)",
                       flag, strlen(s));
    strcpy(buf, s);
    int n = 0;
    char *p = buf;
    for (;;) {
        char *cut = strchr(p, sep);
        if (cut)
            *cut = '\0';
        if (*p == '\0')
            return rb_fail(e, RB_EINPUT, "%s '%s': empty item in the list",
                           flag, s);
        if (n == max)
            return rb_fail(e, RB_EINPUT, "%s '%s': more than %d items", flag,
                           s, max);
        for (int i = 0; unique && i < n; i++)
            if (strcmp(items[i], p) == 0)
                return rb_fail(e, RB_EINPUT, "%s: '%s' given twice", flag, p);
        items[n++] = p;
        if (!cut)
            break;
        p = cut + 1;
    }
    return n;
}

int parse_list(const char *flag, const char *s, char *buf, size_t buflen,
               char **items, int max, rb_err *e)
{
    return parse_split(flag, s, ',', 1, buf, buflen, items, max, e);
}

int parse_shape(const char *flag, const char *s, rb_shape *out, rb_err *e)
{
    char buf[256];
    char *items[4];
    const int n = parse_split(flag, s, ',', 0, buf, sizeof(buf), items, 4, e);
    if (n < 0)
        return n;
    if (n != 3)
        return rb_fail(e, RB_EINPUT,
                       "%s '%s': expected three sizes N,P,M for [N,P] x [P,M]",
                       flag, s);
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        const int rc =
            parse_count(flag, items[i], 1, SIZE_MAX, &v[i], e);
        if (rc)
            return rc;
    }
    out->n = v[0];
    out->p = v[1];
    out->m = v[2];
    return RB_OK;
}

int parse_range(const char *flag, const char *s, uint64_t min,
                    uint64_t max, uint64_t *start, uint64_t *end, rb_err *e)
{
    char buf[128];
    const char *colon = s ? strchr(s, ':') : NULL;
    if (!colon || strchr(colon + 1, ':') || strlen(s) >= sizeof(buf))
        return rb_fail(e, RB_EINPUT, "%s '%s': expected START:END, e.g. 4K:1G",
                       flag, s ? s : "");
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    int rc = parse_count(flag, buf, min, max, start, e);
    if (!rc)
        rc = parse_count(flag, colon + 1, min, max, end, e);
    if (rc)
        return rc;
    if (*end < *start)
        return rb_fail(e, RB_EINPUT,
                       "%s '%s': an empty range (the end is below the start)",
                       flag, s);
    return RB_OK;
}

int parse_dtypes(const char *flag, const char *s, rb_dtype *out, int *n,
                     rb_err *e)
{
    char buf[256], *items[8];
    const int k = parse_list(flag, s, buf, sizeof(buf), items, 8, e);
    if (k < 0)
        return RB_EINPUT;
    *n = 0;
    for (int i = 0; i < k; i++) {
        rb_dtype dt;
        if (rb_dtype_parse(items[i], &dt) != 0)
            return rb_fail(e, RB_EINPUT, "%s '%s': unknown dtype (f32 or f64)",
                           flag, items[i]);
        out[(*n)++] = dt;
    }
    return RB_OK;
}

int parse_threads(const char *flag, const char *s, int ncores, int *out,
                      int max, int *n, rb_err *e)
{
    char buf[256], *items[32];
    const int k = parse_list(flag, s, buf, sizeof(buf), items,
                                 max < 32 ? max : 32, e);
    if (k < 0)
        return RB_EINPUT;
    *n = 0;
    for (int i = 0; i < k; i++) {
        uint64_t t;
        if (parse_count(flag, items[i], 0, UINT32_MAX, &t, e))
            return RB_EINPUT;
        if (t < 1 || t > (uint64_t)ncores)
            return rb_fail(e, RB_EINPUT,
                           "%s %s: must be between 1 and the %d core%s this "
                           "process may use",
                           flag, items[i], ncores, rb_plural(ncores));
        for (int j = 0; j < *n; j++)
            if (out[j] == (int)t)
                return rb_fail(e, RB_EINPUT, "%s: '%s' given twice", flag,
                               items[i]);
        out[(*n)++] = (int)t;
    }
    return RB_OK;
}
