/* contrib/launcher/hub.c: gasnetrun_ibv's hub.  One poll() loop serves the
 * ranks (framed protocol, bootstrap/local/proto.h), reaps them, and runs
 * the job-wide exit.  A rank is either a child of this process with its own
 * socket (local spawner) or sits behind a link, an ssh session to a node
 * that forked it (ssh spawner): frames to it go in a TO_RANK envelope, its
 * frames arrive as FROM_RANK, its death as DIED, and killing it is a KILL
 * message.  The rules are the same for both:
 *
 *  - EXIT(code) from a rank opens the collective-exit window (GASNet's
 *    "graceful exit": the other ranks usually call gasnet_exit or return
 *    from main too, and must be allowed to finish what they print).  When
 *    the window (the exit timeout) closes with ranks still running, or at
 *    once when a rank dies without sending EXIT, the exit begins: the first
 *    code wins, EXIT(code) goes to every other live rank, and whoever is
 *    still running after the exit timeout (plus a 1 s grace so the ranks'
 *    watchdogs go first) is SIGKILLed.
 *  - ABORT(code) kills every other rank GASNETRUN_ABORT_SETTLE later: a
 *    rank killed by a signal makes its peers abort with transport errors,
 *    and its death, reaped in that time, gives the job's code instead.
 *  - A rank that ends with 0 without EXIT: after it joined (sent a frame,
 *    i.e. it is inside gasnet_init or later) the job fails with 1 (it left
 *    without gasnet_exit); before it joined, the job fails with 1 as soon
 *    as any rank has joined (those wait for it forever), and a job whose
 *    ranks all end before joining (not a GASNet program) exits 0.
 *  - SIGINT/SIGTERM/SIGHUP to the launcher: SIGTERM to every rank, SIGKILL
 *    2 s later, exit code 128+signal.
 *  - After any SIGKILL the launcher waits at most 10 s per rank.
 *  - A link that ends while ranks behind it live: those ranks are lost
 *    (code 1 unless the job is already exiting).  When every rank is gone,
 *    the links are closed and their ssh processes reaped (bounded).
 *
 * Exit code: the first non-zero EXIT/ABORT code or real exit status (a rank's
 * status counts even after it sent EXIT(0)), else 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int64_t abort_rank;      /* first ABORT, settling (-1: none) */
    int abort_code;
    double abort_deadline;   /* 0: settled */
    double abort_since;
    int64_t preinit_rank;    /* ended with 0 before joining (-1: none) */
    int64_t joined_rank;     /* the first rank that joined (-1: none) */
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
    signal(SIGPIPE, SIG_IGN); /* writes to ssh pipes; children get SIG_DFL back */
    return 0;
}

/* ---- addressing ranks ------------------------------------------------------------ */
static gasnetrun_conn_t *rank_conn(gasnetrun_job_t *job, uint32_t r)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    return rk->link < 0 ? &rk->conn : &job->links[rk->link].conn;
}

static int rank_reachable(gasnetrun_job_t *job, uint32_t r)
{
    return rank_conn(job, r)->wfd >= 0;
}

/* "rank 3 (pid 1234)" or "rank 3 (pid 1234 on host h)". */
static const char *rank_desc(const gasnetrun_job_t *job, uint32_t r, char *buf, size_t len)
{
    const gasnetrun_rank_t *rk = &job->ranks[r];
    if (rk->link < 0)
        snprintf(buf, len, "rank %u (pid %ld)", (unsigned)r, (long)rk->pid);
    else
        snprintf(buf, len, "rank %u (pid %ld on %s)", (unsigned)r, (long)rk->pid,
                 job->hosts ? job->hosts[job->links[rk->link].host_lo] : "?");
    return buf;
}

void gasnetrun_hub_queue(gasnetrun_job_t *job, uint32_t r, uint32_t type, gasnetrun_buf_t *buf)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    if (rk->link < 0) {
        gasnetrun_conn_send(&rk->conn, type, NULL, 0, buf);
    } else {
        uint32_t w[2] = {r, type};
        gasnetrun_conn_send(&job->links[rk->link].conn, GASNETI_BSP_TO_RANK, w, 2, buf);
    }
}

void gasnetrun_hub_queue_all(gasnetrun_job_t *job, uint32_t type, gasnetrun_buf_t *buf)
{
    for (uint32_t r = 0; r < job->nranks; r++)
        if (job->ranks[r].link < 0) gasnetrun_conn_send(&job->ranks[r].conn, type, NULL, 0, buf);
    for (uint32_t l = 0; l < job->nlinks; l++)
        gasnetrun_conn_send(&job->links[l].conn, GASNETI_BSP_TO_ALL, &type, 1, buf);
}

/* ---- job-wide exit ------------------------------------------------------------ */
static void set_code(int code)
{
    /* An exit status is 8 bits; keep a non-zero code non-zero. */
    if (code < 0 || code > 255) code = (code & 0xff) ? (code & 0xff) : 1;
    /* The first code wins, except that a zero code gives way to the first
     * non-zero one: a rank whose real exit status is non-zero after it
     * asked for exit 0 (valgrind --error-exitcode, sanitizers) fails the job. */
    if (!hub.code_set || (hub.code == 0 && code != 0)) {
        hub.code_set = 1;
        hub.code = code;
    }
}

static void kill_rank(gasnetrun_job_t *job, uint32_t r, int sig)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    if (!rk->alive) return;
    rk->killed = 1;
    if (rk->link < 0) {
        kill(rk->pid, sig);
    } else {
        uint32_t w[3] = {r, r + 1, (uint32_t)sig};
        gasnetrun_conn_send(&job->links[rk->link].conn, GASNETI_BSP_KILL, w, 3, NULL);
    }
}

static void kill_all(gasnetrun_job_t *job, int sig)
{
    for (uint32_t r = 0; r < job->nranks; r++) {
        gasnetrun_rank_t *rk = &job->ranks[r];
        if (!rk->alive) continue;
        rk->killed = 1;
        if (rk->link < 0) kill(rk->pid, sig);
    }
    for (uint32_t l = 0; l < job->nlinks; l++) {
        uint32_t w[3] = {job->links[l].rank_lo, job->links[l].rank_hi, (uint32_t)sig};
        gasnetrun_conn_send(&job->links[l].conn, GASNETI_BSP_KILL, w, 3, NULL);
    }
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
        if (!rk->alive || rk->sent_exit || rk->told_exit || !rank_reachable(job, r)) continue;
        rk->told_exit = 1;
        gasnetrun_hub_queue(job, r, GASNETI_BSP_EXIT, b);
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

/* 1 if local process pid is ending on its own (a zombie, or PF_EXITING in
 * /proc/PID/stat: it is releasing its memory and queue pairs, which under
 * emulation or with much pinned memory takes seconds). */
static int dying(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command name */
    char state = 0;
    unsigned long flags = 0;
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2) return 0;
    return state == 'Z' || state == 'X' || (flags & 0x4u) != 0; /* PF_EXITING */
}

/* A local rank that is ending on its own and has not been reaped: an ABORT
 * waits for its status (its death may be what the ABORT reports). */
static int rank_dying(gasnetrun_job_t *job)
{
    for (uint32_t r = 0; r < job->nranks; r++) {
        gasnetrun_rank_t *rk = &job->ranks[r];
        if (rk->alive && rk->link < 0 && !rk->killed && !rk->sent_abort && dying(rk->pid)) return 1;
    }
    return 0;
}

/* The first ABORT, once settled: a line naming the rank, its code unless a
 * signal's (or an earlier failure's) already stands, every other rank
 * SIGKILLed. */
static void abort_settled(gasnetrun_job_t *job)
{
    uint32_t r = (uint32_t)hub.abort_rank;
    hub.abort_deadline = 0;
    set_code(hub.abort_code);
    if (hub.code != hub.abort_code)
        gasnetrun_say("rank %u aborted the job (exit code %d) after the failure above, whose code "
                      "%d the job keeps; killing the other ranks", (unsigned)r, hub.abort_code,
                      hub.code);
    else
        gasnetrun_say("rank %u aborted the job (exit code %d); killing the other ranks",
                      (unsigned)r, hub.abort_code);
    for (uint32_t i = 0; i < job->nranks; i++)
        if (i != r) kill_rank(job, i, SIGKILL);
    if (!hub.reap_deadline) hub.reap_deadline = gasnetrun_now() + GASNETRUN_REAP_GRACE;
}

/* Rank `gone` ended with 0 before it joined while rank `joined` is in the
 * job: that rank waits in gasnet_init for it forever. */
static void preinit_fail(gasnetrun_job_t *job, uint32_t gone, uint32_t joined)
{
    char who[160];
    if (hub.exiting || hub.term_sig) return;
    gasnetrun_say("%s exited with code 0 before gasnet_init while rank %u has joined the job "
                  "(every rank must call gasnet_init); the job exits 1",
                  rank_desc(job, gone, who, sizeof(who)), (unsigned)joined);
    set_code(1);
    begin_exit(job, 1);
}

static void rank_joined(gasnetrun_job_t *job, uint32_t r)
{
    job->ranks[r].joined = 1;
    if (hub.joined_rank < 0) hub.joined_rank = r;
    if (hub.preinit_rank >= 0) preinit_fail(job, (uint32_t)hub.preinit_rank, r);
}

/* ---- frames from ranks ----------------------------------------------------------- */
static void handle_frame(gasnetrun_job_t *job, uint32_t r, uint32_t type, unsigned char *payload,
                         uint32_t len)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    if (!rk->joined) rank_joined(job, r);
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
            rk->sent_abort = 1;
            gasnetrun_verbose(job->opts, "rank %u aborts the job with code %d", (unsigned)r, code);
            if (hub.abort_rank < 0) { /* the first ABORT settles, then kills */
                hub.abort_rank = r;
                hub.abort_code = code;
                hub.abort_since = gasnetrun_now();
                hub.abort_deadline = hub.abort_since + GASNETRUN_ABORT_SETTLE;
                hub.exiting = 1;
            }
        }
        return;
    }
    if (hub.exiting) { /* a collective can no longer complete */
        free(payload);
        return;
    }
    gasnetrun_coll_request(job, r, type, payload, len);
}

/* Reads what local rank r has sent; with drain (the rank is dead),
 * everything up to EOF, else at most a batch of frames so that one rank
 * cannot starve the others.  Never blocks. */
static void read_rank(gasnetrun_job_t *job, uint32_t r, int drain)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    int budget = 64;
    while (rk->conn.rfd >= 0 && (drain || budget > 0)) {
        uint32_t type, len;
        unsigned char *payload;
        int rc = gasnetrun_conn_read(&rk->conn, "", &type, &payload, &len);
        if (rc == GASNETI_BSP_RX_MORE) return;
        if (rc == GASNETI_BSP_RX_FRAME) {
            handle_frame(job, r, type, payload, len);
            budget--;
            continue;
        }
        if (rc == GASNETI_BSP_RX_BAD) {
            gasnetrun_hub_fail(job, 1, "protocol error from rank %u (frame type 0x%x, length %u)",
                               (unsigned)r, (unsigned)rk->conn.rx.type, (unsigned)rk->conn.rx.len);
        } else if (rc == GASNETI_BSP_RX_NOMEM) {
            gasnetrun_hub_fail(job, 1, "out of memory for a %u-byte message from rank %u",
                               (unsigned)rk->conn.rx.len, (unsigned)r);
        }
        gasnetrun_conn_close(&rk->conn); /* EOF, error, or garbage: stop listening */
        return;
    }
}

/* ---- deaths ---------------------------------------------------------------------- */
/* Rank r is gone with wait status `status`; lost: no status (its link died). */
static void rank_gone(gasnetrun_job_t *job, uint32_t r, int status, int lost)
{
    gasnetrun_rank_t *rk = &job->ranks[r];
    char sb[32], who[160];
    if (!rk->alive) return;
    rk->alive = 0;
    hub.nalive--;
    if (rk->link < 0) {
        read_rank(job, r, 1); /* an EXIT it sent just before dying counts */
        gasnetrun_conn_close(&rk->conn);
    }
    rank_desc(job, r, who, sizeof(who));
    if (lost) {
        if (rk->killed || hub.term_sig || hub.exiting || rk->sent_exit) return;
        set_code(1);
        begin_exit(job, 1);
        return;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = gasnetrun_signame(sig, sb, sizeof(sb));
        if (rk->killed || hub.term_sig) {
            gasnetrun_verbose(job->opts, "%s ended by %s", who, name);
            return;
        }
        gasnetrun_say("%s was killed by signal %s", who, name);
        set_code(128 + sig);
        begin_exit(job, 128 + sig);
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    gasnetrun_verbose(job->opts, "%s exited with code %d", who, code);
    if (rk->killed || hub.term_sig || rk->sent_abort) return; /* an ABORT decides itself */
    if (rk->sent_exit && code == hub.code) return; /* a graceful exit: the window decides */
    if (code == 0 && !rk->sent_exit && !hub.exiting) {
        if (!rk->joined) { /* before gasnet_init */
            if (hub.preinit_rank < 0) hub.preinit_rank = r;
            if (hub.joined_rank >= 0) preinit_fail(job, r, (uint32_t)hub.joined_rank);
            return;
        }
        gasnetrun_say("%s exited with code 0 without gasnet_exit after gasnet_init (_exit(), "
                      "or an exit that never reached gasnetrun_ibv); the job exits 1", who);
        set_code(1);
        begin_exit(job, 1);
        return;
    }
    if (code != 0 && !rk->sent_exit)
        gasnetrun_say("%s exited with code %d before gasnet_exit", who, code);
    else if (code != 0 && hub.code_set && hub.code == 0)
        gasnetrun_say("%s exited with code %d after the job began to exit with 0; "
                      "the job exits %d", who, code, code);
    if (code != 0) set_code(code);
    begin_exit(job, code);
}

/* A link whose session ended and whose ssh was reaped: ranks it had not
 * reported are lost. */
static void link_check_lost(gasnetrun_job_t *job, gasnetrun_link_t *l)
{
    if (!l->eof || l->pid || l->lost_done) return;
    l->lost_done = 1;
    uint32_t alive = 0;
    for (uint32_t r = l->rank_lo; r < l->rank_hi; r++) alive += job->ranks[r].alive;
    if (!alive) return;
    if (!hub.exiting && !hub.term_sig) gasnetrun_link_say_lost(l, job->hosts[l->host_lo], alive);
    for (uint32_t r = l->rank_lo; r < l->rank_hi; r++) rank_gone(job, r, 0, 1);
}

static void read_link(gasnetrun_job_t *job, gasnetrun_link_t *l)
{
    char who[300];
    snprintf(who, sizeof(who), "host %s", job->hosts[l->host_lo]);
    for (;;) {
        uint32_t type, len;
        unsigned char *p;
        int rc = gasnetrun_conn_read(&l->conn, who, &type, &p, &len);
        if (rc == GASNETI_BSP_RX_MORE) return;
        if (rc != GASNETI_BSP_RX_FRAME) {
            if (rc == GASNETI_BSP_RX_BAD || rc == GASNETI_BSP_RX_NOMEM)
                gasnetrun_say("protocol error from the node on %s (frame type 0x%x, length %u)",
                              who, (unsigned)l->conn.rx.type, (unsigned)l->conn.rx.len);
            gasnetrun_conn_close(&l->conn);
            l->eof = 1;
            link_check_lost(job, l);
            return;
        }
        uint32_t r = len >= 4 ? gasneti_bsp_get32(p) : UINT32_MAX;
        int ok = r >= l->rank_lo && r < l->rank_hi;
        if (ok && type == GASNETI_BSP_FROM_RANK && len >= 8 &&
            gasneti_bsp_type_valid(gasneti_bsp_get32(p + 4), GASNETI_BSP_DIR_HUB)) {
            uint32_t inner = gasneti_bsp_get32(p + 4), ilen = len - 8;
            unsigned char *ip = ilen ? malloc(ilen) : NULL;
            if (ilen && !ip) gasnetrun_say("out of memory (%u bytes)", (unsigned)ilen), exit(1);
            if (ilen) memcpy(ip, p + 8, ilen);
            if (job->ranks[r].alive) handle_frame(job, r, inner, ip, ilen);
            else free(ip);
        } else if (ok && type == GASNETI_BSP_DIED && len >= 16) {
            job->ranks[r].pid = (pid_t)gasneti_bsp_get32(p + 4);
            uint32_t flags = gasneti_bsp_get32(p + 12);
            rank_gone(job, r, (int)gasneti_bsp_get32(p + 8), (flags & GASNETI_BSP_DIED_LOST) != 0);
        } else if (ok && type == GASNETI_BSP_OUTPUT && len >= 8) {
            int fd = gasneti_bsp_get32(p + 4) == 2 ? STDERR_FILENO : STDOUT_FILENO;
            for (size_t off = 8; off < len;) {
                ssize_t w = write(fd, p + off, len - off);
                if (w < 0 && errno == EINTR) continue;
                if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    struct pollfd pw = {.fd = fd, .events = POLLOUT};
                    poll(&pw, 1, 1000); /* a non-blocking stdout: wait like a blocking one */
                    continue;
                }
                if (w <= 0) break; /* our output is gone: drop theirs */
                off += (size_t)w;
            }
        } else {
            free(p);
            gasnetrun_hub_fail(job, 1, "protocol error from the node on %s (%s for rank %u)",
                               who, gasneti_bsp_type_name(type), (unsigned)r);
            return;
        }
        free(p);
    }
}

static void reap(gasnetrun_job_t *job)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return;
        int found = 0;
        for (uint32_t l = 0; l < job->nlinks && !found; l++) {
            gasnetrun_link_t *lk = &job->links[l];
            if (lk->pid != pid) continue;
            found = 1;
            lk->pid = 0;
            lk->status = status;
            link_check_lost(job, lk);
        }
        for (uint32_t r = 0; r < job->nranks && !found; r++)
            if (job->ranks[r].link < 0 && job->ranks[r].alive && job->ranks[r].pid == pid) {
                rank_gone(job, r, status, 0);
                found = 1;
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
    if (hub.abort_deadline && now >= hub.abort_deadline) {
        if (rank_dying(job) && now < hub.abort_since + GASNETRUN_ABORT_WAIT_MAX)
            hub.abort_deadline = now + 0.05; /* its status first */
        else
            abort_settled(job);
    }
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
        char who[160];
        for (uint32_t r = 0; r < job->nranks; r++) {
            gasnetrun_rank_t *rk = &job->ranks[r];
            if (!rk->alive) continue;
            gasnetrun_say("%s still exists %g s after SIGKILL; giving up on it",
                          rank_desc(job, r, who, sizeof(who)), GASNETRUN_REAP_GRACE);
            rk->alive = 0;
            hub.nalive--;
            if (rk->link < 0) gasnetrun_conn_close(&rk->conn);
        }
        hub.reap_deadline = 0;
    }
}

static int next_timeout_ms(void)
{
    double next = hub.abort_deadline;
    if (hub.exiting && hub.exit_deadline && (!next || hub.exit_deadline < next))
        next = hub.exit_deadline;
    if (!hub.exiting && hub.collect_deadline && (!next || hub.collect_deadline < next))
        next = hub.collect_deadline;
    if (hub.term_sig && hub.term_deadline && (!next || hub.term_deadline < next))
        next = hub.term_deadline;
    if (hub.reap_deadline && (!next || hub.reap_deadline < next)) next = hub.reap_deadline;
    if (!next) return -1;
    double left = next - gasnetrun_now();
    return left <= 0 ? 0 : (int)(left * 1000.0) + 1;
}

static void read_signals(gasnetrun_job_t *job)
{
    unsigned char sigs[64];
    ssize_t got;
    while ((got = read(job->sigpipe[0], sigs, sizeof(sigs))) > 0)
        for (ssize_t j = 0; j < got; j++)
            if (sigs[j] != SIGCHLD) on_launcher_signal(job, sigs[j]);
}

/* After the last rank: close every link (its node sees EOF and ends), and
 * wait a bounded time for the ssh processes, killing what remains. */
static void finish_links(gasnetrun_job_t *job)
{
    if (!job->nlinks) return;
    double end = gasnetrun_now() + GASNETRUN_REAP_GRACE;
    int killed = 0;
    for (uint32_t l = 0; l < job->nlinks; l++) gasnetrun_conn_drain(&job->links[l].conn, end);
    for (uint32_t l = 0; l < job->nlinks; l++) gasnetrun_conn_close_write(&job->links[l].conn);
    for (;;) {
        uint32_t open = 0;
        for (uint32_t l = 0; l < job->nlinks; l++) {
            gasnetrun_link_t *lk = &job->links[l];
            if (lk->conn.rfd >= 0) read_link(job, lk); /* late output */
            open += lk->pid != 0 || lk->conn.rfd >= 0;
        }
        reap(job);
        if (!open) break;
        if (gasnetrun_now() > end) {
            if (killed) break;
            gasnetrun_say("%u ssh session%s still open %g s after the job ended; killing %s", open,
                          open == 1 ? "" : "s", GASNETRUN_REAP_GRACE, open == 1 ? "it" : "them");
            for (uint32_t l = 0; l < job->nlinks; l++)
                if (job->links[l].pid) kill(job->links[l].pid, SIGKILL);
            killed = 1;
            end = gasnetrun_now() + 2;
        }
        struct pollfd p = {.fd = job->sigpipe[0], .events = POLLIN};
        poll(&p, 1, 20);
        if (p.revents & POLLIN) read_signals(job);
    }
    for (uint32_t l = 0; l < job->nlinks; l++) gasnetrun_conn_close(&job->links[l].conn);
}

void gasnetrun_job_free(gasnetrun_job_t *job)
{
    for (uint32_t r = 0; job->ranks && r < job->nranks; r++) {
        gasnetrun_conn_close(&job->ranks[r].conn);
        free(job->ranks[r].contrib);
    }
    for (uint32_t l = 0; job->links && l < job->nlinks; l++) gasnetrun_conn_close(&job->links[l].conn);
    free(job->ranks);
    free(job->links);
    job->ranks = NULL;
    job->links = NULL;
}

int gasnetrun_hub_run(gasnetrun_job_t *job)
{
    uint32_t n = job->nranks, nl = job->nlinks;
    size_t cap = (size_t)n + 2 * (size_t)nl + 1;
    struct pollfd *pfd = calloc(cap, sizeof(*pfd));
    int64_t *who = calloc(cap, sizeof(*who)); /* >= 0: rank; < 0: -1 - link */
    if (!pfd || !who) {
        gasnetrun_say("out of memory for %u ranks", (unsigned)n);
        kill_all(job, SIGKILL);
        return 1;
    }
    hub.nalive = n;
    hub.abort_rank = hub.preinit_rank = hub.joined_rank = -1;
    reap(job); /* children that died before the loop began */
    for (uint32_t l = 0; l < nl; l++) link_check_lost(job, &job->links[l]); /* never started */
    while (hub.nalive > 0) {
        nfds_t k = 0;
        pfd[k++] = (struct pollfd){.fd = job->sigpipe[0], .events = POLLIN};
        for (uint32_t r = 0; r < n; r++) {
            gasnetrun_rank_t *rk = &job->ranks[r];
            if (rk->link >= 0 || rk->conn.rfd < 0) continue;
            who[k] = r;
            short ev = (short)(POLLIN | (gasnetrun_conn_pending(&rk->conn) ? POLLOUT : 0));
            pfd[k++] = (struct pollfd){.fd = rk->conn.rfd, .events = ev};
        }
        for (uint32_t l = 0; l < nl; l++) {
            gasnetrun_conn_t *c = &job->links[l].conn;
            if (c->rfd >= 0) {
                who[k] = -1 - (int64_t)l;
                pfd[k++] = (struct pollfd){.fd = c->rfd, .events = POLLIN};
            }
            if (gasnetrun_conn_pending(c)) {
                who[k] = -1 - (int64_t)l;
                pfd[k++] = (struct pollfd){.fd = c->wfd, .events = POLLOUT};
            }
        }
        int rc = poll(pfd, k, next_timeout_ms());
        if (rc < 0 && errno != EINTR) {
            gasnetrun_say("poll failed: %s", strerror(errno));
            kill_all(job, SIGKILL);
        }
        if (rc > 0) {
            for (nfds_t i = 1; i < k; i++) {
                if (!pfd[i].revents) continue;
                if (who[i] >= 0) {
                    gasnetrun_rank_t *rk = &job->ranks[who[i]];
                    if (pfd[i].revents & POLLOUT) gasnetrun_conn_flush(&rk->conn);
                    if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) read_rank(job, (uint32_t)who[i], 0);
                } else {
                    gasnetrun_link_t *lk = &job->links[-1 - who[i]];
                    if (pfd[i].fd == lk->conn.wfd && (pfd[i].revents & (POLLOUT | POLLERR | POLLHUP)))
                        gasnetrun_conn_flush(&lk->conn);
                    if (pfd[i].fd == lk->conn.rfd && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                        read_link(job, lk);
                }
            }
            if (pfd[0].revents & POLLIN) read_signals(job);
        }
        reap(job); /* cheap; also covers a SIGCHLD that raced the pipe */
        check_deadlines(job);
    }
    if (hub.abort_deadline) abort_settled(job); /* every rank ended while it settled */
    finish_links(job);
    for (uint32_t r = 0; r < n; r++)
        if (job->ranks[r].link < 0) gasnetrun_conn_close(&job->ranks[r].conn);
    gasnetrun_coll_reset(job);
    free(pfd);
    free(who);
    if (hub.term_sig) return 128 + hub.term_sig;
    return hub.code_set ? hub.code : 0;
}
