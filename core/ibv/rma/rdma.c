/* core/ibv/rma/rdma.c: put and get over verbs for ranks outside the
 * neighbourhood: the extended layer's RMA transport (gasnete_rma_transport_t,
 * completion contract in extended/README).
 *
 *   Put  RDMA WRITEs into the peer's memory, in one of three ways chosen per
 *        transfer and then per piece:
 *          inline   nbytes <= the QP's inline limit (GASNET_INLINESEND_LIMIT):
 *                   the HCA copies at post time, nothing stays referenced;
 *          bounce   the initiator waits for local completion (lc_opt NOW,
 *                   Val forms: GASNETE_FLAG_LC_NOW) and nbytes <=
 *                   GASNET_NONBULKPUT_BOUNCE_LIMIT: copied into bounce
 *                   buffers, so the call returns at once;
 *          zcopy    otherwise, from the source in place when dynreg gives a
 *                   local key for it (local completion = the send
 *                   completion), else from bounce buffers (local completion
 *                   at once).
 *   Get  RDMA READs into the destination in place when it has a local key,
 *        else into bounce buffers copied out when the piece completes.
 *
 * Every key comes from dynreg.h, one call per piece: the remote key first
 * (it may cover only a prefix), then the local key over what the remote
 * one covers.  Transfers are cut into stripes over the peer's QPs
 * (GASNET_PUT/GET_STRIPE_SZ, rma_plan.h) and stripes into pieces of at
 * most the port's largest message.  With GASNET_USE_FENCED_PUTS a put's
 * remote completion is reported by a 1-byte RDMA READ posted on every QP
 * that carried part of it, after its last write there (README: "Fenced
 * puts").  Nothing is allocated here: descriptors and bounce buffers come
 * from the transport's pools; waiting happens only for a free bounce buffer
 * or send slot (gasnetc_ibv_bbuf_get / _post_desc), never for the peer.
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/rma/rma_plan.h"

#include <string.h>

static struct {
    size_t put_stripe, get_stripe; /* GASNET_PUT/GET_STRIPE_SZ (0 = the largest message) */
    size_t bounce_limit;           /* GASNET_NONBULKPUT_BOUNCE_LIMIT */
    uint32_t max_msg;              /* smallest max_msg_sz of the ports in use */
    int fenced;                    /* GASNET_USE_FENCED_PUTS */
} rma_cfg;

/* How a put's source reaches the HCA (chosen per transfer). */
enum { SRC_INLINE, SRC_BOUNCE, SRC_ZCOPY };

static inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* Completion of one work request (any thread, from the send CQ): a Get
 * through a bounce buffer is copied out first; then local completion, then
 * operation completion (the contract's order). */
static void piece_done(gasnetc_sdesc_t *d)
{
    if (d->copy_to) memcpy(d->copy_to, d->bbuf->data, d->sge[0].length);
    if (d->ctx[1]) gasnete_ctr_add_done((gasnete_ctr_t *)d->ctx[1]);
    if (d->ctx[0]) gasnete_ctr_add_done((gasnete_ctr_t *)d->ctx[0]);
}

/* A descriptor for one RDMA work request on c at the peer's raddr, with the
 * remote key of a prefix of [raddr, raddr+want): *len receives its length
 * (1..want).  Counters unset (ctx NULL). */
static gasnetc_sdesc_t *piece_new(gasnetc_cep_t *c, int op, int wr, uint32_t rank, uint64_t raddr,
                                  size_t want, size_t *len)
{
    uint32_t rkey = 0;
    gasnetc_ibv_hold_t *rhold = NULL;
    size_t n = gasnetc_ibv_rkey(c->res->index, rank, raddr, want, &rkey, &rhold);
    if (__builtin_expect(n == 0 || n > want, 0))
        gasneti_fatalerror("verbs RMA: no remote key for [0x%llx, +%zu) of rank %u (dynreg "
                           "returned %zu bytes)", (unsigned long long)raddr, want, rank, n);
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, op);
    d->wr = (uint8_t)wr;
    d->raddr = raddr;
    d->rkey = rkey;
    d->hold[1] = rhold;
    d->done = piece_done;
    d->ctx[0] = d->ctx[1] = NULL;
    d->copy_to = NULL;
    *len = n;
    return d;
}

/* Points d's local side at len bytes of data (in place, with dynreg's key)
 * when possible, else at a bounce buffer of at most GASNETC_IBV_BUFSZ
 * bytes (copy_in: copy the data there now, for a Put).  Returns the bytes
 * the piece carries (<= len) and sets *in_place. */
static size_t local_side(gasnetc_sdesc_t *d, const uint8_t *data, size_t len, int try_keys,
                         int copy_in, int poll_all, int *in_place)
{
    int h = d->cep->res->index;
    if (try_keys) {
        uint32_t lkey = 0;
        gasnetc_ibv_hold_t *lhold = NULL;
        size_t n = gasnetc_ibv_lkey(h, data, len, &lkey, &lhold);
        if (n) {
            d->sge[0].addr = (uintptr_t)data;
            d->sge[0].lkey = lkey;
            d->hold[0] = lhold;
            *in_place = 1;
            return n < len ? n : len;
        }
    }
    if (len > GASNETC_IBV_BUFSZ) len = GASNETC_IBV_BUFSZ;
    d->bbuf = gasnetc_ibv_bbuf_get(poll_all);
    if (copy_in) memcpy(d->bbuf->data, data, len);
    d->sge[0].addr = (uintptr_t)d->bbuf->data;
    d->sge[0].lkey = d->bbuf->lkey[h];
    *in_place = 0;
    return len;
}

/* The fence of a put on QP c: a 1-byte RDMA READ of raddr (the last byte
 * this put wrote through c) into the descriptor's own registered area.  RC
 * executes it after the writes before it on c and a read flushes them to
 * the target's memory, so its completion means they are visible there; it
 * carries the operation completion (one count of op). */
static void post_fence(gasnetc_cep_t *c, uint32_t rank, uint64_t raddr, gasnete_ctr_t *op)
{
    size_t len;
    gasnetc_sdesc_t *d = piece_new(c, GASNETC_OP_PUT, GASNETC_WR_READ, rank, raddr, 1, &len);
    d->sge[0].addr = (uintptr_t)d->slot.data;
    d->sge[0].lkey = d->slot.lkey[c->res->index];
    d->sge[0].length = 1;
    d->ctx[0] = op;
    gasnete_ctr_add_init(op, 1);
    gasnetc_ibv_post_desc(d);
}

/* One transfer of nbytes between local memory and the peer's raddr:
 * stripes over the peer's QPs (rma_plan.h; stripe k on QP (q0 + k) mod
 * nqps, q0 the connection's round-robin choice), pieces inside a stripe.
 * Put: src_mode says how the source travels, op counts only when not
 * fenced, lc counts the pieces read in place, fences close each QP.  Get:
 * every piece counts op; bounce pieces are copied out on completion. */
static void rma_xfer(int is_put, gex_Rank_t rank, uint8_t *local, uint64_t raddr, size_t nbytes,
                     const gasnete_cmpl_t *cmpl, int src_mode, size_t stripe)
{
    gasnetc_cep_t *c0 = gasnetc_ibv_pick_cep(rank);
    gasnetc_cep_t *ceps = gasnetc_ibv.peer_ceps[rank];
    size_t nq = (size_t)gasnetc_ibv.nqps;
    size_t slen = gasnetc_rma_stripe_len(nbytes, stripe, gasnetc_ibv.nqps, rma_cfg.max_msg);
    size_t ns = slen >= nbytes ? 1 : gasnetc_rma_nstripes(nbytes, slen), off = 0;
    int poll_all = !gasnetc_in_handler(), fenced = is_put && rma_cfg.fenced;
    gasnete_ctr_t *op = fenced ? NULL : cmpl->op; /* fenced: the fences count op */
    for (size_t k = 0; k < ns; k++) {
        gasnetc_cep_t *c = k ? &ceps[((size_t)c0->qpi + k) % nq] : c0;
        size_t end = min_sz(off + slen, nbytes), pmax = gasnetc_rma_piece_max(c->port->max_msg_sz);
        while (off < end) {
            size_t len;
            int in_place = 0;
            gasnetc_sdesc_t *d = piece_new(c, is_put ? GASNETC_OP_PUT : GASNETC_OP_GET,
                                           is_put ? GASNETC_WR_WRITE : GASNETC_WR_READ, rank,
                                           raddr + off, min_sz(end - off, pmax), &len);
            if (src_mode == SRC_INLINE && len <= c->inline_max) {
                d->inl = 1; /* read at post time */
                d->sge[0].addr = (uintptr_t)(local + off);
                d->sge[0].lkey = 0;
            } else {
                len = local_side(d, local + off, len, src_mode == SRC_ZCOPY, is_put, poll_all,
                                 &in_place);
                if (!is_put && !in_place) d->copy_to = local + off;
            }
            d->sge[0].length = (uint32_t)len;
            d->ctx[0] = op;
            d->ctx[1] = (is_put && in_place) ? cmpl->lc : NULL;
            if (op) gasnete_ctr_add_init(op, 1);
            if (d->ctx[1]) gasnete_ctr_add_init(cmpl->lc, 1);
            gasnetc_ibv_post_desc(d);
            off += len;
        }
        if (fenced && gasnetc_rma_last_on_qp(k, ns, (int)nq))
            post_fence(c, rank, raddr + end - 1, cmpl->op);
    }
}

static int ibv_put(gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   const gasnete_cmpl_t *cmpl, gex_Flags_t flags)
{
    uint32_t inl = gasnetc_ibv.peer_ceps[rank] ? gasnetc_ibv.peer_ceps[rank][0].inline_max : 0;
    int mode = nbytes <= inl ? SRC_INLINE
               : ((flags & GASNETE_FLAG_LC_NOW) && nbytes <= rma_cfg.bounce_limit) ? SRC_BOUNCE
                                                                                 : SRC_ZCOPY;
    rma_xfer(1, rank, (uint8_t *)(uintptr_t)src, (uint64_t)(uintptr_t)dest, nbytes, cmpl, mode,
             rma_cfg.put_stripe);
    return 0;
}

static int ibv_get(void *dest, gex_Rank_t rank, const void *src, size_t nbytes,
                   const gasnete_cmpl_t *cmpl, gex_Flags_t flags)
{
    (void)flags;
    rma_xfer(0, rank, (uint8_t *)dest, (uint64_t)(uintptr_t)src, nbytes, cmpl, SRC_ZCOPY,
             rma_cfg.get_stripe);
    return 0;
}

const gasnete_rma_transport_t gasnetc_ibv_rma_ops = {
    .name = "ibv",
    .put = ibv_put,
    .get = ibv_get,
    .reap = gasnetc_ibv_reap_send, /* every RMA completion is a send completion */
};

void gasnetc_ibv_rma_init(void)
{
    rma_cfg.put_stripe = (size_t)GASNETI_PARAM_SIZE(GASNET_PUT_STRIPE_SZ);
    rma_cfg.get_stripe = (size_t)GASNETI_PARAM_SIZE(GASNET_GET_STRIPE_SZ);
    rma_cfg.bounce_limit = (size_t)GASNETI_PARAM_SIZE(GASNET_NONBULKPUT_BOUNCE_LIMIT);
    rma_cfg.fenced = GASNETI_PARAM_BOOL(GASNET_USE_FENCED_PUTS);
    rma_cfg.max_msg = 0;
    for (int i = 0; i < gasnetc_ibv.nports; i++) {
        uint32_t m = gasnetc_ibv.ports[i].max_msg_sz;
        if (m && (!rma_cfg.max_msg || m < rma_cfg.max_msg)) rma_cfg.max_msg = m;
    }
    if (gasnetc_ibv.rank == 0) {
        if (rma_cfg.fenced && GASNETC_IBV_MAX_HCAS == 1)
            gasneti_warning("GASNET_USE_FENCED_PUTS=1 in a build without multi-rail support "
                            "(configure --enable-ibv-multirail): puts are fenced, which matters "
                            "only when processes of a host use different HCAs");
        if (GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
            gasneti_info("verbs RMA: %d QP(s) per peer, largest message %u bytes, "
                    "stripes put %zu / get %zu bytes (0 = largest message), inline <= %u "
                    "bytes, non-bulk bounce <= %zu bytes, fenced puts %s", gasnetc_ibv.nqps,
                    (unsigned)rma_cfg.max_msg, rma_cfg.put_stripe, rma_cfg.get_stripe,
                    gasnetc_ibv.nceps ? gasnetc_ibv.ceps[0].inline_max : 0u,
                    rma_cfg.bounce_limit, rma_cfg.fenced ? "on" : "off");
    }
}
