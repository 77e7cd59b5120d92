/* roofbench list: the registry as a table, or as JSON. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "flags.h"
#include "kernel.h"

typedef struct {
    int json;
} list_opts;

static const flag_spec list_flags[] = {
    FLAG_JSON(list_opts, json, "print the list as JSON")};

static const flag_table list_table = {
    "list",
    "usage: roofbench list [--json]",
    "Every kernel in the registry: operation, loop form, the dimensions it "
    "uses,\nits FLOPs and compulsory bytes as functions of the shape (s = "
    "element size\nin bytes; an FMA counts 2 FLOPs; outputs are written, not "
    "read), and what it does.",
    list_flags,
    1,
    NULL,
    0};

static int list_main(const rb_machine *m, const void *opts,
                     const flag_seen *seen, rb_err *e)
{
    (void)m;
    (void)seen;
    (void)e;
    const list_opts *o = opts;
    if (o->json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < rb_nkernels; i++) {
            const rb_kernel *k = &rb_kernels[i];
            json_array_append_new(
                arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
                               "name", k->name, "op", rb_op_name(k->op), "form",
                               k->form, "dims", rb_op_dims(k->op), "flops",
                               rb_flops_formula(k->op), "bytes",
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

const cmd_spec cmd_list = {&list_table, sizeof(list_opts), list_main, NULL};
