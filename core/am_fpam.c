/* core/am_fpam.c: the AM entry points behind the gex_AM_* macros: argument
 * checks, routing (the neighbour transport for neighbours, the network
 * transport for every other rank; a Reply goes back on the transport its
 * Request came on), local completion, and the payload limits.  The
 * transports and the extended layer are reached through the ops tables
 * core/init.c installs (gasnetc_am_net, gasnetc_am_nbr, gasnetc_ext); the
 * PSHM fast paths write neighbour queue slots inline (core/pshm/queue.h
 * over gasnetc_nbr_fast). */
#include "core/gasnet_core_private.h"
#include "core/pshm/queue.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

gasnetc_am_net_ops_t gasnetc_am_net;
gasnetc_am_nbr_ops_t gasnetc_am_nbr;
gasnetc_ext_ops_t gasnetc_ext;

static void bad_call(const char *fn, const char *what, unsigned long long value)
{
    gasneti_fatalerror("%s: invalid %s (%llu)", fn, what, value);
}

void gasnetc_am_set_lc_done(gex_Event_t *lc_opt)
{
    /* The call returned only once the payload may be reused (PSHM copies
     * it; verbs copies it or waited for the send completion): local
     * completion is immediate.  (Requests over verbs with an event pointer
     * or GEX_EVENT_GROUP may complete later: am_lc_begin/_end.) */
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_GROUP && lc_opt != GEX_EVENT_DEFER &&
        lc_opt != NULL)
        *lc_opt = GEX_EVENT_INVALID;
}

static void fill_hdr(gasnetc_am_hdr_t *h, unsigned category, int is_req, gex_AM_Index_t handler,
                     size_t nbytes, unsigned numargs, va_list ap)
{
    gex_AM_Arg_t args[GASNETC_AM_MAX_ARGS];
    for (unsigned i = 0; i < numargs; i++) args[i] = (gex_AM_Arg_t)va_arg(ap, int);
    gasnetc_am_fill_hdr(h, category, is_req, handler, nbytes, numargs, args);
}

void gasnetc_am_fill_hdr(gasnetc_am_hdr_t *h, unsigned category, int is_req,
                         gex_AM_Index_t handler, size_t nbytes, unsigned numargs,
                         const gex_AM_Arg_t *args)
{
    /* Every byte defined (padding, unused arguments): the header is copied
     * whole into queue slots and registered buffers (valgrind-clean). */
    memset(h, 0, sizeof(*h));
    h->category = (uint8_t)category;
    h->is_req = (uint8_t)is_req;
    h->handler = handler;
    h->nargs = (uint8_t)numargs;
    h->credits = 0;
    h->src_rank = gasneti_mynode;
    h->nbytes = (uint32_t)nbytes;
    h->dest_addr = 0;
    h->dst_ep = h->src_ep = 0;
    for (unsigned i = 0; i < numargs; i++) h->args[i] = args[i];
}

/* An AM to this process runs at once, in the caller's thread, inside the
 * call (as in GASNet: clients wait for flags that a loopback handler sets
 * without polling in between).  A Reply from such a Request handler runs
 * nested in it the same way; handler rules (no Request from a handler, one
 * Reply) bound the nesting to two.  A Medium payload is handed over in a
 * private copy, as a queue slot would be. */
static int loopback(const gasnetc_am_hdr_t *h, const void *payload, size_t nbytes)
{
    unsigned char small[512];
    void *copy = NULL;
    if (h->category == GASNETC_AM_MEDIUM && nbytes) {
        copy = nbytes <= sizeof(small) ? small : malloc(nbytes);
        if (!copy) gasneti_fatalerror("out of memory for a %zu-byte loopback AM payload", nbytes);
        memcpy(copy, payload, nbytes);
    }
    (void)gasnetc_am_dispatch(h, copy, NULL);
    if (copy && copy != small) free(copy);
    return 0;
}

/* PSHM: try_send until there is space, polling meanwhile (Requests poll
 * everything, Replies only Replies: core/pshm/README's deadlock argument),
 * unless IMMEDIATE (then 1 when full). */
static int pshm_send_wait(gex_Rank_t dest, gasnetc_am_hdr_t *h, const void *payload,
                          size_t nbytes, gex_Flags_t flags,
                          int (*try_send)(uint32_t, const gasnetc_am_hdr_t *, const void *,
                                          size_t))
{
    for (int waited = 0; try_send(dest, h, payload, nbytes); waited = 1) {
        if (flags & GEX_FLAG_IMMEDIATE) return 1;
        if (!waited) gasnetc_poll_wait_begin();
        if (h->is_req) gasnetc_poll();
        else gasnetc_poll_replies();
    }
    return 0;
}

/* Sends one AM to job rank dest, waiting for queue space (PSHM) or credit
 * (verbs) unless IMMEDIATE.  net: for a Reply, the verbs connection its
 * Request came on (NULL: it came through PSHM).  Long payloads: PSHM
 * callers copied them already (nbytes 0 here); verbs sends them itself.
 * Returns 0, or 1 when IMMEDIATE and no space. */
/* lc: NULL, or a completion counter for asynchronous local completion over
 * verbs (Requests; am_lc_begin). */
static int am_send_lc(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *payload,
                      size_t nbytes, gex_Flags_t flags, const char *fn, void *lc)
{
    if (!net && dest == gasneti_mynode) return loopback(h, payload, nbytes);
    if (net || !gasnetc_is_local(dest)) {
        if (!gasnetc_am_net.active())
            gasneti_fatalerror("%s: no network path to rank %u (it is not in this process's "
                               "shared-memory neighbourhood and no verbs connection exists)",
                               fn, dest);
        return gasnetc_am_net.send(dest, net, h, payload, nbytes,
                                   (flags & GEX_FLAG_IMMEDIATE) != 0, lc);
    }
    return pshm_send_wait(dest, h, payload, nbytes, flags, gasnetc_am_nbr.try_send);
}

void gasnetc_am_send_fifo(gex_Rank_t dest, gasnetc_am_hdr_t *h, const void *payload,
                          size_t nbytes)
{
    (void)pshm_send_wait(dest, h, payload, nbytes, 0, gasnetc_am_nbr.try_send_fifo);
}

int gasnetc_am_send(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *payload,
                    size_t nbytes, gex_Flags_t flags, const char *fn)
{
    return am_send_lc(dest, net, h, payload, nbytes, flags, fn, NULL);
}

/* Asynchronous local completion (Requests over verbs with lc_opt an event
 * pointer or GEX_EVENT_GROUP): the counter the transport completes when
 * the payload may be reused, or NULL when the call must return only after
 * local completion (GEX_EVENT_NOW, and every path that copies: PSHM,
 * loopback).  An event pointer gets a fresh NB event whose op counter is
 * that counter (*ev). */
static void *am_lc_begin(gex_Rank_t dest, gex_Event_t *lc_opt, gasnete_cmpl_t *c,
                         gex_Event_t *ev)
{
    *ev = GEX_EVENT_INVALID;
    if (lc_opt == GEX_EVENT_NOW || lc_opt == NULL || dest == gasneti_mynode ||
        gasnetc_is_local(dest))
        return NULL;
    if (lc_opt == GEX_EVENT_GROUP) gasnetc_ext.am_lc_group(c);
    else *ev = gasnetc_ext.am_lc_event(c);
    return c->op;
}

/* After the send: *lc_opt gets the event, or GEX_EVENT_INVALID when the
 * payload is reusable already (the event is recycled then). */
static void am_lc_end(int rc, gex_Event_t *lc_opt, const gasnete_cmpl_t *c, gex_Event_t ev)
{
    if (ev == GEX_EVENT_INVALID) {
        if (!rc) gasnetc_am_set_lc_done(lc_opt);
        return;
    }
    if (rc || gasnete_ctr_complete(c->op)) {
        gasnetc_ext.am_lc_discard(ev);
        ev = GEX_EVENT_INVALID;
    }
    if (!rc) *lc_opt = ev;
}

/* ---- the PSHM fast path (core/pshm/README "AM fast path") ------------------------
 * Release builds only: an AM to a neighbour of the primordial team's run
 * claims its queue slot at once and writes the header into it, without the
 * header copy, the va_list round trip through fill_hdr, and the routing
 * layers.  A Short to a network peer takes the verbs counterpart,
 * gasnetc_am_net.short_fast (core/ibv/am/README "AM Short fast path").  Anything
 * else (debug build, self, other verbs AMs, another team or endpoint, a
 * full queue, IMMEDIATE, an lc_opt that is not simple, a size out of
 * range) takes the general path below, which checks everything. */
#if !defined(GASNET_DEBUG)
#define GASNETC_AM_FAST 1

/* always_inline: gcc kept fast_claim and fast_medium out of line in the
 * Medium paths (two calls, ten arguments passed, about 50 instructions
 * more per message). */
#define GASNETC_AM_INLINE inline __attribute__((__always_inline__))

/* Slot for an AM to job rank dest with nbytes of payload in the queue, or
 * NULL: in the lane to dest when the payload fits in a slot and the
 * neighbourhood has lanes (core/pshm/README "Lanes"), else in dest's
 * Request or Reply queue. */
static GASNETC_AM_INLINE gasnetc_pshmq_slot_t *fast_claim(gex_Rank_t dest, int is_req,
                                                          size_t nbytes, gasnetc_pshmq_t **qp,
                                                          uint64_t *posp)
{
    const gasnetc_nbr_fast_t *f = &gasnetc_nbr_fast;
    uint32_t d = (uint32_t)dest - f->first;
    if (__builtin_expect(d >= f->n || d == f->me, 0)) return NULL;
    gasnetc_pshmq_t **lanes = is_req ? f->reqlane : f->replane;
    if (nbytes <= GASNETC_PSHMQ_INLINE && __builtin_expect(lanes != NULL, 1)) {
        *qp = lanes[d];
#if defined(GASNET_PAR)
        return gasnetc_pshmq_claim_n(lanes[d], nbytes, posp); /* several producers */
#else
        return gasnetc_pshmq_claim1(lanes[d], posp);
#endif
    }
    gasnetc_pshmq_t *q = (is_req ? f->reqq : f->repq)[d];
    if (__builtin_expect(nbytes > q->max_payload, 0)) return NULL;
    *qp = q;
    return gasnetc_pshmq_claim_n(q, nbytes, posp);
}

/* Writes the header of a claimed slot; the arguments come from a (when not
 * NULL) or ap.  Every field the consumer reads is written (arguments past
 * nargs are not read, dest_addr only for a Long).  The byte fields,
 * src_rank and nbytes are built in registers and stored as 16 bytes: a
 * store per field costs the flood a third of its rate (tests/perf/results/
 * 2026-11-27.md). */
static GASNETC_AM_INLINE void fast_fill(gasnetc_pshmq_slot_t *s, unsigned cat, unsigned req,
                                        gex_AM_Index_t hidx, unsigned nargs, size_t nb,
                                        uint64_t daddr, unsigned sep, unsigned dep,
                                        const gex_AM_Arg_t *a, va_list *ap)
{
    struct {
        uint8_t category, is_req, handler, nargs, credits, dst_ep, src_ep, rndv;
        uint32_t src_rank, nbytes;
    } w = {(uint8_t)cat, (uint8_t)req, hidx, (uint8_t)nargs, 0, (uint8_t)dep, (uint8_t)sep, 0,
           gasneti_mynode, (uint32_t)nb};
    _Static_assert(sizeof(w) == 16 && offsetof(gasnetc_am_hdr_t, src_ep) == 6 &&
                       offsetof(gasnetc_am_hdr_t, src_rank) == 8 &&
                       offsetof(gasnetc_am_hdr_t, nbytes) == 12,
                   "fast_fill's image of the header's first 16 bytes");
    gasnetc_am_hdr_t *h = &s->hdr;
    memcpy(h, &w, sizeof(w));
    if (cat == GASNETC_AM_LONG) h->dest_addr = daddr;
    for (unsigned i = 0; i < nargs; i++) h->args[i] = a ? a[i] : (gex_AM_Arg_t)va_arg(*ap, int);
    s->nbytes = cat == GASNETC_AM_LONG ? 0 : nb;
}

/* A Medium to dest's Request or Reply queue: 1 if sent, 0 if the general
 * path must take it (the arguments in ap are then untouched). */
static GASNETC_AM_INLINE int fast_medium(gex_Rank_t dest, unsigned req, gex_AM_Index_t hidx,
                              const void *src, size_t nbytes, gex_Event_t *lc_opt,
                              unsigned nargs, unsigned sep, unsigned dep, va_list *ap)
{
    gasnetc_pshmq_t *q;
    uint64_t pos;
    gasnetc_pshmq_slot_t *s = fast_claim(dest, (int)req, nbytes, &q, &pos);
    if (__builtin_expect(s == NULL, 0)) return 0;
    fast_fill(s, GASNETC_AM_MEDIUM, req, hidx, nargs, nbytes, 0, sep, dep, NULL, ap);
    if (nbytes) {
        char *dst = gasnetc_pshmq_payload(q, s, pos, nbytes);
        uint64_t a, b;
        if (nbytes >= 8 && nbytes <= 16) {
            /* Small payloads: two overlapping 8-byte moves instead of a
             * call to memcpy. */
            memcpy(&a, src, 8);
            memcpy(&b, (const char *)src + nbytes - 8, 8);
            memcpy(dst, &a, 8);
            memcpy(dst + nbytes - 8, &b, 8);
        } else {
            memcpy(dst, src, nbytes);
        }
    }
    gasnetc_pshmq_publish(s, pos);
    gasnetc_am_set_lc_done(lc_opt);
    return 1;
}

/* The Reply fast path applies to a token of a PSHM Request (net NULL). */
static inline int fast_reply_ok(gex_Token_t token, unsigned numargs)
{
    return token && token->is_req && !token->replied && !token->net &&
           numargs <= GASNETC_AM_MAX_ARGS;
}
/* The Reply fast path over verbs applies to a token of a verbs Request. */
static inline int fast_reply_verbs_ok(gex_Token_t token, unsigned numargs)
{
    return token && token->is_req && !token->replied && token->net &&
           numargs <= GASNETC_AM_MAX_ARGS;
}
#else
#define GASNETC_AM_FAST 0
#endif

gex_Rank_t gasnetc_am_req_target(gex_TM_t tm, gex_Rank_t rank, const char *fn)
{
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", fn);
    if (tm == GEX_TM_INVALID) bad_call(fn, "team (GEX_TM_INVALID)", 0);
    if (rank >= tm->size) {
        gasneti_fatalerror("%s: rank %u is out of range (team size %u)", fn, rank, tm->size);
    }
    return gasnetc_tm_to_jobrank(tm, rank);
}

static void check_numargs(unsigned numargs, const char *fn)
{
    if (numargs > GASNETC_AM_MAX_ARGS) bad_call(fn, "number of arguments", numargs);
}

static void check_long(gex_Rank_t dest, const void *dest_addr, size_t nbytes, const char *fn)
{
    if (nbytes && !gasnetc_in_segment(dest, dest_addr, nbytes))
        gasneti_fatalerror("%s: destination [%p, +%zu) is not inside rank %u's segment", fn,
                           dest_addr, nbytes, dest);
}

/* Long payload: copy straight into the neighbour's segment, then the header.
 * IMMEDIATE is a permission, not a duty (spec): Longs honour it only by
 * blocking, so that a refused call never leaves data behind. */
static int am_send_long_lc(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *src,
                           size_t nbytes, void *dest_addr, gex_Flags_t flags, const char *fn,
                           void *lc)
{
    h->dest_addr = (uint64_t)(uintptr_t)dest_addr;
    if (h->dst_ep || gasneti_ep0_bound) /* a created segment (gex_EP_BindSegment) */
        return gasnetc_ext.ep_am_send_long(dest, net, h, src, nbytes, dest_addr, flags, fn);
    check_long(dest, dest_addr, nbytes, fn);
    if (!net && dest == gasneti_mynode) { /* into this process's own segment */
        if (nbytes) memmove(dest_addr, src, nbytes);
        return loopback(h, NULL, 0);
    }
    if (net || !gasnetc_is_local(dest)) /* verbs: packed or RDMA, honours IMMEDIATE */
        return am_send_lc(dest, net, h, src, nbytes, flags, fn, lc);
    if (nbytes) {
        void *local = gasnetc_local_addr(dest, dest_addr, nbytes);
        if (!local)
            gasneti_fatalerror("%s: rank %u's segment is not mapped here", fn, dest);
        memmove(local, src, nbytes);
    }
    return gasnetc_am_send(dest, NULL, h, NULL, 0, flags & ~GEX_FLAG_IMMEDIATE, fn);
}

int gasnetc_am_send_long(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *src,
                         size_t nbytes, void *dest_addr, gex_Flags_t flags, const char *fn)
{
    return am_send_long_lc(dest, net, h, src, nbytes, dest_addr, flags, fn, NULL);
}

/* The general paths, out of line so that the fast paths above them keep a
 * small frame (no callee-saved registers, no header on the stack). */
#define GASNETC_AM_SLOW __attribute__((__noinline__, __cold__))

static GASNETC_AM_SLOW int request_short_v(gex_TM_t tm, gex_Rank_t rank,
                                           gex_AM_Index_t handler, unsigned int numargs,
                                           gex_Flags_t flags, va_list ap)
{
    static const char fn[] = "gex_AM_RequestShort";
    gex_Rank_t dest = gasnetc_am_req_target(tm, rank, fn);
    check_numargs(numargs, fn);
    gasnetc_am_hdr_t h;
    fill_hdr(&h, GASNETC_AM_SHORT, 1, handler, 0, numargs, ap);
    gasnetc_am_route_eps(&h, tm, fn);
    return gasnetc_am_send(dest, NULL, &h, NULL, 0, flags, fn);
}

int gasnetc_AM_RequestShort(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                            unsigned int numargs, gex_Flags_t flags, ...)
{
    va_list ap;
    int rc;
    va_start(ap, flags);
#if GASNETC_AM_FAST
    if (__builtin_expect(tm == gasneti_thunk_tm && numargs <= GASNETC_AM_MAX_ARGS, 1)) {
        gasnetc_pshmq_t *q;
        uint64_t pos;
        gasnetc_pshmq_slot_t *s = fast_claim(rank, 1, 0, &q, &pos);
        if (__builtin_expect(s != NULL, 1)) {
            fast_fill(s, GASNETC_AM_SHORT, 1, handler, numargs, 0, 0, tm->ep->index, 0, NULL, &ap);
            va_end(ap);
            gasnetc_pshmq_publish(s, pos);
            return 0;
        }
        /* Not a neighbour (a neighbour's full queue waits in the general
         * path): over verbs, packed straight into a descriptor. */
        if (!(flags & GEX_FLAG_IMMEDIATE) && !gasnetc_is_local(rank) &&
            gasnetc_am_net.short_fast(rank, NULL, 1, handler, numargs, tm->ep->index, 0, &ap) ==
                0) {
            va_end(ap);
            return 0;
        }
    }
#endif
    rc = request_short_v(tm, rank, handler, numargs, flags, ap);
    va_end(ap);
    return rc;
}

static GASNETC_AM_SLOW int request_medium_v(gex_TM_t tm, gex_Rank_t rank,
                                            gex_AM_Index_t handler, const void *source_addr,
                                            size_t nbytes, gex_Event_t *lc_opt,
                                            unsigned int numargs, gex_Flags_t flags, va_list ap)
{
    static const char fn[] = "gex_AM_RequestMedium";
    gex_Rank_t dest = gasnetc_am_req_target(tm, rank, fn);
    check_numargs(numargs, fn);
    if (nbytes > GASNETC_MAX_MEDIUM)
        gasneti_fatalerror("%s: nbytes=%zu exceeds gex_AM_MaxRequestMedium (%zu)", fn, nbytes,
                           GASNETC_MAX_MEDIUM);
    if (lc_opt == GEX_EVENT_DEFER) bad_call(fn, "lc_opt GEX_EVENT_DEFER", 2);
    gasnetc_am_hdr_t h;
    fill_hdr(&h, GASNETC_AM_MEDIUM, 1, handler, nbytes, numargs, ap);
    gasnetc_am_route_eps(&h, tm, fn);
    gasnete_cmpl_t c;
    gex_Event_t ev;
    void *lc = am_lc_begin(dest, lc_opt, &c, &ev);
    int rc = am_send_lc(dest, NULL, &h, source_addr, nbytes, flags, fn, lc);
    am_lc_end(rc, lc_opt, &c, ev);
    return rc;
}

int gasnetc_AM_RequestMedium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                             const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                             unsigned int numargs, gex_Flags_t flags, ...)
{
    va_list ap;
    int rc;
    va_start(ap, flags);
#if GASNETC_AM_FAST
    if (__builtin_expect(tm == gasneti_thunk_tm && numargs <= GASNETC_AM_MAX_ARGS &&
                             nbytes <= GASNETC_MAX_MEDIUM && lc_opt != GEX_EVENT_DEFER,
                         1)) {
        if (__builtin_expect(fast_medium(rank, 1, handler, source_addr, nbytes, lc_opt, numargs,
                                         tm->ep->index, 0, &ap),
                             1)) {
            va_end(ap);
            return 0;
        }
    }
#endif
    rc = request_medium_v(tm, rank, handler, source_addr, nbytes, lc_opt, numargs, flags, ap);
    va_end(ap);
    return rc;
}

static GASNETC_AM_SLOW int request_long_v(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                          const void *source_addr, size_t nbytes,
                                          void *dest_addr, gex_Event_t *lc_opt,
                                          unsigned int numargs, gex_Flags_t flags, va_list ap)
{
    static const char fn[] = "gex_AM_RequestLong";
    gex_Rank_t dest = gasnetc_am_req_target(tm, rank, fn);
    check_numargs(numargs, fn);
    if (lc_opt == GEX_EVENT_DEFER) bad_call(fn, "lc_opt GEX_EVENT_DEFER", 2);
    gasnetc_am_hdr_t h;
    fill_hdr(&h, GASNETC_AM_LONG, 1, handler, nbytes, numargs, ap);
    gasnetc_am_route_eps(&h, tm, fn);
    gasnete_cmpl_t c;
    gex_Event_t ev;
    void *lc = am_lc_begin(dest, lc_opt, &c, &ev);
    int rc = am_send_long_lc(dest, NULL, &h, source_addr, nbytes, dest_addr, flags, fn, lc);
    am_lc_end(rc, lc_opt, &c, ev);
    return rc;
}

#if GASNETC_AM_FAST
/* A Long whose payload is in place already and whose queue was full: the
 * header waits for a slot (as the general path does for Longs, IMMEDIATE
 * included: a refused Long would leave its data behind). */
static GASNETC_AM_SLOW void request_long_wait(gex_TM_t tm, gex_Rank_t rank,
                                              gex_AM_Index_t handler, size_t nbytes,
                                              void *dest_addr, unsigned int numargs,
                                              gex_Flags_t flags, va_list ap)
{
    static const char fn[] = "gex_AM_RequestLong";
    gasnetc_am_hdr_t h;
    fill_hdr(&h, GASNETC_AM_LONG, 1, handler, nbytes, numargs, ap);
    gasnetc_am_route_eps(&h, tm, fn);
    h.dest_addr = (uint64_t)(uintptr_t)dest_addr;
    (void)gasnetc_am_send(rank, NULL, &h, NULL, 0, flags & ~GEX_FLAG_IMMEDIATE, fn);
}
#endif

int gasnetc_AM_RequestLong(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                           const void *source_addr, size_t nbytes, void *dest_addr,
                           gex_Event_t *lc_opt, unsigned int numargs, gex_Flags_t flags, ...)
{
    va_list ap;
    int rc;
    va_start(ap, flags);
#if GASNETC_AM_FAST
    /* The payload goes straight into the neighbour's segment (the inline
     * RMA table says where it is mapped here), then the header. */
    uint32_t d = (uint32_t)rank - gasneti_pshm_rmatab.first;
    if (__builtin_expect(tm == gasneti_thunk_tm && numargs <= GASNETC_AM_MAX_ARGS &&
                             lc_opt != GEX_EVENT_DEFER && d < gasneti_pshm_rmatab.n &&
                             d != gasnetc_nbr_fast.me && gasnetc_nbr_fast.n,
                         1)) {
        const gasneti_pshm_rmaseg_t *sg = &gasneti_pshm_rmatab.seg[d];
        uintptr_t off = (uintptr_t)dest_addr - sg->owner;
        if (__builtin_expect(off < sg->size && nbytes <= sg->size - off, 1)) {
            gasnetc_pshmq_t *q;
            uint64_t pos;
            gasnetc_pshmq_slot_t *s;
            if (nbytes) memmove(sg->local + off, source_addr, nbytes);
            s = fast_claim(rank, 1, 0, &q, &pos);
            if (__builtin_expect(s != NULL, 1)) {
                fast_fill(s, GASNETC_AM_LONG, 1, handler, numargs, nbytes,
                          (uint64_t)(uintptr_t)dest_addr, tm->ep->index, 0, NULL, &ap);
                gasnetc_pshmq_publish(s, pos);
            } else {
                request_long_wait(tm, rank, handler, nbytes, dest_addr, numargs, flags, ap);
            }
            va_end(ap);
            gasnetc_am_set_lc_done(lc_opt);
            return 0;
        }
    }
#endif
    rc = request_long_v(tm, rank, handler, source_addr, nbytes, dest_addr, lc_opt, numargs,
                        flags, ap);
    va_end(ap);
    return rc;
}

gex_Rank_t gasnetc_am_reply_target(gex_Token_t token, const char *fn)
{
    if (!token || !token->is_req)
        gasneti_fatalerror("%s: called outside a Request handler (token %p)", fn, (void *)token);
    if (token->replied)
        gasneti_fatalerror("%s: a Request handler may send at most one Reply", fn);
    token->replied = 1;
    return token->src;
}

static GASNETC_AM_SLOW int reply_short_v(gex_Token_t token, gex_AM_Index_t handler,
                                         unsigned int numargs, gex_Flags_t flags, va_list ap)
{
    static const char fn[] = "gex_AM_ReplyShort";
    gex_Rank_t dest = gasnetc_am_reply_target(token, fn);
    check_numargs(numargs, fn);
    gasnetc_am_hdr_t h;
    fill_hdr(&h, GASNETC_AM_SHORT, 0, handler, 0, numargs, ap);
    gasnetc_am_reply_eps(&h, token);
    return gasnetc_am_send(dest, token->net, &h, NULL, 0, flags, fn);
}

int gasnetc_AM_ReplyShort(gex_Token_t token, gex_AM_Index_t handler, unsigned int numargs,
                          gex_Flags_t flags, ...)
{
    va_list ap;
    int rc;
    va_start(ap, flags);
#if GASNETC_AM_FAST
    if (__builtin_expect(fast_reply_ok(token, numargs), 1)) {
        gasnetc_pshmq_t *q;
        uint64_t pos;
        gasnetc_pshmq_slot_t *s = fast_claim(token->src, 0, 0, &q, &pos);
        if (__builtin_expect(s != NULL, 1)) {
            token->replied = 1;
            fast_fill(s, GASNETC_AM_SHORT, 0, handler, numargs, 0, 0, token->ep->index,
                      token->src_ep, NULL, &ap);
            va_end(ap);
            gasnetc_pshmq_publish(s, pos);
            return 0;
        }
    } else if (__builtin_expect(fast_reply_verbs_ok(token, numargs), 1) &&
               gasnetc_am_net.short_fast(token->src, token->net, 0, handler, numargs,
                                         token->ep->index, token->src_ep, &ap) == 0) {
        token->replied = 1; /* a Reply's send runs no handler: no one looks before this */
        va_end(ap);
        return 0;
    }
#endif
    rc = reply_short_v(token, handler, numargs, flags, ap);
    va_end(ap);
    return rc;
}

/* ---- the Shorts of up to 4 arguments, without a va_list --------------------------
 * gex_AM_RequestShort0..4 and gex_AM_ReplyShort0..4 call these: in a
 * release build, a Short to a neighbour is written into its slot straight
 * from the argument registers (a va_list walk and its spill to the stack
 * cost the PSHM flood half its rate, tests/perf/results/2026-11-27.md).
 * Everything else goes to the variadic entry points above. */
#if GASNETC_AM_FAST
static GASNETC_AM_INLINE int short_req_fast(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                            unsigned nargs, const gex_AM_Arg_t *a)
{
    gasnetc_pshmq_t *q;
    uint64_t pos;
    gasnetc_pshmq_slot_t *s;
    if (__builtin_expect(tm != gasneti_thunk_tm, 0)) return 0;
    if (__builtin_expect((s = fast_claim(rank, 1, 0, &q, &pos)) == NULL, 0)) return 0;
    fast_fill(s, GASNETC_AM_SHORT, 1, handler, nargs, 0, 0, tm->ep->index, 0, a, NULL);
    gasnetc_pshmq_publish(s, pos);
    return 1;
}

static GASNETC_AM_INLINE int short_rep_fast(gex_Token_t token, gex_AM_Index_t handler,
                                            unsigned nargs, const gex_AM_Arg_t *a)
{
    gasnetc_pshmq_t *q;
    uint64_t pos;
    gasnetc_pshmq_slot_t *s;
    if (__builtin_expect(!fast_reply_ok(token, nargs), 0)) return 0;
    if (__builtin_expect((s = fast_claim(token->src, 0, 0, &q, &pos)) == NULL, 0)) return 0;
    token->replied = 1;
    fast_fill(s, GASNETC_AM_SHORT, 0, handler, nargs, 0, 0, token->ep->index, token->src_ep, a,
              NULL);
    gasnetc_pshmq_publish(s, pos);
    return 1;
}
#else
#define short_req_fast(tm, rank, handler, nargs, a) ((void)(a), 0)
#define short_rep_fast(token, handler, nargs, a) ((void)(a), 0)
#endif

/* a[0] is a placeholder, so that the array of SHORTN(0) is not empty; the
 * arguments follow as ", a0, a1". */
#define SHORTN(n, params, ...)                                                               \
    int gasnetc_AM_RequestShort##n(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,    \
                                   gex_Flags_t flags params)                                \
    {                                                                                        \
        const gex_AM_Arg_t a[n + 1] = {0 __VA_ARGS__};                                      \
        if (__builtin_expect(short_req_fast(tm, rank, handler, n, a + 1), 1)) return 0;      \
        return gasnetc_AM_RequestShort(tm, rank, handler, n, flags __VA_ARGS__);            \
    }                                                                                        \
    int gasnetc_AM_ReplyShort##n(gex_Token_t token, gex_AM_Index_t handler,                 \
                                 gex_Flags_t flags params)                                  \
    {                                                                                        \
        const gex_AM_Arg_t a[n + 1] = {0 __VA_ARGS__};                                      \
        if (__builtin_expect(short_rep_fast(token, handler, n, a + 1), 1)) return 0;         \
        return gasnetc_AM_ReplyShort(token, handler, n, flags __VA_ARGS__);                 \
    }
#define P_(x) , gex_AM_Arg_t x
SHORTN(0, , )
SHORTN(1, P_(a0), , a0)
SHORTN(2, P_(a0) P_(a1), , a0, a1)
SHORTN(3, P_(a0) P_(a1) P_(a2), , a0, a1, a2)
SHORTN(4, P_(a0) P_(a1) P_(a2) P_(a3), , a0, a1, a2, a3)
#undef P_
#undef SHORTN

static GASNETC_AM_SLOW int reply_medium_v(gex_Token_t token, gex_AM_Index_t handler,
                                          const void *source_addr, size_t nbytes,
                                          gex_Event_t *lc_opt, unsigned int numargs,
                                          gex_Flags_t flags, va_list ap)
{
    static const char fn[] = "gex_AM_ReplyMedium";
    gex_Rank_t dest = gasnetc_am_reply_target(token, fn);
    check_numargs(numargs, fn);
    if (nbytes > GASNETC_MAX_MEDIUM)
        gasneti_fatalerror("%s: nbytes=%zu exceeds gex_AM_MaxReplyMedium (%zu)", fn, nbytes,
                           GASNETC_MAX_MEDIUM);
    if (lc_opt == GEX_EVENT_DEFER || lc_opt == GEX_EVENT_GROUP)
        bad_call(fn, "lc_opt (Replies accept GEX_EVENT_NOW or an event pointer)", 0);
    gasnetc_am_hdr_t h;
    fill_hdr(&h, GASNETC_AM_MEDIUM, 0, handler, nbytes, numargs, ap);
    gasnetc_am_reply_eps(&h, token);
    int rc = gasnetc_am_send(dest, token->net, &h, source_addr, nbytes, flags, fn);
    if (!rc) gasnetc_am_set_lc_done(lc_opt);
    return rc;
}

int gasnetc_AM_ReplyMedium(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                           size_t nbytes, gex_Event_t *lc_opt, unsigned int numargs,
                           gex_Flags_t flags, ...)
{
    va_list ap;
    int rc;
    va_start(ap, flags);
#if GASNETC_AM_FAST
    if (__builtin_expect(fast_reply_ok(token, numargs) && nbytes <= GASNETC_MAX_MEDIUM &&
                             lc_opt != GEX_EVENT_DEFER && lc_opt != GEX_EVENT_GROUP,
                         1)) {
        if (__builtin_expect(fast_medium(token->src, 0, handler, source_addr, nbytes, lc_opt,
                                         numargs, token->ep->index, token->src_ep, &ap),
                             1)) {
            token->replied = 1;
            va_end(ap);
            return 0;
        }
    }
#endif
    rc = reply_medium_v(token, handler, source_addr, nbytes, lc_opt, numargs, flags, ap);
    va_end(ap);
    return rc;
}

int gasnetc_AM_ReplyLong(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                         size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                         unsigned int numargs, gex_Flags_t flags, ...)
{
    static const char fn[] = "gex_AM_ReplyLong";
    gex_Rank_t dest = gasnetc_am_reply_target(token, fn);
    check_numargs(numargs, fn);
    if (lc_opt == GEX_EVENT_DEFER || lc_opt == GEX_EVENT_GROUP)
        bad_call(fn, "lc_opt (Replies accept GEX_EVENT_NOW or an event pointer)", 0);
    gasnetc_am_hdr_t h;
    va_list ap;
    va_start(ap, flags);
    fill_hdr(&h, GASNETC_AM_LONG, 0, handler, nbytes, numargs, ap);
    va_end(ap);
    gasnetc_am_reply_eps(&h, token);
    int rc = gasnetc_am_send_long(dest, token->net, &h, source_addr, nbytes, dest_addr, flags, fn);
    if (!rc) gasnetc_am_set_lc_done(lc_opt);
    return rc;
}

/* ---- limits ------------------------------------------------------------------ */
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int numargs)
{
    return GASNETC_MAX_MEDIUM;
}

size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs)
{
    return GASNETC_MAX_MEDIUM;
}

size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs)
{
    return GASNETC_MAX_LONG_LUB;
}

size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int numargs)
{
    return GASNETC_MAX_LONG_REP_LUB;
}

size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                                unsigned int numargs)
{
    return GASNETC_MAX_MEDIUM;
}

size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                              unsigned int numargs)
{
    return GASNETC_MAX_LONG_REP_LUB;
}
