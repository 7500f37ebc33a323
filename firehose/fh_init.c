/* firehose/fh_init.c: instance life cycle, statistics and the invariant
 * checker used by the unit tests (README "Invariants").
 */
#include "firehose/fh_internal.h"
#include "other/log/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

firehose_t *firehose_init(const firehose_config_t *cfg, const firehose_ops_t *ops, void *ctx)
{
    if (!cfg->enabled || !ops || !ops->pin || !ops->unpin || (cfg->remote && !ops->send_move) ||
        cfg->region_max < cfg->page_size || cfg->region_max % cfg->page_size ||
        cfg->victim_regions < 1 || (cfg->remote && cfg->msg_max < FIREHOSE_MSG_MIN)) {
        gasneti_warning("firehose: firehose_init called with an unresolved configuration or an "
                        "incomplete ops table (internal error)");
        return NULL;
    }
    firehose_t *fh = calloc(1, sizeof *fh);
    if (!fh) gasneti_fatalerror("firehose: out of memory creating an instance");
    fh->cfg = *cfg;
    fh->ops = *ops;
    fh->ctx = ctx;
    fh_lock_init(&fh->lock);
    fh_table_init(fh);
    if (cfg->remote) {
        fh->peers = calloc((size_t)cfg->nodes, sizeof *fh->peers);
        if (!fh->peers) gasneti_fatalerror("firehose: out of memory for %d peers", cfg->nodes);
    }
    if (cfg->warning[0] && cfg->mynode == 0) gasneti_warning("%s", cfg->warning);
    if (cfg->verbose)
        gasneti_info("firehose: node %d: region size %zu, victim pool %llu bytes / %llu regions, "
                     "main pool %llu bytes / %llu regions, per peer %llu bytes / %llu regions, "
                     "put-in-move %zu bytes, %llu hash buckets",
                     cfg->mynode, cfg->region_max, (unsigned long long)cfg->victim_bytes,
                     (unsigned long long)cfg->victim_regions, (unsigned long long)cfg->main_bytes,
                     (unsigned long long)cfg->main_regions, (unsigned long long)cfg->peer_bytes,
                     (unsigned long long)cfg->peer_regions, cfg->putinmove_limit,
                     (unsigned long long)(fh->table_mask + 1));
    return fh;
}

int firehose_fini(firehose_t *fh)
{
    if (!fh) return 0;
    int held = 0;
    for (fh_region_t *r = fh->all; r; r = r->all_next)
        if (r->lref) held++; /* this node's requests; peers' firehoses (rref) do not count */
    if (fh->cfg.verbose) {
        firehose_stats_t s;
        firehose_stats(fh, &s);
        uint64_t lt = s.local_hits + s.local_misses, rt = s.remote_hits + s.remote_misses;
        gasneti_info("firehose: node %d: local %llu hits / %llu misses (%.1f%% hits), remote %llu "
                     "hits / %llu misses / %llu joined (%.1f%% hits), %llu evictions, %llu pin "
                     "failures, %llu refused, %llu moves, %llu grants, %d still held at exit",
                     fh->cfg.mynode, (unsigned long long)s.local_hits,
                     (unsigned long long)s.local_misses, lt ? 100.0 * s.local_hits / lt : 0.0,
                     (unsigned long long)s.remote_hits, (unsigned long long)s.remote_misses,
                     (unsigned long long)s.remote_joins, rt ? 100.0 * s.remote_hits / rt : 0.0,
                     (unsigned long long)s.evictions, (unsigned long long)s.pin_failures,
                     (unsigned long long)(s.local_noresource + s.remote_noresource),
                     (unsigned long long)s.moves_sent, (unsigned long long)s.grants, held);
    }
    fh_local_drop_all(fh);
    fh_table_fini(fh);
    free(fh->peers);
    fh_lock_destroy(&fh->lock);
    free(fh);
    return held;
}

const firehose_config_t *firehose_config(const firehose_t *fh)
{
    return &fh->cfg;
}

void firehose_stats(firehose_t *fh, firehose_stats_t *out)
{
    fh_lock(fh);
    *out = fh->st;
    out->victim_regions = fh->victim_regions;
    out->victim_bytes = fh->victim_bytes;
    out->main_regions = fh->main_regions;
    out->main_bytes = fh->main_bytes;
    out->pinned_regions = fh->victim_regions + fh->main_regions;
    out->pinned_bytes = fh->victim_bytes + fh->main_bytes;
    fh_unlock(fh);
}

/* ---- invariants ------------------------------------------------------------------- */

static int bad(char *why, size_t whylen, const char *fmt, ...) GASNETI_FMT(3, 4);
static int bad(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && whylen) vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

#define CHK(cond, ...)                                         \
    do {                                                       \
        if (!(cond)) return bad(why, whylen, __VA_ARGS__);     \
    } while (0)

static int check_list(const fh_list_t *l, const char *name, char *why, size_t whylen)
{
    uint64_t n = 0, bytes = 0;
    const fh_region_t *prev = NULL;
    for (const fh_region_t *r = l->head; r; prev = r, r = r->next) {
        CHK(r->magic == FH_REGION_MAGIC && r->lru && r->prev == prev, "%s: broken link", name);
        n++;
        bytes += r->len;
    }
    CHK(l->tail == prev && n == l->count && bytes == l->bytes,
        "%s: count %llu/%llu bytes %llu/%llu", name, (unsigned long long)n,
        (unsigned long long)l->count, (unsigned long long)bytes, (unsigned long long)l->bytes);
    return 0;
}

static int check_locked(firehose_t *fh, char *why, size_t whylen)
{
    const firehose_config_t *c = &fh->cfg;
    uint64_t vr = 0, vb = 0, mr = 0, mb = 0, gr = 0, gb = 0, lru_n = 0, linked = 0;
    uint64_t *pr = NULL, *pb = NULL, *pu = NULL;
    int rc = 0;
    if (c->remote) {
        pr = calloc((size_t)c->nodes * 3, sizeof *pr);
        if (!pr) return bad(why, whylen, "out of memory");
        pb = pr + c->nodes;
        pu = pb + c->nodes;
    }
#undef CHK
#define CHK(cond, ...)                                  \
    do {                                                \
        if (!(cond)) {                                  \
            rc = bad(why, whylen, __VA_ARGS__);         \
            goto out;                                   \
        }                                               \
    } while (0)
    for (fh_region_t *r = fh->all; r; r = r->all_next) {
        CHK(r->magic == FH_REGION_MAGIC, "region %p: bad magic", (void *)r);
        CHK(r->start % c->page_size == 0 && r->len % c->page_size == 0 && r->len >= c->page_size &&
                r->len <= c->region_max,
            "region %#lx+%zu: not page-aligned or larger than the region size",
            (unsigned long)r->start, r->len);
        int two = r->start / c->region_max != (r->start + r->len - 1) / c->region_max;
        int want_linked = r->state != FH_ST_INVALID;
        CHK(r->hn[0].linked == want_linked && r->hn[1].linked == (want_linked && two),
            "region %#lx+%zu (state %d): table links wrong", (unsigned long)r->start, r->len,
            r->state);
        linked += want_linked ? 1u + (unsigned)two : 0u;
        if (r->node == FIREHOSE_LOCAL) {
            CHK(r->state == FH_ST_VALID || (r->state == FH_ST_INVALID && (r->lref || r->rref)),
                "local region %#lx: state %d with lref %u rref %u", (unsigned long)r->start,
                r->state, r->lref, r->rref);
            CHK(r->lru == (r->state == FH_ST_VALID && !r->lref && !r->rref),
                "local region %#lx: on the LRU %d with lref %u rref %u", (unsigned long)r->start,
                r->lru, r->lref, r->rref);
            lru_n += r->lru;
            if (r->lref || !r->rref) {
                vr++;
                vb += r->len;
            } else {
                mr++;
                mb += r->len;
            }
            if (r->rref) {
                gr++;
                gb += r->len;
            }
        } else {
            CHK(c->remote && r->node >= 0 && r->node < c->nodes && r->node != c->mynode,
                "firehose entry for bad node %d", r->node);
            CHK(r->rref == 0, "firehose entry with rref %u", r->rref);
            if (r->state == FH_ST_PENDING) {
                uint32_t w = 0;
                for (firehose_request_t *q = r->waiters; q; q = q->next_) w++;
                CHK(w == r->lref && w >= 1 && !r->lru && r->charge == c->region_max,
                    "pending firehose on %d: %u waiters, lref %u, charge %zu", r->node, w, r->lref,
                    r->charge);
            } else {
                CHK(r->state == FH_ST_VALID && !r->waiters && r->charge == r->len &&
                        r->lru == (r->lref == 0),
                    "firehose on %d at %#lx: state %d lref %u lru %d", r->node,
                    (unsigned long)r->start, r->state, r->lref, r->lru);
                pu[r->node] += r->lru;
            }
            pr[r->node]++;
            pb[r->node] += r->charge;
        }
    }
    CHK(vr == fh->victim_regions && vb == fh->victim_bytes && mr == fh->main_regions &&
            mb == fh->main_bytes && gr == fh->granted_regions && gb == fh->granted_bytes,
        "pool counters differ from the regions (victim %llu/%llu main %llu/%llu granted %llu/%llu)",
        (unsigned long long)vr, (unsigned long long)fh->victim_regions, (unsigned long long)mr,
        (unsigned long long)fh->main_regions, (unsigned long long)gr,
        (unsigned long long)fh->granted_regions);
    CHK(vr <= c->victim_regions && vb <= c->victim_bytes,
        "victim pool over its limits: %llu regions / %llu bytes (limits %llu / %llu)",
        (unsigned long long)vr, (unsigned long long)vb, (unsigned long long)c->victim_regions,
        (unsigned long long)c->victim_bytes);
    CHK(gr <= c->main_regions && gb <= c->main_bytes && mr <= gr && mb <= gb,
        "main pool over its limits: granted %llu regions / %llu bytes (limits %llu / %llu)",
        (unsigned long long)gr, (unsigned long long)gb, (unsigned long long)c->main_regions,
        (unsigned long long)c->main_bytes);
    if (check_list(&fh->lru, "LRU", why, whylen)) {
        rc = -1;
        goto out;
    }
    CHK(lru_n == fh->lru.count, "LRU holds %llu regions, %llu are marked",
        (unsigned long long)fh->lru.count, (unsigned long long)lru_n);
    for (int n = 0; c->remote && n < c->nodes; n++) {
        fh_peer_t *p = &fh->peers[n];
        CHK(pr[n] == p->regions && pb[n] == p->bytes && pu[n] == p->unused.count,
            "peer %d: counters differ from its firehoses", n);
        CHK(p->regions <= c->peer_regions && p->bytes <= c->peer_bytes,
            "peer %d: %llu firehoses / %llu bytes exceed the share (%llu / %llu)", n,
            (unsigned long long)p->regions, (unsigned long long)p->bytes,
            (unsigned long long)c->peer_regions, (unsigned long long)c->peer_bytes);
        if (check_list(&p->unused, "unused FIFO", why, whylen)) {
            rc = -1;
            goto out;
        }
    }
    uint64_t seen = 0;
    for (uint64_t i = 0; i <= fh->table_mask; i++)
        for (fh_hnode_t *h = fh->table[i]; h; h = h->next) {
            fh_region_t *r = h->region;
            CHK(h->linked && r && r->magic == FH_REGION_MAGIC && h->space == r->node &&
                    (h->key == r->start / c->region_max ||
                     h->key == (r->start + r->len - 1) / c->region_max),
                "hash chain %llu: stale or misfiled node", (unsigned long long)i);
            seen++;
        }
    CHK(seen == linked, "hash table holds %llu nodes, regions link %llu", (unsigned long long)seen,
        (unsigned long long)linked);
out:
    free(pr);
    return rc;
}

int firehose_check(firehose_t *fh, char *why, size_t whylen)
{
    fh_lock(fh);
    int rc = check_locked(fh, why, whylen);
    fh_unlock(fh);
    return rc;
}
