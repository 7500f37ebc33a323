/* tests/integration/verbs/rdmabar.c: the primordial team's barrier under
 * load that exercises the RDMA mailbox (extended/barrier_rdma.c) and its
 * mix with the AM path (tests/softroce/verbs.d/rdmabar.manifest).
 *
 *  1. Many back-to-back gex_Coll_BarrierBlocking (epochs wrap the 64-slot
 *     mailbox window many times).
 *  2. Pipelined: 30 gex_Coll_BarrierNB outstanding at once (just under the
 *     32-barrier limit), waited in reverse order, repeated; one rank is
 *     sometimes late to start them.
 *  3. GASNet-1 named barriers: matching ids, anonymous, and mismatches (a
 *     different id on one rank, GASNET_BARRIERFLAG_MISMATCH on one rank)
 *     that every rank must see as GASNET_ERR_BARRIER_MISMATCH, with the
 *     barriers after a mismatch working again.
 *  4. Mixed with AM traffic: before each barrier every rank sends AM
 *     Requests to every peer and waits for their Replies; after the barrier
 *     every rank must have handled all Requests sent to it so far.  AMs are
 *     also sent between notify and wait.
 * Usage: rdmabar [ITERS] (default 2000 for part 1).
 */
#include <gasnet.h>
#include "../test.h"

#include <unistd.h>

#define H_REQ (GEX_AM_INDEX_BASE + 0)
#define H_REP (GEX_AM_INDEX_BASE + 1)

static volatile uint64_t reqs_in, reps_in;

static void req_h(gex_Token_t t, gex_AM_Arg_t a0)
{
    __atomic_add_fetch(&reqs_in, 1, __ATOMIC_RELAXED);
    gex_AM_ReplyShort1(t, H_REP, 0, a0);
}

static void rep_h(gex_Token_t t, gex_AM_Arg_t a0)
{
    (void)t;
    (void)a0;
    __atomic_add_fetch(&reps_in, 1, __ATOMIC_RELAXED);
}

static void named(int id, int flags, int want)
{
    gasnet_barrier_notify(id, flags);
    int rc = gasnet_barrier_wait(id, flags);
    CHECK_MSG(rc == want, "gasnet_barrier_wait(%d, 0x%x) returned %d (%s), expected %s", id,
              flags, rc, gasnet_ErrorName(rc), gasnet_ErrorName(want));
}

static void send_round(unsigned per_peer, uint64_t *sent)
{
    for (gex_Rank_t r = 0; r < test_size; r++) {
        if (r == test_rank) continue;
        for (unsigned k = 0; k < per_peer; k++) {
            gex_AM_RequestShort1(test_tm, r, H_REQ, 0, (gex_AM_Arg_t)k);
            (*sent)++;
        }
    }
}

int main(int argc, char **argv)
{
    test_init("rdmabar", &argc, &argv, (uintptr_t)GASNET_PAGESIZE, GEX_FLAG_USES_GASNET1, 2);
    gex_AM_Entry_t ht[] = {
        {H_REQ, (gex_AM_Fn_t)req_h, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req"},
        {H_REP, (gex_AM_Fn_t)rep_h, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep"},
    };
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, ht, 2));
    unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
    test_barrier();

    /* 1. back to back */
    double t0 = test_now();
    for (unsigned i = 0; i < iters; i++) CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0));
    double us = (test_now() - t0) * 1e6 / (iters ? iters : 1);
    TEST_MSG0("%u back-to-back barriers: %.1f us each", iters, us);

    /* 2. pipelined non-blocking barriers */
    for (unsigned rep = 0; rep < 20; rep++) {
        gex_Event_t ev[30];
        if (test_rank == rep % test_size && rep % 3 == 0) usleep(2000);
        for (int i = 0; i < 30; i++) ev[i] = gex_Coll_BarrierNB(test_tm, 0);
        for (int i = 29; i >= 0; i--) gex_Event_Wait(ev[i]);
    }
    TEST_MSG0("20 x 30 outstanding non-blocking barriers ok");

    /* 3. named, anonymous, mismatched */
    for (int i = 0; i < 50; i++) {
        named(1000 + i, 0, GASNET_OK);
        named(0, GASNET_BARRIERFLAG_ANONYMOUS, GASNET_OK);
        int id = 2000 + i;
        if (test_rank == (gex_Rank_t)(i % test_size)) id++;
        named(id, 0, GASNET_ERR_BARRIER_MISMATCH);
        named(7, test_rank == test_size - 1 ? GASNET_BARRIERFLAG_MISMATCH : 0,
              GASNET_ERR_BARRIER_MISMATCH);
        /* anonymous on some ranks, named on the others: no mismatch */
        named(3000 + i, (test_rank % 2) ? GASNET_BARRIERFLAG_ANONYMOUS : 0, GASNET_OK);
        int rid = -1;
        int rf = gasnet_barrier_result(&rid);
        CHECK_MSG(rf == 0 && rid == 3000 + i, "gasnet_barrier_result: flags %d id %d", rf, rid);
    }
    TEST_MSG0("named / anonymous / mismatch barriers ok");

    /* 4. mixed with AM traffic */
    uint64_t sent = 0;
    for (unsigned i = 0; i < 300; i++) {
        send_round(1 + i % 4, &sent);
        gasnet_barrier_notify(i, 0);
        if (i % 2) send_round(1, &sent); /* between notify and wait */
        double dl = test_now() + 60;
        while (__atomic_load_n(&reps_in, __ATOMIC_RELAXED) < sent) {
            gasnet_AMPoll();
            CHECK_MSG(test_now() < dl, "replies: %llu of %llu after 60 s",
                      (unsigned long long)reps_in, (unsigned long long)sent);
        }
        CHECK_OK(gasnet_barrier_wait(i, 0));
        /* Every peer sent the same schedule and saw its Replies before it
         * waited, the ones sent between notify and wait included, so after
         * one more barrier all of them are in (a peer that leaves that
         * barrier first may already send the next iteration's: >=). */
        CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0));
        CHECK_MSG(__atomic_load_n(&reqs_in, __ATOMIC_RELAXED) >= sent,
                  "iteration %u: %llu Requests handled, %llu sent to this rank", i,
                  (unsigned long long)reqs_in, (unsigned long long)sent);
    }
    /* nobody sends any more: exactly what was sent */
    CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0));
    CHECK_MSG(__atomic_load_n(&reqs_in, __ATOMIC_RELAXED) == sent,
              "%llu Requests handled, %llu sent to this rank", (unsigned long long)reqs_in,
              (unsigned long long)sent);
    TEST_MSG0("300 barriers mixed with %llu AM Requests ok", (unsigned long long)sent);
    test_pass();
}
