/* Building a JSON document with every step checked. jansson returns NULL
 * for what it cannot represent (a NaN, an infinity, a string that is not
 * UTF-8) and then quietly drops the value from its parent: a document
 * that says "complete" and holds no rows. Here the first such failure is
 * kept, and jd_done turns it into an error naming the field. */
#ifndef ROOFBENCH_JDOC_H
#define ROOFBENCH_JDOC_H

#include <jansson.h>

#include "error.h"

typedef struct {
    int failed;
    char what[256]; /* the first field that could not be built */
} jdoc;

/* json_pack_ex, the failure recorded with jansson's words. */
json_t *jd_pack(jdoc *d, const char *fmt, ...);
/* Sets obj[key] or appends to arr, taking v; a NULL v or parent is a
 * failure named by key (for arrays, by the parent's name given). */
void jd_set(jdoc *d, json_t *obj, const char *key, json_t *v);
void jd_push(jdoc *d, json_t *arr, const char *what, json_t *v);
/* A number, or null for NaN and infinities (JSON has neither). */
json_t *jd_num(double x);
/* A string, with bytes that are not UTF-8 escaped as \xNN. */
json_t *jd_str(const char *s);

/* Returns RB_OK, or RB_EINPUT naming the document and the field; a
 * failed root is released. */
int jd_done(jdoc *d, json_t **root, const char *document, rb_err *e);

/* The document as text (indented, precision significant digits), or
 * NULL. */
char *jd_dump(const json_t *root, int precision);

/* jd_done, then the text, and the root released: the end of every
 * document's build. NULL with e naming the document on a failure. */
char *jd_text(jdoc *d, json_t *root, const char *document, int precision,
              rb_err *e);

#endif
