/* core/ibv/ports/ports_report.c: the human-readable side of port selection:
 * GASNET_IBV_LIST_PORTS listings, GASNET_IBV_PORTS_VERBOSE warnings, the
 * one-line summary used by the "no usable port" error and the PSHM-only note.
 */
#include "build-config.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "core/ibv/ports/ports_probe.h"
#include "other/log/log.h"
#include "other/util/strbuf.h"

#define LIST_GIDS_MAX 16 /* GIDs listed per port; the rest are counted */


static const char *link_name(int ll)
{
    return ll == GASNETC_IBV_LINK_ETH ? "Ethernet" : "InfiniBand";
}

static const char *state_name(const gasnetc_ibv_probe_port_t *r)
{
    if (!r->queried) return "unknown";
    switch (r->pa.state) {
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
    default: return "NOP";
    }
}

/* The reason text of row i: the caller's detail for UNUSABLE, the filter's
 * variable name for FILTERED, the static text otherwise. */
static void verdict_text(const gasnetc_ibv_probe_t *pr, int i, char *buf, size_t len)
{
    const gasnetc_ibv_cand_t *c = &pr->cand[i];
    if (c->verdict == GASNETC_IBV_V_UNUSABLE)
        snprintf(buf, len, "unusable: %s", pr->rows[i].why);
    else if (c->verdict == GASNETC_IBV_V_FILTERED)
        snprintf(buf, len, "not matched by %s='%s'", pr->ports_var, pr->ports_text);
    else if (c->verdict == GASNETC_IBV_V_MAX_HCAS)
        snprintf(buf, len, "this build opens at most %d HCA(s) per process (--with-ibv-max-hcas)",
                 pr->max_hcas);
    else if (c->verdict == GASNETC_IBV_V_NUM_QPS)
        snprintf(buf, len, "GASNET_NUM_QPS=%d ports already chosen", pr->num_qps);
    else if (c->verdict == GASNETC_IBV_V_SELECTED)
        snprintf(buf, len, "selected as rail %d", c->order);
    else
        snprintf(buf, len, "%s", gasnetc_ibv_verdict_str(c->verdict));
}

static void list_port(const gasnetc_ibv_probe_t *pr, int i, uint32_t rank)
{
    const gasnetc_ibv_probe_port_t *r = &pr->rows[i];
    const char *hca = pr->hcas[r->hca].name;
    char verdict[GASNETC_IBV_WHY_MAX + 64], gid[64];
    int g;

    verdict_text(pr, i, verdict, sizeof(verdict));
    if (r->info.port_num == 0) {
        gasneti_info("rank %u:   %s: %s", rank, hca, verdict);
        return;
    }
    if (!r->queried) {
        gasneti_info("rank %u:   %s port %d: %s", rank, hca, r->info.port_num, verdict);
        return;
    }
    gasneti_info("rank %u:   %s port %d: %s %s, LID %u, MTU %d (active %d, max %d), P_Key[%u]=0x%04x,"
                 " %d GID(s): %s", rank, hca, r->info.port_num, link_name(r->info.link_layer),
                 state_name(r), (unsigned)r->pa.lid, gasnetc_ibv_mtu_bytes(r->info.mtu),
                 gasnetc_ibv_mtu_bytes((int)r->pa.active_mtu), gasnetc_ibv_mtu_bytes((int)r->pa.max_mtu),
                 (unsigned)r->info.pkey_index, (unsigned)r->info.pkey, r->ngids, verdict);
    for (g = 0; g < r->ngids && g < LIST_GIDS_MAX; g++) {
        const gasnetc_ibv_gident_t *e = &r->gids[g];
        int in_use = (r->info.link_layer == GASNETC_IBV_LINK_ETH || e->index == 0) &&
                     e->index == r->info.gid_index;
        gasnetc_ibv_gid_format(e->raw, gid, sizeof(gid));
        gasneti_info("rank %u:     %s port %d GID[%d] %s %s%s", rank, hca, r->info.port_num, e->index,
                     gid, gasnetc_ibv_gid_type_name(e->type), in_use ? " (in use)" : "");
    }
    if (r->ngids > LIST_GIDS_MAX)
        gasneti_info("rank %u:     %s port %d: %d more GID(s) not shown", rank, hca, r->info.port_num,
                     r->ngids - LIST_GIDS_MAX);
}

void gasnetc_ibv_report_list(const gasnetc_ibv_probe_t *pr, uint32_t rank)
{
    int h, i;
    if (pr->nhcas == 0) {
        gasneti_info("rank %u: GASNET_IBV_LIST_PORTS: %s", rank, pr->devlist_err);
        return;
    }
    gasneti_info("rank %u: GASNET_IBV_LIST_PORTS: %d HCA(s); %s%s%s%s; at most %d HCA(s) per "
                 "process; GASNET_NUM_QPS=%d", rank, pr->nhcas, pr->ports_var,
                 *pr->ports_text ? "='" : " empty (all HCAs)", pr->ports_text,
                 *pr->ports_text ? "'" : "", pr->max_hcas, pr->num_qps);
    for (h = 0; h < pr->nhcas; h++) {
        const gasnetc_ibv_probe_hca_t *hca = &pr->hcas[h];
        if (hca->ctx)
            gasneti_info("rank %u: HCA %s: %d port(s), firmware '%s', node GUID %016llx, vendor "
                         "0x%x part %u, locality %s", rank, hca->name, hca->attr.phys_port_cnt,
                         hca->attr.fw_ver, (unsigned long long)be64toh(hca->attr.node_guid),
                         hca->attr.vendor_id, hca->attr.vendor_part_id,
                         hca->near == 1 ? "near" : hca->near == 0 ? "far" : "unknown");
        else
            gasneti_info("rank %u: HCA %s (not opened)", rank, hca->name);
        for (i = 0; i < pr->nrows; i++)
            if (pr->rows[i].hca == h) list_port(pr, i, rank);
    }
}

void gasnetc_ibv_report_warnings(const gasnetc_ibv_probe_t *pr)
{
    char names[512], why[GASNETC_IBV_WHY_MAX + 64];
    size_t used = 0;
    int i, j, n = 0;

    names[0] = '\0';
    for (i = 0; i < pr->nrows; i++) {
        const char *hca = pr->hcas[pr->rows[i].hca].name;
        int seen = 0;
        if (pr->cand[i].verdict != GASNETC_IBV_V_MAX_HCAS) continue;
        for (j = 0; j < i; j++)
            if (pr->cand[j].verdict == GASNETC_IBV_V_MAX_HCAS && pr->rows[j].hca == pr->rows[i].hca)
                seen = 1;
        if (seen) continue;
        gasneti_strbuf_append(names, sizeof(names), &used, "%s%s", n++ ? ", " : "", hca);
    }
    if (n)
        gasneti_warning("not using %d HCA(s) (%s): this build opens at most %d HCA(s) per process; "
                        "configure with --with-ibv-max-hcas=N or --enable-ibv-multirail to use more, "
                        "or set %s to choose which (GASNET_IBV_PORTS_VERBOSE=0 silences this)",
                        n, names, pr->max_hcas, pr->ports_var);
    for (i = 0; i < pr->nrows; i++) {
        const gasnetc_ibv_probe_port_t *r = &pr->rows[i];
        if (pr->cand[i].verdict != GASNETC_IBV_V_UNUSABLE) continue;
        snprintf(why, sizeof(why), "%s", r->why);
        if (r->info.port_num)
            gasneti_warning("HCA %s port %d is not used: %s (GASNET_IBV_PORTS_VERBOSE=0 silences this)",
                            pr->hcas[r->hca].name, r->info.port_num, why);
        else
            gasneti_warning("HCA %s is not used: %s (GASNET_IBV_PORTS_VERBOSE=0 silences this)",
                            pr->hcas[r->hca].name, why);
    }
}

const char *gasnetc_ibv_report_summary(const gasnetc_ibv_probe_t *pr, char *buf, size_t len)
{
    char why[GASNETC_IBV_WHY_MAX + 64];
    size_t used = 0;
    int i;

    buf[0] = '\0';
    if (pr->nhcas == 0) {
        gasneti_strbuf_append(buf, len, &used, "%s", pr->devlist_err);
        return buf;
    }
    for (i = 0; i < pr->nrows; i++) {
        const gasnetc_ibv_probe_port_t *r = &pr->rows[i];
        verdict_text(pr, i, why, sizeof(why));
        if (r->info.port_num && r->queried)
            gasneti_strbuf_append(buf, len, &used, "%s%s port %d (%s, %s): %s", i ? "; " : "",
                   pr->hcas[r->hca].name, r->info.port_num, link_name(r->info.link_layer),
                   state_name(r), why);
        else
            gasneti_strbuf_append(buf, len, &used, "%s%s: %s", i ? "; " : "", pr->hcas[r->hca].name, why);
    }
    return buf;
}

void gasnetc_ibv_report_selection(const gasnetc_ibv_port_t *ports, int nports, uint32_t rank)
{
    char gid[64];
    int i;
    for (i = 0; i < nports; i++) {
        const gasnetc_ibv_port_t *p = &ports[i];
        gasnetc_ibv_gid_format(p->gid, gid, sizeof(gid));
        if (p->link_layer == GASNETC_IBV_LINK_ETH)
            gasneti_info("rank %u: rail %d: %s port %d, Ethernet (RoCE), GID[%d] %s %s, MTU %d, "
                         "P_Key[%u]=0x%04x", rank, i, p->hca->name, p->port_num, p->gid_index, gid,
                         gasnetc_ibv_gid_type_name(p->gid_type), gasnetc_ibv_mtu_bytes(p->mtu),
                         (unsigned)p->pkey_index, (unsigned)p->pkey);
        else
            gasneti_info("rank %u: rail %d: %s port %d, InfiniBand, LID %u, MTU %d, P_Key[%u]=0x%04x",
                         rank, i, p->hca->name, p->port_num, (unsigned)p->lid,
                         gasnetc_ibv_mtu_bytes(p->mtu), (unsigned)p->pkey_index, (unsigned)p->pkey);
    }
}
