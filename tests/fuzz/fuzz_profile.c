/* libFuzzer target: the profile reader (libinih underneath) on arbitrary
 * text. A profile it accepts must satisfy the schema's promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    profile p;
    rb_err e;
    e.msg[0] = '\0';
    if (profile_parse_string(text, "fuzz.ini", &p, &e) == RB_OK) {
        /* accepted: a name, a positive bandwidth, a headline with a peak */
        if (p.name[0] == '\0' || !(p.mem_bw > 0.0) ||
            !(p.peak[p.headline] > 0.0))
            abort();
        for (int i = 0; i < p.nlinks; i++)
            if (!(p.link[i].bandwidth > 0.0) ||
                p.link[i].peer_links > p.link[i].links)
                abort();
    } else if (strncmp(e.msg, "fuzz.ini:", 9) != 0) {
        abort(); /* every error names the file and line */
    }
    free(text);
    return 0;
}
