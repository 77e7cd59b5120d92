/* roofbench list: the registry as a table, or as JSON. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "../kernels/kernel.h"
#include "cmd.h"

static void help(void)
{
    printf("usage: roofbench list [--json]\n\n"
           "Every kernel in the registry: operation, loop form, the "
           "dimensions it uses,\nits FLOPs and compulsory bytes as functions "
           "of the shape (s = element size\nin bytes; an FMA counts 2 FLOPs; "
           "outputs are written, not read), and what it does.\n\n"
           "  --json    print the list as JSON\n"
           "  --help    this text\n");
}

int cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int json = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'j')
            json = 1;
        else if (c == 'h') {
            help();
            return 0;
        } else {
            return cmd_bad("list: unknown option '%s' (see roofbench list "
                           "--help)",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_bad("list: unexpected argument '%s'", argv[optind]);
    if (json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < rb_nkernels; i++) {
            const rb_kernel *k = &rb_kernels[i];
            json_array_append_new(
                arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
                               "name", k->name, "op", rb_op_name(k->op),
                               "form", k->form, "dims", rb_op_dims(k->op),
                               "flops", rb_flops_formula(k->op), "bytes",
                               rb_bytes_formula(k->op), "threading",
                               k->threading == RB_SPLIT_LIBRARY ? "library"
                                                                : "harness",
                               "description", k->description));
        }
        char *s = json_dumps(arr, JSON_INDENT(2));
        puts(s);
        free(s);
        json_decref(arr);
        return 0;
    }
    printf("%-17s %-8s %-12s %-6s %-9s %-22s %s\n", "kernel", "op", "form",
           "dims", "FLOPs", "bytes", "description");
    for (size_t i = 0; i < rb_nkernels; i++) {
        const rb_kernel *k = &rb_kernels[i];
        printf("%-17s %-8s %-12s %-6s %-9s %-22s %s\n", k->name,
               rb_op_name(k->op), k->form, rb_op_dims(k->op),
               rb_flops_formula(k->op), rb_bytes_formula(k->op),
               k->description);
    }
    printf("\ns = element size in bytes (4 for f32, 8 for f64). All matmul "
           "forms share one\nFLOP and one byte formula: they differ in "
           "measured traffic, not compulsory traffic.\n");
    return 0;
}
