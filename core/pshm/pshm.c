/* core/pshm/pshm.c: the PSHM neighbourhood, its AM queues and exit word.
 *
 * init (collective): compute the neighbourhood, let the neighbourhood leader
 * (lowest rank) create one unnamed shared file holding a header with the
 * exit word, a Request and a Reply queue per neighbour and the lanes, let
 * the others open and map it through /proc, then close its descriptor.  Data path: try_send and
 * poll over the lock-free queues and lanes of queue.c.  Segments are in
 * segment.c.
 * Layout, memory cost and the deadlock argument: core/pshm/README.
 */
#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "build-config.h"
#include "core/pshm/pshm_internal.h"
#include "core/base/transport.h"
#include "other/log/log.h"
#include "other/param/param.h"

/* Payload bytes of one queue buffer: the largest Medium, rounded up to
 * 64 KiB.  PSHM's own size, whatever the verbs buffers are configured to
 * (--with-ibv-max-medium). */
#define GASNETC_PSHM_MAX_PAYLOAD 65536
_Static_assert(GASNETC_PSHM_MAX_PAYLOAD >= GASNETC_MAX_MEDIUM_LUB,
               "a PSHM queue buffer holds the largest Medium");

/* Messages delivered per queue and poll call: bounds the time one poll
 * spends in handlers while keeping the per-call overhead amortised (one
 * queue depth by default, so a sender blocked on a full queue is freed by
 * one poll, and a receiver that polls rarely, e.g. between the flag checks
 * of a barrier wait, catches up in one poll). */
#define GASNETC_PSHM_POLL_BATCH 128
/* Exit word: 0 = nobody exited; else EXIT_SET | (uint32_t)code. */
#define GASNETC_PSHM_EXIT_SET (UINT64_C(1) << 32)

gasnetc_pshm_state_t gasnetc_pshm_state;

/* Asks for a slot line we will write (its give-back) in exclusive state:
 * one request per line, all of a run's in flight at once, instead of an
 * upgrade per give-back store.  PREFETCHW (CPUID 0x80000001 ECX bit 8) is
 * probed once: gcc emits it only for -mprfchw targets. */
#if defined(__x86_64__) || defined(__i386__)
static int have_prefetchw;
static void probe_prefetchw(void)
{
    unsigned a, b, c, d;
    have_prefetchw = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 8));
}
#define OWN_HINT(p)                                                                  \
    do {                                                                             \
        if (have_prefetchw) __asm__ volatile("prefetchw %0" ::"m"(*(const char *)(p))); \
    } while (0)
#else
static void probe_prefetchw(void) {}
#define OWN_HINT(p) __builtin_prefetch((p), 1, 3)
#endif

/* ---- barrier area ------------------------------------------------------------- */
static uint32_t bar_rounds(uint32_t n)
{
    uint32_t r = 0;
    while (r < 32 && ((uint64_t)1 << r) < n) r++;
    return r;
}

static size_t bar_per_epoch(uint32_t n)
{
    size_t b = (size_t)bar_rounds(n) * GASNETC_PSHM_BAR_ENTRY;
    return (b + 63) / 64 * 64;
}

/* Bytes of the barrier area of an n-rank neighbourhood. */
static size_t bar_bytes(uint32_t n)
{
    return (size_t)n * GASNETC_PSHM_BAR_WINDOW * bar_per_epoch(n);
}

void *gasnetc_pshm_barrier_area(uint32_t *rounds, size_t *per_epoch, size_t *per_rank)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    if (!st->initialized || !st->shared) return NULL;
    *rounds = bar_rounds(st->n);
    *per_epoch = bar_per_epoch(st->n);
    *per_rank = GASNETC_PSHM_BAR_WINDOW * *per_epoch;
    return (char *)st->shared + sizeof(gasnetc_pshm_shared_t) + 2 * (size_t)st->n * st->shared->qsize;
}

/* ---- the AM send fast path's table (core/base/transport.h) ---------------------- */
/* This process's power-of-two receive lanes and queues, NULL-terminated;
 * NULL before init and from fini on (gasnetc_pshm_pending). */
static gasnetc_pshmq_t *const *pshm_rxq;

/* Only for a neighbourhood that is a run of consecutive ranks with
 * power-of-two queues; otherwise n stays 0 and every AM takes try_send. */
static void fast_publish(const gasnetc_pshm_state_t *st)
{
    if (st->n < 2 || (st->shared->depth & (st->shared->depth - 1))) return;
    for (uint32_t i = 0; i < st->n; i++)
        if (st->ranks[i] != st->ranks[0] + i) return;
    gasnetc_nbr_fast.first = st->ranks[0];
    gasnetc_nbr_fast.me = st->my_index;
    gasnetc_nbr_fast.reqq = st->reqq;
    gasnetc_nbr_fast.repq = st->repq;
    gasnetc_nbr_fast.replane = st->lane_out[0];
    gasnetc_nbr_fast.reqlane = st->lane_out[1];
    __atomic_store_n(&gasnetc_nbr_fast.n, st->n, __ATOMIC_RELEASE);
}

/* ---- lanes ---------------------------------------------------------------------- */
/* Lanes (core/pshm/README "Lanes"): one queue of small slots per ordered
 * pair of neighbours and kind, for every AM whose payload fits in a slot.
 * Their memory grows as n^2, so only neighbourhoods of up to this many
 * ranks get them, with at most this many slots each (a power of two). */
#define GASNETC_PSHM_LANE_MAXN 16
#define GASNETC_PSHM_LANE_DEPTH 128

/* Slots per lane for n ranks and queue depth: the largest power of two not
 * above either limit, or 0 for no lanes. */
static uint32_t lane_depth_for(uint32_t n, uint32_t depth)
{
    uint32_t d = 1;
    if (n < 2 || n > GASNETC_PSHM_LANE_MAXN) return 0;
    while (d * 2 <= depth && d * 2 <= GASNETC_PSHM_LANE_DEPTH) d *= 2;
    return d >= 2 ? d : 0;
}

/* Bytes of the lanes of an n-rank neighbourhood (both kinds). */
static size_t lanes_bytes(uint32_t n, size_t lsize)
{
    return n < 2 ? 0 : 2 * (size_t)n * (n - 1) * lsize;
}

static char *lanes_base(gasnetc_pshm_shared_t *sh)
{
    return (char *)sh + sizeof(*sh) + 2 * (size_t)sh->n * sh->qsize + bar_bytes(sh->n);
}

/* The lane of kind w (0 Replies, 1 Requests) from index s into index r. */
static char *lane_at(gasnetc_pshm_shared_t *sh, int w, uint32_t r, uint32_t s)
{
    size_t per_kind = (size_t)sh->n * (sh->n - 1);
    size_t i = (size_t)w * per_kind + gasnetc_pshm_lane_index(sh->n, r, s);
    return lanes_base(sh) + i * sh->lsize;
}

/* ---- init -------------------------------------------------------------------- */
/* Leader: formats the neighbourhood object at mem. */
static void shared_format(gasnetc_pshm_shared_t *sh, uint32_t n, uint32_t depth, size_t qsize,
                          uint32_t lane_depth, size_t lsize)
{
    char *base = (char *)sh + sizeof(*sh);
    sh->n = n;
    sh->depth = depth;
    sh->qsize = qsize;
    sh->lane_depth = lane_depth;
    sh->lsize = lsize;
    __atomic_store_n(&sh->exit_word, 0, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < 2 * n; i++)
        gasnetc_pshmq_init(base + (size_t)i * qsize, depth, GASNETC_PSHM_MAX_PAYLOAD);
    for (int w = 0; lane_depth && w < 2; w++)
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t s = 0; s < n; s++)
                if (s != r)
                    gasnetc_pshmq_init(lane_at(sh, w, r, s), lane_depth, GASNETC_PSHMQ_INLINE);
    __atomic_store_n(&sh->magic, GASNETC_PSHM_SHARED_MAGIC, __ATOMIC_RELEASE);
}

/* The leader reserves the parts of the object every rank touches at once:
 * the header, each queue's header and slots, the barrier flags and the
 * lanes.  The payload buffers (nearly all of it: 2 MiB per queue at the
 * default depth) are allocated page by page as payloads use them, so that
 * start-up does not zero them all (550 MB for 128 processes, 90 ms of one
 * process; core/pshm/README "The queue object and its memory cost"). */
static int shared_reserve(int fd, uint32_t n, uint32_t depth, size_t qsize)
{
    size_t head = sizeof(gasnetc_pshm_shared_t);
    size_t ctrl = gasnetc_pshmq_ctrl_size(depth);
    if (gasnetc_pshm_obj_reserve(fd, 0, head, "AM queues") != 0) return -1;
    for (size_t i = 0; i < 2 * (size_t)n; i++)
        if (gasnetc_pshm_obj_reserve(fd, head + i * qsize, ctrl, "AM queues") != 0) return -1;
    size_t tail = head + 2 * (size_t)n * qsize;
    return gasnetc_pshm_obj_reserve(fd, tail, gasnetc_pshm_state.shared_len - tail, "AM queues");
}

/* Every rank: finds its lanes (both directions) and lists its receive
 * queues.  Returns the index of a lane that is not initialised, or -1. */
static int lanes_bind(gasnetc_pshm_state_t *st)
{
    gasnetc_pshm_shared_t *sh = st->shared;
    uint32_t n = st->n, me = st->my_index, k = 0;
    st->rx_all = calloc(2 * (size_t)n + 1, sizeof(*st->rx_all));
    if (!st->rx_all) gasneti_fatalerror("PSHM: out of memory for %u queues", n);
    for (int w = 0; sh->lane_depth && w < 2; w++) {
        st->lane_out[w] = calloc(n, sizeof(*st->lane_out[w]));
        st->lane_in[w] = calloc(n, sizeof(*st->lane_in[w]));
        if (!st->lane_out[w] || !st->lane_in[w])
            gasneti_fatalerror("PSHM: out of memory for %u lanes", n);
        for (uint32_t i = 0, j = 0; i < n; i++) {
            if (i == me) continue;
            /* Lanes out: touched at the first send (shared_bind). */
            st->lane_out[w][i] = (gasnetc_pshmq_t *)lane_at(sh, w, i, me);
            st->lane_in[w][j] = gasnetc_pshmq_attach(lane_at(sh, w, me, i));
            if (!st->lane_out[w][i] || !st->lane_in[w][j]) return (int)i;
            st->rx_all[k++] = st->lane_in[w][j++];
        }
    }
    if (st->repq[me]->mask) st->rx_all[k++] = st->repq[me];
    if (st->reqq[me]->mask) st->rx_all[k++] = st->reqq[me];
    return -1;
}

/* Every rank: finds the queues in a mapped neighbourhood object. */
static int shared_bind(gasnetc_pshm_state_t *st)
{
    static const char name[] = "the AM queue file";
    gasnetc_pshm_shared_t *sh = st->shared;
    char *base = (char *)sh + sizeof(*sh);
    int bad;

    if (__atomic_load_n(&sh->magic, __ATOMIC_ACQUIRE) != GASNETC_PSHM_SHARED_MAGIC ||
        sh->n != st->n ||
        sizeof(*sh) + 2 * (size_t)sh->n * sh->qsize + bar_bytes(sh->n) +
                lanes_bytes(sh->n, sh->lsize) > st->shared_len) {
        gasnetc_pshm_error("PSHM: %s does not hold the AM queues of a %u-rank neighbourhood; "
                           "ranks disagree on GASNET_SUPERNODE_MAXSIZE or on their hosts",
                           name, st->n);
        return -1;
    }
    st->reqq = calloc(st->n, sizeof(*st->reqq));
    st->repq = calloc(st->n, sizeof(*st->repq));
    if (!st->reqq || !st->repq) gasneti_fatalerror("PSHM: out of memory for %u queues", st->n);
    /* Only my own queues are checked (read) here: each queue header is on
     * a page of its own, so reading every neighbour's would cost every rank
     * 2n page faults at start-up, n^2 for the host, most of them for peers
     * it never sends to.  The leader formatted them all before the status
     * exchange that let us map the object; a neighbour's page is touched at
     * the first send to it. */
    for (uint32_t i = 0; i < st->n; i++) {
        char *req = base + (size_t)(2 * i) * sh->qsize, *rep = req + sh->qsize;
        st->reqq[i] = i == st->my_index ? gasnetc_pshmq_attach(req) : (gasnetc_pshmq_t *)req;
        st->repq[i] = i == st->my_index ? gasnetc_pshmq_attach(rep) : (gasnetc_pshmq_t *)rep;
        if (!st->reqq[i] || !st->repq[i]) {
            gasnetc_pshm_error("PSHM: queue %u in %s is not initialised", i, name);
            return -1;
        }
    }
    if ((bad = lanes_bind(st)) >= 0) {
        gasnetc_pshm_error("PSHM: a lane of index %d in %s is not initialised", bad, name);
        return -1;
    }
    return 0;
}

int gasnetc_pshm_init(const gasneti_bootstrap_ops_t *boot, uint32_t rank, uint32_t size,
                      const uint64_t *host_of, unsigned maxsize, gasnetc_pshm_deliver_fn deliver)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    gasnetc_pshm_handle_t mine, *all = NULL;
    int64_t depth = GASNETI_PARAM_INT(GASNET_PSHM_NETWORK_DEPTH);
    size_t qsize = 0, len = 0, lsize = 0;
    uint32_t lane_depth = 0;
    int status = 0, leader;

    if (st->initialized) gasneti_fatalerror("PSHM: gasnetc_pshm_init called twice");
    memset(st, 0, sizeof(*st));
    st->shared_fd = -1;
    st->seg_fd = -1;
    st->boot = boot;
    st->rank = rank;
    st->size = size;
    st->deliver = deliver;
    probe_prefetchw();
    st->ranks = calloc(size, sizeof(*st->ranks));
    if (!st->ranks) gasneti_fatalerror("PSHM: out of memory for %u ranks", size);
    st->n = gasnetc_pshm_nbrhd_compute(rank, size, host_of, maxsize, st->ranks, &st->my_index);
    leader = (st->my_index == 0);

    if (depth < 2 || depth > (1 << 20)) {
        gasnetc_pshm_error("PSHM: GASNET_PSHM_NETWORK_DEPTH=%lld is out of range (2..1048576); "
                           "use the default 128",
                           (long long)depth);
        status = -1;
    } else {
        qsize = gasnetc_pshmq_size((uint32_t)depth, GASNETC_PSHM_MAX_PAYLOAD);
        lane_depth = lane_depth_for(st->n, (uint32_t)depth);
        lsize = lane_depth ? gasnetc_pshmq_size(lane_depth, GASNETC_PSHMQ_INLINE) : 0;
        if (qsize == 0 ||
            qsize > (SIZE_MAX / 2 - sizeof(gasnetc_pshm_shared_t) - bar_bytes(st->n) -
                     lanes_bytes(st->n, lsize)) / (2 * st->n)) {
            gasnetc_pshm_error("PSHM: AM queues for %u ranks x GASNET_PSHM_NETWORK_DEPTH=%lld "
                               "do not fit in memory; lower GASNET_PSHM_NETWORK_DEPTH",
                               st->n, (long long)depth);
            status = -1;
        }
        len = sizeof(gasnetc_pshm_shared_t) + 2 * (size_t)st->n * qsize + bar_bytes(st->n) +
              lanes_bytes(st->n, lsize);
    }
    st->shared_len = len;

    /* Step 1: the leader creates and formats the file; its handle (status
     * in pid: -1 = failed) goes to every rank. */
    memset(&mine, 0, sizeof(mine));
    if (leader && status == 0) {
        void *p = st->n > 1 ? gasnetc_pshm_obj_create(len, "AM queues", &st->shared_fd, &mine, 0)
                            : gasnetc_pshm_obj_anon(len, "AM queues");
        if (p && st->n > 1 && shared_reserve(st->shared_fd, st->n, (uint32_t)depth, qsize) != 0) {
            munmap(p, len);
            gasnetc_pshm_obj_close(&st->shared_fd);
            p = NULL;
        }
        if (p) {
            st->shared = p;
            st->mapped = 1;
            shared_format(st->shared, st->n, (uint32_t)depth, qsize, lane_depth, lsize);
        } else {
            status = -1;
        }
    }
    if (status) mine.pid = -1;
    all = calloc(size, sizeof(*all));
    if (!all) gasneti_fatalerror("PSHM: out of memory for %u handles", size);
    boot->exchange(&mine, sizeof(mine), all);
    for (uint32_t r = 0; r < size; r++)
        if (all[r].pid < 0) status = -1;
    if (status) goto fail;

    /* Step 2: the others map it; everyone finds the queues. */
    if (!leader) {
        st->shared = gasnetc_pshm_obj_open(st->ranks[0], &all[st->ranks[0]], len, "AM queues");
        if (st->shared) st->mapped = 1;
        else status = -1;
    }
    if (status == 0) status = shared_bind(st);
    if (!gasnetc_pshm_all_ok(status)) goto fail;

    /* Step 3: everyone has it mapped; the descriptor is no longer needed. */
    gasnetc_pshm_obj_close(&st->shared_fd);
    free(all);
    st->initialized = 1;
    fast_publish(st);
    if (st->rx_all[0]) __atomic_store_n(&pshm_rxq, st->rx_all, __ATOMIC_RELEASE);
    return 0;

fail:
    gasnetc_pshm_obj_close(&st->shared_fd);
    free(all);
    gasnetc_pshm_fini();
    return -1;
}

/* ---- queries --------------------------------------------------------------------- */
const char *gasnetc_pshm_mapping_of(const void *addr)
{
    const gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)st->shared;
    return st->shared && a >= base && a - base < st->shared_len ? "the AM queues" : NULL;
}

int gasnetc_pshm_in_nbrhd(uint32_t rank)
{
    return gasnetc_pshm_index_of(rank) >= 0;
}

uint32_t gasnetc_pshm_nbrhd_size(void)
{
    return gasnetc_pshm_state.n;
}

const uint32_t *gasnetc_pshm_nbrhd_ranks(void)
{
    return gasnetc_pshm_state.ranks;
}

uint32_t gasnetc_pshm_lane_depth(void)
{
    const gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    return st->initialized && st->lane_out[0] ? st->shared->lane_depth : 0;
}

uint32_t gasnetc_pshm_nbrhd_index(void)
{
    return gasnetc_pshm_state.my_index;
}

/* ---- data path ------------------------------------------------------------------ */
static int try_send(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                    size_t nbytes, int lane_ok)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    int idx = gasnetc_pshm_index_of(dest);
    gasnetc_pshmq_t *q;
    int rc;

    if (__builtin_expect(idx < 0 || !st->mapped, 0)) {
        /* After fini the process is exiting: "full" keeps the caller busy
         * until _exit instead of turning the exit into a fatal error. */
        if (idx >= 0 && st->retired) return 1;
        gasneti_fatalerror("PSHM: AM to rank %u, which is not in this PSHM neighbourhood%s",
                           (unsigned)dest, idx < 0 ? "" : " (PSHM not initialised)");
    }
    if (hdr->category == GASNETC_AM_LONG) nbytes = 0; /* the caller placed it already */
    if (lane_ok && nbytes <= GASNETC_PSHMQ_INLINE && st->lane_out[hdr->is_req] &&
        idx != (int)st->my_index)
        q = st->lane_out[hdr->is_req][idx];
    else
        q = hdr->is_req ? st->reqq[idx] : st->repq[idx];
    rc = gasnetc_pshmq_try_send(q, hdr, payload, nbytes);
    if (rc < 0)
        gasneti_fatalerror("PSHM: AM payload of %zu bytes to rank %u exceeds the queue slot "
                           "(%d bytes)",
                           nbytes, (unsigned)dest, GASNETC_PSHM_MAX_PAYLOAD);
    return rc;
}

int gasnetc_pshm_try_send(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                          size_t nbytes)
{
    return try_send(dest, hdr, payload, nbytes, 1);
}

int gasnetc_pshm_try_send_fifo(uint32_t dest, const gasnetc_am_hdr_t *hdr, const void *payload,
                               size_t nbytes)
{
    return try_send(dest, hdr, payload, nbytes, 0);
}

/* One consumer per queue at a time: then taking a message needs no atomic
 * read-modify-write (gasnetc_pshmq_take1).  A SEQ or PARSYNC process has
 * one polling thread; in PAR, a thread that finds the queue's drain flag
 * taken leaves the queue to its holder (who is delivering right now). */
#if defined(GASNET_PAR)
static int drain_busy[2]; /* [0] my Reply lanes and queue, [1] my Request ones */
#define DRAIN_ENTER(w) (!__atomic_exchange_n(&drain_busy[w], 1, __ATOMIC_ACQUIRE))
#define DRAIN_LEAVE(w) __atomic_store_n(&drain_busy[w], 0, __ATOMIC_RELEASE)
#else
#define DRAIN_ENTER(w) 1
#define DRAIN_LEAVE(w) ((void)0)
#endif

/* Slots a drain looks ahead at once (core/pshm/README "Receiver"): the
 * turn-word loads of a run of slots are independent, so their cache-line
 * transfers from the producer overlap instead of one per message.  Longer
 * runs measured slower (a run's slots go back to the producer later). */
#define GASNETC_PSHM_SCAN 8
/* A lane's drain asks for the slots of the next this many positions that
 * the producer has claimed already (README "Lanes"). */
#define GASNETC_PSHM_AHEAD 16

/* Lanes with one producer at a time (SEQ, PARSYNC) are claimed with plain
 * stores, so their consumer may read their tail; in PAR they are claimed
 * with a CAS, which such reads would slow down. */
#if defined(GASNET_PAR)
#define LANE_LOOK_AHEAD 0
#else
#define LANE_LOOK_AHEAD 1
#endif

/* Prefetches the slots from position `from` on that the producer claimed
 * (less the last 2, which it is still writing), up to GASNETC_PSHM_AHEAD
 * ahead: their transfers overlap the handlers of the current run.  The
 * tail is read only when the drain has caught up with its last look. */
static inline void look_ahead(gasnetc_pshmq_t *q, uint64_t mask, uint64_t from)
{
    uint64_t to = from + GASNETC_PSHM_AHEAD, t = q->tail_seen;
    if ((int64_t)(t - to) < 2) q->tail_seen = t = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
    if ((int64_t)(t - 2 - to) < 0) to = t - 2;
    for (uint64_t x = from; (int64_t)(x - to) < 0; x++)
        __builtin_prefetch(gasnetc_pshmq_slot_of(q, mask, x), 0, 3);
}

/* Delivers up to GASNETC_PSHM_POLL_BATCH messages of one queue or lane
 * (the caller holds its kind's drain flag).  ahead: a lane whose tail may
 * be read (look_ahead). */
static int drain(gasnetc_pshmq_t *q, gasnetc_pshm_deliver_fn deliver, int ahead)
{
    gasnetc_pshmq_slot_t *s;
    uint64_t mask = q->mask, depth = q->depth, pos;
    int n = 0;
    if (__builtin_expect(mask != 0, 1)) {
        /* Power-of-two depth (the default): the inline take, a run of
         * published slots at a time.  head is reloaded per run (a plain
         * load of a line only we write), since a handler that polls may
         * have moved it, and it is stored past the run before the first
         * handler runs, so a nested drain starts after the run.  The
         * run's slots stay ours until all its handlers returned: given
         * back together, their lines go back to the producer in one go
         * (a give-back between handlers costs a transfer each). */
        while (n < GASNETC_PSHM_POLL_BATCH) {
            unsigned k = 0, lim = GASNETC_PSHM_POLL_BATCH - n;
            if (lim > GASNETC_PSHM_SCAN) lim = GASNETC_PSHM_SCAN;
            pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
            while (k < lim && gasnetc_pshmq_peek1(q, mask, pos + k)) k++;
            if (!k) break;
            __atomic_store_n(&q->head, pos + k, __ATOMIC_RELAXED);
            n += (int)k;
            for (unsigned i = 0; i < k; i++) OWN_HINT(gasnetc_pshmq_slot_of(q, mask, pos + i));
            if (ahead) look_ahead(q, mask, pos + k);
            for (unsigned i = 0; i < k; i++) {
                s = gasnetc_pshmq_slot_of(q, mask, pos + i);
                if (s->hdr.category == GASNETC_AM_LONG) deliver(&s->hdr, NULL);
                else deliver(&s->hdr, gasnetc_pshmq_payload(q, s, pos + i, (size_t)s->nbytes));
            }
            for (unsigned i = 0; i < k; i++)
                gasnetc_pshmq_give_back(gasnetc_pshmq_slot_of(q, mask, pos + i), pos + i, depth);
        }
    } else {
        gasnetc_pshmq_msg_t m;
        while (n < GASNETC_PSHM_POLL_BATCH && gasnetc_pshmq_take1(q, &m)) {
            deliver(m.hdr, m.hdr->category == GASNETC_AM_LONG ? NULL : m.payload);
            gasnetc_pshmq_release(q, &m);
            n++;
        }
    }
    return n;
}

/* 1 unless the queue is a power-of-two queue whose next slot is empty: an
 * idle poll then costs a few loads per queue, without entering drain. */
static inline int maybe_msg(gasnetc_pshmq_t *q)
{
    uint64_t mask = q->mask;
    return !mask || gasnetc_pshmq_peek1(q, mask, __atomic_load_n(&q->head, __ATOMIC_RELAXED));
}

/* Drains the lanes into me of kind w (0 Replies, 1 Requests), then my
 * queue of that kind. */
static int drain_kind(gasnetc_pshm_state_t *st, int w)
{
    gasnetc_pshmq_t **in = st->lane_in[w];
    gasnetc_pshmq_t *q = w ? st->reqq[st->my_index] : st->repq[st->my_index];
    int n = 0;
    if (!DRAIN_ENTER(w)) return 0;
    if (in)
        for (uint32_t k = 0; k + 1 < st->n; k++)
            if (maybe_msg(in[k])) n += drain(in[k], st->deliver, LANE_LOOK_AHEAD);
    if (maybe_msg(q)) n += drain(q, st->deliver, 0);
    DRAIN_LEAVE(w);
    return n;
}

int gasnetc_pshm_poll(int replies_only)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    int n;

    if (!st->initialized || !st->mapped) return 0;
    n = drain_kind(st, 0);
    if (!replies_only) n += drain_kind(st, 1);
    return n;
}

/* Whether the next slot of power-of-two queue q is published. */
static inline int next_published(gasnetc_pshmq_t *q)
{
    uint64_t mask = q->mask;
    return mask && gasnetc_pshmq_peek1(q, mask, __atomic_load_n(&q->head, __ATOMIC_RELAXED));
}

int gasnetc_pshm_pending(void)
{
    gasnetc_pshmq_t *const *rx = __atomic_load_n(&pshm_rxq, __ATOMIC_ACQUIRE);
    if (rx)
        for (; *rx; rx++)
            if (next_published(*rx)) return 1;
    return 0;
}

/* ---- inline RMA table (defined in core/base/transport.c) ------------------------ */
void gasnetc_pshm_rma_publish(void)
{
    const gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    gasneti_pshm_rmaseg_t *seg;

    for (uint32_t i = 0; i < st->n; i++)
        if (st->ranks[i] != st->ranks[0] + i) return; /* not a run: no inline path */
    /* seg[] ends at the end of a page, as the table does (4K aliasing with
     * page-aligned client buffers: include/gasnet_pshm_inline.h). */
    size_t bytes = (size_t)st->n * sizeof(*seg);
    size_t room = (bytes + GASNETI_PSHM_RMATAB_PAGE - 1) / GASNETI_PSHM_RMATAB_PAGE *
                  GASNETI_PSHM_RMATAB_PAGE;
    void *block = NULL;
    if (posix_memalign(&block, GASNETI_PSHM_RMATAB_PAGE, room))
        return; /* the library's functions still work */
    memset(block, 0, room);
    seg = (gasneti_pshm_rmaseg_t *)((char *)block + room - bytes);
    for (uint32_t i = 0; i < st->n; i++) {
        const gasnetc_pshm_seg_t *s = &st->segs[i];
        seg[i].owner = s->owner;
        seg[i].size = s->local ? s->size : 0;
        seg[i].local = s->local;
    }
    gasneti_pshm_rmatab.seg = seg;
    gasneti_pshm_rmatab.first = st->ranks[0];
    __atomic_store_n(&gasneti_pshm_rmatab.n, st->n, __ATOMIC_RELEASE);
}

void gasnetc_pshm_rma_publish_one(uint32_t i)
{
    const gasnetc_pshm_seg_t *s = &gasnetc_pshm_state.segs[i];
    /* Ours (gasnetc_pshm_rma_publish allocated it); const for clients. */
    gasneti_pshm_rmaseg_t *seg = (gasneti_pshm_rmaseg_t *)gasneti_pshm_rmatab.seg;
    if (!seg) return; /* no inline path */
    /* The size last: a client that reads it (acquire) reads the mapping. */
    seg[i].local = s->local;
    __atomic_store_n(&seg[i].size, s->size, __ATOMIC_RELEASE);
}

/* ---- exit word -------------------------------------------------------------------- */
void gasnetc_pshm_set_exit(int code)
{
    gasnetc_pshm_shared_t *sh = gasnetc_pshm_state.shared;
    uint64_t none = 0;
    if (!gasnetc_pshm_state.mapped || !sh) return;
    __atomic_compare_exchange_n(&sh->exit_word, &none, GASNETC_PSHM_EXIT_SET | (uint32_t)code,
                                0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

int gasnetc_pshm_exit_requested(int *code)
{
    gasnetc_pshm_shared_t *sh = gasnetc_pshm_state.shared;
    uint64_t w;
    if (!sh) return 0;
    w = __atomic_load_n(&sh->exit_word, __ATOMIC_ACQUIRE);
    if (!w) return 0;
    if (code) *code = (int)(int32_t)(uint32_t)w;
    return 1;
}

/* ---- teardown ------------------------------------------------------------------ */
void gasnetc_pshm_fini(void)
{
    gasnetc_pshm_state_t *st = &gasnetc_pshm_state;

    /* Only the first caller (thread, signal handler, exit path) tears down.
     * The shared mappings are replaced by private zero pages rather than
     * unmapped, so that another thread still polling, sending or copying
     * while the process exits sees empty queues, a clear exit word and
     * zeros instead of a SIGSEGV that would change the exit code.
     * Bookkeeping arrays are not freed: free() is not async-signal-safe and
     * the queries keep working during exit. */
    gasnetc_pshm_segment_fini();
    __atomic_store_n(&pshm_rxq, NULL, __ATOMIC_RELEASE);
    if (!__atomic_exchange_n(&st->mapped, 0, __ATOMIC_ACQ_REL)) return;
    __atomic_store_n(&st->retired, 1, __ATOMIC_RELEASE);
    st->initialized = 0;
    gasnetc_pshm_obj_retire(st->shared, st->shared_len);
}

/* ---- the ops table (core/base/transport.h) ------------------------------------- */
const gasnetc_am_nbr_ops_t gasnetc_pshm_am_ops = {
    .name = "pshm",
    .try_send = gasnetc_pshm_try_send,
    .try_send_fifo = gasnetc_pshm_try_send_fifo,
    .poll = gasnetc_pshm_poll,
    .pending = gasnetc_pshm_pending,
    .set_exit = gasnetc_pshm_set_exit,
    .exit_requested = gasnetc_pshm_exit_requested,
    .fini = gasnetc_pshm_fini,
};
