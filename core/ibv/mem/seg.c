/* core/ibv/mem/seg.c: the segment for RDMA.  At gex_Segment_Attach (after
 * PSHM has allocated the segment) every rank with network peers registers
 * its segment on each HCA it uses (SEGMENT_FAST only), with local write and
 * remote read/write access, and all ranks exchange the rkeys through the
 * bootstrap.  Each connection then knows the rkey of its peer's segment on
 * its own HCA (rail i talks to rail i), which Long payloads above
 * GASNET_PACKEDLONG_LIMIT and RMA use.  SEGMENT_LARGE/EVERYTHING register
 * nothing here: firehose pins pieces of it on demand (remote pinning), so
 * the exchanged rkeys are 0.  Then firehose is set up (fh_ops.c), sized by
 * what is left of the pinnable memory.
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/mem/fh_ibv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void gasnetc_ibv_segment_attach(void *addr, uintptr_t size)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    int any = t->active;
    int32_t *flags = calloc(gasneti_nodes, sizeof(int32_t));
    if (!flags) gasneti_fatalerror("out of memory at attach");
    /* Collective only when some rank has network peers (all agree). */
    gasneti_boot->exchange(&any, sizeof(int32_t), flags);
    any = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) any |= flags[r];
    free(flags);
    if (!any) return;
    gasnetc_ibv_mbox_attach(); /* the barrier mailbox (mbox.c), collective like this */

    uint32_t mine[GASNETC_IBV_MAX_HCAS] = {0};
    if (t->active && size && GASNETC_SEGMENT_PINNED) {
        t->seg_addr = (uintptr_t)addr;
        t->seg_size = size;
        for (int h = 0; h < t->nres; h++) {
            gasnetc_ibv_res_t *r = &t->res[h];
            r->seg_mr = ibv_reg_mr(r->pd, addr, size,
                                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                       IBV_ACCESS_REMOTE_READ);
            if (!r->seg_mr) {
                int err = errno;
                struct rlimit rl;
                getrlimit(RLIMIT_MEMLOCK, &rl);
                gasneti_fatalerror("gex_Segment_Attach: ibv_reg_mr of the %lu-byte segment on %s "
                                   "failed: %s (RLIMIT_MEMLOCK %llu bytes; pinnable memory "
                                   "bounded by %s): raise 'ulimit -l', lower GASNET_PHYSMEM_MAX "
                                   "or attach a smaller segment", (unsigned long)size,
                                   r->hca->name, strerror(err), (unsigned long long)rl.rlim_cur,
                                   gasnetc_ibv_pinnable_why());
            }
            mine[h] = r->seg_mr->rkey;
        }
    }
    uint32_t *all = calloc((size_t)gasneti_nodes * GASNETC_IBV_MAX_HCAS, sizeof(uint32_t));
    if (!all) gasneti_fatalerror("out of memory at attach");
    gasneti_boot->exchange(mine, sizeof(mine), all);
    for (int i = 0; i < t->nceps; i++) {
        gasnetc_cep_t *c = &t->ceps[i];
        c->rkey = all[(size_t)c->rank * GASNETC_IBV_MAX_HCAS + c->res->index];
    }
    free(all);
    gasnetc_fh_attach(t->active, GASNETC_SEGMENT_PINNED && t->active ? (uint64_t)size : 0);
}
