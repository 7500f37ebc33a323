/* firehose/fh_internal.h: firehose's data structures (see firehose/README).
 *
 * One fh_region_t describes either a local region (memory of this node,
 * pinned by ops->pin: node == FIREHOSE_LOCAL) or a firehose this node holds
 * on a peer (node = the peer).  Both are indexed by one chained hash table
 * keyed by (node, addr / region_max): a region is at most region_max bytes,
 * so it overlaps at most two such buckets and carries two hash nodes.
 *
 * Everything here is called with the instance lock held unless a comment
 * says otherwise.  Not a public header: firehose/ files only (and tests).
 */
#ifndef FH_INTERNAL_H
#define FH_INTERNAL_H

#include "firehose/firehose.h"

#include <stddef.h>
#include <stdint.h>
#if defined(GASNET_PAR)
#include <pthread.h>
#endif

#if defined(GASNET_PAR)
typedef pthread_mutex_t fh_lock_t;
#define fh_lock_init(l) pthread_mutex_init((l), NULL)
#define fh_lock_destroy(l) pthread_mutex_destroy(l)
#define fh_lock(fh) pthread_mutex_lock(&(fh)->lock)
#define fh_unlock(fh) pthread_mutex_unlock(&(fh)->lock)
#else
typedef char fh_lock_t;
#define fh_lock_init(l) ((void)(l))
#define fh_lock_destroy(l) ((void)(l))
#define fh_lock(fh) ((void)(fh))
#define fh_unlock(fh) ((void)(fh))
#endif

#define FH_REGION_MAGIC 0x46485247u /* "FHRG" */
#define FH_DEAD_MAGIC 0x64656164u

/* Region states. */
enum {
    FH_ST_VALID = 1,   /* in the table: lookups may hit it */
    FH_ST_PENDING = 2, /* remote: move request in flight, waiters queued */
    FH_ST_INVALID = 3  /* local: out of the table (invalidated); unpinned at last release */
};

struct fh_region;
typedef struct fh_hnode {
    struct fh_hnode *next;
    uint64_t key;              /* addr / region_max */
    int32_t space;             /* the region's node */
    int32_t linked;            /* 1 while in a chain */
    struct fh_region *region;  /* owner */
} fh_hnode_t;

typedef struct fh_region {
    uint32_t magic;
    int32_t node;           /* FIREHOSE_LOCAL or the peer whose memory this is */
    int state;
    uintptr_t start;        /* page-aligned */
    size_t len;             /* page multiple, 1..region_max */
    uint32_t lref;          /* local: requests of this node; remote: requests using it */
    uint32_t rref;          /* local: peers holding a firehose on it; remote: 0 */
    int lru;                /* 1 while on fh->lru (local) or peer->unused (remote) */
    firehose_pin_t pin;     /* local: from ops->pin; remote: rkey only */
    uint64_t remote_id;     /* remote: the granter's region id */
    size_t charge;          /* remote: bytes charged to the peer's share */
    struct fh_region *prev, *next;         /* LRU or unused FIFO */
    struct fh_region *all_prev, *all_next; /* every region of the instance */
    firehose_request_t *waiters;           /* remote pending: requests to complete */
    fh_hnode_t hn[2];
} fh_region_t;

/* Doubly linked list of regions through prev/next, oldest first. */
typedef struct {
    fh_region_t *head, *tail;
    uint64_t count, bytes;
} fh_list_t;

/* What this node holds on one peer (requesting side). */
typedef struct {
    uint64_t regions, bytes; /* charged: valid firehoses + pending reservations */
    fh_list_t unused;        /* valid firehoses no request uses, oldest first */
} fh_peer_t;

struct firehose {
    firehose_config_t cfg;
    firehose_ops_t ops;
    void *ctx;
    fh_lock_t lock;
    fh_hnode_t **table;
    uint64_t table_mask;
    fh_region_t *all;        /* every region (local and remote) */
    fh_list_t lru;           /* local regions with lref == rref == 0, LRU first */
    /* local pools; a region is charged to the victim pool when lref > 0 or
     * rref == 0, else to the main pool (README "Accounting") */
    uint64_t victim_regions, victim_bytes;
    uint64_t main_regions, main_bytes;
    uint64_t granted_regions, granted_bytes; /* regions with rref > 0 */
    fh_peer_t *peers;        /* [nodes] (remote only) */
    firehose_request_t *done_head, *done_tail; /* completions for firehose_poll */
    firehose_stats_t st;
    int pin_warned;
};

/* ---- fh_table.c: the hash table and the lists ---------------------------------- */

/* Allocates the table for cfg (sized by region limits and table_scale). */
void fh_table_init(firehose_t *fh);
/* Frees the table (regions are the caller's). */
void fh_table_fini(firehose_t *fh);
/* Links r under every bucket [r->start, r->start+r->len) overlaps. */
void fh_table_insert(firehose_t *fh, fh_region_t *r);
/* Unlinks r (no-op if not linked). */
void fh_table_remove(firehose_t *fh, fh_region_t *r);
/* The best region of `space` (VALID, or PENDING when want_pending) covering
 * [addr, need_end): a full cover, else (valid only) the cover of addr
 * reaching furthest if it gives at least region_max/2 bytes, else NULL. */
fh_region_t *fh_table_lookup(firehose_t *fh, int space, uintptr_t addr, uintptr_t need_end,
                             int want_pending);
/* Calls fn on every region of `space` overlapping [addr, end) (fn may unlink
 * and free the region it is given). */
void fh_table_foreach_overlap(firehose_t *fh, int space, uintptr_t addr, uintptr_t end,
                              void (*fn)(firehose_t *, fh_region_t *));

/* Appends r at the tail (newest) of l and marks it r->lru. */
void fh_list_append(fh_list_t *l, fh_region_t *r);
/* Unlinks r from l (r must be on it) and clears r->lru. */
void fh_list_remove(fh_list_t *l, fh_region_t *r);

/* New region (all list links clear, on fh->all).  Fatal if out of memory. */
fh_region_t *fh_region_new(firehose_t *fh, int node, uintptr_t start, size_t len);
/* Unlinks r from the table and fh->all and frees it. */
void fh_region_free(firehose_t *fh, fh_region_t *r);

/* ---- fh_local.c: local regions and the granting side ---------------------------- */

/* Grants node `from` a firehose on a local region covering [start, start+len)
 * (page-aligned, len <= region_max).  Returns FIREHOSE_OK with *out, or
 * FIREHOSE_NORESOURCE (main pool full or the pin failed). */
int fh_grant_acquire(firehose_t *fh, uintptr_t start, size_t len, fh_region_t **out);
/* Drops one peer's firehose on r (rref--). */
void fh_grant_release(firehose_t *fh, fh_region_t *r);
/* Unpins and frees every local region and frees every firehose (fini). */
void fh_local_drop_all(firehose_t *fh);

/* ---- fh_remote.c ------------------------------------------------------------------- */

/* firehose_release of a firehose: lref--; at 0 it joins the peer's unused
 * FIFO.  Fatal if it is pending or not held. */
void fh_remote_release(firehose_t *fh, fh_region_t *e);

/* ---- helpers ----------------------------------------------------------------------- */

/* Whether [addr, addr+len) is a usable request range: non-empty, and far
 * enough from the top of the address space that region arithmetic cannot
 * wrap. */
static inline int fh_range_ok(const firehose_t *fh, uintptr_t addr, size_t len)
{
    uintptr_t top = UINTPTR_MAX - 2 * (uintptr_t)fh->cfg.region_max;
    return len != 0 && addr <= top && len <= top - addr;
}

static inline uintptr_t fh_page_down(const firehose_t *fh, uintptr_t a)
{
    return a & ~(uintptr_t)(fh->cfg.page_size - 1);
}
static inline uintptr_t fh_page_up(const firehose_t *fh, uintptr_t a)
{
    return (a + fh->cfg.page_size - 1) & ~(uintptr_t)(fh->cfg.page_size - 1);
}
/* End of what one new region for a request at addr may cover. */
static inline uintptr_t fh_need_end(const firehose_t *fh, uintptr_t addr, size_t len)
{
    uintptr_t lim = fh_page_down(fh, addr) + fh->cfg.region_max;
    uintptr_t end = addr + len;
    return end < lim ? end : lim;
}

#endif /* FH_INTERNAL_H */
