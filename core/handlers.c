/* core/handlers.c: the AM handler table (registration), the dispatcher that
 * runs a handler for an arrived message, and gex_Token_Info. */
#include "core/gasnet_core_private.h"

#include <string.h>

/* What each registered handler accepts, precomputed at registration for the
 * receive paths (gasnetc_am_deliver): bit (category * 2 + is_req) is
 * set for every kind of AM the entry's flags allow, bits 8..15 hold the
 * argument count it takes (0xff: any, for an entry without a category).
 * 0 = unregistered.  The verbs receive path uses it too
 * (gasnetc_am_deliver_net).  A message the bits refuse goes to gasnetc_am_dispatch,
 * which names the mismatch. */
static uint32_t accept_tab[GASNET_MAXEPS][256];

static uint32_t accept_bits(const gex_AM_Entry_t *e)
{
    gex_Flags_t cat = e->gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG);
    gex_Flags_t rr = e->gex_flags & GEX_FLAG_AM_REQREP;
    static const gex_Flags_t cat_flag[3] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM,
                                            GEX_FLAG_AM_LONG};
    uint32_t a = 0;
    for (unsigned c = 0; c < 3; c++)
        for (unsigned req = 0; req < 2; req++)
            if ((!cat || (cat & cat_flag[c])) &&
                (!rr || (rr & (req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY))))
                a |= 1u << (c * 2 + req);
    return a | (cat ? (uint32_t)e->gex_nargs : 0xffu) << 8;
}

static int check_entry(const gex_AM_Entry_t *e, int internal)
{
    if (e->gex_fnptr == NULL) {
        gasneti_warning("gex_EP_RegisterHandlers: entry for index %u has a NULL gex_fnptr",
                        (unsigned)e->gex_index);
        return GASNET_ERR_BAD_ARG;
    }
    if (e->gex_nargs > GASNETC_AM_MAX_ARGS) {
        gasneti_warning("gex_EP_RegisterHandlers: handler %s has gex_nargs=%u (max %d)",
                        e->gex_name ? e->gex_name : "(unnamed)", e->gex_nargs,
                        GASNETC_AM_MAX_ARGS);
        return GASNET_ERR_BAD_ARG;
    }
    if (!internal && e->gex_index != 0 && e->gex_index < GEX_AM_INDEX_BASE) {
        gasneti_warning("gex_EP_RegisterHandlers: index %u is reserved for the library; "
                        "client handlers use %d..255 or 0 (any free index)",
                        (unsigned)e->gex_index, GEX_AM_INDEX_BASE);
        return GASNET_ERR_BAD_ARG;
    }
    return GASNET_OK;
}

int gasnetc_handlers_register(gex_EP_t ep, gex_AM_Entry_t *table, size_t n, int internal)
{
    /* Fixed indices first, so that "don't care" entries cannot steal them. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            gex_AM_Entry_t *e = &table[i];
            if ((pass == 0) != (e->gex_index != 0)) continue;
            int rc = check_entry(e, internal);
            if (rc != GASNET_OK) return rc;
            unsigned idx = e->gex_index;
            if (idx == 0) {
                for (idx = 255; idx >= GEX_AM_INDEX_BASE && ep->handlers[idx].gex_fnptr; idx--)
                    ;
                if (idx < GEX_AM_INDEX_BASE) {
                    gasneti_warning("gex_EP_RegisterHandlers: no free handler index left "
                                    "(%d..255 are all registered)", GEX_AM_INDEX_BASE);
                    return GASNET_ERR_RESOURCE;
                }
                e->gex_index = (gex_AM_Index_t)idx;
            } else if (ep->handlers[idx].gex_fnptr &&
                       ep->handlers[idx].gex_fnptr != e->gex_fnptr) {
                gasneti_warning("gex_EP_RegisterHandlers: index %u is already registered", idx);
                return GASNET_ERR_BAD_ARG;
            }
            ep->handlers[idx] = *e;
            if (ep->index < GASNET_MAXEPS) accept_tab[ep->index][idx] = accept_bits(e);
        }
    }
    return GASNET_OK;
}

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries)
{
    if (!gasneti_init_done) return GASNET_ERR_NOT_INIT;
    if (ep == GEX_EP_INVALID || (numentries && !table)) return GASNET_ERR_BAD_ARG;
    return gasnetc_handlers_register(ep, table, numentries, 0);
}

void gasnetc_register_internal_handlers(const gex_AM_Entry_t *table, size_t n)
{
    gex_AM_Entry_t copy;
    for (size_t i = 0; i < n; i++) {
        copy = table[i];
        if (copy.gex_index <= GASNETC_HANDLER_CREDIT_ONLY || copy.gex_index >= GEX_AM_INDEX_BASE)
            gasneti_fatalerror("internal handler %s has index %u outside %d..127 (index %d is "
                               "the verbs credit-only Reply)",
                               copy.gex_name ? copy.gex_name : "(unnamed)",
                               (unsigned)copy.gex_index, GASNETC_HANDLER_CREDIT_ONLY + 1,
                               GASNETC_HANDLER_CREDIT_ONLY);
        if (gasnetc_handlers_register(&gasneti_the_ep, &copy, 1, 1) != GASNET_OK)
            gasneti_fatalerror("cannot register internal handler %u", (unsigned)copy.gex_index);
    }
}

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask)
{
    info->gex_srcrank = token->src;
    info->gex_ep = token->ep;
    info->gex_entry = token->entry;
    info->gex_is_req = token->is_req;
    info->gex_is_long = token->is_long;
    return mask & GEX_TI_ALL;
}

/* ---- invoking a handler with 0..16 arguments ------------------------------- */
typedef gex_AM_Arg_t A_;
#define T0
#define T1 T0, A_
#define T2 T1, A_
#define T3 T2, A_
#define T4 T3, A_
#define T5 T4, A_
#define T6 T5, A_
#define T7 T6, A_
#define T8 T7, A_
#define T9 T8, A_
#define T10 T9, A_
#define T11 T10, A_
#define T12 T11, A_
#define T13 T12, A_
#define T14 T13, A_
#define T15 T14, A_
#define T16 T15, A_
#define V0
#define V1 V0, a[0]
#define V2 V1, a[1]
#define V3 V2, a[2]
#define V4 V3, a[3]
#define V5 V4, a[4]
#define V6 V5, a[5]
#define V7 V6, a[6]
#define V8 V7, a[7]
#define V9 V8, a[8]
#define V10 V9, a[9]
#define V11 V10, a[10]
#define V12 V11, a[11]
#define V13 V12, a[12]
#define V14 V13, a[13]
#define V15 V14, a[14]
#define V16 V15, a[15]
#define CALL(n)                                                                     \
    case n:                                                                         \
        if (is_short)                                                               \
            ((void (*)(gex_Token_t T##n))fn)(tok V##n);                             \
        else                                                                        \
            ((void (*)(gex_Token_t, void *, size_t T##n))fn)(tok, buf, nbytes V##n); \
        break;

static void invoke(gex_AM_Fn_t fn, gex_Token_t tok, int is_short, void *buf, size_t nbytes,
                   unsigned nargs, const gex_AM_Arg_t *a)
{
    switch (nargs) {
        CALL(0) CALL(1) CALL(2) CALL(3) CALL(4) CALL(5) CALL(6) CALL(7) CALL(8)
        CALL(9) CALL(10) CALL(11) CALL(12) CALL(13) CALL(14) CALL(15) CALL(16)
    default: gasneti_fatalerror("AM with %u arguments (max 16): corrupted message", nargs);
    }
}

static const char *category_name(unsigned c)
{
    return c == GASNETC_AM_SHORT ? "Short" : c == GASNETC_AM_MEDIUM ? "Medium" : "Long";
}

/* The receive paths (PSHM: net NULL; verbs: the connection): gasnetc_am_
 * dispatch's checks folded into one table lookup; anything the table
 * refuses goes to gasnetc_am_dispatch, which reports it.  Returns 1 if a
 * Request handler sent a Reply. */
static inline __attribute__((__always_inline__)) int deliver(const gasnetc_am_hdr_t *hdr,
                                                            void *payload, void *net)
{
    unsigned epi = hdr->dst_ep, h = hdr->handler, cat = hdr->category, nargs = hdr->nargs;
    gex_EP_t ep;
    uint32_t a;
    if (__builtin_expect(epi < GASNET_MAXEPS && (ep = gasneti_eps[epi]) != NULL, 1)) {
        a = accept_tab[epi][h];
        if (__builtin_expect(((a >> (cat * 2 + hdr->is_req)) & 1) &&
                                 ((a >> 8) == 0xff || (a >> 8) == nargs),
                             1)) {
            const gex_AM_Entry_t *e = &ep->handlers[h];
            struct gasneti_token_s tok;
            tok.src = hdr->src_rank;
            tok.is_req = hdr->is_req;
            tok.is_long = cat == GASNETC_AM_LONG;
            tok.replied = 0;
            tok.entry = e;
            tok.net = net;
            tok.ep = ep;
            tok.src_ep = hdr->src_ep;
            gex_AM_Fn_t fn = e->gex_fnptr;
            const gex_AM_Arg_t *x = hdr->args;
            void *buf = cat == GASNETC_AM_LONG ? (void *)(uintptr_t)hdr->dest_addr : payload;
            size_t nb = hdr->nbytes;
            gasneti_handler_depth++;
            /* Up to 4 arguments called here (a small frame); more in invoke. */
#define SHORT_FN(...) ((void (*)(gex_Token_t, ##__VA_ARGS__))fn)
#define MEDLONG_FN(...) ((void (*)(gex_Token_t, void *, size_t, ##__VA_ARGS__))fn)
            switch ((cat == GASNETC_AM_SHORT ? 0 : 32) + nargs) { /* nargs <= 16 */
            case 0: SHORT_FN()(&tok); break;
            case 1: SHORT_FN(A_)(&tok, x[0]); break;
            case 2: SHORT_FN(A_, A_)(&tok, x[0], x[1]); break;
            case 3: SHORT_FN(A_, A_, A_)(&tok, x[0], x[1], x[2]); break;
            case 4: SHORT_FN(A_, A_, A_, A_)(&tok, x[0], x[1], x[2], x[3]); break;
            case 32: MEDLONG_FN()(&tok, buf, nb); break;
            case 33: MEDLONG_FN(A_)(&tok, buf, nb, x[0]); break;
            case 34: MEDLONG_FN(A_, A_)(&tok, buf, nb, x[0], x[1]); break;
            case 35: MEDLONG_FN(A_, A_, A_)(&tok, buf, nb, x[0], x[1], x[2]); break;
            case 36: MEDLONG_FN(A_, A_, A_, A_)(&tok, buf, nb, x[0], x[1], x[2], x[3]); break;
            default: invoke(fn, &tok, cat == GASNETC_AM_SHORT, buf, nb, nargs, x); break;
            }
#undef SHORT_FN
#undef MEDLONG_FN
            gasneti_handler_depth--;
            return tok.replied;
        }
    }
    return gasnetc_am_dispatch(hdr, payload, net);
}

void gasnetc_run_as_reply(gex_Token_t token, const gex_AM_Entry_t *e, void *buf, size_t nbytes)
{
    struct gasneti_token_s tok = *token;
    tok.is_req = 0;
    tok.is_long = 0;
    tok.replied = 0;
    tok.entry = e;
    ((void (*)(gex_Token_t, void *, size_t))e->gex_fnptr)(&tok, buf, nbytes);
}

void gasnetc_am_deliver(const gasnetc_am_hdr_t *hdr, void *payload)
{
    (void)deliver(hdr, payload, NULL);
}

int gasnetc_am_deliver_net(const gasnetc_am_hdr_t *hdr, void *payload, void *net)
{
    return deliver(hdr, payload, net);
}

void gasnetc_am_route_eps(gasnetc_am_hdr_t *h, gex_TM_t tm, const char *fn)
{
    h->src_ep = (uint8_t)tm->ep->index;
    h->dst_ep = tm->is_pair ? (uint8_t)tm->pair_ep_idx : 0;
    (void)fn;
}

int gasnetc_am_long_dest_ok(const gasnetc_am_hdr_t *h)
{
    const void *dst = (const void *)(uintptr_t)h->dest_addr;
    if (!h->dst_ep && !gasneti_ep0_bound) return gasnetc_in_segment(gasneti_mynode, dst, h->nbytes);
    gex_EP_t ep = h->dst_ep < GASNET_MAXEPS ? gasneti_eps[h->dst_ep] : NULL;
    gex_Segment_t s = ep ? ep->segment : GEX_SEGMENT_INVALID;
    if (!s) return 0;
    uintptr_t a = (uintptr_t)dst, base = (uintptr_t)s->addr;
    return a >= base && h->nbytes <= s->size && a - base <= s->size - h->nbytes;
}

void gasnetc_am_reply_eps(gasnetc_am_hdr_t *h, gex_Token_t token)
{
    h->src_ep = (uint8_t)token->ep->index;
    h->dst_ep = token->src_ep;
}

int gasnetc_am_dispatch(const gasnetc_am_hdr_t *hdr, void *payload, void *net)
{
    gex_EP_t ep = hdr->dst_ep < GASNET_MAXEPS ? gasneti_eps[hdr->dst_ep] : NULL;
    if (!ep)
        gasneti_fatalerror("AM %s from rank %u names endpoint %u, which does not exist on this "
                           "rank (create it with gex_EP_Create before peers address it)",
                           hdr->is_req ? "Request" : "Reply", hdr->src_rank,
                           (unsigned)hdr->dst_ep);
    const gex_AM_Entry_t *e = &ep->handlers[hdr->handler];
    if (e->gex_fnptr == NULL)
        gasneti_fatalerror("AM %s %s from rank %u names handler index %u, which is not "
                           "registered on this rank (register it before sending to it)",
                           category_name(hdr->category), hdr->is_req ? "Request" : "Reply",
                           hdr->src_rank, hdr->handler);
    gex_Flags_t cat = e->gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG);
    gex_Flags_t want = hdr->category == GASNETC_AM_SHORT    ? GEX_FLAG_AM_SHORT
                       : hdr->category == GASNETC_AM_MEDIUM ? GEX_FLAG_AM_MEDIUM
                                                            : GEX_FLAG_AM_LONG;
    gex_Flags_t rr = e->gex_flags & GEX_FLAG_AM_REQREP;
    if ((cat && !(cat & want)) ||
        (rr && !(rr & (hdr->is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY))) ||
        (cat && e->gex_nargs != hdr->nargs))
        gasneti_fatalerror("AM %s %s with %u args from rank %u invokes handler %u (%s) "
                           "registered with other flags/nargs (%u args)",
                           category_name(hdr->category), hdr->is_req ? "Request" : "Reply",
                           hdr->nargs, hdr->src_rank, hdr->handler,
                           e->gex_name ? e->gex_name : "unnamed", e->gex_nargs);
    struct gasneti_token_s tok;
    tok.src = hdr->src_rank;
    tok.is_req = hdr->is_req;
    tok.is_long = hdr->category == GASNETC_AM_LONG;
    tok.replied = 0;
    tok.entry = e;
    tok.net = net;
    tok.ep = ep;
    tok.src_ep = hdr->src_ep;
    void *buf = hdr->category == GASNETC_AM_LONG ? (void *)(uintptr_t)hdr->dest_addr : payload;
    gasneti_handler_depth++;
    invoke(e->gex_fnptr, &tok, hdr->category == GASNETC_AM_SHORT, buf, hdr->nbytes, hdr->nargs,
           hdr->args);
    gasneti_handler_depth--;
    return tok.replied;
}
