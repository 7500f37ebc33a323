/* tests/integration/relia/loopback.c: Active Messages to one's own rank run
 * synchronously, inside the call, in the caller's thread (issue 19 item 8).
 *
 * GASNet runs loopback AMs inside the Request call, and clients rely on it:
 * GASNet's testcontend has threads spinning in gex_RMA_PutBlocking (which
 * need not poll) until a flag is set by a "done" handler that another thread
 * sent to its own rank before waiting in a pthread barrier.  If the handler
 * ran only at a later poll, that job would hang.
 *
 * Checks, on every rank:
 *   1. sync: right after gex_AM_Request{Short,Medium,Long} to self returns,
 *      its handler has run in this thread, and the Reply it sent to self has
 *      run too (nested in the Request handler); Medium/Long payloads arrive
 *      intact (sizes 0..max Medium, Long into the own segment).
 *   2. contend (PAR build, NTHREADS threads): ROUNDS rounds of the
 *      testcontend pattern: threads 1.. put to the next rank in a loop until
 *      a flag is set; thread 0 puts a few times, sends the "done" Short to
 *      itself and enters the pthread barrier.  Each spin has a deadline and
 *      fails with a line saying what did not happen.
 */
#include <gasnetex.h>
#include <pthread.h>
#include "../test.h"

#define NTHREADS 4
#define ROUNDS 20
#define DEADLINE_S 20.0

static gex_AM_Entry_t htable[4];
enum { H_DONE, H_REQ_MED, H_REQ_LONG, H_REP };

static volatile int done_flag;
static __thread int my_tid = -1;  /* the thread that runs a handler */
static int handler_tid, reply_tid; /* set by the handlers */
static size_t got_bytes;
static unsigned char *medbuf;

static void done_h(gex_Token_t t, gex_AM_Arg_t tid)
{
    (void)t;
    handler_tid = my_tid;
    CHECK_EQ(tid, my_tid);
    __atomic_store_n(&done_flag, 1, __ATOMIC_RELEASE);
}

static void rep_h(gex_Token_t t, gex_AM_Arg_t tag)
{
    (void)t;
    reply_tid = my_tid;
    __atomic_store_n(&done_flag, (int)tag, __ATOMIC_RELEASE);
}

static void req_med_h(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    handler_tid = my_tid;
    got_bytes = nb;
    CHECK_PATTERN(buf, nb, (uint64_t)seed, "loopback Medium payload");
    /* A Reply to self runs nested, before this handler returns. */
    reply_tid = -1;
    CHECK_OK(gex_AM_ReplyShort(t, htable[H_REP].gex_index, 0, 7));
    CHECK_MSG(reply_tid == my_tid, "Reply to self did not run inside gex_AM_ReplyShort");
}

static void req_long_h(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    handler_tid = my_tid;
    got_bytes = nb;
    if (nb) CHECK_PTR_EQ(buf, test_seg_at(test_rank, 0));
    CHECK_PATTERN(buf, nb, (uint64_t)seed, "loopback Long payload");
    CHECK_OK(gex_AM_ReplyShort(t, htable[H_REP].gex_index, 0, 9));
}

/* 1: synchronous loopback, from the calling thread. */
static void check_sync(void)
{
    size_t maxmed = gex_AM_MaxRequestMedium(test_tm, test_rank, GEX_EVENT_NOW, 0, 1);
    size_t sizes[] = {0, 1, 100, 511, 512, 513, 4096, maxmed};
    my_tid = 0;
    done_flag = 0;
    handler_tid = -1;
    CHECK_OK(gex_AM_RequestShort(test_tm, test_rank, htable[H_DONE].gex_index, 0, 0));
    CHECK_MSG(done_flag == 1 && handler_tid == 0,
              "the Short handler to self did not run inside gex_AM_RequestShort");
    medbuf = malloc(maxmed);
    CHECK(medbuf != NULL);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        test_fill(medbuf, n, 1000 + i);
        done_flag = 0;
        handler_tid = -1;
        CHECK_OK(gex_AM_RequestMedium(test_tm, test_rank, htable[H_REQ_MED].gex_index, medbuf,
                                      n, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)(1000 + i)));
        CHECK_MSG(handler_tid == 0 && got_bytes == n && done_flag == 7,
                  "Medium of %zu bytes to self: handler/Reply did not run inside the call", n);
        memset(medbuf, 0xee, n); /* the handler saw a copy, not this buffer */
        size_t ln = n < test_seglen[test_rank] ? n : test_seglen[test_rank];
        test_fill(medbuf, ln, 2000 + i);
        done_flag = 0;
        handler_tid = -1;
        CHECK_OK(gex_AM_RequestLong(test_tm, test_rank, htable[H_REQ_LONG].gex_index, medbuf,
                                    ln, test_seg_at(test_rank, 0), GEX_EVENT_NOW, 0,
                                    (gex_AM_Arg_t)(2000 + i)));
        CHECK_MSG(handler_tid == 0 && got_bytes == ln && done_flag == 9,
                  "Long of %zu bytes to self: handler/Reply did not run inside the call", ln);
    }
    free(medbuf);
}

/* 2: the testcontend pattern. */
#ifdef GASNET_PAR
static pthread_barrier_t tbar;
static int64_t word;

static void *contend_main(void *arg)
{
    my_tid = (int)(uintptr_t)arg;
    gex_Rank_t peer = (test_rank + 1) % test_size;
    void *dst = test_seg_at(peer, 64 + 8 * (size_t)my_tid);
    double end = test_now() + DEADLINE_S;
    unsigned long puts = 0;
    pthread_barrier_wait(&tbar);
    if (my_tid == 0) {
        for (int i = 0; i < 10; i++) CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, dst, &word, 8, 0));
        CHECK_OK(gex_AM_RequestShort(test_tm, test_rank, htable[H_DONE].gex_index, 0, 0));
    } else {
        while (!__atomic_load_n(&done_flag, __ATOMIC_ACQUIRE)) {
            CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, dst, &word, 8, 0));
            if ((++puts & 255) == 0 && test_now() > end)
                CHECK_MSG(0, "thread %d: the done flag, set by a Short that thread 0 sent to "
                             "its own rank, never came (%lu puts, %.0f s)",
                          my_tid, puts, DEADLINE_S);
        }
    }
    pthread_barrier_wait(&tbar);
    return NULL;
}

static void check_contend(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t th[NTHREADS];
        done_flag = 0;
        CHECK(pthread_barrier_init(&tbar, NULL, NTHREADS) == 0);
        for (int t = 0; t < NTHREADS; t++)
            CHECK(pthread_create(&th[t], NULL, contend_main, (void *)(uintptr_t)t) == 0);
        for (int t = 0; t < NTHREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
        pthread_barrier_destroy(&tbar);
        CHECK_MSG(handler_tid == 0, "round %d: the done handler ran on thread %d, not the "
                                    "sender's",
                  round, handler_tid);
        test_barrier();
    }
    TEST_MSG0("testcontend pattern passed: rounds=%d threads=%d", ROUNDS, NTHREADS);
}
#else
static void check_contend(void) {}
#endif

int main(int argc, char **argv)
{
    test_init("loopback", &argc, &argv, 1 << 20, 0, 1);
    htable[H_DONE] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)done_h,
                                      GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "done"};
    htable[H_REQ_MED] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_med_h,
                                         GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL,
                                         "req_med"};
    htable[H_REQ_LONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_long_h,
                                          GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL,
                                          "req_long"};
    htable[H_REP] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep_h, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT,
                                     1, NULL, "rep"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, 4));
    test_barrier();
    check_sync();
    test_barrier();
    check_contend();
    test_barrier();
    TEST_MSG0("PASS loopback (%u processes)", (unsigned)test_size);
    gasnet_exit(0);
    return 0;
}
