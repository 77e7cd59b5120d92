/* The model document (schema roofbench.model) rendered as text and as
 * JSON: targets, each spec with its dimensions, reuse, counts and
 * evaluations, the shard's crossings, a file's total, and the sweep. */
#ifndef ROOFBENCH_REPORT_MODEL_H
#define ROOFBENCH_REPORT_MODEL_H

#include <stdio.h>

#include "error.h"
#include "study.h"

char *report_model_json(const study *s, rb_err *e);
void report_model_text(const study *s, FILE *f);

#endif
