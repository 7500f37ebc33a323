/* core/ibv/rma/mbox.c: a small registered mailbox per rank that peers write by
 * RDMA (used by the primordial team's barrier, extended/barrier_rdma.c).
 *
 * The extended layer asks for N bytes before gex_Segment_Attach
 * (gasnetc_ibv_mbox_request).  At attach, when some rank has network peers
 * (the same collective decision seg.c makes), every rank allocates N zeroed
 * bytes, registers them on each HCA for remote write, and all ranks
 * exchange (address, rkey per HCA) through the bootstrap; then the
 * requester's ready callback runs on every rank at the same point of its
 * program.  A write to a peer goes on QP 0 of an established connection as
 * one inline RDMA WRITE from a send descriptor (the rndv.c release path):
 * no AM header, no credit, no receive buffer.  Peers without a connection
 * (PSHM neighbours, on-demand peers not connected yet) get 0 back and the
 * caller uses its other path.  Design: core/ibv/rma/README "Mailbox".
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t addr;
    uint32_t rkey[GASNETC_IBV_MAX_HCAS];
} mbox_addr_t;

static struct {
    size_t bytes;            /* requested size; 0 = no mailbox */
    void (*ready)(void);     /* requester's callback after the exchange */
    uint64_t *local;         /* this rank's mailbox (NULL before attach) */
    mbox_addr_t *peer;       /* [rank] */
    struct ibv_mr *mr[GASNETC_IBV_MAX_HCAS];
} M;

void gasnetc_ibv_mbox_request(size_t bytes, void (*ready)(void))
{
    M.bytes = (bytes + 63) & ~(size_t)63;
    M.ready = ready;
}

/* Called by gasnetc_ibv_segment_attach on every rank once all ranks agreed
 * that some rank has network peers (collective). */
void gasnetc_ibv_mbox_attach(void)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    if (!M.bytes) return; /* every rank requests alike (same build, same params) */
    mbox_addr_t mine;
    memset(&mine, 0, sizeof(mine));
    void *p = NULL;
    if (posix_memalign(&p, 4096, M.bytes) != 0)
        gasneti_fatalerror("out of memory allocating the %zu-byte barrier mailbox", M.bytes);
    memset(p, 0, M.bytes);
    if (t->active) {
        for (int h = 0; h < t->nres; h++) {
            M.mr[h] = ibv_reg_mr(t->res[h].pd, p, M.bytes,
                                 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
            if (!M.mr[h])
                gasneti_fatalerror("ibv_reg_mr of the %zu-byte barrier mailbox on %s failed: %s "
                                   "(raise 'ulimit -l', or set GASNET_BARRIER=AMDISSEM)",
                                   M.bytes, t->res[h].hca->name, strerror(errno));
            mine.rkey[h] = M.mr[h]->rkey;
        }
        mine.addr = (uintptr_t)p;
    }
    M.peer = calloc(gasneti_nodes, sizeof(mbox_addr_t));
    if (!M.peer) gasneti_fatalerror("out of memory at attach (barrier mailbox)");
    gasneti_boot->exchange(&mine, sizeof(mine), M.peer);
    __atomic_store_n(&M.local, (uint64_t *)p, __ATOMIC_RELEASE);
    if (M.ready) M.ready();
}

const volatile uint64_t *gasnetc_ibv_mbox_local(void)
{
    return __atomic_load_n(&M.local, __ATOMIC_ACQUIRE);
}

int gasnetc_ibv_mbox_write(uint32_t dest, size_t off, uint64_t w0, uint64_t w1)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    if (!t->active || dest >= t->size || !M.peer || off + 16 > M.bytes) return 0;
    gasnetc_cep_t *ceps = GASNETC_ATOMIC_LOAD(&t->peer_ceps[dest]);
    if (!ceps || !M.peer[dest].addr) return 0; /* PSHM neighbour, self, or not connected */
    gasnetc_cep_t *c = &ceps[0]; /* always QP 0: a peer's writes land in order */
    int hi = c->res->index;
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, GASNETC_OP_PUT);
    d->wr = GASNETC_WR_WRITE;
    d->raddr = M.peer[dest].addr + off;
    d->rkey = M.peer[dest].rkey[hi];
    uint64_t *src = (uint64_t *)d->slot.data;
    src[0] = w0;
    src[1] = w1;
    d->sge[0].addr = (uintptr_t)src;
    d->sge[0].length = 16;
    d->sge[0].lkey = d->slot.lkey[hi];
    d->inl = c->inline_max >= 16;
    gasnetc_ibv_post_desc(d); /* the completion path frees d */
    return 1;
}
