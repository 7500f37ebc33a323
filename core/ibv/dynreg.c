/* core/ibv/dynreg.c: memory keys for RDMA (dynreg.h).
 *
 * This version knows only the memory registered at attach: the local
 * segment, and the peer's segment (SEGMENT_FAST).  Firehose integration
 * (local pinning of other buffers, remote pinning for SEGMENT_LARGE/
 * EVERYTHING) replaces the "not covered" answers below (issue 6).
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/dynreg.h"

size_t gasnetc_ibv_lkey(int hca, const void *addr, size_t len, uint32_t *lkey,
                        gasnetc_ibv_hold_t **hold)
{
    *hold = NULL;
    return gasnetc_ibv_seg_lkey(&gasnetc_ibv.res[hca], addr, len, lkey) ? len : 0;
}

size_t gasnetc_ibv_rkey(int hca, uint32_t rank, uint64_t raddr, size_t len, uint32_t *rkey,
                        gasnetc_ibv_hold_t **hold)
{
    (void)raddr;
    *hold = NULL;
    gasnetc_cep_t *ceps = rank < gasnetc_ibv.size ? gasnetc_ibv.peer_ceps[rank] : NULL;
    for (int q = 0; ceps && q < gasnetc_ibv.nqps; q++)
        if (ceps[q].res->index == hca) {
            *rkey = ceps[q].rkey;
            return len;
        }
    gasneti_fatalerror("no verbs connection to rank %u on HCA %d", rank, hca);
    return 0;
}

void gasnetc_ibv_hold_release(gasnetc_ibv_hold_t *hold)
{
    if (hold) gasneti_fatalerror("dynreg: release of a hold this build never hands out");
}
