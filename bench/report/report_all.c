#include "report_all.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernel.h"
#include "report_job.h"
#include "report_roofline.h"
#include "roofline.h"
#include "text.h"

static const struct {
    const char *step, *doc;
} documents[] = {
    {"info", "info.json"},         {"ceilings", "ceilings/ceilings.json"},
    {"run", "run/results.json"},   {"orders", "orders/orders.json"},
    {"sweep", "sweep/sweep.json"}, {"network", "network/network.json"},
    {"model", "model.json"},
};

const char *report_all_document(const char *step)
{
    for (size_t i = 0; i < sizeof(documents) / sizeof(documents[0]); i++)
        if (strcmp(step, documents[i].step) == 0)
            return documents[i].doc;
    return NULL;
}

void report_all_clock(char *buf, size_t len, double s)
{
    snprintf(buf, len, "%d:%02d", (int)(s / 60), (int)fmod(s, 60));
}

/* A string from a document as printed: bytes that are not printable
 * UTF-8 (a newline, an escape sequence) escaped, NULL as "?". Each call
 * has a buffer of its own from a small ring, for the few strings of one
 * line. */
static const char *esc(const char *s)
{
    static char ring[8][512];
    static int next;
    char *b = ring[next++ % 8];
    text_escape(s ? s : "?", b, sizeof(ring[0]));
    return b;
}

/* The document of a step the job ran, or NULL. */
static json_t *load_doc(const char *dir, const job_step *steps, size_t n,
                        const char *step)
{
    const char *doc = report_all_document(step);
    size_t s = 0;
    while (s < n && strcmp(steps[s].name, step) != 0)
        s++;
    if (s == n || !doc)
        return NULL;
    char path[4400];
    snprintf(path, sizeof(path), "%s/%s", dir, doc);
    return json_load_file(path, 0, NULL);
}

/* The roof levels whose roofline figure the run step's probes did not
 * find (results.json, stability.probes[].off_roof): how many, and the one
 * furthest off. Every later step is judged against the same roofline, so
 * a ceilings step measured in a slow spell shows here first. */
static void summary_off_roof(const json_t *stab, FILE *f)
{
    const json_t *far = NULL;
    double far_log = -1.0;
    int n = 0;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(stab, "probes"), i, p)
    {
        const double ratio =
            json_number_value(json_object_get(p, "roof_ratio"));
        if (!json_is_true(json_object_get(p, "off_roof")) || !(ratio > 0.0))
            continue;
        n++;
        if (fabs(log(ratio)) > far_log) {
            far_log = fabs(log(ratio));
            far = p;
        }
    }
    if (!far)
        return;
    const json_int_t th = json_integer_value(json_object_get(far, "threads"));
    const double roof = json_number_value(json_object_get(far, "roof_gbs")),
                 ratio = json_number_value(json_object_get(far, "roof_ratio"));
    fprintf(f,
            "  the run step's probes did not find the roofline's figures: "
            "%d probe%s off beyond %s noise, most %s %s of the %s roof, "
            "%lld thread%s: %.4g GB/s in the roofline, %.4g at best then "
            "(x%.2f); every step is judged against that roofline\n",
            n, rb_plural(n), n == 1 ? "its" : "their",
            esc(json_string_value(json_object_get(far, "level"))),
            esc(json_string_value(json_object_get(far, "kernel"))),
            esc(json_string_value(json_object_get(far, "mix"))),
            (long long)th, rb_plural(th), roof, roof * ratio, ratio);
}

/* The run step's rows in the summary: the kernels nearest to their roof
 * and farthest from it, the rows above their roof, the drift verdict. */
static void summary_rows(const char *dir, const job_step *steps, size_t nsteps,
                         FILE *f)
{
    json_t *run = load_doc(dir, steps, nsteps, "run");
    const json_t *best = NULL, *worst = NULL;
    double bf = -1, wf = INFINITY;
    size_t i;
    json_t *row;
    int above = 0;
    /* nearest among the rows below their roof: one above it is no
     * achievement but a roof that did not hold, counted apart */
    json_array_foreach(json_object_get(run, "rows"), i, row)
    {
        const json_t *rl = json_object_get(row, "roofline");
        const json_t *fr = json_object_get(rl, "fraction_of_attainable");
        if (!json_is_number(fr))
            continue;
        if (json_is_true(json_object_get(rl, "above_measured_roof"))) {
            above++;
            continue;
        }
        const double v = json_number_value(fr);
        if (v > bf) {
            bf = v;
            best = row;
        }
        if (v < wf) {
            wf = v;
            worst = row;
        }
    }
    const json_t *ends[2] = {best, worst};
    for (int k = 0; k < 2 && best; k++)
        fprintf(
            f, "  %s its roof: %s %s, %lld thread%s, %.3g%%%s\n",
            k ? "farthest from" : "nearest to",
            esc(json_string_value(json_object_get(ends[k], "kernel"))),
            esc(json_string_value(json_object_get(ends[k], "dtype"))),
            (long long)json_integer_value(json_object_get(ends[k], "threads")),
            rb_plural(json_integer_value(json_object_get(ends[k], "threads"))),
            100 * (k ? wf : bf),
            (k ? wf : bf) > 1.0 ? " (over the roof's figure, within its "
                                  "measured spread)"
                                : "");
    if (above)
        fprintf(f,
                "  above the measured roof (beyond its spread): %d row%s, "
                "flagged in the run's table and results.json\n",
                above, rb_plural(above));
    const json_t *stab = json_object_get(run, "stability");
    if (json_is_true(json_object_get(stab, "unstable")))
        fprintf(f,
                "  the machine was unstable during the run: %lld roof "
                "probe%s moved, %lld row%s timed on a moving clock or roof\n",
                (long long)json_integer_value(
                    json_object_get(stab, "probes_moved")),
                rb_plural(
                    json_integer_value(json_object_get(stab, "probes_moved"))),
                (long long)json_integer_value(
                    json_object_get(stab, "rows_unstable")),
                rb_plural(json_integer_value(
                    json_object_get(stab, "rows_unstable"))));
    summary_off_roof(stab, f);
    json_decref(run);
}

/* Each step's status, time and note. */
static void summary_steps(const job_step *steps, size_t nsteps, FILE *f)
{
    fprintf(f, "\nsummary\n");
    for (size_t s = 0; s < nsteps; s++) {
        char t[16];
        report_all_clock(t, sizeof(t), steps[s].seconds);
        fprintf(f, "  %-9s %-11s %6s  %s\n", esc(steps[s].name),
                esc(steps[s].status), steps[s].status[0] == 'n' ? "" : t,
                steps[s].note ? esc(steps[s].note) : "");
    }
}

/* Each team's ridge over DRAM, per dtype, from the roofline in ceil. */
static void summary_ridges(const char *ceil, FILE *f)
{
    roofline roof;
    json_t *doc = ceil ? json_load_file(ceil, 0, NULL) : NULL;
    rb_err e;
    if (doc && roofline_from_doc(doc, "ceilings.json", &roof, &e) == RB_OK) {
        for (size_t t = 0; t < roof.nteams; t++) {
            const roof_team *team = &roof.teams[t];
            const roof_level *dram =
                roof_bw_level(roof_team_read(team), "DRAM");
            if (!dram)
                continue;
            fprintf(f, "  ridge, %d thread%s: ", team->threads,
                    rb_plural(team->threads));
            for (int d = 0; d < RB_NDTYPES; d++)
                if (team->peak_gflops[d] > 0)
                    fprintf(f, "%s%s %.3g FLOP/B (%.4g GFLOP/s over %.4g GB/s)",
                            d ? "; " : "", rb_dtype_name((rb_dtype)d),
                            team->peak_gflops[d] / dram->gbs,
                            team->peak_gflops[d], dram->gbs);
            fprintf(f, "\n");
        }
    }
    json_decref(doc);
}

/* The four orders: the sentence orders writes, per size. */
static void summary_orders(const json_t *ord, FILE *f)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(ord, "sizes"), i, row)
    {
        const char *sum = json_string_value(json_object_get(row, "summary"));
        if (sum)
            fprintf(f, "  four orders, %s n=%lld: %s\n",
                    esc(json_string_value(json_object_get(row, "dtype"))),
                    (long long)json_integer_value(json_object_get(row, "n")),
                    esc(sum));
    }
}

/* The sweep: the blocked kernel's 50% knee against the ridge batch. */
static void summary_sweep(const json_t *sw, FILE *f)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(sw, "curves"), i, row)
    {
        const char *k = json_string_value(json_object_get(row, "kernel"));
        const json_t *kn =
            json_object_get(json_object_get(row, "knee50"), "batch");
        const json_t *pr = json_object_get(row, "predicted");
        const json_t *rb = json_object_get(pr, "ridge_batch"),
                     *now = json_object_get(pr, "ridge_batch_now");
        if (!k || strcmp(k, "matmul_blocked") != 0 || !json_is_number(kn) ||
            !json_is_number(rb))
            continue;
        char also[96] = "";
        if (json_is_number(now))
            snprintf(also, sizeof(also),
                     " (%.3g at the peak and read bandwidth measured "
                     "around its points)",
                     json_number_value(now));
        fprintf(f,
                "  sweep knee, matmul_blocked %s, %lld thread%s, %s "
                "weights: B %.3g measured, %.3g predicted%s\n",
                esc(json_string_value(json_object_get(row, "dtype"))),
                (long long)json_integer_value(json_object_get(row, "threads")),
                rb_plural(json_integer_value(json_object_get(row, "threads"))),
                esc(json_string_value(json_object_get(row, "weights"))),
                json_number_value(kn), json_number_value(rb), also);
    }
}

/* The network: each curve's crossover D, measured and predicted. */
static void summary_network(const json_t *net, FILE *f)
{
    size_t i;
    json_t *c;
    json_array_foreach(
        json_object_get(json_object_get(net, "shard"), "crossover"), i, c)
    {
        const double meas = json_number_value(json_object_get(c, "measured_d"));
        const double pred =
            json_number_value(json_object_get(c, "predicted_d"));
        fprintf(f,
                "  network crossover, %s B=%lld: D %.4g measured, %.4g "
                "predicted\n",
                esc(json_string_value(json_object_get(c, "dtype"))),
                (long long)json_integer_value(json_object_get(c, "b")), meas,
                pred);
    }
}

/* The host beside the reference profiles: each one's ridge. */
static void summary_references(const json_t *model, FILE *f)
{
    size_t i;
    json_t *c;
    int first = 1;
    json_array_foreach(json_object_get(model, "targets"), i, c)
    {
        fprintf(f, "%s%s %.3g (%s)",
                first ? "  ridge FLOP/B beside the "
                        "references: "
                      : ", ",
                esc(json_string_value(json_object_get(c, "profile"))),
                json_number_value(json_object_get(c, "ridge")),
                esc(json_string_value(json_object_get(c, "dtype"))));
        first = 0;
    }
    if (!first)
        fprintf(f, "\n");
}

/* The headline figures, from the documents the steps left (read back:
 * what the summary says is what the folder holds). */
void report_all_summary(const char *dir, const char *ceil,
                        const job_step *steps, size_t nsteps, FILE *f)
{
    summary_steps(steps, nsteps, f);
    summary_ridges(ceil, f);
    summary_rows(dir, steps, nsteps, f);
    static const struct {
        const char *step;
        void (*say)(const json_t *doc, FILE *f);
    } docs[] = {{"orders", summary_orders},
                {"sweep", summary_sweep},
                {"network", summary_network},
                {"model", summary_references}};
    for (size_t k = 0; k < sizeof(docs) / sizeof(docs[0]); k++) {
        json_t *doc = load_doc(dir, steps, nsteps, docs[k].step);
        docs[k].say(doc, f);
        json_decref(doc);
    }
}

/* ---- the report ---------------------------------------------------------- */

static const job_chart charts[] = {
    {"The host roofline, every kernel on it", "roofline.svg", "roofline.png",
     "Each kernel's best rate against its intensity, the FLOPs it does per "
     "byte it must move. Grey: the compute roofs measured at each vector "
     "width; dashed: OpenBLAS's GEMM, what a tuned kernel reaches; blue: each "
     "memory level's read roof (the best of one, two and four read "
     "streams), up to the ridge where it meets the peak, and dashed the "
     "mixed roof matmul and batched are held to where it lies 10% or more "
     "above (triad's stores in L1); dotted orange, on the "
     "1-thread panels, the network link's, "
     "where the network step measured it. Left of a ridge a kernel can go "
     "no faster than its level's diagonal, right of it no faster than the "
     "peak: look at how far each marker sits below the roof above it, and "
     "which roof that is. The thin lines are the hierarchical roofline of "
     "the four orders: one form at its measured rate, a marker at the "
     "intensity of its traffic into L1, into the last level and from "
     "memory; a form whose L1 marker sits far left of its memory one makes "
     "its traffic in the caches, not in memory.",
     "ridge,|nearest|farthest|ridge FLOP/B"},
    {"The host beside the reference chips", "reference.svg", "reference.png",
     "Each chip's roofline from its spec sheet (the host's as measured, all "
     "its cores), on one axis: the diagonal is its memory bandwidth, the "
     "flat part its peak, the dot its ridge point, the intensity a kernel "
     "needs before the chip's arithmetic, not its memory, limits it. An "
     "accelerator's ridge sits far to the right of a CPU's: the same kernel "
     "needs a larger batch to use it.",
     "ridge FLOP/B"},
    {"Bandwidth against the working set", "ceilings/bandwidth.svg",
     "ceilings/bandwidth.png",
     "The read, write, copy and triad kernels' bandwidth as the working set "
     "grows through the caches into memory. Each flat stretch is a level's "
     "plateau, the bandwidth the roofline uses for it; the steps between "
     "are where the set outgrows a cache.",
     "ridge,"},
    {"Four orders, same FLOPs (f64, n = 512)", "orders/orders-f64-512.svg",
     "orders/orders-f64-512.png",
     "The same matrix product in dot-product, column, row, outer-product and "
     "blocked order: identical FLOPs, very different traffic. The bars are "
     "the bytes each form moves at L1 and at the last level (model, and "
     "simulation or counters where available); the order that walks a "
     "column of B for every output pays for it in traffic and time.",
     "four orders, f64"},
    {"Four orders, same FLOPs (f32, n = 512)", "orders/orders-f32-512.svg",
     "orders/orders-f32-512.png", "The same in single precision.",
     "four orders, f32"},
    {"Batch size is the lever", "sweep/sweep.svg", "sweep/sweep.png",
     "[B,P] x [P,M] as B grows: its intensity grows with B while the weights "
     "dominate the bytes, so the fraction of peak climbs until the product "
     "turns compute-bound near the ridge. Open circles: each curve's 50% "
     "knee (none for a curve already past half its plateau at the first "
     "B); the host's roofs dashed, the reference chips' in grey, each "
     "against its own peak; dotted, the streaming probe measured around the "
     "points (the weights streamed with B FMAs a weight and nothing else: "
     "what this host let any such kernel reach then). batched (every row "
     "its own matrix) stays flat: nothing is reused.",
     "sweep knee"},
    {"The network is a roof too", "network/network.svg", "network/network.png",
     "The link between ranks over MPI: latency and bandwidth of messages, "
     "the all-reduce's bus bandwidth, and [B,D] x [D,F] split over the ranks "
     "along D. The partial sums must cross the link, so the product is "
     "compute-bound only while D > (N-1) s C / W: the circles mark that "
     "prediction, the diamonds where compute's time rose above the "
     "all-reduce's. B cancels: the two batch sizes cross at about the same "
     "D.",
     "network crossover"},
};

/* The job's own charts, from the steps' documents under src. */
int report_all_charts(runfolder *f, const char *src, const char *ceil_file,
                      int run_ok, int model_ok, char *chart_why, size_t cwlen,
                      char *ref_why, size_t rwlen, rb_err *e)
{
    /* the host roofline with every kernel on it, from the documents */
    chart_why[0] = 0;
    if (ceil_file && run_ok) {
        char rpath[4500];
        snprintf(rpath, sizeof(rpath), "%.4400s/run/results.json", src);
        json_t *cd = json_load_file(ceil_file, 0, NULL),
               *rd = json_load_file(rpath, 0, NULL);
        /* the orders' traffic per level and the network's link, where
         * those steps left their documents */
        snprintf(rpath, sizeof(rpath), "%.4400s/orders/orders.json", src);
        json_t *od = json_load_file(rpath, 0, NULL);
        snprintf(rpath, sizeof(rpath), "%.4400s/network/network.json", src);
        json_t *nd = json_load_file(rpath, 0, NULL);
        /* the figures as data (ERT's roofline.json), then the chart */
        int crc = cd ? report_roofline_json(f, cd, e) : RB_OK;
        if (!crc)
            crc = cd && rd ? report_roofline_chart(f, cd, rd, od, nd, chart_why,
                                                   cwlen, e)
                           : (snprintf(chart_why, cwlen,
                                       "the documents could not be read"),
                              RB_OK);
        json_decref(cd);
        json_decref(rd);
        json_decref(od);
        json_decref(nd);
        if (crc)
            return crc;
    } else
        snprintf(chart_why, cwlen, "it needs the ceilings and run steps");
    /* the host beside the reference chips, from the model step */
    snprintf(ref_why, rwlen, "the model step did not run");
    if (model_ok) {
        char mpath[4500];
        snprintf(mpath, sizeof(mpath), "%.4400s/model.json", src);
        json_t *md = json_load_file(mpath, 0, NULL);
        int mrc =
            md ? report_reference_chart(f, md, ref_why, rwlen, e)
               : (snprintf(ref_why, rwlen, "model.json could not be read"),
                  RB_OK);
        json_decref(md);
        if (mrc)
            return mrc;
    }
    return RB_OK;
}

int report_all_write(runfolder *f, const char *host, const char *date,
                     const char *summary, const char *steps_json, rb_err *e)
{
    return report_job_write(f, host, date, summary, steps_json, charts,
                            sizeof(charts) / sizeof(charts[0]), e);
}
