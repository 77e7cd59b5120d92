/* Ceilings: plateau detection on synthetic bandwidth curves with known
 * levels and noise, theoretical-peak arithmetic, ISA selection that never
 * picks an unsupported path, every ceiling kernel this CPU can run
 * checked against its closed form, and the layout of the bandwidth
 * buffers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ceilings.h"
#include "host.h"
#include "plateau.h"
#include "check.h"

typedef struct {
    double end; /* last working set the level holds; INFINITY for DRAM */
    double gbs;
} level;

static double noise(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * 0x1p-53 * 2.0 - 1.0; /* [-1, 1) */
}

/* bandwidth at ws: the level that holds it; with blend > 1 the step to
 * the next level is spread geometrically over [end, end * blend]. */
static double truth(const level *lv, size_t nl, double ws, double blend)
{
    for (size_t i = 0; i < nl; i++) {
        if (ws <= lv[i].end)
            return lv[i].gbs;
        if (i + 1 < nl && blend > 1.0 && ws < lv[i].end * blend) {
            const double f = log(ws / lv[i].end) / log(blend);
            return exp(log(lv[i].gbs) + f * (log(lv[i + 1].gbs) -
                                             log(lv[i].gbs)));
        }
    }
    return lv[nl - 1].gbs;
}

static size_t curve(const level *lv, size_t nl, double max, double amp,
                    double blend, uint64_t seed, double *x, double *y)
{
    /* as the sweep does: steps of 1.25 from 4 KiB, and max as the last */
    size_t n = 0;
    for (double ws = 4096; n < 256; ws *= 1.25) {
        const int last = ws * 1.25 > max * 1.0001;
        x[n] = last ? max : ws;
        y[n] = truth(lv, nl, x[n], blend) * (1.0 + amp * noise(&seed));
        n++;
        if (last)
            break;
    }
    return n;
}

static const level hier[] = {{32 * 1024.0, 200.0},
                             {1024 * 1024.0, 100.0},
                             {32 * 1024 * 1024.0, 60.0},
                             {INFINITY, 20.0}};
static const char *const names[] = {"L1", "L2", "L3", "DRAM"};

static void expect_levels(const plateau *p, size_t np, const level *lv,
                          size_t nl, double tol, const char *what)
{
    CHECK_INT(np, nl);
    if (np != nl) {
        fprintf(stderr, "  %s: found", what);
        for (size_t i = 0; i < np; i++)
            fprintf(stderr, " %s %.1f [%.0f, %.0f]", p[i].name, p[i].gbs,
                    p[i].first_bytes, p[i].last_bytes);
        fprintf(stderr, "\n");
        return;
    }
    for (size_t i = 0; i < nl; i++) {
        CHECK_STR_HAS(p[i].name, names[i]);
        CHECK(fabs(p[i].gbs / lv[i].gbs - 1.0) <= tol);
        if (isfinite(lv[i].end)) {
            /* the true end lies between the last point of the plateau and
             * the first point of the next level */
            CHECK(p[i].last_bytes <= lv[i].end);
            CHECK(p[i + 1].first_bytes > lv[i].end);
        }
    }
}

/* The test hierarchy's levels come out through 3% and 8% noise and
 * through transitions spread over a factor 2 of working set. */
static void plateaus_noise(void)
{
    double x[256], y[256];
    plateau p[8];
    const double gib = 1024.0 * 1024 * 1024;

    /* sharp steps, 3% noise */
    size_t n = curve(hier, 4, gib, 0.03, 1.0, 1, x, y);
    size_t np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    expect_levels(p, np, hier, 4, 0.04, "sharp, 3%");

    /* 8% noise, several seeds */
    for (uint64_t seed = 2; seed < 12; seed++) {
        n = curve(hier, 4, gib, 0.08, 1.0, seed, x, y);
        np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
        expect_levels(p, np, hier, 4, 0.08, "sharp, 8%");
    }

    /* transitions spread over a factor 2 of working set */
    n = curve(hier, 4, gib, 0.03, 2.0, 3, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    CHECK_INT(np, 4);
    for (size_t i = 0; i < np && np == 4; i++) {
        CHECK_STR_HAS(p[i].name, names[i]);
        CHECK(fabs(p[i].gbs / hier[i].gbs - 1.0) <= 0.05);
    }
}

/* Artefacts open no level (a slow start, one stray sample), a sweep
 * short of DRAM names none, and a small step is still a step. */
static void plateaus_artefacts(void)
{
    double x[256], y[256];
    plateau p[8];
    const double gib = 1024.0 * 1024 * 1024;

    /* a slow start (call overhead on tiny arrays) is not a level */
    size_t n = curve(hier, 4, gib, 0.02, 1.0, 4, x, y);
    y[0] *= 0.5;
    y[1] *= 0.55;
    y[2] *= 0.6;
    size_t np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    CHECK_INT(np, 4);
    if (np == 4)
        CHECK(fabs(p[0].gbs / 200.0 - 1.0) <= 0.04);

    /* one stray sample inside L2 opens no level */
    n = curve(hier, 4, gib, 0.02, 1.0, 5, x, y);
    for (size_t i = 0; i < n; i++)
        if (x[i] > 200e3) {
            y[i] *= 2.0;
            break;
        }
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    expect_levels(p, np, hier, 4, 0.04, "one outlier");

    /* a sweep that stops inside L3 names no DRAM */
    n = curve(hier, 4, 16 * 1024 * 1024.0, 0.02, 1.0, 6, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    CHECK_INT(np, 3);
    if (np == 3)
        CHECK_STR_HAS(p[2].name, "L3");

    /* a small step (100 -> 86 GB/s) between L2 and L3 is still a step */
    const level close[] = {{32 * 1024.0, 200.0},
                           {1024 * 1024.0, 100.0},
                           {16 * 1024 * 1024.0, 86.0},
                           {INFINITY, 20.0}};
    n = curve(close, 4, gib, 0.02, 1.0, 7, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    expect_levels(p, np, close, 4, 0.04, "small step");
}

/* A cap on the count (the machine's three caches) folds a bump into a
 * neighbour with the names right, and changes nothing when not passed. */
static void plateaus_cap(void)
{
    double x[256], y[256];
    plateau p[8];
    const double gib = 1024.0 * 1024 * 1024;

    /* a bump in the L1 -> L2 transition (as two threads sharing a noisy
     * core show) is a level of its own without a cap; with the machine's
     * three caches it joins a neighbour and the names stay right */
    const level bumpy[] = {{32 * 1024.0, 400.0},
                           {96 * 1024.0, 270.0},
                           {2 * 1024 * 1024.0, 225.0},
                           {24 * 1024 * 1024.0, 185.0},
                           {INFINITY, 45.0}};
    size_t n = curve(bumpy, 5, gib, 0.01, 1.0, 9, x, y);
    size_t np = plateau_detect(x, y, n, 1.10, gib * 0.99, 0, NULL, p, 8);
    CHECK_INT(np, 5);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 3, NULL, p, 8);
    CHECK_INT(np, 4);
    if (np == 4) {
        CHECK_STR_HAS(p[0].name, "L1");
        CHECK(fabs(p[0].gbs / 400.0 - 1.0) <= 0.03);
        CHECK_STR_HAS(p[1].name, "L2");
        CHECK(fabs(p[1].gbs / 225.0 - 1.0) <= 0.03); /* most points: L2 */
        CHECK_STR_HAS(p[2].name, "L3");
        CHECK(fabs(p[2].gbs / 185.0 - 1.0) <= 0.03);
        CHECK_STR_HAS(p[3].name, "DRAM");
    }
    /* a cap at or above the levels found changes nothing */
    n = curve(hier, 4, gib, 0.03, 1.0, 1, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 3, NULL, p, 8);
    expect_levels(p, np, hier, 4, 0.04, "capped at 3 caches");
}

/* With the cache sizes known the levels are named by what the caches
 * hold, and a shelf past the L3 is no level. */
static void plateaus_named(void)
{
    double x[256], y[256];
    plateau p[8];
    const double gib = 1024.0 * 1024 * 1024;

    /* Named by what the caches hold: a store curve with one rate through
     * L1 and L2 (as on Zen 4) is "L1-L2", then "L3"; a read curve keeps
     * L1, L2, L3 with the same sizes; a cache reported far too large (a
     * VM's CPUID) renames nothing. */
    const double caches[3] = {32 * 1024.0, 1024 * 1024.0, 32 * 1048576.0};
    const level store[] = {{1024 * 1024.0, 117.0},
                           {16 * 1048576.0, 99.0},
                           {INFINITY, 24.0}};
    size_t n = curve(store, 3, gib, 0.02, 1.0, 11, x, y);
    size_t np = plateau_detect(x, y, n, 1.10, gib * 0.99, 3, caches, p, 8);
    CHECK_INT(np, 3);
    if (np == 3) {
        CHECK(strcmp(p[0].name, "L1-L2") == 0);
        CHECK(strcmp(p[1].name, "L3") == 0);
        CHECK(strcmp(p[2].name, "DRAM") == 0);
        CHECK(fabs(p[0].gbs / 117.0 - 1.0) <= 0.03);
    }
    n = curve(hier, 4, gib, 0.03, 1.0, 1, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 3, caches, p, 8);
    CHECK_INT(np, 4);
    for (size_t i = 0; i < np && np == 4; i++)
        CHECK(strcmp(p[i].name, names[i]) == 0);
    const double huge[3] = {256 * 1048576.0, 512 * 1048576.0, 1024 * 1048576.0};
    n = curve(store, 3, gib, 0.02, 1.0, 11, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 3, huge, p, 8);
    CHECK_INT(np, 3);
    if (np == 3)
        CHECK(strcmp(p[0].name, "L1") == 0 && strcmp(p[1].name, "L2") == 0);

    /* a shelf on the way to DRAM (past twice the L3) is not a level: with
     * the cache sizes known it is dropped, and L2 and L3 stay apart */
    const level shelf[] = {{32 * 1024.0, 200.0},
                           {1024 * 1024.0, 100.0},
                           {32 * 1048576.0, 60.0},
                           {256 * 1048576.0, 30.0},
                           {INFINITY, 20.0}};
    n = curve(shelf, 5, gib, 0.02, 1.0, 5, x, y);
    np = plateau_detect(x, y, n, 1.10, gib * 0.99, 3, caches, p, 8);
    CHECK_INT(np, 4);
    for (size_t i = 0; i < np && np == 4; i++)
        CHECK(strcmp(p[i].name, names[i]) == 0);
    if (np == 4) {
        CHECK(fabs(p[1].gbs / 100.0 - 1.0) <= 0.03);
        CHECK(fabs(p[2].gbs / 60.0 - 1.0) <= 0.03);
        CHECK(fabs(p[3].gbs / 20.0 - 1.0) <= 0.03);
    }
}

/* plateau_detect as the ceilings call it (merge ratio 1.12, DRAM past 1
 * GiB, three caches of the sizes given) on a recorded curve of n (bytes,
 * GB/s) points. */
static size_t detect_recorded(const double (*rec)[2], size_t n,
                              const double caches[3], plateau *p)
{
    double x[64], y[64];
    const double gib = 1024.0 * 1024 * 1024;
    n = n < 64 ? n : 64;
    for (size_t i = 0; i < n; i++) {
        x[i] = rec[i][0];
        y[i] = rec[i][1];
    }
    return plateau_detect(x, y, n, 1.12, gib * 0.99, 3, caches, p, 8);
}

/* A recorded 2-thread read curve (best of 5 samples, Zen 5 guest whose two
 * cores each claimed a 508 MiB L3): L1 to 93 KiB, L2 near 330 GB/s to
 * 1.6 MiB, L3 near 205 GB/s to 12 MiB, then a slow fall to DRAM near 82.
 * With the caches as host_team_caches believes them (128 MiB of L3 for
 * the pair) the four levels come out, DRAM among them; with the claim
 * taken whole (1016 MiB) the DRAM tail ended inside "twice the L3" and
 * the roof had no DRAM level, which failed the sweep and the model. */
static void plateaus_recorded_guest(void)
{
    static const double rec[][2] = {
        {5120, 900.048},      {8192, 883.395},      {12288, 869.816},
        {18432, 869.408},     {27648, 863.908},     {41984, 865.451},
        {63488, 835.805},     {95232, 909.812},     {143360, 325.764},
        {215040, 336.419},    {322560, 334.428},    {484352, 335.107},
        {726016, 344.542},    {1089536, 406.184},   {1634304, 311.631},
        {2451456, 199.388},   {3677184, 207.55},    {5516288, 207.085},
        {8274944, 204.269},   {12412928, 201.185},  {18619392, 183.537},
        {27929600, 167.821},  {41894912, 135.677},  {62842880, 120.273},
        {94265344, 113.728},  {141398016, 101.172}, {212097024, 89.6336},
        {318145536, 82.4219}, {477217792, 83.7583}, {715827200, 81.522},
        {1073741824, 81.4278}};
    const size_t n = sizeof(rec) / sizeof(rec[0]);
    const double mib = 1048576.0;
    const double believed[3] = {96 * 1024.0, 2 * mib, 128 * mib};
    plateau p[8];
    size_t np = detect_recorded(rec, n, believed, p);
    CHECK_INT(np, 4);
    for (size_t i = 0; i < np && np == 4; i++)
        CHECK(strcmp(p[i].name, names[i]) == 0);
    if (np == 4) {
        CHECK(p[0].gbs > 800.0 && p[1].gbs > 300.0 && p[1].gbs < 360.0);
        CHECK(p[2].gbs > 190.0 && p[2].gbs < 215.0);
        CHECK(p[3].gbs > 78.0 && p[3].gbs < 86.0);
        CHECK(p[2].last_bytes <= 16 * mib && p[3].first_bytes >= 128 * mib);
    }
    /* with the claim taken whole the tail is "inside" the L3, yet three
     * cache plateaus come before it: DRAM all the same */
    const double claimed[3] = {96 * 1024.0, 2 * mib, 1016 * mib};
    np = detect_recorded(rec, n, claimed, p);
    CHECK_INT(np, 4);
    CHECK(np > 0 && strcmp(p[np - 1].name, "DRAM") == 0);
}

/* Two recorded 2-thread curves of one ceilings run on a Zen 5 guest (the
 * pair's L3 believed 128 MiB), whose DRAM tail past 202 MiB swung from 34
 * to 72 GB/s and could not be kept: the last plateau kept, 90 to 202 MiB,
 * lies within twice that L3, and was taken for a fourth cache; the cap
 * then merged L2 into L3 and the renaming made one "L1-L3" of the whole
 * curve, so that the read roof had no level but it and the sweep and the
 * model failed for want of DRAM. The plateaus before it take up every
 * cache level (read2: L1, L2, L3; write: L1-L2, L3), so it is DRAM. */
static void plateaus_recorded_noisy_tail(void)
{
    static const double read2[][2] = {
        {4096, 797.065},     {8192, 786.467},     {12288, 793.514},
        {18432, 791.533},    {26624, 795.703},    {40960, 792.869},
        {63488, 786.395},    {94208, 793.438},    {143360, 299.412},
        {215040, 302.793},   {321536, 304.955},   {483328, 306.993},
        {724992, 344.791},   {1089536, 404.537},  {1634304, 328.076},
        {2451456, 221.171},  {3676160, 176.723},  {5515264, 160.815},
        {8273920, 183.477},  {12412928, 183.987}, {18618368, 179.101},
        {27928576, 157.55},  {41893888, 121.024}, {62842880, 86.214},
        {94265344, 39.6579}, {141398016, 47.4528}, {212097024, 52.8114},
        {318144512, 71.6957}, {477216768, 71.329}, {715827200, 52.7496},
        {1073741824, 43.2195}};
    static const double write[][2] = {
        {5120, 417.903},     {8192, 415.575},     {12288, 420.638},
        {18432, 414.668},    {27648, 420.281},    {41984, 407.637},
        {63488, 422.003},    {95232, 415.644},    {143360, 307.126},
        {215040, 316.324},   {322560, 384.166},   {484352, 389.558},
        {726016, 397.591},   {1089536, 373.017},  {1634304, 313.784},
        {2451456, 212.058},  {3677184, 179.322},  {5516288, 168.296},
        {8274944, 163.5},    {12412928, 177.632}, {18619392, 181.653},
        {27929600, 164.452}, {41894912, 106.238}, {62842880, 87.9749},
        {94265344, 72.2044}, {141398016, 55.6396}, {212097024, 52.8001},
        {318145536, 33.9096}, {477217792, 35.7881}, {715827200, 47.8517},
        {1073741824, 46.9241}};
    const double mib = 1048576.0;
    const double believed[3] = {96 * 1024.0, 2 * mib, 128 * mib};
    plateau p[8];
    size_t np = detect_recorded(read2, sizeof(read2) / sizeof(read2[0]),
                                believed, p);
    CHECK_INT(np, 4);
    for (size_t i = 0; i < np && np == 4; i++)
        CHECK(strcmp(p[i].name, names[i]) == 0);
    if (np == 4) {
        CHECK(p[1].gbs > 290.0 && p[1].gbs < 330.0);
        CHECK(p[2].gbs > 160.0 && p[2].gbs < 200.0);
        CHECK(p[3].gbs > 35.0 && p[3].gbs < 60.0);
        CHECK(p[3].first_bytes > 64 * mib);
    }
    np = detect_recorded(write, sizeof(write) / sizeof(write[0]), believed, p);
    CHECK_INT(np, 3);
    if (np == 3) {
        CHECK(strcmp(p[0].name, "L1-L2") == 0);
        CHECK(strcmp(p[1].name, "L3") == 0);
        CHECK(strcmp(p[2].name, "DRAM") == 0);
        CHECK(p[2].gbs > 35.0 && p[2].gbs < 75.0);
    }
}

/* Two recorded read curves of a sweep's own roof measurement on a Zen 5
 * guest (1 and 2 threads; L3 believed 64 and 128 MiB): L1, L2 and L3
 * plateaus of 6 to 8 points, then a shelf of 3 on the way to DRAM (1
 * thread: 62, 50 and 50 GB/s from 18 to 40 MiB; 2 threads: 65, 59 and
 * 63 from 90 to 202 MiB) and DRAM. One plateau too many for three
 * caches: merging the closest pair joined L2 and L3 ("L2-L3" at 96 GB/s,
 * and at 2 threads all of it "L1-L3"). The short shelf goes instead. */
static void plateaus_recorded_shelf(void)
{
    static const double one[][2] = {
        {5120, 415.428},     {8192, 429.368},     {12288, 420.461},
        {18432, 427.64},     {28160, 408.338},    {42496, 425.068},
        {63488, 153.361},    {95232, 161.984},    {143360, 155.615},
        {215040, 156.309},   {322560, 160.577},   {484352, 177.17},
        {726528, 187.395},   {1089536, 100.194},  {1634304, 92.272},
        {2451968, 95.605},   {3677696, 84.106},   {5516800, 92.258},
        {8275456, 94.281},   {12413440, 84.634},  {18619904, 61.682},
        {27930112, 49.895},  {41895424, 50.349},  {62843392, 38.37},
        {94265344, 33.602},  {141398016, 29.14},  {212097024, 30.211},
        {318145536, 28.277}, {477218304, 29.652}, {715827712, 26.461},
        {1073741824, 24.236}};
    static const double two[sizeof(one) / sizeof(one[0])][2] = {
        {5120, 824.996},     {8192, 800.757},     {12288, 798.977},
        {18432, 789.714},    {27648, 760.481},    {41984, 781.244},
        {63488, 793.828},    {95232, 779.172},    {143360, 297.858},
        {215040, 306.806},   {322560, 306.329},   {484352, 306.25},
        {726016, 298.264},   {1089536, 421.266},  {1634304, 323.533},
        {2451456, 201.088},  {3677184, 185.998},  {5516288, 193.368},
        {8274944, 184.64},   {12412928, 178.097}, {18619392, 173.43},
        {27929600, 153.247}, {41894912, 109.288}, {62842880, 90.876},
        {94265344, 64.718},  {141398016, 58.686}, {212097024, 63.093},
        {318145536, 45.717}, {477217792, 53.669}, {715827200, 55.602},
        {1073741824, 52.857}};
    const double mib = 1048576.0;
    const double caches[2][3] = {{48 * 1024.0, mib, 64 * mib},
                                 {96 * 1024.0, 2 * mib, 128 * mib}};
    const double lo[2][4] = {{400, 150, 84, 24}, {760, 290, 170, 45}},
                 hi[2][4] = {{440, 175, 100, 35}, {830, 320, 200, 65}};
    for (int t = 0; t < 2; t++) {
        plateau p[8];
        const size_t np = detect_recorded(t == 0 ? one : two,
                                          sizeof(one) / sizeof(one[0]),
                                          caches[t], p);
        CHECK_INT(np, 4);
        for (size_t i = 0; i < np && np == 4; i++) {
            CHECK(strcmp(p[i].name, names[i]) == 0);
            CHECK(p[i].gbs >= lo[t][i] && p[i].gbs <= hi[t][i]);
        }
        /* the shelf is in no level */
        if (np == 4)
            CHECK(p[2].last_bytes < 18 * mib && p[3].first_bytes > 60 * mib);
    }
}

/* The degenerate curves: a flat one and an empty one. */
static void plateaus_flat(void)
{
    double x[256], y[256];
    plateau p[8];
    const double gib = 1024.0 * 1024 * 1024;

    /* a flat curve is one level; an empty one none */
    const level flat[] = {{INFINITY, 50.0}};
    size_t n = curve(flat, 1, 1024 * 1024.0, 0.02, 1.0, 8, x, y);
    CHECK_INT(plateau_detect(x, y, n, 1.10, gib, 0, NULL, p, 8), 1);
    CHECK_INT(plateau_detect(x, y, 0, 1.10, gib, 0, NULL, p, 8), 0);
}

/* The plateau detector on synthetic curves whose levels are known. */
static void test_plateaus(void)
{
    plateaus_noise();
    plateaus_artefacts();
    plateaus_cap();
    plateaus_named();
    plateaus_recorded_guest();
    plateaus_recorded_noisy_tail();
    plateaus_recorded_shelf();
    plateaus_flat();
}

static void test_theory(void)
{
    /* 2 cores x 3.5 GHz x 8 f64 lanes x 2 (FMA) x 2 pipes = 224 GFLOP/s */
    CHECK(fabs(ceilings_theoretical_gflops(2, 3.5, 8, 2) - 224.0) < 1e-9);
    /* 1 core x 3.6 GHz x 16 f32 lanes x 2 x 1 pipe = 115.2 */
    CHECK(fabs(ceilings_theoretical_gflops(1, 3.6, 16, 1) - 115.2) < 1e-9);

    host_cpu zen4 = {.vendor = "AuthenticAMD", .family = 0x19, .model = 0x11,
                     .avx512f = 1};
    host_cpu zen3 = {.vendor = "AuthenticAMD", .family = 0x19, .model = 0x01};
    host_cpu intel = {.vendor = "GenuineIntel", .family = 6, .model = 0x8f};
    const char *src;
    CHECK_INT(ceilings_fma_pipes(&zen4, 512, &src), 1);
    CHECK_STR_HAS(src, "Zen 4");
    CHECK_INT(ceilings_fma_pipes(&zen4, 256, &src), 2);
    CHECK_INT(ceilings_fma_pipes(&zen4, 64, &src), 2);
    CHECK_INT(ceilings_fma_pipes(&zen3, 512, &src), 0);
    CHECK_INT(ceilings_fma_pipes(&zen3, 256, &src), 2);
    CHECK_INT(ceilings_fma_pipes(&intel, 512, &src), 0);
    CHECK_STR_HAS(src, "unknown");
}

/* --openblas best: OpenBLAS's core for the widest vector instructions the
 * CPU runs, only where its own choice uses narrower ones. */
static void test_openblas_best(void)
{
    char why[160] = "";
    host_cpu emr = {.vendor = "GenuineIntel", .family = 6, .model = 207,
                    .sse2 = 1, .avx = 1, .fma = 1, .avx2 = 1, .avx512f = 1,
                    .avx512dq = 1, .avx512bw = 1, .avx512vl = 1,
                    .avx512_bf16 = 1, .os_avx = 1, .os_avx512 = 1};
    /* 0.3.21 on a Xeon of model 207: Prescott, 5x slower than Cooperlake */
    const char *core = host_openblas_best_core(&emr, "Prescott", why,
                                               sizeof(why));
    CHECK(core && strcmp(core, "Cooperlake") == 0);
    CHECK_STR_HAS(why, "Prescott");
    CHECK_STR_HAS(why, "AVX-512 with BF16");
    CHECK(host_openblas_best_core(&emr, "Cooperlake", why, sizeof(why)) ==
          NULL);
    /* a core name the table does not know is left as OpenBLAS chose it */
    CHECK(host_openblas_best_core(&emr, "Zen9", why, sizeof(why)) == NULL);
    /* SkylakeX on a CPU with BF16 is one step short of Cooperlake */
    core = host_openblas_best_core(&emr, "skylakex", why, sizeof(why));
    CHECK(core && strcmp(core, "Cooperlake") == 0);
    host_cpu skx = emr;
    skx.avx512_bf16 = 0;
    CHECK(host_openblas_best_core(&skx, "SkylakeX", why, sizeof(why)) == NULL);
    core = host_openblas_best_core(&skx, "Haswell", why, sizeof(why));
    CHECK(core && strcmp(core, "SkylakeX") == 0);
    /* AVX-512 the OS does not save is not there */
    host_cpu no_os = emr;
    no_os.os_avx512 = 0;
    CHECK(host_openblas_best_core(&no_os, "Haswell", why, sizeof(why)) ==
          NULL);
    core = host_openblas_best_core(&no_os, "Prescott", why, sizeof(why));
    CHECK(core && strcmp(core, "Haswell") == 0);
    host_cpu old = {.vendor = "GenuineIntel", .sse2 = 1};
    CHECK(host_openblas_best_core(&old, "Prescott", why, sizeof(why)) == NULL);
}

/* The streaming FMA kernel: every element of every stream times m, fmas
 * times, added onto accumulators that start from out, whatever fmas (the
 * loop of each F below 16, the rounds of 16 from there), in one stream
 * and in four, with and without the lines asked for ahead; exact in small
 * integers and halves. */
static double fs_start(const double *o, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++)
        s += o[k];
    return s;
}

static void test_fmastream(void)
{
    host_cpu cpu;
    host_cpu_probe(&cpu);
    const unsigned isa = host_isa_mask(&cpu);
    enum { N = 4 * RB_FMASTREAM_VECS * 16, OUT = RB_FMASTREAM_VECS * 16 };
    static float f32[4][N];
    static double f64[4][N];
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < N; k++) {
            f32[s][k] = (float)(1 + (k + s) % 3);
            f64[s][k] = 1 + (k + s) % 3;
        }
    const float *a32[4] = {f32[0], f32[1], f32[2], f32[3]};
    const double *a64[4] = {f64[0], f64[1], f64[2], f64[3]};
    static const unsigned fmas[] = {1, 2, 3, 7, 8, 12, 15, 16, 17, 40};
    int ran = 0;
    for (size_t i = 0; i < rb_nfmastream_variants; i++) {
        const rb_fmastream_variant *v = &rb_fmastream_variants[i];
        if ((v->needs & isa) != v->needs)
            continue;
        ran++;
        const size_t l32 = v->bits / 32, l64 = v->bits / 64, n = N / 4;
        for (size_t j = 0; j < sizeof(fmas) / sizeof(*fmas); j++)
            for (int streams = 1; streams <= 4; streams += 3)
                for (size_t ahead = 0; ahead <= 4096; ahead += 4096) {
                    float o32[OUT];
                    double o64[OUT], w32[OUT], sum = 0.0;
                    for (int k = 0; k < OUT; k++) {
                        o32[k] = (float)(k % 4);
                        w32[k] = k % 4;
                        o64[k] = k % 4;
                    }
                    const double s32 = fs_start(w32, RB_FMASTREAM_VECS * l32),
                                 s64 = fs_start(o64, RB_FMASTREAM_VECS * l64);
                    for (int s = 0; s < streams; s++)
                        for (size_t k = 0; k < n; k++)
                            sum += f32[s][k];
                    v->f32(a32, streams, n, fmas[j], ahead, 0.5f, o32);
                    v->f64(a64, streams, n, fmas[j], ahead, 0.5, o64);
                    for (int k = 0; k < OUT; k++)
                        w32[k] = o32[k];
                    const double want = 0.5 * fmas[j] * sum;
                    CHECK(fs_start(w32, RB_FMASTREAM_VECS * l32) - s32 ==
                          want);
                    CHECK(fs_start(o64, RB_FMASTREAM_VECS * l64) - s64 ==
                          want);
                    /* values past the accumulators are untouched */
                    CHECK(o32[RB_FMASTREAM_VECS * l32 % OUT] ==
                              (float)(RB_FMASTREAM_VECS * l32 % OUT % 4) ||
                          RB_FMASTREAM_VECS * l32 == OUT);
                }
    }
    /* with FMA there is a variant; without, the probe says unavailable */
    CHECK(ran >= 1 || !(isa & RB_ISA_FMA));
    CHECK((ceilings_fmastream_now_variant() != NULL) == (ran >= 1));
}

/* The quick roofline's kernels: the read roof's always, and for the mixed
 * roof every kernel the full ceilings give it (schoenauer set the mixed
 * DRAM roof on a Zen 5 guest at 2 threads), write never (no roof). */
static void test_quick_roofline(void)
{
    ceilings_plan plan;
    const int threads[2] = {1, 2};
    const rb_dtype dts[1] = {RB_F32};
    ceilings_plan_roofline(&plan, 2, RB_ISA_SSE2, 16e9, threads, 2, dts, 1,
                           1u << RB_ACCESS_READ);
    CHECK(plan.bw_kernels[BW_READ] && plan.bw_kernels[BW_READ2] &&
          plan.bw_kernels[BW_READ4]);
    CHECK(!plan.bw_kernels[BW_COPY] && !plan.bw_kernels[BW_TRIAD] &&
          !plan.bw_kernels[BW_SCHOENAUER] && !plan.bw_kernels[BW_WRITE]);
    ceilings_plan_roofline(&plan, 2, RB_ISA_SSE2, 16e9, threads, 2, dts, 1,
                           1u << RB_ACCESS_READ | 1u << RB_ACCESS_MIXED);
    for (int k = 0; k < BW_NKERNELS; k++)
        CHECK_INT(plan.bw_kernels[k], k != BW_WRITE);
    CHECK_INT(plan.nthreads, 2);
    CHECK_INT(plan.nwidths, 1);
    CHECK_INT(plan.gemm_n, 0);
}

/* The bandwidth sweep's working sets: the last at size_max, each a whole
 * step of the factor below the next, the first at size_min or above; so
 * the quick sweep to 1 GiB ends at 455 MB, 683 MB and 1 GiB, and a DRAM
 * plateau from 455 MB on has the 3 points over a factor 2 the detector
 * needs (stepped up from 4 KiB they were 349, 523 and 1024 MB: a curve
 * still falling to 500 MB had 2). */
static void test_bw_grid(void)
{
    ceilings_plan plan;
    ceilings_plan_defaults(&plan, 1, 2, RB_ISA_SSE2, 0.0, 16e9);
    CHECK(plan.size_max == 1024.0 * 1024 * 1024);
    size_t el[CEIL_MAX_POINTS];
    const double per = 8.0 * 2; /* one stream, two threads */
    const size_t n = ceilings_bw_points(&plan, per, el);
    CHECK(n > 10 && n <= CEIL_MAX_POINTS);
    CHECK_U64(el[n - 1] * per, (uint64_t)plan.size_max);
    CHECK((double)el[0] * per >= plan.size_min * 0.99);
    /* each a step down from the end, rounded down to whole blocks */
    for (size_t i = 0; i < n; i++) {
        const double want =
            plan.size_max / pow(plan.factor, (double)(n - 1 - i)) / per;
        CHECK((double)el[i] <= want * (1 + 1e-9) &&
              (double)el[i] > want - RB_STREAM_BLOCK);
    }
    CHECK((double)el[n - 1] / (double)el[n - 3] >= 2.0);
    /* full: a finer step, the same end */
    ceilings_plan_defaults(&plan, 0, 2, RB_ISA_SSE2, 0.0, 16e9);
    const size_t m = ceilings_bw_points(&plan, per, el);
    CHECK(m > n);
    CHECK_U64(el[m - 1] * per, (uint64_t)plan.size_max);
}

static void test_selection(void)
{
    static const unsigned widths[] = {64, 128, 256, 512};
    /* every subset of the five features, every width */
    for (unsigned mask = 0; mask < 32; mask++)
        for (int w = 0; w < 4; w++) {
            const rb_peak_variant *v = ceilings_peak_select(mask, widths[w]);
            if (v) {
                CHECK((v->needs & mask) == v->needs);
                CHECK_INT(v->bits, widths[w]);
            }
            const rb_stream_variant *s =
                ceilings_stream_select(mask, widths[w]);
            if (s)
                CHECK((s->needs & mask) == s->needs);
        }
    /* SSE2 only: no 256 or 512, and multiply + add instead of FMA */
    CHECK(ceilings_peak_select(RB_ISA_SSE2, 512) == NULL);
    CHECK(ceilings_peak_select(RB_ISA_SSE2, 256) == NULL);
    CHECK(ceilings_peak_select(RB_ISA_SSE2, 128) != NULL &&
          !ceilings_peak_select(RB_ISA_SSE2, 128)->fma);
    CHECK(ceilings_stream_select(RB_ISA_SSE2, 512) == NULL);
    /* AVX2 + FMA without AVX-512 */
    const unsigned avx2 = RB_ISA_SSE2 | RB_ISA_AVX | RB_ISA_FMA | RB_ISA_AVX2;
    CHECK(ceilings_peak_select(avx2, 512) == NULL);
    CHECK(ceilings_peak_select(avx2, 256) != NULL &&
          ceilings_peak_select(avx2, 256)->fma);
    /* with everything, FMA wins at every width */
    const unsigned all = avx2 | RB_ISA_AVX512F;
    for (int w = 0; w < 4; w++)
        CHECK(ceilings_peak_select(all, widths[w])->fma);

    /* A plan that asks for a width this CPU lacks is refused by name. */
    ceilings_plan plan;
    ceilings_plan_defaults(&plan, 1, 2, avx2, 32e6, 16e9);
    CHECK_INT(plan.nwidths, 3);
    plan.widths[plan.nwidths++] = 512;
    rb_err e;
    CHECK_INT(ceilings_check_plan(&plan, avx2, 16e9, &e), RB_EINPUT);
    CHECK_STR_HAS(e.msg, "--width 512");
}

/* Every kernel this CPU can run, against its closed form. */
static void test_kernels_closed_form(void)
{
    host_cpu cpu;
    host_cpu_probe(&cpu);
    const unsigned isa = host_isa_mask(&cpu);
    int ran = 0;
    for (size_t i = 0; i < rb_npeak_variants; i++) {
        const rb_peak_variant *v = &rb_peak_variants[i];
        if ((v->needs & isa) != v->needs)
            continue;
        ran++;
        double a64[24 * 16];
        float a32[24 * 16];
        for (int k = 0; k < 24 * 16; k++) {
            a64[k] = 3.0 + k % 5;
            a32[k] = (float)(3.0 + k % 5);
        }
        const uint64_t it = 40;
        v->f64(it, 0.5, 0.25, a64);
        v->f32(it, 0.5f, 0.25f, a32);
        const unsigned l64 = v->bits == 64 ? 1 : v->bits / 64;
        const unsigned l32 = v->bits == 64 ? 1 : v->bits / 32;
        /* acc_n = f + x^n (acc_0 - f), f = y / (1 - x) = 0.5 */
        for (unsigned k = 0; k < v->chains * l64; k++)
            CHECK(fabs(a64[k] - (0.5 + pow(0.5, 40) * (2.5 + k % 5))) <
                  1e-15);
        for (unsigned k = 0; k < v->chains * l32; k++)
            CHECK(fabs(a32[k] - 0.5f) < 1e-6);
        /* lanes past the variant's own are untouched */
        CHECK(a64[v->chains * l64] == 3.0 + (v->chains * l64) % 5);
    }
    CHECK(ran >= 2); /* every x86-64 has the SSE2 variants */

    enum { N = 4 * RB_STREAM_BLOCK };
    uint64_t ia[N];
    double a[N], b[N], c[N], d[N];
    for (size_t i = 0; i < rb_nstream_variants; i++) {
        const rb_stream_variant *v = &rb_stream_variants[i];
        if ((v->needs & isa) != v->needs)
            continue;
        uint64_t sums[RB_STREAM_SUMS] = {0}, total = 0, want = 0;
        for (int k = 0; k < N; k++) {
            ia[k] = (uint64_t)k * 3 + 1;
            want += 3 * ia[k];
            b[k] = k % 7;
            c[k] = k % 5;
            d[k] = k % 3;
        }
        v->read(ia, N, 3, sums);
        for (int k = 0; k < RB_STREAM_SUMS; k++)
            total += sums[k];
        CHECK_U64(total, want);
        /* read2 and read4 over distinct arrays: every element of each,
         * added reps times (a stream skipped or read twice shows) */
        uint64_t s0[N], s1[N], s2[N], s3[N], w2 = 0, w4 = 0;
        for (int k = 0; k < N; k++) {
            s0[k] = (uint64_t)k + 1;
            s1[k] = (uint64_t)k * 1000 + 7;
            s2[k] = (uint64_t)k * 1000000 + 11;
            s3[k] = (uint64_t)k * 1000000000 + 13;
            w2 += 2 * (s0[k] + s1[k]);
            w4 += 3 * (s0[k] + s1[k] + s2[k] + s3[k]);
        }
        const uint64_t *streams[4] = {s0, s1, s2, s3};
        uint64_t sums2[RB_STREAM_SUMS] = {0}, sums4[RB_STREAM_SUMS] = {0};
        uint64_t t2 = 0, t4 = 0;
        v->read2(streams, N, 2, sums2);
        v->read4(streams, N, 3, sums4);
        for (int k = 0; k < RB_STREAM_SUMS; k++) {
            t2 += sums2[k];
            t4 += sums4[k];
        }
        CHECK_U64(t2, w2);
        CHECK_U64(t4, w4);
        v->write(a, N, 2, 1.5);
        int ok = 1;
        for (int k = 0; k < N; k++)
            ok &= a[k] == 1.5;
        CHECK(ok);
        v->copy(a, b, N, 1);
        for (int k = 0; k < N; k++)
            ok &= a[k] == b[k];
        CHECK(ok);
        v->triad(a, b, c, 3.0, N, 2);
        for (int k = 0; k < N; k++)
            ok &= a[k] == b[k] + 3.0 * c[k];
        CHECK(ok);
        v->schoenauer(a, b, c, d, N, 2);
        for (int k = 0; k < N; k++)
            ok &= a[k] == b[k] + c[k] * d[k];
        CHECK(ok);
    }
    CHECK_U64(rb_clock_chain(1000), 64000);
}

/* Lines within [b, b + len) of each buffer, bucketed by L1 set (address
 * bits 6-11); returns 1 when any two lines of one set agree in bits 20-27
 * and differ in bits 12-19, so no hash that XORs one bit of each group into
 * each utag bit (Zen's, region.h) can give them the same utag. */
static int utag_clear(const uintptr_t *b, const size_t *len, int n)
{
    static uint64_t lines[64][4096];
    size_t nin[64] = {0};
    for (int k = 0; k < n; k++)
        for (uintptr_t a = b[k] & ~(uintptr_t)63; a < b[k] + len[k]; a += 64) {
            const size_t set = (a >> 6) & 63;
            if (nin[set] == 4096)
                return 0;
            lines[set][nin[set]++] = a >> 12;
        }
    int ok = 1;
    for (size_t set = 0; set < 64; set++)
        for (size_t i = 0; i < nin[set]; i++)
            for (size_t j = i + 1; j < nin[set]; j++) {
                const uint64_t x = lines[set][i], y = lines[set][j];
                if (x == y)
                    continue; /* the same page: different lines, sets */
                ok &= ((x >> 8) & 0xff) == ((y >> 8) & 0xff) &&
                      (x & 0xff) != (y & 0xff);
            }
    return ok;
}

/* The bandwidth sweep's layout: the first 64 KiB of every stream of a
 * thread clear of utag aliasing at any stream length; streams do not
 * overlap, stay inside the mapping and are writable end to end. */
static void test_bw_layout(void)
{
    const size_t sizes[] = {64, 4096, (size_t)1 << 22, ((size_t)1 << 25) + 64};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (int streams = 1; streams <= 4; streams++) {
            rb_region r;
            rb_err e;
            const size_t elems = sizes[z];
            const size_t bytes[4] = {elems * 8, elems * 8, elems * 8,
                                     elems * 8};
            CHECK(rb_region_map(&r, streams, bytes, RB_REGION_SPAN,
                                BW_STREAM_SHIFT, "test", &e) == RB_OK);
            if (!r.map)
                continue;
            const uintptr_t lo = (uintptr_t)r.map, hi = lo + r.len;
            uintptr_t b[4];
            size_t prefix[4];
            for (int s = 0; s < streams; s++) {
                double *p = r.buf[s];
                b[s] = (uintptr_t)p;
                prefix[s] = elems * 8 < (64 << 10) ? elems * 8 : (64 << 10);
                CHECK(b[s] % 64 == 0);
                CHECK(b[s] >= lo && b[s] + elems * 8 <= hi);
                if (s > 0) {
                    CHECK(b[s] - b[s - 1] ==
                          (elems * 8 + RB_REGION_SPAN - 1) / RB_REGION_SPAN *
                                  RB_REGION_SPAN +
                              BW_STREAM_SHIFT);
                    CHECK(b[s - 1] + elems * 8 <= b[s]);
                }
                p[0] = 1.0;
                p[elems - 1] = 2.0;
                CHECK(p[0] + p[elems - 1] == 3.0);
            }
            CHECK(utag_clear(b, prefix, streams));
            rb_region_unmap(&r);
            CHECK(r.map == NULL);
        }
}

/* The harness's layout: operands that together fit in 1 MiB are clear of
 * utag aliasing as a whole, page-aligned, in order and disjoint; bad
 * layouts are refused. */
static void test_operand_layout(void)
{
    const size_t sets[][3] = {{8192, 8192, 64},
                              {10240, 10240, 128},
                              {300000, 300000, 300000},
                              {4096, 1000000, 4096}};
    for (size_t z = 0; z < sizeof(sets) / sizeof(sets[0]); z++) {
        rb_region r;
        rb_err e;
        CHECK(rb_region_map(&r, 3, sets[z], 4096, 0, "test", &e) == RB_OK);
        if (!r.map)
            continue;
        uintptr_t b[3];
        for (int k = 0; k < 3; k++) {
            b[k] = (uintptr_t)r.buf[k];
            CHECK(b[k] % 4096 == 0);
            CHECK(k == 0 || b[k - 1] + sets[z][k - 1] <= b[k]);
            memset(r.buf[k], 0x5a, sets[z][k]);
        }
        const size_t total = sets[z][0] + sets[z][1] + sets[z][2];
        /* within 1 MiB (with page rounding) the whole of every operand */
        if (b[2] + sets[z][2] - b[0] <= RB_REGION_BLOCK)
            CHECK(utag_clear(b, sets[z], 3));
        else
            CHECK(total > 900000); /* only the large case may spill */
        rb_region_unmap(&r);
    }
    rb_region r;
    rb_err e;
    const size_t one[5] = {64, 64, 64, 64, 64};
    CHECK(rb_region_map(&r, 5, one, 4096, 0, "test", &e) == RB_EINPUT);
    CHECK(rb_region_map(&r, 1, one, 3000, 0, "test", &e) == RB_EINPUT);
    CHECK(rb_region_map(&r, 1, one, 4096, 100, "test", &e) == RB_EINPUT);
    const size_t zero[1] = {0};
    CHECK(rb_region_map(&r, 1, zero, 4096, 0, "test", &e) == RB_EINPUT);
}

/* Whether the page at p is mapped (mincore fails with ENOMEM where not). */
static int page_mapped(void *p)
{
    unsigned char v;
    return mincore(p, 4096, &v) == 0;
}

/* Parking (the sweep's): an unmapped region's mapping is kept, whole, and
 * taken by the next map that fits, with the values it held; where two
 * meet the larger is kept and the other unmapped; the first mapping made
 * while parking spans the reserve; a need beyond what is kept unmaps it
 * and gets a fresh, larger mapping; off unmaps what is kept, and a map is
 * fresh again. */
static void test_region_park(void)
{
    rb_region r, r2;
    rb_err e;
    const size_t reserve = (size_t)8 << 20, small[2] = {4096, 100000},
                 other[1] = {(size_t)6 << 20}, big[1] = {(size_t)12 << 20};
    rb_region_park(reserve);
    CHECK(rb_region_map(&r, 2, small, 4096, 0, "test", &e) == RB_OK);
    void *const first = r.map;
    const size_t first_len = r.len;
    CHECK(first_len >= reserve);
    memset(r.buf[1], 0x5a, small[1]);
    rb_region_unmap(&r);
    CHECK(r.map == NULL);
    CHECK(page_mapped(first));
    /* the same mapping, whole, and the other buffers laid out in it */
    CHECK(rb_region_map(&r, 1, other, 4096, 0, "test", &e) == RB_OK);
    CHECK(r.map == first && r.len == first_len);
    CHECK(((unsigned char *)r.buf[0])[4096 + 10] == 0x5a);
    memset(r.buf[0], 1, other[0]);
    /* a second one while the first is held: fresh; when both are unmapped
     * the one kept is the first (not smaller), the second goes */
    CHECK(rb_region_map(&r2, 2, small, 4096, 0, "test", &e) == RB_OK);
    void *const second = r2.map;
    CHECK(second != first && r2.len <= first_len);
    rb_region_unmap(&r);
    rb_region_unmap(&r2);
    CHECK(page_mapped(first));
    CHECK(!page_mapped(second));
    /* past what is kept: that goes, and a larger one comes, kept in turn */
    CHECK(rb_region_map(&r, 1, big, 4096, 0, "test", &e) == RB_OK);
    void *const larger = r.map;
    const size_t larger_len = r.len;
    CHECK(larger_len >= big[0]);
    if ((char *)first + first_len <= (char *)larger ||
        (char *)larger + larger_len <= (char *)first)
        CHECK(!page_mapped(first));
    memset(r.buf[0], 2, big[0]);
    rb_region_unmap(&r);
    CHECK(rb_region_map(&r, 2, small, 4096, 0, "test", &e) == RB_OK);
    CHECK(r.map == larger && r.len == larger_len);
    CHECK(((unsigned char *)r.buf[1])[10] == 2);
    rb_region_unmap(&r);
    /* off: what is kept goes, and a map is fresh (zeroed pages) */
    rb_region_park(0);
    CHECK(!page_mapped(larger));
    CHECK(rb_region_map(&r, 2, small, 4096, 0, "test", &e) == RB_OK);
    CHECK(r.len < reserve);
    CHECK(((unsigned char *)r.buf[1])[10] == 0);
    rb_region_unmap(&r);
}

/* A team workspace's buffer: on a huge page boundary, in whole huge
 * pages, writable to its end, and gone to its last page once freed. */
static void test_region_buffer(void)
{
    const size_t huge = (size_t)2 << 20, bytes = 3 * huge + 100;
    char *const b = rb_region_buffer(bytes);
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK((uintptr_t)b % huge == 0);
    memset(b, 7, bytes);
    CHECK(page_mapped(b + 4 * huge - 4096));
    CHECK(b[bytes - 1] == 7);
    rb_region_buffer_free(b, bytes);
    CHECK(!page_mapped(b));
    CHECK(!page_mapped(b + 4 * huge - 4096));
}

/* One cache level from hwloc, on synthetic topologies with known sizes:
 * a core's share, and what the level is believed to hold (in a guest,
 * every cache at most RB_CACHE_PER_CORE_MAX a core below it; on bare
 * metal all of it), which the ceilings' default sweep ends 8x past. */
static void with_topology(const char *desc, hwloc_obj_type_t type, int guest,
                          host_cache *out, host_cache *last)
{
    hwloc_topology_t t;
    memset(out, 0, sizeof(*out));
    memset(last, 0, sizeof(*last));
    if (hwloc_topology_init(&t))
        return;
    if (hwloc_topology_set_synthetic(t, desc) == 0 &&
        hwloc_topology_load(t) == 0) {
        host_cache_of(t, type, guest, out);
        host_last_cache(t, guest, last);
    } else {
        fprintf(stderr, "synthetic topology refused: %s\n", desc);
        CHECK(0);
    }
    hwloc_topology_destroy(t);
}

/* The L3 bytes host_team_caches gives the first npus PUs of the
 * synthetic topology desc (-1 when it is refused or has no L3). */
static double team_l3(const char *desc, int guest, int npus)
{
    hwloc_topology_t t;
    double l3 = -1.0;
    if (hwloc_topology_init(&t))
        return l3;
    if (hwloc_topology_set_synthetic(t, desc) == 0 &&
        hwloc_topology_load(t) == 0) {
        hwloc_bitmap_t pus[4];
        for (int i = 0; i < npus && i < 4; i++)
            pus[i] = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i)->cpuset;
        double bytes[5];
        if (host_team_caches(t, guest, pus, npus, bytes) >= 3)
            l3 = bytes[2];
    }
    hwloc_topology_destroy(t);
    return l3;
}

static void test_cache_levels(void)
{
    const double mib = 1048576.0;
    host_cache c, last;
    /* a guest's claim: 504 MiB of L3 over 2 cores, 252 MiB a core */
    const char *claim = "pack:1 l3:1(size=528482304) l2:2(size=2097152) "
                        "l1d:1(size=49152) core:1 pu:1";
    with_topology(claim, HWLOC_OBJ_L3CACHE, 1, &c, &last);
    CHECK(c.bytes == 528482304u && c.count == 1);
    CHECK(c.per_core == 264241152u && !c.plausible);
    CHECK(fabs(c.believed_bytes - 128 * mib) < 1.0);
    CHECK(last.count == 1 && fabs(last.believed_bytes - 128 * mib) < 1.0);
    /* the same two cores of a real 504 MiB L3 (a run restricted to them on
     * bare metal): believed whole */
    with_topology(claim, HWLOC_OBJ_L3CACHE, 0, &c, &last);
    CHECK(c.per_core == 264241152u && c.plausible);
    CHECK(fabs(c.believed_bytes - 504 * mib) < 1.0);
    CHECK(fabs(last.believed_bytes - 504 * mib) < 1.0);
    with_topology(claim, HWLOC_OBJ_L2CACHE, 1, &c, &last);
    CHECK(c.count == 2 && c.per_core == 2097152u && c.plausible);
    CHECK(fabs(c.believed_bytes - 4 * mib) < 1.0);
    /* two 32 MiB L3s of 4 cores each: believed whole, 8 MiB a core */
    with_topology("pack:2 l3:1(size=33554432) l2:4(size=1048576) "
                  "l1d:1(size=49152) core:1 pu:2",
                  HWLOC_OBJ_L3CACHE, 1, &c, &last);
    CHECK(c.count == 2 && c.per_core == 8388608u && c.plausible);
    CHECK(fabs(c.believed_bytes - 64 * mib) < 1.0);
    CHECK(fabs(last.believed_bytes - 64 * mib) < 1.0);
    /* what a team holds: one shared L3 counts once; a guest's claim
     * counts RB_CACHE_PER_CORE_MAX a core, bare metal's whole */
    CHECK(team_l3(claim, 1, 2) == 128 * mib);
    CHECK(team_l3(claim, 0, 2) == 504 * mib);
    CHECK(team_l3(claim, 1, 1) == 128 * mib);
    const char *own = "pack:1 l3:2(size=532676608) l2:1(size=1048576) "
                      "l1d:1(size=49152) core:1 pu:1";
    CHECK(team_l3(own, 1, 2) == 128 * mib);
    CHECK(team_l3(own, 1, 1) == 64 * mib);
    CHECK(team_l3(own, 0, 2) == 1016 * mib);
    CHECK(team_l3("pack:2 l3:1(size=33554432) l2:4(size=1048576) "
                  "l1d:1(size=49152) core:1 pu:2",
                  1, 2) == 32 * mib);
    /* no L3: the last level is L2 */
    with_topology("pack:1 l2:2(size=1048576) l1d:1(size=32768) core:1 pu:1",
                  HWLOC_OBJ_L3CACHE, 1, &c, &last);
    CHECK(c.count == 0 && c.bytes == 0 && c.believed_bytes == 0.0);
    CHECK(last.count == 2 && last.bytes == 1048576u &&
          fabs(last.believed_bytes - 2 * mib) < 1.0);
}

/* A level named in the read curve or, where the curve merged it away,
 * in the read roof: the cache beside it is compared with the curve's
 * end where the curve has the level, with the roof's where only the roof
 * has it, and with nothing where neither does. */
static void plateau_named(plateau *p, const char *name, double last,
                          double next)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->last_bytes = last;
    p->next_bytes = next;
}

static void test_compare_caches(void)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t))
        return;
    if (hwloc_topology_set_synthetic(t, "pack:1 l3:1(size=33554432) "
                                        "l2:2(size=1048576) "
                                        "l1d:1(size=49152) core:1 pu:1") ||
        hwloc_topology_load(t)) {
        CHECK(0);
        hwloc_topology_destroy(t);
        return;
    }
    static ceilings_result res;
    memset(&res, 0, sizeof(res));
    ceil_curve *cv = &res.curves[res.ncurves++];
    cv->threads = 1;
    cv->kernel = BW_READ;
    plateau_named(&cv->levels[0], "L1", 46592, 58368);
    plateau_named(&cv->levels[1], "L2-L3", 59029504, 73786880);
    plateau_named(&cv->levels[2], "DRAM", 1073741824, 0);
    cv->nlevels = 3;
    ceil_team *tm = &res.teams[res.nteams++];
    tm->threads = 1;
    ceil_roof *roof = &tm->roofs[RB_ACCESS_READ];
    roof->present = 1;
    plateau_named(&roof->levels[0], "L1", 40960, 63488);
    plateau_named(&roof->levels[1], "L2", 348160, 435200);
    plateau_named(&roof->levels[2], "DRAM", 1073741824, 0);
    roof->nlevels = 3;
    ceilings_compare_caches(t, 1, &res);
    CHECK_INT(res.ncaches, 3);
    if (res.ncaches == 3) {
        /* L1 from the curve, L2 from the roof, L3 from neither */
        CHECK(res.caches[0].last == 46592 && res.caches[0].plausible);
        CHECK(strstr(res.caches[0].note, "roof") == NULL);
        CHECK(res.caches[1].last == 348160 && res.caches[1].plausible);
        CHECK_STR_HAS(res.caches[1].note, "(the read roof's) ending between "
                                          "340 and 425 KiB");
        CHECK(res.caches[2].last == 0.0);
        CHECK_STR_HAS(res.caches[2].note, "no plateau named L3");
    }
    hwloc_topology_destroy(t);
}

int main(void)
{
    test_cache_levels();
    test_compare_caches();
    test_plateaus();
    test_theory();
    test_openblas_best();
    test_selection();
    test_kernels_closed_form();
    test_fmastream();
    test_bw_grid();
    test_quick_roofline();
    test_bw_layout();
    test_operand_layout();
    test_region_park();
    test_region_buffer();
    return check_status("test_ceilings");
}
