/* The host roofline with the kernels on it, the figure every roofline
 * tool draws: per dtype and thread count, log-log, GFLOP/s against
 * FLOP per byte; each measured compute roof (scalar and every vector
 * width) and OpenBLAS's GEMM as the achievable one; each memory level's
 * bandwidth as a diagonal up to where it meets the peak; every kernel of
 * a run at its analytic intensity and measured rate; with an orders
 * document, the hierarchical roofline: each form at the intensity of its
 * traffic into L1, into the last level and from memory, joined; with a
 * network document, the link as a roof of its own on the 1-thread panels.
 * Read from a ceilings document and a results document; written as
 * roofline-roofs.dat (one segment a block), roofline-labels.csv,
 * roofline-points.csv, roofline-levels.csv, plot-roofline.gp and the chart
 * (roofline.png, roofline.svg). */
#ifndef ROOFBENCH_REPORT_ROOFLINE_H
#define ROOFBENCH_REPORT_ROOFLINE_H

#include <jansson.h>

#include "error.h"
#include "runfolder.h"

/* The data files and the chart into f. A chart that cannot be drawn
 * (gnuplot missing, no rows with a roof) leaves its reason in why and
 * returns RB_OK; RB_EINPUT when a file cannot be written. */
int report_roofline_chart(runfolder *f, const json_t *ceilings,
                          const json_t *results, const json_t *orders,
                          const json_t *network, char *why, size_t whylen,
                          rb_err *e);

/* roofline.json in the spirit of ERT's: the measured ceilings
 * ("empirical": gflops and gbytes, each a list of [name, value], as ERT
 * writes them) and, beside each, the theoretical figure where the suite
 * has one (peak: clock x FMA pipes x lanes, from the ceilings document;
 * bandwidth: none here, said so). */
int report_roofline_json(runfolder *f, const json_t *ceilings, rb_err *e);

/* The reference rooflines: the host and each profile a model document
 * evaluated (its targets: peak, memory bandwidth, ridge), one chart,
 * min(peak, intensity x bandwidth) each, the ridge points marked and
 * labelled. Written as reference-roofs.csv, reference-ridges.csv,
 * plot-reference.gp and reference.png, reference.svg. */
int report_reference_chart(runfolder *f, const json_t *model, char *why,
                           size_t whylen, rb_err *e);

#endif
