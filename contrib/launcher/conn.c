/* contrib/launcher/conn.c: framed, non-blocking connections (launcher.h).
 *
 * A connection is a socket (a rank's) or a pair of pipes (an ssh session:
 * its stdin and stdout).  Output is a queue of frames whose payloads are
 * reference-counted buffers shared by several queues (one exchange result
 * goes to many ranks); it is written as far as the peer takes it and the
 * rest waits for POLLOUT, so a peer that does not read never stalls the
 * launcher.  Input on a socket goes straight to the frame decoder; a pipe
 * from an ssh session is read in blocks, and everything before the node's
 * greeting (what a remote login shell printed) is shown once and skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "contrib/launcher/launcher.h"

#define CONN_IN_SIZE 65536

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        gasnetrun_say("out of memory (%zu bytes)", n);
        exit(1);
    }
    return p;
}

gasnetrun_buf_t *gasnetrun_buf_new(size_t len)
{
    gasnetrun_buf_t *b = xmalloc(sizeof(*b) + len);
    b->refs = 1;
    b->len = len;
    b->data = (unsigned char *)(b + 1);
    b->adopted = 0;
    return b;
}

gasnetrun_buf_t *gasnetrun_buf_adopt(unsigned char *data, size_t len)
{
    gasnetrun_buf_t *b = xmalloc(sizeof(*b));
    b->refs = 1;
    b->len = len;
    b->data = data;
    b->adopted = 1;
    return b;
}

void gasnetrun_buf_put(gasnetrun_buf_t *buf)
{
    if (!buf || --buf->refs) return;
    if (buf->adopted) free(buf->data);
    free(buf);
}

void gasnetrun_conn_init(gasnetrun_conn_t *c, int rfd, int wfd, int dir, int greet)
{
    memset(c, 0, sizeof(*c));
    c->rfd = rfd;
    c->wfd = wfd;
    struct stat sb;
    c->is_sock = rfd >= 0 && rfd == wfd && fstat(rfd, &sb) == 0 && S_ISSOCK(sb.st_mode);
    if (rfd >= 0) fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK);
    if (wfd >= 0 && wfd != rfd) fcntl(wfd, F_SETFL, fcntl(wfd, F_GETFL) | O_NONBLOCK);
    gasneti_bsp_rx_init(&c->rx, dir);
    c->greeted = !greet;
    if (rfd >= 0 && !c->is_sock) c->in = xmalloc(CONN_IN_SIZE); /* pipes read ahead */
}

static void drop_output(gasnetrun_conn_t *c)
{
    c->queued = 0;
    while (c->out_head) {
        gasnetrun_out_t *o = c->out_head;
        c->out_head = o->next;
        gasnetrun_buf_put(o->buf);
        free(o);
    }
    c->out_tail = NULL;
}

void gasnetrun_conn_close_write(gasnetrun_conn_t *c)
{
    drop_output(c);
    if (c->wfd >= 0 && c->wfd != c->rfd) close(c->wfd);
    else if (c->wfd >= 0 && c->is_sock) shutdown(c->wfd, SHUT_WR);
    c->wfd = -1;
}

void gasnetrun_conn_close(gasnetrun_conn_t *c)
{
    drop_output(c);
    if (c->wfd >= 0 && c->wfd != c->rfd) close(c->wfd);
    if (c->rfd >= 0) close(c->rfd);
    c->rfd = c->wfd = -1;
    gasneti_bsp_rx_fini(&c->rx);
    free(c->in);
    c->in = NULL;
    c->in_off = c->in_len = 0;
}

int gasnetrun_conn_pending(const gasnetrun_conn_t *c)
{
    return c->out_head != NULL && c->wfd >= 0;
}

int gasnetrun_conn_buffered(const gasnetrun_conn_t *c)
{
    return c->rfd >= 0 && c->in && c->in_off < c->in_len;
}

void gasnetrun_conn_flush(gasnetrun_conn_t *c)
{
    while (c->out_head && c->wfd >= 0) {
        gasnetrun_out_t *o = c->out_head;
        size_t plen = o->buf ? o->buf->len : 0;
        size_t total = o->hdr_len + plen;
        struct iovec iov[2];
        int n = 0;
        if (o->off < o->hdr_len) {
            iov[n].iov_base = o->hdr + o->off;
            iov[n++].iov_len = o->hdr_len - o->off;
        }
        if (plen) {
            size_t poff = o->off > o->hdr_len ? o->off - o->hdr_len : 0;
            iov[n].iov_base = o->buf->data + poff;
            iov[n++].iov_len = plen - poff;
        }
        ssize_t put;
        if (c->is_sock) {
            struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
            put = sendmsg(c->wfd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        } else {
            put = writev(c->wfd, iov, n); /* non-blocking fd; SIGPIPE is ignored */
        }
        if (put < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            drop_output(c); /* the peer is gone: nothing more to say */
            return;
        }
        o->off += (size_t)put;
        c->queued -= (size_t)put;
        if (o->off < total) return;
        c->out_head = o->next;
        if (!c->out_head) c->out_tail = NULL;
        gasnetrun_buf_put(o->buf);
        free(o);
    }
}

void gasnetrun_conn_send(gasnetrun_conn_t *c, uint32_t type, const uint32_t *words,
                         unsigned nwords, gasnetrun_buf_t *buf)
{
    if (c->wfd < 0) return; /* nobody to tell */
    gasnetrun_out_t *o = xmalloc(sizeof(*o));
    memset(o, 0, sizeof(*o));
    size_t plen = 4u * nwords + (buf ? buf->len : 0);
    gasneti_bsp_hdr_pack(o->hdr, type, (uint32_t)plen);
    for (unsigned i = 0; i < nwords && i < 4; i++)
        gasneti_bsp_put32(o->hdr + GASNETI_BSP_HDR_LEN + 4 * i, words[i]);
    o->hdr_len = GASNETI_BSP_HDR_LEN + 4u * (nwords < 4 ? nwords : 4);
    o->buf = buf;
    if (buf) buf->refs++;
    c->queued += o->hdr_len + (buf ? buf->len : 0);
    if (c->out_tail)
        c->out_tail->next = o;
    else
        c->out_head = o;
    c->out_tail = o;
    gasnetrun_conn_flush(c);
}

int gasnetrun_conn_drain(gasnetrun_conn_t *c, double deadline)
{
    for (;;) {
        gasnetrun_conn_flush(c);
        if (!gasnetrun_conn_pending(c)) return c->out_head ? -1 : 0;
        double left = deadline - gasnetrun_now();
        if (left <= 0) return -1;
        struct pollfd p = {.fd = c->wfd, .events = POLLOUT};
        poll(&p, 1, (int)(left * 1000) + 1);
    }
}

/* Consumes buffered bytes up to and including the greeting; returns 1 once
 * it has been seen (then c->in_off is past it and its byte-order word). */
static int find_greeting(gasnetrun_conn_t *c, const char *who)
{
    const size_t glen = GASNETRUN_GREETING_LEN + 4;
    unsigned char *p = c->in + c->in_off;
    size_t n = c->in_len - c->in_off;
    for (size_t i = 0; i + glen <= n; i++) {
        if (memcmp(p + i, GASNETRUN_GREETING, GASNETRUN_GREETING_LEN) != 0) continue;
        if (i && c->pre_seen < 4096) {
            size_t show = i > 200 ? 200 : i;
            gasnetrun_say("%s printed before the launcher started (ignored): %.*s", who,
                          (int)show, (const char *)p);
        }
        c->pre_seen += i;
        if (gasneti_bsp_get32(p + i + GASNETRUN_GREETING_LEN) != 1) {
            gasnetrun_say("%s uses another byte order: every host of a job must share one", who);
            return -1;
        }
        c->in_off += i + glen;
        c->greeted = 1;
        return 1;
    }
    /* Keep a tail that may hold the start of the greeting; drop the rest. */
    if (n >= glen) {
        size_t drop = n - (glen - 1);
        if (c->pre_seen < 4096) {
            size_t show = drop > 200 ? 200 : drop;
            gasnetrun_say("%s printed before the launcher started (ignored): %.*s", who,
                          (int)show, (const char *)p);
        }
        c->pre_seen += drop;
        c->in_off += drop;
    }
    if (c->in_off > 0) {
        memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
        c->in_len -= c->in_off;
        c->in_off = 0;
    }
    return 0;
}

int gasnetrun_conn_read(gasnetrun_conn_t *c, const char *who, uint32_t *type,
                        unsigned char **payload, uint32_t *len)
{
    *payload = NULL;
    if (c->rfd < 0) return GASNETI_BSP_RX_EOF;
    for (;;) {
        int rc;
        if (!c->in) {
            rc = gasneti_bsp_rx_read(&c->rx, c->rfd);
            if (rc == GASNETI_BSP_RX_MORE) {
                /* MORE means a partial frame or an empty socket: ask which. */
                struct pollfd p = {.fd = c->rfd, .events = POLLIN};
                if (poll(&p, 1, 0) <= 0) return rc;
                continue;
            }
        } else if (c->in_off < c->in_len) {
            if (!c->greeted) {
                int g = find_greeting(c, who);
                if (g < 0) return GASNETI_BSP_RX_BAD;
                if (!g) goto refill;
                continue;
            }
            size_t used = 0;
            rc = gasneti_bsp_rx_feed(&c->rx, c->in + c->in_off, c->in_len - c->in_off, &used);
            c->in_off += used;
            if (rc == GASNETI_BSP_RX_MORE) continue;
        } else {
        refill:;
            size_t room = CONN_IN_SIZE - c->in_len;
            if (c->in_off == c->in_len) c->in_off = c->in_len = 0, room = CONN_IN_SIZE;
            ssize_t got;
            do {
                got = read(c->rfd, c->in + c->in_len, room);
            } while (got < 0 && errno == EINTR);
            if (got == 0) return GASNETI_BSP_RX_EOF;
            if (got < 0)
                return errno == EAGAIN || errno == EWOULDBLOCK ? GASNETI_BSP_RX_MORE
                                                               : GASNETI_BSP_RX_ERRNO;
            c->in_len += (size_t)got;
            continue;
        }
        if (rc == GASNETI_BSP_RX_FRAME) *payload = gasneti_bsp_rx_take(&c->rx, type, len);
        return rc;
    }
}
