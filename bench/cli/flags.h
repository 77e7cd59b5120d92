/* One flag table per command, driving both the parsing and --help, so the
 * help cannot drift from the code: a flag's default is written once, as
 * text, and is parsed like a value the user gave (or described in words
 * when the machine decides it). Counts and reals are range-checked as
 * they are parsed; lists are checked by the shared list parsers.
 *
 * Rules for every command: `--name value` or `--name=value`; a flag given
 * twice is an error; an unknown flag, a missing value or an argument the
 * command does not take is one line and exit status 2. */
#ifndef ROOFBENCH_FLAGS_H
#define ROOFBENCH_FLAGS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "harness.h"
#include "kernel.h"
#include "machine.h"

typedef enum {
    FLAG_SWITCH, /* int: 1 when given                          */
    FLAG_TEXT,   /* const char *: the value as given           */
    FLAG_COUNT,  /* uint64_t: parse_count within [cmin, cmax]  */
    FLAG_REAL    /* double: parse_real within [rmin, rmax]     */
} flag_type;

typedef struct {
    const char *name; /* without the dashes                        */
    const char *meta; /* "N", "LIST"; NULL for a switch            */
    flag_type type;
    size_t off;            /* of the value in the options struct        */
    const char *def;       /* the default, parsed as if given, or NULL  */
    const char *def_quick; /* the default under --quick, or NULL        */
    const char *def_doc;   /* the default in words, when the machine
                              decides it                                */
    uint64_t cmin, cmax;   /* FLAG_COUNT                                */
    double rmin, rmax;     /* FLAG_REAL                                 */
    const char *unit;      /* FLAG_REAL: "seconds", or NULL             */
    int nonempty;          /* FLAG_TEXT: an empty value is refused      */
    const char *help;
} flag_spec;

typedef struct {
    const char *command; /* "run"                                     */
    const char *usage;   /* the usage lines                           */
    const char *intro;   /* what the command does                     */
    const flag_spec *flags;
    size_t nflags;
    const char *epilog; /* exit status and notes, or NULL            */
    int positionals;    /* takes arguments other than flags          */
} flag_table;

enum { FLAGS_MAX = 64 };

typedef struct {
    int argc; /* the command's arguments, argv[0] its name */
    char **argv;
    uint64_t given;             /* bit i: flag i was on the command line     */
    const char *raw[FLAGS_MAX]; /* flag i's value as given               */
    const char *pos[64];        /* positional arguments, in order            */
    int npos;
} flag_seen;

/* Parses argv[1..] into opts (the defaults first). Returns RB_OK, or
 * RB_EINPUT with e set; *help is 1 when --help was given (the help is
 * then printed and nothing else parsed). */
int flags_parse(const flag_table *t, int argc, char **argv, void *opts,
                flag_seen *seen, int *help, rb_err *e);

/* The help: usage, intro, every flag with its meaning and default, and
 * the epilog. */
void flags_help(const flag_table *t, FILE *f);

/* flags_parse for a command's entry: returns -1 to go on, 0 after the
 * help was printed, 2 after bad input (e set). */
int flags_start(const flag_table *t, int argc, char **argv, void *opts,
                flag_seen *seen, rb_err *e);

/* The flags that mean the same in every command, declared once (T is the
 * command's options struct, f its field). */
#define FLAG_DTYPE(T, f, dflt)                                                 \
    {                                                                          \
        .name = "dtype", .meta = "LIST", .type = FLAG_TEXT,                    \
        .off = offsetof(T, f), .def = dflt, .help = "f32, f64 or both"         \
    }
#define FLAG_THREADS(T, f, text)                                               \
    {                                                                          \
        .name = "threads", .meta = "LIST", .type = FLAG_TEXT,                  \
        .off = offsetof(T, f),                                                 \
        .def_doc = "1 and all the cores this process may use", .help = text    \
    }
#define FLAG_MIN_TIME(T, f, dflt, quick, lo, text)                             \
    {                                                                          \
        .name = "min-time", .meta = "S", .type = FLAG_REAL,                    \
        .off = offsetof(T, f), .def = dflt, .def_quick = quick, .rmin = lo,    \
        .rmax = 60.0, .unit = "seconds", .help = text                          \
    }
#define FLAG_SAMPLES(T, f, dflt, quick, most, text)                            \
    {                                                                          \
        .name = "samples", .meta = "N", .type = FLAG_COUNT,                    \
        .off = offsetof(T, f), .def = dflt, .def_quick = quick, .cmin = 3,     \
        .cmax = most, .help = text                                             \
    }
#define FLAG_SEED(T, f)                                                        \
    {                                                                          \
        .name = "seed", .meta = "N", .type = FLAG_COUNT,                       \
        .off = offsetof(T, f), .def = "1", .cmax = INT64_MAX,                  \
        .help = "seed of the random inputs, at most 2^63 - 1 (JSON's "         \
                "integers)"                                                    \
    }
#define FLAG_QUICK(T, f, text)                                                 \
    {                                                                          \
        .name = "quick", .type = FLAG_SWITCH, .off = offsetof(T, f),           \
        .help = text                                                           \
    }
#define FLAG_CEILINGS(T, f, text)                                              \
    {                                                                          \
        .name = "ceilings", .meta = "FILE", .type = FLAG_TEXT,                 \
        .off = offsetof(T, f), .nonempty = 1, .help = text                     \
    }
#define FLAG_OUT(T, f)                                                         \
    {                                                                          \
        .name = "out", .meta = "DIR", .type = FLAG_TEXT,                       \
        .off = offsetof(T, f), .def_doc = "results/runs/<host>-<UTC stamp>",   \
        .help = "results folder: a new or empty one"                           \
    }
#define FLAG_JSON(T, f, text)                                                  \
    {                                                                          \
        .name = "json", .type = FLAG_SWITCH, .off = offsetof(T, f),            \
        .help = text                                                           \
    }
#define FLAG_EVENTS(T, f, dflt, text)                                          \
    {                                                                          \
        .name = "events", .meta = "LIST", .type = FLAG_TEXT,                   \
        .off = offsetof(T, f), .def_doc = dflt,                                \
        .help = "PAPI preset or native events, or 'default' (cycles, "         \
                "instructions, L1D, L2 and L3 misses, FLOPs for this "         \
                "vendor), " text                                               \
    }
#define FLAG_PROFILES(T, f)                                                    \
    {                                                                          \
        .name = "profiles", .meta = "DIR", .type = FLAG_TEXT,                  \
        .off = offsetof(T, f),                                                 \
        .def_doc = "$ROOFBENCH_PROFILES or the source tree's profiles/",       \
        .nonempty = 1, .help = "where profiles are read"                       \
    }

/* Whether the flag called name was given. */
int flags_given(const flag_table *t, const flag_seen *seen, const char *name);

/* The flag's value as written: given, else its default text (NULL when it
 * has none), for error lines that quote what the user wrote ("--n 1M"). */
const char *flags_text(const flag_table *t, const flag_seen *seen,
                       const char *name);

/* --kernel LIST: kernel names, operation names (all of an operation's
 * kernels) and "all", restricted to the operations in ops (a bit per
 * rb_op); what else is named, wrong_op says why it is refused. Kernels
 * in registry order with sorted, else in the order given. */
int flags_kernels(const char *flag, const char *list, unsigned ops,
                  const char *wrong_op, int sorted, const rb_kernel **out,
                  size_t *n, size_t max, rb_err *e);

/* --threads LIST (NULL: 1 and all the cores this process may use). */
int flags_threads(const rb_machine *m, const char *list, int *out, int max,
                  int *n, rb_err *e);

/* --events LIST, or "default" for this vendor's set (the FLOP event of
 * f64 first when f64_first), checked under the list rule and resolved
 * into ev: an unknown name is an error, an event this machine cannot
 * count is kept as unavailable with PAPI's reason. */
int flags_events(const rb_machine *m, const char *list, int f64_first,
                 counters_events *ev, rb_err *e);

/* --min-time S: a sample must last at least 1000 steps of this clock. */
int flags_min_time(double seconds, rb_err *e);

/* The command line as the context's settings record it: ["roofbench",
 * the command, its arguments]. */
json_t *flags_command_json(const char *command, int argc, char **argv);

#endif
