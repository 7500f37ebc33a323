/* firehose/fh_move.c: building, sending and handling move requests and
 * their replies (wire format in fh_move.h, protocol in firehose/README).
 *
 * Order of work at the granter, inside the AM Request handler:
 *   1. put-in-move data is written at its destination (it needs no pin);
 *   2. the releases are applied (rref--), freeing room in the main pool;
 *   3. the new region is granted (found or pinned) or refused;
 *   4. one reply goes back (only when the request asked for a region).
 */
#include "firehose/fh_move.h"
#include "other/log/log.h"

#include <string.h>

size_t fh_move_release_cap(const firehose_t *fh, size_t put_len)
{
    size_t room = fh->cfg.msg_max - sizeof(fh_move_hdr_t) - put_len;
    size_t cap = room / sizeof(uint64_t);
    return cap > 0xffff ? 0xffff : cap;
}

static size_t build(uint8_t *buf, const uint64_t *ids, size_t nrel, int nnew, uint64_t cookie,
                    uintptr_t start, size_t len, uintptr_t put_dst, const void *put_src,
                    size_t put_len)
{
    fh_move_hdr_t h;
    memset(&h, 0, sizeof h);
    h.magic = FH_MOVE_MAGIC;
    h.nrelease = (uint16_t)nrel;
    h.nnew = (uint16_t)nnew;
    h.put_len = (uint32_t)put_len;
    h.cookie = cookie;
    h.start = start;
    h.len = len;
    h.put_dst = put_dst;
    memcpy(buf, &h, sizeof h);
    size_t off = sizeof h;
    memcpy(buf + off, ids, nrel * sizeof *ids);
    off += nrel * sizeof *ids;
    if (put_len) memcpy(buf + off, put_src, put_len);
    return off + put_len;
}

void fh_move_send(firehose_t *fh, int node, const uint64_t *ids, size_t nrel, uint64_t cookie,
                  uintptr_t start, size_t len, uintptr_t put_dst, const void *put_src,
                  size_t put_len)
{
    uint64_t buf64[FIREHOSE_MSG_MAX / sizeof(uint64_t)];
    uint8_t *buf = (uint8_t *)buf64;
    size_t last_cap = fh_move_release_cap(fh, put_len);
    size_t only_cap = fh_move_release_cap(fh, 0);
    while (nrel > last_cap) { /* release-only messages for what does not fit */
        size_t n = nrel - last_cap < only_cap ? nrel - last_cap : only_cap;
        size_t sz = build(buf, ids, n, 0, 0, 0, 0, 0, NULL, 0);
        fh->ops.send_move(fh->ctx, node, buf, sz);
        ids += n;
        nrel -= n;
    }
    size_t sz = build(buf, ids, nrel, 1, cookie, start, len, put_dst, put_src, put_len);
    fh->ops.send_move(fh->ctx, node, buf, sz);
}

static GASNETI_NORETURN void malformed(int from, size_t len, const char *what)
{
    gasneti_fatalerror("firehose: malformed move message from node %d (%zu bytes): %s; every "
                       "process of a job must run the same build",
                       from, len, what);
}

size_t firehose_move_handle(firehose_t *fh, int from, const void *msg, size_t len, void *reply,
                            size_t cap)
{
    fh_move_hdr_t h;
    if (from < 0 || from >= fh->cfg.nodes || from == fh->cfg.mynode)
        malformed(from, len, "bad sender");
    if (len < sizeof h) malformed(from, len, "shorter than the header");
    memcpy(&h, msg, sizeof h);
    if (h.magic != FH_MOVE_MAGIC) malformed(from, len, "bad magic");
    if (h.nnew > 1 || h.put_len > FIREHOSE_PUTINMOVE_MAX || (h.put_len && !h.nnew))
        malformed(from, len, "bad counts");
    if (sizeof h + (size_t)h.nrelease * sizeof(uint64_t) + h.put_len != len)
        malformed(from, len, "length does not match its counts");
    if (h.nnew) {
        size_t pg = fh->cfg.page_size;
        if (h.start % pg || h.len % pg || h.len == 0 || h.len > fh->cfg.region_max ||
            h.start + h.len < h.start)
            malformed(from, len, "region not page-aligned or larger than "
                                 "GASNET_FIREHOSE_MAXREGION_SIZE (must be equal on all nodes)");
        if (h.put_len && (h.put_dst < h.start || h.put_dst + h.put_len > h.start + h.len))
            malformed(from, len, "put data outside the region");
        if (cap < sizeof(fh_reply_t)) malformed(from, len, "reply buffer too small");
    }
    const uint8_t *body = (const uint8_t *)msg + sizeof h;
    if (h.put_len) { /* 1. the data needs no pin: deliver it first */
        const void *src = body + (size_t)h.nrelease * sizeof(uint64_t);
        if (fh->ops.deliver)
            fh->ops.deliver(fh->ctx, (uintptr_t)h.put_dst, src, h.put_len);
        else
            memcpy((void *)(uintptr_t)h.put_dst, src, h.put_len);
    }
    fh_region_t *r = NULL;
    int status = FIREHOSE_NORESOURCE;
    fh_lock(fh);
    for (size_t i = 0; i < h.nrelease; i++) { /* 2. releases */
        uint64_t id;
        memcpy(&id, body + i * sizeof id, sizeof id);
        fh_region_t *old = (fh_region_t *)(uintptr_t)id;
        if (!old || old->magic != FH_REGION_MAGIC || old->node != FIREHOSE_LOCAL ||
            old->rref == 0)
            gasneti_fatalerror("firehose: node %d released region id %#llx that it does not "
                               "hold: corrupt message or mismatched firehose builds",
                               from, (unsigned long long)id);
        fh_grant_release(fh, old);
    }
    if (h.nnew && fh->cfg.remote) /* 3. the new region */
        status = fh_grant_acquire(fh, (uintptr_t)h.start, (size_t)h.len, &r);
    else if (h.nnew)
        fh->st.denials++; /* remote pinning is off here: config differs between nodes */
    fh_reply_t rp;
    memset(&rp, 0, sizeof rp);
    rp.magic = FH_REPLY_MAGIC;
    rp.status = status;
    rp.cookie = h.cookie;
    rp.delivered = h.put_len;
    if (r) {
        rp.start = r->start;
        rp.len = r->len;
        rp.id = (uint64_t)(uintptr_t)r;
        rp.rkey = r->pin.rkey;
    }
    fh_unlock(fh);
    if (!h.nnew) return 0;
    memcpy(reply, &rp, sizeof rp); /* 4. the reply */
    return sizeof rp;
}

void firehose_reply_handle(firehose_t *fh, int from, const void *msg, size_t len)
{
    fh_reply_t rp;
    if (len != sizeof rp) malformed(from, len, "reply of the wrong size");
    memcpy(&rp, msg, sizeof rp);
    if (rp.magic != FH_REPLY_MAGIC) malformed(from, len, "bad reply magic");
    if (rp.status != FIREHOSE_OK && rp.status != FIREHOSE_NORESOURCE)
        malformed(from, len, "bad reply status");
    fh_remote_complete(fh, from, &rp);
}
