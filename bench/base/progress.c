#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int on_terminal = -1, pending;

static void say(int transient, const char *fmt, va_list ap)
{
    if (on_terminal < 0)
        on_terminal = isatty(STDERR_FILENO);
    if (transient && !on_terminal)
        return;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    if (on_terminal) {
        /* the width of a narrow terminal, so the line never wraps */
        fprintf(stderr, "\r\033[K%.79s", line);
        pending = 1;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
}

void progress_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(0, fmt, ap);
    va_end(ap);
}

void progress_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(1, fmt, ap);
    va_end(ap);
}

void progress_end(void)
{
    if (pending) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        pending = 0;
    }
}
