/* core/gasnet_core_private.h: declarations shared by the core's own files
 * only (init, objects, handlers, am, poll, exit).  Not for other layers. */
#ifndef GASNETC_CORE_PRIVATE_H
#define GASNETC_CORE_PRIVATE_H

#include "core/gasnet_core_internal.h"

/* Computes the neighbourhood and host positions (core/base/job.h) from
 * every rank's host id and the PSHM neighbourhood. */
void gasnetc_positions_init(const uint64_t *host_of);

/* The token a handler receives (lives on the dispatcher's stack). */
struct gasneti_token_s {
    gex_Rank_t src;
    uint8_t is_req;
    uint8_t is_long;
    uint8_t replied;
    const gex_AM_Entry_t *entry;
    void *net; /* verbs connection the Request came on; NULL for PSHM */
    gex_EP_t ep;    /* receiving endpoint */
    uint8_t src_ep; /* sending endpoint's index (a Reply goes back to it) */
};

/* Endpoint indices of an outgoing AM (handlers.c): a Request on tm goes
 * from tm's endpoint to the one tm names at the peer; a Reply goes back to
 * the Request's sender. */
void gasnetc_am_route_eps(gasnetc_am_hdr_t *h, gex_TM_t tm, const char *fn);
void gasnetc_am_reply_eps(gasnetc_am_hdr_t *h, gex_Token_t token);

/* Runs the handler named by hdr (called by the transports' poll).  payload
 * is the Medium payload, or NULL for Short/Long (Long data is in place at
 * hdr->dest_addr). */
void gasnetc_am_deliver(const gasnetc_am_hdr_t *hdr, void *payload);
/* Same, for the verbs transport: net is the connection the AM came on (the
 * Reply goes back on it).  Returns 1 if a Request handler sent a Reply. */
int gasnetc_am_deliver_net(const gasnetc_am_hdr_t *hdr, void *payload, void *net);
/* The checked dispatcher behind both: names what is wrong with an AM the
 * registration does not accept; same return. */
int gasnetc_am_dispatch(const gasnetc_am_hdr_t *hdr, void *payload, void *net);

/* Validates a client's handler table entry and installs it. */
int gasnetc_handlers_register(gex_EP_t ep, gex_AM_Entry_t *table, size_t n, int internal);

/* ---- the ops tables the core calls through ---------------------------------- */
/* The network (verbs) and neighbour (PSHM) transports' AM entries
 * (core/base/transport.h) and the extended layer's services, installed by
 * core/init.c first thing in gex_Client_Init; nothing calls through them
 * before.  Defined in core/am_fpam.c. */
extern gasnetc_am_net_ops_t gasnetc_am_net;
extern gasnetc_am_nbr_ops_t gasnetc_am_nbr;
extern gasnetc_ext_ops_t gasnetc_ext;

/* ---- AM send paths shared by core/am_fpam.c and core/am_npam.c ---------------- */
/* Fills an AM header (src_rank = this rank, no dest_addr, no credits). */
void gasnetc_am_fill_hdr(gasnetc_am_hdr_t *h, unsigned category, int is_req,
                         gex_AM_Index_t handler, size_t nbytes, unsigned numargs,
                         const gex_AM_Arg_t *args);
/* Sends one AM (Short/Medium, or a Long already placed) to job rank dest:
 * PSHM for neighbours, verbs otherwise (net: a Reply's connection).  Waits
 * for space unless GEX_FLAG_IMMEDIATE; returns 0, or 1 when IMMEDIATE and
 * no space.  Handler-safe for Replies.  fn names the API call in errors. */
int gasnetc_am_send(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *payload,
                    size_t nbytes, gex_Flags_t flags, const char *fn);
/* The same to a neighbour other than this rank, through its shared PSHM
 * queue only (never a lane): the messages one sender sends this way are
 * delivered in order (Long fragments, then their header; core/pshm/README
 * "Lanes").  Blocking (waits for space). */
void gasnetc_am_send_fifo(gex_Rank_t dest, gasnetc_am_hdr_t *h, const void *payload,
                          size_t nbytes);
/* Sends a Long: checks dest_addr lies in dest's segment, places the payload
 * and sends the header.  Returns as gasnetc_am_send. */
int gasnetc_am_send_long(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *src,
                         size_t nbytes, void *dest_addr, gex_Flags_t flags, const char *fn);
/* Job rank of (tm, rank) for a Request; fatal on a bad team or rank. */
gex_Rank_t gasnetc_am_req_target(gex_TM_t tm, gex_Rank_t rank, const char *fn);
/* Source rank of a Request token, marking it replied; fatal outside a
 * Request handler or on a second Reply. */
gex_Rank_t gasnetc_am_reply_target(gex_Token_t token, const char *fn);
/* Reports local completion of a payload the transports have finished with. */
void gasnetc_am_set_lc_done(gex_Event_t *lc_opt);

/* Polling policy (core/poll.c): when idle polls yield the CPU. */
enum { GASNETC_POLL_YIELD_NEVER, GASNETC_POLL_YIELD_ALWAYS, GASNETC_POLL_YIELD_IDLE };
extern int gasnetc_poll_yield;
/* A new wait starts (e.g. for queue space after a send went through): the
 * idle polls of earlier waits do not count towards the yield. */
void gasnetc_poll_wait_begin(void);
/* One turn of a wait loop that does not poll (lock spin, reaping only):
 * the same idle policy as a poll that delivered `progressed` messages. */
void gasnetc_poll_idle(int progressed);
void gasnetc_poll_policy_init(unsigned local_procs);

/* Exit machinery (core/exit.c). */
void gasnetc_exit_init(void);
/* Called from the bootstrap's reader thread when the launcher asks us to
 * exit (another rank exited or died). */
void gasnetc_remote_exit_cb(int code);
/* Checked by every poll: runs the exit path if another rank asked for it. */
void gasnetc_exit_check(void);

/* Start-up and exit phase marks (core/phases.c): gasnetc_phase(name) notes
 * the wall-clock time at which the phase `name` ended (a string literal);
 * gasnetc_phase_report() prints them on stderr under GASNET_STARTUP_TIMES. */
void gasnetc_phase(const char *name);
void gasnetc_phase_report(void);

/* Largest segment this process may attach (computed at init). */
extern uintptr_t gasnetc_max_local_segment;
extern uintptr_t gasnetc_max_global_segment;

#endif /* GASNETC_CORE_PRIVATE_H */
