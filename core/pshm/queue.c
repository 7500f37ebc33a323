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

size_t gasnetc_pshmq_size(uint32_t depth, size_t max_payload)
{
    if (depth == 0 || max_payload > SIZE_MAX / 4) return 0;
    size_t buf = round_up(max_payload, GASNETC_PSHMQ_ALIGN);
    size_t nbuf = gasnetc_pshmq_nbuf_for(depth, max_payload);
    if (buf && nbuf > (SIZE_MAX / 2) / buf) return 0;
    if ((size_t)depth > (SIZE_MAX / 2 - sizeof(gasnetc_pshmq_t) - nbuf * buf) / GASNETC_PSHMQ_SLOT)
        return 0;
    return sizeof(gasnetc_pshmq_t) + (size_t)depth * GASNETC_PSHMQ_SLOT + nbuf * buf;
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
    q->nbuf = gasnetc_pshmq_nbuf_for(depth, max_payload);
    for (uint32_t i = 0; i < depth; i++) {
        gasnetc_pshmq_slot_t *s = gasnetc_pshmq_slot_of(q, q->mask, i);
        s->nbytes = 0;
        __atomic_store_n(&s->seq, (uint64_t)i, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&q->head, 0, __ATOMIC_RELAXED);
    q->tail_seen = 0;
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
        q->mask != ((q->depth & (q->depth - 1)) == 0 ? q->depth - 1 : 0) ||
        q->nbuf != gasnetc_pshmq_nbuf_for(q->depth, q->max_payload))
        return NULL;
    return q;
}

int gasnetc_pshmq_try_send(gasnetc_pshmq_t *q, const gasnetc_am_hdr_t *hdr, const void *payload,
                           size_t nbytes)
{
    gasnetc_pshmq_slot_t *s;
    uint64_t pos;

    if (nbytes > q->max_payload) return -1;
    if (__builtin_expect(q->depth == 0, 0)) return 1; /* retired (zeroed) memory */
    if (!(s = gasnetc_pshmq_claim_at(q, q->mask, nbytes, &pos))) return 1; /* full */
    /* Constant sizes, so the copies are inlined: up to 6 arguments stay in
     * the slot's first cache line. */
    if (hdr->nargs <= 6)
        memcpy(&s->hdr, hdr, __builtin_offsetof(gasnetc_am_hdr_t, args) + 6 * 4);
    else
        s->hdr = *hdr;
    s->nbytes = nbytes;
    if (nbytes) memcpy(gasnetc_pshmq_payload(q, s, pos, nbytes), payload, nbytes);
    gasnetc_pshmq_publish(s, pos);
    return 0;
}

static inline void fill_msg(gasnetc_pshmq_t *q, gasnetc_pshmq_slot_t *s, uint64_t pos,
                            gasnetc_pshmq_msg_t *msg)
{
    msg->slot = s;
    msg->pos = pos;
    msg->hdr = &s->hdr;
    msg->nbytes = (size_t)s->nbytes;
    msg->payload = gasnetc_pshmq_payload(q, s, pos, msg->nbytes);
}

int gasnetc_pshmq_take(gasnetc_pshmq_t *q, gasnetc_pshmq_msg_t *msg)
{
    gasnetc_pshmq_slot_t *s;
    uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);

    if (__builtin_expect(q->depth == 0, 0)) return 0; /* retired (zeroed) memory */
    for (;;) {
        s = gasnetc_pshmq_slot_of(q, q->mask, pos);
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
    if (!(s = gasnetc_pshmq_peek1(q, q->mask, pos))) return 0;
    /* The only consumer: the position is ours without a CAS.  Stored at
     * once, so that a nested take (a handler that polls) moves on. */
    __atomic_store_n(&q->head, pos + 1, __ATOMIC_RELAXED);
    fill_msg(q, s, pos, msg);
    return 1;
}

void gasnetc_pshmq_release(gasnetc_pshmq_t *q, const gasnetc_pshmq_msg_t *msg)
{
    gasnetc_pshmq_give_back(msg->slot, msg->pos, q->depth);
}

uint64_t gasnetc_pshmq_pending(const gasnetc_pshmq_t *q)
{
    uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
    return tail >= head ? tail - head : 0;
}
