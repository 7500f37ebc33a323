/* other/gasnet_portable_platform.h: where GASNet's source tree keeps this
 * header (GASNet's tools-only builds and tests add -I<srcdir>/other).  The
 * header is include/gasnet_portable_platform.h; this one forwards to it. */
#include "../include/gasnet_portable_platform.h"
