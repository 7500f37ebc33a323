/* tests/unit/test-firehose-remote.c: firehose remote pinning, several fake
 * nodes in one process exchanging move requests through a fake AM queue.
 *
 * Each node has a firehose instance, a real page-aligned "segment" (so
 * put-in-move data is really written) and a fake HCA that records its
 * registrations.  send_move appends to a message queue; a seeded PRNG picks
 * at every step one of: deliver a message (per-pair FIFO, or any order to
 * model several QPs), run firehose_poll on a node, start a remote get or put
 * on a peer, finish one (simulated RDMA: copy the data, check the target,
 * release), pin or release a local buffer, invalidate a range.  Each op owns
 * a slot of its target's segment, so the data it wrote can be checked.
 * After every step, on every node: firehose_check (tables, lists, counters,
 * pool and per-peer limits), the fake HCA's registrations match firehose's
 * pinned counts and limits, and every held firehose's rkey is a live
 * registration covering its range.  At the end everything drains, fini
 * reports nothing held and no registration is left.  With FIFO delivery and
 * no pin failures no grant may be refused.  Deterministic per seed.
 * Usage: test-firehose-remote [nseeds [first]].
 */
#include "firehose/firehose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit-check.h"

#define PG 4096u
#define G (64u * 1024u)
#define NMAX 4
#define K 5                  /* op slots per (source, target) */
#define SLOT (96u * 1024u)   /* bytes of the target's segment per slot */
#define SEG ((size_t)NMAX * K * SLOT)
#define MAXREG 512
#define QCAP 1024
#define LHOLD 4


static uint64_t rng;
static uint64_t rnd(void)
{
    return unit_splitmix64(&rng);
}

typedef struct {
    uintptr_t start;
    size_t len;
    int active;
} reg_t;

enum { FREE, PENDING, HELD };
typedef struct {
    int state, src, dst, put;
    uintptr_t raddr;
    size_t len;
    firehose_request_t req;
    uint8_t data[SLOT];
} op_t;

typedef struct {
    int id;
    firehose_t *fh;
    uint8_t *seg;
    reg_t reg[MAXREG];
    int nreg;
    uint64_t active, bytes;
    int fail_percent, fail_next;
    firehose_request_t lreq[LHOLD];
    int lused[LHOLD];
} node_t;

typedef struct {
    int from, to, reply;
    size_t len;
    uint64_t data[FIREHOSE_MSG_MAX / 8];
} msg_t;

static node_t nodes[NMAX];
static int nn;
static op_t ops_[NMAX][NMAX][K];
static msg_t queue[QCAP];
static int qlen, fifo_mode;
static int64_t m_override[NMAX]; /* > 0: this node's GASNET_FIREHOSE_M differs */
static uint64_t delivered, moves_seen;

/* ---- fake HCA and AM ----------------------------------------------------------------- */

static int fake_pin(void *ctx, uintptr_t addr, size_t len, firehose_pin_t *out)
{
    node_t *n = ctx;
    CHECK_QUIET(addr % PG == 0 && len % PG == 0 && len && len <= G, "pin of %#lx+%zu",
          (unsigned long)addr, len);
    CHECK_QUIET(addr >= (uintptr_t)n->seg && addr + len <= (uintptr_t)n->seg + SEG,
          "node %d pins outside its memory", n->id);
    if (n->fail_next > 0) {
        n->fail_next--;
        return -1;
    }
    if (n->fail_percent && (int)(rnd() % 100) < n->fail_percent) return -1;
    int i;
    for (i = 0; i < n->nreg && n->reg[i].active; i++) {
    }
    if (i == MAXREG) return -1;
    if (i == n->nreg) n->nreg++;
    n->reg[i] = (reg_t){addr, len, 1};
    n->active++;
    n->bytes += len;
    out->lkey = out->rkey = ((uint64_t)n->id << 20) | (uint64_t)i;
    out->handle = &n->reg[i];
    return 0;
}

static void fake_unpin(void *ctx, const firehose_pin_t *pin)
{
    node_t *n = ctx;
    reg_t *r = pin->handle;
    CHECK_QUIET(r && r->active, "unpin of a dead registration on node %d", n->id);
    if (!r || !r->active) return;
    r->active = 0;
    n->active--;
    n->bytes -= r->len;
}

static void fake_send(void *ctx, int to, const void *msg, size_t len)
{
    node_t *n = ctx;
    CHECK_QUIET(qlen < QCAP && len <= FIREHOSE_MSG_MAX && len <= firehose_config(n->fh)->msg_max,
          "send of %zu bytes (queue %d)", len, qlen);
    if (qlen >= QCAP) return;
    msg_t *m = &queue[qlen++];
    m->from = n->id;
    m->to = to;
    m->reply = 0;
    m->len = len;
    memcpy(m->data, msg, len);
    moves_seen++;
}

static const firehose_ops_t fops = {.pin = fake_pin, .unpin = fake_unpin, .send_move = fake_send};

/* A live registration of node `owner` with this key covers [a, a+len). */
static int key_covers(int owner, uint64_t key, uintptr_t a, size_t len)
{
    if ((int)(key >> 20) != owner) return 0;
    uint64_t i = key & 0xfffff;
    node_t *n = &nodes[owner];
    if (i >= (uint64_t)n->nreg || !n->reg[i].active) return 0;
    return n->reg[i].start <= a && a + len <= n->reg[i].start + n->reg[i].len;
}

static void deliver(int i)
{
    if (fifo_mode) /* the oldest message of the same directed pair */
        for (int j = 0; j < i; j++)
            if (queue[j].from == queue[i].from && queue[j].to == queue[i].to) {
                i = j;
                break;
            }
    msg_t m = queue[i];
    memmove(&queue[i], &queue[i + 1], (size_t)(qlen - i - 1) * sizeof *queue);
    qlen--;
    delivered++;
    if (m.reply) {
        firehose_reply_handle(nodes[m.to].fh, m.from, m.data, m.len);
        return;
    }
    uint64_t reply[8];
    size_t rl = firehose_move_handle(nodes[m.to].fh, m.from, m.data, m.len, reply, sizeof reply);
    if (rl) {
        CHECK_QUIET(qlen < QCAP, "queue full");
        msg_t *r = &queue[qlen++];
        r->from = m.to;
        r->to = m.from;
        r->reply = 1;
        r->len = rl;
        memcpy(r->data, reply, rl);
    }
}

/* ---- ops ---------------------------------------------------------------------------- */

static uint8_t *target_mem(const op_t *o, size_t off)
{
    return (uint8_t *)(o->raddr + off);
}

/* The rest of the op: "RDMA" for [done, req.len) and "AM fallback" beyond;
 * then the target must hold the whole put. */
static void op_finish(op_t *o, int held)
{
    if (held) {
        CHECK_QUIET(key_covers(o->dst, o->req.rkey, o->raddr, o->req.len),
              "held firehose %d->%d %#lx+%zu has no live registration", o->src, o->dst,
              (unsigned long)o->raddr, o->req.len);
    }
    if (o->put) {
        size_t done = o->req.putinmove_done;
        memcpy(target_mem(o, done), o->data + done, o->len - done);
        CHECK_QUIET(memcmp(target_mem(o, 0), o->data, o->len) == 0, "put %d->%d: target differs",
              o->src, o->dst);
    }
    if (held) firehose_release(nodes[o->src].fh, &o->req);
    o->state = FREE;
}

static void op_done(firehose_request_t *req, void *arg)
{
    op_t *o = arg;
    CHECK_QUIET(o->state == PENDING && req == &o->req, "callback for an op not pending");
    if (o->put)
        CHECK_QUIET(memcmp(target_mem(o, 0), o->data, req->putinmove_done) == 0 &&
                  req->putinmove_done <= firehose_config(nodes[o->src].fh)->putinmove_limit,
              "put-in-move data (%zu bytes) not at the target", req->putinmove_done);
    if (req->status == FIREHOSE_OK) {
        CHECK_QUIET(req->len >= 1 && req->len <= o->len &&
                  key_covers(o->dst, req->rkey, o->raddr, req->len),
              "granted firehose does not cover %#lx+%zu", (unsigned long)o->raddr, req->len);
        o->state = HELD;
    } else {
        CHECK_QUIET(req->status == FIREHOSE_NORESOURCE, "status %d", req->status);
        op_finish(o, 0);
    }
}

/* Starts op o (src -> dst) on [raddr, raddr+len); returns firehose's code. */
static int op_issue(op_t *o, int src, int dst, uintptr_t raddr, size_t len, int put)
{
    o->src = src;
    o->dst = dst;
    o->raddr = raddr;
    o->len = len;
    o->put = put;
    if (put)
        for (size_t i = 0; i < len; i++) o->data[i] = (uint8_t)rnd();
    o->state = PENDING;
    int rc = firehose_remote_pin(nodes[src].fh, dst, raddr, len, 0, put ? o->data : NULL, &o->req,
                                 op_done, o);
    if (rc == FIREHOSE_OK) {
        CHECK_QUIET(o->req.len >= 1 && key_covers(dst, o->req.rkey, raddr, o->req.len),
              "hit does not cover");
        o->state = HELD;
    } else if (rc == FIREHOSE_NORESOURCE) {
        o->req.putinmove_done = 0;
        op_finish(o, 0);
    } else {
        CHECK_QUIET(rc == FIREHOSE_PENDING, "remote_pin returned %d", rc);
    }
    return rc;
}

static uintptr_t slot_addr(int src, int dst, int k)
{
    return (uintptr_t)nodes[dst].seg + ((size_t)src * K + (size_t)k) * SLOT;
}

static void op_start(int src, int dst, int k)
{
    /* few distinct offsets, so that firehoses get reused (hits) */
    size_t off = (size_t)(rnd() % 4) * (SLOT / 8) + (rnd() % 3 ? 0 : rnd() % 64);
    size_t len = 1 + (size_t)(rnd() % (rnd() % 2 ? 6000 : SLOT - off - 1));
    int put = (int)(rnd() % 2);
    /* puts write only their own slot (checked); gets may share a slot, so that
     * requests join a move already in flight */
    int slot = put ? k : (int)(rnd() % 2);
    op_issue(&ops_[src][dst][k], src, dst, slot_addr(src, dst, slot) + off, len, put);
}

static void local_step(node_t *n)
{
    int i = (int)(rnd() % LHOLD);
    if (n->lused[i]) {
        CHECK_QUIET(key_covers(n->id, n->lreq[i].lkey, n->lreq[i].addr, n->lreq[i].len), "local held");
        firehose_release(n->fh, &n->lreq[i]);
        n->lused[i] = 0;
        return;
    }
    uintptr_t a = (uintptr_t)n->seg + rnd() % (SEG - 2 * G);
    if (firehose_local_pin(n->fh, a, 1 + rnd() % (2 * G), 0, &n->lreq[i]) == FIREHOSE_OK)
        n->lused[i] = 1;
}

static void invariants(const char *where, long step)
{
    for (int i = 0; i < nn; i++) {
        node_t *n = &nodes[i];
        char why[256];
        firehose_stats_t s;
        const firehose_config_t *c = firehose_config(n->fh);
        CHECK_QUIET(firehose_check(n->fh, why, sizeof why) == 0, "%s step %ld node %d: %s", where, step,
              i, why);
        firehose_stats(n->fh, &s);
        CHECK_QUIET(n->active == s.pinned_regions && n->bytes == s.pinned_bytes &&
                  n->active <= c->victim_regions + c->main_regions &&
                  n->bytes <= c->victim_bytes + c->main_bytes,
              "%s step %ld node %d: %llu regions / %llu bytes pinned", where, step, i,
              (unsigned long long)n->active, (unsigned long long)n->bytes);
        for (int d = 0; d < nn; d++)
            for (int k = 0; k < K; k++) {
                op_t *o = &ops_[i][d][k];
                if (o->state == HELD)
                    CHECK_QUIET(key_covers(d, o->req.rkey, o->raddr, o->req.len),
                          "%s step %ld: held firehose lost its registration", where, step);
            }
    }
}

static void setup(int n, size_t msg_max, int fail_percent)
{
    nn = n;
    qlen = 0;
    memset(ops_, 0, sizeof ops_);
    for (int i = 0; i < n; i++) {
        node_t *nd = &nodes[i];
        uint8_t *seg = nd->seg;
        memset(nd, 0, sizeof *nd);
        nd->seg = seg;
        nd->id = i;
        nd->fail_percent = fail_percent;
        firehose_user_t u;
        firehose_env_t e;
        firehose_config_t cfg;
        char why[256];
        firehose_user_defaults(&u);
        u.region_size = G;
        u.m = (int64_t)(n - 1) * 4 * G; /* each peer: 4 regions of this node */
        if (m_override[i] > 0) u.m = m_override[i];
        u.maxvictim_m = 6 * G;
        memset(&e, 0, sizeof e);
        e.nodes = n;
        e.mynode = i;
        e.remote = 1;
        e.host_procs = 1;
        e.page_size = PG;
        e.pool_bytes = 64u << 20;
        e.msg_max = msg_max;
        CHECK_QUIET(firehose_config_resolve(&u, &e, &cfg, why, sizeof why) == 0, "resolve: %s", why);
        nd->fh = firehose_init(&cfg, &fops, nd);
        CHECK_QUIET(nd->fh != NULL, "init");
    }
}

static void teardown(const char *name)
{
    for (int i = 0; i < nn; i++) {
        int held = firehose_fini(nodes[i].fh);
        CHECK_QUIET(held == 0, "%s: node %d: %d regions held at fini", name, i, held);
        CHECK_QUIET(nodes[i].active == 0, "%s: node %d: %llu registrations left", name, i,
              (unsigned long long)nodes[i].active);
    }
}

/* ---- deterministic cases (2 nodes, FIFO) ------------------------------------------- */

static void drain(void)
{
    for (int busy = 1; busy;) {
        busy = 0;
        while (qlen) {
            deliver(0);
            busy = 1;
        }
        for (int i = 0; i < nn; i++) busy |= firehose_poll(nodes[i].fh) > 0;
    }
}

static void run_cases(void)
{
    rng = 99;
    fifo_mode = 1;
    setup(2, FIREHOSE_MSG_MAX, 0);
    node_t *a = &nodes[0], *b = &nodes[1];
    op_t *o = ops_[0][1];
    firehose_stats_t sa, sb;

    /* miss, then hit without a message */
    CHECK_QUIET(op_issue(&o[0], 0, 1, slot_addr(0, 1, 0) + 100, 200, 0) == FIREHOSE_PENDING && qlen == 1,
          "first remote pin: one move request");
    drain();
    CHECK_QUIET(o[0].state == HELD && o[0].req.len == 200, "granted");
    CHECK_QUIET(op_issue(&o[1], 0, 1, slot_addr(0, 1, 0) + 150, 50, 0) == FIREHOSE_OK && qlen == 0 &&
              o[1].req.rkey == o[0].req.rkey,
          "second pin of the range: hit, no message");
    op_finish(&o[0], 1);
    op_finish(&o[1], 1);
    invariants("hit", 0);

    /* two requests for a new range before the grant: one message, both complete */
    CHECK_QUIET(op_issue(&o[0], 0, 1, slot_addr(0, 1, 1) + 50, 100, 0) == FIREHOSE_PENDING &&
              op_issue(&o[1], 0, 1, slot_addr(0, 1, 1) + 60, 100, 0) == FIREHOSE_PENDING &&
              qlen == 1,
          "joined a pending move");
    invariants("join", 0);
    drain();
    CHECK_QUIET(o[0].state == HELD && o[1].state == HELD && o[0].req.rkey == o[1].req.rkey, "both granted");
    op_finish(&o[0], 1);
    op_finish(&o[1], 1);

    /* put-in-move: small puts travel whole, large ones up to the limit */
    CHECK_QUIET(op_issue(&o[2], 0, 1, slot_addr(0, 1, 2) + 5, 100, 1) == FIREHOSE_PENDING, "put miss");
    drain();
    CHECK_QUIET(o[2].state == HELD && o[2].req.putinmove_done == 100, "100-byte put delivered (%zu)",
          o[2].req.putinmove_done);
    op_finish(&o[2], 1);
    CHECK_QUIET(op_issue(&o[3], 0, 1, slot_addr(0, 1, 3), 5000, 1) == FIREHOSE_PENDING, "big put miss");
    drain();
    CHECK_QUIET(o[3].state == HELD && o[3].req.putinmove_done == 3072, "3072 of 5000 bytes delivered (%zu)",
          o[3].req.putinmove_done);
    op_finish(&o[3], 1);
    invariants("put-in-move", 0);

    /* the per-peer share (4 regions): the 5th region releases the oldest unused */
    firehose_stats(a->fh, &sa);
    CHECK_QUIET(sa.releases_sent == 0, "no releases yet");
    CHECK_QUIET(op_issue(&o[4], 0, 1, slot_addr(0, 1, 4), 10, 0) == FIREHOSE_PENDING, "5th region");
    drain();
    firehose_stats(a->fh, &sa);
    firehose_stats(b->fh, &sb);
    CHECK_QUIET(sa.releases_sent == 1 && sb.main_regions == 4, "one release rides on the move (%llu, %llu)",
          (unsigned long long)sa.releases_sent, (unsigned long long)sb.main_regions);
    for (int k = 0; k < 3; k++) { /* each new region releases one more old one */
        op_issue(&o[k], 0, 1, slot_addr(0, 1, k) + G / 2 + 3 * PG, 10, 0);
        drain();
    }
    CHECK_QUIET(o[0].state == HELD && o[1].state == HELD && o[2].state == HELD && o[4].state == HELD,
          "4 regions held");
    firehose_stats(a->fh, &sa);
    CHECK_QUIET(sa.releases_sent == 4, "4 releases so far (%llu)", (unsigned long long)sa.releases_sent);
    invariants("share", 0);
    int held_regions = 0;
    firehose_stats(b->fh, &sb);
    held_regions = (int)sb.main_regions;
    CHECK_QUIET(held_regions == 4, "4 regions granted to the peer (%d)", held_regions);
    op_t extra;
    CHECK_QUIET(op_issue(&extra, 0, 1, slot_addr(0, 1, 4) + G, 10, 0) == FIREHOSE_NORESOURCE &&
              qlen == 0,
          "share in use: NORESOURCE without a message");
    for (int k = 0; k < 5; k++)
        if (o[k].state == HELD) op_finish(&o[k], 1);

    /* the granter cannot pin: refused, but put-in-move data still arrives */
    b->fail_percent = 100;
    CHECK_QUIET(op_issue(&o[0], 0, 1, slot_addr(0, 1, 0) + 3 * G / 4, 1000, 1) == FIREHOSE_PENDING,
          "put to a region the granter cannot pin");
    printf("(a firehose warning about a failed registration is expected next)\n");
    fflush(stdout);
    drain();
    CHECK_QUIET(o[0].state == FREE && o[0].req.status == FIREHOSE_NORESOURCE &&
              o[0].req.putinmove_done == 1000,
          "refused grant, data delivered");
    b->fail_percent = 0;
    firehose_stats(b->fh, &sb);
    CHECK_QUIET(sb.denials == 1, "one denial (%llu)", (unsigned long long)sb.denials);
    invariants("denial", 0);
    CHECK_QUIET(firehose_remote_pin(a->fh, 0, slot_addr(0, 0, 0), 10, 0, NULL, &extra.req, op_done,
                              &extra) == FIREHOSE_BADARG,
          "remote pin of oneself");
    teardown("cases");

    /* node 1's main pool is smaller than node 0 believes (GASNET_FIREHOSE_M
     * differs between nodes): the granter refuses instead of overcommitting */
    m_override[1] = 2 * G;
    setup(2, FIREHOSE_MSG_MAX, 0);
    m_override[1] = 0;
    firehose_request_t lq;
    CHECK_QUIET(firehose_local_pin(nodes[1].fh, slot_addr(0, 1, 2), 10, 0, &lq) == FIREHOSE_OK, "local");
    firehose_release(nodes[1].fh, &lq); /* cached at node 1: the grant would reuse it */
    for (int k = 0; k < 4; k++) {
        op_issue(&o[k], 0, 1, slot_addr(0, 1, k), 10, 0);
        drain();
    }
    firehose_stats(nodes[1].fh, &sb);
    CHECK_QUIET(o[0].state == HELD && o[1].state == HELD && o[2].state == FREE && o[3].state == FREE &&
              sb.denials == 2 && sb.main_regions == 2,
          "cached and new regions refused by a granter with a 2-region main pool");
    invariants("mismatch", 0);

    /* node 1 uses a region node 0 holds, with its victim pool full: refused */
    firehose_request_t vq[8];
    int nv = 0;
    const firehose_config_t *c1 = firehose_config(nodes[1].fh);
    while ((uint64_t)nv < c1->victim_regions) {
        int rc = firehose_local_pin(nodes[1].fh, slot_addr(1, 1, nv), 10, 0, &vq[nv]);
        CHECK_QUIET(rc == FIREHOSE_OK, "fill the victim pool");
        nv++;
    }
    CHECK_QUIET(firehose_local_pin(nodes[1].fh, slot_addr(0, 1, 0) + 5, 10, 0, &lq) ==
              FIREHOSE_NORESOURCE,
          "a region held by a peer needs victim room for local use");
    firehose_release(nodes[1].fh, &vq[--nv]);
    CHECK_QUIET(firehose_local_pin(nodes[1].fh, slot_addr(0, 1, 0) + 5, 10, 0, &lq) == FIREHOSE_OK &&
              lq.rkey == o[0].req.rkey,
          "with room: the peer's region is shared");
    invariants("dual use", 0);
    op_finish(&o[0], 1); /* rref 0 while in local use: stays in the victim pool */
    invariants("dual use 2", 0);
    firehose_release(nodes[1].fh, &lq);
    while (nv) firehose_release(nodes[1].fh, &vq[--nv]);
    op_finish(&o[1], 1);
    invariants("dual use 3", 0);
    teardown("mismatch");
    printf("ok deterministic remote cases\n");
}

/* ---- the random simulation ----------------------------------------------------------- */

static void simulate(uint64_t seed, int n, int fifo, size_t msg_max, int fail_percent)
{
    enum { STEPS = 12000 };
    rng = seed;
    fifo_mode = fifo;
    setup(n, msg_max, fail_percent);
    long step;
    for (step = 0; step < STEPS && failures < 10; step++) {
        uint64_t a = rnd() % 100;
        int src = (int)(rnd() % (uint64_t)n), k = (int)(rnd() % K);
        int dst = (src + 1 + (int)(rnd() % (uint64_t)(n - 1))) % n;
        op_t *o = &ops_[src][dst][k];
        if (a < 30 && qlen)
            deliver((int)(rnd() % (uint64_t)qlen));
        else if (a < 45)
            firehose_poll(nodes[src].fh);
        else if (a < 70 && o->state == FREE)
            op_start(src, dst, k);
        else if (a < 88 && o->state == HELD)
            op_finish(o, 1);
        else if (a < 97)
            local_step(&nodes[src]);
        else
            firehose_local_invalidate(nodes[src].fh,
                                      (uintptr_t)nodes[src].seg + rnd() % (SEG - G),
                                      1 + rnd() % (2 * G));
        invariants("sim", step);
    }
    /* drain: every message, every callback, every op, every local pin */
    for (int round = 0; round < 100000; round++) {
        int busy = 0;
        if (qlen) {
            deliver(0);
            busy = 1;
        }
        for (int i = 0; i < n; i++) busy |= firehose_poll(nodes[i].fh) > 0;
        if (!busy) break;
    }
    firehose_stats_t tot;
    memset(&tot, 0, sizeof tot);
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < n; d++)
            for (int kk = 0; kk < K; kk++) {
                op_t *o = &ops_[i][d][kk];
                CHECK_QUIET(o->state != PENDING, "op %d->%d still pending after the drain", i, d);
                if (o->state == HELD) op_finish(o, 1);
            }
        for (int l = 0; l < LHOLD; l++)
            if (nodes[i].lused[l]) firehose_release(nodes[i].fh, &nodes[i].lreq[l]);
        firehose_stats_t s;
        firehose_stats(nodes[i].fh, &s);
        tot.remote_hits += s.remote_hits;
        tot.remote_misses += s.remote_misses;
        tot.remote_joins += s.remote_joins;
        tot.remote_noresource += s.remote_noresource;
        tot.denials += s.denials;
        tot.grants += s.grants;
        tot.putinmove_bytes += s.putinmove_bytes;
    }
    invariants("drained", step);
    printf("seed %llu, %d nodes, %s, msg_max %zu, %d%% pin failures: %llu hits, %llu misses, "
           "%llu joined, %llu refused locally, %llu grants, %llu denied, %llu put-in-move bytes\n",
           (unsigned long long)seed, n, fifo ? "FIFO" : "any order", msg_max, fail_percent,
           (unsigned long long)tot.remote_hits, (unsigned long long)tot.remote_misses,
           (unsigned long long)tot.remote_joins, (unsigned long long)tot.remote_noresource,
           (unsigned long long)tot.grants, (unsigned long long)tot.denials,
           (unsigned long long)tot.putinmove_bytes);
    CHECK_QUIET(tot.remote_hits > 0 && tot.remote_misses > 0 && tot.grants > 0, "the run did something");
    if (fifo && !fail_percent)
        CHECK_QUIET(tot.denials == 0, "grants refused with FIFO delivery and no pin failures");
    teardown("simulation");
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 3;
    uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < NMAX; i++) {
        void *p;
        if (posix_memalign(&p, G, SEG)) return 1;
        memset(p, 0, SEG);
        nodes[i].seg = p;
    }
    run_cases();
    for (int s = 0; s < nseeds && failures == 0; s++) {
        uint64_t seed = first + (uint64_t)s;
        simulate(seed, 4, 1, FIREHOSE_MSG_MAX, 0);
        simulate(seed, 2 + (int)(seed % 3), 0, FIREHOSE_MSG_MIN, 2);
        simulate(seed, 3, 1, 1024, 1);
    }
    for (int i = 0; i < NMAX; i++) free(nodes[i].seg);
    printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
    return failures ? 1 : 0;
}
