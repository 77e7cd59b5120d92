/* Text in memory: a growing buffer for documents and tables, and the
 * escaping that keeps bytes from a file, a flag or the environment from
 * reaching a terminal raw. */
#ifndef ROOFBENCH_TEXT_H
#define ROOFBENCH_TEXT_H

#include <stddef.h>

typedef struct {
    char *s;
    size_t len, cap;
    int failed; /* an allocation failed: the text is incomplete */
} strbuf;

void sb_printf(strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_putn(strbuf *b, const char *s, size_t n);
/* The text, handed over (free it); NULL when an allocation failed. */
char *sb_take(strbuf *b);
void sb_free(strbuf *b);

/* in, with every byte that is not printable UTF-8 written as \xNN (control
 * characters, newline and tab among them, DEL and invalid sequences), into
 * out (always terminated). */
void text_escape(const char *in, char *out, size_t len);

/* A whole file, NUL-terminated (malloc'd), or NULL when it cannot be
 * read; text_read_file_n also gives its length in *len (a file may hold
 * NUL bytes). */
char *text_read_file(const char *path);
char *text_read_file_n(const char *path, size_t *len);

/* Whether s is a short name of letters, digits and the characters in
 * extra: what may appear in file names and charts. */
int text_is_name(const char *s, size_t maxlen, const char *extra);

#endif
