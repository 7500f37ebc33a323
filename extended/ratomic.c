/* extended/ratomic.c: remote atomics (gex_AD_*).
 *
 * Every operation on an atomic domain ends in gasnete_ad_apply (ratomic_ops.h)
 * on the target process's memory:
 *   - target in this process's neighbourhood (self or PSHM): applied here,
 *     through the mapped segment, and complete on return;
 *   - any other rank: an AM Request (Short, 10 arguments: op, type, address,
 *     both operands, ticket) whose handler applies it and answers with the
 *     previous value and the ticket; the Reply handler delivers the value
 *     through the in-flight record the ticket names (ratomic_flight.h),
 *     which alone knows where the result goes and how wide it is.
 * Both paths use the same atomic instructions on the same memory, so they
 * are coherent with each other (the "AM-based" implementation GASNet uses
 * when the NIC offers no usable atomics; verbs atomics are 64-bit only and
 * not coherent with CPU atomics, so they are not used).
 *
 * Results: a fetching operation writes exactly the domain's type size at
 * result_p, before its completion is signalled; a non-fetching one never
 * touches result_p (the specification: "ignored").  Completion: NB
 * operations get an event from the thread's pool; NBI ones count in the
 * current NBI set's GEX_EC_RMW counter and, for SET and GET, also in
 * GEX_EC_PUT and GEX_EC_GET respectively, the categories the specification
 * names for them, so a wait on any of those covers the result.
 */
#include "extended/extended_internal.h"
#include "extended/ratomic_flight.h"
#include "extended/ratomic_ops.h"

#include <gasnet_ratomic.h>
#include <stdlib.h>

#define GASNETE_AD_REQ_HIDX (GASNETE_HANDLER_BASE + 8)
#define GASNETE_AD_REP_HIDX (GASNETE_HANDLER_BASE + 9)

struct gasneti_ad_s {
    gex_TM_t tm;
    gex_DT_t dt;
    gex_OP_t ops;
    gex_Flags_t flags;
    void *cdata;
};

#define LO(x) ((gex_AM_Arg_t)(uint32_t)(uint64_t)(x))
#define HI(x) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(x) >> 32))
#define JOIN(lo, hi) ((uint64_t)(uint32_t)(lo) | ((uint64_t)(uint32_t)(hi) << 32))

static void ad_reqh(gex_Token_t t, gex_AM_Arg_t op, gex_AM_Arg_t dt, gex_AM_Arg_t a_lo,
                    gex_AM_Arg_t a_hi, gex_AM_Arg_t x_lo, gex_AM_Arg_t x_hi, gex_AM_Arg_t y_lo,
                    gex_AM_Arg_t y_hi, gex_AM_Arg_t index, gex_AM_Arg_t gen)
{
    gasnete_ad_val_t x, y;
    x.bits = JOIN(x_lo, x_hi);
    y.bits = JOIN(y_lo, y_hi);
    void *addr = (void *)(uintptr_t)JOIN(a_lo, a_hi);
    gasnete_ad_val_t old = gasnete_ad_apply((gex_DT_t)dt, addr, (gex_OP_t)op, x, y);
    gasnetc_AM_ReplyShort(t, GASNETE_AD_REP_HIDX, 4, 0, LO(old.bits), HI(old.bits), index, gen);
}

static void ad_reph(gex_Token_t t, gex_AM_Arg_t v_lo, gex_AM_Arg_t v_hi, gex_AM_Arg_t index,
                    gex_AM_Arg_t gen)
{
    (void)t;
    gasnete_ad_val_t v;
    v.bits = JOIN(v_lo, v_hi);
    gasnete_ad_ticket_t k = {(uint32_t)index, (uint32_t)gen};
    gasnete_ad_flight_end(k, v);
}

void gasnete_ratomic_init(void)
{
    static gex_AM_Entry_t table[] = {
        {GASNETE_AD_REQ_HIDX, (gex_AM_Fn_t)ad_reqh, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 10,
         NULL, "gasnete_ad_reqh"},
        {GASNETE_AD_REP_HIDX, (gex_AM_Fn_t)ad_reph, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 4, NULL,
         "gasnete_ad_reph"},
    };
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
}

/* ---- domains ----------------------------------------------------------------------- */

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    if (!ad_p) gasneti_fatalerror("gex_AD_Create: ad_p is NULL");
    if (tm == GEX_TM_INVALID) gasneti_fatalerror("gex_AD_Create: tm is GEX_TM_INVALID");
    if (!gasnete_ad_dt_size(dt))
        gasneti_fatalerror("gex_AD_Create: dt=0x%x is not one of GEX_DT_I32/U32/I64/U64/FLT/DBL",
                           (unsigned)dt);
    gex_OP_t bad = ops & ~gasnete_ad_ops_for(dt);
    if (bad)
        gasneti_fatalerror("gex_AD_Create: ops 0x%x are not valid for dt=0x%x (bitwise operations "
                           "need an integer type; GEX_OP_USER is not supported)",
                           (unsigned)bad, (unsigned)dt);
    struct gasneti_ad_s *ad = calloc(1, sizeof(*ad));
    if (!ad) gasneti_fatalerror("gex_AD_Create: out of memory");
    ad->tm = tm;
    ad->dt = dt;
    ad->ops = ops;
    ad->flags = flags;
    *ad_p = ad;
    /* Collective: nobody targets the domain before every member created it. */
    (void)gex_Coll_BarrierBlocking(tm, 0);
}

void gex_AD_Destroy(gex_AD_t ad)
{
    if (ad == GEX_AD_INVALID) gasneti_fatalerror("gex_AD_Destroy: ad is GEX_AD_INVALID");
    (void)gex_Coll_BarrierBlocking(ad->tm, 0);
    free(ad);
}

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return ad->flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return ad->tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return ad->dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return ad->ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val) { ad->cdata = (void *)val; }
void *gex_AD_QueryCData(gex_AD_t ad) { return ad->cdata; }

/* ---- operations -------------------------------------------------------------------- */

/* Starts op on (rank, addr), counted in c0 (and c1 when not NULL) if it
 * travels; returns 1 when it completed here (neighbourhood target). */
static int ad_start(gex_AD_t ad, void *result_p, gex_Rank_t rank, void *addr, gex_OP_t op,
                    gasnete_ad_val_t x, gasnete_ad_val_t y, gex_Flags_t flags,
                    gasnete_ctr_t *c0, gasnete_ctr_t *c1, const char *fn)
{
    const int fetching = gasnete_ad_is_fetching(op);
    if (GASNETE_CHECKS) {
        if (ad == GEX_AD_INVALID) gasneti_fatalerror("%s: ad is GEX_AD_INVALID", fn);
        if (!op || (op & (op - 1)) || !(op & ad->ops))
            gasneti_fatalerror("%s: opcode 0x%x is not one operation of the domain's ops 0x%x", fn,
                               (unsigned)op, (unsigned)ad->ops);
        if (fetching && !result_p)
            gasneti_fatalerror("%s: opcode 0x%x fetches a value, but result_p is NULL", fn,
                               (unsigned)op);
        if (gasnetc_in_handler())
            gasneti_fatalerror("%s called from an AM handler (not allowed)", fn);
    }
    gex_Rank_t jr = (flags & GEX_FLAG_RANK_IS_JOBRANK) ? rank
                                                       : gasnetc_tm_to_jobrank(ad->tm, rank);
    size_t sz = gasnete_ad_dt_size(ad->dt);
    if (GASNETE_CHECKS && ((uintptr_t)addr % sz))
        gasneti_fatalerror("%s: tgt_addr %p is not %zu-byte aligned", fn, addr, sz);
    if (gasnetc_is_local(jr)) {
        void *p = gasnetc_local_addr(jr, addr, sz);
        if (!p)
            gasneti_fatalerror("%s: [%p, +%zu) is outside rank %u's segment", fn, addr, sz,
                               (unsigned)jr);
        if (flags & GEX_FLAG_AD_REL) __atomic_thread_fence(__ATOMIC_RELEASE);
        gasnete_ad_val_t old = gasnete_ad_apply(ad->dt, p, op, x, y);
        if (fetching) memcpy(result_p, &old, sz); /* every member starts at byte 0 */
        if (flags & GEX_FLAG_AD_ACQ) __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return 1;
    }
    if (GASNETE_CHECKS && !gasnetc_in_segment(jr, addr, sz))
        gasneti_fatalerror("%s: [%p, +%zu) is outside rank %u's segment", fn, addr, sz,
                           (unsigned)jr);
    gasnete_ad_ticket_t k = gasnete_ad_flight_begin(result_p, fetching ? sz : 0, c0, c1);
    gasnetc_AM_RequestShort(&gasneti_the_tm, jr, GASNETE_AD_REQ_HIDX, 10, 0, (gex_AM_Arg_t)op,
                            (gex_AM_Arg_t)ad->dt, LO(addr), HI(addr), LO(x.bits), HI(x.bits),
                            LO(y.bits), HI(y.bits), (gex_AM_Arg_t)k.index, (gex_AM_Arg_t)k.gen);
    return 0;
}

static gex_Event_t ad_nb(gex_AD_t ad, void *result_p, gex_Rank_t rank, void *addr, gex_OP_t op,
                         gasnete_ad_val_t x, gasnete_ad_val_t y, gex_Flags_t flags, const char *fn)
{
    gasnete_op_t *o = gasnete_op_alloc(gasnete_mythread());
    if (ad_start(ad, result_p, rank, addr, op, x, y, flags, &o->op, NULL, fn) ||
        gasnete_op_complete(o)) {
        gasnete_op_free(o);
        return GEX_EVENT_INVALID;
    }
    return &o->ev;
}

/* NBI: GEX_EC_RMW, plus the category the specification names for SET and
 * GET (GEX_EC_PUT, GEX_EC_GET). */
static int ad_nbi(gex_AD_t ad, void *result_p, gex_Rank_t rank, void *addr, gex_OP_t op,
                  gasnete_ad_val_t x, gasnete_ad_val_t y, gex_Flags_t flags, const char *fn)
{
    gasnete_iop_t *iop = gasnete_current_iop(gasnete_mythread());
    gasnete_ctr_t *also = op == GEX_OP_SET ? &iop->put : op == GEX_OP_GET ? &iop->get : NULL;
    (void)ad_start(ad, result_p, rank, addr, op, x, y, flags, &iop->rmw, also, fn);
    return 0;
}

/* The operands as values, after checking the domain's type. */
#define GASNETE_AD_OPERANDS(field, DT, fname)                                                 \
    gasnete_ad_val_t x, y;                                                                    \
    x.bits = y.bits = 0;                                                                      \
    x.field = operand1;                                                                       \
    y.field = operand2;                                                                       \
    if (GASNETE_CHECKS && ad != GEX_AD_INVALID && ad->dt != DT)                               \
        gasneti_fatalerror("%s: the domain's type is 0x%x", fname, (unsigned)ad->dt)

#define GASNETE_AD_TYPED(TY, T, field, DT)                                                      \
    gex_Event_t gex_AD_OpNB_##TY(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank, void *tgt_addr, \
                                 gex_OP_t opcode, T operand1, T operand2, gex_Flags_t flags)    \
    {                                                                                           \
        GASNETE_AD_OPERANDS(field, DT, "gex_AD_OpNB_" #TY);                                     \
        return ad_nb(ad, result_p, tgt_rank, tgt_addr, opcode, x, y, flags,                     \
                     "gex_AD_OpNB_" #TY);                                                       \
    }                                                                                           \
    int gex_AD_OpNBI_##TY(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank, void *tgt_addr,        \
                          gex_OP_t opcode, T operand1, T operand2, gex_Flags_t flags)           \
    {                                                                                           \
        GASNETE_AD_OPERANDS(field, DT, "gex_AD_OpNBI_" #TY);                                    \
        return ad_nbi(ad, result_p, tgt_rank, tgt_addr, opcode, x, y, flags,                    \
                      "gex_AD_OpNBI_" #TY);                                                     \
    }

GASNETE_AD_TYPED(I32, int32_t, i32, GEX_DT_I32)
GASNETE_AD_TYPED(U32, uint32_t, u32, GEX_DT_U32)
GASNETE_AD_TYPED(I64, int64_t, i64, GEX_DT_I64)
GASNETE_AD_TYPED(U64, uint64_t, u64, GEX_DT_U64)
GASNETE_AD_TYPED(FLT, float, flt, GEX_DT_FLT)
GASNETE_AD_TYPED(DBL, double, dbl, GEX_DT_DBL)
