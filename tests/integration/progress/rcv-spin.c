/* tests/integration/progress/rcv-spin.c: the AM receive progress thread
 * (GASNET_RCV_THREAD) runs handlers while the application does not call
 * GASNet.  PAR build; 2 processes whose peer is reached over verbs
 * (GASNET_SUPERNODE_MAXSIZE=1); over PSHM it SKIPs (the receive thread
 * serves verbs only: core/ibv/README "Progress threads").
 *
 *   rcv-spin on [N [MIN_MS]]  N round trips (default 200): rank 0 sends a
 *       Request and spins on memory until the Reply handler (run by its
 *       receive thread) stores the sequence number; rank 1 spins on memory,
 *       without calling GASNet, until the Request handler (run by its
 *       receive thread, which also sends the Reply) stores it.  Rank 0
 *       prints the round-trip times; the 90th percentile must be below
 *       10 ms (each direction is then seen within 10 ms).  MIN_MS > 0
 *       instead requires a median of at least MIN_MS (GASNET_RCV_THREAD_RATE
 *       check: each thread wakes at most RATE times per second).
 *   rcv-spin off  the control: without the thread, a spinning rank sees
 *       nothing for 300 ms (the handler needs a poll), then polls.
 * Every spin has a 10 s timeout.
 */
#include <gasnetex.h>
#include "../test.h"

#include <stdlib.h>
#include <string.h>

enum { H_PING, H_PONG, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
#define HIDX(h) (htable[h].gex_index)

static uint32_t ping_seen, pong_seen; /* written by handlers, read by spinning threads */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

static void ping_h(gex_Token_t t, gex_AM_Arg_t seq)
{
    __atomic_store_n(&ping_seen, (uint32_t)seq, __ATOMIC_RELEASE);
    gex_AM_ReplyShort1(t, HIDX(H_PONG), 0, seq);
}
static void pong_h(gex_Token_t t, gex_AM_Arg_t seq)
{
    (void)t;
    __atomic_store_n(&pong_seen, (uint32_t)seq, __ATOMIC_RELEASE);
}

/* Spins on *word (no GASNet call) until it equals want or limit_s passes.
 * Returns the seconds spent, or -1 on timeout. */
static double spin_for(uint32_t *word, uint32_t want, double limit_s)
{
    double t0 = test_now(), t;
    while ((t = test_now()) - t0 < limit_s)
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == want) return t - t0;
    return -1;
}

static void poll_for(uint32_t *word, uint32_t want)
{
    double t0 = test_now();
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != want) {
        CHECK_MSG(test_now() - t0 < 10, "no AM after 10 s of polling");
        gasnet_AMPoll();
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    htable[H_PING] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)ping_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "ping"};
    htable[H_PONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)pong_h, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, "pong"};
    test_init("rcv-spin", &argc, &argv, 0, 0, 2);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    int on = argc < 2 || strcmp(argv[1], "off") != 0;
    unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
    double min_ms = argc > 3 ? atof(argv[3]) : 0;
    if (n < 1) n = 1;
    if (test_size != 2) {
        if (test_rank == 0) printf("SKIP: rcv-spin runs on exactly 2 processes (got %u)\n", (unsigned)test_size);
        fflush(stdout);
        gasnet_exit(77);
    }
    gex_RankInfo_t *nbrs = NULL;
    gex_Rank_t nnbrs = 0;
    gex_System_QueryNbrhdInfo(&nbrs, &nnbrs, NULL);
    if (nnbrs > 1) {
        if (test_rank == 0)
            printf("SKIP: rank 1 is in rank 0's shared-memory neighbourhood; the receive "
                   "thread serves verbs only (run with GASNET_SUPERNODE_MAXSIZE=1)\n");
        fflush(stdout);
        gasnet_exit(77);
    }
    test_barrier();

    if (!on) { /* control: nothing runs the handler while we spin */
        if (test_rank == 0) {
            gex_AM_RequestShort1(test_tm, 1, HIDX(H_PING), 0, 1);
            CHECK_MSG(spin_for(&pong_seen, 1, 0.3) < 0, "a Reply handler ran while this rank spun "
                      "without GASNET_RCV_THREAD");
            poll_for(&pong_seen, 1);
        } else {
            CHECK_MSG(spin_for(&ping_seen, 1, 0.3) < 0, "a Request handler ran while this rank "
                      "spun without GASNET_RCV_THREAD");
            poll_for(&ping_seen, 1);
        }
        TEST_MSG0("control: without the receive thread no handler ran during 300 ms of spinning");
        test_pass();
    }

    double *rtt = calloc(n, sizeof(double));
    CHECK(rtt != NULL);
    for (unsigned i = 1; i <= n; i++) {
        if (test_rank == 0) {
            double t0 = test_now();
            gex_AM_RequestShort1(test_tm, 1, HIDX(H_PING), 0, (gex_AM_Arg_t)i);
            double s = spin_for(&pong_seen, i, 10);
            CHECK_MSG(s >= 0, "round trip %u: the Reply handler did not run within 10 s while "
                      "this rank spun (GASNET_RCV_THREAD=1 expected)", i);
            rtt[i - 1] = test_now() - t0;
        } else {
            CHECK_MSG(spin_for(&ping_seen, i, 10) >= 0, "Request %u: its handler did not run within "
                      "10 s while this rank spun (GASNET_RCV_THREAD=1 expected)", i);
        }
    }
    if (test_rank == 0) {
        qsort(rtt, n, sizeof(double), cmp_double);
        unsigned over = 0;
        for (unsigned i = 0; i < n; i++) over += rtt[i] >= 0.010;
        double p50 = rtt[n / 2] * 1e3, p90 = rtt[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] * 1e3;
        printf("rcv-spin: %u round trips, both ranks spinning on memory: min %.3f ms, median "
               "%.3f ms, p90 %.3f ms, max %.3f ms; %u of %u at or above 10 ms\n", n, rtt[0] * 1e3,
               p50, p90, rtt[n - 1] * 1e3, over, n);
        fflush(stdout);
        if (min_ms <= 0)
            CHECK_MSG(p90 < 10.0, "90th percentile round trip %.3f ms is not below 10 ms", p90);
        else
            CHECK_MSG(p50 >= min_ms, "median round trip %.3f ms is below %.1f ms: "
                      "GASNET_RCV_THREAD_RATE did not limit the wake-ups", p50, min_ms);
    }
    free(rtt);
    test_pass();
}
