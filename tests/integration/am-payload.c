/* tests/integration/am-payload.c: Active Message payloads.
 *
 * Every rank sends to every rank (itself included):
 *   A. Medium Requests of sizes 0, 1, 7, 8, ... up to gex_AM_MaxRequestMedium
 *      (also at the 16-argument maximum); each handler checks the payload
 *      byte for byte and answers with a Medium Reply of up to
 *      gex_Token_MaxReplyMedium bytes, checked the same way.
 *   B. Long Requests of sizes 0 .. 3 MiB into the peer's segment at odd
 *      offsets, from in-segment and malloc()ed sources, answered by Long
 *      Replies into the sender's segment.
 *   C. Local completion: lc_opt GEX_EVENT_NOW (the source is overwritten
 *      right after the call), &event (gex_Event_Test/Wait/WaitAll before
 *      reuse), GEX_EVENT_GROUP (gex_NBI_Test/Wait(GEX_EC_AM)), and Replies
 *      with &event waited for outside the handler.
 *   D. A flood of Medium and Long Requests without waiting for Replies.
 * Payload seeds travel as handler arguments, so each message carries
 * distinct bytes.
 */
#include <gasnetex.h>
#include "test.h"

#define LONG_REGION ((uintptr_t)4 << 20)   /* per sender, Requests land here */
#define REPLY_REGION ((uintptr_t)256 << 10) /* per replier, Long Replies land here */
#define MAX_LONG ((size_t)3 << 20)
#define FLOOD_MEDIUM 600
#define FLOOD_LONG 240
#define FLOOD_SLOT ((uintptr_t)16 << 10)

enum { MODE_ACK, MODE_ECHO, MODE_ECHO_EVENT };
enum { H_MED_REQ, H_MED_REQ16, H_LONG_REQ, H_MED_REP, H_LONG_REP, H_ACK, NHANDLERS };

static uintptr_t reply_base, src_base; /* segment layout (same on every rank) */
static volatile unsigned replies;      /* Replies of any kind received */
static gex_Event_t *reply_events;      /* Replies sent with lc_opt = &event */
static uint8_t *reply_event_bufs;
static volatile unsigned reply_events_used;
#define REPLY_EVENT_BYTES 1024

static gex_AM_Entry_t htable[NHANDLERS];
#define HIDX(h) (htable[h].gex_index)

static uint64_t seed_of(gex_AM_Arg_t a) { return (uint64_t)(uint32_t)a; }

static gex_Rank_t src_of(gex_Token_t t)
{
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK(got & GEX_TI_SRCRANK);
    CHECK(info.gex_srcrank < test_size);
    return info.gex_srcrank;
}

/* ---- handlers ------------------------------------------------------------------ */

static void reply_medium(gex_Token_t t, gex_Rank_t src, size_t nb, gex_AM_Arg_t seed, int mode)
{
    static __thread uint8_t *buf; /* per thread: PAR builds run handlers on several */
    if (!buf) buf = malloc(1 << 17);
    CHECK(buf != NULL);
    size_t max = gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 2);
    size_t n = nb < max ? nb : max;
    gex_AM_Arg_t rseed = (gex_AM_Arg_t)(seed ^ 0x5a5a5a5a);
    if (mode == MODE_ECHO_EVENT) {
        /* The source must stay untouched until the event (waited for in main)
         * completes: a buffer per requester. */
        uint8_t *ebuf = reply_event_bufs + (size_t)src * REPLY_EVENT_BYTES;
        CHECK(n <= REPLY_EVENT_BYTES);
        test_fill(ebuf, n, seed_of(rseed));
        __atomic_add_fetch(&reply_events_used, 1, __ATOMIC_RELAXED);
        CHECK_OK(gex_AM_ReplyMedium(t, HIDX(H_MED_REP), ebuf, n, &reply_events[src], 0, rseed,
                                    (gex_AM_Arg_t)n));
        return;
    }
    CHECK(n <= (size_t)1 << 17);
    test_fill(buf, n, seed_of(rseed));
    CHECK_OK(gex_AM_ReplyMedium(t, HIDX(H_MED_REP), buf, n, GEX_EVENT_NOW, 0, rseed,
                                (gex_AM_Arg_t)n));
}

static void med_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed, gex_AM_Arg_t len,
                    gex_AM_Arg_t mode)
{
    gex_Rank_t src = src_of(t);
    CHECK_EQ(nb, (size_t)(uint32_t)len);
    CHECK_PATTERN(buf, nb, seed_of(seed), "Medium Request payload");
    if (mode == MODE_ACK)
        CHECK_OK(gex_AM_ReplyShort(t, HIDX(H_ACK), 0));
    else
        reply_medium(t, src, nb, seed, mode);
}

static void med_req16(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed, gex_AM_Arg_t len,
                      gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
                      gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                      gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                      gex_AM_Arg_t a14, gex_AM_Arg_t a15)
{
    const gex_AM_Arg_t rest[14] = {a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    for (int k = 0; k < 14; k++) CHECK_EQ(rest[k], seed + k);
    CHECK_EQ(nb, (size_t)(uint32_t)len);
    CHECK_PATTERN(buf, nb, seed_of(seed), "Medium Request payload (16 args)");
    CHECK_OK(gex_AM_ReplyShort(t, HIDX(H_ACK), 0));
}

static void long_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed, gex_AM_Arg_t len,
                     gex_AM_Arg_t mode)
{
    gex_Rank_t src = src_of(t);
    CHECK_EQ(nb, (size_t)(uint32_t)len);
    uintptr_t off = (uintptr_t)((char *)buf - (char *)test_seg[test_rank]);
    CHECK_MSG(off >= (uintptr_t)src * LONG_REGION && off + nb <= (uintptr_t)(src + 1) * LONG_REGION,
              "Long payload from rank %u at segment offset %lu is outside its region",
              (unsigned)src, (unsigned long)off);
    CHECK_PATTERN(buf, nb, seed_of(seed), "Long Request payload");
    if (mode == MODE_ACK) {
        CHECK_OK(gex_AM_ReplyShort(t, HIDX(H_ACK), 0));
        return;
    }
    /* Echo up to REPLY_REGION bytes with a Long Reply into the requester's
     * segment, at an odd offset.  The source is read in place until the
     * Reply returns, and handlers may run on several threads at once (the
     * verbs receive thread beside the polling application): one per thread. */
    static _Thread_local uint8_t *rbuf;
    if (!rbuf) rbuf = (uint8_t *)malloc(REPLY_REGION);
    CHECK(rbuf != NULL);
    size_t max = gex_Token_MaxReplyLong(t, GEX_EVENT_NOW, 0, 2);
    size_t n = nb < REPLY_REGION - 8 ? nb : REPLY_REGION - 8;
    if (n > max) n = max;
    gex_AM_Arg_t rseed = (gex_AM_Arg_t)(seed ^ 0x33cc33cc);
    test_fill(rbuf, n, seed_of(rseed));
    void *dest = test_seg_at(src, reply_base + (uintptr_t)test_rank * REPLY_REGION + 3);
    CHECK_OK(gex_AM_ReplyLong(t, HIDX(H_LONG_REP), rbuf, n, dest, GEX_EVENT_NOW, 0, rseed,
                              (gex_AM_Arg_t)n));
}

static void med_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed, gex_AM_Arg_t len)
{
    CHECK_EQ(nb, (size_t)(uint32_t)len);
    CHECK_PATTERN(buf, nb, seed_of(seed), "Medium Reply payload");
    __atomic_add_fetch(&replies, 1, __ATOMIC_RELAXED);
}

static void long_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed, gex_AM_Arg_t len)
{
    gex_Rank_t src = src_of(t);
    CHECK_EQ(nb, (size_t)(uint32_t)len);
    CHECK_PTR_EQ(buf, test_seg_at(test_rank, reply_base + (uintptr_t)src * REPLY_REGION + 3));
    CHECK_PATTERN(buf, nb, seed_of(seed), "Long Reply payload");
    __atomic_add_fetch(&replies, 1, __ATOMIC_RELAXED);
}

static void ack(gex_Token_t t)
{
    (void)src_of(t);
    __atomic_add_fetch(&replies, 1, __ATOMIC_RELAXED);
}

static void register_handlers(void)
{
    const gex_Flags_t req = GEX_FLAG_AM_REQUEST, rep = GEX_FLAG_AM_REPLY;
    htable[H_MED_REQ] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)med_req, req | GEX_FLAG_AM_MEDIUM, 3,
                                         NULL, "med_req"};
    htable[H_MED_REQ16] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)med_req16,
                                           req | GEX_FLAG_AM_MEDIUM, 16, NULL, "med_req16"};
    htable[H_LONG_REQ] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)long_req, req | GEX_FLAG_AM_LONG, 3,
                                          NULL, "long_req"};
    htable[H_MED_REP] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)med_rep, rep | GEX_FLAG_AM_MEDIUM, 2,
                                         NULL, "med_rep"};
    htable[H_LONG_REP] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)long_rep, rep | GEX_FLAG_AM_LONG, 2,
                                          NULL, "long_rep"};
    htable[H_ACK] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)ack, rep | GEX_FLAG_AM_SHORT, 0, NULL,
                                     "ack"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    for (int i = 0; i < NHANDLERS; i++) CHECK(htable[i].gex_index >= GEX_AM_INDEX_BASE);
}

/* ---- senders ---------------------------------------------------------------------- */

static uint32_t next_seed(void)
{
    static uint32_t counter;
    return (uint32_t)test_rank * 0x01000193u + 0x10000u * ++counter;
}

/* One Medium Request (3 args) and its Reply, waited for.  lc: NOW, an
 * event or GROUP; the source is scribbled on as soon as that allows. */
static void medium_roundtrip(gex_Rank_t dst, uint8_t *src, size_t nb, gex_Event_t *lc, int mode)
{
    gex_AM_Arg_t seed = (gex_AM_Arg_t)next_seed();
    unsigned want = replies + 1;
    gex_Event_t ev = GEX_EVENT_INVALID;
    test_fill(src, nb, seed_of(seed));
    CHECK_OK(gex_AM_RequestMedium3(test_tm, dst, HIDX(H_MED_REQ), src, nb,
                                   lc == NULL ? &ev : lc, 0, seed, (gex_AM_Arg_t)nb, mode));
    if (lc == NULL) {
        /* &event: poll with Test a few times (success consumes the event),
         * then Wait. */
        int done = 0;
        for (int i = 0; i < 3 && !done; i++) {
            done = gex_Event_Test(ev) == 0;
            if (!done) gasnet_AMPoll();
        }
        if (!done) gex_Event_Wait(ev);
    } else if (lc == GEX_EVENT_GROUP) {
        while (gex_NBI_Test(GEX_EC_AM, 0) != 0) gasnet_AMPoll();
        gex_NBI_Wait(GEX_EC_AM, 0);
    }
    memset(src, 0xA5, nb);
    GASNET_BLOCKUNTIL(replies == want);
}

static void long_roundtrip(gex_Rank_t dst, uint8_t *src, size_t nb, uintptr_t dest_off, int mode)
{
    gex_AM_Arg_t seed = (gex_AM_Arg_t)next_seed();
    unsigned want = replies + 1;
    void *dest = test_seg_at(dst, (uintptr_t)test_rank * LONG_REGION + dest_off);
    test_fill(src, nb, seed_of(seed));
    CHECK_OK(gex_AM_RequestLong3(test_tm, dst, HIDX(H_LONG_REQ), src, nb, dest, GEX_EVENT_NOW, 0,
                                 seed, (gex_AM_Arg_t)nb, mode));
    memset(src, 0x5A, nb);
    GASNET_BLOCKUNTIL(replies == want);
}

static size_t sizes_upto(size_t max, size_t *out)
{
    static const size_t base[] = {0, 1, 7, 8, 9, 63, 64, 65, 511, 512, 513, 1023, 1024,
                                  4095, 4096, 4097, 8192, 16383, 16384, 32768, 65535, 65536,
                                  65537, (1u << 20) - 1, (1u << 20) + 1, MAX_LONG};
    size_t n = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        if (base[i] < max - 1) out[n++] = base[i];
    if (max >= 1) out[n++] = max - 1;
    out[n++] = max;
    return n;
}

static void phase_medium_sizes(uint8_t *mbuf)
{
    size_t sizes[40];
    for (gex_Rank_t i = 0; i < test_size; i++) {
        gex_Rank_t dst = (test_rank + i) % test_size;
        size_t max = gex_AM_MaxRequestMedium(test_tm, dst, GEX_EVENT_NOW, 0, 3);
        CHECK(max >= 512 && max <= ((size_t)1 << 20));
        size_t ns = sizes_upto(max, sizes);
        for (size_t k = 0; k < ns; k++)
            medium_roundtrip(dst, (k & 1) ? mbuf : (uint8_t *)test_seg_at(test_rank, src_base),
                             sizes[k], GEX_EVENT_NOW, MODE_ECHO);
        /* The largest payload with all 16 arguments. */
        size_t max16 = gex_AM_MaxRequestMedium(test_tm, dst, GEX_EVENT_NOW, 0, 16);
        CHECK(max16 <= max);
        gex_AM_Arg_t s = (gex_AM_Arg_t)next_seed();
        unsigned want = replies + 1;
        test_fill(mbuf, max16, seed_of(s));
        CHECK_OK(gex_AM_RequestMedium16(test_tm, dst, HIDX(H_MED_REQ16), mbuf, max16,
                                        GEX_EVENT_NOW, 0, s, (gex_AM_Arg_t)max16, s, s + 1, s + 2,
                                        s + 3, s + 4, s + 5, s + 6, s + 7, s + 8, s + 9, s + 10,
                                        s + 11, s + 12, s + 13));
        GASNET_BLOCKUNTIL(replies == want);
    }
}

static void phase_long_sizes(uint8_t *lbuf)
{
    size_t sizes[40];
    for (gex_Rank_t i = 0; i < test_size; i++) {
        gex_Rank_t dst = (test_rank + i) % test_size;
        size_t max = gex_AM_MaxRequestLong(test_tm, dst, GEX_EVENT_NOW, 0, 3);
        CHECK(max >= 512);
        if (max > MAX_LONG) max = MAX_LONG;
        size_t ns = sizes_upto(max, sizes);
        for (size_t k = 0; k < ns; k++) {
            uintptr_t dest_off = (uintptr_t)(sizes[k] % 7); /* odd destinations too */
            uint8_t *src = (k & 1) ? lbuf + 1 : (uint8_t *)test_seg_at(test_rank, src_base + 5);
            long_roundtrip(dst, src, sizes[k], dest_off, (k % 3) ? MODE_ECHO : MODE_ACK);
        }
    }
}

static void phase_local_completion(uint8_t *mbuf)
{
    enum { K = 8, NB = 3000 };
    static gex_Event_t evs[K];
    for (gex_Rank_t dst = 0; dst < test_size; dst++) {
        medium_roundtrip(dst, mbuf, 777, NULL, MODE_ECHO);           /* &event */
        medium_roundtrip(dst, mbuf, 4100, GEX_EVENT_GROUP, MODE_ECHO); /* GROUP */
        /* K Requests in flight with their own buffers and events. */
        unsigned want = replies + K;
        for (int k = 0; k < K; k++) {
            gex_AM_Arg_t seed = (gex_AM_Arg_t)next_seed();
            uint8_t *b = mbuf + (size_t)k * NB;
            test_fill(b, NB, seed_of(seed));
            if (k & 1)
                CHECK_OK(gex_AM_RequestMedium3(test_tm, dst, HIDX(H_MED_REQ), b, NB, &evs[k], 0,
                                               seed, NB, MODE_ACK));
            else
                CHECK_OK(gex_AM_RequestLong3(test_tm, dst, HIDX(H_LONG_REQ), b, NB,
                                             test_seg_at(dst, (uintptr_t)test_rank * LONG_REGION +
                                                                  (uintptr_t)k * NB),
                                             &evs[k], 0, seed, NB, MODE_ACK));
        }
        gex_Event_WaitAll(evs, K, 0);
        for (int k = 0; k < K; k++) CHECK(evs[k] == GEX_EVENT_INVALID);
        memset(mbuf, 0x11, (size_t)K * NB);
        GASNET_BLOCKUNTIL(replies == want);
        /* GROUP with several outstanding Requests. */
        want = replies + K;
        for (int k = 0; k < K; k++) {
            gex_AM_Arg_t seed = (gex_AM_Arg_t)next_seed();
            uint8_t *b = mbuf + (size_t)k * NB;
            test_fill(b, NB, seed_of(seed));
            CHECK_OK(gex_AM_RequestMedium3(test_tm, dst, HIDX(H_MED_REQ), b, NB, GEX_EVENT_GROUP,
                                           0, seed, NB, MODE_ACK));
        }
        gex_NBI_Wait(GEX_EC_AM, 0);
        memset(mbuf, 0x22, (size_t)K * NB);
        GASNET_BLOCKUNTIL(replies == want);
    }
    /* Replies with lc_opt = &event: one Request to every rank. */
    for (gex_Rank_t dst = 0; dst < test_size; dst++)
        medium_roundtrip(dst, mbuf, 900, GEX_EVENT_NOW, MODE_ECHO_EVENT);
    test_barrier(); /* every Reply to this rank's handlers has been sent */
    CHECK_EQ(reply_events_used, test_size);
    gex_Event_WaitAll(reply_events, test_size, 0);
    for (gex_Rank_t r = 0; r < test_size; r++) CHECK(reply_events[r] == GEX_EVENT_INVALID);
}

static void phase_flood(uint8_t *mbuf)
{
    unsigned start = replies;
    for (unsigned i = 0; i < FLOOD_MEDIUM; i++) {
        gex_Rank_t dst = (test_rank + 1 + i) % test_size;
        size_t nb = 1 + (i * 131u) % 2048u;
        gex_AM_Arg_t seed = (gex_AM_Arg_t)next_seed();
        test_fill(mbuf, nb, seed_of(seed));
        CHECK_OK(gex_AM_RequestMedium3(test_tm, dst, HIDX(H_MED_REQ), mbuf, nb, GEX_EVENT_NOW, 0,
                                       seed, (gex_AM_Arg_t)nb, MODE_ACK));
    }
    GASNET_BLOCKUNTIL(replies == start + FLOOD_MEDIUM);

    /* Long flood: every Request gets its own slot in the destination's
     * region (at most FLOOD_LONG * FLOOD_SLOT bytes, which fits). */
    unsigned *sent_to = (unsigned *)calloc(test_size, sizeof(unsigned));
    CHECK(sent_to != NULL);
    CHECK((uintptr_t)FLOOD_LONG * FLOOD_SLOT <= LONG_REGION);
    start = replies;
    for (unsigned i = 0; i < FLOOD_LONG; i++) {
        gex_Rank_t dst = (test_rank + i) % test_size;
        size_t nb = FLOOD_SLOT - (i % 17);
        gex_AM_Arg_t seed = (gex_AM_Arg_t)next_seed();
        test_fill(mbuf, nb, seed_of(seed));
        void *dest = test_seg_at(dst, (uintptr_t)test_rank * LONG_REGION +
                                          (uintptr_t)sent_to[dst]++ * FLOOD_SLOT);
        CHECK_OK(gex_AM_RequestLong3(test_tm, dst, HIDX(H_LONG_REQ), mbuf, nb, dest,
                                     GEX_EVENT_NOW, 0, seed, (gex_AM_Arg_t)nb, MODE_ACK));
    }
    GASNET_BLOCKUNTIL(replies == start + FLOOD_LONG);
    free(sent_to);
}

int main(int argc, char **argv)
{
    test_init("am-payload", &argc, &argv, 0, 0, 1);
    /* Layout: Long Request regions, Long Reply regions, a source area. */
    reply_base = LONG_REGION * test_size;
    src_base = reply_base + REPLY_REGION * test_size;
    uintptr_t segsize = src_base + MAX_LONG + 4096;
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, segsize));
    test_query_segments();

    reply_events = (gex_Event_t *)calloc(test_size, sizeof(gex_Event_t));
    reply_event_bufs = (uint8_t *)malloc((size_t)test_size * REPLY_EVENT_BYTES);
    uint8_t *mbuf = (uint8_t *)malloc((size_t)1 << 20);
    uint8_t *lbuf = (uint8_t *)malloc(MAX_LONG + 16);
    CHECK(reply_events && reply_event_bufs && mbuf && lbuf);
    register_handlers();
    test_barrier();

    double t0 = test_now();
    phase_medium_sizes(mbuf);
    test_barrier();
    TEST_MSG0("Medium sizes 0..max: %.2f s", test_now() - t0);
    t0 = test_now();
    phase_long_sizes(lbuf);
    test_barrier();
    TEST_MSG0("Long sizes 0..%zu: %.2f s", MAX_LONG, test_now() - t0);
    t0 = test_now();
    phase_local_completion(mbuf);
    test_barrier();
    TEST_MSG0("local completion (NOW, &event, GROUP, Reply &event): %.2f s", test_now() - t0);
    t0 = test_now();
    phase_flood(mbuf);
    test_barrier();
    TEST_MSG0("flood of %u Medium and %u Long Requests: %.2f s", FLOOD_MEDIUM, FLOOD_LONG,
              test_now() - t0);
    free(mbuf);
    free(lbuf);
    test_pass();
    return 0;
}
