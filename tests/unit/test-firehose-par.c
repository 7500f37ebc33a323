/* tests/unit/test-firehose-par.c: the GASNET_PAR build of firehose driven
 * by 4 threads at once: two fake nodes in one process, two threads each.
 *
 * Every thread pins and releases local buffers of its node, invalidates
 * ranges, starts remote gets and puts on the other node, delivers move
 * requests and replies from a shared queue (any thread, any order), runs
 * firehose_poll (completions run on whichever thread polls), finishes held
 * ops (checks the put data at the target) and now and then runs
 * firehose_check.  At the end everything drains, firehose_check passes,
 * fini reports nothing held and no fake registration is left.
 */
#include "firehose/firehose.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG 4096u
#define G (64u * 1024u)
#define NODES 2
#define THREADS_PER 2
#define OPS 6              /* ops per thread */
#define SLOT (80u * 1024u) /* one per op at the target: puts write only there */
#define SEG ((size_t)NODES * THREADS_PER * OPS * SLOT)
#define MAXREG 512
#define QCAP 512
#define ITERS 15000

static int failures;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
#define CHECK(cond, ...)                                    \
    do {                                                    \
        if (!(cond)) {                                      \
            pthread_mutex_lock(&out_lock);                  \
            failures++;                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);     \
            printf(__VA_ARGS__);                            \
            printf("\n");                                   \
            pthread_mutex_unlock(&out_lock);                \
        }                                                   \
    } while (0)

typedef struct {
    int id;
    firehose_t *fh;
    uint8_t *seg;
    pthread_mutex_t reg_lock; /* the fake HCA's own lock (a leaf) */
    struct {
        uintptr_t start;
        size_t len;
        int active;
    } reg[MAXREG];
    int nreg;
    uint64_t active;
} node_t;

enum { FREE, PENDING, HELD, REFUSED };
typedef struct {
    int state; /* atomic: set by the callback on any thread */
    int put;
    uintptr_t raddr;
    size_t len;
    firehose_request_t req;
    uint8_t data[SLOT];
} op_t;

typedef struct {
    int from, to, reply;
    size_t len;
    uint64_t data[FIREHOSE_MSG_MAX / 8];
} msg_t;

static node_t nodes[NODES];
static op_t ops_[NODES][THREADS_PER][OPS];
static msg_t queue[QCAP];
static int qlen;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int fake_pin(void *ctx, uintptr_t addr, size_t len, firehose_pin_t *out)
{
    node_t *n = ctx;
    pthread_mutex_lock(&n->reg_lock);
    int i;
    for (i = 0; i < n->nreg && n->reg[i].active; i++) {
    }
    int ok = i < MAXREG;
    if (ok) {
        if (i == n->nreg) n->nreg++;
        n->reg[i].start = addr;
        n->reg[i].len = len;
        n->reg[i].active = 1;
        n->active++;
        out->lkey = out->rkey = ((uint64_t)n->id << 20) | (uint64_t)i;
        out->handle = NULL;
    }
    pthread_mutex_unlock(&n->reg_lock);
    return ok ? 0 : -1;
}

static void fake_unpin(void *ctx, const firehose_pin_t *pin)
{
    node_t *n = ctx;
    pthread_mutex_lock(&n->reg_lock);
    int i = (int)(pin->lkey & 0xfffff);
    CHECK(n->reg[i].active, "double unpin");
    n->reg[i].active = 0;
    n->active--;
    pthread_mutex_unlock(&n->reg_lock);
}

static int key_covers(int owner, uint64_t key, uintptr_t a, size_t len)
{
    node_t *n = &nodes[owner];
    int i = (int)(key & 0xfffff), ok;
    pthread_mutex_lock(&n->reg_lock);
    ok = (int)(key >> 20) == owner && i < n->nreg && n->reg[i].active && n->reg[i].start <= a &&
         a + len <= n->reg[i].start + n->reg[i].len;
    pthread_mutex_unlock(&n->reg_lock);
    return ok;
}

static void enqueue(int from, int to, int reply, const void *msg, size_t len)
{
    pthread_mutex_lock(&q_lock);
    CHECK(qlen < QCAP, "queue full");
    if (qlen < QCAP) {
        msg_t *m = &queue[qlen++];
        m->from = from;
        m->to = to;
        m->reply = reply;
        m->len = len;
        memcpy(m->data, msg, len);
    }
    pthread_mutex_unlock(&q_lock);
}

static void fake_send(void *ctx, int to, const void *msg, size_t len)
{
    enqueue(((node_t *)ctx)->id, to, 0, msg, len);
}

static const firehose_ops_t fops = {.pin = fake_pin, .unpin = fake_unpin, .send_move = fake_send};

/* Delivers one message (any of them); returns 0 if the queue was empty. */
static int deliver_one(uint64_t *s)
{
    msg_t m;
    pthread_mutex_lock(&q_lock);
    if (!qlen) {
        pthread_mutex_unlock(&q_lock);
        return 0;
    }
    int i = (int)(rnd(s) % (uint64_t)qlen);
    m = queue[i];
    queue[i] = queue[--qlen];
    pthread_mutex_unlock(&q_lock);
    if (m.reply) {
        firehose_reply_handle(nodes[m.to].fh, m.from, m.data, m.len);
    } else {
        uint64_t reply[8];
        size_t rl = firehose_move_handle(nodes[m.to].fh, m.from, m.data, m.len, reply, sizeof reply);
        if (rl) enqueue(m.to, m.from, 1, reply, rl);
    }
    return 1;
}

static void op_done(firehose_request_t *req, void *arg)
{
    op_t *o = arg;
    __atomic_store_n(&o->state, req->status == FIREHOSE_OK ? HELD : REFUSED, __ATOMIC_RELEASE);
}

static void op_finish(int src, op_t *o)
{
    int held = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == HELD;
    int dst = 1 - src;
    if (held)
        CHECK(key_covers(dst, o->req.rkey, o->raddr, o->req.len), "held firehose not registered");
    if (o->put) {
        size_t done = o->req.putinmove_done;
        CHECK(memcmp((void *)o->raddr, o->data, done) == 0, "put-in-move data missing");
        memcpy((uint8_t *)o->raddr + done, o->data + done, o->len - done);
    }
    if (held) firehose_release(nodes[src].fh, &o->req);
    o->state = FREE;
}

typedef struct {
    int node, t;
} targ_t;

static void *worker(void *argp)
{
    targ_t *ta = argp;
    node_t *n = &nodes[ta->node];
    int dst = 1 - ta->node;
    uint64_t s = 1000 + (uint64_t)ta->node * 10 + (uint64_t)ta->t;
    firehose_request_t lq[3];
    int lused[3] = {0};
    for (int it = 0; it < ITERS && !failures; it++) {
        uint64_t a = rnd(&s) % 100;
        int k = (int)(rnd(&s) % OPS);
        op_t *o = &ops_[ta->node][ta->t][k];
        int st = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE);
        if (a < 30) {
            deliver_one(&s);
        } else if (a < 45) {
            firehose_poll(n->fh);
        } else if (a < 65 && st == FREE) {
            uintptr_t slot = (uintptr_t)nodes[dst].seg +
                             (((size_t)ta->node * THREADS_PER + (size_t)ta->t) * OPS + (size_t)k) * SLOT;
            o->put = (int)(rnd(&s) % 2);
            o->raddr = slot + (rnd(&s) % 4) * (SLOT / 8);
            o->len = 1 + (size_t)(rnd(&s) % (SLOT / 2));
            if (o->put)
                for (size_t i = 0; i < o->len; i += 64) o->data[i] = (uint8_t)rnd(&s);
            o->state = PENDING;
            int rc = firehose_remote_pin(n->fh, dst, o->raddr, o->len, 0, o->put ? o->data : NULL,
                                         &o->req, op_done, o);
            if (rc == FIREHOSE_OK) {
                o->state = HELD;
            } else if (rc == FIREHOSE_NORESOURCE) {
                o->req.putinmove_done = 0;
                o->state = REFUSED;
                op_finish(ta->node, o);
            } else {
                CHECK(rc == FIREHOSE_PENDING, "remote pin rc %d", rc);
            }
        } else if (a < 80 && (st == HELD || st == REFUSED)) {
            op_finish(ta->node, o);
        } else if (a < 97) {
            int i = (int)(rnd(&s) % 3);
            if (lused[i]) {
                CHECK(key_covers(ta->node, lq[i].lkey, lq[i].addr, lq[i].len), "local lost");
                firehose_release(n->fh, &lq[i]);
                lused[i] = 0;
            } else {
                uintptr_t addr = (uintptr_t)n->seg + rnd(&s) % (SEG - G);
                lused[i] = firehose_local_pin(n->fh, addr, 1 + rnd(&s) % G, 0, &lq[i]) == FIREHOSE_OK;
            }
        } else if (a < 99) {
            firehose_local_invalidate(n->fh, (uintptr_t)n->seg + rnd(&s) % (SEG - G),
                                      1 + rnd(&s) % G);
        } else {
            char why[256];
            CHECK(firehose_check(n->fh, why, sizeof why) == 0, "node %d: %s", ta->node, why);
        }
    }
    for (int i = 0; i < 3; i++)
        if (lused[i]) firehose_release(n->fh, &lq[i]);
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < NODES; i++) {
        node_t *n = &nodes[i];
        void *p;
        if (posix_memalign(&p, G, SEG)) return 1;
        memset(p, 0, SEG);
        n->seg = p;
        n->id = i;
        pthread_mutex_init(&n->reg_lock, NULL);
        firehose_user_t u;
        firehose_env_t e;
        firehose_config_t cfg;
        char why[256];
        firehose_user_defaults(&u);
        u.region_size = G;
        u.m = 8 * G;
        u.maxvictim_m = 6 * G;
        memset(&e, 0, sizeof e);
        e.nodes = NODES;
        e.mynode = i;
        e.remote = 1;
        e.host_procs = 1;
        e.page_size = PG;
        e.pool_bytes = 64u << 20;
        e.msg_max = 1024;
        if (firehose_config_resolve(&u, &e, &cfg, why, sizeof why)) {
            printf("FAIL resolve: %s\n", why);
            return 1;
        }
        n->fh = firehose_init(&cfg, &fops, n);
    }
    pthread_t th[NODES * THREADS_PER];
    targ_t ta[NODES * THREADS_PER];
    for (int i = 0; i < NODES * THREADS_PER; i++) {
        ta[i].node = i / THREADS_PER;
        ta[i].t = i % THREADS_PER;
        pthread_create(&th[i], NULL, worker, &ta[i]);
    }
    for (int i = 0; i < NODES * THREADS_PER; i++) pthread_join(th[i], NULL);
    uint64_t s = 7;
    for (int busy = 1; busy;) { /* drain */
        busy = deliver_one(&s);
        for (int i = 0; i < NODES; i++) busy |= firehose_poll(nodes[i].fh) > 0;
    }
    firehose_stats_t st[NODES];
    for (int i = 0; i < NODES; i++)
        for (int t = 0; t < THREADS_PER; t++)
            for (int k = 0; k < OPS; k++) {
                op_t *o = &ops_[i][t][k];
                CHECK(o->state != PENDING, "op still pending after the drain");
                if (o->state == HELD || o->state == REFUSED) op_finish(i, o);
            }
    for (int i = 0; i < NODES; i++) {
        char why[256];
        CHECK(firehose_check(nodes[i].fh, why, sizeof why) == 0, "final: %s", why);
        firehose_stats(nodes[i].fh, &st[i]);
        printf("node %d: %llu local hits, %llu misses; %llu remote hits, %llu misses, %llu joined, "
               "%llu grants\n",
               i, (unsigned long long)st[i].local_hits, (unsigned long long)st[i].local_misses,
               (unsigned long long)st[i].remote_hits, (unsigned long long)st[i].remote_misses,
               (unsigned long long)st[i].remote_joins, (unsigned long long)st[i].grants);
        CHECK(st[i].remote_hits > 0 && st[i].remote_misses > 0 && st[i].local_hits > 0,
              "node %d did little", i);
    }
    for (int i = 0; i < NODES; i++) {
        int held = firehose_fini(nodes[i].fh);
        CHECK(held == 0, "node %d: %d held at fini", i, held);
        CHECK(nodes[i].active == 0, "node %d: registrations left", i);
        free(nodes[i].seg);
    }
    printf("%s: 4 threads on 2 nodes, %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
