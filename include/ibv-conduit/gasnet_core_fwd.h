/* ibv-conduit/gasnet_core_fwd.h: forward definitions of the Core API (types, constants).
 *
 * Some clients include conduit headers by path; this file only forwards to
 * the public header that declares that part of the API.
 */
#ifndef GASNET_IBV_CONDUIT_GASNET_CORE_FWD_H
#define GASNET_IBV_CONDUIT_GASNET_CORE_FWD_H

#include <gasnet_fwd.h>

#endif /* GASNET_IBV_CONDUIT_GASNET_CORE_FWD_H */
