#include "report_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "csv.h"

static double rate(uint64_t count, double seconds, double unit)
{
    return seconds > 0.0 ? (double)count / seconds / unit : NAN;
}

/* ---- JSON ------------------------------------------------------------------
 */

/* The row's bound on the roofline: roofline_bound with the row's
 * threads, dtype, access mix, counts and measured rate. */
static int row_bound(const roofline *roof, const harness_row *r,
                     roof_bound *b, char *why, size_t whylen)
{
    return roofline_bound(roof, r->threads, r->dtype, r->kernel->access,
                          r->counts.flops, r->counts.bytes,
                          harness_row_gflops(r), b, why, whylen);
}

/* The row's place on the host roofline; null when it has none, with the
 * reason in why. */
static json_t *roof_json(jdoc *d, const harness_row *r, const roofline *roof,
                         char *why, size_t whylen)
{
    roof_bound b;
    snprintf(why, whylen, "no roofline");
    if (!roof || row_bound(roof, r, &b, why, whylen) != 0)
        return json_null();
    why[0] = '\0';
    json_t *o =
        jd_pack(d, "{s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:b}",
                "level", b.level.name, "level_gbs", jd_num(b.level.gbs), "mix",
                rb_access_name(b.mix), "roof", roof_bound_roof(&b),
                "peak_gflops", jd_num(b.peak_gflops), "attainable_gflops",
                jd_num(b.attainable_gflops), "spread", jd_num(b.spread),
                "binds", b.compute_bound ? "compute" : b.level.name,
                "fraction_of_attainable", jd_num(b.fraction), "limit_fraction",
                jd_num(1.0 + b.spread), "above_measured_roof", b.above);
    if (b.above) {
        char note[200];
        snprintf(note, sizeof(note),
                 "above the measured roof: %.0f%% of %.4g GFLOP/s (%s), "
                 "beyond the roof's own spread of %.0f%%",
                 100.0 * b.fraction, b.attainable_gflops, roof_bound_roof(&b),
                 100.0 * b.spread);
        jd_set(d, o, "note", json_string(note));
    } else if (b.fraction > 1.0) {
        char note[240];
        snprintf(note, sizeof(note),
                 "over 100%% of the roof, within its spread: %.0f%% of %.4g "
                 "GFLOP/s (%s), whose own measured points reach %.0f%% of "
                 "that figure",
                 100.0 * b.fraction, b.attainable_gflops, roof_bound_roof(&b),
                 100.0 * (1.0 + b.spread));
        jd_set(d, o, "note", json_string(note));
    }
    if (b.mix != r->kernel->access)
        jd_set(d, o, "mix_note",
               json_string("the mixed roof was not measured: judged against "
                           "the read roof"));
    return o;
}

/* The counters of a row: per event the count per call, or unavailable
 * with PAPI's reason; never a 0 in place of a count. */
static json_t *counters_row_json(jdoc *d, const harness_row *r)
{
    const counters_events *ev = r->events;
    json_t *events = json_object();
    for (int i = 0; i < ev->n; i++)
        jd_set(d, events, ev->name[i],
               r->counted && ev->usable[i]
                   ? jd_num((double)r->ctr_counts[i] / (double)r->counted_reps)
                   : jd_pack(d, "{s:s}", "unavailable",
                             ev->reason[i][0] ? ev->reason[i] : "not counted"));
    json_t *o = jd_pack(d, "{s:o, s:s}", "per_call", events, "counted",
                        r->counted ? "one extra sample, every thread between "
                                     "start and stop, summed"
                                   : "no event can be counted here");
    if (r->counted)
        jd_set(d, o, "calls", json_integer((json_int_t)r->counted_reps));
    if (r->counted_note[0])
        jd_set(d, o, "note", json_string(r->counted_note));
    return o;
}

/* The threads' bindings, one string each (';' apart in the row). */
static json_t *binding_json(jdoc *d, const harness_row *r)
{
    json_t *binding = json_array();
    char buf[sizeof(r->binding)];
    strcpy(buf, r->binding);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save))
        jd_push(d, binding, "binding", json_string(tok));
    return binding;
}

/* The core clock just before and after the row's samples, and whether it
 * moved beyond its noise. */
static json_t *clock_json(jdoc *d, const harness_row *r)
{
    double change, noise;
    const int moved =
        drift_clock_moved(r->ghz_before, r->ghz_spread_before, r->ghz_after,
                          r->ghz_spread_after, &change, &noise);
    return jd_pack(d, "{s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "before",
                   jd_num(r->ghz_before), "after", jd_num(r->ghz_after),
                   "spread_before", jd_num(r->ghz_spread_before),
                   "spread_after", jd_num(r->ghz_spread_after), "change",
                   jd_num(change), "noise", jd_num(noise), "moved", moved);
}

/* The peak measured around the row, or why not. */
static void peak_now(jdoc *d, json_t *row, const harness_row *r)
{
    const rb_peak_variant *pv = ceilings_peak_now_variant();
    if (r->peak_before > 0.0 && r->peak_after > 0.0 && pv)
        jd_set(d, row, "peak_now_gflops",
               jd_pack(d, "{s:o, s:o, s:s}", "before", jd_num(r->peak_before),
                       "after", jd_num(r->peak_after), "kernel", pv->name));
    else
        jd_set(d, row, "peak_now_unavailable",
               json_string(pv ? "not measured around this row"
                              : "no peak kernel runs on this ISA"));
}

/* The read bandwidth measured around the row, or why not. */
static void read_now(jdoc *d, json_t *row, const harness_row *r)
{
    const rb_stream_variant *rv = ceilings_read_now_variant();
    if (r->read_before > 0.0 && r->read_after > 0.0 && rv)
        jd_set(d, row, "read_now_gbs",
               jd_pack(d, "{s:o, s:o, s:I, s:s, s:s}", "before",
                       jd_num(r->read_before), "after", jd_num(r->read_after),
                       "bytes", (json_int_t)r->read_bytes, "kernel", "read",
                       "variant", rv->name));
    else
        jd_set(d, row, "read_now_unavailable",
               json_string(!rv ? "no read kernel runs on this ISA"
                           : r->nsamples > 0 && r->read_bytes == 0
                               ? "the largest input is smaller than a read "
                                 "block (512 bytes) per thread"
                               : "not measured around this row"));
}

/* The streaming FMA probe around the row, where the row asked for one,
 * or why not. */
static void fmastream_now(jdoc *d, json_t *row, const harness_row *r)
{
    const rb_fmastream_variant *fv = ceilings_fmastream_now_variant();
    if (r->fmastream_fmas > 0 && r->fmastream_before > 0.0 &&
        r->fmastream_after > 0.0 && fv)
        jd_set(d, row, "fmastream_now_gflops",
               jd_pack(d, "{s:o, s:o, s:I, s:I, s:s, s:s}", "before",
                       jd_num(r->fmastream_before), "after",
                       jd_num(r->fmastream_after), "fmas_per_element",
                       (json_int_t)r->fmastream_fmas, "bytes",
                       (json_int_t)r->fmastream_bytes, "kernel", fv->name,
                       "ways", "1 and 4 streams, lines asked for 4 KiB ahead"));
    else if (r->fmastream_fmas > 0)
        jd_set(d, row, "fmastream_now_unavailable",
               json_string(!fv ? "no streaming FMA kernel runs on this ISA "
                                 "(it needs FMA)"
                           : r->nsamples > 0 && r->fmastream_bytes == 0
                               ? "the largest input is smaller than a "
                                 "block of the streaming kernel per thread"
                               : "not measured around this row"));
}

json_t *report_run_row_json(jdoc *d, const harness_row *r, const roofline *roof)
{
    json_t *samples = json_array();
    for (int i = 0; i < r->nsamples; i++)
        jd_push(d, samples, "samples_s", jd_num(r->samples[i]));
    const double tmin = r->time.min, tmed = r->time.median;
    char why[256];
    json_t *roof_place = roof_json(d, r, roof, why, sizeof(why));
    json_t *row = jd_pack(
        d,
        "{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:I}, s:i, s:o, s:o, s:I, s:I, "
        "s:b, s:o, s:I, s:o, "
        "s:{s:o, s:o, s:o, s:o, s:o}, s:{s:o, s:o}, s:{s:o, s:o}, "
        "s:{s:o, s:o, s:o, s:b}, s:o}",
        "kernel", r->kernel->name, "op", rb_op_name(r->kernel->op), "form",
        r->kernel->form, "dtype", rb_dtype_name(r->dtype), "shape", "n",
        (json_int_t)r->shape.n, "p", (json_int_t)r->shape.p, "m",
        (json_int_t)r->shape.m, "threads", r->threads, "library_threads",
        r->library_threads ? json_integer(r->library_threads) : json_null(),
        "binding", binding_json(d, r), "flops", (json_int_t)r->counts.flops,
        "bytes", (json_int_t)r->counts.bytes, "output_read",
        r->kernel->output_read, "intensity",
        jd_num((double)r->counts.flops / (double)r->counts.bytes),
        "calls_per_sample", (json_int_t)r->reps, "samples_s", samples, "time_s",
        "min", jd_num(tmin), "median", jd_num(tmed), "mean",
        jd_num(r->time.mean), "max", jd_num(r->time.max), "cv",
        jd_num(r->time.cv), "gflop_per_s", "best",
        jd_num(rate(r->counts.flops, tmin, 1e9)), "median",
        jd_num(rate(r->counts.flops, tmed, 1e9)), "gbyte_per_s", "best",
        jd_num(rate(r->counts.bytes, tmin, 1e9)), "median",
        jd_num(rate(r->counts.bytes, tmed, 1e9)), "verify",
        "max_rel_err_before", jd_num(r->check_before.max_err),
        "max_rel_err_after", jd_num(r->check_after.max_err), "tolerance",
        jd_num(r->check_after.tol), "passed",
        r->check_before.passed && r->check_after.passed, "roofline",
        roof_place);
    if (why[0])
        jd_set(d, row, "roofline_unavailable", json_string(why));
    jd_set(d, row, "clock_ghz", clock_json(d, r));
    peak_now(d, row, r);
    read_now(d, row, r);
    fmastream_now(d, row, r);
    if (r->events)
        jd_set(d, row, "counters", counters_row_json(d, r));
    return row;
}

/* Why a row was timed on a moving machine: its team's clock moved between
 * just before and just after its samples, or (for a row its memory roof
 * binds) the probe of its level moved between the start and the end of
 * the run. Up to two reasons into why; returns how many. */
static int row_unstable(const run_doc *doc, const harness_row *r,
                        char (*why)[200])
{
    int n = 0;
    double change, noise;
    if (drift_clock_moved(r->ghz_before, r->ghz_spread_before, r->ghz_after,
                          r->ghz_spread_after, &change, &noise))
        snprintf(why[n++], 200,
                 "the clock moved from %.2f to %.2f GHz (%+.0f%%, noise "
                 "%.0f%%) while it was timed",
                 r->ghz_before, r->ghz_after, 100.0 * change, 100.0 * noise);
    roof_bound b;
    char reason[160];
    if (!doc->probes || !doc->roof ||
        row_bound(doc->roof, r, &b, reason, sizeof(reason)) != 0 ||
        b.compute_bound)
        return n;
    const drift_probe *p =
        drift_probe_for(doc->probes, r->threads, b.mix, b.level.name);
    if (p && drift_probe_moved(p, &change, &noise))
        snprintf(why[n++], 200,
                 "its roof moved: %s %s on %d thread%s from %.4g to %.4g GB/s "
                 "(%+.0f%%, noise %.0f%%) between the start and the end",
                 p->level, p->kernel, p->threads, rb_plural(p->threads),
                 p->gbs[0], p->gbs[1], 100.0 * change, 100.0 * noise);
    return n;
}

/* The probes, both ends, and the verdict over the whole run. */
static json_t *stability_json(jdoc *d, const run_doc *doc, int unstable_rows)
{
    json_t *probes = json_array();
    int moved = 0, clocks = 0, off = 0;
    for (int i = 0; doc->probes && i < doc->probes->nprobes; i++) {
        const drift_probe *p = &doc->probes->probes[i];
        double change, noise, ratio, roof_noise;
        const int mv = drift_probe_moved(p, &change, &noise);
        const int of = drift_probe_off_roof(p, &ratio, &roof_noise);
        moved += mv;
        off += of;
        json_t *o = jd_pack(
            d,
            "{s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
            "threads", p->threads, "mix", rb_access_name(p->mix), "level",
            p->level, "kernel", p->kernel, "bytes", jd_num(p->bytes),
            "start_gbs", p->have[0] ? jd_num(p->gbs[0]) : json_null(),
            "end_gbs", p->have[1] ? jd_num(p->gbs[1]) : json_null(),
            "start_spread", p->have[0] ? jd_num(p->spread[0]) : json_null(),
            "end_spread", p->have[1] ? jd_num(p->spread[1]) : json_null(),
            "change", jd_num(change), "noise", jd_num(noise), "moved", mv);
        /* the roofline's figure for the level beside what the probe found */
        jd_set(d, o, "roof_gbs", jd_num(p->roof_gbs));
        jd_set(d, o, "roof_ratio", jd_num(ratio));
        jd_set(d, o, "roof_noise", jd_num(roof_noise));
        jd_set(d, o, "off_roof", json_boolean(of));
        jd_push(d, probes, "probes", o);
    }
    for (size_t i = 0; i < doc->res->nrows; i++) {
        const harness_row *r = &doc->res->rows[i];
        double change, noise;
        clocks +=
            drift_clock_moved(r->ghz_before, r->ghz_spread_before, r->ghz_after,
                              r->ghz_spread_after, &change, &noise);
    }
    return jd_pack(d, "{s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:i, s:b, s:s}",
                   "clock_noise", jd_num(DRIFT_CLOCK_NOISE),
                   "bandwidth_noise_floor", jd_num(DRIFT_BW_NOISE),
                   "roof_noise_floor", jd_num(DRIFT_ROOF_NOISE), "probes",
                   probes, "probes_moved", moved, "probes_off_roof", off,
                   "rows_clock_moved", clocks, "rows_unstable", unstable_rows,
                   "unstable", moved > 0 || clocks > 0, "method",
                   "each roof level probed with the kernel that set it at "
                   "the middle of its working sets after the roofline and "
                   "again after the last row; each row's clock read just "
                   "before and just after its samples; a figure moved when "
                   "it changed by more than its noise; a level is off its "
                   "roof when the probe's better end differs from the "
                   "roofline's figure by more than the larger of "
                   "roof_noise_floor, the probe's spread and the level's");
}

char *report_run_json(const run_doc *doc, rb_err *e)
{
    jdoc d = {0};
    json_t *rows = json_array();
    int unstable = 0;
    for (size_t i = 0; i < doc->res->nrows; i++) {
        const harness_row *r = &doc->res->rows[i];
        json_t *row = report_run_row_json(&d, r, doc->roof);
        char why[2][200];
        const int n = row_unstable(doc, r, why);
        json_t *reasons = json_array();
        for (int k = 0; k < n; k++)
            jd_push(&d, reasons, "reasons", json_string(why[k]));
        jd_set(
            &d, row, "stability",
            jd_pack(&d, "{s:b, s:o}", "unstable", n > 0, "reasons", reasons));
        unstable += n > 0;
        jd_push(&d, rows, "rows", row);
    }
    json_t *root =
        jd_pack(&d, "{s:s, s:i, s:s, s:s?, s:O, s:o, s:o}", "schema",
                "roofbench.run", "schema_version", RUN_SCHEMA_VERSION, "status",
                doc->status, "error", doc->error, "context", doc->context,
                "stability", stability_json(&d, doc, unstable), "rows", rows);
    return jd_text(&d, root, "results.json", 17, e);
}

/* ---- CSV -------------------------------------------------------------------
 */

static void csv_row(csv *c, const harness_row *r, const roofline *roof)
{
    csv_str(c, r->kernel->name);
    csv_str(c, rb_op_name(r->kernel->op));
    csv_str(c, r->kernel->form);
    csv_str(c, rb_dtype_name(r->dtype));
    csv_int(c, r->shape.n);
    csv_int(c, r->shape.p);
    csv_int(c, r->shape.m);
    csv_int(c, (unsigned long long)r->threads);
    if (r->library_threads) /* empty where results.json has null */
        csv_int(c, (unsigned long long)r->library_threads);
    else
        csv_empty(c);
    csv_str(c, r->binding);
    csv_int(c, r->counts.flops);
    csv_int(c, r->counts.bytes);
    csv_num(c, "%.9g", (double)r->counts.flops / (double)r->counts.bytes);
    csv_int(c, r->reps);
    csv_int(c, (unsigned long long)r->nsamples);
    csv_num(c, "%.9g", r->time.min);
    csv_num(c, "%.9g", r->time.median);
    csv_num(c, "%.9g", r->time.mean);
    csv_num(c, "%.6g", r->time.cv);
    csv_num(c, "%.6g", rate(r->counts.flops, r->time.min, 1e9));
    csv_num(c, "%.6g", rate(r->counts.flops, r->time.median, 1e9));
    csv_num(c, "%.6g", rate(r->counts.bytes, r->time.min, 1e9));
    csv_num(c, "%.6g", rate(r->counts.bytes, r->time.median, 1e9));
    csv_num(c, "%.3g", fmax(r->check_before.max_err, r->check_after.max_err));
    csv_num(c, "%.3g", r->check_after.tol);
    roof_bound b;
    char why[256];
    if (roof &&
        row_bound(roof, r, &b, why, sizeof(why)) == 0) {
        csv_str(c, b.level.name);
        csv_num(c, "%.6g", b.attainable_gflops);
        csv_str(c, b.compute_bound ? "compute" : b.level.name);
        csv_num(c, "%.4g", b.fraction);
        csv_str(c, roof_bound_roof(&b));
        csv_num(c, "%.4g", b.spread);
        csv_int(c, (unsigned long long)b.above);
    } else {
        for (int i = 0; i < 7; i++)
            csv_empty(c);
    }
    csv_end(c);
}

char *report_run_csv(const run_doc *doc, rb_err *e)
{
    csv c = {0};
    csv_header(&c, "kernel,op,form,dtype,n,p,m,threads,library_threads,"
                   "binding,flops,bytes,intensity,calls_per_sample,samples,"
                   "time_min_s,time_median_s,time_mean_s,cv,gflops_best,"
                   "gflops_median,gbytes_best,gbytes_median,verify_max_rel_err,"
                   "verify_tolerance,roof_level,roof_attainable_gflops,"
                   "roof_binds,roof_fraction,roof_kernel,roof_spread,"
                   "roof_above");
    for (size_t i = 0; i < doc->res->nrows; i++)
        csv_row(&c, &doc->res->rows[i], doc->roof);
    char *text = sb_take(&c.sb);
    if (!text)
        rb_fail(e, RB_EINPUT, "out of memory formatting results.csv");
    return text;
}

/* ---- text ------------------------------------------------------------------
 */

void report_run_roofline_text(const roofline *roof, FILE *f)
{
    for (size_t i = 0; i < roof->nteams; i++) {
        char line[640];
        roofline_describe(&roof->teams[i], line, sizeof(line));
        fprintf(f, "  %s\n", line);
    }
}

static void format_shape(const harness_row *r, char *buf, size_t len)
{
    switch (r->kernel->op) {
    case RB_OP_DOT:
        snprintf(buf, len, "%zu", r->shape.p);
        break;
    case RB_OP_MATVEC:
        snprintf(buf, len, "%zux%zu", r->shape.n, r->shape.p);
        break;
    default:
        snprintf(buf, len, "%zux%zux%zu", r->shape.n, r->shape.p, r->shape.m);
        break;
    }
}

static void header_text(FILE *f)
{
    fprintf(f,
            "%-16s %-13s %-5s %-13s %3s %-7s %9s %9s %7s %10s %10s %5s "
            "%8s %8s %7s %-8s %8s %8s %-8s\n",
            "kernel", "form", "dtype", "shape", "thr", "PUs", "FLOPs", "bytes",
            "FLOP/B", "t_min(s)", "t_med(s)", "cv%", "GFLOP/s", "GB/s",
            "err/tol", "level", "roof", "%roof", "roof by");
}

char report_run_mark(const roof_bound *b, int *above, int *over)
{
    *above += b->above;
    *over += !b->above && b->fraction > 1.0;
    return b->above ? '!' : b->fraction > 1.0 ? '+' : ' ';
}

/* One row; the reason it has no roof goes to why (the first seen), *above
 * counts the rows above their measured roof (marked !), *over those over
 * 100% within the roof's spread (+) and *unstable those timed on a moving
 * machine (~). */
static void row_text(const run_doc *doc, const harness_row *r, FILE *f,
                     char *why, size_t whylen, int *above, int *over,
                     int *unstable)
{
    const roofline *roof = doc->roof;
    char moved[2][200];
    const int nmoved = row_unstable(doc, r, moved);
    *unstable += nmoved > 0;
    char shape[64], pus[sizeof(r->binding) + 1];
    format_shape(r, shape, sizeof(shape));
    snprintf(pus, sizeof(pus), "%s%s", r->binding,
             r->library_threads ? "*" : "");
    const double err = fmax(r->check_before.max_err, r->check_after.max_err) /
                       r->check_after.tol;
    fprintf(f,
            "%-16s %-13s %-5s %-13s %3d %-7s %9.3g %9.3g %7.3g %10.4g %10.4g "
            "%5.1f %8.3f %8.3f %7.2g ",
            r->kernel->name, r->kernel->form, rb_dtype_name(r->dtype), shape,
            r->threads, pus, (double)r->counts.flops, (double)r->counts.bytes,
            (double)r->counts.flops / (double)r->counts.bytes, r->time.min,
            r->time.median, 100.0 * r->time.cv,
            (double)r->counts.flops / r->time.min / 1e9,
            (double)r->counts.bytes / r->time.min / 1e9, err);
    roof_bound b;
    char reason[256] = "no roofline";
    if (roof &&
        row_bound(roof, r, &b, reason, sizeof(reason)) == 0) {
        fprintf(f, "%-8s %8.2f %5.1f%%%c%c %-8s\n", b.level.name,
                b.attainable_gflops, 100.0 * b.fraction,
                report_run_mark(&b, above, over), nmoved ? '~' : ' ',
                roof_bound_roof(&b));
    } else {
        fprintf(f, "%-8s %8s %6s %c %-8s\n", "n/a", "n/a", "n/a",
                nmoved ? '~' : ' ', "n/a");
        if (!why[0])
            snprintf(why, whylen, "%s", reason);
    }
    if (r->counted) {
        fprintf(f, "    counters per call:");
        for (int i = 0; i < r->events->n; i++)
            if (r->events->usable[i])
                fprintf(f, " %s %.4g", r->events->name[i],
                        (double)r->ctr_counts[i] / (double)r->counted_reps);
        fprintf(f, "%s%s\n", r->counted_note[0] ? "  ! " : "", r->counted_note);
    }
}

/* The probes that found their level's roofline figure off beyond their
 * noise (drift_probe_off_roof), each with the roof and the figure. */
static void off_roof_text(const drift_probes *ps, FILE *f)
{
    int off = 0;
    for (int i = 0; i < ps->nprobes; i++) {
        const drift_probe *p = &ps->probes[i];
        double ratio, noise;
        if (!drift_probe_off_roof(p, &ratio, &noise))
            continue;
        if (off++ == 0)
            fprintf(f, "~ the run's probes did not find the roofline's "
                       "figures (a row's fraction of its roof\n  reads high "
                       "where they found more, low where they found less):\n");
        fprintf(f,
                "    %s %s of the %s roof, %d thread%s: %.4g GB/s in the "
                "roofline, %.4g at best here (x%.2f, noise %.0f%%)\n",
                p->level, p->kernel, rb_access_name(p->mix), p->threads,
                rb_plural(p->threads), p->roof_gbs, ratio * p->roof_gbs, ratio,
                100.0 * noise);
    }
}

/* The run's drift verdict: the probes that moved, the levels whose
 * roofline figure the probes did not find, or that none did. */
static void stability_text(const run_doc *doc, int unstable, FILE *f)
{
    if (!doc->probes || doc->probes->nprobes == 0 || doc->res->nrows == 0)
        return;
    int moved = 0, both = 0;
    for (int i = 0; i < doc->probes->nprobes; i++) {
        const drift_probe *p = &doc->probes->probes[i];
        double change, noise;
        both += p->have[0] && p->have[1];
        if (!drift_probe_moved(p, &change, &noise))
            continue;
        if (moved++ == 0)
            fprintf(f, "~ the machine was unstable during the run:\n");
        fprintf(f,
                "    %s %s, %d thread%s: %.4g GB/s at the start, %.4g at the "
                "end (%+.0f%%, noise %.0f%%)\n",
                p->level, p->kernel, p->threads, rb_plural(p->threads),
                p->gbs[0], p->gbs[1], 100.0 * change, 100.0 * noise);
    }
    off_roof_text(doc->probes, f);
    if (unstable)
        fprintf(f,
                "~ %d row%s timed while the clock or the row's roof moved "
                "(results.json, rows[].stability, says which)\n",
                unstable, rb_plural(unstable));
    else if (moved)
        fprintf(f, "~ no row depends on a roof that moved, and no row's "
                   "clock moved\n");
    else if (both == doc->probes->nprobes)
        fprintf(f,
                "stable: %d roof level%s probed before and after the rows "
                "within noise, every row's clock within its noise (at least "
                "%.0f%%)\n",
                both, rb_plural(both), 100.0 * DRIFT_CLOCK_NOISE);
    else
        fprintf(f,
                "drift: %d of %d roof level%s probed at both ends (the "
                "others could not be measured here)\n",
                both, doc->probes->nprobes, rb_plural(doc->probes->nprobes));
}

void report_run_marks_text(int above, int over, const char *unit,
                           const char *file, FILE *f)
{
    if (above)
        fprintf(f,
                "! %d %s%s above the measured roof by more than the roof's "
                "own spread: the roof\nis not a bound there (the machine "
                "changed, a faster level served part of the\nworking set, "
                "or no bandwidth kernel matches the access); %s gives\nboth "
                "figures.\n",
                above, unit, rb_plural(above), file);
    if (over)
        fprintf(f,
                "+ %d %s%s over 100%% of the roof but within its spread: the "
                "roof's figure is\nthe median of its level's best points, "
                "and its own best point lies that far\nabove it.\n",
                over, unit, rb_plural(over));
}

void report_run_text(const run_doc *doc, const char *dir, FILE *f)
{
    const json_t *ob = json_object_get(doc->context, "openblas");
    fprintf(f, "roofbench run on %s: OpenBLAS core %s; results in %s\n",
            json_string_value(json_object_get(doc->context, "host")),
            json_string_value(json_object_get(ob, "corename")), dir);
    if (doc->roof)
        report_run_roofline_text(doc->roof, f);
    for (int i = 0; doc->events && i < doc->events->n; i++)
        if (!doc->events->usable[i])
            fprintf(f, "counters: %s unavailable: %s\n", doc->events->name[i],
                    doc->events->reason[i]);
    char why[256] = "";
    int above = 0, over = 0, unstable = 0;
    for (size_t i = 0; i < doc->res->nrows; i++) {
        if (i == 0)
            header_text(f);
        row_text(doc, &doc->res->rows[i], f, why, sizeof(why), &above, &over,
                 &unstable);
    }
    fprintf(f,
            "%zu row%s. PUs: the binding each thread obtained (checked), "
            "';' between threads;\n* the caller bound to all of them, "
            "OpenBLAS running its own threads there.\nRates from the "
            "minimum time and the analytic counts; err/tol: the largest\n"
            "verification error as a fraction of its tolerance.\n",
            doc->res->nrows, rb_plural((long long)doc->res->nrows));
    fprintf(f, "roof by: the kernel that measured the bound (read, read2, "
               "read4 for kernels that\nonly read; copy, triad, schoenauer too "
               "for kernels that write), or compute\n(the peak).\n");
    report_run_marks_text(above, over, "row", "results.json", f);
    stability_text(doc, unstable, f);
    if (why[0])
        fprintf(f, "n/a: %s\n", why);
    fprintf(f, "Written: %s/results.json, results.csv\n", dir);
}
