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

#include <stdint.h>
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

/* Deterministic pseudo-random numbers for simulations (splitmix64): the next
 * value of the sequence whose state is *state. */
static inline uint64_t unit_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif /* UNIT_CHECK_H */
