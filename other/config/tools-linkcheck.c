/* other/config/tools-linkcheck.c: link-time check symbols of the tools-only
 * libraries libgasnet_tools-{seq,par}.a (include/gasnet_linkcheck.h, tools
 * part): a tools client compiled for the other thread model or another
 * release fails to link, naming the difference.  Conduit libraries define
 * the same symbols in other/config/linkcheck.c. */
#define GASNETI_LINKCHECK_DEFINE 1
#include <gasnet_tools.h>
#include <gasnet_linkcheck.h>

int gasnett_linkcheck_threadmodel = 1;
int gasnett_linkcheck_release = 1;

__attribute__((used)) const char gasnett_ident_threadmodel[] =
#if defined(GASNETT_THREAD_SAFE)
    "$GASNetToolsThreadModel: PAR $";
#else
    "$GASNetToolsThreadModel: SEQ $";
#endif
