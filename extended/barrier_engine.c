/* extended/barrier_engine.c: dissemination barrier state machine and the
 * GASNet-1 barrier-value rules.  No network access: the caller sends the
 * messages gasnete_bar_next() hands out and feeds arrivals back through
 * gasnete_bar_arrive().  Unit-tested by simulating many ranks in one
 * process (tests/unit/test-extended.c).
 */
#include "extended/barrier.h"

#include <gasnet.h>
#include <string.h>

/* ---- values ------------------------------------------------------------------ */

gasnete_bval_t gasnete_bval_from_notify(int id, int flags)
{
    gasnete_bval_t v = {GASNETE_BV_NAMED, (int32_t)id};
    if (flags & GASNET_BARRIERFLAG_MISMATCH) {
        v.kind = GASNETE_BV_MISMATCH;
        v.id = 0;
    } else if (flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED)) {
        v.kind = GASNETE_BV_ANON;
        v.id = 0;
    }
    return v;
}

int gasnete_bval_wait_rc(gasnete_bval_t result, int id, int flags)
{
    if (result.kind == GASNETE_BV_MISMATCH) return GASNET_ERR_BARRIER_MISMATCH;
    if (flags & GASNET_BARRIERFLAG_MISMATCH) return GASNET_ERR_BARRIER_MISMATCH;
    if (flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_UNNAMED)) return GASNET_OK;
    /* A named wait must agree with the barrier's name, if it has one (the
     * notify may have been anonymous: since GASNet 1.20 the flags of notify
     * and wait may differ). */
    if (result.kind == GASNETE_BV_NAMED && result.id != (int32_t)id)
        return GASNET_ERR_BARRIER_MISMATCH;
    return GASNET_OK;
}

int gasnete_bval_result_flags(gasnete_bval_t result, int rc, int *id)
{
    if (rc != GASNET_OK || result.kind == GASNETE_BV_MISMATCH) {
        if (id) *id = 0;
        return GASNET_BARRIERFLAG_MISMATCH;
    }
    if (result.kind == GASNETE_BV_ANON) {
        if (id) *id = 0;
        return GASNET_BARRIERFLAG_ANONYMOUS;
    }
    if (id) *id = result.id;
    return 0;
}

/* ---- engine ------------------------------------------------------------------ */

uint32_t gasnete_bar_all_outstanding;

uint32_t gasnete_bar_nrounds(uint32_t n)
{
    uint32_t r = 0;
    while (r < 32 && ((uint64_t)1 << r) < n) r++;
    return r;
}

void gasnete_bar_setup(gasnete_bar_t *b, uint32_t me, uint32_t n)
{
    memset(b, 0, sizeof(*b));
#if defined(GASNET_PAR)
    pthread_mutex_init(&b->lock, NULL);
#endif
    b->me = me;
    b->n = n ? n : 1;
    b->nrounds = gasnete_bar_nrounds(b->n);
}

static void gasnete_bar_slot_init(gasnete_bar_slot_t *s, uint32_t epoch)
{
    memset(s, 0, sizeof(*s));
    s->in_use = 1;
    s->epoch = epoch;
    s->acc.kind = GASNETE_BV_ANON;
}

int gasnete_bar_start(gasnete_bar_t *b, gasnete_bval_t mine, void *cookie, uint32_t *epoch)
{
    int rc = 0;
    gasneti_mutex_lock(&b->lock);
    if (b->outstanding >= GASNETE_BAR_MAX_OUTSTANDING) {
        rc = 1;
        goto out;
    }
    uint32_t e = b->next_epoch;
    gasnete_bar_slot_t *s = &b->slot[e % GASNETE_BAR_WINDOW];
    if (!s->in_use)
        gasnete_bar_slot_init(s, e);
    else if (s->epoch != e || s->started) {
        rc = -1;
        goto out;
    }
    s->started = 1;
    s->mine = mine;
    s->cookie = cookie;
    s->next_round = 0;
    b->next_epoch = e + 1;
    __atomic_store_n(&b->outstanding, b->outstanding + 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&gasnete_bar_all_outstanding, 1, __ATOMIC_RELAXED);
    if (epoch) *epoch = e;
out:
    gasneti_mutex_unlock(&b->lock);
    return rc;
}

int gasnete_bar_arrive(gasnete_bar_t *b, uint32_t src, uint32_t epoch, uint32_t round,
                       gasnete_bval_t value)
{
    int rc = 0;
    if (round >= b->nrounds) return -1;
    if (src != gasnete_bar_round_src(b->me, b->n, round)) return -1;
    gasneti_mutex_lock(&b->lock);
    /* An arrival is for an epoch this rank has not finished: at most
     * WINDOW/2 behind the next one it starts, or at most WINDOW/2 ahead. */
    uint32_t ahead = epoch - b->next_epoch; /* modulo 2^32 */
    uint32_t behind = b->next_epoch - epoch;
    if (ahead >= GASNETE_BAR_MAX_OUTSTANDING && (behind == 0 || behind > GASNETE_BAR_MAX_OUTSTANDING)) {
        rc = -1;
        goto out;
    }
    gasnete_bar_slot_t *s = &b->slot[epoch % GASNETE_BAR_WINDOW];
    if (!s->in_use) {
        if (behind != 0 && behind <= GASNETE_BAR_MAX_OUTSTANDING) {
            rc = -1; /* a barrier this rank already completed */
            goto out;
        }
        gasnete_bar_slot_init(s, epoch);
    } else if (s->epoch != epoch || (s->arrived & (1U << round))) {
        rc = -1;
        goto out;
    }
    s->arrived |= 1U << round;
    s->acc = gasnete_bval_join(s->acc, value);
out:
    gasneti_mutex_unlock(&b->lock);
    return rc;
}

int gasnete_bar_next(gasnete_bar_t *b, gasnete_bar_msg_t *msg, void **cookie,
                     gasnete_bval_t *result)
{
    if (gasnete_bar_outstanding(b) == 0) return 0;
    int rc = 0;
    const uint32_t full = (b->nrounds >= 32) ? 0xffffffffU : ((1U << b->nrounds) - 1U);
    gasneti_mutex_lock(&b->lock);
    /* Oldest started epoch first: next_epoch - outstanding .. next_epoch-1. */
    for (uint32_t i = b->outstanding; i > 0; i--) {
        uint32_t e = b->next_epoch - i;
        gasnete_bar_slot_t *s = &b->slot[e % GASNETE_BAR_WINDOW];
        if (!s->in_use || !s->started || s->epoch != e) continue; /* already completed */
        uint32_t k = s->next_round;
        if (k < b->nrounds && (k == 0 || (s->arrived & (1U << (k - 1))))) {
            msg->dest = (b->me + (uint32_t)(((uint64_t)1 << k) % b->n)) % b->n;
            msg->epoch = e;
            msg->round = k;
            msg->value = gasnete_bval_join(s->mine, s->acc);
            s->next_round = k + 1;
            rc = 1;
            break;
        }
        if (k == b->nrounds && s->arrived == full) {
            *cookie = s->cookie;
            *result = gasnete_bval_join(s->mine, s->acc);
            s->in_use = 0;
            s->started = 0;
            rc = 2;
            break;
        }
    }
    if (rc == 2) {
        /* Completed barriers need not be the oldest: keep `outstanding`
         * as the span from the oldest incomplete one to next_epoch. */
        uint32_t span = b->outstanding;
        while (span > 0) {
            uint32_t e = b->next_epoch - span;
            const gasnete_bar_slot_t *s = &b->slot[e % GASNETE_BAR_WINDOW];
            if (s->in_use && s->started && s->epoch == e) break;
            span--;
        }
        __atomic_sub_fetch(&gasnete_bar_all_outstanding, b->outstanding - span, __ATOMIC_RELAXED);
        __atomic_store_n(&b->outstanding, span, __ATOMIC_RELAXED);
    }
    gasneti_mutex_unlock(&b->lock);
    return rc;
}
