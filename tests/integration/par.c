/* tests/integration/par.c: many threads per process (PAR library).
 *
 * NTHREADS threads per process run at the same time:
 *   - Active Messages: each thread sends Short and Medium Requests to every
 *     rank (round robin) and waits for its own Replies; handlers count what
 *     arrives per sender and check Medium payloads;
 *   - RMA: each thread puts a distinct pattern into its own slot on every
 *     rank (NB with events, then NBI with gex_NBI_Wait, then inside an access
 *     region), gets it back (NB and NBI) and checks it.
 * After the threads are joined, a barrier; then every rank checks the counts
 * of Requests received from each sender and the contents of every slot.
 */
#include <gasnetex.h>
#include <pthread.h>
#include "test.h"

#define NTHREADS 4
#define NMSG 400
#define SLOT ((uintptr_t)32 << 10) /* per (sender, thread) in every segment */
#define MED_BYTES 512

static unsigned long *received;          /* Requests received from each rank */
static unsigned long replies[NTHREADS];  /* Replies received by each thread */
static gex_AM_Entry_t htable[3];
enum { H_REQ_SHORT, H_REQ_MED, H_REP };

static uint64_t seed_of(gex_Rank_t src, unsigned tid, unsigned i)
{
    return ((uint64_t)src << 32) | ((uint64_t)tid << 24) | i;
}

static gex_Rank_t src_of(gex_Token_t t)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    CHECK(info.gex_srcrank < test_size);
    return info.gex_srcrank;
}

static void req_short(gex_Token_t t, gex_AM_Arg_t tid, gex_AM_Arg_t i)
{
    CHECK(tid >= 0 && tid < NTHREADS && i >= 0 && i < NMSG);
    __atomic_fetch_add(&received[src_of(t)], 1, __ATOMIC_RELAXED);
    CHECK_OK(gex_AM_ReplyShort(t, htable[H_REP].gex_index, 0, tid));
}

static void req_med(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t tid, gex_AM_Arg_t i)
{
    gex_Rank_t src = src_of(t);
    CHECK_EQ(nb, MED_BYTES);
    CHECK_PATTERN(buf, nb, seed_of(src, (unsigned)tid, (unsigned)i), "Medium payload");
    __atomic_fetch_add(&received[src], 1, __ATOMIC_RELAXED);
    CHECK_OK(gex_AM_ReplyShort(t, htable[H_REP].gex_index, 0, tid));
}

static void rep(gex_Token_t t, gex_AM_Arg_t tid)
{
    CHECK(tid >= 0 && tid < NTHREADS);
    __atomic_fetch_add(&replies[tid], 1, __ATOMIC_RELEASE);
}

/* Where (src, tid)'s slot is in dst's segment. */
static uint8_t *slot_at(gex_Rank_t dst, gex_Rank_t src, unsigned tid)
{
    return (uint8_t *)test_seg_at(dst, ((uintptr_t)src * NTHREADS + tid) * SLOT);
}

/* Destination of message i of thread tid on rank src. */
static gex_Rank_t dst_of(gex_Rank_t src, unsigned tid, unsigned i)
{
    return (gex_Rank_t)((src + tid + i) % test_size);
}

static void thread_ams(unsigned tid)
{
    uint8_t payload[MED_BYTES];
    for (unsigned i = 0; i < NMSG; i++) {
        gex_Rank_t dst = dst_of(test_rank, tid, i);
        if (i % 4 == 3) {
            test_fill(payload, sizeof payload, seed_of(test_rank, tid, i));
            CHECK_OK(gex_AM_RequestMedium(test_tm, dst, htable[H_REQ_MED].gex_index, payload,
                                          sizeof payload, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)tid,
                                          (gex_AM_Arg_t)i));
        } else {
            CHECK_OK(gex_AM_RequestShort(test_tm, dst, htable[H_REQ_SHORT].gex_index, 0,
                                         (gex_AM_Arg_t)tid, (gex_AM_Arg_t)i));
        }
        if (i % 50 == 49) /* bounded number in flight per thread */
            GASNET_BLOCKUNTIL(__atomic_load_n(&replies[tid], __ATOMIC_ACQUIRE) >= i + 1 - 25);
    }
    GASNET_BLOCKUNTIL(__atomic_load_n(&replies[tid], __ATOMIC_ACQUIRE) == NMSG);
}

static void thread_rma(unsigned tid, uint8_t *buf)
{
    size_t nb = SLOT - 3 - tid;
    gex_Event_t *ev = (gex_Event_t *)calloc(test_size, sizeof(gex_Event_t));
    CHECK(ev != NULL);
    for (int form = 0; form < 3; form++) {
        uint64_t seed = seed_of(test_rank, tid, 1000u + (unsigned)form);
        test_fill(buf, nb, seed);
        if (form == 2) gex_NBI_BeginAccessRegion(0);
        for (gex_Rank_t d = 0; d < test_size; d++) {
            uint8_t *dst = slot_at(d, test_rank, tid);
            if (form == 0)
                ev[d] = gex_RMA_PutNB(test_tm, d, dst, buf, nb, GEX_EVENT_DEFER, 0);
            else
                CHECK_OK(gex_RMA_PutNBI(test_tm, d, dst, buf, nb, GEX_EVENT_DEFER, 0));
        }
        if (form == 0)
            gex_Event_WaitAll(ev, test_size, 0);
        else if (form == 1)
            gex_NBI_Wait(GEX_EC_PUT, 0);
        else
            gex_Event_Wait(gex_NBI_EndAccessRegion(0));
        /* Read every copy back. */
        for (gex_Rank_t d = 0; d < test_size; d++) {
            uint8_t *back = buf + SLOT * (1 + d);
            memset(back, 0, nb);
            if (form == 1)
                CHECK_OK(gex_RMA_GetNBI(test_tm, back, d, slot_at(d, test_rank, tid), nb, 0));
            else
                ev[d] = gex_RMA_GetNB(test_tm, back, d, slot_at(d, test_rank, tid), nb, 0);
        }
        if (form == 1)
            gex_NBI_Wait(GEX_EC_GET, 0);
        else
            gex_Event_WaitAll(ev, test_size, 0);
        for (gex_Rank_t d = 0; d < test_size; d++)
            CHECK_PATTERN(buf + SLOT * (1 + d), nb, seed, "threaded put then get");
    }
    free(ev);
}

static void *thread_main(void *arg)
{
    unsigned tid = (unsigned)(uintptr_t)arg;
    uint8_t *buf = (uint8_t *)malloc(SLOT * (1 + test_size));
    CHECK(buf != NULL);
    /* Interleave: half the threads start with RMA, half with AMs. */
    if (tid & 1) {
        thread_rma(tid, buf);
        thread_ams(tid);
    } else {
        thread_ams(tid);
        thread_rma(tid, buf);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    test_init("par", &argc, &argv, 0, 0, 1);
    if (gex_System_QueryMaxThreads() < NTHREADS + 1) {
        if (test_rank == 0)
            printf("SKIP: gex_System_QueryMaxThreads() = %lu < %d\n",
                   (unsigned long)gex_System_QueryMaxThreads(), NTHREADS + 1);
        fflush(stdout);
        gasnet_exit(77);
    }
    uintptr_t segsize = SLOT * NTHREADS * test_size;
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, segsize));
    test_query_segments();
    received = (unsigned long *)calloc(test_size, sizeof(unsigned long));
    CHECK(received != NULL);
    htable[H_REQ_SHORT] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_short,
                                           GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "req"};
    htable[H_REQ_MED] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_med,
                                         GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL, "med"};
    htable[H_REP] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT,
                                     1, NULL, "rep"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, 3));
    test_barrier();

    double t0 = test_now();
    pthread_t th[NTHREADS];
    for (unsigned t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(uintptr_t)t) == 0);
    for (unsigned t = 0; t < NTHREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
    test_barrier();

    /* Every Request sent to me was handled exactly once. */
    for (gex_Rank_t src = 0; src < test_size; src++) {
        unsigned long want = 0;
        for (unsigned tid = 0; tid < NTHREADS; tid++)
            for (unsigned i = 0; i < NMSG; i++) want += dst_of(src, tid, i) == test_rank;
        CHECK_MSG(__atomic_load_n(&received[src], __ATOMIC_ACQUIRE) == want,
                  "received %lu Requests from rank %u, expected %lu", received[src],
                  (unsigned)src, want);
    }
    /* Every slot holds its writer's last pattern. */
    for (gex_Rank_t src = 0; src < test_size; src++)
        for (unsigned tid = 0; tid < NTHREADS; tid++)
            CHECK_PATTERN(slot_at(test_rank, src, tid), SLOT - 3 - tid, seed_of(src, tid, 1002),
                          "slot after the threaded puts");
    TEST_MSG0("%d threads x (%d AMs + 3 x put/get to every rank) per process: %.2f s", NTHREADS,
              NMSG, test_now() - t0);
    test_pass();
    return 0;
}
