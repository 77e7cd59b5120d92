/* roofbench profiles: every chip profile with its ridge point per dtype
 * and its network ridge per link type. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "profile.h"

static void help(void)
{
    printf("usage: roofbench profiles [options]\n\n"
           "Lists every profile under the profiles folder (and the measured "
           "host with\n--ceilings): memory bandwidth, the ridge point per "
           "dtype (peak / memory\nbandwidth, FLOP per byte: below it an "
           "operation is memory-bound) and, per\nlink type, the network ridge "
           "(headline peak / the bandwidth one chip-to-chip\ntransfer gets, "
           "FLOP per byte sent). A '*' marks a figure derived from others\n"
           "rather than published.\n\n"
           "  --ceilings FILE  add the host measured in an earlier run "
           "(its ceilings.json)\n"
           "  --profiles DIR   where profiles are read (default: "
           "$ROOFBENCH_PROFILES or the\n"
           "                   source tree's profiles/)\n"
           "  --json           print the list as JSON\n"
           "  --help           this text\n");
}

static json_t *profile_json(const profile *p)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:{}, s:{}, s:[]}",
                          "id", p->id, "name", p->name, "vendor", p->vendor,
                          "kind", p->kind, "headline",
                          pdtype_name(p->headline), "mem_bw", p->mem_bw,
                          "peak_flops", "ridge", "links");
    if (p->mem_capacity > 0.0)
        json_object_set_new(o, "mem_capacity", json_real(p->mem_capacity));
    if (p->onchip_bytes > 0.0)
        json_object_set_new(o, "onchip_bytes", json_real(p->onchip_bytes));
    if (*p->file)
        json_object_set_new(o, "file", json_string(p->file));
    for (int d = 0; d < PD_N; d++)
        if (p->peak[d] > 0.0) {
            json_object_set_new(json_object_get(o, "peak_flops"),
                                pdtype_name((pdtype)d), json_real(p->peak[d]));
            json_object_set_new(json_object_get(o, "ridge"),
                                pdtype_name((pdtype)d),
                                json_real(profile_ridge(p, (pdtype)d)));
        }
    for (int l = 0; l < p->nlinks; l++) {
        const profile_link *k = &p->link[l];
        json_array_append_new(
            json_object_get(o, "links"),
            json_pack("{s:s, s:f, s:f, s:f, s:s, s:f}", "name", k->name,
                      "bandwidth_one_way", k->bandwidth, "links", k->links,
                      "peer_links", k->peer_links, "topology", k->topology,
                      "network_ridge",
                      p->peak[p->headline] / (k->bandwidth * k->peer_links)));
    }
    return o;
}

int cmd_profiles(int argc, char **argv)
{
    static const struct option opts[] = {
        {"ceilings", required_argument, NULL, 'c'},
        {"profiles", required_argument, NULL, 'P'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *ceilings = NULL, *pdir = NULL;
    int json = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'c': ceilings = optarg; break;
        case 'P': pdir = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        case ':':
            return cmd_bad("profiles: %s needs a value", argv[optind - 1]);
        default:
            return cmd_bad("profiles: unknown option '%s' (see roofbench "
                           "profiles --help)",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cmd_bad("profiles: unexpected argument '%s'", argv[optind]);
    const char *dir = profile_dir(pdir);
    profile *ps = NULL;
    size_t n = 0;
    rb_err e;
    if (profile_load_all(dir, &ps, &n, &e))
        return cmd_error(RB_EINPUT, e.msg);
    if (ceilings) {
        profile *more = realloc(ps, (n + 1) * sizeof(*ps));
        if (!more) {
            free(ps);
            return cmd_bad("out of memory");
        }
        ps = more;
        int k = 0;
        const int rc = cmd_load_profiles("host", dir, ceilings, 1, &ps[n], 1,
                                         &k);
        if (rc >= 0) {
            free(ps);
            return rc;
        }
        n++;
    }
    if (json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, profile_json(&ps[i]));
        char *s = json_dumps(arr, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        if (s)
            puts(s);
        free(s);
        json_decref(arr);
        free(ps);
        return 0;
    }
    printf("profiles from %s\n", dir);
    printf("%-16s %-5s %9s  ridge FLOP/B per dtype:", "profile", "kind",
           "mem B/s");
    printf("\n%-16s %-5s %9s ", "", "", "");
    for (int d = 0; d < PD_N; d++)
        printf(" %7s", pdtype_name((pdtype)d));
    printf("   network ridge (headline dtype) per link\n");
    for (size_t i = 0; i < n; i++) {
        const profile *p = &ps[i];
        printf("%-16s %-5s %9.4g ", p->id, p->kind, p->mem_bw);
        for (int d = 0; d < PD_N; d++) {
            if (p->peak[d] > 0.0)
                printf(" %6.1f%s", profile_ridge(p, (pdtype)d),
                       p->inferred[d] ? "*" : " ");
            else
                printf(" %7s", "-");
        }
        printf("   ");
        if (p->nlinks == 0)
            printf("-");
        for (int l = 0; l < p->nlinks; l++) {
            const profile_link *k = &p->link[l];
            printf("%s%s %.4g", l ? ", " : "", k->name,
                   p->peak[p->headline] / (k->bandwidth * k->peer_links));
        }
        printf(" (%s)\n", pdtype_name(p->headline));
    }
    if (!ceilings)
        printf("host: the measured machine joins with --ceilings FILE (from "
               "roofbench ceilings or run); roofbench model --profile host "
               "measures it\n");
    free(ps);
    return 0;
}
