#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int rb_fail(rb_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

int rb_exit_status(int code)
{
    return code < 0 ? -code : 0;
}

const char *rb_plural(long long n)
{
    return n == 1 ? "" : "s";
}
