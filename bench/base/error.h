/* Error reporting shared by every module. Library functions return 0 or a
 * negative exit class and leave one actionable line in an rb_err; main
 * prints that line and exits with the class:
 *   RB_EMEASURE (exit 1) a measurement or verification failed,
 *   RB_EINPUT   (exit 2) bad input or an unusable environment. */
#ifndef ROOFBENCH_ERROR_H
#define ROOFBENCH_ERROR_H

#include <stddef.h>

enum { RB_OK = 0, RB_EMEASURE = -1, RB_EINPUT = -2 };

typedef struct {
    char msg[1024];
} rb_err;

/* Formats the message into e and returns code, so that a failure reads
 * `return rb_fail(e, RB_EINPUT, "...", ...);`. */
int rb_fail(rb_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exit status for a return code: 0, 1 or 2. */
int rb_exit_status(int code);

/* "s" when n is not 1, for "1 core" and "2 cores". */
const char *rb_plural(long long n);

#endif
