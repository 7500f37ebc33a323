/* core/ibv/am/send.c: AM sends over verbs (Requests, Replies, hidden
 * credit-only Replies) and the RDMA writes of large Long payloads.
 *
 * A message is one SEND work request: the packed wire header (core/am/
 * wire.h), padded to 8 bytes, then the payload.  How the bytes get to the
 * HCA, cheapest first:
 *   inline   header+payload <= the QP's inline limit (GASNET_INLINESEND_LIMIT):
 *            the HCA copies them at post time; nothing stays referenced.
 *   hbuf     <= 128 bytes: copied into the descriptor's registered area.
 *   gather   payload in the local (registered) segment and >= GASNET_AM_GATHER_MIN:
 *            header from the hbuf, payload in place; the caller waits for the
 *            send completion before returning (local completion).
 *   copy     otherwise: header+payload copied into a bounce buffer.
 * Long payloads above GASNET_PACKEDLONG_LIMIT go first by RDMA WRITE into
 * the peer's segment (in place from registered memory: the local segment
 * or a firehose region; else through bounce buffers; keys from dynreg.h),
 * then the header alone on the same QP: RC delivers in order, so the
 * payload is in place before the handler runs.
 *
 * Local completion: by default the call returns once the payload may be
 * reused (gather and in-place Longs wait for the send completion).  A
 * Request whose lc_opt is an event pointer or GEX_EVENT_GROUP passes a
 * completion counter instead (core/am_fpam.c): the call returns at once and the
 * send completion of the message completes the counter (send_req_async).
 *
 * Requests take a credit first (core/am/credit.h); a Request without one
 * waits in the backlog, and its caller polls until whoever receives the
 * credit has sent it and its send completed.  Replies and hidden Replies
 * never need credits.  Every message carries the banked credits of its
 * connection in header byte 3, written just before posting.
 */
#include "core/ibv/ibv_internal.h"

#include <string.h>

/* A granted message: post the Reply buffer if the grant asks for one
 * (before the send, or owed until just after it: recv.c, late reposts),
 * write the banked credits into the header, post. */
static void send_granted(gasnetc_sdesc_t *d, unsigned flags)
{
    gasnetc_cep_t *c = d->cep;
    /* SRQ: sized for Replies (srq.c) */
    int rbuf = (flags & GASNETC_CREDIT_POST_RBUF) && !c->res->srq;
    int owed = rbuf && gasnetc_ibv_rbuf_owe(c);
    d->hdr[3] = (uint8_t)gasnetc_credit_piggyback(&c->credit, GASNETC_CREDIT_WIRE_MAX);
    gasnetc_ibv_post_msg(d, rbuf && !owed); /* d may be gone from here on */
    if (owed) gasnetc_ibv_rbuf_repay(c, NULL);
}

void gasnetc_ibv_send_chain(gasnetc_credit_node_t *n)
{
    while (n) {
        gasnetc_credit_node_t *next = n->next; /* n may be freed once posted */
        send_granted((gasnetc_sdesc_t *)n->item, n->flags);
        n = next;
    }
}

/* RDMA WRITEs of a Long payload into the peer's segment at raddr, keys
 * from dynreg.h: each piece is in place when the source is registered (the
 * segment in FAST, else a firehose region) and through a bounce buffer
 * otherwise; the remote key is the peer's segment (FAST) or a firehose on
 * it (LARGE).  Holds go into the descriptor and are released at its
 * completion.  Returns 1 when some piece reads the source in place (the
 * caller must wait for the header's completion, which follows them on the
 * QP), 0 when all were copied, or -1 having posted nothing when the payload
 * must travel packed instead: a Reply in a LARGE build (handlers cannot wait
 * for a remote pin) whose destination is not already pinned and that fits
 * one buffer. */
static int long_writes(gasnetc_cep_t *c, const void *src, size_t n, uint64_t raddr, int is_req)
{
    int h = c->res->index, zcopy = 0;
    size_t maxmsg = c->port->max_msg_sz ? c->port->max_msg_sz : (1u << 30);
    const size_t packed_max = gasnetc_ibv.rbuf_size - GASNETC_IBV_HDR_ROOM(GASNETC_AM_HDR_MAX);
    for (size_t off = 0; off < n;) {
        uint32_t lkey = 0, rkey = 0;
        gasnetc_ibv_hold_t *lh = NULL, *rh = NULL;
        size_t len = n - off < maxmsg ? n - off : maxmsg;
        len = gasnetc_ibv_rkey(h, c->rank, raddr + off, len, &rkey, &rh);
        if (!len) { /* only a Reply, inside its handler, in a LARGE build */
            if (off == 0 && n <= packed_max) return -1;
            gasneti_fatalerror("AM Long Reply of %zu bytes to rank %u: its destination %#llx is "
                               "not pinned there and a handler cannot wait for a remote pin "
                               "(SEGMENT_LARGE); Replies up to %zu bytes travel packed",
                               n, c->rank, (unsigned long long)(raddr + off), packed_max);
        }
        size_t inplace = gasnetc_ibv_lkey(h, (const uint8_t *)src + off, len, &lkey, &lh);
        if (!inplace && len > GASNETC_IBV_BUFSZ) len = GASNETC_IBV_BUFSZ;
        if (inplace) len = inplace;
        gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, GASNETC_OP_LONG_WRITE);
        d->wr = GASNETC_WR_WRITE;
        d->raddr = raddr + off;
        d->rkey = rkey;
        d->hold[0] = lh;
        d->hold[1] = rh;
        d->sge[0].length = (uint32_t)len;
        if (inplace) {
            d->sge[0].addr = (uintptr_t)src + off;
            d->sge[0].lkey = lkey;
            zcopy = 1;
        } else {
            d->bbuf = gasnetc_ibv_bbuf_get(is_req);
            memcpy(d->bbuf->data, (const uint8_t *)src + off, len);
            d->sge[0].addr = (uintptr_t)d->bbuf->data;
            d->sge[0].lkey = d->bbuf->lkey[h];
        }
        gasnetc_ibv_post_desc(d);
        off += len;
    }
    return zcopy;
}

void gasnetc_ibv_send_ack(gasnetc_cep_t *c, unsigned credits)
{
    gasnetc_am_hdr_t h;
    uint8_t wire[GASNETC_AM_HDR_MAX];
    memset(&h, 0, sizeof(h));
    h.category = GASNETC_AM_SHORT;
    h.handler = GASNETC_HANDLER_CREDIT_ONLY;
    h.src_rank = gasnetc_ibv.rank;
    h.credits = (uint8_t)credits;
    size_t hl = gasnetc_am_hdr_pack(&h, wire);
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_msg(c, GASNETC_OP_AM_ACK, wire, hl, NULL, 0, 0, NULL);
    gasnetc_ibv_post_desc(d); /* credits already in the header: they came out of the bank */
}

/* Completion callback of a Request sent with asynchronous local completion
 * whose payload the HCA read in place: the caller's counter is done. */
static void am_lc_done(gasnetc_sdesc_t *d)
{
    gasnete_ctr_add_done((gasnete_ctr_t *)d->ctx[0]);
}

/* A Request whose caller tracks local completion with counter lc: d is
 * built (must_wait: some of the payload is read in place by a posted RDMA
 * write or by d itself).  Nothing waits: d belongs to the completion path
 * once posted or queued, and when it still reads the caller's memory (in
 * place, or inline at a post that a credit backlog delays) its completion
 * adds lc's done.  Requests queued for credit are sent by whoever receives
 * the credit, as in the synchronous case. */
static void send_req_async(gasnetc_sdesc_t *d, int must_wait, unsigned granted, gasnete_ctr_t *lc)
{
    gasnetc_cep_t *c = d->cep;
    int reads_caller = must_wait || (d->inl && d->nsge == 2);
    d->owned = 0;
    if (reads_caller) {
        gasnete_ctr_add_init(lc, 1); /* before the post: the completion may come at once */
        d->ctx[0] = lc;
        d->done = am_lc_done;
    }
    if (granted) {
        send_granted(d, granted);
        return;
    }
    d->node.item = d;
    unsigned f = gasnetc_credit_acquire(&c->credit, &d->node);
    if (f != GASNETC_CREDIT_QUEUED) send_granted(d, f);
    /* queued: d may already be posted and freed by another thread */
}

/* Posts built descriptor d, a Request taking a credit first unless granted
 * holds one (waiting in the backlog when none is left), and returns once
 * its payload may be reused: at once, or (must_wait: read in place) after
 * its send completion. */
static void send_sync(gasnetc_sdesc_t *d, int is_req, unsigned granted, int must_wait)
{
    if (!is_req || granted) {
        d->owned = must_wait;
        send_granted(d, granted);
    } else {
        d->owned = 1; /* if queued, another thread may post it and its completion come back */
        d->node.item = d;
        unsigned f = gasnetc_credit_acquire(&d->cep->credit, &d->node);
        if (f == GASNETC_CREDIT_QUEUED) {
            must_wait = 1; /* sent from a credit chain; local completion when done */
        } else {
            d->owned = must_wait;
            send_granted(d, f);
        }
    }
    if (must_wait) gasnetc_ibv_desc_wait(d, is_req);
}

int gasnetc_ibv_am_send(uint32_t dest, void *net, gasnetc_am_hdr_t *hdr, const void *payload,
                        size_t nbytes, int immediate, void *lc)
{
    if (!net && immediate && dest < gasnetc_ibv.size && !gasnetc_ibv.peer_ceps[dest] &&
        !gasnetc_ibv_conn_try(dest))
        return 1; /* being connected (ondemand.c) */
    gasnetc_cep_t *c = net ? (gasnetc_cep_t *)net : gasnetc_ibv_pick_cep(dest);
    int is_req = hdr->is_req, must_wait = 0;
    unsigned granted = 0;
    size_t inmsg = nbytes;
    int rdma_long = hdr->category == GASNETC_AM_LONG && nbytes > gasnetc_ibv.packed_long_limit;
    /* IMMEDIATE is a permission: a Long whose payload goes by RDMA first
     * (which may need a remote pin, itself an AM on this connection) is sent
     * as a blocking call rather than holding a credit while it waits. */
    if (is_req && immediate && !rdma_long) {
        granted = gasnetc_credit_try_acquire(&c->credit);
        if (!granted) return 1;
    }
    if (rdma_long) {
        int w = long_writes(c, payload, nbytes, hdr->dest_addr, is_req);
        if (w >= 0) { /* else: packed after all (a Reply to a not-yet-pinned LARGE range) */
            must_wait = w;
            inmsg = 0;
        }
    }
    uint8_t wire[GASNETC_AM_HDR_MAX], rdesc[GASNETC_AM_RNDV_DESC];
    hdr->rndv = (uint8_t)gasnetc_ibv_rndv_needed(hdr, nbytes); /* small receive buffers: rndv.c */
    if (hdr->rndv) gasnetc_ibv_rndv_stage(c, payload, nbytes, is_req, rdesc);
    hdr->credits = 0;
    size_t hl = gasnetc_am_hdr_pack(hdr, wire);
    if (!hl) gasneti_fatalerror("AM with an invalid header (category %u, %u args)",
                                hdr->category, hdr->nargs);
    int in_place = 0, op = is_req ? GASNETC_OP_AM_REQ : GASNETC_OP_AM_REP;
    gasnetc_sdesc_t *d =
        hdr->rndv ? gasnetc_ibv_desc_msg(c, op, wire, hl, rdesc, sizeof(rdesc), is_req, NULL)
                  : gasnetc_ibv_desc_msg(c, op, wire, hl, inmsg ? payload : NULL, inmsg, is_req,
                                         &in_place);
    must_wait |= in_place;
    if (is_req && lc) {
        send_req_async(d, must_wait, granted, (gasnete_ctr_t *)lc);
        return 0;
    }
    send_sync(d, is_req, granted, must_wait);
    return 0;
}

int gasnetc_ibv_short_fast(uint32_t dest, void *net, unsigned is_req, unsigned handler,
                           unsigned nargs, unsigned src_ep, unsigned dst_ep, va_list *ap)
{
    gasnetc_cep_t *c = (gasnetc_cep_t *)net;
    if (!c) { /* a Request: only over an established connection, one QP per peer */
        if (dest >= gasnetc_ibv.size || gasnetc_ibv.nqps != 1) return 1;
        c = GASNETC_ATOMIC_LOAD(&gasnetc_ibv.peer_ceps[dest]);
        if (!c) return 1;
    }
    /* Header only, padded to 8 bytes: at most 80 bytes, within the hbuf. */
    const size_t hl = 16 + 4 * (size_t)nargs, off = GASNETC_IBV_HDR_ROOM(hl);
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, is_req ? GASNETC_OP_AM_REQ : GASNETC_OP_AM_REP);
    unsigned char *p = d->slot.data;
    gasnetc_am_short_wire(p, is_req, handler, nargs, gasnetc_ibv.rank, dst_ep, src_ep);
    for (unsigned i = 0; i < nargs; i++)
        gasnetc_am_wire_put32(p + 16 + 4 * i, (uint32_t)va_arg(*ap, int));
    if (off > hl) memset(p + hl, 0, off - hl);
    d->sge[0].addr = (uintptr_t)p;
    d->sge[0].length = (uint32_t)off;
    d->sge[0].lkey = d->slot.lkey[c->res->index];
    d->inl = off <= c->inline_max;
    send_sync(d, (int)is_req, 0, 0);
    return 0;
}
