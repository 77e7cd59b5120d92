/* CSV rows as RFC 4180 writes them: fields separated by commas, lines
 * ended by CRLF-free newlines (as every results file here), and a field
 * quoted, with its quotes doubled, when it holds a comma, a quote or a
 * line break. Every CSV the suite writes goes through here. */
#ifndef ROOFBENCH_CSV_H
#define ROOFBENCH_CSV_H

#include <stddef.h>

#include "error.h"
#include "text.h"

typedef struct {
    strbuf sb;
    int col; /* fields written in the current line */
} csv;

/* One field: text (quoted as needed), a number formatted with fmt, or
 * nothing. A number that is not finite is written as an empty field. */
void csv_str(csv *c, const char *s);
void csv_num(csv *c, const char *fmt, double x);
void csv_int(csv *c, unsigned long long x);
void csv_empty(csv *c);
/* Ends the line. */
void csv_end(csv *c);
/* The header: names separated by commas, as given. */
void csv_header(csv *c, const char *names);

/* Checks text (len bytes, a file's whole content, shown: its name as
 * printed) against what the writer above makes of a table with this
 * header: the header as its first line, then records of as many fields,
 * each ended by a newline. It reads no field's value: a record of the
 * right width holding nonsense passes. RB_OK, or RB_EINPUT with e naming
 * the first line that is not so and how it begins. */
int csv_check(const char *text, size_t len, const char *header,
              const char *shown, rb_err *e);

#endif
