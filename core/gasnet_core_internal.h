/* core/gasnet_core_internal.h: state and services the core offers to the
 * layers above it (the extended API, diag/).  The transports below it see
 * only core/base.  Not installed.
 *
 * Ownership: core/ (init.c, am_fpam.c, am_npam.c, handlers.c, poll.c, exit.c,
 * objects.c).
 */
#ifndef GASNETC_CORE_INTERNAL_H
#define GASNETC_CORE_INTERNAL_H

/* The job state every layer shares (rank, size, bootstrap, segments, exit
 * and handler state) and the includes every file of the library needs. */
#include "core/base/job.h"
#include "core/base/transport.h"

/* ---- the single client, endpoint, team and segment of this release ------- */
struct gasneti_client_s {
    const char *name;
    gex_Flags_t flags;
    void *cdata;
};
struct gasneti_segment_s {
    gex_Client_t client;
    void *addr;
    uintptr_t size;
    gex_Flags_t flags;
    void *cdata;
    gex_MK_t kind;
    int owned;    /* 1: the library allocated addr (gex_Segment_Create) */
    gex_EP_t ep;  /* the endpoint it is bound to, if any */
    void *net_reg; /* its verbs registration (core/ibv/mem/cseg.c), if published */
    uint32_t pshm_serial; /* non-zero: shared with neighbours (object serial + 1) */
};
struct gasneti_ep_s {
    gex_Client_t client;
    gex_Segment_t segment;
    gex_Flags_t flags;
    void *cdata;
    gex_EP_Index_t index;        /* 0: primordial (extended/ep.c creates the others) */
    gex_EP_Capabilities_t caps;
    gex_AM_Entry_t handlers[256]; /* gex_fnptr NULL = unregistered */
};
/* A team (extended/team.c creates and destroys all but the primordial one).
 * jobranks: team rank -> jobrank, NULL for the identity (primordial team
 * and TM-pairs).  by_jobrank: (jobrank, rank) pairs sorted by jobrank for
 * the reverse translation.  id: the team's name in messages, unique among
 * the live teams of each member (0: primordial).  coll: the extended
 * layer's state (barrier engine, collective sequence); NULL for TM-pairs,
 * which allow no collectives. */
struct gasneti_tm_s {
    gex_EP_t ep;
    gex_Rank_t rank, size;
    gex_Flags_t flags;
    void *cdata;
    const gex_Rank_t *jobranks;
    const gex_Rank_t (*by_jobrank)[2];
    uint32_t id;
    int is_pair;
    gex_EP_Index_t pair_ep_idx; /* TM-pairs: the remote endpoint index */
    struct gasnete_team_s *coll;
};

extern int gasneti_init_done;      /* gex_Client_Init finished */
extern int gasneti_attach_done;    /* gex_Segment_Attach finished */
/* The primordial endpoint's segment is a created one, bound with
 * gex_EP_BindSegment instead of gex_Segment_Attach: RMA and Longs on the
 * primordial endpoint then take the created-segment paths, with endpoint
 * index 0 (extended/ep.c, ep_rma.c). */
extern int gasneti_ep0_bound;
extern struct gasneti_client_s gasneti_the_client;
extern struct gasneti_ep_s gasneti_the_ep;
extern struct gasneti_tm_s gasneti_the_tm;
extern struct gasneti_segment_s gasneti_the_segment;
/* The primordial team, for the GASNet-1 legacy layer (gasnet.h). */
extern gex_TM_t gasneti_thunk_tm;

/* Routing: 1 if rank is reached through shared memory (self included). */
int gasnetc_is_local(gex_Rank_t rank);
/* Where this process can touch [addr, addr+len) of local rank's segment;
 * NULL if out of that segment. */
void *gasnetc_local_addr(gex_Rank_t rank, const void *addr, size_t len);
/* 1 if [addr, addr+len) lies in rank's segment (as the owner sees it). */
int gasnetc_in_segment(gex_Rank_t rank, const void *addr, size_t len);
/* 1 if an incoming Long's [dest_addr, +nbytes) lies in the segment bound to
 * its destination endpoint here (core/handlers.c; endpoint 0: the
 * primordial segment).  Handler-safe, no locks. */
int gasnetc_am_long_dest_ok(const gasnetc_am_hdr_t *h);

/* This process's endpoints by index (0: primordial; NULL: none yet).
 * Entries are written once, before any message can name them. */
extern gex_EP_t gasneti_eps[GASNET_MAXEPS];

/* Translates a team rank (primordial team and TM-pairs: identity).  The
 * caller has checked rank < tm->size. */
static inline gex_Rank_t gasnetc_tm_to_jobrank(gex_TM_t tm, gex_Rank_t rank)
{
    return tm->jobranks ? tm->jobranks[rank] : rank;
}

/* ---- AM handler indices ------------------------------------------------- */
/* 0 is never used; 1..63 core, 64..95 extended, 96..127 firehose and later
 * services; 128..255 clients (GEX_AM_INDEX_BASE). */
#define GASNETC_HANDLER_BASE 1
/* Core index 1 (GASNETC_HANDLER_CREDIT_ONLY, core/base/transport.h) is the
 * verbs transport's hidden credit-only Reply. */
#define GASNETE_HANDLER_BASE 64
#define GASNETI_FH_HANDLER_BASE 96
/* Registers library-internal handlers (indices < 128, given in the entries).
 * Call before gex_Client_Init returns (extended: from gasnete_init). */
void gasnetc_register_internal_handlers(const gex_AM_Entry_t *table, size_t n);
/* From an internal Request handler (token): runs the client's 0-argument
 * Medium Reply handler e with a token of its own, which gex_Token_Info
 * reports as a Reply from the same sender (VIS peer completion). */
void gasnetc_run_as_reply(gex_Token_t token, const gex_AM_Entry_t *e, void *buf, size_t nbytes);

/* ---- progress ------------------------------------------------------------- */
/* Polls every transport once; runs handlers.  Not from handler context. */
void gasnetc_poll(void);
/* Polls while a Reply waits for queue space (only replies are delivered). */
void gasnetc_poll_replies(void);

/* ---- what the core needs from the extended layer ---------------------------- */
/* extended/hooks.c fills gasnete_core_ops; core/init.c installs it as
 * gasnetc_ext at the start of gex_Client_Init. */
typedef struct gasnetc_ext_ops {
    /* Once at the end of gex_Client_Init (bootstrap, PSHM and verbs up),
     * before the implicit barrier. */
    void (*init)(void);
    /* Every gasnetc_poll: progress of outstanding extended operations. */
    void (*progress)(void);
    /* Asynchronous local completion of a Request over the network
     * (core/am_fpam.c): lc_opt = &event gets a fresh NB event whose op counter
     * goes in *cmpl; GEX_EVENT_GROUP puts the calling thread's current NBI
     * set (category GEX_EC_AM) in *cmpl; discard recycles an event from
     * am_lc_event that the client never saw.  Lock-free; initiating
     * thread. */
    gex_Event_t (*am_lc_event)(gasnete_cmpl_t *cmpl);
    void (*am_lc_group)(gasnete_cmpl_t *cmpl);
    void (*am_lc_discard)(gex_Event_t ev);
    /* A Long to a created segment: h->dst_ep > 0, or the primordial
     * endpoint bound with gex_EP_BindSegment (extended/ep_rma.c; as
     * gasnetc_am_send_long). */
    int (*ep_am_send_long)(gex_Rank_t dest, void *net, gasnetc_am_hdr_t *h, const void *src,
                           size_t nbytes, void *dest_addr, gex_Flags_t flags, const char *fn);
} gasnetc_ext_ops_t;

/* ---- exit --------------------------------------------------------------------- */
/* Ends the job with exitcode from any context (fatal errors, signals). */
void gasnetc_fatal_exit(int exitcode) __attribute__((__noreturn__));

#endif /* GASNETC_CORE_INTERNAL_H */
