/* gasnet_coll.h: GASNet-EX collectives and the GASNet-1 collectives.
 *
 * gex_Coll_BarrierNB and gex_Coll_BarrierBlocking are declared in
 * gasnetex.h (which includes this file at its end).  The GASNet-1
 * collectives (gasnet_coll_*) run over teams: a gasnet_team_handle_t is a
 * gex_TM_t (GASNET_TEAM_ALL is the primordial team), one image per process
 * (gasnet_image_t = rank in the team).
 */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H

#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

/* User-defined reduction operator: arg2_and_out[i] = arg1[i] (+) arg2_and_out[i]. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

/* Collective: root's nbytes at src reach dst on every member. */
extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                        size_t nbytes, gex_Flags_t flags);
/* Collective: the dt_cnt elements of type dt (dt_sz bytes each) at every
 * member's src, combined with op (or user_op for GEX_OP_USER/USER_NC),
 * reach dst on root (ToOne) or on every member (ToAll). */
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                          const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);

/* ---- GASNet-1 collectives ------------------------------------------------------------ */
/* Sync flags: exactly one IN_* and one OUT_* in every data collective. */
#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SYNC_FLAG_MASK 0x3F
/* Addressing: exactly one of SINGLE (every caller passes the same address
 * arguments) and LOCAL (each caller passes its own). */
#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_FIXED_THREADS_PER_NODE (1 << 9)
#define GASNET_COLL_DST_IN_SEGMENT (1 << 10)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 11)
#define GASNET_COLL_DISABLE_AUTOTUNE (1 << 18)
#define GASNET_COLL_NO_IMAGES (1 << 19)
/* Reduction-function flags (kept for source compatibility). */
#define GASNET_COLL_AMSAFE (1 << 0)
#define GASNET_COLL_NONCOMM (1 << 1)

typedef uint32_t gasnet_image_t;
typedef gex_TM_t gasnet_team_handle_t;
extern gex_TM_t gasneti_thunk_tm;
#define GASNET_TEAM_ALL gasneti_thunk_tm

struct gasnete_coll_handle_s;
typedef struct gasnete_coll_handle_s *gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE ((gasnet_coll_handle_t)0)

typedef enum {
    GASNET_COLL_BROADCAST_OP = 0,
    GASNET_COLL_SCATTER_OP,
    GASNET_COLL_GATHER_OP,
    GASNET_COLL_GATHER_ALL_OP,
    GASNET_COLL_EXCHANGE_OP,
    GASNET_COLL_NUM_COLL_OPTYPES
} gasnet_coll_optype_t;

typedef enum {
    GASNET_COLL_PIPE_SEG_SIZE,
    GASNET_COLL_DISSEM_RADIX,
    GASNET_COLL_TREE_TYPE,
    GASNET_COLL_NUM_PARAM_TYPES
} gasnet_coll_tuning_param_type_t;

typedef void (*gasnet_coll_overlap_sample_work_t)(void *arg);

/* Data collectives over team (collective; one call per member, same order).
 * srcimage/dstimage: the root's rank in team.  nbytes: one block.
 *   broadcast   root's nbytes at src -> dst of every member
 *   scatter     block i of root's src (nbytes * size) -> dst of member i
 *   gather      member i's src -> block i of root's dst
 *   gather_all  member i's src -> block i of every dst
 *   exchange    block j of member i's src -> block i of member j's dst
 * _nb forms return a handle (GASNET_COLL_INVALID_HANDLE when already
 * complete) to pass to gasnet_coll_wait_sync/try_sync.  Not in handlers. */
extern gasnet_coll_handle_t gasnete_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                      gasnet_image_t srcimage, void *src,
                                                      size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnete_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                    gasnet_image_t srcimage, void *src,
                                                    size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnete_coll_gather_nb(gasnet_team_handle_t team,
                                                   gasnet_image_t dstimage, void *dst,
                                                   void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnete_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                       void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnete_coll_exchange_nb(gasnet_team_handle_t team, void *dst,
                                                     void *src, size_t nbytes, int flags);
/* Test (polls once) / wait for one handle, or for all / at least one of an
 * array (completed entries become GASNET_COLL_INVALID_HANDLE).  Return
 * GASNET_OK or GASNET_ERR_NOT_READY. */
extern int gasnete_coll_try_sync(gasnet_coll_handle_t handle);
extern int gasnete_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
extern int gasnete_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);
extern void gasnete_coll_wait_sync(gasnet_coll_handle_t handle);
extern void gasnete_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles);
extern void gasnete_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles);

#define gasnet_coll_broadcast_nb gasnete_coll_broadcast_nb
#define gasnet_coll_scatter_nb gasnete_coll_scatter_nb
#define gasnet_coll_gather_nb gasnete_coll_gather_nb
#define gasnet_coll_gather_all_nb gasnete_coll_gather_all_nb
#define gasnet_coll_exchange_nb gasnete_coll_exchange_nb
#define gasnet_coll_broadcast(team, dst, srcimage, src, nbytes, flags) \
    gasnete_coll_wait_sync(gasnete_coll_broadcast_nb(team, dst, srcimage, src, nbytes, flags))
#define gasnet_coll_scatter(team, dst, srcimage, src, nbytes, flags) \
    gasnete_coll_wait_sync(gasnete_coll_scatter_nb(team, dst, srcimage, src, nbytes, flags))
#define gasnet_coll_gather(team, dstimage, dst, src, nbytes, flags) \
    gasnete_coll_wait_sync(gasnete_coll_gather_nb(team, dstimage, dst, src, nbytes, flags))
#define gasnet_coll_gather_all(team, dst, src, nbytes, flags) \
    gasnete_coll_wait_sync(gasnete_coll_gather_all_nb(team, dst, src, nbytes, flags))
#define gasnet_coll_exchange(team, dst, src, nbytes, flags) \
    gasnete_coll_wait_sync(gasnete_coll_exchange_nb(team, dst, src, nbytes, flags))
#define gasnet_coll_try_sync gasnete_coll_try_sync
#define gasnet_coll_try_sync_some gasnete_coll_try_sync_some
#define gasnet_coll_try_sync_all gasnete_coll_try_sync_all
#define gasnet_coll_wait_sync gasnete_coll_wait_sync
#define gasnet_coll_wait_sync_some gasnete_coll_wait_sync_some
#define gasnet_coll_wait_sync_all gasnete_coll_wait_sync_all

/* Split-phase named barriers over a team, with the rules of
 * gasnet_barrier_notify/wait/try/result (which are these on
 * GASNET_TEAM_ALL). */
extern void gasnete_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int gasnete_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int gasnete_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int gasnete_coll_barrier(gasnet_team_handle_t team, int id, int flags);
extern int gasnete_coll_barrier_result(gasnet_team_handle_t team, int *id);
#define gasnet_coll_barrier_notify gasnete_coll_barrier_notify
#define gasnet_coll_barrier_wait gasnete_coll_barrier_wait
#define gasnet_coll_barrier_try gasnete_coll_barrier_try
#define gasnet_coll_barrier gasnete_coll_barrier
#define gasnet_coll_barrier_result gasnete_coll_barrier_result

/* Tuning interface: one algorithm here, so these record nothing. */
extern int gasnet_coll_get_num_tree_classes(gasnet_team_handle_t team,
                                            gasnet_coll_optype_t optype);
extern void gasnet_coll_set_tree_kind(gasnet_team_handle_t team, int tree_type, int fanout,
                                      gasnet_coll_optype_t optype);
extern void gasnet_coll_set_dissem_limit(gasnet_team_handle_t team, size_t dissemlimit,
                                         gasnet_coll_optype_t optype);
#define gasnet_coll_loadTuningState(filename, team) ((void)(filename), (void)(team))
#define gasnet_coll_dumpTuningState(filename, team) ((void)(filename), (void)(team))
#define gasnet_coll_dumpProfile(filename, team) ((void)(filename), (void)(team))

GASNETI_END_EXTERNC

#endif /* GASNET_COLL_H */
