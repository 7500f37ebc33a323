/* tests/integration/demo.c: a small, readable GASNet-EX job.
 *
 *   gasnetrun_ibv -n 4 tests/integration/demo
 *
 * Ranks pair up (0-1, 2-3, ...).  Each pair measures the round-trip time of
 * an Active Message ping-pong and the bandwidth of 1 MiB puts and gets;
 * then everybody times a barrier.  Rank 0 prints a short table of its own
 * pair's results.  Takes well under a few seconds.
 */
#include <gasnetex.h>
#include "test.h"

#define PINGS 2000
#define XFER ((size_t)1 << 20)
#define XFERS 40
#define BARRIERS 500

static volatile unsigned pongs;
static gex_AM_Index_t h_ping, h_pong, h_pong_med, h_ping_med;

static void ping(gex_Token_t t) { gex_AM_ReplyShort(t, h_pong, 0); }
static void pong(gex_Token_t t) { pongs++; }
static void ping_med(gex_Token_t t, void *buf, size_t nbytes)
{
    gex_AM_ReplyMedium(t, h_pong_med, buf, nbytes, GEX_EVENT_NOW, 0);
}
static void pong_med(gex_Token_t t, void *buf, size_t nbytes) { pongs++; }

static gex_AM_Entry_t handlers[] = {
    {0, (gex_AM_Fn_t)ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "ping"},
    {0, (gex_AM_Fn_t)pong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "pong"},
    {0, (gex_AM_Fn_t)pong_med, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 0, NULL, "pong_med"},
    {0, (gex_AM_Fn_t)ping_med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "ping_med"},
};

/* Round-trip time in microseconds of `pings` AM Requests answered by Replies
 * (nbytes == 0: Short, else Medium). */
static double am_roundtrip(gex_Rank_t peer, size_t nbytes, void *buf)
{
    double t0 = test_now();
    for (unsigned i = 0; i < PINGS; i++) {
        unsigned want = pongs + 1;
        if (nbytes == 0)
            gex_AM_RequestShort(test_tm, peer, h_ping, 0);
        else
            gex_AM_RequestMedium(test_tm, peer, h_ping_med, buf, nbytes,
                                 GEX_EVENT_NOW, 0);
        GASNET_BLOCKUNTIL(pongs == want);
    }
    return (test_now() - t0) / PINGS * 1e6;
}

/* Bandwidth in MB/s of XFERS transfers of XFER bytes (puts or gets). */
static double bandwidth(gex_Rank_t peer, int is_put, void *local)
{
    void *remote = test_seg_at(peer, 0);
    /* One untimed transfer: maps the peer's pages into this process, so
     * first-touch page faults (~10 us each here) stay out of the timing. */
    if (is_put)
        gex_RMA_PutBlocking(test_tm, peer, remote, local, XFER, 0);
    else
        gex_RMA_GetBlocking(test_tm, local, peer, remote, XFER, 0);
    double t0 = test_now();
    for (unsigned i = 0; i < XFERS; i++) {
        if (is_put)
            gex_RMA_PutNBI(test_tm, peer, remote, local, XFER, GEX_EVENT_DEFER, 0);
        else
            gex_RMA_GetNBI(test_tm, local, peer, remote, XFER, 0);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    return (double)XFER * XFERS / (test_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    test_init("demo", &argc, &argv, 2 * XFER, 0, 1);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, handlers, 4));
    h_ping = handlers[0].gex_index;
    h_pong = handlers[1].gex_index;
    h_pong_med = handlers[2].gex_index;
    h_ping_med = handlers[3].gex_index;
    test_barrier();

    gex_Rank_t hosts = 0;
    gex_System_QueryMyPosition(NULL, NULL, &hosts, NULL);
    if (test_rank == 0) {
        printf("GASNet-EX demo: %u processes on %u host(s), %s\n", (unsigned)test_size,
               (unsigned)hosts, GASNET_CONFIG_STRING);
        fflush(stdout);
    }

    /* Pairs: even ranks drive, odd ranks answer; a leftover rank talks to
     * itself. */
    gex_Rank_t peer = (test_rank ^ 1) < test_size ? (test_rank ^ 1) : test_rank;
    int driver = (test_rank % 2 == 0);
    char *local = (char *)test_seg_at(test_rank, XFER);
    memset(local, 7, XFER);
    double rtt_short = 0, rtt_med = 0, put_bw = 0, get_bw = 0;
    test_barrier();
    if (driver) rtt_short = am_roundtrip(peer, 0, local);
    test_barrier();
    if (driver) rtt_med = am_roundtrip(peer, 4096, local);
    test_barrier();
    if (driver) put_bw = bandwidth(peer, 1, local);
    test_barrier();
    if (driver) get_bw = bandwidth(peer, 0, local);
    test_barrier();
    double t0 = test_now();
    for (int i = 0; i < BARRIERS; i++) test_barrier();
    double bar_us = (test_now() - t0) / BARRIERS * 1e6;

    if (test_rank == 0) {
        printf("  %-40s %12s\n", "measurement (rank 0 with its partner)", "result");
        printf("  %-40s %9.2f us\n", "AM Short round trip", rtt_short);
        printf("  %-40s %9.2f us\n", "AM Medium 4 KiB round trip", rtt_med);
        printf("  %-40s %7.0f MB/s\n", "put bandwidth, 1 MiB transfers", put_bw);
        printf("  %-40s %7.0f MB/s\n", "get bandwidth, 1 MiB transfers", get_bw);
        printf("  %-40s %9.2f us\n", "barrier, all processes", bar_us);
        fflush(stdout);
    }
    test_pass();
    return 0;
}
