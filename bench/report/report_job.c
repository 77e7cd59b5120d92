#include "report_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int report_job_write(runfolder *f, const char *host, const char *date,
                     const char *summary, const char *steps_json,
                     const job_chart *charts, size_t ncharts, rb_err *e)
{
    strbuf md = {0}, h = {0};
    sb_printf(&md,
              "# roofbench: the roofline of %s\n\n%s. Every figure below "
              "was measured on this machine by `roofbench all`; each "
              "step's documents are in its subfolder.\n\n## Summary\n\n"
              "```\n%s```\n",
              host, date, summary);
    sb_printf(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
                  "charset=\"utf-8\">\n<title>roofbench: ");
    html(&h, host);
    sb_printf(
        &h, "</title>\n<style>\nbody{font-family:sans-serif;max-width:"
            "1800px;margin:1em auto;padding:0 1em;color:#222}\npre{background:"
            "#f4f4f4;padding:0.8em;overflow-x:auto}\nsvg{max-width:100%%;"
            "height:auto}\nfigure{margin:2em 0}\nfigcaption{max-width:60em}"
            "\n</style>\n</head>\n<body>\n<h1>roofbench: the roofline of ");
    html(&h, host);
    sb_printf(&h, "</h1>\n<p>");
    html(&h, date);
    sb_printf(&h, ". Every figure below was measured on this machine by "
                  "<code>roofbench all</code>; each step's documents are in "
                  "its subfolder.</p>\n<h2>Summary</h2>\n<pre>");
    html(&h, summary);
    sb_printf(&h, "</pre>\n");
    for (size_t i = 0; i < ncharts; i++) {
        const job_chart *c = &charts[i];
        char path[4600];
        snprintf(path, sizeof(path), "%.4400s/%s", f->tmp, c->svg);
        char *svg = text_read_file(path);
        sb_printf(&md, "\n## %s\n\n", c->title);
        sb_printf(&h, "<figure>\n<h2>");
        html(&h, c->title);
        sb_printf(&h, "</h2>\n");
        if (svg) {
            sb_printf(&md, "![%s](%s)\n\n", c->title, c->png);
            inline_svg(&h, svg);
        } else {
            sb_printf(&md, "(not drawn in this run)\n\n");
            sb_printf(&h, "<p>(not drawn in this run)</p>\n");
        }
        free(svg);
        sb_printf(&md, "%s\n", c->words);
        sb_printf(&h, "<figcaption><p>");
        html(&h, c->words);
        sb_printf(&h, "</p>\n");
        strbuf fig = {0}, figh = {0};
        figures(summary, c->prefix, md_line, &fig);
        figures(summary, c->prefix, html_line, &figh);
        char *ft = sb_take(&fig), *fh = sb_take(&figh);
        if (ft && *ft)
            sb_printf(&md, "\nOn this machine:\n\n%s", ft);
        if (fh && *fh)
            sb_printf(&h, "<p>On this machine:</p>\n<ul>\n%s</ul>\n", fh);
        free(ft);
        free(fh);
        sb_printf(&h, "</figcaption>\n</figure>\n");
    }
    /* the record, as data; "</" is written "<\/" (the same string in
     * JSON), so that no string ends the element early */
    sb_printf(&h, "<script type=\"application/json\" id=\"steps\">\n");
    for (const char *p = steps_json ? steps_json : "{}"; *p; p++) {
        if (p[0] == '<' && p[1] == '/')
            sb_printf(&h, "<\\");
        else
            sb_putn(&h, p, 1);
    }
    sb_printf(&h, "\n</script>\n</body>\n</html>\n");
    int rc = runfolder_write_text(f, "report.md", sb_take(&md), e);
    if (!rc)
        rc = runfolder_write_text(f, "report.html", sb_take(&h), e);
    else
        sb_free(&h);
    return rc;
}
