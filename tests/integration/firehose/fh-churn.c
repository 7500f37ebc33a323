/* tests/integration/firehose/fh-churn.c: RMA from and to memory outside the
 * segment, through more distinct buffers than firehose's victim pool holds.
 *
 *   fh-churn [NBUF [BUFSZ [ROUNDS]]]   (defaults 48, 96 KiB, 6)
 *
 * Each rank works with its partner (rank ^ 1; odd job sizes: the last rank
 * also targets rank 0, whose segment data is then not checked).  Per round, for every buffer in a shuffled
 * order, with 3 of 4 picks from a small "hot" set: fill a malloc()ed buffer
 * with a fresh pattern, put it into the partner's segment, get it back into
 * another out-of-segment buffer and check every byte; then check the data
 * the partner put into this rank's segment.  Run with a small
 * GASNET_FIREHOSE_MAXVICTIM_M so that the buffers cannot all stay pinned
 * (evictions and re-pins), or with GASNET_PINNED_REGIONS_MAX=1 /
 * GASNET_USE_FIREHOSE=0 (bounce buffers).  Prints the firehose statistics
 * of rank 0 (local hit rate) from the library's test hook.
 *
 * Then the closing numbers: 4 MiB put and get bandwidth from/to an
 * out-of-segment buffer and from/to the local segment (same partner, same
 * run).  Over PSHM the puts are memcpy and firehose is not used.
 */
#include <gasnetex.h>

#include "../test.h"

/* Test hook of core/ibv/mem/fh_ops.c (not a public API). */
extern const char *gasnetc_fh_stats_line(char *buf, size_t len);

#define BW_BYTES ((size_t)4 << 20)
#define BW_REPS 9

static size_t nbuf = 48, bufsz = 96 << 10;
static int rounds = 6;

static uint64_t seed_of(int round, size_t k, gex_Rank_t from)
{
    return ((uint64_t)round << 32) ^ ((uint64_t)k << 8) ^ from ^ 0x5eed;
}

/* "96K", "1M" or a byte count. */
static size_t parse_size(const char *s)
{
    char *end;
    size_t v = (size_t)strtoul(s, &end, 0);
    if (*end == 'K' || *end == 'k') v <<= 10;
    if (*end == 'M' || *end == 'm') v <<= 20;
    return v;
}

static uint8_t *xmalloc_pages(size_t n)
{
    void *p = NULL;
    CHECK(posix_memalign(&p, 4096, n) == 0 && p);
    memset(p, 0, n);
    return (uint8_t *)p;
}

/* Buffer k of the round-th pass, 3 in 4 from the first quarter (hot set). */
static size_t pick(size_t i, int round)
{
    uint64_t x = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)round * 0xD1B54A32D192ED03ull;
    x ^= x >> 31;
    size_t hot = nbuf / 4 ? nbuf / 4 : 1;
    return (x & 3) ? (size_t)(x >> 8) % hot : (size_t)(x >> 8) % nbuf;
}

/* One 4 MiB blocking put (put != 0) or get between local and remote, in MB/s. */
static double xfer_mbs(int put, gex_Rank_t peer, void *local, void *remote)
{
    double t0 = test_now();
    if (put) CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, remote, local, BW_BYTES, 0));
    else CHECK_OK(gex_RMA_GetBlocking(test_tm, local, peer, remote, BW_BYTES, 0));
    return (double)BW_BYTES / (test_now() - t0) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of n samples (sorts them). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc > 1) nbuf = (size_t)strtoul(argv[1], NULL, 0);
    if (argc > 2) bufsz = parse_size(argv[2]);
    if (argc > 3) rounds = atoi(argv[3]);
    CHECK(nbuf >= 2 && bufsz >= 4096 && rounds >= 1);
    uintptr_t slots = 2 * bufsz; /* [0, bufsz): my partner writes here; then BW area */
    test_init("fh-churn", &argc, &argv, slots + BW_BYTES + 4096, 0, 2);
    gex_Rank_t peer = test_rank ^ 1u;
    if (peer >= test_size) peer = 0;
    int receives = (peer ^ 1u) == test_rank; /* a symmetric pair: one writer here */

    uint8_t **bufs = calloc(nbuf, sizeof *bufs);
    CHECK(bufs != NULL);
    for (size_t k = 0; k < nbuf; k++) bufs[k] = xmalloc_pages(bufsz);
    uint8_t *back = xmalloc_pages(bufsz);
    uint8_t *remote = (uint8_t *)test_seg_at(peer, 0);
    uint8_t *mine = (uint8_t *)test_seg_at(test_rank, 0);
    size_t ops = 0;

    for (int round = 0; round < rounds; round++) {
        size_t last = 0;
        for (size_t i = 0; i < nbuf; i++) {
            size_t k = pick(i, round);
            size_t n = bufsz - (k % 3) * 1000; /* odd lengths too */
            uint64_t seed = seed_of(round, i, test_rank);
            test_fill(bufs[k], n, seed);
            CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, remote, bufs[k], n, 0));
            /* Get into another out-of-segment buffer: a different pin. */
            uint8_t *dst = (i & 1) ? back : bufs[(k + 1) % nbuf];
            memset(dst, 0xee, n);
            CHECK_OK(gex_RMA_GetBlocking(test_tm, dst, peer, remote, n, 0));
            CHECK_PATTERN(dst, n, seed, "out-of-segment get of our put");
            ops += 2;
            last = i;
        }
        test_barrier();
        /* The partner's last put of this round is in my segment. */
        if (receives) {
            gex_Rank_t from = peer;
            size_t k = pick(last, round), n = bufsz - (k % 3) * 1000;
            CHECK_PATTERN(mine, n, seed_of(round, last, from), "partner's put in my segment");
        }
        test_barrier();
    }
    char line[512];
    gasnetc_fh_stats_line(line, sizeof line);
    TEST_MSG0("%zu out-of-segment puts+gets of up to %zu bytes through %zu buffers, %d rounds: "
              "data verified", ops, bufsz, nbuf, rounds);
    TEST_MSG0("firehose (rank 0): %s", line);

    /* Bandwidth: out-of-segment vs in-segment, 4 MiB. */
    uint8_t *big = xmalloc_pages(BW_BYTES);
    test_fill(big, BW_BYTES, 77);
    uint8_t *rbw = remote + slots, *lbw = mine + slots;
    memcpy(lbw, big, BW_BYTES);
    test_barrier();
    /* Interleaved (out, in) pairs, so that a loaded machine slows both
     * alike; the first pass pins the out-of-segment buffer (misses). */
    double s[4][BW_REPS];
    for (int r = 0; r < BW_REPS; r++) {
        s[0][r] = xfer_mbs(1, peer, big, rbw);
        s[1][r] = xfer_mbs(1, peer, lbw, rbw);
        s[2][r] = xfer_mbs(0, peer, big, rbw);
        s[3][r] = xfer_mbs(0, peer, lbw, rbw);
    }
    CHECK_PATTERN(big, BW_BYTES, 77, "4 MiB get into out-of-segment memory");
    CHECK_PATTERN(lbw, BW_BYTES, 77, "4 MiB get into the segment");
    double m[4];
    for (int i = 0; i < 4; i++) m[i] = median(s[i], BW_REPS);
    test_barrier();
    TEST_MSG0("4 MiB put (median of %d): out-of-segment %.1f MB/s, in-segment %.1f MB/s "
              "(%.2fx); 4 MiB get: out-of-segment %.1f MB/s, in-segment %.1f MB/s (%.2fx)",
              BW_REPS, m[0], m[1], m[0] / m[1], m[2], m[3], m[2] / m[3]);
    gasnetc_fh_stats_line(line, sizeof line);
    TEST_MSG0("firehose after bandwidth (rank 0): %s", line);
    test_pass();
}
