/* extended/event.c: event objects, their pools, per-thread NBI sets and
 * access regions, and the non-polling event test.
 *
 * Everything here is lock-free: pools and NBI sets belong to one thread;
 * only the `done` counters are written by other threads (atomically).
 * No function here polls the network, so this file does not depend on the
 * core's progress engine (it is unit-tested without a job).
 */
#include "extended/extended_internal.h"

#include <stdlib.h>

GASNETI_TLS gasnete_threaddata_t *gasnete_threaddata_tls = NULL;

size_t gasneti_events_live; /* GASNETE_EVENTS_LIVE_ADD (extended_internal.h) */

#define GASNETE_OP_CHUNK 64 /* ops allocated at a time when a pool runs dry */

static void gasnete_iop_reset(gasnete_iop_t *iop, uint32_t kind)
{
    iop->ev.magic = GASNETE_EV_MAGIC;
    iop->ev.kind = kind;
    iop->get.init = iop->get.done = 0;
    iop->put.init = iop->put.done = 0;
    iop->lc.init = iop->lc.done = 0;
    iop->rmw.init = iop->rmw.done = 0;
    iop->am_lc.init = iop->am_lc.done = 0;
    iop->next = NULL;
}

/* Every thread's state stays listed after the thread ends (as GASNet keeps
 * its thread table): its pools may hold events other threads still wait
 * on, and the memory stays reachable, so leak checks at gasnet_exit see no
 * leak in it. */
static gasnete_threaddata_t *gasnete_threads;

gasnete_threaddata_t *gasnete_threaddata_new(void)
{
    gasnete_threaddata_t *td = calloc(1, sizeof(*td));
    if (!td)
        gasneti_fatalerror("out of memory allocating %zu bytes of per-thread state for the "
                           "Extended API",
                           sizeof(*td));
    gasnete_iop_reset(&td->default_iop, GASNETE_EV_IOP);
    td->all_next = __atomic_load_n(&gasnete_threads, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&gasnete_threads, &td->all_next, td, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
    }
    gasnete_threaddata_tls = td;
    return td;
}

void gasnete_op_pool_refill(gasnete_threaddata_t *td)
{
    gasnete_op_t *chunk = calloc(GASNETE_OP_CHUNK, sizeof(*chunk));
    if (!chunk)
        gasneti_fatalerror("out of memory allocating %d event objects (%zu bytes); too many "
                           "outstanding non-blocking operations?",
                           GASNETE_OP_CHUNK, GASNETE_OP_CHUNK * sizeof(*chunk));
    for (int i = 0; i < GASNETE_OP_CHUNK; i++) {
        chunk[i].ev.magic = GASNETE_EV_MAGIC;
        chunk[i].lc_ev.magic = GASNETE_EV_MAGIC;
        chunk[i].ev.kind = GASNETE_EV_FREE;
        chunk[i].lc_ev.kind = GASNETE_EV_FREE;
        chunk[i].next = (i + 1 < GASNETE_OP_CHUNK) ? &chunk[i + 1] : td->op_free;
    }
    td->op_free = chunk;
}

static gasnete_iop_t *gasnete_iop_alloc(gasnete_threaddata_t *td)
{
    gasnete_iop_t *iop = td->iop_free;
    if (iop) {
        td->iop_free = iop->next;
    } else {
        iop = malloc(sizeof(*iop));
        if (!iop)
            gasneti_fatalerror("out of memory allocating an NBI access region (%zu bytes)",
                               sizeof(*iop));
    }
    gasnete_iop_reset(iop, GASNETE_EV_IOP);
    GASNETE_EVENTS_LIVE_ADD(1);
    return iop;
}

static void gasnete_iop_free(gasnete_iop_t *iop)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    GASNETE_EVENTS_LIVE_ADD(-1);
    iop->ev.kind = GASNETE_EV_FREE;
    iop->next = td->iop_free;
    td->iop_free = iop;
}

int gasnete_iop_complete(const gasnete_iop_t *iop)
{
    return gasnete_ctr_complete(&iop->get) && gasnete_ctr_complete(&iop->put) &&
           gasnete_ctr_complete(&iop->lc) && gasnete_ctr_complete(&iop->rmw) &&
           gasnete_ctr_complete(&iop->am_lc);
}

/* ---- the non-polling test ------------------------------------------------------ */

int gasnete_event_test(gex_Event_t ev, const char *caller)
{
    if (GASNETE_CHECKS) {
        if (ev == GEX_EVENT_NO_OP)
            gasneti_fatalerror("%s: GEX_EVENT_NO_OP passed as an event (it only reports that an "
                               "IMMEDIATE call did nothing; do not test or wait on it)",
                               caller);
        if (ev->magic != GASNETE_EV_MAGIC)
            gasneti_fatalerror("%s: %p is not an event (corrupted or uninitialized "
                               "gex_Event_t)",
                               caller, (void *)ev);
    }
    switch (ev->kind) {
    case GASNETE_EV_OP: {
        gasnete_op_t *op = gasnete_op_of_root(ev);
        if (!gasnete_op_complete(op)) return GASNET_ERR_NOT_READY;
        gasnete_op_free(op);
        return GASNET_OK;
    }
    case GASNETE_EV_LC: {
        gasnete_op_t *op = gasnete_op_of_leaf(ev);
        return gasnete_ctr_complete(&op->lc) ? GASNET_OK : GASNET_ERR_NOT_READY;
    }
    case GASNETE_EV_REGION: {
        gasnete_iop_t *iop = (gasnete_iop_t *)(void *)ev; /* ev is the first member */
        if (!gasnete_iop_complete(iop)) return GASNET_ERR_NOT_READY;
        gasnete_iop_free(iop);
        return GASNET_OK;
    }
    case GASNETE_EV_COLL: {
        gasnete_op_t *op = gasnete_op_of_root(ev);
        if (!op->coll_test(op)) return GASNET_ERR_NOT_READY;
        gasnete_op_free(op);
        return GASNET_OK;
    }
    case GASNETE_EV_FREE:
        gasneti_fatalerror("%s: event %p was already synchronized (an event may be completed "
                           "by a Wait or successful Test only once)",
                           caller, (void *)ev);
    default:
        gasneti_fatalerror("%s: %p is not a root or leaf event (kind %u)", caller, (void *)ev,
                           (unsigned)ev->kind);
    }
}

/* ---- arrays: roots and their leaves mixed, in any order ---------------------------- */

/* The spec lets a root event and its leaves share one array of the
 * gex_Event_{Test,Wait}{Some,All} calls, in any order.  A root that
 * completes recycles its op, leaf included, so leaves are tested first, and
 * a root that completes takes the entries of its own leaf with it (they are
 * complete too).  Without a leaf in the array this is one pass. */
static int gasnete_is_leaf(gex_Event_t ev)
{
    return ev != GEX_EVENT_NO_OP && ev->magic == GASNETE_EV_MAGIC && ev->kind == GASNETE_EV_LC;
}

size_t gasnete_event_test_array(gex_Event_t *pevent, size_t numevents, size_t *nvalid,
                                const char *caller)
{
    size_t valid = 0, done = 0, leaves_pending = 0;
    if (GASNETE_CHECKS && numevents && !pevent)
        gasneti_fatalerror("%s: pevent is NULL with numevents=%zu", caller, numevents);
    for (size_t i = 0; i < numevents; i++) {
        if (pevent[i] == GEX_EVENT_INVALID) continue;
        valid++;
        if (!gasnete_is_leaf(pevent[i])) continue;
        if (gasnete_event_test(pevent[i], caller) == GASNET_OK) {
            pevent[i] = GEX_EVENT_INVALID;
            done++;
        } else {
            leaves_pending++;
        }
    }
    for (size_t i = 0; i < numevents; i++) {
        gex_Event_t ev = pevent[i];
        if (ev == GEX_EVENT_INVALID || gasnete_is_leaf(ev)) continue;
        gex_Event_t leaf = NULL;
        if (leaves_pending && ev != GEX_EVENT_NO_OP && ev->magic == GASNETE_EV_MAGIC &&
            ev->kind == GASNETE_EV_OP && gasnete_op_of_root(ev)->lc_ev.kind == GASNETE_EV_LC)
            leaf = &gasnete_op_of_root(ev)->lc_ev;
        if (gasnete_event_test(ev, caller) != GASNET_OK) continue;
        pevent[i] = GEX_EVENT_INVALID;
        done++;
        for (size_t j = 0; leaf && leaves_pending && j < numevents; j++) {
            if (pevent[j] != leaf) continue;
            pevent[j] = GEX_EVENT_INVALID; /* completed with its root (a race with pass 1) */
            done++;
            leaves_pending--;
        }
    }
    *nvalid = valid;
    return done;
}

/* ---- leaves ------------------------------------------------------------------------ */

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category)
{
    if (root == GEX_EVENT_INVALID) return GEX_EVENT_INVALID;
    if (GASNETE_CHECKS) {
        if (root == GEX_EVENT_NO_OP || root->magic != GASNETE_EV_MAGIC)
            gasneti_fatalerror("gex_Event_QueryLeaf: root %p is not a valid event", (void *)root);
        if (root->kind != GASNETE_EV_OP && root->kind != GASNETE_EV_REGION &&
            root->kind != GASNETE_EV_COLL)
            gasneti_fatalerror("gex_Event_QueryLeaf: %p is not a root event (already "
                               "synchronized, or a leaf)",
                               (void *)root);
        if (event_category != GEX_EC_LC)
            gasneti_fatalerror("gex_Event_QueryLeaf: event_category 0x%x has no leaf event; "
                               "only GEX_EC_LC is supported",
                               (unsigned)event_category);
    }
    /* A region's puts completed locally before it ended (VIS NB with
     * GEX_FLAG_ENABLE_LEAF_LC) or fold into the region: "already happened". */
    if (root->kind == GASNETE_EV_REGION) return GEX_EVENT_INVALID;
    if (root->kind == GASNETE_EV_OP && event_category == GEX_EC_LC) {
        gasnete_op_t *op = gasnete_op_of_root(root);
        if (op->lc_ev.kind == GASNETE_EV_LC) return &op->lc_ev;
    }
    if (GASNETE_CHECKS)
        gasneti_fatalerror("gex_Event_QueryLeaf: root %p has no GEX_EC_LC leaf (pass lc_opt as "
                           "a gex_Event_t pointer, or GEX_FLAG_ENABLE_LEAF_LC for VIS puts)",
                           (void *)root);
    return GEX_EVENT_INVALID;
}

/* ---- NBI sets and access regions ------------------------------------------------- */

/* The bits of gex_EC_t (gasnet_fwd.h): each names counters of an NBI set. */
#define GASNETE_EC_PUT_RC ((gex_EC_t)1U) /* puts' remote completion */
#define GASNETE_EC_ALC ((gex_EC_t)2U)    /* local completion, puts and AMs */
_Static_assert(GEX_EC_PUT == (GASNETE_EC_PUT_RC | GASNETE_EC_ALC) && GEX_EC_LC == GASNETE_EC_ALC &&
                   GEX_EC_AM == GASNETE_EC_ALC && GEX_EC_GET == 4U && GEX_EC_RMW == 8U,
               "gex_EC_t bits");

static int gasnete_nbi_test_mask(const gasnete_iop_t *iop, gex_EC_t mask)
{
    if ((mask & GEX_EC_GET) && !gasnete_ctr_complete(&iop->get)) return 0;
    if ((mask & GASNETE_EC_PUT_RC) && !gasnete_ctr_complete(&iop->put)) return 0;
    if ((mask & GASNETE_EC_ALC) &&
        !(gasnete_ctr_complete(&iop->lc) && gasnete_ctr_complete(&iop->am_lc)))
        return 0;
    if ((mask & GEX_EC_RMW) && !gasnete_ctr_complete(&iop->rmw)) return 0;
    return 1;
}

int gasnete_nbi_test(gex_EC_t event_mask, const char *caller)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    if (GASNETE_CHECKS && td->region)
        gasneti_fatalerror("%s called inside an NBI access region (implicit-handle "
                           "synchronization is not allowed there; end the region first)",
                           caller);
    return gasnete_nbi_test_mask(&td->default_iop, event_mask) ? GASNET_OK
                                                               : GASNET_ERR_NOT_READY;
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    gasnete_iop_t *iop = gasnete_iop_alloc(td);
    iop->next = td->region; /* regions stack: an inner region owns its ops */
    td->region = iop;
    td->nregions++;
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    gasnete_iop_t *iop = td->region;
    if (!iop)
        gasneti_fatalerror("gex_NBI_EndAccessRegion called without a matching "
                           "gex_NBI_BeginAccessRegion on this thread");
    td->region = iop->next;
    td->nregions--;
    iop->next = NULL;
    if (gasnete_iop_complete(iop)) {
        gasnete_iop_free(iop);
        return GEX_EVENT_INVALID;
    }
    iop->ev.kind = GASNETE_EV_REGION;
    return &iop->ev;
}

/* ---- services for the core's AM lc_opt ------------------------------------------- */

gex_Event_t gasnete_event_new(gasnete_cmpl_t *cmpl)
{
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    cmpl->op = &op->op;
    cmpl->lc = NULL;
    return &op->ev;
}

void gasnete_nbi_am_lc_cmpl(gasnete_cmpl_t *cmpl)
{
    gasnete_iop_t *iop = gasnete_current_iop(gasnete_mythread());
    cmpl->op = &iop->am_lc;
    cmpl->lc = NULL;
}

void gasnete_event_discard(gex_Event_t ev)
{
    gasnete_op_free(gasnete_op_of_root(ev));
}
