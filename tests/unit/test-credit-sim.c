/* tests/unit/test-credit-sim.c: the AM credit protocol (core/am/credit.c,
 * credit_policy.c) run as a simulation of 2..8 endpoints in one process.
 *
 * Each directed pair of endpoints has a FIFO channel (an RC QP delivers in
 * order).  A seeded PRNG picks, at every step, one enabled action: deliver
 * the oldest message of a channel, inject a new Request, send a delayed
 * Reply, send a follow-up Request from the poll loop (request-request
 * ping-pong), or drain backlogs.  Request handlers reply at once, reply
 * later (from the poll loop), or send no Reply.  The test also models the
 * receive buffers each endpoint has posted per peer (pp preposted, one
 * posted on demand before a Request when credit.c asks for it, a replacement
 * posted before each Request handler) so that a receiver-not-ready condition
 * would be seen.  After every step it checks:
 *   - credits conserved per directed pair: sender's credits + Requests in
 *     flight + credits held by the receiver's pending Replies + receiver's
 *     bank + credits in flight back == PP;
 *   - in-flight Requests never exceed PP; a message never arrives without a
 *     posted buffer; posted buffers never exceed the receive-queue depth;
 *   - the total limit is conserved; the bank never exceeds the slack;
 *   - a hidden Reply is asked for exactly when the bank would pass the slack;
 * and at the end: every Request delivered, every backlog empty, every credit
 * home or banked (no deadlock, no livelock).  Deterministic per seed; the
 * seed is printed with any failure.  Usage: test-credit-sim [nseeds [first]].
 */
#include "core/am/credit.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tests/unit/unit-check.h"

#define MAXEP 8
#define CHAN_CAP 64
#define POOL 2048
#define MAXPEND 1024
#define STEP_LIMIT 2000000L


/* ---- deterministic PRNG (splitmix64) ------------------------------------------------ */
static uint64_t rng;
static uint64_t rnd64(void)
{
    return unit_splitmix64(&rng);
}
static int rndn(int n)
{
    return (int)(rnd64() % (uint64_t)n);
}

/* ---- the simulated world ------------------------------------------------------------ */
typedef struct {
    uint8_t is_req;
    uint8_t hidden;
    uint16_t piggy;
    int hops; /* Requests: follow-up Requests still to come in this ping-pong */
} msg_t;

typedef struct {
    msg_t m[CHAN_CAP];
    int head, len;
    int nreq; /* Requests in the channel */
    int cred; /* credits the channel carries back: one per Reply + piggybacked */
} chan_t;

typedef struct pend {
    gasnetc_credit_node_t node; /* what credit.c queues */
    int dst, hops;
    struct pend *next_free;
} pend_t;

typedef struct {
    int dst, hidden;
    unsigned piggy; /* hidden Replies: the credits credit.c told it to carry */
} reply_t;

typedef struct {
    int dst, hops;
} follow_t;

typedef struct {
    gasnetc_credit_total_t total;
    gasnetc_credit_peer_t peer[MAXEP];
    int posted[MAXEP];     /* receive buffers posted for messages from each peer */
    int model_bank[MAXEP]; /* the bank as the test expects it */
    int held_cred[MAXEP];  /* credits of each peer held in our pending Replies */
    long unanswered[MAXEP], hidden[MAXEP];
    pend_t pool[POOL];
    pend_t *free_list;
    reply_t delayed[MAXPEND];
    int ndelayed;
    follow_t follow[MAXPEND];
    int nfollow;
    int budget; /* fresh Requests still to inject */
} ep_t;

typedef struct {
    uint64_t seed;
    int nep;
    gasnetc_credit_config_t cfg;
    int p_reply, p_delay, p_hidden_delay, p_immediate, p_cancel, p_pingpong, max_hops;
    int w_inject;
    ep_t ep[MAXEP];
    chan_t chan[MAXEP][MAXEP]; /* chan[s][d]: messages from s to d */
    long issued, sent_req, sent_rep, sent_hidden, delivered_req, steps;
    char fail[256];
} sim_t;

static sim_t *S;

#define SIMFAIL(...)                                                           \
    do {                                                                       \
        if (!S->fail[0]) snprintf(S->fail, sizeof(S->fail), __VA_ARGS__);      \
    } while (0)

static pend_t *pend_get(int s)
{
    pend_t *p = S->ep[s].free_list;
    if (!p) {
        SIMFAIL("endpoint %d ran out of pending descriptors", s);
        return NULL;
    }
    S->ep[s].free_list = p->next_free;
    return p;
}

static void pend_put(int s, pend_t *p)
{
    p->next_free = S->ep[s].free_list;
    S->ep[s].free_list = p;
}

static void chan_push(int s, int d, msg_t m)
{
    chan_t *c = &S->chan[s][d];
    if (c->len == CHAN_CAP) {
        SIMFAIL("channel %d->%d overflow", s, d);
        return;
    }
    c->m[(c->head + c->len) % CHAN_CAP] = m;
    c->len++;
    c->nreq += m.is_req;
    c->cred += (m.is_req ? 0 : 1) + m.piggy;
}

static msg_t chan_pop(int s, int d)
{
    chan_t *c = &S->chan[s][d];
    msg_t m = c->m[c->head];
    c->head = (c->head + 1) % CHAN_CAP;
    c->len--;
    c->nreq -= m.is_req;
    c->cred -= (m.is_req ? 0 : 1) + m.piggy;
    return m;
}

/* Every message we build carries our banked credits for its destination. */
static unsigned take_piggy(int s, int d)
{
    unsigned p = gasnetc_credit_piggyback(&S->ep[s].peer[d], GASNETC_CREDIT_WIRE_MAX);
    S->ep[s].model_bank[d] -= (int)p;
    if (S->ep[s].model_bank[d] < 0) SIMFAIL("piggyback %u from %d to %d exceeds the bank", p, s, d);
    return p;
}

static void send_request(int s, int d, unsigned flags, int hops)
{
    if (!(flags & GASNETC_CREDIT_GRANTED)) SIMFAIL("sending a Request %d->%d without credit", s, d);
    if (flags & GASNETC_CREDIT_POST_RBUF) S->ep[s].posted[d]++; /* Reply buffer first */
    msg_t m = {1, 0, (uint16_t)take_piggy(s, d), hops};
    chan_push(s, d, m);
    S->sent_req++;
}

static void send_chain(int s, int d, gasnetc_credit_node_t *chain)
{
    while (chain) {
        gasnetc_credit_node_t *next = chain->next;
        pend_t *p = (pend_t *)chain->item;
        if (p->dst != d) SIMFAIL("backlog of peer %d returned a Request for %d", d, p->dst);
        send_request(s, d, chain->flags, p->hops);
        pend_put(s, p);
        chain = next;
    }
}

static void send_reply(int s, const reply_t *r)
{
    unsigned piggy = r->hidden ? r->piggy : take_piggy(s, r->dst);
    msg_t m = {0, (uint8_t)r->hidden, (uint16_t)piggy, 0};
    chan_push(s, r->dst, m);
    if (r->hidden)
        S->sent_hidden++;
    else
        S->sent_rep++;
}

static void new_request(int s, int d, int hops)
{
    ep_t *e = &S->ep[s];
    S->issued++;
    if (rndn(100) < S->p_immediate) {
        /* GEX_FLAG_IMMEDIATE: take a credit or fail; sometimes cancel. */
        unsigned f = gasnetc_credit_try_acquire(&e->peer[d]);
        if (f && rndn(100) < S->p_cancel) {
            send_chain(s, d, gasnetc_credit_release(&e->peer[d], f));
            f = 0; /* retried below the ordinary way */
        }
        if (f) {
            send_request(s, d, f, hops);
            return;
        }
    }
    pend_t *p = pend_get(s);
    if (!p) return;
    p->dst = d;
    p->hops = hops;
    p->node.item = p;
    unsigned f = gasnetc_credit_acquire(&e->peer[d], &p->node);
    if (f) {
        send_request(s, d, f, hops);
        pend_put(s, p);
    }
}

/* A message from s arrives at d. */
static void deliver(int s, int d)
{
    ep_t *e = &S->ep[d];
    msg_t m = chan_pop(s, d);
    if (e->posted[s] <= 0) {
        SIMFAIL("receiver-not-ready: %s %d->%d found no posted buffer",
                m.is_req ? "Request" : "Reply", s, d);
        return;
    }
    e->posted[s]--;
    if (!m.is_req) {
        send_chain(d, s, gasnetc_credit_receive(&e->peer[s], 1, m.piggy));
        return;
    }
    e->posted[s]++; /* replacement buffer posted before the handler runs */
    S->delivered_req++;
    send_chain(d, s, gasnetc_credit_receive(&e->peer[s], 0, m.piggy));
    int r = rndn(100);
    if (m.hops > 0) r = 100; /* ping-pong: answer with a Request, never a Reply */
    if (r < S->p_reply) {
        reply_t rp = {s, 0, 0};
        send_reply(d, &rp);
    } else if (r < S->p_reply + S->p_delay) {
        if (e->ndelayed == MAXPEND) { SIMFAIL("too many delayed replies at %d", d); return; }
        e->delayed[e->ndelayed++] = (reply_t){s, 0, 0};
        e->held_cred[s] += 1;
    } else {
        unsigned piggy = 9999;
        int expect = e->model_bank[s] + 1 > S->cfg.slack;
        int hidden = gasnetc_credit_unanswered(&e->peer[s], &piggy);
        e->unanswered[s]++;
        if (hidden != expect)
            SIMFAIL("hidden Reply %s at %d for %d with bank %d, slack %d",
                    hidden ? "sent" : "not sent", d, s, e->model_bank[s], S->cfg.slack);
        if (hidden) {
            if ((int)piggy != e->model_bank[s])
                SIMFAIL("hidden Reply carries %u credits, bank held %d", piggy, e->model_bank[s]);
            e->model_bank[s] = 0;
            e->hidden[s]++;
            reply_t rp = {s, 1, piggy};
            if (rndn(100) < S->p_hidden_delay && e->ndelayed < MAXPEND) {
                e->delayed[e->ndelayed++] = rp;
                e->held_cred[s] += 1 + (int)piggy;
            } else {
                send_reply(d, &rp);
            }
        } else {
            e->model_bank[s]++;
        }
    }
    if (m.hops > 0) {
        if (e->nfollow == MAXPEND) { SIMFAIL("too many follow-ups at %d", d); return; }
        e->follow[e->nfollow++] = (follow_t){s, m.hops - 1};
    }
}

static void send_delayed(int s)
{
    ep_t *e = &S->ep[s];
    int i = rndn(e->ndelayed);
    reply_t r = e->delayed[i];
    e->delayed[i] = e->delayed[--e->ndelayed];
    e->held_cred[r.dst] -= 1 + (r.hidden ? (int)r.piggy : 0);
    send_reply(s, &r);
}

static void send_follow(int s)
{
    ep_t *e = &S->ep[s];
    follow_t f = e->follow[0]; /* the poll loop keeps them in order */
    memmove(e->follow, e->follow + 1, (size_t)(--e->nfollow) * sizeof(f));
    new_request(s, f.dst, f.hops);
}

static int drainable(int s)
{
    ep_t *e = &S->ep[s];
    if (gasnetc_credit_total_waiting(&e->total) == 0 || e->total.avail == 0) return 0;
    for (int d = 0; d < S->nep; d++)
        if (d != s && e->peer[d].head && e->peer[d].avail > 0) return 1;
    return 0;
}

static void poll_drain(int s)
{
    for (int d = 0; d < S->nep; d++)
        if (d != s && S->ep[s].peer[d].head)
            send_chain(s, d, gasnetc_credit_drain(&S->ep[s].peer[d]));
}

/* ---- invariants --------------------------------------------------------------------- */
static void check_invariants(void)
{
    const int pp = S->cfg.pp, slack = S->cfg.slack, depth = gasnetc_credit_rq_depth(&S->cfg);
    for (int i = 0; i < S->nep; i++) {
        ep_t *e = &S->ep[i];
        int out = 0, waiting = 0;
        for (int j = 0; j < S->nep; j++) {
            if (j == i) continue;
            const gasnetc_credit_peer_t *P = &e->peer[j], *Q = &S->ep[j].peer[i];
            int cons = P->avail + S->chan[i][j].nreq + S->ep[j].held_cred[i] + Q->bank +
                       S->chan[j][i].cred;
            if (cons != pp)
                SIMFAIL("credits %d->%d not conserved: avail %d + requests %d + held %d + bank %d "
                        "+ returning %d = %d != PP %d", i, j, P->avail, S->chan[i][j].nreq,
                        S->ep[j].held_cred[i], Q->bank, S->chan[j][i].cred, cons, pp);
            if (P->avail < 0 || P->avail > pp) SIMFAIL("avail %d->%d = %d", i, j, P->avail);
            if (S->chan[i][j].nreq > pp)
                SIMFAIL("%d Requests in flight %d->%d exceed PP %d", S->chan[i][j].nreq, i, j, pp);
            if (P->bank < 0 || P->bank > slack)
                SIMFAIL("bank at %d for %d = %d outside 0..slack %d", i, j, P->bank, slack);
            if (P->bank != e->model_bank[j])
                SIMFAIL("bank at %d for %d = %d, expected %d", i, j, P->bank, e->model_bank[j]);
            if (P->rbuf_surplus < 0 || (pp - P->avail) + P->rbuf_surplus > pp)
                SIMFAIL("reply-buffer surplus %d at %d for %d (avail %d)", P->rbuf_surplus, i, j,
                        P->avail);
            if (e->posted[j] != pp + (pp - P->avail) + P->rbuf_surplus)
                SIMFAIL("posted buffers at %d for %d = %d, expected %d", i, j, e->posted[j],
                        pp + (pp - P->avail) + P->rbuf_surplus);
            if (S->chan[j][i].len > e->posted[j])
                SIMFAIL("%d messages in flight %d->%d but only %d buffers posted",
                        S->chan[j][i].len, j, i, e->posted[j]);
            if (e->posted[j] > depth)
                SIMFAIL("posted buffers at %d for %d = %d exceed depth %d", i, j, e->posted[j], depth);
            if (e->hidden[j] * (slack + 1) > e->unanswered[j])
                SIMFAIL("%ld hidden Replies for %ld unanswered Requests (slack %d)", e->hidden[j],
                        e->unanswered[j], slack);
            out += pp - P->avail;
            waiting += P->backlog_len;
        }
        if (e->total.avail < 0 || e->total.avail != e->total.limit - out)
            SIMFAIL("total at %d: avail %d, limit %d, out %d", i, e->total.avail, e->total.limit, out);
        if (gasnetc_credit_total_waiting(&e->total) != waiting)
            SIMFAIL("total waiting at %d = %d, backlogs hold %d", i,
                    gasnetc_credit_total_waiting(&e->total), waiting);
    }
}

/* ---- one run ------------------------------------------------------------------------ */
enum { A_DELIVER, A_INJECT, A_DELAYED, A_FOLLOW, A_DRAIN };
typedef struct {
    int kind, a, b;
} action_t;

static void sim_setup(int nep, const gasnetc_credit_config_t *cfg)
{
    uint64_t seed = S->seed;
    memset(S, 0, sizeof(*S));
    S->seed = seed;
    S->nep = nep;
    S->cfg = *cfg;
    for (int i = 0; i < nep; i++) {
        ep_t *e = &S->ep[i];
        gasnetc_credit_total_init(&e->total, cfg->total);
        for (int j = 0; j < nep; j++) {
            if (j == i) continue;
            gasnetc_credit_init(&e->peer[j], cfg, &e->total);
            e->posted[j] = cfg->pp; /* preposted Request buffers */
        }
        for (int k = POOL - 1; k >= 0; k--) pend_put(i, &e->pool[k]);
    }
}

static int other_than(int s)
{
    int d = rndn(S->nep - 1);
    return d >= s ? d + 1 : d;
}

/* Runs until nothing is enabled.  Returns 0 when every Request was delivered
 * and every credit came home, -1 on failure (S->fail says why). */
static int sim_run(void)
{
    static action_t act[MAXEP * MAXEP + 8 * MAXEP];
    for (S->steps = 0; !S->fail[0]; S->steps++) {
        int n = 0;
        for (int s = 0; s < S->nep; s++) {
            ep_t *e = &S->ep[s];
            for (int d = 0; d < S->nep; d++)
                if (S->chan[s][d].len) act[n++] = (action_t){A_DELIVER, s, d};
            for (int w = 0; e->budget && w < S->w_inject; w++) act[n++] = (action_t){A_INJECT, s, 0};
            if (e->ndelayed) act[n++] = (action_t){A_DELAYED, s, 0};
            if (e->nfollow) act[n++] = (action_t){A_FOLLOW, s, 0};
            if (drainable(s)) act[n++] = (action_t){A_DRAIN, s, 0};
        }
        if (n == 0) break;
        if (S->steps >= STEP_LIMIT) {
            SIMFAIL("no end after %ld steps (livelock)", S->steps);
            break;
        }
        action_t a = act[rndn(n)];
        switch (a.kind) {
        case A_DELIVER: deliver(a.a, a.b); break;
        case A_INJECT: {
            ep_t *e = &S->ep[a.a];
            e->budget--;
            int hops = rndn(100) < S->p_pingpong ? 1 + rndn(S->max_hops) : 0;
            new_request(a.a, other_than(a.a), hops);
            break;
        }
        case A_DELAYED: send_delayed(a.a); break;
        case A_FOLLOW: send_follow(a.a); break;
        case A_DRAIN: poll_drain(a.a); break;
        }
        check_invariants();
    }
    if (S->fail[0]) return -1;
    /* Quiescent: nothing may be stuck. */
    for (int i = 0; i < S->nep; i++)
        for (int j = 0; j < S->nep; j++) {
            if (j == i) continue;
            const gasnetc_credit_peer_t *P = &S->ep[i].peer[j];
            if (P->backlog_len)
                SIMFAIL("deadlock: %d Requests %d->%d wait for credit forever (avail %d, total %d)",
                        P->backlog_len, i, j, P->avail, S->ep[i].total.avail);
            else if (P->avail + S->ep[j].peer[i].bank != S->cfg.pp)
                SIMFAIL("credits %d->%d not home at the end: avail %d + bank %d", i, j, P->avail,
                        S->ep[j].peer[i].bank);
        }
    if (!S->fail[0] && S->delivered_req != S->issued)
        SIMFAIL("%ld Requests issued, %ld delivered", S->issued, S->delivered_req);
    if (!S->fail[0] && S->sent_req != S->issued)
        SIMFAIL("%ld Requests issued, %ld sent", S->issued, S->sent_req);
    for (int i = 0; i < S->nep; i++)
        for (int j = 0; j < S->nep; j++)
            if (j != i && gasnetc_credit_fini(&S->ep[i].peer[j]) != 0)
                SIMFAIL("fini %d->%d: backlog not empty", i, j);
    return S->fail[0] ? -1 : 0;
}

/* ---- scenarios ---------------------------------------------------------------------- */
static long tot_steps, tot_req, tot_hidden, tot_unanswered, nfail_seeds;

static void report_fail(const char *what)
{
    nfail_seeds++;
    if (nfail_seeds <= 10)
        printf("FAIL %s seed=%llu nep=%d pp=%d total=%d slack=%d step=%ld: %s\n", what,
               (unsigned long long)S->seed, S->nep, S->cfg.pp, S->cfg.total, S->cfg.slack,
               S->steps, S->fail);
}

/* Random endpoints, parameters and handler behaviour, chosen by the seed. */
static void random_run(uint64_t seed)
{
    static const int pps[] = {1, 1, 2, 2, 3, 4, 5, 8, 12};
    rng = seed * 0x2545f4914f6cdd1dULL + 1;
    int nep = 2 + rndn(MAXEP - 1);
    int pp = pps[rndn((int)(sizeof(pps) / sizeof(pps[0])))];
    int slack_req = rndn(pp + 2);
    int total_req = -1;
    switch (rndn(4)) {
    case 0: total_req = -1; break;
    case 1: total_req = 0; break;
    case 2: total_req = 1 + rndn(2); break;
    default: total_req = 1 + rndn((nep - 1) * pp); break;
    }
    int hca_max = rndn(3) ? 0 : 1 + rndn(32);
    gasnetc_credit_config_t cfg;
    char why[200];
    if (gasnetc_credit_config_resolve(&cfg, pp, total_req, slack_req, nep - 1, hca_max, why,
                                      sizeof(why)) != 0) {
        nfail_seeds++;
        printf("FAIL seed=%llu: resolve refused valid input: %s\n", (unsigned long long)seed, why);
        return;
    }
    S->seed = seed;
    sim_setup(nep, &cfg);
    S->p_reply = rndn(101);
    S->p_delay = rndn(101 - S->p_reply);
    S->p_hidden_delay = rndn(101);
    S->p_immediate = rndn(3) ? 0 : rndn(60);
    S->p_cancel = rndn(50);
    S->p_pingpong = rndn(3) ? rndn(40) : 0;
    S->max_hops = 1 + rndn(8);
    S->w_inject = 1 + rndn(4);
    for (int i = 0; i < nep; i++) S->ep[i].budget = rndn(4) ? rndn(120) : 0;
    if (sim_run() != 0) report_fail("random");
    tot_steps += S->steps;
    tot_req += S->sent_req;
    tot_hidden += S->sent_hidden;
    for (int i = 0; i < nep; i++)
        for (int j = 0; j < nep; j++) tot_unanswered += S->ep[i].unanswered[j];
}

/* Request-request ping-pong between two endpoints: chains Requests that are
 * answered only by new Requests.  Returns the messages sent per Request. */
static double pingpong_run(uint64_t seed, int pp, int slack, int chains, int hops)
{
    gasnetc_credit_config_t cfg;
    char why[200];
    rng = seed * 0x9e3779b97f4a7c15ULL + 7;
    if (gasnetc_credit_config_resolve(&cfg, pp, -1, slack, 1, 0, why, sizeof(why)) != 0) {
        printf("FAIL ping-pong setup: %s\n", why);
        failures++;
        return 0;
    }
    S->seed = seed;
    sim_setup(2, &cfg);
    S->p_reply = 0;
    S->p_delay = 0;
    S->p_hidden_delay = 50;
    S->w_inject = 1;
    for (int c = 0; c < chains; c++) new_request(c % 2, 1 - c % 2, hops);
    if (sim_run() != 0) {
        report_fail("ping-pong");
        return 0;
    }
    long msgs = S->sent_req + S->sent_rep + S->sent_hidden;
    return (double)msgs / (double)S->sent_req;
}

/* The slack reduction is needed: with 2 peers, TOTAL 2 and slack 1 (not
 * reduced), two unanswered Requests bank every credit of the process and a
 * third Request can never be sent.  The simulator must call it a deadlock;
 * with the resolved slack the same schedule completes. */
static void negative_control(void)
{
    gasnetc_credit_config_t bad = {2, 2, 1}, good;
    char why[200];
    for (int pass = 0; pass < 2; pass++) {
        const gasnetc_credit_config_t *cfg = &bad;
        if (pass == 1) {
            CHECK_QUIET(gasnetc_credit_config_resolve(&good, 2, 2, 1, 2, 0, why, sizeof(why)) == 0,
                  "resolve pp=2 total=2 slack=1: %s", why);
            cfg = &good;
        }
        S->seed = 0;
        rng = 1;
        sim_setup(3, cfg);
        S->p_reply = 0;
        S->p_delay = 0;
        S->w_inject = 1;
        new_request(0, 1, 0);
        new_request(0, 2, 0);
        deliver(0, 1);
        deliver(0, 2);
        new_request(0, 1, 0);
        int rc = sim_run();
        if (pass == 0)
            CHECK_QUIET(rc != 0 && strstr(S->fail, "deadlock") != NULL,
                  "unreduced slack must deadlock and be detected (got: %s)",
                  S->fail[0] ? S->fail : "completed");
        else
            CHECK_QUIET(rc == 0, "reduced slack %d must complete (got: %s)", good.slack, S->fail);
    }
    printf("ok negative control: slack 1 with TOTAL 2 over 2 peers deadlocks and is detected;"
           " resolved slack %d completes\n", good.slack);
}

static void policy_checks(void)
{
    gasnetc_credit_config_t c;
    char why[200] = "";
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 12, -1, 1, 3, 0, why, sizeof(why)) == 0 &&
              c.pp == 12 && c.total == 36 && c.slack == 1,
          "defaults for 4 processes: pp %d total %d slack %d", c.pp, c.total, c.slack);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 12, -1, 1, 63, 0, why, sizeof(why)) == 0 &&
              c.total == 256 && c.slack == 1,
          "TOTAL default capped at 256: total %d slack %d", c.total, c.slack);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 12, -1, 1, 511, 0, why, sizeof(why)) == 0 &&
              c.total == 256 && c.slack == 0,
          "slack reduced to 0 when 511 peers share 256 credits: slack %d", c.slack);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 4, -1, 9, 1, 0, why, sizeof(why)) == 0 && c.slack == 3,
          "slack reduced to PP-1: %d", c.slack);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 12, 0, 1, 7, 50, why, sizeof(why)) == 0 &&
              c.total == 50,
          "TOTAL=0 means the most the HCA allows: %d", c.total);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 2, 1000, 1, 3, 0, why, sizeof(why)) == 0 && c.total == 6,
          "TOTAL above npeers*PP is clamped: %d", c.total);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 1, -1, 1, 0, 0, why, sizeof(why)) == 0 && c.total >= 1 &&
              c.slack == 0,
          "no network peers: total %d slack %d", c.total, c.slack);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 0, -1, 1, 3, 0, why, sizeof(why)) != 0 &&
              strstr(why, "GASNET_AM_CREDITS_PP=0") != NULL,
          "PP=0 rejected naming the variable: '%s'", why);
    CHECK_QUIET(gasnetc_credit_config_resolve(&c, 4, -1, -1, 3, 0, why, sizeof(why)) != 0 &&
              strstr(why, "GASNET_AM_CREDITS_SLACK=-1") != NULL,
          "SLACK=-1 rejected naming the variable: '%s'", why);
    CHECK_QUIET(gasnetc_credit_slack_max(256, 256, 1) == 255, "slack fits the 8-bit credits field");
    c.pp = 12;
    CHECK_QUIET(gasnetc_credit_rq_depth(&c) == 24, "receive-queue depth 2*PP");
    printf("ok credit policy: defaults, TOTAL clamping, slack reduction, range errors\n");
}

int main(int argc, char **argv)
{
    long nseeds = argc > 1 ? atol(argv[1]) : 2000;
    uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    S = calloc(1, sizeof(*S));
    if (!S) {
        printf("SKIP: cannot allocate %zu bytes for the simulator\n", sizeof(*S));
        return 77;
    }
    clock_t t0 = clock();
    policy_checks();

    long fails_before = nfail_seeds;
    for (long k = 0; k < nseeds; k++) random_run(first + (uint64_t)k);
    CHECK_QUIET(nfail_seeds == fails_before, "%ld of %ld random seeds failed", nfail_seeds - fails_before,
          nseeds);
    printf("%s random schedules: seeds %llu..%llu, 2..8 endpoints, %ld steps, %ld Requests, "
           "%ld hidden Replies for %ld unanswered; invariants checked after every step\n",
           nfail_seeds == fails_before ? "ok" : "FAIL", (unsigned long long)first,
           (unsigned long long)(first + (uint64_t)nseeds - 1), tot_steps, tot_req, tot_hidden,
           tot_unanswered);

    /* PP=1, slack 0: the tightest window still ends. */
    fails_before = nfail_seeds;
    for (uint64_t sd = 1; sd <= 200; sd++) pingpong_run(sd, 1, 0, 1 + (int)(sd % 4), 40);
    CHECK_QUIET(nfail_seeds == fails_before, "PP=1 slack 0 ping-pong failed");
    printf("%s PP=1 slack=0 request-request ping-pong, 1..4 chains x 40 hops: no deadlock\n",
           nfail_seeds == fails_before ? "ok" : "FAIL");

    /* Ping-pong with the default slack: credits ride on the Requests. */
    double worst1 = 0, worstn = 0, ratio0 = 0;
    for (uint64_t sd = 1; sd <= 200; sd++) {
        double r1 = pingpong_run(sd, 12, 1, 1, 200);
        if (r1 > worst1) worst1 = r1;
        CHECK_QUIET(S->sent_hidden == 0 && S->sent_rep == 0,
              "one ping-pong chain sent %ld hidden Replies (seed %llu)", S->sent_hidden,
              (unsigned long long)sd);
        double rn = pingpong_run(sd, 12, 1, 2 + (int)(sd % 7), 200);
        if (rn > worstn) worstn = rn;
        CHECK_QUIET(rn < 2.0 && rn <= 1.5 + 1e-9, "ping-pong doubled the messages: %.3f per Request "
              "(seed %llu)", rn, (unsigned long long)sd);
    }
    ratio0 = pingpong_run(1, 12, 0, 1, 200);
    printf("%s request-request ping-pong, slack 1: %.3f messages per Request with one chain, "
           "at most %.3f with 2..8 chains (slack 0 costs %.3f)\n",
           worst1 <= 1.0 && worstn <= 1.5 ? "ok" : "FAIL", worst1, worstn, ratio0);

    negative_control();

    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("%s %d checks, %d failed, %.2f s\n", failures ? "FAIL" : "ok", checks, failures, secs);
    free(S);
    return failures ? 1 : 0;
}
