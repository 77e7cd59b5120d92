/* roofbench profiles: every chip profile with its ridge point per dtype
 * and its network ridge per link type. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "flags.h"
#include "jdoc.h"
#include "profile.h"
#include "roofline.h"
#include "text.h"

typedef struct {
    const char *ceilings, *profiles;
    int json;
} profiles_opts;

static const flag_spec profiles_flags[] = {
    FLAG_CEILINGS(profiles_opts, ceilings,
                  "add the host measured in an earlier run (its "
                  "ceilings.json)"),
    FLAG_PROFILES(profiles_opts, profiles),
    FLAG_JSON(profiles_opts, json, "print the list as JSON"),
};

static const flag_table profiles_table = {
    "profiles",
    "usage: roofbench profiles [options]",
    "Lists every profile under the profiles folder (and the measured host "
    "with\n--ceilings): memory bandwidth, the ridge point per dtype (peak / "
    "memory\nbandwidth, FLOP per byte: below it an operation is "
    "memory-bound) and, per\nlink type, the network ridge (headline peak / "
    "the bandwidth one chip-to-chip\ntransfer gets, FLOP per byte sent). A "
    "'*' marks a figure derived from others\nrather than published.",
    profiles_flags,
    sizeof(profiles_flags) / sizeof(profiles_flags[0]),
    NULL,
    0};

static json_t *profile_json(jdoc *jd, const profile *p)
{
    json_t *peaks = json_object(), *ridges = json_object(),
           *links = json_array();
    json_t *o = jd_pack(jd, "{s:s, s:o, s:o, s:s, s:s, s:o, s:o, s:o, s:o}",
                        "id", p->id, "name", jd_str(p->name), "vendor",
                        jd_str(p->vendor), "kind", p->kind, "headline",
                        pdtype_name(p->headline), "mem_bw", jd_num(p->mem_bw),
                        "peak_flops", peaks, "ridge", ridges, "links", links);
    if (p->mem_capacity > 0.0)
        jd_set(jd, o, "mem_capacity", jd_num(p->mem_capacity));
    if (p->onchip_bytes > 0.0)
        jd_set(jd, o, "onchip_bytes", jd_num(p->onchip_bytes));
    if (*p->file)
        jd_set(jd, o, "file", jd_str(p->file));
    for (int d = 0; d < PD_N; d++)
        if (p->peak[d] > 0.0) {
            jd_set(jd, peaks, pdtype_name((pdtype)d), jd_num(p->peak[d]));
            jd_set(jd, ridges, pdtype_name((pdtype)d),
                   jd_num(profile_ridge(p, (pdtype)d)));
        }
    for (int l = 0; l < p->nlinks; l++) {
        const profile_link *k = &p->link[l];
        jd_push(jd, links, "links",
                jd_pack(jd, "{s:s, s:o, s:o, s:o, s:o, s:o}", "name", k->name,
                        "bandwidth_one_way", jd_num(k->bandwidth), "links",
                        jd_num(k->links), "peer_links", jd_num(k->peer_links),
                        "topology", jd_str(k->topology), "network_ridge",
                        jd_num(p->peak[p->headline] /
                               (k->bandwidth * k->peer_links))));
    }
    return o;
}

static int print_json(const profile *ps, size_t n, rb_err *e)
{
    jdoc jd = {0};
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        jd_push(&jd, arr, "profiles", profile_json(&jd, &ps[i]));
    char *s = jd_text(&jd, arr, "the profiles document", 10, e);
    if (!s)
        return RB_EINPUT;
    puts(s);
    free(s);
    return RB_OK;
}

static void print_text(const char *dir, const profile *ps, size_t n,
                       int with_host)
{
    char shown[1024];
    text_escape(dir, shown, sizeof(shown));
    printf("profiles from %s\n", shown);
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
            const double ridge = profile_ridge(p, (pdtype)d);
            /* a ridge under 0.05 FLOP/B keeps its figures, never 0.0 */
            if (p->peak[d] > 0.0)
                printf(ridge >= 0.05 ? " %6.1f%s" : " %6.2g%s", ridge,
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
    if (!with_host)
        printf("host: the measured machine joins with --ceilings FILE (from "
               "roofbench ceilings or run); roofbench model --profile host "
               "measures it\n");
}

/* Every profile of dir, and the measured host of a ceilings file. */
static int load(const rb_machine *m, const profiles_opts *o, const char *dir,
                profile **ps, size_t *n, rb_err *e)
{
    if (profile_load_all(dir, ps, n, e))
        return RB_EINPUT;
    if (!o->ceilings)
        return RB_OK;
    profile *more = realloc(*ps, (*n + 1) * sizeof(**ps));
    if (!more)
        return rb_fail(e, RB_EINPUT, "out of memory");
    *ps = more;
    roofline roof;
    json_t *doc = NULL;
    int rc = roofline_load(o->ceilings, m->host, m->ncpus, &roof, &doc, e);
    json_decref(doc);
    if (!rc)
        rc = roofline_to_profile(&roof, RB_ACCESS_READ, &(*ps)[*n], e);
    if (!rc)
        (*n)++;
    return rc;
}

static int profiles_main(const rb_machine *m, const void *opts,
                         const flag_seen *seen, rb_err *e)
{
    (void)seen;
    const profiles_opts *o = opts;
    const char *dir = profile_dir(o->profiles);
    profile *ps = NULL;
    size_t n = 0;
    int rc = load(m, o, dir, &ps, &n, e);
    if (!rc && o->json)
        rc = print_json(ps, n, e);
    else if (!rc)
        print_text(dir, ps, n, o->ceilings != NULL);
    free(ps);
    return rb_exit_status(rc);
}

const cmd_spec cmd_profiles = {&profiles_table, sizeof(profiles_opts),
                               profiles_main, NULL};
