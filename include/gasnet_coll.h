/* gasnet_coll.h: GASNet-EX collectives.
 *
 * gex_Coll_BarrierNB and gex_Coll_BarrierBlocking are declared in
 * gasnetex.h (which includes this file at its end).  The data-movement and
 * reduction collectives (gex_Coll_BroadcastNB, gex_Coll_ReduceTo{One,All}NB)
 * and the GASNet-1 collectives prototype are not provided by this release,
 * so they are not declared; the reduction callback type is, for clients that
 * only name it.
 */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H

#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

/* User-defined reduction operator: arg2_and_out[i] = arg1[i] (+) arg2_and_out[i]. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

GASNETI_END_EXTERNC

#endif /* GASNET_COLL_H */
