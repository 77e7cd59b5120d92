/* roofbench network: the link fit and the crossover on synthetic data with
 * known answers, bad input refused before mpirun starts (exit 2, one line,
 * nothing written), then two ranks for real, started by roofbench and by
 * mpirun directly, their documents read back, and model --network
 * predicting from the fitted link. The part that needs MPI is skipped (77)
 * only when mpirun is not installed. */
#include <math.h>
#include <signal.h>

#include "cli.h"
#include "network.h"
#include "ref.h"

static int near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

static void test_fit(void)
{
    /* an exact line: latency 2 us, 10 GB/s */
    uint64_t bytes[12];
    double t[12], res[12];
    for (int i = 0; i < 12; i++) {
        bytes[i] = 1ull << (2 * i);
        t[i] = 2e-6 + (double)bytes[i] / 1e10;
    }
    net_link l;
    char why[160];
    CHECK(net_fit_link(bytes, t, 12, &l, res, why, sizeof(why)) == 0);
    CHECK(near(l.latency, 2e-6, 1e-9));
    CHECK(near(l.bandwidth, 1e10, 1e-9));
    CHECK(l.max_rel < 1e-9);
    /* a 10% step at one size shows in the residuals, where it is */
    t[5] *= 1.10;
    CHECK(net_fit_link(bytes, t, 12, &l, res, why, sizeof(why)) == 0);
    CHECK_U64(l.max_rel_bytes, bytes[5]);
    CHECK(l.max_rel > 0.05 && l.max_rel < 0.11);
    CHECK(res[5] < 0);
    /* no bandwidth to fit, too few points, a bad time */
    for (int i = 0; i < 12; i++)
        t[i] = 1e-6;
    CHECK(net_fit_link(bytes, t, 12, &l, res, why, sizeof(why)) != 0);
    CHECK(net_fit_link(bytes, t, 1, &l, res, why, sizeof(why)) != 0);
    CHECK_STR_HAS(why, "needs 2");
    t[3] = 0;
    CHECK(net_fit_link(bytes, t, 12, &l, res, why, sizeof(why)) != 0);
    CHECK_STR_HAS(why, "not positive");
}

static void test_crossover(void)
{
    /* the seeds' two TPU v5e chips: D* = s C / W = 2 x 1.97e14 / 4.5e10 */
    CHECK(near(net_predicted_crossover(2, 2, 1.97e14, 4.5e10), 8755.6, 1e-4));
    /* N ranks: (N - 1) */
    CHECK(near(net_predicted_crossover(4, 4, 1e11, 1e10), 120.0, 1e-12));
    /* comm constant at 10, compute = D / 10: the ratio 100 / D crosses 1 at
     * D = 100, between grid points 64 and 128 */
    double x[8], ratio[8];
    for (int i = 0; i < 8; i++) {
        x[i] = 16.0 * pow(2.0, i);
        ratio[i] = 100.0 / x[i];
    }
    int st;
    CHECK(near(net_crossover(x, ratio, 8, 1.0, &st), 100.0, 1e-9));
    CHECK_INT(st, NET_CROSS_FOUND);
    /* a dip below 1 that comes back does not count: from 256 on it stays */
    ratio[1] = 0.5;
    ratio[4] = 1.2;
    CHECK(net_crossover(x, ratio, 8, 1.0, &st) > x[4]);
    CHECK(net_crossover(x, ratio, 8, 1.0, &st) < x[5]);
    CHECK_INT(st, NET_CROSS_FOUND);
    /* below everywhere, above at the end */
    for (int i = 0; i < 8; i++)
        ratio[i] = 0.5;
    CHECK(net_crossover(x, ratio, 8, 1.0, &st) == x[0]);
    CHECK_INT(st, NET_CROSS_BEFORE);
    ratio[7] = 2;
    CHECK(isnan(net_crossover(x, ratio, 8, 1.0, &st)));
    CHECK_INT(st, NET_CROSS_NEVER);
    /* the overlap limit 1.1 */
    for (int i = 0; i < 8; i++)
        ratio[i] = 1.0 + 1.6 / x[i] * 16.0; /* 2.6 ... 1.0125 */
    const double o = net_crossover(x, ratio, 8, 1.10, &st);
    CHECK_INT(st, NET_CROSS_FOUND);
    CHECK(o > 128 && o < 512);
}

/* The sharded product's check: a right chunk-major output passes within
 * the rounding bound, one element off by 1% (f32) or 1e-6 (f64) fails,
 * each caught in its row. */
static void test_freivalds(void)
{
    for (int dt = 0; dt < RB_NDTYPES; dt++) {
        const net_shard_shape sh = {(rb_dtype)dt, 5, 37, 12, 4};
        float af[5 * 37], wf[37 * 12], of[5 * 12];
        double ad[5 * 37], wd[37 * 12], od[5 * 12];
        double x[12], u[74], y[5], ya[5], z[5];
        for (size_t i = 0; i < 5 * 37; i++)
            ad[i] = af[i] = (float)(((i * 7919) % 201) / 100.0 - 1.0);
        for (size_t k = 0; k < 37; k++)
            for (size_t j = 0; j < 12; j++)
                wd[net_w_index(&sh, k, j)] = wf[net_w_index(&sh, k, j)] =
                    (float)((((k * 12 + j) * 104729) % 199) / 99.0 - 1.0);
        for (size_t i = 0; i < 5; i++)
            for (size_t j = 0; j < 12; j++) {
                double v = 0;
                for (size_t k = 0; k < 37; k++)
                    v += ad[i * 37 + k] * wd[net_w_index(&sh, k, j)];
                od[net_out_index(&sh, i, j)] = v;
                of[net_out_index(&sh, i, j)] = (float)v;
            }
        for (size_t j = 0; j < 12; j++)
            x[j] = (double)(j % 5) - 2.0 + 0.25;
        const void *a = dt == RB_F32 ? (void *)af : (void *)ad,
                   *w = dt == RB_F32 ? (void *)wf : (void *)wd;
        void *o = dt == RB_F32 ? (void *)of : (void *)od;
        net_freivalds_rhs(&sh, a, w, x, u, u + 37, y, ya);
        size_t row;
        const double tol = ref_tolerance((rb_dtype)dt, 37 + 12);
        CHECK(net_freivalds_error(&sh, o, x, y, ya, z, &row) <= tol);
        /* one element of row 3, chunk 2, wrong */
        const size_t at = net_out_index(&sh, 3, 9);
        if (dt == RB_F32)
            of[at] *= 1.01f;
        else
            od[at] *= 1.000001;
        CHECK(net_freivalds_error(&sh, o, x, y, ya, z, &row) > tol);
        CHECK_U64(row, 3);
    }
}

typedef struct {
    const char *args[16];
    const char *message;
} bad_case;

static const bad_case bad[] = {
    {{"network", "--parts", "latency,bogus"}, "--parts 'bogus': unknown"},
    {{"network", "--parts", "latency,latency"}, "'latency' given twice"},
    {{"network", "--sizes", "64K:1"}, "--sizes '64K:1': an empty range"},
    {{"network", "--sizes", "1:2G:x2"}, "the largest is above 1G"},
    {{"network", "--d", "16:64:x1"}, "does not advance"},
    {{"network", "--batch", "1,2,3,4,5"}, "--batch '1,2,3,4,5': 5 values"},
    {{"network", "--f", "100", "--chunks", "3"},
     "--chunks 3: F (--f 100) must be a multiple"},
    {{"network", "--kernel", "dot"}, "--kernel 'dot'"},
    {{"network", "--kernel", "matmul_row,matmul_blocked"},
     "name one matmul kernel"},
    {{"network", "--dtype", "f16"}, "--dtype 'f16'"},
    {{"network", "--ranks", "1"}, "--ranks '1': too small"},
    {{"network", "--ranks", "64"}, "--ranks 64: this host has"},
    {{"network", "--hostfile", "/nonexistent/hosts"},
     "--hostfile '/nonexistent/hosts'"},
    {{"network", "--d", "1M:1M", "--f", "1M"}, "GB available"},
    {{"network", "--batch", "65536", "--f", "65536"}, "2^31 - 1 elements"},
    {{"network", "--samples", "2"}, "--samples '2': too small"},
    {{"network", "--ceilings", "/nonexistent/ceilings.json"},
     "--ceilings '/nonexistent/ceilings.json'"},
    {{"network", "--ceilings", "/etc/hostname"}, "--ceilings '/etc/hostname'"},
    {{"network", "--hostfile", "/tmp"}, "--hostfile '/tmp': not a file"},
    {{"network", "--parts", "allreduce", "--sizes", "1:4", "--dtype", "f64"},
     "no size holds whole f64 elements"},
};

static void test_bad_input(void)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        result r;
        run(workdir, bad[i].args, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, bad[i].message);
        CHECK_INT(count_lines(r.err), 1);
        if (r.status != 2 || !strstr(r.err, bad[i].message))
            fprintf(stderr, "  case %zu (%s %s): %s\n", i, bad[i].args[1],
                    bad[i].args[2] ? bad[i].args[2] : "", r.err);
    }
    CHECK_INT(count_entries(workdir), 0);
}

static void no_path(void *ctx)
{
    (void)ctx;
    setenv("PATH", "/nonexistent", 1);
}

/* Without mpirun, and without roofbench-mpi beside roofbench: one line
 * saying what to install, exit 2. */
static void test_missing(int have_mpirun)
{
    const char *args[] = {"network", "--quick", NULL};
    result r;
    finish(start_with(workdir, args, -1, no_path, NULL), &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "mpirun not found on PATH: apt-get install "
                         "openmpi-bin libopenmpi-dev");
    CHECK_INT(count_lines(r.err), 1);
    if (!have_mpirun)
        return;
    /* a copy of roofbench alone in a folder */
    char dir[600], copy[700], cmd[1600];
    snprintf(dir, sizeof(dir), "%s/alone", workdir);
    snprintf(copy, sizeof(copy), "%s/roofbench", dir);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s'", dir, roofbench,
             copy);
    CHECK(system(cmd) == 0);
    const char *saved = roofbench;
    roofbench = copy;
    run(workdir, args, &r);
    roofbench = saved;
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "roofbench-mpi was not built");
    CHECK_INT(count_lines(r.err), 1);
    remove_tree(dir);
}

/* mpirun on PATH, or 0. */
static int find_mpirun(char *path, size_t len)
{
    const char *env = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", env ? env : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/mpirun", d);
        if (access(path, X_OK) == 0)
            return 1;
    }
    return 0;
}

static void check_document(const char *dir, int parts_all)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/network.json", dir);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    if (!doc)
        return;
    CHECK_STR_HAS(jstr(doc, "schema", NULL), "roofbench.network");
    CHECK_STR_HAS(jstr(doc, "status", NULL), "complete");
    const json_t *mpi = json_object_get(doc, "mpi");
    CHECK_INT(json_integer_value(json_object_get(mpi, "ranks")), 2);
    CHECK_STR_HAS(json_string_value(json_object_get(mpi, "label")),
                  "intra-node shared memory");
    /* two ranks, two different PUs */
    const json_t *bind = json_object_get(mpi, "binding");
    CHECK_INT(json_array_size(bind), 2);
    const char *b0 = json_string_value(json_array_get(bind, 0)),
               *b1 = json_string_value(json_array_get(bind, 1));
    CHECK(b0 && b1 && strcmp(b0, b1) != 0);
    const json_t *p2p = json_object_get(doc, "link_p2p");
    CHECK(json_real_value(json_object_get(p2p, "bandwidth_Bps")) > 1e6);
    CHECK(json_array_size(json_object_get(doc, "latency")) >= 2);
    if (!parts_all) {
        json_decref(doc);
        return;
    }
    const json_t *link = json_object_get(doc, "link");
    CHECK(json_real_value(json_object_get(link, "bandwidth_Bps")) > 1e6);
    CHECK(json_real_value(json_object_get(link, "latency_s")) >= 0);
    CHECK(json_array_size(json_object_get(doc, "bandwidth")) >= 2);
    CHECK(json_array_size(json_object_get(doc, "allreduce")) >= 4);
    const json_t *shard = json_object_get(doc, "shard");
    const json_t *pts = json_object_get(shard, "points");
    /* 2 dtypes x 2 batch sizes x 3 values of D */
    CHECK_INT(json_array_size(pts), 12);
    size_t i;
    json_t *pt;
    json_array_foreach(pts, i, pt)
    {
        CHECK(json_is_true(json_object_get(pt, "verified")));
        CHECK(json_real_value(json_object_get(pt, "max_error")) <=
              json_real_value(json_object_get(pt, "tolerance")));
        /* D a multiple of the ranks, every timing sampled */
        CHECK_INT(json_integer_value(json_object_get(pt, "d")) % 2, 0);
        CHECK_INT(json_array_size(json_object_get(
                      json_object_get(pt, "compute"), "samples_s")),
                  3);
    }
    const json_t *cross = json_object_get(shard, "crossover");
    CHECK_INT(json_array_size(cross), 4);
    json_array_foreach(cross, i, pt)
    {
        CHECK(json_real_value(json_object_get(pt, "predicted_d")) > 0);
        CHECK(json_real_value(json_object_get(pt, "c_flops_per_rank")) > 1e6);
    }
    json_decref(doc);
    static const char *const files[] = {
        "network-p2p.csv",       "network-allreduce.csv", "network-shard.csv",
        "network-crossover.csv", "network-roofs.csv",     "ceilings.json"};
    for (size_t k = 0; k < sizeof(files) / sizeof(*files); k++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
        CHECK(exists(path));
    }
}

/* mpirun args... in workdir, as a user runs it (root allowed). */
static void run_mpirun(const char *mpirun, const char *const *args,
                       result *r)
{
    const pid_t pid = fork();
    if (pid == 0) {
        if (chdir(workdir) != 0)
            _exit(126);
        char path[512];
        out_path(path, sizeof(path), "stdout");
        const int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        out_path(path, sizeof(path), "stderr");
        const int e = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        char *argv[40];
        int n = 0;
        argv[n++] = (char *)mpirun;
        for (; args[n - 1] && n < 39; n++)
            argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(mpirun, argv);
        _exit(127);
    }
    finish(pid, r);
}

/* roofbench starts mpirun itself: the run prints what it ran and writes a
 * full document, model reads the fitted link, and a rerun is refused. */
static void two_ranks_launched(const char *out)
{
    const char *args[] = {"network",   "--quick",   "--sizes",    "1:64K:x16",
                          "--d",       "16:256:x4", "--batch",    "4,32",
                          "--f",       "64",        "--chunks",   "4",
                          "--samples", "3",         "--min-time", "0.0005",
                          "--out",     out,         NULL};
    result r;
    run(workdir, args, &r);
    CHECK_INT(r.status, 0);
    if (r.status)
        fprintf(stderr, "network: %s\n%s\n", r.err, r.out);
    /* the command line it ran is printed, mpirun first */
    CHECK_STR_HAS(r.err, "mpirun -n 2");
    CHECK_STR_HAS(r.err, "roofbench-mpi network");
    CHECK_STR_HAS(r.out, "intra-node shared memory");
    CHECK_STR_HAS(r.out, "crossover D");
    check_document(out, 1);
    /* model reads the fitted link as the host's */
    const char *margs[] = {"model",  "bp,pm->bm", "b=32", "p=4096",
                           "m=1024", "--profile", "host", "--network",
                           out,      "--shard",   "p:2",  "--link",
                           "mpi",    "--dtype",   "fp32", NULL};
    run(workdir, margs, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "host/fp32 over mpi");
    CHECK_STR_HAS(r.out, "compute-bound against the link when p >=");
    /* the same folder again: refused, nothing replaced */
    run(workdir, args, &r);
    CHECK_INT(r.status, 2);
    CHECK_INT(count_lines(r.err), 1);
}

/* Under the user's own mpirun, roofbench runs as roofbench-mpi and writes
 * a latency-only document; more ranks than cores is refused up front. */
static void two_ranks_user_mpirun(const char *mpirun, const char *ceil,
                                  const char *out2)
{
    /* mpirun started by the user: roofbench becomes roofbench-mpi */
    const char *uargs[] = {"-n",        "2",          "--bind-to",
                           "none",      roofbench,    "network",
                           "--parts",   "latency",    "--sizes",
                           "1:4K:x8",   "--samples",  "3",
                           "--min-time", "0.0005",    "--ceilings",
                           ceil,        "--out",      out2,
                           NULL};
    result r;
    run_mpirun(mpirun, uargs, &r);
    CHECK_INT(r.status, 0);
    if (r.status)
        fprintf(stderr, "mpirun network: %s\n%s\n", r.err, r.out);
    check_document(out2, 0);

    /* three ranks on two cores under the user's mpirun: refused before a
     * folder is made */
    char out5[600];
    snprintf(out5, sizeof(out5), "%s/net5", workdir);
    const char *oargs[] = {"-n",     "3",       "--oversubscribe", "--bind-to",
                           "none",   roofbench, "network",         "--parts",
                           "latency", "--ceilings", ceil,           "--out",
                           out5,     NULL};
    if (sysconf(_SC_NPROCESSORS_ONLN) < 3) {
        run_mpirun(mpirun, oargs, &r);
        CHECK_INT(r.status, 2);
        CHECK_STR_HAS(r.err, "3 ranks on");
        CHECK(!exists(out5));
    }
}

/* A network document from a one-part run gives model its single link,
 * mpi-p2p, to shard over. */
static void two_ranks_model_one_part(const char *ceil, const char *out2)
{
    /* a run of one part has one link, which model takes alone */
    const char *m2[] = {"model",   "bp,pm->bm", "b=32",  "p=4096",
                        "m=1024",  "--profile", "host",  "--ceilings",
                        ceil,      "--network", out2,    "--shard",
                        "p:2",     "--link",    "mpi-p2p", NULL};
    result r;
    run(workdir, m2, &r);
    CHECK_INT(r.status, 0);
    CHECK_STR_HAS(r.out, "over mpi-p2p");
}

/* When mpirun itself fails for want of slots, roofbench reports that
 * mpirun failed, exits 2 and writes nothing. */
static void two_ranks_mpirun_fails(const char *ceil)
{
    /* mpirun's own failure (too few slots) is one line of ours beside its
     * message, exit 2, nothing written */
    char hosts[600], out4[600];
    snprintf(hosts, sizeof(hosts), "%s/hosts", workdir);
    snprintf(out4, sizeof(out4), "%s/net4", workdir);
    FILE *hf = fopen(hosts, "w");
    CHECK(hf != NULL);
    if (hf) {
        fputs("localhost slots=1\n", hf);
        fclose(hf);
    }
    const char *hargs[] = {"network", "--hostfile", hosts, "--parts",
                           "latency", "--ceilings", ceil,  "--out",
                           out4,      NULL};
    result r;
    run(workdir, hargs, &r);
    CHECK_INT(r.status, 2);
    CHECK_STR_HAS(r.err, "mpirun failed (exit status 1)");
    CHECK(!exists(out4));
}

/* A SIGINT mid-run exits 130 and leaves a document marked interrupted that
 * holds the latency points already measured. */
static void two_ranks_interrupted(const char *ceil)
{
    /* Ctrl-C: the ranks stop together at the next point, rank 0 writes
     * what is finished, marked interrupted, and the exit status is 130 */
    char out3[600];
    snprintf(out3, sizeof(out3), "%s/net3", workdir);
    const char *iargs[] = {"network", "--ceilings", ceil, "--out", out3, NULL};
    const pid_t ipid = start(workdir, iargs);
    CHECK(wait_for("stderr", "running:", 30));
    sleep_s(2.0);
    kill(ipid, SIGINT);
    result r;
    finish(ipid, &r);
    CHECK_INT(r.status, 130);
    char path[700];
    snprintf(path, sizeof(path), "%s/network.json", out3);
    json_t *doc = load_json(path);
    CHECK(doc != NULL);
    CHECK_STR_HAS(jstr(doc, "status", NULL), "interrupted");
    CHECK(json_array_size(json_object_get(doc, "latency")) >= 1);
    json_decref(doc);
}

/* Two ranks end to end, launched by roofbench and by the user's mpirun,
 * then model over the result, mpirun's own failure and an interrupt. */
static void test_two_ranks(const char *mpirun)
{
    char out[600], out2[600], ceil[700];
    snprintf(out, sizeof(out), "%s/net", workdir);
    snprintf(out2, sizeof(out2), "%s/net2", workdir);
    snprintf(ceil, sizeof(ceil), "%s/ceilings.json", out);
    two_ranks_launched(out);
    two_ranks_user_mpirun(mpirun, ceil, out2);
    two_ranks_model_one_part(ceil, out2);
    two_ranks_mpirun_fails(ceil);
    two_ranks_interrupted(ceil);
}

int main(int argc, char **argv)
{
    test_fit();
    test_crossover();
    test_freivalds();
    const int rc = cli_setup(argc, argv, "test_network");
    if (rc)
        return rc;
    test_bad_input();
    char mpirun[512];
    const int have = find_mpirun(mpirun, sizeof(mpirun));
    test_missing(have);
    if (!have) {
        printf("test_network: mpirun not found: the two-rank runs are "
               "skipped (apt-get install openmpi-bin libopenmpi-dev)\n");
        const int st = check_status("test_network");
        remove_tree(workdir);
        return st ? st : 77;
    }
    test_two_ranks(mpirun);
    const int st = check_status("test_network");
    if (!st)
        remove_tree(workdir);
    return st;
}
