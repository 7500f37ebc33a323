/* core/ibv/ports/ports_probe.h: private to core/ibv.  What the discovery step
 * found (every HCA and port, with its addressing and the reason it is
 * unusable, if it is), shared by ports.c (discovery, selection, opening) and
 * ports_report.c (GASNET_IBV_LIST_PORTS, warnings, error summaries).
 *
 * Thread safety: the init path only.  Not for AM handlers.
 */
#ifndef GASNETC_IBV_PORTS_PROBE_H
#define GASNETC_IBV_PORTS_PROBE_H

#include <infiniband/verbs.h>

#include "core/ibv/ibv.h"

#define GASNETC_IBV_WHY_MAX 200

/* One valid (non-zero) GID table entry. */
typedef struct {
    int index;
    int type; /* GASNETC_IBV_GID_TYPE_* */
    uint8_t raw[16];
} gasnetc_ibv_gident_t;

typedef struct {
    struct ibv_device *dev;
    struct ibv_context *ctx; /* NULL: not opened (filtered out, or failed) */
    struct ibv_device_attr attr;
    char name[GASNETC_IBV_HCA_NAME_MAX];
    char path[IBV_SYSFS_PATH_MAX]; /* sysfs directory of the device */
    int near;                      /* hwloc locality, as in gasnetc_ibv_cand_t */
} gasnetc_ibv_probe_hca_t;

typedef struct {
    int hca;                  /* index into gasnetc_ibv_probe_t.hcas */
    int queried;              /* pa is valid */
    struct ibv_port_attr pa;  /* from ibv_query_port() */
    gasnetc_ibv_port_t info;  /* addressing chosen for the port (hca unset) */
    int ngids;                /* valid GIDs found (filled for RoCE, and when listing) */
    gasnetc_ibv_gident_t *gids;
    char why[GASNETC_IBV_WHY_MAX]; /* unusable: the reason, else "" */
} gasnetc_ibv_probe_port_t;

typedef struct {
    int nhcas;
    gasnetc_ibv_probe_hca_t *hcas;
    int nrows; /* one row per port, or per HCA that could not be queried */
    gasnetc_ibv_probe_port_t *rows;
    gasnetc_ibv_cand_t *cand;     /* selection rows, parallel to rows */
    char devlist_err[GASNETC_IBV_WHY_MAX]; /* why there is no device at all, or "" */
    const char *ports_var;  /* "GASNET_IBV_PORTS" or "GASNET_IBV_PORTS_<n>" */
    const char *ports_text; /* the filter in effect, "" for none */
    int max_hcas;           /* the build's limit (GASNETC_IBV_MAX_HCAS) */
    int num_qps;            /* GASNET_NUM_QPS */
} gasnetc_ibv_probe_t;

/* GASNET_IBV_LIST_PORTS output for this rank: every HCA, port, link layer,
 * state, LID, MTU, P_Key, GIDs and the verdict.  Lines go through
 * gasneti_info(), prefixed by the rank. */
void gasnetc_ibv_report_list(const gasnetc_ibv_probe_t *pr, uint32_t rank);

/* GASNET_IBV_PORTS_VERBOSE >= 1 warnings: HCAs left out by the build's HCA
 * limit, and HCAs/ports that matched the filter but are unusable. */
void gasnetc_ibv_report_warnings(const gasnetc_ibv_probe_t *pr);

/* One-line summary of what was found and why each port was rejected, for
 * the fatal error and the PSHM-only note.  Returns buf. */
const char *gasnetc_ibv_report_summary(const gasnetc_ibv_probe_t *pr, char *buf, size_t len);

/* The selection of this rank, one line per port (GASNET_IBV_PORTS_VERBOSE >= 2). */
void gasnetc_ibv_report_selection(const gasnetc_ibv_port_t *ports, int nports, uint32_t rank);

#endif /* GASNETC_IBV_PORTS_PROBE_H */
