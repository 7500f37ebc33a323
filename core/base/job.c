/* core/base/job.c: the job state of core/base/job.h. */
#include "core/base/job.h"

gex_Rank_t gasneti_mynode = 0;
gex_Rank_t gasneti_nodes = 0;
const gasneti_bootstrap_ops_t *gasneti_boot = NULL;
char gasneti_hostname[64] = "unknown";
gasneti_seginfo_t *gasneti_seginfo = NULL;

gex_RankInfo_t *gasnetc_nbrhd_info, *gasnetc_host_info;
gex_Rank_t gasnetc_nbrhd_count, gasnetc_nbrhd_myidx;
gex_Rank_t gasnetc_host_count, gasnetc_host_myidx;
gex_Rank_t gasnetc_nbrhd_sets, gasnetc_nbrhd_set_rank;
gex_Rank_t gasnetc_host_sets, gasnetc_host_set_rank;

int gasneti_exit_claimed = 0;
GASNETI_TLS int gasneti_handler_depth = 0;
