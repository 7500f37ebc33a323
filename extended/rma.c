/* extended/rma.c: gex_RMA_* entry points (Put/Get, Blocking/NBI/NB, Value
 * forms), argument checks and routing.
 *
 * Routing: a rank in this process's neighbourhood (gasnetc_is_local, self
 * included) is reached by memcpy through the cross-mapped segment and every
 * form completes before returning (NB returns GEX_EVENT_INVALID, an lc_opt
 * event receives GEX_EVENT_INVALID).  Any other rank goes through the
 * installed transport (gasnete_rma_set_transport); until a transport is
 * installed that is a fatal error naming the rank.
 */
#include "extended/extended_internal.h"

#include <string.h>

/* ---- the transport for non-local ranks ------------------------------------------ */

static int gasnete_noroute_put(gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                               const gasnete_cmpl_t *cmpl, gex_Flags_t flags)
{
    gasneti_fatalerror("gex_RMA_Put*: no network path to rank %u: verbs RMA is not available "
                       "(only ranks sharing memory with this process are reachable)",
                       (unsigned)jobrank);
}

static int gasnete_noroute_get(void *dest, gex_Rank_t jobrank, const void *src, size_t nbytes,
                               const gasnete_cmpl_t *cmpl, gex_Flags_t flags)
{
    gasneti_fatalerror("gex_RMA_Get*: no network path to rank %u: verbs RMA is not available "
                       "(only ranks sharing memory with this process are reachable)",
                       (unsigned)jobrank);
}

static const gasnete_rma_transport_t gasnete_noroute = {
    .name = "none",
    .put = gasnete_noroute_put,
    .get = gasnete_noroute_get,
};
static const gasnete_rma_transport_t *gasnete_rma_ops = &gasnete_noroute;

void gasnete_rma_set_transport(const gasnete_rma_transport_t *ops)
{
    gasnete_rma_ops = ops ? ops : &gasnete_noroute;
}

const gasnete_rma_transport_t *gasnete_rma_net_ops(void) { return gasnete_rma_ops; }

/* Transport to created segments (TM-pairs naming remote index > 0, and
 * every endpoint index when the primordial segment is a created one,
 * gasneti_ep0_bound): extended/ep_rma.c installs it; every such rank goes
 * through it, even a neighbour (created segments are not cross-mapped the
 * way the attached one is). */
const gasnete_rma_transport_t *gasnete_rma_ep_ops = &gasnete_noroute;
GASNETI_TLS gex_EP_Index_t gasnete_rma_ep_target;
#define GASNETE_RMA_CREATED(tm) GASNETE_UNLIKELY((tm)->pair_ep_idx | gasneti_ep0_bound)
#define GASNETE_RMA_LOCAL(tm, rank) (gasnetc_is_local(rank) && !GASNETE_RMA_CREATED(tm))
#define GASNETE_RMA_OPS(tm)                                                         \
    (GASNETE_RMA_CREATED(tm)                                                        \
         ? (gasnete_rma_ep_target = (tm)->pair_ep_idx, gasnete_rma_ep_ops)          \
         : gasnete_rma_ops)

/* ---- argument checks --------------------------------------------------------------- */

#define GASNETE_LC_NB 0  /* NB Put: NOW, DEFER or &event */
#define GASNETE_LC_NBI 1 /* NBI Put: NOW, DEFER or GROUP */

/* rank is a jobrank here (gasnete_team_rank checked and translated it).
 * Created segments are checked at the target. */
static void gasnete_check_rma(const char *fn, gex_TM_t tm, gex_Rank_t rank, const void *raddr,
                              size_t nbytes)
{
    if (GASNETE_RMA_CREATED(tm)) nbytes = 0; /* checked at the target */
    else if (GASNETE_UNLIKELY(!gasneti_attach_done))
        gasneti_fatalerror("%s called before gex_Segment_Attach (RMA needs the primordial "
                           "endpoints' segments: attached, or created, bound and published)",
                           fn);
    if (GASNETE_UNLIKELY(gasnetc_in_handler()))
        gasneti_fatalerror("%s called from an AM handler: RMA is not allowed in handler "
                           "context",
                           fn);
    if (nbytes && GASNETE_UNLIKELY(!gasnetc_in_segment(rank, raddr, nbytes))) {
        const gasneti_seginfo_t *si = &gasneti_seginfo[rank];
        gasneti_fatalerror("%s: remote range [%p, %p) (%zu bytes) is outside rank %u's segment "
                           "[%p, %p)",
                           fn, raddr, (const void *)((const char *)raddr + nbytes), nbytes,
                           (unsigned)rank, si->addr, (void *)((char *)si->addr + si->size));
    }
}

static void gasnete_check_lc(const char *fn, gex_Event_t *lc_opt, int form)
{
    if (lc_opt == GEX_EVENT_NOW || lc_opt == GEX_EVENT_DEFER) return;
    if (form == GASNETE_LC_NBI) {
        if (lc_opt == GEX_EVENT_GROUP) return;
        gasneti_fatalerror("%s: lc_opt %p is not allowed (use GEX_EVENT_NOW, GEX_EVENT_DEFER or "
                           "GEX_EVENT_GROUP)",
                           fn, (void *)lc_opt);
    }
    if (lc_opt == NULL || lc_opt == GEX_EVENT_GROUP)
        gasneti_fatalerror("%s: lc_opt %s is not allowed (use GEX_EVENT_NOW, GEX_EVENT_DEFER or "
                           "the address of a gex_Event_t)",
                           fn, lc_opt ? "GEX_EVENT_GROUP" : "NULL");
}

static void gasnete_check_val_size(const char *fn, size_t nbytes)
{
    if (GASNETE_UNLIKELY(nbytes == 0 || nbytes > sizeof(gex_RMA_Value_t)))
        gasneti_fatalerror("%s: nbytes=%zu is out of range (1..%zu)", fn, nbytes,
                           sizeof(gex_RMA_Value_t));
}

/* The local address of [addr, addr+nbytes) in local rank's segment. */
static inline void *gasnete_xlate(const char *fn, gex_Rank_t rank, const void *addr,
                                  size_t nbytes)
{
    void *p = gasnetc_local_addr(rank, addr, nbytes);
    if (GASNETE_UNLIKELY(p == NULL && nbytes))
        gasneti_fatalerror("%s: remote range [%p, +%zu) is outside rank %u's segment", fn, addr,
                           nbytes, (unsigned)rank);
    return p;
}

static inline void gasnete_copy(void *dst, const void *src, size_t nbytes)
{
    if (dst != src) memcpy(dst, src, nbytes);
}

/* Full polls in a wait: one in GASNETE_WAIT_FULL_EVERY iterations when the
 * transport can reap its completions alone (README "Waiting for RMA"). */
#define GASNETE_WAIT_FULL_EVERY 8U

/* Waits until the counter completes (blocking forms, lc NOW).  The counter
 * advances on the transport's completions, so between full polls (which run
 * handlers and yield when idle) the loop only reaps them: the caller returns
 * right after the completion instead of after a whole poll. */
static void gasnete_wait_ctr(const gasnete_rma_transport_t *ops, const gasnete_ctr_t *c)
{
    int (*reap)(void) = ops->reap;
    unsigned spins = 0;
    while (!gasnete_ctr_complete(c)) {
        if (reap && (++spins % GASNETE_WAIT_FULL_EVERY) != 0) {
            reap();
            continue;
        }
        gasnetc_poll();
        gasneti_pollwait_hint();
    }
}
#define GASNETE_WAIT_CTR(tm, c) gasnete_wait_ctr(GASNETE_RMA_WAIT_OPS(tm), (c))
#define GASNETE_RMA_WAIT_OPS(tm) (GASNETE_RMA_CREATED(tm) ? gasnete_rma_ep_ops : gasnete_rma_ops)

/* ---- Put --------------------------------------------------------------------------- */

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                        size_t nbytes, gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_PutBlocking", tm, rank);
    if (GASNETE_CHECKS) gasnete_check_rma("gex_RMA_PutBlocking", tm, rank, dest, nbytes);
    if (GASNETE_UNLIKELY(nbytes == 0)) return 0;
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_copy(gasnete_xlate("gex_RMA_PutBlocking", rank, dest, nbytes), src, nbytes);
        return 0;
    }
    gasnete_ctr_t ctr = {0, 0};
    gasnete_cmpl_t c = {&ctr, NULL};
    int rc = GASNETE_RMA_OPS(tm)->put(rank, dest, src, nbytes, &c, flags);
    if (rc) return rc;
    GASNETE_WAIT_CTR(tm, &ctr);
    return 0;
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_PutNBI", tm, rank);
    if (GASNETE_CHECKS) {
        gasnete_check_rma("gex_RMA_PutNBI", tm, rank, dest, nbytes);
        gasnete_check_lc("gex_RMA_PutNBI", lc_opt, GASNETE_LC_NBI);
    }
    if (GASNETE_UNLIKELY(nbytes == 0)) return 0;
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_copy(gasnete_xlate("gex_RMA_PutNBI", rank, dest, nbytes), src, nbytes);
        return 0;
    }
    gasnete_iop_t *iop = gasnete_current_iop(gasnete_mythread());
    gasnete_ctr_t lc_now = {0, 0};
    gasnete_cmpl_t c = {&iop->put, NULL};
    if (lc_opt == GEX_EVENT_NOW)
        c.lc = &lc_now;
    else if (lc_opt == GEX_EVENT_GROUP)
        c.lc = &iop->lc;
    if (lc_opt == GEX_EVENT_NOW) flags |= GASNETE_FLAG_LC_NOW;
    int rc = GASNETE_RMA_OPS(tm)->put(rank, dest, src, nbytes, &c, flags);
    if (rc) return rc;
    if (lc_opt == GEX_EVENT_NOW) GASNETE_WAIT_CTR(tm, &lc_now);
    return 0;
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_PutNB", tm, rank);
    if (GASNETE_CHECKS) {
        gasnete_check_rma("gex_RMA_PutNB", tm, rank, dest, nbytes);
        gasnete_check_lc("gex_RMA_PutNB", lc_opt, GASNETE_LC_NB);
    }
    int lc_event = (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER);
    if (GASNETE_LIKELY(nbytes == 0 || GASNETE_RMA_LOCAL(tm, rank))) {
        if (nbytes) gasnete_copy(gasnete_xlate("gex_RMA_PutNB", rank, dest, nbytes), src, nbytes);
        if (lc_event) *lc_opt = GEX_EVENT_INVALID;
        return GEX_EVENT_INVALID;
    }
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    gasnete_cmpl_t c = {&op->op, (lc_opt == GEX_EVENT_DEFER) ? NULL : &op->lc};
    if (lc_opt == GEX_EVENT_NOW) flags |= GASNETE_FLAG_LC_NOW;
    int rc = GASNETE_RMA_OPS(tm)->put(rank, dest, src, nbytes, &c, flags);
    if (rc) {
        gasnete_op_free(op);
        return GEX_EVENT_NO_OP;
    }
    if (lc_opt == GEX_EVENT_NOW) GASNETE_WAIT_CTR(tm, &op->lc);
    if (gasnete_op_complete(op)) {
        gasnete_op_free(op);
        if (lc_event) *lc_opt = GEX_EVENT_INVALID;
        return GEX_EVENT_INVALID;
    }
    if (lc_event) *lc_opt = gasnete_op_enable_lc(op);
    return &op->ev;
}

/* ---- Get --------------------------------------------------------------------------- */

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_GetBlocking", tm, rank);
    if (GASNETE_CHECKS) gasnete_check_rma("gex_RMA_GetBlocking", tm, rank, src, nbytes);
    if (GASNETE_UNLIKELY(nbytes == 0)) return 0;
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_copy(dest, gasnete_xlate("gex_RMA_GetBlocking", rank, src, nbytes), nbytes);
        return 0;
    }
    gasnete_ctr_t ctr = {0, 0};
    gasnete_cmpl_t c = {&ctr, NULL};
    int rc = GASNETE_RMA_OPS(tm)->get(dest, rank, src, nbytes, &c, flags);
    if (rc) return rc;
    GASNETE_WAIT_CTR(tm, &ctr);
    return 0;
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_GetNBI", tm, rank);
    if (GASNETE_CHECKS) gasnete_check_rma("gex_RMA_GetNBI", tm, rank, src, nbytes);
    if (GASNETE_UNLIKELY(nbytes == 0)) return 0;
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_copy(dest, gasnete_xlate("gex_RMA_GetNBI", rank, src, nbytes), nbytes);
        return 0;
    }
    gasnete_iop_t *iop = gasnete_current_iop(gasnete_mythread());
    gasnete_cmpl_t c = {&iop->get, NULL};
    return GASNETE_RMA_OPS(tm)->get(dest, rank, src, nbytes, &c, flags);
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_GetNB", tm, rank);
    if (GASNETE_CHECKS) gasnete_check_rma("gex_RMA_GetNB", tm, rank, src, nbytes);
    if (GASNETE_LIKELY(nbytes == 0 || GASNETE_RMA_LOCAL(tm, rank))) {
        if (nbytes) gasnete_copy(dest, gasnete_xlate("gex_RMA_GetNB", rank, src, nbytes), nbytes);
        return GEX_EVENT_INVALID;
    }
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    gasnete_cmpl_t c = {&op->op, NULL};
    if (GASNETE_RMA_OPS(tm)->get(dest, rank, src, nbytes, &c, flags)) {
        gasnete_op_free(op);
        return GEX_EVENT_NO_OP;
    }
    if (gasnete_op_complete(op)) {
        gasnete_op_free(op);
        return GEX_EVENT_INVALID;
    }
    return &op->ev;
}

/* ---- Value forms ------------------------------------------------------------------- */

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                                       gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_GetBlockingVal", tm, rank);
    if (GASNETE_CHECKS) {
        gasnete_check_rma("gex_RMA_GetBlockingVal", tm, rank, src, nbytes);
        gasnete_check_val_size("gex_RMA_GetBlockingVal", nbytes);
    }
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank)))
        return gasnete_value_load(gasnete_xlate("gex_RMA_GetBlockingVal", rank, src, nbytes),
                                  nbytes);
    unsigned char buf[sizeof(gex_RMA_Value_t)];
    gasnete_ctr_t ctr = {0, 0};
    gasnete_cmpl_t c = {&ctr, NULL};
    (void)GASNETE_RMA_OPS(tm)->get(buf, rank, src, nbytes, &c, flags & ~GEX_FLAG_IMMEDIATE);
    GASNETE_WAIT_CTR(tm, &ctr);
    return gasnete_value_load(buf, nbytes);
}

/* Shared by the three Put value forms (arguments already checked): the
 * value lives on this stack frame, so the transport's local completion is
 * always awaited here.  op_ctr receives the operation completion. */
static int gasnete_put_val(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value, size_t nbytes,
                           gex_Flags_t flags, gasnete_ctr_t *op_ctr)
{
    unsigned char buf[sizeof(gex_RMA_Value_t)];
    gasnete_value_store(buf, value, nbytes);
    gasnete_ctr_t lc = {0, 0};
    gasnete_cmpl_t c = {op_ctr, &lc};
    int rc = GASNETE_RMA_OPS(tm)->put(rank, dest, buf, nbytes, &c, flags | GASNETE_FLAG_LC_NOW);
    if (rc) return rc;
    GASNETE_WAIT_CTR(tm, &lc);
    return 0;
}

static inline void gasnete_check_put_val(const char *fn, gex_TM_t tm, gex_Rank_t rank,
                                         void *dest, size_t nbytes)
{
    if (GASNETE_CHECKS) {
        gasnete_check_rma(fn, tm, rank, dest, nbytes);
        gasnete_check_val_size(fn, nbytes);
    }
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_PutBlockingVal", tm, rank);
    static const char fn[] = "gex_RMA_PutBlockingVal";
    gasnete_check_put_val(fn, tm, rank, dest, nbytes);
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_value_store(gasnete_xlate(fn, rank, dest, nbytes), value, nbytes);
        return 0;
    }
    gasnete_ctr_t ctr = {0, 0};
    int rc = gasnete_put_val(tm, rank, dest, value, nbytes, flags, &ctr);
    if (rc) return rc;
    GASNETE_WAIT_CTR(tm, &ctr);
    return 0;
}

int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_PutNBIVal", tm, rank);
    static const char fn[] = "gex_RMA_PutNBIVal";
    gasnete_check_put_val(fn, tm, rank, dest, nbytes);
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_value_store(gasnete_xlate(fn, rank, dest, nbytes), value, nbytes);
        return 0;
    }
    gasnete_iop_t *iop = gasnete_current_iop(gasnete_mythread());
    return gasnete_put_val(tm, rank, dest, value, nbytes, flags, &iop->put);
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags)
{
    rank = gasnete_team_rank("gex_RMA_PutNBVal", tm, rank);
    static const char fn[] = "gex_RMA_PutNBVal";
    gasnete_check_put_val(fn, tm, rank, dest, nbytes);
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        gasnete_value_store(gasnete_xlate(fn, rank, dest, nbytes), value, nbytes);
        return GEX_EVENT_INVALID;
    }
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    if (gasnete_put_val(tm, rank, dest, value, nbytes, flags, &op->op)) {
        gasnete_op_free(op);
        return GEX_EVENT_NO_OP;
    }
    if (gasnete_op_complete(op)) {
        gasnete_op_free(op);
        return GEX_EVENT_INVALID;
    }
    return &op->ev;
}

/* ---- memset (legacy layer) ----------------------------------------------------------- */

void gasnete_memset_blocking(gex_TM_t tm, gex_Rank_t rank, void *dest, int val, size_t nbytes)
{
    rank = gasnete_team_rank("gasnet_memset", tm, rank);
    if (GASNETE_CHECKS) gasnete_check_rma("gasnet_memset", tm, rank, dest, nbytes);
    if (nbytes == 0) return;
    if (GASNETE_LIKELY(GASNETE_RMA_LOCAL(tm, rank))) {
        memset(gasnete_xlate("gasnet_memset", rank, dest, nbytes), val, nbytes);
        return;
    }
    /* Remote: Puts from a filled block; each chunk completes before the next. */
    unsigned char block[4096];
    memset(block, val, sizeof(block));
    gasnete_ctr_t ctr = {0, 0};
    gasnete_cmpl_t c = {&ctr, NULL};
    for (size_t off = 0; off < nbytes; off += sizeof(block)) {
        size_t len = nbytes - off < sizeof(block) ? nbytes - off : sizeof(block);
        (void)GASNETE_RMA_OPS(tm)->put(rank, (char *)dest + off, block, len, &c, 0);
    }
    GASNETE_WAIT_CTR(tm, &ctr);
}
