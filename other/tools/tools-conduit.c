/* other/tools/tools-conduit.c: the gasnet_tools.h services that exist only
 * with a conduit (gasnetex.h): gasnett_mmap, the gasnett_format_{dt,op,ti}
 * mask printers and the gasnett_run_diagnostics self-test.  Part of the
 * conduit libraries only. */
#include <gasnetex.h>

#include "other/log/log.h"

#include <sys/mman.h>

void *gasnett_mmap(uintptr_t segsize)
{
    void *p = mmap(NULL, segsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        gasneti_fatalerror("gasnett_mmap(%lu) failed: %s", (unsigned long)segsize,
                           strerror(errno));
    return p;
}

/* ---- diagnostics -------------------------------------------------------- */
void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt)
{
    if (htable) *htable = NULL;
    if (htable_cnt) *htable_cnt = 0;
}

static int diag_section(const char *sections, char s)
{
    return !sections || !sections[0] || strchr(sections, s) || strchr(sections, s + ('a' - 'A'));
}

#define DIAG_CHECK(cond, what)                                                     \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "gasnett_run_diagnostics: %s failed (%s:%d)\n", what,  \
                    __FILE__, __LINE__);                                           \
            failures++;                                                            \
        }                                                                          \
    } while (0)

typedef struct {
    int iters;
    gasnett_atomic_t *ctr;
    gasnett_mutex_t *lock;
    uint64_t *plain;
} diag_thread_arg_t;

static void *diag_thread(void *p)
{
    diag_thread_arg_t *a = (diag_thread_arg_t *)p;
    int i;
    for (i = 0; i < a->iters; i++) {
        gasnett_atomic_increment(a->ctr, 0);
        gasnett_mutex_lock(a->lock);
        (*a->plain)++;
        gasnett_mutex_unlock(a->lock);
    }
    return NULL;
}

int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections, gex_TM_t myteam,
                            void *myseg, gex_Rank_t peer, void *peerseg)
{
    int failures = 0, i;
    if (iters <= 0) iters = 1;
    if (threadcnt <= 0) threadcnt = 1;
    if (diag_section(testsections, 'A')) { /* tools: atomics, timers, checksums */
        gasnett_atomic_t a = gasnett_atomic_init(0);
        gasnett_atomic32_t a32 = gasnett_atomic32_init(0);
        gasnett_tick_t t0 = gasnett_ticks_now();
        for (i = 0; i < iters; i++) {
            gasnett_atomic_increment(&a, 0);
            gasnett_atomic32_add(&a32, 2, 0);
        }
        DIAG_CHECK(gasnett_atomic_read(&a, 0) == (uint64_t)iters, "atomic increment");
        DIAG_CHECK(gasnett_atomic32_read(&a32, 0) == (uint32_t)(2 * iters), "atomic32 add");
        DIAG_CHECK(gasnett_ticks_now() >= t0, "timer monotonic");
        DIAG_CHECK(gasnett_count0s_uint64_t(0) == 8 && gasnett_count0s_uint32_t(1) == 3,
                   "count0s");
    }
    if (diag_section(testsections, 'B') && threadcnt > 1) { /* threads */
        gasnett_atomic_t ctr = gasnett_atomic_init(0);
        gasnett_mutex_t lock = GASNETT_MUTEX_INITIALIZER;
        uint64_t plain = 0;
        pthread_t *tids = (pthread_t *)calloc((size_t)threadcnt, sizeof *tids);
        diag_thread_arg_t arg;
        int started = 0;
        arg.iters = iters;
        arg.ctr = &ctr;
        arg.lock = &lock;
        arg.plain = &plain;
        for (i = 0; tids && i < threadcnt; i++)
            if (pthread_create(&tids[i], NULL, diag_thread, &arg) == 0) started++;
        for (i = 0; i < started; i++) pthread_join(tids[i], NULL);
        free(tids);
        DIAG_CHECK(started == threadcnt, "pthread_create");
        DIAG_CHECK(gasnett_atomic_read(&ctr, 0) == (uint64_t)started * (uint64_t)iters,
                   "atomics under contention");
        DIAG_CHECK(plain == (uint64_t)started * (uint64_t)iters, "mutex exclusion");
    }
    if (diag_section(testsections, 'C') && myteam != GEX_TM_INVALID && myseg && peerseg &&
        peer < gex_TM_QuerySize(myteam)) { /* RMA with peer: each rank writes its own slot */
        gex_Rank_t me = gex_TM_QueryRank(myteam);
        uint64_t *mine = (uint64_t *)myseg;
        uint64_t val = ((uint64_t)me << 32) | 0x5a5aU, back = 0;
        (void)mine;
        for (i = 0; i < iters && i < 64; i++) {
            gex_RMA_PutBlocking(myteam, peer, (uint64_t *)peerseg + 1 + (me % 2), &val,
                                sizeof val, 0);
            gex_RMA_GetBlocking(myteam, &back, peer, (uint64_t *)peerseg + 1 + (me % 2),
                                sizeof back, 0);
            DIAG_CHECK(peer == me || back == val || (me % 2) != (peer % 2),
                       "put then get of the peer's segment");
        }
        gex_Event_Wait(gex_Coll_BarrierNB(myteam, 0));
    }
    return failures;
}
