/* extended/legacy.c: the GASNet-1 calls of gasnet.h that are not simple
 * macros: init/attach, segment and node queries, gasnet_getenv, message
 * source, wait mode, split-phase value get and memset.  (The GASNet-1
 * barrier lives in extended/barrier.c.)
 */
#include "extended/extended_internal.h"

#include <gasnet.h>
#include <stdlib.h>

/* Client-settable segment limits and attach hook (gasnetex.h; honoured by
 * core/init.c). */
uintptr_t gasnet_max_segsize = 0;
const char *gasnet_max_segsize_str = NULL;
void (*gasnet_client_attach_hook)(void *segbase, uintptr_t segsize) = NULL;

/* ---- init / attach ----------------------------------------------------------------- */

int gasnet_init(int *argc, char ***argv)
{
    if (gasneti_init_done) {
        gasneti_warning("gasnet_init called twice (or after gex_Client_Init): GASNet can be "
                        "initialized only once per process");
        return GASNET_ERR_RESOURCE;
    }
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    return gex_Client_Init(&client, &ep, &tm, "GASNet1", argc, argv, GEX_FLAG_USES_GASNET1);
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset)
{
    if (!gasneti_init_done) {
        gasneti_warning("gasnet_attach called before gasnet_init");
        return GASNET_ERR_NOT_INIT;
    }
    if (gasneti_attach_done) {
        gasneti_warning("gasnet_attach called twice: the segment can be attached only once");
        return GASNET_ERR_RESOURCE;
    }
    if (numentries < 0 || (numentries > 0 && table == NULL)) {
        gasneti_warning("gasnet_attach: bad handler table (table=%p, numentries=%d)",
                        (void *)table, numentries);
        return GASNET_ERR_BAD_ARG;
    }
    gex_TM_t tm = gasneti_thunk_tm ? gasneti_thunk_tm : &gasneti_the_tm;
    if (numentries > 0) {
        gex_AM_Entry_t *entries = calloc((size_t)numentries, sizeof(*entries));
        if (!entries)
            gasneti_fatalerror("out of memory copying %d handler entries in gasnet_attach",
                               numentries);
        for (int i = 0; i < numentries; i++) {
            entries[i].gex_index = table[i].index;
            entries[i].gex_fnptr = (gex_AM_Fn_t)table[i].fnptr;
            entries[i].gex_flags = 0; /* 0 / 0: category and arity unspecified */
            entries[i].gex_nargs = 0;
        }
        int rc = gex_EP_RegisterHandlers(gex_TM_QueryEP(tm), entries, (size_t)numentries);
        for (int i = 0; i < numentries; i++) table[i].index = entries[i].gex_index;
        free(entries);
        if (rc != GASNET_OK) return rc;
    }
    gex_Segment_t seg;
    /* Handlers are registered before the attach's barrier, so no peer can
     * send to them too early. */
    return gex_Segment_Attach(&seg, tm, segsize);
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p)
{
    if (client_p) *client_p = gasneti_init_done ? &gasneti_the_client : GEX_CLIENT_INVALID;
    if (endpoint_p) *endpoint_p = gasneti_init_done ? &gasneti_the_ep : GEX_EP_INVALID;
    if (tm_p) *tm_p = gasneti_init_done ? &gasneti_the_tm : GEX_TM_INVALID;
    if (segment_p) *segment_p = gasneti_attach_done ? &gasneti_the_segment : GEX_SEGMENT_INVALID;
}

/* ---- queries ----------------------------------------------------------------------- */

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries)
{
    if (!gasneti_attach_done) return GASNET_ERR_NOT_INIT;
    if (numentries < 0 || (numentries > 0 && !seginfo_table)) return GASNET_ERR_BAD_ARG;
    gex_Rank_t n = (gex_Rank_t)numentries < gasneti_nodes ? (gex_Rank_t)numentries
                                                          : gasneti_nodes;
    for (gex_Rank_t r = 0; r < n; r++) {
        seginfo_table[r].addr = gasneti_seginfo[r].addr;
        seginfo_table[r].size = gasneti_seginfo[r].size;
    }
    return GASNET_OK;
}

/* host and neighbourhood ids of every rank (dense, 0-based), from init. */
static gasnet_node_t *gasnete_host_of, *gasnete_nbrhd_of;

void gasnete_legacy_init(void)
{
    gex_RankInfo_t *info;
    gex_Rank_t count, myidx;
    uint32_t mine[2];
    gex_System_QueryHostInfo(&info, &count, &myidx);
    mine[0] = info[0].gex_jobrank; /* lowest rank of my host */
    gex_System_QueryNbrhdInfo(&info, &count, &myidx);
    mine[1] = info[0].gex_jobrank; /* lowest rank of my neighbourhood */

    uint32_t *all = malloc(2 * sizeof(uint32_t) * gasneti_nodes);
    gasnete_host_of = malloc(sizeof(gasnet_node_t) * gasneti_nodes);
    gasnete_nbrhd_of = malloc(sizeof(gasnet_node_t) * gasneti_nodes);
    if (!all || !gasnete_host_of || !gasnete_nbrhd_of)
        gasneti_fatalerror("out of memory for the node table of %u ranks", (unsigned)gasneti_nodes);
    gasneti_boot->exchange(mine, sizeof(mine), all);
    /* A group's id = how many group leaders (rank == its group's lowest
     * rank) have a smaller rank than this group's leader. */
    gasnet_node_t nhosts = 0, nnbrhds = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) { /* leaders in rank order */
        if (all[2 * r] == r) gasnete_host_of[r] = nhosts++;
        if (all[2 * r + 1] == r) gasnete_nbrhd_of[r] = nnbrhds++;
    }
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        gasnete_host_of[r] = gasnete_host_of[all[2 * r]];
        gasnete_nbrhd_of[r] = gasnete_nbrhd_of[all[2 * r + 1]];
    }
    free(all);
}

int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries)
{
    if (!gasneti_init_done || !gasnete_host_of) return GASNET_ERR_NOT_INIT;
    if (numentries < 0 || (numentries > 0 && !nodeinfo_table)) return GASNET_ERR_BAD_ARG;
    gex_Rank_t n = (gex_Rank_t)numentries < gasneti_nodes ? (gex_Rank_t)numentries
                                                          : gasneti_nodes;
    for (gex_Rank_t r = 0; r < n; r++) {
        nodeinfo_table[r].host = gasnete_host_of[r];
        nodeinfo_table[r].supernode = gasnete_nbrhd_of[r];
        nodeinfo_table[r].offset = 0;
        nodeinfo_table[r].auxoffset = 0;
        if (gasneti_attach_done && gasnetc_is_local(r) && gasneti_seginfo[r].size) {
            void *local = gasnetc_local_addr(r, gasneti_seginfo[r].addr, 1);
            if (local)
                nodeinfo_table[r].offset =
                    (uintptr_t)local - (uintptr_t)gasneti_seginfo[r].addr;
        }
    }
    return GASNET_OK;
}

char *gasnet_getenv(const char *name)
{
    return name ? (char *)gasneti_getenv_raw(name) : NULL;
}

int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex)
{
    if (!token || !srcindex) return GASNET_ERR_BAD_ARG;
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    *srcindex = info.gex_srcrank;
    return GASNET_OK;
}

static int gasnete_waitmode = GASNET_WAIT_SPIN;

int gasnet_set_waitmode(int wait_mode)
{
    if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
        wait_mode != GASNET_WAIT_SPINBLOCK) {
        gasneti_warning("gasnet_set_waitmode(%d): unknown mode (use GASNET_WAIT_SPIN, "
                        "GASNET_WAIT_BLOCK or GASNET_WAIT_SPINBLOCK)",
                        wait_mode);
        return GASNET_ERR_BAD_ARG;
    }
    gasnete_waitmode = wait_mode; /* a hint: waits already yield when oversubscribed */
    return GASNET_OK;
}

/* ---- split-phase value get ----------------------------------------------------------- */

struct gasnete_valget_s {
    gex_Event_t ev;
    size_t nbytes;
    unsigned char buf[sizeof(gex_RMA_Value_t)];
    struct gasnete_valget_s *next;
};
static GASNETI_TLS struct gasnete_valget_s *gasnete_valget_free;

gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes)
{
    if (nbytes == 0 || nbytes > sizeof(gex_RMA_Value_t))
        gasneti_fatalerror("gasnet_get_nb_val: nbytes=%zu is out of range (1..%zu)", nbytes,
                           sizeof(gex_RMA_Value_t));
    struct gasnete_valget_s *v = gasnete_valget_free;
    if (v) {
        gasnete_valget_free = v->next;
    } else if (!(v = malloc(sizeof(*v)))) {
        gasneti_fatalerror("out of memory allocating a gasnet_valget_handle_t");
    }
    v->nbytes = nbytes;
    v->ev = gex_RMA_GetNB(gasneti_thunk_tm, v->buf, node, src, nbytes, 0);
    return v;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t v)
{
    if (!v) gasneti_fatalerror("gasnet_wait_syncnb_valget: handle is NULL");
    gex_Event_Wait(v->ev);
    gasnet_register_value_t value = gasnete_value_load(v->buf, v->nbytes);
    v->next = gasnete_valget_free;
    gasnete_valget_free = v;
    return value;
}

/* ---- memset ------------------------------------------------------------------------ */

void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gasnete_memset_blocking(gasneti_thunk_tm, node, dest, val, nbytes);
}

gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gasnete_memset_blocking(gasneti_thunk_tm, node, dest, val, nbytes);
    return GASNET_INVALID_HANDLE;
}

void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gasnete_memset_blocking(gasneti_thunk_tm, node, dest, val, nbytes);
}
