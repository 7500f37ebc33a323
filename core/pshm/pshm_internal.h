/* core/pshm/pshm_internal.h: state and helpers shared by the files of
 * core/pshm (pshm.c: neighbourhood, queues, exit word; segment.c: segments;
 * shmobj.c: the unnamed shared-memory files; nbrhd.c: the pure neighbourhood rule).
 * Not for use outside core/pshm (the API is pshm.h).
 */
#ifndef GASNETC_PSHM_INTERNAL_H
#define GASNETC_PSHM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "core/pshm/pshm.h"
#include "core/pshm/queue.h"
#include <gasnet_pshm_inline.h>

/* The neighbourhood object: this header, then 2*n queues (Request queue of
 * index i at 2i, Reply queue at 2i+1), each qsize bytes, the barrier area,
 * then (lane_depth > 0) the lanes, each lsize bytes: the Reply lanes, then
 * the Request lanes, in each the n-1 lanes into index 0, then into 1, ...,
 * ordered by sender index (gasnetc_pshm_lane_index). */
typedef struct {
    uint64_t magic;
    uint32_t n;      /* neighbourhood size */
    uint32_t depth;  /* slots per queue */
    uint64_t qsize;  /* bytes per queue */
    uint32_t lane_depth; /* slots per lane; 0: no lanes */
    uint32_t pad;
    uint64_t lsize;  /* bytes per lane */
    /* The exit word gets its own cache line: read on every poll, written once. */
    uint64_t exit_word __attribute__((__aligned__(64)));
} __attribute__((__aligned__(64))) gasnetc_pshm_shared_t;
#define GASNETC_PSHM_SHARED_MAGIC 0x67617370736d6e62ull

/* One neighbour's segment as seen from here. */
typedef struct {
    void *local;     /* where this process maps it: NULL if size 0 or not yet
                      * mapped (at first use: segment.c) */
    uintptr_t owner; /* its base address in the owner's process */
    uintptr_t size;  /* bytes, as the owner asked */
    size_t maplen;   /* bytes mapped here (size rounded to pages) */
    gasnetc_pshm_handle_t h; /* how to open the owner's file */
} gasnetc_pshm_seg_t;

typedef struct {
    const gasneti_bootstrap_ops_t *boot;
    uint32_t rank, size;  /* job rank and size */
    uint32_t n, my_index; /* neighbourhood size and my index in ranks[] */
    uint32_t *ranks;      /* sorted job ranks of the neighbourhood */
    gasnetc_pshm_deliver_fn deliver;
    int initialized;
    int mapped;           /* 1 while the neighbourhood object is live */
    int retired;          /* fini ran: mappings are private zero pages now */
    gasnetc_pshm_shared_t *shared; /* the neighbourhood object */
    size_t shared_len;
    int shared_fd;        /* leader: the object's descriptor until all mapped it */
    gasnetc_pshmq_t **reqq, **repq; /* per neighbour index */
    /* Lanes (NULL without): lane_out[w][i] from me into index i (NULL at
     * my index), lane_in[w][k] the n-1 lanes into me; w 0 Replies, 1
     * Requests. */
    gasnetc_pshmq_t **lane_out[2], **lane_in[2];
    /* My power-of-two receive queues and lanes, NULL-terminated, for
     * gasnetc_pshm_pending. */
    gasnetc_pshmq_t **rx_all;
    gasnetc_pshm_seg_t *segs;       /* per neighbour index, after attach */
    int seg_fd;                     /* my segment's file, open for neighbours */
    int seg_attached;
    int segs_retired;
} gasnetc_pshm_state_t;

extern gasnetc_pshm_state_t gasnetc_pshm_state;

/* Pure: fills out[] (room for size entries) with the sorted neighbourhood of
 * rank (see nbrhd.c for the rule), sets *my_index, returns the count (>= 1). */
uint32_t gasnetc_pshm_nbrhd_compute(uint32_t rank, uint32_t size, const uint64_t *host_of,
                                    unsigned maxsize, uint32_t *out, uint32_t *my_index);

/* Index of job rank in the neighbourhood, or -1.  Handler-safe, lock-free. */
static inline int gasnetc_pshm_index_of(uint32_t rank)
{
    const gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    uint32_t lo = 0, hi = st->n;
    if (!hi) return -1;
    /* Fast path: the neighbourhood is a run of consecutive ranks. */
    uint32_t d = rank - st->ranks[0];
    if (d < hi && st->ranks[d] == rank) return (int)d;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->ranks[mid] == rank) return (int)mid;
        if (st->ranks[mid] < rank) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Position of the lane from sender index s into receiver index r (s != r)
 * among the lanes of one kind. */
static inline size_t gasnetc_pshm_lane_index(uint32_t n, uint32_t r, uint32_t s)
{
    return (size_t)r * (n - 1) + (s < r ? s : s - 1);
}

/* Publishes the attached segments in gasneti_pshm_rmatab (the client's
 * inline RMA path, include/gasnet_pshm_inline.h) when the neighbourhood is
 * a run of consecutive ranks; otherwise the table stays empty and every
 * call goes through the library.  Called once by segment attach. */
void gasnetc_pshm_rma_publish(void);
/* Publishes neighbour index i's segment, mapped since (segment.c). */
void gasnetc_pshm_rma_publish_one(uint32_t i);

/* Unmaps every neighbour's segment (segment.c); called by gasnetc_pshm_fini
 * after it has claimed the teardown.  Async-signal-safe (munmap only). */
void gasnetc_pshm_segment_fini(void);

/* ---- shared-memory files (shmobj.c); control path only --------------------- */
/* Creates an unnamed shared file (core/pshm/README "Shared memory without
 * names") of len bytes and maps it.  With reserve, all its backing store is
 * reserved (so that a full /dev/shm fails here, not with SIGBUS later);
 * without, len must fit in the file system's free space and the caller
 * reserves, with gasnetc_pshm_obj_reserve, the parts every rank touches at
 * once (the rest is allocated at first touch).  The descriptor stays open
 * in *fd (until gasnetc_pshm_obj_close) so that neighbours can open the
 * file from *h.  what_for names the use in messages ("AM queues",
 * "segment").  Returns the mapping, or NULL (*fd = -1) after printing one
 * line (size, the failing call, errno, the fix). */
void *gasnetc_pshm_obj_create(size_t len, const char *what_for, int *fd,
                              gasnetc_pshm_handle_t *h, int reserve);
/* Reserves [off, off+len) of a file made by gasnetc_pshm_obj_create: 0, or
 * -1 after printing. */
int gasnetc_pshm_obj_reserve(int fd, size_t off, size_t len, const char *what_for);
/* Maps rank owner's file of at least len bytes from its handle (owner's
 * descriptor still open).  NULL after printing. */
void *gasnetc_pshm_obj_open(uint32_t owner, const gasnetc_pshm_handle_t *h, size_t len,
                            const char *what_for);
/* Closes *fd if open and sets it to -1. */
void gasnetc_pshm_obj_close(int *fd);
/* Anonymous shared mapping for a neighbourhood of one.  NULL after printing. */
void *gasnetc_pshm_obj_anon(size_t len, const char *what_for);
/* Replaces a shared mapping by private zero pages at the same address (or
 * unmaps it if that fails): the shared memory is released, yet a thread
 * still polling or copying during exit reads zeros instead of faulting.
 * Async-signal-safe. */
void gasnetc_pshm_obj_retire(void *p, size_t len);
/* Collective over the whole job: exchanges each rank's status (0 = ok).
 * Returns 1 if every rank reported 0.  Also serves as a barrier. */
int gasnetc_pshm_all_ok(int my_status);
/* Prints one error line with this process's identity. */
void gasnetc_pshm_error(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));

#endif /* GASNETC_PSHM_INTERNAL_H */
