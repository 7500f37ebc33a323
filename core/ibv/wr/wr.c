/* core/ibv/wr/wr.c: the work-request layer under the AM protocol
 * (core/ibv/am), RMA and the mailbox (core/ibv/rma): send descriptors,
 * bounce buffers, the layout of a message in a descriptor, and posting,
 * with the send-queue slot and send-CQ entry every post reserves first.  Completions
 * come back through cq.c (send_done: slots, buffers, holds, DONE or free).
 * Below it: the pools (mem/pool.c) and the connections (conn/).
 * Design: core/ibv/wr/README.
 */
#include "core/ibv/ibv_internal.h"

#include <string.h>

/* ---- descriptors and bounce buffers ------------------------------------------- */
gasnetc_sdesc_t *gasnetc_ibv_desc_get(gasnetc_cep_t *c, int op)
{
    gasnetc_sdesc_t *d = (gasnetc_sdesc_t *)gasnetc_ibv_pool_get(&gasnetc_ibv.desc_pool, 1);
    if (!d) gasneti_fatalerror("out of memory for send descriptors");
    d->cep = c;
    d->bbuf = NULL;
    d->hdr = d->slot.data;
    d->state = GASNETC_SD_READY;
    d->owned = 0;
    d->op = (uint8_t)op;
    d->wr = GASNETC_WR_SEND;
    d->inl = 0;
    d->nsge = 1;
    d->done = NULL;
    d->rkey = c->rkey;
    d->hold[0] = d->hold[1] = NULL;
    return d;
}

/* A bounce buffer; while none is free, Requests poll everything and
 * Replies (maybe in a handler) reap send completions only. */
gasnetc_ibv_slot_t *gasnetc_ibv_bbuf_get(int is_req)
{
    for (;;) {
        gasnetc_ibv_slot_t *s = gasnetc_ibv_pool_get(&gasnetc_ibv.bbuf_pool, 1);
        if (s) return s;
        if (is_req) gasnetc_ibv.up.poll();
        else gasnetc_ibv.up.poll_idle(gasnetc_ibv_reap_send());
    }
}

/* Waits until owned descriptor d is DONE (its send completed), then frees
 * it: Requests poll everything, Replies (maybe in a handler) only reap
 * send completions. */
void gasnetc_ibv_desc_wait(gasnetc_sdesc_t *d, int is_req)
{
    while (GASNETC_ATOMIC_LOAD(&d->state) != GASNETC_SD_DONE) {
        if (is_req) gasnetc_ibv.up.poll();
        else gasnetc_ibv.up.poll_idle(gasnetc_ibv_reap_send());
    }
    gasnetc_ibv_pool_put(&gasnetc_ibv.desc_pool, &d->slot);
}

/* Lays out header (hl bytes at wire) and payload in d, cheapest first:
 * inline, the descriptor's own registered area, gather from the segment,
 * a bounce buffer.  Returns 1 when the payload stays referenced in place
 * (gather) and the caller must wait for the send completion before the
 * source may be reused. */
static int lay_out(gasnetc_sdesc_t *d, const uint8_t *wire, size_t hl, const void *payload,
                     size_t n, int is_req)
{
    gasnetc_cep_t *c = d->cep;
    int h = c->res->index;
    size_t off = GASNETC_IBV_HDR_ROOM(hl), total = off + n;
    uint32_t lkey;
    if (total <= c->inline_max || total <= GASNETC_IBV_HBUF) {
        memcpy(d->slot.data, wire, hl);
        d->sge[0].addr = (uintptr_t)d->slot.data;
        d->sge[0].lkey = d->slot.lkey[h];
        if (total <= c->inline_max && n > GASNETC_IBV_HBUF - off) {
            d->inl = 1; /* the payload is read at post time, in place */
            d->sge[0].length = (uint32_t)off;
            d->sge[1].addr = (uintptr_t)payload;
            d->sge[1].length = (uint32_t)n;
            d->sge[1].lkey = 0;
            d->nsge = 2;
        } else {
            if (n) memcpy(d->slot.data + off, payload, n);
            d->sge[0].length = (uint32_t)total;
            d->inl = total <= c->inline_max;
        }
        return 0;
    }
    if (gasnetc_ibv.gather_min >= 0 && n >= (uint64_t)gasnetc_ibv.gather_min &&
        gasnetc_ibv_seg_lkey(c->res, payload, n, &lkey)) {
        memcpy(d->slot.data, wire, hl);
        d->sge[0].addr = (uintptr_t)d->slot.data;
        d->sge[0].length = (uint32_t)off;
        d->sge[0].lkey = d->slot.lkey[h];
        d->sge[1].addr = (uintptr_t)payload;
        d->sge[1].length = (uint32_t)n;
        d->sge[1].lkey = lkey;
        d->nsge = 2;
        return 1;
    }
    d->bbuf = gasnetc_ibv_bbuf_get(is_req);
    d->hdr = d->bbuf->data;
    memcpy(d->bbuf->data, wire, hl);
    if (n) memcpy(d->bbuf->data + off, payload, n);
    d->sge[0].addr = (uintptr_t)d->bbuf->data;
    d->sge[0].length = (uint32_t)total;
    d->sge[0].lkey = d->bbuf->lkey[h];
    return 0;
}

gasnetc_sdesc_t *gasnetc_ibv_desc_msg(gasnetc_cep_t *c, int op, const uint8_t *wire, size_t hl,
                                      const void *payload, size_t n, int is_req, int *in_place)
{
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, op);
    int w = lay_out(d, wire, hl, payload, n, is_req);
    if (in_place) *in_place = w;
    return d;
}

/* ---- posting ------------------------------------------------------------------ */
static int take_one(int *avail)
{
    if (GASNETC_ATOMIC_ADD(avail, -1) >= 0) return 1;
    GASNETC_ATOMIC_ADD(avail, 1);
    return 0;
}

void gasnetc_ibv_reserve_send(gasnetc_cep_t *c)
{
    while (!take_one(&c->sq_avail)) gasnetc_ibv_reap_send();
    while (!take_one(&c->res->scq_avail)) gasnetc_ibv_reap_send();
}

/* Link-flap recovery: an inline WR is read at post time, so its bytes must
 * stay available for a repost (conn/recover.c).  Gathers them into the
 * descriptor's own registered area (QPs cap inline data at that size when
 * recovery is on: connect.c). */
static void inline_snapshot(gasnetc_sdesc_t *d)
{
    uint8_t *base = d->slot.data;
    size_t off = 0;
    int moved = 0;
    for (int i = 0; i < d->nsge; i++) {
        moved |= d->sge[i].addr != (uintptr_t)(base + off);
        off += d->sge[i].length;
    }
    if (!moved) return;
    if (off > GASNETC_IBV_HBUF)
        gasneti_fatalerror("inline send of %zu bytes above the %d-byte recovery copy", off,
                           GASNETC_IBV_HBUF);
    off = 0;
    for (int i = 0; i < d->nsge; i++) {
        memmove(base + off, (const void *)(uintptr_t)d->sge[i].addr, d->sge[i].length);
        off += d->sge[i].length;
    }
    d->sge[0].addr = (uintptr_t)base;
    d->sge[0].length = (uint32_t)off;
    d->sge[0].lkey = d->slot.lkey[d->cep->res->index];
    d->nsge = 1;
}

/* Posts d now (slot and CQ entry reserved by the caller); with recovery on,
 * the caller holds cep->rec_lock, so the sequence number is the QP's order. */
static void post_now(gasnetc_sdesc_t *d)
{
    gasnetc_cep_t *c = d->cep;
    struct ibv_send_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uintptr_t)d;
    wr.sg_list = d->sge;
    wr.num_sge = d->nsge;
    wr.send_flags = IBV_SEND_SIGNALED | (d->inl ? IBV_SEND_INLINE : 0);
    if (d->wr == GASNETC_WR_SEND) {
        wr.opcode = IBV_WR_SEND;
    } else {
        wr.opcode = d->wr == GASNETC_WR_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
        wr.wr.rdma.remote_addr = d->raddr;
        wr.wr.rdma.rkey = d->rkey;
    }
    if (gasnetc_ibv.rec_on) {
        d->seq = c->next_seq++;
        GASNETC_ATOMIC_ADD(&c->inflight, 1);
    }
    /* POSTED before the post: the completion (which sets DONE) may come
     * before ibv_post_send returns. */
    GASNETC_ATOMIC_STORE(&d->state, GASNETC_SD_POSTED);
    int rc = ibv_post_send(c->qp, &wr, &bad);
    if (rc) {
        char name[128];
        gasneti_fatalerror("ibv_post_send failed: %s (%s, %u bytes)", strerror(rc),
                           gasnetc_ibv_cep_name(c, name, sizeof(name)),
                           (unsigned)(d->sge[0].length + (d->nsge > 1 ? d->sge[1].length : 0)));
    }
}

void gasnetc_ibv_post_desc(gasnetc_sdesc_t *d)
{
    gasnetc_cep_t *c = d->cep;
    if (!gasnetc_ibv.rec_on) {
        gasnetc_ibv_reserve_send(c);
        post_now(d);
        return;
    }
    if (d->inl) inline_snapshot(d);
    gasnetc_ibv_reserve_send(c);
    gasneti_mutex_lock(&c->rec_lock);
    if (GASNETC_ATOMIC_LOAD(&c->broken)) { /* being re-established: posted by recover.c */
        d->rnext = NULL;
        *c->parked_tail = d;
        c->parked_tail = &d->rnext;
        gasneti_mutex_unlock(&c->rec_lock);
        GASNETC_ATOMIC_ADD(&c->sq_avail, 1);
        GASNETC_ATOMIC_ADD(&c->res->scq_avail, 1);
        return;
    }
    post_now(d);
    gasneti_mutex_unlock(&c->rec_lock);
}

void gasnetc_ibv_post_desc_raw(gasnetc_sdesc_t *d)
{
    /* c, not d->cep, after the post: d may complete on another thread, be
     * freed and be taken for another connection before post_now returns. */
    gasnetc_cep_t *c = d->cep;
    gasnetc_ibv_reserve_send(c);
    gasneti_mutex_lock(&c->rec_lock);
    post_now(d);
    gasneti_mutex_unlock(&c->rec_lock);
}

void gasnetc_ibv_post_msg(gasnetc_sdesc_t *d, int with_rbuf)
{
    if (with_rbuf) gasnetc_ibv_post_rbuf(d->cep, NULL);
    gasnetc_ibv_post_desc(d);
}

void gasnetc_ibv_post_rbuf_raw(gasnetc_cep_t *c, gasnetc_rbuf_t *rb)
{
    rb->cep = c;
    struct ibv_sge sge;
    sge.addr = (uintptr_t)rb->slot.data;
    sge.length = (uint32_t)gasnetc_ibv.rbuf_size;
    sge.lkey = rb->slot.lkey[c->res->index];
    struct ibv_recv_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uintptr_t)rb;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (gasnetc_ibv.rec_on) GASNETC_ATOMIC_ADD(&c->rinflight, 1);
    int rc = ibv_post_recv(c->qp, &wr, &bad);
    if (rc) {
        char name[128];
        gasneti_fatalerror("ibv_post_recv failed: %s (%s)", strerror(rc),
                           gasnetc_ibv_cep_name(c, name, sizeof(name)));
    }
}

void gasnetc_ibv_post_rbuf(gasnetc_cep_t *c, gasnetc_rbuf_t *rb)
{
    if (!rb) rb = (gasnetc_rbuf_t *)gasnetc_ibv_pool_get(&gasnetc_ibv.rbuf_pool, 1);
    if (!rb) gasneti_fatalerror("out of memory for AM receive buffers");
    rb->cep = c;
    if (gasnetc_ibv.rec_on) {
        gasneti_mutex_lock(&c->rec_lock);
        if (GASNETC_ATOMIC_LOAD(&c->broken)) { /* posted on the re-established QP */
            rb->rnext = c->rbufs;
            c->rbufs = rb;
            gasneti_mutex_unlock(&c->rec_lock);
            return;
        }
        gasnetc_ibv_post_rbuf_raw(c, rb);
        gasneti_mutex_unlock(&c->rec_lock);
        return;
    }
    gasnetc_ibv_post_rbuf_raw(c, rb);
}
