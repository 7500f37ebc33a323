/* tests/install/names-client.c: a PAR client that uses the names GASNet's
 * installed headers provide beyond the prefixed public ones, as GASNet's own
 * tests and runtimes do; built by check-install.sh with the installed
 * ibv-par.mak, linked with names-lite.c (a tools-lite object), run with the
 * installed gasnetrun_ibv.
 *
 *   HAVE_PTHREAD_H (gasnet_config.h)   gates the threads, as GASNet's test.h
 *   GASNETI_MAX_THREADS                bounds them (256 in PAR)
 *   gasneti_mynode, gasneti_nodes      read as GASNet's legacy tests do
 *   gasnett_backtrace_user             defined here; the library's tentative
 *                                      definition gives way at link time
 *   _gasneti_threadkey_init,           addresses taken, as Realm does
 *   _gasnett_trace_printf_noop
 *   gasnett_run_diagnostics            GASNet's arguments, every section
 * Every rank's threads put and get their own slot of the right-hand
 * neighbour's segment.  Rank 0 prints "names-client: PASS on N processes".
 */
#include <gasnetex.h>
#include <gasnet_tools.h>

#ifndef HAVE_PTHREAD_H
#error gasnet_config.h does not define HAVE_PTHREAD_H
#endif
#include <pthread.h>
#if !defined(GASNETI_MAX_THREADS) || GASNETI_MAX_THREADS != 256
#error GASNETI_MAX_THREADS is not 256 in PAR mode
#endif
#if GASNETT_MAX_THREADS != GASNETI_MAX_THREADS
#error GASNETT_MAX_THREADS differs from GASNETI_MAX_THREADS
#endif

#define NTHREADS 4
#define SLOT 4096

static const void *silence1 __attribute__((__unused__)) = (void *)_gasneti_threadkey_init;
static const void *silence2 __attribute__((__unused__)) = (void *)_gasnett_trace_printf_noop;

extern const char *names_lite_config(void); /* names-lite.c */
extern uint64_t names_lite_elapsed_ns(void);

static volatile int backtraces;
static int names_backtrace(int fd)
{
    (void)fd;
    backtraces++;
    return 0;
}
gasnett_backtrace_type_t gasnett_backtrace_user = {"NAMES", names_backtrace, 1};

static gex_TM_t tm;
static gex_Rank_t right;
static void **segs;

#define REQUIRE(cond)                                                              \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "names-client rank %u: check failed at line %d: %s\n", \
                    (unsigned)gasneti_mynode, __LINE__, #cond);                    \
            gasnet_exit(1);                                                        \
        }                                                                          \
    } while (0)

static void *thread_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned char buf[SLOT], back[SLOT];
    for (int i = 0; i < SLOT; i++) buf[i] = (unsigned char)(gasneti_mynode * 31 + id * 7 + i);
    char *dst = (char *)segs[right] + (size_t)id * SLOT;
    REQUIRE(gex_RMA_PutBlocking(tm, right, dst, buf, SLOT, 0) == 0);
    REQUIRE(gex_RMA_GetBlocking(tm, back, right, dst, SLOT, 0) == 0);
    REQUIRE(memcmp(buf, back, SLOT) == 0);
    return NULL;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    REQUIRE(gex_Client_Init(&client, &ep, &tm, "names-client", &argc, &argv, 0) == GASNET_OK);
    REQUIRE(gasneti_mynode == gex_System_QueryJobRank());
    REQUIRE(gasneti_nodes == gex_System_QueryJobSize() && gasneti_mynode < gasneti_nodes);
    REQUIRE(gex_System_QueryMaxThreads() == GASNETI_MAX_THREADS);
    REQUIRE(gex_Segment_Attach(&seg, tm, 1 << 20) == GASNET_OK);
    segs = (void **)calloc(gasneti_nodes, sizeof(void *));
    REQUIRE(segs != NULL);
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        REQUIRE(gex_Segment_QueryBound(tm, r, &segs[r], NULL, NULL) == GASNET_OK);
    right = (gasneti_mynode + 1) % gasneti_nodes;

    /* The client's backtrace mechanism is the one linked and used. */
    REQUIRE(gasnett_print_backtrace(-1) == 0 && backtraces == 1);

    /* The tools-lite object, linked into a PAR program. */
    REQUIRE(strstr(names_lite_config(), ",LITE,") != NULL);
    REQUIRE(names_lite_elapsed_ns() >= 1000000);

    pthread_t tids[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        REQUIRE(pthread_create(&tids[i], NULL, thread_main, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < NTHREADS; i++) REQUIRE(pthread_join(tids[i], NULL) == 0);
    REQUIRE(gex_Coll_BarrierBlocking(tm, 0) == GASNET_OK);

    /* GASNet's self-test, every section, threads included. */
    REQUIRE(gasnett_run_diagnostics(200, NTHREADS, NULL, tm, segs[gasneti_mynode], right,
                                    (char *)segs[right] + NTHREADS * SLOT) == 0);

    REQUIRE(gex_Coll_BarrierBlocking(tm, 0) == GASNET_OK);
    if (gasneti_mynode == 0) {
        printf("names-client: PASS on %u processes\n", (unsigned)gasneti_nodes);
        fflush(stdout);
    }
    REQUIRE(gex_Coll_BarrierBlocking(tm, 0) == GASNET_OK);
    gasnet_exit(0);
    return 0;
}
