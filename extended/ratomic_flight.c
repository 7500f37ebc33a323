/* extended/ratomic_flight.c: the table of remote atomics in flight
 * (interface and rationale: ratomic_flight.h).
 *
 * Records live in chunks of CHUNK, found by index (chunk = index / CHUNK);
 * the chunk table only grows, under the lock, and its entries are published
 * with release stores so a Reply handler on another thread finds them
 * without the lock.  A record's generation is even while it is free and odd
 * while its operation is in flight; begin fills the record and then
 * publishes the odd generation (release), end checks it (acquire) against
 * the ticket and makes it even again before the record goes back.
 */
#include "extended/ratomic_flight.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 256U
#define MAX_CHUNKS 16384U /* 4 Mi operations in flight per process */

typedef struct {
    void *result_p;        /* where the fetched value goes (size bytes) */
    gasnete_ctr_t *ctr[2]; /* signalled once the result is written; [1] may be NULL */
    uint32_t size;         /* 0, 4 or 8 */
    uint32_t gen;          /* odd: in flight */
    uint32_t next_free;    /* free list: index + 1, 0 ends it */
} flight_t;

static flight_t *chunks[MAX_CHUNKS];
static uint32_t nchunks;   /* chunks allocated (read without the lock: atomic) */
static uint32_t free_head; /* index + 1 of the first free record, 0: none */
static gasneti_mutex_t flight_lock = GASNETI_MUTEX_INITIALIZER;

static flight_t *lookup(uint32_t index)
{
    uint32_t c = index / CHUNK;
    if (c >= __atomic_load_n(&nchunks, __ATOMIC_ACQUIRE)) return NULL;
    flight_t *chunk = __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE);
    return chunk ? &chunk[index % CHUNK] : NULL;
}

/* Adds a chunk of free records (lock held). */
static void grow(void)
{
    uint32_t c = nchunks;
    if (c == MAX_CHUNKS)
        gasneti_fatalerror("gex_AD_Op*: more than %u remote atomic operations in flight at once "
                           "in this process (complete some before starting more)",
                           MAX_CHUNKS * CHUNK);
    flight_t *chunk = calloc(CHUNK, sizeof(*chunk));
    if (!chunk)
        gasneti_fatalerror("gex_AD_Op*: out of memory for %u in-flight records (%zu bytes)",
                           CHUNK, CHUNK * sizeof(*chunk));
    for (uint32_t i = 0; i < CHUNK; i++)
        chunk[i].next_free = i + 1 < CHUNK ? c * CHUNK + i + 2 : free_head;
    __atomic_store_n(&chunks[c], chunk, __ATOMIC_RELEASE);
    __atomic_store_n(&nchunks, c + 1, __ATOMIC_RELEASE);
    free_head = c * CHUNK + 1;
}

gasnete_ad_ticket_t gasnete_ad_flight_begin(void *result_p, size_t size, gasnete_ctr_t *c0,
                                            gasnete_ctr_t *c1)
{
    gasneti_mutex_lock(&flight_lock);
    if (!free_head) grow();
    gasnete_ad_ticket_t t;
    t.index = free_head - 1;
    flight_t *f = lookup(t.index);
    free_head = f->next_free;
    gasneti_mutex_unlock(&flight_lock);
    f->result_p = size ? result_p : NULL;
    f->size = (uint32_t)size;
    f->ctr[0] = c0;
    f->ctr[1] = c1;
    gasnete_ctr_add_init(c0, 1);
    if (c1) gasnete_ctr_add_init(c1, 1);
    t.gen = __atomic_load_n(&f->gen, __ATOMIC_RELAXED) + 1; /* odd: it was free (even) */
    __atomic_store_n(&f->gen, t.gen, __ATOMIC_RELEASE);
    return t;
}

void gasnete_ad_flight_end(gasnete_ad_ticket_t t, gasnete_ad_val_t v)
{
    flight_t *f = lookup(t.index);
    uint32_t now = f ? __atomic_load_n(&f->gen, __ATOMIC_ACQUIRE) : 0;
    if (!f || !(t.gen & 1) || now != t.gen)
        gasneti_fatalerror("remote atomic Reply for operation %u generation %u, which is not in "
                           "flight (%s%u): a duplicated or stale Reply; its result is not "
                           "written",
                           (unsigned)t.index, (unsigned)t.gen,
                           f ? "record generation " : "no such record, ", (unsigned)now);
    if (f->size) memcpy(f->result_p, &v, f->size); /* every member starts at byte 0 */
    gasnete_ctr_t *c0 = f->ctr[0], *c1 = f->ctr[1];
    __atomic_store_n(&f->gen, t.gen + 1, __ATOMIC_RELAXED); /* retired: even */
    gasneti_mutex_lock(&flight_lock);
    f->next_free = free_head;
    free_head = t.index + 1;
    gasneti_mutex_unlock(&flight_lock);
    /* Completion last: the caller may return (and its result slot die) at once. */
    gasnete_ctr_add_done(c0);
    if (c1) gasnete_ctr_add_done(c1);
}
