/* tests/integration/verbs/am-flood.c: a flood of AM Requests between pairs
 * of ranks, both directions at once, with every message's sequence number
 * and data checked.  Written for the verbs credit protocol: run it with
 * GASNET_AM_CREDITS_PP=2 (Requests constantly wait for credits, banked
 * credits and hidden credit-only Replies carry the traffic) and
 * GASNET_QP_RNR_RETRY=0 (a receiver-not-ready NAK, i.e. a message sent
 * without a posted buffer, is then a fatal completion error and fails the
 * job).  It is a plain public-API test and also passes over PSHM.
 *
 *   am-flood [N [T]]  N Requests per direction of each pair (default 100000);
 *                     am-flood-par (the PAR build) sends them from T threads
 *                     (default 4; T must divide 64), so that Requests that
 *                     waited for credit are often sent by another thread
 *
 * Pairs: rank r and (r + size/2) % size (even sizes; with 2 "hosts" x 2 the
 * pairs cross the hosts).  Request mix by sequence number seq:
 *   seq % 64 == 13    Long (alternately packed-size and RDMA-size payload)
 *                     into a slot of the receiver's segment; always answered
 *   seq % 8 == 7      Medium, 0..1499 bytes (every 97th: 8000+ bytes)
 *   otherwise         Short with 3 arguments
 * Request handlers reply (Short) when seq % 3 == 0 or for Longs, and send
 * nothing otherwise.  The receiver checks arguments and payload bytes
 * against seq and marks seq in a bitmap: a duplicate fails at once, a
 * missing one at the end.  The sender counts Replies: exactly the expected
 * number must arrive.  Rank 0 prints the message rate.  Handler state is
 * updated with atomics: in the PAR build several threads run handlers.
 */
#include <gasnetex.h>
#include "../test.h"
#if defined(GASNET_PAR)
#include <pthread.h>
#endif

#define NSLOTS 8                     /* Long slots per sender at the receiver */
#define SLOT_BYTES ((uintptr_t)32 << 10)
#define LONG_SMALL 700               /* below the packed-Long limit */
#define LONG_BIG 20000               /* above it: RDMA write + header */

enum { H_SHORT, H_MED, H_LONG, H_ACK, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
#define HIDX(h) (htable[h].gex_index)

static uint32_t nreq = 100000;
static gex_Rank_t partner;
static uint8_t *seen;               /* bitmap of sequence numbers received */
static uint32_t received;            /* Requests received from the partner (atomic) */
static uint32_t replies;             /* Replies received (atomic) */
/* Per Long slot: 1 + the Long number (seq / 64) last answered in it
 * (atomic).  A slot is reused only once the Long before in it was
 * answered: a count of Long Replies is not enough, because in the PAR
 * build handlers run on several threads and a later Long may be answered
 * while an earlier one's handler is still reading its slot. */
static uint32_t slot_answered[NSLOTS];
static unsigned nthreads = 1;
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define INC(x) __atomic_add_fetch(&(x), 1, __ATOMIC_ACQ_REL)

static uint32_t check_word(uint32_t seq, gex_Rank_t src) { return seq * 2654435761u ^ (src + 17); }
static uint64_t seed_of(uint32_t seq, gex_Rank_t src) { return ((uint64_t)src << 32) | seq; }
static size_t medium_len(uint32_t seq) { return seq % 97 == 0 ? 8000 + seq % 512 : (seq * 37u) % 1500; }
static size_t long_len(uint32_t seq) { return (seq / 64) % 2 ? LONG_BIG : LONG_SMALL; }
static int wants_reply(uint32_t seq) { return seq % 3 == 0 || seq % 64 == 13; }
static int is_long(uint32_t seq) { return seq % 64 == 13; }
static int is_medium(uint32_t seq) { return !is_long(seq) && seq % 8 == 7; }

static gex_Rank_t src_of(gex_Token_t t)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    return info.gex_srcrank;
}

/* Common checks of a Request; replies if seq asks for it. */
static void got(gex_Token_t t, uint32_t seq, uint32_t check)
{
    gex_Rank_t src = src_of(t);
    CHECK_MSG(src == partner, "Request from rank %u, expected only rank %u", (unsigned)src,
              (unsigned)partner);
    CHECK_MSG(seq < nreq, "sequence number %u out of range (N=%u)", seq, nreq);
    CHECK_MSG(check == check_word(seq, src), "seq %u: check word 0x%x, expected 0x%x", seq,
              check, check_word(seq, src));
    uint8_t bit = (uint8_t)(1u << (seq % 8));
    CHECK_MSG(!(__atomic_fetch_or(&seen[seq / 8], bit, __ATOMIC_ACQ_REL) & bit),
              "seq %u received twice", seq);
    INC(received);
    if (wants_reply(seq)) CHECK_OK(gex_AM_ReplyShort2(t, HIDX(H_ACK), 0, (gex_AM_Arg_t)seq,
                                                      (gex_AM_Arg_t)is_long(seq)));
}

static void h_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t check, gex_AM_Arg_t kind)
{
    CHECK_EQ(kind, 0);
    CHECK_MSG(!is_medium((uint32_t)seq) && !is_long((uint32_t)seq), "seq %u came as a Short",
              (uint32_t)seq);
    got(t, (uint32_t)seq, (uint32_t)check);
}

static void h_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq, gex_AM_Arg_t check)
{
    CHECK_MSG(is_medium((uint32_t)seq), "seq %u came as a Medium", (uint32_t)seq);
    CHECK_EQ(nbytes, medium_len((uint32_t)seq));
    CHECK_EQ((uintptr_t)buf % 8, 0);
    CHECK_PATTERN(buf, nbytes, seed_of((uint32_t)seq, partner), "Medium payload");
    got(t, (uint32_t)seq, (uint32_t)check);
}

static void h_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq, gex_AM_Arg_t check)
{
    CHECK_MSG(is_long((uint32_t)seq), "seq %u came as a Long", (uint32_t)seq);
    CHECK_EQ(nbytes, long_len((uint32_t)seq));
    CHECK_PTR_EQ(buf, test_seg_at(test_rank, ((uint32_t)seq / 64) % NSLOTS * SLOT_BYTES));
    CHECK_PATTERN(buf, nbytes, seed_of((uint32_t)seq, partner), "Long payload");
    got(t, (uint32_t)seq, (uint32_t)check);
}

static void h_ack(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t was_long)
{
    CHECK_EQ(src_of(t), partner);
    CHECK_MSG(wants_reply((uint32_t)seq), "Reply for seq %u, which asked for none", (uint32_t)seq);
    CHECK_EQ(was_long, is_long((uint32_t)seq));
    if (was_long)
        __atomic_store_n(&slot_answered[(uint32_t)seq / 64 % NSLOTS], (uint32_t)seq / 64 + 1,
                         __ATOMIC_RELEASE);
    INC(replies);
}

static void send_one(uint32_t seq, uint8_t *buf, uint8_t *segbuf)
{
    gex_AM_Arg_t a = (gex_AM_Arg_t)seq, c = (gex_AM_Arg_t)check_word(seq, test_rank);
    uint64_t seed = seed_of(seq, test_rank);
    if (is_long(seq)) {
        /* Slot reuse: the Long sent NSLOTS before into this slot was answered
         * (one thread sends all Longs, so its Longs into a slot go in order). */
        uint32_t nth = seq / 64;
        if (nth >= NSLOTS) GASNET_BLOCKUNTIL(LOAD(slot_answered[nth % NSLOTS]) > nth - NSLOTS);
        size_t n = long_len(seq);
        /* In-segment source for every other big one: zero-copy RDMA. */
        uint8_t *src = (nth / 2) % 2 ? segbuf : buf;
        test_fill(src, n, seed);
        void *dst = test_seg_at(partner, nth % NSLOTS * SLOT_BYTES);
        CHECK_OK(gex_AM_RequestLong2(test_tm, partner, HIDX(H_LONG), src, n, dst, GEX_EVENT_NOW,
                                     0, a, c));
    } else if (is_medium(seq)) {
        size_t n = medium_len(seq);
        test_fill(buf, n, seed);
        CHECK_OK(gex_AM_RequestMedium2(test_tm, partner, HIDX(H_MED), buf, n, GEX_EVENT_NOW, 0,
                                       a, c));
    } else {
        CHECK_OK(gex_AM_RequestShort3(test_tm, partner, HIDX(H_SHORT), 0, a, c, 0));
    }
}

/* Sender thread t sends the sequence numbers s = t mod nthreads, each
 * thread with its own buffer (all Longs come from one thread, because
 * nthreads divides 64: their slots are reused in order). */
static void *sender(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    uint8_t *buf = malloc(LONG_BIG + 16);
    CHECK(buf != NULL);
    uint8_t *segbuf = test_seg_at(test_rank, NSLOTS * SLOT_BYTES);
    for (uint32_t seq = t; seq < nreq; seq += nthreads) send_one(seq, buf, segbuf);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    test_init("am-flood", &argc, &argv, NSLOTS * SLOT_BYTES + LONG_BIG, 0, 2);
    if (argc > 1) nreq = (uint32_t)strtoul(argv[1], NULL, 10);
    CHECK(nreq > 0);
#if defined(GASNET_PAR)
    nthreads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 4;
    CHECK_MSG(nthreads >= 1 && nthreads <= 64 && 64 % nthreads == 0,
              "thread count %u must divide 64", nthreads);
#endif
    if (test_size % 2) {
        if (test_rank == 0) printf("SKIP: am-flood needs an even number of processes\n");
        fflush(stdout);
        gasnet_exit(77);
    }
    partner = (test_rank + test_size / 2) % test_size;
    const gex_Flags_t req = GEX_FLAG_AM_REQUEST;
    htable[H_SHORT] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_short, req | GEX_FLAG_AM_SHORT, 3, NULL,
                                       "flood_short"};
    htable[H_MED] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_med, req | GEX_FLAG_AM_MEDIUM, 2, NULL,
                                     "flood_medium"};
    htable[H_LONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_long, req | GEX_FLAG_AM_LONG, 2, NULL,
                                      "flood_long"};
    htable[H_ACK] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT,
                                     2, NULL, "flood_ack"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    seen = calloc(nreq / 8 + 1, 1);
    CHECK(seen != NULL);
    uint32_t want_replies = 0;
    for (uint32_t s = 0; s < nreq; s++) want_replies += wants_reply(s);
    test_barrier();

    double t0 = test_now();
#if defined(GASNET_PAR)
    pthread_t tids[64];
    for (unsigned t = 1; t < nthreads; t++)
        CHECK(pthread_create(&tids[t], NULL, sender, (void *)(uintptr_t)t) == 0);
    sender(NULL);
    for (unsigned t = 1; t < nthreads; t++) CHECK(pthread_join(tids[t], NULL) == 0);
#else
    sender(NULL);
#endif
    double t1 = test_now();
    GASNET_BLOCKUNTIL(LOAD(received) == nreq && LOAD(replies) == want_replies);
    double t2 = test_now();
    for (uint32_t s = 0; s < nreq; s++)
        CHECK_MSG(seen[s / 8] & (1u << (s % 8)), "seq %u never arrived", s);
    CHECK_EQ(replies, want_replies);
    test_barrier();
    TEST_MSG0("%u Requests per direction from %u thread(s) (%u Replies) in %.2f s: %.0f "
              "Requests/s per direction (injection %.2f s)", nreq, nthreads, want_replies,
              t2 - t0, (double)nreq / (t2 - t0), t1 - t0);
    free(seen);
    test_pass();
}
