/* core/base/transport.h: the interfaces between the transports (core/ibv,
 * core/pshm) and the layers above them, as ops tables of function
 * pointers.  The transports fill the tables that describe them; the core
 * (core/am_fpam.c, poll.c, exit.c) and the extended layer call through them; the
 * wiring file core/init.c installs each table at gex_Client_Init.  So a
 * transport never names a function of the core or of extended/, and those
 * name no function of a transport (ARCHITECTURE section 3, tests/deps/layers).
 *
 *   gasnetc_am_net_ops_t     the network transport's AM entries (verbs)
 *   gasnetc_am_nbr_ops_t     the neighbour transport's AM entries (PSHM)
 *   gasnetc_nbr_fast         the neighbour queues the inline AM fast path
 *                            of core/am_fpam.c writes into (filled by PSHM)
 *   gasnetc_transport_up_t   what a transport needs from the core
 *   gasnete_rma_transport_t  the network RMA entries (extended/rma.c)
 *   gasnete_cmpl_t           the completion counters RMA and AM lc_opt
 *                            hand to a transport
 * Not installed.
 */
#ifndef GASNETC_BASE_TRANSPORT_H
#define GASNETC_BASE_TRANSPORT_H

#include <stdarg.h>
#include "core/base/job.h"

/* Largest Medium payload (bytes) every transport carries. */
#define GASNETC_MAX_MEDIUM ((size_t)GASNETC_MAX_MEDIUM_LUB)
/* Core handler index 1: the verbs transport's hidden credit-only Reply;
 * never registered or dispatched (core/ibv/am/recv.c consumes it). */
#define GASNETC_HANDLER_CREDIT_ONLY 1

/* ---- AM over the network (core/ibv fills it: gasnetc_ibv_am_ops) -------------- */
typedef struct gasnetc_am_net_ops {
    const char *name;
    /* 1 once a network transport is set up on this rank.  Any context. */
    int (*active)(void);
    /* Sends one AM: a Request to job rank dest (net NULL) or a Reply on the
     * connection net its Request came on.  Returns once the payload may be
     * reused, or 1 without sending when immediate and a Request lacks
     * credit.  lc: NULL, or (Requests) a gasnete_ctr_t the send completion
     * completes, for asynchronous local completion.  Thread-safe. */
    int (*send)(uint32_t dest, void *net, gasnetc_am_hdr_t *hdr, const void *payload,
                size_t nbytes, int immediate, void *lc);
    /* The Short fast path (release builds): the header packed from the
     * nargs int arguments in *ap.  0 when sent; 1, *ap untouched, when the
     * general path must take it. */
    int (*short_fast)(uint32_t dest, void *net, unsigned is_req, unsigned handler,
                      unsigned nargs, unsigned src_ep, unsigned dst_ep, va_list *ap);
    /* Progress: reaps send completions, and unless replies_only receives
     * AMs (runs handlers).  Returns the completions handled. */
    int (*poll)(int replies_only);
    /* Progress threads: start at the end of gex_Client_Init (defer:
     * GEX_FLAG_DEFER_THREADS, only prepared for the client), the list the
     * client must run (gex_ProgressThreadInfo_t array), stop at exit
     * (waits at most timeout_s for a thread busy in a handler). */
    void (*start)(int defer);
    void (*query_threads)(unsigned *count_p, const void **info_p);
    void (*stop)(double timeout_s);
    /* Waits until every send posted so far to job rank dest (UINT32_MAX:
     * to every rank) has completed, i.e. the peer's HCA acknowledged it,
     * or timeout_s passed.  For the exit: a QP dies with its process, so a
     * message sent just before _exit (a Reply to an exit request, rank 0's
     * DONE) may otherwise never leave this host. */
    void (*flush)(uint32_t dest, double timeout_s);
    /* Starts setting up every on-demand connection not made yet, without
     * waiting (the leader of a non-collective exit must reach every rank). */
    void (*connect_all)(void);
} gasnetc_am_net_ops_t;

/* ---- AM to neighbours (core/pshm fills it: gasnetc_pshm_am_ops) ---------------- */
typedef struct gasnetc_am_nbr_ops {
    const char *name;
    /* Enqueues one AM to neighbour dest (Request or Reply per hdr->is_req),
     * copying hdr and nbytes of payload.  Never blocks: 0, or 1 when the
     * queue is full (the caller polls and retries).  try_send_fifo: through
     * dest's shared queue only, never a lane, so that the AMs one sender
     * sends this way arrive in order. */
    int (*try_send)(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                    size_t nbytes);
    int (*try_send_fifo)(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                         size_t nbytes);
    /* Delivers a batch of arrived AMs (replies_only: only Replies); returns
     * how many. */
    int (*poll)(int replies_only);
    /* 1 when a message seems to wait (a racy look, a few loads; poll
     * decides).  For wait loops between polls. */
    int (*pending)(void);
    /* The job-wide exit word: set it (fatal exits), read it (every poll). */
    void (*set_exit)(int code);
    int (*exit_requested)(int *code);
    /* Drops the shared mappings (exit; async-signal-safe, idempotent). */
    void (*fini)(void);
} gasnetc_am_nbr_ops_t;

/* The AM fast path to neighbours (core/am_fpam.c, release builds; core/pshm/README
 * "AM fast path"): the neighbourhood as the run of job ranks [first,
 * first + n), me = my index in it, the Request and Reply queues per index,
 * and reqlane/replane: the lanes from me per index (NULL at mine), or NULL
 * when the neighbourhood has none.  core/pshm fills it at init when the
 * neighbourhood is such a run of at least two ranks with power-of-two
 * queues (queue.h's inline claim and publish then apply); n = 0 otherwise.
 * The pointers stay valid after fini (the queues read as full then). */
struct gasnetc_pshmq;
typedef struct {
    uint32_t first, n, me;
    struct gasnetc_pshmq **reqq, **repq;
    struct gasnetc_pshmq **reqlane, **replane;
} gasnetc_nbr_fast_t;
extern gasnetc_nbr_fast_t gasnetc_nbr_fast;

/* ---- what a transport needs from the core (core/init.c fills it) --------------- */
typedef struct gasnetc_transport_up {
    /* 1 if job rank r is reached through shared memory (self included). */
    int (*is_local)(uint32_t r);
    /* Runs the handler of an arrived AM; net: the connection it came on
     * (a Reply goes back on it).  1 if a Request handler sent a Reply. */
    int (*deliver)(const gasnetc_am_hdr_t *hdr, void *payload, void *net);
    /* 1 if an arrived Long's [dest_addr, +nbytes) lies in the segment of
     * its destination endpoint.  Handler-safe. */
    int (*long_dest_ok)(const gasnetc_am_hdr_t *hdr);
    /* A full poll (runs handlers; not in handlers), and one turn of a wait
     * loop that does not poll (the idle policy; progressed > 0 ends an idle
     * run). */
    void (*poll)(void);
    void (*poll_idle)(int progressed);
    /* Runs the exit if another rank asked for it (every wait checks). */
    void (*exit_check)(void);
    /* Library-internal AMs: registers handlers (indices < 128, init only),
     * sends a Medium Request to job rank dest on the primordial team, a
     * Medium Reply from a Request handler (both block until the payload is
     * reusable), and the job rank a token's AM came from. */
    void (*register_handlers)(const gex_AM_Entry_t *table, size_t n);
    void (*request_medium)(uint32_t dest, gex_AM_Index_t handler, const void *buf,
                           size_t nbytes);
    void (*reply_medium)(gex_Token_t token, gex_AM_Index_t handler, const void *buf,
                         size_t nbytes);
    uint32_t (*token_src)(gex_Token_t token);
} gasnetc_transport_up_t;

/* ---- completion counters --------------------------------------------------------- */
/* init: pieces started (written only by the initiating thread, before the
 * initiating call returns).  done: pieces finished (atomic, any thread).
 * A pair is complete when done == init; both wrap modulo 2^32.
 * Completion model: extended/extended_internal.h, extended/README. */
typedef struct {
    uint32_t init;
    uint32_t done;
} gasnete_ctr_t;

static inline void gasnete_ctr_add_init(gasnete_ctr_t *c, uint32_t n)
{
    c->init += n;
}
static inline void gasnete_ctr_add_done(gasnete_ctr_t *c)
{
    __atomic_fetch_add(&c->done, 1U, __ATOMIC_RELEASE);
}
static inline int gasnete_ctr_complete(const gasnete_ctr_t *c)
{
    return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == c->init;
}

/* What a transport signals.  op: operation (remote) completion.  lc: local
 * completion of the source buffer, or NULL when the initiator does not track
 * it separately (then op completion implies it). */
typedef struct {
    gasnete_ctr_t *op;
    gasnete_ctr_t *lc;
} gasnete_cmpl_t;

/* Transport: npieces pieces of the operation are about to be posted.  Call
 * from the initiating thread before posting the first piece and before the
 * initiating call returns.  Handler-safe; no locks. */
static inline void gasnete_cmpl_begin(const gasnete_cmpl_t *c, uint32_t npieces)
{
    gasnete_ctr_add_init(c->op, npieces);
    if (c->lc) gasnete_ctr_add_init(c->lc, npieces);
}
/* Transport: one piece reached operation completion (Put: data visible at
 * the target; Get: data in the local buffer).  Any thread, any context. */
static inline void gasnete_cmpl_op_done(const gasnete_cmpl_t *c)
{
    gasnete_ctr_add_done(c->op);
}
/* Transport: the source buffer of one piece may be reused.  Must happen no
 * later than gasnete_cmpl_op_done for the same piece.  Any thread. */
static inline void gasnete_cmpl_lc_done(const gasnete_cmpl_t *c)
{
    if (c->lc) gasnete_ctr_add_done(c->lc);
}

/* ---- RMA over the network (core/ibv fills it: gasnetc_ibv_rma_ops) ------------- */
/* Put flag extended/ adds for the transport: the initiator waits for local
 * completion before it returns (lc_opt GEX_EVENT_NOW, Val forms), so the
 * transport may copy the source (bounce buffers, GASNET_NONBULKPUT_BOUNCE_
 * LIMIT) instead of making the caller wait for the network.  A hint: any
 * choice the transport makes is correct with or without it.  Bit 31 is no
 * public GEX_FLAG_* (GASNet-EX's flags use bits 0..15). */
#define GASNETE_FLAG_LC_NOW (1U << 31)

/* A transport for ranks outside the neighbourhood (verbs).  Both functions
 * return 0 once the transfer is initiated (gasnete_cmpl_begin already
 * called, possibly already completed), or non-zero without starting
 * anything, only when flags has GEX_FLAG_IMMEDIATE and resources lack.
 * src (Put) must not be read after the matching lc_done/op_done. */
typedef struct gasnete_rma_transport {
    const char *name;
    int (*put)(gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
               const gasnete_cmpl_t *cmpl, gex_Flags_t flags);
    int (*get)(void *dest, gex_Rank_t jobrank, const void *src, size_t nbytes,
               const gasnete_cmpl_t *cmpl, gex_Flags_t flags);
    /* Optional (NULL: none): reaps the transport's own completions without
     * running handlers; returns how many.  Waits for RMA counters call it
     * between full polls (extended/README "Waiting for RMA"). */
    int (*reap)(void);
} gasnete_rma_transport_t;

#endif /* GASNETC_BASE_TRANSPORT_H */
