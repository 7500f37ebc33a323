/* core/ibv/ports/ports.c: HCA and port discovery, selection and opening (the
 * entry points of ibv.h).  The policy itself is the pure gasnetc_ibv_select()
 * (ports_select.c); this file turns verbs answers into its candidate rows,
 * chooses each port's addressing (P_Key, LID or GID, MTU) and keeps the HCAs
 * that were chosen open.  Messages and listings live in ports_report.c.
 */
#include "build-config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "core/ibv/ports/ports_probe.h"
#include "core/ibv/ports/topo.h"
#include "other/log/log.h"
#include "other/param/param.h"

#ifndef GASNETC_IBV_MAX_HCAS
#define GASNETC_IBV_MAX_HCAS 1
#endif
#ifndef GASNETC_IBV_PORTS_DEFAULT
#define GASNETC_IBV_PORTS_DEFAULT ""
#endif

static gasnetc_ibv_hca_t *sel_hcas; /* the opened HCAs (selected ones only) */
static int sel_nhcas;
static int sel_nports;
static int sel_qps;

/* ---- parameters -------------------------------------------------------------- */

typedef struct {
    gasnetc_ibv_portspec_t spec;
    char ports_var[48];
    const char *ports_text;
    int num_qps, verbose, list;
    int pkey; /* 15-bit key, or -1 for "table index 0" */
    int64_t max_mtu;
} ports_params_t;

static void read_params(ports_params_t *pp, uint32_t rank)
{
    char err[GASNETC_IBV_WHY_MAX];
    const char *plain = gasneti_param_str(GASNETI_PARAM_GASNET_IBV_PORTS);
    const char *text = plain;
    int sock = gasnetc_ibv_topo_socket();

    snprintf(pp->ports_var, sizeof(pp->ports_var), "%s", gasneti_param_name(GASNETI_PARAM_GASNET_IBV_PORTS));
    if (sock >= 0) {
        text = gasneti_param_family_str(GASNETI_PARAM_GASNET_IBV_PORTS, (unsigned)sock);
        if (text && (!plain || strcmp(text, plain)))
            snprintf(pp->ports_var, sizeof(pp->ports_var), "%s_%d",
                     gasneti_param_name(GASNETI_PARAM_GASNET_IBV_PORTS), sock);
    }
    if (!text || !*text) text = GASNETC_IBV_PORTS_DEFAULT;
    pp->ports_text = text;
    if (gasnetc_ibv_portspec_parse(text, &pp->spec, err, sizeof(err)) != 0)
        gasneti_fatalerror("%s='%s' is not a valid port filter: %s (syntax: HCA[:PORT[,PORT...]]"
                           "[+HCA...], e.g. mlx5_0+mlx5_1:2)", pp->ports_var, text, err);

    pp->num_qps = (int)GASNETI_PARAM_INT(GASNET_NUM_QPS);
    if (pp->num_qps < 0)
        gasneti_fatalerror("GASNET_NUM_QPS=%d is out of range: use 0 (one QP per port) or a "
                           "positive number of QPs per peer", pp->num_qps);
    pp->verbose = (int)GASNETI_PARAM_INT(GASNET_IBV_PORTS_VERBOSE);
    pp->list = GASNETI_PARAM_BOOL(GASNET_IBV_LIST_PORTS);
    if (gasnetc_ibv_nodelist_match(GASNETI_PARAM_STR(GASNET_IBV_LIST_PORTS_NODES), rank, err,
                                   sizeof(err)) < 0)
        gasneti_fatalerror("GASNET_IBV_LIST_PORTS_NODES: %s", err);
    if (pp->list)
        pp->list = gasnetc_ibv_nodelist_match(GASNETI_PARAM_STR(GASNET_IBV_LIST_PORTS_NODES), rank,
                                              NULL, 0) == 1;
    pp->pkey = -1; /* 0 (the default) = the key at table index 0 */
    if (GASNETI_PARAM_INT(GASNET_IBV_PKEY) != 0) {
        int64_t v = GASNETI_PARAM_INT(GASNET_IBV_PKEY);
        if ((pp->pkey = gasnetc_ibv_pkey_check(v, err, sizeof(err))) < 0)
            gasneti_fatalerror("GASNET_IBV_PKEY=%lld: %s", (long long)v, err);
    }
    pp->max_mtu = GASNETI_PARAM_INT(GASNET_MAX_MTU);
    if (gasnetc_ibv_mtu_check(pp->max_mtu, err, sizeof(err)) != 0)
        gasneti_fatalerror("GASNET_MAX_MTU=%s", err);
}

/* ---- GIDs ---------------------------------------------------------------------- */

/* Any rdma-core: ibv_query_gid() per index, the type from sysfs. */
static int sysfs_gid_type(const char *path, int port, int index)
{
    char fn[IBV_SYSFS_PATH_MAX + 64], buf[32] = "";
    FILE *f;
    snprintf(fn, sizeof(fn), "%s/ports/%d/gid_attrs/types/%d", path, port, index);
    if (!(f = fopen(fn, "r"))) return GASNETC_IBV_GID_TYPE_IB;
    if (!fgets(buf, sizeof(buf), f)) buf[0] = '\0';
    fclose(f);
    if (strstr(buf, "v2")) return GASNETC_IBV_GID_TYPE_ROCE_V2;
    if (strstr(buf, "RoCE")) return GASNETC_IBV_GID_TYPE_ROCE_V1;
    return GASNETC_IBV_GID_TYPE_IB;
}

static void read_gids_each(gasnetc_ibv_probe_hca_t *h, gasnetc_ibv_probe_port_t *r)
{
    static const uint8_t zero[16];
    int i;
    r->ngids = 0;
    for (i = 0; i < r->pa.gid_tbl_len; i++) {
        union ibv_gid gid;
        gasnetc_ibv_gident_t *g;
        if (ibv_query_gid(h->ctx, (uint8_t)r->info.port_num, i, &gid) != 0) continue;
        if (!memcmp(gid.raw, zero, 16)) continue;
        g = &r->gids[r->ngids++];
        g->index = i;
        g->type = r->info.link_layer == GASNETC_IBV_LINK_ETH
                      ? sysfs_gid_type(h->path, r->info.port_num, i) : GASNETC_IBV_GID_TYPE_IB;
        memcpy(g->raw, gid.raw, 16);
    }
}

#if defined(HAVE_DECL_IBV_QUERY_GID_TABLE) && HAVE_DECL_IBV_QUERY_GID_TABLE
static int map_gid_type(uint32_t t)
{
    return t == IBV_GID_TYPE_ROCE_V2 ? GASNETC_IBV_GID_TYPE_ROCE_V2
         : t == IBV_GID_TYPE_ROCE_V1 ? GASNETC_IBV_GID_TYPE_ROCE_V1 : GASNETC_IBV_GID_TYPE_IB;
}

/* rdma-core >= 32: one call returns the valid entries of every port.
 * Returns -1 when the call fails (then each port is read entry by entry). */
static int read_gids_table(gasnetc_ibv_probe_hca_t *h, gasnetc_ibv_probe_port_t *rows, int nports)
{
    size_t max = 0;
    struct ibv_gid_entry *ent;
    ssize_t n, i;
    int p;
    for (p = 0; p < nports; p++)
        if (rows[p].gids) max += (size_t)rows[p].pa.gid_tbl_len;
    if (!max || !(ent = calloc(max, sizeof(*ent)))) return -1;
    n = ibv_query_gid_table(h->ctx, ent, max, 0);
    for (i = 0; i < n; i++) {
        gasnetc_ibv_probe_port_t *r = NULL;
        gasnetc_ibv_gident_t *g;
        for (p = 0; p < nports && !r; p++)
            if (rows[p].gids && (int)ent[i].port_num == rows[p].info.port_num) r = &rows[p];
        if (!r || r->ngids >= r->pa.gid_tbl_len) continue;
        g = &r->gids[r->ngids++];
        g->index = (int)ent[i].gid_index;
        g->type = map_gid_type(ent[i].gid_type);
        memcpy(g->raw, ent[i].gid.raw, 16);
    }
    free(ent);
    return n < 0 ? -1 : 0;
}
#endif

/* Fills rows[].gids with the valid GIDs of each queried port. */
static void read_gids(gasnetc_ibv_probe_hca_t *h, gasnetc_ibv_probe_port_t *rows, int nports)
{
    int p;
    for (p = 0; p < nports; p++)
        if (rows[p].queried && rows[p].pa.gid_tbl_len > 0)
            rows[p].gids = calloc((size_t)rows[p].pa.gid_tbl_len, sizeof(*rows[p].gids));
#if defined(HAVE_DECL_IBV_QUERY_GID_TABLE) && HAVE_DECL_IBV_QUERY_GID_TABLE
    if (read_gids_table(h, rows, nports) == 0) return;
#endif
    for (p = 0; p < nports; p++)
        if (rows[p].gids) read_gids_each(h, &rows[p]);
}

/* ---- addressing of one port ------------------------------------------------------ */

/* Fills r->info (P_Key, LID or GID, MTU) or r->why. */
static void choose_addressing(gasnetc_ibv_probe_hca_t *h, gasnetc_ibv_probe_port_t *r,
                              const ports_params_t *pp)
{
    gasnetc_ibv_port_t *in = &r->info;
    int i, best = 0;
    __be16 raw;

    in->lid = r->pa.lid;
    in->lmc = r->pa.lmc;
    in->sm_sl = r->pa.sm_sl;
    in->active_mtu = (int)r->pa.active_mtu;
    in->mtu = gasnetc_ibv_mtu_choose(in->active_mtu, pp->max_mtu);
    in->max_msg_sz = r->pa.max_msg_sz;

    /* P_Key: GASNET_IBV_PKEY searched in the table, else index 0. */
    if (pp->pkey >= 0) {
        int n = r->pa.pkey_tbl_len, idx = -1;
        uint16_t *tab = calloc((size_t)(n > 0 ? n : 1), sizeof(*tab));
        for (i = 0; tab && i < n; i++)
            tab[i] = ibv_query_pkey(h->ctx, (uint8_t)in->port_num, i, &raw) == 0 ? ntohs(raw) : 0;
        if (tab) idx = gasnetc_ibv_pkey_find(tab, n, pp->pkey);
        if (idx < 0) {
            snprintf(r->why, sizeof(r->why), "P_Key 0x%04x (GASNET_IBV_PKEY) is not in the port's "
                     "P_Key table", pp->pkey);
        } else {
            in->pkey_index = (uint16_t)idx;
            in->pkey = tab[idx];
        }
        free(tab);
        if (idx < 0) return;
    } else {
        in->pkey_index = 0;
        in->pkey = ibv_query_pkey(h->ctx, (uint8_t)in->port_num, 0, &raw) == 0 ? ntohs(raw) : 0xffff;
    }

    if (in->link_layer == GASNETC_IBV_LINK_IB) {
        in->use_grh = 0;
        in->gid_index = 0;
        in->gid_type = GASNETC_IBV_GID_TYPE_IB;
        for (i = 0; i < r->ngids; i++)
            if (r->gids[i].index == 0) memcpy(in->gid, r->gids[i].raw, 16);
        if (r->pa.state == IBV_PORT_ACTIVE && in->lid == 0)
            snprintf(r->why, sizeof(r->why), "no LID assigned (is a subnet manager running?)");
        return;
    }
    /* RoCE: the most preferred valid GID; ties go to the lowest index. */
    in->use_grh = 1;
    in->gid_index = -1;
    for (i = 0; i < r->ngids; i++) {
        int pref = gasnetc_ibv_gid_preference(r->gids[i].raw, r->gids[i].type);
        if (pref > best) {
            best = pref;
            in->gid_index = r->gids[i].index;
            in->gid_type = r->gids[i].type;
            memcpy(in->gid, r->gids[i].raw, 16);
        }
    }
    if (in->gid_index < 0 && r->pa.state == IBV_PORT_ACTIVE)
        snprintf(r->why, sizeof(r->why), "no valid GID in its table (does the Ethernet device "
                 "under it have an IP address?)");
}

/* ---- discovery -------------------------------------------------------------------- */

static gasnetc_ibv_probe_port_t *add_row(gasnetc_ibv_probe_t *pr, int hca)
{
    gasnetc_ibv_probe_port_t *rows = realloc(pr->rows, (size_t)(pr->nrows + 1) * sizeof(*rows));
    if (!rows) gasneti_fatalerror("out of memory while listing HCA ports");
    pr->rows = rows;
    memset(&rows[pr->nrows], 0, sizeof(rows[0]));
    rows[pr->nrows].hca = hca;
    return &rows[pr->nrows++];
}

/* Opens and queries HCA h (index hi); adds one row per port, or one row for
 * the HCA when it cannot be opened or queried (or is filtered out unopened). */
static void probe_hca(gasnetc_ibv_probe_t *pr, int hi, const ports_params_t *pp, int socket)
{
    gasnetc_ibv_probe_hca_t *h = &pr->hcas[hi];
    gasnetc_ibv_probe_port_t *r;
    int p, first = pr->nrows;

    h->near = socket >= 0 ? gasnetc_ibv_topo_near(h->path) : -1;
    if (pp->spec.count && !gasnetc_ibv_portspec_find(&pp->spec, h->name) && !pp->list) {
        r = add_row(pr, hi); /* filtered out: never opened */
        snprintf(r->why, sizeof(r->why), "not opened");
        return;
    }
    if (!(h->ctx = ibv_open_device(h->dev))) {
        r = add_row(pr, hi);
        snprintf(r->why, sizeof(r->why), "ibv_open_device failed: %s", strerror(errno));
        return;
    }
    if ((errno = ibv_query_device(h->ctx, &h->attr)) != 0 || h->attr.phys_port_cnt == 0) {
        r = add_row(pr, hi);
        snprintf(r->why, sizeof(r->why), "ibv_query_device failed: %s",
                 errno ? strerror(errno) : "no ports");
        return;
    }
    for (p = 1; p <= h->attr.phys_port_cnt; p++) {
        int rc;
        r = add_row(pr, hi);
        r->info.port_num = p;
        if ((rc = ibv_query_port(h->ctx, (uint8_t)p, &r->pa)) != 0) {
            snprintf(r->why, sizeof(r->why), "ibv_query_port failed: %s", strerror(rc));
            continue;
        }
        r->queried = 1;
        r->info.link_layer = r->pa.link_layer == IBV_LINK_LAYER_ETHERNET ? GASNETC_IBV_LINK_ETH
                                                                          : GASNETC_IBV_LINK_IB;
    }
    read_gids(h, &pr->rows[first], pr->nrows - first);
    for (p = first; p < pr->nrows; p++)
        if (pr->rows[p].queried) choose_addressing(h, &pr->rows[p], pp);
}

static void probe_all(gasnetc_ibv_probe_t *pr, const ports_params_t *pp)
{
    struct ibv_device **devs;
    int i, n = 0, socket = gasnetc_ibv_topo_socket();

    errno = 0;
    devs = ibv_get_device_list(&n);
    if (!devs || n == 0) {
        int e = errno ? errno : ENODEV;
        if (devs)
            snprintf(pr->devlist_err, sizeof(pr->devlist_err), "no RDMA devices (ibv_get_device_list "
                     "found none: is an HCA driver loaded and /dev/infiniband/uverbs* present?)");
        else if (e == ENOSYS)
            snprintf(pr->devlist_err, sizeof(pr->devlist_err), "no RDMA devices (this kernel has "
                     "no RDMA/verbs support: /sys/class/infiniband is missing)");
        else
            snprintf(pr->devlist_err, sizeof(pr->devlist_err), "no RDMA devices "
                     "(ibv_get_device_list failed: %s)", strerror(e));
        if (devs) ibv_free_device_list(devs);
        return;
    }
    if (!(pr->hcas = calloc((size_t)n, sizeof(*pr->hcas))))
        gasneti_fatalerror("out of memory while listing HCAs");
    pr->nhcas = n;
    for (i = 0; i < n; i++) {
        pr->hcas[i].dev = devs[i];
        snprintf(pr->hcas[i].name, sizeof(pr->hcas[i].name), "%s", ibv_get_device_name(devs[i]));
        snprintf(pr->hcas[i].path, sizeof(pr->hcas[i].path), "%s", devs[i]->ibdev_path);
        probe_hca(pr, i, pp, socket);
    }
    /* Opened contexts stay valid after the list is freed. */
    ibv_free_device_list(devs);
    for (i = 0; i < n; i++) pr->hcas[i].dev = NULL;

    if (!(pr->cand = calloc((size_t)pr->nrows + 1, sizeof(*pr->cand))))
        gasneti_fatalerror("out of memory while selecting HCA ports");
    for (i = 0; i < pr->nrows; i++) {
        gasnetc_ibv_probe_port_t *r = &pr->rows[i];
        gasnetc_ibv_cand_t *c = &pr->cand[i];
        c->hca = pr->hcas[r->hca].name;
        c->port = r->info.port_num;
        c->active = r->queried && r->pa.state == IBV_PORT_ACTIVE;
        c->link_layer = r->info.link_layer;
        c->unusable = !r->queried || r->why[0] != '\0';
        c->near = pr->hcas[r->hca].near;
    }
}

static void probe_free(gasnetc_ibv_probe_t *pr)
{
    int i;
    for (i = 0; i < pr->nrows; i++) free(pr->rows[i].gids);
    free(pr->rows);
    free(pr->cand);
    free(pr->hcas);
    memset(pr, 0, sizeof(*pr));
}

/* ---- the entry points --------------------------------------------------------------- */

/* Moves the selected rows into the result arrays; closes unused HCAs. */
static int keep_selected(gasnetc_ibv_probe_t *pr, int nsel, gasnetc_ibv_port_t **ports_out)
{
    gasnetc_ibv_port_t *ports = calloc((size_t)nsel, sizeof(*ports));
    int *map = calloc((size_t)pr->nhcas + 1, sizeof(*map));
    int i, nh = 0;

    if (!ports || !map) gasneti_fatalerror("out of memory while opening HCA ports");
    for (i = 0; i < pr->nhcas; i++) map[i] = -1;
    for (i = 0; i < pr->nrows; i++)
        if (pr->cand[i].verdict == GASNETC_IBV_V_SELECTED && map[pr->rows[i].hca] < 0)
            map[pr->rows[i].hca] = nh++;
    if (!(sel_hcas = calloc((size_t)nh, sizeof(*sel_hcas))))
        gasneti_fatalerror("out of memory while opening HCAs");
    for (i = 0; i < pr->nhcas; i++) {
        gasnetc_ibv_probe_hca_t *h = &pr->hcas[i];
        struct ibv_device_attr *attr;
        if (map[i] < 0) {
            if (h->ctx) ibv_close_device(h->ctx);
            h->ctx = NULL;
            continue;
        }
        if (!(attr = malloc(sizeof(*attr)))) gasneti_fatalerror("out of memory");
        *attr = h->attr;
        sel_hcas[map[i]].ctx = h->ctx;
        sel_hcas[map[i]].attr = attr;
        sel_hcas[map[i]].index = map[i];
        sel_hcas[map[i]].near = h->near;
        memcpy(sel_hcas[map[i]].name, h->name, sizeof(h->name));
    }
    for (i = 0; i < pr->nrows; i++) {
        if (pr->cand[i].verdict != GASNETC_IBV_V_SELECTED) continue;
        ports[pr->cand[i].order] = pr->rows[i].info;
        ports[pr->cand[i].order].hca = &sel_hcas[map[pr->rows[i].hca]];
    }
    free(map);
    sel_nhcas = nh;
    *ports_out = ports;
    return nsel;
}

int gasnetc_ibv_ports_open(uint32_t rank, uint32_t size, int need_network,
                           gasnetc_ibv_port_t **ports, int *nports)
{
    ports_params_t pp;
    gasnetc_ibv_probe_t pr;
    int nsel;
    char summary[3072];

    *ports = NULL;
    *nports = 0;
    memset(&pp, 0, sizeof(pp));
    memset(&pr, 0, sizeof(pr));
    read_params(&pp, rank);
    pr.ports_var = pp.ports_var;
    pr.ports_text = pp.ports_text;
    pr.max_hcas = GASNETC_IBV_MAX_HCAS;
    pr.num_qps = pp.num_qps;

    probe_all(&pr, &pp);
    nsel = gasnetc_ibv_select(pr.cand, pr.nrows, &pp.spec, GASNETC_IBV_MAX_HCAS, pp.num_qps);
    if (pp.list) gasnetc_ibv_report_list(&pr, rank);
    if (pp.verbose >= 2 || (pp.verbose >= 1 && rank == 0)) gasnetc_ibv_report_warnings(&pr);

    if (nsel == 0) {
        gasnetc_ibv_report_summary(&pr, summary, sizeof(summary));
        if (need_network)
            gasneti_fatalerror("no usable HCA port, but this job of %u processes needs the network "
                               "(peers on other hosts, or GASNET_SUPERNODE_MAXSIZE=1). %s%s%s%s. "
                               "Found: %s. Fix: set %s to a listed HCA whose port is ACTIVE "
                               "(GASNET_IBV_LIST_PORTS=1 lists them), or run all processes on one "
                               "host with shared memory", size, pp.ports_var,
                               *pp.ports_text ? "='" : " is empty (all HCAs)",
                               pp.ports_text, *pp.ports_text ? "'" : "", summary, pp.ports_var);
        if (rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
            gasneti_info("no usable HCA port (%s); all %u processes share this host, so the job "
                         "runs on shared memory (PSHM) only", summary, size);
        for (nsel = 0; nsel < pr.nhcas; nsel++)
            if (pr.hcas[nsel].ctx) ibv_close_device(pr.hcas[nsel].ctx);
        probe_free(&pr);
        gasnetc_ibv_portspec_free(&pp.spec);
        gasnetc_ibv_topo_fini();
        return 0;
    }
    *nports = keep_selected(&pr, nsel, ports);
    sel_nports = nsel;
    sel_qps = pp.num_qps > 0 ? pp.num_qps : nsel;
    if (pp.verbose >= 2) gasnetc_ibv_report_selection(*ports, *nports, rank);
    probe_free(&pr);
    gasnetc_ibv_portspec_free(&pp.spec);
    gasnetc_ibv_topo_fini();
    return 0;
}

void gasnetc_ibv_ports_close(gasnetc_ibv_port_t *ports, int nports)
{
    int i;
    (void)nports;
    for (i = 0; i < sel_nhcas; i++) {
        if (sel_hcas[i].ctx) ibv_close_device(sel_hcas[i].ctx);
        free((void *)sel_hcas[i].attr);
    }
    free(sel_hcas);
    sel_hcas = NULL;
    sel_nhcas = sel_nports = sel_qps = 0;
    free(ports);
}

int gasnetc_ibv_num_hcas(void)
{
    return sel_nhcas;
}

gasnetc_ibv_hca_t *gasnetc_ibv_hca(int i)
{
    return (i >= 0 && i < sel_nhcas) ? &sel_hcas[i] : NULL;
}

int gasnetc_ibv_qps_per_peer(void)
{
    return sel_qps;
}

int gasnetc_ibv_qp_port(int qp)
{
    return sel_nports > 0 && qp >= 0 ? qp % sel_nports : 0;
}
