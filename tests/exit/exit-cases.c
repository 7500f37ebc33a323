/* tests/exit/exit-cases.c: the ways a job ends (issue 7), one mode per run.
 *
 * usage: exit-cases MODE          (run by tests/exit/run-case.sh)
 *
 * "last" is the highest rank; others wait where the mode says.  Every mode
 * must end the whole job with the exit code listed in exit.manifest, leave
 * no process and no /dev/shm object, and finish within the exit timeout.
 *
 *   collective   every rank prints goodbye-from-rank-R, gasnet_exit(0)
 *   collective-max  rank r calls gasnet_exit(r + 1) at once: one code wins
 *                   (the largest, by the collective reduction)
 *   return       every rank prints return-from-rank-R and returns 0 from main
 *   barrier      last: gasnet_exit(7); others in a barrier, with a SIGQUIT
 *                handler that prints sigquit-on-rank-R and calls gasnet_exit(4)
 *   blockuntil   last: gasnet_exit(7); others spin in GASNET_BLOCKUNTIL on a
 *                flag nobody sets (no SIGQUIT handler: SIGQUIT must not be
 *                raised, its default action would dump core)
 *   in-handler   last: gasnet_exit(7) while every other rank is inside an AM
 *                handler that computes for 20 s without polling
 *   req-handler  rank 0 sends a Request to last, whose handler calls
 *                gasnet_exit(7); everybody polls in GASNET_BLOCKUNTIL
 *   rep-handler  last sends a Request to rank 0; its Reply's handler on last
 *                calls gasnet_exit(7)
 *   segv         last raises SIGSEGV (others in a barrier)
 *   fault        last writes through a NULL pointer (a real fault)
 *   sigkill      last kills itself with SIGKILL (others in a barrier)
 *   stopped      last stops itself (SIGSTOP); rank 0 calls gasnet_exit(7)
 *   early-exit   last calls exit(5) between gex_Client_Init and attach,
 *                while the others are in gex_Segment_Attach
 *   underscore-exit  last calls _exit(0) (no gasnet_exit) while the others
 *                wait in a barrier: the job must not exit 0
 *   preinit-return  last returns 0 from main before gex_Client_Init (it
 *                reads GASNETRUN_RANK/SIZE itself) while the others init
 *   exit256      last calls gasnet_exit(256), a code whose 8 bits are 0;
 *                others in a barrier: the job must not exit 0
 *   leak         every rank gasnet_exit(0) after last leaked 777 bytes (the
 *                sanitizer tier expects LeakSanitizer's report of it)
 * PAR build (exit-cases-par), 3 threads per rank:
 *   par-one      one thread of last calls gasnet_exit(7) while its other
 *                threads and the other ranks' threads poll, compute or wait
 *                in a barrier
 *   par-all      every thread of every rank calls gasnet_exit(3) at once
 * Modes that must never get past the point where they wait print
 * "FAIL ..." and exit 99.
 */
#include <gasnetex.h>
#include <signal.h>
#if defined(GASNET_PAR)
#include <pthread.h>
#endif

#include "tests/integration/test.h"

#define H_SPIN (GEX_AM_INDEX_BASE + 1)
#define H_EXIT (GEX_AM_INDEX_BASE + 2)
#define H_PING (GEX_AM_INDEX_BASE + 3)
#define H_PONG_EXIT (GEX_AM_INDEX_BASE + 4)

static volatile int never; /* a flag nobody sets */

static void say(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("rank %u: ", (unsigned)test_rank);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* "exit-start <seconds since the epoch>": run-case.sh measures the exit from
 * the earliest such line to the end of the job. */
static void exit_start(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("rank %u: exit-start %lld.%06ld\n", (unsigned)test_rank, (long long)ts.tv_sec,
           ts.tv_nsec / 1000);
    fflush(stdout);
}

__attribute__((__noreturn__)) static void must_not_return(const char *where)
{
    printf("rank %u: FAIL %s returned although the job should have ended\n",
           (unsigned)test_rank, where);
    fflush(stdout);
    _exit(99);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* ---- handlers ------------------------------------------------------------ */
static void spin_handler(gex_Token_t token)
{
    (void)token;
    double end = test_now() + 20;
    say("inside a handler, computing without polling");
    while (test_now() < end) {
    }
    must_not_return("a 20 s handler");
}

static void exit_handler(gex_Token_t token, gex_AM_Arg_t code)
{
    (void)token;
    say("gasnet_exit(%d) inside a Request handler", (int)code);
    exit_start();
    gasnet_exit((int)code);
}

static void ping_handler(gex_Token_t token, gex_AM_Arg_t code)
{
    gex_AM_ReplyShort1(token, H_PONG_EXIT, 0, code);
}

static void pong_exit_handler(gex_Token_t token, gex_AM_Arg_t code)
{
    (void)token;
    say("gasnet_exit(%d) inside a Reply handler", (int)code);
    exit_start();
    gasnet_exit((int)code);
}

static void on_sigquit(int sig)
{
    char line[64];
    int n = snprintf(line, sizeof(line), "sigquit-on-rank-%u\n", (unsigned)test_rank);
    (void)sig;
    if (write(STDOUT_FILENO, line, (size_t)n) < 0) { /* the exit code tells */ }
    gasnet_exit(4);
}

/* ---- modes --------------------------------------------------------------- */
/* 777 bytes nothing points to any more (not inlined, so that no register
 * or stack slot of the caller keeps the address). */
__attribute__((__noinline__)) static void plant_leak(void)
{
    char *volatile p = malloc(777);
    if (p) memset(p, 7, 777);
    p = NULL;
    say("planted a 777-byte leak");
}

static void wait_in_barrier(void)
{
    (void)gex_Coll_BarrierBlocking(test_tm, 0);
    must_not_return("gex_Coll_BarrierBlocking");
}

static void wait_in_blockuntil(void)
{
    GASNET_BLOCKUNTIL(never);
    must_not_return("GASNET_BLOCKUNTIL");
}

static void last_exits(int code, void (*others)(void))
{
    if (test_rank != test_size - 1) others();
    sleep_s(0.2); /* let the others settle where they wait */
    say("gasnet_exit(%d)", code);
    exit_start();
    gasnet_exit(code);
    must_not_return("gasnet_exit");
}

#if defined(GASNET_PAR)
/* ---- several threads per rank ---------------------------------------------- */
static pthread_barrier_t threads_ready;

static void *poller(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&threads_ready);
    for (;;) gasnet_AMPoll();
    return NULL;
}

static void *computer(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&threads_ready);
    for (;;) {
    }
    return NULL;
}

static void *exiter(void *arg)
{
    pthread_barrier_wait(&threads_ready);
    exit_start();
    gasnet_exit((int)(intptr_t)arg);
    must_not_return("gasnet_exit on a thread");
}

static void par_mode(int all)
{
    pthread_t t[2];
    pthread_barrier_init(&threads_ready, NULL, 3);
    if (all) {
        pthread_create(&t[0], NULL, exiter, (void *)(intptr_t)3);
        pthread_create(&t[1], NULL, exiter, (void *)(intptr_t)3);
        pthread_barrier_wait(&threads_ready);
        exit_start();
        gasnet_exit(3);
    }
    pthread_create(&t[0], NULL, poller, NULL);
    pthread_create(&t[1], NULL, computer, NULL);
    pthread_barrier_wait(&threads_ready);
    last_exits(7, wait_in_barrier);
}
#endif

static void run_mode(const char *mode)
{
    const gex_Rank_t last = test_size - 1;
    if (!strcmp(mode, "collective")) {
        say("goodbye-from-rank-%u", (unsigned)test_rank);
        exit_start();
        gasnet_exit(0);
    } else if (!strcmp(mode, "collective-max")) {
        exit_start();
        gasnet_exit((int)test_rank + 1);
    } else if (!strcmp(mode, "return")) {
        say("return-from-rank-%u", (unsigned)test_rank);
        exit_start();
        return;
    } else if (!strcmp(mode, "barrier")) {
        signal(SIGQUIT, on_sigquit);
        test_barrier();
        last_exits(7, wait_in_barrier);
    } else if (!strcmp(mode, "blockuntil")) {
        last_exits(7, wait_in_blockuntil);
    } else if (!strcmp(mode, "in-handler")) {
        if (test_rank == last) {
            for (gex_Rank_t r = 0; r < last; r++) gex_AM_RequestShort0(test_tm, r, H_SPIN, 0);
            sleep_s(0.3);
            say("gasnet_exit(7) while the others are in a handler");
            exit_start();
            gasnet_exit(7);
        }
        wait_in_blockuntil();
    } else if (!strcmp(mode, "req-handler")) {
        if (test_rank == 0) gex_AM_RequestShort1(test_tm, last, H_EXIT, 0, 7);
        wait_in_blockuntil();
    } else if (!strcmp(mode, "rep-handler")) {
        if (test_rank == last) gex_AM_RequestShort1(test_tm, 0, H_PING, 0, 7);
        wait_in_blockuntil();
    } else if (!strcmp(mode, "segv") || !strcmp(mode, "fault") || !strcmp(mode, "sigkill")) {
        if (test_rank != last) wait_in_barrier();
        sleep_s(0.2);
        say("%s", mode);
        exit_start();
        if (!strcmp(mode, "segv")) raise(SIGSEGV);
        if (!strcmp(mode, "sigkill")) raise(SIGKILL);
        volatile int *volatile nowhere = NULL;
        *nowhere = 1;
        must_not_return("the fault");
    } else if (!strcmp(mode, "underscore-exit")) {
        if (test_rank != last) wait_in_barrier();
        sleep_s(0.2);
        say("_exit(0) without gasnet_exit");
        exit_start();
        _exit(0);
    } else if (!strcmp(mode, "exit256")) {
        last_exits(256, wait_in_barrier);
    } else if (!strcmp(mode, "leak")) {
        if (test_rank == last) plant_leak();
        test_barrier();
        exit_start();
        gasnet_exit(0);
    } else if (!strcmp(mode, "stopped")) {
        if (test_rank == last) {
            say("stopping (SIGSTOP)");
            raise(SIGSTOP);
            must_not_return("SIGSTOP");
        }
        if (test_rank == 0) {
            sleep_s(0.3);
            say("gasnet_exit(7) while rank %u is stopped", (unsigned)last);
            exit_start();
            gasnet_exit(7);
        }
        wait_in_barrier();
#if defined(GASNET_PAR)
    } else if (!strcmp(mode, "par-one") || !strcmp(mode, "par-all")) {
        par_mode(!strcmp(mode, "par-all"));
#endif
    } else {
        fprintf(stderr, "exit-cases: unknown mode '%s'\n", mode);
        exit(2);
    }
    must_not_return(mode);
}

int main(int argc, char **argv)
{
    gex_AM_Entry_t table[] = {
        {H_SPIN, (gex_AM_Fn_t)spin_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL,
         "spin"},
        {H_EXIT, (gex_AM_Fn_t)exit_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
         "exit"},
        {H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
         "ping"},
        {H_PONG_EXIT, (gex_AM_Fn_t)pong_exit_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1,
         NULL, "pong_exit"},
    };
    if (argc != 2) {
        fprintf(stderr, "usage: exit-cases MODE (see the source)\n");
        return 2;
    }
    test_name = "exit-cases";
    if (!strcmp(argv[1], "preinit-return")) {
        /* Before gex_Client_Init: the rank as gasnetrun_ibv passes it. */
        const char *r = getenv("GASNETRUN_RANK"), *n = getenv("GASNETRUN_SIZE");
        if (r && n && atoi(r) == atoi(n) - 1) {
            printf("rank %s: returning 0 before gex_Client_Init\n", r);
            exit_start();
            return 0;
        }
    }
    CHECK_OK(gex_Client_Init(&test_client, &test_ep, &test_tm, "exit-cases", &argc, &argv, 0));
    test_rank = gex_TM_QueryRank(test_tm);
    test_size = gex_TM_QuerySize(test_tm);
    if (test_size < 2) {
        printf("SKIP: exit-cases needs at least 2 processes\n");
        fflush(stdout);
        gasnet_exit(77);
    }
    if (!strcmp(argv[1], "early-exit") && test_rank == test_size - 1) {
        say("exit(5) before gex_Segment_Attach");
        exit_start();
        exit(5);
    }
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, GASNET_PAGESIZE));
    if (!strcmp(argv[1], "early-exit")) must_not_return("gex_Segment_Attach");
    if (!strcmp(argv[1], "preinit-return")) must_not_return("gex_Segment_Attach");
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, table, sizeof(table) / sizeof(table[0])));
    test_barrier();
    run_mode(argv[1]);
    return 0;
}
