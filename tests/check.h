/* Assertions that print both sides and keep going, so one run shows every
 * failure. A test's main returns check_status(): 0 pass, 1 fail. Exit code
 * 77 means skipped (CTest SKIP_RETURN_CODE). */
#ifndef ROOFBENCH_CHECK_H
#define ROOFBENCH_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                            \
    do {                                                                       \
        check_count++;                                                         \
        if (!(cond)) {                                                         \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
        }                                                                      \
    } while (0)

#define CHECK_U64(a, b)                                                        \
    do {                                                                       \
        const uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);               \
        check_count++;                                                         \
        if (va_ != vb_) {                                                      \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 \
                            "\n",                                              \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                     \
        }                                                                      \
    } while (0)

#define CHECK_INT(a, b)                                                        \
    do {                                                                       \
        const long long va_ = (long long)(a), vb_ = (long long)(b);            \
        check_count++;                                                         \
        if (va_ != vb_) {                                                      \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",          \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                     \
        }                                                                      \
    } while (0)

#define CHECK_STR_HAS(hay, needle)                                             \
    do {                                                                       \
        const char *h_ = (hay), *n_ = (needle);                                \
        check_count++;                                                         \
        if (!h_ || !strstr(h_, n_)) {                                          \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: expected \"%s\" in \"%s\"\n", __FILE__,    \
                    __LINE__, n_, h_ ? h_ : "(null)");                         \
        }                                                                      \
    } while (0)

static inline int check_status(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
