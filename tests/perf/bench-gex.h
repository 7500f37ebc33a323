/* tests/perf/bench-gex.h: job setup shared by the GASNet benchmark programs
 * (perf-am, perf-rma, perf-barrier, perf-inject).  Public API only.
 *
 * Rank 0 measures against rank 1 (itself in a 1-rank job); every other rank
 * only takes part in the barriers.  While rank 0 measures, the others wait in
 * gex_Coll_BarrierBlocking, which polls and so runs the AM handlers.
 * Everything here is static: each program is one translation unit plus
 * bench-common.c.
 */
#ifndef IBVTEST_PERF_BENCH_GEX_H
#define IBVTEST_PERF_BENCH_GEX_H

#include <gasnetex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/perf/bench.h"

#define BG_UNUSED __attribute__((__unused__))

static gex_Client_t bg_client BG_UNUSED;
static gex_EP_t bg_ep BG_UNUSED;
static gex_TM_t bg_tm BG_UNUSED;
static gex_Segment_t bg_segment BG_UNUSED;
static gex_Rank_t bg_rank BG_UNUSED, bg_size BG_UNUSED;
static gex_Rank_t bg_peer BG_UNUSED;  /* rank 0's partner */
static void **bg_seg BG_UNUSED;       /* every rank's segment (owner's address) */

/* One line "rank R: PROG: message" on stderr, then the job ends with code 1. */
__attribute__((__noreturn__, __format__(__printf__, 1, 2))) static void bg_die(const char *fmt,
                                                                            ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "rank %u: %s: ", (unsigned)bg_rank, bench_opts.prog ? bench_opts.prog : "perf");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    gasnet_exit(1);
}

#define BG_OK(call)                                                                   \
    do {                                                                              \
        int bg_rc_ = (call);                                                          \
        if (bg_rc_ != GASNET_OK)                                                      \
            bg_die("%s returned %d (%s)", #call, bg_rc_, gasnet_ErrorName(bg_rc_));   \
    } while (0)

static BG_UNUSED void bg_barrier(void)
{
    BG_OK(gex_Coll_BarrierBlocking(bg_tm, 0));
}

/* Address off bytes into rank r's segment, as rank r sees it (the address
 * RMA and Long AMs take). */
static BG_UNUSED void *bg_seg_at(gex_Rank_t r, uintptr_t off)
{
    return (char *)bg_seg[r] + off;
}

/* The rank that sent the AM of token t. */
static BG_UNUSED gex_Rank_t bg_token_src(gex_Token_t t)
{
    gex_Token_Info_t info;
    if (!(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK))
        bg_die("gex_Token_Info gave no GEX_TI_SRCRANK");
    return info.gex_srcrank;
}

/* Joins the job, registers handlers (may be NULL/0), attaches a segment of
 * at least segsize bytes and learns every rank's segment. */
static BG_UNUSED void bg_init(const char *name, int *argc, char ***argv, uintptr_t segsize,
                              gex_AM_Entry_t *handlers, size_t nhandlers)
{
    bench_opts.prog = name;
    BG_OK(gex_Client_Init(&bg_client, &bg_ep, &bg_tm, name, argc, argv, 0));
    bg_rank = gex_TM_QueryRank(bg_tm);
    bg_size = gex_TM_QuerySize(bg_tm);
    bg_peer = bg_size > 1 ? 1 : 0;
    if (nhandlers) BG_OK(gex_EP_RegisterHandlers(bg_ep, handlers, nhandlers));
    uintptr_t maxseg = gasnet_getMaxLocalSegmentSize();
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    if (segsize > maxseg)
        bg_die("needs a %lu-byte segment but the largest possible is %lu: use smaller --sizes "
               "or raise GASNET_MAX_SEGSIZE",
               (unsigned long)segsize, (unsigned long)maxseg);
    BG_OK(gex_Segment_Attach(&bg_segment, bg_tm, segsize));
    bg_seg = calloc(bg_size, sizeof *bg_seg);
    if (!bg_seg) bg_die("out of memory for %u segment addresses", (unsigned)bg_size);
    for (gex_Rank_t r = 0; r < bg_size; r++) {
        void *owner = NULL, *local = NULL;
        uintptr_t len = 0;
        BG_OK(gex_Segment_QueryBound(bg_tm, r, &owner, &local, &len));
        if (!owner || len < segsize) bg_die("segment of rank %u is %p+%lu, want %lu bytes",
                                            (unsigned)r, owner, (unsigned long)len,
                                            (unsigned long)segsize);
        bg_seg[r] = owner;
    }
}

/* Largest size in --sizes. */
static BG_UNUSED size_t bg_max_size(void)
{
    size_t m = 0;
    for (int i = 0; i < bench_opts.nsizes; i++)
        if (bench_opts.sizes[i] > m) m = bench_opts.sizes[i];
    return m;
}

/* Rank 0 reports (table + JSON); everybody leaves with rank 0's status. */
__attribute__((__noreturn__)) static BG_UNUSED void bg_finish(void)
{
    int rc = 0;
    bg_barrier();
    if (bg_rank == 0) rc = bench_report((int)bg_size) ? 1 : 0;
    bg_barrier();
    gasnet_exit(rc);
}

#endif /* IBVTEST_PERF_BENCH_GEX_H */
