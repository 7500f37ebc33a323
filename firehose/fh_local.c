/* firehose/fh_local.c: local regions: pin on miss, reference counts, the
 * victim pool (LRU of unreferenced regions), invalidation, and the granting
 * side of remote pins (peers' firehoses on this node's memory).
 *
 * Accounting (README "Accounting"): a local region is charged to the victim
 * pool when this node uses it (lref > 0) or nobody does (rref == 0: cached
 * on the LRU); it is charged to the main pool when only peers hold it
 * (rref > 0, lref == 0).  Every transition checks for room first and either
 * makes it by evicting LRU regions or refuses, so no limit is ever exceeded:
 *   victim_regions <= MAXVICTIM_R, victim_bytes <= MAXVICTIM_M,
 *   granted_regions <= R, granted_bytes <= M (main pool <= granted).
 */
#include "firehose/fh_internal.h"
#include "other/log/log.h"

#include <string.h>

/* ---- pool accounting -------------------------------------------------------------- */

static void victim_charge(firehose_t *fh, const fh_region_t *r, int sign)
{
    if (sign > 0) {
        fh->victim_regions++;
        fh->victim_bytes += r->len;
    } else {
        fh->victim_regions--;
        fh->victim_bytes -= r->len;
    }
}

static void main_charge(firehose_t *fh, const fh_region_t *r, int sign)
{
    if (sign > 0) {
        fh->main_regions++;
        fh->main_bytes += r->len;
    } else {
        fh->main_regions--;
        fh->main_bytes -= r->len;
    }
}

/* Whether one more region of `bytes` fits in the victim pool once every LRU
 * region is evicted (nothing is evicted here). */
static int victim_fits(const firehose_t *fh, size_t bytes)
{
    const firehose_config_t *c = &fh->cfg;
    return fh->victim_regions - fh->lru.count + 1 <= c->victim_regions &&
           fh->victim_bytes - fh->lru.bytes + bytes <= c->victim_bytes;
}

static int granted_fits(const firehose_t *fh, size_t bytes)
{
    return fh->granted_regions + 1 <= fh->cfg.main_regions &&
           fh->granted_bytes + bytes <= fh->cfg.main_bytes;
}

static void unpin_free(firehose_t *fh, fh_region_t *r)
{
    fh->ops.unpin(fh->ctx, &r->pin);
    fh_region_free(fh, r);
}

/* Evicts the least recently released unreferenced region. */
static void evict_one(firehose_t *fh)
{
    fh_region_t *r = fh->lru.head;
    fh_list_remove(&fh->lru, r);
    victim_charge(fh, r, -1);
    fh->st.evictions++;
    unpin_free(fh, r);
}

/* Evicts LRU regions until one more of `bytes` fits (victim_fits was true). */
static void victim_make_room(firehose_t *fh, size_t bytes)
{
    const firehose_config_t *c = &fh->cfg;
    while (fh->lru.head &&
           (fh->victim_regions + 1 > c->victim_regions || fh->victim_bytes + bytes > c->victim_bytes))
        evict_one(fh);
}

/* ops->pin, and once more after unpinning every cached region if it fails
 * (the HCA or RLIMIT_MEMLOCK may be the tighter limit). */
static int pin_with_retry(firehose_t *fh, uintptr_t start, size_t len, firehose_pin_t *out)
{
    memset(out, 0, sizeof *out);
    if (fh->ops.pin(fh->ctx, start, len, out) == 0) return 0;
    fh->st.pin_failures++;
    uint64_t flushed = fh->lru.count;
    while (fh->lru.head) evict_one(fh);
    if (flushed && fh->ops.pin(fh->ctx, start, len, out) == 0) return 0;
    if (!fh->pin_warned) {
        fh->pin_warned = 1;
        gasneti_warning("firehose: registering %zu bytes at %#lx failed (after unpinning %llu "
                        "cached regions; %llu bytes pinned by firehose now): such transfers fall "
                        "back to bounce buffers or AMs; raise the locked-memory limit (ulimit -l) "
                        "or lower GASNET_FIREHOSE_M / GASNET_FIREHOSE_MAXVICTIM_M",
                        len, (unsigned long)start, (unsigned long long)flushed,
                        (unsigned long long)(fh->victim_bytes + fh->main_bytes));
    }
    return -1;
}

static void fill_local(firehose_request_t *req, const fh_region_t *r, uintptr_t addr, size_t len)
{
    uintptr_t end = r->start + r->len;
    req->addr = addr;
    req->len = (addr + len < end ? addr + len : end) - addr;
    req->lkey = r->pin.lkey;
    req->rkey = r->pin.rkey;
    req->node = FIREHOSE_LOCAL;
    req->status = FIREHOSE_OK;
    req->putinmove_done = 0;
    req->region_ = (struct fh_region *)r;
    req->next_ = NULL;
}

/* ---- local pins -------------------------------------------------------------------- */

int firehose_local_pin(firehose_t *fh, uintptr_t addr, size_t len, unsigned flags,
                       firehose_request_t *req)
{
    if (!fh || !req || !fh_range_ok(fh, addr, len)) return FIREHOSE_BADARG;
    uintptr_t need_end = fh_need_end(fh, addr, len);
    fh_lock(fh);
    fh_region_t *r = fh_table_lookup(fh, FIREHOSE_LOCAL, addr, need_end, 0);
    if (r) {
        if (r->lref == 0 && r->rref == 0) {
            fh_list_remove(&fh->lru, r); /* cached: stays in the victim pool */
        } else if (r->lref == 0) {       /* held by peers only: main -> victim */
            if (!victim_fits(fh, r->len)) goto noresource;
            victim_make_room(fh, r->len);
            main_charge(fh, r, -1);
            victim_charge(fh, r, +1);
        }
        r->lref++;
        fh->st.local_hits++;
    } else {
        if (flags & FIREHOSE_FLAG_TRY) goto noresource;
        uintptr_t start = fh_page_down(fh, addr);
        size_t plen = fh_page_up(fh, need_end) - start;
        firehose_pin_t pin;
        if (!victim_fits(fh, plen)) goto noresource;
        victim_make_room(fh, plen);
        if (pin_with_retry(fh, start, plen, &pin) != 0) goto noresource;
        r = fh_region_new(fh, FIREHOSE_LOCAL, start, plen);
        r->pin = pin;
        r->state = FH_ST_VALID;
        r->lref = 1;
        fh_table_insert(fh, r);
        victim_charge(fh, r, +1);
        fh->st.local_misses++;
    }
    fill_local(req, r, addr, len);
    fh_unlock(fh);
    return FIREHOSE_OK;
noresource:
    if (!(flags & FIREHOSE_FLAG_TRY)) fh->st.local_noresource++;
    fh_unlock(fh);
    return FIREHOSE_NORESOURCE;
}

/* lref--: the last local user puts the region back where it is charged. */
static void local_release(firehose_t *fh, fh_region_t *r)
{
    if (r->lref == 0)
        gasneti_fatalerror("firehose: local region %#lx+%zu released more often than pinned "
                           "(a firehose_request_t released twice?)",
                           (unsigned long)r->start, r->len);
    if (--r->lref) return;
    if (r->rref > 0) { /* peers still hold it: victim -> main */
        victim_charge(fh, r, -1);
        main_charge(fh, r, +1);
    } else if (r->state == FH_ST_INVALID) {
        victim_charge(fh, r, -1);
        unpin_free(fh, r);
    } else {
        fh_list_append(&fh->lru, r); /* cached, least recently released first */
    }
}

void firehose_release(firehose_t *fh, firehose_request_t *req)
{
    fh_region_t *r = (fh_region_t *)req->region_;
    if (!r || r->magic != FH_REGION_MAGIC)
        gasneti_fatalerror("firehose: firehose_release of a request that holds nothing (node %d, "
                           "addr %#lx): release only requests that returned FIREHOSE_OK",
                           req->node, (unsigned long)req->addr);
    fh_lock(fh);
    if (r->node == FIREHOSE_LOCAL)
        local_release(fh, r);
    else
        fh_remote_release(fh, r);
    req->region_ = NULL;
    fh_unlock(fh);
}

/* ---- invalidation (the munmap hazard) ---------------------------------------------- */

static void invalidate_one(firehose_t *fh, fh_region_t *r)
{
    if (r->state != FH_ST_VALID) return;
    fh_table_remove(fh, r);
    r->state = FH_ST_INVALID;
    fh->st.invalidated++;
    if (r->lref == 0 && r->rref == 0) {
        fh_list_remove(&fh->lru, r);
        victim_charge(fh, r, -1);
        unpin_free(fh, r);
    }
}

int firehose_local_invalidate(firehose_t *fh, uintptr_t addr, size_t len)
{
    if (!fh || len == 0) return 0;
    uintptr_t end = addr + len < addr ? UINTPTR_MAX : addr + len;
    fh_lock(fh);
    uint64_t before = fh->st.invalidated;
    fh_table_foreach_overlap(fh, FIREHOSE_LOCAL, addr, end, invalidate_one);
    int n = (int)(fh->st.invalidated - before);
    fh_unlock(fh);
    return n;
}

/* ---- the granting side -------------------------------------------------------------- */

int fh_grant_acquire(firehose_t *fh, uintptr_t start, size_t len, fh_region_t **out)
{
    fh_region_t *r = fh_table_lookup(fh, FIREHOSE_LOCAL, start, start + len, 0);
    if (r && (r->start > start || r->start + r->len < start + len)) r = NULL; /* full covers only */
    if (r) {
        if (r->rref == 0) {
            if (!granted_fits(fh, r->len)) goto deny;
            fh->granted_regions++;
            fh->granted_bytes += r->len;
            if (r->lref == 0) { /* cached: victim -> main */
                fh_list_remove(&fh->lru, r);
                victim_charge(fh, r, -1);
                main_charge(fh, r, +1);
            }
        }
    } else {
        firehose_pin_t pin;
        if (!granted_fits(fh, len)) goto deny;
        if (pin_with_retry(fh, start, len, &pin) != 0) goto deny;
        r = fh_region_new(fh, FIREHOSE_LOCAL, start, len);
        r->pin = pin;
        r->state = FH_ST_VALID;
        fh_table_insert(fh, r);
        fh->granted_regions++;
        fh->granted_bytes += len;
        main_charge(fh, r, +1);
    }
    r->rref++;
    fh->st.grants++;
    *out = r;
    return FIREHOSE_OK;
deny:
    fh->st.denials++;
    *out = NULL;
    return FIREHOSE_NORESOURCE;
}

void fh_grant_release(firehose_t *fh, fh_region_t *r)
{
    if (--r->rref) return;
    fh->granted_regions--;
    fh->granted_bytes -= r->len;
    if (r->lref > 0) return; /* in local use: already charged to the victim pool */
    main_charge(fh, r, -1);
    if (r->state == FH_ST_VALID && victim_fits(fh, r->len)) {
        victim_make_room(fh, r->len);
        victim_charge(fh, r, +1);
        fh_list_append(&fh->lru, r);
    } else {
        if (r->state == FH_ST_VALID) fh->st.evictions++;
        unpin_free(fh, r);
    }
}

void fh_local_drop_all(firehose_t *fh)
{
    fh_region_t *r = fh->all;
    while (r) {
        fh_region_t *next = r->all_next;
        if (r->node == FIREHOSE_LOCAL)
            unpin_free(fh, r);
        else
            fh_region_free(fh, r);
        r = next;
    }
    fh->lru.head = fh->lru.tail = NULL;
    fh->lru.count = fh->lru.bytes = 0;
    fh->victim_regions = fh->victim_bytes = 0;
    fh->main_regions = fh->main_bytes = 0;
    fh->granted_regions = fh->granted_bytes = 0;
}
