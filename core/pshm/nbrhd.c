/* core/pshm/nbrhd.c: which ranks form this rank's PSHM neighbourhood.
 *
 * Pure function of the host table (no bootstrap, no logging), so that the
 * unit test can check every splitting rule directly.
 *
 * Rule: the ranks whose host id equals mine, in increasing rank order.  With
 * maxsize > 0 (GASNET_SUPERNODE_MAXSIZE) that list is cut into consecutive
 * groups of maxsize ranks (the last group may be smaller) and my
 * neighbourhood is the group that contains me.  maxsize == 1 leaves every
 * rank alone with itself.
 */
#include "core/pshm/pshm_internal.h"

uint32_t gasnetc_pshm_nbrhd_compute(uint32_t rank, uint32_t size, const uint64_t *host_of,
                                    unsigned maxsize, uint32_t *out, uint32_t *my_index)
{
    uint64_t me = host_of[rank];
    uint32_t pos = 0;      /* my position among my host's ranks */
    uint32_t on_host = 0;  /* ranks of my host seen so far */
    uint32_t first, last; /* my group, as positions in the host's list */
    uint32_t n = 0;

    for (uint32_t r = 0; r < size; r++) {
        if (host_of[r] != me) continue;
        if (r == rank) pos = on_host;
        on_host++;
    }
    if (maxsize == 0 || maxsize >= on_host) {
        first = 0;
        last = on_host;
    } else {
        first = pos / maxsize * maxsize;
        last = first + maxsize < on_host ? first + maxsize : on_host;
    }
    on_host = 0;
    for (uint32_t r = 0; r < size && on_host < last; r++) {
        if (host_of[r] != me) continue;
        if (on_host >= first) {
            if (r == rank) *my_index = n;
            out[n++] = r;
        }
        on_host++;
    }
    return n;
}
