/* extended/barrier.c: barriers over any team: the AM glue of the
 * dissemination engine (extended/barrier_engine.c), gex_Coll_BarrierNB/
 * BarrierBlocking, and the GASNet-1 split-phase named barrier
 * (gasnet_barrier_notify/wait/try, gasnet_barrier, gasnet_barrier_result)
 * on the primordial team.
 *
 * Each team has its own engine (extended/team.h); messages carry the team
 * id.  Handlers only record arrivals; messages are sent from
 * gasnete_barrier_progress(), which runs after polls (gasnete_progress),
 * from event tests and at notify.  On the primordial team, EX and GASNet-1
 * barriers share one epoch sequence: every rank starts them in the same
 * order (spec: the two kinds must not overlap on the primordial team).
 */
#include "extended/team.h"
#include "extended/barrier_pshm.h"
#include "extended/barrier_rdma.h"
#include "core/gasnet_core_private.h" /* gasnetc_poll_wait_begin */

#include <gasnet_coll.h>

#include <gasnet.h>

#define GASNETE_BARRIER_HIDX (GASNETE_HANDLER_BASE + 0)

static GASNETI_TLS int gasnete_bar_in_progress; /* reentrancy guard (per thread) */

#define GASNETE_BAR_DONE ((uint64_t)1 << 63)
/* Mailbox reads between two polls while waiting for an RDMA barrier. */
#ifndef GASNETE_RBAR_SPIN
#define GASNETE_RBAR_SPIN 8
#endif

/* ---- AM glue -------------------------------------------------------------------- */

typedef struct {
    gex_Rank_t src; /* jobrank */
    uint32_t epoch, round;
    gasnete_bval_t v;
} bar_arrival_t;

/* Files one arrival in team t's engine (registry lock held). */
static void bar_arrive_in(struct gasnete_team_s *t, void *arg)
{
    bar_arrival_t *a = arg;
    gex_Rank_t src = gasnete_team_rank_of(t->tm, a->src);
    if (src == GEX_RANK_INVALID || gasnete_bar_arrive(&t->bar, src, a->epoch, a->round, a->v))
        gasneti_fatalerror("barrier protocol error: unexpected message from rank %u (team id "
                           "%u, epoch %u, round %u); were barriers called in a different "
                           "order on different ranks?",
                           (unsigned)a->src, (unsigned)t->tm->id, (unsigned)a->epoch,
                           (unsigned)a->round);
}

/* Request handler: (team id, epoch, round | kind << 8, id).  Records the
 * arrival. */
static void gasnete_barrier_reqh(gex_Token_t token, gex_AM_Arg_t team, gex_AM_Arg_t epoch,
                                 gex_AM_Arg_t rk, gex_AM_Arg_t id)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    bar_arrival_t a;
    a.src = info.gex_srcrank;
    a.epoch = (uint32_t)epoch;
    a.round = (uint32_t)rk & 0xffU;
    a.v.kind = ((uint32_t)rk >> 8) & 0x3U;
    a.v.id = (int32_t)id;
    if (gasnete_team_with_id((uint32_t)team, bar_arrive_in, &a))
        gasneti_fatalerror("barrier protocol error: message from rank %u for team id %u, which "
                           "does not exist here (was the team destroyed early, or created on "
                           "some members only?)",
                           (unsigned)a.src, (unsigned)(uint32_t)team);
    /* The primordial team's mailbox reader steps over this (epoch, round). */
    if ((uint32_t)team == gasneti_the_tm.id) gasnete_rbar_am_seen(a.epoch, a.round);
}

void gasnete_barrier_init(void)
{
    static gex_AM_Entry_t table[] = {
        {GASNETE_BARRIER_HIDX, (gex_AM_Fn_t)gasnete_barrier_reqh,
         GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 4, NULL, "gasnete_barrier_reqh"},
    };
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
    gasnete_pshmbar_init();
    gasnete_rbar_init();
}

/* Sends team t's ready messages and completes its finished barriers. */
static void barrier_progress_team(struct gasnete_team_s *t)
{
    for (;;) {
        gasnete_bar_msg_t msg;
        void *cookie;
        gasnete_bval_t result;
        int what = gasnete_bar_next(&t->bar, &msg, &cookie, &result);
        if (what == 0) break;
        if (what == 1) {
            gex_Rank_t dest = gasnetc_tm_to_jobrank(t->tm, msg.dest);
            if (gasnete_rbar_team(t) && gasnete_rbar_send(dest, &msg)) continue;
            gasnetc_AM_RequestShort(&gasneti_the_tm, dest,
                                    GASNETE_BARRIER_HIDX, 4, 0, (gex_AM_Arg_t)t->tm->id,
                                    (gex_AM_Arg_t)msg.epoch,
                                    (gex_AM_Arg_t)(msg.round | (msg.value.kind << 8)),
                                    (gex_AM_Arg_t)msg.value.id);
        } else {
            gasnete_op_t *op = cookie;
            __atomic_store_n(&op->coll_data, GASNETE_BAR_DONE | gasnete_bval_pack(result),
                             __ATOMIC_RELEASE);
        }
    }
}

void gasnete_barrier_progress(void)
{
    gasnete_pshmbar_progress();
    /* No barrier started anywhere in this process: arrivals wait in their
     * engines and mailboxes until one starts, so the walk can be skipped. */
    if (gasnete_bar_in_progress || !gasnete_bar_any_outstanding()) return;
    gasnete_bar_in_progress = 1;
    gasnete_rbar_poll();
    gasnete_team_each_busy(barrier_progress_team);
    gasnete_bar_in_progress = 0;
}

static inline int gasnete_barrier_done(const gasnete_op_t *op)
{
    return (__atomic_load_n(&op->coll_data, __ATOMIC_ACQUIRE) & GASNETE_BAR_DONE) != 0;
}

/* coll_test of barrier events: advances, then reports completion. */
static int gasnete_barrier_test_op(gasnete_op_t *op)
{
    if (!gasnete_barrier_done(op)) gasnete_barrier_progress();
    return gasnete_barrier_done(op);
}

/* Starts a barrier with this rank's contribution; returns its op. */
static gasnete_op_t *gasnete_barrier_start(gex_TM_t tm, gasnete_bval_t mine, const char *caller)
{
    struct gasnete_team_s *t = gasnete_team_for_coll(tm, caller);
    gasnete_op_t *op = gasnete_op_alloc(gasnete_mythread());
    op->ev.kind = GASNETE_EV_COLL;
    op->coll_test = gasnete_barrier_test_op;
    op->coll_wait = NULL;
    op->coll_data = 0;
    /* Release: this rank's earlier accesses happen before any rank leaves the
     * barrier; acquire at the end.  Neither needs a full fence (an mfence
     * on x86 costs about a third of a shared-memory barrier). */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (gasnete_pshmbar_usable(t)) { /* shared-memory flags (barrier_pshm.c) */
        gasnete_pshmbar_start(op, mine);
        return op;
    }
    int rc;
    while ((rc = gasnete_bar_start(&t->bar, mine, op, NULL)) == 1) {
        /* Too many barriers in flight: let the oldest ones finish (the
         * poll runs gasnete_progress). */
        gasnetc_poll();
    }
    if (rc < 0)
        gasneti_fatalerror("%s: barrier protocol error (barrier slot still in use); were "
                           "barriers called in a different order on different ranks?",
                           caller);
    /* Send the first round now (notify): only this team can have become
     * ready, so no walk over the registry. */
    if (!gasnete_bar_in_progress) {
        gasnete_bar_in_progress = 1;
        barrier_progress_team(t);
        gasnete_bar_in_progress = 0;
    }
    return op;
}

/* Polls until op completes; returns its result and frees op. */
static gasnete_bval_t gasnete_barrier_finish(gasnete_op_t *op)
{
    if (op->coll_wait) op->coll_wait(op); /* shared-memory flags (barrier_pshm.c) */
    /* Every poll ends in gasnete_progress, which advances the barrier: the
     * loop only tests (one progress pass per turn, not two). */
    if (!gasnete_barrier_test_op(op)) {
        struct gasnete_team_s *t = gasneti_the_tm.coll;
        int rdma = GASNETE_RBAR_SPIN > 0 && gasnete_rbar_team(t);
        /* A new wait: the poll's idle count starts over (a barrier-only loop
         * over RDMA delivers no message, so every poll looks idle). */
        if (rdma) gasnetc_poll_wait_begin();
        do {
            /* RDMA barrier: read the mailbox a few times between polls (a
             * poll costs far more than a read), advancing the engine only
             * when something arrived, so that AMs this rank must answer
             * wait for at most a few cheap reads.  Other teams' events do
             * not reach this loop. */
            for (int i = 0; rdma && i < GASNETE_RBAR_SPIN && !gasnete_bar_in_progress; i++) {
                gasnete_bar_in_progress = 1;
                if (gasnete_rbar_poll()) barrier_progress_team(t);
                gasnete_bar_in_progress = 0;
                if (gasnete_barrier_done(op)) break;
                gasneti_pollwait_hint();
            }
            if (gasnete_barrier_done(op)) break;
            gasnetc_poll();
            if (gasnete_barrier_done(op)) break;
            gasneti_pollwait_hint();
        } while (!gasnete_barrier_done(op));
    }
    gasnete_bval_t result = gasnete_bval_unpack(op->coll_data & ~GASNETE_BAR_DONE);
    gasnete_op_free(op);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return result;
}

/* ---- GASNet-EX ------------------------------------------------------------------ */

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    gasnete_bval_t anon = {GASNETE_BV_ANON, 0};
    gasnete_op_t *op = gasnete_barrier_start(tm, anon, "gex_Coll_BarrierNB");
    /* The shared-memory start already looked at the flags: no second look. */
    if (op->coll_wait ? gasnete_barrier_done(op) : gasnete_barrier_test_op(op)) {
        gasnete_op_free(op);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return GEX_EVENT_INVALID;
    }
    return &op->ev;
}

int gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags)
{
    gasnete_bval_t anon = {GASNETE_BV_ANON, 0}, result;
    const char *fn = "gex_Coll_BarrierBlocking";
    /* The primordial team's blocking barrier over shared-memory flags, when
     * nothing else is outstanding: no op, no engine (barrier_pshm.c); the
     * checks of gasnete_team_for_coll hold for this tm once it is usable. */
    if (tm == &gasneti_the_tm && gasnete_pshmbar_blocking(anon, &result)) return GASNET_OK;
    (void)gasnete_barrier_finish(gasnete_barrier_start(tm, anon, fn));
    return GASNET_OK;
}

/* ---- GASNet-1 named barrier -------------------------------------------------------- */
/* One split-phase barrier at a time per team and process; the client
 * serializes these calls (GASNet-1 spec), so no lock.  gasnet_barrier_* are
 * the primordial team's; gasnet_coll_barrier_* name the team. */

void gasnete_coll_barrier_notify(gex_TM_t tm, int id, int flags)
{
    struct gasnete_team_s *t = gasnete_team_for_coll(tm, "gasnet_barrier_notify");
    if (t->g1op)
        gasneti_fatalerror("gasnet_barrier_notify(id=%d, flags=%d) called twice without "
                           "gasnet_barrier_wait or a successful gasnet_barrier_try in between",
                           id, flags);
    t->g1op = gasnete_barrier_start(tm, gasnete_bval_from_notify(id, flags),
                                    "gasnet_barrier_notify");
}

/* The return code of a GASNet-1 wait given the barrier's result; records
 * it for gasnet_barrier_result. */
static int gasnete_g1bar_rc(struct gasnete_team_s *t, gasnete_bval_t result, int id, int flags)
{
    int rc = gasnete_bval_wait_rc(result, id, flags);
    t->g1_prev_flags = gasnete_bval_result_flags(result, rc, &t->g1_prev_id);
    return rc;
}

static int gasnete_g1bar_complete(struct gasnete_team_s *t, int id, int flags)
{
    gasnete_bval_t result = gasnete_barrier_finish(t->g1op);
    t->g1op = NULL;
    return gasnete_g1bar_rc(t, result, id, flags);
}

/* The team of a wait/try/result call, checking a notify came first (or,
 * for result, that none is pending). */
static struct gasnete_team_s *g1bar_team(gex_TM_t tm, int want_pending, const char *fn)
{
    struct gasnete_team_s *t = gasnete_team_for_coll(tm, fn);
    if (want_pending && !t->g1op)
        gasneti_fatalerror("%s called without a preceding gasnet_barrier_notify", fn);
    if (!want_pending && t->g1op)
        gasneti_fatalerror("%s called between gasnet_barrier_notify and gasnet_barrier_wait",
                           fn);
    return t;
}

int gasnete_coll_barrier_wait(gex_TM_t tm, int id, int flags)
{
    return gasnete_g1bar_complete(g1bar_team(tm, 1, "gasnet_barrier_wait"), id, flags);
}

int gasnete_coll_barrier_try(gex_TM_t tm, int id, int flags)
{
    struct gasnete_team_s *t = g1bar_team(tm, 1, "gasnet_barrier_try");
    gasnetc_poll(); /* GASNet-1 try calls poll (EX Test calls do not) */
    if (!gasnete_barrier_test_op(t->g1op)) return GASNET_ERR_NOT_READY;
    return gasnete_g1bar_complete(t, id, flags);
}

int gasnete_coll_barrier(gex_TM_t tm, int id, int flags)
{
    struct gasnete_team_s *t = gasnete_team_for_coll(tm, "gasnet_barrier");
    gasnete_bval_t result;
    if (tm == &gasneti_the_tm && !t->g1op &&
        gasnete_pshmbar_blocking(gasnete_bval_from_notify(id, flags), &result))
        return gasnete_g1bar_rc(t, result, id, flags);
    gasnete_coll_barrier_notify(tm, id, flags);
    return gasnete_coll_barrier_wait(tm, id, flags);
}

int gasnete_coll_barrier_result(gex_TM_t tm, int *id)
{
    struct gasnete_team_s *t = g1bar_team(tm, 0, "gasnet_barrier_result");
    if (id) *id = t->g1_prev_id;
    return t->g1_prev_flags;
}

void gasnet_barrier_notify(int id, int flags) { gasnete_coll_barrier_notify(&gasneti_the_tm, id, flags); }
int gasnet_barrier_wait(int id, int flags) { return gasnete_coll_barrier_wait(&gasneti_the_tm, id, flags); }
int gasnet_barrier_try(int id, int flags) { return gasnete_coll_barrier_try(&gasneti_the_tm, id, flags); }
int gasnet_barrier(int id, int flags) { return gasnete_coll_barrier(&gasneti_the_tm, id, flags); }
int gasnet_barrier_result(int *id) { return gasnete_coll_barrier_result(&gasneti_the_tm, id); }
