/* core/ibv/am/rndv.c: rendezvous Mediums, for receive buffers smaller than
 * the largest Medium (GASNET_RBUF_SIZE; design: core/ibv/am/README "Small
 * receive buffers").
 *
 * Sender: the payload is copied into a staging buffer registered for
 * remote read and write; the message carries the header with the
 * rendezvous flag and a 16-byte descriptor (address, rkey) instead of the
 * payload, so it fits a small receive buffer and takes its credit as any
 * Medium.  The call returns at once (the payload was copied).
 *
 * Receiver: RDMA-READs the payload into a landing buffer (a small
 * per-process pool, GASNET_RBUF_LARGE_COUNT), waits for the READ (reaping
 * send completions only), then releases the staging buffer by an 8-byte
 * RDMA WRITE of 0 into its release word (the buffer's first 8 bytes), runs
 * the handler and gives the landing buffer back.
 *
 * Why a WRITE and not a message: a release needs no receive buffer and no
 * credit at the sender, so the no-RNR bounds of the credit protocol and
 * the SRQ sizing are unchanged, and a sender waiting for a staging buffer
 * (even inside a handler, where it cannot poll receives) sees it come back
 * by reading memory.
 *
 * Staging buffer layout: [release word (8 bytes), 56 bytes unused][payload].
 * The sender sets the word to 1 before sending; staged buffers stay on the
 * `out` list until a reclaim finds their word 0.
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STAGE_OFF 64 /* payload offset in a staging buffer */

typedef struct stage {
    struct stage *next;
    uint8_t *data;
    uint32_t lkey[GASNETC_IBV_MAX_HCAS], rkey[GASNETC_IBV_MAX_HCAS];
} stage_t;

static struct {
    gasneti_mutex_t lock;
    stage_t *free, *out; /* out: sent, not yet released by the receiver */
    int count, limit;    /* Requests wait at limit; Replies grow past it */
    size_t size;
    gasnetc_ibv_pool_t landing;
    gasnetc_ibv_chunk_t *chunks; /* the staging areas' registrations */
    int on;
} R;

static void stage_grow(int n)
{
    size_t bytes = (size_t)n * R.size;
    void *data = NULL;
    stage_t *st = calloc((size_t)n, sizeof(stage_t));
    if (posix_memalign(&data, 4096, bytes) != 0 || !st)
        gasneti_fatalerror("out of memory allocating %d AM staging buffers (%zu bytes)", n, bytes);
    memset(data, 0, bytes);
    int bad = 0;
    gasnetc_ibv_chunk_t *c = gasnetc_ibv_chunk_reg(&R.chunks, data, bytes,
                                                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                                                       IBV_ACCESS_REMOTE_WRITE, &bad);
    if (!c)
        gasneti_fatalerror("ibv_reg_mr of %zu bytes for AM staging buffers on %s failed: %s "
                           "(raise 'ulimit -l', or set GASNET_RBUF_SIZE=0)",
                           bytes, gasnetc_ibv.res[bad].hca->name, strerror(errno));
    for (int h = 0; h < gasnetc_ibv.nres; h++)
        for (int i = 0; i < n; i++) {
            st[i].lkey[h] = c->mr[h]->lkey;
            st[i].rkey[h] = c->mr[h]->rkey;
        }
    for (int i = n - 1; i >= 0; i--) {
        st[i].data = (uint8_t *)data + (size_t)i * R.size;
        st[i].next = R.free;
        R.free = &st[i];
    }
    R.count += n;
}

void gasnetc_ibv_rndv_init(void)
{
    if (gasnetc_ibv.rbuf_size >= GASNETC_IBV_BUFSZ) return;
    R.on = 1;
    R.size = GASNETC_IBV_BUFSZ + STAGE_OFF;
    int64_t bb = GASNETI_PARAM_INT(GASNET_BBUF_COUNT);
    R.limit = bb > 0 && bb < 32 ? (int)bb : 32;
#if defined(GASNET_PAR)
    pthread_mutex_init(&R.lock, NULL);
#endif
    stage_grow(4);
    int l = (int)GASNETI_PARAM_INT(GASNET_RBUF_LARGE_COUNT);
    gasnetc_ibv_pool_init(&R.landing, "AM landing buffers (GASNET_RBUF_LARGE_COUNT)",
                          GASNETC_IBV_BUFSZ, sizeof(gasnetc_ibv_slot_t), 1, l, 1);
}

void gasnetc_ibv_rndv_counts(int *staged, size_t *stage_size, int *landing)
{
    *staged = R.count;
    *stage_size = R.size;
    *landing = R.on ? R.landing.count : 0;
}

/* Moves released staging buffers to the free list.  Lock held. */
static void reclaim(void)
{
    stage_t **pp = &R.out;
    while (*pp) {
        stage_t *s = *pp;
        if (__atomic_load_n((uint64_t *)s->data, __ATOMIC_ACQUIRE) == 0) {
            *pp = s->next;
            s->next = R.free;
            R.free = s;
        } else {
            pp = &s->next;
        }
    }
}

static stage_t *stage_get(int is_req)
{
    for (;;) {
        gasneti_mutex_lock(&R.lock);
        if (!R.free) reclaim();
        if (!R.free && (!is_req || R.count < R.limit)) stage_grow(is_req ? 4 : 1);
        stage_t *s = R.free;
        if (s) {
            R.free = s->next;
            __atomic_store_n((uint64_t *)s->data, 1, __ATOMIC_RELAXED);
            s->next = R.out;
            R.out = s;
        }
        gasneti_mutex_unlock(&R.lock);
        if (s) return s;
        gasnetc_ibv.up.poll(); /* a Request: the receivers need us to progress too */
    }
}

void gasnetc_ibv_rndv_stage(gasnetc_cep_t *c, const void *payload, size_t n, int is_req,
                            uint8_t *desc)
{
    stage_t *s = stage_get(is_req);
    memcpy(s->data + STAGE_OFF, payload, n);
    gasnetc_am_rndv_t r;
    r.addr = (uintptr_t)(s->data + STAGE_OFF);
    r.rkey = s->rkey[c->res->index];
    gasnetc_am_rndv_pack(&r, desc);
}

static void corrupt(const gasnetc_cep_t *c, const char *what, const gasnetc_am_hdr_t *h)
{
    char name[128];
    gasneti_fatalerror("corrupted rendezvous AM Medium received (%s; %u bytes) on %s", what,
                       h->nbytes, gasnetc_ibv_cep_name(c, name, sizeof(name)));
}

uint8_t *gasnetc_ibv_rndv_fetch(gasnetc_cep_t *c, const gasnetc_am_hdr_t *h, const uint8_t *body,
                                gasnetc_ibv_slot_t **land)
{
    gasnetc_am_rndv_t r;
    if (!gasnetc_am_rndv_unpack(body, &r)) corrupt(c, "bad descriptor", h);
    if (h->nbytes > GASNETC_IBV_BUFSZ || h->nbytes == 0) corrupt(c, "bad length", h);
    if (!R.on) corrupt(c, "this rank has full-size buffers but the peer sent a rendezvous", h);
    gasnetc_ibv_slot_t *l;
    while (!(l = gasnetc_ibv_pool_get(&R.landing, 1))) gasnetc_ibv_reap_send();
    int hi = c->res->index;
    gasnetc_sdesc_t *d = gasnetc_ibv_desc_get(c, GASNETC_OP_GET);
    d->wr = GASNETC_WR_READ;
    d->raddr = r.addr;
    d->rkey = r.rkey;
    d->sge[0].addr = (uintptr_t)l->data;
    d->sge[0].length = h->nbytes;
    d->sge[0].lkey = l->lkey[hi];
    d->owned = 1;
    gasnetc_ibv_post_desc(d);
    while (GASNETC_ATOMIC_LOAD(&d->state) != GASNETC_SD_DONE) gasnetc_ibv_reap_send();
    gasnetc_ibv_pool_put(&gasnetc_ibv.desc_pool, &d->slot);
    /* release: 8 zero bytes into the staging buffer's release word; the READ
     * has completed, so the sender may reuse the buffer once it sees them */
    d = gasnetc_ibv_desc_get(c, GASNETC_OP_PUT);
    d->wr = GASNETC_WR_WRITE;
    d->raddr = r.addr - STAGE_OFF;
    d->rkey = r.rkey;
    memset(d->slot.data, 0, 8);
    d->sge[0].addr = (uintptr_t)d->slot.data;
    d->sge[0].length = 8;
    d->sge[0].lkey = d->slot.lkey[hi];
    d->inl = c->inline_max >= 8;
    gasnetc_ibv_post_desc(d); /* the completion path frees d */
    *land = l;
    return l->data;
}

void gasnetc_ibv_rndv_landed(gasnetc_ibv_slot_t *land)
{
    gasnetc_ibv_pool_put(&R.landing, land);
}
