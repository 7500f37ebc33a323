/* gasnet_ex_tm.h: teams, endpoints, segments and memory kinds beyond the
 * primordial ones (GASNet-EX specification, "Teams", "Endpoints",
 * "Segments").  Included by gasnetex.h; not meant to be included directly.
 */
#ifndef GASNET_EX_TM_H
#define GASNET_EX_TM_H

GASNETI_BEGIN_EXTERNC

/* Creates an endpoint of this process (not collective) with the given
 * capabilities (GEX_EP_CAPABILITY_*); its index is the next free one (1,
 * 2, ... in creation order, up to GASNET_MAXEPS-1).  It has no segment and
 * no handlers until gex_EP_BindSegment / gex_EP_RegisterHandlers.  Peers
 * reach it with gex_TM_Pair(their_ep, index). */
extern int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client,
                         gex_EP_Capabilities_t capabilities, gex_Flags_t flags);

/* Collective over tm: publishes the bound segments of eps[0..num_eps) so
 * that every caller may address them (RMA through TM-pairs). */
extern int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps,
                                      gex_Flags_t flags);

/* Collective over parent_tm: callers with non-NULL new_tm_p and the same
 * non-negative color form one new team, ranked by key, ties by parent rank
 * (a negative color joins no team: *new_tm_p gets GEX_TM_INVALID).  With a
 * GEX_FLAG_TM_SCRATCH_SIZE_* flag it only returns the scratch size to pass
 * (0 for callers that join no team).  Ends with a barrier over parent_tm. */
extern size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                           void *scratch_addr, size_t scratch_size, gex_Flags_t flags);

/* Collective over parent_tm: creates zero or more disjoint teams, at most
 * one per caller.  A caller with numargs > 0 names the members of the team
 * it creates in rank order (parent ranks, or jobranks with
 * GEX_FLAG_RANK_IS_JOBRANK; endpoint index 0, as in GASNet-EX); callers of
 * one team pass the same list; a caller need not be in the list it names.
 * num_new_tms must equal the number of this process's endpoints in args
 * (0 or 1); new_tms[0] receives our team.  Scratch: one of
 * GEX_FLAG_TM_{SYMMETRIC,LOCAL,GLOBAL,NO}_SCRATCH (none given: LOCAL) picks
 * scratch_addrs[0], scratch_addrs[0], scratch_addrs[our team rank] or
 * nothing; GEX_FLAG_SCRATCH_SEG_OFFSET makes them segment offsets.
 * Scratch-size queries as for gex_TM_Split.  Ends with a barrier over
 * parent_tm. */
extern size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                            gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                            size_t scratch_size, gex_Flags_t flags);

/* Collective over tm (not the primordial team, not a TM-pair): destroys it
 * after a barrier (skipped with GEX_FLAG_GLOBALLY_QUIESCED).  *scratch_p
 * (if non-NULL) receives the scratch space given at creation, if one was
 * (as a segment offset with GEX_FLAG_SCRATCH_SEG_OFFSET); returns non-zero
 * when it was written. */
extern int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);

/* A TM-pair: names local_ep and, as rank r, the endpoint of index
 * remote_ep_index on jobrank r.  Point-to-point only (no collectives),
 * never destroyed, free to call per operation. */
extern gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);

GASNETI_END_EXTERNC

#endif /* GASNET_EX_TM_H */
