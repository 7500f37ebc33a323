/* extended/barrier_pshm.c: the barrier of the primordial team when the
 * whole job is one PSHM neighbourhood: dissemination over flags in shared
 * memory instead of Active Messages.
 *
 * Round k of epoch e: rank i writes its flag (e, k) carrying the join of
 * its value and what it received in rounds < k, then waits for the flag
 * (e, k) of rank i - 2^k.  After ceil(log2 n) rounds every rank has every
 * value (extended/README, "Barrier").  A flag is one 16-byte entry in the
 * area core/pshm reserves (gasnetc_pshm_barrier_area): value first, then
 * the epoch + 1 with release; the reader loads the epoch with acquire.
 *
 * Epoch e uses the entries of window slot e % GASNETC_PSHM_BAR_WINDOW (64).
 * As in the AM engine, a rank starts at most 32 barriers that are not
 * complete, so slot reuse is safe: rank i writes (e + 64, k) only after it
 * completed e + 32, which needs every rank to have started e + 32, and a
 * rank starts e + 32 only after completing e (having read all its flags of
 * e).  Nothing else is shared, so a barrier costs one cache-line transfer
 * per round and rank, the polls in between excepted.
 *
 * Every rank decides alike (primordial team, neighbourhood = job), so all
 * use this path or all use the AM engine; EX and GASNet-1 barriers share
 * the epoch sequence, as they do there.  State is per process, under a
 * spin flag in PAR (progress may run in any polling thread).
 */
#include "extended/barrier_pshm.h"
#include "core/pshm/pshm.h"
#include "core/gasnet_core_private.h" /* gasnetc_poll_wait_begin */

#define GASNETE_PSHMBAR_DONE ((uint64_t)1 << 63)
/* Flag checks between two polls while waiting (a poll costs far more than
 * a check; the barrier's latency is one flag's arrival). */
#define GASNETE_PSHMBAR_SPIN 8
/* Flag checks with only a pause between them before the first poll (a
 * few microseconds at most; wait_flag). */
#define GASNETE_PSHMBAR_BARE_SPIN 64

static inline void gasnete_pshmbar_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

typedef struct {
    uint32_t epoch_p1; /* epoch + 1 (0: never written); written last */
    uint32_t kind;
    int32_t id;
    uint32_t pad;
} pshmbar_flag_t;

typedef struct {
    gasnete_op_t *op; /* NULL: slot free */
    uint32_t round;   /* next round to receive */
    gasnete_bval_t mine, acc;
} pshmbar_slot_t;

static struct {
    int usable;         /* 1: the primordial team uses this barrier */
    char *area;         /* shared flags */
    uint32_t me, n, rounds;
    size_t per_epoch, per_rank;
    const char *from[32]; /* per round: the entries of the rank heard from */
    char *mine;           /* my entries */
    uint32_t next_epoch; /* next epoch started here */
    uint32_t oldest;     /* oldest epoch started here and not complete */
    int busy;            /* PAR: the state's spin flag */
    pshmbar_slot_t slot[GASNETC_PSHM_BAR_WINDOW];
} pb;

#if defined(GASNET_PAR)
static int pb_trylock(void) { return !__atomic_exchange_n(&pb.busy, 1, __ATOMIC_ACQUIRE); }
static void pb_lock(void)
{
    while (!pb_trylock()) gasnetc_poll_idle(0); /* holder may be descheduled */
}
static void pb_unlock(void) { __atomic_store_n(&pb.busy, 0, __ATOMIC_RELEASE); }
#else
static int pb_trylock(void) { return 1; }
static void pb_lock(void) {}
static void pb_unlock(void) {}
#endif

void gasnete_pshmbar_init(void)
{
    size_t per_epoch, per_rank;
    uint32_t rounds;
    void *area = gasnetc_pshm_barrier_area(&rounds, &per_epoch, &per_rank);
    const uint32_t *ranks = gasnetc_pshm_nbrhd_ranks();
    uint32_t n = gasnetc_pshm_nbrhd_size();
    if (!area || n != gasneti_nodes || n == 0) return;
    for (uint32_t i = 0; i < n; i++)
        if (ranks[i] != i) return; /* index must equal job rank */
    pb.area = area;
    pb.me = gasneti_mynode;
    pb.n = n;
    pb.rounds = rounds;
    pb.per_epoch = per_epoch;
    pb.per_rank = per_rank;
    if (rounds > 32) return; /* 2^32 ranks: not reachable */
    /* Round k's flags, computed once, not per flag check (two integer
     * divisions cost about as much as the check). */
    pb.mine = pb.area + (size_t)pb.me * per_rank;
    for (uint32_t k = 0; k < rounds; k++)
        pb.from[k] = pb.area + (size_t)gasnete_bar_round_src(pb.me, n, k) * per_rank +
                     (size_t)k * GASNETC_PSHM_BAR_ENTRY;
    __atomic_store_n(&pb.usable, 1, __ATOMIC_RELEASE);
}

int gasnete_pshmbar_usable(const struct gasnete_team_s *t)
{
    return t->tm == &gasneti_the_tm && __atomic_load_n(&pb.usable, __ATOMIC_ACQUIRE);
}

static pshmbar_flag_t *flag_of(uint32_t rank, uint32_t epoch, uint32_t round)
{
    return (pshmbar_flag_t *)(pb.area + (size_t)rank * pb.per_rank +
                              (size_t)(epoch % GASNETC_PSHM_BAR_WINDOW) * pb.per_epoch +
                              (size_t)round * GASNETC_PSHM_BAR_ENTRY);
}

/* Publishes value v in my entry f of epoch: value first, the epoch last. */
static inline void flag_store(pshmbar_flag_t *f, uint32_t epoch, gasnete_bval_t v)
{
    f->kind = v.kind;
    f->id = v.id;
    __atomic_store_n(&f->epoch_p1, epoch + 1, __ATOMIC_RELEASE);
}

static void flag_write(uint32_t epoch, uint32_t round, gasnete_bval_t v)
{
    flag_store(flag_of(pb.me, epoch, round), epoch, v);
}

/* The entry of round k of epoch e that this rank reads. */
static inline const pshmbar_flag_t *src_flag(uint32_t e, uint32_t k)
{
    return (const pshmbar_flag_t *)(pb.from[k] +
                                    (size_t)(e % GASNETC_PSHM_BAR_WINDOW) * pb.per_epoch);
}

/* Advances epoch e's rounds as far as the flags allow (lock held).
 * Returns 1 when it completed. */
static int advance(uint32_t e, pshmbar_slot_t *s)
{
    while (s->round < pb.rounds) {
        uint32_t k = s->round;
        const pshmbar_flag_t *f = src_flag(e, k);
        if (__atomic_load_n(&f->epoch_p1, __ATOMIC_ACQUIRE) != e + 1) return 0;
        gasnete_bval_t v = {f->kind, f->id};
        s->acc = gasnete_bval_join(s->acc, v);
        __atomic_store_n(&s->round, k + 1, __ATOMIC_RELAXED); /* read by waits without the lock */
        if (s->round < pb.rounds) flag_write(e, s->round, gasnete_bval_join(s->mine, s->acc));
    }
    gasnete_bval_t result = gasnete_bval_join(s->mine, s->acc);
    __atomic_store_n(&s->op->coll_data, GASNETE_PSHMBAR_DONE | gasnete_bval_pack(result),
                     __ATOMIC_RELEASE);
    s->op = NULL;
    return 1;
}

/* Advances every outstanding epoch, oldest first (lock held). */
static void progress_locked(void)
{
    for (uint32_t e = pb.oldest; e != pb.next_epoch; e++) {
        pshmbar_slot_t *s = &pb.slot[e % GASNETC_PSHM_BAR_WINDOW];
        if (s->op) (void)advance(e, s);
    }
    while (pb.oldest != pb.next_epoch && !pb.slot[pb.oldest % GASNETC_PSHM_BAR_WINDOW].op)
        pb.oldest++;
}

void gasnete_pshmbar_progress(void)
{
    if (pb.oldest == pb.next_epoch || !pb_trylock()) return;
    progress_locked();
    pb_unlock();
}

static int pshmbar_test(gasnete_op_t *op)
{
    if (!(__atomic_load_n(&op->coll_data, __ATOMIC_ACQUIRE) & GASNETE_PSHMBAR_DONE))
        gasnete_pshmbar_progress();
    return (__atomic_load_n(&op->coll_data, __ATOMIC_ACQUIRE) & GASNETE_PSHMBAR_DONE) != 0;
}

void gasnete_pshmbar_start(gasnete_op_t *op, gasnete_bval_t mine)
{
    op->coll_test = pshmbar_test;
    op->coll_wait = gasnete_pshmbar_wait;
    pb_lock();
    /* At most half a window of incomplete barriers (see the top). */
    while (pb.next_epoch - pb.oldest >= GASNETC_PSHM_BAR_WINDOW / 2) {
        pb_unlock();
        gasnetc_poll();
        pb_lock();
        progress_locked();
    }
    uint32_t e = pb.next_epoch++;
    pshmbar_slot_t *s = &pb.slot[e % GASNETC_PSHM_BAR_WINDOW];
    op->coll_data = e; /* until done: the epoch, for gasnete_pshmbar_wait */
    s->op = op;
    __atomic_store_n(&s->round, 0, __ATOMIC_RELAXED);
    s->mine = mine;
    s->acc.kind = GASNETE_BV_ANON;
    s->acc.id = 0;
    if (pb.rounds) flag_write(e, 0, mine);
    if (pb.oldest == e) { /* the only one outstanding: no walk */
        if (advance(e, s)) pb.oldest = e + 1;
    } else {
        progress_locked();
    }
    pb_unlock();
}

/* Waits until flag f shows epoch + 1 == want: spins with a pause hint,
 * every GASNETE_PSHMBAR_SPIN-th turn polls (the first poll restarts the
 * poll's idle count, as in gasnete_pshmbar_wait).  Out of line, so the
 * blocking path keeps a small frame when the flag is there already. */
static __attribute__((__noinline__)) void wait_flag(const pshmbar_flag_t *f, uint32_t want)
{
    /* Checked here rather than on every call: a barrier in a handler that
     * has to wait would deadlock (one that need not is harmless). */
    if (GASNETE_CHECKS && gasnetc_in_handler())
        gasneti_fatalerror("a barrier was called from an AM handler (collectives are not "
                           "allowed in handler context)");
    /* First a bare spin, as a barrier over flags alone waits: the flag
     * usually arrives within a few cache-line transfers, and a poll (or the
     * hint's look at every queue) in that window only delays seeing it.
     * Bounded, so progress follows soon; skipped when processes outnumber
     * cores (the peer needs this core: every turn yields there). */
    if (gasnetc_poll_yield != GASNETC_POLL_YIELD_ALWAYS)
        for (unsigned t = 0; t < GASNETE_PSHMBAR_BARE_SPIN; t++) {
            if (__atomic_load_n(&f->epoch_p1, __ATOMIC_ACQUIRE) == want) return;
            gasnete_pshmbar_pause();
        }
    for (unsigned t = 1; __atomic_load_n(&f->epoch_p1, __ATOMIC_ACQUIRE) != want; t++) {
        if (t % GASNETE_PSHMBAR_SPIN) {
            gasneti_pollwait_hint();
            continue;
        }
        if (t == GASNETE_PSHMBAR_SPIN) gasnetc_poll_wait_begin();
        gasnetc_poll();
    }
}

/* Round k of epoch e in the caller: writes my entry w with acc, waits for
 * the entry f of the rank heard from, joins its value into acc. */
static inline __attribute__((__always_inline__)) void
round_blocking(uint32_t e, pshmbar_flag_t *w, const pshmbar_flag_t *f, gasnete_bval_t *acc)
{
    flag_store(w, e, *acc);
    if (__atomic_load_n(&f->epoch_p1, __ATOMIC_ACQUIRE) != e + 1) wait_flag(f, e + 1);
    gasnete_bval_t v = {f->kind, f->id};
    *acc = gasnete_bval_join(*acc, v);
}

int gasnete_pshmbar_blocking(gasnete_bval_t mine, gasnete_bval_t *result)
{
    if (!__atomic_load_n(&pb.usable, __ATOMIC_ACQUIRE) || !pb_trylock()) return 0;
    const uint32_t e = pb.next_epoch;
    if (pb.oldest != e) { /* split-phase or NB barriers outstanding */
        pb_unlock();
        return 0;
    }
    /* Release: this rank's earlier accesses happen before any rank leaves;
     * acquire at the end (no full fence, as in gasnete_barrier_start). */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    /* Epoch e is taken and never published as outstanding (next_epoch ==
     * oldest), so the progress that polls run from this wait finds nothing
     * to do; in PAR the state stays locked (its progress only try-locks). */
    pb.next_epoch = pb.oldest = e + 1;
    const size_t at = (size_t)(e % GASNETC_PSHM_BAR_WINDOW) * pb.per_epoch;
    char *const mine_at = pb.mine + at; /* my entries of epoch e */
    gasnete_bval_t acc = mine;          /* mine joined with what arrived so far */
    const uint32_t rounds = pb.rounds;
    if (rounds == 1) { /* two ranks: straight-line code (about 10 ns less per barrier) */
        round_blocking(e, (pshmbar_flag_t *)mine_at, (const pshmbar_flag_t *)(pb.from[0] + at),
                       &acc);
    } else {
        for (uint32_t k = 0; k < rounds; k++)
            round_blocking(e, (pshmbar_flag_t *)(mine_at + (size_t)k * GASNETC_PSHM_BAR_ENTRY),
                           (const pshmbar_flag_t *)(pb.from[k] + at), &acc);
    }
    pb_unlock();
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    *result = acc;
    return 1;
}

void gasnete_pshmbar_wait(gasnete_op_t *op)
{
    /* A new wait: the poll's idle count starts over, so the polls of this
     * barrier yield only after the usual spin (core/README "Progress under
     * contention"), not at once because earlier barriers delivered no
     * message (a barrier-only loop never does). */
    gasnetc_poll_wait_begin();
    for (unsigned t = 1;; t++) {
        uint64_t d = __atomic_load_n(&op->coll_data, __ATOMIC_ACQUIRE);
        if (d & GASNETE_PSHMBAR_DONE) return;
        /* Until done, coll_data is the epoch: look at the one flag it waits
         * for (its round read without the lock, a hint: the progress below
         * decides), and take the lock only once that flag is there. */
        const uint32_t e = (uint32_t)d;
        const uint32_t k = __atomic_load_n(&pb.slot[e % GASNETC_PSHM_BAR_WINDOW].round,
                                           __ATOMIC_RELAXED);
        if (k < pb.rounds) {
            const pshmbar_flag_t *f = src_flag(e, k);
            if (__atomic_load_n(&f->epoch_p1, __ATOMIC_ACQUIRE) != e + 1) {
                if (t % GASNETE_PSHMBAR_SPIN) gasneti_pollwait_hint();
                else gasnetc_poll();
                continue;
            }
        }
        gasnete_pshmbar_progress();
    }
}
