/* gasnetex.h (top of the source tree): GASNet keeps its public headers at
 * the top of its source tree, where runtimes that build GASNet from source
 * look for them (UPC++'s configure checks for gasnet.h and gasnetex.h).  The
 * header is include/gasnetex.h, which is what gets installed; this one
 * forwards to it. */
#include "include/gasnetex.h"
