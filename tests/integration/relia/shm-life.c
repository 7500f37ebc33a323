/* tests/integration/relia/shm-life.c: a short job that uses every kind of
 * PSHM shared memory, for tests/integration/relia/shm-kill.sh (killed at
 * points of its life) and shm-symlink.sh (run among planted symlinks).
 *
 * usage: shm-life [ROUNDS [PAUSE_MS]]   (defaults 1, 0)
 * Init (the AM queue file), a 16 MiB attached segment, a created segment
 * bound to a second endpoint and published (gex_Segment_Create, PAUSE_MS
 * of sleep, gex_EP_PublishBoundSegment: the pause is the time in which a
 * created segment exists that no neighbour has mapped yet, where a killed
 * job of the old shm_open scheme left its name behind), then ROUNDS rounds
 * of: a put of a pattern
 * into the next rank's attached segment, a barrier, a check of what the
 * previous rank put here.  Rank 0 prints PASS.
 */
#include <gasnetex.h>
#include <time.h>
#include "../test.h"

#define SEGSZ (16u << 20)
#define CSEGSZ (1u << 20)
#define CHUNK (1u << 20)

int main(int argc, char **argv)
{
    test_init("shm-life", &argc, &argv, SEGSZ, 0, 1);
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    long pause_ms = argc > 2 ? atol(argv[2]) : 0;
    gex_Rank_t right = (test_rank + 1) % test_size, left = (test_rank + test_size - 1) % test_size;

    gex_EP_t ep1;
    gex_Segment_t cseg;
    CHECK_OK(gex_EP_Create(&ep1, test_client, GEX_EP_CAPABILITY_RMA, 0));
    CHECK_OK(gex_Segment_Create(&cseg, test_client, NULL, CSEGSZ, GEX_MK_HOST, 0));
    CHECK_OK(gex_EP_BindSegment(ep1, cseg, 0));
    struct timespec ts = {pause_ms / 1000, (pause_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    CHECK_OK(gex_EP_PublishBoundSegment(test_tm, &ep1, 1, 0));

    static uint8_t src[CHUNK];
    for (int k = 0; k < rounds; k++) {
        uintptr_t off = (uintptr_t)(k % (SEGSZ / CHUNK)) * CHUNK;
        test_fill(src, CHUNK, ((uint64_t)test_rank << 16) | (uint64_t)k);
        CHECK_OK(gex_RMA_PutBlocking(test_tm, right, test_seg_at(right, off), src, CHUNK, 0));
        test_barrier();
        CHECK_PATTERN(test_seg_at(test_rank, off), CHUNK, ((uint64_t)left << 16) | (uint64_t)k,
                      "the previous rank's put");
        test_barrier();
    }
    TEST_MSG0("PASS (%d round%s on %u ranks)", rounds, rounds == 1 ? "" : "s",
              (unsigned)test_size);
    gasnet_exit(0);
    return 0;
}
