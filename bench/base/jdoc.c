#include "jdoc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

static void fail(jdoc *d, const char *what)
{
    if (d->failed++)
        return;
    snprintf(d->what, sizeof(d->what), "%s", what);
}

json_t *jd_pack(jdoc *d, const char *fmt, ...)
{
    json_error_t je;
    va_list ap;
    va_start(ap, fmt);
    json_t *v = json_vpack_ex(&je, 0, fmt, ap);
    va_end(ap);
    if (!v) {
        char what[256];
        snprintf(what, sizeof(what), "%s (at %d of the pattern)", je.text,
                 je.position);
        fail(d, what);
    }
    return v;
}

/* json_object_set_new and json_array_append_new take the value whether
 * they succeed or not. */
void jd_set(jdoc *d, json_t *obj, const char *key, json_t *v)
{
    if (!v || !obj) {
        json_decref(v);
        fail(d, key);
    } else if (json_object_set_new(obj, key, v) != 0) {
        fail(d, key);
    }
}

void jd_push(jdoc *d, json_t *arr, const char *what, json_t *v)
{
    if (!v || !arr) {
        json_decref(v);
        fail(d, what);
    } else if (json_array_append_new(arr, v) != 0) {
        fail(d, what);
    }
}

json_t *jd_num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

json_t *jd_str(const char *s)
{
    json_t *v = json_string(s);
    if (v || !s)
        return v;
    char buf[4096];
    text_escape(s, buf, sizeof(buf));
    return json_string(buf);
}

int jd_done(jdoc *d, json_t **root, const char *document, rb_err *e)
{
    if (!d->failed && *root)
        return RB_OK;
    json_decref(*root);
    *root = NULL;
    return rb_fail(e, RB_EINPUT, "building %s: %s could not be represented",
                   document, d->failed ? d->what : "the document");
}

char *jd_dump(const json_t *root, int precision)
{
    return json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(precision));
}

char *jd_text(jdoc *d, json_t *root, const char *document, int precision,
              rb_err *e)
{
    if (jd_done(d, &root, document, e))
        return NULL;
    char *text = jd_dump(root, precision);
    json_decref(root);
    if (!text)
        rb_fail(e, RB_EINPUT, "out of memory formatting %s", document);
    return text;
}
