/* ibv-conduit/gasnet_ibv.h: the ibv conduit as a whole (GASNet-EX and GASNet-1 APIs).
 *
 * Some clients include conduit headers by path; this file only forwards to
 * the public header that declares that part of the API.
 */
#ifndef GASNET_IBV_CONDUIT_GASNET_IBV_H
#define GASNET_IBV_CONDUIT_GASNET_IBV_H

#include <gasnet.h>

#endif /* GASNET_IBV_CONDUIT_GASNET_IBV_H */
