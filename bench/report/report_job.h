/* The main job's report: report.md, and report.html, self-contained (the
 * charts inline as SVG, no external script, font or style, the steps'
 * record embedded as JSON): a title, the summary, then each chart with a
 * few plain words on what it shows and what to look at, and this
 * machine's figures for it (the summary's lines that concern it). */
#ifndef ROOFBENCH_REPORT_JOB_H
#define ROOFBENCH_REPORT_JOB_H

#include <stddef.h>

#include "error.h"
#include "runfolder.h"

typedef struct {
    const char *title;
    const char *svg; /* relative to the folder: "sweep/sweep.svg"  */
    const char *png;
    const char *words;  /* what it shows, what to look at             */
    const char *prefix; /* the summary lines that give its figures,
                           '|' between prefixes                       */
} job_chart;

/* Writes report.md and report.html into f; a chart whose SVG is missing
 * is listed as not drawn. summary is the text the job printed;
 * steps_json the steps' record (embedded as is: it is JSON). */
int report_job_write(runfolder *f, const char *host, const char *date,
                     const char *summary, const char *steps_json,
                     const job_chart *charts, size_t ncharts, rb_err *e);

#endif
