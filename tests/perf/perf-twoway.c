/* tests/perf/perf-twoway.c: two-way AM traffic, for runs with more
 * processes than cores (issue 17 item 6).
 *
 *   gasnetrun_ibv -n 4 tests/perf/perf-twoway [--iters 20000] [--sizes 8,4K]
 *                 [--tests ...] [--timeout S] [--switches] [--json F]
 *
 * Ranks pair up (r with r^1; an odd last rank only joins the barriers) and
 * both ranks of every pair send at the same time:
 *   tw_short_flood   N Short Requests each way, each answered by a Short
 *                    Reply; done when the sender has all N Replies
 *   tw_medium_flood  the same with N-byte Medium Requests echoed by N-byte
 *                    Medium Replies
 *   tw_long_flood    the same with N-byte Long Requests into the partner's
 *                    segment echoed by Long Replies into the sender's
 *   tw_long_reqreq   Request-Request ping-pong: the even rank sends a Long
 *                    Request of N bytes, the odd rank's main loop sees it
 *                    arrive and sends a Long Request back (no Replies)
 * Value: us per message (per round trip for tw_long_reqreq) of the slowest
 * pair: rank 0 times barrier to barrier, so every pair has finished.
 * --switches: every rank also prints its context switches per message over
 * the timed repetitions (getrusage; voluntary = it slept, involuntary = it
 * was preempted or its sched_yield ran another process), the scheduler's
 * share of the time, as lines "# switches RANK TEST SIZE TOTAL VOLUNTARY".
 * These are the patterns of GASNet's testam "roundtrip flood" and "ping-pong"
 * run by both ranks at once.  Every wait gives up after --timeout seconds
 * (default 120) with a message naming the test and the counts, so a
 * collapse shows as a clear failure instead of a hang.
 */
#include "tests/perf/bench-gex.h"

#include <string.h>
#include <sys/resource.h>

enum { H_REQ_S, H_REQ_M, H_REQ_L, H_REP_S, H_REP_M, H_REP_L, H_PP, NH };

static volatile unsigned long replies; /* Replies received */
static volatile unsigned long pp_seen; /* ping-pong Requests received */
static size_t region;                  /* bytes per segment region */
static gex_Rank_t partner;             /* r ^ 1, or r itself when unpaired */
static double timeout_s = 120;
static int show_switches; /* --switches */

/* Context switches of this process so far: total, and the voluntary ones. */
static void switches(long *total, long *vol)
{
    struct rusage ru;
    *total = *vol = 0;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        *total = ru.ru_nvcsw + ru.ru_nivcsw;
        *vol = ru.ru_nvcsw;
    }
}

static gex_AM_Entry_t htab[NH];
#define HIDX(h) (htab[h].gex_index)

static void req_s(gex_Token_t t) { BG_OK(gex_AM_ReplyShort0(t, HIDX(H_REP_S), 0)); }
static void req_m(gex_Token_t t, void *buf, size_t nbytes)
{
    BG_OK(gex_AM_ReplyMedium0(t, HIDX(H_REP_M), buf, nbytes, GEX_EVENT_NOW, 0));
}
static void req_l(gex_Token_t t, void *buf, size_t nbytes)
{
    /* Echo into the sender's second region (its first is the source). */
    void *dest = bg_seg_at(bg_token_src(t), region);
    BG_OK(gex_AM_ReplyLong0(t, HIDX(H_REP_L), buf, nbytes, dest, GEX_EVENT_NOW, 0));
}
static void rep_s(gex_Token_t t) { (void)t; replies++; }
static void rep_ml(gex_Token_t t, void *buf, size_t nbytes)
{
    (void)t, (void)buf, (void)nbytes;
    replies++;
}
static void pp(gex_Token_t t, void *buf, size_t nbytes)
{
    (void)t, (void)buf, (void)nbytes;
    pp_seen++;
}

#define REQ GEX_FLAG_AM_REQUEST
#define REP GEX_FLAG_AM_REPLY
#define ENTRY(i, fn, flags) htab[i] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)(fn), (flags), 0, NULL, #fn}

static void fill_handlers(void)
{
    ENTRY(H_REQ_S, req_s, REQ | GEX_FLAG_AM_SHORT);
    ENTRY(H_REQ_M, req_m, REQ | GEX_FLAG_AM_MEDIUM);
    ENTRY(H_REQ_L, req_l, REQ | GEX_FLAG_AM_LONG);
    ENTRY(H_REP_S, rep_s, REP | GEX_FLAG_AM_SHORT);
    ENTRY(H_REP_M, rep_ml, REP | GEX_FLAG_AM_MEDIUM);
    ENTRY(H_REP_L, rep_ml, REP | GEX_FLAG_AM_LONG);
    ENTRY(H_PP, pp, REQ | GEX_FLAG_AM_LONG);
}

/* Polls until *counter reaches want; dies after --timeout seconds. */
static void wait_for(volatile unsigned long *counter, unsigned long want, const char *test)
{
    double deadline = bench_now() + timeout_s;
    unsigned spins = 0;
    while (*counter < want) {
        BG_OK(gasnet_AMPoll());
        if (++spins % 1024 == 0 && bench_now() > deadline)
            bg_die("%s: waited %.0f s for message %lu of %lu (partner rank %u); progress "
                   "collapsed", test, timeout_s, *counter + 1, want, (unsigned)partner);
    }
}

enum kind { K_SHORT, K_MEDIUM, K_LONG };

static void flood(enum kind k, size_t n, long iters, const char *test)
{
    void *src = bg_seg_at(bg_rank, 0), *dst = bg_seg_at(partner, 0);
    unsigned long want = replies + (unsigned long)iters;
    for (long i = 0; i < iters; i++) {
        if (k == K_SHORT)
            BG_OK(gex_AM_RequestShort0(bg_tm, partner, HIDX(H_REQ_S), 0));
        else if (k == K_MEDIUM)
            BG_OK(gex_AM_RequestMedium0(bg_tm, partner, HIDX(H_REQ_M), src, n, GEX_EVENT_NOW, 0));
        else
            BG_OK(gex_AM_RequestLong0(bg_tm, partner, HIDX(H_REQ_L), src, n, dst, GEX_EVENT_NOW,
                                      0));
    }
    wait_for(&replies, want, test);
}

static void reqreq(size_t n, long iters, const char *test)
{
    void *src = bg_seg_at(bg_rank, 0), *dst = bg_seg_at(partner, 0);
    /* Not pp_seen: the partner's first Request may arrive while this rank
     * is still in the barrier before this call. */
    static unsigned long pp_total;
    unsigned long base = pp_total;
    pp_total += (unsigned long)iters;
    int first = (bg_rank % 2) == 0;
    for (long i = 0; i < iters; i++) {
        if (first) {
            BG_OK(gex_AM_RequestLong0(bg_tm, partner, HIDX(H_PP), src, n, dst, GEX_EVENT_NOW, 0));
            wait_for(&pp_seen, base + (unsigned long)i + 1, test);
        } else {
            wait_for(&pp_seen, base + (unsigned long)i + 1, test);
            BG_OK(gex_AM_RequestLong0(bg_tm, partner, HIDX(H_PP), src, n, dst, GEX_EVENT_NOW, 0));
        }
    }
}

static void run_iters(const char *test, enum kind k, size_t n, long iters)
{
    if (partner == bg_rank) return;
    if (strcmp(test, "tw_long_reqreq") == 0) reqreq(n, iters, test);
    else flood(k, n, iters, test);
}

static size_t max_payload(enum kind k)
{
    size_t req, rep;
    if (k == K_SHORT) return 0;
    if (k == K_MEDIUM) {
        req = gex_AM_MaxRequestMedium(bg_tm, partner, GEX_EVENT_NOW, 0, 0);
        rep = gex_AM_MaxReplyMedium(bg_tm, partner, GEX_EVENT_NOW, 0, 0);
    } else {
        req = gex_AM_MaxRequestLong(bg_tm, partner, GEX_EVENT_NOW, 0, 0);
        rep = gex_AM_MaxReplyLong(bg_tm, partner, GEX_EVENT_NOW, 0, 0);
    }
    return req < rep ? req : rep;
}

static void run_one(const char *test, enum kind k, size_t n)
{
    if (!bench_selected(test)) return;
    const char *unit = "us";
    size_t max = max_payload(k);
    if (n > max || n > region) {
        if (bg_rank == 0) bench_record_skip(test, n, unit, "size exceeds the AM payload limit");
        return;
    }
    long iters = bench_iters(n), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    bg_barrier();
    if (warm) run_iters(test, k, n, warm);
    bg_barrier();
    long f0 = bench_faults(), sw0, vol0, sw1, vol1;
    switches(&sw0, &vol0);
    for (int r = 0; r < bench_opts.reps; r++) {
        bg_barrier();
        double t0 = bench_now();
        run_iters(test, k, n, iters);
        bg_barrier();
        vals[r] = (bench_now() - t0) / (double)iters * 1e6;
    }
    switches(&sw1, &vol1);
    if (show_switches && partner != bg_rank) {
        double msgs = (double)iters * bench_opts.reps;
        printf("# switches %u %s %zu %.3f %.3f\n", (unsigned)bg_rank, test, n,
               (double)(sw1 - sw0) / msgs, (double)(vol1 - vol0) / msgs);
        fflush(stdout);
    }
    if (bg_rank == 0) bench_record(test, n, unit, vals, bench_opts.reps, iters, bench_faults() - f0);
}

int main(int argc, char **argv)
{
    fill_handlers();
    bench_opts.iters = 20000;
    bench_opts.reps = 3;
    bench_opts.max_bytes = 0;
    bench_opts.prog = "perf-twoway";
    /* --timeout S and --switches are ours; the rest are the common options. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--switches") == 0) {
            show_switches = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            argc--;
            i--;
            continue;
        }
        if (i + 1 >= argc) break;
        if (strcmp(argv[i], "--timeout") == 0) {
            char *end;
            timeout_s = strtod(argv[i + 1], &end);
            if (*end || timeout_s <= 0) {
                fprintf(stderr, "perf-twoway: --timeout %s: want a positive number of seconds\n",
                        argv[i + 1]);
                return 2;
            }
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 1) * sizeof *argv);
            argc -= 2;
            i--;
        }
    }
    bench_parse_args(argc, argv, "8,4K", "  --timeout S   give up a wait after S seconds (120)\n"
                     "  --switches    print each rank's context switches per message\n");
    region = bg_max_size();
    if (region < 64) region = 64;
    region = (region + 4095) / 4096 * 4096;
    bg_init("perf-twoway", &argc, &argv, 2 * region, htab, NH);
    partner = (bg_rank ^ 1) < bg_size ? (bg_rank ^ 1) : bg_rank;
    if (!bench_opts.cold) memset(bg_seg_at(bg_rank, 0), 0x5a, 2 * region);

    run_one("tw_short_flood", K_SHORT, 0);
    for (int i = 0; i < bench_opts.nsizes; i++)
        run_one("tw_medium_flood", K_MEDIUM, bench_opts.sizes[i]);
    for (int i = 0; i < bench_opts.nsizes; i++)
        run_one("tw_long_flood", K_LONG, bench_opts.sizes[i]);
    for (int i = 0; i < bench_opts.nsizes; i++)
        run_one("tw_long_reqreq", K_LONG, bench_opts.sizes[i]);
    bg_finish();
}
