/* tests/integration/firehose/fh-limits.c: pinned-memory limits.
 *
 *   fh-limits fit    attach exactly gasnet_getMaxLocalSegmentSize() bytes
 *                    (it must be honest: the registration succeeds), then a
 *                    verified 1 MiB out-of-segment put/get with the partner
 *   fh-limits over   attach 1 MiB more than that: the library must stop the
 *                    job with one line naming what bounds the segment (run
 *                    with expect_exit !0 and +out=...)
 *
 * Run with a small GASNET_PHYSMEM_MAX (or a low 'ulimit -l' as non-root) to
 * make pinning, not /dev/shm, the binding limit.
 */
#include <gasnetex.h>

#include "../test.h"

#define XFER ((size_t)1 << 20)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fit";
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
    test_pass();
}
