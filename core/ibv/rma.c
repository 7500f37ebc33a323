/* core/ibv/rma.c: a basic RMA transport for ranks outside the
 * neighbourhood (the extended layer's gasnete_rma_transport_t), so that
 * clients mixing AMs with put/get run over verbs.  Issue 5 owns the
 * complete design (striping, fenced puts, non-bulk bounce limit, firehose);
 * this is the correct, simple subset:
 *
 *   Put  RDMA WRITE into the peer's segment.  Source in the local
 *        (registered) segment: in place, local completion with the send
 *        completion.  Otherwise: copied into bounce buffers (64 KiB pieces),
 *        local completion at once.  Small ones (<= the QP's inline limit)
 *        go inline: local completion at once, nothing referenced.
 *   Get  RDMA READ from the peer's segment, into the destination when it
 *        lies in the local segment, else into bounce buffers copied out by
 *        the completion path before the operation counts as complete.
 *
 * Pieces are at most the port's largest message (in place) or one bounce
 * buffer; each is one signaled work request whose completion calls
 * gasnete_cmpl_lc_done / _op_done (extended/extended_internal.h).  Nothing
 * here waits except for free bounce buffers and send-queue slots; the
 * transport never refuses (GEX_FLAG_IMMEDIATE is a permission).
 */
#include "core/ibv/ibv_internal.h"
#include "extended/extended_internal.h"

#include <string.h>

/* Completion of one piece (any thread, from the send CQ). */
static void piece_done(gasnetc_sdesc_t *d)
{
    gasnete_cmpl_t c = {(gasnete_ctr_t *)d->ctx[0], (gasnete_ctr_t *)d->ctx[1]};
    if (d->copy_to) memcpy(d->copy_to, d->bbuf->data, d->sge[0].length);
    if (c.lc) gasnete_cmpl_lc_done(&c); /* NULL once done at post time */
    gasnete_cmpl_op_done(&c);
}

static gasnetc_sdesc_t *piece(gasnetc_cep_t *c, int op, int wr, uint64_t raddr,
                              const gasnete_cmpl_t *cmpl)
{
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, op);
    d->wr = (uint8_t)wr;
    d->raddr = raddr;
    d->done = piece_done;
    d->ctx[0] = cmpl->op;
    d->ctx[1] = cmpl->lc;
    d->copy_to = NULL;
    return d;
}

static size_t max_piece(const gasnetc_cep_t *c)
{
    return c->port->max_msg_sz ? c->port->max_msg_sz : ((size_t)1 << 30);
}

static int ibv_put(gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   const gasnete_cmpl_t *cmpl, gex_Flags_t flags)
{
    (void)flags;
    gasnetc_cep_t *c = gasnetc_ibv_pick_cep(rank);
    int poll_all = !gasnetc_in_handler();
    uint32_t lkey;
    int zcopy = gasnetc_ibv_seg_lkey(c->res, src, nbytes, &lkey);
    int inl = nbytes <= c->inline_max;
    size_t chunk = inl ? nbytes : zcopy ? max_piece(c) : GASNETC_IBV_BUFSZ;
    uint32_t npieces = (uint32_t)((nbytes + chunk - 1) / chunk);
    gasnete_cmpl_begin(cmpl, npieces);
    for (size_t off = 0; off < nbytes; off += chunk) {
        size_t len = nbytes - off < chunk ? nbytes - off : chunk;
        gasnetc_sdesc_t *d = piece(c, GASNETC_OP_PUT, GASNETC_WR_WRITE,
                                   (uint64_t)(uintptr_t)dest + off, cmpl);
        d->sge[0].length = (uint32_t)len;
        if (inl) {
            d->inl = 1;
            d->sge[0].addr = (uintptr_t)src + off;
            d->sge[0].lkey = 0;
        } else if (zcopy) {
            d->sge[0].addr = (uintptr_t)src + off;
            d->sge[0].lkey = lkey;
        } else {
            d->bbuf = gasnetc_ibv_bbuf_get(poll_all);
            memcpy(d->bbuf->data, (const uint8_t *)src + off, len);
            d->sge[0].addr = (uintptr_t)d->bbuf->data;
            d->sge[0].lkey = d->bbuf->lkey[c->res->index];
        }
        if (!zcopy || inl) { /* the source is no longer referenced once posted */
            d->ctx[1] = NULL;
            if (cmpl->lc) gasnete_cmpl_lc_done(cmpl);
        }
        gasnetc_ibv_post_desc(d);
    }
    return 0;
}

static int ibv_get(void *dest, gex_Rank_t rank, const void *src, size_t nbytes,
                   const gasnete_cmpl_t *cmpl, gex_Flags_t flags)
{
    (void)flags;
    gasnetc_cep_t *c = gasnetc_ibv_pick_cep(rank);
    int poll_all = !gasnetc_in_handler();
    uint32_t lkey;
    int zcopy = gasnetc_ibv_seg_lkey(c->res, dest, nbytes, &lkey);
    size_t chunk = zcopy ? max_piece(c) : GASNETC_IBV_BUFSZ;
    uint32_t npieces = (uint32_t)((nbytes + chunk - 1) / chunk);
    gasnete_cmpl_begin(cmpl, npieces);
    for (size_t off = 0; off < nbytes; off += chunk) {
        size_t len = nbytes - off < chunk ? nbytes - off : chunk;
        gasnetc_sdesc_t *d = piece(c, GASNETC_OP_GET, GASNETC_WR_READ,
                                   (uint64_t)(uintptr_t)src + off, cmpl);
        d->sge[0].length = (uint32_t)len;
        if (zcopy) {
            d->sge[0].addr = (uintptr_t)dest + off;
            d->sge[0].lkey = lkey;
        } else {
            d->bbuf = gasnetc_ibv_bbuf_get(poll_all);
            d->copy_to = (uint8_t *)dest + off;
            d->sge[0].addr = (uintptr_t)d->bbuf->data;
            d->sge[0].lkey = d->bbuf->lkey[c->res->index];
        }
        gasnetc_ibv_post_desc(d);
    }
    return 0;
}

static const gasnete_rma_transport_t gasnetc_ibv_rma = {
    .name = "ibv",
    .put = ibv_put,
    .get = ibv_get,
};

void gasnetc_ibv_rma_register(void) { gasnete_rma_set_transport(&gasnetc_ibv_rma); }
