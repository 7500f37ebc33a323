/* bootstrap/local/proto.h: the framed protocol of gasnetrun_ibv: between a
 * launcher and the ranks it forked (one AF_UNIX stream socket per rank), and
 * between the launchers of an ssh job (one ssh session per link, see
 * contrib/launcher/node.c).
 *
 * A frame is an 8-byte header, type (u32) then payload length (u32), both in
 * the host's byte order, followed by the payload.  Rank -> hub: a collective
 * request (BARRIER, EXCHANGE, BCAST, ALLTOALL), EXIT(code) or ABORT(code).
 * Hub -> rank: the result of the current collective (type = request type |
 * GASNETI_BSP_RESULT) or EXIT(code).  Between launchers (ssh links), frames
 * for and from ranks travel inside envelopes (TO_RANK, TO_ALL, FROM_RANK),
 * beside SETUP, KILL, DIED and OUTPUT; all hosts of a job must share one
 * byte order (SETUP carries a check word).  Payload layouts are described in
 * bootstrap/README.
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
    X(ABORT, 6)              \
    X(HELLO, 7)              \
    X(SETUP, 16)             \
    X(TO_RANK, 17)           \
    X(TO_ALL, 18)            \
    X(KILL, 19)              \
    X(FROM_RANK, 20)         \
    X(DIED, 21)              \
    X(OUTPUT, 22)

typedef enum {
#define GASNETI_BSP_ENUM(name, code) GASNETI_BSP_##name = code,
    GASNETI_BSP_TYPES(GASNETI_BSP_ENUM)
#undef GASNETI_BSP_ENUM
} gasneti_bsp_type_t;

/* Or-ed into a collective's type for the hub's answer. */
#define GASNETI_BSP_RESULT 0x100u

/* Directions: which frames a receiver accepts (gasneti_bsp_type_valid). */
#define GASNETI_BSP_DIR_RANK 0 /* hub -> rank: results, EXIT */
#define GASNETI_BSP_DIR_HUB 1  /* rank -> hub: requests, EXIT, ABORT */
#define GASNETI_BSP_DIR_DOWN 2 /* parent launcher -> node: SETUP, TO_RANK, TO_ALL, KILL */
#define GASNETI_BSP_DIR_UP 3   /* node -> parent launcher: FROM_RANK, DIED, OUTPUT */

/* DIED flags (payload: rank, pid, wait status, flags; all u32). */
#define GASNETI_BSP_DIED_KILLED 1u /* the node signalled it (KILL) */
#define GASNETI_BSP_DIED_LOST 2u   /* no status: the node or link below is gone */

#define GASNETI_BSP_HDR_LEN 8
/* Largest payload either side accepts; bigger lengths are protocol errors
 * (a corrupt stream must not make anyone allocate gigabytes). */
#define GASNETI_BSP_MAX_PAYLOAD ((uint32_t)1 << 30)
/* Room for an envelope around such a payload on links between launchers. */
#define GASNETI_BSP_LINK_SLACK 64u

/* Printable name of a frame type ("barrier", "exchange result", ...), or
 * "unknown" for a code no row declares.  Thread- and signal-safe. */
const char *gasneti_bsp_type_name(uint32_t type);

/* 1 if `type` is a frame type a receiver in direction `dir`
 * (GASNETI_BSP_DIR_*) may see from its peer.  Signal-safe. */
int gasneti_bsp_type_valid(uint32_t type, int dir);

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
    int to_hub; /* direction GASNETI_BSP_DIR_*: which frame types are valid */
} gasneti_bsp_rx_t;

/* Results of the decoder functions. */
#define GASNETI_BSP_RX_MORE 0   /* need more bytes */
#define GASNETI_BSP_RX_FRAME 1  /* a whole frame is ready */
#define GASNETI_BSP_RX_EOF -1   /* peer closed the stream */
#define GASNETI_BSP_RX_ERRNO -2 /* read(2) failed; errno is set */
#define GASNETI_BSP_RX_BAD -3   /* unknown type or oversized length */
#define GASNETI_BSP_RX_NOMEM -4 /* payload allocation failed */

/* Prepares an empty decoder for frames of direction dir (GASNETI_BSP_DIR_*;
 * 1 = sent to the hub, 0 = sent by it). */
void gasneti_bsp_rx_init(gasneti_bsp_rx_t *rx, int dir);

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
