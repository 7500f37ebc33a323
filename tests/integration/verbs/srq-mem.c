/* tests/integration/verbs/srq-mem.c: measures what the AM transport pins,
 * for the memory model of core/ibv/mem/README ("Memory and start-up model").
 *
 *   srq-mem [K]   (default K = 32)
 *
 * Every rank reads /proc/self/status (VmPin = registered memory, VmRSS,
 * VmSize) right after gex_Client_Init (AM pools only: nothing else is
 * registered yet), attaches a 64 KiB segment, then sends K largest-Medium
 * Requests to every other rank, each answered by a largest-Medium Reply,
 * and reads the counters again (the segment's registration included), so
 * pools that grow under traffic show up.  Rank 0 prints one line per rank:
 *   srq-mem: N=4 rank 1 init 0.123 s: VmPin start 1056 KiB after 1568 KiB ...
 * and PASS when every Reply came back with the right bytes.
 */
#include <gasnetex.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "../test.h"

static gex_AM_Entry_t ht[2];
static volatile long replies, bad;

static void vm(long *pin, long *rss, long *size)
{
    *pin = *rss = *size = -1;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    if (!f) return;
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "VmPin:", 6)) *pin = strtol(line + 6, NULL, 10);
        if (!strncmp(line, "VmRSS:", 6)) *rss = strtol(line + 6, NULL, 10);
        if (!strncmp(line, "VmSize:", 7)) *size = strtol(line + 7, NULL, 10);
    }
    fclose(f);
}

static void h_req(gex_Token_t t, void *buf, size_t n)
{
    const unsigned char *b = buf;
    if (n && (b[0] != 0x5a || b[n - 1] != 0x5a)) bad++;
    CHECK_OK(gex_AM_ReplyMedium0(t, ht[1].gex_index, buf, n, GEX_EVENT_NOW, 0));
}

static void h_rep(gex_Token_t t, void *buf, size_t n)
{
    const unsigned char *b = buf;
    (void)t;
    if (n && (b[0] != 0x5a || b[n - 1] != 0x5a)) bad++;
    replies++;
}

int main(int argc, char **argv)
{
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    test_init("srq-mem", &argc, &argv, 0, 0, 2);
    gettimeofday(&t1, NULL);
    double init_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_usec - t0.tv_usec) / 1e6;
    long k = argc > 1 ? strtol(argv[1], NULL, 10) : 32;
    CHECK(k > 0);
    long v0[3], v1[3];
    vm(&v0[0], &v0[1], &v0[2]);

    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, 65536));
    long segk = (long)(gex_Segment_QuerySize(test_segment) / 1024);
    ht[0] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0,
                             NULL, "req"};
    ht[1] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 0,
                             NULL, "rep"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, ht, 2));
    size_t n = gex_AM_LUBRequestMedium();
    if (gex_AM_LUBReplyMedium() < n) n = gex_AM_LUBReplyMedium();
    unsigned char *buf = malloc(n);
    CHECK(buf != NULL);
    memset(buf, 0x5a, n);
    test_barrier();
    long want = 0;
    for (long i = 0; i < k; i++)
        for (gex_Rank_t d = 1; d < test_size; d++) {
            CHECK_OK(gex_AM_RequestMedium0(test_tm, (test_rank + d) % test_size, ht[0].gex_index,
                                           buf, n, GEX_EVENT_NOW, 0));
            want++;
        }
    GASNET_BLOCKUNTIL(replies == want);
    test_barrier();
    vm(&v1[0], &v1[1], &v1[2]);
    CHECK_EQ(bad, 0);

    /* rank 0 prints everyone's numbers, in rank order */
    long mine[8] = {v0[0], v1[0], v0[1], v1[1], v0[2], v1[2], (long)(init_s * 1e6), segk};
    for (gex_Rank_t r = 0; r < test_size; r++) {
        if (r == test_rank) {
            printf("srq-mem: N=%u rank %u init %.3f s: VmPin start %ld KiB after %ld KiB "
                   "(incl. the %ld KiB segment when registered); VmRSS %ld -> %ld KiB; VmSize %ld -> %ld KiB; "
                   "%ld x %zu-byte Medium round trips per peer\n",
                   (unsigned)test_size, (unsigned)r, (double)mine[6] / 1e6, mine[0], mine[1],
                   mine[7], mine[2], mine[3], mine[4], mine[5], k, n);
            fflush(stdout);
        }
        test_barrier();
    }
    free(buf);
    test_pass();
}
