/* tests/integration/relia/wirefault.c: the victims of the wire-fault cases
 * of tests/softroce/faults.sh (issue 19 item 4).  Two ranks, PSHM off; they
 * print marker lines that the fault script waits for, so that a fault lands
 * in a known phase.  Plain public API: every mode also passes over PSHM.
 *
 * usage: wirefault idle SECONDS
 *   Barrier; rank 0 prints "wirefault: idle-start"; both ranks sleep SECONDS
 *   without calling GASNet (no verbs traffic at all, no poll), then 2000
 *   Medium Request/Reply round trips with every payload byte checked, then
 *   PASS.  The script flaps the port during the sleep: does RC absorb a flap
 *   when nothing is sent while the port is down?
 *
 * usage: wirefault putloop N
 *   Rank 0 puts 16 MiB into rank 1's segment N times back to back (the
 *   first 8 bytes carry the put's number; after the loop it gets the block
 *   back and checks every byte).  After the first put it prints "wirefault: putloop-running
 *   (one 16 MiB put took X s)": from then on rank 0 is always inside a
 *   16 MiB put, so a SIGKILL of rank 1 lands in the middle of one.  Rank 1
 *   waits in a barrier.  Prints PASS when all N complete.
 *
 * usage: wirefault rmaloop SECONDS
 *   Both ranks, for SECONDS: put 1 MiB (non-blocking, then synced) into
 *   their own MiB of the peer's segment with a pattern seeded by (rank,
 *   iteration), get it back into another MiB and check every byte.  Rank 0
 *   prints "wirefault: rmaloop-running" after its first round.  The script
 *   flaps the port meanwhile (link-flap recovery: puts and gets re-issued).
 */
#include <gasnetex.h>
#include <gasnet.h>
#include "../test.h"

#define BIG ((uintptr_t)16 << 20)
#define MED_LEN 1000
#define ROUNDS 2000

enum { H_REQ, H_REP, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
static volatile uint32_t replies;

static void req_handler(gex_Token_t tok, void *buf, size_t n, gex_AM_Arg_t seq)
{
    CHECK_EQ(n, (size_t)MED_LEN);
    CHECK_PATTERN(buf, n, (uint64_t)seq, "Medium Request payload");
    CHECK_OK(gex_AM_ReplyMedium1(tok, htable[H_REP].gex_index, buf, n, GEX_EVENT_NOW, 0, seq));
}

static void rep_handler(gex_Token_t tok, void *buf, size_t n, gex_AM_Arg_t seq)
{
    (void)tok;
    CHECK_EQ(n, (size_t)MED_LEN);
    CHECK_PATTERN(buf, n, (uint64_t)seq, "Medium Reply payload");
    CHECK_EQ((uint32_t)seq, replies);
    replies++;
}

static void mode_idle(int seconds)
{
    test_barrier();
    TEST_MSG0("idle-start");
    sleep((unsigned)seconds);
    TEST_MSG0("idle-end");
    static uint8_t buf[MED_LEN];
    gex_Rank_t peer = test_rank ^ 1;
    double t0 = test_now();
    for (uint32_t i = 0; i < ROUNDS; i++) {
        test_fill(buf, sizeof buf, i);
        CHECK_OK(gex_AM_RequestMedium1(test_tm, peer, htable[H_REQ].gex_index, buf, sizeof buf,
                                       GEX_EVENT_NOW, 0, (gex_AM_Arg_t)i));
        double end = test_now() + 60;
        while (replies <= i) {
            gasnet_AMPoll();
            CHECK_MSG(test_now() < end, "no Reply to Request %u within 60 s", (unsigned)i);
        }
    }
    TEST_MSG0("%u Medium round trips after the idle phase in %.2f s, data checked",
              (unsigned)ROUNDS, test_now() - t0);
}

static void mode_putloop(long n)
{
    test_barrier();
    if (test_rank == 0) {
        uint8_t *src = test_seg_at(0, 0), *back = test_seg_at(0, BIG);
        test_fill(src, BIG, 7);
        uint8_t head[sizeof(long)];
        memcpy(head, src, sizeof head);
        for (long i = 0; i < n; i++) {
            memcpy(src, &i, sizeof i); /* each put differs from the one before */
            double t0 = test_now();
            CHECK_OK(gex_RMA_PutBlocking(test_tm, 1, test_seg_at(1, 0), src, BIG, 0));
            if (i == 0) {
                TEST_MSG0("putloop-running (one 16 MiB put took %.2f s)", test_now() - t0);
            }
        }
        CHECK_OK(gex_RMA_GetBlocking(test_tm, back, 1, test_seg_at(1, 0), BIG, 0));
        long last;
        memcpy(&last, back, sizeof last);
        CHECK_EQ(last, n - 1);
        memcpy(back, head, sizeof head); /* the pattern's own first bytes, then all of it */
        CHECK_PATTERN(back, BIG, 7, "16 MiB put read back");
        TEST_MSG0("%ld puts of 16 MiB, the last one read back and checked", n);
    }
}

#define MIB ((uintptr_t)1 << 20)
static void mode_rmaloop(int seconds)
{
    test_barrier();
    gex_Rank_t peer = test_rank ^ 1;
    uint8_t *src = test_seg_at(test_rank, 4 * MIB), *back = test_seg_at(test_rank, 6 * MIB);
    void *dst = test_seg_at(peer, (uintptr_t)test_rank * MIB);
    double end = test_now() + seconds;
    uint64_t i = 0;
    for (; i == 0 || test_now() < end; i++) {
        uint64_t seed = (uint64_t)test_rank << 32 | i;
        test_fill(src, MIB, seed);
        gex_Event_t ev = gex_RMA_PutNB(test_tm, peer, dst, src, MIB, GEX_EVENT_DEFER, 0);
        gex_Event_Wait(ev);
        memset(back, 0, MIB);
        CHECK_OK(gex_RMA_GetBlocking(test_tm, back, peer, dst, MIB, 0));
        CHECK_PATTERN(back, MIB, seed, "1 MiB put read back");
        if (i == 0) TEST_MSG0("rmaloop-running");
    }
    test_barrier();
    TEST_MSG0("%llu rounds of a 1 MiB put and get per rank, every byte checked",
              (unsigned long long)i);
}

int main(int argc, char **argv)
{
    test_init("wirefault", &argc, &argv, 2 * BIG, 0, 2);
    htable[H_REQ] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_handler,
                                     GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "req"};
    htable[H_REP] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep_handler,
                                     GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    CHECK_MSG(test_size == 2, "wirefault runs on exactly 2 processes (got %u)",
              (unsigned)test_size);
    if (argc == 3 && !strcmp(argv[1], "idle")) mode_idle(atoi(argv[2]));
    else if (argc == 3 && !strcmp(argv[1], "putloop")) mode_putloop(atol(argv[2]));
    else if (argc == 3 && !strcmp(argv[1], "rmaloop")) mode_rmaloop(atoi(argv[2]));
    else CHECK_MSG(0, "usage: wirefault idle SECONDS | putloop N | rmaloop SECONDS");
    test_pass();
}
