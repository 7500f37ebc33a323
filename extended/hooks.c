/* extended/hooks.c: the hooks the core calls into the Extended API, as the
 * table core/init.c installs (gasnete_core_ops): gasnete_init (end of
 * gex_Client_Init), gasnete_progress (every poll), the events of AM
 * lc_opt (event.c) and Longs to created segments (ep_rma.c).
 *
 * Small on purpose: each service initializes itself in its own file.
 */
#include "extended/team.h"

void gasnete_init(void)
{
    static int done = 0;
    if (done) return;
    done = 1;
    (void)gasnete_mythread(); /* the initial thread's state, off the fast path */
    gasnete_team_init();
    gasnete_barrier_init();
    gasnete_legacy_init();
    gasnete_ratomic_init();
    gasnete_coll_init();
    gasnete_vis_pc_init();
    gasnete_ep_rma_init();
}

void gasnete_progress(void)
{
    gasnete_barrier_progress();
}

const gasnetc_ext_ops_t gasnete_core_ops = {
    .init = gasnete_init,
    .progress = gasnete_progress,
    .am_lc_event = gasnete_event_new,
    .am_lc_group = gasnete_nbi_am_lc_cmpl,
    .am_lc_discard = gasnete_event_discard,
    .ep_am_send_long = gasnete_ep_am_send_long,
};
