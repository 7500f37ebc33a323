/* ibv-conduit/gasnet_core.h: the Core API (client init, segments, Active Messages).
 *
 * Some clients include conduit headers by path; this file only forwards to
 * the public header that declares that part of the API.
 */
#ifndef GASNET_IBV_CONDUIT_GASNET_CORE_H
#define GASNET_IBV_CONDUIT_GASNET_CORE_H

#include <gasnetex.h>

#endif /* GASNET_IBV_CONDUIT_GASNET_CORE_H */
