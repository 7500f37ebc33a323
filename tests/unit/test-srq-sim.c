/* tests/unit/test-srq-sim.c: the SRQ mode's no-RNR claim, simulated.
 *
 * 2..8 endpoints run the real credit protocol (core/am/credit.c and
 * credit_policy.c) with the credits and the SRQ size that core/ibv/
 * srq_plan.c chooses for a random GASNET_RBUF_COUNT.  Each endpoint has
 * ONE receive buffer count shared by all its peers (the SRQ): a message
 * arriving takes a buffer (none left = RNR: the test fails), and sits
 * "arrived, not yet processed" for a random time (the CPU lags behind the
 * HCA).  Processing it first reposts a buffer (a spare, or the same buffer
 * after copying the message out: both put one back on the SRQ), then
 * counts its credits, then runs the handler: Requests get a Reply at once,
 * or none (bank / hidden Reply).  As the SRQ mode does, no Reply buffer is
 * posted per Request.  Channels are FIFO per directed pair (RC).  At the
 * end every Request must have been delivered.
 * Negative control: with one buffer fewer than the plan on every SRQ, some
 * seeds must hit an RNR (else the test could not see one).
 * Usage: test-srq-sim [nseeds [first-seed]].
 */
#include "core/am/credit.h"
#include "core/ibv/mem/srq_plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit-check.h"

#define MAXEP 8
#define CHAN_CAP 4096

static uint64_t rng;
static uint64_t rnd64(void)
{
    return unit_splitmix64(&rng);
}
static int rndn(int n) { return (int)(rnd64() % (uint64_t)n); }

typedef struct {
    uint8_t is_req, hidden;
    uint16_t piggy;
    uint8_t src;
} msg_t;

typedef struct {
    msg_t m[CHAN_CAP];
    int head, len;
} chan_t;

static int nep;
static chan_t chan[MAXEP][MAXEP];      /* in flight src -> dst */
static msg_t arrived[MAXEP][CHAN_CAP]; /* took an SRQ buffer, not processed */
static int narrived[MAXEP];
static int posted[MAXEP];              /* buffers on each endpoint's SRQ */
static gasnetc_credit_peer_t peer[MAXEP][MAXEP];
static gasnetc_credit_total_t total[MAXEP];
static long injected, delivered, rnr;

static void push(int s, int d, msg_t m)
{
    chan_t *c = &chan[s][d];
    if (c->len == CHAN_CAP) { fprintf(stderr, "channel overflow\n"); exit(2); }
    m.src = (uint8_t)s;
    c->m[(c->head + c->len++) % CHAN_CAP] = m;
}

static void send_msg(int s, int d, int is_req, int hidden, unsigned extra)
{
    msg_t m;
    memset(&m, 0, sizeof(m));
    m.is_req = (uint8_t)is_req;
    m.hidden = (uint8_t)hidden;
    m.piggy = (uint16_t)(hidden ? extra : gasnetc_credit_piggyback(&peer[s][d], GASNETC_CREDIT_WIRE_MAX));
    push(s, d, m);
}

static void send_chain(int s, int d, gasnetc_credit_node_t *n)
{
    while (n) {
        gasnetc_credit_node_t *next = n->next;
        send_msg(s, d, 1, 0, 0);
        free(n);
        n = next;
    }
}

static void process(int e, int i)
{
    msg_t m = arrived[e][i];
    arrived[e][i] = arrived[e][--narrived[e]];
    posted[e]++; /* replacement (spare or the copied-out buffer itself) */
    int s = m.src;
    send_chain(e, s, gasnetc_credit_receive(&peer[e][s], !m.is_req, m.piggy));
    if (!m.is_req) return;
    delivered++;
    if (rndn(2)) {
        send_msg(e, s, 0, 0, 0);
    } else {
        unsigned bank;
        if (gasnetc_credit_unanswered(&peer[e][s], &bank)) send_msg(e, s, 0, 1, bank);
    }
}

/* Frees the Requests still waiting in the backlogs of a run ended early. */
static void free_backlogs(void)
{
    for (int e = 0; e < nep; e++)
        for (int d = 0; d < nep; d++) {
            gasnetc_credit_node_t *n = peer[e][d].head;
            while (n) {
                gasnetc_credit_node_t *next = n->next;
                free(n);
                n = next;
            }
            peer[e][d].head = peer[e][d].tail = NULL;
        }
}

/* One seed; returns 0 if skipped (plan refused), else 1; counts RNRs. */
static int run(uint64_t seed, int short_by, long requests)
{
    rng = seed;
    nep = 2 + rndn(MAXEP - 1);
    gasnetc_srq_in_t in;
    memset(&in, 0, sizeof(in));
    in.use_srq = 1;
    in.rbuf_count = nep + rndn(12 * nep);
    in.job_size = (uint32_t)nep;
    in.nres = 1;
    in.nceps[0] = nep - 1;
    in.pp = 1 + rndn(12);
    in.total = 1 + rndn(in.pp * (nep - 1));
    in.spares = rndn(3);
    in.max_srq_wr = 1 << 14;
    gasnetc_srq_plan_t p;
    char why[512];
    if (gasnetc_srq_plan(&in, &p, why, sizeof(why)) != 0 || !p.use) return 0;
    gasnetc_credit_config_t cfg;
    if (gasnetc_credit_config_resolve(&cfg, p.pp, p.total, rndn(3), nep - 1, 1 << 20, why,
                                      sizeof(why)) != 0)
        return 0;
    memset(chan, 0, sizeof(chan));
    memset(narrived, 0, sizeof(narrived));
    for (int e = 0; e < nep; e++) {
        posted[e] = p.posted[0] - short_by;
        gasnetc_credit_total_init(&total[e], cfg.total);
        for (int d = 0; d < nep; d++) gasnetc_credit_init(&peer[e][d], &cfg, &total[e]);
    }
    long todo = requests, steps = 0;
    for (;;) {
        if (++steps > 50000000L) {
            fprintf(stderr, "seed %llu: no progress\n", (unsigned long long)seed);
            free_backlogs();
            return -1;
        }
        int a = rndn(10);
        if (a < 3 && todo > 0) { /* inject */
            int s = rndn(nep), d = rndn(nep - 1);
            if (d >= s) d++;
            gasnetc_credit_node_t *n = calloc(1, sizeof(*n));
            todo--;
            injected++;
            if (gasnetc_credit_acquire(&peer[s][d], n)) {
                free(n);
                send_msg(s, d, 1, 0, 0);
            }
            continue;
        }
        if (a < 7) { /* the HCA: one message arrives, takes an SRQ buffer */
            int s = rndn(nep), d = rndn(nep);
            chan_t *c = &chan[s][d];
            if (!c->len) goto other;
            msg_t m = c->m[c->head];
            c->head = (c->head + 1) % CHAN_CAP;
            c->len--;
            if (posted[d] == 0) {
                rnr++;
                free_backlogs();
                return 1;
            }
            posted[d]--;
            arrived[d][narrived[d]++] = m;
            continue;
        }
        if (a < 9) { /* the CPU: one arrived message processed */
            int e = rndn(nep);
            if (narrived[e]) process(e, rndn(narrived[e]));
            continue;
        }
    other: /* poll loop: drain backlogs blocked by the total */
        for (int e = 0; e < nep; e++)
            if (gasnetc_credit_total_waiting(&total[e]) > 0)
                for (int d = 0; d < nep; d++) send_chain(e, d, gasnetc_credit_drain(&peer[e][d]));
        int busy = todo > 0;
        for (int e = 0; e < nep && !busy; e++) {
            busy = narrived[e] > 0;
            for (int d = 0; d < nep && !busy; d++) busy = chan[e][d].len > 0 || peer[e][d].backlog_len > 0;
        }
        if (!busy) break;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 400;
    uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    int ran = 0, bad = 0;
    for (int i = 0; i < nseeds; i++) {
        injected = delivered = rnr = 0;
        int r = run(first + (uint64_t)i, 0, 2000);
        if (r <= 0) { bad += r < 0; continue; }
        ran++;
        if (rnr || delivered != injected) {
            bad++;
            printf("FAIL seed %llu: %ld RNR, %ld of %ld Requests delivered\n",
                   (unsigned long long)(first + (uint64_t)i), rnr, delivered, injected);
        }
    }
    CHECK(bad == 0 && ran > nseeds / 2, "%d seeds with the planned SRQ size: no RNR, every Request "
          "delivered (%d failures)", ran, bad);
    int hit = 0, neg = 0;
    for (int i = 0; i < nseeds; i++) {
        injected = delivered = rnr = 0;
        if (run(first + (uint64_t)i, 1, 2000) > 0) {
            neg++;
            hit += rnr > 0;
        }
    }
    CHECK(hit > 0, "negative control: one buffer short of the plan, %d of %d seeds hit an RNR",
          hit, neg);
    return unit_summary("test-srq-sim");
}
