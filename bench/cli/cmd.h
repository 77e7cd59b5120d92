/* Subcommands. Each is its flag table, the size of its options struct and
 * its main: main.c parses the flags with the table (flags.h) before the
 * command runs, and --help comes from the same table. A command builds a
 * plan, hands it to the layers below and passes the document to the
 * reporters; it returns an exit status (0, 1, 2, or 128 + a signal) and,
 * for a failure, leaves one line in e that main prints. A subcommand never
 * calls another's functions: what two share lives in flags.h or below. */
#ifndef ROOFBENCH_CMD_H
#define ROOFBENCH_CMD_H

#include <stddef.h>

#include "error.h"
#include "flags.h"
#include "machine.h"

typedef struct {
    const flag_table *flags; /* NULL: the command reads argv itself */
    size_t opts_size;
    int (*main)(const rb_machine *m, const void *opts, const flag_seen *seen,
                rb_err *e);
    /* NULL, or what runs before anything is parsed (argv[0] the command's
     * name): an exit status, or -1 to go on. network under mpirun hands
     * the whole command line to roofbench-mpi, so that each rank does not
     * print the same parse error. */
    int (*early)(int argc, char **argv, rb_err *e);
} cmd_spec;

extern const cmd_spec cmd_info, cmd_list, cmd_run, cmd_ceilings, cmd_profiles,
    cmd_model, cmd_orders, cmd_sweep, cmd_compare, cmd_check, cmd_network, cmd_all,
    cmd_report;
/* internal: the process `orders --traffic cachegrind` simulates */
extern const cmd_spec cmd_traffic_child;

#endif
