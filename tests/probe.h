/* What the two probe tests share: each defect is a verdict printed as
 * "fixed" or "PRESENT" (so that a run against an older binary shows which
 * it still has), run from an empty scratch folder, with the recorded
 * ceilings documents rewritten for this host. Included once, after
 * nothing else of the tests. */
#ifndef ROOFBENCH_TEST_PROBE_H
#define ROOFBENCH_TEST_PROBE_H

#include "cli.h"

static int defect_failures;

/* Each defect starts from an empty scratch folder: what an earlier one
 * left behind (an old binary's half folders) cannot count against it. */
static void clean_workdir(void)
{
    DIR *d = opendir(workdir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char p[1200];
        snprintf(p, sizeof(p), "%s/%s", workdir, de->d_name);
        remove_tree(p);
    }
    if (d)
        closedir(d);
}

static void begin(const char *what)
{
    clean_workdir();
    printf("defect %s\n", what);
    fflush(stdout);
    defect_failures = check_failures;
}

static void end(const char *what)
{
    printf("  %s: %s\n", what,
           check_failures == defect_failures ? "fixed" : "PRESENT");
    fflush(stdout);
}

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", workdir, name);
}

/* The levels of the first team's read roof in a ceilings document. */
static inline json_t *read_levels(json_t *doc)
{
    json_t *team = json_array_get(json_object_get(doc, "roofline"), 0);
    return json_object_get(json_array_get(json_object_get(team, "roofs"), 0),
                           "levels");
}

/* The two recorded ceilings documents the probes pass as --ceilings, as
 * if measured here, written into scratch (made here; outside workdir,
 * which must stay empty after refused commands): fx1 the quick one-thread
 * one, fx2 the run with teams of 1 and 2. Returns 0, or 1 after saying
 * why. */
static int probe_fixtures(char *scratch, char *fx1, char *fx2, size_t len,
                          const char *name)
{
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(fx1, len, "%s/quick-1t.json", scratch);
    snprintf(fx2, len, "%s/run-1t-2t.json", scratch);
    if (fixture_here("ceilings-xeon-emr-quick-1t.json", fx1, NULL) ||
        fixture_here("ceilings-xeon-emr-run-roofline.json", fx2, NULL)) {
        fprintf(stderr, "%s: cannot prepare the fixtures\n", name);
        return 1;
    }
    return 0;
}

#endif
