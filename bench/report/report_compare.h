/* A comparison rendered: the table `roofbench compare` prints, the same
 * as a Markdown table for a CI comment, and the JSON document (schema
 * roofbench.compare). */
#ifndef ROOFBENCH_REPORT_COMPARE_H
#define ROOFBENCH_REPORT_COMPARE_H

#include <stdio.h>

#include "compare.h"
#include "error.h"

enum { COMPARE_SCHEMA_VERSION = 1 };

typedef struct {
    const cmp_doc *base, *cur;
    const cmp_settings *set;
    const cmp_result *res;
    const char *host_diff; /* "" when the hosts agree            */
    int allow_missing;     /* rows gone from current do not fail */
    int status;            /* the exit status: 0 or 3            */
} compare_view;

/* The exit status of a comparison: 3 when a row is slower by the gated
 * statistic, or a baseline row is missing from current (unless allowed). */
int report_compare_status(const cmp_result *r, int allow_missing);

void report_compare_text(const compare_view *v, FILE *f);
void report_compare_markdown(const compare_view *v, FILE *f);
/* NULL with e set on failure. */
char *report_compare_json(const compare_view *v, rb_err *e);

#endif
