/* extended/ep_rma.c: RMA to non-primordial endpoints (TM-pairs naming a
 * remote endpoint index > 0).  A network peer whose created segment was
 * registered at Publish (core/ibv/mem/cseg.c) is reached by RDMA through the
 * verbs transport; a neighbour's library-allocated segment, shared at
 * Publish, and our own are copied directly.  Otherwise (client memory of
 * a neighbour, LARGE builds) the RMA is carried by AMs to the peer's
 * primordial endpoint:
 *   Put  Medium Requests of at most the Medium maximum, each copied into
 *        the target endpoint's bound segment by the handler, which replies
 *        with a Short that completes one piece;
 *   Get  Short Requests, answered by a Medium Reply with the bytes.
 * The handler checks the range against the target endpoint's bound segment
 * (a fatal line names both).  Payloads are copied at injection (GEX_EVENT_
 * NOW), so local completion is immediate.  Rationale (why not registered
 * zero-copy RDMA yet): extended/README, "Endpoints and segments".
 *
 * Long AMs addressed to a non-primordial endpoint are placed here too
 * (gasnete_ep_am_send_long): memmove when mapped, packed or RDMA over
 * verbs, Medium fragments through the PSHM queue to a neighbour's client
 * memory, then the header.
 */
#include "extended/extended_internal.h"
#include "core/gasnet_core_private.h" /* gasnetc_am_send: Long fragments */
#include "core/ibv/ibv.h"

#include <string.h>

#define H_PUT (GASNETE_HANDLER_BASE + 12)
#define H_ACK (GASNETE_HANDLER_BASE + 13)
#define H_GET (GASNETE_HANDLER_BASE + 14)
#define H_GETR (GASNETE_HANDLER_BASE + 15)
#define H_LFRAG (GASNETE_HANDLER_BASE + 16)
#define LO(x) ((gex_AM_Arg_t)(uint32_t)(uint64_t)(uintptr_t)(x))
#define HI(x) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)(x) >> 32))
#define PTR(lo, hi) ((void *)(uintptr_t)((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32))

/* Where [addr, +n) of endpoint ep_idx's bound segment is here; fatal if
 * outside it. */
static void *target(gex_Token_t t, gex_AM_Arg_t ep_idx, void *addr, size_t n)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    void *base;
    uintptr_t size;
    if (gasnete_ep_segment(gasneti_mynode, (gex_EP_Index_t)ep_idx, &base, &size) ||
        (uintptr_t)addr < (uintptr_t)base || n > size ||
        (uintptr_t)addr - (uintptr_t)base > size - n)
        gasneti_fatalerror("RMA from rank %u to endpoint %u: [%p, +%zu) is outside its bound "
                           "segment (bind a segment with gex_EP_BindSegment and publish it)",
                           (unsigned)info.gex_srcrank, (unsigned)ep_idx, addr, n);
    return addr;
}

static void put_reqh(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t ep, gex_AM_Arg_t alo,
                     gex_AM_Arg_t ahi, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    memcpy(target(t, ep, PTR(alo, ahi), n), buf, n);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    gex_AM_ReplyShort2(t, H_ACK, 0, clo, chi);
}

static void ack_reph(gex_Token_t t, gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    gasnete_ctr_add_done((gasnete_ctr_t *)PTR(clo, chi));
}

static void get_reqh(gex_Token_t t, gex_AM_Arg_t ep, gex_AM_Arg_t alo, gex_AM_Arg_t ahi,
                     gex_AM_Arg_t n, gex_AM_Arg_t dlo, gex_AM_Arg_t dhi, gex_AM_Arg_t clo,
                     gex_AM_Arg_t chi)
{
    void *src = target(t, ep, PTR(alo, ahi), (uint32_t)n);
    gex_AM_ReplyMedium4(t, H_GETR, src, (uint32_t)n, GEX_EVENT_NOW, 0, dlo, dhi, clo, chi);
}

static void getr_reph(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dlo, gex_AM_Arg_t dhi,
                      gex_AM_Arg_t clo, gex_AM_Arg_t chi)
{
    (void)t;
    memcpy(PTR(dlo, dhi), buf, n);
    gasnete_ctr_add_done((gasnete_ctr_t *)PTR(clo, chi));
}

/* 1 when jobrank is a network peer whose created segment of the target
 * endpoint covers [addr, +n) with a published rkey: RDMA it. */
static int by_rdma(gex_Rank_t jobrank, const void *addr, size_t n)
{
    uint32_t rkey;
    return !gasnetc_is_local(jobrank) && gasnetc_ibv_cseg_any &&
           gasnetc_ibv_cseg_rkey(0, jobrank, (uint64_t)(uintptr_t)addr, n, &rkey) == n;
}

static int ep_put(gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                  const gasnete_cmpl_t *c, gex_Flags_t flags)
{
    void *local = gasnete_ep_local_addr(jobrank, gasnete_rma_ep_target, dest, nbytes);
    if (local) { /* mapped here (ours, or a neighbour's shared segment) */
        memmove(local, src, nbytes);
        gasnete_cmpl_begin(c, 0);
        return 0;
    }
    if (by_rdma(jobrank, dest, nbytes))
        return gasnete_rma_net_ops()->put(jobrank, dest, src, nbytes, c, flags);
    size_t chunk = gex_AM_MaxRequestMedium(&gasneti_the_tm, jobrank, GEX_EVENT_NOW, 0, 5);
    for (size_t off = 0; off < nbytes; off += chunk) {
        size_t len = nbytes - off < chunk ? nbytes - off : chunk;
        gasnete_ctr_add_init(c->op, 1);
        gasnetc_AM_RequestMedium(&gasneti_the_tm, jobrank, H_PUT, (const char *)src + off, len,
                                 GEX_EVENT_NOW, 5, 0, (gex_AM_Arg_t)gasnete_rma_ep_target,
                                 LO((char *)dest + off), HI((char *)dest + off), LO(c->op),
                                 HI(c->op));
    }
    return 0; /* payload copied: no lc piece outstanding */
}

static int ep_get(void *dest, gex_Rank_t jobrank, const void *src, size_t nbytes,
                  const gasnete_cmpl_t *c, gex_Flags_t flags)
{
    void *local = gasnete_ep_local_addr(jobrank, gasnete_rma_ep_target, src, nbytes);
    if (local) {
        memmove(dest, local, nbytes);
        gasnete_cmpl_begin(c, 0);
        return 0;
    }
    if (by_rdma(jobrank, src, nbytes))
        return gasnete_rma_net_ops()->get(dest, jobrank, src, nbytes, c, flags);
    size_t chunk = gex_AM_MaxReplyMedium(&gasneti_the_tm, jobrank, GEX_EVENT_NOW, 0, 4);
    for (size_t off = 0; off < nbytes; off += chunk) {
        size_t len = nbytes - off < chunk ? nbytes - off : chunk;
        gasnete_ctr_add_init(c->op, 1);
        gasnetc_AM_RequestShort(&gasneti_the_tm, jobrank, H_GET, 8, 0, (gex_AM_Arg_t)gasnete_rma_ep_target,
                                LO((const char *)src + off), HI((const char *)src + off),
                                (gex_AM_Arg_t)len, LO((char *)dest + off),
                                HI((char *)dest + off), LO(c->op), HI(c->op));
    }
    return 0;
}

/* ---- Long AMs to non-primordial endpoints ------------------------------------ */

/* A piece of a Long's payload for a neighbour's unmapped segment: copied in
 * place before the Long's own header, which follows it in the same shared
 * queue (FIFO per producer; gasnetc_am_send_fifo keeps all of them out of
 * the lanes, which a small fragment or the header would otherwise take). */
static void lfrag_h(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t ep, gex_AM_Arg_t alo,
                    gex_AM_Arg_t ahi)
{
    memcpy(target(t, ep, PTR(alo, ahi), n), buf, n);
}

int gasnete_ep_am_send_long(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *src,
                            size_t nbytes, void *dest_addr, gex_Flags_t flags, const char *fn)
{
    gex_EP_Index_t idx = h->dst_ep;
    void *base;
    uintptr_t size;
    if (nbytes && (gasnete_ep_segment(dest, idx, &base, &size) ||
                   (uintptr_t)dest_addr < (uintptr_t)base || nbytes > size ||
                   (uintptr_t)dest_addr - (uintptr_t)base > size - nbytes))
        gasneti_fatalerror("%s: destination [%p, +%zu) is not inside the segment bound to "
                           "endpoint %u of rank %u (bind one with gex_EP_BindSegment and "
                           "publish it with gex_EP_PublishBoundSegment first)",
                           fn, dest_addr, nbytes, (unsigned)idx, (unsigned)dest);
    gex_Flags_t blocking = flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE;
    if (!net && dest == gasneti_mynode) { /* our own endpoint: in place, then run */
        if (nbytes) memmove(dest_addr, src, nbytes);
        return gasnetc_am_send(dest, NULL, h, NULL, 0, blocking, fn);
    }
    if (net || !gasnetc_is_local(dest)) { /* verbs: packed, or RDMA to the registered segment */
        if (!gasnetc_ibv_cseg_long_ok(dest, (uint64_t)(uintptr_t)dest_addr, nbytes))
            gasneti_fatalerror("%s: %zu bytes to endpoint %u of rank %u: its segment is not "
                               "registered (SEGMENT_LARGE build, or registration failed at "
                               "gex_EP_PublishBoundSegment), so at most "
                               "GASNET_PACKEDLONG_LIMIT bytes can travel; send smaller Longs",
                               fn, nbytes, (unsigned)idx, (unsigned)dest);
        return gasnetc_am_send(dest, net, h, src, nbytes, flags, fn);
    }
    void *local = nbytes ? gasnete_ep_local_addr(dest, idx, dest_addr, nbytes) : NULL;
    if (local) { /* a neighbour's shared (library-allocated) segment, mapped here */
        memmove(local, src, nbytes);
        return gasnetc_am_send(dest, NULL, h, NULL, 0, blocking, fn);
    }
    /* A neighbour's client memory: Medium fragments, then the header, in
     * order through its shared queue. */
    for (size_t off = 0; off < nbytes; off += GASNETC_MAX_MEDIUM) {
        size_t len = nbytes - off < GASNETC_MAX_MEDIUM ? nbytes - off : GASNETC_MAX_MEDIUM;
        gex_AM_Arg_t a[3] = {(gex_AM_Arg_t)idx, LO((char *)dest_addr + off),
                             HI((char *)dest_addr + off)};
        gasnetc_am_hdr_t f;
        gasnetc_am_fill_hdr(&f, GASNETC_AM_MEDIUM, h->is_req, H_LFRAG, len, 3, a);
        gasnetc_am_send_fifo(dest, &f, (const char *)src + off, len);
    }
    gasnetc_am_send_fifo(dest, h, NULL, 0);
    return 0;
}

static const gasnete_rma_transport_t ep_ops = {"endpoint AMs", ep_put, ep_get, NULL};

void gasnete_ep_rma_init(void)
{
    static gex_AM_Entry_t table[] = {
        {H_PUT, (gex_AM_Fn_t)put_reqh, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 5, NULL,
         "gasnete_ep_put"},
        {H_ACK, (gex_AM_Fn_t)ack_reph, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL,
         "gasnete_ep_ack"},
        {H_GET, (gex_AM_Fn_t)get_reqh, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 8, NULL,
         "gasnete_ep_get"},
        {H_GETR, (gex_AM_Fn_t)getr_reph, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 4, NULL,
         "gasnete_ep_getr"},
        {H_LFRAG, (gex_AM_Fn_t)lfrag_h, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQREP, 3, NULL,
         "gasnete_ep_long_fragment"},
    };
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
    gasnete_rma_ep_ops = &ep_ops;
}
