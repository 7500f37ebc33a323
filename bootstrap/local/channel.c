/* bootstrap/local/channel.c: a rank's socket to gasnetrun_ibv's hub, its
 * reader thread, the result mailbox and the exit watchdog (channel.h).
 *
 * Threads: the caller of a collective (one at a time, call_lock), the reader
 * thread (all reads, watchdog), a short-lived exit thread that runs the
 * client's exit callback, and any thread sending EXIT/ABORT (send_lock).
 * Locks are real in SEQ and PAR builds alike: the reader thread always
 * exists.  Order: call_lock before mbox_lock; send_lock is taken alone.
 */
#include "bootstrap/local/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/local/proto.h"
#include "other/log/log.h"

static struct {
    int started;
    int fd;
    uint32_t rank;
    gasneti_bootstrap_exit_cb_t exit_cb;
    double exit_timeout, op_timeout;
    sigset_t client_mask; /* the caller's signal mask, restored on the exit thread */
    pthread_t reader;
    pthread_mutex_t send_lock, call_lock, mbox_lock;
    pthread_cond_t mbox_cond;
    /* mailbox (mbox_lock) */
    uint32_t expect; /* result type awaited, 0 for none */
    int ready;
    unsigned char *result;
    uint32_t result_len;
    /* flags shared between threads (atomic builtins) */
    int closing;      /* stop() was called */
    int self_exiting; /* this process sent EXIT, or the exit callback ran */
} ch = {
    .fd = -1,
    .send_lock = PTHREAD_MUTEX_INITIALIZER,
    .call_lock = PTHREAD_MUTEX_INITIALIZER,
    .mbox_lock = PTHREAD_MUTEX_INITIALIZER,
};

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define XCHG(x, v) __atomic_exchange_n(&(x), (v), __ATOMIC_SEQ_CST)

/* One line "*** <kind> (rank R on HOST): <msg>" on stderr with one write.
 * The log's fatal hook is not run: it may want the very channel that
 * failed. */
static void chan_vsay(const char *kind, const char *fmt, va_list ap)
{
    char line[512];
    int n = snprintf(line, sizeof(line), "*** %s (%s): ", kind, gasneti_log_identity());
    if (n < 0 || (size_t)n >= sizeof(line)) n = 0;
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2) len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

/* A fatal error found on the reader thread: one line, then _exit(1). */
static void chan_die(const char *fmt, ...) GASNETI_FMT(1, 2) GASNETI_NORETURN;
static void chan_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    chan_vsay("FATAL ERROR", fmt, ap);
    va_end(ap);
    _exit(1);
}

static void chan_warn(const char *fmt, ...) GASNETI_FMT(1, 2);
static void chan_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    chan_vsay("WARNING", fmt, ap);
    va_end(ap);
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- exit: callback thread and watchdog ------------------------------------ */
static void *exit_thread_main(void *arg)
{
    int code = (int)(intptr_t)arg;
    pthread_sigmask(SIG_SETMASK, &ch.client_mask, NULL);
    if (ch.exit_cb)
        ch.exit_cb(code);
    else
        exit(code);
    return NULL;
}

static void run_exit_cb(int code)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, exit_thread_main, (void *)(intptr_t)code);
    pthread_attr_destroy(&attr);
    if (rc != 0) exit_thread_main((void *)(intptr_t)code); /* run it here instead */
}

static void watchdog_fire(int code) GASNETI_NORETURN;
static void watchdog_fire(int code)
{
    chan_warn("still running %g s after gasnetrun_ibv asked this job to exit "
              "(GASNET_EXITTIMEOUT); forcing exit with code %d",
              ch.exit_timeout, code);
    _exit(code);
}

/* ---- reader thread ------------------------------------------------------- */
static void deliver_result(uint32_t type, unsigned char *payload, uint32_t len)
{
    pthread_mutex_lock(&ch.mbox_lock);
    if (ch.expect != type || ch.ready) {
        uint32_t expect = ch.expect;
        pthread_mutex_unlock(&ch.mbox_lock);
        chan_die("bootstrap protocol error: gasnetrun_ibv sent a %s while this rank %s%s",
                 gasneti_bsp_type_name(type), expect ? "waited for a " : "was in no collective",
                 expect ? gasneti_bsp_type_name(expect) : "");
    }
    ch.result = payload;
    ch.result_len = len;
    ch.ready = 1;
    pthread_cond_broadcast(&ch.mbox_cond);
    pthread_mutex_unlock(&ch.mbox_lock);
}

static void *reader_main(void *arg)
{
    (void)arg;
    gasneti_bsp_rx_t rx;
    gasneti_bsp_rx_init(&rx, 0);
    int armed = 0, exit_code = 0, eof = 0;
    double deadline = 0;
    for (;;) {
        if (LOAD(ch.closing)) break;
        int timeout_ms = -1;
        if (armed) {
            double left = deadline - now_sec();
            if (left <= 0) watchdog_fire(exit_code);
            timeout_ms = (int)(left * 1000.0) + 1;
        }
        if (eof) {
            /* Launcher gone while exiting: only the watchdog is left to run. */
            if (!armed) break;
            poll(NULL, 0, timeout_ms);
            continue;
        }
        struct pollfd p = {.fd = ch.fd, .events = POLLIN};
        int prc = poll(&p, 1, timeout_ms);
        if (LOAD(ch.closing)) break;
        if (prc <= 0) continue; /* timeout (watchdog check) or EINTR */
        int rc = gasneti_bsp_rx_read(&rx, ch.fd);
        if (rc == GASNETI_BSP_RX_MORE) continue;
        if (rc == GASNETI_BSP_RX_FRAME) {
            uint32_t type, len;
            unsigned char *payload = gasneti_bsp_rx_take(&rx, &type, &len);
            if (type == GASNETI_BSP_EXIT) {
                int code = len >= 4 ? (int)gasneti_bsp_get32(payload) : 1;
                free(payload);
                if (!armed) {
                    armed = 1;
                    exit_code = code;
                    deadline = now_sec() + ch.exit_timeout;
                    if (!XCHG(ch.self_exiting, 1)) run_exit_cb(code);
                }
            } else {
                deliver_result(type, payload, len);
            }
            continue;
        }
        if (LOAD(ch.closing)) break;
        if (rc == GASNETI_BSP_RX_EOF || rc == GASNETI_BSP_RX_ERRNO) {
            if (armed || LOAD(ch.self_exiting)) {
                eof = 1;
                continue;
            }
            chan_die("lost contact with gasnetrun_ibv (%s); the launcher is gone, exiting",
                     rc == GASNETI_BSP_RX_EOF ? "socket closed" : strerror(errno));
        }
        if (rc == GASNETI_BSP_RX_NOMEM)
            chan_die("out of memory receiving a %u-byte bootstrap message", (unsigned)rx.len);
        chan_die("bootstrap protocol error: bad frame from gasnetrun_ibv (type 0x%x, length %u)",
                 (unsigned)rx.type, (unsigned)rx.len);
    }
    gasneti_bsp_rx_fini(&rx);
    return NULL;
}

/* In a child made by the client's fork(): the reader thread does not exist
 * there and the socket belongs to the parent, so forget the channel (without
 * shutdown(), which would cut the parent's connection too). */
static void atfork_child(void)
{
    if (ch.fd >= 0) close(ch.fd);
    ch.fd = -1;
    ch.started = 0;
}

int gasneti_bsl_chan_start(int fd, uint32_t rank, gasneti_bootstrap_exit_cb_t exit_cb,
                           double exit_timeout, double op_timeout)
{
    ch.fd = fd;
    ch.rank = rank;
    ch.exit_cb = exit_cb;
    ch.exit_timeout = exit_timeout;
    ch.op_timeout = op_timeout;
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);

    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&ch.mbox_cond, &cattr);
    pthread_condattr_destroy(&cattr);

    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &ch.client_mask);
    int rc = pthread_create(&ch.reader, NULL, reader_main, NULL);
    pthread_sigmask(SIG_SETMASK, &ch.client_mask, NULL);
    if (rc != 0) {
        fprintf(stderr, "*** ERROR (%s): bootstrap: cannot start the reader thread: %s\n",
                gasneti_log_identity(), strerror(rc));
        return -1;
    }
    static int atfork_done;
    if (!atfork_done) {
        pthread_atfork(NULL, NULL, atfork_child);
        atfork_done = 1;
    }
    ch.started = 1;
    return 0;
}

void gasneti_bsl_chan_call(const char *what, uint32_t type, const void *pre, size_t prelen,
                           const void *data, size_t len, void *result, size_t result_len)
{
    if (!ch.started)
        gasneti_fatalerror("bootstrap %s called without a connection to gasnetrun_ibv "
                           "(after fini, or in a forked child)",
                           what);
    if (prelen + len > GASNETI_BSP_MAX_PAYLOAD || result_len > GASNETI_BSP_MAX_PAYLOAD)
        gasneti_fatalerror("bootstrap %s of %zu bytes exceeds the bootstrap limit of %u bytes",
                           what, prelen + len > result_len ? prelen + len : result_len,
                           (unsigned)GASNETI_BSP_MAX_PAYLOAD);
    pthread_mutex_lock(&ch.call_lock);
    pthread_mutex_lock(&ch.mbox_lock);
    ch.expect = type | GASNETI_BSP_RESULT;
    ch.ready = 0;
    pthread_mutex_unlock(&ch.mbox_lock);

    pthread_mutex_lock(&ch.send_lock);
    int rc = gasneti_bsp_send(ch.fd, type, pre, prelen, data, len);
    int err = errno;
    pthread_mutex_unlock(&ch.send_lock);
    if (rc != 0) {
        pthread_mutex_unlock(&ch.call_lock);
        gasneti_fatalerror("bootstrap %s: cannot send to gasnetrun_ibv: %s (the launcher is gone?)",
                           what, strerror(err));
    }

    double t0 = now_sec();
    pthread_mutex_lock(&ch.mbox_lock);
    while (!ch.ready) {
        if (ch.op_timeout <= 0) {
            pthread_cond_wait(&ch.mbox_cond, &ch.mbox_lock);
            continue;
        }
        double end = t0 + ch.op_timeout;
        struct timespec ts;
        ts.tv_sec = (time_t)end;
        ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        int w = pthread_cond_timedwait(&ch.mbox_cond, &ch.mbox_lock, &ts);
        if (w == ETIMEDOUT && !ch.ready) {
            ch.expect = 0;
            pthread_mutex_unlock(&ch.mbox_lock);
            pthread_mutex_unlock(&ch.call_lock);
            gasneti_fatalerror("bootstrap %s timed out after %g s waiting for the launcher "
                               "(GASNET_BOOTSTRAP_TIMEOUT; did every rank call it?)",
                               what, ch.op_timeout);
        }
    }
    unsigned char *payload = ch.result;
    uint32_t got = ch.result_len;
    ch.result = NULL;
    ch.ready = 0;
    ch.expect = 0;
    pthread_mutex_unlock(&ch.mbox_lock);
    pthread_mutex_unlock(&ch.call_lock);
    if (got != result_len)
        gasneti_fatalerror("bootstrap %s: gasnetrun_ibv returned %u bytes, expected %zu", what,
                           (unsigned)got, result_len);
    if (got) memcpy(result, payload, got);
    free(payload);
}

void gasneti_bsl_chan_notify_exit(int code)
{
    STORE(ch.self_exiting, 1);
    if (!ch.started) return;
    unsigned char word[4];
    gasneti_bsp_put32(word, (uint32_t)code);
    pthread_mutex_lock(&ch.send_lock);
    if (ch.fd >= 0) (void)gasneti_bsp_send(ch.fd, GASNETI_BSP_EXIT, word, 4, NULL, 0);
    pthread_mutex_unlock(&ch.send_lock);
}

void gasneti_bsl_chan_abort(int code)
{
    int fd = LOAD(ch.fd);
    if (ch.started && fd >= 0 && pthread_mutex_trylock(&ch.send_lock) == 0) {
        /* Only with the lock: bytes dropped into the middle of another
         * thread's frame would garble the stream.  Without it, our death
         * (seen by the launcher's waitpid) carries the code instead. */
        unsigned char frame[GASNETI_BSP_HDR_LEN + 4];
        gasneti_bsp_hdr_pack(frame, GASNETI_BSP_ABORT, 4);
        gasneti_bsp_put32(frame + GASNETI_BSP_HDR_LEN, (uint32_t)code);
        ssize_t w = send(fd, frame, sizeof(frame), MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)w;
        pthread_mutex_unlock(&ch.send_lock);
    }
    _exit(code);
}

void gasneti_bsl_chan_stop(void)
{
    if (!ch.started || XCHG(ch.closing, 1)) return;
    int fd = ch.fd;
    shutdown(fd, SHUT_RDWR); /* wakes the reader with EOF */
    if (pthread_equal(pthread_self(), ch.reader))
        pthread_detach(ch.reader);
    else
        pthread_join(ch.reader, NULL);
    pthread_mutex_lock(&ch.send_lock);
    STORE(ch.fd, -1);
    pthread_mutex_unlock(&ch.send_lock);
    close(fd);
    ch.started = 0;
}
