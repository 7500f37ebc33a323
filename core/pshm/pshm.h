/* core/pshm/pshm.h: the same-host path (PSHM).
 *
 * Processes of one host ("neighbourhood") cross-map each other's segments so
 * that RMA is memcpy, and exchange Active Messages through shared-memory
 * queues: each process owns one Request queue and one Reply queue that all
 * its neighbours produce into, and (neighbourhoods of 2..16) a Request and
 * a Reply lane from each neighbour for the AMs whose payload fits in a slot.
 * The shared memory is unnamed files (O_TMPFILE in /dev/shm, else memfd)
 * that neighbours open through /proc/<owner pid>/fd/<fd>: nothing has a
 * name, so nothing outlives the job's processes whatever kills them.
 * Design notes: core/pshm/README.
 *
 * Collective calls (init, segment_attach) use the bootstrap and must be
 * called by every rank of the job in the same order.
 */
#ifndef GASNETC_PSHM_H
#define GASNETC_PSHM_H

#include <stddef.h>
#include <stdint.h>
#include "bootstrap/bootstrap.h"
#include "core/am/wire.h"

/* How a neighbour finds one of this process's shared-memory files: the
 * owner's pid and descriptor (opened as /proc/<pid>/fd/<fd>) and the file's
 * identity (checked after the open).  Valid while the owner keeps fd open. */
typedef struct {
    int32_t pid;
    int32_t fd;
    uint64_t dev;
    uint64_t ino;
} gasnetc_pshm_handle_t;

/* Called for every AM taken off a queue.  payload points into the queue slot
 * (valid until the callback returns); for Long AMs the payload is already
 * in place at hdr->dest_addr and payload is NULL. */
typedef void (*gasnetc_pshm_deliver_fn)(const gasnetc_am_hdr_t *hdr, void *payload);

/* Collective.  host_of[r] is the host id of every rank (from the bootstrap);
 * ranks with this rank's id form the neighbourhood.  With maxsize > 0
 * (GASNET_SUPERNODE_MAXSIZE) a host's ranks are split into neighbourhoods of
 * at most maxsize consecutive ranks; maxsize 1 disables PSHM.
 * Sets up the AM queues.  Returns 0, or -1 after printing why. */
int gasnetc_pshm_init(const gasneti_bootstrap_ops_t *boot, uint32_t rank, uint32_t size,
                      const uint64_t *host_of, unsigned maxsize,
                      gasnetc_pshm_deliver_fn deliver);

/* Neighbourhood queries (valid after init). */
int gasnetc_pshm_in_nbrhd(uint32_t rank);     /* 1 if rank is reachable via PSHM (self included) */
uint32_t gasnetc_pshm_nbrhd_size(void);
const uint32_t *gasnetc_pshm_nbrhd_ranks(void); /* sorted job ranks */
uint32_t gasnetc_pshm_lane_depth(void);         /* slots per lane; 0: no lanes */
uint32_t gasnetc_pshm_nbrhd_index(void);        /* my index in that list */

/* Whether addr lies in the AM queues object ("the AM queues"), or NULL:
 * names the mapping of a SIGBUS, which there means the file system had no
 * page left for it (core/pshm/README).  Async-signal-safe. */
const char *gasnetc_pshm_mapping_of(const void *addr);

/* Collective: allocates this rank's segment (size bytes, page-aligned, may
 * be 0) in shared memory, maps every neighbour's, and records them.
 * *addr receives the local address of this rank's segment.
 * Returns 0, or -1 after printing why (e.g. /dev/shm too small). */
int gasnetc_pshm_segment_attach(uintptr_t size, void **addr);

/* Translates an address in `rank`'s segment (as that rank sees it) to the
 * address where this process maps it.  rank must be in the neighbourhood.
 * Returns NULL if [addr, addr+len) is not inside that segment. */
void *gasnetc_pshm_addr(uint32_t rank, const void *addr, size_t len);

/* Created segments shared with neighbours (extended/ep.c): create makes
 * an unnamed shared file of len bytes for this rank's serial, maps it and
 * keeps its descriptor open; handle gives what neighbours need to open it
 * (-1 once released or if never created); map opens rank's file from its
 * handle; release closes ours (once every neighbour mapped it, or when the
 * segment is destroyed; no-op if already released).  create/map return
 * NULL after printing why.  Control path, under the caller's lock. */
void *gasnetc_pshm_cseg_create(uint32_t serial, size_t len);
int gasnetc_pshm_cseg_handle(uint32_t serial, gasnetc_pshm_handle_t *h);
void *gasnetc_pshm_cseg_map(uint32_t rank, const gasnetc_pshm_handle_t *h, size_t len);
void gasnetc_pshm_cseg_release(uint32_t serial);

/* Tries to enqueue one AM to neighbour dest (a Request or a Reply, per
 * hdr->is_req).  Copies hdr and nbytes of payload (Short/Medium; Long
 * payloads are copied by the caller).  Never blocks: returns 0, or 1 when
 * the destination queue is full (the caller polls and retries). */
int gasnetc_pshm_try_send(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                          size_t nbytes);

/* The same into dest's shared queue only, never its lane: AMs one sender
 * sends this way are delivered in order (README "Lanes"). */
int gasnetc_pshm_try_send_fifo(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                               size_t nbytes);

/* The AM send fast path (core/am_fpam.c; core/pshm/README "AM fast path"):
 * init fills gasnetc_nbr_fast (core/base/transport.h) with the queues of a
 * neighbourhood that is a run of consecutive ranks with power-of-two
 * queue depths. */

/* Delivers up to a small batch of arrived messages per queue and lane
 * through the deliver callback; with replies_only, only this rank's Reply
 * lanes and queue are drained (used while a handler waits to send a
 * Reply).  Returns the number delivered.  Thread-safe in PAR builds
 * (several pollers may run at once). */
int gasnetc_pshm_poll(int replies_only);
/* 1 when the next slot of one of this process's power-of-two receive
 * lanes or queues is published (a racy look: gasnetc_pshm_poll decides);
 * 0 before init and from fini on.  For wait loops between polls
 * (gasneti_pollwait_hint).  Any thread; a few loads. */
int gasnetc_pshm_pending(void);

/* Barrier flags in shared memory (extended/barrier_pshm.c): for each
 * neighbour index i, GASNETC_PSHM_BAR_WINDOW epochs x *rounds entries of
 * GASNETC_PSHM_BAR_ENTRY bytes, each epoch's entries starting on a cache
 * line; *rounds = ceil(log2 n).  Zeroed at init.  NULL before init.
 * *per_rank receives the bytes of one neighbour's part. */
#define GASNETC_PSHM_BAR_WINDOW 64
#define GASNETC_PSHM_BAR_ENTRY 16
void *gasnetc_pshm_barrier_area(uint32_t *rounds, size_t *per_epoch, size_t *per_rank);

/* Job-wide exit word in shared memory (one per neighbourhood): the first
 * process to exit sets it; others see it when polling.  Returns 1 and the
 * code if set. */
void gasnetc_pshm_set_exit(int code);
int gasnetc_pshm_exit_requested(int *code);

/* Releases every shared mapping (no descriptor is open by then): each is
 * replaced by private zero pages at the same address, so threads still
 * running during exit see empty queues and a clear exit word, try_send
 * reports "full", and gasnetc_pshm_addr still translates (into zeros)
 * instead of faulting.  Idempotent and async-signal-safe (mmap only). */
void gasnetc_pshm_fini(void);

/* The entries above as the neighbour transport's AM ops table, which
 * core/init.c installs for the core (core/base/transport.h). */
struct gasnetc_am_nbr_ops;
extern const struct gasnetc_am_nbr_ops gasnetc_pshm_am_ops;

#endif /* GASNETC_PSHM_H */
