/* extended/init.c: the hooks the core calls into the Extended API:
 * gasnete_init (end of gex_Client_Init) and gasnete_progress (from
 * gasnet_AMPoll and the extended layer's own waits).
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
