/* extended/team.h: the extended layer's per-team state and the team
 * registry (extended/team.c), shared by barrier.c and coll.c.
 *
 * Every team that allows collectives (all but TM-pairs) owns one
 * gasnete_team_s: its barrier engine and the sequence number of its next
 * data collective, so that teams progress independently.  Messages name a
 * team by its id (gasneti_tm_s.id); the registry maps ids to the live
 * teams of this process.  Design: extended/README, "Teams".
 */
#ifndef GASNETE_TEAM_H
#define GASNETE_TEAM_H

#include "extended/extended_internal.h"
#include "extended/barrier.h"

struct gasnete_team_s {
    gasnete_bar_t bar;
    uint32_t coll_seq;           /* next data-collective sequence number */
    int refs;                    /* barrier progress passes using it (registry lock) */
    void *scratch_addr;          /* granted at creation, returned by destroy */
    size_t scratch_size;
    gex_TM_t tm;
    gasnete_op_t *g1op;          /* GASNet-1 barrier between notify and wait */
    int g1_prev_flags, g1_prev_id; /* for gasnet_barrier_result */
    struct gasnete_team_s *next; /* registry link */
};

/* Sets up the primordial team's state and registers it (gasnete_init). */
void gasnete_team_init(void);

/* Runs fn(team, arg) under the registry lock on the team with id; returns
 * 0, or -1 when no live team has that id.  fn must not send or poll.
 * Handler-safe. */
int gasnete_team_with_id(uint32_t id, void (*fn)(struct gasnete_team_s *, void *), void *arg);

/* Calls fn(team) for every registered team whose barrier engine has
 * barriers outstanding, without the registry lock held (fn may send);
 * destroy waits for such calls to end.  Not handler-safe. */
void gasnete_team_each_busy(void (*fn)(struct gasnete_team_s *));

/* The team rank of jobrank in tm, or GEX_RANK_INVALID.  Handler-safe. */
gex_Rank_t gasnete_team_rank_of(gex_TM_t tm, gex_Rank_t jobrank);

/* The team state of tm for collective call fn; fatal (one line naming fn)
 * for GEX_TM_INVALID, a TM-pair, before init or in an AM handler. */
struct gasnete_team_s *gasnete_team_for_coll(gex_TM_t tm, const char *fn);

/* Collective over tm, blocking: every member's nbytes at src land in dst
 * at offset rank * nbytes (coll.c).  Used to create teams. */
void gasnete_coll_allgather(gex_TM_t tm, void *dst, const void *src, size_t nbytes);

#endif /* GASNETE_TEAM_H */
