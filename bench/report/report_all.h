/* The main job's folder as a whole: its summary, its own charts and its
 * report, from the documents its steps left. `roofbench all` writes them
 * as the job ends; `roofbench report` writes them again, into a new
 * folder, from an old job's documents alone. */
#ifndef ROOFBENCH_REPORT_ALL_H
#define ROOFBENCH_REPORT_ALL_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "runfolder.h"

/* One step of the job, as steps.json records it. */
typedef struct {
    const char *name;   /* info, ceilings, run, orders, sweep, network, model */
    const char *status; /* ok, failed, skipped, interrupted, not run          */
    double seconds;
    const char *note; /* skipped: why; failed: its last error; ok: folder */
} job_step;

/* The step's document, relative to the job's folder: "run/results.json",
 * "model.json"; NULL for a step that leaves none (info's is info.json). */
const char *report_all_document(const char *step);

/* 1:02 for 62 seconds. */
void report_all_clock(char *buf, size_t len, double seconds);

/* The summary: each step's status, then the headline figures from the
 * documents under dir (ceil: the ceilings.json the steps were judged
 * against, or NULL), for the steps listed. */
void report_all_summary(const char *dir, const char *ceil,
                        const job_step *steps, size_t nsteps, FILE *f);

/* The job's own charts into f, from the documents under src (the folder
 * itself for `all`): roofline.json and the host roofline with every
 * kernel on it (when ceil and run_ok), and the host beside the reference
 * chips (when model_ok). Each why says why its chart is missing ("" when
 * drawn). RB_OK, or an error writing the folder. */
int report_all_charts(runfolder *f, const char *src, const char *ceil,
                      int run_ok, int model_ok, char *chart_why, size_t cwlen,
                      char *ref_why, size_t rwlen, rb_err *e);

/* report.md and report.html into f: the summary (without its heading),
 * every chart of the job found under f, the steps' record (steps_json)
 * and, where f holds them, the roofline and model documents embedded. */
int report_all_write(runfolder *f, const char *host, const char *date,
                     const char *summary, const char *steps_json, rb_err *e);

#endif
