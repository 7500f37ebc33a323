/* extended/ep.c: endpoints beyond the primordial one and the segments bound
 * to them: gex_EP_Create, gex_Segment_Create/Destroy, gex_EP_BindSegment,
 * gex_EP_PublishBoundSegment, gex_Segment_QueryBound and
 * gex_EP_QueryBoundSegmentNB for any endpoint.  The primordial endpoint may
 * take a created segment too, bound instead of gex_Segment_Attach and
 * published like the others: its RMA and Longs then take these paths with
 * index 0 (gasneti_ep0_bound).
 *
 * Endpoint indices are given in creation order (0 is the primordial one),
 * at most GASNET_MAXEPS per process.  AMs name the target endpoint in
 * their header (core/am/wire.h), over PSHM and over the verbs connections,
 * which all endpoints of a process share (core/ibv/conn/README, "Endpoints").
 * A TM-pair (gex_TM_Pair) reaches the endpoint of a given index on every
 * rank.  RMA to a non-primordial endpoint: RDMA over verbs when its
 * segment was registered at Publish (core/ibv/mem/cseg.c), AMs otherwise
 * (ep_rma.c).
 * Publishing gathers every caller's (index, address, size) over the team
 * once; the table is per remote endpoint index, sized by the job.
 */
#include "extended/team.h"
#include "core/ibv/ibv.h"
#include "core/pshm/pshm.h"

#include <gasnet_mk.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static gasneti_mutex_t ep_lock = GASNETI_MUTEX_INITIALIZER;
static gex_EP_Index_t ep_count = 1;               /* next index */
typedef struct {
    void *addr;       /* as the owner sees it */
    uintptr_t size;   /* 0: nothing published */
    void *local;      /* neighbours: where it is mapped here, or NULL */
    uint32_t serial;  /* the shared object mapped at local (serial + 1) */
} pub_t;
static pub_t *published[GASNET_MAXEPS]; /* [idx][jobrank], lazily */
static uint32_t next_serial;            /* of shared created segments */

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags)
{
    static const char fn[] = "gex_EP_Create";
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", fn);
    if (!ep_p || client == GEX_CLIENT_INVALID)
        gasneti_fatalerror("%s: ep_p and client must be valid", fn);
    if (!capabilities || (capabilities & ~(gex_EP_Capabilities_t)GEX_EP_CAPABILITY_ALL))
        gasneti_fatalerror("%s: capabilities 0x%x must be a non-empty OR of "
                           "GEX_EP_CAPABILITY_{RMA,AM,VIS,AD,COLL}",
                           fn, (unsigned)capabilities);
    struct gasneti_ep_s *ep = calloc(1, sizeof(*ep));
    if (!ep) gasneti_fatalerror("%s: out of memory", fn);
    gasneti_mutex_lock(&ep_lock);
    if (ep_count >= GASNET_MAXEPS) {
        gasneti_mutex_unlock(&ep_lock);
        gasneti_fatalerror("%s: this process already has GASNET_MAXEPS (%d) endpoints", fn,
                           GASNET_MAXEPS);
    }
    ep->index = ep_count++;
    ep->client = client;
    ep->caps = capabilities;
    ep->flags = flags;
    ep->segment = GEX_SEGMENT_INVALID;
    __atomic_store_n(&gasneti_eps[ep->index], ep, __ATOMIC_RELEASE);
    gasneti_mutex_unlock(&ep_lock);
    *ep_p = ep;
    return GASNET_OK;
}

/* ---- segments ------------------------------------------------------------------ */

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                       uintptr_t length, gex_MK_t kind, gex_Flags_t flags)
{
    static const char fn[] = "gex_Segment_Create";
    if (!segment_p || client == GEX_CLIENT_INVALID || length == 0) {
        gasneti_warning("%s: segment_p and client must be valid and length non-zero", fn);
        return GASNET_ERR_BAD_ARG;
    }
    if (!gasnete_mk_is_host(kind)) {
        gasneti_warning("%s: kind %p is not host memory (this library supports GEX_MK_HOST "
                        "and GEX_MK_CLASS_HOST kinds only)",
                        fn, (void *)kind);
        return GASNET_ERR_BAD_ARG;
    }
    struct gasneti_segment_s *seg = calloc(1, sizeof(*seg));
    if (!seg) return GASNET_ERR_RESOURCE;
    if (!address) { /* library-allocated: whole pages, zeroed */
        uintptr_t len = (length + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
        void *p = MAP_FAILED;
        if (gasnetc_pshm_nbrhd_size() > 1) { /* shared, so neighbours can map it */
            gasneti_mutex_lock(&ep_lock);
            uint32_t serial = next_serial++;
            void *q = gasnetc_pshm_cseg_create(serial, len);
            gasneti_mutex_unlock(&ep_lock);
            if (q) {
                p = q;
                seg->pshm_serial = serial + 1;
            }
        }
        if (p == MAP_FAILED)
            p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            free(seg);
            gasneti_warning("%s: cannot allocate %lu bytes (mmap failed)", fn,
                            (unsigned long)len);
            return GASNET_ERR_RESOURCE;
        }
        address = p;
        length = len;
        seg->owned = 1;
    }
    seg->client = client;
    seg->addr = address;
    seg->size = length;
    seg->flags = flags;
    seg->kind = kind;
    *segment_p = seg;
    return GASNET_OK;
}

void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags)
{
    (void)flags;
    if (segment == GEX_SEGMENT_INVALID || segment == &gasneti_the_segment)
        gasneti_fatalerror("gex_Segment_Destroy: %s cannot be destroyed",
                           segment ? "the primordial segment (gex_Segment_Attach)"
                                   : "GEX_SEGMENT_INVALID");
    if (segment->ep) { /* unbound */
        if (segment->ep->index == 0) __atomic_store_n(&gasneti_ep0_bound, 0, __ATOMIC_RELEASE);
        segment->ep->segment = GEX_SEGMENT_INVALID;
    }
    gasnetc_ibv_cseg_deregister(segment->net_reg);
    if (segment->pshm_serial) { /* its descriptor, if still open (unpublished) */
        gasneti_mutex_lock(&ep_lock);
        gasnetc_pshm_cseg_release(segment->pshm_serial - 1);
        gasneti_mutex_unlock(&ep_lock);
    }
    if (segment->owned) munmap(segment->addr, segment->size);
    free(segment);
}

/* Any endpoint, the primordial one included (instead of gex_Segment_Attach:
 * gasneti_ep0_bound then routes its RMA and Longs like a created segment's). */
int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags)
{
    static const char fn[] = "gex_EP_BindSegment";
    if (ep == GEX_EP_INVALID || segment == GEX_SEGMENT_INVALID) {
        gasneti_warning("%s: %s is invalid", fn, ep ? "segment" : "ep");
        return GASNET_ERR_BAD_ARG;
    }
    if (flags) {
        gasneti_warning("%s: flags 0x%x are reserved and must be 0", fn, (unsigned)flags);
        return GASNET_ERR_BAD_ARG;
    }
    int rc = GASNET_OK;
    gasneti_mutex_lock(&ep_lock);
    if (ep->segment != GEX_SEGMENT_INVALID) {
        gasneti_warning("%s: endpoint %u already has a bound segment%s", fn, (unsigned)ep->index,
                        ep->segment == &gasneti_the_segment ? " (from gex_Segment_Attach)" : "");
        rc = GASNET_ERR_BAD_ARG;
    } else if (segment->ep) {
        gasneti_warning("%s: the segment is already bound to endpoint %u", fn,
                        (unsigned)segment->ep->index);
        rc = GASNET_ERR_BAD_ARG;
    } else {
        segment->ep = ep;
        ep->segment = segment;
        if (ep->index == 0) __atomic_store_n(&gasneti_ep0_bound, 1, __ATOMIC_RELEASE);
    }
    gasneti_mutex_unlock(&ep_lock);
    return rc;
}

typedef struct {
    uint32_t idx_plus1; /* 0: unused slot */
    uint32_t has_keys;  /* rkeys valid: registered with verbs */
    uint32_t pshm_serial; /* shared with neighbours: file serial + 1 */
    uint32_t pad;
    uint64_t addr, size;
    gasnetc_pshm_handle_t pshm; /* how neighbours open the file */
    uint32_t rkeys[GASNETC_IBV_SEGKEYS];
} pub_rec_t;

int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags)
{
    static const char fn[] = "gex_EP_PublishBoundSegment";
    (void)flags;
    (void)gasnete_team_for_coll(tm, fn);
    if (num_eps > GASNET_MAXEPS)
        gasneti_fatalerror("%s: num_eps %zu > GASNET_MAXEPS (%d)", fn, num_eps, GASNET_MAXEPS);
    pub_rec_t mine[GASNET_MAXEPS];
    memset(mine, 0, sizeof(mine));
    for (size_t i = 0; i < num_eps; i++) {
        gex_EP_t ep = eps[i];
        if (ep == GEX_EP_INVALID) gasneti_fatalerror("%s: eps[%zu] is GEX_EP_INVALID", fn, i);
        /* The attached segment needs nothing (gex_Segment_Attach published it). */
        if (ep->segment == GEX_SEGMENT_INVALID || ep->segment == &gasneti_the_segment) continue;
        gex_Segment_t seg = ep->segment;
        mine[i].idx_plus1 = (uint32_t)ep->index + 1;
        mine[i].addr = (uint64_t)(uintptr_t)seg->addr;
        mine[i].size = seg->size;
        if (!seg->net_reg) /* verbs: register once, RDMA then reaches it */
            (void)gasnetc_ibv_cseg_register(seg->addr, seg->size, mine[i].rkeys,
                                            (struct gasnetc_ibv_cseg_reg **)&seg->net_reg);
        else
            gasnetc_ibv_cseg_keys(seg->net_reg, mine[i].rkeys);
        mine[i].has_keys = seg->net_reg != NULL;
        mine[i].pshm_serial = seg->pshm_serial;
        gasneti_mutex_lock(&ep_lock);
        /* Published before, the descriptor is closed: neighbours have it mapped. */
        if (seg->pshm_serial) (void)gasnetc_pshm_cseg_handle(seg->pshm_serial - 1, &mine[i].pshm);
        gasneti_mutex_unlock(&ep_lock);
    }
    gex_Rank_t n = tm->size;
    pub_rec_t *all = malloc(sizeof(mine) * n);
    if (!all) gasneti_fatalerror("%s: out of memory", fn);
    gasnete_coll_allgather(tm, all, mine, sizeof(mine));
    gasneti_mutex_lock(&ep_lock);
    for (gex_Rank_t r = 0; r < n; r++) {
        gex_Rank_t jr = gasnetc_tm_to_jobrank(tm, r);
        for (int k = 0; k < GASNET_MAXEPS; k++) {
            const pub_rec_t *p = &all[(size_t)r * GASNET_MAXEPS + (size_t)k];
            if (!p->idx_plus1) continue;
            gex_EP_Index_t idx = (gex_EP_Index_t)(p->idx_plus1 - 1);
            if (!published[idx]) published[idx] = calloc(gasneti_nodes, sizeof(pub_t));
            if (!published[idx]) gasneti_fatalerror("%s: out of memory", fn);
            pub_t *e = &published[idx][jr];
            if (jr != gasneti_mynode && gasnetc_pshm_in_nbrhd(jr) && p->pshm_serial &&
                e->serial != p->pshm_serial) { /* a neighbour's new shared segment */
                void *m = gasnetc_pshm_cseg_map(jr, &p->pshm, (size_t)p->size);
                if (!m) gasnetc_fatal_exit(1);
                e->local = m;
                e->serial = p->pshm_serial;
            } else if (e->serial != p->pshm_serial) {
                e->local = NULL; /* not shared: RMA goes through RDMA or AMs */
                e->serial = 0;
            }
            e->addr = (void *)(uintptr_t)p->addr;
            e->size = (uintptr_t)p->size;
            if (p->has_keys && jr != gasneti_mynode)
                gasnetc_ibv_cseg_remote(idx, jr, p->addr, p->size, p->rkeys);
        }
    }
    gasneti_mutex_unlock(&ep_lock);
    free(all);
    /* Everyone in tm has mapped our shared segments: their descriptors can go. */
    (void)gex_Coll_BarrierBlocking(tm, 0);
    gasneti_mutex_lock(&ep_lock);
    for (size_t i = 0; i < num_eps; i++)
        if (mine[i].pshm_serial) gasnetc_pshm_cseg_release(mine[i].pshm_serial - 1);
    gasneti_mutex_unlock(&ep_lock);
    return GASNET_OK;
}

void *gasnete_ep_local_addr(gex_Rank_t jobrank, gex_EP_Index_t idx, const void *addr, size_t n)
{
    void *p = NULL;
    if (idx >= GASNET_MAXEPS || jobrank >= gasneti_nodes) return NULL;
    gasneti_mutex_lock(&ep_lock);
    if (jobrank == gasneti_mynode) {
        gex_EP_t ep = gasneti_eps[idx];
        gex_Segment_t s = ep ? ep->segment : GEX_SEGMENT_INVALID;
        if (s && (uintptr_t)addr >= (uintptr_t)s->addr && n <= s->size &&
            (uintptr_t)addr - (uintptr_t)s->addr <= s->size - n)
            p = (void *)addr;
    } else if (published[idx]) {
        const pub_t *e = &published[idx][jobrank];
        uintptr_t off = (uintptr_t)addr - (uintptr_t)e->addr;
        if (e->local && (uintptr_t)addr >= (uintptr_t)e->addr && n <= e->size &&
            off <= e->size - n)
            p = (char *)e->local + off;
    }
    gasneti_mutex_unlock(&ep_lock);
    return p;
}

int gasnete_ep_segment(gex_Rank_t jobrank, gex_EP_Index_t idx, void **addr, uintptr_t *size)
{
    int rc = -1;
    if (idx >= GASNET_MAXEPS || jobrank >= gasneti_nodes) return -1;
    gasneti_mutex_lock(&ep_lock);
    if (jobrank == gasneti_mynode) {
        gex_EP_t ep = gasneti_eps[idx];
        if (ep && ep->segment != GEX_SEGMENT_INVALID) {
            *addr = ep->segment->addr;
            *size = ep->segment->size;
            rc = 0;
        }
    } else if (published[idx] && published[idx][jobrank].size) {
        *addr = published[idx][jobrank].addr;
        *size = published[idx][jobrank].size;
        rc = 0;
    }
    gasneti_mutex_unlock(&ep_lock);
    return rc;
}

/* ---- queries of bound segments ------------------------------------------------------- */

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p)
{
    if (tm == GEX_TM_INVALID || rank >= tm->size) return GASNET_ERR_BAD_ARG;
    gex_Rank_t jr = gasnetc_tm_to_jobrank(tm, rank);
    void *addr, *local = NULL;
    uintptr_t size;
    /* The local address only when asked for: a neighbour's attached
     * segment is mapped at its first use (core/pshm/README). */
    if (tm->pair_ep_idx || gasneti_ep0_bound) { /* a created segment: mapped if ours or shared */
        if (gasnete_ep_segment(jr, tm->pair_ep_idx, &addr, &size)) return GASNET_ERR_BAD_ARG;
        if (localaddr_p) local = gasnete_ep_local_addr(jr, tm->pair_ep_idx, addr, 0);
    } else {
        if (!gasneti_attach_done) return GASNET_ERR_BAD_ARG;
        addr = gasneti_seginfo[jr].addr;
        size = gasneti_seginfo[jr].size;
        if (localaddr_p && gasnetc_is_local(jr)) local = gasnetc_local_addr(jr, addr, 0);
    }
    if (owneraddr_p) *owneraddr_p = addr;
    if (localaddr_p) *localaddr_p = local;
    if (size_p) *size_p = size;
    return GASNET_OK;
}

gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p, gex_Flags_t flags)
{
    (void)flags;
    /* Everything published is known locally: complete at once. */
    if (gex_Segment_QueryBound(tm, rank, owneraddr_p, localaddr_p, size_p) != GASNET_OK) {
        if (owneraddr_p) *owneraddr_p = NULL;
        if (localaddr_p) *localaddr_p = NULL;
        if (size_p) *size_p = 0;
    }
    return GEX_EVENT_INVALID;
}
