/* tests/unit/test-extended-rma.c: RMA forms, events, NBI and VIS over a
 * fake asynchronous transport, plus the argument checks.
 *
 * Built from extended/{event,sync,rma,vis}.c with a fake core defined here
 * (no library, no job): rank 0 is this process (local, memcpy path); rank 1
 * is "remote": its segment is a buffer of this process, reached only
 * through a fake transport installed with gasnete_rma_set_transport.  The
 * transport splits every transfer into up to 3 pieces and completes them
 * one step per gasnetc_poll(), local completion first, so every NB/NBI form
 * is really pending when it returns.  Fatal-error checks run in a child
 * process and look for the message.
 *
 * Prints one line per check; exits 0 only if every check passed.
 */
#include "extended/extended_internal.h"

#include <gasnet_vis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- fake core ------------------------------------------------------------------ */
#define SEGSZ (1 << 20)
gex_Rank_t gasneti_mynode = 0, gasneti_nodes = 2;
int gasneti_init_done = 1, gasneti_attach_done = 1, gasneti_ep0_bound = 0;
struct gasneti_tm_s gasneti_the_tm = {.rank = 0, .size = 2};
gasneti_seginfo_t *gasneti_seginfo;
static gasneti_seginfo_t seginfo[2];
int gasneti_handler_depth = 0; /* gasnetc_in_handler (core/base/job.h) reads it */

int gasnetc_is_local(gex_Rank_t rank) { return rank == 0; }
int gasnetc_in_segment(gex_Rank_t rank, const void *addr, size_t len)
{
    const char *a = addr, *b = seginfo[rank].addr;
    return a >= b && len <= seginfo[rank].size && (size_t)(a - b) <= seginfo[rank].size - len;
}
void *gasnetc_local_addr(gex_Rank_t rank, const void *addr, size_t len)
{
    return (rank == 0 && gasnetc_in_segment(0, addr, len)) ? (void *)addr : NULL;
}
void gasneti_pollwait_hint(void) {}
void gasneti_fatalerror(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FATAL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    _exit(42);
}
void gasneti_warning(const char *fmt, ...) { (void)fmt; }

/* ---- fake transport ------------------------------------------------------------- */
typedef struct {
    int is_put;
    char *dst;
    const char *src;
    size_t len;
    gasnete_cmpl_t c;
    int lc_signalled;
} piece_t;
static piece_t pending[4096];
static size_t npending = 0;
static int busy = 0;       /* IMMEDIATE calls fail while set */
static size_t polls = 0;   /* gasnetc_poll calls */
static size_t started = 0; /* pieces begun */

static int fake_xfer(int is_put, char *dst, const char *src, size_t nbytes,
                     const gasnete_cmpl_t *c, gex_Flags_t flags)
{
    if (busy && (flags & GEX_FLAG_IMMEDIATE)) return 1;
    size_t n = nbytes < 3 ? nbytes : 3;
    gasnete_cmpl_begin(c, (uint32_t)n);
    started += n;
    for (size_t i = 0, off = 0; i < n; i++) {
        size_t len = nbytes / n + (i < nbytes % n);
        piece_t p = {is_put, dst + off, src + off, len, *c, 0};
        pending[npending++] = p;
        off += len;
    }
    return 0;
}
static int fake_put(gex_Rank_t r, void *dest, const void *src, size_t n, const gasnete_cmpl_t *c,
                    gex_Flags_t flags)
{
    return fake_xfer(1, dest, src, n, c, flags);
}
static int fake_get(void *dest, gex_Rank_t r, const void *src, size_t n, const gasnete_cmpl_t *c,
                    gex_Flags_t flags)
{
    return fake_xfer(0, dest, src, n, c, flags);
}
static const gasnete_rma_transport_t fake = {"fake", fake_put, fake_get, NULL};

/* One step: the oldest piece either signals LC (Put: copies the source
 * first) or completes. */
void gasnetc_poll(void)
{
    polls++;
    if (!npending) return;
    piece_t *p = &pending[0];
    if (p->is_put && !p->lc_signalled) {
        memcpy(p->dst, p->src, p->len);
        p->lc_signalled = 1;
        gasnete_cmpl_lc_done(&p->c);
        return;
    }
    if (!p->is_put) memcpy(p->dst, p->src, p->len);
    gasnete_cmpl_op_done(&p->c);
    memmove(&pending[0], &pending[1], --npending * sizeof(piece_t));
}
void gasnete_progress(void) {}

/* ---- checks --------------------------------------------------------------------- */
static int failures = 0, checks = 0;
static void check(int ok, const char *what)
{
    checks++;
    if (!ok) failures++;
    printf("%s - %s\n", ok ? "ok" : "FAIL", what);
}

static char *seg0, *seg1; /* my segment, the remote one */
static gex_TM_t tm = &gasneti_the_tm;

static void fill(char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (char)(seed + i * 7);
}
static int same(const char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char)(seed + i * 7)) return 0;
    return 1;
}

static void test_local(void)
{
    char src[100];
    fill(src, sizeof(src), 1);
    gex_Event_t lc = (gex_Event_t)(uintptr_t)0x1234;
    gex_Event_t ev = gex_RMA_PutNB(tm, 0, seg0, src, sizeof(src), &lc, 0);
    check(ev == GEX_EVENT_INVALID && lc == GEX_EVENT_INVALID && same(seg0, 100, 1),
          "local PutNB: done at once, root and lc INVALID");
    char dst[100] = {0};
    ev = gex_RMA_GetNB(tm, dst, 0, seg0, sizeof(dst), 0);
    check(ev == GEX_EVENT_INVALID && same(dst, 100, 1), "local GetNB: done at once");
    check(gex_RMA_PutNBIVal(tm, 0, seg0 + 200, 0xabcd, 2, 0) == 0 &&
              gex_RMA_GetBlockingVal(tm, 0, seg0 + 200, 2, 0) == 0xabcd,
          "local Val forms");
    check(npending == 0 && started == 0, "local path never reaches the transport");
}

static void test_remote_put(void)
{
    char src[300];
    fill(src, sizeof(src), 2);
    size_t p0 = polls;
    check(gex_RMA_PutBlocking(tm, 1, seg1, src, sizeof(src), 0) == 0 && same(seg1, 300, 2) &&
              npending == 0 && polls > p0,
          "remote PutBlocking: returns after the transport completed every piece");

    fill(src, sizeof(src), 3);
    gex_Event_t ev = gex_RMA_PutNB(tm, 1, seg1, src, sizeof(src), GEX_EVENT_DEFER, 0);
    check(ev != GEX_EVENT_INVALID && gex_Event_Test(ev) == GASNET_ERR_NOT_READY,
          "remote PutNB(DEFER): pending event");
    gex_Event_Wait(ev);
    check(same(seg1, 300, 3) && npending == 0, "remote PutNB(DEFER): Wait completes it");

    fill(src, sizeof(src), 4);
    ev = gex_RMA_PutNB(tm, 1, seg1, src, sizeof(src), GEX_EVENT_NOW, 0);
    int lc_done_at_return = 1;
    for (size_t i = 0; i < npending; i++) lc_done_at_return &= pending[i].lc_signalled;
    check(ev != GEX_EVENT_INVALID && lc_done_at_return, "remote PutNB(NOW): LC before return");
    memset(src, 0, sizeof(src)); /* allowed after NOW */
    gex_Event_Wait(ev);
    check(same(seg1, 300, 4), "remote PutNB(NOW): target has the original bytes");

    fill(src, sizeof(src), 5);
    gex_Event_t lc = GEX_EVENT_INVALID;
    ev = gex_RMA_PutNB(tm, 1, seg1, src, sizeof(src), &lc, 0);
    check(lc != GEX_EVENT_INVALID && gex_Event_QueryLeaf(ev, GEX_EC_LC) == lc,
          "remote PutNB(&lc): leaf event, same as QueryLeaf");
    check(gex_Event_Test(lc) == GASNET_ERR_NOT_READY, "remote PutNB(&lc): LC pending");
    gex_Event_Wait(lc);
    check(gex_Event_Test(ev) == GASNET_ERR_NOT_READY, "remote PutNB(&lc): root still pending");
    gex_Event_Wait(ev);
    check(same(seg1, 300, 5), "remote PutNB(&lc): data");

    /* NBI: GROUP counts LC; PUT waits for completion. */
    fill(src, sizeof(src), 6);
    check(gex_RMA_PutNBI(tm, 1, seg1, src, 150, GEX_EVENT_GROUP, 0) == 0 &&
              gex_RMA_PutNBI(tm, 1, seg1 + 150, src + 150, 150, GEX_EVENT_DEFER, 0) == 0,
          "remote PutNBI(GROUP, DEFER) initiated");
    check(gex_NBI_Test(GEX_EC_PUT, 0) == GASNET_ERR_NOT_READY &&
              gex_NBI_Test(GEX_EC_LC, 0) == GASNET_ERR_NOT_READY &&
              gex_NBI_Test(GEX_EC_GET, 0) == GASNET_OK,
          "remote PutNBI: PUT and LC pending, GET done");
    gex_NBI_Wait(GEX_EC_LC, 0);
    check(npending > 0, "remote PutNBI: NBI_Wait(LC) returns before the puts complete");
    gex_NBI_Wait(GEX_EC_ALL, 0);
    check(same(seg1, 300, 6) && npending == 0, "remote PutNBI: NBI_Wait(ALL) completes");

    /* Val forms: the value must be consumed before return. */
    check(gex_RMA_PutBlockingVal(tm, 1, seg1 + 400, 0x1122334455667788ULL, 8, 0) == 0 &&
              *(uint64_t *)(void *)(seg1 + 400) == 0x1122334455667788ULL,
          "remote PutBlockingVal");
    ev = gex_RMA_PutNBVal(tm, 1, seg1 + 408, 0x55, 1, 0);
    gex_Event_Wait(ev);
    check(seg1[408] == 0x55, "remote PutNBVal");
    check(gex_RMA_PutNBIVal(tm, 1, seg1 + 410, 0x7788, 2, 0) == 0, "remote PutNBIVal initiated");
    gex_NBI_Wait(GEX_EC_PUT, 0);
    check(*(uint16_t *)(void *)(seg1 + 410) == 0x7788, "remote PutNBIVal completes under PUT");
}

static void test_remote_get(void)
{
    fill(seg1, 500, 7);
    char dst[500];
    memset(dst, 0, sizeof(dst));
    check(gex_RMA_GetBlocking(tm, dst, 1, seg1, 500, 0) == 0 && same(dst, 500, 7),
          "remote GetBlocking");
    memset(dst, 0, sizeof(dst));
    gex_Event_t evs[4] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID,
                          GEX_EVENT_INVALID};
    evs[1] = gex_RMA_GetNB(tm, dst, 1, seg1, 250, 0);
    evs[3] = gex_RMA_GetNB(tm, dst + 250, 1, seg1 + 250, 250, 0);
    check(gex_Event_TestAll(evs, 4, 0) == GASNET_ERR_NOT_READY &&
              gex_Event_TestSome(evs, 4, 0) == GASNET_ERR_NOT_READY,
          "remote GetNB x2: TestAll/TestSome not ready");
    gex_Event_WaitSome(evs, 4, 0);
    check(evs[1] == GEX_EVENT_INVALID && evs[3] != GEX_EVENT_INVALID,
          "WaitSome: the first completed entry becomes INVALID, the other stays");
    gex_Event_WaitAll(evs, 4, 0);
    check(evs[3] == GEX_EVENT_INVALID && same(dst, 500, 7), "WaitAll: all INVALID, data");
    check(gex_Event_TestSome(evs, 4, 0) == GASNET_OK && gex_Event_TestAll(evs, 4, 0) == GASNET_OK,
          "TestSome/TestAll of an all-INVALID array succeed");

    memset(dst, 0, sizeof(dst));
    check(gex_RMA_GetNBI(tm, dst, 1, seg1, 500, 0) == 0 &&
              gex_NBI_Test(GEX_EC_GET, 0) == GASNET_ERR_NOT_READY &&
              gex_NBI_Test(GEX_EC_PUT, 0) == GASNET_OK,
          "remote GetNBI: GET pending, PUT done");
    gex_NBI_Wait(GEX_EC_GET, 0);
    check(same(dst, 500, 7), "remote GetNBI: data after NBI_Wait(GET)");
    check(gex_RMA_GetBlockingVal(tm, 1, seg1 + 3, 3, 0) ==
              ((uint64_t)(uint8_t)seg1[3] | (uint64_t)(uint8_t)seg1[4] << 8 |
               (uint64_t)(uint8_t)seg1[5] << 16),
          "remote GetBlockingVal (3 bytes, little-endian host)");
}

static void test_region_and_immediate(void)
{
    char src[64], dst[64];
    fill(src, 64, 8);
    gex_NBI_BeginAccessRegion(0);
    gex_RMA_PutNBI(tm, 1, seg1 + 1000, src, 64, GEX_EVENT_DEFER, 0);
    gex_RMA_GetNBI(tm, dst, 1, seg1, 64, 0);
    gex_Event_t ev = gex_NBI_EndAccessRegion(0);
    check(ev != GEX_EVENT_INVALID && gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK,
          "region: event pending, default NBI set untouched");
    gex_Event_Wait(ev);
    check(same(seg1 + 1000, 64, 8) && npending == 0, "region: Wait completes its ops");

    busy = 1;
    check(gex_RMA_PutNB(tm, 1, seg1, src, 64, GEX_EVENT_DEFER, GEX_FLAG_IMMEDIATE) ==
              GEX_EVENT_NO_OP,
          "IMMEDIATE: PutNB returns GEX_EVENT_NO_OP when the transport lacks resources");
    check(gex_RMA_GetNBI(tm, dst, 1, seg1, 64, GEX_FLAG_IMMEDIATE) != 0 &&
              gex_RMA_PutBlocking(tm, 1, seg1, src, 64, GEX_FLAG_IMMEDIATE) != 0,
          "IMMEDIATE: NBI and Blocking return non-zero");
    check(npending == 0 && gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK,
          "IMMEDIATE: nothing started, nothing counted");
    busy = 0;
}

static void test_vis(void)
{
    /* Vector: 3 source pieces -> 2 destination pieces. */
    char a[10], b[20], c[30];
    fill(a, 10, 20);
    fill(b, 20, 30);
    fill(c, 30, 40);
    gex_Memvec_t src[3] = {{a, 10}, {b, 20}, {c, 30}};
    gex_Memvec_t dstv[2] = {{seg1 + 2000, 25}, {seg1 + 3000, 35}};
    gex_Event_t ev = gex_VIS_VectorPutNB(tm, 1, 2, dstv, 3, src, 0);
    gex_Event_Wait(ev);
    char flat[60];
    memcpy(flat, seg1 + 2000, 25);
    memcpy(flat + 25, seg1 + 3000, 35);
    check(same(flat, 10, 20) && same(flat + 10, 20, 30) && same(flat + 30, 30, 40),
          "VIS VectorPutNB: pieces re-cut across 2 destinations");
    char back[60];
    gex_Memvec_t bv[1] = {{back, 60}};
    gex_VIS_VectorGetBlocking(tm, 1, bv, 1, 2, dstv, 0);
    check(memcmp(back, flat, 60) == 0, "VIS VectorGetBlocking");

    /* Indexed: 4 x 8 bytes -> 2 x 16. */
    char s0[8], s1[8], s2[8], s3[8];
    fill(s0, 8, 1), fill(s1, 8, 2), fill(s2, 8, 3), fill(s3, 8, 4);
    void *isrc[4] = {s0, s1, s2, s3};
    void *idst[2] = {seg1 + 4000, seg1 + 5000};
    gex_VIS_IndexedPutNBI(tm, 1, 2, idst, 16, 4, isrc, 8, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    check(same(seg1 + 4000, 8, 1) && same(seg1 + 4008, 8, 2) && same(seg1 + 5000, 8, 3) &&
              same(seg1 + 5008, 8, 4),
          "VIS IndexedPutNBI");

    /* Strided: a 3x4 block of 2-byte elements, transposed. */
    uint16_t m[3][4], t[4][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) m[i][j] = (uint16_t)(100 * i + j);
    ptrdiff_t sstr[2] = {sizeof(uint16_t), sizeof(m[0])}; /* j fastest, then i */
    ptrdiff_t dstr[2] = {sizeof(t[0]), sizeof(uint16_t)};
    size_t cnt[2] = {4, 3};
    uint16_t *rt = (uint16_t *)(void *)(seg1 + 6000);
    gex_VIS_StridedPutBlocking(tm, 1, rt, dstr, m, sstr, sizeof(uint16_t), cnt, 2, 0);
    int ok = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) ok &= (rt[j * 3 + i] == m[i][j]);
    check(ok, "VIS StridedPutBlocking: transpose through strides");
    memset(t, 0, sizeof(t));
    ptrdiff_t lin[2] = {sizeof(uint16_t), 3 * sizeof(uint16_t)};
    size_t cnt2[2] = {3, 4};
    ev = gex_VIS_StridedGetNB(tm, t, lin, 1, rt, lin, sizeof(uint16_t), cnt2, 2, 0);
    gex_Event_Wait(ev);
    ok = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) ok &= (t[j][i] == m[i][j]);
    check(ok, "VIS StridedGetNB");
    size_t zero[1] = {0};
    check(gex_VIS_StridedPutNBI(tm, 1, rt, dstr, m, sstr, 2, zero, 1, 0) == 0 && npending == 0,
          "VIS strided with a zero count is a no-op");
}

/* Runs fn in a child; passes if it dies with the fatal code and its stderr
 * contains `expect`. */
static void check_fatal(void (*fn)(void), const char *expect, const char *what)
{
    int fds[2];
    if (pipe(fds) != 0) {
        check(0, what);
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    char buf[1024];
    ssize_t n, got = 0;
    while ((n = read(fds[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0) got += n;
    buf[got > 0 ? got : 0] = 0;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    check(WIFEXITED(st) && WEXITSTATUS(st) == 42 && strstr(buf, expect) != NULL, what);
}

static char xbuf[16];
static void bad_rank(void) { gex_RMA_PutBlocking(tm, 2, seg1, xbuf, 4, 0); }
static void bad_range(void) { gex_RMA_GetBlocking(tm, xbuf, 1, seg1 + SEGSZ - 2, 4, 0); }
static void bad_nbi_lc(void)
{
    gex_Event_t e;
    gex_RMA_PutNBI(tm, 1, seg1, xbuf, 4, &e, 0);
}
static void bad_nb_lc(void) { gex_RMA_PutNB(tm, 1, seg1, xbuf, 4, GEX_EVENT_GROUP, 0); }
static void bad_val(void) { gex_RMA_PutBlockingVal(tm, 1, seg1, 1, 9, 0); }
static void in_a_handler(void)
{
    gasneti_handler_depth = 1;
    gex_RMA_PutBlocking(tm, 1, seg1, xbuf, 4, 0);
}
static void twice(void)
{
    gex_Event_t ev = gex_RMA_GetNB(tm, xbuf, 1, seg1, 4, 0);
    gex_Event_Wait(ev);
    gex_Event_Wait(ev);
}
static void no_op_wait(void) { gex_Event_Wait(GEX_EVENT_NO_OP); }
static void nbi_in_region(void)
{
    gex_NBI_BeginAccessRegion(0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
}
static void unmatched_end(void) { gex_NBI_EndAccessRegion(0); }
static void vis_sizes(void)
{
    gex_Memvec_t d = {seg1, 8}, s = {xbuf, 4};
    gex_VIS_VectorPutBlocking(tm, 1, 1, &d, 1, &s, 0);
}

static void test_checks(void)
{
    check_fatal(bad_rank, "rank 2 is out of range", "check: rank out of range");
    check_fatal(bad_range, "outside rank 1's segment", "check: remote range outside the segment");
    check_fatal(bad_nbi_lc, "gex_RMA_PutNBI: lc_opt", "check: NBI Put with an event pointer");
    check_fatal(bad_nb_lc, "lc_opt GEX_EVENT_GROUP is not allowed", "check: NB Put with GROUP");
    check_fatal(bad_val, "nbytes=9 is out of range", "check: Val nbytes > 8");
    check_fatal(in_a_handler, "called from an AM handler", "check: RMA in handler context");
    check_fatal(twice, "already synchronized", "check: waiting twice on one event");
    check_fatal(no_op_wait, "GEX_EVENT_NO_OP", "check: waiting on GEX_EVENT_NO_OP");
    check_fatal(nbi_in_region, "inside an NBI access region", "check: NBI sync inside a region");
    check_fatal(unmatched_end, "without a matching", "check: EndAccessRegion without Begin");
    check_fatal(vis_sizes, "8 bytes but source list holds 4", "check: VIS list sizes differ");
}

int main(void)
{
    seg0 = calloc(1, SEGSZ);
    seg1 = calloc(1, SEGSZ);
    seginfo[0].addr = seg0;
    seginfo[0].size = SEGSZ;
    seginfo[1].addr = seg1;
    seginfo[1].size = SEGSZ;
    gasneti_seginfo = seginfo;
    gasnete_rma_set_transport(&fake);
    setvbuf(stdout, NULL, _IOLBF, 0);

    test_local();
    test_remote_put();
    test_remote_get();
    test_region_and_immediate();
    test_vis();
    test_checks();
    printf("%d/%d checks passed\n", checks - failures, checks);
    return failures ? 1 : 0;
}
