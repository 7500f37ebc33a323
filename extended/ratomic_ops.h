/* extended/ratomic_ops.h: the arithmetic of remote atomics, on memory of
 * this process (the target's side of gex_AD, or the initiator's when the
 * target is in its neighbourhood).  Pure functions on a value union; every
 * update is one atomic instruction or a compare-and-swap loop, so that
 * concurrent updates from handlers, threads and PSHM neighbours (which all
 * end here) never lose one.  Floating-point compares (FCAS/CAS) are bitwise.
 */
#ifndef GASNETE_RATOMIC_OPS_H
#define GASNETE_RATOMIC_OPS_H

#include <stdint.h>
#include <string.h>

#include <gasnet_fwd.h>

typedef union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float flt;
    double dbl;
    uint64_t bits; /* the whole union as it travels in AM arguments */
} gasnete_ad_val_t;

/* Bytes of one value of type dt (4 or 8), 0 for an unknown type. */
static inline size_t gasnete_ad_dt_size(gex_DT_t dt)
{
    return (dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT) ? 4
           : (dt == GEX_DT_I64 || dt == GEX_DT_U64 || dt == GEX_DT_DBL) ? 8
                                                                          : 0;
}

/* 1 when op writes the target's previous value to *result_p (the F* forms,
 * GET, SWAP, FCAS); the others ignore result_p. */
static inline int gasnete_ad_is_fetching(gex_OP_t op)
{
    const gex_OP_t fetching = GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_FADD |
                              GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX |
                              GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS;
    return (op & fetching) != 0;
}

/* The operations valid for dt (bitwise ones only for integers). */
static inline gex_OP_t gasnete_ad_ops_for(gex_DT_t dt)
{
    gex_OP_t arith = GEX_OP_ADD | GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX |
                     GEX_OP_INC | GEX_OP_DEC | GEX_OP_SET | GEX_OP_CAS | GEX_OP_GET |
                     GEX_OP_SWAP | GEX_OP_FCAS;
    gex_OP_t bits = GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR;
    arith |= GEX_OP_TO_FETCHING(GEX_OP_ADD | GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX |
                                GEX_OP_INC | GEX_OP_DEC);
    bits |= GEX_OP_TO_FETCHING(bits);
    if (dt == GEX_DT_FLT || dt == GEX_DT_DBL) return arith;
    return gasnete_ad_dt_size(dt) ? (arith | bits) : 0;
}

/* The new value for a read-modify-write op given the old one (SET, SWAP and
 * the CAS pair are handled by the caller).  Integer arithmetic wraps: it is
 * done in the unsigned type U of the same width (floats: U is T). */
#define GASNETE_AD_NEW(T, U, old, op, a)                                             \
    ((op) == GEX_OP_ADD ? (T)((U)(old) + (U)(a))                                   \
     : (op) == GEX_OP_SUB ? (T)((U)(old) - (U)(a))                                  \
     : (op) == GEX_OP_MULT ? (T)((U)(old) * (U)(a))                                 \
     : (op) == GEX_OP_MIN ? ((a) < (old) ? (a) : (old))                             \
     : (op) == GEX_OP_MAX ? ((a) > (old) ? (a) : (old))                             \
     : (op) == GEX_OP_INC ? (T)((U)(old) + (U)1)                                    \
                          : (T)((U)(old) - (U)1))
#define GASNETE_AD_BITS(T, old, op, a) \
    ((op) == GEX_OP_AND ? (T)((old) & (a)) : (op) == GEX_OP_OR ? (T)((old) | (a)) : (T)((old) ^ (a)))

/* One atomic update of the T at p; W is the unsigned integer of T's width.
 * Returns the previous value. */
#define GASNETE_AD_APPLY(T, W, U, field, bitwise)                                              \
    static inline gasnete_ad_val_t gasnete_ad_apply_##field(void *p, gex_OP_t op,           \
                                                             gasnete_ad_val_t a,            \
                                                             gasnete_ad_val_t b)            \
    {                                                                                       \
        W *w = (W *)p, oldw, neww, aw;                                                      \
        gasnete_ad_val_t r;                                                                 \
        r.bits = 0;                                                                         \
        memcpy(&aw, &a.field, sizeof(W));                                                   \
        gex_OP_t nf = GEX_OP_TO_NONFETCHING(op);                                            \
        if (nf == GEX_OP_GET) {                                                             \
            oldw = __atomic_load_n(w, __ATOMIC_SEQ_CST);                                    \
        } else if (nf == GEX_OP_SET || nf == GEX_OP_SWAP) {                                 \
            oldw = __atomic_exchange_n(w, aw, __ATOMIC_SEQ_CST);                            \
        } else if (nf == GEX_OP_CAS || nf == GEX_OP_FCAS) {                                 \
            memcpy(&neww, &b.field, sizeof(W));                                             \
            oldw = aw;                                                                      \
            __atomic_compare_exchange_n(w, &oldw, neww, 0, __ATOMIC_SEQ_CST,                \
                                        __ATOMIC_SEQ_CST);                                  \
        } else {                                                                            \
            oldw = __atomic_load_n(w, __ATOMIC_RELAXED);                                    \
            do {                                                                            \
                T o, n;                                                                     \
                memcpy(&o, &oldw, sizeof(T));                                               \
                n = (bitwise && (nf & (GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR)))               \
                        ? GASNETE_AD_BITS_##field(o, nf, a.field)                           \
                        : GASNETE_AD_NEW(T, U, o, nf, a.field);                                \
                memcpy(&neww, &n, sizeof(W));                                               \
            } while (!__atomic_compare_exchange_n(w, &oldw, neww, 0, __ATOMIC_SEQ_CST,      \
                                                  __ATOMIC_RELAXED));                       \
        }                                                                                   \
        memcpy(&r.field, &oldw, sizeof(W));                                                 \
        return r;                                                                           \
    }

#define GASNETE_AD_BITS_i32(o, op, a) GASNETE_AD_BITS(int32_t, o, op, a)
#define GASNETE_AD_BITS_u32(o, op, a) GASNETE_AD_BITS(uint32_t, o, op, a)
#define GASNETE_AD_BITS_i64(o, op, a) GASNETE_AD_BITS(int64_t, o, op, a)
#define GASNETE_AD_BITS_u64(o, op, a) GASNETE_AD_BITS(uint64_t, o, op, a)
#define GASNETE_AD_BITS_flt(o, op, a) (o)
#define GASNETE_AD_BITS_dbl(o, op, a) (o)

GASNETE_AD_APPLY(int32_t, uint32_t, uint32_t, i32, 1)
GASNETE_AD_APPLY(uint32_t, uint32_t, uint32_t, u32, 1)
GASNETE_AD_APPLY(int64_t, uint64_t, uint64_t, i64, 1)
GASNETE_AD_APPLY(uint64_t, uint64_t, uint64_t, u64, 1)
GASNETE_AD_APPLY(float, uint32_t, float, flt, 0)
GASNETE_AD_APPLY(double, uint64_t, double, dbl, 0)

/* Applies op to the value of type dt at p; returns the previous value. */
static inline gasnete_ad_val_t gasnete_ad_apply(gex_DT_t dt, void *p, gex_OP_t op,
                                                gasnete_ad_val_t a, gasnete_ad_val_t b)
{
    switch (dt) {
    case GEX_DT_I32: return gasnete_ad_apply_i32(p, op, a, b);
    case GEX_DT_U32: return gasnete_ad_apply_u32(p, op, a, b);
    case GEX_DT_I64: return gasnete_ad_apply_i64(p, op, a, b);
    case GEX_DT_U64: return gasnete_ad_apply_u64(p, op, a, b);
    case GEX_DT_FLT: return gasnete_ad_apply_flt(p, op, a, b);
    default: return gasnete_ad_apply_dbl(p, op, a, b);
    }
}

#endif /* GASNETE_RATOMIC_OPS_H */
