/* tests/unit/test-credit-par.c: core/am/credit.c built for GASNET_PAR, with
 * several threads injecting Requests and polling at once (the way Chapel
 * or Realm drive a PAR library).
 *
 * Three simulated endpoints live in one process.  Each directed pair has a
 * channel guarded by its own mutex (the network); the credit functions are
 * always called with no channel lock held, as the verbs layer will call
 * them.  Threads pick actions at random: inject a Request, receive the
 * oldest message of a channel and run its handler (reply, or no reply),
 * drain backlogs.  Receive buffers are counted with atomics to catch a
 * message arriving without a posted buffer.  Conservation cannot be checked
 * mid-flight without stopping the threads, so it is checked at the end:
 * every Request delivered, every backlog empty, every credit home or
 * banked, the totals whole.  Bounded by an alarm.
 */
#include "core/am/credit.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(GASNET_PAR)
#error "test-credit-par must be built with -DGASNET_PAR"
#endif

#define NEP 3
#define NTHREADS 4
#define PER_THREAD 20000
#define CHAN_CAP 256
#define POOLSZ (NTHREADS * PER_THREAD)

typedef struct {
    uint8_t is_req;
    uint16_t piggy;
} msg_t;

typedef struct {
    pthread_mutex_t lock;
    msg_t m[CHAN_CAP];
    int head, len;
} chan_t;

typedef struct pend {
    gasnetc_credit_node_t node;
    int src, dst;
} pend_t;

static gasnetc_credit_config_t cfg;
static gasnetc_credit_total_t total[NEP];
static gasnetc_credit_peer_t peer[NEP][NEP];
static int posted[NEP][NEP]; /* atomics */
static chan_t chan[NEP][NEP];
static pend_t pool[POOLSZ];
static int pool_next;  /* atomic */
static long issued, delivered, hidden_sent; /* atomics */
static int failed;     /* atomic */
static int injecting;  /* threads still injecting (atomic) */

static void fail(const char *what, int a, int b)
{
    if (!__atomic_exchange_n(&failed, 1, __ATOMIC_ACQ_REL))
        printf("FAIL %s (%d -> %d)\n", what, a, b);
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void chan_push(int s, int d, msg_t m)
{
    chan_t *c = &chan[s][d];
    pthread_mutex_lock(&c->lock);
    if (c->len == CHAN_CAP)
        fail("channel overflow", s, d);
    else
        c->m[(c->head + c->len++) % CHAN_CAP] = m;
    pthread_mutex_unlock(&c->lock);
}

static int chan_pop(int s, int d, msg_t *m)
{
    chan_t *c = &chan[s][d];
    int got = 0;
    pthread_mutex_lock(&c->lock);
    if (c->len) {
        *m = c->m[c->head];
        c->head = (c->head + 1) % CHAN_CAP;
        c->len--;
        got = 1;
    }
    pthread_mutex_unlock(&c->lock);
    return got;
}

static void send_request(int s, int d, unsigned flags)
{
    if (flags & GASNETC_CREDIT_POST_RBUF) __atomic_fetch_add(&posted[s][d], 1, __ATOMIC_ACQ_REL);
    msg_t m = {1, (uint16_t)gasnetc_credit_piggyback(&peer[s][d], GASNETC_CREDIT_WIRE_MAX)};
    chan_push(s, d, m);
}

static int send_chain(int s, int d, gasnetc_credit_node_t *n)
{
    int sent = 0;
    for (; n; sent++) {
        gasnetc_credit_node_t *next = n->next;
        pend_t *p = n->item;
        if (p->src != s || p->dst != d) fail("chain from the wrong backlog", s, d);
        send_request(s, d, n->flags);
        n = next;
    }
    return sent;
}

static void inject(int s, int d)
{
    int k = __atomic_fetch_add(&pool_next, 1, __ATOMIC_RELAXED);
    pend_t *p = &pool[k];
    p->src = s;
    p->dst = d;
    p->node.item = p;
    __atomic_fetch_add(&issued, 1, __ATOMIC_RELAXED);
    unsigned f = gasnetc_credit_acquire(&peer[s][d], &p->node);
    if (f) send_request(s, d, f);
}

/* Receives one message s -> d if there is one; returns 1 if it did. */
static int receive_one(int s, int d, uint64_t *rs)
{
    msg_t m;
    if (!chan_pop(s, d, &m)) return 0;
    if (__atomic_fetch_sub(&posted[d][s], 1, __ATOMIC_ACQ_REL) <= 0)
        fail("receiver-not-ready", s, d);
    if (!m.is_req) {
        send_chain(d, s, gasnetc_credit_receive(&peer[d][s], 1, m.piggy));
        return 1;
    }
    __atomic_fetch_add(&posted[d][s], 1, __ATOMIC_ACQ_REL); /* replacement first */
    __atomic_fetch_add(&delivered, 1, __ATOMIC_RELAXED);
    send_chain(d, s, gasnetc_credit_receive(&peer[d][s], 0, m.piggy));
    unsigned piggy;
    if (rnd(rs) % 2) {
        msg_t r = {0, (uint16_t)gasnetc_credit_piggyback(&peer[d][s], GASNETC_CREDIT_WIRE_MAX)};
        chan_push(d, s, r);
    } else if (gasnetc_credit_unanswered(&peer[d][s], &piggy)) {
        if ((int)piggy > cfg.slack) fail("hidden Reply carries more than the slack", d, s);
        __atomic_fetch_add(&hidden_sent, 1, __ATOMIC_RELAXED);
        msg_t r = {0, (uint16_t)piggy};
        chan_push(d, s, r);
    }
    return 1;
}

static int drain_all(int s)
{
    int sent = 0;
    for (int d = 0; d < NEP; d++)
        if (d != s && gasnetc_credit_total_waiting(&total[s]) > 0)
            sent += send_chain(s, d, gasnetc_credit_drain(&peer[s][d]));
    return sent;
}

static void *worker(void *arg)
{
    uint64_t rs = 0x9e3779b97f4a7c15ULL * (uint64_t)((intptr_t)arg + 1);
    int left = PER_THREAD;
    long idle = 0;
    while (!__atomic_load_n(&failed, __ATOMIC_RELAXED)) {
        int s = (int)(rnd(&rs) % NEP), d = (int)(rnd(&rs) % (NEP - 1));
        if (d >= s) d++;
        int r = (int)(rnd(&rs) % 8);
        int did = 0;
        if (left && r < 2) {
            inject(s, d);
            if (--left == 0) __atomic_fetch_sub(&injecting, 1, __ATOMIC_ACQ_REL);
            did = 1;
        } else if (r < 7) {
            did = receive_one(s, d, &rs);
        } else {
            did = drain_all(s);
        }
        if (did) {
            idle = 0;
        } else if (!left && __atomic_load_n(&injecting, __ATOMIC_ACQUIRE) == 0 &&
                   __atomic_load_n(&delivered, __ATOMIC_ACQUIRE) ==
                       __atomic_load_n(&issued, __ATOMIC_ACQUIRE) &&
                   ++idle > 100000) {
            break; /* everything delivered; only banked credits remain */
        }
    }
    return NULL;
}

int main(void)
{
    char why[200];
    alarm(60);
    if (gasnetc_credit_config_resolve(&cfg, 2, 3, 1, NEP - 1, 0, why, sizeof(why)) != 0) {
        printf("FAIL resolve: %s\n", why);
        return 1;
    }
    for (int i = 0; i < NEP; i++) {
        gasnetc_credit_total_init(&total[i], cfg.total);
        for (int j = 0; j < NEP; j++) {
            pthread_mutex_init(&chan[i][j].lock, NULL);
            if (j == i) continue;
            gasnetc_credit_init(&peer[i][j], &cfg, &total[i]);
            posted[i][j] = cfg.pp;
        }
    }
    injecting = NTHREADS;
    pthread_t th[NTHREADS];
    for (intptr_t t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    /* One thread finishes what is left (backlogs drained by credits in flight). */
    uint64_t rs = 12345;
    for (int more = 1; more && !failed;) {
        more = 0;
        for (int s = 0; s < NEP; s++)
            for (int d = 0; d < NEP; d++)
                if (d != s) more |= receive_one(s, d, &rs);
        for (int s = 0; s < NEP; s++) more |= drain_all(s) > 0;
    }
    int ok = !failed;
    for (int i = 0; i < NEP; i++) {
        int out = 0;
        for (int j = 0; j < NEP; j++) {
            if (j == i) continue;
            const gasnetc_credit_peer_t *P = &peer[i][j];
            if (P->backlog_len) ok = 0, printf("FAIL backlog %d->%d holds %d\n", i, j, P->backlog_len);
            if (P->avail + peer[j][i].bank != cfg.pp)
                ok = 0, printf("FAIL credits %d->%d: avail %d + bank %d != %d\n", i, j, P->avail,
                               peer[j][i].bank, cfg.pp);
            if (posted[i][j] != cfg.pp + (cfg.pp - P->avail) + P->rbuf_surplus)
                ok = 0, printf("FAIL posted buffers %d<-%d = %d\n", i, j, posted[i][j]);
            out += cfg.pp - P->avail;
            gasnetc_credit_fini(&peer[i][j]);
        }
        if (total[i].avail != total[i].limit - out || total[i].waiting != 0)
            ok = 0, printf("FAIL total at %d: avail %d limit %d out %d waiting %d\n", i,
                           total[i].avail, total[i].limit, out, total[i].waiting);
    }
    if (issued != delivered) ok = 0, printf("FAIL %ld issued, %ld delivered\n", issued, delivered);
    printf("%s PAR: %d threads, %ld Requests over %d endpoints (PP %d, TOTAL %d, slack %d), "
           "%ld hidden Replies; credits, backlogs and buffers whole at the end\n",
           ok ? "ok" : "FAIL", NTHREADS, issued, NEP, cfg.pp, cfg.total, cfg.slack, hidden_sent);
    return ok ? 0 : 1;
}
