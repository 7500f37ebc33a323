/* extended/vis.c: Vector / Indexed / Strided Put and Get (gasnet_vis.h).
 *
 * Each operation is decomposed into contiguous chunks issued as NBI RMA:
 * - NBI forms join the caller's current NBI set;
 * - NB forms open an access region around the chunks and return its event
 *   (regions nest, so a caller already inside a region is unaffected);
 * - Blocking forms do the NB form and wait.
 * Puts use GEX_EVENT_DEFER for the payload, or GEX_EVENT_GROUP (NBI) /
 * GEX_EVENT_NOW (NB) with GEX_FLAG_ENABLE_LEAF_LC, so an NB leaf query on
 * the region returns GEX_EVENT_INVALID ("already happened").  The strided
 * metadata arrays are consumed before returning, as the spec requires.
 * IMMEDIATE is ignored: a VIS call is never a no-op.
 * Peer completion: an armed Put completes before returning, then the
 * notification goes out (vis_pc.c; extended/README, "VIS").
 */
#include "extended/extended_internal.h"

#include <gasnet_vis.h>

#define GASNETE_VIS_NBI 0
#define GASNETE_VIS_NB 1

typedef struct {
    const char *fn;
    gex_TM_t tm;
    gex_Rank_t rank;
    int is_put;
    gex_Event_t *lc; /* puts: lc_opt for each chunk */
} gasnete_vis_ctx_t;

static void gasnete_vis_chunk(const gasnete_vis_ctx_t *c, void *dst, void *src, size_t len)
{
    if (c->is_put)
        (void)gex_RMA_PutNBI(c->tm, c->rank, dst, src, len, c->lc, 0);
    else
        (void)gex_RMA_GetNBI(c->tm, dst, c->rank, src, len, 0);
}

/* A list of (addr, len) pieces: a memvec list or an indexed list. */
typedef struct {
    size_t count;
    const gex_Memvec_t *vec; /* vector form, or NULL */
    void *const *idx;        /* indexed form */
    size_t idxlen;
} gasnete_vis_list_t;

static inline void *gasnete_vis_addr(const gasnete_vis_list_t *l, size_t i)
{
    return l->vec ? l->vec[i].gex_addr : l->idx[i];
}
static inline size_t gasnete_vis_len(const gasnete_vis_list_t *l, size_t i)
{
    return l->vec ? l->vec[i].gex_len : l->idxlen;
}

/* Walks two lists that describe the same byte stream, issuing one chunk per
 * overlap of a destination piece with a source piece. */
static void gasnete_vis_walk(const gasnete_vis_ctx_t *c, const gasnete_vis_list_t *d,
                             const gasnete_vis_list_t *s)
{
    size_t i = 0, j = 0, doff = 0, soff = 0, dtotal = 0, stotal = 0;
    for (size_t k = 0; k < d->count; k++) dtotal += gasnete_vis_len(d, k);
    for (size_t k = 0; k < s->count; k++) stotal += gasnete_vis_len(s, k);
    if (dtotal != stotal)
        gasneti_fatalerror("%s: destination list holds %zu bytes but source list holds %zu "
                           "(they must describe the same number of bytes)",
                           c->fn, dtotal, stotal);
    for (;;) {
        while (i < d->count && doff == gasnete_vis_len(d, i)) i++, doff = 0;
        while (j < s->count && soff == gasnete_vis_len(s, j)) j++, soff = 0;
        if (i == d->count || j == s->count) break;
        size_t dl = gasnete_vis_len(d, i) - doff, sl = gasnete_vis_len(s, j) - soff;
        size_t len = dl < sl ? dl : sl;
        gasnete_vis_chunk(c, (char *)gasnete_vis_addr(d, i) + doff,
                          (char *)gasnete_vis_addr(s, j) + soff, len);
        doff += len;
        soff += len;
    }
}

static void gasnete_vis_strided(const gasnete_vis_ctx_t *c, void *dstaddr,
                                const ptrdiff_t dststrides[], void *srcaddr,
                                const ptrdiff_t srcstrides[], size_t elemsz,
                                const size_t count[], size_t stridelevels)
{
    if (elemsz == 0) return;
    if (stridelevels == 0) {
        gasnete_vis_chunk(c, dstaddr, srcaddr, elemsz);
        return;
    }
    for (size_t l = 0; l < stridelevels; l++)
        if (count[l] == 0) return;
    size_t idx[64];
    if (stridelevels > 64)
        gasneti_fatalerror("%s: stridelevels=%zu is too large (at most 64)", c->fn, stridelevels);
    for (size_t l = 0; l < stridelevels; l++) idx[l] = 0;
    for (;;) {
        ptrdiff_t doff = 0, soff = 0;
        for (size_t l = 0; l < stridelevels; l++) {
            doff += (ptrdiff_t)idx[l] * dststrides[l];
            soff += (ptrdiff_t)idx[l] * srcstrides[l];
        }
        gasnete_vis_chunk(c, (char *)dstaddr + doff, (char *)srcaddr + soff, elemsz);
        size_t l = 0; /* odometer increment, level 0 fastest */
        while (l < stridelevels && ++idx[l] == count[l]) idx[l++] = 0;
        if (l == stridelevels) break;
    }
}

/* ---- the three completion forms around a decomposition -------------------------- */

typedef struct {
    int kind; /* 0 vector/indexed, 1 strided */
    const gasnete_vis_list_t *d, *s;
    void *dstaddr, *srcaddr;
    const ptrdiff_t *dststrides, *srcstrides;
    size_t elemsz, stridelevels;
    const size_t *count;
} gasnete_vis_op_t;

static void gasnete_vis_issue(gasnete_vis_ctx_t *c, const gasnete_vis_op_t *op)
{
    if (op->kind == 0)
        gasnete_vis_walk(c, op->d, op->s);
    else
        gasnete_vis_strided(c, op->dstaddr, op->dststrides, op->srcaddr, op->srcstrides,
                            op->elemsz, op->count, op->stridelevels);
}

/* ---- peer completion (gex_VIS_SetPeerCompletionHandler) ------------------------- */
/* Armed per thread; the next VIS Put consumes it: the Put runs to completion
 * before its call returns, then gasnete_vis_pc_send (vis_pc.c, which sends
 * the notification AM) runs.  NULL until vis_pc.c initializes. */
void (*gasnete_vis_pc_send)(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                            const void *src, size_t nbytes);
static GASNETI_TLS struct {
    gex_AM_Index_t handler; /* 0: disarmed */
    const void *src;
    size_t nbytes;
} gasnete_vis_pc;

void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags)
{
    (void)flags;
    if (handler && nbytes > GEX_VIS_MAX_PEERCOMPLETION)
        gasneti_fatalerror("gex_VIS_SetPeerCompletionHandler: nbytes %zu is larger than "
                           "GEX_VIS_MAX_PEERCOMPLETION (%zu)",
                           nbytes, (size_t)GEX_VIS_MAX_PEERCOMPLETION);
    if (handler && nbytes && !source_addr)
        gasneti_fatalerror("gex_VIS_SetPeerCompletionHandler: source_addr is NULL with nbytes "
                           "%zu",
                           nbytes);
    gasnete_vis_pc.handler = handler;
    gasnete_vis_pc.src = source_addr;
    gasnete_vis_pc.nbytes = nbytes;
}

static int gasnete_vis_blocking(gasnete_vis_ctx_t *c, const gasnete_vis_op_t *op);

/* A Put with peer completion armed: complete it, then notify the peer. */
static void gasnete_vis_put_pc(gasnete_vis_ctx_t *c, const gasnete_vis_op_t *op)
{
    gex_AM_Index_t h = gasnete_vis_pc.handler;
    gasnete_vis_pc.handler = 0; /* disarmed before the Put runs */
    if (!gasnete_vis_pc_send)
        gasneti_fatalerror("%s: peer completion armed before gex_Client_Init", c->fn);
    (void)gasnete_vis_blocking(c, op);
    gasnete_vis_pc_send(c->tm, c->rank, h, gasnete_vis_pc.src, gasnete_vis_pc.nbytes);
}
#define GASNETE_VIS_PC_ARMED(c) (GASNETE_UNLIKELY(gasnete_vis_pc.handler != 0) && (c)->is_put)

static gex_Event_t gasnete_vis_nb(gasnete_vis_ctx_t *c, const gasnete_vis_op_t *op,
                                  gex_Flags_t flags)
{
    if (GASNETE_VIS_PC_ARMED(c)) {
        gasnete_vis_put_pc(c, op);
        return GEX_EVENT_INVALID;
    }
    c->lc = (flags & GEX_FLAG_ENABLE_LEAF_LC) ? GEX_EVENT_NOW : GEX_EVENT_DEFER;
    gex_NBI_BeginAccessRegion(0);
    gasnete_vis_issue(c, op);
    return gex_NBI_EndAccessRegion(0);
}

static int gasnete_vis_nbi(gasnete_vis_ctx_t *c, const gasnete_vis_op_t *op, gex_Flags_t flags)
{
    if (GASNETE_VIS_PC_ARMED(c)) {
        gasnete_vis_put_pc(c, op);
        return 0;
    }
    c->lc = (flags & GEX_FLAG_ENABLE_LEAF_LC) ? GEX_EVENT_GROUP : GEX_EVENT_DEFER;
    gasnete_vis_issue(c, op);
    return 0;
}

static int gasnete_vis_blocking(gasnete_vis_ctx_t *c, const gasnete_vis_op_t *op)
{
    if (GASNETE_VIS_PC_ARMED(c)) {
        gasnete_vis_put_pc(c, op);
        return 0;
    }
    gex_Event_Wait(gasnete_vis_nb(c, op, 0));
    return 0;
}

/* ---- public entry points ----------------------------------------------------------- */

#define GASNETE_VIS_VEC(dl, dc, sl, sc)                            \
    gasnete_vis_list_t d_ = {.count = (dc), .vec = (dl)};         \
    gasnete_vis_list_t s_ = {.count = (sc), .vec = (sl)};         \
    gasnete_vis_op_t op_ = {.kind = 0, .d = &d_, .s = &s_}
#define GASNETE_VIS_IDX(dl, dc, dlen, sl, sc, slen)                        \
    gasnete_vis_list_t d_ = {.count = (dc), .idx = (dl), .idxlen = (dlen)}; \
    gasnete_vis_list_t s_ = {.count = (sc), .idx = (sl), .idxlen = (slen)}; \
    gasnete_vis_op_t op_ = {.kind = 0, .d = &d_, .s = &s_}
#define GASNETE_VIS_STR()                                                          \
    gasnete_vis_op_t op_ = {.kind = 1, .dstaddr = dstaddr, .srcaddr = srcaddr,    \
                            .dststrides = dststrides, .srcstrides = srcstrides,   \
                            .elemsz = elemsz, .stridelevels = stridelevels, .count = count}
#define GASNETE_VIS_PUT(name) gasnete_vis_ctx_t c_ = {name, tm, dstrank, 1, GEX_EVENT_DEFER}
#define GASNETE_VIS_GET(name) gasnete_vis_ctx_t c_ = {name, tm, srcrank, 0, GEX_EVENT_DEFER}

/* Vector */
gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_VectorPutNB");
    GASNETE_VIS_VEC(dstlist, dstcount, srclist, srccount);
    return gasnete_vis_nb(&c_, &op_, flags);
}
int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                         gex_Memvec_t const dstlist[], size_t srccount,
                         gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_VectorPutNBI");
    GASNETE_VIS_VEC(dstlist, dstcount, srclist, srccount);
    return gasnete_vis_nbi(&c_, &op_, flags);
}
int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                              gex_Memvec_t const dstlist[], size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_VectorPutBlocking");
    GASNETE_VIS_VEC(dstlist, dstcount, srclist, srccount);
    return gasnete_vis_blocking(&c_, &op_);
}
gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_VectorGetNB");
    GASNETE_VIS_VEC(dstlist, dstcount, srclist, srccount);
    return gasnete_vis_nb(&c_, &op_, flags);
}
int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                         gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                         gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_VectorGetNBI");
    GASNETE_VIS_VEC(dstlist, dstcount, srclist, srccount);
    return gasnete_vis_nbi(&c_, &op_, flags);
}
int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                              gex_Rank_t srcrank, size_t srccount,
                              gex_Memvec_t const srclist[], gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_VectorGetBlocking");
    GASNETE_VIS_VEC(dstlist, dstcount, srclist, srccount);
    return gasnete_vis_blocking(&c_, &op_);
}

/* Indexed */
gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_IndexedPutNB");
    GASNETE_VIS_IDX(dstlist, dstcount, dstlen, srclist, srccount, srclen);
    return gasnete_vis_nb(&c_, &op_, flags);
}
int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                          void *const dstlist[], size_t dstlen, size_t srccount,
                          void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_IndexedPutNBI");
    GASNETE_VIS_IDX(dstlist, dstcount, dstlen, srclist, srccount, srclen);
    return gasnete_vis_nbi(&c_, &op_, flags);
}
int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_IndexedPutBlocking");
    GASNETE_VIS_IDX(dstlist, dstcount, dstlen, srclist, srccount, srclen);
    return gasnete_vis_blocking(&c_, &op_);
}
gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_IndexedGetNB");
    GASNETE_VIS_IDX(dstlist, dstcount, dstlen, srclist, srccount, srclen);
    return gasnete_vis_nb(&c_, &op_, flags);
}
int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[], size_t dstlen,
                          gex_Rank_t srcrank, size_t srccount, void *const srclist[],
                          size_t srclen, gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_IndexedGetNBI");
    GASNETE_VIS_IDX(dstlist, dstcount, dstlen, srclist, srccount, srclen);
    return gasnete_vis_nbi(&c_, &op_, flags);
}
int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                               size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                               void *const srclist[], size_t srclen, gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_IndexedGetBlocking");
    GASNETE_VIS_IDX(dstlist, dstcount, dstlen, srclist, srccount, srclen);
    return gasnete_vis_blocking(&c_, &op_);
}

/* Strided */
gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_StridedPutNB");
    GASNETE_VIS_STR();
    return gasnete_vis_nb(&c_, &op_, flags);
}
int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                          const ptrdiff_t dststrides[], void *srcaddr,
                          const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                          size_t stridelevels, gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_StridedPutNBI");
    GASNETE_VIS_STR();
    return gasnete_vis_nbi(&c_, &op_, flags);
}
int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                               const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz,
                               const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GASNETE_VIS_PUT("gex_VIS_StridedPutBlocking");
    GASNETE_VIS_STR();
    return gasnete_vis_blocking(&c_, &op_);
}
gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_StridedGetNB");
    GASNETE_VIS_STR();
    return gasnete_vis_nb(&c_, &op_, flags);
}
int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                          gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                          size_t elemsz, const size_t count[], size_t stridelevels,
                          gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_StridedGetNBI");
    GASNETE_VIS_STR();
    return gasnete_vis_nbi(&c_, &op_, flags);
}
int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                               gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                               size_t elemsz, const size_t count[], size_t stridelevels,
                               gex_Flags_t flags)
{
    GASNETE_VIS_GET("gex_VIS_StridedGetBlocking");
    GASNETE_VIS_STR();
    return gasnete_vis_blocking(&c_, &op_);
}
