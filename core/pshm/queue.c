/* core/pshm/queue.c: the bounded MPMC ring of AM slots (see queue.h and
 * core/pshm/README for the algorithm and the memory-ordering argument).
 *
 * Pure code: no allocation, no logging, no system calls, so the unit test
 * can run it over an anonymous shared mapping without the rest of the
 * library.
 */
#include <string.h>
#include "core/pshm/queue.h"

_Static_assert(sizeof(gasnetc_pshmq_t) % GASNETC_PSHMQ_ALIGN == 0,
               "queue header must keep slots aligned");
_Static_assert(sizeof(gasnetc_pshmq_slot_t) <= GASNETC_PSHMQ_PAYLOAD_OFF,
               "slot header must fit before the payload");
_Static_assert(GASNETC_PSHMQ_PAYLOAD_OFF % GASNETC_PSHMQ_ALIGN == 0 &&
                   GASNETC_PSHMQ_SLOT % GASNETC_PSHMQ_ALIGN == 0,
               "payloads must be aligned");

static inline size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* Slot index of position pos.  A mask for power-of-two depths (the
 * default): a division costs tens of cycles on the per-message path. */
static inline uint64_t index_of(const gasnetc_pshmq_t *q, uint64_t pos)
{
    return q->mask ? (pos & q->mask) : pos % q->depth;
}

static inline gasnetc_pshmq_slot_t *slot_at(gasnetc_pshmq_t *q, uint64_t idx)
{
    return (gasnetc_pshmq_slot_t *)((char *)q + sizeof(gasnetc_pshmq_t) +
                                    (size_t)idx * GASNETC_PSHMQ_SLOT);
}

/* Where slot idx keeps a payload of nbytes: inside the slot, or in its
 * buffer of the payload area. */
static inline void *payload_at(gasnetc_pshmq_t *q, gasnetc_pshmq_slot_t *s, uint64_t idx,
                               size_t nbytes)
{
    if (nbytes <= GASNETC_PSHMQ_INLINE) return (char *)s + GASNETC_PSHMQ_PAYLOAD_OFF;
    return (char *)q + sizeof(gasnetc_pshmq_t) + (size_t)q->depth * GASNETC_PSHMQ_SLOT +
           (size_t)idx * q->buf_size;
}

size_t gasnetc_pshmq_slot_size(size_t max_payload)
{
    if (max_payload > SIZE_MAX / 4) return 0;
    return GASNETC_PSHMQ_SLOT + round_up(max_payload, GASNETC_PSHMQ_ALIGN);
}

size_t gasnetc_pshmq_size(uint32_t depth, size_t max_payload)
{
    size_t slot = gasnetc_pshmq_slot_size(max_payload);
    if (depth == 0 || slot == 0) return 0;
    if (slot > (SIZE_MAX - sizeof(gasnetc_pshmq_t)) / depth) return 0;
    return sizeof(gasnetc_pshmq_t) + (size_t)depth * slot;
}

gasnetc_pshmq_t *gasnetc_pshmq_init(void *mem, uint32_t depth, size_t max_payload)
{
    gasnetc_pshmq_t *q = mem;
    if (!mem || ((uintptr_t)mem % GASNETC_PSHMQ_ALIGN) || !gasnetc_pshmq_size(depth, max_payload))
        return NULL;
    memset(q, 0, sizeof(*q));
    q->depth = depth;
    q->buf_size = round_up(max_payload, GASNETC_PSHMQ_ALIGN);
    q->max_payload = q->buf_size;
    q->mask = (depth & (depth - 1)) == 0 ? depth - 1 : 0;
    for (uint32_t i = 0; i < depth; i++) {
        gasnetc_pshmq_slot_t *s = slot_at(q, i);
        s->nbytes = 0;
        __atomic_store_n(&s->seq, (uint64_t)i, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&q->head, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&q->tail, 0, __ATOMIC_RELAXED);
    /* Publishing the magic last: a process that sees it sees the slots. */
    __atomic_store_n(&q->magic, GASNETC_PSHMQ_MAGIC, __ATOMIC_RELEASE);
    return q;
}

gasnetc_pshmq_t *gasnetc_pshmq_attach(void *mem)
{
    gasnetc_pshmq_t *q = mem;
    if (!mem || ((uintptr_t)mem % GASNETC_PSHMQ_ALIGN)) return NULL;
    if (__atomic_load_n(&q->magic, __ATOMIC_ACQUIRE) != GASNETC_PSHMQ_MAGIC) return NULL;
    if (q->depth == 0 || q->buf_size != round_up(q->max_payload, GASNETC_PSHMQ_ALIGN) ||
        q->mask != ((q->depth & (q->depth - 1)) == 0 ? q->depth - 1 : 0))
        return NULL;
    return q;
}

int gasnetc_pshmq_try_send(gasnetc_pshmq_t *q, const gasnetc_am_hdr_t *hdr, const void *payload,
                           size_t nbytes)
{
    gasnetc_pshmq_slot_t *s;
    uint64_t pos, idx;

    if (nbytes > q->max_payload) return -1;
    if (__builtin_expect(q->depth == 0, 0)) return 1; /* retired (zeroed) memory */
    pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
    for (;;) {
        idx = index_of(q, pos);
        s = slot_at(q, idx);
        uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            /* Free for position pos: claim it.  On failure pos is reloaded. */
            if (__atomic_compare_exchange_n(&q->tail, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
                break;
        } else if (dif < 0) {
            /* Still holds (or is held for) the message one lap earlier. */
            return 1;
        } else {
            /* Another producer took pos; catch up. */
            pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
        }
    }
    /* Constant sizes, so the copies are inlined: up to 6 arguments stay in
     * the slot's first cache line. */
    if (hdr->nargs <= 6)
        memcpy(&s->hdr, hdr, __builtin_offsetof(gasnetc_am_hdr_t, args) + 6 * 4);
    else
        s->hdr = *hdr;
    s->nbytes = nbytes;
    if (nbytes) memcpy(payload_at(q, s, idx, nbytes), payload, nbytes);
    /* Release: the consumer that reads seq == pos+1 sees hdr and payload. */
    __atomic_store_n(&s->seq, pos + 1, __ATOMIC_RELEASE);
    return 0;
}

static inline void fill_msg(gasnetc_pshmq_t *q, gasnetc_pshmq_slot_t *s, uint64_t pos,
                            gasnetc_pshmq_msg_t *msg)
{
    msg->slot = s;
    msg->pos = pos;
    msg->hdr = &s->hdr;
    msg->nbytes = (size_t)s->nbytes;
    msg->payload = payload_at(q, s, index_of(q, pos), msg->nbytes);
}

int gasnetc_pshmq_take(gasnetc_pshmq_t *q, gasnetc_pshmq_msg_t *msg)
{
    gasnetc_pshmq_slot_t *s;
    uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);

    if (__builtin_expect(q->depth == 0, 0)) return 0; /* retired (zeroed) memory */
    for (;;) {
        s = slot_at(q, index_of(q, pos));
        uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        int64_t dif = (int64_t)(seq - (pos + 1));
        if (dif == 0) {
            if (__atomic_compare_exchange_n(&q->head, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
                break;
        } else if (dif < 0) {
            return 0; /* empty, or the producer of pos has not published yet */
        } else {
            pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
        }
    }
    fill_msg(q, s, pos, msg);
    return 1;
}

int gasnetc_pshmq_take1(gasnetc_pshmq_t *q, gasnetc_pshmq_msg_t *msg)
{
    gasnetc_pshmq_slot_t *s;
    uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);

    if (__builtin_expect(q->depth == 0, 0)) return 0; /* retired (zeroed) memory */
    s = slot_at(q, index_of(q, pos));
    if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != pos + 1) return 0;
    /* The only consumer: the position is ours without a CAS.  Stored at
     * once, so that a nested take (a handler that polls) moves on. */
    __atomic_store_n(&q->head, pos + 1, __ATOMIC_RELAXED);
    fill_msg(q, s, pos, msg);
    return 1;
}

void gasnetc_pshmq_release(gasnetc_pshmq_t *q, const gasnetc_pshmq_msg_t *msg)
{
    /* Release: our reads of the slot happen before the next producer's
     * writes, which start after it reads this value with acquire. */
    __atomic_store_n(&msg->slot->seq, msg->pos + q->depth, __ATOMIC_RELEASE);
}

uint64_t gasnetc_pshmq_pending(const gasnetc_pshmq_t *q)
{
    uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
    return tail >= head ? tail - head : 0;
}
