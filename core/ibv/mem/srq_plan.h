/* core/ibv/mem/srq_plan.h: pure arithmetic of the shared receive queue (SRQ)
 * mode: whether to use it (GASNET_USE_SRQ, GASNET_RBUF_COUNT), and how many
 * receive buffers and AM credits it gets so that no message ever meets an
 * empty SRQ (no RNR).  No verbs, no globals, no I/O: unit-tested by
 * tests/unit/test-srq-plan.c.  The reasoning is in core/ibv/mem/README
 * ("Shared receive queues").
 */
#ifndef GASNETC_IBV_SRQ_PLAN_H
#define GASNETC_IBV_SRQ_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define GASNETC_SRQ_MAX_HCAS 16 /* >= GASNETC_IBV_MAX_HCAS (checked in srq.c) */

typedef struct {
    int64_t use_srq;     /* GASNET_USE_SRQ: -1 auto, 0 never, N = when job size >= N */
    int64_t rbuf_count;  /* GASNET_RBUF_COUNT: most buffers per process; 0 = HCA limit */
    uint32_t job_size;   /* processes in the job */
    int nres;            /* HCAs in use (1..GASNETC_SRQ_MAX_HCAS) */
    int nceps[GASNETC_SRQ_MAX_HCAS]; /* connections (peer, QP) on each HCA */
    int pp;              /* resolved GASNET_AM_CREDITS_PP */
    int total;           /* resolved GASNET_AM_CREDITS_TOTAL */
    int spares;          /* GASNET_RBUF_SPARES (resolved default) */
    int max_srq_wr;      /* smallest max_srq_wr of the HCAs; 0 = no SRQ support */
} gasnetc_srq_in_t;

typedef struct {
    int use;             /* 1: one SRQ per HCA */
    int pp, total;       /* credits to resolve the credit policy with */
    int spares;          /* unposted buffers kept for replacement */
    int posted[GASNETC_SRQ_MAX_HCAS]; /* buffers kept posted on each HCA's SRQ */
    int pool;            /* buffers allocated in all: sum(posted) + spares */
    int limit[GASNETC_SRQ_MAX_HCAS];  /* srq_limit armed on each SRQ */
    int reduced;         /* 1: pp/total/spares were lowered to fit rbuf_count */
    int over;            /* 1: auto mode, the minimum pool exceeds rbuf_count */
} gasnetc_srq_plan_t;

/* Buffers the per-connection mode needs at most: 2*PP per connection (PP
 * Request buffers + up to PP Reply buffers, core/am/README I4) + spares. */
int64_t gasnetc_srq_nonsrq_need(const gasnetc_srq_in_t *in);

/* Buffers an SRQ on an HCA with n connections needs so that no arrival can
 * find it empty: n*pp Requests + total Replies. */
static inline int64_t gasnetc_srq_hca_need(int n, int pp, int total)
{
    return (int64_t)n * pp + total;
}

/* Decides.  Returns 0 with *out filled (out->use 0 = per-connection
 * receive queues, nothing else meaningful), or -1 with one line in why
 * naming the variable and the fix (GASNET_RBUF_COUNT too small). */
int gasnetc_srq_plan(const gasnetc_srq_in_t *in, gasnetc_srq_plan_t *out, char *why,
                     size_t whylen);

/* ---- small receive buffers (core/ibv/am/README "Small receive buffers") ---- */
/* Smallest GASNET_RBUF_SIZE: the largest header of a rendezvous Medium
 * (16 + 64 args, padded) + its 16-byte descriptor, rounded up. */
#define GASNETC_RBUF_SIZE_MIN 512
/* Size of the small receive buffers when GASNET_RBUF_SIZE is unset and SRQ
 * is on. */
#define GASNETC_RBUF_SIZE_AUTO 4096

/* The receive buffer size.  is_set/value: GASNET_RBUF_SIZE (unset: small
 * when srq_on, else full; 0: full; N: N, rounded up to 64 and at least
 * GASNETC_RBUF_SIZE_MIN).  full: the size that holds the largest Medium.
 * A result < full means Mediums that do not fit go by rendezvous READ. */
size_t gasnetc_rbuf_size_plan(int is_set, int64_t value, int srq_on, size_t full);

/* Pinned bytes of AM receive memory per process: the receive pool at its
 * size plus the landing buffers of rendezvous Mediums (only when
 * rbuf_size < full). */
static inline uint64_t gasnetc_am_recv_pinned(int64_t rbufs, size_t rbuf_size, int landing,
                                              size_t full)
{
    return (uint64_t)rbufs * rbuf_size + (rbuf_size < full ? (uint64_t)landing * full : 0);
}

#endif /* GASNETC_IBV_SRQ_PLAN_H */
