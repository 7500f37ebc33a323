/* core/ibv/mem/cseg.c: created segments over verbs (gex_Segment_Create +
 * gex_EP_PublishBoundSegment, extended/ep.c).  At Publish every rank with
 * network peers registers its endpoints' bound segments on each HCA it uses
 * (SEGMENT_FAST only: remote pinning under LARGE/EVERYTHING knows only the
 * primordial segment), the rkeys travel in the published records, and each
 * rank files its peers' (address, size, rkeys) per endpoint index (0 too,
 * when the primordial endpoint's segment is a created one).
 * gasnetc_ibv_rkey (dynreg.c) then finds the key of a range outside a
 * peer's primordial segment here, so RDMA reaches created segments with the
 * same transport as the primordial one.  Rationale: core/ibv/conn/README,
 * "Endpoints: shared connections, demultiplexed".
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/mem/fh_ibv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GASNETC_IBV_MAX_HCAS <= GASNETC_IBV_SEGKEYS,
               "GASNETC_IBV_SEGKEYS must cover every HCA");

typedef struct {
    uint64_t addr, size; /* size 0: none */
    uint32_t rkey[GASNETC_IBV_SEGKEYS];
} cseg_t;

struct gasnetc_ibv_cseg_reg {
    struct ibv_mr *mr[GASNETC_IBV_MAX_HCAS];
};

static gasneti_mutex_t cseg_lock = GASNETI_MUTEX_INITIALIZER;
static cseg_t *cseg[GASNET_MAXEPS]; /* [endpoint index][rank], set once */
int gasnetc_ibv_cseg_any;            /* some peer's created segment is filed */

int gasnetc_ibv_cseg_register(void *addr, uintptr_t size, uint32_t rkeys[GASNETC_IBV_SEGKEYS],
                              struct gasnetc_ibv_cseg_reg **reg)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    *reg = NULL;
    memset(rkeys, 0, sizeof(uint32_t) * GASNETC_IBV_SEGKEYS);
    if (!t->active || !GASNETC_SEGMENT_PINNED || !size) return -1;
    struct gasnetc_ibv_cseg_reg *r = calloc(1, sizeof(*r));
    if (!r) return -1;
    for (int h = 0; h < t->nres; h++) {
        r->mr[h] = ibv_reg_mr(t->res[h].pd, addr, size,
                              IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                  IBV_ACCESS_REMOTE_READ);
        if (!r->mr[h]) {
            gasneti_warning("gex_EP_PublishBoundSegment: ibv_reg_mr of a %lu-byte created "
                            "segment on %s failed (%s); RMA to it goes through AMs",
                            (unsigned long)size, t->res[h].hca->name, strerror(errno));
            gasnetc_ibv_cseg_deregister(r);
            return -1;
        }
        rkeys[h] = r->mr[h]->rkey;
    }
    *reg = r;
    return 0;
}

void gasnetc_ibv_cseg_keys(const struct gasnetc_ibv_cseg_reg *reg,
                           uint32_t rkeys[GASNETC_IBV_SEGKEYS])
{
    memset(rkeys, 0, sizeof(uint32_t) * GASNETC_IBV_SEGKEYS);
    for (int h = 0; h < GASNETC_IBV_MAX_HCAS; h++)
        if (reg->mr[h]) rkeys[h] = reg->mr[h]->rkey;
}

void gasnetc_ibv_cseg_deregister(struct gasnetc_ibv_cseg_reg *reg)
{
    if (!reg) return;
    for (int h = 0; h < GASNETC_IBV_MAX_HCAS; h++)
        if (reg->mr[h]) ibv_dereg_mr(reg->mr[h]);
    free(reg);
}

void gasnetc_ibv_cseg_remote(unsigned ep_idx, uint32_t rank, uint64_t addr, uint64_t size,
                             const uint32_t rkeys[GASNETC_IBV_SEGKEYS])
{
    if (ep_idx >= GASNET_MAXEPS || rank >= gasneti_nodes) return;
    gasneti_mutex_lock(&cseg_lock);
    if (!cseg[ep_idx]) {
        cseg_t *tab = calloc(gasneti_nodes, sizeof(cseg_t));
        if (!tab) gasneti_fatalerror("gex_EP_PublishBoundSegment: out of memory");
        __atomic_store_n(&cseg[ep_idx], tab, __ATOMIC_RELEASE);
    }
    cseg_t *e = &cseg[ep_idx][rank];
    memcpy(e->rkey, rkeys, sizeof(e->rkey));
    e->addr = addr;
    __atomic_store_n(&e->size, size, __ATOMIC_RELEASE);
    __atomic_store_n(&gasnetc_ibv_cseg_any, 1, __ATOMIC_RELEASE);
    gasneti_mutex_unlock(&cseg_lock);
}

size_t gasnetc_ibv_cseg_rkey(int hca, uint32_t rank, uint64_t raddr, size_t len, uint32_t *rkey)
{
    for (int i = 0; i < GASNET_MAXEPS; i++) {
        cseg_t *tab = __atomic_load_n(&cseg[i], __ATOMIC_ACQUIRE);
        if (!tab) continue;
        const cseg_t *e = &tab[rank];
        uint64_t size = __atomic_load_n(&e->size, __ATOMIC_ACQUIRE);
        if (size && raddr >= e->addr && raddr - e->addr < size) {
            *rkey = e->rkey[hca];
            uint64_t left = size - (raddr - e->addr);
            return len < left ? len : (size_t)left;
        }
    }
    return 0;
}

int gasnetc_ibv_cseg_long_ok(uint32_t rank, uint64_t raddr, size_t len)
{
    uint32_t rkey;
    if (len <= gasnetc_ibv.packed_long_limit) return 1;
    return GASNETC_SEGMENT_PINNED && rank < gasneti_nodes &&
           gasnetc_ibv_cseg_rkey(0, rank, raddr, len, &rkey) == len;
}
