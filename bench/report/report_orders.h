/* The orders document (schema roofbench.orders) rendered: orders.json,
 * orders.csv (a line per form and source), the tables and the sentence
 * `roofbench orders` prints, and a chart per dtype and size. */
#ifndef ROOFBENCH_REPORT_ORDERS_H
#define ROOFBENCH_REPORT_ORDERS_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"
#include "orders.h"
#include "roofline.h"
#include "runfolder.h"

typedef struct {
    const json_t *context;
    const orders_plan *plan;
    const orders_result *res;
    const roofline *roof; /* for the chart; NULL: none yet */
    const char *status, *error;
} orders_doc;

char *report_orders_json(const orders_doc *doc, rb_err *e);
char *report_orders_csv(const orders_doc *doc, rb_err *e);

/* The sentence under a size's table: which form moves least at the last
 * level and by how much the worst moves more. "" when no source has a
 * figure. */
void report_orders_sentence(const orders_size *z, char *buf, size_t len);

/* Every size's table (or, for a sweep, a line per form and size and where
 * each form falls out of the last level), then where the files are. */
void report_orders_text(const orders_doc *doc, const char *dir, FILE *f);

/* orders.json, orders.csv and, when the measurement is complete, the
 * roofline data and the charts. why says what became of the charts ("" when
 * drawn), *chart_failed whether gnuplot failed (the documents are kept);
 * *json_text is the document (free it). */
int report_orders_write(runfolder *f, const orders_doc *doc, char **json_text,
                        char *why, size_t whylen, int *chart_failed, rb_err *e);

/* The header lines of the files plot-orders.gp reads, whose columns it
 * takes by position: `roofbench report` checks a folder's copies by them. */
#define REPORT_ORDERS_HEADER                                                   \
    "dtype,n,p,m,kernel,form,flops,t_min_s,gflops,source,l1_bytes,ll_bytes,"   \
    "ll_name,intensity_ll"
#define REPORT_ORDERS_ROOFLINE_HEADER "what,name,value"

#endif
