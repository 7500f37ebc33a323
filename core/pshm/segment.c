/* core/pshm/segment.c: cross-mapped segments.
 *
 * Attach (collective): every rank creates its segment as an unnamed shared
 * file (an anonymous shared mapping when it is alone in its
 * neighbourhood), then all exchange (owner address, size, status, handle),
 * and each keeps its descriptor open for the job's life.  A neighbour's
 * file is opened and mapped at the first translation of an address in it
 * (gasnetc_pshm_addr): a job whose ranks never touch most of their
 * neighbours' segments does not pay n (n - 1) opens and mappings at attach
 * (50 ms of a 128-process start on 2 cores).  From then on
 * gasnetc_pshm_addr turns an owner-side address into the local one by
 * adding the difference of the two bases.
 */
#include <pthread.h>
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
    gasnetc_pshm_handle_t h;
} seg_info_t;

static size_t page_round(uint64_t size)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page) return 0;
    return (size_t)((size + page - 1) / page * page);
}

int gasnetc_pshm_segment_attach(uintptr_t size, void **addr)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    seg_info_t mine, *all;
    gasnetc_pshm_seg_t *segs;
    size_t maplen = 0;
    void *p = NULL;
    int status = 0, fd = -1;

    if (!st->initialized) gasneti_fatalerror("PSHM: segment attach before gasnetc_pshm_init");
    if (st->seg_attached) gasneti_fatalerror("PSHM: the segment is already attached");
    segs = calloc(st->n, sizeof(*segs));
    all = calloc(st->size, sizeof(*all));
    if (!segs || !all) gasneti_fatalerror("PSHM: out of memory for %u segment records", st->size);

    /* My own segment. */
    memset(&mine, 0, sizeof(mine));
    if (size > 0) {
        maplen = page_round(size);
        if (maplen == 0) {
            gasnetc_pshm_error("PSHM: segment size %llu is too large; lower the segment size",
                               (unsigned long long)size);
            status = -1;
        } else {
            p = st->n > 1 ? gasnetc_pshm_obj_create(maplen, "segment", &fd, &mine.h, 1)
                          : gasnetc_pshm_obj_anon(maplen, "segment");
            if (!p) status = -1;
        }
    }
    mine.addr = (uint64_t)(uintptr_t)p;
    mine.size = p ? (uint64_t)size : 0;
    mine.status = status;
    st->boot->exchange(&mine, sizeof(mine), all);
    for (uint32_t r = 0; r < st->size; r++)
        if (all[r].status) status = -1;
    if (status) {
        gasnetc_pshm_obj_close(&fd);
        if (p) munmap(p, maplen);
        free(segs);
        free(all);
        *addr = NULL;
        return -1;
    }

    /* Every neighbour's record; its mapping waits for a first use. */
    for (uint32_t i = 0; i < st->n; i++) {
        const seg_info_t *in = &all[st->ranks[i]];
        gasnetc_pshm_seg_t *s = &segs[i];
        s->owner = (uintptr_t)in->addr;
        s->size = (uintptr_t)in->size;
        s->maplen = page_round(in->size);
        s->h = in->h;
        if (st->ranks[i] == st->rank) s->local = p;
    }
    st->seg_fd = fd;
    free(all);
    st->segs = segs;
    __atomic_store_n(&st->seg_attached, 1, __ATOMIC_RELEASE);
    gasnetc_pshm_rma_publish();
    *addr = p;
    return 0;
}

/* Maps neighbour index idx's segment (first use), or dies saying why: its
 * owner created it and holds its descriptor, so only a dead owner or a
 * process limit can make this fail.  After teardown a private zero
 * mapping stands in for it, as for those mapped before (segment_fini). */
static void *map_on_first_use(gasnetc_pshm_state_t *st, uint32_t idx)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    gasnetc_pshm_seg_t *s = &st->segs[idx];
    void *p;
    pthread_mutex_lock(&lock);
    p = __atomic_load_n(&s->local, __ATOMIC_ACQUIRE);
    if (!p) {
        if (__atomic_load_n(&st->segs_retired, __ATOMIC_ACQUIRE)) {
            p = mmap(NULL, s->maplen, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) p = NULL;
        } else {
            p = gasnetc_pshm_obj_open(st->ranks[idx], &s->h, s->maplen, "segment");
        }
        if (!p)
            gasneti_fatalerror("PSHM: cannot map rank %u's segment (%zu bytes) at its first "
                               "use: see the line above",
                               (unsigned)st->ranks[idx], s->maplen);
        __atomic_store_n(&s->local, p, __ATOMIC_RELEASE);
        gasnetc_pshm_rma_publish_one(idx);
    }
    pthread_mutex_unlock(&lock);
    return p;
}

void *gasnetc_pshm_addr(uint32_t rank, const void *addr, size_t len)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    const gasnetc_pshm_seg_t *s;
    uintptr_t a = (uintptr_t)addr, off;
    void *local;
    int idx;

    if (!__atomic_load_n(&st->seg_attached, __ATOMIC_ACQUIRE)) return NULL;
    idx = gasnetc_pshm_index_of(rank);
    if (idx < 0) return NULL;
    s = &st->segs[idx];
    if (!s->size || a < s->owner) return NULL;
    off = a - s->owner;
    if (off > s->size || len > s->size - off) return NULL;
    local = __atomic_load_n(&s->local, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!local, 0)) local = map_on_first_use(st, (uint32_t)idx);
    return (char *)local + off;
}

void gasnetc_pshm_segment_fini(void)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    /* Translation stays valid (into private zero pages): see gasnetc_pshm_fini. */
    if (!__atomic_load_n(&st->seg_attached, __ATOMIC_ACQUIRE)) return;
    if (__atomic_exchange_n(&st->segs_retired, 1, __ATOMIC_ACQ_REL)) return;
    for (uint32_t i = 0; i < st->n; i++)
        gasnetc_pshm_obj_retire(__atomic_load_n(&st->segs[i].local, __ATOMIC_ACQUIRE),
                                st->segs[i].maplen);
}

/* ---- created segments shared with neighbours (extended/ep.c) ---------------- */
/* This rank's created segments by serial: the descriptor (until every
 * neighbour has mapped the file, or the segment is destroyed) and the
 * handle.  Control path; extended/ep.c calls these under its lock. */
typedef struct {
    int fd;
    gasnetc_pshm_handle_t h;
} cseg_t;
static cseg_t *cseg;
static uint32_t cseg_cap;

void *gasnetc_pshm_cseg_create(uint32_t serial, size_t len)
{
    if (serial >= cseg_cap) {
        uint32_t cap = cseg_cap ? cseg_cap : 8;
        while (cap <= serial) cap *= 2;
        cseg_t *t = realloc(cseg, cap * sizeof(*t));
        if (!t) return NULL;
        memset(t + cseg_cap, 0, (cap - cseg_cap) * sizeof(*t));
        for (uint32_t i = cseg_cap; i < cap; i++) t[i].fd = -1;
        cseg = t;
        cseg_cap = cap;
    }
    return gasnetc_pshm_obj_create(len, "created segment (gex_Segment_Create)", &cseg[serial].fd,
                                   &cseg[serial].h, 1);
}

int gasnetc_pshm_cseg_handle(uint32_t serial, gasnetc_pshm_handle_t *h)
{
    if (serial >= cseg_cap || cseg[serial].fd < 0) return -1;
    *h = cseg[serial].h;
    return 0;
}

void *gasnetc_pshm_cseg_map(uint32_t rank, const gasnetc_pshm_handle_t *h, size_t len)
{
    return gasnetc_pshm_obj_open(rank, h, len, "created segment");
}

void gasnetc_pshm_cseg_release(uint32_t serial)
{
    if (serial < cseg_cap) gasnetc_pshm_obj_close(&cseg[serial].fd);
}
