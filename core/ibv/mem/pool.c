/* core/ibv/mem/pool.c: pools of fixed-size objects whose data area is
 * registered on every HCA of the transport (receive buffers, bounce
 * buffers, send descriptors).  A pool grows by chunks: one page-aligned
 * allocation of `grow` data areas registered once per HCA (one MR per chunk
 * and HCA, listed in the pool), plus one plain allocation for the objects'
 * metadata.  Chunks are never freed: the process's exit releases them.
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void pool_grow(gasnetc_ibv_pool_t *pool, int n)
{
    size_t bytes = (size_t)n * pool->data_size;
    void *data = NULL;
    int rc = posix_memalign(&data, 4096, bytes);
    uint8_t *meta = calloc((size_t)n, pool->meta_size);
    if (rc != 0 || !meta)
        gasneti_fatalerror("out of memory allocating %d %s (%zu bytes)", n, pool->name, bytes);
    memset(data, 0, bytes);
    int h = 0;
    gasnetc_ibv_chunk_t *c = gasnetc_ibv_chunk_reg(&pool->chunks, data, bytes,
                                                   IBV_ACCESS_LOCAL_WRITE, &h);
    if (!c) {
        int err = errno;
        struct rlimit rl;
        getrlimit(RLIMIT_MEMLOCK, &rl);
        gasneti_fatalerror("ibv_reg_mr of %zu bytes for %s on %s failed: %s (RLIMIT_MEMLOCK "
                           "%llu bytes; raise 'ulimit -l', or lower GASNET_AM_CREDITS_PP / "
                           "GASNET_BBUF_COUNT)", bytes, pool->name,
                           gasnetc_ibv.res[h].hca->name, strerror(err),
                           (unsigned long long)rl.rlim_cur);
    }
    uint32_t lkeys[GASNETC_IBV_MAX_HCAS] = {0};
    for (h = 0; h < gasnetc_ibv.nres; h++) lkeys[h] = c->mr[h]->lkey;
    for (int i = n - 1; i >= 0; i--) {
        gasnetc_ibv_slot_t *s = (gasnetc_ibv_slot_t *)(meta + (size_t)i * pool->meta_size);
        s->data = (uint8_t *)data + (size_t)i * pool->data_size;
        memcpy(s->lkey, lkeys, sizeof(lkeys));
        s->next = pool->free;
        pool->free = s;
    }
    pool->count += n;
}

gasnetc_ibv_chunk_t *gasnetc_ibv_chunk_reg(gasnetc_ibv_chunk_t **list, void *data, size_t bytes,
                                           int access, int *bad_hca)
{
    gasnetc_ibv_chunk_t *c = calloc(1, sizeof(*c));
    if (!c) {
        *bad_hca = 0;
        return NULL;
    }
    for (int h = 0; h < gasnetc_ibv.nres; h++) {
        c->mr[h] = ibv_reg_mr(gasnetc_ibv.res[h].pd, data, bytes, access);
        if (!c->mr[h]) {
            int err = errno;
            *bad_hca = h;
            while (h-- > 0) ibv_dereg_mr(c->mr[h]);
            free(c);
            errno = err;
            return NULL;
        }
    }
    c->data = data;
    c->next = *list;
    *list = c;
    return c;
}

void gasnetc_ibv_pool_init(gasnetc_ibv_pool_t *pool, const char *name, size_t data_size,
                           size_t meta_size, int grow, int limit, int initial)
{
    memset(pool, 0, sizeof(*pool));
    pool->name = name;
    pool->data_size = data_size;
    pool->meta_size = meta_size;
    pool->grow = grow > 0 ? grow : 1;
    pool->limit = limit;
#if defined(GASNET_PAR)
    pthread_mutex_init(&pool->lock, NULL);
#endif
    if (limit > 0 && initial > limit) initial = limit;
    if (initial > 0) pool_grow(pool, initial);
}

gasnetc_ibv_slot_t *gasnetc_ibv_pool_get(gasnetc_ibv_pool_t *pool, int may_grow)
{
    gasneti_mutex_lock(&pool->lock);
    gasnetc_ibv_slot_t *s = pool->free;
    if (!s && may_grow && (pool->limit <= 0 || pool->count < pool->limit)) {
        int n = pool->grow;
        if (pool->limit > 0 && pool->count + n > pool->limit) n = pool->limit - pool->count;
        pool_grow(pool, n);
        s = pool->free;
    }
    if (s) pool->free = s->next;
    gasneti_mutex_unlock(&pool->lock);
    return s;
}

void gasnetc_ibv_pool_put(gasnetc_ibv_pool_t *pool, gasnetc_ibv_slot_t *slot)
{
    gasneti_mutex_lock(&pool->lock);
    slot->next = pool->free;
    pool->free = slot;
    gasneti_mutex_unlock(&pool->lock);
}
