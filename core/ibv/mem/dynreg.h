/* core/ibv/mem/dynreg.h: memory keys for RDMA on any buffer.
 *
 * The RMA path (rdma.c) and the RDMA writes of Long AMs (send.c) ask here for
 * the local key of their local buffer and the remote key of the peer's
 * address range instead of looking at the segment themselves:
 *   - the local segment (and the peer's segment in SEGMENT_FAST) is
 *     registered at attach: the key comes back with no hold;
 *   - any other local memory goes through firehose (firehose/), which pins
 *     it on demand and caches the registration: the key comes with a hold
 *     that keeps the region pinned until the work request completes;
 *   - in SEGMENT_LARGE/EVERYTHING the peer's memory is pinned on demand by
 *     a firehose move request (remote pinning).
 * A call may cover only a prefix of the range (a firehose region ends
 * there): the caller loops, one work request per covered piece.
 *
 * Holds are released by the send-completion path (cq.c) for the two stored
 * in a descriptor's hold[] fields, or by the caller with
 * gasnetc_ibv_hold_release when it did not post.
 */
#ifndef GASNETC_IBV_DYNREG_H
#define GASNETC_IBV_DYNREG_H

#include <stddef.h>
#include <stdint.h>

struct gasnetc_ibv_hold;
typedef struct gasnetc_ibv_hold gasnetc_ibv_hold_t;

/* Local key on HCA `hca` (gasnetc_ibv.res index) for a prefix of
 * [addr, addr+len): returns the covered bytes (1..len) and fills *lkey and
 * *hold (NULL for memory registered for the whole job, such as the
 * segment), or 0 when no registration can be had now (firehose disabled or
 * at its limits, pin failure, or a piece below 8 KiB that no cached region
 * covers): use bounce buffers.  Any thread; may pin (ibv_reg_mr); never
 * polls; handler-safe. */
size_t gasnetc_ibv_lkey(int hca, const void *addr, size_t len, uint32_t *lkey,
                        gasnetc_ibv_hold_t **hold);

/* Remote key on HCA `hca` for a prefix of [raddr, raddr+len) in rank's
 * memory: returns the covered bytes (1..len) and fills *rkey and *hold
 * (NULL when the range lies in the peer's registered segment).  With remote
 * pinning (SEGMENT_LARGE/EVERYTHING) a miss sends a move request and polls
 * until it is granted (fatal, naming the peer, after a timeout).  Inside AM
 * handlers (which may not poll) only firehoses already held are used: a
 * miss there returns 0, and the caller must use another path (a packed AM,
 * or defer the operation to the progress loop).  SEGMENT_FAST never
 * returns 0. */
size_t gasnetc_ibv_rkey(int hca, uint32_t rank, uint64_t raddr, size_t len, uint32_t *rkey,
                        gasnetc_ibv_hold_t **hold);

/* Releases a hold (NULL: nothing).  Any thread, any context. */
void gasnetc_ibv_hold_release(gasnetc_ibv_hold_t *hold);

#endif /* GASNETC_IBV_DYNREG_H */
