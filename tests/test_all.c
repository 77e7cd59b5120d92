/* roofbench all and roofbench report: bad input refused before any step
 * (exit 2, one line, nothing written); a short job of real steps on a
 * small roofline, its folders, steps.json, summary, charts and report read
 * back; the report again from the folder alone, from a fixed fixture
 * (with a network roof, its label clear of the others), and refused on
 * missing, empty, foreign or truncated folders; a step that
 * fails is reported while the others run; an existing folder is never
 * reused. With --browser: the fixture's report in headless Chromium (77
 * where it is not installed). */
#include <math.h>

#include "cli.h"
#include "report_sweep.h"
#include "text.h"

#ifdef RB_HAVE_PNG
#include <png.h>
#endif

typedef struct {
    const char *args[8];
    const char *message;
} bad_case;

static const bad_case bad[] = {
    {{"all", "--steps", "info,bogus"}, "--steps 'bogus': unknown"},
    {{"all", "--steps", "info,info"}, "'info' given twice"},
    {{"all", "--steps", ""}, "--steps"},
    {{"all", "--ceilings", "/nonexistent/ceilings.json"},
     "--ceilings '/nonexistent/ceilings.json'"},
    {{"all", "--out", "/dev/null/x"}, "/dev/null"},
    {{"all", "--ceilings", "/etc/hostname"}, "--ceilings '/etc/hostname'"},
    {{"all", "extra"}, "unexpected argument 'extra'"},
};

/* Writes len bytes of text to path (a test's own file). */
static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

static void write_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text));
}

/* Copies the text file from to path. */
static void copy_text(const char *from, const char *path)
{
    static char buf[4 << 20];
    slurp(from, buf, sizeof(buf));
    write_text(path, buf);
}

/* Headless Chromium, if installed: its path, or NULL. */
static const char *chromium(void)
{
    static const char *const exe[] = {"/usr/bin/chromium",
                                      "/usr/bin/chromium-browser"};
    for (size_t i = 0; i < 2; i++)
        if (access(exe[i], X_OK) == 0)
            return exe[i];
    return NULL;
}

/* Runs Chromium headless on the page with every host name unresolvable
 * (nothing may come from the network), its console logged to stderr;
 * stdout into out, stderr into err. extra: --dump-dom or --screenshot=. */
static void chromium_run(const char *chrome, const char *page,
                         const char *extra, const char *out, const char *err)
{
    char url[900];
    snprintf(url, sizeof(url), "file://%s", page);
    const pid_t pid = fork();
    if (pid == 0) {
        const int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int n = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(n, 2);
        if (chdir(workdir) != 0)
            _exit(126);
        execl(chrome, chrome, "--headless=new", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
              "--window-size=1280,6000",
              "--host-resolver-rules=MAP * ~NOTFOUND", extra, url,
              (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
}

/* The probe the test adds to a copy of the page, at the end of its body:
 * the rendered size of every image and SVG, written into the DOM. */
static const char probe[] =
    "<script>(function(){var r=[];document.querySelectorAll('svg,img')."
    "forEach(function(e){var b=e.getBoundingClientRect();r.push(Math.round("
    "b.width)+'x'+Math.round(b.height));});var p=document.createElement("
    "'pre');p.id='rb-probe';p.textContent='sizes:'+r.join(',')+';';"
    "document.body.appendChild(p);})();</script>";

/* Whether the screenshot is a picture, not a blank page: decoded with
 * libpng, more than 2% of its pixels away from the background (the first
 * pixel's colour). 1 yes, 0 no, -1 cannot tell (no libpng). */
static int not_blank(const char *png)
{
#ifdef RB_HAVE_PNG
    png_image im;
    memset(&im, 0, sizeof(im));
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, png))
        return 0;
    im.format = PNG_FORMAT_RGB;
    const size_t n = PNG_IMAGE_SIZE(im);
    unsigned char *px = malloc(n);
    if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
        free(px);
        png_image_free(&im);
        return 0;
    }
    size_t differ = 0;
    const size_t pixels = (size_t)im.width * im.height;
    for (size_t i = 0; i < pixels; i++)
        differ += memcmp(px + 3 * i, px, 3) != 0;
    free(px);
    printf("test_all: screenshot %ux%u, %.1f%% of its pixels drawn\n", im.width,
           im.height, 100.0 * (double)differ / (double)pixels);
    return pixels > 0 && differ * 50 > pixels;
#else
    (void)png;
    return -1;
#endif
}

/* The page in a real browser: loaded from the file alone, no console
 * message (the page has no script of its own), every chart rendered with
 * a size, and a screenshot that is not blank (kept as
 * $ROOFBENCH_TEST_SCREENSHOT when that is set). 0 when Chromium is not
 * installed. */
static int browser_check(const char *page, size_t svgs)
{
    const char *chrome = chromium();
    if (!chrome)
        return 0;
    static char html[4 << 20], dom[4 << 20], log[1 << 20];
    slurp(page, html, sizeof(html));
    char probed[700], out[700], err[700], shot[700];
    snprintf(probed, sizeof(probed), "%s/.probe.html", workdir);
    snprintf(out, sizeof(out), "%s/.dom", workdir);
    snprintf(err, sizeof(err), "%s/.console", workdir);
    snprintf(shot, sizeof(shot), "%s/.shot.png", workdir);
    char *end = strstr(html, "</body>");
    CHECK(end != NULL);
    if (!end)
        return 1;
    FILE *f = fopen(probed, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "%.*s%s%s", (int)(end - html), html, probe, end);
        fclose(f);
    }
    chromium_run(chrome, probed, "--dump-dom", out, err);
    slurp(out, dom, sizeof(dom));
    slurp(err, log, sizeof(log));
    CHECK_STR_HAS(dom, "<h1>roofbench: the roofline of");
    CHECK_STR_HAS(dom, "On this machine:");
    CHECK(strstr(log, "CONSOLE(") == NULL); /* no console message at all */
    if (strstr(log, "CONSOLE("))
        fprintf(stderr, "console:\n%s\n", log);
    /* every chart has a rendered size */
    static const char mark[] = "id=\"rb-probe\">sizes:";
    const char *sz = strstr(dom, mark);
    CHECK(sz != NULL);
    size_t seen = 0, zero = 0;
    for (const char *p = sz ? sz + strlen(mark) : ""; *p && *p != ';';) {
        unsigned w = 0, h = 0;
        if (sscanf(p, "%ux%u", &w, &h) != 2)
            break;
        seen++;
        zero += w == 0 || h == 0;
        const char *c = strchr(p, ',');
        if (!c)
            break;
        p = c + 1;
    }
    CHECK(seen >= svgs);
    if (seen < svgs)
        fprintf(stderr, "%zu of %zu charts measured: %.300s\n", seen, svgs,
                sz ? sz : "(no sizes)");
    CHECK_INT((long long)zero, 0);
    /* and a picture, not a blank page */
    chromium_run(chrome, page, "--screenshot=.shot.png", out, err);
    const int nb = not_blank(shot);
    if (nb < 0)
        printf("test_all: no libpng at build time: the screenshot was taken, "
               "not inspected\n");
    else
        CHECK_INT(nb, 1);
    CHECK(exists(shot));
    const char *keep = getenv("ROOFBENCH_TEST_SCREENSHOT");
    if (keep && exists(shot)) {
        size_t len = 0;
        char *png = text_read_file_n(shot, &len);
        if (png)
            write_file(keep, png, len);
        free(png);
        printf("test_all: screenshot kept as %s\n", keep);
    }
    return 1;
}

/* A fixed fixture: the folder of a job of one run step (a real run's
 * document and a real roofline, committed under tests/fixtures), rendered
 * by `roofbench report` into fxrep; its result in r. */
static void fixture_report(char *fxrep, size_t len, result *r)
{
    char fxdir[600], path[800];
    snprintf(fxdir, sizeof(fxdir), "%s/fixture-job", workdir);
    snprintf(fxrep, len, "%s/fixture-rep", workdir);
    mkdir(fxdir, 0755);
    snprintf(path, sizeof(path), "%s/run", fxdir);
    mkdir(path, 0755);
    static const char *const fxfiles[][2] = {
        {"results-xeon-emr-quick.json", "run/results.json"},
        {"ceilings-xeon-emr-quick-1t.json", "ceilings.json"}};
    for (size_t i = 0; i < 2; i++) {
        char from[700];
        snprintf(from, sizeof(from), "%s/%s", ROOFBENCH_FIXTURES,
                 fxfiles[i][0]);
        snprintf(path, sizeof(path), "%s/%s", fxdir, fxfiles[i][1]);
        copy_text(from, path);
    }
    snprintf(path, sizeof(path), "%s/steps.json", fxdir);
    write_text(path,
               "{\"schema\": \"roofbench.all\", \"schema_version\": 1, "
               "\"date\": \"2026-12-01T00:00:00Z\", \"status\": \"complete\", "
               "\"steps\": [{\"name\": \"run\", \"status\": \"ok\", "
               "\"exit\": 0, \"seconds\": 30, \"note\": \"run/\"}]}");
    const char *fxargs[] = {"report", fxdir, "--out", fxrep, NULL};
    run(workdir, fxargs, r);
}

static const char *step_status(json_t *doc, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(doc, "steps"), i, s)
    {
        const char *n = json_string_value(json_object_get(s, "name"));
        if (n && strcmp(n, name) == 0)
            return json_string_value(json_object_get(s, "status"));
    }
    return NULL;
}

/* test_all --browser ROOFBENCH: the report of the fixed fixture in a
 * real browser; 77 where Chromium is not installed. */
static int browser_main(int argc, char **argv)
{
    const int rc = cli_setup(argc, argv, "test_all --browser");
    if (rc)
        return rc;
    if (!chromium()) {
        printf("test_all: chromium not installed: the report was not loaded "
               "in a browser (apt-get install chromium)\n");
        remove_tree(workdir);
        return 77;
    }
    char rep[600], page[700];
    result r;
    fixture_report(rep, sizeof(rep), &r);
    CHECK_INT(r.status, 0);
    snprintf(page, sizeof(page), "%s/report.html", rep);
    static char html[4 << 20];
    slurp(page, html, sizeof(html));
    size_t svgs = 0;
    for (const char *p = html; (p = strstr(p, "<svg")); p += 4)
        svgs++;
    if (access("/usr/bin/gnuplot", X_OK) == 0)
        CHECK(svgs >= 1);
    browser_check(page, svgs);
    const int st = check_status("test_all --browser");
    if (!st)
        remove_tree(workdir);
    return st;
}

/* Bad input to all and report: one line, exit 2, nothing written. */
static void bad_input(void)
{
    result r;
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        run(workdir, bad[i].args, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, bad[i].message);
        CHECK_INT(count_lines(r.err), 1);
    }
    CHECK_INT(count_entries(workdir), 0);
}

/* The summary (the job's output) names the probes that did not find
 * their roofline figure exactly when the run step's results.json counts
 * some; `want`, where not -1, is that count. */
static void summary_off_roof(const char *out, const char *said_all,
                             json_int_t want)
{
    char path[800], said[160];
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    json_t *stab = json_object_get(doc, "stability");
    CHECK(json_is_integer(json_object_get(stab, "probes_off_roof")));
    const json_int_t off =
        json_integer_value(json_object_get(stab, "probes_off_roof"));
    if (want >= 0)
        CHECK_INT(off, want);
    snprintf(said, sizeof(said),
             "the run step's probes did not find the roofline's figures: "
             "%lld probe",
             (long long)off);
    CHECK_INT(strstr(said_all, said) != NULL, off > 0);
    json_decref(doc);
}

/* The job's run step against its roofline a thousand times low: every
 * probe off its figure, and the summary says so. */
static void off_roof_job(void)
{
    char ceil[700], low[700], out[700], path[800];
    snprintf(ceil, sizeof(ceil), "%s/ceil/ceilings.json", workdir);
    snprintf(low, sizeof(low), "%s/thousandth-ceilings.json", workdir);
    snprintf(out, sizeof(out), "%s/job-off-roof", workdir);
    scaled_ceilings(ceil, low, 1e-3, -1.0);
    const char *args[] = {"all",        "--quick", "--steps", "run",
                          "--ceilings", low,       "--out",   out,
                          NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    const size_t n = json_array_size(
        json_object_get(json_object_get(doc, "stability"), "probes"));
    CHECK(n >= 1);
    json_decref(doc);
    summary_off_roof(out, r.out, (json_int_t)n);
}

/* A small roofline of this host, then three real steps on it, into the
 * job folder out. */
static void job(char *out, size_t len)
{
    result r;
    char ceildir[600], ceil[700];
    snprintf(ceildir, sizeof(ceildir), "%s/ceil", workdir);
    snprintf(ceil, sizeof(ceil), "%s/ceilings.json", ceildir);
    snprintf(out, len, "%s/job", workdir);
    /* read only, 1 thread, to past the caches (model needs a DRAM
     * plateau) */
    const char *cargs[] = {"ceilings",  "--quick", "--kernel", "read",
                           "--size",    "4K:4G",   "--gemm-n", "0",
                           "--threads", "1",       "--out",    ceildir,
                           NULL};
    run(workdir, cargs, &r);
    CHECK_INT(r.status, 0);
    const char *args[] = {"all",        "--quick", "--steps", "model,info,run",
                          "--ceilings", ceil,      "--out",   out,
                          NULL};
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    if (r.status)
        fprintf(stderr, "all: %s\n%s\n", r.err, r.out);
    /* one line per step where stderr is not a terminal, in the steps'
     * order whatever the list's */
    CHECK_INT(count_lines(r.err), 3);
    CHECK(strstr(r.err, "step 1 of 3, info: ok") != NULL);
    CHECK(strstr(r.err, "step 3 of 3, model: ok") != NULL);
    CHECK_STR_HAS(r.out, "summary");
    CHECK_STR_HAS(r.out, "ridge, 1 thread: f32");
    CHECK_STR_HAS(r.out, "nearest to its roof:");
    CHECK_STR_HAS(r.out, "ridge FLOP/B beside the references: host");
    char path[800];
    snprintf(path, sizeof(path), "%s/steps.json", out);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "schema", NULL), "roofbench.all");
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    CHECK_STR_HAS(step_status(doc, "info"), "ok");
    CHECK_STR_HAS(step_status(doc, "run"), "ok");
    CHECK_STR_HAS(step_status(doc, "model"), "ok");
    CHECK(step_status(doc, "ceilings") == NULL);
    json_decref(doc);
    summary_off_roof(out, r.out, -1);
    static const char *const files[] = {
        "info.json",           "model.json",          "run.txt",
        "run/results.json",    "run/results.csv",     "roofline-roofs.dat",
        "roofline-points.csv", "roofline-labels.csv", "plot-roofline.gp"};
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        snprintf(path, sizeof(path), "%s/%s", out, files[i]);
        CHECK(exists(path));
    }
    /* the roofline chart, where gnuplot is installed */
    if (access("/usr/bin/gnuplot", X_OK) == 0) {
        CHECK_STR_HAS(r.out, "roofline chart: ");
        snprintf(path, sizeof(path), "%s/roofline.png", out);
        CHECK(exists(path));
        /* the host beside the reference chips, from the model step */
        snprintf(path, sizeof(path), "%s/reference.png", out);
        CHECK(exists(path));
    }
}

/* The figures as data, ERT's way, with the theoretical beside. */
static void figures(const char *out)
{
    char path[800];
    snprintf(path, sizeof(path), "%s/roofline.json", out);
    json_t *rl = load_json(path);
    CHECK_STR_HAS(jstr(rl, "schema", NULL), "roofbench.roofline");
    CHECK(json_array_size(json_object_get(
              json_object_get(json_object_get(rl, "empirical"), "gbytes"),
              "data")) >= 1);
    CHECK(json_array_size(json_object_get(rl, "ceilings")) >= 1);
    json_decref(rl);
    snprintf(path, sizeof(path), "%s/reference-ridges.csv", out);
    char ridges[8192];
    slurp(path, ridges, sizeof(ridges));
    CHECK_STR_HAS(ridges, "tpu-v5e/bf16");
    CHECK_STR_HAS(ridges, "host/");
}

/* The report: markdown and a self-contained page (no script, style or
 * font fetched from anywhere; the charts inline; the record as JSON). */
static void page_checks(const char *out)
{
    char path[800];
    snprintf(path, sizeof(path), "%s/report.md", out);
    CHECK(exists(path));
    snprintf(path, sizeof(path), "%s/report.html", out);
    static char page[4 << 20];
    slurp(path, page, sizeof(page));
    CHECK_STR_HAS(page, "<!DOCTYPE html>");
    CHECK_STR_HAS(page, "The host roofline, every kernel on it");
    CHECK_STR_HAS(page, "On this machine:");
    /* the context block and the table of every kernel against its roof */
    CHECK_STR_HAS(page, "<h2>The machine</h2>");
    CHECK_STR_HAS(page, "transparent huge pages");
    CHECK_STR_HAS(page, "<h2>Every kernel against its roof</h2>");
    CHECK_STR_HAS(page, "<td>matmul_blocked</td>");
    CHECK_STR_HAS(page, "<script type=\"application/json\" id=\"results\">");
    CHECK_STR_HAS(page, "<script type=\"application/json\" id=\"info\">");
    CHECK_STR_HAS(page, "<script type=\"application/json\" id=\"steps\">");
    CHECK(strstr(page, "<script src") == NULL);
    CHECK(strstr(page, "<link") == NULL);
    CHECK(strstr(page, "@import") == NULL);
    CHECK(strstr(page, "src=\"http") == NULL);
    CHECK(strstr(page, "href=\"http") == NULL);
    if (access("/usr/bin/gnuplot", X_OK) == 0)
        CHECK(strstr(page, "<svg") != NULL);
    /* the embedded record parses as the steps.json beside it */
    const char *js = strstr(page, "id=\"steps\">");
    const char *je = js ? strstr(js, "</script>") : NULL;
    if (js && je) {
        js += strlen("id=\"steps\">");
        json_t *emb = json_loadb(js, (size_t)(je - js), 0, NULL);
        CHECK(emb != NULL);
        CHECK_STR_HAS(jstr(emb, "schema", NULL), "roofbench.all");
        json_decref(emb);
    } else
        CHECK(js && je);
    /* and so does the run's document embedded with it */
    js = strstr(page, "id=\"results\">");
    je = js ? strstr(js, "</script>") : NULL;
    if (js && je) {
        js += strlen("id=\"results\">");
        json_t *emb = json_loadb(js, (size_t)(je - js), 0, NULL);
        CHECK(json_array_size(json_object_get(emb, "rows")) > 20);
        json_decref(emb);
    } else
        CHECK(js && je);
    /* every verified row is a point: 14 kernels x 2 dtypes x 2 teams */
    snprintf(path, sizeof(path), "%s/roofline-points.csv", out);
    char pts[65536];
    slurp(path, pts, sizeof(pts));
    CHECK(count_lines(pts) > 20);
    /* the run step records where its folder is: its final place */
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    json_t *doc = load_json(path);
    char want[700];
    snprintf(want, sizeof(want), "%s/run", out);
    CHECK_STR_HAS(jstr(doc, "context", "run_folder"), want);
    json_decref(doc);
}

/* The report again from the folder's files alone, into a new one: every
 * chart the job drew, and every kernel of the run named. */
static void report_again(const char *out)
{
    result r;
    char path[800];
    char rep[600];
    snprintf(rep, sizeof(rep), "%s/rep", workdir);
    const char *rargs[] = {"report", out, "--out", rep, NULL};
    run(workdir, rargs, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "ridge, 1 thread: f32");
    static const char *const redrawn[] = {
        "report.html", "report.md",     "steps.json",    "info.json",
        "model.json",  "roofline.json", "ceilings.json", "run/results.json"};
    for (size_t i = 0; i < sizeof(redrawn) / sizeof(*redrawn); i++) {
        snprintf(path, sizeof(path), "%s/%s", rep, redrawn[i]);
        CHECK(exists(path));
    }
    if (access("/usr/bin/gnuplot", X_OK) == 0) {
        static const char *const charts[] = {"roofline.png", "roofline.svg",
                                             "reference.png", "reference.svg"};
        for (size_t i = 0; i < 4; i++) {
            snprintf(path, sizeof(path), "%s/%s", rep, charts[i]);
            CHECK(exists(path));
        }
    }
    snprintf(path, sizeof(path), "%s/report.html", rep);
    static char again[4 << 20];
    slurp(path, again, sizeof(again));
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    json_t *doc = load_json(path);
    size_t ri;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), ri, row)
    {
        const char *k = json_string_value(json_object_get(row, "kernel"));
        if (access("/usr/bin/gnuplot", X_OK) == 0 && k)
            CHECK_STR_HAS(again, k); /* in the roofline's legend */
    }
    json_decref(doc);
}

/* A fixed fixture: a folder of one run step (a real run's document and a
 * real roofline, committed), rendered by report alone: every chart file of
 * the roofline and every kernel named in the page. */
static void fixture(void)
{
    result r;
    char path[800];
    static char again[4 << 20];
    char fxrep[600];
    fixture_report(fxrep, sizeof(fxrep), &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "nearest to its roof:");
    static const char *const fxout[] = {"roofline.json", "roofline-points.csv",
                                        "report.md",     "report.html",
                                        "roofline.png",  "roofline.svg"};
    for (size_t i = 0; i < 6; i++) {
        if (i >= 4 && access("/usr/bin/gnuplot", X_OK) != 0)
            break;
        snprintf(path, sizeof(path), "%s/%s", fxrep, fxout[i]);
        CHECK(exists(path));
    }
    snprintf(path, sizeof(path), "%s/report.html", fxrep);
    slurp(path, again, sizeof(again));
    static const char *const fxkernels[] = {
        "dot",         "dot_simd",        "dot_openblas",   "matvec",
        "matvec_simd", "matvec_openblas", "matmul_naive",   "matmul_column",
        "matmul_row",  "matmul_outer",    "matmul_blocked", "matmul_openblas",
        "batched",     "batched_openblas"};
    for (size_t i = 0; i < sizeof(fxkernels) / sizeof(*fxkernels); i++) {
        char td[64];
        snprintf(td, sizeof(td), "<td>%s</td>", fxkernels[i]);
        CHECK_STR_HAS(again, td); /* in the table of every kernel */
    }
    CHECK_STR_HAS(again, "2026-12-01T00:00:00Z");
}

/* A network document in job's folder: a link of 4 GB/s, all the
 * roofline chart reads of it. */
static void network_link(const char *job)
{
    char path[800];
    snprintf(path, sizeof(path), "%s/network", job);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/network/network.json", job);
    write_text(path, "{\"schema\": \"roofbench.network\", \"link\": "
                     "{\"bandwidth_Bps\": 4e9}}");
}

/* A label's box in decades of the roofline chart, as report_roofline.c
 * measures text (0.075 decades of intensity a character, 0.08 of GFLOP/s
 * tall): compute and memory labels end at their x, GEMM's and the
 * network's begin there (plot-roofline.gp's alignments). */
typedef struct {
    char kind[16], panel[16];
    double x0, x1, y0, y1, value;
} label_box;

/* The labels of roofline-labels.csv (at most n); their count. value: the
 * figure that ends the text (a horizontal roof's, for compute and GEMM). */
static size_t read_labels(const char *csvtext, label_box *b, size_t n)
{
    size_t k = 0;
    const char *line = strchr(csvtext, '\n'); /* past the header */
    while (line && *++line && k < n) {
        char kind[16], dt[8], text[96];
        int th = 0;
        double x = 0, y = 0;
        if (sscanf(line, "%15[^,],%7[^,],%d,%lf,%lf,%95[^\n]", kind, dt, &th,
                   &x, &y, text) == 6 &&
            x > 0 && y > 0) {
            label_box *l = &b[k++];
            snprintf(l->kind, sizeof(l->kind), "%s", kind);
            snprintf(l->panel, sizeof(l->panel), "%s/%d", dt, th);
            const double w = 0.075 * (double)strlen(text);
            const int left = !strcmp(kind, "gemm") || !strcmp(kind, "network");
            l->x0 = left ? log10(x) : log10(x) - w;
            l->x1 = l->x0 + w;
            l->y0 = log10(y) - 0.04;
            l->y1 = log10(y) + 0.04;
            const char *sp = strrchr(text, ' ');
            l->value = sp ? atof(sp + 1) : 0.0;
        }
        line = strchr(line, '\n');
    }
    return k;
}

/* The network roof's label, on a panel where a third of the peak lies on
 * a horizontal roof (the fixture's f32 sse-fma, 43.39 of 123.7) and near
 * GEMM's label: placed clear of both, as every label is of the others.
 * It used to go at a third of the peak whatever lay there (on the real
 * roofline of a Zen 5 guest, over "OpenBLAS GEMM 46.74"). */
static void network_label_clear(void)
{
    result r;
    char fxrep[600], path[800];
    char fxdir[600];
    snprintf(fxdir, sizeof(fxdir), "%s/fixture-job", workdir);
    network_link(fxdir);
    snprintf(fxrep, sizeof(fxrep), "%s/fixture-rep-net", workdir);
    const char *args[] = {"report", fxdir, "--out", fxrep, NULL};
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    static char text[1 << 16];
    snprintf(path, sizeof(path), "%s/roofline-labels.csv", fxrep);
    slurp(path, text, sizeof(text));
    static label_box b[256];
    const size_t n = read_labels(text, b, 256);
    size_t nets = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(b[i].kind, "network") != 0)
            continue;
        nets++;
        for (size_t j = 0; j < n; j++) {
            if (j == i || strcmp(b[i].panel, b[j].panel) != 0)
                continue;
            const int overlap = b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 &&
                                b[i].y0 < b[j].y1 && b[j].y0 < b[i].y1;
            /* a horizontal roof through the network label */
            const int roof = (!strcmp(b[j].kind, "compute") ||
                              !strcmp(b[j].kind, "gemm")) &&
                             b[j].value > 0 && log10(b[j].value) > b[i].y0 &&
                             log10(b[j].value) < b[i].y1;
            if (overlap || roof)
                fprintf(stderr, "network label (%s) %s %s label '%g'\n",
                        b[i].panel, overlap ? "covers the" : "crosses the",
                        b[j].kind, b[j].value);
            CHECK(!overlap);
            CHECK(!roof);
        }
    }
    CHECK_INT(nets, 2); /* f32 and f64 at 1 thread */
}

/* The hierarchical roofline and the network roof, where the folder holds
 * an orders and a network document: a fixture of known traffic (64^3 f64:
 * 524288 FLOPs, 98304 compulsory bytes) and a link of 4 GB/s. */
static void levels_and_network(const char *out)
{
    result r;
    char path[800];
    char fx[700], rep2[600];
    snprintf(path, sizeof(path), "%s/orders", out);
    mkdir(path, 0755);
    snprintf(fx, sizeof(fx), "%s/orders-levels.json", ROOFBENCH_FIXTURES);
    snprintf(path, sizeof(path), "%s/orders/orders.json", out);
    copy_text(fx, path);
    network_link(out);
    snprintf(rep2, sizeof(rep2), "%s/rep2", workdir);
    const char *r2args[] = {"report", out, "--out", rep2, NULL};
    run(workdir, r2args, &r);
    CHECK_INT(r.status, 0);
    snprintf(path, sizeof(path), "%s/roofline-levels.csv", rep2);
    static char lev[8192];
    slurp(path, lev, sizeof(lev));
    /* row from the model: L1 524288/1048576, LL 524288/65536, memory
     * 524288/98304; blocked from cachegrind; openblas has no model */
    CHECK_STR_HAS(lev, "f64,1,matmul_row,L1,0,0.5,2,model");
    CHECK_STR_HAS(lev, "f64,1,matmul_row,LL,1,8,2,model");
    CHECK_STR_HAS(lev, "f64,1,matmul_row,memory,2,5.33333,2,model");
    CHECK_STR_HAS(lev, "f64,1,matmul_blocked,L1,0,2,10,cachegrind");
    CHECK(strstr(lev, "matmul_openblas") == NULL);
    CHECK_INT(count_lines(lev), 7);
    snprintf(path, sizeof(path), "%s/roofline-labels.csv", rep2);
    slurp(path, lev, sizeof(lev));
    CHECK_STR_HAS(lev, "network 4 GB/s");
}

/* Bad folders: one line naming the file, exit 2, nothing written. */
static void bad_folders(const char *out)
{
    result r;
    char path[800];
    char bad1[600], bad2[700], badout[600];
    snprintf(bad1, sizeof(bad1), "%s/badjob", workdir);
    snprintf(badout, sizeof(badout), "%s/badrep", workdir);
    mkdir(bad1, 0755);
    const char *b1[] = {"report", bad1, "--out", badout, NULL};
    run(workdir, b1, &r); /* empty */
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "steps.json: missing");
    CHECK_INT(count_lines(r.err), 1);
    snprintf(bad2, sizeof(bad2), "%s/steps.json", bad1);
    write_text(bad2,
               "{\"schema\": \"roofbench.results\", \"schema_version\": 1}");
    run(workdir, b1, &r); /* another schema */
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "not roofbench.all");
    CHECK_INT(count_lines(r.err), 1);
    /* a whole steps.json, its run document cut short */
    snprintf(path, sizeof(path), "%s/steps.json", out);
    copy_text(path, bad2);
    static const char *const top[] = {"info.json", "model.json",
                                      "ceilings.json"};
    for (size_t i = 0; i < 3; i++) {
        char from[800];
        snprintf(from, sizeof(from), "%s/%s", out, top[i]);
        snprintf(path, sizeof(path), "%s/%s", bad1, top[i]);
        copy_text(from, path);
    }
    snprintf(path, sizeof(path), "%s/run", bad1);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    static char text[1 << 20];
    slurp(path, text, sizeof(text));
    snprintf(path, sizeof(path), "%s/run/results.json", bad1);
    write_file(path, text, strlen(text) / 2);
    run(workdir, b1, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "run/results.json: not a whole JSON document");
    CHECK_INT(count_lines(r.err), 1);
    /* a document that is a link out of the folder (here to the job's own
     * results, a valid document), or of another schema: refused */
    snprintf(path, sizeof(path), "%s/run/results.json", bad1);
    unlink(path);
    char target[700];
    snprintf(target, sizeof(target), "%s/run/results.json", out);
    CHECK_INT(symlink(target, path), 0);
    run(workdir, b1, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "run/results.json: not a regular file");
    CHECK_INT(count_lines(r.err), 1);
    unlink(path);
    write_text(path,
               "{\"schema\": \"roofbench.sweep\", \"schema_version\": 1}");
    run(workdir, b1, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "schema 'roofbench.sweep', not roofbench.run");
    /* never into the folder it reads */
    char inside[700];
    snprintf(inside, sizeof(inside), "%s/rep-inside", out);
    const char *bi[] = {"report", out, "--out", inside, NULL};
    run(workdir, bi, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "the folder it reads");
    CHECK(!exists(inside));
    const char *b0[] = {"report", "/nonexistent/job", "--out", badout, NULL};
    run(workdir, b0, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "/nonexistent/job");
    CHECK(!exists(badout));
}

/* A sweep step recorded ok whose chart's data is missing, cut short or
 * holds a row of another width: one line naming the file (and the line),
 * exit 2, nothing written. Once the report wrote the folder, drew no
 * chart and exited 0. */
static void bad_chart_data(void)
{
    result r;
    char job[600], path[800], badout[600];
    snprintf(job, sizeof(job), "%s/sweepjob", workdir);
    snprintf(badout, sizeof(badout), "%s/sweeprep", workdir);
    mkdir(job, 0755);
    snprintf(path, sizeof(path), "%s/sweep", job);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/steps.json", job);
    write_text(path, "{\"schema\": \"roofbench.all\", \"schema_version\": 1, "
                     "\"steps\": [{\"name\": \"sweep\", \"status\": \"ok\", "
                     "\"exit\": 0, \"seconds\": 30, \"note\": \"sweep/\"}]}");
    snprintf(path, sizeof(path), "%s/sweep/sweep.json", job);
    write_text(path, "{\"schema\": \"roofbench.sweep\", \"schema_version\": "
                     "1, \"status\": \"complete\"}");
    static const struct {
        const char *text, *message;
    } cases[] = {
        {NULL, "sweep/sweep.csv: missing (the sweep chart is drawn from it)"},
        {"weights,batch\n", "sweep/sweep.csv: line 1 is not the header"},
        {REPORT_SWEEP_POINTS_HEADER "\ngarbage\n",
         "sweep/sweep.csv: line 2 has 1 field, not the header's 28: "
         "'garbage'"},
        {REPORT_SWEEP_POINTS_HEADER "\nL1,64,64", "line 2 is cut short"},
    };
    snprintf(path, sizeof(path), "%s/sweep/sweep.csv", job);
    const char *args[] = {"report", job, "--out", badout, NULL};
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        if (cases[i].text)
            write_text(path, cases[i].text);
        run(workdir, args, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, cases[i].message);
        CHECK_INT(count_lines(r.err), 1);
        CHECK(!exists(badout));
    }
    /* a whole sweep.csv, the chart's other files missing */
    write_text(path, REPORT_SWEEP_POINTS_HEADER "\n");
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "sweep/sweep-roofs.csv: missing");
    CHECK(!exists(badout));
}

/* The job's folder, by now holding the report's additions too, given
 * again: refused, nothing replaced (its steps.json and the run's results
 * as they were). */
static void refused_again(const char *out)
{
    result r;
    char ceil[700], path[800];
    snprintf(ceil, sizeof(ceil), "%s/ceil/ceilings.json", workdir);
    const char *args[] = {"all",        "--quick", "--steps", "model,info,run",
                          "--ceilings", ceil,      "--out",   out,
                          NULL};
    snprintf(path, sizeof(path), "%s/steps.json", out);
    static char before[1 << 16], after[1 << 16];
    slurp(path, before, sizeof(before));
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_INT(count_lines(r.err), 1);
    slurp(path, after, sizeof(after));
    CHECK(strcmp(before, after) == 0);
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    CHECK(exists(path));
}

/* A step that fails is reported and the others still run, exit 1: sweep
 * on a roofline of one thread, when it sweeps 1 and 2. */
static void failed_step(void)
{
    result r;
    char path[800];
    json_t *doc;
    char c1dir[600], c1[700], out2[600];
    snprintf(c1dir, sizeof(c1dir), "%s/ceil1", workdir);
    snprintf(c1, sizeof(c1), "%s/ceilings.json", c1dir);
    snprintf(out2, sizeof(out2), "%s/job2", workdir);
    const char *c1args[] = {"ceilings",  "--quick", "--kernel", "read",
                            "--size",    "4K:256K", "--gemm-n", "0",
                            "--threads", "1",       "--out",    c1dir,
                            NULL};
    run(workdir, c1args, &r);
    CHECK_INT(r.status, 0);
    const char *fargs[] = {"all",        "--quick",    "--steps",
                           "sweep,info", "--ceilings", c1,
                           "--out",      out2,         NULL};
    run(workdir, fargs, &r);
    CHECK_INT(r.status, 1);
    CHECK_STR_HAS(r.err, "a step failed");
    snprintf(path, sizeof(path), "%s/steps.json", out2);
    doc = load_json(path);
    CHECK_STR_HAS(step_status(doc, "info"), "ok");
    CHECK_STR_HAS(step_status(doc, "sweep"), "failed");
    json_decref(doc);
    CHECK_STR_HAS(r.out, "sweep     failed");
    snprintf(path, sizeof(path), "%s/sweep.log", out2);
    CHECK(exists(path));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--browser") == 0)
        return browser_main(argc - 1, argv + 1);
    const int rc = cli_setup(argc, argv, "test_all");
    if (rc)
        return rc;
    char out[600];
    bad_input();
    job(out, sizeof(out));
    off_roof_job();
    figures(out);
    page_checks(out);
    report_again(out);
    fixture();
    network_label_clear();
    levels_and_network(out);
    bad_folders(out);
    bad_chart_data();
    refused_again(out);
    failed_step();
    const int st = check_status("test_all");
    if (!st)
        remove_tree(workdir);
    return st;
}
