/* core/am/credit.h: AM flow-control credits, transport-independent.
 *
 * Pure logic: no verbs, no I/O, no allocation, no globals.  One
 * gasnetc_credit_peer_t per remote peer reached through the network and one
 * gasnetc_credit_total_t per process (the GASNET_AM_CREDITS_TOTAL limit,
 * shared by all its peers).  The protocol, its invariants and the order in
 * which the verbs layer must call these functions are in core/am/README.
 *
 * Two halves, as STYLE.md asks:
 *   policy   (credit_policy.c): the limits (PP, TOTAL, the slack reduced so
 *            that no schedule can deadlock) and the receive-queue depth.
 *   counting (credit.c): take a credit, queue Requests that lack one, bank
 *            credits, piggyback them, return them, drain the backlog.
 *
 * Locking: in GASNET_PAR builds every function on a peer takes that peer's
 * lock (a leaf lock: never held while calling out) and updates the shared
 * total with atomics; in GASNET_SEQ builds there is no locking at all.
 * Every counting function is safe inside an AM handler (none blocks, none
 * polls, none allocates).
 */
#ifndef GASNETC_AM_CREDIT_H
#define GASNETC_AM_CREDIT_H

#include <stddef.h>
#include <stdint.h>
#if defined(GASNET_PAR)
#include <pthread.h>
#endif

/* ---- policy: limits ------------------------------------------------------------ */

/* Largest credit count one header can carry (the 8-bit credits field of
 * core/am/wire.h). */
#define GASNETC_CREDIT_WIRE_MAX 255
/* Largest GASNET_AM_CREDITS_PP (the params.def range). */
#define GASNETC_CREDIT_PP_MAX 256

typedef struct {
    int pp;    /* GASNET_AM_CREDITS_PP: Requests in flight to one peer */
    int total; /* GASNET_AM_CREDITS_TOTAL after defaults and clamping */
    int slack; /* GASNET_AM_CREDITS_SLACK after the deadlock reduction */
} gasnetc_credit_config_t;

/* Resolves the three credit parameters for a process with npeers network
 * peers.  total_req < 0 means "unset" (default min(256, npeers*pp)), 0 means
 * "the most usable"; hca_max (> 0) is what the HCA allows, <= 0 if unknown.
 * The slack is silently reduced to keep the protocol deadlock-free
 * (README: "Why no schedule deadlocks").  Returns 0, or -1 with a one-line
 * message naming the variable in why[0..whylen).  Control path, no locks. */
int gasnetc_credit_config_resolve(gasnetc_credit_config_t *cfg, int pp, int total_req,
                                  int slack_req, int npeers, int hca_max, char *why,
                                  size_t whylen);

/* Largest slack that cannot deadlock with these pp, total and npeers:
 * min(pp - 1, (total - 1) / npeers), at least 0.  Pure function. */
int gasnetc_credit_slack_max(int pp, int total, int npeers);

/* Receive buffers one peer's receive queue may hold at once when credits
 * are used: pp Request buffers plus at most pp Reply buffers.  Pure. */
int gasnetc_credit_rq_depth(const gasnetc_credit_config_t *cfg);

/* ---- counting: objects ----------------------------------------------------------- */

/* Flags returned when a Request is granted a credit. */
#define GASNETC_CREDIT_QUEUED 0u    /* no credit: the Request waits in the backlog */
#define GASNETC_CREDIT_GRANTED 1u   /* credit taken: send the Request now */
#define GASNETC_CREDIT_POST_RBUF 2u /* ... after posting one Reply receive buffer */

/* Backlog link, stored by the caller (e.g. inside its pending-send
 * descriptor): queuing never allocates.  item is the caller's, untouched. */
typedef struct gasnetc_credit_node {
    struct gasnetc_credit_node *next; /* FIFO link; in a granted chain: next granted */
    void *item;                       /* caller's pending Request */
    unsigned flags;                   /* set when granted: GRANTED [| POST_RBUF] */
} gasnetc_credit_node_t;

/* The per-process limit (GASNET_AM_CREDITS_TOTAL), shared by all peers. */
typedef struct {
    int limit;
    int avail;   /* credits not held by any peer's in-flight Requests */
    int waiting; /* Requests waiting in the backlogs of all peers using this */
} gasnetc_credit_total_t;

/* One per remote peer.  Fields are read-only outside credit.c (tests and
 * statistics may read them; under PAR only with the peer quiescent). */
typedef struct {
    gasnetc_credit_total_t *total;
    int pp;           /* credits per peer (window) */
    int slack;        /* most credits banked before a hidden Reply */
    int avail;        /* credits for our Requests to this peer */
    int bank;         /* credits owed to this peer for its unanswered Requests */
    int rbuf_surplus; /* posted Reply buffers that no Reply will consume */
    int backlog_len;
    gasnetc_credit_node_t *head, *tail; /* backlog, FIFO */
    /* statistics */
    uint64_t stat_granted;     /* Requests granted a credit */
    uint64_t stat_queued;      /* Requests that had to wait in the backlog */
    uint64_t stat_hidden;      /* hidden credit-only Replies asked for */
    uint64_t stat_piggybacked; /* banked credits sent on other messages */
#if defined(GASNET_PAR)
    pthread_mutex_t lock;
#endif
} gasnetc_credit_peer_t;

/* ---- counting: functions --------------------------------------------------------- */

/* Sets up the shared total with limit credits (>= 1).  Control path. */
void gasnetc_credit_total_init(gasnetc_credit_total_t *total, int limit);

/* Requests waiting for credit on all peers of total (a hint for the poll
 * loop: when > 0 call gasnetc_credit_drain on the peers with a backlog).
 * Lock-free read; handler-safe. */
int gasnetc_credit_total_waiting(const gasnetc_credit_total_t *total);

/* Sets up one peer: pp credits (1..GASNETC_CREDIT_PP_MAX), the slack from
 * gasnetc_credit_config_resolve, and the shared total.  Control path. */
void gasnetc_credit_init(gasnetc_credit_peer_t *peer, const gasnetc_credit_config_t *cfg,
                         gasnetc_credit_total_t *total);

/* Tears a peer down.  Returns the number of Requests left in its backlog
 * (0 when quiescent; the nodes are the caller's).  Control path. */
int gasnetc_credit_fini(gasnetc_credit_peer_t *peer);

/* Before sending a Request: takes a peer credit and a total credit.  Returns
 * GRANTED [| POST_RBUF] (send now; post a Reply buffer first if asked), or
 * QUEUED: node (with node->item set by the caller) was appended to the
 * backlog and will come back from gasnetc_credit_receive/_drain/_release.
 * A Request queues whenever the backlog is not empty (FIFO, no overtaking).
 * Peer lock; handler-safe (but handlers must not send Requests). */
unsigned gasnetc_credit_acquire(gasnetc_credit_peer_t *peer, gasnetc_credit_node_t *node);

/* Like gasnetc_credit_acquire without queuing (GEX_FLAG_IMMEDIATE): returns
 * GRANTED [| POST_RBUF], or 0 and nothing changed.  Peer lock; handler-safe. */
unsigned gasnetc_credit_try_acquire(gasnetc_credit_peer_t *peer);

/* Gives back a credit granted with flags but whose Request will not be sent
 * (e.g. a cancelled Prepare); call it before posting the Reply buffer the
 * grant asked for.  Returns the chain of backlogged nodes now granted (see
 * gasnetc_credit_receive).  Peer lock; handler-safe. */
gasnetc_credit_node_t *gasnetc_credit_release(gasnetc_credit_peer_t *peer, unsigned flags);

/* While building any message (Request, Reply or hidden Reply) to the peer:
 * takes up to max banked credits out of the bank; returns how many to write
 * into the header's credits field.  Peer lock; handler-safe. */
unsigned gasnetc_credit_piggyback(gasnetc_credit_peer_t *peer, unsigned max);

/* On receiving any message from the peer: adds its piggybacked credits plus
 * one if it is a Reply (a Reply returns its Request's credit).  Returns the
 * backlogged Requests now granted a credit, oldest first, as a chain linked
 * by next (NULL if none); each node's flags say GRANTED [| POST_RBUF].  The
 * caller must send them all, in order.  Peer lock; handler-safe. */
gasnetc_credit_node_t *gasnetc_credit_receive(gasnetc_credit_peer_t *peer, int is_reply,
                                              unsigned piggyback);

/* Grants what the backlog can get now (peer and total credits); same result
 * as gasnetc_credit_receive.  The poll loop calls it on peers with a backlog
 * while gasnetc_credit_total_waiting() > 0: credits returned by one peer
 * may unblock Requests to another.  Peer lock; handler-safe. */
gasnetc_credit_node_t *gasnetc_credit_drain(gasnetc_credit_peer_t *peer);

/* After a Request handler from the peer returned without replying: banks
 * its credit and returns 0, or, when the bank would pass the slack, returns
 * 1 and stores in *piggyback the banked credits the hidden credit-only Reply
 * must carry (the Reply returns the Request's own credit as every Reply
 * does).  The caller must then send that Reply.  Peer lock; handler-safe. */
int gasnetc_credit_unanswered(gasnetc_credit_peer_t *peer, unsigned *piggyback);

#endif /* GASNETC_AM_CREDIT_H */
