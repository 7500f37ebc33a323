/* tests/integration/test.h: helpers shared by the integration tests.
 *
 * Integration tests use only the public API (gasnetex.h / gasnet.h), run as
 * multi-process jobs under gasnetrun_ibv and are listed in
 * tests/integration/manifest.  Conventions:
 *   - every failed check prints one line
 *       "rank R: FAIL file:line: <expression> (<values>)"
 *     to stderr and ends the job with gasnet_exit(1) (legal in handlers);
 *   - rank 0 prints "PASS <test>" at the end; the exit code is what counts;
 *   - a test that cannot run prints "SKIP: reason" and exits 77.
 * Everything here is static so that each test is a single translation unit.
 */
#ifndef IBVTEST_TEST_H
#define IBVTEST_TEST_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEST_UNUSED __attribute__((__unused__))

/* Job objects, filled by test_init() (or by the legacy test itself). */
static gex_Client_t test_client TEST_UNUSED;
static gex_EP_t test_ep TEST_UNUSED;
static gex_TM_t test_tm TEST_UNUSED;
static gex_Segment_t test_segment TEST_UNUSED;
static gex_Rank_t test_rank TEST_UNUSED;
static gex_Rank_t test_size TEST_UNUSED;
static const char *test_name TEST_UNUSED = "test";
/* Segment of every rank as its owner sees it (the address to use in RMA and
 * as Long destinations), and its length. */
static void **test_seg TEST_UNUSED;
static uintptr_t *test_seglen TEST_UNUSED;

/* ---- failure reporting -------------------------------------------------- */

__attribute__((__noreturn__, __format__(__printf__, 3, 4))) static void
test_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rank %u: FAIL %s:%d: %s\n", (unsigned)test_rank, file, line, msg);
    fflush(stderr);
    fflush(stdout);
    gasnet_exit(1);
}

/* CHECK(cond): cond must be true. */
#define CHECK(cond)                                              \
    do {                                                         \
        if (!(cond)) test_fail(__FILE__, __LINE__, "%s", #cond); \
    } while (0)

/* CHECK_MSG(cond, fmt, ...): like CHECK, with the values that matter. */
#define CHECK_MSG(cond, ...)                                     \
    do {                                                         \
        if (!(cond)) test_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

/* CHECK_EQ(a, b): integers (any width, compared as 64-bit). */
#define CHECK_EQ(a, b)                                                               \
    do {                                                                             \
        uint64_t test_a_ = (uint64_t)(a), test_b_ = (uint64_t)(b);                   \
        if (test_a_ != test_b_)                                                      \
            test_fail(__FILE__, __LINE__, "%s == %s (%" PRId64 " != %" PRId64        \
                      ", 0x%" PRIx64 " != 0x%" PRIx64 ")", #a, #b, (int64_t)test_a_, \
                      (int64_t)test_b_, test_a_, test_b_);                           \
    } while (0)

/* CHECK_PTR_EQ(a, b): pointers. */
#define CHECK_PTR_EQ(a, b)                                                       \
    do {                                                                         \
        const void *test_pa_ = (const void *)(a), *test_pb_ = (const void *)(b); \
        if (test_pa_ != test_pb_)                                                \
            test_fail(__FILE__, __LINE__, "%s == %s (%p != %p)", #a, #b,         \
                      test_pa_, test_pb_);                                       \
    } while (0)

/* CHECK_OK(call): a GASNet call returning an error code must give GASNET_OK. */
#define CHECK_OK(call)                                                            \
    do {                                                                          \
        int test_rc_ = (call);                                                    \
        if (test_rc_ != GASNET_OK)                                                \
            test_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, test_rc_, \
                      gasnet_ErrorName(test_rc_));                                \
    } while (0)

/* Prints on rank 0 only. */
#define TEST_MSG0(...)                 \
    do {                               \
        if (test_rank == 0) {          \
            printf("%s: ", test_name); \
            printf(__VA_ARGS__);       \
            printf("\n");              \
            fflush(stdout);            \
        }                              \
    } while (0)

/* ---- data patterns ------------------------------------------------------- */

/* Byte i of the pattern named by seed.  Neighbouring bytes differ and
 * different seeds give different streams, so shifted or stale data shows. */
static inline uint8_t test_pattern_byte(uint64_t seed, size_t i)
{
    uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (uint8_t)(x ^ (x >> 17) ^ (uint64_t)(i >> 8));
}

static inline void test_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = (uint8_t *)buf;
    for (size_t i = 0; i < n; i++) p[i] = test_pattern_byte(seed, i);
}

/* Returns the index of the first byte differing from the pattern, or
 * (size_t)-1 when all n bytes match. */
static inline size_t test_mismatch(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *p = (const uint8_t *)buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != test_pattern_byte(seed, i)) return i;
    return (size_t)-1;
}

/* CHECK_PATTERN(buf, n, seed, what): buf must hold the pattern; reports the
 * first bad byte with what (a string naming the transfer). */
#define CHECK_PATTERN(buf, n, seed, what)                                            \
    do {                                                                             \
        size_t test_bad_ = test_mismatch((buf), (n), (seed));                        \
        if (test_bad_ != (size_t)-1)                                                 \
            test_fail(__FILE__, __LINE__, "%s: byte %zu of %zu is 0x%02x, expected " \
                      "0x%02x (seed %" PRIu64 ")", (what), test_bad_, (size_t)(n),   \
                      ((const uint8_t *)(buf))[test_bad_],                           \
                      test_pattern_byte((seed), test_bad_), (uint64_t)(seed));       \
    } while (0)

/* ---- time ---------------------------------------------------------------- */

static inline double test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- job setup ----------------------------------------------------------- */

static inline void test_barrier(void)
{
    CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0));
}

/* Learns every rank's segment (owner address and length). */
static inline void test_query_segments(void)
{
    test_seg = (void **)calloc(test_size, sizeof(void *));
    test_seglen = (uintptr_t *)calloc(test_size, sizeof(uintptr_t));
    CHECK(test_seg != NULL && test_seglen != NULL);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *owner = NULL;
        uintptr_t len = 0;
        /* No local address: a neighbour's segment is then mapped at the
         * test's first RMA to it (par: by several threads at once). */
        CHECK_OK(gex_Segment_QueryBound(test_tm, r, &owner, NULL, &len));
        CHECK_MSG(owner != NULL && len > 0, "segment of rank %u: addr %p len %lu",
                  (unsigned)r, owner, (unsigned long)len);
        test_seg[r] = owner;
        test_seglen[r] = len;
    }
    CHECK_PTR_EQ(test_seg[test_rank], gex_Segment_QueryAddr(test_segment));
}

/* Joins the job (gex_Client_Init with the given flags) and attaches a
 * segment of at least segsize bytes (0: no segment query).  Sets the test_*
 * globals.  Exits 77 with a SKIP line if the job is smaller than min_ranks. */
static inline void test_init(const char *name, int *argc, char ***argv, uintptr_t segsize,
                             gex_Flags_t flags, gex_Rank_t min_ranks)
{
    test_name = name;
    CHECK_OK(gex_Client_Init(&test_client, &test_ep, &test_tm, name, argc, argv, flags));
    test_rank = gex_TM_QueryRank(test_tm);
    test_size = gex_TM_QuerySize(test_tm);
    CHECK_EQ(test_rank, gex_System_QueryJobRank());
    CHECK_EQ(test_size, gex_System_QueryJobSize());
    CHECK(test_rank < test_size);
    if (test_size < min_ranks) {
        if (test_rank == 0) printf("SKIP: %s needs at least %u processes (got %u)\n", name,
                                   (unsigned)min_ranks, (unsigned)test_size);
        fflush(stdout);
        gasnet_exit(77);
    }
    if (segsize) {
        uintptr_t maxseg = gasnet_getMaxLocalSegmentSize();
        segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
        CHECK_MSG(segsize <= maxseg, "need a %lu-byte segment, max local is %lu",
                  (unsigned long)segsize, (unsigned long)maxseg);
        CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, segsize));
        CHECK(test_segment != GEX_SEGMENT_INVALID);
        CHECK(gex_Segment_QuerySize(test_segment) >= segsize);
        test_query_segments();
    }
}

/* Address `off` bytes into rank r's segment (owner's view). */
static inline void *test_seg_at(gex_Rank_t r, uintptr_t off)
{
    return (void *)((char *)test_seg[r] + off);
}

/* Final barrier, PASS line from rank 0, clean exit.  The second barrier
 * keeps every rank from exiting before the line is written (a job-wide exit
 * may end rank 0 at any point after another rank's gasnet_exit). */
__attribute__((__noreturn__)) static inline void test_pass(void)
{
    test_barrier();
    if (test_rank == 0) {
        printf("PASS %s (%u processes)\n", test_name, (unsigned)test_size);
        fflush(stdout);
    }
    test_barrier();
    gasnet_exit(0);
}

#endif /* IBVTEST_TEST_H */
