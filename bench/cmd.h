/* Subcommands: each parses its own flags, builds a plan, hands it to the
 * shared modules, and returns an exit status (0, 1, 2 or 3). */
#ifndef ROOFBENCH_CMD_H
#define ROOFBENCH_CMD_H

#include <hwloc.h>
#include <jansson.h>

#include "profile.h"
#include "timer.h"

int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_ceilings(int argc, char **argv);
int cmd_profiles(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_orders(int argc, char **argv);

/* The facts `info` prints, as the context block every results file holds:
 * host, cpu, topology, openblas, environment, counters, clock, build. */
json_t *cmd_info_context(hwloc_topology_t topo);
json_t *cmd_info_clock_json(const timer_info *t);

/* Prints "roofbench: <msg>" on stderr and returns the exit status of code. */
int cmd_error(int code, const char *msg);

/* Parses the flags of a command that takes only --json and --help. Returns
 * -1 to go on (with *json set), or the exit status to return now: 0 after
 * printing help, 2 after a bad argument. */
int cmd_parse_json_flag(int argc, char **argv, const char *name,
                        void (*help)(void), int *json);

/* Prints "roofbench: <formatted>" on stderr and returns 2 (bad input). */
int cmd_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Loads the profiles of a comma-separated list ("host" is this machine:
 * from the ceilings file when given, else measured now) into out[0..max).
 * Returns -1 to go on (with *n set) or the exit status to return. */
int cmd_load_profiles(const char *list, const char *dir, const char *ceilings,
                      int quiet, profile *out, int max, int *n);

#endif
