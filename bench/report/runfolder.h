/* The run folder: complete or absent under its final name. It is built
 * under a temporary name beside its final place (".<name>.part-XXXXXX"),
 * each file written whole and never over another, and renamed once when
 * every document is in it; a failure removes it. --out must name a new
 * or empty folder, so two measurements never mix. */
#ifndef ROOFBENCH_RUNFOLDER_H
#define ROOFBENCH_RUNFOLDER_H

#include <stddef.h>

#include "error.h"

/* Every file any command writes into a run folder, as fnmatch patterns. A
 * folder holding one of them holds results. */
extern const char *const runfolder_names[];

/* Whether name is one of runfolder_names. */
int runfolder_is_ours(const char *name);

/* Checks, before anything is measured, that a run can go to out (a new or
 * empty folder, whose deepest existing ancestor is writable) or, without
 * out, to a new folder under root. */
int runfolder_check(const char *root, const char *out, rb_err *e);

enum { RUNFOLDER_MAX_MADE = 16 };

typedef struct {
    char root[2048];      /* default naming: root/<host>-<stamp>[-k]; "" with
                             --out                                          */
    char base[2200];      /* root/<host>-<stamp>, before a suffix            */
    char final[2300];     /* where the folder goes                           */
    char tmp[2400];       /* where it is built                               */
    char shown[4 * 2300]; /* final as printed: bytes that are not printable
                             UTF-8 escaped (text_escape)                 */
    char made[RUNFOLDER_MAX_MADE][2048]; /* parents this run created      */
    int nmade;
    int replace; /* --out is an existing empty folder (resolved)    */
    int committed;
    int kept; /* the rename failed: tmp holds the whole results  */
} runfolder;

/* Checks the destination, creates missing parents and the temporary
 * folder. host and stamp name a default folder, whose final name is chosen
 * and reserved here: the first of root/<host>-<stamp>, -2, -3, ... that is
 * free and whose temporary folder ".<name>.part" this run could make. */
int runfolder_open(runfolder *f, const char *root, const char *out,
                   const char *host, const char *stamp, rb_err *e);

/* Writes name (one of runfolder_names) into the folder, whole: a
 * temporary file, synced, then linked into place; an existing name is
 * never replaced. */
int runfolder_write(runfolder *f, const char *name, const char *data,
                    size_t len, rb_err *e);

/* runfolder_write of a text the caller built and hands over (freed here);
 * NULL (it could not be built) is reported as out of memory for name. */
int runfolder_write_text(runfolder *f, const char *name, char *text,
                         rb_err *e);
/* Syncs the folder and renames it to its final name, never over anything
 * but the empty --out it was opened on. When the rename fails the
 * temporary folder, whole, is kept (the error says where). */
int runfolder_commit(runfolder *f, rb_err *e);

/* Commits the folder now, while it is still empty, and writes the later
 * documents into its final place (each still whole or absent): for a
 * command whose parts are run folders of their own, made by other
 * processes, that record where they are and must outlive an interrupt
 * (roofbench all). */
int runfolder_publish(runfolder *f, rb_err *e);
/* Removes the temporary folder and the parents this run created, unless
 * it was committed. */
void runfolder_abandon(runfolder *f);

/* The UTC time as 2026-11-30T06:10:16Z (iso) and 20261130T061016Z. */
void runfolder_utc(char *iso, size_t isolen, char *stamp, size_t stamplen);

#endif
