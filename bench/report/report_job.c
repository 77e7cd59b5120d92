#include "report_job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "text.h"

/* Text as HTML: & < > " escaped. */
static void html(strbuf *b, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&':
            sb_printf(b, "&amp;");
            break;
        case '<':
            sb_printf(b, "&lt;");
            break;
        case '>':
            sb_printf(b, "&gt;");
            break;
        case '"':
            sb_printf(b, "&quot;");
            break;
        default:
            sb_putn(b, s, 1);
        }
}

/* The summary's lines that start (after their indent) with one of the
 * '|'-separated prefixes, each passed to emit. */
static void figures(const char *summary, const char *prefixes,
                    void (*emit)(strbuf *, const char *, size_t), strbuf *b)
{
    for (const char *p = summary; p && *p;) {
        const char *nl = strchr(p, '\n');
        const size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *t = p;
        while (t < p + n && *t == ' ')
            t++;
        for (const char *q = prefixes; q && *q;) {
            const char *bar = strchr(q, '|');
            const size_t m = bar ? (size_t)(bar - q) : strlen(q);
            if (m && (size_t)(p + n - t) >= m && strncmp(t, q, m) == 0) {
                emit(b, t, (size_t)(p + n - t));
                break;
            }
            q += m + (bar ? 1 : 0);
        }
        p += n + (nl ? 1 : 0);
    }
}

static void md_line(strbuf *b, const char *s, size_t n)
{
    sb_printf(b, "- ");
    sb_putn(b, s, n);
    sb_printf(b, "\n");
}

static void html_line(strbuf *b, const char *s, size_t n)
{
    char *t = strndup(s, n);
    sb_printf(b, "<li>");
    html(b, t ? t : "");
    sb_printf(b, "</li>\n");
    free(t);
}

/* An SVG as gnuplot wrote it, without its XML prolog and DOCTYPE, which
 * may not stand inside HTML. */
static void inline_svg(strbuf *b, const char *svg)
{
    const char *start = strstr(svg, "<svg");
    sb_printf(b, "%s\n", start ? start : svg);
}

/* ---- tables: one row of cells, in Markdown and in HTML ------------------ */

typedef struct {
    strbuf *md, *h;
} table;

static void table_row(table *t, int head, size_t n, const char *const *cells)
{
    sb_printf(t->md, "|");
    sb_printf(t->h, "<tr>");
    for (size_t i = 0; i < n; i++) {
        sb_printf(t->md, " %s |", cells[i]);
        sb_printf(t->h, head ? "<th>" : "<td>");
        html(t->h, cells[i]);
        sb_printf(t->h, head ? "</th>" : "</td>");
    }
    sb_printf(t->md, "\n");
    sb_printf(t->h, "</tr>\n");
    if (head) {
        sb_printf(t->md, "|");
        for (size_t i = 0; i < n; i++)
            sb_printf(t->md, "---|");
        sb_printf(t->md, "\n");
    }
}

static const char *jstr_or(const json_t *o, const char *key, const char *dflt)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : dflt;
}

/* Text of a cell: escaped of bytes that are not printable UTF-8. */
static void cell(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cell(char *buf, size_t len, const char *fmt, ...)
{
    char raw[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    text_escape(raw, buf, len);
}

/* The machine, from the info step's document: the context block. */
static void context_table(table *t, const json_t *info)
{
    const json_t *cpu = json_object_get(info, "cpu"),
                 *topo = json_object_get(info, "topology"),
                 *ob = json_object_get(info, "openblas"),
                 *mem = json_object_get(info, "memory"),
                 *bld = json_object_get(info, "build");
    char v[16][600];
    size_t k = 0;
    const char *names[16];
    names[k] = "host";
    cell(v[k++], sizeof(v[0]), "%s", jstr_or(info, "host", "?"));
    names[k] = "CPU";
    cell(v[k++], sizeof(v[0]), "%s (%s family %lld model %lld)",
         jstr_or(cpu, "brand", "?"), jstr_or(cpu, "vendor", "?"),
         (long long)json_integer_value(json_object_get(cpu, "family")),
         (long long)json_integer_value(json_object_get(cpu, "model")));
    names[k] = "cores";
    cell(v[k++], sizeof(v[0]), "%lld cores, %lld PUs, %lld NUMA node(s)",
         (long long)json_integer_value(json_object_get(topo, "cores")),
         (long long)json_integer_value(json_object_get(topo, "pus")),
         (long long)json_integer_value(json_object_get(topo, "numa_nodes")));
    strbuf cs = {0};
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(topo, "caches"), i, c)
    {
        const double kib =
            (double)json_integer_value(json_object_get(c, "size_bytes")) /
            1024.0;
        sb_printf(&cs, "%s%s %.4g %s x %lld", i ? ", " : "",
                  jstr_or(c, "level", "?"), kib >= 1024 ? kib / 1024 : kib,
                  kib >= 1024 ? "MiB" : "KiB",
                  (long long)json_integer_value(json_object_get(c, "count")));
    }
    char *caches = sb_take(&cs);
    names[k] = "caches (hwloc)";
    cell(v[k++], sizeof(v[0]), "%s", caches ? caches : "");
    free(caches);
    names[k] = "memory";
    cell(v[k++], sizeof(v[0]), "%.1f GiB; transparent huge pages %s, %s",
         (double)json_integer_value(
             json_object_get(topo, "memory_total_bytes")) /
             1073741824.0,
         jstr_or(mem, "transparent_hugepages", "unreadable"),
         json_is_true(json_object_get(mem, "hugepages_advised"))
             ? "asked for"
             : "not asked for");
    names[k] = "OpenBLAS";
    cell(v[k++], sizeof(v[0]), "%s, core %s", jstr_or(ob, "version", "?"),
         jstr_or(ob, "corename", "?"));
    names[k] = "build";
    cell(v[k++], sizeof(v[0]), "roofbench %s (%s), %s, %s %s",
         jstr_or(bld, "roofbench_version", "?"),
         jstr_or(bld, "git_revision", "?"), jstr_or(bld, "compiler", "?"),
         jstr_or(bld, "build_type", "?"), jstr_or(bld, "c_flags", ""));
    const char *const head[] = {"", "this machine"};
    table_row(t, 1, 2, head);
    for (size_t r = 0; r < k; r++) {
        const char *row[2] = {names[r], v[r]};
        table_row(t, 0, 2, row);
    }
}

/* Every row of the run step: where each kernel sits against its roof, the
 * kernel that measured the roof, and the verdicts (above the measured
 * roof beyond its spread; timed while the clock or the roof moved). */
static void rows_table(table *t, const json_t *results)
{
    const char *const head[] = {"kernel",       "dtype",   "threads", "shape",
                                "GFLOP/s",      "FLOP/B",  "level",   "roof by",
                                "roof GFLOP/s", "of roof", "verdict"};
    table_row(t, 1, 11, head);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(results, "rows"), i, r)
    {
        const json_t *sh = json_object_get(r, "shape"),
                     *roof = json_object_get(r, "roofline");
        char c[11][128];
        cell(c[0], sizeof(c[0]), "%s", jstr_or(r, "kernel", "?"));
        cell(c[1], sizeof(c[1]), "%s", jstr_or(r, "dtype", "?"));
        snprintf(c[2], sizeof(c[2]), "%lld",
                 (long long)json_integer_value(json_object_get(r, "threads")));
        snprintf(c[3], sizeof(c[3]), "%lldx%lldx%lld",
                 (long long)json_integer_value(json_object_get(sh, "n")),
                 (long long)json_integer_value(json_object_get(sh, "p")),
                 (long long)json_integer_value(json_object_get(sh, "m")));
        snprintf(c[4], sizeof(c[4]), "%.4g",
                 json_number_value(json_object_get(
                     json_object_get(r, "gflop_per_s"), "best")));
        snprintf(c[5], sizeof(c[5]), "%.3g",
                 json_number_value(json_object_get(r, "intensity")));
        cell(c[6], sizeof(c[6]), "%s", jstr_or(roof, "level", "-"));
        const json_t *att = json_object_get(roof, "attainable_gflops"),
                     *fr = json_object_get(roof, "fraction_of_attainable");
        if (json_is_number(att))
            snprintf(c[7], sizeof(c[7]), "%.4g", json_number_value(att));
        else
            snprintf(c[7], sizeof(c[7]), "-");
        if (json_is_number(fr))
            snprintf(c[8], sizeof(c[8]), "%.0f%%",
                     100.0 * json_number_value(fr));
        else
            snprintf(c[8], sizeof(c[8]), "-");
        cell(c[9], sizeof(c[9]), "%s", jstr_or(roof, "roof", "-"));
        const int above =
            json_is_true(json_object_get(roof, "above_measured_roof"));
        const int moved = json_is_true(
            json_object_get(json_object_get(r, "stability"), "unstable"));
        snprintf(c[10], sizeof(c[10]), "%s%s%s",
                 above ? "above the measured roof" : "",
                 above && moved ? "; " : "",
                 moved ? "timed while the machine moved" : (above ? "" : "-"));
        const char *row[11] = {c[0], c[1], c[2], c[3], c[4], c[5],
                               c[6], c[9], c[7], c[8], c[10]};
        table_row(t, 0, 11, row);
    }
}

static json_t *load_in(const runfolder *f, const char *rel)
{
    char path[4600];
    snprintf(path, sizeof(path), "%.4400s/%s", f->tmp, rel);
    return json_load_file(path, 0, NULL);
}

/* A document embedded as data: "</" written "<\/" (the same string in
 * JSON), so that no string ends the element early. */
static void embed(strbuf *h, const char *id, const char *text)
{
    sb_printf(h, "<script type=\"application/json\" id=\"%s\">\n", id);
    for (const char *p = text; *p; p++) {
        if (p[0] == '<' && p[1] == '/')
            sb_printf(h, "<\\");
        else
            sb_putn(h, p, 1);
    }
    sb_printf(h, "\n</script>\n");
}

/* The page's head and its first section, the summary, in both forms. */
static void head(table *t, const char *host, const char *date,
                 const char *summary)
{
    strbuf *md = t->md, *h = t->h;
    sb_printf(md,
              "# roofbench: the roofline of %s\n\n%s. Every figure below "
              "was measured on this machine by `roofbench all`; each "
              "step's documents are in its subfolder.\n\n## Summary\n\n"
              "```\n%s```\n",
              host, date, summary);
    sb_printf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
                 "charset=\"utf-8\">\n<title>roofbench: ");
    html(h, host);
    sb_printf(
        h,
        "</title>\n<style>\nbody{font-family:sans-serif;max-width:"
        "1800px;margin:1em auto;padding:0 1em;color:#222}\npre{background:"
        "#f4f4f4;padding:0.8em;overflow-x:auto}\nsvg{max-width:100%%;"
        "height:auto}\nfigure{margin:2em 0}\nfigcaption{max-width:60em}"
        "\ntable{border-collapse:collapse;font-size:90%%}\ntd,th{border:1px "
        "solid #ccc;padding:2px "
        "8px;text-align:left}\n</style>\n</head>\n<body>\n<h1>roofbench: the "
        "roofline of ");
    html(h, host);
    sb_printf(h, "</h1>\n<p>");
    html(h, date);
    sb_printf(h, ". Every figure below was measured on this machine by "
                 "<code>roofbench all</code>; each step's documents are in "
                 "its subfolder.</p>\n<h2>Summary</h2>\n<pre>");
    html(h, summary);
    sb_printf(h, "</pre>\n");
}

/* The machine's context block, where the folder has info.json. */
static void machine_section(runfolder *f, table *t)
{
    json_t *info = load_in(f, "info.json");
    if (!info)
        return;
    sb_printf(t->md, "\n## The machine\n\n");
    sb_printf(t->h, "<h2>The machine</h2>\n<table>\n");
    context_table(t, info);
    sb_printf(t->h, "</table>\n");
    json_decref(info);
}

/* Every kernel of the run step against its roof, where there is one. */
static void kernels_section(runfolder *f, table *t)
{
    json_t *res = load_in(f, "run/results.json");
    if (!res)
        return;
    sb_printf(t->md, "\n## Every kernel against its roof\n\n");
    sb_printf(t->h, "<h2>Every kernel against its roof</h2>\n<table>\n");
    rows_table(t, res);
    sb_printf(t->h, "</table>\n");
    sb_printf(t->md, "\nGFLOP/s of the best sample; FLOP/B the analytic "
                     "intensity; level the memory level the working set "
                     "falls in; roof the bound min(peak, intensity x "
                     "bandwidth) there.\n");
    sb_printf(t->h, "<p>GFLOP/s of the best sample; FLOP/B the analytic "
                    "intensity; level the memory level the working set "
                    "falls in; roof the bound min(peak, intensity &times; "
                    "bandwidth) there.</p>\n");
    json_decref(res);
}

/* One chart: its title, the SVG inline (the PNG in markdown), its words,
 * and this machine's figures for it from the summary. */
static void chart_section(runfolder *f, table *t, const job_chart *c,
                          const char *summary)
{
    strbuf *md = t->md, *h = t->h;
    char path[4600];
    snprintf(path, sizeof(path), "%.4400s/%s", f->tmp, c->svg);
    char *svg = text_read_file(path);
    sb_printf(md, "\n## %s\n\n", c->title);
    sb_printf(h, "<figure>\n<h2>");
    html(h, c->title);
    sb_printf(h, "</h2>\n");
    if (svg) {
        sb_printf(md, "![%s](%s)\n\n", c->title, c->png);
        inline_svg(h, svg);
    } else {
        sb_printf(md, "(not drawn in this run)\n\n");
        sb_printf(h, "<p>(not drawn in this run)</p>\n");
    }
    free(svg);
    sb_printf(md, "%s\n", c->words);
    sb_printf(h, "<figcaption><p>");
    html(h, c->words);
    sb_printf(h, "</p>\n");
    strbuf fig = {0}, figh = {0};
    figures(summary, c->prefix, md_line, &fig);
    figures(summary, c->prefix, html_line, &figh);
    char *ft = sb_take(&fig), *fh = sb_take(&figh);
    if (ft && *ft)
        sb_printf(md, "\nOn this machine:\n\n%s", ft);
    if (fh && *fh)
        sb_printf(h, "<p>On this machine:</p>\n<ul>\n%s</ul>\n", fh);
    free(ft);
    free(fh);
    sb_printf(h, "</figcaption>\n</figure>\n");
}

/* The record and the documents, as data in the page. */
static void embed_documents(runfolder *f, strbuf *h, const char *steps_json)
{
    embed(h, "steps", steps_json ? steps_json : "{}");
    static const struct {
        const char *id, *rel;
    } docs[] = {
        {"info", "info.json"},           {"roofline", "roofline.json"},
        {"results", "run/results.json"}, {"orders", "orders/orders.json"},
        {"sweep", "sweep/sweep.json"},   {"network", "network/network.json"},
        {"model", "model.json"}};
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        char path[4600];
        snprintf(path, sizeof(path), "%.4400s/%s", f->tmp, docs[i].rel);
        char *text = text_read_file(path);
        if (text)
            embed(h, docs[i].id, text);
        free(text);
    }
}

int report_job_write(runfolder *f, const char *host, const char *date,
                     const char *summary, const char *steps_json,
                     const job_chart *charts, size_t ncharts, rb_err *e)
{
    strbuf md = {0}, h = {0};
    table t = {&md, &h};
    head(&t, host, date, summary);
    machine_section(f, &t);
    kernels_section(f, &t);
    for (size_t i = 0; i < ncharts; i++)
        chart_section(f, &t, &charts[i], summary);
    embed_documents(f, &h, steps_json);
    sb_printf(&h, "</body>\n</html>\n");
    int rc = runfolder_write_text(f, "report.md", sb_take(&md), e);
    if (!rc)
        rc = runfolder_write_text(f, "report.html", sb_take(&h), e);
    else
        sb_free(&h);
    return rc;
}
