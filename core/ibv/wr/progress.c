/* core/ibv/wr/progress.c: the receive and send progress threads
 * (GASNET_RCV_THREAD, GASNET_SND_THREAD and their _RATE, _IDLE and
 * _POLL_MODE, GASNET_THREAD_STACK_MIN/_PAD; seed README "Software
 * configuration settings").
 *
 * One thread of each enabled kind per HCA.  Its CQ (the receive CQ, or the
 * send CQ) is created with a completion channel (progress_channel, called
 * by connect.c before ibv_create_cq).  The thread:
 *   1. polls its CQ until it is empty, and keeps polling for
 *      GASNET_*_THREAD_IDLE ns after the last completion (0: stop at once);
 *   2. arms the CQ (ibv_req_notify_cq) and polls once more: a completion
 *      that arrived between the last empty poll and the arming would
 *      otherwise raise no event;
 *   3. sleeps in poll(2) on the channel's file descriptor (non-blocking)
 *      and an eventfd that exit uses to wake it, at most 1 s at a time;
 *   4. on an event: ibv_get_cq_event + ibv_ack_cq_events; with
 *      GASNET_*_THREAD_RATE = R > 0 it then sleeps until 1/R s after its
 *      previous wake-up (also on the eventfd), and goes back to 1.
 * Receive thread work: gasnetc_ibv_poll_recv_cq (runs AM handlers on this
 * thread) and the process-wide credit backlog; send thread work:
 * gasnetc_ibv_reap_send_cq (releases resources, completes RMA and AM
 * local-completion counters).
 *
 * Only PAR builds have the threads: every path they run (pools, credits,
 * descriptor states, handler dispatch) is thread-safe there, and nowhere
 * else.  SEQ and PARSYNC builds warn once when one is asked for and run
 * without it (as GASNet does for a build configured without the thread).
 * PSHM queues are not polled by the receive thread: see core/ibv/wr/README
 * "Progress threads".
 *
 * GEX_FLAG_DEFER_THREADS (gex_Client_Init): the threads are not started;
 * gex_System_QueryProgressThreads hands the client one entry per thread
 * (function, argument, role, HCA name), and the client runs each function
 * on a thread of its own.  The function returns once the exit stops the
 * threads (the client may then join its thread); starting an entry twice
 * is a fatal error; entries never started are allowed (seed README).
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

enum { RCV = 0, SND = 1 };
enum { MODE_SERIALIZED, MODE_UNSERIALIZED, MODE_EXCLUSIVE };

typedef struct {
    int on;
    uint64_t min_gap_ns; /* 1e9 / RATE, 0 = no limit */
    uint64_t idle_ns;
    int mode;            /* MODE_* */
} thread_cfg_t;

typedef struct {
    gasnetc_ibv_res_t *r;
    int kind;
    struct ibv_comp_channel *ch;
    pthread_t tid;
    int started;
    int finished;   /* atomic: the thread function returned */
    int client_run; /* atomic: deferred, and running on a client's thread */
} pthr_t;

static struct {
    int inited;
    thread_cfg_t cfg[2];
    pthr_t thr[2][GASNETC_IBV_MAX_HCAS];
    int stop;    /* atomic */
    int stop_fd; /* eventfd written at stop */
    size_t stack;
    /* GEX_FLAG_DEFER_THREADS: the entries for gex_System_QueryProgressThreads */
    gex_ProgressThreadInfo_t info[2 * GASNETC_IBV_MAX_HCAS];
    unsigned ninfo;
} P = {.stop_fd = -1};

static const char *const kind_name[2] = {"GASNET_RCV_THREAD", "GASNET_SND_THREAD"};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int parse_mode(const char *v, const char *var)
{
    if (!v || !*v || !strcasecmp(v, "serialized")) return MODE_SERIALIZED;
    if (!strcasecmp(v, "unserialized")) return MODE_UNSERIALIZED;
    if (!strcasecmp(v, "exclusive")) return MODE_EXCLUSIVE;
    gasneti_fatalerror("%s='%s' is not a poll mode: use serialized, unserialized or exclusive",
                       var, v);
}

static void cfg_read(void)
{
    if (P.inited) return;
    P.inited = 1;
    int64_t rate[2], idle[2];
    P.cfg[RCV].on = GASNETI_PARAM_BOOL(GASNET_RCV_THREAD);
    P.cfg[SND].on = GASNETI_PARAM_BOOL(GASNET_SND_THREAD);
    rate[RCV] = GASNETI_PARAM_INT(GASNET_RCV_THREAD_RATE);
    rate[SND] = GASNETI_PARAM_INT(GASNET_SND_THREAD_RATE);
    idle[RCV] = GASNETI_PARAM_INT(GASNET_RCV_THREAD_IDLE);
    idle[SND] = GASNETI_PARAM_INT(GASNET_SND_THREAD_IDLE);
    P.cfg[RCV].mode =
        parse_mode(GASNETI_PARAM_STR(GASNET_RCV_THREAD_POLL_MODE), "GASNET_RCV_THREAD_POLL_MODE");
    P.cfg[SND].mode =
        parse_mode(GASNETI_PARAM_STR(GASNET_SND_THREAD_POLL_MODE), "GASNET_SND_THREAD_POLL_MODE");
    for (int k = 0; k < 2; k++) {
        P.cfg[k].min_gap_ns = rate[k] > 0 ? 1000000000u / (uint64_t)rate[k] : 0;
        P.cfg[k].idle_ns = idle[k] > 0 ? (uint64_t)idle[k] : 0;
#if !defined(GASNET_PAR)
        if (P.cfg[k].on && gasneti_mynode == 0)
            gasneti_warning("%s=1 ignored: progress threads exist only in the PAR library "
                            "(this program uses the SEQ or PARSYNC one); build with PAR, or "
                            "unset %s", kind_name[k], kind_name[k]);
        P.cfg[k].on = 0;
#endif
#if !GASNETC_IBV_SERIALIZE_POLL_CQ
        P.cfg[k].mode = MODE_UNSERIALIZED; /* no serialization to take part in */
#endif
    }
    /* GASNET_THREAD_STACK_MIN/_PAD (GASNet's rule): max(MIN, default + PAD). */
    pthread_attr_t attr;
    size_t dflt = 0;
    pthread_attr_init(&attr);
    pthread_attr_getstacksize(&attr, &dflt);
    pthread_attr_destroy(&attr);
    size_t min = GASNETI_PARAM_SIZE(GASNET_THREAD_STACK_MIN);
    size_t pad = GASNETI_PARAM_SIZE(GASNET_THREAD_STACK_PAD);
    size_t want = dflt + pad > min ? dflt + pad : min;
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0) want = (want + (size_t)page - 1) & ~((size_t)page - 1);
    P.stack = want;
}

size_t gasnetc_ibv_thread_stack(void)
{
    cfg_read();
    return P.stack;
}

struct ibv_comp_channel *gasnetc_ibv_progress_channel(gasnetc_ibv_res_t *r, int is_send)
{
    cfg_read();
    int k = is_send ? SND : RCV;
    if (!P.cfg[k].on) return NULL;
    pthr_t *t = &P.thr[k][r->index];
    struct ibv_comp_channel *ch = ibv_create_comp_channel(r->hca->ctx);
    if (!ch)
        gasneti_fatalerror("ibv_create_comp_channel on %s failed: %s (needed by %s=1; unset it "
                           "to run without the thread)", r->hca->name, strerror(errno),
                           kind_name[k]);
    int fl = fcntl(ch->fd, F_GETFL);
    if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
        gasneti_fatalerror("cannot make the completion channel of %s non-blocking: %s",
                           r->hca->name, strerror(errno));
    t->r = r;
    t->kind = k;
    t->ch = ch;
    return ch;
}

/* One batch of work; returns the completions handled. */
static int work_once(pthr_t *t, int cq_mode)
{
    if (t->kind == SND) return gasnetc_ibv_reap_send_cq(t->r, cq_mode);
    int n = gasnetc_ibv_poll_recv_cq(t->r, cq_mode);
    if (n) gasnetc_ibv_drain_backlogs();
    return n;
}

static int stopping(void) { return __atomic_load_n(&P.stop, __ATOMIC_ACQUIRE); }

/* Sleeps until fd is readable, stop, or timeout_ms.  1 when fd is readable. */
static int wait_fd(int fd, int timeout_ms)
{
    struct pollfd pf[2] = {{.fd = fd, .events = POLLIN}, {.fd = P.stop_fd, .events = POLLIN}};
    int nfd = fd >= 0 ? 2 : 1;
    struct pollfd *p = fd >= 0 ? pf : &pf[1];
    int rc = poll(p, (nfds_t)nfd, timeout_ms);
    return rc > 0 && fd >= 0 && (pf[0].revents & POLLIN);
}

/* Sleeps (interruptibly by stop) until now_ns() >= when. */
static void sleep_until(uint64_t when)
{
    for (uint64_t t = now_ns(); t < when && !stopping(); t = now_ns()) {
        uint64_t ms = (when - t + 999999u) / 1000000u;
        (void)wait_fd(-1, ms > 1000 ? 1000 : (int)ms);
    }
}

static void *thread_main(void *arg)
{
    pthr_t *t = arg;
    const thread_cfg_t *cfg = &P.cfg[t->kind];
    struct ibv_cq *cq = t->kind == SND ? t->r->scq : t->r->rcq;
    int *flag = t->kind == SND ? &t->r->scq_busy : &t->r->rcq_busy;
    int cq_mode = cfg->mode == MODE_UNSERIALIZED ? GASNETC_CQ_UNSERIALIZED : GASNETC_CQ_WAIT;
    if (cfg->mode == MODE_EXCLUSIVE) {
        /* Take the CQ's poll flag (cq.c's protocol) for good: application
         * threads then skip this CQ. */
        while (__atomic_exchange_n(flag, 1, __ATOMIC_ACQUIRE)) sched_yield();
        cq_mode = GASNETC_CQ_HELD;
    }
    uint64_t last_wake = 0;
    while (!stopping()) {
        /* 1. drain, then poll on while GASNET_*_THREAD_IDLE lasts */
        uint64_t quiet_since = now_ns();
        for (;;) {
            if (stopping()) goto out;
            if (work_once(t, cq_mode)) {
                quiet_since = cfg->idle_ns ? now_ns() : 0;
                continue;
            }
            if (!cfg->idle_ns || now_ns() - quiet_since >= cfg->idle_ns) break;
            sched_yield();
        }
        /* 2. arm, and close the race with a completion that came meanwhile */
        if (ibv_req_notify_cq(cq, 0))
            gasneti_fatalerror("ibv_req_notify_cq (%s CQ of %s) failed", t->kind ? "send" : "receive",
                               t->r->hca->name);
        if (work_once(t, cq_mode)) continue;
        /* 3. sleep */
        while (!stopping() && !wait_fd(t->ch->fd, 1000)) { /* timeout: re-check stop */ }
        if (stopping()) break;
        /* 4. take the event */
        struct ibv_cq *ev_cq;
        void *ev_ctx;
        if (ibv_get_cq_event(t->ch, &ev_cq, &ev_ctx) == 0) ibv_ack_cq_events(ev_cq, 1);
        else if (errno != EAGAIN && errno != EINTR)
            gasneti_fatalerror("ibv_get_cq_event (%s CQ of %s) failed: %s",
                               t->kind ? "send" : "receive", t->r->hca->name, strerror(errno));
        if (cfg->min_gap_ns) {
            if (last_wake) sleep_until(last_wake + cfg->min_gap_ns);
            last_wake = now_ns();
        }
    }
out:
    if (cfg->mode == MODE_EXCLUSIVE) __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Names thread t "gasnet-rcvH" / "gasnet-sndH" (HCA index H; 16 bytes
 * with the terminator, hence H mod 100) for ps/top/gdb. */
static void name_thread(const pthr_t *t)
{
#if defined(__GLIBC__)
    char name[16];
    snprintf(name, sizeof(name), "gasnet-%s%u", t->kind == RCV ? "rcv" : "snd",
             (unsigned)t->r->index % 100u);
    pthread_setname_np(t->tid, name);
#else
    (void)t;
#endif
}

/* The function of a deferred thread, run by the client on its own thread. */
static void *client_thread_main(void *arg)
{
    pthr_t *t = arg;
    if (__atomic_exchange_n(&t->client_run, 1, __ATOMIC_ACQ_REL))
        gasneti_fatalerror("gex_System_QueryProgressThreads: the %s progress thread of %s was "
                           "started twice (run each entry's gex_progress_fn on one thread only)",
                           t->kind == RCV ? "receive" : "send", t->r->hca->name);
    t->tid = pthread_self();
    name_thread(t);
    return thread_main(t);
}

void gasnetc_ibv_progress_query(unsigned *count_p, const void **info_p)
{
    *count_p = P.ninfo;
    *info_p = P.ninfo ? (const void *)P.info : NULL;
}

void gasnetc_ibv_progress_start(int defer)
{
    cfg_read();
    if (!gasnetc_ibv.active || (!P.cfg[RCV].on && !P.cfg[SND].on)) return;
    P.stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (P.stop_fd < 0) gasneti_fatalerror("eventfd for the progress threads failed: %s", strerror(errno));
    if (defer) {
        for (int k = 0; k < 2; k++)
            for (int h = 0; h < gasnetc_ibv.nres; h++) {
                pthr_t *t = &P.thr[k][h];
                if (!t->ch) continue;
                gex_ProgressThreadInfo_t *e = &P.info[P.ninfo++];
                memset(e, 0, sizeof(*e));
                e->gex_progress_fn = client_thread_main;
                e->gex_progress_arg = t;
                e->gex_thread_roles = k == RCV ? GEX_THREAD_ROLE_RCV : GEX_THREAD_ROLE_SND;
                e->gex_device_list = t->r->hca->name;
            }
        if (gasnetc_ibv.rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
            gasneti_info("verbs: %u progress thread(s) deferred (GEX_FLAG_DEFER_THREADS): the "
                         "client starts them", P.ninfo);
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the client's threads */
    for (int k = 0; k < 2; k++) {
        for (int h = 0; h < gasnetc_ibv.nres; h++) {
            pthr_t *t = &P.thr[k][h];
            if (!t->ch) continue;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            int rc = pthread_attr_setstacksize(&attr, P.stack);
            if (rc)
                gasneti_fatalerror("progress thread stack of %zu bytes refused: %s (check "
                                   "GASNET_THREAD_STACK_MIN and GASNET_THREAD_STACK_PAD)",
                                   P.stack, strerror(rc));
            rc = pthread_create(&t->tid, &attr, thread_main, t);
            pthread_attr_destroy(&attr);
            if (rc)
                gasneti_fatalerror("cannot start the %s progress thread (%s=1): %s",
                                   k == RCV ? "receive" : "send", kind_name[k], strerror(rc));
            t->started = 1;
            name_thread(t);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (gasnetc_ibv.rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV)) {
        static const char *const mode_name[] = {"serialized", "unserialized", "exclusive"};
        for (int k = 0; k < 2; k++)
            if (P.cfg[k].on)
                gasneti_info("verbs: %s progress thread per HCA (%d): at most %llu wake-ups/s "
                             "(0 = no limit), polls %llu ns before sleeping, %s, %zu-byte stack",
                             k == RCV ? "receive" : "send", gasnetc_ibv.nres,
                             (unsigned long long)(P.cfg[k].min_gap_ns
                                                      ? 1000000000u / P.cfg[k].min_gap_ns
                                                      : 0),
                             (unsigned long long)P.cfg[k].idle_ns, mode_name[P.cfg[k].mode],
                             P.stack);
    }
}

/* Sends in flight on a QP: slots taken and not given back by a completion. */
static int sends_in_flight(const gasnetc_cep_t *ceps)
{
    for (int q = 0; q < gasnetc_ibv.nqps; q++)
        if (GASNETC_ATOMIC_LOAD(&ceps[q].sq_avail) < ceps[q].sq_depth) return 1;
    return 0;
}

void gasnetc_ibv_flush_sends(uint32_t dest, double timeout_s)
{
    if (!gasnetc_ibv.active) return;
    const uint64_t end = now_ns() + (uint64_t)(timeout_s > 0 ? timeout_s * 1e9 : 0);
    const uint32_t lo = dest == UINT32_MAX ? 0 : dest;
    const uint32_t hi = dest == UINT32_MAX ? gasnetc_ibv.size : dest + 1;
    for (uint32_t r = lo; r < hi && r < gasnetc_ibv.size; r++) {
        const gasnetc_cep_t *ceps = GASNETC_ATOMIC_LOAD(&gasnetc_ibv.peer_ceps[r]);
        if (!ceps) continue; /* a neighbour, this rank, or never connected */
        while (sends_in_flight(ceps)) {
            if (now_ns() >= end) return;
            if (!gasnetc_ibv_reap_send()) sched_yield();
        }
    }
}

void gasnetc_ibv_progress_stop(double timeout_s)
{
    if (P.stop_fd < 0 || __atomic_exchange_n(&P.stop, 1, __ATOMIC_ACQ_REL)) return;
    uint64_t one = 1;
    if (write(P.stop_fd, &one, sizeof(one)) < 0) { /* the flag alone stops them within 1 s */ }
    uint64_t end = now_ns() + (uint64_t)(timeout_s > 0 ? timeout_s * 1e9 : 0);
    for (int k = 0; k < 2; k++) {
        for (int h = 0; h < gasnetc_ibv.nres; h++) {
            pthr_t *t = &P.thr[k][h];
            int client = __atomic_load_n(&t->client_run, __ATOMIC_ACQUIRE);
            if (!t->started && !client) continue; /* never started (deferred) */
            if (pthread_equal(t->tid, pthread_self())) continue;
            /* A thread busy in a client handler may not return: wait a
             * bounded time, then leave it to the process's end. */
            while (!__atomic_load_n(&t->finished, __ATOMIC_ACQUIRE) && now_ns() < end)
                usleep(1000);
            if (__atomic_load_n(&t->finished, __ATOMIC_ACQUIRE) && !client) {
                pthread_join(t->tid, NULL); /* a client's thread is the client's to join */
                t->started = 0;
            }
        }
    }
}
