/* gasnet_pshm_inline.h: RMA to a shared-memory neighbour, inlined into the
 * client (included by gasnetex.h; not for direct inclusion).
 *
 * A neighbour's segment is mapped into this process (core/pshm), so a put
 * or get to it is a memcpy.  The library publishes, once segments are
 * attached, a small table: the neighbourhood as a run of consecutive job
 * ranks [first, first + n) and, per neighbour, the owner's segment base,
 * its size and where it is mapped here.  The gex_RMA_* calls below look up
 * that table (gasneti_pshm_xlate: a run test, a team test, a range check)
 * and copy; everything else (another team, a rank outside the run, an
 * address outside the segment, a neighbourhood that is not a run, no
 * segment yet) calls the library's function, which checks its arguments
 * and routes the call.
 *
 * Only the primordial team (&gasneti_the_tm) takes the inline path: its
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

/* The table fills the last 64 bytes of a page of its own (the padding in
 * front is never touched), and the library places seg[] at the end of its
 * page(s) too.  Clients' buffers are mostly page-aligned and most copies
 * start at page offset 0; a load issued right after a copy whose address
 * matches one of the copy's recent stores in the low 12 bits waits for
 * that store (4K aliasing), and the next put or get starts with these
 * loads: at page offset 0x1c0 a 512-byte put took 2.7x memcpy's time.  At
 * the end of the page only copies reaching past 4 KiB - 64 can meet them. */
#define GASNETI_PSHM_RMATAB_PAGE 4096
typedef struct {
    char pad[GASNETI_PSHM_RMATAB_PAGE - 64];
    uint32_t first;     /* job rank of neighbour index 0 */
    uint32_t n;         /* neighbours in the run (0: no inline path) */
    const gasneti_pshm_rmaseg_t *seg;
#if defined(__GNUC__)
} __attribute__((__aligned__(GASNETI_PSHM_RMATAB_PAGE))) gasneti_pshm_rmatab_t;
#else
} gasneti_pshm_rmatab_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif
extern gasneti_pshm_rmatab_t gasneti_pshm_rmatab;
/* Event objects the library has allocated and not freed (kept outside PAR
 * builds): see gasneti_pshm_events_valid. */
extern size_t gasneti_events_live;
/* The primordial team: its gex_TM_t is always this object's address (a
 * link-time constant, so the team test below loads nothing). */
extern struct gasneti_tm_s gasneti_the_tm;
#ifdef __cplusplus
}
#endif

#if defined(GASNETEX_H) && !defined(GASNET_DEBUG) && !defined(GASNETI_BUILDING_LIBRARY) && \
    !defined(GASNETI_PSHM_NO_INLINE)
#define GASNETI_PSHM_INLINE_RMA 1

/* Where [addr, addr+nbytes) of rank's segment is mapped here, or NULL.
 * Declared const (its result depends on its arguments alone: the table is
 * filled once at attach and never shrinks, and an evaluation before that
 * returns NULL, which only sends the call to the library), so a loop that
 * repeats a put or get computes it once instead of after every copy.  Out
 * of line because the attribute only holds for a call.  The team is not an
 * argument: clients keep it in a global, which the compiler reloads after
 * every copy; the caller compares it with a constant.  Design and cost:
 * core/pshm/README "Inline RMA". */
#if defined(__GNUC__)
#define GASNETI_PSHM_XLATE_ATTR __attribute__((__const__, __noinline__, __unused__))
#else
#define GASNETI_PSHM_XLATE_ATTR inline
#endif
static GASNETI_PSHM_XLATE_ATTR void *gasneti_pshm_xlate(uint32_t rank, uintptr_t addr,
                                                        size_t nbytes)
{
    const gasneti_pshm_rmaseg_t *s;
    uint32_t d = rank - gasneti_pshm_rmatab.first;
    uintptr_t off, size;
    if (__builtin_expect(d >= gasneti_pshm_rmatab.n, 0)) return NULL;
    s = &gasneti_pshm_rmatab.seg[d];
    off = addr - s->owner;
    /* 0 until this process maps that segment (at its first use, in the
     * library); then local is set before it. */
    size = __atomic_load_n(&s->size, __ATOMIC_ACQUIRE);
    if (__builtin_expect(off >= size || nbytes > size - off, 0)) return NULL;
    return s->local + off;
}

/* Whether [addr, addr+nbytes) of tm's rank's segment is mapped here; if
 * so *pp says where.  The lookup comes first, unconditionally, so that a
 * loop can compute it before its first turn. */
static inline int gasneti_pshm_rma_at(gex_TM_t tm, gex_Rank_t rank, const void *addr,
                                      size_t nbytes, void **pp)
{
    void *p = gasneti_pshm_xlate((uint32_t)rank, (uintptr_t)addr, nbytes);
    p = tm == &gasneti_the_tm ? p : NULL; /* one test of p below */
    if (__builtin_expect(p == NULL, 0)) return 0;
    *pp = p;
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

/* Copies of up to GASNETI_PSHM_COPY_INLINE bytes are done here, without a
 * call: a library memcpy call costs about 1.7 ns before it copies a byte,
 * more than the whole copy at these sizes, and with the lookup above in
 * front of it a put or get of 1-64 bytes ran 1.3-1.5x memcpy's time.
 * Every size is two overlapping runs, the first and the last k bytes with
 * k = 1, 2, 4, 8, 16 or 32 and k <= n <= 2k, all loads before all stores
 * (16-byte blocks are SSE moves on x86-64 at any -O).  Above that a
 * library memcpy is faster: it has wider vectors than the client's flags
 * may allow (8 16-byte stores for 128 bytes took 1.4x its time).
 * The memcpy class is tested first and laid out as the fall-through, so
 * that a loop of such copies is a tight loop around the call (with the
 * copy's common tail after every size class, an NB loop of 128-byte puts
 * took three taken branches per turn and 1.2x the time); then 8 bytes (the
 * commonest scalar).  With a constant n the tests fold away. */
#define GASNETI_PSHM_COPY_INLINE 64

/* Forced: the copy is larger than the compiler's limit for inlining, and
 * a call is what it is there to save. */
#if defined(__GNUC__)
#define GASNETI_PSHM_ALWAYS_INLINE __attribute__((__always_inline__))
#else
#define GASNETI_PSHM_ALWAYS_INLINE
#endif

#if defined(__GNUC__) && !defined(GASNETI_PSHM_NO_VECTOR_COPY)
typedef unsigned char gasneti_pshm_v16 __attribute__((__vector_size__(16)));
#define GASNETI_PSHM_V16_LOAD(v, p) __builtin_memcpy(&(v), (p), 16)
#define GASNETI_PSHM_V16_STORE(p, v) __builtin_memcpy((p), &(v), 16)
#else
typedef struct { uint64_t w[2]; } gasneti_pshm_v16;
#define GASNETI_PSHM_V16_LOAD(v, p) memcpy(&(v), (p), 16)
#define GASNETI_PSHM_V16_STORE(p, v) memcpy((p), &(v), 16)
#endif

/* k = 1, 2, 4 or 8 bytes at the head and at the tail (k <= n <= 2k). */
#define GASNETI_PSHM_COPY2(T, d, s, n)                      \
    do {                                                    \
        T h_, t_;                                           \
        memcpy(&h_, (s), sizeof(T));                        \
        memcpy(&t_, (s) + (n) - sizeof(T), sizeof(T));      \
        memcpy((d), &h_, sizeof(T));                        \
        memcpy((d) + (n) - sizeof(T), &t_, sizeof(T));      \
    } while (0)

/* n in [16 m, 32 m] for m = 1 or 2 (a constant where called): m 16-byte
 * blocks from the head and m from the tail, written out so that every
 * block stays in a register at any -O. */
static inline GASNETI_PSHM_ALWAYS_INLINE void gasneti_pshm_copy_v16(char *d, const char *s,
                                                                  size_t n, const unsigned m)
{
    gasneti_pshm_v16 h0, h1, t0, t1;
    GASNETI_PSHM_V16_LOAD(h0, s);
    GASNETI_PSHM_V16_LOAD(t0, s + n - 16 * m);
    if (m > 1) {
        GASNETI_PSHM_V16_LOAD(h1, s + 16);
        GASNETI_PSHM_V16_LOAD(t1, s + n - 16 * (m - 1));
    }
    GASNETI_PSHM_V16_STORE(d, h0);
    GASNETI_PSHM_V16_STORE(d + n - 16 * m, t0);
    if (m > 1) {
        GASNETI_PSHM_V16_STORE(d + 16, h1);
        GASNETI_PSHM_V16_STORE(d + n - 16 * (m - 1), t1);
    }
}

static inline GASNETI_PSHM_ALWAYS_INLINE void gasneti_pshm_copy(void *dv, const void *sv,
                                                              size_t n)
{
    char *d = (char *)dv;
    const char *s = (const char *)sv;
    if (__builtin_expect(n > GASNETI_PSHM_COPY_INLINE, 1)) {
        memcpy(d, s, n);
        return;
    }
    if (__builtin_expect(n == 8, 1)) {
        memcpy(d, s, 8);
        return;
    }
    if (n > 32) {
        gasneti_pshm_copy_v16(d, s, n, 2);
    } else if (n > 16) {
        gasneti_pshm_copy_v16(d, s, n, 1);
    } else if (n >= 8) {
        GASNETI_PSHM_COPY2(uint64_t, d, s, n);
    } else if (n >= 4) {
        GASNETI_PSHM_COPY2(uint32_t, d, s, n);
    } else if (n >= 2) {
        GASNETI_PSHM_COPY2(uint16_t, d, s, n);
    } else if (n) {
        *d = *s;
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

/* Waiting for an event the inline path returned: GEX_EVENT_INVALID needs
 * no library call.  WaitAll/TestAll call the library only when some event
 * may be valid: a window of 64 NB puts of 1 byte took 2x memcpy's time with
 * the library's two passes over the array. */
static inline void gasneti_pshm_Event_Wait(gex_Event_t event)
{
    if (event != GEX_EVENT_INVALID) (gex_Event_Wait)(event);
}

static inline int gasneti_pshm_Event_Test(gex_Event_t event)
{
    return event == GEX_EVENT_INVALID ? GASNET_OK : (gex_Event_Test)(event);
}

/* Whether any of the events may be valid.  Outside PAR builds the library
 * counts the event objects it has allocated and not freed
 * (gasneti_events_live): at 0 the client cannot hold a valid event, and
 * the array is not read at all.  Otherwise one pass with four independent
 * ORs (a single OR chain costs a cycle per event: a window of NB puts of
 * 128 B took 1.6x the time of the same loop of memcpy and event stores). */
static inline int gasneti_pshm_events_valid(const gex_Event_t *pevent, size_t numevents)
{
    uintptr_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t n4 = numevents - numevents % 4;
#if !defined(GASNET_PAR)
    if (__builtin_expect(gasneti_events_live == 0, 1)) return 0;
#endif
    for (size_t i = 0; i < n4; i += 4) {
        a0 |= (uintptr_t)pevent[i];
        a1 |= (uintptr_t)pevent[i + 1];
        a2 |= (uintptr_t)pevent[i + 2];
        a3 |= (uintptr_t)pevent[i + 3];
    }
    if (numevents % 4 > 0) a0 |= (uintptr_t)pevent[n4];
    if (numevents % 4 > 1) a1 |= (uintptr_t)pevent[n4 + 1];
    if (numevents % 4 > 2) a2 |= (uintptr_t)pevent[n4 + 2];
    return (a0 | a1 | a2 | a3) != 0;
}

static inline void gasneti_pshm_Event_WaitAll(gex_Event_t *pevent, size_t numevents,
                                              gex_Flags_t flags)
{
    if (gasneti_pshm_events_valid(pevent, numevents))
        (gex_Event_WaitAll)(pevent, numevents, flags);
}

static inline int gasneti_pshm_Event_TestAll(gex_Event_t *pevent, size_t numevents,
                                             gex_Flags_t flags)
{
    if (!gasneti_pshm_events_valid(pevent, numevents)) return GASNET_OK;
    return (gex_Event_TestAll)(pevent, numevents, flags);
}

#define gex_Event_Wait gasneti_pshm_Event_Wait
#define gex_Event_Test gasneti_pshm_Event_Test
#define gex_Event_WaitAll gasneti_pshm_Event_WaitAll
#define gex_Event_TestAll gasneti_pshm_Event_TestAll
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
