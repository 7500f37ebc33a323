/* extended/sync.c: the public event and NBI synchronization calls
 * (gex_Event_Test/Wait/TestSome/WaitSome/TestAll/WaitAll, gex_NBI_Wait).
 *
 * Tests never poll (spec); waits call gasnetc_poll() between tests.  Both
 * are prohibited in AM handler context; with checks on, a call from a
 * handler is a fatal error naming the call.
 */
#include "extended/extended_internal.h"

static inline void gasnete_check_not_in_handler(const char *caller)
{
    if (GASNETE_CHECKS && GASNETE_UNLIKELY(gasnetc_in_handler()))
        gasneti_fatalerror("%s called from an AM handler: synchronizing events is not allowed "
                           "in handler context (move the wait out of the handler)",
                           caller);
}

/* Polls once while waiting: runs handlers, advances transports and (via
 * gasnete_progress, called by gasnetc_poll) the extended layer. */
static inline void gasnete_wait_poll(void)
{
    gasnetc_poll();
    gasneti_pollwait_hint();
}

int gex_Event_Test(gex_Event_t event)
{
    if (event == GEX_EVENT_INVALID) return GASNET_OK;
    gasnete_check_not_in_handler("gex_Event_Test");
    return gasnete_event_test(event, "gex_Event_Test");
}

void gex_Event_Wait(gex_Event_t event)
{
    if (event == GEX_EVENT_INVALID) return;
    gasnete_check_not_in_handler("gex_Event_Wait");
    if (gasnete_event_test(event, "gex_Event_Wait") == GASNET_OK) return;
    /* A collective with a wait of its own uses it: the shared-memory
     * barrier checks its flags between polls and starts a fresh idle run,
     * as the blocking barrier does, so a loop of BarrierNB + Wait does not
     * yield at every poll (0.55 us per barrier against 0.12 us blocking, 2
     * processes).  Other waits keep the poll's idle run: in the Soft-RoCE
     * guest the yields are what lets the kernel's rxe work run beside two
     * spinning ranks. */
    gasnete_op_t *coll = event->kind == GASNETE_EV_COLL ? gasnete_op_of_root(event) : NULL;
    if (coll && coll->coll_wait) coll->coll_wait(coll);
    while (gasnete_event_test(event, "gex_Event_Wait") != GASNET_OK) gasnete_wait_poll();
}

/* The array forms share gasnete_event_test_array (extended/event.c): root
 * and leaf events may be mixed in one array, in any order. */
#define gasnete_test_array gasnete_event_test_array

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t valid;
    gasnete_check_not_in_handler("gex_Event_TestSome");
    size_t done = gasnete_test_array(pevent, numevents, &valid, "gex_Event_TestSome");
    /* Success: at least one completed, or nothing was valid to begin with. */
    return (done > 0 || valid == 0) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t valid;
    gasnete_check_not_in_handler("gex_Event_WaitSome");
    for (;;) {
        size_t done = gasnete_test_array(pevent, numevents, &valid, "gex_Event_WaitSome");
        if (done > 0 || valid == 0) return;
        gasnete_wait_poll();
    }
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t valid;
    gasnete_check_not_in_handler("gex_Event_TestAll");
    size_t done = gasnete_test_array(pevent, numevents, &valid, "gex_Event_TestAll");
    return (done == valid) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t valid;
    gasnete_check_not_in_handler("gex_Event_WaitAll");
    for (;;) {
        size_t done = gasnete_test_array(pevent, numevents, &valid, "gex_Event_WaitAll");
        if (done == valid) return;
        gasnete_wait_poll();
    }
}

int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags)
{
    gasnete_check_not_in_handler("gex_NBI_Test");
    return gasnete_nbi_test(event_mask, "gex_NBI_Test");
}

void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags)
{
    gasnete_check_not_in_handler("gex_NBI_Wait");
    /* Puts and gets over the network complete on the transport's own
     * completions: between full polls only reap them (README "Waiting for
     * RMA"), so the caller returns as soon as the last one arrives. */
    int (*reap)(void) = (event_mask & ~(gex_EC_t)(GEX_EC_PUT | GEX_EC_GET)) == 0
                            ? gasnete_rma_net_ops()->reap
                            : NULL;
    unsigned spins = 0;
    while (gasnete_nbi_test(event_mask, "gex_NBI_Wait") != GASNET_OK) {
        if (reap && (++spins % 8U) != 0) reap();
        else gasnete_wait_poll();
    }
}
