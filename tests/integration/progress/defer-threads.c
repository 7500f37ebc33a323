/* tests/integration/progress/defer-threads.c: GEX_FLAG_DEFER_THREADS and
 * gex_System_QueryProgressThreads (core/ibv/wr/README "Progress threads").
 * PAR build; 2 processes whose peer is reached over verbs
 * (GASNET_SUPERNODE_MAXSIZE=1) with GASNET_RCV_THREAD=1 and
 * GASNET_SND_THREAD=1; over PSHM it SKIPs (no verbs threads there).
 *
 *   defer-threads defer [N]   gex_Client_Init with GEX_FLAG_DEFER_THREADS:
 *     1. the query lists one receive and one send thread per HCA, each with
 *        a function, an argument and the HCA's name; a second query gives
 *        the same array; NULL outputs are refused;
 *     2. the threads have not started: rank 0 sends GO, rank 1 answers with
 *        a Request that is not handled while rank 0 spins on memory for
 *        500 ms.  If it was handled on rank 0's own thread (inside the GO
 *        call, which may poll), the library did nothing wrong but the step
 *        proved nothing: GO again, at most 3 times.  Handled on any other
 *        thread: FAIL;
 *     3. rank 0 runs each entry's function on a pthread of its own (in
 *        reverse order: order does not matter), then computes (spins on
 *        memory, no GASNet call) until the Request's handler has run: on
 *        the thread rank 0 made for the receive entry;
 *     4. rank 1 starts its threads too; N round trips (default 50) in which
 *        each rank computes while the peer's message is handled by its
 *        client-started receive thread;
 *     5. gasnet_exit stops the client's threads (the job must end, within
 *        the harness's timeout, with code 0).
 *   defer-threads nodefer   without the flag: the library runs its threads,
 *     the query reports none for the client to run (0 entries, NULL), and a
 *     handler still runs while the application spins.
 * Every spin has a 10 s timeout.
 */
#include <gasnetex.h>
#include "../test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { H_PING, H_PONG, H_GO, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
#define HIDX(h) (htable[h].gex_index)

static uint32_t ping_seen, pong_seen, go_seen; /* written by handlers, read by spinning threads */
static pthread_t handler_thread;      /* the thread that ran the last handler */
static pthread_t main_tid;            /* the application's thread */
static uint32_t wrong_thread;         /* handlers run by neither it nor the receive thread */
static pthread_t rcv_tid;             /* the thread this client made for the receive entry */
static int have_rcv_tid;

static void note_thread(void)
{
    handler_thread = pthread_self();
    /* The main thread runs handlers only inside a GASNet call (a barrier's
     * poll may take the next ping); while it computes, only a progress
     * thread can, and that must be the receive entry's. */
    if (have_rcv_tid && !pthread_equal(handler_thread, rcv_tid) &&
        !pthread_equal(handler_thread, main_tid))
        __atomic_add_fetch(&wrong_thread, 1, __ATOMIC_RELAXED);
}
static void ping_h(gex_Token_t t, gex_AM_Arg_t seq)
{
    note_thread();
    __atomic_store_n(&ping_seen, (uint32_t)seq, __ATOMIC_RELEASE);
    gex_AM_ReplyShort1(t, HIDX(H_PONG), 0, seq);
}
static void pong_h(gex_Token_t t, gex_AM_Arg_t seq)
{
    (void)t;
    note_thread();
    __atomic_store_n(&pong_seen, (uint32_t)seq, __ATOMIC_RELEASE);
}

static void go_h(gex_Token_t t, gex_AM_Arg_t seq)
{
    (void)t;
    __atomic_store_n(&go_seen, (uint32_t)seq, __ATOMIC_RELEASE);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The application's work: spins on memory (no GASNet call) until
 * *word >= want or limit_s, or -- poll -- polls GASNet.  1 when seen. */
static volatile double sink;
static int compute_until(uint32_t *word, uint32_t want, double limit_s, int poll)
{
    double t0 = now_s(), x = 1.0;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < want) {
        if (now_s() - t0 >= limit_s) return 0;
        if (poll) gasnet_AMPoll();
        else for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
    }
    sink = x;
    return 1;
}

/* Checks the entries; returns how many are receive threads. */
static unsigned check_entries(unsigned count, const gex_ProgressThreadInfo_t *info)
{
    unsigned nrcv = 0, nsnd = 0;
    CHECK_MSG(count > 0 && info != NULL, "GEX_FLAG_DEFER_THREADS with GASNET_RCV_THREAD=1 and "
              "GASNET_SND_THREAD=1: the query returned %u entries (%p)", count, (const void *)info);
    for (unsigned i = 0; i < count; i++) {
        const gex_ProgressThreadInfo_t *e = &info[i];
        CHECK_MSG(e->gex_progress_fn != NULL, "entry %u has no function", i);
        CHECK_MSG(e->gex_device_list != NULL && e->gex_device_list[0], "entry %u names no device", i);
        CHECK_MSG(!strchr(e->gex_device_list, ':'), "entry %u: device '%s' carries a port number",
                  i, e->gex_device_list);
        CHECK_MSG(e->gex_thread_roles == GEX_THREAD_ROLE_RCV ||
                      e->gex_thread_roles == GEX_THREAD_ROLE_SND,
                  "entry %u: roles 0x%x", i, e->gex_thread_roles);
        if (e->gex_thread_roles == GEX_THREAD_ROLE_RCV) nrcv++;
        else nsnd++;
        if (test_rank == 0)
            printf("defer-threads: entry %u: %s thread on %s\n", i,
                   e->gex_thread_roles == GEX_THREAD_ROLE_RCV ? "receive" : "send",
                   e->gex_device_list);
    }
    CHECK_MSG(nrcv >= 1 && nrcv == nsnd, "%u receive and %u send entries: one of each per HCA "
              "expected", nrcv, nsnd);
    fflush(stdout);
    return nrcv;
}

static void start_threads(unsigned count, const gex_ProgressThreadInfo_t *info)
{
    for (unsigned k = count; k-- > 0;) {
        pthread_t tid;
        int rc = pthread_create(&tid, NULL, info[k].gex_progress_fn, info[k].gex_progress_arg);
        CHECK_MSG(rc == 0, "pthread_create for entry %u: %s", k, strerror(rc));
        pthread_detach(tid); /* the process ends in gasnet_exit */
        if (info[k].gex_thread_roles == GEX_THREAD_ROLE_RCV && !have_rcv_tid) {
            rcv_tid = tid;
            __atomic_store_n(&have_rcv_tid, 1, __ATOMIC_RELEASE);
        }
    }
}

int main(int argc, char **argv)
{
    htable[H_PING] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)ping_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "ping"};
    htable[H_PONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)pong_h, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, "pong"};
    htable[H_GO] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)go_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "go"};
    const char *mode = argc > 1 ? argv[1] : "defer";
    int defer = !strcmp(mode, "defer");
    if (!defer && strcmp(mode, "nodefer")) {
        fprintf(stderr, "defer-threads: unknown mode '%s' (use defer or nodefer)\n", mode);
        return 2;
    }
    main_tid = pthread_self();
    test_init("defer-threads", &argc, &argv, 0, defer ? GEX_FLAG_DEFER_THREADS : 0, 2);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 50;
    gex_RankInfo_t *ri = NULL;
    gex_Rank_t nri = 0;
    gex_System_QueryNbrhdInfo(&ri, &nri, NULL);
    if (test_size != 2 || nri > 1) {
        if (test_rank == 0)
            printf("SKIP: defer-threads needs 2 processes that reach each other over verbs "
                   "(GASNET_SUPERNODE_MAXSIZE=1; got %u, neighbourhood %u)\n",
                   (unsigned)test_size, (unsigned)nri);
        fflush(stdout);
        gasnet_exit(77);
    }
    unsigned count = 99;
    const gex_ProgressThreadInfo_t *info = (const void *)&count;
    CHECK_OK(gex_System_QueryProgressThreads(test_client, &count, &info, 0));
    CHECK(gex_System_QueryProgressThreads(test_client, NULL, &info, 0) != GASNET_OK);

    if (!defer) {
        CHECK_MSG(count == 0 && info == NULL, "without GEX_FLAG_DEFER_THREADS the query returned "
                  "%u entries for the client to run (0 expected: the library runs its threads)",
                  count);
        test_barrier();
        if (test_rank == 1) {
            gex_AM_RequestShort1(test_tm, 0, HIDX(H_PING), 0, 1);
            CHECK_MSG(compute_until(&pong_seen, 1, 10, 1), "no Reply within 10 s");
        } else {
            CHECK_MSG(compute_until(&ping_seen, 1, 10, 0), "the library's receive thread ran no "
                      "handler within 10 s while this rank computed (GASNET_RCV_THREAD=1?)");
        }
        TEST_MSG0("nodefer: the query lists nothing to run; the library's receive thread ran the "
                  "handler while rank 0 computed");
        test_pass();
    }

    /* 1. */
    check_entries(count, info);
    unsigned count2 = 0;
    const gex_ProgressThreadInfo_t *info2 = NULL;
    CHECK_OK(gex_System_QueryProgressThreads(test_client, &count2, &info2, 0));
    CHECK_MSG(count2 == count && info2 == info, "a second query differs");
    test_barrier();

    /* 2. and 3.: attempt a is GO(a) from rank 0, then PING(a) from rank 1;
     * GO(GO_DONE) ends the attempts. */
    enum { GO_DONE = 1000, ATTEMPTS = 3 };
    uint32_t a = 1;
    if (test_rank == 1) {
        for (;; a++) {
            CHECK_MSG(compute_until(&go_seen, a, 10, 1), "no GO %u from rank 0 within 10 s", a);
            if (__atomic_load_n(&go_seen, __ATOMIC_ACQUIRE) == GO_DONE) break;
            gex_AM_RequestShort1(test_tm, 0, HIDX(H_PING), 0, (gex_AM_Arg_t)a);
            CHECK_MSG(compute_until(&pong_seen, a, 10, 1), "no Reply %u from rank 0 within 10 s "
                      "after it started its progress threads", a);
        }
        a--; /* the last PING sent */
    } else {
        for (;; a++) {
            gex_AM_RequestShort1(test_tm, 1, HIDX(H_GO), 0, (gex_AM_Arg_t)a);
            if (!compute_until(&ping_seen, a, 0.5, 0)) break; /* not handled: step 2 holds */
            CHECK_MSG(pthread_equal(handler_thread, main_tid), "a handler ran on a thread of the "
                      "library before the client started the deferred progress threads");
            CHECK_MSG(a < ATTEMPTS, "%u attempts: PING was handled each time inside rank 0's "
                      "own GO call, so step 2 could not be checked", a);
        }
        start_threads(count, info);
        double t0 = now_s();
        CHECK_MSG(compute_until(&ping_seen, a, 10, 0), "the client-started receive thread ran "
                  "no handler within 10 s while rank 0 computed");
        CHECK_MSG(pthread_equal(handler_thread, rcv_tid), "the handler ran on another thread "
                  "than the one the client made for the receive entry");
        printf("defer-threads: rank 0: deferred threads: no handler ran in 500 ms (attempt %u); "
               "once the client started them: handler-ran-on-its-receive-thread after %.1f ms\n",
               a, (now_s() - t0) * 1e3);
        fflush(stdout);
        gex_AM_RequestShort1(test_tm, 1, HIDX(H_GO), 0, (gex_AM_Arg_t)GO_DONE);
    }
    test_barrier();
    if (test_rank == 1) start_threads(count, info);
    test_barrier();

    /* 4. */
    for (uint32_t i = a + 1; i < a + 1 + n; i++) {
        if (test_rank == 0) {
            gex_AM_RequestShort1(test_tm, 1, HIDX(H_PING), 0, (gex_AM_Arg_t)i);
            CHECK_MSG(compute_until(&pong_seen, i, 10, 0), "round trip %u: no Reply handled "
                      "within 10 s while this rank computed", i);
        } else {
            CHECK_MSG(compute_until(&ping_seen, i, 10, 0), "round trip %u: no Request handled "
                      "within 10 s while this rank computed", i);
        }
    }
    CHECK_MSG(__atomic_load_n(&wrong_thread, __ATOMIC_RELAXED) == 0, "%u handler(s) ran off "
              "a thread other than the client-started receive thread and the application's",
              wrong_thread);
    TEST_MSG0("defer: %u round trips, every handler on the client-started receive thread while "
              "the application computed", n);
    /* 5. */
    test_pass();
}
