/* extended/vis_pc.c: the notification of VIS peer completion
 * (gex_VIS_SetPeerCompletionHandler; arming and the Put side: vis.c).
 *
 * Once the armed Put is complete (its data visible at the peer), the
 * initiator sends an internal Medium Request carrying the client's handler
 * index and payload; at the peer the internal handler runs the client's
 * handler (registered there as a 0-argument Medium Reply handler) with the
 * payload.  The client handler runs inside our Request handler with a
 * token of its own (gasnetc_run_as_reply): gex_Token_Info gives the
 * initiator's jobrank as srcrank, its entry, and gex_is_req 0 as in any
 * Reply handler.
 */
#include "extended/extended_internal.h"

#include <gasnet_vis.h>

#define GASNETE_VISPC_HIDX (GASNETE_HANDLER_BASE + 11)

extern void (*gasnete_vis_pc_send)(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                   const void *src, size_t nbytes);

static void vispc_reqh(gex_Token_t token, void *buf, size_t nbytes, gex_AM_Arg_t handler)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_EP | GEX_TI_SRCRANK);
    const gex_AM_Entry_t *e = &info.gex_ep->handlers[(gex_AM_Index_t)handler];
    if (!e->gex_fnptr || !(e->gex_flags & GEX_FLAG_AM_MEDIUM) ||
        !(e->gex_flags & GEX_FLAG_AM_REPLY))
        gasneti_fatalerror("VIS peer completion from rank %u: handler %u is not registered here "
                           "as a Medium Reply handler (gex_flags GEX_FLAG_AM_MEDIUM | "
                           "GEX_FLAG_AM_REPLY, gex_nargs 0)",
                           (unsigned)info.gex_srcrank, (unsigned)(gex_AM_Index_t)handler);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    gasnetc_run_as_reply(token, e, buf, nbytes);
}

static void vispc_send(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src,
                       size_t nbytes)
{
    gasnetc_AM_RequestMedium(tm, rank, GASNETE_VISPC_HIDX, nbytes ? src : NULL, nbytes,
                             GEX_EVENT_NOW, 1, 0, (gex_AM_Arg_t)handler);
}

void gasnete_vis_pc_init(void)
{
    static gex_AM_Entry_t table[] = {
        {GASNETE_VISPC_HIDX, (gex_AM_Fn_t)vispc_reqh, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1,
         NULL, "gasnete_vispc_reqh"},
    };
    gasnetc_register_internal_handlers(table, sizeof(table) / sizeof(table[0]));
    gasnete_vis_pc_send = vispc_send;
}
