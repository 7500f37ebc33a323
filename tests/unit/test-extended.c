/* tests/unit/test-extended.c: Extended API logic that needs no job.
 *
 * - event objects: pool reuse (no allocation after warm-up), operation and
 *   local-completion counters as a transport drives them, leaf queries;
 * - NBI: per-category counters of the default set, access regions (also
 *   nested), empty regions;
 * - value encoding of the RMA Val forms;
 * - barrier values: the lattice join and the GASNet-1 wait/result rules
 *   (cases from the GASNet-1 spec and the 1.20 relaxation);
 * - the dissemination engine: many simulated ranks in one process, messages
 *   delivered in random order, several barriers in flight, named/anonymous/
 *   mismatch contributions, the in-flight window.
 *
 * Prints one line per check; exits 0 only if every check passed.
 */
#include "extended/extended_internal.h"
#include "extended/barrier.h"
#include "extended/barrier_rdma.h"

#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0, checks = 0;

static void check(int ok, const char *what)
{
    checks++;
    if (!ok) failures++;
    printf("%s - %s\n", ok ? "ok" : "FAIL", what);
}

/* ---- events ------------------------------------------------------------------- */

static void test_pool(void)
{
    enum { N = 300 };
    gasnete_threaddata_t *td = gasnete_mythread();
    gasnete_op_t *first[N];
    for (int i = 0; i < N; i++) first[i] = gasnete_op_alloc(td);
    for (int i = 0; i < N; i++) gasnete_op_free(first[i]);
    int reused = 1;
    gasnete_op_t *again[N];
    for (int i = 0; i < N; i++) {
        again[i] = gasnete_op_alloc(td);
        int found = 0;
        for (int j = 0; j < N && !found; j++) found = (again[i] == first[j]);
        reused &= found;
    }
    check(reused, "op pool: after warm-up every allocation reuses a freed op");
    int fresh = 1;
    for (int i = 0; i < N; i++)
        fresh &= again[i]->ev.kind == GASNETE_EV_OP && again[i]->lc_ev.kind == GASNETE_EV_FREE &&
                 gasnete_op_complete(again[i]);
    check(fresh, "op pool: allocated ops are roots with zero counters and no leaf");
    for (int i = 0; i < N; i++) gasnete_op_free(again[i]);
}

static void test_op_completion(void)
{
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    gasnete_cmpl_t c = {&op->op, &op->lc};
    gex_Event_t leaf = gasnete_op_enable_lc(op);
    gex_Event_t root = &op->ev;
    gasnete_cmpl_begin(&c, 3); /* a transfer split into 3 pieces */
    check(gasnete_event_test(root, "t") == GASNET_ERR_NOT_READY, "NB op: root not ready at start");
    check(gasnete_event_test(leaf, "t") == GASNET_ERR_NOT_READY, "NB op: leaf not ready at start");
    check(gex_Event_QueryLeaf(root, GEX_EC_LC) == leaf, "QueryLeaf(root, LC) returns the lc leaf");
    check(gex_Event_QueryLeaf(root, GEX_EC_LC) == leaf, "QueryLeaf is stable across calls");
    for (int i = 0; i < 3; i++) gasnete_cmpl_lc_done(&c);
    check(gasnete_event_test(leaf, "t") == GASNET_OK, "NB op: leaf done after 3 lc_done");
    check(gasnete_event_test(leaf, "t") == GASNET_OK, "NB op: leaf test does not consume it");
    gasnete_cmpl_op_done(&c);
    gasnete_cmpl_op_done(&c);
    check(gasnete_event_test(root, "t") == GASNET_ERR_NOT_READY, "NB op: root waits for piece 3");
    gasnete_cmpl_op_done(&c);
    check(gasnete_event_test(root, "t") == GASNET_OK, "NB op: root done after 3 op_done");
    check(op->ev.kind == GASNETE_EV_FREE, "NB op: successful root test recycles the op");
    check(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID,
          "QueryLeaf(GEX_EVENT_INVALID) is GEX_EVENT_INVALID");

    /* Root complete only when both operation and tracked lc are done. */
    op = gasnete_op_alloc(gasnete_mythread());
    gasnete_cmpl_t c2 = {&op->op, &op->lc};
    gasnete_cmpl_begin(&c2, 1);
    gasnete_cmpl_op_done(&c2);
    check(gasnete_event_test(&op->ev, "t") == GASNET_ERR_NOT_READY,
          "NB op: root not done while its tracked lc is pending");
    gasnete_cmpl_lc_done(&c2);
    check(gasnete_event_test(&op->ev, "t") == GASNET_OK, "NB op: root done once lc is done");

    /* Core AM lc event service. */
    gasnete_cmpl_t c3;
    gex_Event_t ev = gasnete_event_new(&c3);
    gasnete_cmpl_begin(&c3, 1);
    check(gasnete_event_test(ev, "t") == GASNET_ERR_NOT_READY, "event_new: pending after begin");
    gasnete_cmpl_op_done(&c3);
    check(gasnete_event_test(ev, "t") == GASNET_OK, "event_new: done after op_done");
}

/* gasneti_events_live (kept outside PAR builds; this test is a SEQ build):
 * every op or access region allocated counts until it is freed, so at 0 the
 * inline WaitAll/TestAll of gasnet_pshm_inline.h may skip the array. */
static void test_live_count(void)
{
    size_t base = gasneti_events_live;
    gasnete_cmpl_t c;
    gex_Event_t ev = gasnete_event_new(&c);
    gasnete_cmpl_begin(&c, 1);
    check(gasneti_events_live == base + 1, "live count: an NB op's event counts");
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    gex_Event_t leaf = gasnete_op_enable_lc(op);
    check(gasneti_events_live == base + 2, "live count: an op with a leaf counts once");
    gasnete_cmpl_op_done(&c);
    check(gasnete_event_test(ev, "t") == GASNET_OK && gasneti_events_live == base + 1,
          "live count: a successful test gives the event back");
    check(gasnete_event_test(leaf, "t") == GASNET_OK && gasneti_events_live == base + 1,
          "live count: testing a leaf keeps its root counted");
    check(gasnete_event_test(&op->ev, "t") == GASNET_OK && gasneti_events_live == base,
          "live count: the root's test gives it back");

    gex_NBI_BeginAccessRegion(0);
    check(gasneti_events_live == base + 1, "live count: an open access region counts");
    check(gex_NBI_EndAccessRegion(0) == GEX_EVENT_INVALID && gasneti_events_live == base,
          "live count: an empty region ends uncounted");
    gex_NBI_BeginAccessRegion(0);
    gasnete_cmpl_t g = {&gasnete_current_iop(gasnete_mythread())->get, NULL};
    gasnete_cmpl_begin(&g, 1);
    gex_Event_t rev = gex_NBI_EndAccessRegion(0);
    check(rev != GEX_EVENT_INVALID && gasneti_events_live == base + 1,
          "live count: a pending region's event counts");
    gasnete_cmpl_op_done(&g);
    check(gasnete_event_test(rev, "t") == GASNET_OK && gasneti_events_live == base,
          "live count: the region event's test gives it back");
}

/* ---- NBI ---------------------------------------------------------------------- */

static void test_nbi(void)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    gasnete_iop_t *iop = gasnete_current_iop(td);
    check(iop == &td->default_iop, "NBI: outside regions ops join the default set");
    check(gasnete_nbi_test(GEX_EC_ALL, "t") == GASNET_OK, "NBI: nothing outstanding is done");

    gasnete_cmpl_t put = {&iop->put, &iop->lc}; /* PutNBI with GEX_EVENT_GROUP */
    gasnete_cmpl_t get = {&iop->get, NULL};
    gasnete_cmpl_begin(&put, 2);
    gasnete_cmpl_begin(&get, 1);
    check(gasnete_nbi_test(GEX_EC_PUT, "t") == GASNET_ERR_NOT_READY, "NBI: puts pending");
    check(gasnete_nbi_test(GEX_EC_GET, "t") == GASNET_ERR_NOT_READY, "NBI: gets pending");
    check(gasnete_nbi_test(GEX_EC_RMW, "t") == GASNET_OK, "NBI: a category without ops is done");
    /* GASNet-EX's categories: GEX_EC_AM is GEX_EC_LC, the puts' LC counts. */
    check(gasnete_nbi_test(GEX_EC_AM, "t") == GASNET_ERR_NOT_READY,
          "NBI: GEX_EC_AM (= GEX_EC_LC) waits for the puts' local completion");
    gasnete_cmpl_op_done(&get);
    check(gasnete_nbi_test(GEX_EC_GET, "t") == GASNET_OK, "NBI: gets done independently of puts");
    gasnete_cmpl_lc_done(&put);
    gasnete_cmpl_lc_done(&put);
    check(gasnete_nbi_test(GEX_EC_LC, "t") == GASNET_OK, "NBI: LC done before puts complete");
    check(gasnete_nbi_test(GEX_EC_PUT, "t") == GASNET_ERR_NOT_READY,
          "NBI: GEX_EC_PUT still waits for the puts' remote completion");
    gasnete_cmpl_t am = {&iop->am_lc, NULL}; /* an AM's LC with GEX_EVENT_GROUP */
    gasnete_cmpl_begin(&am, 1);
    check(gasnete_nbi_test(GEX_EC_LC, "t") == GASNET_ERR_NOT_READY,
          "NBI: GEX_EC_LC (= GEX_EC_AM) waits for an AM's local completion");
    gasnete_cmpl_op_done(&am);
    check(gasnete_nbi_test(GEX_EC_AM, "t") == GASNET_OK, "NBI: the AM's LC done");
    check(gasnete_nbi_test(GEX_EC_ALL, "t") == GASNET_ERR_NOT_READY, "NBI: ALL waits for puts");
    gasnete_cmpl_op_done(&put);
    gasnete_cmpl_op_done(&put);
    check(gasnete_nbi_test(GEX_EC_ALL, "t") == GASNET_OK, "NBI: ALL done");
}

static void test_regions(void)
{
    gasnete_threaddata_t *td = gasnete_mythread();
    gex_NBI_BeginAccessRegion(0);
    check(gex_NBI_EndAccessRegion(0) == GEX_EVENT_INVALID,
          "region: an empty region ends as GEX_EVENT_INVALID");

    gex_NBI_BeginAccessRegion(0);
    gasnete_iop_t *outer = gasnete_current_iop(td);
    check(outer != &td->default_iop, "region: ops inside join the region");
    gasnete_cmpl_t a = {&outer->put, NULL};
    gasnete_cmpl_begin(&a, 1);

    gex_NBI_BeginAccessRegion(0); /* nested */
    gasnete_iop_t *inner = gasnete_current_iop(td);
    gasnete_cmpl_t b = {&inner->get, NULL};
    gasnete_cmpl_begin(&b, 1);
    gex_Event_t ev_inner = gex_NBI_EndAccessRegion(0);
    check(gasnete_current_iop(td) == outer, "region: ending the inner region restores the outer");
    gex_Event_t ev_outer = gex_NBI_EndAccessRegion(0);
    check(gasnete_current_iop(td) == &td->default_iop, "region: all ended, default set again");
    check(gasnete_nbi_test(GEX_EC_ALL, "t") == GASNET_OK,
          "region: region ops are not in the default NBI set");
    check(gasnete_event_test(ev_outer, "t") == GASNET_ERR_NOT_READY, "region: outer pending");
    check(gasnete_event_test(ev_inner, "t") == GASNET_ERR_NOT_READY, "region: inner pending");
    gasnete_cmpl_op_done(&b);
    check(gasnete_event_test(ev_inner, "t") == GASNET_OK, "region: inner done with its own op");
    check(gasnete_event_test(ev_outer, "t") == GASNET_ERR_NOT_READY,
          "region: outer does not cover the inner region's op");
    check(gex_Event_QueryLeaf(ev_outer, GEX_EC_LC) == GEX_EVENT_INVALID,
          "region: LC leaf of a region event is GEX_EVENT_INVALID (already happened)");
    gasnete_cmpl_op_done(&a);
    check(gasnete_event_test(ev_outer, "t") == GASNET_OK, "region: outer done");
}

/* ---- values ------------------------------------------------------------------- */

static void test_values(void)
{
    int ok = 1;
    for (size_t n = 1; n <= 8; n++) {
        gex_RMA_Value_t v = 0x0102030405060708ULL;
        unsigned char buf[8] = {0};
        gasnete_value_store(buf, v, n);
        gex_RMA_Value_t mask = (n == 8) ? ~(gex_RMA_Value_t)0 : (((gex_RMA_Value_t)1 << (8 * n)) - 1);
        ok &= gasnete_value_load(buf, n) == (v & mask);
    }
    uint32_t u32 = 0;
    gasnete_value_store(&u32, 0xdeadbeefULL, 4);
    ok &= (u32 == 0xdeadbeefU);
    uint16_t u16 = 0;
    gasnete_value_store(&u16, 0x1234ULL, 2);
    ok &= (u16 == 0x1234U) && gasnete_value_load(&u16, 2) == 0x1234U;
    check(ok, "Val forms: nbytes 1..8 round-trip as native integers of that width");
}

/* ---- barrier values ------------------------------------------------------------ */

static gasnete_bval_t bv(uint32_t kind, int32_t id)
{
    gasnete_bval_t v = {kind, id};
    return v;
}
static int bv_eq(gasnete_bval_t a, gasnete_bval_t b)
{
    return a.kind == b.kind && (a.kind != GASNETE_BV_NAMED || a.id == b.id);
}

static void test_bvals(void)
{
    gasnete_bval_t A = bv(GASNETE_BV_ANON, 0), N5 = bv(GASNETE_BV_NAMED, 5),
                   N6 = bv(GASNETE_BV_NAMED, 6), M = bv(GASNETE_BV_MISMATCH, 0);
    gasnete_bval_t all[] = {A, N5, N6, M};
    int lattice = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            lattice &= bv_eq(gasnete_bval_join(all[i], all[j]), gasnete_bval_join(all[j], all[i]));
            lattice &= bv_eq(gasnete_bval_join(all[i], all[i]), all[i]);
            for (int k = 0; k < 4; k++)
                lattice &= bv_eq(gasnete_bval_join(gasnete_bval_join(all[i], all[j]), all[k]),
                                 gasnete_bval_join(all[i], gasnete_bval_join(all[j], all[k])));
        }
    check(lattice, "bval join: commutative, idempotent, associative");
    check(bv_eq(gasnete_bval_join(A, N5), N5), "bval: anonymous joins a name");
    check(bv_eq(gasnete_bval_join(N5, N6), M), "bval: two names mismatch");
    check(bv_eq(gasnete_bval_join(N5, M), M), "bval: mismatch absorbs");

    check(bv_eq(gasnete_bval_from_notify(7, 0), bv(GASNETE_BV_NAMED, 7)), "notify: flags 0 is named");
    check(bv_eq(gasnete_bval_from_notify(7, GASNET_BARRIERFLAG_ANONYMOUS), A), "notify: ANONYMOUS");
    check(bv_eq(gasnete_bval_from_notify(7, GASNET_BARRIERFLAG_UNNAMED), A), "notify: UNNAMED");
    check(bv_eq(gasnete_bval_from_notify(7, GASNET_BARRIERFLAG_MISMATCH), M), "notify: MISMATCH");

    const int OK = GASNET_OK, MM = GASNET_ERR_BARRIER_MISMATCH, ANONF = GASNET_BARRIERFLAG_ANONYMOUS;
    check(gasnete_bval_wait_rc(N5, 5, 0) == OK, "wait: matching names");
    check(gasnete_bval_wait_rc(N5, 6, 0) == MM, "wait: named wait differs from the barrier's name");
    check(gasnete_bval_wait_rc(A, 6, 0) == OK, "wait: anonymous notify everywhere, named wait");
    check(gasnete_bval_wait_rc(N5, 6, ANONF) == OK, "wait: named notify, anonymous wait");
    check(gasnete_bval_wait_rc(M, 5, 0) == MM, "wait: a MISMATCH notify anywhere fails everywhere");
    check(gasnete_bval_wait_rc(N5, 5, GASNET_BARRIERFLAG_MISMATCH) == MM, "wait: MISMATCH flag at wait");
    int id = -1;
    check(gasnete_bval_result_flags(N5, OK, &id) == 0 && id == 5, "result: named barrier gives 0 and the id");
    check(gasnete_bval_result_flags(A, OK, &id) == ANONF, "result: all-anonymous gives ANONYMOUS");
    check(gasnete_bval_result_flags(N5, MM, &id) == GASNET_BARRIERFLAG_MISMATCH, "result: mismatch");
}

/* ---- dissemination engine simulation ---------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

typedef struct {
    uint32_t src;
    gasnete_bar_msg_t m;
} simmsg_t;

/* Runs `nbar` barriers on n simulated ranks, contributions from val(rank,
 * barrier); ranks start barriers at random moments; messages are delivered
 * in random order.  Returns 1 if every rank completes every barrier exactly
 * once with the expected joined result. */
static int simulate(uint32_t n, uint32_t nbar, gasnete_bval_t (*val)(uint32_t, uint32_t))
{
    gasnete_bar_t *b = calloc(n, sizeof(*b));
    uint32_t *started = calloc(n, sizeof(uint32_t)), *completed = calloc(n, sizeof(uint32_t));
    uint32_t *seen = calloc((size_t)n * nbar, sizeof(uint32_t)); /* completions per (rank,barrier) */
    size_t cap = 1024, nq = 0;
    simmsg_t *q = malloc(cap * sizeof(*q));
    int ok = 1;
    for (uint32_t r = 0; r < n; r++) gasnete_bar_setup(&b[r], r, n);
    for (uint64_t steps = 0; steps < 10000000ULL; steps++) {
        int alldone = 1;
        for (uint32_t r = 0; r < n; r++) alldone &= (completed[r] == nbar);
        if (alldone && nq == 0) break;
        uint32_t r = rnd(n);
        uint32_t action = rnd(3);
        if (action == 0 && started[r] < nbar) {
            uint32_t epoch;
            int rc = gasnete_bar_start(&b[r], val(r, started[r]),
                                       (void *)(uintptr_t)(started[r] + 1), &epoch);
            if (rc == 0) {
                ok &= (epoch == started[r]);
                started[r]++;
            } else if (rc < 0) {
                ok = 0;
            }
        } else if (action == 1 && nq > 0) {
            size_t i = rnd((uint32_t)nq);
            simmsg_t m = q[i];
            q[i] = q[--nq];
            if (gasnete_bar_arrive(&b[m.m.dest], m.src, m.m.epoch, m.m.round, m.m.value)) ok = 0;
        } else {
            gasnete_bar_msg_t msg;
            void *cookie;
            gasnete_bval_t res;
            int what = gasnete_bar_next(&b[r], &msg, &cookie, &res);
            if (what == 1) {
                if (nq == cap) q = realloc(q, (cap *= 2) * sizeof(*q));
                q[nq].src = r;
                q[nq].m = msg;
                nq++;
            } else if (what == 2) {
                uint32_t k = (uint32_t)(uintptr_t)cookie - 1;
                gasnete_bval_t expect = val(0, k);
                for (uint32_t x = 1; x < n; x++) expect = gasnete_bval_join(expect, val(x, k));
                ok &= (k < nbar) && bv_eq(res, expect);
                if (k < nbar) seen[(size_t)r * nbar + k]++;
                completed[r]++;
            }
        }
        if (!ok) break;
    }
    for (size_t i = 0; i < (size_t)n * nbar; i++) ok &= (seen[i] == 1);
    for (uint32_t r = 0; r < n; r++) ok &= (gasnete_bar_outstanding(&b[r]) == 0);
    free(b);
    free(started);
    free(completed);
    free(seen);
    free(q);
    return ok;
}

static gasnete_bval_t val_anon(uint32_t r, uint32_t k)
{
    return bv(GASNETE_BV_ANON, 0);
}
static gasnete_bval_t val_mixed(uint32_t r, uint32_t k)
{
    switch (k % 5) {
    case 0: return bv(GASNETE_BV_NAMED, (int32_t)k);                       /* all named, equal */
    case 1: return (r == k % 3) ? bv(GASNETE_BV_ANON, 0) : bv(GASNETE_BV_NAMED, 9); /* one anon */
    case 2: return (r == 0) ? bv(GASNETE_BV_NAMED, 4) : bv(GASNETE_BV_ANON, 0);     /* one named */
    case 3: return bv(GASNETE_BV_NAMED, (int32_t)(r == 1));               /* names differ */
    default: return (r == k % 2) ? bv(GASNETE_BV_MISMATCH, 0) : bv(GASNETE_BV_ANON, 0);
    }
}

static void test_engine(void)
{
    check(gasnete_bar_nrounds(1) == 0 && gasnete_bar_nrounds(2) == 1 && gasnete_bar_nrounds(3) == 2 &&
              gasnete_bar_nrounds(4) == 2 && gasnete_bar_nrounds(5) == 3 && gasnete_bar_nrounds(1024) == 10,
          "engine: rounds = ceil(log2 n)");
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char what[128];
        snprintf(what, sizeof(what), "engine: %u ranks, 100 anonymous barriers, random delivery", sizes[i]);
        check(simulate(sizes[i], 100, val_anon), what);
        snprintf(what, sizeof(what), "engine: %u ranks, 100 named/anonymous/mismatch barriers", sizes[i]);
        check(simulate(sizes[i], 100, val_mixed), what);
    }

    /* Window: a rank cannot have more than MAX_OUTSTANDING incomplete. */
    gasnete_bar_t *b = calloc(1, sizeof(*b));
    gasnete_bar_setup(b, 0, 4);
    int rc = 0;
    uint32_t started = 0;
    while ((rc = gasnete_bar_start(b, bv(GASNETE_BV_ANON, 0), NULL, NULL)) == 0) started++;
    check(rc == 1 && started == GASNETE_BAR_MAX_OUTSTANDING, "engine: start refuses beyond the window");
    check(gasnete_bar_arrive(b, 3, 0, 0, bv(GASNETE_BV_ANON, 0)) == 0, "engine: arrival accepted");
    check(gasnete_bar_arrive(b, 3, 0, 0, bv(GASNETE_BV_ANON, 0)) == -1, "engine: duplicate rejected");
    check(gasnete_bar_arrive(b, 2, 1, 0, bv(GASNETE_BV_ANON, 0)) == -1, "engine: wrong source rejected");
    check(gasnete_bar_arrive(b, 3, 1, 5, bv(GASNETE_BV_ANON, 0)) == -1, "engine: bad round rejected");
    check(gasnete_bar_arrive(b, 3, 1000, 0, bv(GASNETE_BV_ANON, 0)) == -1,
          "engine: epoch outside the window rejected");
    free(b);
}

/* RDMA barrier mailbox slots (extended/barrier_rdma.h): a slot is accepted
 * for (epoch, round) only when both words carry that epoch. */
static void test_rbar_slots(void)
{
    static const gasnete_bval_t vals[] = {{GASNETE_BV_ANON, 0}, {GASNETE_BV_NAMED, 7},
                                          {GASNETE_BV_NAMED, -1}, {GASNETE_BV_NAMED, INT32_MIN},
                                          {GASNETE_BV_MISMATCH, 0}};
    static const uint32_t epochs[] = {0, 1, 63, 64, 0x7fffffffU, 0xffffffffU};
    int ok = 1, stale = 1, torn = 1;
    for (size_t ei = 0; ei < sizeof(epochs) / sizeof(epochs[0]); ei++)
        for (uint32_t k = 0; k < 32; k += 7)
            for (size_t vi = 0; vi < sizeof(vals) / sizeof(vals[0]); vi++) {
                uint32_t e = epochs[ei];
                uint64_t w0, w1, o0, o1;
                gasnete_bval_t v = {9, 9};
                gasnete_rbar_encode(e, k, vals[vi], &w0, &w1);
                ok &= gasnete_rbar_decode(w0, w1, e, k, &v) && v.kind == vals[vi].kind &&
                      v.id == vals[vi].id;
                /* the same slot's previous content: epoch e - 64 */
                gasnete_rbar_encode(e - 64, k, vals[(vi + 1) % 5], &o0, &o1);
                stale &= !gasnete_rbar_decode(o0, o1, e, k, &v);
                /* one word new, the other old: not yet visible as a whole */
                torn &= !gasnete_rbar_decode(w0, o1, e, k, &v) &&
                        !gasnete_rbar_decode(o0, w1, e, k, &v);
                /* wrong round or wrong epoch asked for */
                ok &= !gasnete_rbar_decode(w0, w1, e, k + 1, &v) &&
                      !gasnete_rbar_decode(w0, w1, e + 1, k, &v);
            }
    check(ok, "rdma barrier slot: encode/decode round trip (epoch, round, value)");
    check(stale, "rdma barrier slot: the slot's previous epoch (e - 64) is not accepted");
    check(torn, "rdma barrier slot: half-written slot (one word old) is not accepted");
    gasnete_bval_t v;
    check(!gasnete_rbar_decode(0, 0, 0, 0, &v), "rdma barrier slot: zeroed memory is not epoch 0");
    uint64_t w0, w1;
    gasnete_rbar_encode(5, 0, (gasnete_bval_t){GASNETE_BV_ANON, 0}, &w0, &w1);
    check(!gasnete_rbar_decode(w0 | 0x300, w1, 5, 0, &v), "rdma barrier slot: bad kind rejected");
    check(gasnete_rbar_slot_off(0, 0) == 0 && gasnete_rbar_slot_off(0, 64) == 0 &&
              gasnete_rbar_slot_off(1, 0) == 64 * 16 && gasnete_rbar_slot_off(2, 65) == (128 + 1) * 16 &&
              gasnete_rbar_mbox_bytes(1) == 0 && gasnete_rbar_mbox_bytes(2) == 1024 &&
              gasnete_rbar_mbox_bytes(5) == 3 * 1024,
          "rdma barrier slot: offsets (round * 64 + epoch % 64) * 16 and mailbox size");
}

int main(void)
{
    test_pool();
    test_op_completion();
    test_live_count();
    test_nbi();
    test_regions();
    test_values();
    test_bvals();
    test_engine();
    test_rbar_slots();
    printf("%d/%d checks passed\n", checks - failures, checks);
    return failures ? 1 : 0;
}
