/* gasnet.h: the GASNet-1 API (specification 1.8) on top of GASNet-EX.
 *
 * Part of the public compatibility contract (ARCHITECTURE.md section 2).
 * Semantics are those of the GASNet-1 specification as amended by
 * docs/GASNet-EX.txt of BerkeleyLab/gasnet; most calls map directly onto a
 * gex_ call on the primordial team.  Functions that cannot be macros live
 * in extended/legacy.c and extended/barrier.c.
 *
 * Usable from C and C++, also inside an enclosing extern "C" block.
 */
#ifndef GASNET_H
#define GASNET_H
#define _IN_GASNET_H

/* Enables the gasnet_AMRequest* / gasnet_AMReply* macros of
 * gasnet_am_macros.h (they expand to gasnetc_AM_* on gasneti_thunk_tm). */
#ifndef GASNETI_LEGACY_AM_MACROS
#define GASNETI_LEGACY_AM_MACROS 1
#endif
#include <gasnetex.h>
/* Again, for clients that included gasnetex.h before this file: the legacy
 * AM macros need gasnet_am_macros.h to keep its GASNETI_LEGACY_AM_MACROS
 * section outside its main include guard. */
#include <gasnet_am_macros.h>
/* The GASNet-1 VIS calls (gasnet_{put,get}{v,i,s}*) are declared there. */
#include <gasnet_vis.h>
#include <string.h>

GASNETI_BEGIN_EXTERNC

/* Legacy name of the major GASNet-1 specification version. */
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR

/* ---- types ---------------------------------------------------------------- */
typedef gex_Rank_t gasnet_node_t;
typedef gex_AM_Index_t gasnet_handler_t;
typedef gex_Token_t gasnet_token_t;
typedef gex_AM_Arg_t gasnet_handlerarg_t;
typedef gex_Event_t gasnet_handle_t;
typedef gex_RMA_Value_t gasnet_register_value_t;
typedef gex_HSL_t gasnet_hsl_t;
#define SIZEOF_GASNET_REGISTER_VALUE_T SIZEOF_GEX_RMA_VALUE_T
#define GASNET_INVALID_HANDLE GEX_EVENT_INVALID
#define GASNET_HSL_INITIALIZER GEX_HSL_INITIALIZER

typedef struct {
    gasnet_handler_t index;
    void (*fnptr)();
} gasnet_handlerentry_t;

typedef struct {
    void *addr;
    size_t len;
} gasnet_memvec_t;

/* The primordial team used by the legacy calls (set by gex_Client_Init). */
extern gex_TM_t gasneti_thunk_tm;

/* ---- init, attach, queries ------------------------------------------------------ */
/* Collective.  Starts the job (argc/argv may be NULL).  GASNET_OK or an error. */
extern int gasnet_init(int *argc, char ***argv);
/* Collective.  Registers table (index 0 = "any free index", written back),
 * attaches a segment of segsize bytes (multiple of GASNET_PAGESIZE);
 * minheapoffset is ignored.  Ends with a barrier. */
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);
/* The GASNet-EX objects of a legacy-initialized job (any output may be NULL). */
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p,
                                   gex_TM_t *tm_p, gex_Segment_t *segment_p);

#define gasnet_mynode() ((gasnet_node_t)gex_System_QueryJobRank())
#define gasnet_nodes() ((gasnet_node_t)gex_System_QueryJobSize())

/* ---- Active Messages ------------------------------------------------------------ */
#define gasnet_AMMaxArgs() ((size_t)gex_AM_MaxArgs())
#define gasnet_AMMaxMedium() ((size_t)gex_AM_LUBRequestMedium())
#define gasnet_AMMaxLongRequest() ((size_t)gex_AM_LUBRequestLong())
#define gasnet_AMMaxLongReply() ((size_t)gex_AM_LUBReplyLong())
/* Source rank of the message a handler is running for. */
extern int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);
#define gasnet_hold_interrupts() ((void)0)
#define gasnet_resume_interrupts() ((void)0)


/* ---- handler-safe locks ------------------------------------------------------------ */
#define gasnet_hsl_init(hsl) gex_HSL_Init(hsl)
#define gasnet_hsl_destroy(hsl) gex_HSL_Destroy(hsl)
#define gasnet_hsl_lock(hsl) gex_HSL_Lock(hsl)
#define gasnet_hsl_unlock(hsl) gex_HSL_Unlock(hsl)
#define gasnet_hsl_trylock(hsl) gex_HSL_Trylock(hsl)

/* ---- RMA: blocking, explicit-handle, implicit-handle ------------------------------------ */
#define gasnet_put(node, dest, src, nbytes) \
    ((void)gex_RMA_PutBlocking(gasneti_thunk_tm, (node), (dest), (src), (nbytes), 0))
#define gasnet_put_bulk gasnet_put
#define gasnet_get(dest, node, src, nbytes) \
    ((void)gex_RMA_GetBlocking(gasneti_thunk_tm, (dest), (node), (src), (nbytes), 0))
#define gasnet_get_bulk gasnet_get

#define gasnet_put_nb(node, dest, src, nbytes) \
    gex_RMA_PutNB(gasneti_thunk_tm, (node), (dest), (src), (nbytes), GEX_EVENT_NOW, 0)
#define gasnet_put_nb_bulk(node, dest, src, nbytes) \
    gex_RMA_PutNB(gasneti_thunk_tm, (node), (dest), (src), (nbytes), GEX_EVENT_DEFER, 0)
#define gasnet_get_nb(dest, node, src, nbytes) \
    gex_RMA_GetNB(gasneti_thunk_tm, (dest), (node), (src), (nbytes), 0)
#define gasnet_get_nb_bulk gasnet_get_nb

#define gasnet_put_nbi(node, dest, src, nbytes) \
    ((void)gex_RMA_PutNBI(gasneti_thunk_tm, (node), (dest), (src), (nbytes), GEX_EVENT_NOW, 0))
#define gasnet_put_nbi_bulk(node, dest, src, nbytes) \
    ((void)gex_RMA_PutNBI(gasneti_thunk_tm, (node), (dest), (src), (nbytes), GEX_EVENT_DEFER, 0))
#define gasnet_get_nbi(dest, node, src, nbytes) \
    ((void)gex_RMA_GetNBI(gasneti_thunk_tm, (dest), (node), (src), (nbytes), 0))
#define gasnet_get_nbi_bulk gasnet_get_nbi

/* Register-value forms (1 <= nbytes <= SIZEOF_GASNET_REGISTER_VALUE_T). */
#define gasnet_put_val(node, dest, value, nbytes) \
    ((void)gex_RMA_PutBlockingVal(gasneti_thunk_tm, (node), (dest), (value), (nbytes), 0))
#define gasnet_put_nb_val(node, dest, value, nbytes) \
    gex_RMA_PutNBVal(gasneti_thunk_tm, (node), (dest), (value), (nbytes), 0)
#define gasnet_put_nbi_val(node, dest, value, nbytes) \
    ((void)gex_RMA_PutNBIVal(gasneti_thunk_tm, (node), (dest), (value), (nbytes), 0))
#define gasnet_get_val(node, src, nbytes) \
    gex_RMA_GetBlockingVal(gasneti_thunk_tm, (node), (src), (nbytes), 0)

/* Split-phase value get: the handle must be synchronized exactly once with
 * gasnet_wait_syncnb_valget (no other sync call accepts it). */
typedef struct gasnete_valget_s *gasnet_valget_handle_t;
extern gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

/* Remote memset (completes before returning in every form). */
extern void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- synchronization ---------------------------------------------------------------- */
#define gasnet_wait_syncnb(h) gex_Event_Wait(h)
#define gasnet_wait_syncnb_some(ph, n) gex_Event_WaitSome((ph), (n), 0)
#define gasnet_wait_syncnb_all(ph, n) gex_Event_WaitAll((ph), (n), 0)
#define gasnet_try_syncnb_nopoll(h) gex_Event_Test(h)
#define gasnet_try_syncnb_some_nopoll(ph, n) gex_Event_TestSome((ph), (n), 0)
#define gasnet_try_syncnb_all_nopoll(ph, n) gex_Event_TestAll((ph), (n), 0)

/* The try variants poll once first (EX Test calls do not poll). */
static inline int gasnet_try_syncnb(gasnet_handle_t h)
{
    (void)gasnet_AMPoll();
    return gex_Event_Test(h);
}
static inline int gasnet_try_syncnb_some(gasnet_handle_t *ph, size_t n)
{
    (void)gasnet_AMPoll();
    return gex_Event_TestSome(ph, n, 0);
}
static inline int gasnet_try_syncnb_all(gasnet_handle_t *ph, size_t n)
{
    (void)gasnet_AMPoll();
    return gex_Event_TestAll(ph, n, 0);
}

#define gasnet_wait_syncnbi_gets() gex_NBI_Wait(GEX_EC_GET, 0)
#define gasnet_wait_syncnbi_puts() gex_NBI_Wait(GEX_EC_PUT, 0)
#define gasnet_wait_syncnbi_all() gex_NBI_Wait(GEX_EC_ALL, 0)
static inline int gasnet_try_syncnbi_gets(void)
{
    (void)gasnet_AMPoll();
    return gex_NBI_Test(GEX_EC_GET, 0);
}
static inline int gasnet_try_syncnbi_puts(void)
{
    (void)gasnet_AMPoll();
    return gex_NBI_Test(GEX_EC_PUT, 0);
}
static inline int gasnet_try_syncnbi_all(void)
{
    (void)gasnet_AMPoll();
    return gex_NBI_Test(GEX_EC_ALL, 0);
}
#define gasnet_begin_nbi_accessregion() gex_NBI_BeginAccessRegion(0)
#define gasnet_end_nbi_accessregion() gex_NBI_EndAccessRegion(0)

GASNETI_END_EXTERNC

#endif /* GASNET_H */
