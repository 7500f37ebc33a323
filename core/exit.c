/* core/exit.c: every way out of the job (GASNet's "graceful exit").
 *
 * Three ways in share one head, one coordination and one release:
 *
 *   gasnet_exit(code)        head -> coordinate -> release -> _exit(code)
 *   return from main, exit() head -> coordinate -> release -> return (on_exit)
 *   a remote exit request    head -> SIGQUIT -> release -> _exit(code)
 *     (EXIT_REQ from the exit leader, EXIT from gasnetrun_ibv through the
 *      bootstrap's exit callback, or the PSHM exit word after a fatal error)
 *
 * head: the first caller in the process claims the exit with one atomic,
 *   keeps its code and arms a GASNET_EXITTIMEOUT interval timer; when it
 *   fires the job is aborted with that code, so no exit hangs.  Later
 *   callers on other threads wait for the process to end; the owning thread
 *   may re-enter (a client SIGQUIT handler calling gasnet_exit) and simply
 *   finishes.  Client AM handlers are replaced by no-ops, SIGQUIT ignored.
 * coordinate (local exits only), two steps, each with a timeout:
 *   1. collective?  ARRIVE(code) goes to rank 0, which answers with a role
 *      (the first rank to arrive is the leader) and, once all ranks have
 *      arrived, sends DONE(max code) to everyone: a collective exit.  Each
 *      rank waits for DONE at most 2/5 of the exit timeout.
 *   2. otherwise the leader (or a rank that rank 0 never answered) sends
 *      EXIT_REQ(code) to every other rank and waits 1/5 of the exit timeout
 *      for the replies; the other exiting ranks wait as long for that
 *      request.  Ranks that do not answer (busy in a handler, blocked
 *      outside GASNet, stopped, dead) are named and the job is aborted
 *      through the bootstrap, which kills them; so a non-collective exit
 *      ends within 3/5 of the exit timeout, and the rest of the timeout
 *      is left for flushing and teardown.
 *   A quarter into step 1, the rank that would lead step 2 starts connecting
 *   to every rank it has no connection to yet (GASNET_CONNECT_STATIC=0:
 *   the handshakes overlap the wait), so that step 2's requests need no
 *   handshake within their 1/5 of the timeout.
 * release: flush stdio; see off the exit messages this rank sent last (an
 *   ACK, rank 0's DONE): a QP dies with its process, so wait until the
 *   network acknowledged them (at most min(1 s, timeout / 10)); tell
 *   gasnetrun_ibv (EXIT) -- or abort the job when the coordination
 *   failed --, drop the PSHM mappings, close the bootstrap.
 *
 * A rank asked to exit raises SIGQUIT first when the client installed a
 * handler for it (GASNet spec); the handler may call gasnet_exit.  SIGINT
 * runs that handler too (as in GASNet); without one it is fatal.  Fatal
 * signals (core/exit_signal.c) print the signal with rank and host and
 * abort the job with code 128+signal; during an exit they just end the
 * process with the exit code.
 * The exit messages travel as internal AMs (indices 56..60), through PSHM
 * or the verbs transport alike.  The launcher's own collective-exit window
 * and kill deadline (bootstrap/README) stay as the backstop.
 */
#include "core/gasnet_core_private.h"
#include "core/exit_signal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_LEAK__)
#define GASNETC_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define GASNETC_LSAN 1
#endif
#endif
#ifdef GASNETC_LSAN
#include <sanitizer/lsan_interface.h>
#endif

/* Internal handler indices of the exit protocol (core range 1..63). */
#define EXIT_HIDX_ARRIVE 56 /* Request to rank 0: "exiting with code c" */
#define EXIT_HIDX_ROLE 57   /* its Reply: ROLE_LEADER or ROLE_MEMBER */
#define EXIT_HIDX_DONE 58   /* Request from rank 0: all arrived; exit with c */
#define EXIT_HIDX_REQ 59    /* Request from the leader: exit with c */
#define EXIT_HIDX_ACK 60    /* its Reply */

enum { ROLE_UNKNOWN = 0, ROLE_LEADER = 1, ROLE_MEMBER = 2 };
enum { WHY_REQUEST, WHY_LAUNCHER, WHY_PSHM };
enum { MARK_DONE_SENT = 1, MARK_REQ_SENT = 2, MARK_ACKED = 4 };
/* ex.flush_to: no exit message to see off, or to every rank (the flush op's UINT32_MAX) */
#define FLUSH_NONE 0xfffffffeu
#define FLUSH_ALL 0xffffffffu

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static struct {
    int inited;
    pid_t pid;          /* the process that joined the job (not a forked child) */
    double timeout;     /* GASNET_EXITTIMEOUT (computed), seconds */
    pid_t *pids;        /* every rank's pid, to tell dead from hung on this host */
    uint8_t *marks;     /* per rank: MARK_* bits */
    char ident[96];     /* "rank R on HOST" */
    char alarm_msg[256];
    /* the exit of this process (claimed: gasneti_exit_claimed, core/base) */
    int code;
    int released;
    int fatal_sig;
    const char *volatile stage; /* what the exit is doing (alarm message) */
    /* requests from elsewhere, -1 = none (handlers, callback thread, poll) */
    int pending;
    int req_code, launcher_code, pshm_code;
    /* coordination */
    int role, done_code;
    uint32_t nacked;
    uint32_t arrived; /* rank 0: ranks that sent ARRIVE */
    int max_code;     /* rank 0: largest code among them */
    /* where this rank's last exit messages went (ACK, DONE): release waits
     * until they have left over the network, FLUSH_NONE, a rank, FLUSH_ALL */
    uint32_t flush_to;
} ex = {
    .timeout = 10,
    .req_code = -1,
    .launcher_code = -1,
    .pshm_code = -1,
    .done_code = -1,
    .flush_to = FLUSH_NONE,
};

static __thread int exit_owner; /* this thread claimed the exit */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void park(void) __attribute__((__noreturn__));
static void park(void)
{
    for (;;) pause();
}

/* ---- messages ---------------------------------------------------------------- */
/* "*** KIND (rank R on HOST): msg" as one write. */
static void exit_say(const char *kind, const char *fmt, ...) GASNETI_FMT(2, 3);
static void exit_say(const char *kind, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int n = snprintf(line, sizeof(line), "*** %s (%s): ", kind,
                     ex.ident[0] ? ex.ident : gasneti_log_identity());
    if (n < 0 || (size_t)n >= sizeof(line)) n = 0;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2) len = sizeof(line) - 2;
    line[len++] = '\n';
    if (write(STDERR_FILENO, line, len) < 0) { /* stderr is gone: the code still tells */ }
}

/* ---- the exit timer ------------------------------------------------------------ */
static void on_alarm(int sig)
{
    char line[512];
    size_t n = 0;
    int code = LOAD(ex.code);
    (void)sig;
    gasnetc_sbuf_put(line, sizeof(line), &n, ex.alarm_msg);
    gasnetc_sbuf_put(line, sizeof(line), &n, ex.stage ? ex.stage : "exiting");
    gasnetc_sbuf_put(line, sizeof(line), &n, "; aborting the job with exit code ");
    gasnetc_sbuf_int(line, sizeof(line), &n, code);
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, n) < 0) { /* nothing more to do */ }
    gasnetc_am_nbr.fini();
    if (gasneti_boot) gasneti_boot->abort(code);
    _exit(code);
}

static void arm_alarm(void)
{
    struct sigaction sa;
    struct itimerval it;
    sigset_t set;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    memset(&it, 0, sizeof(it));
    it.it_value.tv_sec = (time_t)ex.timeout;
    it.it_value.tv_usec = (suseconds_t)((ex.timeout - (double)it.it_value.tv_sec) * 1e6);
    if (!it.it_value.tv_sec && !it.it_value.tv_usec) it.it_value.tv_usec = 1000;
    setitimer(ITIMER_REAL, &it, NULL);
}

static void cancel_alarm(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof(it));
    setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- client handlers become no-ops during the exit ------------------------------ */
/* One no-op per category and argument count, so that every call through the
 * dispatcher matches the callee's type. */
typedef gex_AM_Arg_t A_;
#define NP0
#define NP1 NP0, A_ a1
#define NP2 NP1, A_ a2
#define NP3 NP2, A_ a3
#define NP4 NP3, A_ a4
#define NP5 NP4, A_ a5
#define NP6 NP5, A_ a6
#define NP7 NP6, A_ a7
#define NP8 NP7, A_ a8
#define NP9 NP8, A_ a9
#define NP10 NP9, A_ a10
#define NP11 NP10, A_ a11
#define NP12 NP11, A_ a12
#define NP13 NP12, A_ a13
#define NP14 NP13, A_ a14
#define NP15 NP14, A_ a15
#define NP16 NP15, A_ a16
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define NOOPS(n)                                                    \
    static void noop_short_##n(gex_Token_t t NP##n) {}              \
    static void noop_medlong_##n(gex_Token_t t, void *b, size_t s NP##n) {}
NOOPS(0) NOOPS(1) NOOPS(2) NOOPS(3) NOOPS(4) NOOPS(5) NOOPS(6) NOOPS(7) NOOPS(8)
NOOPS(9) NOOPS(10) NOOPS(11) NOOPS(12) NOOPS(13) NOOPS(14) NOOPS(15) NOOPS(16)
#pragma GCC diagnostic pop
#define NS(n) (gex_AM_Fn_t) noop_short_##n
#define NM(n) (gex_AM_Fn_t) noop_medlong_##n
static const gex_AM_Fn_t noop_short[17] = {NS(0), NS(1), NS(2), NS(3), NS(4), NS(5),
                                           NS(6), NS(7), NS(8), NS(9), NS(10), NS(11),
                                           NS(12), NS(13), NS(14), NS(15), NS(16)};
static const gex_AM_Fn_t noop_medlong[17] = {NM(0), NM(1), NM(2), NM(3), NM(4), NM(5),
                                             NM(6), NM(7), NM(8), NM(9), NM(10), NM(11),
                                             NM(12), NM(13), NM(14), NM(15), NM(16)};

static void disable_client_handlers(void)
{
    for (unsigned i = GEX_AM_INDEX_BASE; i < 256; i++) {
        gex_AM_Entry_t *e = &gasneti_the_ep.handlers[i];
        gex_Flags_t cat = e->gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG);
        if (!e->gex_fnptr || e->gex_nargs > 16) continue;
        /* "any category" entries keep their handler: no single type fits. */
        if (cat == GEX_FLAG_AM_SHORT)
            __atomic_store_n(&e->gex_fnptr, noop_short[e->gex_nargs], __ATOMIC_RELEASE);
        else if (cat && !(cat & GEX_FLAG_AM_SHORT))
            __atomic_store_n(&e->gex_fnptr, noop_medlong[e->gex_nargs], __ATOMIC_RELEASE);
    }
}

/* ---- SIGQUIT: the client's chance to clean up ------------------------------------ */
static int client_has_sigquit(void)
{
    struct sigaction old;
    if (sigaction(SIGQUIT, NULL, &old) != 0) return 0;
    return (old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL
                                       : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
}

static void raise_client_sigquit(void)
{
    sigset_t set;
    if (!client_has_sigquit()) return; /* the default action would dump core */
    ex.stage = "running the client's SIGQUIT handler";
    sigemptyset(&set);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGQUIT);
}

static void quiet_process(void)
{
    signal(SIGQUIT, SIG_IGN);
    disable_client_handlers();
}

/* ---- who is where ------------------------------------------------------------------ */
static int on_my_host(gex_Rank_t r)
{
    for (gex_Rank_t i = 0; i < gasnetc_host_count; i++)
        if (gasnetc_host_info[i].gex_jobrank == r) return 1;
    return 0;
}

/* 1 if rank r ran on this host and its process is gone. */
static int rank_gone(gex_Rank_t r)
{
    if (!ex.pids || r >= gasneti_nodes || !ex.pids[r] || !on_my_host(r)) return 0;
    return kill(ex.pids[r], 0) != 0 && errno == ESRCH;
}

/* Writes the list of ranks (not me) that did not answer EXIT_REQ into buf;
 * returns how many there are. */
static unsigned list_silent(char *buf, size_t len)
{
    unsigned count = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        if (r == gasneti_mynode || (LOAD(ex.marks[r]) & MARK_ACKED)) continue;
        if (++count <= 8 && used < len) {
            int k = snprintf(buf + used, len - used, "%s%u%s", count > 1 ? ", " : "", (unsigned)r,
                             rank_gone(r) ? " (process gone)" : "");
            if (k > 0) used += (size_t)k;
        } else if (count == 9 && used < len) {
            int k = snprintf(buf + used, len - used, ", ...");
            if (k > 0) used += (size_t)k;
        }
    }
    return count;
}

/* ---- the exit protocol's handlers (internal, run in handler context) -------------- */
static void arrive_one(int code, int *role)
{
    int cur = LOAD(ex.max_code);
    while (code > cur && !__atomic_compare_exchange_n(&ex.max_code, &cur, code, 0,
                                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    uint32_t n = __atomic_add_fetch(&ex.arrived, 1, __ATOMIC_ACQ_REL);
    *role = n == 1 ? ROLE_LEADER : ROLE_MEMBER;
}

static void arrive_reqh(gex_Token_t token, gex_AM_Arg_t code)
{
    int role;
    arrive_one(code & 0xff, &role);
    gasnetc_AM_ReplyShort(token, EXIT_HIDX_ROLE, 1, 0, (gex_AM_Arg_t)role);
}

static void role_reph(gex_Token_t token, gex_AM_Arg_t role)
{
    (void)token;
    STORE(ex.role, (int)role);
}

static void done_reqh(gex_Token_t token, gex_AM_Arg_t code)
{
    (void)token;
    STORE(ex.done_code, (int)(code & 0xff));
}

/* Notes that an exit message went to rank r (FLUSH_ALL: to every rank). */
static void owe_flush(uint32_t r)
{
    uint32_t cur = LOAD(ex.flush_to);
    for (;;) {
        uint32_t want = cur == FLUSH_NONE || cur == r ? r : FLUSH_ALL;
        if (want == cur || __atomic_compare_exchange_n(&ex.flush_to, &cur, want, 0,
                                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return;
    }
}

static void req_reqh(gex_Token_t token, gex_AM_Arg_t code)
{
    int none = -1;
    __atomic_compare_exchange_n(&ex.req_code, &none, (int)(code & 0xff), 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    STORE(ex.pending, 1);
    gasnetc_AM_ReplyShort(token, EXIT_HIDX_ACK, 0, 0);
    owe_flush(token->src);
}

static void ack_reph(gex_Token_t token)
{
    gex_Rank_t src = token->src;
    if (ex.marks && src < gasneti_nodes &&
        !(__atomic_fetch_or(&ex.marks[src], MARK_ACKED, __ATOMIC_ACQ_REL) & MARK_ACKED))
        __atomic_add_fetch(&ex.nacked, 1, __ATOMIC_ACQ_REL);
}

/* A one-argument Short Request that waits (polling) for queue space until
 * deadline.  Returns 0 when sent. */
static int send_until(gex_Rank_t rank, gex_AM_Index_t hidx, int arg, double deadline)
{
    while (gasnetc_AM_RequestShort(&gasneti_the_tm, rank, hidx, 1, GEX_FLAG_IMMEDIATE,
                                   (gex_AM_Arg_t)arg) != 0) {
        if (now_s() >= deadline) return -1;
        gasnetc_poll();
    }
    return 0;
}

/* Sends hidx(arg) to every other rank, round-robin so that one full queue
 * does not hold up the others, until deadline; mark records who got it. */
static void send_all(gex_AM_Index_t hidx, int arg, uint8_t mark, double deadline)
{
    for (;;) {
        int left = 0;
        for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
            if (r == gasneti_mynode || (LOAD(ex.marks[r]) & mark)) continue;
            if (gasnetc_AM_RequestShort(&gasneti_the_tm, r, hidx, 1, GEX_FLAG_IMMEDIATE,
                                        (gex_AM_Arg_t)arg) == 0)
                __atomic_fetch_or(&ex.marks[r], mark, __ATOMIC_ACQ_REL);
            else
                left = 1;
        }
        if (!left || now_s() >= deadline) return;
        gasnetc_poll();
    }
}

/* ---- head, coordination, release ------------------------------------------------------ */
/* Claims the exit for the calling thread.  1 for the first caller. */
static int exit_head(int code)
{
    int zero = 0;
    if (!__atomic_compare_exchange_n(&gasneti_exit_claimed, &zero, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return 0;
    STORE(ex.code, code & 0xff);
    exit_owner = 1;
    ex.stage = "starting to exit";
    arm_alarm();
    return 1;
}

/* Step 1: a collective exit?  Returns the agreed code, or -1. */
static int exit_reduce(int code, double end)
{
    const gex_Rank_t n = gasneti_nodes;
    int done_sent = 0;
    ex.stage = "waiting for the other ranks to exit too (collective exit)";
    if (gasneti_mynode == 0) {
        int role;
        arrive_one(code, &role);
        STORE(ex.role, role);
    } else {
        (void)send_until(0, EXIT_HIDX_ARRIVE, code, end);
    }
    /* A quarter into the wait, the rank that would lead a non-collective
     * exit (the first to arrive) starts connecting to the ranks it has no
     * connection to yet, so that its requests need no handshake then. */
    const double t_pre = now_s() + (end - now_s()) / 4;
    int preconnected = 0;
    for (;;) {
        if (!preconnected && LOAD(ex.role) == ROLE_LEADER && now_s() >= t_pre) {
            preconnected = 1;
            ex.stage = "connecting to the ranks that may have to be asked to exit";
            gasnetc_am_net.connect_all();
            ex.stage = "waiting for the other ranks to exit too (collective exit)";
        }
        if (gasneti_mynode == 0 && !done_sent && LOAD(ex.arrived) == n) {
            int c = LOAD(ex.max_code);
            ex.stage = "telling every rank that the exit is collective";
            send_all(EXIT_HIDX_DONE, c, MARK_DONE_SENT, end);
            owe_flush(FLUSH_ALL);
            STORE(ex.done_code, c);
            done_sent = 1;
        }
        int d = LOAD(ex.done_code);
        if (d >= 0) return d;
        if (LOAD(ex.req_code) >= 0 || LOAD(ex.launcher_code) >= 0 || now_s() >= end) return -1;
        gasnetc_poll();
    }
}

/* Step 2: the leader asks every other rank to exit.  Returns 0, or -1 when
 * some rank did not answer in time (the job must then be aborted). */
static int exit_lead(int code, double end)
{
    const gex_Rank_t n = gasneti_nodes, me = gasneti_mynode;
    char who[400];
    ex.stage = "asking the other ranks to exit (non-collective exit)";
    if (!(__atomic_fetch_or(&ex.marks[me], MARK_ACKED, __ATOMIC_ACQ_REL) & MARK_ACKED))
        __atomic_add_fetch(&ex.nacked, 1, __ATOMIC_ACQ_REL);
    send_all(EXIT_HIDX_REQ, code, MARK_REQ_SENT, end);
    while (LOAD(ex.nacked) < n && LOAD(ex.launcher_code) < 0 && now_s() < end) gasnetc_poll();
    if (LOAD(ex.nacked) >= n || LOAD(ex.launcher_code) >= 0) return 0;
    unsigned k = list_silent(who, sizeof(who));
    exit_say("ERROR", "rank%s %s did not answer the exit request within %.2g s (busy outside "
             "GASNet, stuck in a handler, stopped or dead); aborting the job with exit code %d "
             "(GASNET_EXITTIMEOUT=%g)",
             k == 1 ? "" : "s", who, ex.timeout / 5, code, ex.timeout);
    return -1;
}

/* Coordinates a local exit (gasnet_exit, exit()).  Returns the code to exit
 * with; *abort_job is set when the job must be killed instead. */
static int exit_coordinate(int code, int collective_possible, int *abort_job)
{
    const double t0 = now_s(), T = ex.timeout;
    *abort_job = 0;
    if (!ex.inited || gasneti_nodes == 1) return code;
    if (collective_possible) {
        int c = exit_reduce(code, t0 + T * 2 / 5);
        if (c >= 0) return c;
    }
    if (LOAD(ex.launcher_code) >= 0) return code; /* gasnetrun_ibv ends the job already */
    if (LOAD(ex.req_code) >= 0) return code;      /* another rank leads and asked us */
    double end = now_s() + T / 5;
    if (LOAD(ex.role) != ROLE_MEMBER) {
        /* Elected by rank 0, or rank 0 never answered: lead. */
        *abort_job = exit_lead(code, end) != 0;
        return code;
    }
    ex.stage = "waiting for the exit leader's request";
    while (LOAD(ex.req_code) < 0 && LOAD(ex.launcher_code) < 0 && now_s() < end) gasnetc_poll();
    if (LOAD(ex.req_code) < 0 && LOAD(ex.launcher_code) < 0) {
        exit_say("ERROR", "the rank leading this non-collective exit did not ask the others to "
                 "exit within %.2g s; aborting the job with exit code %d (GASNET_EXITTIMEOUT=%g)",
                 T / 5, code, T);
        *abort_job = 1;
    }
    return code;
}

/* Flushes output, tells gasnetrun_ibv (or aborts the job), drops the
 * shared memory and the bootstrap connection. */
static void exit_release(int code, int abort_job)
{
    ex.stage = "stopping the progress threads";
    gasnetc_am_net.stop(ex.timeout / 10 < 1 ? ex.timeout / 10 : 1);
    ex.stage = "flushing output";
    fflush(NULL);
    if (!abort_job && LOAD(ex.flush_to) != FLUSH_NONE) {
        /* The ACK or DONE just sent must reach its rank: this process's
         * QPs end with it, possibly before the HCA transmitted them. */
        ex.stage = "waiting for the last exit messages to leave";
        gasnetc_am_net.flush(LOAD(ex.flush_to), ex.timeout / 10 < 1 ? ex.timeout / 10 : 1);
    }
    if (abort_job) {
        ex.stage = "aborting the job";
        gasnetc_am_nbr.fini();
        if (gasneti_boot) gasneti_boot->abort(code);
        _exit(code);
    }
    ex.stage = "telling gasnetrun_ibv";
    if (gasneti_boot) gasneti_boot->notify_exit(code);
    ex.stage = "releasing shared memory";
    gasnetc_am_nbr.fini();
    ex.stage = "closing the bootstrap connection";
    if (gasneti_boot) gasneti_boot->fini();
    STORE(ex.released, 1);
}

/* LeakSanitizer checks at exit from an atexit handler, which _exit skips:
 * the end of every released exit runs the check itself (leaks end the
 * process with LSan's exit code, which gasnetrun_ibv makes the job's). */
static void exit_leak_check(void)
{
#ifdef GASNETC_LSAN
    cancel_alarm(); /* the check stops every thread and scans: not a hang */
    __lsan_do_leak_check();
#endif
}

/* The end of every exit that does not return: no further coordination. */
static void exit_finish(void) __attribute__((__noreturn__));
static void exit_finish(void)
{
    int code = LOAD(ex.code);
    quiet_process();
    if (!LOAD(ex.released)) exit_release(code, 0);
    exit_leak_check();
    _exit(code);
}

/* A local exit (gasnet_exit): coordinated with the other ranks unless
 * collective_possible is 0. */
static void exit_local(int code, int collective_possible) __attribute__((__noreturn__));
static void exit_local(int code, int collective_possible)
{
    int abort_job;
    if (!exit_head(code)) {
        if (exit_owner) exit_finish(); /* re-entered, e.g. from our SIGQUIT */
        park();                       /* another thread is ending the process */
    }
    gasnetc_phase("exit");
    quiet_process();
    code = exit_coordinate(LOAD(ex.code), collective_possible, &abort_job);
    gasnetc_phase("exit_coord");
    STORE(ex.code, code);
    exit_release(code, abort_job);
    gasnetc_phase("released");
    gasnetc_phase_report();
    exit_leak_check();
    _exit(code);
}

/* A remote exit request reached this thread.  Returns only when the exit
 * belongs to another thread. */
static void exit_remote(int code, int why)
{
    if (!exit_head(code)) return;
    if (why == WHY_LAUNCHER)
        exit_say("ERROR", "gasnetrun_ibv ended the job with exit code %d: a rank died, exited "
                 "without gasnet_exit, or did not finish a collective exit (gasnetrun_ibv's "
                 "message names it); exiting",
                 code);
    raise_client_sigquit();
    exit_finish();
}

/* ---- what exit_signal.c asks of the exit ------------------------------------------- */
int gasnetc_exit_on_signal(int sig)
{
    if (LOAD(gasneti_exit_claimed)) return LOAD(ex.code);
    STORE(ex.fatal_sig, sig);
    STORE(ex.code, 128 + sig);
    ex.stage = "reporting a fatal signal";
    arm_alarm(); /* the report must not hang on a lock the fault left held */
    return -1;
}

const char *gasnetc_exit_ident(void)
{
    return ex.ident;
}

int gasnetc_exit_sigint_to_client(void)
{
    if (LOAD(gasneti_exit_claimed) || !client_has_sigquit()) return 0;
    raise_client_sigquit();
    return 1;
}

/* ---- entry points --------------------------------------------------------------------- */
/* The code as the process reports it: the operating system keeps 8 bits,
 * so a non-zero code whose low 8 bits are 0 (256, 512, -256) would read as
 * success.  It becomes 1, with a warning naming the call. */
static int exit_code8(int code, const char *call)
{
    if (!code || (code & 0xff)) return code & 0xff;
    exit_say("WARNING", "%s(%d): an exit status keeps 8 bits, and %d would read as 0 (success); "
             "exiting with 1 instead", call, code, code);
    return 1;
}

void gasnet_exit(int exitcode)
{
    exitcode = exit_code8(exitcode, "gasnet_exit");
    if (!gasneti_init_done || !LOAD(ex.inited)) exit(exitcode);
    if (getpid() != ex.pid) _exit(exitcode); /* a forked child is not a rank */
    exit_local(exitcode, 1);
}

/* Bootstrap thread: gasnetrun_ibv asks this rank to leave. */
void gasnetc_remote_exit_cb(int code)
{
    int none = -1;
    __atomic_compare_exchange_n(&ex.launcher_code, &none, code & 0xff, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    STORE(ex.pending, 1);
    /* A thread that polls takes it from a cleaner context; this spare
     * thread steps in when none does (blocked, busy in a handler). */
    const double end = now_s() + (ex.timeout / 20 < 0.1 ? ex.timeout / 20 : 0.1);
    while (!LOAD(gasneti_exit_claimed) && now_s() < end) usleep(2000);
    if (!LOAD(gasneti_exit_claimed)) exit_remote(LOAD(ex.launcher_code), WHY_LAUNCHER);
}

void gasnetc_exit_check(void)
{
    int code;
    if (__builtin_expect(!LOAD(ex.pending), 1)) {
        if (__builtin_expect(!gasnetc_am_nbr.exit_requested(&code), 1)) return;
        int none = -1;
        __atomic_compare_exchange_n(&ex.pshm_code, &none, code & 0xff, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
        STORE(ex.pending, 1);
    }
    if (exit_owner || LOAD(gasneti_exit_claimed)) return; /* an exit is under way already */
    if ((code = LOAD(ex.req_code)) >= 0) exit_remote(code, WHY_REQUEST);
    else if ((code = LOAD(ex.launcher_code)) >= 0) exit_remote(code, WHY_LAUNCHER);
    else if ((code = LOAD(ex.pshm_code)) >= 0) exit_remote(code, WHY_PSHM);
}

/* return from main, exit(): the same coordination, then libc finishes. */
static void at_exit(int status, void *arg)
{
    int abort_job, code;
    (void)arg;
    if (!LOAD(ex.inited) || getpid() != ex.pid) return;
    const int asked = status; /* libc exits with it unless we _exit */
    if (!LOAD(gasneti_exit_claimed)) status = exit_code8(status, "exit");
    if (!exit_head(status & 0xff)) {
        if (exit_owner) {
            if (!LOAD(ex.released)) exit_finish(); /* exit() from our SIGQUIT */
            return;
        }
        park();
    }
    quiet_process();
    code = exit_coordinate(LOAD(ex.code), 1, &abort_job);
    STORE(ex.code, code);
    exit_release(code, abort_job);
    cancel_alarm();
    if (code != (asked & 0xff)) { /* another code: the job's, or 256 -> 1 */
        exit_leak_check();
        _exit(code);
    }
}

void gasnetc_fatal_exit(int exitcode)
{
    int sig = LOAD(ex.fatal_sig);
    int code = sig ? 128 + sig : exitcode;
    if (!__atomic_exchange_n(&gasneti_exit_claimed, 1, __ATOMIC_ACQ_REL))
        STORE(ex.code, code & 0xff);
    gasnetc_am_nbr.set_exit(code);
    if (gasneti_boot) gasneti_boot->abort(code);
    _exit(code);
}

void gasnetc_exit_init(void)
{
    static const gex_AM_Entry_t table[] = {
        {EXIT_HIDX_ARRIVE, (gex_AM_Fn_t)arrive_reqh, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1,
         NULL, "gasnetc_exit_arrive"},
        {EXIT_HIDX_ROLE, (gex_AM_Fn_t)role_reph, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL,
         "gasnetc_exit_role"},
        {EXIT_HIDX_DONE, (gex_AM_Fn_t)done_reqh, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
         "gasnetc_exit_done"},
        {EXIT_HIDX_REQ, (gex_AM_Fn_t)req_reqh, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
         "gasnetc_exit_request"},
        {EXIT_HIDX_ACK, (gex_AM_Fn_t)ack_reph, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL,
         "gasnetc_exit_ack"},
    };
    const gex_Rank_t n = gasneti_nodes;

    ex.pid = getpid();
    ex.timeout = gasneti_bootstrap_exittimeout(n);
    if (!(ex.timeout >= 0.1)) ex.timeout = 0.1;
    snprintf(ex.ident, sizeof(ex.ident), "%s", gasneti_log_identity());
    snprintf(ex.alarm_msg, sizeof(ex.alarm_msg),
             "*** ERROR (%s): the exit did not finish within %g s (GASNET_EXITTIMEOUT) while ",
             ex.ident, ex.timeout);
    ex.marks = calloc(n, 1);
    ex.pids = calloc(n, sizeof(pid_t));
    if (!ex.marks || !ex.pids) gasneti_fatalerror("out of memory at startup (%u ranks)", n);
    pid_t mine = ex.pid;
    gasneti_boot->exchange(&mine, sizeof(mine), ex.pids);
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
    gasneti_log_set_fatal_hook(gasnetc_fatal_exit);

    gasnetc_exit_signals_install();
    on_exit(at_exit, NULL);
    STORE(ex.inited, 1);
}
