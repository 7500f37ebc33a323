/* other/tools/tools-conduit.c: gasnett_mmap, a gasnet_tools.h service that
 * exists only with a conduit (gasnetex.h; the others: tools-format.c, the
 * printers, and diag/diagnostic.c, gasnett_run_diagnostics).  Part of the
 * conduit libraries only. */
#include <gasnetex.h>

#include "other/log/log.h"

#include <sys/mman.h>

void *gasnett_mmap(uintptr_t segsize)
{
    void *p = mmap(NULL, segsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        gasneti_fatalerror("gasnett_mmap(%lu) failed: %s", (unsigned long)segsize,
                           strerror(errno));
    return p;
}
