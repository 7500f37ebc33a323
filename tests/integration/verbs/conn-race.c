/* tests/integration/verbs/conn-race.c: every pair of ranks talks for the
 * first time at the same instant, both directions, as soon as
 * gex_Client_Init returns (no barrier before: init ends with bootstrap
 * collectives, so the ranks leave it together).  Run with
 * GASNET_CONNECT_STATIC=0 it makes every connection on demand, most of them
 * with crossed requests (core/ibv/conn/README "On-demand connections").
 *
 *   conn-race [put|am] [K]
 *     put (default): the first contact with each peer is a blocking put of
 *        a tagged word into slot[me] of its segment, then K AM Mediums;
 *     am: the AM Mediums come first.
 *   Peers are visited in the order rank XOR k (k = 1..n-1) when n is a power
 *   of two, so at step k both ranks of each pair target each other; else
 *   (rank + k) % n.
 *
 * Every Medium carries (source, sequence number) and a checked payload; the
 * receiver marks them in a bitmap (a duplicate fails at once) and waits, at
 * most 120 s, for all K*(n-1).  After a barrier, the slots must hold the
 * tags.  Rank 0 prints how long gex_Client_Init + attach took and how long
 * the sending phase took (with on-demand connections it includes their
 * setup).  Also passes over PSHM (no connections there).
 */
#include <gasnetex.h>
#include "../test.h"

#define MAXRANKS 64
#define MAXK 4096
#define PAYLOAD 200

enum { H_MED, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
static uint8_t seen[MAXRANKS][MAXK / 8];
static uint32_t received;
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

static uint64_t tag_of(gex_Rank_t from, gex_Rank_t to) { return 0x5eed000000000000ull | (uint64_t)from << 16 | to; }

static void h_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t src, gex_AM_Arg_t seq)
{
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    CHECK_EQ((gex_Rank_t)src, info.gex_srcrank);
    CHECK_MSG((uint32_t)seq < MAXK && (gex_Rank_t)src < MAXRANKS, "bad seq %u from %u",
              (uint32_t)seq, (unsigned)src);
    CHECK_EQ(nbytes, PAYLOAD);
    CHECK_PATTERN(buf, nbytes, ((uint64_t)src << 32) | (uint32_t)seq, "Medium payload");
    uint8_t bit = (uint8_t)(1u << (seq % 8));
    CHECK_MSG(!(seen[src][seq / 8] & bit), "seq %u from rank %u received twice", (uint32_t)seq,
              (unsigned)src);
    seen[src][seq / 8] |= bit;
    __atomic_add_fetch(&received, 1, __ATOMIC_ACQ_REL);
}

int main(int argc, char **argv)
{
    double t_init = test_now();
    test_init("conn-race", &argc, &argv, MAXRANKS * sizeof(uint64_t), 0, 2);
    t_init = test_now() - t_init;
    int put_first = !(argc > 1 && !strcmp(argv[1], "am"));
    uint32_t k_msgs = argc > 2 ? (uint32_t)atoi(argv[2]) : 200;
    CHECK_MSG(k_msgs >= 1 && k_msgs <= MAXK, "K must be 1..%d", MAXK);
    CHECK_MSG(test_size <= MAXRANKS, "at most %d ranks", MAXRANKS);
    htable[H_MED] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_med,
                                     GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL, "med"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    /* Handler registration is local: no traffic has happened yet. */
    int pow2 = (test_size & (test_size - 1)) == 0;
    uint8_t buf[PAYLOAD];
    double t0 = test_now();
    for (gex_Rank_t k = 1; k < test_size; k++) {
        gex_Rank_t dest = pow2 ? (test_rank ^ k) : (test_rank + k) % test_size;
        if (put_first) {
            uint64_t tag = tag_of(test_rank, dest);
            CHECK_OK(gex_RMA_PutBlocking(test_tm, dest, test_seg_at(dest, test_rank * sizeof(uint64_t)),
                                         &tag, sizeof(tag), 0));
        }
        for (uint32_t s = 0; s < k_msgs; s++) {
            test_fill(buf, PAYLOAD, ((uint64_t)test_rank << 32) | s);
            CHECK_OK(gex_AM_RequestMedium2(test_tm, dest, htable[H_MED].gex_index, buf, PAYLOAD,
                                           GEX_EVENT_NOW, 0, (gex_AM_Arg_t)test_rank,
                                           (gex_AM_Arg_t)s));
        }
    }
    double t_sent = test_now() - t0;
    uint32_t want = k_msgs * (test_size - 1);
    double deadline = test_now() + 120;
    while (LOAD(received) < want) {
        gasnet_AMPoll();
        CHECK_MSG(test_now() < deadline, "only %u of %u Mediums arrived after 120 s",
                  LOAD(received), want);
    }
    for (gex_Rank_t r = 0; r < test_size; r++)
        for (uint32_t s = 0; r != test_rank && s < k_msgs; s++)
            CHECK_MSG(seen[r][s / 8] & (1u << (s % 8)), "seq %u from rank %u missing", s,
                      (unsigned)r);
    test_barrier();
    volatile uint64_t *slot = test_seg_at(test_rank, 0);
    for (gex_Rank_t r = 0; put_first && r < test_size; r++)
        if (r != test_rank)
            CHECK_MSG(slot[r] == tag_of(r, test_rank), "slot %u holds 0x%llx", (unsigned)r,
                      (unsigned long long)slot[r]);
    test_barrier();
    if (test_rank == 0)
        printf("conn-race: %u ranks, init+attach %.3f s, first contact by %s, %u Mediums per "
               "pair: sent in %.3f s\nPASS\n", (unsigned)test_size, t_init,
               put_first ? "put" : "AM", k_msgs, t_sent);
    gasnet_exit(0);
    return 0;
}
