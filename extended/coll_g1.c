/* extended/coll_g1.c: the GASNet-1 collectives (gasnet_coll_broadcast,
 * scatter, gather, gather_all, exchange and their _nb forms, handles,
 * try/wait_sync) over the EX teams and the data movement of coll.c.
 *
 * One image per process: an image is a rank in the team.  Every member
 * reads its source when it calls and writes its destination when its own
 * instance completes, so the data is right under any sync flag and with
 * either addressing mode (SINGLE or LOCAL: each member uses the address
 * arguments it was given).  The sync flags then only add barriers over the
 * team:
 *   IN_ALLSYNC    a barrier before the data moves (no member's buffers are
 *                 touched before every member has entered);
 *   IN_MYSYNC, IN_NOSYNC   nothing more (a member's buffers are touched
 *                 only once it has entered);
 *   OUT_ALLSYNC, OUT_MYSYNC   a barrier after the local data movement (a
 *                 root's data is in every destination when it returns;
 *                 MYSYNC would allow less waiting, not more);
 *   OUT_NOSYNC    the handle completes with the local data movement.
 * A handle is a small state machine advanced by try/wait (phases: entry
 * barrier, data, exit barrier).
 */
#include "extended/team.h"
#include "extended/coll.h"

#include <gasnet_coll.h>
#include <stdlib.h>

enum { PH_IN, PH_DATA, PH_OUT, PH_DONE };

struct gasnete_coll_handle_s {
    gex_TM_t tm;
    int kind, phase, out_sync;
    gex_Rank_t root;
    void *dst;
    const void *src;
    size_t nbytes;
    gex_Event_t ev; /* the step in progress, GEX_EVENT_INVALID between steps */
    const char *fn;
};

/* Runs the handle's steps as far as they go without waiting; 1 when done. */
static int g1_advance(gasnet_coll_handle_t h)
{
    for (;;) {
        if (h->ev != GEX_EVENT_INVALID) {
            if (gex_Event_Test(h->ev) != GASNET_OK) return 0;
            h->ev = GEX_EVENT_INVALID;
        }
        switch (h->phase) {
        case PH_IN:
            h->ev = gasnete_coll_move_nb(h->tm, h->kind, h->root, h->dst, h->src, h->nbytes,
                                         h->fn);
            h->phase = PH_DATA;
            break;
        case PH_DATA:
            if (h->out_sync) h->ev = gex_Coll_BarrierNB(h->tm, 0);
            h->phase = h->out_sync ? PH_OUT : PH_DONE;
            break;
        default:
            h->phase = PH_DONE;
            return 1;
        }
    }
}

static int one_bit(int x) { return x && !(x & (x - 1)); }

static gasnet_coll_handle_t g1_start(gex_TM_t tm, int kind, gex_Rank_t root, void *dst,
                                     const void *src, size_t nbytes, int flags, const char *fn)
{
    (void)gasnete_team_for_coll(tm, fn);
    int in = flags & (GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC);
    int out = flags & (GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC);
    int addr = flags & (GASNET_COLL_SINGLE | GASNET_COLL_LOCAL);
    if (!one_bit(in) || !one_bit(out))
        gasneti_fatalerror("%s: flags 0x%x must hold exactly one GASNET_COLL_IN_*SYNC and one "
                           "GASNET_COLL_OUT_*SYNC flag",
                           fn, (unsigned)flags);
    if (!one_bit(addr))
        gasneti_fatalerror("%s: flags 0x%x must hold exactly one of GASNET_COLL_SINGLE and "
                           "GASNET_COLL_LOCAL",
                           fn, (unsigned)flags);
    if (root >= tm->size)
        gasneti_fatalerror("%s: image %u is out of range (team of %u images)", fn,
                           (unsigned)root, (unsigned)tm->size);
    gasnet_coll_handle_t h = malloc(sizeof(*h));
    if (!h) gasneti_fatalerror("%s: out of memory", fn);
    h->tm = tm;
    h->kind = kind;
    h->root = root;
    h->dst = dst;
    h->src = src;
    h->nbytes = nbytes;
    h->fn = fn;
    h->out_sync = out != GASNET_COLL_OUT_NOSYNC;
    h->phase = PH_IN;
    h->ev = in == GASNET_COLL_IN_ALLSYNC ? gex_Coll_BarrierNB(tm, 0) : GEX_EVENT_INVALID;
    if (g1_advance(h)) {
        free(h);
        return GASNET_COLL_INVALID_HANDLE;
    }
    return h;
}

gasnet_coll_handle_t gasnete_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                               gasnet_image_t srcimage, void *src, size_t nbytes,
                                               int flags)
{
    return g1_start(team, GASNETE_COLL_BCAST, srcimage, dst, src, nbytes, flags,
                    "gasnet_coll_broadcast");
}

gasnet_coll_handle_t gasnete_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                             gasnet_image_t srcimage, void *src, size_t nbytes,
                                             int flags)
{
    return g1_start(team, GASNETE_COLL_SCATTER, srcimage, dst, src, nbytes, flags,
                    "gasnet_coll_scatter");
}

gasnet_coll_handle_t gasnete_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage,
                                            void *dst, void *src, size_t nbytes, int flags)
{
    return g1_start(team, GASNETE_COLL_GATHER, dstimage, dst, src, nbytes, flags,
                    "gasnet_coll_gather");
}

gasnet_coll_handle_t gasnete_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                                size_t nbytes, int flags)
{
    return g1_start(team, GASNETE_COLL_GATHER_ALL, 0, dst, src, nbytes, flags,
                    "gasnet_coll_gather_all");
}

gasnet_coll_handle_t gasnete_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src,
                                              size_t nbytes, int flags)
{
    return g1_start(team, GASNETE_COLL_EXCHANGE, 0, dst, src, nbytes, flags,
                    "gasnet_coll_exchange");
}

/* ---- synchronization ------------------------------------------------------------------ */

/* Advances *ph; on completion frees it and clears the slot.  1 when done. */
static int g1_sync_one(gasnet_coll_handle_t *ph)
{
    if (*ph == GASNET_COLL_INVALID_HANDLE) return 1;
    if (!g1_advance(*ph)) return 0;
    free(*ph);
    *ph = GASNET_COLL_INVALID_HANDLE;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* acquire: the data is visible */
    return 1;
}

static void g1_poll(const char *fn)
{
    if (GASNETE_CHECKS && gasnetc_in_handler())
        gasneti_fatalerror("%s called from an AM handler (not allowed)", fn);
    gasnetc_poll();
}

int gasnete_coll_try_sync(gasnet_coll_handle_t handle)
{
    g1_poll("gasnet_coll_try_sync");
    return g1_sync_one(&handle) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

int gasnete_coll_try_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    g1_poll("gasnet_coll_try_sync_some");
    int any = 0, live = 0;
    for (size_t i = 0; i < numhandles; i++) {
        if (phandle[i] == GASNET_COLL_INVALID_HANDLE) continue;
        live = 1;
        any |= g1_sync_one(&phandle[i]);
    }
    return any || !live ? GASNET_OK : GASNET_ERR_NOT_READY;
}

int gasnete_coll_try_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    g1_poll("gasnet_coll_try_sync_all");
    int all = 1;
    for (size_t i = 0; i < numhandles; i++) all &= g1_sync_one(&phandle[i]);
    return all ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gasnete_coll_wait_sync(gasnet_coll_handle_t handle)
{
    while (gasnete_coll_try_sync(handle) != GASNET_OK) gasneti_pollwait_hint();
}

void gasnete_coll_wait_sync_some(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    while (gasnete_coll_try_sync_some(phandle, numhandles) != GASNET_OK) gasneti_pollwait_hint();
}

void gasnete_coll_wait_sync_all(gasnet_coll_handle_t *phandle, size_t numhandles)
{
    while (gasnete_coll_try_sync_all(phandle, numhandles) != GASNET_OK) gasneti_pollwait_hint();
}

/* ---- tuning interface (one algorithm: nothing to tune) ----------------------------------- */

int gasnet_coll_get_num_tree_classes(gasnet_team_handle_t team, gasnet_coll_optype_t optype)
{
    (void)team;
    (void)optype;
    return 1;
}

void gasnet_coll_set_tree_kind(gasnet_team_handle_t team, int tree_type, int fanout,
                               gasnet_coll_optype_t optype)
{
    (void)team;
    (void)tree_type;
    (void)fanout;
    (void)optype;
}

void gasnet_coll_set_dissem_limit(gasnet_team_handle_t team, size_t dissemlimit,
                                  gasnet_coll_optype_t optype)
{
    (void)team;
    (void)dissemlimit;
    (void)optype;
}
