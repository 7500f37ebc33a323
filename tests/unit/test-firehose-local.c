/* tests/unit/test-firehose-local.c: firehose local pinning with fake ops.
 *
 * The fake pin op records every registration (no memory is touched: the
 * addresses are plain numbers) and can be told to fail.  Every check calls
 * firehose_check() (all of firehose's invariants) and compares the fake's
 * own count of pinned regions and bytes with the pool limits, so a limit
 * exceeded even for one operation is seen.  Covered: hits and misses,
 * overlapping and adjacent ranges, large and unaligned requests, LRU
 * eviction order, the region-count and byte limits, pin failures, reference
 * counts, FIREHOSE_FLAG_TRY, invalidation, bad arguments, and a seeded
 * random stress run.  Usage: test-firehose-local [seed].
 */
#include "firehose/firehose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit-check.h"

#define PG 4096u
#define G (64u * 1024u)
#define MAXREG 4096


/* ---- the fake HCA ----------------------------------------------------------------- */

typedef struct {
    uintptr_t start;
    size_t len;
    int active;
} fake_reg_t;

static struct {
    fake_reg_t reg[MAXREG];
    int nreg;
    uint64_t active, bytes;
    int fail_next;      /* fail this many pin calls */
    int fail_percent;   /* random failures */
    uint64_t pins, unpins;
    uintptr_t unpin_log[64]; /* starts of the last unpins, in order */
    int nlog;
    uint64_t rng;
} fk;

static uint64_t rnd(void)
{
    return unit_splitmix64(&fk.rng);
}

static int fake_pin(void *ctx, uintptr_t addr, size_t len, firehose_pin_t *out)
{
    (void)ctx;
    if (addr % PG || len % PG || len == 0 || len > G) {
        printf("FAIL fake_pin: bad range %#lx+%zu\n", (unsigned long)addr, len);
        failures++;
    }
    if (fk.fail_next > 0) {
        fk.fail_next--;
        return -1;
    }
    if (fk.fail_percent && (int)(rnd() % 100) < fk.fail_percent) return -1;
    int i;
    for (i = 0; i < fk.nreg && fk.reg[i].active; i++) {
    }
    if (i == MAXREG) return -1;
    if (i == fk.nreg) fk.nreg++;
    fk.reg[i].start = addr;
    fk.reg[i].len = len;
    fk.reg[i].active = 1;
    fk.active++;
    fk.bytes += len;
    fk.pins++;
    out->lkey = (uint64_t)i + 1000;
    out->rkey = (uint64_t)i + 2000;
    out->handle = &fk.reg[i];
    return 0;
}

static void fake_unpin(void *ctx, const firehose_pin_t *pin)
{
    (void)ctx;
    fake_reg_t *r = pin->handle;
    if (!r || !r->active) {
        printf("FAIL fake_unpin: not pinned\n");
        failures++;
        return;
    }
    r->active = 0;
    fk.active--;
    fk.bytes -= r->len;
    fk.unpins++;
    if (fk.nlog < 64) fk.unpin_log[fk.nlog++] = r->start;
}

static const firehose_ops_t ops = {.pin = fake_pin, .unpin = fake_unpin};

/* Request holds a pinned registration that covers it. */
static int covers(const firehose_request_t *q)
{
    int i = (int)q->lkey - 1000;
    if (i < 0 || i >= fk.nreg || !fk.reg[i].active) return 0;
    return fk.reg[i].start <= q->addr && q->addr + q->len <= fk.reg[i].start + fk.reg[i].len &&
           q->rkey == (uint64_t)i + 2000;
}

static void invariants(firehose_t *fh, const char *where)
{
    char why[256];
    const firehose_config_t *c = firehose_config(fh);
    firehose_stats_t s;
    firehose_stats(fh, &s);
    int ok = firehose_check(fh, why, sizeof why) == 0;
    CHECK_QUIET(ok, "%s: %s", where, why);
    CHECK_QUIET(fk.active == s.pinned_regions && fk.bytes == s.pinned_bytes,
          "%s: fake has %llu regions / %llu bytes, firehose %llu / %llu", where,
          (unsigned long long)fk.active, (unsigned long long)fk.bytes,
          (unsigned long long)s.pinned_regions, (unsigned long long)s.pinned_bytes);
    CHECK_QUIET(fk.active <= c->victim_regions && fk.bytes <= c->victim_bytes,
          "%s: %llu regions / %llu bytes pinned, limits %llu / %llu", where,
          (unsigned long long)fk.active, (unsigned long long)fk.bytes,
          (unsigned long long)c->victim_regions, (unsigned long long)c->victim_bytes);
}

static firehose_t *make(int64_t victim_bytes, int64_t victim_regions)
{
    firehose_user_t u;
    firehose_env_t e;
    firehose_config_t cfg;
    char why[256];
    firehose_user_defaults(&u);
    u.maxvictim_m = victim_bytes;
    u.maxvictim_r = victim_regions;
    u.region_size = G;
    memset(&e, 0, sizeof e);
    e.nodes = 1;
    e.host_procs = 1;
    e.page_size = PG;
    e.pool_bytes = 64u << 20;
    int rc = firehose_config_resolve(&u, &e, &cfg, why, sizeof why);
    CHECK_QUIET(rc == 0, "resolve: %s", why);
    firehose_t *fh = firehose_init(&cfg, &ops, NULL);
    CHECK_QUIET(fh != NULL, "firehose_init");
    return fh;
}

static void finish(firehose_t *fh, const char *name)
{
    invariants(fh, name);
    int held = firehose_fini(fh);
    CHECK_QUIET(held == 0, "%s: %d regions still held at fini", name, held);
    CHECK_QUIET(fk.active == 0 && fk.bytes == 0, "%s: %llu registrations left after fini", name,
          (unsigned long long)fk.active);
    printf("ok %s\n", name);
}

#define BASE ((uintptr_t)0x40000000u)

static void test_hits_and_ranges(void)
{
    firehose_t *fh = make(16 * G, 16);
    firehose_request_t a, b, c, d, e;
    firehose_stats_t s;
    CHECK_QUIET(firehose_local_pin(fh, BASE + 100, 200, 0, &a) == FIREHOSE_OK && a.len == 200 &&
              covers(&a),
          "first pin");
    CHECK_QUIET(fk.reg[a.lkey - 1000].start == BASE && fk.reg[a.lkey - 1000].len == PG,
          "a 200-byte request pins its one page");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 1000, 50, 0, &b) == FIREHOSE_OK && b.lkey == a.lkey,
          "inside the same page: hit");
    invariants(fh, "hit");
    /* adjacent page: a new region; a range over both: a new, larger region */
    CHECK_QUIET(firehose_local_pin(fh, BASE + PG, 10, 0, &c) == FIREHOSE_OK && c.lkey != a.lkey,
          "adjacent page: miss");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 4000, 200, 0, &d) == FIREHOSE_OK && d.len == 200 &&
              covers(&d) && d.lkey != a.lkey && d.lkey != c.lkey,
          "range straddling two pinned pages: new region over both");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 10, 2 * PG - 20, 0, &e) == FIREHOSE_OK && e.lkey == d.lkey,
          "overlapping range inside the straddling region: hit");
    invariants(fh, "ranges");
    firehose_stats(fh, &s);
    CHECK_QUIET(s.local_hits == 2 && s.local_misses == 3, "hits %llu misses %llu",
          (unsigned long long)s.local_hits, (unsigned long long)s.local_misses);
    firehose_release(fh, &a);
    firehose_release(fh, &b);
    firehose_release(fh, &c);
    firehose_release(fh, &d);
    firehose_release(fh, &e);
    /* large and unaligned: one region of at most G per request, caller loops */
    uintptr_t addr = BASE + 1024 * 1024 + 1000;
    size_t left = 600 * 1024, pieces = 0;
    while (left) {
        firehose_request_t q;
        int rc = firehose_local_pin(fh, addr, left, 0, &q);
        CHECK_QUIET(rc == FIREHOSE_OK && q.len >= 1 && q.len <= left && covers(&q), "large piece");
        if (rc != FIREHOSE_OK) break;
        CHECK_QUIET(pieces > 0 || q.len == G - 1000, "first piece ends at the region boundary (%zu)",
              q.len);
        addr += q.len;
        left -= q.len;
        pieces++;
        firehose_release(fh, &q);
        invariants(fh, "large");
    }
    CHECK_QUIET(pieces == 10, "600K from an unaligned address in 64K regions: %zu pieces", pieces);
    /* a partial cover of at least half a region is a hit (the caller loops) */
    firehose_request_t p;
    uint64_t pins = fk.pins;
    CHECK_QUIET(firehose_local_pin(fh, BASE + 1024 * 1024 + 16 * 1024, 100 * 1024, 0, &p) ==
                  FIREHOSE_OK &&
              p.len == G - 16 * 1024 && fk.pins == pins,
          "partial hit of >= half a region (len %zu)", p.len);
    firehose_release(fh, &p);
    CHECK_QUIET(firehose_local_pin(fh, BASE + 1024 * 1024 + 48 * 1024, 100 * 1024, 0, &p) ==
                  FIREHOSE_OK &&
              p.len == G && fk.pins == pins + 1,
          "a cover of less than half a region is a miss (len %zu)", p.len);
    firehose_release(fh, &p);
    /* bad arguments */
    CHECK_QUIET(firehose_local_pin(fh, BASE, 0, 0, &p) == FIREHOSE_BADARG, "len 0");
    CHECK_QUIET(firehose_local_pin(fh, UINTPTR_MAX - 10, 100, 0, &p) == FIREHOSE_BADARG, "wrap");
    finish(fh, "hits, misses, overlapping and adjacent ranges");
}

static void test_eviction_order(void)
{
    firehose_t *fh = make(4 * G, 4);
    firehose_request_t q;
    for (int i = 0; i < 4; i++) { /* R0..R3 cached, released in this order */
        CHECK_QUIET(firehose_local_pin(fh, BASE + (uintptr_t)i * G, G, 0, &q) == FIREHOSE_OK, "pin");
        firehose_release(fh, &q);
    }
    /* touch R1: it becomes the most recently released */
    CHECK_QUIET(firehose_local_pin(fh, BASE + G + 5, 10, 0, &q) == FIREHOSE_OK, "touch");
    firehose_release(fh, &q);
    fk.nlog = 0;
    uintptr_t expect[4] = {BASE, BASE + 2 * G, BASE + 3 * G, BASE + G};
    for (int i = 0; i < 4; i++) {
        CHECK_QUIET(firehose_local_pin(fh, BASE + (uintptr_t)(10 + i) * G, G, 0, &q) == FIREHOSE_OK,
              "new");
        firehose_release(fh, &q);
        invariants(fh, "eviction");
        CHECK_QUIET(fk.nlog == i + 1 && fk.unpin_log[i] == expect[i],
              "eviction %d: unpinned %#lx, expected %#lx (LRU)", i,
              (unsigned long)(fk.nlog > i ? fk.unpin_log[i] : 0), (unsigned long)expect[i]);
    }
    finish(fh, "LRU eviction order");
}

static void test_limits_and_refs(void)
{
    /* region-count limit */
    firehose_t *fh = make(64 * G, 3);
    firehose_request_t q[4], r;
    for (int i = 0; i < 3; i++)
        CHECK_QUIET(firehose_local_pin(fh, BASE + (uintptr_t)i * G, PG, 0, &q[i]) == FIREHOSE_OK, "hold");
    uint64_t pins = fk.pins;
    CHECK_QUIET(firehose_local_pin(fh, BASE + 7 * G, PG, 0, &q[3]) == FIREHOSE_NORESOURCE &&
              fk.pins == pins,
          "4th region over a 3-region limit: NORESOURCE without pinning");
    invariants(fh, "count limit");
    /* reference counts: pin q[0]'s region twice more, release twice: still held */
    firehose_request_t x, y;
    CHECK_QUIET(firehose_local_pin(fh, BASE + 1, 1, 0, &x) == FIREHOSE_OK && x.lkey == q[0].lkey, "ref");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 2, 1, 0, &y) == FIREHOSE_OK && y.lkey == q[0].lkey, "ref");
    firehose_release(fh, &x);
    firehose_release(fh, &y);
    firehose_release(fh, &q[1]); /* only q[1]'s region is evictable */
    CHECK_QUIET(firehose_local_pin(fh, BASE + 7 * G, PG, 0, &q[3]) == FIREHOSE_OK, "after a release");
    CHECK_QUIET(fk.nlog > 0 && fk.unpin_log[fk.nlog - 1] == BASE + G,
          "the unreferenced region was evicted, not the referenced one");
    CHECK_QUIET(covers(&q[0]) && covers(&q[2]), "held regions still pinned");
    invariants(fh, "refs");
    firehose_release(fh, &q[0]);
    firehose_release(fh, &q[2]);
    firehose_release(fh, &q[3]);
    finish(fh, "region-count limit and reference counts");

    /* bytes: 3.5 regions of memory address 3 regions (MAXVICTIM_R is cut to
     * MAXVICTIM_M / region size), full-size regions never pass the bytes */
    fh = make(3 * G + G / 2, 64);
    CHECK_QUIET(firehose_config(fh)->victim_regions == 3, "MAXVICTIM_R cut to 3 (%llu)",
          (unsigned long long)firehose_config(fh)->victim_regions);
    for (int i = 0; i < 3; i++)
        CHECK_QUIET(firehose_local_pin(fh, BASE + (uintptr_t)i * G, G, 0, &q[i]) == FIREHOSE_OK, "hold");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 9 * G, PG, 0, &r) == FIREHOSE_NORESOURCE,
          "one more page over the limits: NORESOURCE");
    invariants(fh, "byte limit");
    firehose_release(fh, &q[0]);
    CHECK_QUIET(firehose_local_pin(fh, BASE + 9 * G, PG, 0, &r) == FIREHOSE_OK, "room after release");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 10 * G, 8 * PG, 0, &q[0]) == FIREHOSE_NORESOURCE,
          "small regions count as regions");
    invariants(fh, "byte limit 2");
    firehose_release(fh, &q[1]);
    firehose_release(fh, &q[2]);
    firehose_release(fh, &r);
    finish(fh, "pinned-bytes limit");
}

static void test_pin_failure_and_try(void)
{
    firehose_t *fh = make(8 * G, 8);
    firehose_request_t q, r;
    firehose_stats_t s;
    CHECK_QUIET(firehose_local_pin(fh, BASE, PG, 0, &q) == FIREHOSE_OK, "pin");
    firehose_release(fh, &q); /* cached */
    fk.fail_next = 1;         /* the HCA refuses once: cache flushed, retry succeeds */
    CHECK_QUIET(firehose_local_pin(fh, BASE + G, PG, 0, &r) == FIREHOSE_OK && covers(&r),
          "retry after flushing the cache");
    firehose_stats(fh, &s);
    CHECK_QUIET(s.pin_failures == 1 && s.evictions == 1, "one failure, one flush (%llu, %llu)",
          (unsigned long long)s.pin_failures, (unsigned long long)s.evictions);
    fk.fail_next = 1; /* refuses with nothing cached to flush: NORESOURCE, nothing held */
    printf("(a firehose warning about a failed registration is expected next)\n");
    fflush(stdout);
    CHECK_QUIET(firehose_local_pin(fh, BASE + 2 * G, PG, 0, &q) == FIREHOSE_NORESOURCE, "pin failure");
    invariants(fh, "pin failure");
    CHECK_QUIET(firehose_local_pin(fh, BASE + 5, 10, FIREHOSE_FLAG_TRY, &q) == FIREHOSE_NORESOURCE,
          "TRY on a flushed region: no pin");
    CHECK_QUIET(firehose_local_pin(fh, BASE + G + 5, 10, FIREHOSE_FLAG_TRY, &q) == FIREHOSE_OK &&
              q.lkey == r.lkey,
          "TRY hit");
    firehose_release(fh, &q);
    firehose_release(fh, &r);
    finish(fh, "pin failure and FIREHOSE_FLAG_TRY");
}

static void test_invalidate(void)
{
    firehose_t *fh = make(8 * G, 8);
    firehose_request_t q, held, again;
    CHECK_QUIET(firehose_local_pin(fh, BASE, PG, 0, &q) == FIREHOSE_OK, "pin");
    firehose_release(fh, &q);
    CHECK_QUIET(firehose_local_pin(fh, BASE + G, 2 * PG, 0, &held) == FIREHOSE_OK, "pin held");
    uint64_t unpins = fk.unpins;
    CHECK_QUIET(firehose_local_invalidate(fh, BASE + 100, G + 10) == 2, "two regions invalidated");
    CHECK_QUIET(fk.unpins == unpins + 1 && covers(&held), "cached one unpinned, held one kept");
    invariants(fh, "invalidate");
    CHECK_QUIET(firehose_local_pin(fh, BASE + G, PG, 0, &again) == FIREHOSE_OK &&
              again.lkey != held.lkey,
          "no hit on an invalidated region");
    firehose_release(fh, &held);
    CHECK_QUIET(fk.unpins == unpins + 2, "invalidated region unpinned at its last release");
    firehose_release(fh, &again);
    CHECK_QUIET(firehose_local_invalidate(fh, 0, UINTPTR_MAX) == 1, "whole address space");
    invariants(fh, "invalidate all");
    finish(fh, "invalidation (munmap hook)");
}

/* Random pins, releases, invalidations and pin failures; invariants after each. */
static void test_stress(uint64_t seed)
{
    enum { HOLD = 24, STEPS = 30000 };
    fk.rng = seed;
    firehose_t *fh = make(12 * G, 10);
    firehose_request_t q[HOLD];
    int used[HOLD] = {0};
    int ok = 0, nores = 0;
    fk.fail_percent = 3;
    for (int step = 0; step < STEPS && failures < 20; step++) {
        int i = (int)(rnd() % HOLD);
        uint64_t op = rnd() % 100;
        if (used[i] && op < 45) {
            CHECK_QUIET(covers(&q[i]), "held request %d lost its registration", i);
            firehose_release(fh, &q[i]);
            used[i] = 0;
        } else if (!used[i] && op < 97) {
            uintptr_t addr = BASE + rnd() % (2u << 20);
            size_t len = 1 + (size_t)(rnd() % ((rnd() & 1) ? 2 * PG : 3 * G));
            int rc = firehose_local_pin(fh, addr, len, (rnd() % 20) ? 0 : FIREHOSE_FLAG_TRY, &q[i]);
            CHECK_QUIET(rc == FIREHOSE_OK || rc == FIREHOSE_NORESOURCE, "rc %d", rc);
            if (rc == FIREHOSE_OK) {
                CHECK_QUIET(q[i].addr == addr && q[i].len >= 1 && q[i].len <= len && covers(&q[i]),
                      "result covers a prefix");
                used[i] = 1;
                ok++;
            } else {
                nores++;
            }
        } else if (op >= 97) {
            firehose_local_invalidate(fh, BASE + rnd() % (2u << 20), 1 + rnd() % (2 * G));
        }
        invariants(fh, "stress");
    }
    fk.fail_percent = 0;
    for (int i = 0; i < HOLD; i++)
        if (used[i]) firehose_release(fh, &q[i]);
    printf("stress seed %llu: %d pinned, %d refused\n", (unsigned long long)seed, ok, nores);
    CHECK_QUIET(ok > 1000 && nores > 0, "the run exercised both outcomes");
    finish(fh, "random stress");
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 12345;
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_hits_and_ranges();
    test_eviction_order();
    test_limits_and_refs();
    test_pin_failure_and_try();
    test_invalidate();
    test_stress(seed);
    test_stress(seed + 1);
    printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
    return failures ? 1 : 0;
}
