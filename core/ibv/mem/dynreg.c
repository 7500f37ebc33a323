/* core/ibv/mem/dynreg.c: memory keys for RDMA (dynreg.h), from the segment's
 * registration or from firehose (core/ibv/mem/fh_ops.c, firehose/).
 *
 * Local keys: the local segment's MR (SEGMENT_FAST) needs no hold.  Other
 * memory is pinned through firehose when the piece is at least
 * DYNREG_PIN_MIN bytes; below that only an already pinned region is used
 * (FIREHOSE_FLAG_TRY) and a miss means bounce buffers: copying a few KiB
 * costs less than a registration, while a cached region costs only a
 * lookup.  Firehose off, at its limits, or a failed pin: 0 = bounce.
 *
 * Remote keys: SEGMENT_FAST: the peer's segment MR (exchanged at attach).
 * SEGMENT_LARGE/EVERYTHING: a firehose on the peer's memory; a miss sends a
 * move request and polls until the grant (or, when all of the peer's share
 * is in use by our own operations, until some complete); inside AM handlers
 * only cached firehoses are used and a miss returns 0.  Every wait ends
 * after GASNETC_FH_WAIT_SECONDS with a fatal error naming the peer.
 *
 * A hold wraps one firehose request; holds come from a free list (grown by
 * chunks, never freed) so the data path does not allocate.
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/mem/dynreg.h"
#include "core/ibv/mem/fh_ibv.h"

#include <stdlib.h>
#include <time.h>

#define DYNREG_PIN_MIN ((size_t)8192)
#define GASNETC_FH_WAIT_SECONDS 300.0
#define HOLD_CHUNK 64

struct gasnetc_ibv_hold {
    firehose_request_t req;
    struct gasnetc_ibv_hold *next;
    int done; /* atomic: remote pin completed (callback ran) */
};

static gasnetc_ibv_hold_t *hold_free;
static gasneti_mutex_t hold_lock = GASNETI_MUTEX_INITIALIZER;

static gasnetc_ibv_hold_t *hold_get(void)
{
    gasneti_mutex_lock(&hold_lock);
    if (!hold_free) {
        gasnetc_ibv_hold_t *c = calloc(HOLD_CHUNK, sizeof *c);
        if (!c) gasneti_fatalerror("out of memory for firehose holds");
        for (int i = 0; i < HOLD_CHUNK; i++) {
            c[i].next = hold_free;
            hold_free = &c[i];
        }
    }
    gasnetc_ibv_hold_t *h = hold_free;
    hold_free = h->next;
    gasneti_mutex_unlock(&hold_lock);
    return h;
}

static void hold_put(gasnetc_ibv_hold_t *h)
{
    gasneti_mutex_lock(&hold_lock);
    h->next = hold_free;
    hold_free = h;
    gasneti_mutex_unlock(&hold_lock);
}

size_t gasnetc_ibv_lkey(int hca, const void *addr, size_t len, uint32_t *lkey,
                        gasnetc_ibv_hold_t **hold)
{
    *hold = NULL;
    if (gasnetc_ibv_seg_lkey(&gasnetc_ibv.res[hca], addr, len, lkey)) return len;
    firehose_t *fh = gasnetc_fh;
    if (!fh || hca >= GASNETC_FH_MAX_HCAS || !len) return 0;
    gasnetc_ibv_hold_t *h = hold_get();
    unsigned flags = len < DYNREG_PIN_MIN ? FIREHOSE_FLAG_TRY : 0;
    if (firehose_local_pin(fh, (uintptr_t)addr, len, flags, &h->req) != FIREHOSE_OK) {
        hold_put(h);
        return 0;
    }
    *lkey = gasnetc_fh_key(h->req.lkey, hca);
    *hold = h;
    return h->req.len;
}

#if !GASNETC_SEGMENT_PINNED
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void remote_done(firehose_request_t *req, void *arg)
{
    (void)req;
    GASNETC_ATOMIC_STORE(&((gasnetc_ibv_hold_t *)arg)->done, 1);
}

static void wait_fatal(uint32_t rank, uint64_t raddr, size_t len, const char *what)
{
    gasneti_fatalerror("firehose: no remote registration of %#llx+%zu on rank %u after %.0f s "
                       "(%s): is rank %u still polling? (raise GASNET_FIREHOSE_M / "
                       "GASNET_FIREHOSE_R if every firehose stays in use)",
                       (unsigned long long)raddr, len, rank, GASNETC_FH_WAIT_SECONDS, what, rank);
}
#endif

size_t gasnetc_ibv_rkey(int hca, uint32_t rank, uint64_t raddr, size_t len, uint32_t *rkey,
                        gasnetc_ibv_hold_t **hold)
{
    *hold = NULL;
#if GASNETC_SEGMENT_PINNED
    if (__builtin_expect(__atomic_load_n(&gasnetc_ibv_cseg_any, __ATOMIC_RELAXED), 0) &&
        rank < gasneti_nodes &&
        (raddr < (uintptr_t)gasneti_seginfo[rank].addr ||
         raddr - (uintptr_t)gasneti_seginfo[rank].addr >= gasneti_seginfo[rank].size)) {
        size_t n = gasnetc_ibv_cseg_rkey(hca, rank, raddr, len, rkey); /* a created segment */
        if (n) return n;
    }
    gasnetc_cep_t *ceps = rank < gasnetc_ibv.size ? gasnetc_ibv.peer_ceps[rank] : NULL;
    for (int q = 0; ceps && q < gasnetc_ibv.nqps; q++)
        if (ceps[q].res->index == hca) {
            *rkey = ceps[q].rkey;
            return len;
        }
    gasneti_fatalerror("no verbs connection to rank %u on HCA %d", rank, hca);
    return 0;
#else
    firehose_t *fh = gasnetc_fh;
    if (!fh || hca >= GASNETC_FH_MAX_HCAS)
        gasneti_fatalerror("firehose: remote key for rank %u asked before attach or on HCA %d",
                           rank, hca);
    int in_handler = gasnetc_in_handler();
    gasnetc_ibv_hold_t *h = hold_get();
    double deadline = 0;
    for (;;) {
        GASNETC_ATOMIC_STORE(&h->done, 0);
        int rc = firehose_remote_pin(fh, (int)rank, (uintptr_t)raddr, len,
                                     in_handler ? FIREHOSE_FLAG_TRY : 0, NULL, &h->req,
                                     remote_done, h);
        if (rc == FIREHOSE_PENDING) {
            double end = now_s() + GASNETC_FH_WAIT_SECONDS;
            while (!GASNETC_ATOMIC_LOAD(&h->done)) {
                gasnetc_ibv.up.poll();
                firehose_poll(fh);
                if (!GASNETC_ATOMIC_LOAD(&h->done) && now_s() > end)
                    wait_fatal(rank, raddr, len, "the move request was not answered");
            }
            rc = h->req.status;
        }
        if (rc == FIREHOSE_OK) break;
        if (rc == FIREHOSE_BADARG)
            gasneti_fatalerror("firehose: bad remote range %#llx+%zu on rank %u",
                               (unsigned long long)raddr, len, rank);
        /* NORESOURCE: our firehoses on rank are all in use (or refused). */
        if (in_handler) {
            hold_put(h);
            return 0;
        }
        if (deadline == 0) deadline = now_s() + GASNETC_FH_WAIT_SECONDS;
        else if (now_s() > deadline) wait_fatal(rank, raddr, len, "every firehose stays in use");
        gasnetc_ibv.up.poll();
        firehose_poll(fh);
    }
    *rkey = gasnetc_fh_key(h->req.rkey, hca);
    *hold = h;
    return h->req.len;
#endif
}

void gasnetc_ibv_hold_release(gasnetc_ibv_hold_t *hold)
{
    if (!hold) return;
    firehose_release(gasnetc_fh, &hold->req);
    hold_put(hold);
}
