/* bootstrap/local/proto.h: the framed protocol between gasnetrun_ibv's hub
 * and the ranks it spawned (one AF_UNIX stream socket per rank).
 *
 * A frame is an 8-byte header, type (u32) then payload length (u32), both in
 * the host's byte order (both ends always run on one host), followed by the
 * payload.  Rank -> hub: a collective request (BARRIER, EXCHANGE, BCAST,
 * ALLTOALL), EXIT(code) or ABORT(code).  Hub -> rank: the result of the
 * current collective (type = request type | GASNETI_BSP_RESULT) or
 * EXIT(code).  Payload layouts are described in bootstrap/README.
 *
 * Used by the library (bootstrap/local) and by the launcher
 * (contrib/launcher).  Nothing here locks: callers serialize.
 */
#ifndef GASNETI_BOOTSTRAP_PROTO_H
#define GASNETI_BOOTSTRAP_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* X-macro: name, code.  Gives the enum and a printable name table. */
#define GASNETI_BSP_TYPES(X) \
    X(BARRIER, 1)            \
    X(EXCHANGE, 2)           \
    X(BCAST, 3)              \
    X(ALLTOALL, 4)           \
    X(EXIT, 5)               \
    X(ABORT, 6)

typedef enum {
#define GASNETI_BSP_ENUM(name, code) GASNETI_BSP_##name = code,
    GASNETI_BSP_TYPES(GASNETI_BSP_ENUM)
#undef GASNETI_BSP_ENUM
} gasneti_bsp_type_t;

/* Or-ed into a collective's type for the hub's answer. */
#define GASNETI_BSP_RESULT 0x100u

#define GASNETI_BSP_HDR_LEN 8
/* Largest payload either side accepts; bigger lengths are protocol errors
 * (a corrupt stream must not make anyone allocate gigabytes). */
#define GASNETI_BSP_MAX_PAYLOAD ((uint32_t)1 << 30)

/* Printable name of a frame type ("barrier", "exchange result", ...), or
 * "unknown" for a code no row declares.  Thread- and signal-safe. */
const char *gasneti_bsp_type_name(uint32_t type);

/* 1 if `type` is a frame type the receiver may see from its peer: to_hub=1
 * for frames a rank sends, 0 for frames the hub sends.  Signal-safe. */
int gasneti_bsp_type_valid(uint32_t type, int to_hub);

/* Writes the 8-byte header for (type, len) into hdr.  Signal-safe. */
void gasneti_bsp_hdr_pack(void *hdr, uint32_t type, uint32_t len);

/* Reads a header packed by gasneti_bsp_hdr_pack.  Signal-safe. */
void gasneti_bsp_hdr_unpack(const void *hdr, uint32_t *type, uint32_t *len);

/* 32-bit payload words (EXIT/ABORT code, BCAST root and length). */
void gasneti_bsp_put32(void *p, uint32_t v);
uint32_t gasneti_bsp_get32(const void *p);

/* Incremental frame decoder: bytes arrive in any fragmentation and come out
 * as whole frames.  One per stream; not thread-safe. */
typedef struct {
    unsigned char hdr[GASNETI_BSP_HDR_LEN];
    size_t hdr_got;
    uint32_t type, len; /* valid once the header is complete */
    unsigned char *payload;
    size_t got;
    int to_hub; /* which frame types are valid (see gasneti_bsp_type_valid) */
} gasneti_bsp_rx_t;

/* Results of the decoder functions. */
#define GASNETI_BSP_RX_MORE 0   /* need more bytes */
#define GASNETI_BSP_RX_FRAME 1  /* a whole frame is ready */
#define GASNETI_BSP_RX_EOF -1   /* peer closed the stream */
#define GASNETI_BSP_RX_ERRNO -2 /* read(2) failed; errno is set */
#define GASNETI_BSP_RX_BAD -3   /* unknown type or oversized length */
#define GASNETI_BSP_RX_NOMEM -4 /* payload allocation failed */

/* Prepares an empty decoder for frames sent to the hub (to_hub=1) or by it. */
void gasneti_bsp_rx_init(gasneti_bsp_rx_t *rx, int to_hub);

/* Consumes up to n bytes of data, stopping at the end of a frame.  Sets
 * *used to the bytes consumed.  Returns FRAME, MORE, BAD or NOMEM. */
int gasneti_bsp_rx_feed(gasneti_bsp_rx_t *rx, const void *data, size_t n, size_t *used);

/* One read(2) from fd into the decoder (never past the current frame).
 * Works on blocking and non-blocking fds; EINTR is retried.  Returns FRAME,
 * MORE (also on EAGAIN), EOF, ERRNO, BAD or NOMEM. */
int gasneti_bsp_rx_read(gasneti_bsp_rx_t *rx, int fd);

/* After FRAME: hands the payload (malloc'd, NULL when len is 0) to the
 * caller, who frees it, and resets the decoder for the next frame. */
unsigned char *gasneti_bsp_rx_take(gasneti_bsp_rx_t *rx, uint32_t *type, uint32_t *len);

/* Frees any partial frame. */
void gasneti_bsp_rx_fini(gasneti_bsp_rx_t *rx);

/* Sends one frame on a blocking socket: header, then the pieces pre (prelen
 * bytes) and data (len bytes) as the payload.  Retries EINTR and partial
 * writes; never raises SIGPIPE.  Returns 0, or -1 with errno set.  The
 * caller serializes concurrent senders. */
int gasneti_bsp_send(int fd, uint32_t type, const void *pre, size_t prelen, const void *data,
                     size_t len);

#endif /* GASNETI_BOOTSTRAP_PROTO_H */
