/* tests/integration/firehose/fh-limits.c: pinned-memory limits.
 *
 *   fh-limits fit    attach exactly gasnet_getMaxLocalSegmentSize() bytes
 *                    (it must be honest: the registration succeeds), then a
 *                    verified 1 MiB out-of-segment put/get with the partner
 *   fh-limits over   attach 1 MiB more than that: the library must stop the
 *                    job with one line naming what bounds the segment (run
 *                    with expect_exit !0 and +out=...)
 *   fh-limits memlock [MIB]   first drop CAP_IPC_LOCK and set RLIMIT_MEMLOCK
 *                    (soft and hard) to MIB MiB (default 8), as for a user
 *                    without privileges, then as "fit" plus 128 out-of-
 *                    segment puts/gets through 32 buffers (4 MiB): pins beyond the
 *                    limit fail and fall back to bounce buffers
 *
 * Run with a small GASNET_PHYSMEM_MAX (or a low 'ulimit -l' as non-root) to
 * make pinning, not /dev/shm, the binding limit.
 */
#include <gasnetex.h>

#include "../test.h"

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define XFER ((size_t)1 << 20)

/* Test hook of core/ibv/mem/fh_ops.c (not a public API). */
extern const char *gasnetc_fh_stats_line(char *buf, size_t len);

/* Drops CAP_IPC_LOCK (so RLIMIT_MEMLOCK applies, even to root) and sets the
 * limit.  Before gex_Client_Init: its registrations must obey it too. */
static void limit_memlock(unsigned mib)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capget, &h, d) == 0) {
        d[0].effective &= ~(1u << CAP_IPC_LOCK);
        d[0].permitted &= ~(1u << CAP_IPC_LOCK);
        d[0].inheritable &= ~(1u << CAP_IPC_LOCK);
        if (syscall(SYS_capset, &h, d) != 0) perror("capset");
    }
    struct rlimit rl = {(rlim_t)mib << 20, (rlim_t)mib << 20};
    if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0) perror("setrlimit(RLIMIT_MEMLOCK)");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fit";
    int memlock = strcmp(mode, "memlock") == 0;
    if (memlock) limit_memlock(argc > 2 ? (unsigned)atoi(argv[2]) : 8);
    test_init("fh-limits", &argc, &argv, 0, 0, 2);
    uintptr_t max = gasnet_getMaxLocalSegmentSize();
    TEST_MSG0("gasnet_getMaxLocalSegmentSize() = %lu bytes (%lu MiB)", (unsigned long)max,
              (unsigned long)(max >> 20));
    CHECK(max >= XFER);
    if (strcmp(mode, "over") == 0) {
        /* Must not return: a fatal error names the limit. */
        gex_Segment_Attach(&test_segment, test_tm, max + XFER);
        CHECK_MSG(0, "gex_Segment_Attach of %lu bytes (max %lu) succeeded",
                  (unsigned long)(max + XFER), (unsigned long)max);
    }
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, max));
    test_query_segments();
    gex_Rank_t peer = test_rank ^ 1u;
    if (peer >= test_size) peer = 0;
    uint8_t *src = malloc(XFER), *dst = malloc(XFER);
    CHECK(src && dst);
    test_fill(src, XFER, 1000 + test_rank);
    memset(dst, 0, XFER);
    void *remote = test_seg_at(peer, ((uintptr_t)test_rank % 2) * XFER);
    CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, remote, src, XFER, 0));
    CHECK_OK(gex_RMA_GetBlocking(test_tm, dst, peer, remote, XFER, 0));
    CHECK_PATTERN(dst, XFER, 1000 + test_rank, "1 MiB out-of-segment put/get");
    if (memlock) { /* churn through 32 distinct 128 KiB buffers (4 MiB) */
        enum { NB = 32, SZ = 128 << 10 };
        uint8_t *bufs = malloc((size_t)NB * SZ);
        CHECK(bufs != NULL);
        for (int i = 0; i < 4 * NB; i++) {
            uint8_t *b = bufs + (size_t)(i * 7 % NB) * SZ;
            test_fill(b, SZ, 5000 + (uint64_t)i);
            CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, remote, b, SZ, 0));
            memset(dst, 0, SZ);
            CHECK_OK(gex_RMA_GetBlocking(test_tm, dst, peer, remote, SZ, 0));
            CHECK_PATTERN(dst, SZ, 5000 + (uint64_t)i, "put/get under RLIMIT_MEMLOCK");
        }
        char line[512];
        gasnetc_fh_stats_line(line, sizeof line);
        TEST_MSG0("128 out-of-segment puts/gets under RLIMIT_MEMLOCK: data verified");
        TEST_MSG0("firehose (rank 0): %s", line);
    }
    test_pass();
}
