/* extended/coll.h: the data-movement engine of extended/coll.c, for the
 * GASNet-1 collectives (coll_g1.c) and team creation (team.c).
 */
#ifndef GASNETE_COLL_H
#define GASNETE_COLL_H

#include "extended/extended_internal.h"

/* Kinds of collective instances. */
#define GASNETE_COLL_BCAST 0      /* root's nbytes at src -> dst everywhere */
#define GASNETE_COLL_SCATTER 1    /* root's block j of src -> dst of member j */
#define GASNETE_COLL_GATHER 2     /* member j's src -> block j of root's dst */
#define GASNETE_COLL_GATHER_ALL 3 /* member j's src -> block j of every dst */
#define GASNETE_COLL_EXCHANGE 4   /* member i's block j -> block i of j's dst */
#define GASNETE_COLL_REDUCE 5     /* internal to coll.c */
#define GASNETE_COLL_REDUCE_ALL 6 /* internal to coll.c */

/* Collective over tm: starts one data movement of `kind` (BCAST .. EXCHANGE)
 * with blocks of nbytes; returns its event (GEX_EVENT_INVALID if already
 * complete here).  Source buffers are copied before return; dst is written
 * when the event completes.  fn names the public call in errors.  Not
 * handler-safe. */
gex_Event_t gasnete_coll_move_nb(gex_TM_t tm, int kind, gex_Rank_t root, void *dst,
                                 const void *src, size_t nbytes, const char *fn);

#endif /* GASNETE_COLL_H */
