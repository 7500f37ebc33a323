/* gasnet_tools_conduit.h: the gasnet_tools.h services that need the conduit
 * library (gasnetex.h): gasnett_mmap, the mask and VIS printers,
 * gasnett_run_diagnostics, value copies and GASNETT_MAX_THREADS.
 * gasnet_tools.h includes it once gasnet_fwd.h is in (also when
 * gasnet_tools.h came before gasnetex.h); not meant to be included
 * directly. */
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_conduit.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif
#ifdef GASNETT_LITE_MODE
#error GASNETT_LITE_MODE is for tools-only objects, not for those including gasnetex.h
#endif
#define GASNETI_TOOLS_CONDUIT_PART 1
GASNETT_BEGIN_EXTERNC
/* Maps segsize bytes of fresh zeroed memory (fatal error on failure). */
#undef gasnett_mmap
extern void *gasnett_mmap(uintptr_t segsize);

/* Writes the names of the bits set in dt / op / ti ("GEX_DT_I32|GEX_DT_U64",
 * "0" for none) to buf; returns the length needed (buf NULL: only that). */
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);

/* Descriptions of VIS transfers, as GASNet's tracing prints them: each
 * printer writes at most its _bufsz(...) bytes (NUL included) to buf.
 * The list printers return the bounds (and total size) of the list; the
 * put/get printers return the number of data bytes moved.  pstats of
 * format_putsgets is GASNet-internal and ignored here. */
typedef struct {
    void *_minaddr; /* lowest byte addressed (NULL for an empty list) */
    void *_maxaddr; /* highest byte addressed */
    size_t _totalsz;
} gasneti_memveclist_stats_t;
typedef struct {
    void *_minaddr;
    void *_maxaddr;
} gasneti_addrlist_stats_t;
extern size_t gasnett_format_memveclist_bufsz(size_t count);
extern gasneti_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                            gex_Memvec_t const *list);
extern size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      gex_Memvec_t const dstlist[], size_t srccount,
                                      gex_Memvec_t const srclist[]);
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern gasneti_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count,
                                                        void *const *list, size_t len);
extern size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen);
extern size_t gasnett_format_strides_bufsz(size_t count);
extern void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels);

/* Self-test of the tools and of communication with peer: iters rounds of
 * atomics, locks and timers in threadcnt threads, then puts and gets of
 * peerseg (the peer's segment, myseg ours) over myteam.  testsections:
 * NULL or "" for all, else the letters of the sections to run ("A" tools,
 * "B" threads, "C" RMA).  Collective over myteam.  Returns 0 if all passed. */
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   gex_TM_t myteam, void *myseg, gex_Rank_t peer, void *peerseg);
/* The AM handlers gasnett_run_diagnostics needs registered (none here). */
extern void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt);

#define GASNETT_FAST_ALIGNED_MEMCPY(dst, src, nbytes) ((void)memcpy((dst), (src), (nbytes)))
#define GASNETT_FAST_UNALIGNED_MEMCPY(dst, src, nbytes) ((void)memcpy((dst), (src), (nbytes)))
/* Stores the low nbytes of a gex_RMA_Value_t at dest / returns (a
 * statement with return) the nbytes at src as a gex_RMA_Value_t. */
#define GASNETT_VALUE_ASSIGN(dest, value, nbytes)                                       \
    do {                                                                                \
        switch (nbytes) {                                                               \
        case 1: *(uint8_t *)(dest) = (uint8_t)(value); break;                           \
        case 2: *(uint16_t *)(dest) = (uint16_t)(value); break;                         \
        case 4: *(uint32_t *)(dest) = (uint32_t)(value); break;                         \
        case 8: *(uint64_t *)(dest) = (uint64_t)(value); break;                         \
        default: { gex_RMA_Value_t gasneti_v_ = (value);                                \
                   memcpy((dest), &gasneti_v_, (nbytes)); } break;                      \
        }                                                                               \
    } while (0)
#define GASNETT_VALUE_RETURN(src, nbytes)                                               \
    do {                                                                                \
        switch (nbytes) {                                                               \
        case 1: return (gex_RMA_Value_t) * (const uint8_t *)(src);                      \
        case 2: return (gex_RMA_Value_t) * (const uint16_t *)(src);                     \
        case 4: return (gex_RMA_Value_t) * (const uint32_t *)(src);                     \
        case 8: return (gex_RMA_Value_t) * (const uint64_t *)(src);                     \
        default: { gex_RMA_Value_t gasneti_v_ = 0;                                      \
                   memcpy(&gasneti_v_, (src), (nbytes)); return gasneti_v_; }           \
        }                                                                               \
    } while (0)
/* Most client threads that may use the library at once (gasnetex.h). */
#define GASNETT_MAX_THREADS GASNETI_MAX_THREADS
GASNETT_END_EXTERNC
