/* firehose/fh_remote.c: the requesting side of remote pinning.
 *
 * This node keeps, per peer, the firehoses it holds on that peer's memory:
 * fh_region_t entries with node = the peer, in the shared hash table.  An
 * entry is PENDING while its move request is in flight (requests for the
 * same range queue on it as waiters) and VALID once granted; a VALID entry
 * no request uses sits on the peer's FIFO of unused firehoses, still pinned
 * at the peer, until a later move request to that peer releases it to make
 * room.  Each peer's share (cfg.peer_regions, cfg.peer_bytes) is never
 * exceeded; a PENDING entry reserves region_max bytes because the peer may
 * grant a larger existing region (README "Remote pinning").
 */
#include "firehose/fh_internal.h"
#include "firehose/fh_move.h"
#include "other/log/log.h"

#include <stdlib.h>
#include <string.h>

#define FH_INLINE_RELEASES 64

static void fill_remote(firehose_request_t *req, fh_region_t *e)
{
    uintptr_t end = e->start + e->len, want_end = req->addr + req->want_;
    req->len = (want_end < end ? want_end : end) - req->addr;
    req->lkey = 0;
    req->rkey = e->pin.rkey;
    req->status = FIREHOSE_OK;
    req->region_ = (struct fh_region *)e;
}

int firehose_remote_pin(firehose_t *fh, int node, uintptr_t raddr, size_t len, unsigned flags,
                        const void *put_src, firehose_request_t *req, firehose_callback_t cb,
                        void *arg)
{
    int try_only = (flags & FIREHOSE_FLAG_TRY) != 0;
    if (!fh || !req || !fh->cfg.remote || node < 0 || node >= fh->cfg.nodes ||
        node == fh->cfg.mynode || !fh_range_ok(fh, raddr, len) || (!cb && !try_only))
        return FIREHOSE_BADARG;
    const firehose_config_t *c = &fh->cfg;
    uintptr_t need_end = fh_need_end(fh, raddr, len);
    req->addr = raddr;
    req->want_ = len;
    req->len = 0;
    req->node = node;
    req->status = FIREHOSE_PENDING;
    req->putinmove_done = 0;
    req->cb_ = cb;
    req->arg_ = arg;
    req->next_ = NULL;
    req->region_ = NULL;

    fh_lock(fh);
    fh_peer_t *p = &fh->peers[node];
    fh_region_t *e = fh_table_lookup(fh, node, raddr, need_end, !try_only);
    if (e && e->state == FH_ST_VALID) {
        if (e->lref == 0) fh_list_remove(&p->unused, e);
        e->lref++;
        fill_remote(req, e);
        fh->st.remote_hits++;
        fh_unlock(fh);
        return FIREHOSE_OK;
    }
    if (e) { /* PENDING: wait for the move already in flight */
        firehose_request_t **pp = &e->waiters;
        while (*pp) pp = &(*pp)->next_;
        *pp = req;
        e->lref++;
        req->region_ = (struct fh_region *)e;
        fh->st.remote_joins++;
        fh_unlock(fh);
        return FIREHOSE_PENDING;
    }
    if (try_only) {
        fh_unlock(fh);
        return FIREHOSE_NORESOURCE;
    }
    /* Miss: room in this peer's share, by releasing unused firehoses. */
    uint64_t g = c->region_max;
    if (p->regions - p->unused.count + 1 > c->peer_regions ||
        p->bytes - p->unused.bytes + g > c->peer_bytes) {
        fh->st.remote_noresource++;
        fh_unlock(fh);
        return FIREHOSE_NORESOURCE;
    }
    uint64_t inline_ids[FH_INLINE_RELEASES], *ids = inline_ids;
    size_t nrel = 0, cap = FH_INLINE_RELEASES;
    while (p->regions + 1 > c->peer_regions || p->bytes + g > c->peer_bytes) {
        fh_region_t *v = p->unused.head;
        fh_list_remove(&p->unused, v);
        p->regions--;
        p->bytes -= v->charge;
        if (nrel == cap) {
            uint64_t *bigger = malloc(2 * cap * sizeof *bigger);
            if (!bigger) gasneti_fatalerror("firehose: out of memory building a move request");
            memcpy(bigger, ids, nrel * sizeof *ids);
            if (ids != inline_ids) free(ids);
            ids = bigger;
            cap *= 2;
        }
        ids[nrel++] = v->remote_id;
        fh_region_free(fh, v);
    }
    uintptr_t start = fh_page_down(fh, raddr);
    size_t plen = fh_page_up(fh, need_end) - start;
    e = fh_region_new(fh, node, start, plen);
    e->state = FH_ST_PENDING;
    e->charge = g;
    e->lref = 1;
    e->waiters = req;
    req->region_ = (struct fh_region *)e;
    fh_table_insert(fh, e);
    p->regions++;
    p->bytes += g;
    size_t put_len = 0;
    if (put_src) {
        put_len = need_end - raddr;
        if (put_len > c->putinmove_limit) put_len = c->putinmove_limit;
    }
    fh->st.remote_misses++;
    fh->st.moves_sent++;
    fh->st.releases_sent += nrel;
    fh->st.putinmove_bytes += put_len;
    fh_unlock(fh);

    fh_move_send(fh, node, ids, nrel, (uint64_t)(uintptr_t)e, start, plen, raddr, put_src,
                 put_len);
    if (ids != inline_ids) free(ids);
    return FIREHOSE_PENDING;
}

void fh_remote_release(firehose_t *fh, fh_region_t *e)
{
    if (e->state != FH_ST_VALID || e->lref == 0)
        gasneti_fatalerror("firehose: release of a firehose on node %d (%#lx+%zu) that is %s: "
                           "release a request once, and only after it completed with FIREHOSE_OK",
                           e->node, (unsigned long)e->start, e->len,
                           e->state == FH_ST_PENDING ? "still pending" : "not held");
    if (--e->lref == 0) fh_list_append(&fh->peers[e->node].unused, e);
}

void fh_remote_complete(firehose_t *fh, int from, const fh_reply_t *rp)
{
    fh_lock(fh);
    fh_region_t *e = (fh_region_t *)(uintptr_t)rp->cookie;
    if (!e || e->magic != FH_REGION_MAGIC || e->state != FH_ST_PENDING || e->node != from)
        gasneti_fatalerror("firehose: reply from node %d names no pending move request "
                           "(cookie %#llx): corrupt message or mismatched firehose builds",
                           from, (unsigned long long)rp->cookie);
    fh_peer_t *p = &fh->peers[from];
    firehose_request_t *w = e->waiters, *first = w;
    e->waiters = NULL;
    if (rp->status == FIREHOSE_OK) {
        uintptr_t gs = (uintptr_t)rp->start, ge = (uintptr_t)(rp->start + rp->len);
        if (gs > e->start || ge < e->start + e->len || rp->len > fh->cfg.region_max)
            gasneti_fatalerror("firehose: node %d granted %#lx+%llu for a request of %#lx+%zu: "
                               "GASNET_FIREHOSE_MAXREGION_SIZE or the page size differs between "
                               "nodes (they must be equal)",
                               from, (unsigned long)gs, (unsigned long long)rp->len,
                               (unsigned long)e->start, e->len);
        fh_table_remove(fh, e);
        e->start = gs;
        e->len = (size_t)rp->len;
        fh_table_insert(fh, e);
        e->state = FH_ST_VALID;
        e->pin.rkey = rp->rkey;
        e->remote_id = rp->id;
        p->bytes -= e->charge;
        e->charge = e->len;
        p->bytes += e->charge;
        for (firehose_request_t *q = w; q; q = q->next_) fill_remote(q, e);
    } else {
        p->regions--;
        p->bytes -= e->charge;
        fh_region_free(fh, e);
        for (firehose_request_t *q = w; q; q = q->next_) {
            q->status = FIREHOSE_NORESOURCE;
            q->len = 0;
            q->region_ = NULL;
        }
    }
    if (first) first->putinmove_done = rp->delivered;
    if (w) { /* queue the waiters (already chained through next_) for firehose_poll */
        firehose_request_t *last = w;
        while (last->next_) last = last->next_;
        if (fh->done_tail)
            fh->done_tail->next_ = w;
        else
            fh->done_head = w;
        fh->done_tail = last;
    }
    fh_unlock(fh);
}

int firehose_poll(firehose_t *fh)
{
    fh_lock(fh);
    firehose_request_t *q = fh->done_head;
    fh->done_head = fh->done_tail = NULL;
    fh_unlock(fh);
    int n = 0;
    while (q) {
        firehose_request_t *next = q->next_;
        q->next_ = NULL;
        q->cb_(q, q->arg_);
        q = next;
        n++;
    }
    return n;
}
