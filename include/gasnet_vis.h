/* gasnet_vis.h: Vector / Indexed / Strided RMA (GASNet-EX spec, "VIS"),
 * plus the GASNet-1 VIS prototype calls (gasnet_{put,get}{v,i,s}_*).
 *
 * Semantics: docs/GASNet-EX.txt of BerkeleyLab/gasnet.  NB forms return an
 * event, NBI and Blocking forms return 0 (IMMEDIATE is accepted and
 * ignored).  Strided metadata arrays are consumed before the call returns;
 * payload buffers and vector/indexed lists must stay valid until completion.
 * gex_VIS_SetPeerCompletionHandler arms a notification for the calling
 * thread's next VIS Put.
 */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H

#include <gasnetex.h>
#include <stddef.h>

GASNETI_BEGIN_EXTERNC

/* Largest client payload of a VIS peer-completion notification. */
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)127)
/* Arms (handler != 0) or disarms (0) a peer-completion notification for the
 * calling thread's next VIS Put: once its data is complete at the peer,
 * handler (registered there as a 0-argument Medium Reply handler) runs at
 * the peer with the nbytes at source_addr (read before the Put returns).
 * With peer completion armed, the Put completes before its call returns.
 * flags: reserved, 0. */
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);

/* ---- vector ------------------------------------------------------------------ */
extern gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                       gex_Memvec_t const dstlist[], size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                     gex_Memvec_t const dstlist[], size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount,
                                       gex_Memvec_t const dstlist[], gex_Rank_t srcrank,
                                       size_t srccount, gex_Memvec_t const srclist[],
                                       gex_Flags_t flags);
extern int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount,
                                     gex_Memvec_t const dstlist[], gex_Rank_t srcrank,
                                     size_t srccount, gex_Memvec_t const srclist[],
                                     gex_Flags_t flags);

/* ---- indexed ------------------------------------------------------------------ */
extern gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                        void *const dstlist[], size_t dstlen, size_t srccount,
                                        void *const srclist[], size_t srclen,
                                        gex_Flags_t flags);
extern int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                        size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                        void *const srclist[], size_t srclen,
                                        gex_Flags_t flags);
extern int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                      size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);

/* ---- strided (EX layout: elemsz separate, count[stridelevels]) ------------------ */
extern gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                        const ptrdiff_t dststrides[], void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                      const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr,
                                        const ptrdiff_t dststrides[], gex_Rank_t srcrank,
                                        void *srcaddr, const ptrdiff_t srcstrides[],
                                        size_t elemsz, const size_t count[],
                                        size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr,
                                      const ptrdiff_t dststrides[], gex_Rank_t srcrank,
                                      void *srcaddr, const ptrdiff_t srcstrides[],
                                      size_t elemsz, const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);

/* ---- GASNet-1 VIS prototype (available when gasnet.h is included too) ---------- */
#ifdef _IN_GASNET_H
/* vector: gasnet_memvec_t has the layout of gex_Memvec_t */
#define gasnet_putv_bulk(node, dc, dl, sc, sl) \
    ((void)gex_VIS_VectorPutBlocking(gasneti_thunk_tm, (node), (dc), (const gex_Memvec_t *)(dl), (sc), (const gex_Memvec_t *)(sl), 0))
#define gasnet_putv_nb_bulk(node, dc, dl, sc, sl) \
    gex_VIS_VectorPutNB(gasneti_thunk_tm, (node), (dc), (const gex_Memvec_t *)(dl), (sc), (const gex_Memvec_t *)(sl), 0)
#define gasnet_putv_nbi_bulk(node, dc, dl, sc, sl) \
    ((void)gex_VIS_VectorPutNBI(gasneti_thunk_tm, (node), (dc), (const gex_Memvec_t *)(dl), (sc), (const gex_Memvec_t *)(sl), 0))
#define gasnet_getv_bulk(dc, dl, node, sc, sl) \
    ((void)gex_VIS_VectorGetBlocking(gasneti_thunk_tm, (dc), (const gex_Memvec_t *)(dl), (node), (sc), (const gex_Memvec_t *)(sl), 0))
#define gasnet_getv_nb_bulk(dc, dl, node, sc, sl) \
    gex_VIS_VectorGetNB(gasneti_thunk_tm, (dc), (const gex_Memvec_t *)(dl), (node), (sc), (const gex_Memvec_t *)(sl), 0)
#define gasnet_getv_nbi_bulk(dc, dl, node, sc, sl) \
    ((void)gex_VIS_VectorGetNBI(gasneti_thunk_tm, (dc), (const gex_Memvec_t *)(dl), (node), (sc), (const gex_Memvec_t *)(sl), 0))
/* indexed */
#define gasnet_puti_bulk(node, dc, dl, dlen, sc, sl, slen) \
    ((void)gex_VIS_IndexedPutBlocking(gasneti_thunk_tm, (node), (dc), (dl), (dlen), (sc), (sl), (slen), 0))
#define gasnet_puti_nb_bulk(node, dc, dl, dlen, sc, sl, slen) \
    gex_VIS_IndexedPutNB(gasneti_thunk_tm, (node), (dc), (dl), (dlen), (sc), (sl), (slen), 0)
#define gasnet_puti_nbi_bulk(node, dc, dl, dlen, sc, sl, slen) \
    ((void)gex_VIS_IndexedPutNBI(gasneti_thunk_tm, (node), (dc), (dl), (dlen), (sc), (sl), (slen), 0))
#define gasnet_geti_bulk(dc, dl, dlen, node, sc, sl, slen) \
    ((void)gex_VIS_IndexedGetBlocking(gasneti_thunk_tm, (dc), (dl), (dlen), (node), (sc), (sl), (slen), 0))
#define gasnet_geti_nb_bulk(dc, dl, dlen, node, sc, sl, slen) \
    gex_VIS_IndexedGetNB(gasneti_thunk_tm, (dc), (dl), (dlen), (node), (sc), (sl), (slen), 0)
#define gasnet_geti_nbi_bulk(dc, dl, dlen, node, sc, sl, slen) \
    ((void)gex_VIS_IndexedGetNBI(gasneti_thunk_tm, (dc), (dl), (dlen), (node), (sc), (sl), (slen), 0))
/* strided, GASNet-1 layout: size_t strides, count[0] = contiguous bytes,
 * count[1..stridelevels] = counts per level */
#define gasnet_puts_bulk(node, da, ds, sa, ss, cnt, lv) \
    ((void)gex_VIS_StridedPutBlocking(gasneti_thunk_tm, (node), (da), (const ptrdiff_t *)(ds), (sa), (const ptrdiff_t *)(ss), (cnt)[0], (cnt) + 1, (lv), 0))
#define gasnet_puts_nb_bulk(node, da, ds, sa, ss, cnt, lv) \
    gex_VIS_StridedPutNB(gasneti_thunk_tm, (node), (da), (const ptrdiff_t *)(ds), (sa), (const ptrdiff_t *)(ss), (cnt)[0], (cnt) + 1, (lv), 0)
#define gasnet_puts_nbi_bulk(node, da, ds, sa, ss, cnt, lv) \
    ((void)gex_VIS_StridedPutNBI(gasneti_thunk_tm, (node), (da), (const ptrdiff_t *)(ds), (sa), (const ptrdiff_t *)(ss), (cnt)[0], (cnt) + 1, (lv), 0))
#define gasnet_gets_bulk(da, ds, node, sa, ss, cnt, lv) \
    ((void)gex_VIS_StridedGetBlocking(gasneti_thunk_tm, (da), (const ptrdiff_t *)(ds), (node), (sa), (const ptrdiff_t *)(ss), (cnt)[0], (cnt) + 1, (lv), 0))
#define gasnet_gets_nb_bulk(da, ds, node, sa, ss, cnt, lv) \
    gex_VIS_StridedGetNB(gasneti_thunk_tm, (da), (const ptrdiff_t *)(ds), (node), (sa), (const ptrdiff_t *)(ss), (cnt)[0], (cnt) + 1, (lv), 0)
#define gasnet_gets_nbi_bulk(da, ds, node, sa, ss, cnt, lv) \
    ((void)gex_VIS_StridedGetNBI(gasneti_thunk_tm, (da), (const ptrdiff_t *)(ds), (node), (sa), (const ptrdiff_t *)(ss), (cnt)[0], (cnt) + 1, (lv), 0))
#endif /* _IN_GASNET_H */

GASNETI_END_EXTERNC

#endif /* GASNET_VIS_H */
