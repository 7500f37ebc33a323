/* core/pshm/queue.h: a bounded multi-producer multi-consumer ring of AM
 * slots that lives in any block of memory (shared between processes or
 * not).  It holds no pointers, only offsets, so every process may map the
 * block at a different address.
 *
 * Layout: the slots are small and packed (header and small payloads); a
 * larger payload goes to a payload buffer in a separate area.  A queue has
 * fewer buffers than slots when it is deeper than GASNETC_PSHMQ_BUFS (a
 * power of two): position pos uses buffer pos % nbuf, and a producer claims
 * a position that needs a buffer only once the buffer's earlier users are
 * given back (gasnetc_pshmq_buf_free).  So the ring can be deep, for the
 * message rate of small AMs, without a 64 KiB buffer per slot.
 *
 * Algorithm: sequence-numbered slots (Vyukov's bounded MPMC queue).  Slot
 * i's sequence word says whose turn it is: seq == pos means "free for the
 * producer of position pos", seq == pos + 1 means "filled, for the consumer
 * of position pos".  Producers and consumers each claim a position with one
 * compare-and-swap on tail/head; then the slot is theirs alone.  A consumer
 * keeps its slot while the handler runs and hands it back with
 * gasnetc_pshmq_release (seq = pos + depth).  See core/pshm/README.
 *
 * All functions are lock-free, never block, never allocate, and are safe in
 * AM handlers and from any thread or process that maps the block.
 */
#ifndef GASNETC_PSHM_QUEUE_H
#define GASNETC_PSHM_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include "core/am/wire.h"

/* Alignment of the queue block, of every slot, and of every payload. */
#define GASNETC_PSHMQ_ALIGN 64
/* Bytes of one slot: turn word, byte count and AM header in the first 128
 * bytes, then up to GASNETC_PSHMQ_INLINE bytes of payload.  Slots are
 * packed, so a stream of small messages walks consecutive cache lines. */
#define GASNETC_PSHMQ_SLOT 256
/* Offset of the inline payload inside a slot. */
#define GASNETC_PSHMQ_PAYLOAD_OFF 128
/* Payloads up to this size travel inside the slot; larger ones in a
 * max_payload buffer of the payload area. */
#define GASNETC_PSHMQ_INLINE (GASNETC_PSHMQ_SLOT - GASNETC_PSHMQ_PAYLOAD_OFF)
/* Payload buffers of a power-of-two queue deeper than this (one per slot
 * otherwise). */
#define GASNETC_PSHMQ_BUFS 32
#define GASNETC_PSHMQ_MAGIC 0x50534834u /* "PSH4" (layout 4: tail_seen, nbuf 0) */

/* One slot; the inline payload follows at GASNETC_PSHMQ_PAYLOAD_OFF. */
typedef struct {
    uint64_t seq;      /* turn word (see above) */
    uint64_t nbytes;   /* payload bytes copied for this message */
    gasnetc_am_hdr_t hdr;
} gasnetc_pshmq_slot_t;

/* The queue header at the start of the block; the depth slots follow it,
 * then the payload area (nbuf buffers of buf_size bytes). */
typedef struct gasnetc_pshmq {
    uint64_t tail __attribute__((__aligned__(GASNETC_PSHMQ_ALIGN))); /* next position to fill */
    uint64_t head __attribute__((__aligned__(GASNETC_PSHMQ_ALIGN))); /* next position to take */
    uint64_t tail_seen; /* single consumer of a one-producer queue: its last look at tail */
    uint32_t magic __attribute__((__aligned__(GASNETC_PSHMQ_ALIGN)));
    uint32_t depth;       /* number of slots */
    uint64_t buf_size;    /* bytes per payload buffer, a multiple of GASNETC_PSHMQ_ALIGN */
    uint64_t max_payload; /* payload capacity of one message */
    uint64_t mask;        /* depth - 1 when depth is a power of two, else 0 */
    uint64_t nbuf;        /* payload buffers: gasnetc_pshmq_nbuf_for(depth, max_payload) */
} gasnetc_pshmq_t;

/* A message taken off the queue, valid until gasnetc_pshmq_release. */
typedef struct {
    const gasnetc_am_hdr_t *hdr;
    void *payload; /* 64-byte aligned, nbytes long */
    size_t nbytes;
    gasnetc_pshmq_slot_t *slot;
    uint64_t pos;
} gasnetc_pshmq_msg_t;

/* Payload buffers of a queue of depth slots: GASNETC_PSHMQ_BUFS for a
 * deeper power-of-two queue, else depth. */
static inline uint32_t gasnetc_pshmq_nbuf(uint32_t depth)
{
    return (depth & (depth - 1)) == 0 && depth > GASNETC_PSHMQ_BUFS ? GASNETC_PSHMQ_BUFS : depth;
}

/* The same for a queue whose messages carry at most max_payload bytes:
 * none when every payload fits in a slot (a lane, core/pshm/README). */
static inline uint32_t gasnetc_pshmq_nbuf_for(uint32_t depth, size_t max_payload)
{
    return max_payload <= GASNETC_PSHMQ_INLINE ? 0 : gasnetc_pshmq_nbuf(depth);
}

/* Bytes of a queue's header and slots (its payload buffers follow). */
static inline size_t gasnetc_pshmq_ctrl_size(uint32_t depth)
{
    return sizeof(gasnetc_pshmq_t) + (size_t)depth * GASNETC_PSHMQ_SLOT;
}

/* Bytes a queue of depth slots needs (a multiple of GASNETC_PSHMQ_ALIGN),
 * or 0 if depth is 0 or the size overflows. */
size_t gasnetc_pshmq_size(uint32_t depth, size_t max_payload);

/* Formats the block mem (gasnetc_pshmq_size bytes, GASNETC_PSHMQ_ALIGN
 * aligned) as an empty queue.  Call once, before any other process or
 * thread uses the block.  Returns the queue, or NULL if mem is misaligned or
 * depth is 0. */
gasnetc_pshmq_t *gasnetc_pshmq_init(void *mem, uint32_t depth, size_t max_payload);

/* Checks that mem holds a queue formatted by gasnetc_pshmq_init (magic and
 * geometry).  Returns the queue or NULL. */
gasnetc_pshmq_t *gasnetc_pshmq_attach(void *mem);

/* Enqueues a copy of hdr and of nbytes bytes at payload.  Never blocks.
 * Returns 0, 1 when the queue is full (retry later), or -1 when nbytes
 * exceeds the slot capacity (a caller bug).  A zeroed block (a queue retired
 * at exit) behaves as a queue that is always full and always empty. */
int gasnetc_pshmq_try_send(gasnetc_pshmq_t *q, const gasnetc_am_hdr_t *hdr,
                           const void *payload, size_t nbytes);

/* Takes the oldest message into *msg.  Returns 1, or 0 when the queue is
 * empty (or the oldest message is still being written).  The slot stays
 * reserved until gasnetc_pshmq_release(q, msg). */
int gasnetc_pshmq_take(gasnetc_pshmq_t *q, gasnetc_pshmq_msg_t *msg);

/* The same for a queue with one consumer at a time (the caller guarantees
 * it: a SEQ process, or a lock held around the drain): no atomic
 * read-modify-write, the head is advanced by a plain store.  Nested calls
 * from the same thread (a handler that polls) are fine.  Consumers of one
 * queue must not mix the two forms concurrently. */
int gasnetc_pshmq_take1(gasnetc_pshmq_t *q, gasnetc_pshmq_msg_t *msg);

/* Gives the slot of a taken message back to producers. */
void gasnetc_pshmq_release(gasnetc_pshmq_t *q, const gasnetc_pshmq_msg_t *msg);

/* ---- the slot primitives, inline (core/am_fpam.c sends, pshm.c drains, and
 * queue.c's functions above are built on them) ------------------------------
 * mask is q->mask, passed in so that a caller that has tested it for 0
 * (a power-of-two queue, the default) gets the mask path alone. */

/* Slot index of position pos: a mask for power-of-two depths (a division
 * costs tens of cycles on the per-message path), else pos % depth; slot 0
 * of a retired (zeroed) queue, whose turn word never matches. */
static inline uint64_t gasnetc_pshmq_index(const gasnetc_pshmq_t *q, uint64_t mask, uint64_t pos)
{
    if (mask) return pos & mask;
    return q->depth ? pos % q->depth : 0;
}

static inline gasnetc_pshmq_slot_t *gasnetc_pshmq_slot_of(gasnetc_pshmq_t *q, uint64_t mask,
                                                          uint64_t pos)
{
    return (gasnetc_pshmq_slot_t *)((char *)q + sizeof(gasnetc_pshmq_t) +
                                    (size_t)gasnetc_pshmq_index(q, mask, pos) *
                                        GASNETC_PSHMQ_SLOT);
}

/* Whether the payload buffer of position pos is free: every earlier
 * position that used it (pos - k * nbuf, k = 1 .. depth/nbuf - 1; the one
 * a whole lap back is the slot itself) was given back, i.e. its slot's turn
 * word reached that position + depth.  Turn words only grow, so a buffer
 * found free stays free until position pos is claimed.  Acquire: the
 * consumer's reads of the buffer happen before our writes. */
static inline int gasnetc_pshmq_buf_free(gasnetc_pshmq_t *q, uint64_t mask, uint64_t pos)
{
    uint64_t nbuf = q->nbuf, depth = q->depth;
    if (!nbuf) return 1; /* no payload area: every payload (max_payload) fits in its slot */
    for (uint64_t back = nbuf; back < depth && back <= pos; back += nbuf) {
        uint64_t x = pos - back;
        gasnetc_pshmq_slot_t *s = gasnetc_pshmq_slot_of(q, mask, x);
        if ((int64_t)(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) - (x + depth)) < 0) return 0;
    }
    return 1;
}

/* Producer: claims the next position (one CAS on the tail line, which only
 * producers touch) for a message of nbytes payload bytes in the slot (a
 * payload above GASNETC_PSHMQ_INLINE also needs its buffer free).  Callers
 * check first that the queue is live (depth or mask not 0): a retired,
 * zeroed queue would look free.  Returns the slot, to be filled (hdr,
 * nbytes, payload at gasnetc_pshmq_payload) and handed over by
 * gasnetc_pshmq_publish, or NULL when the queue (or the buffer) is full. */
static inline gasnetc_pshmq_slot_t *gasnetc_pshmq_claim_at(gasnetc_pshmq_t *q, uint64_t mask,
                                                           size_t nbytes, uint64_t *posp)
{
    uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
    for (;;) {
        gasnetc_pshmq_slot_t *s = gasnetc_pshmq_slot_of(q, mask, pos);
        int64_t dif = (int64_t)(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) - pos);
        if (__builtin_expect(dif == 0, 1)) {
            if (nbytes > GASNETC_PSHMQ_INLINE && !gasnetc_pshmq_buf_free(q, mask, pos))
                return NULL; /* its buffer still holds an earlier message */
            /* Free for position pos: claim it.  On failure pos is reloaded. */
            if (__builtin_expect(__atomic_compare_exchange_n(&q->tail, &pos, pos + 1, 1,
                                                             __ATOMIC_RELAXED,
                                                             __ATOMIC_RELAXED),
                                 1)) {
                *posp = pos;
                return s;
            }
        } else if (dif < 0) {
            return NULL; /* still holds (or is held for) the message one lap earlier */
        } else {
            pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED); /* another producer took pos */
        }
    }
}

/* The fast path's claim for nbytes of payload: power-of-two queues only.
 * NULL when the queue is full, not a power-of-two queue, or retired
 * (zeroed: mask reads 0); the caller then takes gasnetc_pshmq_try_send. */
static inline gasnetc_pshmq_slot_t *gasnetc_pshmq_claim_n(gasnetc_pshmq_t *q, size_t nbytes,
                                                          uint64_t *posp)
{
    uint64_t mask = q->mask;
    if (__builtin_expect(!mask, 0)) return NULL;
    return gasnetc_pshmq_claim_at(q, mask, nbytes, posp);
}

/* The same for a message of any size up to max_payload. */
static inline gasnetc_pshmq_slot_t *gasnetc_pshmq_claim(gasnetc_pshmq_t *q, uint64_t *posp)
{
    return gasnetc_pshmq_claim_n(q, (size_t)-1, posp);
}

/* The claim of a queue with one producer at a time (a lane of a SEQ or
 * PARSYNC process, core/pshm/README "Lanes"): the tail is advanced by a
 * plain store, no compare-and-swap, for a payload that fits in the slot.
 * NULL when the queue is full or retired (mask 0) or not a power-of-two
 * queue.  The consumer may read the tail of such a queue (the tail-guided
 * look-ahead of the drain) without slowing the producer down. */
static inline gasnetc_pshmq_slot_t *gasnetc_pshmq_claim1(gasnetc_pshmq_t *q, uint64_t *posp)
{
    uint64_t mask = q->mask;
    if (__builtin_expect(!mask, 0)) return NULL;
    uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
    gasnetc_pshmq_slot_t *s = gasnetc_pshmq_slot_of(q, mask, pos);
    if (__builtin_expect(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != pos, 0)) return NULL;
    __atomic_store_n(&q->tail, pos + 1, __ATOMIC_RELAXED);
    *posp = pos;
    return s;
}

/* Where position pos keeps a payload of nbytes: inside its slot s, or in
 * buffer pos % nbuf of the payload area. */
static inline void *gasnetc_pshmq_payload(gasnetc_pshmq_t *q, gasnetc_pshmq_slot_t *s,
                                          uint64_t pos, size_t nbytes)
{
    if (nbytes <= GASNETC_PSHMQ_INLINE) return (char *)s + GASNETC_PSHMQ_PAYLOAD_OFF;
    uint64_t nbuf = q->nbuf;
    uint64_t b = q->mask ? pos & (nbuf - 1) : nbuf ? pos % nbuf : 0;
    return (char *)q + sizeof(gasnetc_pshmq_t) + (size_t)q->depth * GASNETC_PSHMQ_SLOT +
           (size_t)b * q->buf_size;
}

/* Producer: hands a filled slot to the consumer (the one release store:
 * the consumer that reads seq == pos + 1 sees hdr and payload), then asks
 * for the next slot's first line early, so that its transfer from the
 * consumer's cache overlaps the caller's work until the next claim (past
 * the last slot it touches the payload area: a harmless hint).  A write
 * prefetch where the target has one, else (x86-64 baseline) a read
 * prefetch.  Measured with the queue alone (2 processes, depth 128, best
 * of 40): a gain on the loaded host (about 45 -> 60 Mmsg/s), none on the
 * quiet one (120-135 either way, the ring's rate). */
static inline void gasnetc_pshmq_publish(gasnetc_pshmq_slot_t *s, uint64_t pos)
{
    __atomic_store_n(&s->seq, pos + 1, __ATOMIC_RELEASE);
    __builtin_prefetch((char *)s + GASNETC_PSHMQ_SLOT, 1, 3);
}

/* Single consumer (as gasnetc_pshmq_take1): the slot
 * of position pos if its message is published, else NULL.  The caller keeps
 * pos in a local, stores head = pos + 1 before running the handler (a
 * nested drain moves on) and gives the slot back with
 * gasnetc_pshmq_give_back. */
static inline gasnetc_pshmq_slot_t *gasnetc_pshmq_peek1(gasnetc_pshmq_t *q, uint64_t mask,
                                                        uint64_t pos)
{
    gasnetc_pshmq_slot_t *s = gasnetc_pshmq_slot_of(q, mask, pos);
    return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == pos + 1 ? s : NULL;
}

/* Consumer: gives the slot of position pos back to producers (release: our
 * reads of the slot happen before the next producer's writes, which start
 * after it reads this value with acquire). */
static inline void gasnetc_pshmq_give_back(gasnetc_pshmq_slot_t *s, uint64_t pos, uint64_t depth)
{
    __atomic_store_n(&s->seq, pos + depth, __ATOMIC_RELEASE);
}

/* Messages claimed by producers and not yet taken (a racy snapshot, for
 * tests and debug; slots held by consumers are not counted). */
uint64_t gasnetc_pshmq_pending(const gasnetc_pshmq_t *q);

#endif /* GASNETC_PSHM_QUEUE_H */
