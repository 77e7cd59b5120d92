/* The one thing a command prints while it measures: a progress line on
 * standard error. On a terminal the line is rewritten in place; elsewhere
 * (a log, a pipe) each step is a line of its own. The results go to
 * standard output only when the measurement is over. */
#ifndef ROOFBENCH_PROGRESS_H
#define ROOFBENCH_PROGRESS_H

/* A step that is over: a line everywhere. */
void progress_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A step that begins: shown only on a terminal, where the next line
 * replaces it (a log keeps the finished steps alone). */
void progress_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clears the rewritten line before other output. */
void progress_end(void);

#endif
