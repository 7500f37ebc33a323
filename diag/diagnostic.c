/* diag/diagnostic.c: gasnett_run_diagnostics, the self-test of what
 * gasnet_tools.h provides, with GASNet's signature (GASNet's testinternal
 * calls it).  Part of the conduit libraries only (it takes a team), in the
 * top layer: section E uses the public RMA and barrier calls.
 *
 * Sections (testsections: NULL or "" runs all; otherwise the letters to
 * run, either case):
 *   A  timers: monotonic ticks, tick/us/ns conversions agree, nsleep sleeps
 *      at least as asked, wall clock advances, granularity and overhead sane
 *   B  atomics: every operation of gasnett_atomic{,32,64}_t and the strong
 *      ones, boundary values, failing and succeeding compare-and-swap, fence
 *      flags accepted
 *   C  memory barriers: single-threaded sanity; in the PAR library
 *      with threadcnt > 1, message passing between threads (data, then
 *      gasnett_local_wmb, then a flag; the reader sees the flag, issues
 *      gasnett_local_rmb, and must see the data)
 *   D  threads (PAR library, threadcnt > 1): atomics under contention,
 *      mutex exclusion, condition-variable hand-off, per-thread keys, HSLs
 *   E  RMA: puts and gets of word <my rank> of the peer's segment over
 *      myteam (collective, ends with a barrier), when myteam, myseg and
 *      peerseg are given
 * Each failed check prints one line to stderr.  Returns the number of
 * failures (0: all passed). */
#include <gasnetex.h>

#include <string.h>

static int section_on(const char *sections, char s)
{
    return !sections || !sections[0] || strchr(sections, s) || strchr(sections, s + ('a' - 'A'));
}

#define DIAG_CHECK(failures, cond, what)                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "gasnett_run_diagnostics: %s failed (%s:%d)\n", what,  \
                    __FILE__, __LINE__);                                           \
            (failures)++;                                                          \
        }                                                                          \
    } while (0)

/* ---- A: timers ------------------------------------------------------------- */
static int diag_timers(int iters)
{
    int f = 0;
    gasnett_tick_t prev = gasnett_ticks_now();
    for (int i = 0; i < iters; i++) {
        gasnett_tick_t now = gasnett_ticks_now();
        DIAG_CHECK(f, now >= prev, "gasnett_ticks_now is monotonic");
        prev = now;
    }
    DIAG_CHECK(f, gasnett_ticks_to_us(prev) == gasnett_ticks_to_ns(prev) / 1000,
               "gasnett_ticks_to_us agrees with gasnett_ticks_to_ns");
    uint64_t wall0 = gasnett_gettimeofday_us();
    gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_nsleep(2000000); /* 2 ms */
    uint64_t slept_ns = gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
    DIAG_CHECK(f, slept_ns >= 2000000, "gasnett_nsleep sleeps at least as long as asked");
    DIAG_CHECK(f, slept_ns < 10000000000ull, "gasnett_nsleep(2 ms) returns within 10 s");
    DIAG_CHECK(f, gasnett_gettimeofday_us() >= wall0 + 1000,
               "gasnett_gettimeofday_us advances across a sleep");
    double gran = gasnett_tick_granularityus(), over = gasnett_tick_overheadus();
    DIAG_CHECK(f, gran > 0 && gran < 1000, "gasnett_tick_granularityus is in (0, 1 ms)");
    DIAG_CHECK(f, over >= 0 && over < 1000, "gasnett_tick_overheadus is in [0, 1 ms)");
    return f;
}

/* ---- B: atomics ------------------------------------------------------------ */
/* The same checks for each atomic type T (value type V, maximum VMAX). */
#define DIAG_ATOMIC(f, T, V, VMAX, iters)                                                   \
    do {                                                                                    \
        gasnett_##T##_t a = gasnett_##T##_init(0);                                          \
        for (int i_ = 0; i_ < (iters); i_++) gasnett_##T##_increment(&a, 0);                 \
        DIAG_CHECK(f, gasnett_##T##_read(&a, 0) == (V)(iters), #T " increment");            \
        for (int i_ = 0; i_ < (iters); i_++) gasnett_##T##_decrement(&a, GASNETT_ATOMIC_REL); \
        DIAG_CHECK(f, gasnett_##T##_read(&a, GASNETT_ATOMIC_ACQ) == 0, #T " decrement");    \
        gasnett_##T##_set(&a, 2, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST);           \
        DIAG_CHECK(f, !gasnett_##T##_decrement_and_test(&a, 0) &&                           \
                          gasnett_##T##_decrement_and_test(&a, GASNETT_ATOMIC_ACQ_IF_TRUE), \
                   #T " decrement_and_test is true only on reaching 0");                    \
        DIAG_CHECK(f, gasnett_##T##_add(&a, 7, 0) == 7 && gasnett_##T##_subtract(&a, 3, 0) == 4, \
                   #T " add / subtract return the new value");                              \
        DIAG_CHECK(f, !gasnett_##T##_compare_and_swap(&a, 5, 9, GASNETT_ATOMIC_ACQ_IF_FALSE) && \
                          gasnett_##T##_read(&a, 0) == 4,                                   \
                   #T " compare_and_swap fails on a wrong old value");                      \
        DIAG_CHECK(f, gasnett_##T##_compare_and_swap(&a, 4, 9, 0) &&                        \
                          gasnett_##T##_read(&a, 0) == 9,                                   \
                   #T " compare_and_swap succeeds on the right old value");                 \
        DIAG_CHECK(f, gasnett_##T##_swap(&a, (V)(VMAX), 0) == 9 &&                          \
                          gasnett_##T##_read(&a, 0) == (V)(VMAX),                           \
                   #T " swap returns the old value");                                       \
        gasnett_##T##_increment(&a, 0);                                                     \
        DIAG_CHECK(f, gasnett_##T##_read(&a, 0) == 0, #T " wraps around at its maximum");   \
    } while (0)

static int diag_atomics(int iters)
{
    int f = 0;
    DIAG_ATOMIC(f, atomic, gasnett_atomic_val_t, GASNETT_ATOMIC_MAX, iters);
    DIAG_ATOMIC(f, atomic32, uint32_t, UINT32_MAX, iters);
    DIAG_ATOMIC(f, atomic64, uint64_t, UINT64_MAX, iters);
    DIAG_ATOMIC(f, strongatomic, gasnett_atomic_val_t, GASNETT_ATOMIC_MAX, iters);
    DIAG_ATOMIC(f, strongatomic32, uint32_t, UINT32_MAX, iters);
    DIAG_ATOMIC(f, strongatomic64, uint64_t, UINT64_MAX, iters);
    DIAG_CHECK(f, gasnett_atomic_signed(GASNETT_ATOMIC_MAX) == -1,
               "gasnett_atomic_signed of the maximum is -1");
    return f;
}

/* ---- C and D: barriers and threads ------------------------------------------ */
#if defined(GASNET_PAR) /* PARSYNC allows one thread at a time in the library */
typedef struct {
    int iters, nthreads;
    int message_pass, work; /* run section C's / section D's part */
    volatile uint64_t data;           /* written before the flag */
    volatile int flag;                /* 0: empty, 1: data ready */
    int membar_bad;                   /* reader saw the flag without the data */
    gasnett_atomic_t ctr, started;
    gasnett_mutex_t lock;
    uint64_t plain;                   /* only under lock */
    gasnett_cond_t cond;
    int turn;                         /* cond hand-off: whose turn, under lock */
    int cond_rounds;
    gex_HSL_t hsl;
    uint64_t hsl_plain;               /* only under hsl */
    int key_bad;
} diag_shared_t;

GASNETT_THREADKEY_DEFINE(gasneti_diag_key);

/* Thread 0 writes data then the flag, thread 1 reads them in the other order. */
static void diag_message_pass(diag_shared_t *s, int id)
{
    for (int i = 1; i <= s->iters; i++) {
        if (id == 0) {
            while (s->flag) gasnett_spinloop_hint();
            gasnett_local_rmb(); /* the reader is done with the previous round */
            s->data = (uint64_t)i * 0x9E3779B97F4A7C15ull;
            gasnett_local_wmb();
            s->flag = 1;
        } else {
            while (!s->flag) gasnett_spinloop_hint();
            gasnett_local_rmb();
            if (s->data != (uint64_t)i * 0x9E3779B97F4A7C15ull) s->membar_bad++;
            gasnett_local_mb();
            s->flag = 0;
        }
    }
}

static void *diag_thread(void *arg)
{
    diag_shared_t *s = (diag_shared_t *)((void **)arg)[0];
    int id = (int)(intptr_t)((void **)arg)[1];
    gasnett_threadkey_init(gasneti_diag_key);
    gasnett_threadkey_set(gasneti_diag_key, arg);
    gasnett_atomic_increment(&s->started, 0);
    while ((int)gasnett_atomic_read(&s->started, 0) < s->nthreads) gasnett_sched_yield();
    if (id < 2 && s->message_pass) diag_message_pass(s, id);
    for (int i = 0; s->work && i < s->iters; i++) {
        gasnett_atomic_increment(&s->ctr, 0);
        gasnett_mutex_lock(&s->lock);
        s->plain++;
        gasnett_mutex_unlock(&s->lock);
        gex_HSL_Lock(&s->hsl);
        s->hsl_plain++;
        gex_HSL_Unlock(&s->hsl);
    }
    for (int r = 0; r < s->cond_rounds; r++) { /* take turns 0, 1, ..., n-1, 0, ... */
        gasnett_mutex_lock(&s->lock);
        while (s->turn % s->nthreads != id) gasnett_cond_wait(&s->cond, &s->lock);
        s->turn++;
        gasnett_cond_broadcast(&s->cond);
        gasnett_mutex_unlock(&s->lock);
    }
    if (gasnett_threadkey_get(gasneti_diag_key) != arg) s->key_bad = 1;
    return NULL;
}
#endif

static int diag_threads(int iters, int nthreads, int barriers, int threads)
{
    int f = 0;
    if (barriers) { /* single-threaded: the barriers are callable and keep order */
        volatile int x = 0;
        x = 1;
        gasnett_local_wmb();
        gasnett_local_rmb();
        gasnett_local_mb();
        gasnett_weak_wmb();
        gasnett_weak_rmb();
        gasnett_weak_mb();
        gasnett_compiler_fence();
        DIAG_CHECK(f, x == 1, "memory barriers keep a store");
    }
#if defined(GASNET_PAR)
    if (nthreads < 2 || nthreads > GASNETT_MAX_THREADS) return f;
    diag_shared_t *s = (diag_shared_t *)calloc(1, sizeof *s);
    pthread_t *tids = (pthread_t *)calloc((size_t)nthreads, sizeof *tids);
    void **args = (void **)calloc((size_t)nthreads * 2, sizeof *args);
    if (!s || !tids || !args) {
        DIAG_CHECK(f, 0, "memory for the thread tests");
        free(s), free(tids), free(args);
        return f;
    }
    s->iters = iters;
    s->nthreads = nthreads;
    s->message_pass = barriers;
    s->work = threads;
    s->cond_rounds = threads ? 10 : 0;
    gasnett_mutex_init(&s->lock);
    gasnett_cond_init(&s->cond);
    gex_HSL_Init(&s->hsl);
    int started = 0;
    for (int i = 0; i < nthreads; i++) {
        args[2 * i] = s;
        args[2 * i + 1] = (void *)(intptr_t)i;
        if (pthread_create(&tids[i], NULL, diag_thread, &args[2 * i]) == 0) started++;
        else break;
    }
    if (started < nthreads) { /* the others wait for everyone: release them */
        gasnett_atomic_set(&s->started, (gasnett_atomic_val_t)nthreads, 0);
        DIAG_CHECK(f, 0, "pthread_create of the test threads");
    }
    for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
    if (started == nthreads) {
        if (barriers) DIAG_CHECK(f, s->membar_bad == 0, "local_wmb/local_rmb message passing");
        uint64_t want = (uint64_t)nthreads * (uint64_t)s->iters;
        if (threads) {
            DIAG_CHECK(f, gasnett_atomic_read(&s->ctr, 0) == (gasnett_atomic_val_t)want,
                       "atomic increments under contention");
            DIAG_CHECK(f, s->plain == want, "mutex exclusion");
            DIAG_CHECK(f, s->hsl_plain == want, "gex_HSL exclusion");
            DIAG_CHECK(f, s->turn == nthreads * s->cond_rounds, "condition-variable hand-off");
            DIAG_CHECK(f, !s->key_bad, "per-thread keys");
        }
    }
    gex_HSL_Destroy(&s->hsl);
    gasnett_cond_destroy(&s->cond);
    gasnett_mutex_destroy(&s->lock);
    free(s), free(tids), free(args);
#else
    (void)iters, (void)nthreads, (void)threads;
#endif
    return f;
}

/* ---- E: RMA with the peer ------------------------------------------------------ */
static int diag_rma(int iters, gex_TM_t team, void *peerseg, gex_Rank_t peer)
{
    int f = 0;
    gex_Rank_t me = gex_TM_QueryRank(team);
    /* Each rank writes only word `me` of the peer's segment (the first 32 KB
     * of it at most), so what it reads back is what it wrote. */
    if (me < 4096) {
        uint64_t *slot = (uint64_t *)peerseg + me;
        for (int i = 0; i < iters && i < 64; i++) {
            uint64_t val = ((uint64_t)me << 32) | (uint64_t)i, back = 0;
            gex_RMA_PutBlocking(team, peer, slot, &val, sizeof val, 0);
            gex_RMA_GetBlocking(team, &back, peer, slot, sizeof back, 0);
            DIAG_CHECK(f, back == val, "put then get of the peer's segment");
        }
    }
    gex_Event_Wait(gex_Coll_BarrierNB(team, 0));
    return f;
}

int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections, gex_TM_t myteam,
                            void *myseg, gex_Rank_t peer, void *peerseg)
{
    int failures = 0;
    if (iters <= 0) iters = 1;
    if (threadcnt <= 0) threadcnt = 1;
    if (section_on(testsections, 'A')) failures += diag_timers(iters);
    if (section_on(testsections, 'B')) failures += diag_atomics(iters);
    int c = section_on(testsections, 'C'), d = section_on(testsections, 'D');
    if (c || d) failures += diag_threads(iters, threadcnt, c, d);
    if (section_on(testsections, 'E') && myteam != GEX_TM_INVALID && myseg && peerseg &&
        peer < gex_TM_QuerySize(myteam))
        failures += diag_rma(iters, myteam, peerseg, peer);
    return failures;
}

void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt)
{
    if (htable) *htable = NULL;
    if (htable_cnt) *htable_cnt = 0;
}
