#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "context.h"
#include "host.h"
#include "interrupt.h"
#include "progress.h"
#include "report_ceilings.h"

static int finish(session *s, const char *status, const char *error, rb_err *e);

/* The watcher's way out: the documents as they are, marked interrupted,
 * the folder into place, and the document on stdout for --json. Before
 * the command has registered its writer (session_on_finish) there is
 * nothing to keep: the folder, empty, and the parents made for it go.
 * Returns the exit status: the signal's, or 2 when nothing could be
 * kept. Runs under interrupt_lock(). */
static int rescue(void *ctx, int sig)
{
    session *s = ctx;
    progress_end();
    if (!s->write) {
        interrupt_set_folder(NULL);
        runfolder_abandon(&s->folder);
        fprintf(stderr, "roofbench: interrupted before anything was "
                        "measured; nothing was kept\n");
        return interrupt_exit_status(sig);
    }
    rb_err e;
    if (finish(s, "interrupted", NULL, &e) != RB_OK) {
        fprintf(stderr, "roofbench: interrupted, and %s\n", e.msg);
        return 2;
    }
    if (s->json && s->document) {
        fputs(s->document, stdout);
        fflush(stdout);
    }
    fprintf(stderr,
            "roofbench: interrupted: what was finished is in %s, marked "
            "interrupted\n",
            session_dir(s));
    return interrupt_exit_status(sig);
}

int session_open(session *s, const rb_machine *m, const char *command,
                 const char *out, json_t *settings, rb_err *e)
{
    memset(s, 0, sizeof(*s));
    s->m = m;
    s->command = command;
    char iso[32], stamp[32];
    runfolder_utc(iso, sizeof(iso), stamp, sizeof(stamp));
    /* The rescue is installed before the temporary folder exists, and the
     * folder made under interrupt_lock(): a signal from here on finds
     * either no folder or one the rescue knows, and removes it while no
     * writer is registered (rescue), instead of leaving it behind. */
    int rc = interrupt_install(rescue, s, e);
    if (rc) {
        json_decref(settings);
        return rc;
    }
    interrupt_lock();
    rc = runfolder_open(&s->folder, SESSION_ROOT, out, m->host, stamp, e);
    if (!rc)
        interrupt_set_folder(s->folder.tmp);
    interrupt_unlock();
    if (rc) {
        interrupt_finish(); /* no rescue of a session that is gone */
        json_decref(settings);
        return rc;
    }
    s->context = context_build(m);
    json_object_set_new(s->context, "date", json_string(iso));
    if (settings)
        json_object_set_new(s->context, "settings", settings);
    /* a name that is not UTF-8 is kept as printed */
    json_t *dir = json_string(s->folder.final);
    json_object_set_new(s->context, "run_folder",
                        dir ? dir : json_string(s->folder.shown));
    return RB_OK;
}

void session_on_finish(session *s, session_writer w, void *ctx, int json)
{
    interrupt_lock();
    s->write = w;
    s->write_ctx = ctx;
    s->json = json;
    interrupt_unlock();
}

void session_keep(session *s, char *document)
{
    free(s->document);
    s->document = document;
}

int session_put(session *s, const char *name, const char *data, size_t len,
                rb_err *e)
{
    return runfolder_write(&s->folder, name, data, len, e);
}

const char *session_dir(const session *s)
{
    return s->folder.shown;
}

static void set_ceilings(session *s, const char *source, json_t *doc)
{
    interrupt_lock();
    json_object_set_new(s->context, "ceilings",
                        json_pack("{s:s, s:O}", "source", source, "roofline",
                                  json_object_get(doc, "roofline")));
    interrupt_unlock();
}

/* Measures the quick roofline into res, and its document as text. */
static int measure(const rb_machine *m, const int *threads, int nthreads,
                   const rb_dtype *dtypes, int ndtypes, unsigned mixes,
                   const json_t *context, ceilings_result *res, char **text,
                   rb_err *e)
{
    ceilings_plan cp;
    ceilings_plan_roofline(&cp, m->ncores, m->isa, (double)host_mem_available(),
                           threads, nthreads, dtypes, ndtypes, mixes);
    progress_say("measuring the host roofline first (peak at the widest "
                 "vector width, bandwidth of read, read2, read4%s from 4 KiB "
                 "to 1 GiB; --ceilings FILE reuses one)",
                 mixes >> RB_ACCESS_MIXED & 1u ? ", copy, triad and schoenauer"
                                               : "");
    int rc = ceilings_measure(m->topo, &cp, &m->cpu, res, e);
    *text = NULL;
    if (!rc && !res->interrupted)
        *text = report_ceilings_json(res, context, "complete", e);
    return rc || res->interrupted || *text ? rc : RB_EINPUT;
}

/* The measured roofline, one progress line per thread count. */
static void say_roofline(const roofline *roof)
{
    for (size_t i = 0; i < roof->nteams; i++) {
        char line[640];
        roofline_describe(&roof->teams[i], line, sizeof(line));
        progress_say("%s", line);
    }
}

/* The roofline of a document as text. */
static int from_text(const char *text, roofline *roof, json_t **doc, rb_err *e)
{
    json_error_t je;
    *doc = json_loads(text, 0, &je);
    if (!*doc)
        return rb_fail(e, RB_EINPUT, "the measured ceilings: %s", je.text);
    return roofline_from_doc(*doc, "measured ceilings", roof, e);
}

int session_roof_load(const rb_machine *m, const char *file, session_roof *r,
                      rb_err *e)
{
    memset(r, 0, sizeof(*r));
    r->file = file;
    if (!file)
        return RB_OK;
    const int rc = roofline_load(file, m->host, m->ncpus, &r->roof, &r->doc, e);
    if (!rc)
        r->ready = 1;
    return rc;
}

void session_roof_free(session_roof *r)
{
    json_decref(r->doc);
    r->doc = NULL;
}

int session_roofline(session *s, session_roof *r, const int *threads,
                     int nthreads, const rb_dtype *dtypes, int ndtypes,
                     unsigned mixes, int *interrupted, rb_err *e)
{
    *interrupted = 0;
    if (r->file) {
        set_ceilings(s, r->file, r->doc);
        return RB_OK;
    }
    ceilings_result *res = calloc(1, sizeof(*res));
    if (!res)
        return rb_fail(e, RB_EINPUT, "out of memory");
    char *text = NULL;
    json_t *doc = NULL;
    roofline roof;
    int rc = measure(s->m, threads, nthreads, dtypes, ndtypes, mixes,
                     s->context, res, &text, e);
    *interrupted = res->interrupted;
    if (!rc && text)
        rc = session_put(s, "ceilings.json", text, strlen(text), e);
    if (!rc && text)
        rc = from_text(text, &roof, &doc, e);
    if (!rc && text) {
        set_ceilings(s, "measured in this run: ceilings.json", doc);
        interrupt_lock();
        r->roof = roof;
        r->ready = 1;
        interrupt_unlock();
        say_roofline(&r->roof);
    }
    json_decref(doc);
    free(text);
    ceilings_result_free(res);
    free(res);
    return rc;
}

int session_measure_roofline(const rb_machine *m, const int *threads,
                             int nthreads, const rb_dtype *dtypes, int ndtypes,
                             roofline *roof, rb_err *e)
{
    ceilings_result *res = calloc(1, sizeof(*res));
    if (!res)
        return rb_fail(e, RB_EINPUT, "out of memory");
    json_t *context = context_build(m);
    char *text = NULL;
    json_t *doc = NULL;
    int rc = interrupt_install(NULL, NULL, e);
    if (!rc)
        rc = measure(m, threads, nthreads, dtypes, ndtypes,
                     1u << RB_ACCESS_READ, context, res, &text, e);
    if (!rc && res->interrupted)
        rc = rb_fail(e, RB_EINPUT, "interrupted");
    if (!rc)
        rc = from_text(text, roof, &doc, e);
    json_decref(doc);
    json_decref(context);
    free(text);
    ceilings_result_free(res);
    free(res);
    return rc;
}

int session_finish(session *s, const char *status, const char *error, rb_err *e)
{
    interrupt_finish();
    return finish(s, status, error, e);
}

static int finish(session *s, const char *status, const char *error, rb_err *e)
{
    interrupt_lock();
    char lost[256] = "the measurement";
    int rc = s->write ? s->write(s, s->write_ctx, status, error, lost,
                                 sizeof(lost), e)
                      : rb_fail(e, RB_EINPUT, "no document to write");
    interrupt_unlock();
    /* the folder is abandoned or committed below: a second signal leaves
     * it to that */
    interrupt_set_folder(NULL);
    if (rc) {
        /* a document could not be written (a full disk): no half folder */
        char msg[sizeof(e->msg)];
        snprintf(msg, sizeof(msg), "%.700s; nothing was kept (lost: %.200s)",
                 e->msg, lost);
        snprintf(e->msg, sizeof(e->msg), "%s", msg);
        runfolder_abandon(&s->folder);
        return rc;
    }
    /* a failed rename keeps the whole folder under its temporary name */
    return runfolder_commit(&s->folder, e);
}

int session_conclude(session *s, int mrc, const rb_err *merr, int interrupted,
                     session_printer print, void *ctx, rb_err *e)
{
    const char *status = mrc           ? "failed"
                         : interrupted ? "interrupted"
                                       : "complete";
    const int rc = session_finish(s, status, mrc ? merr->msg : NULL, e);
    progress_end();
    if (rc)
        return 2;
    if (s->json && s->document)
        fputs(s->document, stdout);
    else if (!s->json)
        print(s, ctx, status);
    if (mrc) {
        rb_fail(e, mrc, "%.800s (what was finished is in %s, marked failed)",
                merr->msg, session_dir(s));
        return rb_exit_status(mrc);
    }
    if (interrupted) {
        rb_fail(e, RB_EINPUT,
                "interrupted: what was finished is in %s, marked interrupted",
                session_dir(s));
        return interrupt_exit_status(interrupt_requested());
    }
    if (interrupt_requested()) {
        /* after measuring, while the documents and charts were written */
        rb_fail(e, RB_EINPUT,
                "interrupted while writing: the measurement is complete in "
                "%s; a chart the signal stopped, if any, is reported above "
                "as not drawn",
                session_dir(s));
        return interrupt_exit_status(interrupt_requested());
    }
    return 0;
}

void session_close(session *s)
{
    /* no rescue of a session that is gone (an early error ends it) */
    interrupt_finish();
    interrupt_set_folder(NULL);
    runfolder_abandon(&s->folder);
    json_decref(s->context);
    s->context = NULL;
    free(s->document);
    s->document = NULL;
}
