/* roofbench ceilings: measure this machine's roofs and write the host
 * profile (ceilings.json), the bandwidth curves as CSV, and a chart. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cli.h"
#include "cmd.h"
#include "host.h"
#include "pin.h"
#include "plot.h"
#include "results.h"

#define RESULTS_ROOT "results/runs"

static void help(void)
{
    printf(
        "usage: roofbench ceilings [options]\n\n"
        "Measures the host's own roofs on pinned threads: the core clock (a "
        "chain of\ndependent adds), peak FLOP/s per dtype and vector width "
        "(independent FMA\nchains; AVX-512 only where CPUID shows it), "
        "bandwidth of read, write, copy\nand triad against working-set size "
        "with the L1, L2, L3 and DRAM plateaus\nfound in each curve, and "
        "OpenBLAS GEMM as the practical compute roof. Every\nkernel's result "
        "is checked against a closed form. Writes ceilings.json (the\nhost "
        "profile that `run --ceilings` reads), bandwidth.csv, levels.csv "
        "and\nbandwidth.png/.svg (with gnuplot) to a new run folder.\n\n"
        "  --threads LIST    thread counts, one per core, pinned (default: 1 "
        "and all cores)\n"
        "  --dtype LIST      f32, f64 (default both)\n"
        "  --width LIST      peak vector widths in bits: 64 (scalar), 128, "
        "256, 512,\n"
        "                    or none (default: every width this CPU has)\n"
        "  --kernel LIST     bandwidth kernels: read, write, copy, triad "
        "(STREAM's\n"
        "                    a = b + s*c), schoenauer (a = b + c*d, "
        "likwid's triad),\n"
        "                    or none (default all)\n"
        "  --bw-width BITS   vector width of the bandwidth kernels (default "
        "the widest)\n"
        "  --size START:END  working sets to sweep, all threads together "
        "(default\n"
        "                    4K to 1G or 8x the last cache; suffixes K, M, "
        "G)\n"
        "  --factor F        geometric step of the sweep (default 1.25; "
        "--quick 1.5)\n"
        "  --sample-bytes N  traffic of one bandwidth sample, about (default "
        "1G; --quick\n"
        "                    256M); more gives longer samples\n"
        "  --gemm-n N        size of the OpenBLAS GEMM roof, 0 to skip "
        "(default 4000;\n"
        "                    --quick 2000)\n"
        "  --min-time S      seconds per clock and peak sample (default "
        "0.05)\n"
        "  --samples N       samples per figure, at least 3 (default 5; "
        "--quick 3)\n"
        "  --quick           fewer points and samples: under a minute on two "
        "cores\n"
        "  --out DIR         results folder (default "
        "results/runs/<host>-<UTC stamp>)\n"
        "  --json            print ceilings.json on stdout instead of the "
        "summary\n"
        "  --help            this text\n");
}

static int parse_list(const char *flag, const char *s, char **items,
                      char *buf, size_t buflen, int max)
{
    rb_err e;
    const int n = cli_split_list(flag, s, buf, buflen, items, max, &e);
    if (n < 0)
        cmd_error(n, e.msg);
    return n;
}

static void progress(const char *line)
{
    printf("  %s\n", line);
    fflush(stdout);
}

/* One CSV line per point or per level of every bandwidth curve. */
static void point_row(FILE *f, const json_t *cv, const json_t *pt)
{
    fprintf(f, "%s,%lld,%.0f,%.6g,%.6g\n",
            json_string_value(json_object_get(cv, "kernel")),
            json_integer_value(json_object_get(cv, "threads")),
            json_real_value(json_object_get(pt, "bytes")),
            json_real_value(json_object_get(pt, "gbs")),
            json_real_value(json_object_get(pt, "gbs_best")));
}

static void level_row(FILE *f, const json_t *cv, const json_t *lv)
{
    fprintf(f, "%s,%lld,%s,%.6g,%.0f,%.0f,%.0f\n",
            json_string_value(json_object_get(cv, "kernel")),
            json_integer_value(json_object_get(cv, "threads")),
            json_string_value(json_object_get(lv, "name")),
            json_real_value(json_object_get(lv, "gbs")),
            json_real_value(json_object_get(lv, "first_bytes")),
            json_real_value(json_object_get(lv, "last_bytes")),
            json_real_value(json_object_get(lv, "next_bytes")));
}

/* The CSV of one array (points or levels) of every curve, with a header. */
static char *curves_csv(const json_t *doc, const char *header,
                        const char *array,
                        void (*row)(FILE *, const json_t *, const json_t *))
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "%s\n", header);
    size_t i, j;
    json_t *cv, *item;
    json_array_foreach(json_object_get(doc, "bandwidth"), i, cv)
    {
        json_array_foreach(json_object_get(cv, array), j, item)
        {
            row(f, cv, item);
        }
    }
    fclose(f);
    return buf;
}

/* The roofs per thread count, the ridge points, and the cache report. */
static void print_summary(const json_t *doc)
{
    size_t i, j;
    json_t *rf, *lv;
    json_array_foreach(json_object_get(doc, "roofline"), i, rf)
    {
        const json_t *peak = json_object_get(rf, "peak_gflops");
        const json_t *gemm = json_object_get(rf, "gemm_gflops");
        const json_t *f32 = json_object_get(peak, "f32");
        const json_t *f64 = json_object_get(peak, "f64");
        printf("\nhost roofline, %lld thread(s) at %.2f GHz: peak",
               json_integer_value(json_object_get(rf, "threads")),
               json_real_value(json_object_get(rf, "ghz")));
        if (f32)
            printf(" f32 %.1f", json_real_value(f32));
        if (f64)
            printf(" f64 %.1f", json_real_value(f64));
        printf(" GFLOP/s");
        if (json_object_size(gemm) > 0) {
            printf("; OpenBLAS GEMM");
            const char *k;
            json_t *v;
            json_object_foreach((json_t *)gemm, k, v)
                printf(" %s %.1f", k, json_real_value(v));
        }
        printf("\n  %-5s %10s %14s %12s %12s\n", "level", "GB/s", "ends near",
               "ridge f32", "ridge f64");
        json_array_foreach(json_object_get(rf, "levels"), j, lv)
        {
            const double gbs = json_real_value(json_object_get(lv, "gbs"));
            printf("  %-5s %10.1f %10.0f KiB", json_string_value(
                                                json_object_get(lv, "name")),
                   gbs,
                   json_real_value(json_object_get(lv, "ends_bytes")) / 1024);
            printf(" %9.2f F/B", f32 ? json_real_value(f32) / gbs : NAN);
            printf(" %9.2f F/B\n", f64 ? json_real_value(f64) / gbs : NAN);
        }
    }
    printf("\ncaches as hwloc reports them, beside the 1-thread read "
           "plateaus:\n");
    json_array_foreach(json_object_get(doc, "caches"), i, lv)
    {
        printf("  %s %8.0f KiB x %lld: %s\n",
               json_string_value(json_object_get(lv, "level")),
               json_real_value(json_object_get(lv, "reported_bytes")) / 1024,
               json_integer_value(json_object_get(lv, "reported_count")),
               json_string_value(json_object_get(lv, "note")));
    }
    const json_t *clk = json_object_get(doc, "clock");
    const json_t *mhz = json_object_get(clk, "os_reported_mhz");
    if (json_is_real(mhz))
        printf("clock the OS reports: %.0f MHz (%s), beside the measured "
               "clock above\n",
               json_real_value(mhz),
               json_string_value(json_object_get(clk, "os_reported_source")));
    else
        printf("clock the OS reports: unknown\n");
}

int cmd_ceilings(int argc, char **argv)
{
    enum { O_THREADS = 256, O_DTYPE, O_WIDTH, O_KERNEL, O_BWWIDTH, O_SIZE,
           O_FACTOR, O_GEMMN, O_MINTIME, O_SAMPLES, O_QUICK, O_OUT, O_JSON,
           O_HELP, O_SAMPLEBYTES };
    static const struct option opts[] = {
        {"threads", required_argument, NULL, O_THREADS},
        {"dtype", required_argument, NULL, O_DTYPE},
        {"width", required_argument, NULL, O_WIDTH},
        {"kernel", required_argument, NULL, O_KERNEL},
        {"bw-width", required_argument, NULL, O_BWWIDTH},
        {"size", required_argument, NULL, O_SIZE},
        {"factor", required_argument, NULL, O_FACTOR},
        {"gemm-n", required_argument, NULL, O_GEMMN},
        {"min-time", required_argument, NULL, O_MINTIME},
        {"samples", required_argument, NULL, O_SAMPLES},
        {"quick", no_argument, NULL, O_QUICK},
        {"out", required_argument, NULL, O_OUT},
        {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, O_HELP},
        {"sample-bytes", required_argument, NULL, O_SAMPLEBYTES},
        {NULL, 0, NULL, 0}};
    const char *a_samplebytes = NULL;
    const char *a_threads = NULL, *a_dtype = NULL, *a_width = NULL,
               *a_kernel = NULL, *a_bwwidth = NULL, *a_size = NULL,
               *a_factor = NULL, *a_gemmn = NULL, *a_mintime = NULL,
               *a_samples = NULL, *out = NULL;
    int quick = 0, json = 0, c, rc;
    rb_err e;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_THREADS: a_threads = optarg; break;
        case O_DTYPE: a_dtype = optarg; break;
        case O_WIDTH: a_width = optarg; break;
        case O_KERNEL: a_kernel = optarg; break;
        case O_BWWIDTH: a_bwwidth = optarg; break;
        case O_SIZE: a_size = optarg; break;
        case O_FACTOR: a_factor = optarg; break;
        case O_GEMMN: a_gemmn = optarg; break;
        case O_MINTIME: a_mintime = optarg; break;
        case O_SAMPLES: a_samples = optarg; break;
        case O_QUICK: quick = 1; break;
        case O_OUT: out = optarg; break;
        case O_JSON: json = 1; break;
        case O_HELP: help(); return 0;
        case O_SAMPLEBYTES: a_samplebytes = optarg; break;
        default:
            if (optopt)
                return cmd_bad("ceilings: option '%s' needs a value",
                               argv[optind - 1]);
            return cmd_bad("ceilings: unknown option '%s' (see roofbench "
                           "ceilings --help)",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_bad("ceilings: unexpected argument '%s'", argv[optind]);
    if (out && *out == '\0')
        return cmd_bad("--out '': an empty folder name");

    hwloc_topology_t topo;
    if ((rc = pin_topology_load(&topo, &e)))
        return cmd_error(rc, e.msg);
    host_cpu cpu;
    host_cpu_probe(&cpu);
    const unsigned isa = host_isa_mask(&cpu);
    const int ncores = pin_ncores(topo);
    double llc = 0.0;
    for (int t = HWLOC_OBJ_L3CACHE; t >= HWLOC_OBJ_L1CACHE && llc == 0.0;
         t--) {
        const int count = hwloc_get_nbobjs_by_type(topo, (hwloc_obj_type_t)t);
        if (count > 0)
            llc = (double)count *
                  (double)hwloc_get_obj_by_type(topo, (hwloc_obj_type_t)t, 0)
                      ->attr->cache.size;
    }
    const double mem = (double)host_mem_available();
    ceilings_plan plan;
    ceilings_plan_defaults(&plan, quick, ncores, isa, llc, mem);

    char buf[512];
    char *items[32];
    int n;
    rc = 0;
    if (a_threads &&
        cli_parse_threads("--threads", a_threads,
                          ncores < CEIL_MAX_THREADS ? ncores : CEIL_MAX_THREADS,
                          plan.threads, CEIL_MAX_THREADS, &plan.nthreads, &e)) {
        rc = cmd_error(RB_EINPUT, e.msg);
        goto done;
    }
    if (a_dtype) {
        if (cli_parse_dtypes("--dtype", a_dtype, plan.dtypes, &plan.ndtypes,
                             &e)) {
            rc = cmd_error(RB_EINPUT, e.msg);
            goto done;
        }
    }
    if (a_width) {
        if ((n = parse_list("--width", a_width, items, buf, sizeof(buf),
                            CEIL_MAX_WIDTHS)) < 0) {
            rc = 2;
            goto done;
        }
        plan.nwidths = 0;
        for (int i = 0; i < n && !(n == 1 && strcmp(items[0], "none") == 0);
             i++) {
            const unsigned bits = strcmp(items[i], "scalar") == 0
                                      ? 64u
                                      : (unsigned)strtoul(items[i], NULL, 10);
            char check[16];
            snprintf(check, sizeof(check), "%u", bits);
            if ((bits != 64 && bits != 128 && bits != 256 && bits != 512) ||
                (strcmp(items[i], "scalar") != 0 &&
                 strcmp(check, items[i]) != 0)) {
                rc = cmd_bad("--width '%s': unknown vector width (64 or "
                             "scalar, 128, 256, 512)",
                             items[i]);
                goto done;
            }
            plan.widths[plan.nwidths++] = bits;
        }
    }
    if (a_kernel) {
        if ((n = parse_list("--kernel", a_kernel, items, buf, sizeof(buf),
                            8)) < 0) {
            rc = 2;
            goto done;
        }
        memset(plan.bw_kernels, 0, sizeof(plan.bw_kernels));
        for (int i = 0; i < n && !(n == 1 && strcmp(items[0], "none") == 0);
             i++) {
            int found = 0;
            for (int k = 0; k < BW_NKERNELS; k++)
                if (strcmp(items[i], bw_kernel_name((bw_kernel)k)) == 0)
                    found = plan.bw_kernels[k] = 1;
            if (!found) {
                rc = cmd_bad("--kernel '%s': unknown bandwidth kernel (read, "
                             "write, copy, triad, schoenauer)",
                             items[i]);
                goto done;
            }
        }
    }
    uint64_t v, v2;
    if (a_bwwidth) {
        if ((rc = cli_parse_count("--bw-width", a_bwwidth, 1, 4096, &v, &e))) {
            rc = cmd_error(rc, e.msg);
            goto done;
        }
        if (v != 128 && v != 256 && v != 512) {
            rc = cmd_bad("--bw-width %s: unknown vector width (128, 256, 512)",
                         a_bwwidth);
            goto done;
        }
        plan.bw_width = (unsigned)v;
    }
    if (a_size) {
        if ((rc = cli_parse_range("--size", a_size, 1024, UINT64_MAX / 4, &v,
                                  &v2, &e))) {
            rc = cmd_error(rc, e.msg);
            goto done;
        }
        plan.size_min = (double)v;
        plan.size_max = (double)v2;
    }
    if (a_factor &&
        (rc = cli_parse_real("--factor", a_factor, 1.01, 16.0, NULL, &plan.factor,
                                &e))) {
        rc = cmd_error(rc, e.msg);
        goto done;
    }
    if (a_samplebytes) {
        if ((rc = cli_parse_count("--sample-bytes", a_samplebytes, 4096,
                                  1ull << 40, &v, &e))) {
            rc = cmd_error(rc, e.msg);
            goto done;
        }
        plan.bw_target_bytes = (double)v;
    }
    if (a_gemmn) {
        if ((rc = cli_parse_count("--gemm-n", a_gemmn, 0, 65536, &v, &e))) {
            rc = cmd_error(rc, e.msg);
            goto done;
        }
        plan.gemm_n = (size_t)v;
    }
    if (a_mintime && (rc = cli_parse_seconds("--min-time", a_mintime, 1e-3,
                                             60.0, &plan.min_time, &e))) {
        rc = cmd_error(rc, e.msg);
        goto done;
    }
    if (a_samples) {
        if ((rc = cli_parse_count("--samples", a_samples, 3, 64, &v, &e))) {
            rc = cmd_error(rc, e.msg);
            goto done;
        }
        plan.samples = (int)v;
    }
    if ((rc = ceilings_check_plan(&plan, isa, mem, &e)) ||
        (rc = results_check_dest(RESULTS_ROOT, out, &e))) {
        rc = cmd_error(rc, e.msg);
        goto done;
    }

    char dir[4096];
    if ((rc = results_make_dir(RESULTS_ROOT, out, dir, sizeof(dir), &e))) {
        rc = cmd_error(rc, e.msg);
        goto done;
    }
    json_t *context = cmd_info_context(topo);
    char iso[32];
    results_utc(iso, sizeof(iso), NULL, 0);
    json_object_set_new(context, "date", json_string(iso));
    json_object_set_new(context, "run_folder", json_string(dir));
    if (!json)
        printf("roofbench ceilings on %s: results in %s\n",
               json_string_value(json_object_get(context, "host")), dir);
    json_t *doc = NULL;
    rc = ceilings_measure(topo, &plan, &cpu, context, &doc,
                          json ? NULL : progress, &e);
    json_decref(context);
    if (rc) {
        rc = cmd_error(rc, e.msg);
        goto done;
    }
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    char *csv = curves_csv(doc, "kernel,threads,bytes,gbs,gbs_best",
                           "points", point_row);
    char *lcsv = curves_csv(
        doc, "kernel,threads,level,gbs,first_bytes,last_bytes,next_bytes",
        "levels", level_row);
    if (!text || !csv || !lcsv)
        rc = rb_fail(&e, RB_EINPUT, "out of memory formatting results");
    if (!rc)
        rc = results_write_file(dir, "ceilings.json", text, strlen(text), &e);
    if (!rc)
        rc = results_write_file(dir, "bandwidth.csv", csv, strlen(csv), &e);
    if (!rc)
        rc = results_write_file(dir, "levels.csv", lcsv, strlen(lcsv), &e);
    free(csv);
    free(lcsv);
    int made = 0;
    char why[512] = "";
    if (!rc) {
        char vars[256];
        int used = snprintf(vars, sizeof(vars), "threads='");
        for (int t = 0; t < plan.nthreads; t++)
            used += snprintf(vars + used, sizeof(vars) - (size_t)used, "%s%d",
                             t ? " " : "", plan.threads[t]);
        snprintf(vars + used, sizeof(vars) - (size_t)used, "'");
        rc = plot_run(dir, "plot-bandwidth.gp", rb_plot_bandwidth_gp, vars,
                      &made, why, sizeof(why), &e);
    }
    if (rc) {
        free(text);
        json_decref(doc);
        rc = cmd_error(rc, e.msg);
        goto done;
    }
    if (json) {
        puts(text);
    } else {
        print_summary(doc);
        printf("\nWritten: %s/ceilings.json, bandwidth.csv, levels.csv%s\n",
               dir, made ? ", bandwidth.png, bandwidth.svg" : "");
        if (!made)
            printf("chart skipped: %s\n", why);
    }
    free(text);
    json_decref(doc);
    rc = 0;
done:
    hwloc_topology_destroy(topo);
    return rc;
}
