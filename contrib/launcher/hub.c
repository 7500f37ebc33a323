/* contrib/launcher/hub.c: gasnetrun_ibv's hub.  One poll() loop serves the
 * ranks' sockets (framed protocol, bootstrap/local/proto.h), reaps ranks,
 * and runs the job-wide exit:
 *
 *  - EXIT(code) from a rank opens the collective-exit window (GASNet's
 *    "graceful exit": the other ranks usually call gasnet_exit or return
 *    from main too, and must be allowed to finish what they print).  When
 *    the window (the exit timeout) closes with ranks still running, or at
 *    once when a rank dies without sending EXIT, the exit begins: the first
 *    code wins, EXIT(code) goes to every other live rank, and whoever is
 *    still running after the exit timeout (plus a 1 s grace so the ranks'
 *    watchdogs go first) is SIGKILLed.
 *  - ABORT(code) kills every other rank at once.
 *  - SIGINT/SIGTERM/SIGHUP to the launcher: SIGTERM to every rank, SIGKILL
 *    2 s later, exit code 128+signal.
 *  - After any SIGKILL the launcher waits at most 10 s per rank.
 *
 * Exit code: the first EXIT/ABORT code or non-zero status, else 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contrib/launcher/launcher.h"

static struct {
    int code_set, code; /* job exit code (first wins) */
    int exiting;        /* job exit in progress */
    double collect_deadline; /* end of the collective-exit window (0: closed) */
    double exit_deadline;
    int term_sig;       /* launcher signal received */
    double term_deadline;
    double reap_deadline; /* after SIGKILLs: 0 when none pending */
    uint32_t nalive;
} hub;

static int sig_write_fd = -1;

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(sig_write_fd, &b, 1);
    (void)w;
    errno = saved;
}

int gasnetrun_hub_signals(gasnetrun_job_t *job)
{
    if (pipe2(job->sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        gasnetrun_say("cannot create the signal pipe: %s", strerror(errno));
        return -1;
    }
    sig_write_fd = job->sigpipe[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) sigaction(sigs[i], &sa, NULL);
    return 0;
}

/* ---- buffers and output queues ---------------------------------------------- */
gasnetrun_buf_t *gasnetrun_buf_new(size_t len)
{
    gasnetrun_buf_t *b = malloc(sizeof(*b) + len);
    if (!b) {
        gasnetrun_say("out of memory (%zu bytes for a bootstrap result)", len);
        exit(1);
    }
    b->refs = 1;
    b->len = len;
    return b;
}

void gasnetrun_buf_put(gasnetrun_buf_t *buf)
{
    if (buf && --buf->refs == 0) free(buf);
}

void gasnetrun_hub_queue(gasnetrun_job_t *job, uint32_t r, uint32_t type, gasnetrun_buf_t *buf)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    if (rk->fd < 0) return; /* nobody to tell */
    gasnetrun_out_t *o = calloc(1, sizeof(*o));
    if (!o) {
        gasnetrun_say("out of memory queueing a message to rank %u", (unsigned)r);
        exit(1);
    }
    gasneti_bsp_hdr_pack(o->hdr, type, buf ? (uint32_t)buf->len : 0);
    o->buf = buf;
    if (buf) buf->refs++;
    if (rk->out_tail)
        rk->out_tail->next = o;
    else
        rk->out_head = o;
    rk->out_tail = o;
}

static void drop_output(gasnetrun_rank_t *rk)
{
    while (rk->out_head) {
        gasnetrun_out_t *o = rk->out_head;
        rk->out_head = o->next;
        gasnetrun_buf_put(o->buf);
        free(o);
    }
    rk->out_tail = NULL;
}

static void close_rank(gasnetrun_rank_t *rk)
{
    if (rk->fd >= 0) close(rk->fd);
    rk->fd = -1;
    drop_output(rk);
    gasneti_bsp_rx_fini(&rk->rx);
}

/* Sends what the socket takes without blocking. */
static void flush_output(gasnetrun_rank_t *rk)
{
    while (rk->out_head && rk->fd >= 0) {
        gasnetrun_out_t *o = rk->out_head;
        size_t plen = o->buf ? o->buf->len : 0;
        size_t total = GASNETI_BSP_HDR_LEN + plen;
        struct iovec iov[2];
        int n = 0;
        if (o->off < GASNETI_BSP_HDR_LEN) {
            iov[n].iov_base = o->hdr + o->off;
            iov[n++].iov_len = GASNETI_BSP_HDR_LEN - o->off;
        }
        if (plen) {
            size_t poff = o->off > GASNETI_BSP_HDR_LEN ? o->off - GASNETI_BSP_HDR_LEN : 0;
            iov[n].iov_base = o->buf->data + poff;
            iov[n++].iov_len = plen - poff;
        }
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t put = sendmsg(rk->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (put < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            drop_output(rk); /* the rank closed its end: nothing more to say */
            return;
        }
        o->off += (size_t)put;
        if (o->off < total) return;
        rk->out_head = o->next;
        if (!rk->out_head) rk->out_tail = NULL;
        gasnetrun_buf_put(o->buf);
        free(o);
    }
}

/* ---- job-wide exit ------------------------------------------------------------ */
static void set_code(int code)
{
    /* An exit status is 8 bits; keep a non-zero code non-zero. */
    if (code < 0 || code > 255) code = (code & 0xff) ? (code & 0xff) : 1;
    if (!hub.code_set) {
        hub.code_set = 1;
        hub.code = code;
    }
}

static void kill_rank(gasnetrun_rank_t *rk, int sig)
{
    if (!rk->alive) return;
    rk->killed = 1;
    kill(rk->pid, sig);
}

static void kill_all(gasnetrun_job_t *job, int sig)
{
    for (uint32_t r = 0; r < job->nranks; r++) kill_rank(&job->ranks[r], sig);
    if (sig == SIGKILL && !hub.reap_deadline) hub.reap_deadline = gasnetrun_now() + GASNETRUN_REAP_GRACE;
}

/* Starts the job's exit (once): every live rank that has not sent EXIT is
 * told to exit, and the kill deadline starts. */
static void begin_exit(gasnetrun_job_t *job, int code)
{
    if (hub.exiting) return;
    hub.exiting = 1;
    hub.exit_deadline = gasnetrun_now() + job->exit_timeout + GASNETRUN_EXIT_GRACE;
    int fwd = hub.code_set ? hub.code : code;
    gasnetrun_buf_t *b = gasnetrun_buf_new(4);
    gasneti_bsp_put32(b->data, (uint32_t)fwd);
    for (uint32_t r = 0; r < job->nranks; r++) {
        gasnetrun_rank_t *rk = &job->ranks[r];
        if (!rk->alive || rk->sent_exit || rk->told_exit || rk->fd < 0) continue;
        rk->told_exit = 1;
        gasnetrun_hub_queue(job, r, GASNETI_BSP_EXIT, b);
        flush_output(rk);
    }
    gasnetrun_buf_put(b);
    gasnetrun_verbose(job->opts, "job exit (code %d) started; other ranks asked to exit", fwd);
}

void gasnetrun_hub_fail(gasnetrun_job_t *job, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gasnetrun_say("%s; killing the job", msg);
    set_code(code);
    hub.exiting = 1;
    hub.exit_deadline = 0;
    kill_all(job, SIGKILL);
}

/* ---- frames from ranks ----------------------------------------------------------- */
static void handle_frame(gasnetrun_job_t *job, uint32_t r, uint32_t type, unsigned char *payload,
                         uint32_t len)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    if (type == GASNETI_BSP_EXIT || type == GASNETI_BSP_ABORT) {
        int code = len >= 4 ? (int)gasneti_bsp_get32(payload) : 1;
        free(payload);
        rk->sent_exit = 1;
        if (type == GASNETI_BSP_EXIT) {
            gasnetrun_verbose(job->opts, "rank %u exits the job with code %d", (unsigned)r, code);
            set_code(code);
            if (!hub.exiting && !hub.collect_deadline)
                hub.collect_deadline = gasnetrun_now() + job->exit_timeout;
        } else {
            gasnetrun_say("rank %u aborted the job (exit code %d); killing the other ranks",
                          (unsigned)r, code);
            set_code(code);
            hub.exiting = 1;
            for (uint32_t i = 0; i < job->nranks; i++)
                if (i != r) kill_rank(&job->ranks[i], SIGKILL);
            if (!hub.reap_deadline) hub.reap_deadline = gasnetrun_now() + GASNETRUN_REAP_GRACE;
        }
        return;
    }
    if (hub.exiting) { /* a collective can no longer complete */
        free(payload);
        return;
    }
    gasnetrun_coll_request(job, r, type, payload, len);
}

/* Reads what rank r has sent; with drain (the rank is dead), everything up
 * to EOF, else at most a batch of frames so that one rank cannot starve the
 * others.  Never blocks. */
static void read_rank(gasnetrun_job_t *job, uint32_t r, int drain)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    int budget = 64;
    while (rk->fd >= 0 && (drain || budget > 0)) {
        int rc = gasneti_bsp_rx_read(&rk->rx, rk->fd);
        if (rc == GASNETI_BSP_RX_MORE) {
            /* MORE means a partial frame or an empty socket: ask which. */
            struct pollfd p = {.fd = rk->fd, .events = POLLIN};
            if (poll(&p, 1, 0) <= 0) return;
            continue;
        }
        if (rc == GASNETI_BSP_RX_FRAME) {
            uint32_t type, len;
            unsigned char *payload = gasneti_bsp_rx_take(&rk->rx, &type, &len);
            handle_frame(job, r, type, payload, len);
            budget--;
            continue;
        }
        if (rc == GASNETI_BSP_RX_BAD) {
            gasnetrun_hub_fail(job, 1, "protocol error from rank %u (frame type 0x%x, length %u)",
                               (unsigned)r, (unsigned)rk->rx.type, (unsigned)rk->rx.len);
        } else if (rc == GASNETI_BSP_RX_NOMEM) {
            gasnetrun_hub_fail(job, 1, "out of memory for a %u-byte message from rank %u",
                               (unsigned)rk->rx.len, (unsigned)r);
        }
        close_rank(rk); /* EOF, error, or garbage: stop listening */
        return;
    }
}

/* ---- reaping --------------------------------------------------------------------- */
static void rank_died(gasnetrun_job_t *job, uint32_t r, int status)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    char sb[32];
    rk->alive = 0;
    hub.nalive--;
    read_rank(job, r, 1); /* an EXIT it sent just before dying counts */
    close_rank(rk);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = gasnetrun_signame(sig, sb, sizeof(sb));
        if (rk->killed || hub.term_sig) {
            gasnetrun_verbose(job->opts, "rank %u (pid %ld) ended by %s", (unsigned)r,
                              (long)rk->pid, name);
            return;
        }
        gasnetrun_say("rank %u (pid %ld) was killed by signal %s", (unsigned)r, (long)rk->pid, name);
        set_code(128 + sig);
        begin_exit(job, 128 + sig);
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    gasnetrun_verbose(job->opts, "rank %u (pid %ld) exited with code %d", (unsigned)r,
                      (long)rk->pid, code);
    if (rk->killed || hub.term_sig) return;
    if (rk->sent_exit && code == hub.code) return; /* a graceful exit: the window decides */
    if (code != 0 && !rk->sent_exit && !hub.exiting)
        gasnetrun_say("rank %u (pid %ld) exited with code %d before gasnet_exit", (unsigned)r,
                      (long)rk->pid, code);
    if (code != 0) set_code(code);
    begin_exit(job, code);
}

static void reap(gasnetrun_job_t *job)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return;
        for (uint32_t r = 0; r < job->nranks; r++)
            if (job->ranks[r].alive && job->ranks[r].pid == pid) {
                rank_died(job, r, status);
                break;
            }
    }
}

static void on_launcher_signal(gasnetrun_job_t *job, int sig)
{
    char sb[32];
    if (hub.term_sig) { /* a second signal: no more patience */
        kill_all(job, SIGKILL);
        return;
    }
    hub.term_sig = sig;
    hub.term_deadline = gasnetrun_now() + GASNETRUN_TERM_GRACE;
    gasnetrun_say("caught %s; terminating the job", gasnetrun_signame(sig, sb, sizeof(sb)));
    kill_all(job, SIGTERM);
}

/* Deadlines: exit timeout, SIGTERM grace, SIGKILL reap limit. */
static void check_deadlines(gasnetrun_job_t *job)
{
    double now = gasnetrun_now();
    if (!hub.exiting && hub.collect_deadline && now >= hub.collect_deadline) {
        hub.collect_deadline = 0;
        begin_exit(job, hub.code);
    }
    if (hub.exiting && hub.exit_deadline && now >= hub.exit_deadline) {
        hub.exit_deadline = 0;
        uint32_t left = 0;
        for (uint32_t r = 0; r < job->nranks; r++)
            if (job->ranks[r].alive && !job->ranks[r].killed) left++;
        if (left) {
            gasnetrun_say("%u rank%s still running %g s after the job began to exit; killing "
                          "%s (GASNET_EXITTIMEOUT)",
                          (unsigned)left, left == 1 ? "" : "s", job->exit_timeout,
                          left == 1 ? "it" : "them");
            kill_all(job, SIGKILL);
        }
    }
    if (hub.term_sig && hub.term_deadline && now >= hub.term_deadline) {
        hub.term_deadline = 0;
        if (hub.nalive) {
            gasnetrun_say("%u rank%s ignored SIGTERM for %g s; sending SIGKILL", (unsigned)hub.nalive,
                          hub.nalive == 1 ? "" : "s", GASNETRUN_TERM_GRACE);
            kill_all(job, SIGKILL);
        }
    }
    if (hub.reap_deadline && now >= hub.reap_deadline) {
        for (uint32_t r = 0; r < job->nranks; r++) {
            gasnetrun_rank_t *rk = &job->ranks[r];
            if (!rk->alive) continue;
            gasnetrun_say("rank %u (pid %ld) still exists %g s after SIGKILL; giving up on it",
                          (unsigned)r, (long)rk->pid, GASNETRUN_REAP_GRACE);
            rk->alive = 0;
            hub.nalive--;
            close_rank(rk);
        }
        hub.reap_deadline = 0;
    }
}

static int next_timeout_ms(void)
{
    double next = 0;
    if (hub.exiting && hub.exit_deadline) next = hub.exit_deadline;
    if (!hub.exiting && hub.collect_deadline && (!next || hub.collect_deadline < next))
        next = hub.collect_deadline;
    if (hub.term_sig && hub.term_deadline && (!next || hub.term_deadline < next))
        next = hub.term_deadline;
    if (hub.reap_deadline && (!next || hub.reap_deadline < next)) next = hub.reap_deadline;
    if (!next) return -1;
    double left = next - gasnetrun_now();
    return left <= 0 ? 0 : (int)(left * 1000.0) + 1;
}

int gasnetrun_hub_run(gasnetrun_job_t *job)
{
    uint32_t n = job->nranks;
    struct pollfd *pfd = calloc((size_t)n + 1, sizeof(*pfd));
    uint32_t *who = calloc((size_t)n + 1, sizeof(*who));
    if (!pfd || !who) {
        gasnetrun_say("out of memory for %u ranks", (unsigned)n);
        kill_all(job, SIGKILL);
        return 1;
    }
    hub.nalive = n;
    reap(job); /* children that died before the loop began */
    while (hub.nalive > 0) {
        nfds_t k = 0;
        pfd[k++] = (struct pollfd){.fd = job->sigpipe[0], .events = POLLIN};
        for (uint32_t r = 0; r < n; r++) {
            gasnetrun_rank_t *rk = &job->ranks[r];
            if (rk->fd < 0) continue;
            who[k] = r;
            pfd[k++] = (struct pollfd){.fd = rk->fd,
                                       .events = (short)(POLLIN | (rk->out_head ? POLLOUT : 0))};
        }
        int rc = poll(pfd, k, next_timeout_ms());
        if (rc < 0 && errno != EINTR) {
            gasnetrun_say("poll failed: %s", strerror(errno));
            kill_all(job, SIGKILL);
        }
        if (rc > 0) {
            for (nfds_t i = 1; i < k; i++) {
                gasnetrun_rank_t *rk = &job->ranks[who[i]];
                if (pfd[i].revents & POLLOUT) flush_output(rk);
                if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) read_rank(job, who[i], 0);
            }
            if (pfd[0].revents & POLLIN) {
                unsigned char sigs[64];
                ssize_t got;
                while ((got = read(job->sigpipe[0], sigs, sizeof(sigs))) > 0) {
                    for (ssize_t j = 0; j < got; j++)
                        if (sigs[j] != SIGCHLD) on_launcher_signal(job, sigs[j]);
                }
            }
        }
        reap(job); /* cheap; also covers a SIGCHLD that raced the pipe */
        check_deadlines(job);
    }
    for (uint32_t r = 0; r < n; r++) close_rank(&job->ranks[r]);
    gasnetrun_coll_reset(job);
    free(pfd);
    free(who);
    if (hub.term_sig) return 128 + hub.term_sig;
    return hub.code_set ? hub.code : 0;
}
