/* core/ibv/mem/odp.c: on-demand paging (seed README "On-Demand Paging (ODP)
 * Support").  With ODP the HCA resolves pages itself when they are accessed,
 * so a registration pins nothing: firehose's pins become cheap and do not
 * count against RLIMIT_MEMLOCK.  Used when GASNET_USE_ODP=1 (default) and
 * every HCA of the process reports RC ODP for send, receive, RDMA write and
 * RDMA read; never when configure ran with --disable-ibv-odp or found no
 * ODP support in libibverbs (then GASNET_USE_ODP is ignored).  A process
 * that cannot use ODP pins memory instead.  The job warns once (rank 0,
 * GASNET_ODP_VERBOSE=1: how many processes) when that happens despite the
 * hardware or the user expecting ODP: an NVIDIA/Mellanox mlx5 HCA (the seed
 * README's ConnectX-4 and newer) or GASNET_USE_ODP set explicitly; devices
 * that never have it (e.g. rxe before Linux 6.9) stay silent unless
 * GASNET_ODP_VERBOSE=2, which makes every such process name its HCA and the
 * missing capabilities.
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/mem/fh_ibv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int odp_access = 0;

int gasnetc_ibv_odp_access(void) { return odp_access; }

#if GASNETC_IBV_ODP
/* 1 if hca supports RC ODP for everything we do; else 0 and what lacks in why. */
static int hca_has_odp(gasnetc_ibv_hca_t *hca, char *why, size_t len)
{
    struct ibv_device_attr_ex ax;
    memset(&ax, 0, sizeof ax);
    if (ibv_query_device_ex(hca->ctx, NULL, &ax) != 0) {
        snprintf(why, len, "%s: ibv_query_device_ex failed", hca->name);
        return 0;
    }
    uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
                    IBV_ODP_SUPPORT_READ;
    uint32_t rc = ax.odp_caps.per_transport_caps.rc_odp_caps;
    if (!(ax.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
        snprintf(why, len, "%s: no ODP support (general_caps 0x%llx)", hca->name,
                 (unsigned long long)ax.odp_caps.general_caps);
        return 0;
    }
    if ((rc & need) != need) {
        snprintf(why, len, "%s: RC ODP lacks%s%s%s%s", hca->name,
                 rc & IBV_ODP_SUPPORT_SEND ? "" : " send", rc & IBV_ODP_SUPPORT_RECV ? "" : " recv",
                 rc & IBV_ODP_SUPPORT_WRITE ? "" : " write",
                 rc & IBV_ODP_SUPPORT_READ ? "" : " read");
        return 0;
    }
    return 1;
}
#endif

void gasnetc_ibv_odp_init(int active)
{
#if GASNETC_IBV_ODP
    if (!GASNETI_PARAM_BOOL(GASNET_USE_ODP)) return; /* the same on every rank */
    char why[200] = "";
    int32_t lacks = 0; /* 1: lacks ODP; 2: and it is worth a warning */
    if (active) {
        int expected = gasneti_param_isset(GASNETI_PARAM_GASNET_USE_ODP);
        for (int h = 0; h < gasnetc_ibv.nres && !lacks; h++) {
            gasnetc_ibv_hca_t *hca = gasnetc_ibv.res[h].hca;
            expected |= strncmp(hca->name, "mlx5", 4) == 0;
            lacks = !hca_has_odp(hca, why, sizeof why);
        }
        if (!lacks) odp_access = IBV_ACCESS_ON_DEMAND;
        else if (expected) lacks = 2;
    }
    int64_t verbose = GASNETI_PARAM_INT(GASNET_ODP_VERBOSE);
    int32_t *all = calloc(gasneti_nodes, sizeof *all);
    if (!all) gasneti_fatalerror("out of memory at attach");
    gasneti_boot->exchange(&lacks, sizeof lacks, all);
    unsigned n = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) n += all[r] == 2;
    free(all);
    if (verbose >= 2 && lacks)
        gasneti_warning("GASNET_USE_ODP: no on-demand paging here (%s): memory is pinned instead",
                        why);
    if (verbose >= 1 && n && gasneti_mynode == 0)
        gasneti_warning("GASNET_USE_ODP: %u of %u processes lack on-demand paging support and pin "
                        "memory instead (GASNET_ODP_VERBOSE=2 says why, =0 silences this; "
                        "configure --disable-ibv-odp if no node has it)",
                        n, (unsigned)gasneti_nodes);
#else
    (void)active;
#endif
}
