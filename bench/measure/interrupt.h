/* Stopping on SIGINT and SIGTERM within half a second, with the finished
 * parts kept.
 *
 * The handler only notes the signal and wakes a watcher thread. The code
 * that measures polls interrupt_requested() between steps and stops; the
 * command then writes what it has, marked interrupted, and exits 130
 * (SIGINT) or 143 (SIGTERM). A step that cannot be cut short (one call of
 * a slow kernel takes seconds) would hold that up, so the watcher waits a
 * grace period and then does it itself: it takes the data lock, calls the
 * rescue the command registered (which writes the documents from what is
 * finished), and ends the process.
 *
 * Whatever the rescue reads is changed only under interrupt_lock(), and
 * the main thread calls interrupt_finish() before it writes the documents
 * itself, so the two never write at once. A second signal ends the
 * process at once (unless a rescue is writing): the way out of a step that
 * ignores the first, such as a chart that takes long. */
#ifndef ROOFBENCH_INTERRUPT_H
#define ROOFBENCH_INTERRUPT_H

#include "error.h"

/* Writes the finished parts, marked interrupted; runs on the watcher and
 * returns the exit status (interrupt_exit_status(sig), or 2 when nothing
 * could be kept). */
typedef int (*interrupt_rescue)(void *ctx, int sig);

/* Seconds the watcher gives the main thread to stop on its own: short,
 * since ending a process that holds gigabytes takes a few tenths of a
 * second itself and the whole stop is to take under half a second. */
#define INTERRUPT_GRACE_S 0.1

/* A longer grace period, for a process whose steps must end together
 * with other processes' (the ranks of roofbench network stop at the next
 * point they all reach; a rescue would leave the others waiting). */
void interrupt_set_grace(double seconds);

/* Installs the handlers and starts the watcher (once per process; a later
 * call replaces the rescue). rescue may be NULL: the process then just
 * exits with the signal's status after the grace period, removing the
 * folder of interrupt_set_folder if it is empty. One measurement a
 * process: after interrupt_finish the watcher never rescues again (a
 * later signal only sets interrupt_requested). */
int interrupt_install(interrupt_rescue rescue, void *ctx, rb_err *e);

/* The folder this process fills under a temporary name, or NULL once it
 * is renamed into place or removed. A second signal, which ends the
 * process without writing, removes it when it is still empty (rmdir
 * leaves one that holds anything), as does a first signal where no rescue
 * is installed, so that no empty temporary folder is left beside --out. */
void interrupt_set_folder(const char *dir);

/* 0, or the signal that asked to stop (SIGINT or SIGTERM). */
int interrupt_requested(void);

/* Around every change to what the rescue reads. */
void interrupt_lock(void);
void interrupt_unlock(void);

/* The main thread is done measuring and writes the documents itself: from
 * here on the watcher never rescues. Returns interrupt_requested(); when
 * the watcher has already begun a rescue, never returns. */
int interrupt_finish(void);

/* 130 for SIGINT, 143 for SIGTERM (128 + the signal). */
int interrupt_exit_status(int sig);

#endif
