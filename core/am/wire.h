/* core/am/wire.h: the transport-independent AM header and its wire format.
 *
 * The in-memory form (gasnetc_am_hdr_t) is what the dispatcher consumes.
 * The wire form is compact: a 16-byte fixed part, then dest_addr for Longs,
 * then only the nargs 32-bit arguments used.  Both PSHM and verbs carry it.
 *
 *   byte 0     category (2 bits) | is_req (bit 2) | rendezvous (bit 3, Medium
 *              only: the message body is a gasnetc_am_rndv_t descriptor of
 *              GASNETC_AM_RNDV_DESC bytes instead of the payload; verbs,
 *              core/ibv/am/README "Small receive buffers")
 *   byte 1     handler index
 *   byte 2     nargs (0..16)
 *   byte 3     credits returned to the receiver (verbs flow control)
 *   bytes 4-7  source rank (little-endian)
 *   bytes 8-11 payload length
 *   byte 12    destination endpoint index
 *   byte 13    source endpoint index
 *   bytes 14-15 reserved (0)
 *   [8 bytes]  dest_addr (Long only)
 *   [4*nargs]  arguments
 */
#ifndef GASNETC_AM_WIRE_H
#define GASNETC_AM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define GASNETC_AM_SHORT 0
#define GASNETC_AM_MEDIUM 1
#define GASNETC_AM_LONG 2
#define GASNETC_AM_MAX_ARGS 16
/* Largest wire header: fixed part + dest_addr + 16 args. */
#define GASNETC_AM_HDR_MAX (16 + 8 + 4 * GASNETC_AM_MAX_ARGS)

typedef struct {
    uint8_t category; /* GASNETC_AM_SHORT / _MEDIUM / _LONG */
    uint8_t is_req;   /* 1 Request, 0 Reply */
    uint8_t handler;
    uint8_t nargs;
    uint8_t credits;
    uint8_t dst_ep, src_ep; /* endpoint indices (0: primordial) */
    uint8_t rndv;           /* Medium: body is a rendezvous descriptor */
    uint32_t src_rank;
    uint32_t nbytes;    /* payload length */
    uint64_t dest_addr; /* Long: payload address at the receiver */
    int32_t args[GASNETC_AM_MAX_ARGS];
} gasnetc_am_hdr_t;

/* A rendezvous Medium's body: where the sender staged the payload (nbytes
 * of the header) for the receiver's RDMA READ.  Wire: addr (8 bytes LE),
 * rkey (4), 4 reserved (0). */
#define GASNETC_AM_RNDV_DESC 16
typedef struct {
    uint64_t addr;
    uint32_t rkey;
} gasnetc_am_rndv_t;
void gasnetc_am_rndv_pack(const gasnetc_am_rndv_t *r, void *buf);
/* Returns 0 when the reserved bytes are not 0. */
int gasnetc_am_rndv_unpack(const void *buf, gasnetc_am_rndv_t *r);

/* A 32-bit field of the wire form (little-endian). */
static inline void gasnetc_am_wire_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The fixed 16 bytes of a Short's wire form, no credits (what
 * gasnetc_am_hdr_pack writes for such a header); its nargs arguments
 * follow at p + 16.  For the send fast paths, which pack straight from
 * their arguments without a gasnetc_am_hdr_t. */
static inline void gasnetc_am_short_wire(unsigned char *p, unsigned is_req, unsigned handler,
                                         unsigned nargs, uint32_t src_rank, unsigned dst_ep,
                                         unsigned src_ep)
{
    p[0] = (unsigned char)(GASNETC_AM_SHORT | (is_req ? 4u : 0u));
    p[1] = (unsigned char)handler;
    p[2] = (unsigned char)nargs;
    p[3] = 0;
    gasnetc_am_wire_put32(p + 4, src_rank);
    gasnetc_am_wire_put32(p + 8, 0);
    gasnetc_am_wire_put32(p + 12, (uint32_t)dst_ep | (uint32_t)src_ep << 8);
}

/* Bytes the wire form of hdr occupies. */
size_t gasnetc_am_hdr_wire_size(const gasnetc_am_hdr_t *hdr);

/* Writes the wire form into buf (at least gasnetc_am_hdr_wire_size bytes).
 * Returns the bytes written, or 0 if hdr is invalid (bad category or nargs). */
size_t gasnetc_am_hdr_pack(const gasnetc_am_hdr_t *hdr, void *buf);

/* Reads a wire header from buf (len bytes available).  Returns bytes
 * consumed, or 0 if the bytes are not a valid header (truncated, bad
 * category, nargs > 16). */
size_t gasnetc_am_hdr_unpack(const void *buf, size_t len, gasnetc_am_hdr_t *hdr);

#endif /* GASNETC_AM_WIRE_H */
