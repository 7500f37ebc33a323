/* contrib/launcher/node.c: a node of an ssh job, `gasnetrun_ibv --ssh-node`,
 * started by its parent (the root gasnetrun_ibv or another node) over ssh.
 *
 * Its stdin and stdout are the link to the parent: it writes the greeting,
 * reads SETUP (setup.h), changes to the job's directory, starts the nodes
 * of its chunk of hosts over ssh (link.c), forks its own host's ranks
 * exactly as the local spawner does (GASNET_IBV_SPAWNER=ssh, stdin from
 * /dev/null, stderr inherited: it flows back through ssh), and then relays:
 *
 *   down  TO_RANK(r, frame)   to rank r's socket, or to the link below it
 *         TO_ALL(frame)       to every local rank, and to every link
 *         KILL(lo, hi, sig)   signal local ranks in [lo, hi), pass it on
 *   up    a rank's frame      FROM_RANK(r, frame)
 *         a rank's stdout     OUTPUT(r, 1, bytes)
 *         a rank's death      DIED(r, pid, wait status, flags), after its
 *                             socket and stdout have been drained
 *         a link's frames     unchanged; a link that ends leaves DIED(LOST)
 *                             for the ranks below it that it did not report
 *
 * It decides nothing about the job: the root does.  It ends when all its
 * ranks and links are done (then its parent closes the link), or tears its
 * part down when the link to its parent ends or it gets SIGINT/SIGTERM/
 * SIGHUP: SIGTERM to its ranks, EOF to the nodes below, SIGKILL 2 s later.
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
#include "contrib/launcher/setup.h"

#define SETUP_TIMEOUT 60.0
/* Ranks' stdout is not read while this much waits for the parent, so that
 * a slow consumer holds the ranks back instead of filling this node. */
#define OUTPUT_BACKLOG (16u << 20)

typedef struct {
    pid_t pid;
    gasnetrun_conn_t conn; /* its socket */
    int out;               /* its stdout (read end), -1 once closed */
    int alive, killed;
} node_rank_t;

static struct {
    gasnetrun_setup_t s;
    gasnetrun_job_t sig; /* only its sigpipe (gasnetrun_hub_signals) */
    uint32_t first, count;     /* this host's ranks */
    uint32_t rank_lo, rank_hi; /* every rank below this node */
    node_rank_t *ranks;
    gasnetrun_link_t *links;
    uint32_t nlinks, nalive;
    unsigned char *reported; /* DIED sent up, by rank - rank_lo */
    gasnetrun_conn_t up;
    int tearing;             /* uplink lost or signalled */
    double kill_at, give_up_at;
} nd;

static const char *host_of(uint32_t h)
{
    return nd.s.hosts[h] ? nd.s.hosts[h] : "?";
}

static void verbose(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));
static void verbose(const char *fmt, ...)
{
    if (!nd.s.verbose) return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gasnetrun_say("%s", msg);
}

/* ---- startup ----------------------------------------------------------------- */
static int read_setup(void)
{
    gasnetrun_conn_init(&nd.up, STDIN_FILENO, STDOUT_FILENO, GASNETI_BSP_DIR_DOWN, 0);
    double end = gasnetrun_now() + SETUP_TIMEOUT;
    char err[300];
    for (;;) {
        uint32_t type, len;
        unsigned char *p;
        int rc = gasnetrun_conn_read(&nd.up, "", &type, &p, &len);
        if (rc == GASNETI_BSP_RX_FRAME) {
            int ok = type == GASNETI_BSP_SETUP &&
                     gasnetrun_setup_unpack(p, len, &nd.s, err, sizeof(err)) == 0;
            if (type != GASNETI_BSP_SETUP) snprintf(err, sizeof(err), "expected SETUP first");
            free(p);
            if (ok) return 0;
            gasnetrun_say("bad job description from the parent launcher: %s", err);
            return -1;
        }
        if (rc != GASNETI_BSP_RX_MORE) {
            gasnetrun_say("the parent launcher went away before sending the job description");
            return -1;
        }
        double left = end - gasnetrun_now();
        if (left <= 0) {
            gasnetrun_say("no job description from the parent launcher in %g s", SETUP_TIMEOUT);
            return -1;
        }
        struct pollfd pf = {.fd = STDIN_FILENO, .events = POLLIN};
        poll(&pf, 1, (int)(left * 1000) + 1);
    }
}

static void start_links(void)
{
    uint32_t n = nd.s.host_hi - nd.s.host_lo;
    uint32_t *lo = calloc(2 * (size_t)n + 2, sizeof(uint32_t)), *hi = lo ? lo + n + 1 : NULL;
    nd.links = calloc(n ? n : 1, sizeof(*nd.links));
    if (!lo || !nd.links) {
        gasnetrun_say("out of memory starting %u hosts", (unsigned)n);
        exit(1);
    }
    nd.nlinks = gasnetrun_tree_split(nd.s.host_lo + 1, nd.s.host_hi, nd.s.degree, lo, hi);
    for (uint32_t i = 0; i < nd.nlinks; i++) {
        gasnetrun_link_t *l = &nd.links[i];
        uint32_t first, count;
        l->host_lo = lo[i];
        l->host_hi = hi[i];
        gasnetrun_layout(nd.s.nranks, nd.s.nhosts, lo[i], &first, &count);
        l->rank_lo = first;
        gasnetrun_layout(nd.s.nranks, nd.s.nhosts, hi[i] - 1, &first, &count);
        l->rank_hi = first + count;
        char *remote = gasnetrun_link_remote_cmd(nd.s.launcher, nd.s.jobid, lo[i]);
        verbose("starting the node on host %s (hosts %u..%u, ranks %u..%u)", host_of(lo[i]),
                (unsigned)lo[i], (unsigned)hi[i] - 1, (unsigned)l->rank_lo,
                (unsigned)l->rank_hi - 1);
        if (!remote || gasnetrun_link_start(l, nd.s.ssh_argv, host_of(lo[i]), remote) != 0) {
            gasnetrun_conn_init(&l->conn, -1, -1, GASNETI_BSP_DIR_UP, 0);
            l->eof = 1;
            l->status = 127 << 8;
            free(remote);
            continue;
        }
        free(remote);
        gasnetrun_setup_t child = nd.s;
        child.host_lo = lo[i];
        child.host_hi = hi[i];
        size_t len = 0;
        unsigned char *blob = gasnetrun_setup_pack(&child, &len);
        if (!blob) {
            gasnetrun_say("out of memory for the SETUP of host %s", host_of(lo[i]));
            exit(1);
        }
        gasnetrun_buf_t *b = gasnetrun_buf_adopt(blob, len);
        gasnetrun_conn_send(&l->conn, GASNETI_BSP_SETUP, NULL, 0, b);
        gasnetrun_buf_put(b);
    }
    free(lo);
}

static void send_died(uint32_t r, pid_t pid, int status, uint32_t flags)
{
    if (nd.reported[r - nd.rank_lo]) return;
    nd.reported[r - nd.rank_lo] = 1;
    uint32_t w[4] = {r, (uint32_t)pid, (uint32_t)status, flags};
    gasnetrun_conn_send(&nd.up, GASNETI_BSP_DIED, w, 4, NULL);
}

static void start_ranks(void)
{
    nd.ranks = calloc(nd.count ? nd.count : 1, sizeof(*nd.ranks));
    if (!nd.ranks) {
        gasnetrun_say("out of memory for %u ranks", (unsigned)nd.count);
        exit(1);
    }
    for (uint32_t i = 0; i < nd.count; i++) {
        node_rank_t *rk = &nd.ranks[i];
        uint32_t r = nd.first + i;
        int outp[2];
        pid_t pid;
        int sock;
        gasnetrun_conn_init(&rk->conn, -1, -1, GASNETI_BSP_DIR_HUB, 0);
        rk->out = -1;
        if (pipe2(outp, O_CLOEXEC) != 0) {
            gasnetrun_say("cannot create a pipe for rank %u: %s", (unsigned)r, strerror(errno));
            send_died(r, 0, 1 << 8, 0);
            continue;
        }
        int err = gasnetrun_fork_rank(nd.s.jobid, r, nd.s.nranks, "ssh", nd.s.prog_argv,
                                      nd.s.env, 0, outp[1], &pid, &sock);
        close(outp[1]);
        if (err < 0) {
            close(outp[0]);
            send_died(r, 0, 1 << 8, 0);
            continue;
        }
        rk->pid = pid;
        rk->alive = 1;
        nd.nalive++;
        rk->out = outp[0];
        fcntl(rk->out, F_SETFL, fcntl(rk->out, F_GETFL) | O_NONBLOCK);
        gasnetrun_conn_init(&rk->conn, sock, sock, GASNETI_BSP_DIR_HUB, 0);
        if (err)
            gasnetrun_say("cannot execute '%s' in %s: %s", nd.s.prog_argv[0],
                          nd.s.cwd[0] ? nd.s.cwd : "the login directory (GASNET_SSH_KEEPDIR)",
                          strerror(err));
        else
            verbose("rank %u is pid %ld", (unsigned)r, (long)pid);
    }
}

/* ---- relaying ---------------------------------------------------------------- */
static gasnetrun_link_t *link_of(uint32_t r)
{
    for (uint32_t i = 0; i < nd.nlinks; i++)
        if (r >= nd.links[i].rank_lo && r < nd.links[i].rank_hi) return &nd.links[i];
    return NULL;
}

static void read_rank_out(node_rank_t *rk, uint32_t r)
{
    while (rk->out >= 0) {
        gasnetrun_buf_t *b = gasnetrun_buf_new(65536);
        ssize_t got = read(rk->out, b->data, b->len);
        if (got < 0 && errno == EINTR) {
            gasnetrun_buf_put(b);
            continue;
        }
        if (got <= 0) {
            gasnetrun_buf_put(b);
            if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                close(rk->out);
                rk->out = -1;
            }
            return;
        }
        b->len = (size_t)got;
        uint32_t w[2] = {r, 1};
        gasnetrun_conn_send(&nd.up, GASNETI_BSP_OUTPUT, w, 2, b);
        gasnetrun_buf_put(b);
    }
}

static void read_rank(node_rank_t *rk, uint32_t r)
{
    for (;;) {
        uint32_t type, len;
        unsigned char *p;
        int rc = gasnetrun_conn_read(&rk->conn, "", &type, &p, &len);
        if (rc == GASNETI_BSP_RX_MORE) return;
        if (rc != GASNETI_BSP_RX_FRAME) {
            if (rc == GASNETI_BSP_RX_BAD)
                gasnetrun_say("protocol error from rank %u (frame type 0x%x); ignoring it",
                              (unsigned)r, (unsigned)rk->conn.rx.type);
            gasnetrun_conn_close(&rk->conn);
            return;
        }
        uint32_t w[2] = {r, type};
        gasnetrun_buf_t *b = gasnetrun_buf_adopt(p, len);
        gasnetrun_conn_send(&nd.up, GASNETI_BSP_FROM_RANK, w, 2, b);
        gasnetrun_buf_put(b);
    }
}

static void kill_local(uint32_t lo, uint32_t hi, int sig)
{
    for (uint32_t i = 0; i < nd.count; i++) {
        uint32_t r = nd.first + i;
        if (r < lo || r >= hi || !nd.ranks[i].alive) continue;
        nd.ranks[i].killed = 1;
        kill(nd.ranks[i].pid, sig);
    }
}

static void handle_down(uint32_t type, unsigned char *p, uint32_t len)
{
    gasnetrun_buf_t *whole = gasnetrun_buf_adopt(p, len);
    if (type == GASNETI_BSP_TO_RANK && len >= 8) {
        uint32_t r = gasneti_bsp_get32(p), inner = gasneti_bsp_get32(p + 4);
        if (r >= nd.first && r < nd.first + nd.count) {
            gasnetrun_buf_t *b = gasnetrun_buf_new(len - 8);
            memcpy(b->data, p + 8, len - 8);
            gasnetrun_conn_send(&nd.ranks[r - nd.first].conn, inner, NULL, 0, b);
            gasnetrun_buf_put(b);
        } else if (link_of(r)) {
            gasnetrun_conn_send(&link_of(r)->conn, type, NULL, 0, whole);
        }
    } else if (type == GASNETI_BSP_TO_ALL && len >= 4) {
        uint32_t inner = gasneti_bsp_get32(p);
        gasnetrun_buf_t *b = gasnetrun_buf_new(len - 4);
        memcpy(b->data, p + 4, len - 4);
        for (uint32_t i = 0; i < nd.count; i++)
            gasnetrun_conn_send(&nd.ranks[i].conn, inner, NULL, 0, b);
        gasnetrun_buf_put(b);
        for (uint32_t i = 0; i < nd.nlinks; i++)
            gasnetrun_conn_send(&nd.links[i].conn, type, NULL, 0, whole);
    } else if (type == GASNETI_BSP_KILL && len >= 12) {
        uint32_t lo = gasneti_bsp_get32(p), hi = gasneti_bsp_get32(p + 4);
        kill_local(lo, hi, (int)gasneti_bsp_get32(p + 8));
        for (uint32_t i = 0; i < nd.nlinks; i++)
            if (lo < nd.links[i].rank_hi && hi > nd.links[i].rank_lo)
                gasnetrun_conn_send(&nd.links[i].conn, type, NULL, 0, whole);
    } else {
        gasnetrun_say("protocol error from the parent launcher (%s, %u bytes); ignoring it",
                      gasneti_bsp_type_name(type), (unsigned)len);
    }
    gasnetrun_buf_put(whole);
}

static void link_check_lost(gasnetrun_link_t *l)
{
    if (!l->eof || l->pid || l->lost_done) return;
    l->lost_done = 1;
    uint32_t alive = 0;
    for (uint32_t r = l->rank_lo; r < l->rank_hi; r++) alive += !nd.reported[r - nd.rank_lo];
    if (!alive) return;
    if (!nd.tearing) gasnetrun_link_say_lost(l, host_of(l->host_lo), alive);
    for (uint32_t r = l->rank_lo; r < l->rank_hi; r++) send_died(r, 0, 0, GASNETI_BSP_DIED_LOST);
}

static void read_link(gasnetrun_link_t *l)
{
    char who[300];
    snprintf(who, sizeof(who), "host %s", host_of(l->host_lo));
    for (;;) {
        uint32_t type, len;
        unsigned char *p;
        int rc = gasnetrun_conn_read(&l->conn, who, &type, &p, &len);
        if (rc == GASNETI_BSP_RX_MORE) return;
        if (rc != GASNETI_BSP_RX_FRAME) {
            gasnetrun_conn_close(&l->conn);
            l->eof = 1;
            link_check_lost(l);
            return;
        }
        uint32_t r = len >= 4 ? gasneti_bsp_get32(p) : UINT32_MAX;
        if (r < l->rank_lo || r >= l->rank_hi) {
            gasnetrun_say("protocol error from the node on %s (%s for rank %u); ignoring it", who,
                          gasneti_bsp_type_name(type), (unsigned)r);
            free(p);
            continue;
        }
        if (type == GASNETI_BSP_DIED) {
            if (nd.reported[r - nd.rank_lo]) {
                free(p);
                continue;
            }
            nd.reported[r - nd.rank_lo] = 1;
        }
        gasnetrun_buf_t *b = gasnetrun_buf_adopt(p, len);
        gasnetrun_conn_send(&nd.up, type, NULL, 0, b);
        gasnetrun_buf_put(b);
    }
}

static void reap(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return;
        for (uint32_t i = 0; i < nd.nlinks; i++)
            if (nd.links[i].pid == pid) {
                nd.links[i].pid = 0;
                nd.links[i].status = status;
                link_check_lost(&nd.links[i]);
            }
        for (uint32_t i = 0; i < nd.count; i++) {
            node_rank_t *rk = &nd.ranks[i];
            if (!rk->alive || rk->pid != pid) continue;
            rk->alive = 0;
            nd.nalive--;
            read_rank(rk, nd.first + i); /* frames it sent before dying go first */
            gasnetrun_conn_close(&rk->conn);
            read_rank_out(rk, nd.first + i);
            if (rk->out >= 0) close(rk->out), rk->out = -1;
            send_died(nd.first + i, pid, status, rk->killed ? GASNETI_BSP_DIED_KILLED : 0);
        }
    }
}

/* The parent is gone (or we were signalled): end this part of the job. */
static void tear_down(const char *why)
{
    if (nd.tearing) return;
    nd.tearing = 1;
    verbose("%s; ending the %u rank%s here and the nodes below", why, (unsigned)nd.nalive,
            nd.nalive == 1 ? "" : "s");
    gasnetrun_conn_close(&nd.up);
    kill_local(0, UINT32_MAX, SIGTERM);
    for (uint32_t i = 0; i < nd.nlinks; i++) gasnetrun_conn_close_write(&nd.links[i].conn);
    nd.kill_at = gasnetrun_now() + GASNETRUN_TERM_GRACE;
    nd.give_up_at = nd.kill_at + GASNETRUN_REAP_GRACE;
}

static int links_done(void)
{
    for (uint32_t i = 0; i < nd.nlinks; i++)
        if (nd.links[i].pid || nd.links[i].conn.rfd >= 0) return 0;
    return 1;
}

static void serve(void)
{
    size_t cap = 3 + 2 * (size_t)nd.count + 2 * (size_t)nd.nlinks;
    struct pollfd *pfd = calloc(cap, sizeof(*pfd));
    if (!pfd) exit(1);
    while (nd.nalive > 0 || !links_done()) {
        double now = gasnetrun_now();
        if (nd.tearing && nd.kill_at && now >= nd.kill_at) {
            nd.kill_at = 0;
            kill_local(0, UINT32_MAX, SIGKILL);
            for (uint32_t i = 0; i < nd.nlinks; i++)
                if (nd.links[i].pid) kill(nd.links[i].pid, SIGKILL);
        }
        if (nd.tearing && now >= nd.give_up_at) {
            gasnetrun_say("%u rank%s still running %g s after SIGKILL; giving up", nd.nalive,
                          nd.nalive == 1 ? "" : "s", GASNETRUN_REAP_GRACE);
            break;
        }
        nfds_t k = 0;
        pfd[k++] = (struct pollfd){.fd = nd.sig.sigpipe[0], .events = POLLIN};
        pfd[k++] = (struct pollfd){.fd = nd.up.rfd, .events = POLLIN};
        pfd[k++] = (struct pollfd){.fd = gasnetrun_conn_pending(&nd.up) ? nd.up.wfd : -1,
                                   .events = POLLOUT};
        for (uint32_t i = 0; i < nd.count; i++) {
            gasnetrun_conn_t *c = &nd.ranks[i].conn;
            short ev = (short)(POLLIN | (gasnetrun_conn_pending(c) ? POLLOUT : 0));
            pfd[k++] = (struct pollfd){.fd = c->rfd, .events = ev};
            pfd[k++] = (struct pollfd){.fd = nd.up.queued < OUTPUT_BACKLOG ? nd.ranks[i].out : -1,
                                       .events = POLLIN};
        }
        for (uint32_t i = 0; i < nd.nlinks; i++) {
            gasnetrun_conn_t *c = &nd.links[i].conn;
            pfd[k++] = (struct pollfd){.fd = c->rfd, .events = POLLIN};
            pfd[k++] = (struct pollfd){.fd = gasnetrun_conn_pending(c) ? c->wfd : -1,
                                       .events = POLLOUT};
        }
        int timeout = nd.tearing ? 100 : -1;
        if (nd.up.queued >= OUTPUT_BACKLOG && timeout < 0) timeout = 100;
        if (gasnetrun_conn_buffered(&nd.up)) timeout = 0; /* read ahead with SETUP */
        if (poll(pfd, k, timeout) < 0 && errno != EINTR) break;
        k = 1;
        if (pfd[k++].revents || gasnetrun_conn_buffered(&nd.up)) {
            for (;;) {
                uint32_t type, len;
                unsigned char *p;
                int rc = gasnetrun_conn_read(&nd.up, "", &type, &p, &len);
                if (rc == GASNETI_BSP_RX_FRAME) {
                    handle_down(type, p, len);
                    continue;
                }
                if (rc != GASNETI_BSP_RX_MORE) tear_down("the parent launcher is gone");
                break;
            }
        }
        if (pfd[k++].revents) gasnetrun_conn_flush(&nd.up);
        for (uint32_t i = 0; i < nd.count; i++) {
            node_rank_t *rk = &nd.ranks[i];
            short rev = pfd[k++].revents, orev = pfd[k++].revents;
            if (rev & POLLOUT) gasnetrun_conn_flush(&rk->conn);
            if (rev & (POLLIN | POLLHUP | POLLERR)) read_rank(rk, nd.first + i);
            if (orev) read_rank_out(rk, nd.first + i);
        }
        for (uint32_t i = 0; i < nd.nlinks; i++) {
            gasnetrun_link_t *l = &nd.links[i];
            short rev = pfd[k++].revents, wrev = pfd[k++].revents;
            if (wrev) gasnetrun_conn_flush(&l->conn);
            if (rev) read_link(l);
        }
        if (pfd[0].revents & POLLIN) {
            unsigned char sigs[64];
            ssize_t got;
            while ((got = read(nd.sig.sigpipe[0], sigs, sizeof(sigs))) > 0)
                for (ssize_t j = 0; j < got; j++)
                    if (sigs[j] != SIGCHLD) tear_down("signalled");
        }
        reap();
    }
    free(pfd);
}

int gasnetrun_node_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    char prefix[300];
    gasnetrun_set_prefix(GASNETRUN_NAME "[node]");
    unsigned char greet[GASNETRUN_GREETING_LEN + 4];
    memcpy(greet, GASNETRUN_GREETING, GASNETRUN_GREETING_LEN);
    gasneti_bsp_put32(greet + GASNETRUN_GREETING_LEN, 1);
    if (write(STDOUT_FILENO, greet, sizeof(greet)) != (ssize_t)sizeof(greet)) return 1;
    if (read_setup() != 0) return 1;
    snprintf(prefix, sizeof(prefix), GASNETRUN_NAME "[%s]", host_of(nd.s.host_lo));
    gasnetrun_set_prefix(prefix);
    if (nd.s.cwd[0] && chdir(nd.s.cwd) != 0) { /* "": GASNET_SSH_KEEPDIR */
        gasnetrun_say("cannot change to directory %s: %s (GASNET_SSH_REMOTE_PATH)", nd.s.cwd,
                      strerror(errno));
        return 1;
    }
    if (gasnetrun_hub_signals(&nd.sig) != 0) return 1;
    gasnetrun_layout(nd.s.nranks, nd.s.nhosts, nd.s.host_lo, &nd.first, &nd.count);
    uint32_t lf, lc;
    gasnetrun_layout(nd.s.nranks, nd.s.nhosts, nd.s.host_hi - 1, &lf, &lc);
    nd.rank_lo = nd.first;
    nd.rank_hi = lf + lc;
    nd.reported = calloc(nd.rank_hi - nd.rank_lo + 1, 1);
    if (!nd.reported) return 1;
    start_links();
    start_ranks();
    serve();
    if (!nd.tearing) gasnetrun_conn_drain(&nd.up, gasnetrun_now() + GASNETRUN_REAP_GRACE);
    verbose("done");
    return nd.tearing ? 1 : 0;
}
