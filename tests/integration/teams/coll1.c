/* tests/integration/teams/coll1.c: the GASNet-1 collectives (issue 14,
 * item 2).
 *
 * Every operation (broadcast, scatter, gather, gather_all, exchange), from
 * every root, with each of the 9 IN/OUT sync-flag combinations, both
 * addressing modes (SINGLE, LOCAL), blocking and _nb (waited with
 * wait_sync, try_sync, wait_sync_all or try_sync_some in turn), on
 * GASNET_TEAM_ALL and on a team with reversed ranks (gex_TM_Create):
 *   - the destination holds exactly the expected blocks and the guard byte
 *     after it is untouched;
 *   - with OUT_ALLSYNC/OUT_MYSYNC, right after completion each member reads
 *     its right-hand neighbour's destination with an RMA get and finds the
 *     neighbour's expected data already there.
 * Then the team barriers: gasnet_coll_barrier_notify/wait/try/result with
 * matching and mismatching names on both teams.
 * Block sizes: argv[1] (default 13), and 3000 for the broadcast.
 */
#include <gasnetex.h>
#include <gasnet.h>
#include <gasnet_coll.h>
#include "../test.h"

#define MAXN 8
#define SRC_OFF 0
#define DST_OFF 65536
#define SEGSZ (2 * 65536)

enum { OP_BCAST, OP_SCATTER, OP_GATHER, OP_GATHER_ALL, OP_EXCHANGE, NOPS };
static const char *opname[NOPS] = {"broadcast", "scatter", "gather", "gather_all", "exchange"};
static const int ins[3] = {GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC};
static const int outs[3] = {GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                            GASNET_COLL_OUT_ALLSYNC};

static gex_TM_t team;
static gex_Rank_t me, n; /* in team */
static gex_Rank_t jobrank_of[MAXN];
static unsigned long ncalls;

/* Seed of block b that team member `owner` contributes in test case k. */
static uint64_t seed(unsigned long k, gex_Rank_t owner, gex_Rank_t b)
{
    return (k << 16) | ((uint64_t)owner << 8) | b;
}

static size_t dst_len(int op, size_t nb)
{
    return (op == OP_GATHER || op == OP_GATHER_ALL || op == OP_EXCHANGE) ? nb * n : nb;
}

/* Checks member m's destination (buffer d) of test case k. */
static void check_dst(const uint8_t *d, gex_Rank_t m, int op, gex_Rank_t root, size_t nb,
                      unsigned long k, const char *what)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s %s root %u member %u", what, opname[op], (unsigned)root,
             (unsigned)m);
    switch (op) {
    case OP_BCAST: CHECK_PATTERN(d, nb, seed(k, root, 0), msg); break;
    case OP_SCATTER: CHECK_PATTERN(d, nb, seed(k, root, m), msg); break;
    case OP_GATHER:
        if (m != root) break;
        /* fall through */
    case OP_GATHER_ALL:
        for (gex_Rank_t i = 0; i < n; i++) CHECK_PATTERN(d + i * nb, nb, seed(k, i, 0), msg);
        break;
    default:
        for (gex_Rank_t i = 0; i < n; i++) CHECK_PATTERN(d + i * nb, nb, seed(k, i, m), msg);
        break;
    }
}

/* One collective call with the given flags; form selects blocking or one
 * of the four ways to synchronize a handle. */
static void run_one(int op, gex_Rank_t root, size_t nb, int flags, int form)
{
    unsigned long k = ++ncalls;
    uint8_t *src = test_seg_at(test_rank, SRC_OFF), *dst = test_seg_at(test_rank, DST_OFF);
    size_t srcblocks = (op == OP_SCATTER || op == OP_EXCHANGE) ? n : 1;
    for (gex_Rank_t b = 0; b < srcblocks; b++) test_fill(src + b * nb, nb, seed(k, me, b));
    size_t dl = dst_len(op, nb);
    memset(dst, 0xee, dl + 1);
    test_barrier(); /* nobody's data may land before our dst is reset */
    gasnet_coll_handle_t h = GASNET_COLL_INVALID_HANDLE;
    switch (op * 2 + (form > 0)) {
    case 0: gasnet_coll_broadcast(team, dst, root, src, nb, flags); break;
    case 1: h = gasnet_coll_broadcast_nb(team, dst, root, src, nb, flags); break;
    case 2: gasnet_coll_scatter(team, dst, root, src, nb, flags); break;
    case 3: h = gasnet_coll_scatter_nb(team, dst, root, src, nb, flags); break;
    case 4: gasnet_coll_gather(team, root, dst, src, nb, flags); break;
    case 5: h = gasnet_coll_gather_nb(team, root, dst, src, nb, flags); break;
    case 6: gasnet_coll_gather_all(team, dst, src, nb, flags); break;
    case 7: h = gasnet_coll_gather_all_nb(team, dst, src, nb, flags); break;
    case 8: gasnet_coll_exchange(team, dst, src, nb, flags); break;
    default: h = gasnet_coll_exchange_nb(team, dst, src, nb, flags); break;
    }
    if (form == 1) gasnet_coll_wait_sync(h);
    if (form == 2)
        while (gasnet_coll_try_sync(h) != GASNET_OK) continue;
    if (form == 3) gasnet_coll_wait_sync_all(&h, 1);
    if (form == 4) {
        gasnet_coll_handle_t hs[2] = {GASNET_COLL_INVALID_HANDLE, h};
        while (hs[1] != GASNET_COLL_INVALID_HANDLE)
            (void)gasnet_coll_try_sync_some(hs, 2);
    }
    check_dst(dst, me, op, root, nb, k, "local");
    CHECK_EQ(dst[dl], 0xee);
    if (flags & (GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_OUT_MYSYNC)) {
        /* Every member's dst is final now: read the right neighbour's. */
        gex_Rank_t right = (me + 1) % n;
        static uint8_t peer[65536];
        CHECK_OK(gex_RMA_GetBlocking(team, peer, right, test_seg_at(jobrank_of[right], DST_OFF),
                                     dl, 0));
        check_dst(peer, right, op, root, nb, k, "after OUT sync, remote");
    }
    test_barrier(); /* everybody is done reading before the next case */
}

static void all_ops(size_t nb)
{
    int form = 0;
    for (int op = 0; op < NOPS; op++) {
        int rooted = op <= OP_GATHER;
        for (gex_Rank_t root = 0; root < (rooted ? n : 1); root++)
            for (int i = 0; i < 3; i++)
                for (int o = 0; o < 3; o++)
                    for (int a = 0; a < 2; a++) {
                        int flags = ins[i] | outs[o] | (a ? GASNET_COLL_LOCAL : GASNET_COLL_SINGLE);
                        run_one(op, root, op == OP_BCAST ? 3000 : nb, flags, 0);
                        run_one(op, root, nb, flags, 1 + form++ % 4);
                    }
    }
}

static void team_barriers(void)
{
    int id = 0;
    CHECK_EQ(gasnet_coll_barrier(team, 7, 0), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier_result(team, &id), 0);
    CHECK_EQ(id, 7);
    /* Rank 0 names 1, the others 2: a mismatch everywhere. */
    gasnet_coll_barrier_notify(team, me == 0 ? 1 : 2, 0);
    int rc;
    while ((rc = gasnet_coll_barrier_try(team, me == 0 ? 1 : 2, 0)) == GASNET_ERR_NOT_READY)
        continue;
    CHECK_EQ(rc, n > 1 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK);
    gasnet_coll_barrier_notify(team, 0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK_EQ(gasnet_coll_barrier_wait(team, 0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier_result(team, &id), GASNET_BARRIERFLAG_ANONYMOUS);
}

int main(int argc, char **argv)
{
    test_init("coll1", &argc, &argv, SEGSZ, GEX_FLAG_USES_GASNET1, 1);
    size_t nb = argc > 1 ? (size_t)atoi(argv[1]) : 13;
    CHECK(test_size <= MAXN && nb * MAXN <= 65536);
    CHECK(GASNET_TEAM_ALL == test_tm);
    gex_EP_Location_t args[MAXN];
    for (gex_Rank_t r = 0; r < test_size; r++) {
        args[r].gex_rank = test_size - 1 - r;
        args[r].gex_ep_index = 0;
    }
    gex_TM_t rev;
    gex_TM_Create(&rev, 1, test_tm, args, test_size, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_TM_t teams[2] = {GASNET_TEAM_ALL, rev};
    for (int t = 0; t < 2; t++) {
        team = teams[t];
        me = gex_TM_QueryRank(team);
        n = gex_TM_QuerySize(team);
        for (gex_Rank_t r = 0; r < n; r++) jobrank_of[r] = gex_TM_TranslateRankToJobrank(team, r);
        all_ops(nb);
        team_barriers();
    }
    CHECK_EQ(gex_TM_Destroy(rev, NULL, 0), 0);
    if (test_rank == 0) printf("coll1: %lu collective calls checked\n", ncalls);
    test_pass();
}
