/* Charts through gnuplot. The script is written into the run folder beside
 * the data files it reads, and gnuplot runs it there with no other
 * argument: every value it needs comes from those files, so no string from
 * a file, a flag or the environment reaches a command line, and a user can
 * edit the script and run `gnuplot plot-x.gp` in the folder again.
 * Without gnuplot the chart is skipped with the install command. */
#ifndef ROOFBENCH_PLOT_H
#define ROOFBENCH_PLOT_H

#include <stddef.h>

#include "error.h"
#include "runfolder.h"

/* The scripts under scripts/, compiled in by CMake. */
extern const char rb_plot_bandwidth_gp[];
extern const char rb_plot_orders_gp[];
extern const char rb_plot_sweep_gp[];
extern const char rb_plot_network_gp[];
extern const char rb_plot_roofline_gp[];
extern const char rb_plot_reference_gp[];
extern const char rb_plot_traffic_gp[];

/* Writes script as name into the folder and runs gnuplot on it there, its
 * output in plot.log. RB_OK with *made = 1 when it ran; RB_OK with
 * *made = 0 and a reason in why when gnuplot is missing; RB_EMEASURE when
 * it failed, after removing what it left of the charts (files matching
 * outputs, fnmatch patterns). */
int plot_run(runfolder *f, const char *name, const char *script,
             const char *const *outputs, int *made, char *why, size_t whylen,
             rb_err *e);

#endif
