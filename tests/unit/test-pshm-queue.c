/* tests/unit/test-pshm-queue.c: the PSHM AM queue (core/pshm/queue.c) over
 * an anonymous shared mapping with fork()ed producers and consumers, and the
 * neighbourhood rule (core/pshm/nbrhd.c) as a pure function.
 * Prints one line per check; exits 0 only if all passed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "core/pshm/pshm_internal.h"
#include "core/pshm/queue.h"

/* nbrhd.c's inline lookup refers to the state; the pure test never uses it. */
gasnetc_pshm_state_t gasnetc_pshm_state;

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
    fflush(stdout);
    if (!ok) failures++;
}

static void *shared_alloc(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

static gasnetc_am_hdr_t make_hdr(uint32_t src, uint32_t seq, uint32_t nbytes)
{
    gasnetc_am_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.category = GASNETC_AM_MEDIUM;
    h.is_req = 1;
    h.handler = 200;
    h.nargs = 3;
    h.src_rank = src;
    h.nbytes = nbytes;
    h.args[0] = (int32_t)seq;
    return h;
}

static uint8_t pattern(uint32_t src, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 131u + seq * 7u + i * 13u);
}

static uint32_t checksum(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* ---- single-process behaviour --------------------------------------------------- */
static void test_basic(void)
{
    enum { DEPTH = 4, MAXP = 200 };
    size_t len = gasnetc_pshmq_size(DEPTH, MAXP);
    void *mem = shared_alloc(len);
    gasnetc_pshmq_t *q = gasnetc_pshmq_init(mem, DEPTH, MAXP);
    gasnetc_pshmq_msg_t m, held;
    uint8_t buf[MAXP + 64];
    int ok;

    check(q != NULL && gasnetc_pshmq_attach(mem) == q, "init formats a queue that attach accepts");
    check(gasnetc_pshmq_init((char *)mem + 8, DEPTH, MAXP) == NULL, "init rejects a misaligned block");
    check(gasnetc_pshmq_size(0, MAXP) == 0, "size of a 0-slot queue is 0 (invalid)");
    check(q->max_payload >= MAXP && len % GASNETC_PSHMQ_ALIGN == 0, "geometry is aligned");
    check(!gasnetc_pshmq_take(q, &m), "empty queue: take returns 0");

    for (size_t i = 0; i < sizeof(buf); i++) buf[i] = (uint8_t)i;
    gasnetc_am_hdr_t h = make_hdr(1, 0, MAXP);
    check(gasnetc_pshmq_try_send(q, &h, buf, q->max_payload + 1) == -1, "oversized payload returns -1");

    ok = 1;
    for (uint32_t i = 0; i < DEPTH; i++) {
        h = make_hdr(1, i, i * 10);
        ok &= gasnetc_pshmq_try_send(q, &h, buf + i, i * 10) == 0;
    }
    check(ok, "DEPTH sends into an empty queue succeed");
    h = make_hdr(1, 99, 0);
    check(gasnetc_pshmq_try_send(q, &h, NULL, 0) == 1, "full queue: try_send returns 1");
    check(gasnetc_pshmq_pending(q) == DEPTH, "pending counts DEPTH messages");

    ok = gasnetc_pshmq_take(q, &held);
    ok &= held.hdr->args[0] == 0 && held.nbytes == 0;
    ok &= ((uintptr_t)held.payload % 8) == 0;
    check(ok, "take returns the oldest message, payload 8-byte aligned");
    check(gasnetc_pshmq_try_send(q, &h, NULL, 0) == 1, "slot held by a consumer is not reused");

    ok = 1;
    for (uint32_t i = 1; i < DEPTH; i++) {
        ok &= gasnetc_pshmq_take(q, &m);
        ok &= m.hdr->args[0] == (int32_t)i && m.nbytes == i * 10 && m.hdr->nbytes == i * 10;
        ok &= memcmp(m.payload, buf + i, i * 10) == 0;
        ok &= ((uintptr_t)m.payload % 8) == 0;
        gasnetc_pshmq_release(q, &m);
    }
    check(ok, "later messages come out in order with their payloads while one slot is held");
    /* Slots 1..3 are free again but position 4 maps onto held slot 0. */
    check(gasnetc_pshmq_try_send(q, &h, NULL, 0) == 1,
          "the next position waits for the held slot (FIFO slot reuse)");
    gasnetc_pshmq_release(q, &held);
    check(gasnetc_pshmq_try_send(q, &h, NULL, 0) == 0, "after release the slot is reused");
    check(gasnetc_pshmq_take(q, &m) && m.hdr->args[0] == 99, "the reused slot delivers its message");
    gasnetc_pshmq_release(q, &m);
    check(!gasnetc_pshmq_take(q, &m) && gasnetc_pshmq_pending(q) == 0, "queue is empty again");

    /* Many laps through a small ring. */
    ok = 1;
    for (uint32_t i = 0; i < 10000 && ok; i++) {
        h = make_hdr(2, i, i % MAXP);
        ok &= gasnetc_pshmq_try_send(q, &h, buf, i % MAXP) == 0;
        ok &= gasnetc_pshmq_take(q, &m) && m.hdr->args[0] == (int32_t)i;
        gasnetc_pshmq_release(q, &m);
    }
    check(ok, "10000 send/take/release laps through a 4-slot ring");
    munmap(mem, len);

    /* Full-size Medium slots, as the library uses them. */
    len = gasnetc_pshmq_size(2, 65536);
    mem = shared_alloc(len);
    q = gasnetc_pshmq_init(mem, 2, 65536);
    {
        uint8_t *big = malloc(65536);
        for (size_t i = 0; i < 65536; i++) big[i] = pattern(3, 5, i);
        h = make_hdr(3, 5, 65536);
        ok = q && gasnetc_pshmq_try_send(q, &h, big, 65536) == 0;
        ok = ok && gasnetc_pshmq_take(q, &m) && m.nbytes == 65536 &&
             memcmp(m.payload, big, 65536) == 0;
        if (ok) gasnetc_pshmq_release(q, &m);
        free(big);
    }
    check(ok, "a 65536-byte payload round-trips");
    /* A block retired at exit (zero pages) must neither fault nor deliver. */
    memset(mem, 0, len);
    h = make_hdr(3, 6, 0);
    check(!gasnetc_pshmq_take(mem, &m) && gasnetc_pshmq_try_send(mem, &h, NULL, 0) == 1 &&
              gasnetc_pshmq_attach(mem) == NULL,
          "zeroed (retired) block: empty, full, not attachable");
    munmap(mem, len);
}

/* The inline hot path (queue.h): claim/publish and peek1/give_back. */
static void test_inline(void)
{
    enum { DEPTH = 4, MAXP = 200 };
    size_t len = gasnetc_pshmq_size(DEPTH, MAXP);
    void *mem = shared_alloc(len);
    gasnetc_pshmq_t *q = gasnetc_pshmq_init(mem, DEPTH, MAXP);
    gasnetc_am_hdr_t h = make_hdr(5, 0, 0);
    gasnetc_pshmq_slot_t *s;
    uint64_t pos;
    int ok = 1;

    for (uint32_t i = 0; i < DEPTH; i++) {
        s = gasnetc_pshmq_claim(q, &pos);
        ok &= s != NULL && pos == i;
        if (!s) break;
        h.args[0] = (int32_t)i;
        s->hdr = h;
        s->nbytes = 150; /* past the inline room: the slot's buffer */
        memset(gasnetc_pshmq_payload(q, s, pos, 150), (int)i + 1, 150);
        gasnetc_pshmq_publish(s, pos);
    }
    check(ok, "claim gives positions 0..depth-1 in order");
    check(gasnetc_pshmq_claim(q, &pos) == NULL && gasnetc_pshmq_try_send(q, &h, NULL, 0) == 1,
          "claim and try_send both see the full queue");
    ok = 1;
    for (uint32_t i = 0; i < DEPTH; i++) {
        uint64_t p = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
        s = gasnetc_pshmq_peek1(q, q->mask, p);
        ok &= s != NULL && p == i && s->hdr.args[0] == (int32_t)i && s->nbytes == 150;
        if (!s) break;
        const unsigned char *pl = gasnetc_pshmq_payload(q, s, p, 150);
        ok &= pl[0] == i + 1 && pl[149] == i + 1;
        __atomic_store_n(&q->head, p + 1, __ATOMIC_RELAXED);
        gasnetc_pshmq_give_back(s, p, q->depth);
    }
    check(ok, "peek1/give_back take them in order with their payloads");
    check(gasnetc_pshmq_peek1(q, q->mask, __atomic_load_n(&q->head, __ATOMIC_RELAXED)) == NULL,
          "peek1 of an empty queue finds nothing");
    check(gasnetc_pshmq_try_send(q, &h, NULL, 0) == 0 && gasnetc_pshmq_claim(q, &pos) != NULL &&
              pos == DEPTH + 1,
          "try_send and claim interleave on the same tail");
    memset(mem, 0, len);
    check(gasnetc_pshmq_claim(q, &pos) == NULL && gasnetc_pshmq_peek1(q, q->mask, 0) == NULL,
          "zeroed (retired) block: claim finds it full, peek1 empty");
    munmap(mem, len);

    len = gasnetc_pshmq_size(3, MAXP);
    mem = shared_alloc(len);
    q = gasnetc_pshmq_init(mem, 3, MAXP);
    check(q && gasnetc_pshmq_claim(q, &pos) == NULL && gasnetc_pshmq_try_send(q, &h, NULL, 0) == 0,
          "depth 3 (not a power of two): claim declines, try_send works");
    munmap(mem, len);
}

/* A deep queue shares its payload buffers: a position whose payload needs
 * a buffer waits (reads as full) until the buffer's earlier users are given
 * back; inline payloads never wait for a buffer. */
static void test_bufs(void)
{
    enum { DEPTH = 128, MAXP = 1000 };
    size_t len = gasnetc_pshmq_size(DEPTH, MAXP);
    void *mem = shared_alloc(len);
    gasnetc_pshmq_t *q = gasnetc_pshmq_init(mem, DEPTH, MAXP);
    gasnetc_am_hdr_t h = make_hdr(5, 0, 0);
    gasnetc_pshmq_slot_t *s, *held[DEPTH];
    uint64_t pos, nb = GASNETC_PSHMQ_BUFS;
    int ok = 1;

    check(q && q->nbuf == nb && gasnetc_pshmq_nbuf(DEPTH) == nb && gasnetc_pshmq_nbuf(16) == 16 &&
              gasnetc_pshmq_nbuf(96) == 96 &&
              len == sizeof(gasnetc_pshmq_t) + DEPTH * GASNETC_PSHMQ_SLOT + nb * 1024,
          "depth 128: 32 payload buffers (16 and 96 slots: one per slot), size adds up");
    for (uint64_t i = 0; i < nb; i++) {
        s = gasnetc_pshmq_claim_n(q, MAXP, &pos);
        ok &= s != NULL && pos == i;
        if (!s) break;
        s->nbytes = MAXP;
        memset(gasnetc_pshmq_payload(q, s, pos, MAXP), (int)i + 1, MAXP);
        gasnetc_pshmq_publish(s, pos);
    }
    check(ok, "32 large payloads take the 32 buffers");
    check(gasnetc_pshmq_claim_n(q, MAXP, &pos) == NULL && gasnetc_pshmq_claim(q, &pos) == NULL &&
              gasnetc_pshmq_try_send(q, &h, "x", 129) == 1,
          "the 33rd large payload finds its buffer busy (claim_n, claim, try_send)");
    s = gasnetc_pshmq_claim_n(q, GASNETC_PSHMQ_INLINE, &pos);
    check(s && pos == nb && gasnetc_pshmq_try_send(q, &h, "x", 1) == 0,
          "inline payloads still get slots");
    if (s) gasnetc_pshmq_publish(s, pos);
    /* Take positions 0..2 and give back 1 and 2, not 0: buffers 1 and 2
     * are free, buffer 0 is not. */
    for (uint64_t i = 0; i < 3; i++) {
        held[i] = gasnetc_pshmq_peek1(q, q->mask, i);
        ok &= held[i] != NULL;
        __atomic_store_n(&q->head, i + 1, __ATOMIC_RELAXED);
    }
    check(ok && !gasnetc_pshmq_claim_n(q, MAXP, &pos), "taken but not given back: still busy");
    if (!ok) return;
    gasnetc_pshmq_give_back(held[2], 2, DEPTH);
    gasnetc_pshmq_give_back(held[1], 1, DEPTH);
    /* Positions 32, 33 are taken; next is 34, whose buffer (2) is free now. */
    s = gasnetc_pshmq_claim_n(q, MAXP, &pos);
    check(s && pos == nb + 2 && gasnetc_pshmq_payload(q, s, pos, MAXP) ==
                                    gasnetc_pshmq_payload(q, held[2], 2, MAXP),
          "given back out of order: position 34 reuses buffer 2");
    if (s) gasnetc_pshmq_publish(s, pos);
    /* Positions up to 63 wrap onto buffers 3..31 (busy); fill 35..95 with
     * inline messages, then position 96 (buffer 0, users 0, 32, 64) waits
     * for position 0. */
    while ((s = gasnetc_pshmq_claim_n(q, 8, &pos)) && pos < 95) gasnetc_pshmq_publish(s, pos);
    if (s) gasnetc_pshmq_publish(s, pos);
    check(pos == 95 && !gasnetc_pshmq_claim_n(q, MAXP, &pos), "position 96 waits for position 0");
    gasnetc_pshmq_give_back(held[0], 0, DEPTH);
    check(!gasnetc_pshmq_claim_n(q, MAXP, &pos),
          "position 96 also waits for 32 and 64 (inline, but the buffer's earlier positions)");
    for (uint64_t i = 3; i <= 64; i++) {
        gasnetc_pshmq_slot_t *t = gasnetc_pshmq_peek1(q, q->mask, i);
        ok &= t != NULL;
        if (!t) break;
        __atomic_store_n(&q->head, i + 1, __ATOMIC_RELAXED);
        gasnetc_pshmq_give_back(t, i, DEPTH);
    }
    s = gasnetc_pshmq_claim_n(q, MAXP, &pos);
    const unsigned char *p = gasnetc_pshmq_payload(q, held[0], 0, MAXP);
    check(ok && s && pos == 96 && gasnetc_pshmq_payload(q, s, pos, MAXP) == p && p[0] == 1 &&
              p[MAXP - 1] == 1,
          "all given back: position 96 gets buffer 0, untouched since position 0");
    munmap(mem, len);
}

/* ---- contention across processes ------------------------------------------------ */
enum { NPROD = 3, NCONS = 2, NMSG = 100000, CDEPTH = 16, CMAXP = 120, CMAXP_BIG = 300 };
/* The contention runs' geometry: 16 slots with inline payloads only, or
 * (deep) 64 slots sharing 32 payload buffers with payloads up to 300
 * bytes, so that positions wait for their buffer (gasnetc_pshmq_buf_free). */
static uint32_t cdepth = CDEPTH, cmaxp = CMAXP;

typedef struct {
    uint64_t consumed;           /* messages taken, all consumers */
    uint64_t errors;             /* order/checksum/content errors */
    uint64_t full_seen;          /* try_send returned 1 */
    uint8_t seen[NPROD][NMSG];   /* times each message was delivered */
} shared_stats_t;

/* inline_path: odd producers use claim/publish and the one consumer the
 * single-consumer peek1/give_back (pshm.c's drain), as the library does. */
static int inline_path;

static void producer(gasnetc_pshmq_t *q, uint32_t id, shared_stats_t *st)
{
    uint8_t buf[CMAXP_BIG];
    uint64_t full = 0;
    for (uint32_t seq = 0; seq < NMSG; seq++) {
        uint32_t n = (seq * 37u + id) % (cmaxp + 1);
        for (uint32_t i = 0; i < n; i++) buf[i] = pattern(id, seq, i);
        gasnetc_am_hdr_t h = make_hdr(id, seq, n);
        h.args[1] = (int32_t)id;
        h.args[2] = (int32_t)checksum(buf, n);
        int rc;
        if (inline_path && (id & 1)) {
            /* The AM fast path's way (core/am_fpam.c): claim, fill in place, publish. */
            gasnetc_pshmq_slot_t *s;
            uint64_t pos;
            while (!(s = (seq & 2) ? gasnetc_pshmq_claim_n(q, n, &pos)
                                   : gasnetc_pshmq_claim(q, &pos))) {
                full++;
                sched_yield();
            }
            s->hdr = h;
            s->nbytes = n;
            if (n) memcpy(gasnetc_pshmq_payload(q, s, pos, n), buf, n);
            gasnetc_pshmq_publish(s, pos);
            continue;
        }
        while ((rc = gasnetc_pshmq_try_send(q, &h, buf, n)) == 1) {
            full++;
            sched_yield();
        }
        if (rc != 0) __atomic_add_fetch(&st->errors, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&st->full_seen, full, __ATOMIC_RELAXED);
}

/* The single-consumer inline take (as pshm.c's drain): fills m. */
static int take_inline(gasnetc_pshmq_t *q, gasnetc_pshmq_msg_t *m)
{
    uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
    gasnetc_pshmq_slot_t *s = gasnetc_pshmq_peek1(q, q->mask, pos);
    if (!s) return 0;
    __atomic_store_n(&q->head, pos + 1, __ATOMIC_RELAXED);
    m->slot = s;
    m->pos = pos;
    m->hdr = &s->hdr;
    m->nbytes = (size_t)s->nbytes;
    m->payload = gasnetc_pshmq_payload(q, s, pos, m->nbytes);
    return 1;
}

static void consumer(gasnetc_pshmq_t *q, shared_stats_t *st)
{
    int64_t last[NPROD];
    gasnetc_pshmq_msg_t m;
    for (int p = 0; p < NPROD; p++) last[p] = -1;
    while (__atomic_load_n(&st->consumed, __ATOMIC_RELAXED) < (uint64_t)NPROD * NMSG) {
        if (!(inline_path ? take_inline(q, &m) : gasnetc_pshmq_take(q, &m))) {
            sched_yield();
            continue;
        }
        uint32_t src = m.hdr->src_rank, seq = (uint32_t)m.hdr->args[0];
        int bad = src >= NPROD || seq >= NMSG || m.hdr->args[1] != (int32_t)src;
        if (!bad) {
            const uint8_t *pl = m.payload;
            bad |= m.nbytes != m.hdr->nbytes;
            bad |= (int64_t)seq <= last[src]; /* FIFO per producer, per consumer */
            bad |= checksum(pl, m.nbytes) != (uint32_t)m.hdr->args[2];
            for (size_t i = 0; i < m.nbytes && !bad; i++) bad |= pl[i] != pattern(src, seq, i);
            last[src] = seq;
            __atomic_add_fetch(&st->seen[src][seq], 1, __ATOMIC_RELAXED);
        }
        if (bad) __atomic_add_fetch(&st->errors, 1, __ATOMIC_RELAXED);
        if ((seq & 1023) == 0) sched_yield(); /* hold the slot a while now and then */
        if (inline_path) gasnetc_pshmq_give_back(m.slot, m.pos, q->depth);
        else gasnetc_pshmq_release(q, &m);
        __atomic_add_fetch(&st->consumed, 1, __ATOMIC_RELAXED);
    }
}

static void test_contention(void)
{
    size_t qlen = gasnetc_pshmq_size(cdepth, cmaxp);
    void *mem = shared_alloc(qlen);
    shared_stats_t *st = shared_alloc(sizeof(*st));
    gasnetc_pshmq_t *q = gasnetc_pshmq_init(mem, cdepth, cmaxp);
    pid_t pids[NPROD + NCONS];
    int ok = 1, nchild = 0, ncons = inline_path ? 1 : NCONS;
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < NPROD + ncons; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            exit(1);
        }
        if (pid == 0) {
            alarm(120); /* a lost message would otherwise spin forever */
            if (i < NPROD) producer(q, (uint32_t)i, st);
            else consumer(q, st);
            _exit(0);
        }
        pids[nchild++] = pid;
    }
    for (int i = 0; i < nchild; i++) {
        int ws;
        if (waitpid(pids[i], &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            printf("child %d ended abnormally (status 0x%x)\n", i, ws);
            ok = 0;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    check(ok, inline_path ? "3 producers (2 by try_send, 1 by claim/publish) and 1 inline "
                            "consumer finish (no hang, no crash)"
                          : "3 producers and 2 consumers finish (no hang, no crash)");

    uint64_t missing = 0, dup = 0;
    for (int p = 0; p < NPROD; p++)
        for (int s = 0; s < NMSG; s++) {
            if (st->seen[p][s] == 0) missing++;
            if (st->seen[p][s] > 1) dup++;
        }
    printf("  depth %u (%llu payload buffers), payloads up to %u B: %d messages in %.2f s; "
           "producers saw a full queue %llu times\n",
           cdepth, (unsigned long long)q->nbuf, cmaxp, NPROD * NMSG,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
           (unsigned long long)st->full_seen);
    check(st->consumed == (uint64_t)NPROD * NMSG, "every message was consumed once in total");
    check(missing == 0, "no message lost");
    check(dup == 0, "no message duplicated");
    check(st->errors == 0, "per-producer FIFO order, payload contents and checksums hold");
    check(gasnetc_pshmq_pending(q) == 0, "queue is empty at the end");
    munmap(mem, qlen);
    munmap(st, sizeof(*st));
}

/* ---- neighbourhood rule ------------------------------------------------------------ */
static int nbrhd_is(uint32_t rank, uint32_t size, const uint64_t *host, unsigned maxsize,
                    const uint32_t *expect, uint32_t nexpect, uint32_t expect_idx)
{
    uint32_t out[64], idx = 999;
    uint32_t n = gasnetc_pshm_nbrhd_compute(rank, size, host, maxsize, out, &idx);
    if (n != nexpect || idx != expect_idx) return 0;
    return memcmp(out, expect, n * sizeof(*out)) == 0;
}

static void test_nbrhd(void)
{
    const uint64_t one[4] = {7, 7, 7, 7};
    const uint64_t two[5] = {1, 2, 1, 2, 1};
    const uint64_t single[1] = {42};

    check(nbrhd_is(2, 4, one, 0, (uint32_t[]){0, 1, 2, 3}, 4, 2), "one host, no limit: all 4 ranks");
    check(nbrhd_is(2, 4, one, 1, (uint32_t[]){2}, 1, 0), "maxsize 1: only self");
    check(nbrhd_is(1, 4, one, 3, (uint32_t[]){0, 1, 2}, 3, 1), "maxsize 3: rank 1 in {0,1,2}");
    check(nbrhd_is(3, 4, one, 3, (uint32_t[]){3}, 1, 0), "maxsize 3: rank 3 alone in the rest");
    check(nbrhd_is(3, 4, one, 2, (uint32_t[]){2, 3}, 2, 1), "maxsize 2: rank 3 in {2,3}");
    check(nbrhd_is(0, 4, one, 9, (uint32_t[]){0, 1, 2, 3}, 4, 0), "maxsize above host size: all");
    check(nbrhd_is(4, 5, two, 0, (uint32_t[]){0, 2, 4}, 3, 2), "two hosts interleaved: {0,2,4}");
    check(nbrhd_is(1, 5, two, 0, (uint32_t[]){1, 3}, 2, 0), "two hosts interleaved: {1,3}");
    check(nbrhd_is(4, 5, two, 2, (uint32_t[]){4}, 1, 0), "interleaved, maxsize 2: {4}");
    check(nbrhd_is(2, 5, two, 2, (uint32_t[]){0, 2}, 2, 1), "interleaved, maxsize 2: {0,2}");
    check(nbrhd_is(0, 1, single, 0, (uint32_t[]){0}, 1, 0), "singleton job: self");

    /* Property: for random tables the neighbourhoods partition the job, each
     * member computes the same list, and no list exceeds maxsize. */
    int ok = 1;
    srand(12345);
    for (int trial = 0; trial < 2000 && ok; trial++) {
        uint32_t size = 1 + (uint32_t)(rand() % 40), owner[64];
        unsigned maxsize = (unsigned)(rand() % 6);
        uint64_t host[64];
        for (uint32_t r = 0; r < size; r++) host[r] = (uint64_t)(rand() % 4);
        for (uint32_t r = 0; r < size; r++) owner[r] = UINT32_MAX;
        for (uint32_t r = 0; r < size && ok; r++) {
            uint32_t out[64], out2[64], idx, idx2;
            uint32_t n = gasnetc_pshm_nbrhd_compute(r, size, host, maxsize, out, &idx);
            ok &= n >= 1 && out[idx] == r && (maxsize == 0 || n <= maxsize);
            for (uint32_t i = 0; i < n && ok; i++) {
                ok &= host[out[i]] == host[r] && (i == 0 || out[i - 1] < out[i]);
                uint32_t n2 = gasnetc_pshm_nbrhd_compute(out[i], size, host, maxsize, out2, &idx2);
                ok &= n2 == n && idx2 == i && memcmp(out, out2, n * sizeof(*out)) == 0;
            }
            if (owner[r] == UINT32_MAX) owner[r] = out[0];
            ok &= owner[r] == out[0];
        }
    }
    check(ok, "2000 random host tables: neighbourhoods partition the job consistently");
}

/* A lane (core/pshm/README "Lanes"): a queue whose payloads all fit in the
 * slots (no payload area) with one producer claiming by plain stores
 * (claim1), drained as core/pshm/pshm.c does: runs of published slots,
 * given back after the whole run, the tail read by the consumer. */
static void test_lane(void)
{
    enum { DEPTH = 8, NLANE = 400000 };
    size_t len = gasnetc_pshmq_size(DEPTH, GASNETC_PSHMQ_INLINE);
    void *mem = shared_alloc(len);
    gasnetc_pshmq_t *q = gasnetc_pshmq_init(mem, DEPTH, GASNETC_PSHMQ_INLINE);
    gasnetc_pshmq_slot_t *s;
    uint64_t pos;
    int ok = 1, status = 0;

    check(q && q->nbuf == 0 && len == sizeof(*q) + DEPTH * GASNETC_PSHMQ_SLOT &&
              gasnetc_pshmq_attach(mem) == q,
          "lane: no payload area, attachable");
    for (uint32_t i = 0; i < DEPTH; i++) {
        s = gasnetc_pshmq_claim1(q, &pos);
        ok &= s != NULL && pos == i;
        if (s) gasnetc_pshmq_publish(s, pos);
    }
    check(ok && !gasnetc_pshmq_claim1(q, &pos) && gasnetc_pshmq_claim(q, &pos) == NULL,
          "lane: claim1 gives positions 0..depth-1, then finds it full");
    for (uint64_t p = 0; p < DEPTH; p++)
        gasnetc_pshmq_give_back(gasnetc_pshmq_slot_of(q, q->mask, p), p, DEPTH);
    __atomic_store_n(&q->head, DEPTH, __ATOMIC_RELAXED);

    pid_t pid = fork();
    if (pid == 0) { /* the producer: sequence numbers and a payload byte */
        alarm(120);
        for (uint32_t seq = 0; seq < NLANE; seq++) {
            uint32_t nb = seq % (GASNETC_PSHMQ_INLINE + 1);
            while (!(s = gasnetc_pshmq_claim1(q, &pos))) sched_yield();
            s->hdr = make_hdr(1, seq, nb);
            s->nbytes = nb;
            if (nb) memset(gasnetc_pshmq_payload(q, s, pos, nb), (int)(seq & 0xff), nb);
            gasnetc_pshmq_publish(s, pos);
        }
        _exit(0);
    }
    uint32_t next = 0;
    ok = 1;
    for (int idle = 0; next < NLANE && idle < 100000000;) {
        uint64_t p0 = __atomic_load_n(&q->head, __ATOMIC_RELAXED), k = 0;
        while (k < 4 && gasnetc_pshmq_peek1(q, q->mask, p0 + k)) k++;
        if (!k) {
            idle++;
            (void)__atomic_load_n(&q->tail, __ATOMIC_RELAXED); /* as the look-ahead does */
            if (!(idle & 255)) sched_yield();
            continue;
        }
        __atomic_store_n(&q->head, p0 + k, __ATOMIC_RELAXED);
        for (uint64_t i = 0; i < k; i++, next++) {
            s = gasnetc_pshmq_slot_of(q, q->mask, p0 + i);
            uint32_t nb = next % (GASNETC_PSHMQ_INLINE + 1);
            const unsigned char *pl = gasnetc_pshmq_payload(q, s, p0 + i, nb);
            ok &= s->hdr.args[0] == (int32_t)next && s->nbytes == nb &&
                  (!nb || (pl[0] == (next & 0xff) && pl[nb - 1] == (next & 0xff)));
        }
        for (uint64_t i = 0; i < k; i++)
            gasnetc_pshmq_give_back(gasnetc_pshmq_slot_of(q, q->mask, p0 + i), p0 + i, DEPTH);
    }
    waitpid(pid, &status, 0);
    check(ok && next == NLANE && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "lane: one claim1 producer, runs given back together: every message in order, intact");
    memset(mem, 0, len);
    check(gasnetc_pshmq_claim1(q, &pos) == NULL,
          "lane: zeroed (retired) block: claim1 finds it full");
    munmap(mem, len);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(300);
    test_basic();
    test_nbrhd();
    test_contention();
    test_inline();
    test_bufs();
    test_lane();
    inline_path = 1;
    test_contention();
    cdepth = 64, cmaxp = CMAXP_BIG;
    test_contention();
    inline_path = 0;
    test_contention();
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures ? 1 : 0;
}
