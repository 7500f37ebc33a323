/* core/ibv/ibv_internal.h: the objects and functions shared by the
 * sub-folders of the verbs transport (conn/, mem/, wr/, am/, rma/; ports/
 * has its own headers).  Includes <infiniband/verbs.h>; nothing outside
 * core/ibv includes this header.  Design: core/ibv/README and the README
 * of each sub-folder; credits: core/am/README.
 *
 * Objects:
 *   res    one per opened HCA: PD, send CQ, receive CQ, segment MR
 *   cep    one per (network peer, QP index): the RC QP, its send-queue
 *          slots, the peer's segment rkey and the credit state of the pair
 *   sdesc  one posted send work request (AM, hidden Reply, RDMA write);
 *          carries a 128-byte registered area for headers and small AMs
 *   rbuf   one receive buffer (GASNETC_IBV_BUFSZ bytes, registered)
 *   bbuf   one bounce buffer (same size), for payloads copied before sending
 *
 * Locking (GASNET_PAR only; SEQ builds have none): pools have a mutex each;
 * counters (send-queue and CQ slots, descriptor states) are atomics; credit
 * state has its own leaf lock (core/am/credit.c); ibv_poll_cq is serialized
 * per CQ by a try-flag (a thread that finds the CQ busy moves on).
 */
#ifndef GASNETC_IBV_INTERNAL_H
#define GASNETC_IBV_INTERNAL_H

#include "build-config.h"

#include <infiniband/verbs.h>

#include "core/am/credit.h"
#include "core/base/transport.h"
#include "core/ibv/mem/dynreg.h"
#include "core/ibv/ibv.h"
#include "core/ibv/mem/srq_plan.h"

#ifndef GASNETC_IBV_MAX_HCAS
#define GASNETC_IBV_MAX_HCAS 1
#endif
/* 1 (default): one thread at a time calls ibv_poll_cq on a CQ; the others
 * skip it instead of blocking on the provider's lock (seed README). */
#ifndef GASNETC_IBV_SERIALIZE_POLL_CQ
#define GASNETC_IBV_SERIALIZE_POLL_CQ 1
#endif

/* Receive and bounce buffers: a header (<= GASNETC_AM_HDR_MAX, padded to 8)
 * plus the largest Medium payload must fit. */
#define GASNETC_IBV_HDR_ROOM(n) (((n) + 7u) & ~(size_t)7u)
#define GASNETC_IBV_NEED_BUF ((size_t)GASNETC_MAX_MEDIUM_LUB + GASNETC_AM_HDR_MAX)
#define GASNETC_IBV_BUFSZ                                                                 \
    ((size_t)GASNETC_IBV_MAX_MEDIUM >= GASNETC_IBV_NEED_BUF ? (size_t)GASNETC_IBV_MAX_MEDIUM \
                                                            : ((GASNETC_IBV_NEED_BUF + 63) & ~(size_t)63))
/* Registered bytes of every send descriptor (headers, Shorts, small Mediums). */
#define GASNETC_IBV_HBUF 128

/* ---- atomics that are plain operations in SEQ builds -------------------------- */
#if defined(GASNET_PAR)
#define GASNETC_ATOMIC_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)
#define GASNETC_ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GASNETC_ATOMIC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GASNETC_ATOMIC_CAS(p, old, new) \
    __atomic_compare_exchange_n((p), &(old), (new), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#else
#define GASNETC_ATOMIC_ADD(p, v) (*(p) += (v))
#define GASNETC_ATOMIC_LOAD(p) (*(p))
#define GASNETC_ATOMIC_STORE(p, v) (*(p) = (v))
#define GASNETC_ATOMIC_CAS(p, old, new) (*(p) == (old) ? (*(p) = (new), 1) : ((old) = *(p), 0))
#endif

/* ---- registered pools (pool.c) ------------------------------------------------ */
/* First member of every pooled object: its registered area and the lkey of
 * that area on each HCA. */
typedef struct gasnetc_ibv_slot {
    struct gasnetc_ibv_slot *next;
    uint8_t *data;
    uint32_t lkey[GASNETC_IBV_MAX_HCAS];
} gasnetc_ibv_slot_t;

/* One registered chunk: its data area and one MR per HCA.  Chunks are
 * listed for the process's life (the MRs stay reachable, and registered,
 * until exit releases them). */
typedef struct gasnetc_ibv_chunk {
    struct gasnetc_ibv_chunk *next;
    void *data;
    struct ibv_mr *mr[GASNETC_IBV_MAX_HCAS];
} gasnetc_ibv_chunk_t;

/* Registers `bytes` at `data` on every HCA of the transport with `access`
 * and pushes the record on *list.  Returns the record, or NULL with errno
 * set and *bad_hca the HCA that failed (nothing left registered).  Rare. */
gasnetc_ibv_chunk_t *gasnetc_ibv_chunk_reg(gasnetc_ibv_chunk_t **list, void *data, size_t bytes,
                                           int access, int *bad_hca);

typedef struct {
    const char *name;  /* for messages: "receive buffers" */
    size_t data_size;  /* registered bytes per object */
    size_t meta_size;  /* size of the object embedding gasnetc_ibv_slot_t */
    int grow;          /* objects added per chunk */
    int limit;         /* most objects; 0 = no limit */
    int count;         /* objects created */
    gasnetc_ibv_slot_t *free;
    gasnetc_ibv_chunk_t *chunks;
    gasneti_mutex_t lock;
} gasnetc_ibv_pool_t;

/* Sets up a pool and creates `initial` objects (registered on every HCA of
 * the transport).  Fatal on failure.  Init path. */
void gasnetc_ibv_pool_init(gasnetc_ibv_pool_t *pool, const char *name, size_t data_size,
                           size_t meta_size, int grow, int limit, int initial);
/* Takes an object (zeroes nothing); when the pool is empty and may_grow,
 * grows it by one chunk unless at its limit.  Returns NULL when empty.
 * Pool lock; handler-safe (growth registers memory: rare). */
gasnetc_ibv_slot_t *gasnetc_ibv_pool_get(gasnetc_ibv_pool_t *pool, int may_grow);
/* Returns an object.  Pool lock; handler-safe. */
void gasnetc_ibv_pool_put(gasnetc_ibv_pool_t *pool, gasnetc_ibv_slot_t *slot);

/* ---- per HCA --------------------------------------------------------------------- */
typedef struct {
    gasnetc_ibv_hca_t *hca;
    int index;            /* 0..nres-1 (= hca->index) */
    struct ibv_pd *pd;
    struct ibv_cq *scq;   /* send completions (every send WR is signaled) */
    struct ibv_cq *rcq;   /* receive completions */
    int scq_avail;        /* atomic: free entries of scq */
    int scq_busy, rcq_busy; /* poll serialization flags (PAR) */
    struct ibv_mr *seg_mr; /* this process's segment, NULL before attach / size 0 */
    struct ibv_srq *srq;  /* SRQ mode (srq.c): shared by every QP of this HCA, else NULL */
    int srq_low;          /* atomic: the SRQ limit event fired, not yet serviced */
    int srq_extra;        /* atomic: buffers posted beyond the plan by limit servicing */
    int srq_limit_events; /* atomic: how many limit events (GASNET_VERBOSEENV at exit) */
} gasnetc_ibv_res_t;

/* ---- per connection (peer, QP index) ---------------------------------------------- */
typedef struct gasnetc_cep {
    struct ibv_qp *qp;
    gasnetc_ibv_res_t *res;
    gasnetc_ibv_port_t *port;
    uint32_t rank;        /* the peer's job rank */
    int qpi;              /* QP index 0..nqps-1 */
    int sq_avail;         /* atomic: free send-queue slots */
    int sq_depth;         /* send-queue slots in all (sq_avail when nothing is in flight) */
    uint32_t inline_max;  /* largest inline send this QP accepts */
    uint32_t rkey;        /* the peer's segment on this HCA (after attach) */
    int rbuf_owed;        /* atomic: receive buffers owed to the QP (recv.c, late reposts) */
    gasnetc_credit_peer_t credit;
    /* Link-flap recovery (conn/recover.c; only with gasnetc_ibv.rec_on) */
    int broken;           /* atomic: the QP failed or is being re-established: posts park */
    int inflight;         /* atomic: send WRs on the QP whose completion is not reaped yet */
    int rinflight;        /* atomic: receive buffers posted on the QP */
    uint32_t tx_done;     /* atomic: SENDs completed successfully (cumulative) */
    uint32_t rx_seen;     /* atomic: messages received successfully (cumulative) */
    uint32_t next_seq;    /* post order of the QP (under rec_lock) */
    uint32_t peer_qpn;    /* the peer's QP number (set when connected) */
    gasneti_mutex_t rec_lock;      /* guards the three lists below */
    struct gasnetc_sdesc *redo, **redo_tail;     /* failed or flushed, in post order */
    struct gasnetc_sdesc *parked, **parked_tail; /* posted while broken */
    struct gasnetc_rbuf *rbufs;      /* flushed or parked receive buffers */
    int err_status, err_vendor;    /* the first failed completion (for the fatal line) */
    uint32_t err_qpn;
    uint8_t err_op, err_snd;       /* GASNETC_OP_* or 0xff (receive); 1: send side */
} gasnetc_cep_t;

/* ---- send descriptors ------------------------------------------------------------- */
enum { GASNETC_SD_READY = 0, GASNETC_SD_POSTED = 1, GASNETC_SD_DONE = 2 };
/* Operation names for error messages (op= field). */
enum {
    GASNETC_OP_AM_REQ,
    GASNETC_OP_AM_REP,
    GASNETC_OP_AM_ACK,
    GASNETC_OP_LONG_WRITE,
    GASNETC_OP_PUT,
    GASNETC_OP_GET
};
/* Work request kinds (sdesc.wr). */
enum { GASNETC_WR_SEND, GASNETC_WR_WRITE, GASNETC_WR_READ };

struct gasnetc_sdesc;
/* Called by the completion path for a descriptor that has one (RMA), before
 * the descriptor is released.  Any thread; must not block. */
typedef void (*gasnetc_sdesc_done_fn)(struct gasnetc_sdesc *d);

typedef struct gasnetc_sdesc {
    gasnetc_ibv_slot_t slot;     /* data: GASNETC_IBV_HBUF registered bytes */
    gasnetc_credit_node_t node;  /* backlog link (node.item = this) */
    gasnetc_cep_t *cep;
    gasnetc_ibv_slot_t *bbuf;    /* bounce buffer released on completion, or NULL */
    uint8_t *hdr;                /* packed wire header (byte 3 = credits) */
    int state;                   /* atomic: GASNETC_SD_* */
    int owned;                   /* 1: the initiator waits for DONE and frees it */
    uint8_t op;                  /* GASNETC_OP_* */
    uint8_t wr;                  /* GASNETC_WR_*: SEND, or RDMA (no credit, no header) */
    uint8_t inl;                 /* post with IBV_SEND_INLINE */
    uint8_t nsge;
    struct ibv_sge sge[2];
    uint64_t raddr;              /* RDMA: remote address */
    uint32_t rkey;               /* RDMA: remote key (desc_get: cep->rkey, the peer's segment) */
    struct gasnetc_ibv_hold *hold[2]; /* dynamic registrations released on completion
                                       * (dynreg.h; desc_get: NULL) */
    gasnetc_sdesc_done_fn done;  /* NULL, or RMA completion (rdma.c) */
    void *ctx[2];                /* for done: completion counters */
    void *copy_to;               /* for done: Get through a bounce buffer */
    struct gasnetc_sdesc *rnext; /* recovery: link of cep->redo / cep->parked */
    uint32_t seq;                /* recovery: position in the QP's post order */
} gasnetc_sdesc_t;

typedef struct gasnetc_rbuf {
    gasnetc_ibv_slot_t slot;     /* data: GASNETC_IBV_BUFSZ registered bytes */
    gasnetc_cep_t *cep;          /* the QP it is posted on */
    struct gasnetc_rbuf *rnext;  /* recovery: link of cep->rbufs */
} gasnetc_rbuf_t;

/* ---- the transport ------------------------------------------------------------------ */
typedef struct {
    int active;
    uint32_t rank, size;
    int nres, nqps;
    gasnetc_ibv_res_t res[GASNETC_IBV_MAX_HCAS];
    gasnetc_ibv_port_t *ports;
    int nports;
    gasnetc_cep_t **peer_ceps;   /* [rank] -> nqps ceps; NULL for PSHM peers, self, and
                                  * peers not connected yet (ondemand.c; atomic) */
    unsigned *peer_rr;           /* [rank] next QP index for Requests */
    gasnetc_cep_t *ceps;         /* all of them, nceps (qp NULL until connected: ondemand.c) */
    int nceps;
    gasnetc_credit_config_t credit_cfg;
    gasnetc_credit_total_t credit_total;
    gasnetc_ibv_pool_t desc_pool, bbuf_pool, rbuf_pool;
    int srq_on;                  /* GASNET_USE_SRQ resolved (srq.c) */
    int srq_low_any;             /* atomic: some res->srq_low is set */
    gasnetc_srq_plan_t srq_plan; /* buffers and credits of the SRQ mode */
    gasnetc_transport_up_t up;   /* the core's services (gasnetc_ibv_connect) */
    size_t rbuf_size;            /* receive buffer bytes (GASNET_RBUF_SIZE, srq.c); < GASNETC_IBV_BUFSZ:
                                  * larger Mediums by rendezvous (rndv.c) */
    /* parameters */
    size_t packed_long_limit;    /* GASNET_PACKEDLONG_LIMIT, capped to the buffer */
    int64_t gather_min;          /* GASNET_AM_GATHER_MIN; < 0 = never gather */
    int use_xrc;                 /* GASNET_USE_XRC decided (conn_policy.h); 0 today */
    int rec_on;                  /* link-flap recovery (conn/recover.c, GASNET_RECONNECT_TIMEOUT) */
    int rec_active;              /* atomic: connections being recovered (progress must poll) */
    /* this process's segment (after attach) */
    uintptr_t seg_addr, seg_size;
} gasnetc_ibv_state_t;

extern gasnetc_ibv_state_t gasnetc_ibv;

/* 1 and the lkey of [p, p+n) on res when it lies in the local registered
 * segment.  Any context. */
static inline int gasnetc_ibv_seg_lkey(const gasnetc_ibv_res_t *res, const void *p, size_t n,
                                       uint32_t *lkey)
{
    uintptr_t a = (uintptr_t)p;
    if (!res->seg_mr || a < gasnetc_ibv.seg_addr || n > gasnetc_ibv.seg_size ||
        a - gasnetc_ibv.seg_addr > gasnetc_ibv.seg_size - n)
        return 0;
    *lkey = res->seg_mr->lkey;
    return 1;
}

/* ---- wr/wr.c: the work-request layer (core/ibv/wr/README) ----------------------------- */
/* A send descriptor for cep with defaults (SEND, owned by the completion
 * path, no bounce buffer, no callback).  Handler-safe. */
gasnetc_sdesc_t *gasnetc_ibv_desc_get(gasnetc_cep_t *cep, int op);
/* Waits until the owned descriptor d is DONE, then frees it: poll_all != 0
 * polls everything (not in handlers), else only reaps send completions. */
void gasnetc_ibv_desc_wait(gasnetc_sdesc_t *d, int poll_all);
/* A bounce buffer, waiting while none is free: poll_all != 0 polls
 * everything (not in handlers), else only reaps send completions. */
gasnetc_ibv_slot_t *gasnetc_ibv_bbuf_get(int poll_all);
/* Takes one send-queue slot of cep and one send-CQ entry, reaping send
 * completions while none is free.  Handler-safe. */
void gasnetc_ibv_reserve_send(gasnetc_cep_t *cep);
/* Posts d (reserving a send-queue slot and a CQ entry first).  After this,
 * d belongs to the completion path unless d->owned.  Handler-safe. */
void gasnetc_ibv_post_desc(gasnetc_sdesc_t *d);
/* Posts message d as gasnetc_ibv_post_desc, after one receive buffer on
 * its QP when with_rbuf (the Reply buffer of a Request).  Handler-safe. */
void gasnetc_ibv_post_msg(gasnetc_sdesc_t *d, int with_rbuf);
/* Posts one receive buffer on cep's QP (a Reply buffer or the replacement
 * of a consumed Request buffer); takes it from the pool, growing it when
 * empty.  Handler-safe. */
void gasnetc_ibv_post_rbuf(gasnetc_cep_t *cep, gasnetc_rbuf_t *rb);
/* A descriptor for cep holding a message: header (hl bytes at wire) and
 * payload laid out inline, in the descriptor's registered area, gathered
 * from the segment or copied into a bounce buffer (waiting for one as
 * gasnetc_ibv_bbuf_get(is_req)).  *in_place (when not NULL) is 1 when the
 * payload is read in place at send time (the caller waits for the send
 * completion before the source may be reused).  Handler-safe for Replies. */
gasnetc_sdesc_t *gasnetc_ibv_desc_msg(gasnetc_cep_t *cep, int op, const uint8_t *wire, size_t hl,
                                      const void *payload, size_t n, int is_req, int *in_place);
/* Recovery (conn/recover.c): posts d / rb on its QP without looking at
 * cep->broken (the re-established QP, before the connection is usable). */
void gasnetc_ibv_post_desc_raw(gasnetc_sdesc_t *d);
void gasnetc_ibv_post_rbuf_raw(gasnetc_cep_t *cep, gasnetc_rbuf_t *rb);

/* ---- conn/recover.c: surviving a link flap (core/ibv/conn/README "Link flaps") ------- */
/* A failed completion on cep (is_send: of send descriptor op; else of a
 * receive buffer): 1 when recovery takes it (the caller keeps the WR for
 * the re-established QP), 0 when the job must end as before (recovery off,
 * exiting, or a status a link flap does not cause).  Any thread. */
int gasnetc_ibv_rec_fail(gasnetc_cep_t *cep, const struct ibv_wc *wc, int op, int is_send);
/* Recovery work (drains, handshake, timers); under the connection lock,
 * from gasnetc_ibv_conn_poll.  Handler-safe. */
void gasnetc_ibv_rec_poll(void);
/* A recovery handshake message (types >= 4 of the UD channel). */
void gasnetc_ibv_rec_msg(int rail, const void *msg, size_t len);
/* Start-up, once the connections exist (conn_init): resolves rec_on. */
void gasnetc_ibv_rec_init(gasnetc_cep_t **cep_of);
/* 1 when this rank wants recovery (GASNET_RECONNECT_TIMEOUT > 0); the
 * job's decision is the AND over ranks (connect.c). */
int gasnetc_ibv_rec_wanted(void);
/* The success path of a send completion: done callback, holds, bounce
 * buffer, DONE or free (wr/cq.c). */
void gasnetc_ibv_desc_finish(gasnetc_sdesc_t *d);
/* The fatal line of a failed completion (wr/cq.c), with `extra` appended. */
void gasnetc_ibv_wc_fatal(const gasnetc_cep_t *c, int status, int vendor_err, uint32_t qp_num,
                          int is_send, int op, const char *extra) GASNETI_NORETURN;

/* ---- am/send.c ------------------------------------------------------------------------- */
/* Sends the backlogged Requests of a granted chain (gasnetc_credit_receive /
 * _drain), oldest first.  Handler-safe (waits only by reaping sends). */
void gasnetc_ibv_send_chain(gasnetc_credit_node_t *chain);
/* Sends a hidden credit-only Reply carrying `credits` banked credits on
 * cep.  Handler-safe. */
void gasnetc_ibv_send_ack(gasnetc_cep_t *cep, unsigned credits);

/* ---- conn/ondemand.c (on-demand connections) ------------------------------------------ */
/* dest's connections once usable, connecting first (polling while waiting;
 * only setup and send completions inside a handler).  Fatal for a PSHM peer
 * or a setup that fails.  The slow path of gasnetc_ibv_pick_cep. */
gasnetc_cep_t *gasnetc_ibv_conn_get(uint32_t dest);
/* 1 when dest is usable now; else starts connecting it and returns 0 (an
 * IMMEDIATE AM then reports "no resources"). */
int gasnetc_ibv_conn_try(uint32_t dest);
/* The connection a Request (or RMA) to network peer dest uses: round-robin
 * over its QPs, connecting it first when it connects on demand. */
gasnetc_cep_t *gasnetc_ibv_pick_cep(uint32_t dest);
/* Progress of connection setup (handshake messages, retransmissions); 0
 * at once when no rank connects on demand.  Any context (no handlers). */
int gasnetc_ibv_conn_poll(void);

/* ---- am/recv.c ------------------------------------------------------------------------- */
/* Handles one receive completion (status already checked): credits,
 * replacement buffer, handler, hidden Reply.  Not in replies-only polls. */
void gasnetc_ibv_recv_one(gasnetc_rbuf_t *rb, uint32_t byte_len);
/* Receive buffers posted on every QP beyond what the credits need (not
 * with an SRQ): a buffer that must be posted before a send (a Request's
 * replacement, a Reply's buffer) may be owed until just after it while
 * fewer than this many are owed (recv.c, "late reposts"). */
#define GASNETC_IBV_RBUF_SLACK 1
/* 1 when one more receive buffer may be owed to cep's QP (and it now is:
 * the caller repays it), 0 when the caller must post it now.
 * Handler-safe. */
int gasnetc_ibv_rbuf_owe(gasnetc_cep_t *cep);
/* Posts one owed receive buffer on cep's QP: rb, or one from the pool
 * when rb is NULL.  Handler-safe. */
void gasnetc_ibv_rbuf_repay(gasnetc_cep_t *cep, gasnetc_rbuf_t *rb);

/* ---- mem/srq.c (shared receive queues; core/ibv/mem/README) --------------------------- */
/* Resolves GASNET_USE_SRQ / GASNET_RBUF_COUNT once credit_cfg holds the
 * per-connection policy and nceps_per_hca[h] the connections on HCA h;
 * in SRQ mode re-resolves credit_cfg with the plan's credits.  Returns
 * srq_on.  Fatal with one line when GASNET_RBUF_COUNT cannot work.  Init. */
int gasnetc_ibv_srq_decide(const int *nceps_per_hca, int max_cqe);
/* Creates r's SRQ (after its PD; before its QPs) when srq_on.  Init. */
void gasnetc_ibv_srq_create(gasnetc_ibv_res_t *r);
/* The receive buffer pool of the SRQ mode: all GASNET_RBUF_COUNT-bounded
 * buffers created now, never grown.  Init. */
void gasnetc_ibv_srq_pool_init(void);
/* Posts every SRQ's planned buffers and arms its limit.  Init. */
void gasnetc_ibv_srq_fill(void);
/* Posts rb (NULL: one from the pool) on r's SRQ.  Handler-safe. */
void gasnetc_ibv_srq_post(gasnetc_ibv_res_t *r, gasnetc_rbuf_t *rb);
/* Sets rb->cep from the completion (qp_num; the header's source rank
 * first).  Called by the receive poll for every SRQ completion. */
void gasnetc_ibv_srq_claim(gasnetc_rbuf_t *rb, const struct ibv_wc *wc);
/* Event thread: IBV_EVENT_SRQ_LIMIT_REACHED on srq. */
void gasnetc_ibv_srq_limit_event(struct ibv_srq *srq);
/* Receive path: tops up SRQs whose limit fired and re-arms them. */
void gasnetc_ibv_srq_service(void);
/* 1 when a consumed buffer of r need not be replaced (it was posted beyond
 * the plan); consumes that allowance. */
int gasnetc_ibv_srq_retire(gasnetc_ibv_res_t *r);
/* GASNET_VERBOSEENV, rank 0: the SRQ decision and the registered bytes of
 * the AM pools (plus VmPin/VmLck).  Init, after the pools exist. */
void gasnetc_ibv_srq_report(void);

/* ---- am/rndv.c (rendezvous Mediums with small receive buffers; core/ibv/am/README) ----- */
/* 1 when a Medium with this header and payload does not fit a receive
 * buffer and must travel by rendezvous. */
static inline int gasnetc_ibv_rndv_needed(const gasnetc_am_hdr_t *h, size_t nbytes)
{
    return h->category == GASNETC_AM_MEDIUM &&
           GASNETC_IBV_HDR_ROOM(gasnetc_am_hdr_wire_size(h)) + nbytes > gasnetc_ibv.rbuf_size;
}
/* Creates the staging and landing pools when rbuf_size < GASNETC_IBV_BUFSZ.
 * Init, after the PDs. */
void gasnetc_ibv_rndv_init(void);
/* Sender: copies the payload into a staging buffer readable by c's peer
 * and writes the descriptor (GASNETC_AM_RNDV_DESC bytes) into desc.  Waits
 * for a free staging buffer (Requests poll; Replies grow the pool). */
void gasnetc_ibv_rndv_stage(gasnetc_cep_t *c, const void *payload, size_t n, int is_req,
                            uint8_t *desc);
/* Receiver: RDMA-READs the payload the descriptor body names into a
 * landing buffer (*land), waits for it, releases the sender's staging
 * buffer; returns the payload.  Receive path, not in handlers. */
uint8_t *gasnetc_ibv_rndv_fetch(gasnetc_cep_t *c, const gasnetc_am_hdr_t *h, const uint8_t *body,
                                gasnetc_ibv_slot_t **land);
/* Gives a landing buffer back (after the handler ran). */
void gasnetc_ibv_rndv_landed(gasnetc_ibv_slot_t *land);
/* Registered bytes of the staging and landing pools (GASNET_VERBOSEENV). */
void gasnetc_ibv_rndv_counts(int *staged, size_t *stage_size, int *landing);

/* ---- rma/rdma.c ------------------------------------------------------------------------ */
/* Reads the RMA parameters of gasnetc_ibv_rma_ops (the verbs RMA
 * transport core/init.c installs in the extended layer).  Init path. */
void gasnetc_ibv_rma_init(void);

/* ---- wr/cq.c --------------------------------------------------------------------------- */
/* Reaps send completions of every HCA (releases slots, bounce buffers and
 * descriptors).  Returns how many.  Handler-safe. */
int gasnetc_ibv_reap_send(void);
/* How a progress thread takes a CQ's poll flag (GASNET_*_THREAD_POLL_MODE):
 * TRY skips the CQ when another thread holds the flag (application
 * threads); WAIT yields until it gets the flag (serialized); UNSERIALIZED
 * ignores the flag; HELD: the caller holds it already (exclusive). */
enum { GASNETC_CQ_TRY, GASNETC_CQ_WAIT, GASNETC_CQ_UNSERIALIZED, GASNETC_CQ_HELD };
/* Reaps up to one batch of r's send completions; returns how many.
 * Handler-safe. */
int gasnetc_ibv_reap_send_cq(gasnetc_ibv_res_t *r, int mode);
/* Receives up to one batch of AMs from r's receive CQ and runs their
 * handlers; returns how many.  Not in handlers. */
int gasnetc_ibv_poll_recv_cq(gasnetc_ibv_res_t *r, int mode);
/* Sends Requests that waited only for the process-wide credit total, when
 * any does.  Not in handlers. */
void gasnetc_ibv_drain_backlogs(void);
/* Starts the thread that turns fatal asynchronous events of the HCAs into
 * a job exit.  Init path. */
void gasnetc_ibv_async_start(void);
/* ---- wr/progress.c --------------------------------------------------------------------- */
/* The completion channel a CQ of r is created with: the one the receive
 * (is_send 0) or send (1) progress thread sleeps on, or NULL when that
 * thread is off.  Reads the thread parameters on first use.  Init path
 * (connect.c, before ibv_create_cq). */
struct ibv_comp_channel *gasnetc_ibv_progress_channel(gasnetc_ibv_res_t *r, int is_send);
/* Stack size of the verbs transport's own threads (progress threads and
 * the asynchronous-event thread): max(GASNET_THREAD_STACK_MIN, the default
 * pthread stack + GASNET_THREAD_STACK_PAD).  A fixed small stack fails
 * (EINVAL) when the client has more static TLS than it holds. */
size_t gasnetc_ibv_thread_stack(void);

/* "hca=rxe0 qp_num=0x11 dest=(rank:1, qpi:0)"-style description of cep. */
const char *gasnetc_ibv_cep_name(const gasnetc_cep_t *cep, char *buf, size_t len);

/* ---- wr/fault.c (test-only fault injection) -------------------------------------------- */
/* Called for every successful send completion; with GASNET_TEST_QP_ERROR=N
 * moves cep's QP to the error state at rank 0's N-th.  Handler-safe. */
void gasnetc_ibv_fault_completion(gasnetc_cep_t *cep);

#endif /* GASNETC_IBV_INTERNAL_H */
