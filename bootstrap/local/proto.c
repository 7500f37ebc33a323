/* bootstrap/local/proto.c: frame encoding and the incremental decoder shared
 * by the local bootstrap plugin and gasnetrun_ibv's hub (see proto.h). */
#include "bootstrap/local/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

const char *gasneti_bsp_type_name(uint32_t type)
{
    switch (type) {
#define GASNETI_BSP_NAME(name, code) \
    case code: return #name;         \
    case code | GASNETI_BSP_RESULT: return #name " result";
        GASNETI_BSP_TYPES(GASNETI_BSP_NAME)
#undef GASNETI_BSP_NAME
    default: return "unknown";
    }
}

int gasneti_bsp_type_valid(uint32_t type, int dir)
{
    switch (dir) {
    case GASNETI_BSP_DIR_HUB: /* HELLO: only the mpi/pmi exit relay (bootstrap/relay.c) */
        return type >= GASNETI_BSP_BARRIER && type <= GASNETI_BSP_HELLO;
    case GASNETI_BSP_DIR_DOWN: return type >= GASNETI_BSP_SETUP && type <= GASNETI_BSP_KILL;
    case GASNETI_BSP_DIR_UP: return type >= GASNETI_BSP_FROM_RANK && type <= GASNETI_BSP_OUTPUT;
    default:
        if (type == GASNETI_BSP_EXIT) return 1;
        return (type & GASNETI_BSP_RESULT) &&
               (type & ~GASNETI_BSP_RESULT) >= GASNETI_BSP_BARRIER &&
               (type & ~GASNETI_BSP_RESULT) <= GASNETI_BSP_ALLTOALL;
    }
}

/* Largest payload a receiver of direction dir accepts. */
static uint32_t max_payload(int dir)
{
    return dir >= GASNETI_BSP_DIR_DOWN ? GASNETI_BSP_MAX_PAYLOAD + GASNETI_BSP_LINK_SLACK
                                       : GASNETI_BSP_MAX_PAYLOAD;
}

void gasneti_bsp_put32(void *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

uint32_t gasneti_bsp_get32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

void gasneti_bsp_hdr_pack(void *hdr, uint32_t type, uint32_t len)
{
    gasneti_bsp_put32(hdr, type);
    gasneti_bsp_put32((unsigned char *)hdr + 4, len);
}

void gasneti_bsp_hdr_unpack(const void *hdr, uint32_t *type, uint32_t *len)
{
    *type = gasneti_bsp_get32(hdr);
    *len = gasneti_bsp_get32((const unsigned char *)hdr + 4);
}

void gasneti_bsp_rx_init(gasneti_bsp_rx_t *rx, int dir)
{
    memset(rx, 0, sizeof(*rx));
    rx->to_hub = dir;
}

void gasneti_bsp_rx_fini(gasneti_bsp_rx_t *rx)
{
    free(rx->payload);
    gasneti_bsp_rx_init(rx, rx->to_hub);
}

/* Where the next bytes go and how many the current frame still wants. */
static void rx_want(gasneti_bsp_rx_t *rx, unsigned char **dst, size_t *n)
{
    if (rx->hdr_got < GASNETI_BSP_HDR_LEN) {
        *dst = rx->hdr + rx->hdr_got;
        *n = GASNETI_BSP_HDR_LEN - rx->hdr_got;
    } else {
        *dst = rx->payload + rx->got;
        *n = rx->len - rx->got;
    }
}

/* Accounts for n bytes stored at the place rx_want named. */
static int rx_advance(gasneti_bsp_rx_t *rx, size_t n)
{
    if (rx->hdr_got < GASNETI_BSP_HDR_LEN) {
        rx->hdr_got += n;
        if (rx->hdr_got < GASNETI_BSP_HDR_LEN) return GASNETI_BSP_RX_MORE;
        gasneti_bsp_hdr_unpack(rx->hdr, &rx->type, &rx->len);
        if (!gasneti_bsp_type_valid(rx->type, rx->to_hub) || rx->len > max_payload(rx->to_hub))
            return GASNETI_BSP_RX_BAD;
        rx->got = 0;
        if (rx->len == 0) return GASNETI_BSP_RX_FRAME;
        rx->payload = malloc(rx->len);
        if (!rx->payload) return GASNETI_BSP_RX_NOMEM;
        return GASNETI_BSP_RX_MORE;
    }
    rx->got += n;
    return rx->got == rx->len ? GASNETI_BSP_RX_FRAME : GASNETI_BSP_RX_MORE;
}

static int rx_complete(const gasneti_bsp_rx_t *rx)
{
    return rx->hdr_got == GASNETI_BSP_HDR_LEN && rx->got == rx->len;
}

int gasneti_bsp_rx_feed(gasneti_bsp_rx_t *rx, const void *data, size_t n, size_t *used)
{
    const unsigned char *src = data;
    *used = 0;
    if (rx_complete(rx)) return GASNETI_BSP_RX_FRAME; /* not taken yet */
    while (*used < n) {
        unsigned char *dst;
        size_t want;
        rx_want(rx, &dst, &want);
        if (want > n - *used) want = n - *used;
        memcpy(dst, src + *used, want);
        *used += want;
        int rc = rx_advance(rx, want);
        if (rc != GASNETI_BSP_RX_MORE) return rc;
    }
    return GASNETI_BSP_RX_MORE;
}

int gasneti_bsp_rx_read(gasneti_bsp_rx_t *rx, int fd)
{
    if (rx_complete(rx)) return GASNETI_BSP_RX_FRAME;
    unsigned char *dst;
    size_t want;
    rx_want(rx, &dst, &want);
    ssize_t got;
    do {
        got = read(fd, dst, want);
    } while (got < 0 && errno == EINTR);
    if (got == 0) return GASNETI_BSP_RX_EOF;
    if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return GASNETI_BSP_RX_MORE;
        return GASNETI_BSP_RX_ERRNO;
    }
    return rx_advance(rx, (size_t)got);
}

unsigned char *gasneti_bsp_rx_take(gasneti_bsp_rx_t *rx, uint32_t *type, uint32_t *len)
{
    unsigned char *p = rx->payload;
    *type = rx->type;
    *len = rx->len;
    rx->payload = NULL;
    gasneti_bsp_rx_init(rx, rx->to_hub);
    return p;
}

int gasneti_bsp_send(int fd, uint32_t type, const void *pre, size_t prelen, const void *data,
                     size_t len)
{
    unsigned char hdr[GASNETI_BSP_HDR_LEN];
    if (prelen + len > GASNETI_BSP_MAX_PAYLOAD) {
        errno = EMSGSIZE;
        return -1;
    }
    gasneti_bsp_hdr_pack(hdr, type, (uint32_t)(prelen + len));
    struct iovec iov[3] = {
        {.iov_base = hdr, .iov_len = sizeof(hdr)},
        {.iov_base = (void *)pre, .iov_len = prelen},
        {.iov_base = (void *)data, .iov_len = len},
    };
    struct iovec *v = iov;
    int cnt = 3;
    while (cnt > 0) {
        if (v->iov_len == 0) {
            v++, cnt--;
            continue;
        }
        struct msghdr msg = {.msg_iov = v, .msg_iovlen = (size_t)cnt};
        ssize_t put = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (put < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        size_t left = (size_t)put;
        while (cnt > 0 && left >= v->iov_len) {
            left -= v->iov_len;
            v++, cnt--;
        }
        if (cnt > 0) {
            v->iov_base = (char *)v->iov_base + left;
            v->iov_len -= left;
        }
    }
    return 0;
}
