/* firehose/firehose.h: dynamic registration (firehose), transport-independent.
 *
 * Firehose caches memory registrations ("pins") so that RDMA can use any
 * memory at bounded pinning cost (Bell & Bonachea, CAC'03; design, data
 * structures and invariants in firehose/README):
 *   - local pinning: the source of a put / destination of a get that lies
 *     outside the pre-pinned segment is pinned on demand, at page-aligned
 *     region granularity (at most GASNET_FIREHOSE_MAXREGION_SIZE), cached in
 *     a victim pool with LRU eviction of unreferenced regions;
 *   - remote pinning (GASNET_SEGMENT_LARGE/EVERYTHING): a node asks a peer to
 *     pin part of the peer's memory with a "move request" (an AM) that also
 *     releases firehoses it no longer needs and may carry the first bytes of
 *     a put (GASNET_PUTINMOVE_LIMIT); each node holds at most a fixed share
 *     (M/(nodes-1)) of every peer's main pool.
 *
 * Firehose reaches the HCA and the network only through firehose_ops_t, so
 * unit tests run several fake nodes in one process.  It never calls getenv
 * (parameters come from other/param) and never blocks.
 *
 * Status codes are the public GASNet ones plus the internal "pending":
 *   FIREHOSE_OK          covered now: use req->lkey/rkey for req->len bytes
 *   FIREHOSE_PENDING     remote pin under way: req's callback runs from
 *                        firehose_poll() when it is granted or refused
 *   FIREHOSE_NORESOURCE  limits reached (or the pin op failed): nothing is
 *                        held; fall back (bounce buffers, AM) or retry later
 *   FIREHOSE_BADARG      a bad argument (len 0, wrapping range, bad node)
 *
 * Locking: one lock per instance (GASNET_PAR builds; none in SEQ).  The pin
 * and unpin ops run with it held; send_move and the completion callbacks run
 * without it.
 */
#ifndef FIREHOSE_H
#define FIREHOSE_H

#include <stddef.h>
#include <stdint.h>

#include <gasnet_fwd.h>

#define FIREHOSE_OK GASNET_OK
#define FIREHOSE_PENDING GASNET_ERR_NOT_READY
#define FIREHOSE_NORESOURCE GASNET_ERR_RESOURCE
#define FIREHOSE_BADARG GASNET_ERR_BAD_ARG

/* The node number of local regions (req->node of a local pin). */
#define FIREHOSE_LOCAL (-1)

/* Flags of firehose_local_pin / firehose_remote_pin. */
#define FIREHOSE_FLAG_TRY 1u /* hits only: never pin, never send (handler-safe) */

/* Largest put-in-move payload this build supports (GASNET_PUTINMOVE_LIMIT max). */
#define FIREHOSE_PUTINMOVE_MAX 3072
/* Largest move message (header, one new region, releases, put data). */
#define FIREHOSE_MSG_MAX 4096
/* Smallest msg_max a transport may configure (header, one region, a few releases). */
#define FIREHOSE_MSG_MIN 256

typedef struct firehose firehose_t;
typedef struct firehose_request firehose_request_t;

/* What the pin op returns; opaque to firehose, handed back to unpin. */
typedef struct {
    uint64_t lkey;  /* local key (e.g. ibv_mr->lkey) */
    uint64_t rkey;  /* remote key (e.g. ibv_mr->rkey), sent to peers in grants */
    void *handle;   /* e.g. the struct ibv_mr * */
} firehose_pin_t;

/* The transport's side.  ctx is passed back unchanged. */
typedef struct {
    /* Registers [addr, addr+len) (page-aligned, len <= region size) for
     * local and remote access.  Returns 0 and fills *out, or -1 (firehose
     * evicts its cached regions and retries once, then reports
     * FIREHOSE_NORESOURCE).  Runs with the firehose lock held: must not call
     * firehose or poll.  May run inside an AM Request handler (grants). */
    int (*pin)(void *ctx, uintptr_t addr, size_t len, firehose_pin_t *out);
    /* Deregisters what pin returned.  Same rules as pin; must not fail. */
    void (*unpin)(void *ctx, const firehose_pin_t *pin);
    /* Sends a move request (len <= msg_max bytes, copied before returning) to
     * node as an AM Request whose handler calls firehose_move_handle() and,
     * if that returns a length > 0, answers with an AM Reply whose handler
     * calls firehose_reply_handle().  Runs without the firehose lock, never
     * inside a handler; may poll.  Must not fail (a send error is fatal in
     * the transport).  Only needed with remote pinning. */
    void (*send_move)(void *ctx, int node, const void *msg, size_t len);
    /* Optional (NULL = memcpy): writes put-in-move bytes to local memory at
     * dst on the granting node.  Runs in the Request handler, without lock. */
    void (*deliver)(void *ctx, uintptr_t dst, const void *src, size_t len);
} firehose_ops_t;

/* Completion of a FIREHOSE_PENDING remote pin: req->status is FIREHOSE_OK
 * (req->rkey valid for req->len bytes; release it later) or
 * FIREHOSE_NORESOURCE (nothing held; do not release).  In both cases
 * req->putinmove_done bytes of the put were already written at the target.
 * Runs from firehose_poll(), without the lock: may call firehose. */
typedef void (*firehose_callback_t)(firehose_request_t *req, void *arg);

/* Caller-owned; firehose never allocates one.  Fields above the line are
 * results; the rest is firehose's until the request is released. */
struct firehose_request {
    uintptr_t addr;        /* the address asked for */
    size_t len;            /* bytes covered from addr (1..asked; loop for the rest) */
    uint64_t lkey;         /* local regions: the region's lkey (remote: 0) */
    uint64_t rkey;         /* the region's rkey (remote: the peer's) */
    int node;              /* FIREHOSE_LOCAL or the peer */
    int status;            /* FIREHOSE_OK / _NORESOURCE (remote completion) */
    size_t putinmove_done; /* bytes already delivered by the move request */
    /* ---- internal ---- */
    size_t want_;
    firehose_callback_t cb_;
    void *arg_;
    struct fh_region *region_;
    firehose_request_t *next_;
};

/* Resolved configuration (see firehose_config_resolve). */
typedef struct {
    int nodes, mynode;         /* job size and this node's number */
    int enabled;               /* GASNET_USE_FIREHOSE (forced on when remote) */
    int remote;                /* remote pinning (SEGMENT_LARGE/EVERYTHING) */
    size_t page_size;          /* same on every node */
    size_t region_max;         /* GASNET_FIREHOSE_MAXREGION_SIZE (G) */
    uint64_t main_bytes;       /* GASNET_FIREHOSE_M: memory peers may pin here */
    uint64_t main_regions;     /* GASNET_FIREHOSE_R */
    uint64_t victim_bytes;     /* GASNET_FIREHOSE_MAXVICTIM_M: local pool */
    uint64_t victim_regions;   /* GASNET_FIREHOSE_MAXVICTIM_R */
    uint64_t peer_bytes;       /* main_bytes / (nodes-1): one peer's share */
    uint64_t peer_regions;     /* main_regions / (nodes-1) */
    size_t putinmove_limit;    /* GASNET_PUTINMOVE_LIMIT, fitted to msg_max */
    size_t msg_max;            /* largest move message the transport sends */
    double table_scale;        /* GASNET_FIREHOSE_TABLE_SCALE */
    int verbose;               /* GASNET_FIREHOSE_VERBOSE */
    char warning[256];         /* non-empty: print once at startup */
} firehose_config_t;

/* Raw settings (from GASNET_* via firehose_user_from_params, or tests);
 * a negative integer means "unset". */
typedef struct {
    int use_firehose;          /* GASNET_USE_FIREHOSE */
    int64_t m, maxvictim_m;    /* bytes */
    int64_t r, maxvictim_r;    /* regions */
    int64_t region_size;       /* 0 = automatic */
    int64_t regions_max;       /* GASNET_PINNED_REGIONS_MAX as a count, or -1 */
    double regions_max_frac;   /* ... as a fraction of the HCA's (if > 0) */
    int64_t putinmove;
    double table_scale;
    int verbose;
} firehose_user_t;

/* What the transport knows about this process and its HCA. */
typedef struct {
    int nodes, mynode;
    int remote;                /* 1 for SEGMENT_LARGE/EVERYTHING */
    int host_procs;            /* processes on this host (>= 1) */
    size_t page_size;
    uint64_t pool_bytes;       /* pinnable memory left for firehose, per process */
    uint64_t hca_max_regions;  /* memory regions the HCA allows (0 = unknown) */
    double physmem_fraction;   /* fraction of memory GASNET_PHYSMEM_MAX allows (0 = unknown) */
    size_t msg_max;            /* largest AM Medium payload (<= FIREHOSE_MSG_MAX used) */
} firehose_env_t;

/* Statistics (firehose_stats); counters since init. */
typedef struct {
    uint64_t local_hits, local_misses, local_noresource;
    uint64_t remote_hits, remote_misses, remote_joins, remote_noresource;
    uint64_t evictions, pin_failures, invalidated;
    uint64_t moves_sent, releases_sent, putinmove_bytes;
    uint64_t grants, denials;
    uint64_t pinned_regions, pinned_bytes;   /* now */
    uint64_t victim_regions, victim_bytes;   /* now, charged to the victim pool */
    uint64_t main_regions, main_bytes;       /* now, held for peers only */
} firehose_stats_t;

/* ---- configuration (fh_config.c) ------------------------------------------------ */

/* Reads GASNET_USE_FIREHOSE, GASNET_FIREHOSE_*, GASNET_PINNED_REGIONS_MAX and
 * GASNET_PUTINMOVE_LIMIT into *user.  Control path; no locks. */
void firehose_user_from_params(firehose_user_t *user);

/* Settings with everything unset (the defaults apply).  Pure. */
void firehose_user_defaults(firehose_user_t *user);

/* Resolves pool sizes, region counts and the region size from user and env
 * (rules in firehose/README "Parameters").  Returns 0 (cfg->warning may hold
 * a warning to print once), or -1 with a one-line error naming the variable
 * and the fix in why.  Pure function. */
int firehose_config_resolve(const firehose_user_t *user, const firehose_env_t *env,
                            firehose_config_t *cfg, char *why, size_t whylen);

/* Applies GASNET_DISABLE_MUNMAP (unset: on for 64-bit processes that use
 * firehose): asks malloc never to return memory to the OS, so no registered
 * page is unmapped and remapped behind firehose's back (README "munmap").
 * Returns 1 if applied.  Call once at startup, before threads.  */
int firehose_munmap_policy_apply(int firehose_in_use);

/* ---- instance (fh_init.c) ------------------------------------------------------- */

/* Creates an instance with a resolved configuration.  ops/ctx are copied /
 * kept.  Prints cfg->warning and, if verbose, the configuration.  Returns
 * NULL (after logging why) only if cfg is inconsistent.  Control path. */
firehose_t *firehose_init(const firehose_config_t *cfg, const firehose_ops_t *ops, void *ctx);

/* Unpins everything and frees the instance.  Returns the number of regions
 * this node's requests still referenced (0 when every request was released;
 * firehoses peers hold here do not count).  Prints statistics if verbose.
 * Control path; no other thread may use fh. */
int firehose_fini(firehose_t *fh);

/* The configuration in use.  Lock-free; handler-safe. */
const firehose_config_t *firehose_config(const firehose_t *fh);

/* Copies the statistics.  Instance lock; handler-safe. */
void firehose_stats(firehose_t *fh, firehose_stats_t *out);

/* Verifies every invariant of README "Invariants" (tables, lists, counters,
 * limits).  Returns 0, or -1 with the first violation in why.  Instance lock;
 * for tests and debugging. */
int firehose_check(firehose_t *fh, char *why, size_t whylen);

/* ---- local pinning (fh_local.c) ------------------------------------------------- */

/* Pins (or finds pinned) a region covering a prefix of [addr, addr+len):
 * FIREHOSE_OK with req->len >= 1 covered bytes and req->lkey/rkey (release
 * it with firehose_release), FIREHOSE_NORESOURCE (nothing held: use bounce
 * buffers), or FIREHOSE_BADARG.  With FIREHOSE_FLAG_TRY only hits count.
 * Instance lock; may call ops->pin; never sends; handler-safe. */
int firehose_local_pin(firehose_t *fh, uintptr_t addr, size_t len, unsigned flags,
                       firehose_request_t *req);

/* Forgets registrations of [addr, addr+len) (memory about to be unmapped or
 * remapped): no later pin hits them; unreferenced ones are unpinned now,
 * referenced ones when released.  Returns the number of regions affected.
 * Instance lock; may call ops->unpin; handler-safe. */
int firehose_local_invalidate(firehose_t *fh, uintptr_t addr, size_t len);

/* ---- remote pinning (fh_remote.c) ----------------------------------------------- */

/* Finds or obtains a firehose on node covering a prefix of [raddr,
 * raddr+len).  FIREHOSE_OK: req->rkey valid for req->len bytes now.
 * FIREHOSE_PENDING: cb(req, arg) runs from firehose_poll() when done.  If
 * put_src is not NULL this is a put of put_src[0..len) to raddr and, on a
 * miss, up to GASNET_PUTINMOVE_LIMIT bytes travel in the move request
 * (req->putinmove_done tells how many).  FIREHOSE_NORESOURCE: all of this
 * peer's firehoses are in use (fall back to AM, or retry after releasing).
 * Instance lock (dropped before sending); may call ops->send_move, so not
 * inside handlers (with FIREHOSE_FLAG_TRY: hits only, handler-safe). */
int firehose_remote_pin(firehose_t *fh, int node, uintptr_t raddr, size_t len, unsigned flags,
                        const void *put_src, firehose_request_t *req, firehose_callback_t cb,
                        void *arg);

/* Releases a request that returned FIREHOSE_OK (or completed with it): the
 * region stays cached (local: victim pool; remote: the peer's firehose
 * FIFO).  Instance lock; never sends; handler-safe. */
void firehose_release(firehose_t *fh, firehose_request_t *req);

/* Runs the callbacks of remote pins completed by replies.  Returns how many
 * ran.  Call from the progress loop, not inside handlers.  Instance lock
 * (not held during callbacks). */
int firehose_poll(firehose_t *fh);

/* ---- the move protocol (fh_move.c) ---------------------------------------------- */

/* Granting side: handles a move request from node `from` (releases, then
 * the new region, put-in-move data delivered first).  Writes the reply into
 * reply[0..cap) and returns its length (0: no reply needed); cap must hold
 * one reply (sizeof(fh_reply_t), fh_move.h; a smaller cap is fatal).  Malformed
 * input is fatal.  Instance lock;
 * may call ops->pin/unpin/deliver; for the AM Request handler. */
size_t firehose_move_handle(firehose_t *fh, int from, const void *msg, size_t len, void *reply,
                            size_t cap);

/* Requesting side: handles the reply to a move request; the completions run
 * at the next firehose_poll().  Malformed input is fatal.  Instance lock;
 * for the AM Reply handler. */
void firehose_reply_handle(firehose_t *fh, int from, const void *msg, size_t len);

#endif /* FIREHOSE_H */
