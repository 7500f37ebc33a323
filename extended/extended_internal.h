/* extended/extended_internal.h: objects and services of the Extended API
 * (RMA, events, NBI, access regions) shared by the files of extended/ and
 * offered to transports (core/ibv, core AM lc_opt) that complete operations
 * asynchronously.  Not installed.
 *
 * Completion model (details and rationale: extended/README):
 *   A transport never sees events.  It receives a gasnete_cmpl_t: two
 *   pointers to counter pairs (operation completion, local completion).
 *   Before posting any piece of an operation it calls gasnete_cmpl_begin()
 *   with the number of pieces; afterwards it calls gasnete_cmpl_op_done() and
 *   gasnete_cmpl_lc_done() once per piece, from any thread.  The counters
 *   live in an NB operation, an NBI access region, the thread's default NBI
 *   set, or the stack of a blocking call, all of which stay alive until the
 *   counts match.
 */
#ifndef GASNETE_EXTENDED_INTERNAL_H
#define GASNETE_EXTENDED_INTERNAL_H

#include "core/gasnet_core_internal.h"

/* Argument checks (rank, segment bounds, lc_opt legality, handler context).
 * On unless the library is built with -DGASNET_NDEBUG; GASNET_DEBUG forces
 * them on.  They are a few compares per call. */
#if defined(GASNET_DEBUG) || !defined(GASNET_NDEBUG)
#define GASNETE_CHECKS 1
#else
#define GASNETE_CHECKS 0
#endif

#define GASNETE_LIKELY(x) __builtin_expect(!!(x), 1)
#define GASNETE_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The jobrank of (tm, rank) for point-to-point calls; with checks on, a
 * GEX_TM_INVALID team or a rank outside the team is one fatal line naming
 * fn.  Handler-safe. */
static inline gex_Rank_t gasnete_team_rank(const char *fn, gex_TM_t tm, gex_Rank_t rank)
{
    if (GASNETE_CHECKS) {
        if (GASNETE_UNLIKELY(tm == GEX_TM_INVALID))
            gasneti_fatalerror("%s: tm is GEX_TM_INVALID (pass a team from gex_Client_Init, "
                               "gex_TM_Split, gex_TM_Create or gex_TM_Pair)",
                               fn);
        if (GASNETE_UNLIKELY(rank >= tm->size))
            gasneti_fatalerror("%s: rank %u is out of range (team size %u)", fn, (unsigned)rank,
                               (unsigned)tm->size);
    }
    return gasnetc_tm_to_jobrank(tm, rank);
}

/* ---- completion counters ------------------------------------------------ */
/* gasnete_ctr_t, gasnete_cmpl_t and their operations are defined with the
 * transport interfaces (core/base/transport.h), which the transports
 * include without seeing this header. */

/* ---- events ----------------------------------------------------------------- */
/* Kinds of objects a gex_Event_t may point to. */
#define GASNETE_EV_FREE 0   /* in a pool: a stale event (use after sync) */
#define GASNETE_EV_OP 1     /* root event of an NB operation */
#define GASNETE_EV_LC 2     /* local-completion leaf of an NB operation */
#define GASNETE_EV_REGION 3 /* root event returned by gex_NBI_EndAccessRegion */
#define GASNETE_EV_COLL 4   /* root event of a collective (barrier) */
#define GASNETE_EV_IOP 5    /* an NBI set that is not (yet) an event */

#define GASNETE_EV_MAGIC 0x65764576U /* "vEve": catches garbage pointers */

struct gasneti_event_s {
    uint32_t magic;
    uint32_t kind;
};

struct gasnete_op_s;
/* Collectives: advances the operation without polling; returns 1 when it
 * is complete.  Called by event tests. */
typedef int (*gasnete_coll_test_fn)(struct gasnete_op_s *op);

/* One NB operation (also collectives).  Pool-allocated. */
typedef struct gasnete_op_s {
    struct gasneti_event_s ev;    /* root */
    struct gasneti_event_s lc_ev; /* leaf; kind FREE when no leaf */
    gasnete_ctr_t op;
    gasnete_ctr_t lc;
    gasnete_coll_test_fn coll_test; /* COLL only */
    /* COLL only: NULL, or a wait that returns once coll_test would succeed
     * (gex_Event_Wait uses it; the PSHM barrier's flag-checking wait) */
    void (*coll_wait)(struct gasnete_op_s *op);
    uint64_t coll_data;             /* COLL only: owner's data (epoch, result) */
    struct gasnete_op_s *next;      /* pool link */
} gasnete_op_t;

/* One NBI set: the thread's default set or an access region. */
typedef struct gasnete_iop_s {
    struct gasneti_event_s ev; /* kind IOP while open, REGION once ended */
    gasnete_ctr_t get, put, lc, rmw, am_lc;
    struct gasnete_iop_s *next; /* region stack / pool link */
} gasnete_iop_t;

/* Per-thread state: pools, NBI sets.  Created on a thread's first use. */
typedef struct gasnete_threaddata_s {
    gasnete_iop_t default_iop; /* never an event, never freed */
    gasnete_iop_t *region;     /* innermost open access region, or NULL */
    gasnete_op_t *op_free;
    gasnete_iop_t *iop_free;
    uint32_t nregions; /* depth of the region stack */
    struct gasnete_threaddata_s *all_next; /* every thread's state: gasnete_threads */
} gasnete_threaddata_t;

extern GASNETI_TLS gasnete_threaddata_t *gasnete_threaddata_tls;
/* Allocates the calling thread's state (first call on that thread). */
gasnete_threaddata_t *gasnete_threaddata_new(void);
/* The calling thread's state.  Handler-safe, lock-free. */
static inline gasnete_threaddata_t *gasnete_mythread(void)
{
    gasnete_threaddata_t *td = gasnete_threaddata_tls;
    return GASNETE_LIKELY(td != NULL) ? td : gasnete_threaddata_new();
}
/* The NBI set that new NBI operations of this thread join. */
static inline gasnete_iop_t *gasnete_current_iop(gasnete_threaddata_t *td)
{
    return td->region ? td->region : &td->default_iop;
}

/* Refills the op pool (allocates a chunk; fatal when memory is exhausted). */
void gasnete_op_pool_refill(gasnete_threaddata_t *td);
/* Takes an op of the calling thread's pool, kind OP, counters zero, no leaf.
 * Lock-free; allocates only when the pool is empty (warm-up). */
/* Event objects allocated and not yet freed (ops and access regions), the
 * count gasnet_pshm_inline.h's WaitAll/TestAll read: at 0 the client holds
 * no valid event, so its array needs no look.  Not kept in PAR builds, where
 * threads allocate from pools of their own and a shared counter would be a
 * cache line they all write (the inline calls look at the array there). */
#if defined(GASNET_PAR)
#define GASNETE_EVENTS_LIVE_ADD(k) ((void)0)
#else
#define GASNETE_EVENTS_LIVE_ADD(k) ((void)(gasneti_events_live += (size_t)(k)))
#endif

static inline gasnete_op_t *gasnete_op_alloc(gasnete_threaddata_t *td)
{
    if (GASNETE_UNLIKELY(td->op_free == NULL)) gasnete_op_pool_refill(td);
    GASNETE_EVENTS_LIVE_ADD(1);
    gasnete_op_t *op = td->op_free;
    td->op_free = op->next;
    op->ev.kind = GASNETE_EV_OP;
    op->lc_ev.kind = GASNETE_EV_FREE;
    op->op.init = op->op.done = 0;
    op->lc.init = op->lc.done = 0;
    return op;
}
/* Returns op to the calling thread's pool (any thread may free any op). */
static inline void gasnete_op_free(gasnete_op_t *op)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    GASNETE_EVENTS_LIVE_ADD(-1);
    op->ev.kind = GASNETE_EV_FREE;
    op->lc_ev.kind = GASNETE_EV_FREE;
    op->next = td->op_free;
    td->op_free = op;
}
/* Enables the op's local-completion leaf and returns it as an event. */
static inline gex_Event_t gasnete_op_enable_lc(gasnete_op_t *op)
{
    op->lc_ev.kind = GASNETE_EV_LC;
    return &op->lc_ev;
}
static inline gasnete_op_t *gasnete_op_of_root(gex_Event_t ev)
{
    return (gasnete_op_t *)(void *)((char *)ev - __builtin_offsetof(gasnete_op_t, ev));
}
static inline gasnete_op_t *gasnete_op_of_leaf(gex_Event_t ev)
{
    return (gasnete_op_t *)(void *)((char *)ev - __builtin_offsetof(gasnete_op_t, lc_ev));
}
/* 1 when the NB op (root) is complete: operation and, if tracked, LC. */
static inline int gasnete_op_complete(const gasnete_op_t *op)
{
    return gasnete_ctr_complete(&op->op) && gasnete_ctr_complete(&op->lc);
}
/* 1 when every counter pair of the NBI set is complete. */
int gasnete_iop_complete(const gasnete_iop_t *iop);

/* Non-polling test of one event.  Returns GASNET_OK (and recycles root
 * events) or GASNET_ERR_NOT_READY.  ev must not be GEX_EVENT_INVALID.
 * Not handler-safe (spec: no test/wait in handlers). */
int gasnete_event_test(gex_Event_t ev, const char *caller);
/* The array forms: tests every valid entry (root and leaf events may be
 * mixed in any order); completed ones become GEX_EVENT_INVALID.  Sets
 * *nvalid to the entries valid on entry; returns how many completed. */
size_t gasnete_event_test_array(gex_Event_t *pevent, size_t numevents, size_t *nvalid,
                                const char *caller);

/* Non-polling test of the calling thread's default NBI set for the
 * categories in event_mask: GASNET_OK or GASNET_ERR_NOT_READY.  Fatal inside
 * an access region (caller names the public call). */
int gasnete_nbi_test(gex_EC_t event_mask, const char *caller);

/* Core services for AM lc_opt (not RMA):
 * - lc_opt = &event: creates an NB event and fills *cmpl (op counter only);
 *   the core must call gasnete_cmpl_begin and _op_done on it.
 * - lc_opt = GEX_EVENT_GROUP: fills *cmpl with the calling thread's current
 *   NBI set, category GEX_EC_AM.
 * Both lock-free; call from the initiating thread. */
gex_Event_t gasnete_event_new(gasnete_cmpl_t *cmpl);
void gasnete_nbi_am_lc_cmpl(gasnete_cmpl_t *cmpl);
/* Recycles an event from gasnete_event_new that was never handed out. */
void gasnete_event_discard(gex_Event_t ev);

/* ---- the hooks the core calls (extended/hooks.c) ------------------------------ */
/* Once at the end of gex_Client_Init: every service initializes itself. */
void gasnete_init(void);
/* After every poll: progress of outstanding extended operations. */
void gasnete_progress(void);
/* The services above as the table core/init.c installs (gasnetc_ext). */
extern const gasnetc_ext_ops_t gasnete_core_ops;

/* ---- RMA transport ops table ---------------------------------------------------- */
/* gasnete_rma_transport_t and GASNETE_FLAG_LC_NOW: core/base/transport.h. */

/* Installs the transport used for non-local ranks (the default one fails
 * with "no network path to rank R").  Call during init, before any RMA. */
void gasnete_rma_set_transport(const gasnete_rma_transport_t *ops);

/* The transport installed by gasnete_rma_set_transport (verbs). */
const gasnete_rma_transport_t *gasnete_rma_net_ops(void);
/* The transport for TM-pairs that name a non-primordial remote endpoint
 * (extended/ep_rma.c sets it at init). */
extern const gasnete_rma_transport_t *gasnete_rma_ep_ops;
/* The remote endpoint index of the calling thread's current call into
 * gasnete_rma_ep_ops (set by rma.c just before each call). */
extern GASNETI_TLS gex_EP_Index_t gasnete_rma_ep_target;

/* Bound segment of endpoint ep_idx of jobrank (published, or this
 * process's own); 0 with *addr and *size set, -1 if unknown (ep.c).  Handler-safe. */
int gasnete_ep_segment(gex_Rank_t jobrank, gex_EP_Index_t ep_idx, void **addr, uintptr_t *size);
/* Where [addr, +n) of endpoint ep_idx's segment of jobrank is mapped here
 * (our own, or a neighbour's shared one), or NULL.  Handler-safe. */
void *gasnete_ep_local_addr(gex_Rank_t jobrank, gex_EP_Index_t ep_idx, const void *addr,
                            size_t n);
/* Registers the endpoint-RMA handlers and installs gasnete_rma_ep_ops. */
void gasnete_ep_rma_init(void);
/* A Long to a non-primordial endpoint (h->dst_ep > 0), or to the primordial
 * one bound with gex_EP_BindSegment: checks dest_addr against that
 * endpoint's published segment, places the payload (memcpy when mapped
 * here, RDMA or packed over verbs, internal Medium fragments to a
 * neighbour's unmapped client memory) and sends the header behind it.
 * Returns as gasnetc_am_send (the core calls it through gasnetc_ext). */
int gasnete_ep_am_send_long(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *src,
                            size_t nbytes, void *dest_addr, gex_Flags_t flags, const char *fn);

/* Writes nbytes bytes of value at rank's dest, blocking (used by the legacy
 * memset).  Not handler-safe. */
void gasnete_memset_blocking(gex_TM_t tm, gex_Rank_t rank, void *dest, int val, size_t nbytes);

/* ---- value encoding ------------------------------------------------------------ */
/* The nbytes (1..8) low-order bytes of value, as an nbytes-wide integer in
 * native byte order, to/from memory. */
static inline void gasnete_value_store(void *dst, gex_RMA_Value_t value, size_t nbytes)
{
#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    __builtin_memcpy(dst, (const char *)&value + (sizeof(value) - nbytes), nbytes);
#else
    __builtin_memcpy(dst, &value, nbytes);
#endif
}
static inline gex_RMA_Value_t gasnete_value_load(const void *src, size_t nbytes)
{
    gex_RMA_Value_t value = 0;
#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    __builtin_memcpy((char *)&value + (sizeof(value) - nbytes), src, nbytes);
#else
    __builtin_memcpy(&value, src, nbytes);
#endif
    return value;
}

/* ---- barrier glue (extended/barrier.c) ------------------------------------------ */
/* Registers the barrier handlers and sizes the engine (from gasnete_init). */
void gasnete_barrier_init(void);
/* Sends pending barrier messages and completes finished barriers, without
 * polling.  Not handler-safe; reentrant calls return at once. */
void gasnete_barrier_progress(void);

/* ---- legacy glue (extended/legacy.c) -------------------------------------------- */
/* Collective: records every rank's host and neighbourhood for
 * gasnet_getNodeInfo (one bootstrap exchange).  From gasnete_init. */
void gasnete_legacy_init(void);
/* Registers the remote-atomics handlers (ratomic.c).  Init path. */
void gasnete_ratomic_init(void);
/* Registers the VIS peer-completion handler (vis_pc.c).  Init path. */
void gasnete_vis_pc_init(void);
/* 1 if kind is host memory (GEX_MK_HOST or a host-class kind; mk.c). */
int gasnete_mk_is_host(gex_MK_t kind);
/* Registers the broadcast/reduce handler (coll.c).  Init path. */
void gasnete_coll_init(void);

#endif /* GASNETE_EXTENDED_INTERNAL_H */
