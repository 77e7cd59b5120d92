/* Charts through gnuplot: the script is written into the run folder beside
 * the CSVs it reads, so a user can edit and rerun it, and gnuplot runs
 * there. Without gnuplot the chart is skipped with the install command. */
#ifndef ROOFBENCH_PLOT_H
#define ROOFBENCH_PLOT_H

#include <stddef.h>

#include "util.h"

/* The scripts under scripts/, compiled in by CMake. */
extern const char rb_plot_bandwidth_gp[];

/* Writes script as dir/name and runs gnuplot -e vars name in dir. Returns
 * RB_OK with *made = 1 when it ran, RB_OK with *made = 0 and a reason in
 * why when gnuplot is missing, an error when the script failed. */
int plot_run(const char *dir, const char *name, const char *script,
             const char *vars, int *made, char *why, size_t whylen,
             rb_err *e);

#endif
