/* roofbench: measured rooflines for hand-written kernels. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "buildinfo.h"
#include "cmd.h"
#include "machine.h"
#include "progress.h"
#include "text.h"

static const struct {
    const char *name;
    const cmd_spec *spec;
    const char *help;
} commands[] = {
    {"all", &cmd_all,
     "the main job: every step below into one run folder, with a summary"},
    {"info", &cmd_info, "this machine: topology, ISA, OpenBLAS, PAPI counters"},
    {"list", &cmd_list, "every kernel with its FLOP and byte formulas"},
    {"run", &cmd_run,
     "verify and time kernels; write a results folder and print a table"},
    {"ceilings", &cmd_ceilings,
     "measure this machine's roofs: clock, peak FLOP/s, bandwidth per level"},
    {"orders", &cmd_orders,
     "four orders, same FLOPs: time and traffic of each matmul form"},
    {"sweep", &cmd_sweep,
     "batch sweep: [B,P] x [P,M] crossing the ridge, per memory level"},
    {"compare", &cmd_compare,
     "regression gate: two results' samples tested row by row"},
    {"check", &cmd_check,
     "deterministic gate: cachegrind counts against a committed baseline"},
    {"network", &cmd_network,
     "network roof over MPI: latency, bandwidth, all-reduce, sharded matmul"},
    {"report", &cmd_report,
     "the report and charts of an old `all` folder again, from its files"},
    {"profiles", &cmd_profiles,
     "chip profiles: ridge point per dtype, network ridge per link"},
    {"model", &cmd_model,
     "analytic roofline of any contraction on chip profiles or the host"},
    {"_traffic-child", &cmd_traffic_child, NULL},
};
enum { NCOMMANDS = sizeof(commands) / sizeof(commands[0]) };

static void usage(FILE *f)
{
    fprintf(f, "usage: roofbench <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].help)
            fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n`roofbench <command> --help` describes each command.\n"
               "Exit status: 0 success, 1 a measurement or verification "
               "failed,\n2 bad input or an unusable environment, 3 a "
               "regression found by compare\nor check, 130 and 143 "
               "interrupted (SIGINT, SIGTERM).\n");
}

/* One line on stderr, with bytes that are not printable UTF-8 escaped:
 * a value from a flag or a file never reaches the terminal raw. */
static void print_error(const char *msg)
{
    char shown[2048];
    text_escape(msg, shown, sizeof(shown));
    progress_end();
    fprintf(stderr, "roofbench: %s\n", shown);
}

/* The results are written before anything is printed; a closed pipe or a
 * full disk on standard output is reported, never a silent success. */
static int check_stdout(int status)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    const int err = errno;
    fprintf(stderr, "roofbench: writing to standard output: %s\n",
            err ? strerror(err) : "write error");
    return status ? status : 2;
}

static int dispatch(int argc, char **argv)
{
    size_t i = 0;
    while (i < NCOMMANDS && strcmp(argv[1], commands[i].name) != 0)
        i++;
    if (i == NCOMMANDS) {
        char cmd[256];
        snprintf(cmd, sizeof(cmd),
                 "unknown command '%s' (commands: all, info, list, run, ceilings, "
                 "orders, sweep, compare, check, network, profiles, model; see "
                 "roofbench --help)",
                 argv[1]);
        print_error(cmd);
        return 2;
    }
    /* The flags, parsed with the command's table before anything else. */
    const cmd_spec *c = commands[i].spec;
    static union {
        max_align_t align;
        char bytes[4096];
    } opts;
    flag_seen seen = {.argc = argc - 1, .argv = argv + 1};
    rb_err e = {""};
    if (c->early) {
        const int st = c->early(argc - 1, argv + 1, &e);
        if (st >= 0) {
            if (st)
                print_error(e.msg);
            return st;
        }
    }
    if (c->flags) {
        if (c->opts_size > sizeof(opts))
            return 2;
        const int start =
            flags_start(c->flags, argc - 1, argv + 1, &opts, &seen, &e);
        if (start >= 0) {
            if (start)
                print_error(e.msg);
            return start;
        }
    }
    /* The machine, loaded once: what the kernels may use (ISA, caches)
     * is set before anything runs. */
    rb_machine m;
    const int status =
        machine_open(&m, &e) == RB_OK ? c->main(&m, &opts, &seen, &e) : 2;
    if (status != 0 && e.msg[0])
        print_error(e.msg);
    machine_close(&m);
    return status;
}

int main(int argc, char **argv)
{
    /* A reader that goes away (`| head`) must not kill a measurement
     * before its results are written: writes fail instead. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return check_stdout(0);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("roofbench %s (%s)\n", RB_VERSION, rb_git_revision);
        return check_stdout(0);
    }
    return check_stdout(dispatch(argc, argv));
}
