/* tests/install/client.c: a client written only against the GASNet-EX spec,
 * built by check-install.sh against an installed tree (ibv-seq.mak and
 * pkg-config gasnet-ibv-par) and run with the installed gasnetrun_ibv.
 *
 * Every rank: AM Short/Medium/Long Request + Reply to its right neighbour,
 * put/get NB and NBI to its right neighbour, barriers.  Rank 0 prints
 * "client: PASS" when every check held.
 */
#include <gasnetex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBYTES 3000

static gex_TM_t tm;
static gex_Rank_t me, nranks;
static volatile int got_short, got_medium, got_long;
static void *my_segment;

#define REQUIRE(cond)                                                        \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "client rank %u: check failed at line %d: %s\n", \
                    (unsigned)me, __LINE__, #cond);                          \
            gasnet_exit(1);                                                  \
        }                                                                    \
    } while (0)

enum { REQ_SHORT, REP_SHORT, REQ_MEDIUM, REP_MEDIUM, REQ_LONG, REP_LONG, NH };
static gex_AM_Entry_t table[NH];
#define H(i) (table[i].gex_index)

static int check_bytes(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7)) return 0;
    return 1;
}

static void fill_bytes(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
}

static void req_short(gex_Token_t t, gex_AM_Arg_t a)
{
    REQUIRE(a == 42);
    gex_AM_ReplyShort1(t, H(REP_SHORT), 0, a + 1);
}
static void rep_short(gex_Token_t t, gex_AM_Arg_t a)
{
    REQUIRE(a == 43);
    got_short = 1;
}
static void req_medium(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    REQUIRE(n == NBYTES && check_bytes(buf, n, (unsigned)seed));
    gex_AM_ReplyMedium1(t, H(REP_MEDIUM), buf, n, GEX_EVENT_NOW, 0, seed);
}
static void rep_medium(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    REQUIRE(n == NBYTES && check_bytes(buf, n, (unsigned)seed));
    got_medium = 1;
}
static void req_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    gex_Token_Info_t info;
    REQUIRE(buf == (char *)my_segment + 8192);
    REQUIRE(n == NBYTES && check_bytes(buf, n, (unsigned)seed));
    REQUIRE(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    REQUIRE(info.gex_srcrank == (me + nranks - 1) % nranks);
    gex_AM_ReplyShort1(t, H(REP_LONG), 0, seed);
}
static void rep_long(gex_Token_t t, gex_AM_Arg_t seed)
{
    REQUIRE(seed == 7);
    got_long = 1;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "install-client", &argc, &argv, 0) != GASNET_OK)
        return 1;
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    REQUIRE(gex_Segment_Attach(&seg, tm, 1 << 20) == GASNET_OK);

    table[REQ_SHORT] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_short,
                                        GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, NULL};
    table[REP_SHORT] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep_short,
                                        GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, NULL};
    table[REQ_MEDIUM] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_medium,
                                         GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, NULL};
    table[REP_MEDIUM] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep_medium,
                                         GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 1, NULL, NULL};
    table[REQ_LONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_long,
                                       GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, NULL};
    table[REP_LONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep_long,
                                       GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, NULL};
    my_segment = gex_Segment_QueryAddr(seg);
    REQUIRE(gex_EP_RegisterHandlers(ep, table, NH) == GASNET_OK);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    gex_Rank_t right = (me + 1) % nranks;
    void *rseg = NULL, *lseg = my_segment;
    uintptr_t rsize = 0;
    REQUIRE(gex_Segment_QueryBound(tm, right, &rseg, NULL, &rsize) == GASNET_OK);
    REQUIRE(rseg != NULL && rsize >= (1 << 20));
    unsigned char *buf = (unsigned char *)malloc(2 * NBYTES);
    REQUIRE(buf != NULL);

    /* Active Messages. */
    gex_AM_RequestShort1(tm, right, H(REQ_SHORT), 0, 42);
    GASNET_BLOCKUNTIL(got_short);
    fill_bytes(buf, NBYTES, 5);
    gex_AM_RequestMedium1(tm, right, H(REQ_MEDIUM), buf, NBYTES, GEX_EVENT_NOW, 0, 5);
    GASNET_BLOCKUNTIL(got_medium);
    fill_bytes(buf, NBYTES, 7);
    gex_AM_RequestLong1(tm, right, H(REQ_LONG), buf, NBYTES, (char *)rseg + 8192,
                        GEX_EVENT_NOW, 0, 7);
    GASNET_BLOCKUNTIL(got_long);

    /* RMA: NB put, barrier, check locally; NBI get back. */
    fill_bytes(buf, NBYTES, 100 + me);
    gex_Event_Wait(gex_RMA_PutNB(tm, right, rseg, buf, NBYTES, GEX_EVENT_DEFER, 0));
    gex_Coll_BarrierBlocking(tm, 0);
    gex_Rank_t left = (me + nranks - 1) % nranks;
    REQUIRE(check_bytes(lseg, NBYTES, 100 + left));
    memset(buf, 0, 2 * NBYTES);
    gex_RMA_GetNBI(tm, buf, right, rseg, NBYTES, 0);
    gex_Event_t ev = gex_RMA_GetNB(tm, buf + NBYTES, right, rseg, NBYTES, 0);
    gex_NBI_Wait(GEX_EC_GET, 0);
    gex_Event_Wait(ev);
    REQUIRE(check_bytes(buf, NBYTES, 100 + me) && check_bytes(buf + NBYTES, NBYTES, 100 + me));
    gex_RMA_PutNBI(tm, right, (char *)rseg + NBYTES, buf, NBYTES, GEX_EVENT_NOW, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);

    gex_Coll_BarrierBlocking(tm, 0);
    if (me == 0) {
        printf("client: PASS on %u processes (%s)\n", (unsigned)nranks, GASNET_CONFIG_STRING);
        fflush(stdout);
    }
    gex_Coll_BarrierBlocking(tm, 0); /* the line is out before any rank exits */
    free(buf);
    gasnet_exit(0);
    return 0;
}
