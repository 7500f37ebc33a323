/* gasnet_fwd.h: GASNet-EX types and constants (no functions).
 *
 * Part of the public compatibility contract (ARCHITECTURE.md section 2):
 * names and values a client may rely on.  Clients normally include
 * gasnetex.h or gasnet.h, which include this file.
 */
#ifndef GASNET_FWD_H
#define GASNET_FWD_H

#include <stddef.h>
#include <stdint.h>
#include <gasnet_config.h>

/* Exactly one threading model must be chosen by the client (the installed
 * makefile fragments and pkg-config files pass it). */
#if defined(GASNET_SEQ) + defined(GASNET_PAR) + defined(GASNET_PARSYNC) != 1
#error "Define exactly one of GASNET_SEQ, GASNET_PAR or GASNET_PARSYNC (use ibv-seq.mak / ibv-par.mak / ibv-parsync.mak or pkg-config gasnet-ibv-seq / -par / -parsync)"
#endif

#ifdef __cplusplus
#define GASNETI_BEGIN_EXTERNC extern "C" {
#define GASNETI_END_EXTERNC }
#else
#define GASNETI_BEGIN_EXTERNC
#define GASNETI_END_EXTERNC
#endif

GASNETI_BEGIN_EXTERNC

/* ---- conduit / configuration identification ---------------------------- */
#define GASNET_CONDUIT_IBV 1
#define GASNET_IBV_CONDUIT 1
#define GASNET_CONDUIT_NAME IBV
#define GASNET_CONDUIT_NAME_STR "IBV"
#define GASNET_CORE_NAME IBV
#define GASNET_CORE_NAME_STR "IBV"
#define GASNET_EXTENDED_NAME IBV
#define GASNET_EXTENDED_NAME_STR "IBV"
#define GASNET_CORE_VERSION 2.0
#define GASNET_CORE_VERSION_STR "2.0"
#define GASNET_EXTENDED_VERSION 2.0
#define GASNET_EXTENDED_VERSION_STR "2.0"
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 19
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8

#ifndef GASNET_SEGMENT_FAST
#if !defined(GASNET_SEGMENT_LARGE) && !defined(GASNET_SEGMENT_EVERYTHING)
#define GASNET_SEGMENT_FAST 1
#endif
#endif
#define GASNET_PSHM 1
#define GASNET_ALIGNED_SEGMENTS 0
#define GASNET_MAXNODES 0x7fffffffU
/* Endpoints per process, the primordial one included (extended/ep.c); 33
 * as in GASNet-EX's ibv conduit. */
#define GASNET_MAXEPS 33
#define GASNET_PAGESIZE 4096
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GASNET_SUPPORTS_TI_SRCRANK 1
#define GASNET_SUPPORTS_TI_EP 1
#define GASNET_SUPPORTS_TI_ENTRY 1
#define GASNET_SUPPORTS_TI_IS_REQ 1
#define GASNET_SUPPORTS_TI_IS_LONG 1
/* The dates of the specification revisions these follow, as in GASNet-EX. */
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906
#define GASNET_SUPPORTS_AM_CANCEL 20240418
/* GASNET_NATIVE_NP_ALLOC_{REQ,REP}_{MEDIUM,LONG} are left undefined (the
 * specification: defined to 1 where negotiated-payload AMs with a GASNet
 * buffer save a copy over the fixed-payload calls; core/am_npam.c stages
 * the payload and commits it through those calls). */

#if defined(GASNET_PAR)
#define GASNETI_THREAD_MODEL PAR
#define GASNETI_THREAD_MODEL_STR "PAR"
#elif defined(GASNET_PARSYNC)
#define GASNETI_THREAD_MODEL PARSYNC
#define GASNETI_THREAD_MODEL_STR "PARSYNC"
#else
#define GASNETI_THREAD_MODEL SEQ
#define GASNETI_THREAD_MODEL_STR "SEQ"
#endif
#if defined(GASNET_SEGMENT_FAST)
#define GASNETI_SEGMENT_CONFIG FAST
#define GASNETI_SEGMENT_CONFIG_STR "FAST"
#elif defined(GASNET_SEGMENT_LARGE)
#define GASNETI_SEGMENT_CONFIG LARGE
#define GASNETI_SEGMENT_CONFIG_STR "LARGE"
#else
#define GASNETI_SEGMENT_CONFIG EVERYTHING
#define GASNETI_SEGMENT_CONFIG_STR "EVERYTHING"
#endif
#define GASNET_CONFIG_STRING                                                   \
    "RELEASE=" GASNET_RELEASE_VERSION_STR ",SPEC=0.19,CONDUIT=IBV,THREADMODEL=" \
    GASNETI_THREAD_MODEL_STR ",SEGMENT=" GASNETI_SEGMENT_CONFIG_STR

/* ---- error codes --------------------------------------------------------- */
#define GASNET_OK 0
#define _GASNET_ERR_BASE 10000
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

/* ---- basic scalar types -------------------------------------------------- */
typedef uint32_t gex_Rank_t;
typedef uint16_t gex_EP_Index_t;
typedef uint32_t gex_Flags_t;
typedef uint32_t gex_DT_t;
typedef uint32_t gex_OP_t;
typedef uint32_t gex_EP_Capabilities_t;
typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
typedef void *gex_Addr_t;
typedef uint32_t gex_EC_t;
typedef uint32_t gex_TI_t;
typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8

typedef struct {
    gex_Rank_t gex_rank;
    gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;

typedef struct {
    void *gex_addr;
    size_t gex_len;
} gex_Memvec_t;

typedef struct {
    gex_Rank_t gex_jobrank;
} gex_RankInfo_t;

/* ---- opaque handles ------------------------------------------------------ */
typedef struct gasneti_client_s *gex_Client_t;
typedef struct gasneti_ep_s *gex_EP_t;
typedef struct gasneti_tm_s *gex_TM_t;
typedef struct gasneti_segment_s *gex_Segment_t;
typedef struct gasneti_ad_s *gex_AD_t;
typedef struct gasneti_mk_s *gex_MK_t;
typedef struct gasneti_srcdesc_s *gex_AM_SrcDesc_t;
typedef struct gasneti_token_s *gex_Token_t;
typedef struct gasneti_event_s *gex_Event_t;

#define GEX_RANK_INVALID ((gex_Rank_t)0xffffffffU)
#define GEX_CLIENT_INVALID ((gex_Client_t)0)
#define GEX_EP_INVALID ((gex_EP_t)0)
#define GEX_TM_INVALID ((gex_TM_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_AD_INVALID ((gex_AD_t)0)
#define GEX_MK_INVALID ((gex_MK_t)0)
#define GEX_MK_HOST ((gex_MK_t)1)
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP ((gex_Event_t)(uintptr_t)1)
/* Pseudo-event pointers accepted as lc_opt. */
#define GEX_EVENT_NOW ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP ((gex_Event_t *)(uintptr_t)3)

/* ---- flags (gex_Flags_t) --------------------------------------------------
 * GASNet-EX's values.  A call reads only the flags it takes, so flags of
 * different calls share bits: the groups below are each free of aliases
 * (RMA/VIS/AD initiation: IMMEDIATE, LC_COPY_*, SELF_SEG_*, PEER_SEG_*,
 * PEER_NEVER_*, plus ENABLE_LEAF_LC for VIS and AD_MY_*, AD_ACQ/REL,
 * RANK_IS_JOBRANK for AD; AM Prepare: IMMEDIATE, PREPARE_LEAST_*; TM
 * creation: TM_*, SCRATCH_SEG_OFFSET, RANK_IS_JOBRANK; ...). */
#define GEX_FLAG_IMMEDIATE (1U << 0)
#define GEX_FLAG_LC_COPY_YES (1U << 1)
#define GEX_FLAG_LC_COPY_NO (1U << 2)
#define GEX_FLAG_SELF_SEG_UNKNOWN (1U << 3)
#define GEX_FLAG_SELF_SEG_SOME (1U << 4)
#define GEX_FLAG_SELF_SEG_BOUND (1U << 5)
#define GEX_FLAG_SELF_SEG_OFFSET (1U << 6)
#define GEX_FLAG_PEER_SEG_UNKNOWN (1U << 7)
#define GEX_FLAG_PEER_SEG_SOME (1U << 8)
#define GEX_FLAG_PEER_SEG_BOUND (1U << 9)
#define GEX_FLAG_PEER_SEG_OFFSET (1U << 10)
#define GEX_FLAG_PEER_NEVER_NBRHD (1U << 14)
#define GEX_FLAG_PEER_NEVER_SELF (1U << 15)
#define GEX_FLAG_RANK_IS_JOBRANK (1U << 13)
/* gex_AM_Prepare*, gex_AM_Max* */
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT (1U << 11)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC (1U << 12)
/* gex_VIS_* */
#define GEX_FLAG_ENABLE_LEAF_LC (1U << 11)
/* gex_AD_Op* */
#define GEX_FLAG_AD_MY_RANK (1U << 11)
#define GEX_FLAG_AD_MY_NBRHD (1U << 12)
#define GEX_FLAG_AD_REL (1U << 1)
#define GEX_FLAG_AD_ACQ (1U << 2)
/* gex_AD_Create */
#define GEX_FLAG_AD_FAVOR_MY_RANK (1U << 0)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD (1U << 1)
#define GEX_FLAG_AD_FAVOR_REMOTE (1U << 2)
/* gex_Client_Init */
#define GEX_FLAG_USES_GASNET1 (1U << 0)
#define GEX_FLAG_DEFER_THREADS (1U << 1)
/* gex_TM_Split, gex_TM_Create, gex_TM_Destroy */
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN (1U << 0)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED (1U << 1)
#define GEX_FLAG_TM_GLOBAL_SCRATCH (1U << 2)
#define GEX_FLAG_TM_LOCAL_SCRATCH (1U << 3)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH (1U << 4)
#define GEX_FLAG_TM_NO_SCRATCH (1U << 5)
#define GEX_FLAG_SCRATCH_SEG_OFFSET (1U << 6)
#define GEX_FLAG_GLOBALLY_QUIESCED (1U << 13)
/* gex_EP_Create */
#define GEX_FLAG_HINT_ACCEL_AD (1U << 0)
#define GEX_FLAG_HINT_ACCEL_COLL (1U << 1)
#define GEX_FLAG_HINT_ACCEL_ALL (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)

/* AM handler registration flags (gex_AM_Entry_t.gex_flags) */
#define GEX_FLAG_AM_SHORT (1U << 0)
#define GEX_FLAG_AM_MEDIUM (1U << 1)
#define GEX_FLAG_AM_LONG (1U << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST (1U << 3)
#define GEX_FLAG_AM_REPLY (1U << 4)
#define GEX_FLAG_AM_REQREP (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* ---- event categories ----------------------------------------------------
 * GASNet-EX's values, built from four counters an NBI set keeps: puts'
 * remote completion (bit 0), local completion of puts and AMs (bit 1),
 * gets (bit 2), remote atomics (bit 3).  GEX_EC_PUT is both of the first
 * two; GEX_EC_AM and GEX_EC_LC are the same category. */
#define GEX_EC_PUT ((gex_EC_t)3U)
#define GEX_EC_AM ((gex_EC_t)2U)
#define GEX_EC_LC ((gex_EC_t)2U)
#define GEX_EC_GET ((gex_EC_t)4U)
#define GEX_EC_RMW ((gex_EC_t)8U)
#define GEX_EC_ALL ((gex_EC_t)0xffffffffU)

/* ---- token info ----------------------------------------------------------- */
#define GEX_TI_SRCRANK ((gex_TI_t)1U << 0)
#define GEX_TI_ENTRY ((gex_TI_t)1U << 1)
#define GEX_TI_IS_REQ ((gex_TI_t)1U << 2)
#define GEX_TI_IS_LONG ((gex_TI_t)1U << 3)
#define GEX_TI_EP ((gex_TI_t)1U << 4)
#define GEX_TI_ALL ((gex_TI_t)0x1fU)

/* ---- EP capabilities ------------------------------------------------------ */
#define GEX_EP_CAPABILITY_RMA (1U << 0)
#define GEX_EP_CAPABILITY_AM (1U << 1)
#define GEX_EP_CAPABILITY_VIS (1U << 2)
#define GEX_EP_CAPABILITY_COLL (1U << 3)
#define GEX_EP_CAPABILITY_AD (1U << 4)
#define GEX_EP_CAPABILITY_ALL 0x1fU

/* ---- data types and operations (ratomic / reductions) -------------------- */
#define GEX_DT_I32 ((gex_DT_t)1U << 0)
#define GEX_DT_U32 ((gex_DT_t)1U << 1)
#define GEX_DT_I64 ((gex_DT_t)1U << 2)
#define GEX_DT_U64 ((gex_DT_t)1U << 3)
#define GEX_DT_FLT ((gex_DT_t)1U << 4)
#define GEX_DT_DBL ((gex_DT_t)1U << 5)
#define GEX_DT_USER ((gex_DT_t)1U << 6)

/* GASNet-EX's values: the non-fetching operations in bits 0..11 (bits
 * 12..14 reserved), each fetching one 15 bits higher (bits 15..26), GET in
 * bit 27 and the user-defined reductions in bits 30 and 31. */
#define GEX_OP_AND ((gex_OP_t)1U << 0)
#define GEX_OP_OR ((gex_OP_t)1U << 1)
#define GEX_OP_XOR ((gex_OP_t)1U << 2)
#define GEX_OP_ADD ((gex_OP_t)1U << 3)
#define GEX_OP_SUB ((gex_OP_t)1U << 4)
#define GEX_OP_MULT ((gex_OP_t)1U << 5)
#define GEX_OP_MIN ((gex_OP_t)1U << 6)
#define GEX_OP_MAX ((gex_OP_t)1U << 7)
#define GEX_OP_INC ((gex_OP_t)1U << 8)
#define GEX_OP_DEC ((gex_OP_t)1U << 9)
#define GEX_OP_SET ((gex_OP_t)1U << 10)
#define GEX_OP_CAS ((gex_OP_t)1U << 11)
#define GEX_OP_FAND ((gex_OP_t)1U << 15)
#define GEX_OP_FOR ((gex_OP_t)1U << 16)
#define GEX_OP_FXOR ((gex_OP_t)1U << 17)
#define GEX_OP_FADD ((gex_OP_t)1U << 18)
#define GEX_OP_FSUB ((gex_OP_t)1U << 19)
#define GEX_OP_FMULT ((gex_OP_t)1U << 20)
#define GEX_OP_FMIN ((gex_OP_t)1U << 21)
#define GEX_OP_FMAX ((gex_OP_t)1U << 22)
#define GEX_OP_FINC ((gex_OP_t)1U << 23)
#define GEX_OP_FDEC ((gex_OP_t)1U << 24)
#define GEX_OP_SWAP ((gex_OP_t)1U << 25)
#define GEX_OP_FCAS ((gex_OP_t)1U << 26)
#define GEX_OP_GET ((gex_OP_t)1U << 27)
#define GEX_OP_CSWAP GEX_OP_FCAS
#define GEX_OP_USER ((gex_OP_t)1U << 30)
#define GEX_OP_USER_NC ((gex_OP_t)1U << 31)
/* Between the two ranges (SET <-> SWAP, CAS <-> FCAS included); an op
 * outside the range a macro converts from (GET, USER) is left as it is. */
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)(((op) & 0xfffU) ? ((op) << 15) : (op)))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)(((op) & 0x7ff8000U) ? ((op) >> 15) : (op)))

/* ---- AM handler table entry ----------------------------------------------- */
typedef void (*gex_AM_Fn_t)();
typedef struct {
    gex_AM_Index_t gex_index;
    gex_AM_Fn_t gex_fnptr;
    gex_Flags_t gex_flags;
    unsigned int gex_nargs;
    const void *gex_cdata;
    const char *gex_name;
} gex_AM_Entry_t;
#define GEX_AM_INDEX_BASE 128

typedef struct {
    gex_Rank_t gex_srcrank;
    gex_EP_t gex_ep;
    const gex_AM_Entry_t *gex_entry;
    int gex_is_req;
    int gex_is_long;
} gex_Token_Info_t;

/* ---- handler-safe locks --------------------------------------------------- */
#if defined(GASNET_PAR)
#include <pthread.h>
typedef struct {
    pthread_mutex_t lock;
} gex_HSL_t;
#define GEX_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER }
#else
typedef struct {
    int locked;
} gex_HSL_t;
#define GEX_HSL_INITIALIZER { 0 }
#endif

/* ---- progress threads ------------------------------------------------------ */
#define GEX_THREAD_ROLE_RCV 1U
#define GEX_THREAD_ROLE_SND 2U
typedef struct {
    void *(*gex_progress_fn)(void *);
    void *gex_progress_arg;
    unsigned int gex_thread_roles;
    const char *gex_device_list;
    void *_reserved;
} gex_ProgressThreadInfo_t;

GASNETI_END_EXTERNC

#endif /* GASNET_FWD_H */
