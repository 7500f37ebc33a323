/* contrib/launcher/exit_relay.c: the exit relay of the mpi and pmi spawners
 * (rank side: bootstrap/relay.c; design: bootstrap/README, "Exit relay").
 *
 * gasnetrun_ibv listens on a TCP port of every interface and gives the
 * ranks GASNETRUN_EXIT_ADDR=<this host>:<port> and a random
 * GASNETRUN_EXIT_KEY.  A rank connects at init and must first send
 * HELLO(rank, key); a connection that sends anything else, or a wrong key, is
 * closed with a message.  The rules are the hub's (hub.c): EXIT(code) from
 * a rank opens the collective-exit window (the exit timeout), in which the
 * others usually send EXIT too; when it closes, EXIT(code) goes to every
 * rank that has not sent EXIT, whose channel runs the client's exit
 * callback and arms the exit watchdog.  ABORT(code), or a rank whose
 * connection ends before it sent EXIT (it died or returned from main), sends
 * EXIT at once (the first code, else ABORT's code, else 0).  mpirun still
 * owns the processes and the job's exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "contrib/launcher/launcher.h"

#define RELAY_MAX_PEERS 65536

typedef struct {
    gasnetrun_conn_t conn;
    int hello;      /* sent a good HELLO */
    int sent_exit;  /* sent EXIT or ABORT */
    uint32_t rank;
} peer_t;

struct gasnetrun_relay {
    int lfd;
    char addr[300];
    char key[33];
    peer_t *peers;
    size_t n, cap;
    int code_set, code; /* the first EXIT/ABORT code */
    double window_end;  /* end of the collective-exit window; 0: not open */
    int told;           /* EXIT went out */
    const gasnetrun_opts_t *opts;
};

gasnetrun_relay_t *gasnetrun_relay_open(const gasnetrun_opts_t *opts)
{
    gasnetrun_relay_t *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    r->opts = opts;
    unsigned char raw[16];
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) goto fail;
    for (int i = 0; i < 16; i++) snprintf(r->key + 2 * i, 3, "%02x", raw[i]);
    r->lfd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int v6 = r->lfd >= 0;
    if (!v6) r->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (r->lfd < 0) goto fail;
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    int off = 0;
    if (v6) setsockopt(r->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    if ((v6 ? bind(r->lfd, (struct sockaddr *)&a6, sizeof(a6))
            : bind(r->lfd, (struct sockaddr *)&a4, sizeof(a4))) != 0 ||
        listen(r->lfd, 512) != 0)
        goto fail;
    socklen_t len = v6 ? sizeof(a6) : sizeof(a4);
    if (getsockname(r->lfd, v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4, &len) != 0)
        goto fail;
    char host[256];
    if (gethostname(host, sizeof(host)) != 0) snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    snprintf(r->addr, sizeof(r->addr), "%s:%u", host,
             (unsigned)ntohs(v6 ? a6.sin6_port : a4.sin_port));
    gasnetrun_verbose(opts, "exit relay listening at %s", r->addr);
    return r;
fail:
    gasnetrun_say("cannot open the exit relay (%s); ranks will learn of another rank's "
                  "gasnet_exit only through the network", strerror(errno));
    if (r->lfd > 0) close(r->lfd);
    free(r);
    return NULL;
}

const char *gasnetrun_relay_addr(const gasnetrun_relay_t *r)
{
    return r->addr;
}

const char *gasnetrun_relay_key(const gasnetrun_relay_t *r)
{
    return r->key;
}

static void accept_all(gasnetrun_relay_t *r)
{
    for (;;) {
        int fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;
        if (r->n == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 16;
            peer_t *p = cap <= RELAY_MAX_PEERS ? realloc(r->peers, cap * sizeof(*p)) : NULL;
            if (!p) {
                close(fd);
                return;
            }
            r->peers = p;
            r->cap = cap;
        }
        peer_t *p = &r->peers[r->n++];
        memset(p, 0, sizeof(*p));
        gasnetrun_conn_init(&p->conn, fd, fd, GASNETI_BSP_DIR_HUB, 0);
    }
}

/* EXIT(code) to every rank that has not sent EXIT (once). */
static void tell_all(gasnetrun_relay_t *r, const char *why)
{
    if (r->told) return;
    r->told = 1;
    gasnetrun_verbose(r->opts, "exit relay: %s; asking the other ranks to exit with code %d", why,
                      r->code);
    gasnetrun_buf_t *b = gasnetrun_buf_new(4);
    gasneti_bsp_put32(b->data, (uint32_t)r->code);
    for (size_t i = 0; i < r->n; i++) {
        peer_t *p = &r->peers[i];
        if (!p->hello || p->sent_exit || p->conn.wfd < 0) continue;
        gasnetrun_conn_send(&p->conn, GASNETI_BSP_EXIT, NULL, 0, b);
    }
    gasnetrun_buf_put(b);
}

static void set_code(gasnetrun_relay_t *r, int code)
{
    if (!r->code_set) r->code = code;
    r->code_set = 1;
}

static void read_peer(gasnetrun_relay_t *r, peer_t *p)
{
    for (;;) {
        uint32_t type, len;
        unsigned char *payload;
        int rc = gasnetrun_conn_read(&p->conn, "exit relay", &type, &payload, &len);
        if (rc == GASNETI_BSP_RX_MORE) return;
        if (rc != GASNETI_BSP_RX_FRAME) {
            if (rc == GASNETI_BSP_RX_BAD || !p->hello)
                gasnetrun_say("exit relay: %s; connection closed",
                              p->hello ? "malformed frame" : "a connection ended before HELLO");
            gasnetrun_conn_close(&p->conn);
            if (p->hello && !p->sent_exit) {
                p->sent_exit = 1;
                set_code(r, 0);
                tell_all(r, "a rank ended without gasnet_exit");
            }
            return;
        }
        if (!p->hello) {
            int good = type == GASNETI_BSP_HELLO && len == 36 && !memcmp(payload + 4, r->key, 32);
            if (good) p->rank = gasneti_bsp_get32(payload);
            free(payload);
            if (!good) {
                gasnetrun_say("exit relay: a connection did not show this job's key; closed");
                gasnetrun_conn_close(&p->conn);
                return;
            }
            p->hello = 1;
            continue;
        }
        int code = len >= 4 ? (int)gasneti_bsp_get32(payload) : 1;
        free(payload);
        if (type != GASNETI_BSP_EXIT && type != GASNETI_BSP_ABORT) continue;
        p->sent_exit = 1;
        set_code(r, code);
        if (type == GASNETI_BSP_ABORT) {
            tell_all(r, "a rank aborted");
        } else if (!r->window_end) {
            r->window_end = gasnetrun_now() + gasneti_bootstrap_exittimeout((uint32_t)r->opts->nprocs);
            gasnetrun_verbose(r->opts, "exit relay: rank %u exits with code %d",
                              (unsigned)p->rank, code);
        }
    }
}

size_t gasnetrun_relay_pollfds(const gasnetrun_relay_t *r, struct pollfd *pfd, size_t max)
{
    size_t k = 0;
    if (!r || max == 0) return 0;
    pfd[k++] = (struct pollfd){.fd = r->lfd, .events = POLLIN};
    for (size_t i = 0; i < r->n && k < max; i++) {
        const peer_t *p = &r->peers[i];
        if (p->conn.rfd < 0) continue;
        short ev = (short)(POLLIN | (gasnetrun_conn_pending(&p->conn) ? POLLOUT : 0));
        pfd[k++] = (struct pollfd){.fd = p->conn.rfd, .events = ev};
    }
    return k;
}

size_t gasnetrun_relay_npeers(const gasnetrun_relay_t *r)
{
    return r ? r->n + 1 : 0;
}

void gasnetrun_relay_service(gasnetrun_relay_t *r)
{
    if (!r) return;
    accept_all(r);
    for (size_t i = 0; i < r->n; i++) {
        peer_t *p = &r->peers[i];
        if (p->conn.rfd < 0) continue;
        read_peer(r, p);
    }
    if (r->window_end && gasnetrun_now() >= r->window_end)
        tell_all(r, "the collective-exit window closed");
    for (size_t i = 0; i < r->n; i++)
        if (r->peers[i].conn.wfd >= 0) gasnetrun_conn_flush(&r->peers[i].conn);
}

int gasnetrun_relay_waiting(const gasnetrun_relay_t *r)
{
    return r && r->window_end && !r->told;
}

void gasnetrun_relay_close(gasnetrun_relay_t *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) gasnetrun_conn_close(&r->peers[i].conn);
    free(r->peers);
    close(r->lfd);
    free(r);
}
