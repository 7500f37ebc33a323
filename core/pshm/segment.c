/* core/pshm/segment.c: cross-mapped segments.
 *
 * Attach (collective): every rank creates its segment as a shared-memory
 * object (an anonymous shared mapping when it is alone in its
 * neighbourhood), then all exchange (owner address, size, status); each
 * maps every neighbour's object; a second status exchange tells that all
 * mappings exist, and each rank unlinks its own name.  From then on
 * gasnetc_pshm_addr turns an owner-side address into the local one by
 * adding the difference of the two bases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/pshm/pshm_internal.h"
#include "other/log/log.h"

/* What each rank tells all others about its segment. */
typedef struct {
    uint64_t addr;
    uint64_t size;
    int32_t status;
    int32_t pad;
} seg_info_t;

static size_t page_round(uint64_t size)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page) return 0;
    return (size_t)((size + page - 1) / page * page);
}

static void unmap_all(gasnetc_pshm_seg_t *segs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (segs[i].local) munmap(segs[i].local, segs[i].maplen);
        segs[i].local = NULL;
    }
}

int gasnetc_pshm_segment_attach(uintptr_t size, void **addr)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    char name[GASNETC_PSHM_NAME_MAX];
    seg_info_t mine, *all;
    gasnetc_pshm_seg_t *segs;
    size_t maplen = 0;
    void *p = NULL;
    int status = 0;

    if (!st->initialized) gasneti_fatalerror("PSHM: segment attach before gasnetc_pshm_init");
    if (st->seg_attached) gasneti_fatalerror("PSHM: the segment is already attached");
    segs = calloc(st->n, sizeof(*segs));
    all = calloc(st->size, sizeof(*all));
    if (!segs || !all) gasneti_fatalerror("PSHM: out of memory for %u segment records", st->size);

    /* Step 1: my own segment. */
    gasnetc_pshm_obj_name(name, sizeof(name), "seg", st->rank);
    if (size > 0) {
        maplen = page_round(size);
        if (maplen == 0) {
            gasnetc_pshm_error("PSHM: segment size %llu is too large; lower the segment size",
                               (unsigned long long)size);
            status = -1;
        } else {
            p = st->n > 1 ? gasnetc_pshm_obj_create(name, maplen, "segment")
                          : gasnetc_pshm_obj_anon(maplen, "segment");
            if (!p) status = -1;
        }
    }
    memset(&mine, 0, sizeof(mine));
    mine.addr = (uint64_t)(uintptr_t)p;
    mine.size = p ? (uint64_t)size : 0;
    mine.status = status;
    st->boot->exchange(&mine, sizeof(mine), all);
    for (uint32_t r = 0; r < st->size; r++)
        if (all[r].status) status = -1;
    if (status) goto fail;

    /* Step 2: map every neighbour's. */
    for (uint32_t i = 0; i < st->n; i++) {
        const seg_info_t *in = &all[st->ranks[i]];
        gasnetc_pshm_seg_t *s = &segs[i];
        s->owner = (uintptr_t)in->addr;
        s->size = (uintptr_t)in->size;
        if (st->ranks[i] == st->rank) {
            s->local = p;
            s->maplen = maplen;
            p = NULL; /* now owned by segs[] */
        } else if (in->size > 0) {
            char nbr[GASNETC_PSHM_NAME_MAX];
            gasnetc_pshm_obj_name(nbr, sizeof(nbr), "seg", st->ranks[i]);
            s->maplen = page_round(in->size);
            s->local = gasnetc_pshm_obj_open(nbr, s->maplen, "segment");
            if (!s->local) {
                status = -1;
                break;
            }
        }
    }

    /* Step 3: everybody has mapped everything (or someone failed): my name
     * can go either way. */
    status = gasnetc_pshm_all_ok(status) ? 0 : -1;
    if (size > 0 && st->n > 1) gasnetc_pshm_obj_unlink(name);
    if (status) goto fail;
    free(all);
    st->segs = segs;
    __atomic_store_n(&st->seg_attached, 1, __ATOMIC_RELEASE);
    gasnetc_pshm_rma_publish();
    *addr = segs[st->my_index].local;
    return 0;

fail:
    if (p) {
        /* Still ours: created but never handed to segs[]. */
        if (st->n > 1) gasnetc_pshm_obj_unlink(name);
        munmap(p, maplen);
    }
    unmap_all(segs, st->n);
    free(segs);
    free(all);
    *addr = NULL;
    return -1;
}

void *gasnetc_pshm_addr(uint32_t rank, const void *addr, size_t len)
{
    const gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    const gasnetc_pshm_seg_t *s;
    uintptr_t a = (uintptr_t)addr, off;
    int idx;

    if (!__atomic_load_n(&st->seg_attached, __ATOMIC_ACQUIRE)) return NULL;
    idx = gasnetc_pshm_index_of(rank);
    if (idx < 0) return NULL;
    s = &st->segs[idx];
    if (!s->local || a < s->owner) return NULL;
    off = a - s->owner;
    if (off > s->size || len > s->size - off) return NULL;
    return (char *)s->local + off;
}

void gasnetc_pshm_segment_fini(void)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    /* Translation stays valid (into private zero pages): see gasnetc_pshm_fini. */
    if (!__atomic_load_n(&st->seg_attached, __ATOMIC_ACQUIRE)) return;
    if (__atomic_exchange_n(&st->segs_retired, 1, __ATOMIC_ACQ_REL)) return;
    for (uint32_t i = 0; i < st->n; i++) gasnetc_pshm_obj_retire(st->segs[i].local, st->segs[i].maplen);
}

/* ---- created segments shared with neighbours (extended/ep.c) ---------------- */

static void cseg_name(char *buf, size_t len, uint32_t rank, uint32_t serial)
{
    char what[32];
    snprintf(what, sizeof(what), "cseg%u-r", (unsigned)serial);
    gasnetc_pshm_obj_name(buf, len, what, rank);
}

void *gasnetc_pshm_cseg_create(uint32_t serial, size_t len)
{
    char name[128];
    cseg_name(name, sizeof(name), gasnetc_pshm_state.rank, serial);
    return gasnetc_pshm_obj_create(name, len, "created segment (gex_Segment_Create)");
}

void *gasnetc_pshm_cseg_map(uint32_t rank, uint32_t serial, size_t len)
{
    char name[128];
    cseg_name(name, sizeof(name), rank, serial);
    return gasnetc_pshm_obj_open(name, len, "neighbour's created segment");
}

void gasnetc_pshm_cseg_unlink(uint32_t serial)
{
    char name[128];
    cseg_name(name, sizeof(name), gasnetc_pshm_state.rank, serial);
    gasnetc_pshm_obj_unlink(name);
}
