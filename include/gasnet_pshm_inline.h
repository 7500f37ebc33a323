/* gasnet_pshm_inline.h: RMA to a shared-memory neighbour, inlined into the
 * client (included by gasnetex.h; not for direct inclusion).
 *
 * A neighbour's segment is mapped into this process (core/pshm), so a put
 * or get to it is a memcpy.  The library publishes, once segments are
 * attached, a small table: the neighbourhood as a run of consecutive job
 * ranks [first, first + n) and, per neighbour, the owner's segment base,
 * its size and where it is mapped here.  The gex_RMA_* calls below look up
 * that table (one load of the table, one range check) and copy; everything
 * else (another team, a rank outside the run, an address outside the
 * segment, a neighbourhood that is not a run, no segment yet) calls the
 * library's function, which checks its arguments and routes the call.
 *
 * Only the primordial team (gasneti_thunk_tm) takes the inline path: its
 * ranks are job ranks.  Debug builds (GASNET_DEBUG) and the library itself
 * always call the functions, so that every argument is checked there.
 * Completion: a copy is complete on return, so NB forms return
 * GEX_EVENT_INVALID and set an lc event to GEX_EVENT_INVALID, as the library
 * does (extended/rma.c).  Design notes: core/pshm/README "Inline RMA".
 */
#ifndef GASNET_PSHM_INLINE_H
#define GASNET_PSHM_INLINE_H

#include <stdint.h>
#include <string.h>

/* One neighbour's segment, for the inline path. */
typedef struct {
    uintptr_t owner; /* its base address in the owner's process */
    uintptr_t size;  /* bytes (0: none) */
    char *local;     /* where this process maps it */
} gasneti_pshm_rmaseg_t;

typedef struct {
    uint32_t first; /* job rank of neighbour index 0 */
    uint32_t n;     /* neighbours in the run (0: no inline path) */
    const gasneti_pshm_rmaseg_t *seg;
} gasneti_pshm_rmatab_t;

#ifdef __cplusplus
extern "C" {
#endif
extern gasneti_pshm_rmatab_t gasneti_pshm_rmatab;
#ifdef __cplusplus
}
#endif

#if defined(GASNETEX_H) && !defined(GASNET_DEBUG) && !defined(GASNETI_BUILDING_LIBRARY) && \
    !defined(GASNETI_PSHM_NO_INLINE)
#define GASNETI_PSHM_INLINE_RMA 1

GASNETI_BEGIN_EXTERNC
extern gex_TM_t gasneti_thunk_tm;
GASNETI_END_EXTERNC

/* Whether [addr, addr+nbytes) of rank's segment is mapped here; if so *pp
 * says where.  A flag and an out-parameter rather than a pointer or NULL:
 * inlined, the caller's test is the range check itself, with no second test
 * of the pointer (one compare and branch less per put or get). */
static inline int gasneti_pshm_rma_at(gex_TM_t tm, gex_Rank_t rank, const void *addr,
                                      size_t nbytes, void **pp)
{
    const gasneti_pshm_rmaseg_t *s;
    uint32_t d = (uint32_t)rank - gasneti_pshm_rmatab.first;
    uintptr_t off;
    if (__builtin_expect(d >= gasneti_pshm_rmatab.n || tm != gasneti_thunk_tm, 0)) return 0;
    s = &gasneti_pshm_rmatab.seg[d];
    off = (uintptr_t)addr - s->owner;
    if (__builtin_expect(off >= s->size || nbytes > s->size - off, 0)) return 0;
    *pp = s->local + off;
    return 1;
}

/* Loads/stores a Value of nbytes (1, 2, 4 or 8) at p; 0 if another size. */
static inline int gasneti_pshm_val_get(const void *p, size_t nbytes, gex_RMA_Value_t *v)
{
    switch (nbytes) {
    case 1: { uint8_t x; memcpy(&x, p, 1); *v = x; return 1; }
    case 2: { uint16_t x; memcpy(&x, p, 2); *v = x; return 1; }
    case 4: { uint32_t x; memcpy(&x, p, 4); *v = x; return 1; }
    case 8: { uint64_t x; memcpy(&x, p, 8); *v = x; return 1; }
    default: return 0;
    }
}

static inline int gasneti_pshm_val_put(void *p, size_t nbytes, gex_RMA_Value_t v)
{
    switch (nbytes) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); return 1; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); return 1; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); return 1; }
    case 8: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); return 1; }
    default: return 0;
    }
}

/* memcpy of n bytes; the common scalar sizes become one load and one store
 * even when n is only known at run time (a library memcpy call costs more
 * than the copy at these sizes).  With a constant n the tests fold away;
 * with a run-time n, 8 bytes (the commonest scalar) is the straight-line
 * path, with no taken branch. */
static inline void gasneti_pshm_copy(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n == 8, 1)) {
        memcpy(d, s, 8);
        return;
    }
    switch (n) {
    case 4: memcpy(d, s, 4); return;
    case 16: memcpy(d, s, 16); return;
    default: memcpy(d, s, n); return;
    }
}

static inline void gasneti_pshm_lc_done(gex_Event_t *lc_opt)
{
    if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER) *lc_opt = GEX_EVENT_INVALID;
}

/* The function names in parentheses below are the library's functions (a
 * parenthesised name is not a macro call). */
static inline int gasneti_pshm_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                           const void *src, size_t nbytes, gex_Flags_t flags)
{
    void *p;
    if (!gasneti_pshm_rma_at(tm, rank, dest, nbytes, &p))
        return (gex_RMA_PutBlocking)(tm, rank, dest, src, nbytes, flags);
    gasneti_pshm_copy(p, src, nbytes);
    return 0;
}

static inline int gasneti_pshm_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                      const void *src, size_t nbytes, gex_Event_t *lc_opt,
                                      gex_Flags_t flags)
{
    void *p;
    if (!gasneti_pshm_rma_at(tm, rank, dest, nbytes, &p))
        return (gex_RMA_PutNBI)(tm, rank, dest, src, nbytes, lc_opt, flags);
    gasneti_pshm_copy(p, src, nbytes);
    return 0;
}

static inline gex_Event_t gasneti_pshm_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                             const void *src, size_t nbytes,
                                             gex_Event_t *lc_opt, gex_Flags_t flags)
{
    void *p;
    if (!gasneti_pshm_rma_at(tm, rank, dest, nbytes, &p))
        return (gex_RMA_PutNB)(tm, rank, dest, src, nbytes, lc_opt, flags);
    gasneti_pshm_copy(p, src, nbytes);
    gasneti_pshm_lc_done(lc_opt);
    return GEX_EVENT_INVALID;
}

static inline int gasneti_pshm_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                           size_t nbytes, gex_Flags_t flags)
{
    void *p;
    if (!gasneti_pshm_rma_at(tm, rank, src, nbytes, &p))
        return (gex_RMA_GetBlocking)(tm, dest, rank, src, nbytes, flags);
    gasneti_pshm_copy(dest, p, nbytes);
    return 0;
}

static inline int gasneti_pshm_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                      size_t nbytes, gex_Flags_t flags)
{
    void *p;
    if (!gasneti_pshm_rma_at(tm, rank, src, nbytes, &p))
        return (gex_RMA_GetNBI)(tm, dest, rank, src, nbytes, flags);
    gasneti_pshm_copy(dest, p, nbytes);
    return 0;
}

static inline gex_Event_t gasneti_pshm_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank,
                                             void *src, size_t nbytes, gex_Flags_t flags)
{
    void *p;
    if (!gasneti_pshm_rma_at(tm, rank, src, nbytes, &p))
        return (gex_RMA_GetNB)(tm, dest, rank, src, nbytes, flags);
    gasneti_pshm_copy(dest, p, nbytes);
    return GEX_EVENT_INVALID;
}

static inline gex_RMA_Value_t gasneti_pshm_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank,
                                                          void *src, size_t nbytes,
                                                          gex_Flags_t flags)
{
    gex_RMA_Value_t v;
    void *p;
    if (gasneti_pshm_rma_at(tm, rank, src, nbytes, &p) &&
        gasneti_pshm_val_get(p, nbytes, &v))
        return v;
    return (gex_RMA_GetBlockingVal)(tm, rank, src, nbytes, flags);
}

static inline int gasneti_pshm_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                              gex_RMA_Value_t value, size_t nbytes,
                                              gex_Flags_t flags)
{
    void *p;
    if (gasneti_pshm_rma_at(tm, rank, dest, nbytes, &p) &&
        gasneti_pshm_val_put(p, nbytes, value))
        return 0;
    return (gex_RMA_PutBlockingVal)(tm, rank, dest, value, nbytes, flags);
}

static inline int gasneti_pshm_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                         gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags)
{
    void *p;
    if (gasneti_pshm_rma_at(tm, rank, dest, nbytes, &p) &&
        gasneti_pshm_val_put(p, nbytes, value))
        return 0;
    return (gex_RMA_PutNBIVal)(tm, rank, dest, value, nbytes, flags);
}

static inline gex_Event_t gasneti_pshm_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                                gex_RMA_Value_t value, size_t nbytes,
                                                gex_Flags_t flags)
{
    void *p;
    if (gasneti_pshm_rma_at(tm, rank, dest, nbytes, &p) &&
        gasneti_pshm_val_put(p, nbytes, value))
        return GEX_EVENT_INVALID;
    return (gex_RMA_PutNBVal)(tm, rank, dest, value, nbytes, flags);
}

#define gex_RMA_PutBlocking gasneti_pshm_PutBlocking
#define gex_RMA_PutNBI gasneti_pshm_PutNBI
#define gex_RMA_PutNB gasneti_pshm_PutNB
#define gex_RMA_GetBlocking gasneti_pshm_GetBlocking
#define gex_RMA_GetNBI gasneti_pshm_GetNBI
#define gex_RMA_GetNB gasneti_pshm_GetNB
#define gex_RMA_GetBlockingVal gasneti_pshm_GetBlockingVal
#define gex_RMA_PutBlockingVal gasneti_pshm_PutBlockingVal
#define gex_RMA_PutNBIVal gasneti_pshm_PutNBIVal
#define gex_RMA_PutNBVal gasneti_pshm_PutNBVal

#endif /* inline path enabled */
#endif /* GASNET_PSHM_INLINE_H */
