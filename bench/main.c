/* roofbench: measured rooflines for hand-written kernels. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buildinfo.h"
#include "cmd.h"
#include "host.h"
#include "pin.h"
#include "simulate.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"info", cmd_info, "this machine: topology, ISA, OpenBLAS, PAPI counters"},
    {"list", cmd_list, "every kernel with its FLOP and byte formulas"},
    {"run", cmd_run,
     "verify and time kernels; write a results folder and print a table"},
    {"ceilings", cmd_ceilings,
     "measure this machine's roofs: clock, peak FLOP/s, bandwidth per level"},
    {"orders", cmd_orders,
     "four orders, same FLOPs: time and traffic of each matmul form"},
    {"profiles", cmd_profiles,
     "chip profiles: ridge point per dtype, network ridge per link"},
    {"model", cmd_model,
     "analytic roofline of any contraction on chip profiles or the host"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: roofbench <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n`roofbench <command> --help` describes each command.\n"
               "Exit status: 0 success, 1 a measurement or verification "
               "failed,\n2 bad input or an unusable environment.\n");
}

int cmd_error(int code, const char *msg)
{
    fprintf(stderr, "roofbench: %s\n", msg);
    return code < 0 ? -code : code;
}

int cmd_bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("roofbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int cmd_parse_json_flag(int argc, char **argv, const char *name,
                        void (*help)(void), int *json)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'j') {
            *json = 1;
        } else if (c == 'h') {
            help();
            return 0;
        } else {
            return cmd_bad("%s: unknown option '%s' (see roofbench %s --help)",
                           name, argv[optind - 1], name);
        }
    }
    if (optind < argc)
        return cmd_bad("%s: unexpected argument '%s'", name, argv[optind]);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("roofbench %s (%s)\n", RB_VERSION, rb_git_revision);
        return 0;
    }
    /* internal: the process --traffic cachegrind simulates */
    if (strcmp(argv[1], "_traffic-child") == 0) {
        hwloc_topology_t topo;
        rb_err e;
        if (pin_topology_load(&topo, &e) == RB_OK) {
            host_configure_kernels(topo, &e);
            hwloc_topology_destroy(topo);
        }
        return cmd_traffic_child(argc - 1, argv + 1);
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* The kernels learn what this machine allows before anything
             * runs (ISA, caches). */
            hwloc_topology_t topo;
            rb_err e;
            int rc = pin_topology_load(&topo, &e);
            if (rc == RB_OK) {
                rc = host_configure_kernels(topo, &e);
                hwloc_topology_destroy(topo);
            }
            if (rc != RB_OK)
                return cmd_error(rc, e.msg);
            return commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr,
            "roofbench: unknown command '%s' (commands: info, list, run, ceilings, orders, profiles, model; "
            "see roofbench --help)\n",
            argv[1]);
    return 2;
}
