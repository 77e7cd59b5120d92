/* What every measuring command does around its measurement, in one place:
 *
 *   session_open      the run folder (checked before anything is
 *                     measured, built under a temporary name), the context
 *                     block, the handling of SIGINT and SIGTERM;
 *   session_roofline  the host roofline: from --ceilings FILE, or measured
 *                     now and saved in the folder as ceilings.json;
 *   session_finish    the documents written (by the command's writer) and
 *                     the folder renamed into place, complete or absent;
 *   session_close     what is left removed.
 *
 * On an interrupt the same writer runs with status "interrupted", from the
 * main thread when it stops in time, else from the watcher (interrupt.h):
 * the writer must read only what the command changes under
 * interrupt_lock(). */
#ifndef ROOFBENCH_SESSION_H
#define ROOFBENCH_SESSION_H

#include <jansson.h>

#include "error.h"
#include "kernel.h"
#include "machine.h"
#include "roofline.h"
#include "runfolder.h"

#define SESSION_ROOT "results/runs"

typedef struct session session;

/* Writes the command's documents into s's folder (session_put) with the
 * given status and error; fills lost with what a failure to write loses
 * ("the 56 measured rows"). */
typedef int (*session_writer)(session *s, void *ctx, const char *status,
                              const char *error, char *lost, size_t lostlen,
                              rb_err *e);

struct session {
    const rb_machine *m;
    const char *command;
    runfolder folder;
    json_t *context;
    session_writer write;
    void *write_ctx;
    char *document; /* the main document as written               */
    int json;       /* --json: stdout gets the document           */
};

/* The folder (out, or results/runs/<host>-<stamp>), the context with the
 * date, the folder's name and the settings (taken), and the signal
 * handling. */
int session_open(session *s, const rb_machine *m, const char *command,
                 const char *out, json_t *settings, rb_err *e);

/* The writer session_finish and a rescue call; with json, the main
 * document it keeps (session_keep) goes to stdout instead of the text. */
void session_on_finish(session *s, session_writer w, void *ctx, int json);

/* The host roofline a command places its points on: from --ceilings FILE
 * (loaded and checked by session_roof_load before anything else runs), or
 * measured in the session. */
typedef struct {
    const char *file; /* --ceilings FILE, or NULL: measure          */
    json_t *doc;      /* the loaded document                        */
    roofline roof;
    int ready; /* roof holds a roofline (set under
                  interrupt_lock: a rescue reads it)         */
} session_roof;

int session_roof_load(const rb_machine *m, const char *file, session_roof *r,
                      rb_err *e);
void session_roof_free(session_roof *r);

/* The roofline into r: the loaded one, or measured now for these thread
 * counts, dtypes and access mixes (the quick roofline of
 * ceilings_plan_roofline; mixes a mask of 1 << rb_access) and
 * written to the folder as ceilings.json. Either way the context gets a
 * `ceilings` entry (source and roofline block). With an interrupt during
 * the measurement, RB_OK and *interrupted set. */
int session_roofline(session *s, session_roof *r, const int *threads,
                     int nthreads, const rb_dtype *dtypes, int ndtypes,
                     unsigned mixes, int *interrupted, rb_err *e);

/* Takes the text of the command's main document (results.json,
 * ceilings.json, orders.json) as the writer wrote it: --json prints it. */
void session_keep(session *s, char *document);

/* One document into the folder (a name runfolder.h lists). */
int session_put(session *s, const char *name, const char *data, size_t len,
                rb_err *e);

/* Takes over from the watcher, writes the documents with status, and
 * renames the folder into place. On a failure nothing is kept and the
 * error says what was lost. */
int session_finish(session *s, const char *status, const char *error,
                   rb_err *e);

/* How a measuring command ends, the same for all: status from the
 * measurement's result (mrc, its error merr) and the interrupt, the
 * documents written (session_finish), then stdout (the main document with
 * json, else what print renders), and the
 * exit status: 0, 2 when nothing could be kept, 1 (or 2) with e naming
 * the failure and where the finished parts are, 130 or 143 after a
 * signal. */
typedef void (*session_printer)(session *s, void *ctx, const char *status);
int session_conclude(session *s, int mrc, const rb_err *merr, int interrupted,
                     session_printer print, void *ctx, rb_err *e);

/* Where the folder is (after session_finish: its final name), as printed:
 * bytes that are not printable UTF-8 escaped. */
const char *session_dir(const session *s);

void session_close(session *s);

/* The measured roofline without a folder (model --profile host): the same
 * measurement as session_roofline, not saved. */
int session_measure_roofline(const rb_machine *m, const int *threads,
                             int nthreads, const rb_dtype *dtypes, int ndtypes,
                             roofline *roof, rb_err *e);

#endif
