/* core/ibv/ports/ports_select.h: the HCA/port selection policy, as a pure function
 * over a table of candidates.  core/ibv/ports/ports.c fills the table from verbs
 * (and hwloc), calls gasnetc_ibv_select(), then opens what was chosen; the
 * unit test tests/unit/test-ibv-select.c feeds made-up machines.
 *
 * The rules (also in core/ibv/ports/README, "Selection rules"):
 *  1. GASNET_IBV_PORTS is a filter: an HCA it does not name, or a port not in
 *     the HCA's port list, is out (silently).  An empty filter admits all.
 *  2. Inactive ports and ports that cannot be addressed (P_Key missing, no
 *     usable GID, query failed) are out.
 *  3. An HCA named without a port list (or any HCA, with no filter) gives
 *     only its first remaining port; listed ports are all used.
 *  4. One link layer per process: if any port left is InfiniBand, Ethernet
 *     (RoCE) ports are out.  Every process must make the same choice.
 *  5. HCAs are taken in detection order, except that a process bound to one
 *     socket takes the HCAs near that socket first (hwloc); at most
 *     max_hcas HCAs, and at most num_qps ports when num_qps > 0.
 *  6. The chosen ports are numbered in detection order.
 *
 * Thread safety: pure; control path only, not for AM handlers.
 */
#ifndef GASNETC_IBV_PORTS_SELECT_H
#define GASNETC_IBV_PORTS_SELECT_H

#include "core/ibv/ports/ports_parse.h"

#define GASNETC_IBV_LINK_IB 1  /* InfiniBand: LID addressing */
#define GASNETC_IBV_LINK_ETH 2 /* Ethernet (RoCE): GID addressing, GRH required */

/* Verdicts, one per candidate.  X-macro: the enum and the printable table. */
#define GASNETC_IBV_VERDICTS(X)                                                    \
    X(SELECTED, "selected")                                                        \
    X(FILTERED, "not matched by GASNET_IBV_PORTS")                                 \
    X(UNUSABLE, "unusable")                                                        \
    X(INACTIVE, "port not ACTIVE")                                                 \
    X(EXTRA_PORT, "not the HCA's first active port (list ports in GASNET_IBV_PORTS to use more)") \
    X(LINK_LAYER, "Ethernet port skipped because InfiniBand ports are present")    \
    X(MAX_HCAS, "HCA limit of this build reached (--with-ibv-max-hcas)")          \
    X(NUM_QPS, "port limit GASNET_NUM_QPS reached")

typedef enum {
#define GASNETC_IBV_VERDICT_ENUM(name, text) GASNETC_IBV_V_##name,
    GASNETC_IBV_VERDICTS(GASNETC_IBV_VERDICT_ENUM)
#undef GASNETC_IBV_VERDICT_ENUM
    GASNETC_IBV_V_COUNT
} gasnetc_ibv_verdict_t;

/* One port of one HCA (port 0: the whole HCA, when it could not be opened or
 * queried; such a row always has unusable set).  Rows are in detection order:
 * HCAs as ibv_get_device_list() returned them, ports ascending. */
typedef struct {
    /* inputs */
    const char *hca; /* device name */
    int port;        /* 1..N, or 0 for the HCA itself */
    int active;      /* port state is ACTIVE */
    int link_layer;  /* GASNETC_IBV_LINK_IB / _ETH */
    int unusable;    /* 1: cannot be used; the caller knows why */
    int near;        /* hwloc: 1 near the bound socket, 0 far, -1 unknown */
    /* outputs */
    gasnetc_ibv_verdict_t verdict;
    int order; /* 0.. among selected rows (detection order), else -1 */
} gasnetc_ibv_cand_t;

/* Applies the rules above to rows c[0..n-1] (spec may be NULL or empty;
 * max_hcas >= 1; num_qps 0 = no port limit).  Sets every row's verdict and
 * order; returns the number selected. */
int gasnetc_ibv_select(gasnetc_ibv_cand_t *c, int n, const gasnetc_ibv_portspec_t *spec,
                       int max_hcas, int num_qps);

/* Printable reason for a verdict (static text). */
const char *gasnetc_ibv_verdict_str(gasnetc_ibv_verdict_t v);

#endif /* GASNETC_IBV_PORTS_SELECT_H */
