/* ibv-conduit/gasnet_extended_fwd.h: forward definitions of the Extended API (types, constants).
 *
 * Some clients include conduit headers by path; this file only forwards to
 * the public header that declares that part of the API.
 */
#ifndef GASNET_IBV_CONDUIT_GASNET_EXTENDED_FWD_H
#define GASNET_IBV_CONDUIT_GASNET_EXTENDED_FWD_H

#include <gasnet_fwd.h>

#endif /* GASNET_IBV_CONDUIT_GASNET_EXTENDED_FWD_H */
