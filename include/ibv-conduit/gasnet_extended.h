/* ibv-conduit/gasnet_extended.h: the Extended API (RMA, events, NBI, barriers).
 *
 * Some clients include conduit headers by path; this file only forwards to
 * the public header that declares that part of the API.
 */
#ifndef GASNET_IBV_CONDUIT_GASNET_EXTENDED_H
#define GASNET_IBV_CONDUIT_GASNET_EXTENDED_H

#include <gasnetex.h>

#endif /* GASNET_IBV_CONDUIT_GASNET_EXTENDED_H */
