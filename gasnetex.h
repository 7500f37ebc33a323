/* gasnetex.h (top of the source tree): GASNet-EX's main header is here in
 * GASNet's own source tree, and runtimes that build GASNet from source
 * (UPC++'s configure) check for it to recognise a GASNet-EX tree.  The real
 * header is include/gasnetex.h; this one only forwards to it. */
#include "include/gasnetex.h"
