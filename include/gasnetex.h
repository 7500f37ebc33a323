/* gasnetex.h: the GASNet-EX API of the ibv conduit library.
 *
 * Semantics are those of the GASNet-EX specification (docs/GASNet-EX.txt in
 * BerkeleyLab/gasnet).  Internal entry points that the public macros expand
 * to are prefixed gasnetc_ (core) and gasnete_ (extended); clients must not
 * call them directly.
 */
#ifndef GASNETEX_H
#define GASNETEX_H
#define _IN_GASNETEX_H

#include <gasnet_fwd.h>
#include <gasnet_tools.h>
#include <stdarg.h>

GASNETI_BEGIN_EXTERNC

/* The ident string every linked executable carries (see also
 * gasneti_ident_string in the library, which init references). */
extern const char gasneti_ident_string[];

/* Link-time configuration check (gasnet_linkcheck.h). */
#include <gasnet_linkcheck.h>

/* ---- errors --------------------------------------------------------------- */
extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- client / segment / endpoint / team ---------------------------------- */
extern int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv,
                           gex_Flags_t flags);
extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t length);
extern int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client,
                              gex_Addr_t address, uintptr_t length, gex_MK_t kind,
                              gex_Flags_t flags);
extern void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);

extern gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
extern gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg);
extern void *gex_Segment_QueryAddr(gex_Segment_t seg);
extern uintptr_t gex_Segment_QuerySize(gex_Segment_t seg);
extern int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                  void **localaddr_p, uintptr_t *size_p);
extern gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank,
                                              void **owneraddr_p, void **localaddr_p,
                                              uintptr_t *size_p, gex_Flags_t flags);

extern gex_Client_t gex_EP_QueryClient(gex_EP_t ep);
extern gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep);
extern gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep);
extern gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
extern const char *gex_Client_QueryName(gex_Client_t client);
extern gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);

extern gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
extern gex_EP_t gex_TM_QueryEP(gex_TM_t tm);
extern gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm);
extern gex_Rank_t gex_TM_QueryRank(gex_TM_t tm);
extern gex_Rank_t gex_TM_QuerySize(gex_TM_t tm);
extern gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
extern gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
extern gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank,
                                                  gex_Flags_t flags);

/* One client-data pointer per object. */
extern void gex_Client_SetCData(gex_Client_t c, const void *cdata);
extern void *gex_Client_QueryCData(gex_Client_t c);
extern void gex_Segment_SetCData(gex_Segment_t s, const void *cdata);
extern void *gex_Segment_QueryCData(gex_Segment_t s);
extern void gex_TM_SetCData(gex_TM_t tm, const void *cdata);
extern void *gex_TM_QueryCData(gex_TM_t tm);
extern void gex_EP_SetCData(gex_EP_t ep, const void *cdata);
extern void *gex_EP_QueryCData(gex_EP_t ep);

/* ---- system queries -------------------------------------------------------- */
extern gex_Rank_t gex_System_QueryJobRank(void);
extern gex_Rank_t gex_System_QueryJobSize(void);
extern int gex_System_GetVerboseErrors(void);
extern void gex_System_SetVerboseErrors(int enable);
extern uint64_t gex_System_QueryMaxThreads(void);
/* GASNet's names that runtimes and GASNet's tests use although they are not
 * prefixed as public: the most client threads (1 in SEQ, as GASNet with no
 * conduit threads needing a slot; GASNet's default of 256 otherwise), and
 * this process's jobrank and the job size (valid after gex_Client_Init). */
#if defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#define GASNETI_MAX_THREADS 256
#else
#define GASNETI_MAX_THREADS 1
#endif
extern gex_Rank_t gasneti_mynode;
extern gex_Rank_t gasneti_nodes;
extern int gex_System_QueryHiddenAMConcurrencyLevel(void);
extern int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                           const gex_ProgressThreadInfo_t **info_p,
                                           gex_Flags_t flags);
extern void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                      gex_Rank_t *my_info_index_p);
extern void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                     gex_Rank_t *my_info_index_p);
extern void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                       gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank);

/* ---- Active Messages --------------------------------------------------------- */
extern int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

#define gex_AM_MaxArgs() ((unsigned int)16)
extern size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank,
                                      const gex_Event_t *lc_opt, gex_Flags_t flags,
                                      unsigned int numargs);
extern size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank,
                                    const gex_Event_t *lc_opt, gex_Flags_t flags,
                                    unsigned int numargs);
extern size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank,
                                    const gex_Event_t *lc_opt, gex_Flags_t flags,
                                    unsigned int numargs);
extern size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank,
                                  const gex_Event_t *lc_opt, gex_Flags_t flags,
                                  unsigned int numargs);
extern size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                                     gex_Flags_t flags, unsigned int numargs);
/* Largest payloads valid for every peer and argument count. */
#define GASNETC_MAX_MEDIUM_LUB 65000
#define GASNETC_MAX_LONG_LUB ((size_t)0x7fffffff)
#define gex_AM_LUBRequestMedium() ((size_t)GASNETC_MAX_MEDIUM_LUB)
#define gex_AM_LUBReplyMedium() ((size_t)GASNETC_MAX_MEDIUM_LUB)
#define gex_AM_LUBRequestLong() GASNETC_MAX_LONG_LUB
#if defined(GASNET_SEGMENT_FAST)
#define GASNETC_MAX_LONG_REP_LUB GASNETC_MAX_LONG_LUB
#else
/* LARGE/EVERYTHING: a Long Reply (in a handler) cannot wait for a remote
 * pin, so one that misses travels packed in one AM buffer. */
#define GASNETC_MAX_LONG_REP_LUB ((size_t)GASNETC_MAX_MEDIUM_LUB)
#endif
#define gex_AM_LUBReplyLong() GASNETC_MAX_LONG_REP_LUB

extern gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* Core entry points behind the AM macros of gasnet_am_macros.h.  Return 0,
 * or non-zero only when GEX_FLAG_IMMEDIATE was given and resources lacked. */
extern int gasnetc_AM_RequestShort(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                   unsigned int numargs, gex_Flags_t flags, ...);
/* The Shorts of up to 4 arguments (gasnet_am_macros.h): the same without
 * the argument count and the variadic list. */
extern int gasnetc_AM_RequestShort0(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    gex_Flags_t flags);
extern int gasnetc_AM_RequestShort1(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    gex_Flags_t flags, gex_AM_Arg_t a0);
extern int gasnetc_AM_RequestShort2(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    gex_Flags_t flags, gex_AM_Arg_t a0, gex_AM_Arg_t a1);
extern int gasnetc_AM_RequestShort3(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    gex_Flags_t flags, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                                    gex_AM_Arg_t a2);
extern int gasnetc_AM_RequestShort4(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    gex_Flags_t flags, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                                    gex_AM_Arg_t a2, gex_AM_Arg_t a3);
extern int gasnetc_AM_ReplyShort0(gex_Token_t token, gex_AM_Index_t handler,
                                  gex_Flags_t flags);
extern int gasnetc_AM_ReplyShort1(gex_Token_t token, gex_AM_Index_t handler,
                                  gex_Flags_t flags, gex_AM_Arg_t a0);
extern int gasnetc_AM_ReplyShort2(gex_Token_t token, gex_AM_Index_t handler,
                                  gex_Flags_t flags, gex_AM_Arg_t a0, gex_AM_Arg_t a1);
extern int gasnetc_AM_ReplyShort3(gex_Token_t token, gex_AM_Index_t handler,
                                  gex_Flags_t flags, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                                  gex_AM_Arg_t a2);
extern int gasnetc_AM_ReplyShort4(gex_Token_t token, gex_AM_Index_t handler,
                                  gex_Flags_t flags, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                                  gex_AM_Arg_t a2, gex_AM_Arg_t a3);
extern int gasnetc_AM_RequestMedium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    const void *source_addr, size_t nbytes,
                                    gex_Event_t *lc_opt, unsigned int numargs,
                                    gex_Flags_t flags, ...);
extern int gasnetc_AM_RequestLong(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                  const void *source_addr, size_t nbytes, void *dest_addr,
                                  gex_Event_t *lc_opt, unsigned int numargs,
                                  gex_Flags_t flags, ...);
extern int gasnetc_AM_ReplyShort(gex_Token_t token, gex_AM_Index_t handler,
                                 unsigned int numargs, gex_Flags_t flags, ...);
extern int gasnetc_AM_ReplyMedium(gex_Token_t token, gex_AM_Index_t handler,
                                  const void *source_addr, size_t nbytes,
                                  gex_Event_t *lc_opt, unsigned int numargs,
                                  gex_Flags_t flags, ...);
extern int gasnetc_AM_ReplyLong(gex_Token_t token, gex_AM_Index_t handler,
                                const void *source_addr, size_t nbytes, void *dest_addr,
                                gex_Event_t *lc_opt, unsigned int numargs,
                                gex_Flags_t flags, ...);

/* ---- negotiated-payload AMs (NPAM) ----------------------------------------------- */
/* Prepare returns a source descriptor whose buffer (gex_AM_SrcDescAddr: the
 * client's buffer, or one GASNet provides when client_buf is NULL) holds
 * between least_payload and most_payload bytes (gex_AM_SrcDescSize); the
 * calling thread then makes no other communication call until it commits
 * (gex_AM_Commit*, macros in gasnet_am_macros.h) or cancels. */
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                    const void *client_buf, size_t least_payload,
                                                    size_t most_payload, gex_Event_t *lc_opt,
                                                    gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                  const void *client_buf, size_t least_payload,
                                                  size_t most_payload, void *dest_addr,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                size_t least_payload, size_t most_payload,
                                                void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);
extern void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
extern size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
extern int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
/* Core entry point behind every gex_AM_Commit* macro.  kind: GASNETC_NPAM_*
 * (must match the Prepare).  Returns 0, or non-zero only when commit_flags
 * has GEX_FLAG_IMMEDIATE and resources lacked (the descriptor stays
 * prepared). */
#define GASNETC_NPAM_REQ_MEDIUM 0
#define GASNETC_NPAM_REP_MEDIUM 1
#define GASNETC_NPAM_REQ_LONG 2
#define GASNETC_NPAM_REP_LONG 3
extern int gasnetc_AM_Commit(int kind, gex_AM_SrcDesc_t sd, gex_AM_Index_t handler,
                             size_t nbytes, void *dest_addr, gex_Flags_t commit_flags,
                             unsigned int numargs, ...);

/* ---- progress ------------------------------------------------------------------ */
/* Polls the network once: runs arrived AM handlers.  Not legal in handlers. */
extern int gasnet_AMPoll(void);
#define gasneti_AMPoll gasnet_AMPoll
/* Poll until cond is true. */
#define GASNET_BLOCKUNTIL(cond)             \
    do {                                    \
        while (!(cond)) {                   \
            gasnet_AMPoll();                \
            if (cond) break;                \
            gasneti_pollwait_hint();        \
        }                                   \
    } while (0)
/* Yields the CPU when processes outnumber cores (see GASNET_SPIN_YIELD). */
extern void gasneti_pollwait_hint(void);

/* ---- handler-safe locks ----------------------------------------------------------- */
extern void gex_HSL_Init(gex_HSL_t *hsl);
extern void gex_HSL_Destroy(gex_HSL_t *hsl);
extern void gex_HSL_Lock(gex_HSL_t *hsl);
extern void gex_HSL_Unlock(gex_HSL_t *hsl);
extern int gex_HSL_Trylock(gex_HSL_t *hsl);

/* ---- exit ---------------------------------------------------------------------- */
extern void gasnet_exit(int exitcode) __attribute__((__noreturn__));

/* ---- RMA ----------------------------------------------------------------------- */
extern int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                 size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags);
extern gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                 size_t nbytes, gex_Flags_t flags);
extern gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                  gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                    gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);

/* ---- events and NBI ---------------------------------------------------------------- */
extern int gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
extern int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);

extern int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- barrier -------------------------------------------------------------------------- */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
extern int gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);

/* ---- GASNet-1 names GASNet's gasnetex.h also declares ------------------------------ */
/* gasnet_init(NULL, NULL) and gex_Client_Init with NULL argc/argv work. */
#define GASNET_NULL_ARGV_OK 1
/* Host memory is a memory kind (gasnet_mk.h). */
#define GASNET_HAVE_MK_CLASS_HOST 1

/* Thread-info optimization: free here (thread data is found by TLS), so
 * the handle is a dummy. */
typedef void *gasnet_threadinfo_t;
#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)0)
#define GASNET_POST_THREADINFO(info) \
    gasnet_threadinfo_t _gasneti_threadinfo_cache __attribute__((__unused__)) = (info)
#define GASNET_BEGIN_FUNCTION() GASNET_POST_THREADINFO(GASNET_GET_THREADINFO())

typedef struct gasneti_seginfo_s {
    void *addr;
    uintptr_t size;
} gasnet_seginfo_t;
typedef struct gasneti_nodeinfo_s {
    gex_Rank_t host;      /* 0-based id of the rank's compute node */
    gex_Rank_t supernode; /* 0-based id of its shared-memory neighbourhood */
    uintptr_t offset;     /* add to the rank's segment addresses to reach them
                           * from this process (same neighbourhood only) */
    uintptr_t auxoffset;  /* the same for GASNet's internal auxiliary segment,
                           * which this library does not have: 0 */
} gasnet_nodeinfo_t;
/* Every rank's segment (addr, size), numentries entries.  After attach. */
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
/* Every rank's host, neighbourhood and address offset.  After init. */
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
/* Raw environment lookup (the job environment of this process). */
extern char *gasnet_getenv(const char *name);

/* The client's own default for GASNET_MAX_SEGSIZE, as in GASNet (define
 * before init; the environment variable, when set, overrides it):
 * gasnet_max_segsize_str in the variable's syntax ("4GB/P", "0.5/H"), else
 * gasnet_max_segsize bytes per process (0 = none). */
extern uintptr_t gasnet_max_segsize;
extern const char *gasnet_max_segsize_str;
/* Called by every rank with its segment (address, size) right after the
 * segment is attached, before attach returns; NULL = none. */
extern void (*gasnet_client_attach_hook)(void *segbase, uintptr_t segsize);

#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2
/* Records how idle waits should behave (a hint; GASNET_OK or BAD_ARG). */
extern int gasnet_set_waitmode(int wait_mode);

/* GASNet-1 split-phase barrier over all ranks; one at a time per process,
 * and not concurrently with gex_Coll_* on the primordial team.  wait/try
 * return GASNET_OK or GASNET_ERR_BARRIER_MISMATCH; try also
 * GASNET_ERR_NOT_READY. */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
/* UNNAMED: every rank passes it (GASNet's value: ANONYMOUS plus a private bit) */
#define GASNET_BARRIERFLAG_UNNAMED (GASNET_BARRIERFLAG_ANONYMOUS | 8)
extern void gasnet_barrier_notify(int id, int flags);
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
extern int gasnet_barrier(int id, int flags);
/* Flags of the last completed barrier (0 = named, *id = its name). */
extern int gasnet_barrier_result(int *id);

GASNETI_END_EXTERNC

/* Teams, endpoints, segments and memory kinds beyond the primordial ones. */
#include <gasnet_ex_tm.h>
#include <gasnet_am_macros.h>
#include <gasnet_coll.h>
/* Neighbour RMA inlined (release builds; after every declaration above). */
#include <gasnet_pshm_inline.h>

#endif /* GASNETEX_H */
