/* tests/integration/teams/teams.c: teams (issue 14, item 1).
 *
 * Each iteration splits the world into two halves (gex_TM_Split, color =
 * rank < N/2, key = rank, scratch from the RECOMMENDED query inside the
 * segment) and creates the world with reversed ranks (gex_TM_Create, member
 * list N-1 .. 0, with scratch), then on all three teams at once:
 *   - checks every query and rank translation against the membership;
 *   - starts a barrier, a broadcast, a reduction and remote fetch-adds on
 *     each team (all in flight together), then waits for all of them and
 *     checks every result;
 *   - puts its jobrank into its right-hand neighbour's slot addressed by
 *     reversed-team rank and sends an AM on the half team, checked after
 *     a barrier over that team;
 * every tenth iteration splits the reversed team and re-creates the half
 * team by jobranks (teams of teams), then destroys both teams (scratch
 * returned); every iteration also creates two disjoint teams in one
 * gex_TM_Create call, with a caller in neither and each scratch mode
 * (multi_create), and uses and destroys them; then starts again.
 * Iterations: argv[1] (default 100).  Needs 2 or more processes.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include "../test.h"

#define OFF_CTR 0          /* uint64 fetch-add targets: [0] half, [1] reversed, [2] world */
#define OFF_SLOT 64        /* uint64 put target, written by the left neighbour */
#define OFF_SCRATCH 4096   /* scratch of the half team, then of the reversed team */
#define OFF_MULTI (3 * 4096 + 65536) /* scratch of the teams of multi_create */
#define HIDX (GEX_AM_INDEX_BASE + 1)

static volatile uint64_t am_sum; /* jobrank+1 of each AM sender on the half team */

static void am_handler(gex_Token_t token, gex_AM_Arg_t a0)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    CHECK_EQ((gex_Rank_t)a0, info.gex_srcrank); /* srcrank is the sender's jobrank */
    am_sum += (uint64_t)a0 + 1;
}

/* Queries and translations of team tm whose members are jobranks[0..n). */
static void check_team(gex_TM_t tm, const gex_Rank_t *jobranks, gex_Rank_t n)
{
    CHECK_EQ(gex_TM_QuerySize(tm), n);
    CHECK(gex_TM_QueryEP(tm) == test_ep);
    CHECK(gex_TM_QueryClient(tm) == test_client);
    gex_Rank_t me = gex_TM_QueryRank(tm);
    CHECK(me < n);
    CHECK_EQ(jobranks[me], test_rank);
    for (gex_Rank_t r = 0; r < n; r++) {
        CHECK_EQ(gex_TM_TranslateRankToJobrank(tm, r), jobranks[r]);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(tm, jobranks[r]), r);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(tm, r, 0);
        CHECK_EQ(loc.gex_rank, jobranks[r]);
        CHECK_EQ(loc.gex_ep_index, 0);
    }
    for (gex_Rank_t j = 0; j < test_size; j++) {
        int in = 0;
        for (gex_Rank_t r = 0; r < n; r++) in |= jobranks[r] == j;
        if (!in) CHECK_EQ(gex_TM_TranslateJobrankToRank(tm, j), GEX_RANK_INVALID);
    }
    static int cdata;
    gex_TM_SetCData(tm, &cdata);
    CHECK(gex_TM_QueryCData(tm) == &cdata);
}

typedef struct {
    gex_TM_t tm;
    const gex_Rank_t *jr;
    gex_Rank_t n, me;
    gex_AD_t ad;
    uint64_t bsrc, bdst, rsrc, rdst, fetched;
    gex_Rank_t broot, rroot, adtgt;
    int red_all;
} team_run_t;

/* Starts a barrier, a broadcast, a reduction and a fetch-add on t. */
static int start_ops(team_run_t *t, int iter, int which, gex_Event_t *ev)
{
    t->broot = (gex_Rank_t)((iter + which) % t->n);
    t->bsrc = ((uint64_t)iter << 16) | ((uint64_t)which << 8) | t->jr[t->broot];
    t->bdst = 0;
    t->rsrc = (uint64_t)t->jr[t->me] * 1000 + (uint64_t)iter;
    t->rdst = 0;
    t->rroot = (gex_Rank_t)(iter % t->n);
    t->red_all = (iter + which) % 2;
    t->adtgt = (gex_Rank_t)((iter * 3 + which) % t->n);
    int k = 0;
    ev[k++] = gex_Coll_BarrierNB(t->tm, 0);
    ev[k++] = gex_Coll_BroadcastNB(t->tm, t->broot, &t->bdst,
                                   t->me == t->broot ? &t->bsrc : NULL, sizeof(uint64_t), 0);
    if (t->red_all)
        ev[k++] = gex_Coll_ReduceToAllNB(t->tm, &t->rdst, &t->rsrc, GEX_DT_U64, 8, 1,
                                         GEX_OP_ADD, NULL, NULL, 0);
    else
        ev[k++] = gex_Coll_ReduceToOneNB(t->tm, t->rroot, &t->rdst, &t->rsrc, GEX_DT_U64, 8, 1,
                                         GEX_OP_MAX, NULL, NULL, 0);
    void *ctr = test_seg_at(t->jr[t->adtgt], OFF_CTR + 8 * (uintptr_t)which);
    ev[k++] = gex_AD_OpNB_U64(t->ad, &t->fetched, t->adtgt, ctr, GEX_OP_FADD, 1, 0, 0);
    return k;
}

static void check_ops(const team_run_t *t, int iter, int which)
{
    CHECK_EQ(t->bdst, ((uint64_t)iter << 16) | ((uint64_t)which << 8) | t->jr[t->broot]);
    uint64_t sum = 0, max = 0;
    for (gex_Rank_t r = 0; r < t->n; r++) {
        uint64_t v = (uint64_t)t->jr[r] * 1000 + (uint64_t)iter;
        sum += v;
        if (v > max) max = v;
    }
    if (t->red_all) CHECK_EQ(t->rdst, sum);
    else if (t->me == t->rroot) CHECK_EQ(t->rdst, max);
    CHECK(t->fetched < t->n);
}

/* Teams of teams: the reversed team split by parity (reverse key), and a
 * team made from the half team by jobranks; a barrier and a broadcast on
 * each, then destroyed. */
static void nested(gex_TM_t htm, gex_TM_t rtm, int iter)
{
    gex_Rank_t rme = gex_TM_QueryRank(rtm), rn = gex_TM_QuerySize(rtm);
    gex_TM_t par;
    gex_TM_Split(&par, rtm, (int)(rme % 2), -(int)rme, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t pn = gex_TM_QuerySize(par), pme = gex_TM_QueryRank(par);
    CHECK_EQ(pn, (rn + 1 - rme % 2) / 2);
    /* Reverse key: rank 0 of par is the largest rtm rank of that parity. */
    gex_Rank_t top = (rn - 1) - ((rn - 1) % 2 != rme % 2);
    CHECK_EQ(gex_TM_TranslateRankToJobrank(par, 0), gex_TM_TranslateRankToJobrank(rtm, top));
    CHECK_EQ(gex_TM_TranslateRankToJobrank(par, pme), test_rank);
    gex_Rank_t hn = gex_TM_QuerySize(htm);
    gex_EP_Location_t loc[64];
    CHECK(hn <= 64);
    for (gex_Rank_t i = 0; i < hn; i++) { /* the half team, reversed, by jobrank */
        loc[i].gex_rank = gex_TM_TranslateRankToJobrank(htm, hn - 1 - i);
        loc[i].gex_ep_index = 0;
    }
    gex_TM_t sub;
    gex_TM_Create(&sub, 1, htm, loc, hn, NULL, 0,
                  GEX_FLAG_RANK_IS_JOBRANK | GEX_FLAG_TM_NO_SCRATCH);
    CHECK_EQ(gex_TM_QueryRank(sub), hn - 1 - gex_TM_QueryRank(htm));
    gex_TM_t ts[2] = {par, sub};
    for (int k = 0; k < 2; k++) {
        uint64_t v = 0, src = 1000u * (unsigned)iter + (unsigned)k;
        CHECK_OK(gex_Coll_BarrierBlocking(ts[k], 0));
        gex_Event_Wait(gex_Coll_BroadcastNB(ts[k], 0, &v, &src, 8, 0));
        CHECK_EQ(v, src);
    }
    CHECK_EQ(gex_TM_Destroy(par, NULL, 0), 0);
    CHECK_EQ(gex_TM_Destroy(sub, NULL, 0), 0);
}

/* One gex_TM_Create call making two disjoint teams, with a caller that
 * belongs to neither: team A is the even ranks but 0 in reverse order
 * (symmetric scratch given as a segment offset), team B the odd ranks
 * (global scratch: every member's address); rank 0 names team B without
 * joining it.  Each new team runs a barrier and a broadcast, then is
 * destroyed, handing back its scratch (as an offset for team A). */
static void multi_create(int iter)
{
    gex_Rank_t N = test_size, me = test_rank;
    gex_EP_Location_t *args = calloc(N, sizeof(*args));
    gex_Rank_t *jr = calloc(N, sizeof(*jr));
    gex_Addr_t *glob = calloc(N, sizeof(*glob));
    CHECK(args && jr && glob);
    int in_a = me % 2 == 0 && me != 0;
    gex_Rank_t n = 0;
    if (in_a) {
        for (gex_Rank_t r = (N - 1) / 2 * 2; r >= 2; r -= 2) jr[n++] = r;
    } else {
        for (gex_Rank_t r = 1; r < N; r += 2) jr[n++] = r;
    }
    for (gex_Rank_t i = 0; i < n; i++) {
        args[i].gex_rank = jr[i]; /* the primordial team: ranks are jobranks */
        args[i].gex_ep_index = 0;
        glob[i] = test_seg_at(jr[i], OFF_MULTI);
    }
    int member = me != 0;
    gex_Flags_t mode = in_a ? GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET
                            : GEX_FLAG_TM_GLOBAL_SCRATCH;
    size_t sz = gex_TM_Create(NULL, member, test_tm, args, n, NULL, 0,
                              mode | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    CHECK(member ? sz > 0 && sz <= 65536 : sz == 0);
    gex_Addr_t sym = (gex_Addr_t)(uintptr_t)OFF_MULTI;
    gex_TM_t tm = GEX_TM_INVALID;
    gex_TM_Create(member ? &tm : NULL, member, test_tm, args, n, in_a ? &sym : glob,
                  member ? sz : 0, mode);
    if (member) {
        CHECK(tm != GEX_TM_INVALID);
        check_team(tm, jr, n);
        CHECK_OK(gex_Coll_BarrierBlocking(tm, 0));
        uint64_t got = 0;
        uint64_t src = 1000u * (unsigned)iter + jr[0];
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, &got, &src, sizeof got, 0));
        CHECK_EQ(got, 1000u * (unsigned)iter + jr[0]);
        gex_Memvec_t mv;
        CHECK(gex_TM_Destroy(tm, &mv, in_a ? GEX_FLAG_SCRATCH_SEG_OFFSET : 0) != 0);
        if (in_a) CHECK_EQ((uintptr_t)mv.gex_addr, (uintptr_t)OFF_MULTI);
        else CHECK_PTR_EQ(mv.gex_addr, test_seg_at(me, OFF_MULTI));
        CHECK_EQ(mv.gex_len, sz);
    }
    free(args);
    free(jr);
    free(glob);
}

int main(int argc, char **argv)
{
    test_init("teams", &argc, &argv, 3 * 4096 + 2 * 65536, 0, 2);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    gex_AM_Entry_t h[] = {{HIDX, (gex_AM_Fn_t)am_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST,
                           1, NULL, "teams_am"}};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, h, 1));
    gex_Rank_t N = test_size, half = N / 2;
    int color = test_rank >= half;
    gex_Rank_t *hjr = malloc(sizeof(*hjr) * N), *rjr = malloc(sizeof(*rjr) * N),
               *wjr = malloc(sizeof(*wjr) * N);
    gex_EP_Location_t *args = malloc(sizeof(*args) * N);
    CHECK(hjr && rjr && wjr && args);
    gex_Rank_t hn = 0;
    for (gex_Rank_t j = 0; j < N; j++) {
        if ((j >= half) == color) hjr[hn++] = j;
        rjr[j] = N - 1 - j;
        wjr[j] = j;
        args[j].gex_rank = N - 1 - j;
        args[j].gex_ep_index = 0;
    }
    /* A TM-pair of the primordial endpoints: ranks are jobranks. */
    gex_TM_t pair = gex_TM_Pair(test_ep, 0);
    CHECK(pair == gex_TM_Pair(test_ep, 0));
    CHECK_EQ(gex_TM_QuerySize(pair), N);
    CHECK_EQ(gex_TM_TranslateRankToJobrank(pair, N - 1), N - 1);
    uint64_t *ctr = test_seg_at(test_rank, OFF_CTR);
    uint64_t *slot = test_seg_at(test_rank, OFF_SLOT);
    char *scratch = test_seg_at(test_rank, OFF_SCRATCH);
    double t0 = test_now();
    for (int iter = 0; iter < iters; iter++) {
        ctr[0] = ctr[1] = ctr[2] = 0;
        *slot = UINT64_MAX;
        am_sum = 0;
        size_t ssz = gex_TM_Split(NULL, test_tm, color, (int)test_rank, NULL, 0,
                                  GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
        CHECK_EQ(ssz, 0); /* NULL new_tm_p: not a member, so 0 */
        ssz = gex_TM_Split((gex_TM_t *)&ssz /* non-NULL */, test_tm, color, (int)test_rank, NULL,
                           0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
        CHECK(ssz > 0 && ssz <= 65536);
        gex_TM_t htm = GEX_TM_INVALID, rtm = GEX_TM_INVALID;
        gex_TM_Split(&htm, test_tm, color, (int)test_rank, scratch, ssz, 0);
        CHECK(htm != GEX_TM_INVALID);
        size_t rsz = gex_TM_Create(NULL, 1, test_tm, args, N, NULL, 0,
                                   GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
        CHECK(rsz > 0 && rsz <= 65536);
        gex_Addr_t rscratch = scratch + 65536;
        gex_TM_Create(&rtm, 1, test_tm, args, N, &rscratch, rsz, 0);
        CHECK(rtm != GEX_TM_INVALID && rtm != htm);
        if (iter == 0 || iter == iters - 1) {
            check_team(htm, hjr, hn);
            check_team(rtm, rjr, N);
            check_team(test_tm, wjr, N);
        }
        team_run_t run[3] = {{htm, hjr, hn, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                             {rtm, rjr, N, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                             {test_tm, wjr, N, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
        for (int w = 0; w < 3; w++) {
            run[w].me = gex_TM_QueryRank(run[w].tm);
            gex_AD_Create(&run[w].ad, run[w].tm, GEX_DT_U64, GEX_OP_FADD, 0);
        }
        /* Everything in flight on the three teams at once. */
        gex_Event_t ev[12];
        int nev = 0;
        for (int w = 0; w < 3; w++) nev += start_ops(&run[w], iter, w, ev + nev);
        gex_Rank_t rme = run[1].me;
        uint64_t val = test_rank;
        gex_Rank_t right = (rme + 1) % N;
        CHECK_OK(gex_RMA_PutBlocking(rtm, right, test_seg_at(rjr[right], OFF_SLOT), &val, 8, 0));
        gex_Rank_t hme = run[0].me;
        CHECK_OK(gex_AM_RequestShort1(htm, (hme + 1) % hn, HIDX, 0, (gex_AM_Arg_t)test_rank));
        gex_Event_WaitAll(ev, (size_t)nev, 0);
        for (int w = 0; w < 3; w++) check_ops(&run[w], iter, w);
        /* Counters: each team's target got one add per member. */
        CHECK_OK(gex_Coll_BarrierBlocking(htm, 0));
        CHECK_OK(gex_Coll_BarrierBlocking(rtm, 0));
        test_barrier();
        for (int w = 0; w < 3; w++)
            if (run[w].me == run[w].adtgt) CHECK_EQ(ctr[w], run[w].n);
        /* The put came from the reversed team's rank rme - 1. */
        CHECK_EQ(*slot, rjr[(rme + N - 1) % N]);
        gex_Rank_t from = hjr[(hme + hn - 1) % hn];
        while (am_sum == 0) gasnet_AMPoll();
        CHECK_EQ(am_sum, (uint64_t)from + 1);
        for (int w = 0; w < 3; w++) gex_AD_Destroy(run[w].ad);
        if (iter % 10 == 0) nested(htm, rtm, iter);
        multi_create(iter);
        gex_Memvec_t mv;
        CHECK(gex_TM_Destroy(htm, &mv, 0) != 0);
        CHECK_PTR_EQ(mv.gex_addr, (void *)scratch);
        CHECK_EQ(mv.gex_len, ssz);
        CHECK(gex_TM_Destroy(rtm, &mv, 0) != 0);
        CHECK_PTR_EQ(mv.gex_addr, (void *)(scratch + 65536));
        test_barrier();
    }
    double dt = test_now() - t0;
    if (test_rank == 0)
        printf("teams: %d iterations of split+create+ops+destroy in %.3f s (%.2f ms each)\n",
               iters, dt, 1e3 * dt / (iters ? iters : 1));
    test_pass();
}
