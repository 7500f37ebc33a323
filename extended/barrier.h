/* extended/barrier.h: the dissemination barrier engine and the GASNet-1
 * barrier-value logic, as pure functions (no network, no globals), so that
 * unit tests can run many simulated ranks in one process.
 *
 * extended/barrier.c glues the engine to Active Messages and implements
 * gex_Coll_Barrier* and gasnet_barrier_*.  Algorithm and the proof sketch
 * of the value combination: extended/README, "Barrier".
 */
#ifndef GASNETE_BARRIER_H
#define GASNETE_BARRIER_H

#include <stdint.h>
#include "core/gasnet_core_internal.h"

/* ---- barrier values (named / anonymous / mismatch) ------------------------- */
/* A rank's contribution and the combined result of a barrier form a
 * lattice: ANON < NAMED(id) < MISMATCH, two different names join to
 * MISMATCH.  Join is associative, commutative and idempotent, which is what
 * lets dissemination combine values in any order and more than once. */
#define GASNETE_BV_ANON 0U
#define GASNETE_BV_NAMED 1U
#define GASNETE_BV_MISMATCH 2U

typedef struct {
    uint32_t kind; /* GASNETE_BV_* */
    int32_t id;    /* meaningful for NAMED only (0 otherwise) */
} gasnete_bval_t;

/* Least upper bound of a and b (ANON < NAMED(id) < MISMATCH; two
 * different ids join to MISMATCH).  Pure; inline, as every barrier round
 * joins. */
static inline gasnete_bval_t gasnete_bval_join(gasnete_bval_t a, gasnete_bval_t b)
{
    if (a.kind == GASNETE_BV_MISMATCH || b.kind == GASNETE_BV_ANON) return a;
    if (b.kind == GASNETE_BV_MISMATCH || a.kind == GASNETE_BV_ANON) return b;
    if (a.id == b.id) return a; /* both named */
    gasnete_bval_t m = {GASNETE_BV_MISMATCH, 0};
    return m;
}
/* A rank's contribution from gasnet_barrier_notify(id, flags).  Pure. */
gasnete_bval_t gasnete_bval_from_notify(int id, int flags);
/* The return code of gasnet_barrier_wait/try(id, flags) given the barrier's
 * combined result: GASNET_OK or GASNET_ERR_BARRIER_MISMATCH.  Pure. */
int gasnete_bval_wait_rc(gasnete_bval_t result, int id, int flags);
/* What gasnet_barrier_result reports: returns the flags (0 for a named
 * result, GASNET_BARRIERFLAG_ANONYMOUS, or _MISMATCH), *id the name. */
int gasnete_bval_result_flags(gasnete_bval_t result, int rc, int *id);

/* Packs/unpacks a value into the 3 bits + 32 bits carried by messages. */
static inline uint64_t gasnete_bval_pack(gasnete_bval_t v)
{
    return ((uint64_t)v.kind << 32) | (uint32_t)v.id;
}
static inline gasnete_bval_t gasnete_bval_unpack(uint64_t x)
{
    gasnete_bval_t v;
    v.kind = (uint32_t)(x >> 32) & 0x3U;
    v.id = (int32_t)(uint32_t)x;
    return v;
}

/* ---- the dissemination engine ------------------------------------------------ */
/* Slots per engine: barriers in flight are tracked by epoch % WINDOW.  A
 * rank starts at most WINDOW/2 barriers that are not yet complete, which
 * keeps every epoch that can reach it within one window (README). */
#define GASNETE_BAR_WINDOW 64U
#define GASNETE_BAR_MAX_OUTSTANDING (GASNETE_BAR_WINDOW / 2U)

typedef struct {
    uint32_t epoch;
    uint8_t in_use;      /* a message arrived or this rank started it */
    uint8_t started;     /* this rank started (notified) it */
    uint32_t arrived;    /* bit k: the round-k message has arrived */
    uint32_t next_round; /* next round this rank sends */
    gasnete_bval_t acc;  /* join of all values received */
    gasnete_bval_t mine; /* this rank's contribution */
    void *cookie;        /* given at start, returned at completion */
} gasnete_bar_slot_t;

typedef struct {
    uint32_t me, n, nrounds;
    uint32_t next_epoch;  /* epoch of the next barrier started here */
    uint32_t outstanding; /* started here, not yet complete */
    gasneti_mutex_t lock;
    gasnete_bar_slot_t slot[GASNETE_BAR_WINDOW];
} gasnete_bar_t;

/* One message to send: to `dest`, for (epoch, round), carrying value. */
typedef struct {
    uint32_t dest, epoch, round;
    gasnete_bval_t value;
} gasnete_bar_msg_t;

/* Number of dissemination rounds for n ranks: ceil(log2(n)).  Pure. */
uint32_t gasnete_bar_nrounds(uint32_t n);
/* The rank that rank me of n hears from in round k: me - 2^k (mod n).
 * Two divisions: callers on a polling path compute it once per round. */
static inline uint32_t gasnete_bar_round_src(uint32_t me, uint32_t n, uint32_t k)
{
    return (me + n - (uint32_t)(((uint64_t)1 << k) % n)) % n;
}
/* Resets b for rank me of n (n >= 1).  Not thread-safe (init only). */
void gasnete_bar_setup(gasnete_bar_t *b, uint32_t me, uint32_t n);
/* Starts this rank's next barrier with contribution mine.  Returns 0, 1 when
 * GASNETE_BAR_MAX_OUTSTANDING barriers are still incomplete (poll, retry),
 * or -1 on a protocol violation (slot held by another epoch).  *epoch gets
 * the barrier's epoch.  Locks b; never sends. */
int gasnete_bar_start(gasnete_bar_t *b, gasnete_bval_t mine, void *cookie, uint32_t *epoch);
/* Records the arrival of (epoch, round, value) from rank `src`.  Returns 0,
 * or -1 on a protocol violation (wrong source or round, duplicate, epoch
 * outside the window).  Locks b; handler-safe; never sends. */
int gasnete_bar_arrive(gasnete_bar_t *b, uint32_t src, uint32_t epoch, uint32_t round,
                       gasnete_bval_t value);
/* Next action, decided under b's lock: returns 1 with *msg to send (the
 * caller sends it after the call), 2 when a barrier completed (*cookie,
 * *result), 0 when nothing is ready.  Never sends. */
int gasnete_bar_next(gasnete_bar_t *b, gasnete_bar_msg_t *msg, void **cookie,
                     gasnete_bval_t *result);
/* Barriers started and not yet complete over every engine of this process
 * (racy snapshot): 0 lets a poll skip the walk over the teams. */
extern uint32_t gasnete_bar_all_outstanding;
static inline uint32_t gasnete_bar_any_outstanding(void)
{
    return __atomic_load_n(&gasnete_bar_all_outstanding, __ATOMIC_RELAXED);
}

/* Barriers started here and not yet complete (racy snapshot, no lock). */
static inline uint32_t gasnete_bar_outstanding(const gasnete_bar_t *b)
{
    return __atomic_load_n(&b->outstanding, __ATOMIC_RELAXED);
}

#endif /* GASNETE_BARRIER_H */
