#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(strbuf *b, size_t need)
{
    if (b->failed)
        return -1;
    if (b->len + need < b->cap)
        return 0;
    const size_t cap = (b->cap + need + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_putn(strbuf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

char *sb_take(strbuf *b)
{
    if (!b->failed && !b->s && grow(b, 1) == 0)
        b->s[0] = '\0';
    char *s = b->failed ? NULL : b->s;
    if (b->failed)
        free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void sb_free(strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0. Overlong forms,
 * surrogates and code points past U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n;
    unsigned cp;
    if ((p[0] & 0xe0) == 0xc0) {
        n = 2;
        cp = p[0] & 0x1fu;
    } else if ((p[0] & 0xf0) == 0xe0) {
        n = 3;
        cp = p[0] & 0x0fu;
    } else if ((p[0] & 0xf8) == 0xf0) {
        n = 4;
        cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void text_escape(const char *in, char *out, size_t len)
{
    if (len == 0)
        return;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)in;
    while (*p) {
        const size_t n = utf8_len(p);
        /* printable: any valid multi-byte character and printable ASCII;
         * a newline or tab is escaped too, so that a message stays one
         * line and a value one field */
        const int keep = n > 1 || (n == 1 && *p >= 0x20 && *p != 0x7f);
        const size_t need = keep ? n : 4;
        if (o + need >= len)
            break;
        if (keep)
            memcpy(out + o, p, n);
        else
            snprintf(out + o, len - o, "\\x%02x", *p);
        o += need;
        p += keep ? n : 1;
    }
    out[o] = '\0';
}

int text_is_name(const char *s, size_t maxlen, const char *extra)
{
    const size_t n = strlen(s);
    if (n == 0 || n > maxlen)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        const int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9');
        if (!alnum && !(extra && c != '\0' && strchr(extra, c)))
            return 0;
    }
    return 1;
}

char *text_read_file_n(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf b = {0};
    char chunk[16384];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        sb_putn(&b, chunk, n);
    const int bad = ferror(f) || b.failed;
    fclose(f);
    const size_t got = b.len;
    char *t = sb_take(&b);
    if (bad) {
        free(t);
        return NULL;
    }
    if (len)
        *len = t ? got : 0;
    return t ? t : strdup("");
}

char *text_read_file(const char *path)
{
    return text_read_file_n(path, NULL);
}
