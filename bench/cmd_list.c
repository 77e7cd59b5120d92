/* roofbench list: the registry as a table, or as JSON. */
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
    int json = 0;
    const int status = cmd_parse_json_flag(argc, argv, "list", help, &json);
    if (status >= 0)
        return status;
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
