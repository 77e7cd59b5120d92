/* libFuzzer target: the einsum parser, the size parser and the model on
 * what they accept. Input: a spec on the first line, then size tokens
 * separated by blanks. Any crash, leak or undefined behaviour is a bug;
 * every rejection must leave a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *nl = strchr(text, '\n');
    char *rest = nl ? nl + 1 : text + size;
    if (nl)
        *nl = '\0';
    einsum es;
    rb_err e;
    e.msg[0] = '\0';
    if (einsum_parse(text, &es, &e) != RB_OK) {
        if (e.msg[0] == '\0')
            abort();
        free(text);
        return 0;
    }
    dim_sizes ds;
    memset(&ds, 0, sizeof(ds));
    char *save = NULL;
    for (char *tok = strtok_r(rest, " \t\n", &save); tok;
         tok = strtok_r(NULL, " \t\n", &save)) {
        e.msg[0] = '\0';
        if (dim_sizes_parse(tok, &ds, &e) != RB_OK && e.msg[0] == '\0')
            abort();
    }
    model_counts c;
    if (model_count(&es, &ds, 2, &c, &e) == RB_OK) {
        model_target t = {1.97e14, 8.1e11, 2, einsum_index(es.dims[0]), 2,
                          4.5e10};
        model_eval ev;
        model_evaluate(&es, &ds, &t, &ev);
        if (!(ev.t >= ev.t_math && ev.t >= ev.t_mem))
            abort();
        double xm, xc;
        (void)model_threshold(&es, &ds, &t, einsum_index(es.dims[0]), &xm,
                              &xc);
        (void)model_intensity_limit(&es, &ds, &t, einsum_index(es.dims[0]));
    }
    free(text);
    return 0;
}
