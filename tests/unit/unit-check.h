/* tests/unit/unit-check.h: the check macros shared by the unit tests.
 *
 *   CHECK(cond, fmt, ...)        counts a check; prints "ok   <what>" or
 *                                "FAIL file:line: <what>"
 *   CHECK_QUIET(cond, fmt, ...)  the same, but prints only failures (for
 *                                tests that make millions of checks)
 *   check(ok, what)              CHECK with a plain string
 *   unit_summary(name)           prints "<name>: N checks, N failed" and
 *                                returns the exit status (0 = all passed)
 */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>

static int failures, checks;

#define UNIT_CHECK_(verbose, cond, ...)                       \
    do {                                                      \
        int unit_ok_ = (cond) ? 1 : 0; /* evaluated once */   \
        checks++;                                             \
        if (!unit_ok_) {                                      \
            failures++;                                       \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);       \
        } else if (verbose) {                                 \
            printf("ok   ");                                  \
        }                                                     \
        if (!unit_ok_ || (verbose)) {                         \
            printf(__VA_ARGS__);                              \
            printf("\n");                                     \
        }                                                     \
    } while (0)
#define CHECK(cond, ...) UNIT_CHECK_(1, cond, __VA_ARGS__)
#define CHECK_QUIET(cond, ...) UNIT_CHECK_(0, cond, __VA_ARGS__)

static inline void check(int ok, const char *what) { CHECK(ok, "%s", what); }

static inline int unit_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, checks, failures);
    return failures ? 1 : 0;
}

#endif /* UNIT_CHECK_H */
