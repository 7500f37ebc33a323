/* gasnet_ratomic.h: GASNet-EX remote atomics.
 *
 * The data-type and operation codes (GEX_DT_*, GEX_OP_*, GEX_OP_TO_FETCHING,
 * GEX_OP_TO_NONFETCHING) are in gasnet_fwd.h.  Atomic domains (gex_AD_*) are
 * not provided by this release, so they are not declared: a client that
 * needs them fails at compile time rather than at link or run time.
 */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H

#include <gasnetex.h>

#endif /* GASNET_RATOMIC_H */
