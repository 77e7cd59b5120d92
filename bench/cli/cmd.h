/* Subcommands: each parses its flags with its table (flags.h), builds a
 * plan, hands it to the layers below, and passes the document to the
 * reporters. Each returns an exit status (0, 1, 2, or 128 + a signal) and,
 * for a failure, leaves one line in e that main prints. A subcommand never
 * calls another's functions: what two share lives in flags.h or below. */
#ifndef ROOFBENCH_CMD_H
#define ROOFBENCH_CMD_H

#include "error.h"
#include "machine.h"

typedef int (*cmd_fn)(const rb_machine *m, int argc, char **argv, rb_err *e);

int cmd_info(const rb_machine *m, int argc, char **argv, rb_err *e);
int cmd_list(const rb_machine *m, int argc, char **argv, rb_err *e);
int cmd_run(const rb_machine *m, int argc, char **argv, rb_err *e);
int cmd_ceilings(const rb_machine *m, int argc, char **argv, rb_err *e);
int cmd_profiles(const rb_machine *m, int argc, char **argv, rb_err *e);
int cmd_model(const rb_machine *m, int argc, char **argv, rb_err *e);
int cmd_orders(const rb_machine *m, int argc, char **argv, rb_err *e);
/* internal: the process `orders --traffic cachegrind` simulates */
int cmd_traffic_child(const rb_machine *m, int argc, char **argv, rb_err *e);

#endif
