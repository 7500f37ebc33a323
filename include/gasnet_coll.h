/* gasnet_coll.h: GASNet-EX collectives.
 *
 * gex_Coll_BarrierNB and gex_Coll_BarrierBlocking are declared in
 * gasnetex.h (which includes this file at its end).  The GASNet-1
 * collectives prototype (gasnet_coll_*) is not provided, so it is not
 * declared.
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

GASNETI_END_EXTERNC

#endif /* GASNET_COLL_H */
