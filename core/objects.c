/* core/objects.c: the primordial client, endpoint, team and segment
 * objects (extended/team.c creates the other teams), their queries and
 * client-data slots, the system queries and the error-name tables. */
#include "core/gasnet_core_internal.h"
#include "core/gasnet_core_private.h"

#include <stdlib.h>
#include <string.h>

int gasneti_init_done = 0;
int gasneti_attach_done = 0;
int gasneti_ep0_bound = 0;
struct gasneti_client_s gasneti_the_client;
struct gasneti_ep_s gasneti_the_ep;
gex_EP_t gasneti_eps[GASNET_MAXEPS] = {&gasneti_the_ep};
struct gasneti_tm_s gasneti_the_tm;
struct gasneti_segment_s gasneti_the_segment;
gex_TM_t gasneti_thunk_tm = GEX_TM_INVALID;
static int verbose_errors = 1;

/* ---- errors ----------------------------------------------------------------- */
const char *gasnet_ErrorName(int errval)
{
    switch (errval) {
    case GASNET_OK: return "GASNET_OK";
    case GASNET_ERR_NOT_INIT: return "GASNET_ERR_NOT_INIT";
    case GASNET_ERR_RESOURCE: return "GASNET_ERR_RESOURCE";
    case GASNET_ERR_BAD_ARG: return "GASNET_ERR_BAD_ARG";
    case GASNET_ERR_NOT_READY: return "GASNET_ERR_NOT_READY";
    case GASNET_ERR_BARRIER_MISMATCH: return "GASNET_ERR_BARRIER_MISMATCH";
    default: return "*unknown*";
    }
}

const char *gasnet_ErrorDesc(int errval)
{
    switch (errval) {
    case GASNET_OK: return "No error";
    case GASNET_ERR_NOT_INIT: return "GASNet message layer not initialized";
    case GASNET_ERR_RESOURCE: return "Problem with requested resource";
    case GASNET_ERR_BAD_ARG: return "Bad argument to function call";
    case GASNET_ERR_NOT_READY: return "Non-blocking operation not complete";
    case GASNET_ERR_BARRIER_MISMATCH: return "Barrier id's mismatched";
    default: return "no description available";
    }
}

/* ---- object queries ------------------------------------------------------------ */
gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg) { return seg->client; }
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg) { return seg->flags; }
void *gex_Segment_QueryAddr(gex_Segment_t seg) { return seg->addr; }
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg) { return seg->size; }
gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return ep->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return ep->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return ep->segment; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return ep->index; }
const char *gex_Client_QueryName(gex_Client_t client) { return client->name; }
gex_Flags_t gex_Client_QueryFlags(gex_Client_t client) { return client->flags; }
gex_Client_t gex_TM_QueryClient(gex_TM_t tm) { return tm->ep->client; }
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) { return tm->ep; }
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) { return tm->flags; }
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) { return tm->rank; }
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) { return tm->size; }

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank)
{
    return rank < tm->size ? gasnetc_tm_to_jobrank(tm, rank) : GEX_RANK_INVALID;
}

/* gex_TM_TranslateJobrankToRank: extended/team.c (teams own the reverse map). */

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags)
{
    gex_EP_Location_t loc;
    (void)flags;
    loc.gex_rank = gex_TM_TranslateRankToJobrank(tm, rank);
    loc.gex_ep_index = 0; /* team members are primordial endpoints */
    return loc;
}

void gex_Client_SetCData(gex_Client_t c, const void *cdata) { c->cdata = (void *)cdata; }
void *gex_Client_QueryCData(gex_Client_t c) { return c->cdata; }
void gex_Segment_SetCData(gex_Segment_t s, const void *cdata) { s->cdata = (void *)cdata; }
void *gex_Segment_QueryCData(gex_Segment_t s) { return s->cdata; }
void gex_TM_SetCData(gex_TM_t tm, const void *cdata) { tm->cdata = (void *)cdata; }
void *gex_TM_QueryCData(gex_TM_t tm) { return tm->cdata; }
void gex_EP_SetCData(gex_EP_t ep, const void *cdata) { ep->cdata = (void *)cdata; }
void *gex_EP_QueryCData(gex_EP_t ep) { return ep->cdata; }

/* gex_Segment_QueryBound, gex_EP_QueryBoundSegmentNB: extended/ep.c (any endpoint). */

/* ---- system queries ------------------------------------------------------------ */
gex_Rank_t gex_System_QueryJobRank(void) { return gasneti_mynode; }
gex_Rank_t gex_System_QueryJobSize(void) { return gasneti_nodes; }
int gex_System_GetVerboseErrors(void) { return verbose_errors; }
void gex_System_SetVerboseErrors(int enable) { verbose_errors = enable; }
int gex_System_QueryHiddenAMConcurrencyLevel(void) { return GASNET_HIDDEN_AM_CONCURRENCY_LEVEL; }

uint64_t gex_System_QueryMaxThreads(void) { return GASNETI_MAX_THREADS; }

/* The progress threads the client must run itself: those of a client
 * initialized with GEX_FLAG_DEFER_THREADS (core/ibv/wr/progress.c).  Without
 * the flag the library started (and owns) its threads, and the client has
 * none to run: 0 entries. */
int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags)
{
    (void)flags;
    if (!count_p || !info_p) return GASNET_ERR_BAD_ARG;
    *count_p = 0;
    *info_p = NULL;
    if (!client || client != &gasneti_the_client) return GASNET_ERR_BAD_ARG;
    if (client->flags & GEX_FLAG_DEFER_THREADS) {
        const void *v = NULL;
        gasnetc_am_net.query_threads(count_p, &v);
        *info_p = v;
    }
    return GASNET_OK;
}

void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p)
{
    if (info_p) *info_p = gasnetc_nbrhd_info;
    if (info_count_p) *info_count_p = gasnetc_nbrhd_count;
    if (my_info_index_p) *my_info_index_p = gasnetc_nbrhd_myidx;
}

void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p)
{
    if (info_p) *info_p = gasnetc_host_info;
    if (info_count_p) *info_count_p = gasnetc_host_count;
    if (my_info_index_p) *my_info_index_p = gasnetc_host_myidx;
}

void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank)
{
    if (nbrhd_set_size) *nbrhd_set_size = gasnetc_nbrhd_sets;
    if (nbrhd_set_rank) *nbrhd_set_rank = gasnetc_nbrhd_set_rank;
    if (host_set_size) *host_set_size = gasnetc_host_sets;
    if (host_set_rank) *host_set_rank = gasnetc_host_set_rank;
}
