/* firehose/fh_table.c: the region hash table, region lists, region objects.
 *
 * One chained hash table per instance, keyed by (node, addr / region_max).
 * Regions never exceed region_max bytes, so each overlaps one or two such
 * buckets and is linked under each of them (fh_region_t.hn[0..1]).  Lookups
 * look at a single chain.  Overlapping regions may coexist (a larger request
 * at the same address pins a new, larger region; the older one ages out of
 * the LRU); lookups pick the best cover (README "Lookup").
 *
 * All functions run with the instance lock held (or before sharing).
 */
#include "firehose/fh_internal.h"
#include "other/log/log.h"

#include <stdlib.h>
#include <string.h>

#define FH_TABLE_MIN 64u
#define FH_TABLE_MAX (1u << 22)

static uint64_t fh_hash(uint64_t key, int32_t space)
{
    uint64_t z = key * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)(uint32_t)space * 0xc2b2ae3d27d4eb4fULL);
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
    return z ^ (z >> 29);
}

void fh_table_init(firehose_t *fh)
{
    const firehose_config_t *c = &fh->cfg;
    double want = (double)c->victim_regions;
    if (c->remote) want += (double)c->main_regions + (double)c->peer_regions * (c->nodes - 1);
    want *= 2.0 * c->table_scale; /* two nodes per region at most: load <= 1 */
    uint64_t n = FH_TABLE_MIN;
    while (n < FH_TABLE_MAX && (double)n < want) n <<= 1;
    fh->table = calloc(n, sizeof *fh->table);
    if (!fh->table)
        gasneti_fatalerror("firehose: cannot allocate a hash table of %llu buckets: lower "
                           "GASNET_FIREHOSE_TABLE_SCALE (now %g)",
                           (unsigned long long)n, c->table_scale);
    fh->table_mask = n - 1;
}

void fh_table_fini(firehose_t *fh)
{
    free(fh->table);
    fh->table = NULL;
}

static fh_hnode_t **fh_chain(firehose_t *fh, uint64_t key, int32_t space)
{
    return &fh->table[fh_hash(key, space) & fh->table_mask];
}

static void fh_hnode_link(firehose_t *fh, fh_hnode_t *n, uint64_t key, int32_t space)
{
    fh_hnode_t **head = fh_chain(fh, key, space);
    n->key = key;
    n->space = space;
    n->next = *head;
    n->linked = 1;
    *head = n;
}

static void fh_hnode_unlink(firehose_t *fh, fh_hnode_t *n)
{
    if (!n->linked) return;
    fh_hnode_t **pp = fh_chain(fh, n->key, n->space);
    while (*pp && *pp != n) pp = &(*pp)->next;
    if (*pp) *pp = n->next;
    n->next = NULL;
    n->linked = 0;
}

void fh_table_insert(firehose_t *fh, fh_region_t *r)
{
    uint64_t k0 = r->start / fh->cfg.region_max;
    uint64_t k1 = (r->start + r->len - 1) / fh->cfg.region_max;
    fh_hnode_link(fh, &r->hn[0], k0, r->node);
    if (k1 != k0) fh_hnode_link(fh, &r->hn[1], k1, r->node);
}

void fh_table_remove(firehose_t *fh, fh_region_t *r)
{
    fh_hnode_unlink(fh, &r->hn[0]);
    fh_hnode_unlink(fh, &r->hn[1]);
}

fh_region_t *fh_table_lookup(firehose_t *fh, int space, uintptr_t addr, uintptr_t need_end,
                             int want_pending)
{
    uint64_t key = addr / fh->cfg.region_max;
    fh_region_t *partial = NULL, *pending = NULL;
    uintptr_t partial_end = 0;
    for (fh_hnode_t *n = *fh_chain(fh, key, space); n; n = n->next) {
        if (n->key != key || n->space != space) continue;
        fh_region_t *r = n->region;
        uintptr_t end = r->start + r->len;
        if (r->start > addr || end <= addr) continue;
        if (r->state == FH_ST_VALID) {
            if (end >= need_end) return r;
            if (end > partial_end) {
                partial = r;
                partial_end = end;
            }
        } else if (r->state == FH_ST_PENDING && want_pending && end >= need_end && !pending) {
            pending = r;
        }
    }
    if (partial && partial_end - addr >= fh->cfg.region_max / 2) return partial;
    return pending;
}

void fh_table_foreach_overlap(firehose_t *fh, int space, uintptr_t addr, uintptr_t end,
                              void (*fn)(firehose_t *, fh_region_t *))
{
    /* Collect first (fn may free regions, and with them chain nodes). */
    size_t cap = 16, cnt = 0;
    fh_region_t **found = malloc(cap * sizeof *found);
    if (!found) gasneti_fatalerror("firehose: out of memory in invalidate");
    uint64_t k0 = addr / fh->cfg.region_max, k1 = (end - 1) / fh->cfg.region_max;
    int full_scan = (k1 - k0) > fh->table_mask; /* cheaper to walk every chain */
    uint64_t nchains = full_scan ? fh->table_mask + 1 : k1 - k0 + 1;
    for (uint64_t i = 0; i < nchains; i++) {
        fh_hnode_t *head = full_scan ? fh->table[i] : *fh_chain(fh, k0 + i, space);
        for (fh_hnode_t *n = head; n; n = n->next) {
            if (n->space != space || n->key < k0 || n->key > k1) continue;
            if (!full_scan && n->key != k0 + i) continue;
            fh_region_t *r = n->region;
            if (r->start >= end || r->start + r->len <= addr) continue;
            /* visit each region once: at its first bucket inside [k0, k1] */
            uint64_t first = r->start / fh->cfg.region_max;
            if (first < k0) first = k0;
            if (n->key != first) continue;
            if (cnt == cap) {
                cap *= 2;
                fh_region_t **bigger = realloc(found, cap * sizeof *found);
                if (!bigger) gasneti_fatalerror("firehose: out of memory in invalidate");
                found = bigger;
            }
            found[cnt++] = r;
        }
    }
    for (size_t i = 0; i < cnt; i++) fn(fh, found[i]);
    free(found);
}

/* ---- lists ------------------------------------------------------------------------ */

void fh_list_append(fh_list_t *l, fh_region_t *r)
{
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    l->count++;
    l->bytes += r->len;
    r->lru = 1;
}

void fh_list_remove(fh_list_t *l, fh_region_t *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        l->tail = r->prev;
    r->prev = r->next = NULL;
    l->count--;
    l->bytes -= r->len;
    r->lru = 0;
}

/* ---- region objects ------------------------------------------------------------- */

fh_region_t *fh_region_new(firehose_t *fh, int node, uintptr_t start, size_t len)
{
    fh_region_t *r = calloc(1, sizeof *r);
    if (!r)
        gasneti_fatalerror("firehose: out of memory allocating a region descriptor "
                           "(%zu bytes at %#lx)",
                           len, (unsigned long)start);
    r->magic = FH_REGION_MAGIC;
    r->node = node;
    r->start = start;
    r->len = len;
    r->hn[0].region = r;
    r->hn[1].region = r;
    r->all_next = fh->all;
    if (fh->all) fh->all->all_prev = r;
    fh->all = r;
    return r;
}

void fh_region_free(firehose_t *fh, fh_region_t *r)
{
    fh_table_remove(fh, r);
    if (r->all_prev)
        r->all_prev->all_next = r->all_next;
    else
        fh->all = r->all_next;
    if (r->all_next) r->all_next->all_prev = r->all_prev;
    r->magic = FH_DEAD_MAGIC;
    free(r);
}
