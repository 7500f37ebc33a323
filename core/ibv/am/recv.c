/* core/ibv/am/recv.c: an AM arrived in a receive buffer.  The order of the
 * steps for a Request is the one core/am/README ("Receiving a Request")
 * requires:
 *   1. post a replacement buffer on the same QP before anything else (from
 *      the pool's spares; if there is none, copy the message out into a
 *      temporary unpinned buffer and repost the received buffer itself), so
 *      the PP Request buffers of the peer are whole again before the
 *      handler can send anything that lets the peer send more; or owe it
 *      (below: the QP's slack buffer stands in until step 5 posts it);
 *   2. take the piggybacked credits (and send the Requests they unblock);
 *   3. run the handler (packed Long payloads are copied into place first);
 *   4. no Reply sent: bank the credit, or send a hidden credit-only Reply
 *      when the bank would pass GASNET_AM_CREDITS_SLACK;
 *   5. give the buffer back to the pool (or free the copy); if the
 *      replacement was owed, post the received buffer itself as it.
 * A Reply returns its Request's credit (plus piggybacked ones); a hidden
 * Reply runs no handler.  Its buffer was posted for it before the Request
 * was sent, so it is simply returned to the pool.  With a shared receive
 * queue (srq.c) no buffer is posted per Request: a Reply's buffer is
 * replaced like a Request's, before its credits are counted.
 *
 * Late reposts (core/ibv/am/README "Late receive buffers"): every QP gets
 * GASNETC_IBV_RBUF_SLACK buffers more than its credits need, so a buffer
 * that must be posted before a send (step 1 here; a Request's Reply
 * buffer, send.c) can be owed while the QP owes fewer than that, and is
 * posted just after: the posted count never drops below what the credits
 * need, and ibv_post_recv leaves the path from an arrival to the answer.
 * A rendezvous Medium (small receive buffers, rndv.c) carries a descriptor
 * instead of its payload: the payload is fetched by RDMA READ into a
 * landing buffer just before the handler runs, and the landing buffer goes
 * back once it returns.
 */
#include "core/ibv/ibv_internal.h"

#include <stdlib.h>
#include <string.h>

static void corrupt(const gasnetc_cep_t *c, uint32_t len, const char *what)
{
    char name[128];
    gasneti_fatalerror("corrupted AM received (%s; %u bytes) on %s", what, len,
                       gasnetc_ibv_cep_name(c, name, sizeof(name)));
}

/* Puts a packed Long payload in place (it must lie in my segment). */
static void long_in_place(const gasnetc_cep_t *c, const gasnetc_am_hdr_t *h, const void *payload,
                          uint32_t len)
{
    void *dst = (void *)(uintptr_t)h->dest_addr;
    if (!gasnetc_ibv.up.long_dest_ok(h)) /* the destination endpoint's segment */
        corrupt(c, len, "Long destination outside this rank's segment");
    memcpy(dst, payload, h->nbytes);
}

int gasnetc_ibv_rbuf_owe(gasnetc_cep_t *c)
{
    int owed = GASNETC_ATOMIC_LOAD(&c->rbuf_owed);
    do {
        if (owed >= GASNETC_IBV_RBUF_SLACK) return 0;
    } while (!GASNETC_ATOMIC_CAS(&c->rbuf_owed, owed, owed + 1));
    return 1;
}

void gasnetc_ibv_rbuf_repay(gasnetc_cep_t *c, gasnetc_rbuf_t *rb)
{
    gasnetc_ibv_post_rbuf(c, rb); /* posted before the debt shrinks */
    GASNETC_ATOMIC_ADD(&c->rbuf_owed, -1);
}

/* Step 1: puts a buffer where *rbp was consumed (its QP, or the HCA's SRQ).
 * A spare from the pool when there is one; else the message is copied into
 * a malloc'ed buffer (returned; *rbp becomes NULL) and the received buffer
 * is reposted.  SRQ: a buffer the limit event added beyond the plan
 * (gasnetc_ibv_srq_retire) is not replaced, so the spares come back. */
static uint8_t *replace(gasnetc_cep_t *c, gasnetc_rbuf_t **rbp, uint32_t len, int *owed)
{
    int srq = gasnetc_ibv.srq_on;
    if (srq && gasnetc_ibv_srq_retire(c->res)) return NULL;
    if (!srq && (*owed = gasnetc_ibv_rbuf_owe(c))) return NULL;
    gasnetc_rbuf_t *spare = (gasnetc_rbuf_t *)gasnetc_ibv_pool_get(&gasnetc_ibv.rbuf_pool, 0);
    if (spare) {
        if (srq) gasnetc_ibv_srq_post(c->res, spare);
        else gasnetc_ibv_post_rbuf(c, spare);
        return NULL;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) gasneti_fatalerror("out of memory copying a %u-byte AM", len);
    memcpy(copy, (*rbp)->slot.data, len);
    if (srq) gasnetc_ibv_srq_post(c->res, *rbp);
    else gasnetc_ibv_post_rbuf(c, *rbp);
    *rbp = NULL;
    return copy;
}

/* Runs the handler: a Medium's payload in place, or fetched first when it
 * came by rendezvous.  Returns what deliver returns (replied). */
static int deliver(gasnetc_cep_t *c, const gasnetc_am_hdr_t *h, uint8_t *payload)
{
    if (h->category != GASNETC_AM_MEDIUM) return gasnetc_ibv.up.deliver(h, NULL, c);
    if (!h->rndv) return gasnetc_ibv.up.deliver(h, payload, c);
    gasnetc_ibv_slot_t *land = NULL;
    uint8_t *p = gasnetc_ibv_rndv_fetch(c, h, payload, &land);
    int replied = gasnetc_ibv.up.deliver(h, p, c);
    gasnetc_ibv_rndv_landed(land);
    return replied;
}

void gasnetc_ibv_recv_one(gasnetc_rbuf_t *rb, uint32_t len)
{
    gasnetc_cep_t *c = rb->cep;
    gasnetc_am_hdr_t h;
    size_t hl = gasnetc_am_hdr_unpack(rb->slot.data, len, &h);
    if (!hl) corrupt(c, len, "invalid header");
    if (h.src_rank != c->rank) corrupt(c, len, "source rank does not match the connection");
    size_t off = GASNETC_IBV_HDR_ROOM(hl);
    int packed = 0;
    switch (h.category) {
    case GASNETC_AM_SHORT:
        if (len > off) corrupt(c, len, "Short with payload bytes");
        break;
    case GASNETC_AM_MEDIUM:
        if (len != off + (h.rndv ? GASNETC_AM_RNDV_DESC : h.nbytes))
            corrupt(c, len, "Medium length mismatch");
        break;
    default: /* Long: payload packed in the message, or already written by RDMA */
        if (h.nbytes && len == off + h.nbytes) packed = 1;
        else if (len > off) corrupt(c, len, "Long length mismatch");
        break;
    }
    uint8_t *payload = rb->slot.data + off;
    int srq = gasnetc_ibv.srq_on;
    if (srq) gasnetc_ibv_srq_service();

    if (!h.is_req && !srq) {
        gasnetc_credit_node_t *chain = gasnetc_credit_receive(&c->credit, 1, h.credits);
        if (h.handler != GASNETC_HANDLER_CREDIT_ONLY) {
            if (packed) long_in_place(c, &h, payload, len);
            deliver(c, &h, payload);
        }
        gasnetc_ibv_pool_put(&gasnetc_ibv.rbuf_pool, &rb->slot);
        gasnetc_ibv_send_chain(chain);
        return;
    }

    /* 1. replacement buffer (SRQ: for Replies too, since their buffers are
     * not posted per Request; core/ibv/mem/README "Shared receive queues") */
    int owed = 0;
    uint8_t *copy = replace(c, &rb, len, &owed);
    if (copy) payload = copy + off;
    if (!h.is_req) { /* SRQ Reply: credits, handler, buffer back */
        gasnetc_credit_node_t *chain = gasnetc_credit_receive(&c->credit, 1, h.credits);
        if (h.handler != GASNETC_HANDLER_CREDIT_ONLY) {
            if (packed) long_in_place(c, &h, payload, len);
            deliver(c, &h, payload);
        }
        if (rb) gasnetc_ibv_pool_put(&gasnetc_ibv.rbuf_pool, &rb->slot);
        else free(copy);
        gasnetc_ibv_send_chain(chain);
        return;
    }
    /* 2. credits */
    gasnetc_ibv_send_chain(gasnetc_credit_receive(&c->credit, 0, h.credits));
    /* 3. handler */
    if (packed) long_in_place(c, &h, payload, len);
    int replied = deliver(c, &h, payload);
    /* 4. implicit reply bookkeeping */
    unsigned bank;
    if (!replied && gasnetc_credit_unanswered(&c->credit, &bank)) gasnetc_ibv_send_ack(c, bank);
    /* 5. (owed: nothing was copied, and the received buffer is the replacement) */
    if (owed) gasnetc_ibv_rbuf_repay(c, rb);
    else if (rb) gasnetc_ibv_pool_put(&gasnetc_ibv.rbuf_pool, &rb->slot);
    else free(copy);
}
