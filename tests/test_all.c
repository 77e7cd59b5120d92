/* roofbench all: bad input refused before any step (exit 2, one line,
 * nothing written); a short job of real steps on a small roofline, its
 * folders, steps.json and summary read back; a step that fails is
 * reported while the others run; an existing folder is never reused. */
#include "cli.h"

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

/* The page as headless Chromium builds it (its DOM after loading, with
 * every host name unresolvable: nothing may come from the network), into
 * buf; 0 when Chromium is not installed. */
static int chromium_dom(const char *page, char *buf, size_t len)
{
    static const char *const exe[] = {"/usr/bin/chromium",
                                      "/usr/bin/chromium-browser"};
    const char *chrome = NULL;
    for (size_t i = 0; i < 2 && !chrome; i++)
        if (access(exe[i], X_OK) == 0)
            chrome = exe[i];
    if (!chrome)
        return 0;
    char url[900], out[600];
    snprintf(url, sizeof(url), "file://%s", page);
    snprintf(out, sizeof(out), "%s/.dom", workdir);
    const pid_t pid = fork();
    if (pid == 0) {
        const int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int n = open("/dev/null", O_WRONLY);
        dup2(o, 1);
        dup2(n, 2);
        execl(chrome, chrome, "--headless=new", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage",
              "--host-resolver-rules=MAP * ~NOTFOUND", "--dump-dom", url,
              (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    slurp(out, buf, len);
    return 1;
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

int main(int argc, char **argv)
{
    const int rc = cli_setup(argc, argv, "test_all");
    if (rc)
        return rc;
    result r;
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        run(workdir, bad[i].args, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, bad[i].message);
        CHECK_INT(count_lines(r.err), 1);
    }
    CHECK_INT(count_entries(workdir), 0);

    /* a small roofline of this host, then three real steps on it */
    char ceildir[600], ceil[700], out[600];
    snprintf(ceildir, sizeof(ceildir), "%s/ceil", workdir);
    snprintf(ceil, sizeof(ceil), "%s/ceilings.json", ceildir);
    snprintf(out, sizeof(out), "%s/job", workdir);
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
    /* the figures as data, ERT's way, with the theoretical beside */
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
    /* the report: markdown and a self-contained page (no script, style or
     * font fetched from anywhere; the charts inline; the record as JSON) */
    snprintf(path, sizeof(path), "%s/report.md", out);
    CHECK(exists(path));
    snprintf(path, sizeof(path), "%s/report.html", out);
    static char page[4 << 20];
    slurp(path, page, sizeof(page));
    CHECK_STR_HAS(page, "<!DOCTYPE html>");
    CHECK_STR_HAS(page, "The host roofline, every kernel on it");
    CHECK_STR_HAS(page, "On this machine:");
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
    /* the page in a browser: it loads from the file alone and its charts
     * are there */
    static char dom[4 << 20];
    if (chromium_dom(path, dom, sizeof(dom))) {
        CHECK_STR_HAS(dom, "<h1>roofbench: the roofline of");
        if (access("/usr/bin/gnuplot", X_OK) == 0)
            CHECK_STR_HAS(dom, "<svg");
        CHECK_STR_HAS(dom, "On this machine:");
    } else
        printf("test_all: chromium not installed: the page was not loaded "
               "in a browser (apt-get install chromium)\n");
    /* every verified row is a point: 14 kernels x 2 dtypes x 2 teams */
    snprintf(path, sizeof(path), "%s/roofline-points.csv", out);
    char pts[65536];
    slurp(path, pts, sizeof(pts));
    CHECK(count_lines(pts) > 20);
    /* the run step records where its folder is: its final place */
    snprintf(path, sizeof(path), "%s/run/results.json", out);
    doc = load_json(path);
    char want[700];
    snprintf(want, sizeof(want), "%s/run", out);
    CHECK_STR_HAS(jstr(doc, "context", "run_folder"), want);
    json_decref(doc);

    /* the same folder again: refused, nothing replaced */
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_INT(count_lines(r.err), 1);

    /* a step that fails is reported and the others still run, exit 1:
     * sweep on a roofline of one thread, when it sweeps 1 and 2 */
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

    const int st = check_status("test_all");
    if (!st)
        remove_tree(workdir);
    return st;
}
