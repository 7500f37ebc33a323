/* firehose/fh_move.h: the move protocol's wire format (internal).
 *
 * A move request is one AM payload: a fixed header, nrelease 64-bit region
 * ids (the granter's descriptors of firehoses the sender gives back), then
 * put_len bytes of put data.  nnew is 0 (release-only: no reply) or 1 (one
 * new region [start, start+len), answered by one fh_reply_t).  Both sides
 * run the same build on the same kind of machine (the job's processes), so
 * the layout is the host's and is copied with memcpy.
 */
#ifndef FH_MOVE_H
#define FH_MOVE_H

#include "firehose/fh_internal.h"

#define FH_MOVE_MAGIC 0x464d5631u  /* "FMV1" */
#define FH_REPLY_MAGIC 0x46525031u /* "FRP1" */

typedef struct {
    uint32_t magic;
    uint16_t nrelease;
    uint16_t nnew;
    uint32_t put_len;
    uint32_t reserved;
    uint64_t cookie;  /* the sender's pending entry, echoed in the reply */
    uint64_t start;   /* new region (page-aligned) */
    uint64_t len;
    uint64_t put_dst; /* where put data goes (inside the new region) */
} fh_move_hdr_t;

typedef struct {
    uint32_t magic;
    int32_t status;    /* FIREHOSE_OK or FIREHOSE_NORESOURCE */
    uint64_t cookie;
    uint64_t start;    /* granted region: covers the requested one */
    uint64_t len;
    uint64_t id;       /* the granter's region id, for later releases */
    uint64_t rkey;
    uint32_t delivered; /* put bytes written before pinning */
    uint32_t reserved;
} fh_reply_t;

/* Largest number of releases a message with put_len bytes of data holds. */
size_t fh_move_release_cap(const firehose_t *fh, size_t put_len);

/* Sends the releases and the move request for a new region (release-only
 * messages first if the ids do not fit beside the request).  Without lock;
 * calls ops->send_move. */
void fh_move_send(firehose_t *fh, int node, const uint64_t *ids, size_t nrel, uint64_t cookie,
                  uintptr_t start, size_t len, uintptr_t put_dst, const void *put_src,
                  size_t put_len);

/* Requesting side: applies a grant or refusal (fh_remote.c).  Takes the lock. */
void fh_remote_complete(firehose_t *fh, int from, const fh_reply_t *rp);

#endif /* FH_MOVE_H */
