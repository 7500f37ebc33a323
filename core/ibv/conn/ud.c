/* core/ibv/conn/ud.c: the unreliable-datagram queue pairs that carry the
 * handshake of on-demand connections (ondemand.c), one per selected port
 * (rail), with their own CQ and GASNET_CONNECT_SNDS send / _RCVS receive
 * buffers of one small slot each.  At start-up every rank's UD addresses
 * (QP number, LID, GID, MTU per rail) are exchanged through the bootstrap:
 * that table, O(processes) per rank, replaces the O(processes) RC QP
 * numbers per rank of the all-to-all exchange.  Address handles are made
 * on first use per (rank, rail).  A message that finds no free send buffer
 * is not sent: the sender's retransmission covers it, as it covers a
 * datagram lost or dropped for want of a receive buffer.  Callers (ondemand.c)
 * hold the connection lock. */
#include "core/ibv/conn/conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define UD_QKEY 0x1b1cc0deu
#define UD_GRH 40 /* receive buffers start with room for the GRH */
#define UD_SLOT 256
#define UD_MAX_RAILS 8
#define WR_RECV ((uint64_t)1 << 32)
#define WR_GEN_SHIFT 40 /* wr_id: generation << 40 | WR_RECV | slot */

typedef struct {
    gasnetc_ibv_port_t *port;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;     /* snds + rcvs slots */
    int snds, rcvs;
    int *free_snd, nfree;
    uint32_t gen;     /* bumped at each reset: older completions are ignored */
    int failed;       /* a completion failed: the QP is in the error state */
} ud_rail_t;

static struct {
    int nrails;
    ud_rail_t rail[UD_MAX_RAILS];
    gasnetc_conn_addr_t *addr; /* [rank * UD_MAX_RAILS + rail] */
    struct ibv_ah **ah;        /* [rank * nrails + rail], made on first use */
} ud;

static void post_recv(ud_rail_t *u, int slot)
{
    struct ibv_sge sge;
    struct ibv_recv_wr wr, *bad = NULL;
    sge.addr = (uintptr_t)(u->buf + (size_t)(u->snds + slot) * UD_SLOT);
    sge.length = UD_SLOT;
    sge.lkey = u->mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uint64_t)u->gen << WR_GEN_SHIFT | WR_RECV | (uint64_t)slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    int rc = ibv_post_recv(u->qp, &wr, &bad);
    if (rc)
        gasneti_fatalerror("ibv_post_recv on the connection-setup UD QP of %s port %d failed: %s",
                           u->port->hca->name, u->port->port_num, strerror(rc));
}

/* RESET (or new) -> INIT -> RTR -> RTS; the QP number stays. */
static void qp_start(ud_rail_t *u)
{
    gasnetc_ibv_port_t *port = u->port;
    const char *hca = port->hca->name;
    struct ibv_qp_attr m;
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_INIT;
    m.pkey_index = port->pkey_index;
    m.port_num = (uint8_t)port->port_num;
    m.qkey = UD_QKEY;
    int rc = ibv_modify_qp(u->qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    if (!rc) {
        m.qp_state = IBV_QPS_RTR;
        rc = ibv_modify_qp(u->qp, &m, IBV_QP_STATE);
    }
    if (!rc) {
        m.qp_state = IBV_QPS_RTS;
        m.sq_psn = gasnetc_ibv_new_psn();
        rc = ibv_modify_qp(u->qp, &m, IBV_QP_STATE | IBV_QP_SQ_PSN);
    }
    if (rc)
        gasneti_fatalerror("ibv_modify_qp of the connection-setup UD QP on %s port %d failed: %s",
                           hca, port->port_num, strerror(rc));
}

static void rail_init(ud_rail_t *u, gasnetc_ibv_port_t *port, int snds, int rcvs)
{
    gasnetc_ibv_res_t *res = &gasnetc_ibv.res[port->hca->index];
    const char *hca = port->hca->name;
    u->port = port;
    u->snds = snds;
    u->rcvs = rcvs;
    u->cq = ibv_create_cq(port->hca->ctx, snds + rcvs, NULL, NULL, 0);
    if (!u->cq)
        gasneti_fatalerror("ibv_create_cq (connection setup, %d entries) on %s failed: %s (lower "
                           "GASNET_CONNECT_SNDS / GASNET_CONNECT_RCVS)", snds + rcvs, hca,
                           strerror(errno));
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof(a));
    a.send_cq = a.recv_cq = u->cq;
    a.qp_type = IBV_QPT_UD;
    a.sq_sig_all = 1;
    a.cap.max_send_wr = (uint32_t)snds;
    a.cap.max_recv_wr = (uint32_t)rcvs;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    u->qp = ibv_create_qp(res->pd, &a);
    if (!u->qp)
        gasneti_fatalerror("ibv_create_qp (UD, for on-demand connections; %d send / %d receive "
                           "WRs) on %s failed: %s (lower GASNET_CONNECT_SNDS / _RCVS, or set "
                           "GASNET_CONNECT_DYNAMIC=0 with GASNET_CONNECT_STATIC=1)", snds, rcvs,
                           hca, strerror(errno));
    qp_start(u);
    size_t bytes = (size_t)(snds + rcvs) * UD_SLOT;
    u->buf = calloc(1, bytes);
    u->free_snd = calloc((size_t)snds, sizeof(int));
    if (!u->buf || !u->free_snd) gasneti_fatalerror("out of memory for connection-setup buffers");
    u->mr = ibv_reg_mr(res->pd, u->buf, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!u->mr)
        gasneti_fatalerror("ibv_reg_mr of %zu bytes of connection-setup buffers on %s failed: %s",
                           bytes, hca, strerror(errno));
    for (int i = 0; i < snds; i++) u->free_snd[i] = i;
    u->nfree = snds;
    for (int i = 0; i < rcvs; i++) post_recv(u, i);
}

void gasnetc_ud_init(int snds, int rcvs)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    uint32_t size = t->size;
    gasnetc_conn_addr_t mine[UD_MAX_RAILS];
    memset(mine, 0, sizeof(mine));
    ud.nrails = t->nceps ? t->nports : 0;
    if (ud.nrails > UD_MAX_RAILS)
        gasneti_fatalerror("on-demand connections use at most %d ports and %d are selected: "
                           "narrow GASNET_IBV_PORTS, or set GASNET_CONNECT_STATIC=1 without "
                           "GASNET_CONNECTFILE_IN", UD_MAX_RAILS, ud.nrails);
    for (int i = 0; i < ud.nrails; i++) {
        gasnetc_ibv_port_t *p = &t->ports[i];
        rail_init(&ud.rail[i], p, snds, rcvs);
        mine[i].qpn = ud.rail[i].qp->qp_num;
        mine[i].lid = p->lid;
        mine[i].mtu = (uint8_t)p->mtu;
        mine[i].valid = 1;
        memcpy(mine[i].gid, p->gid, 16);
    }
    ud.addr = calloc((size_t)size * UD_MAX_RAILS, sizeof(gasnetc_conn_addr_t));
    ud.ah = calloc((size_t)size * (ud.nrails ? ud.nrails : 1), sizeof(struct ibv_ah *));
    if (!ud.addr || !ud.ah) gasneti_fatalerror("out of memory for the UD address table");
    gasneti_boot->exchange(mine, sizeof(mine), ud.addr);
}

void gasnetc_ud_hdr_fill(gasnetc_ud_hdr_t *h, uint32_t magic, int type, uint32_t dst)
{
    memset(h, 0, sizeof(*h));
    h->magic = magic;
    h->type = (uint8_t)type;
    h->nqps = (uint8_t)gasnetc_ibv.nqps;
    h->src = gasnetc_ibv.rank;
    h->dst = dst;
}

int gasnetc_ud_hdr_ok(const gasnetc_ud_hdr_t *h, uint32_t magic)
{
    return h->magic == magic && h->dst == gasnetc_ibv.rank && h->src < gasnetc_ibv.size &&
           h->nqps == gasnetc_ibv.nqps;
}

const gasnetc_conn_addr_t *gasnetc_ud_port_addr(uint32_t rank, int rail)
{
    return &ud.addr[(size_t)rank * UD_MAX_RAILS + rail];
}

static struct ibv_ah *ah_for(uint32_t rank, int rail)
{
    struct ibv_ah **slot = &ud.ah[(size_t)rank * ud.nrails + rail];
    if (*slot) return *slot;
    const gasnetc_conn_addr_t *peer = gasnetc_ud_port_addr(rank, rail);
    gasnetc_ibv_port_t *p = ud.rail[rail].port;
    struct ibv_ah_attr a;
    memset(&a, 0, sizeof(a));
    a.dlid = peer->lid;
    a.sl = p->sm_sl;
    a.port_num = (uint8_t)p->port_num;
    if (p->use_grh) {
        a.is_global = 1;
        memcpy(a.grh.dgid.raw, peer->gid, 16);
        a.grh.sgid_index = (uint8_t)p->gid_index;
        a.grh.hop_limit = 64;
    }
    *slot = ibv_create_ah(gasnetc_ibv.res[p->hca->index].pd, &a);
    if (!*slot && (errno == ENETUNREACH || errno == EHOSTUNREACH || errno == EAGAIN))
        return NULL; /* the link is down (RoCE resolves the route here): sent again later */
    if (!*slot)
        gasneti_fatalerror("ibv_create_ah towards rank %u (lid %u) on %s port %d failed: %s "
                           "(check GASNET_IBV_PORTS: both ends must use the same link layer)",
                           rank, peer->lid, p->hca->name, p->port_num, strerror(errno));
    return *slot;
}

int gasnetc_ud_send(uint32_t rank, int rail, const void *msg, size_t len)
{
    ud_rail_t *u = &ud.rail[rail];
    const gasnetc_conn_addr_t *peer = gasnetc_ud_port_addr(rank, rail);
    if (len > UD_SLOT - UD_GRH || !peer->valid)
        gasneti_fatalerror("connection setup: rank %u has no UD address on rail %d (ports differ "
                           "between ranks: check GASNET_IBV_PORTS)", rank, rail);
    if (!u->nfree) return -1;
    struct ibv_ah *ah = ah_for(rank, rail);
    if (!ah) return -1;
    int slot = u->free_snd[--u->nfree];
    uint8_t *b = u->buf + (size_t)slot * UD_SLOT;
    memcpy(b, msg, len);
    struct ibv_sge sge;
    struct ibv_send_wr wr, *bad = NULL;
    sge.addr = (uintptr_t)b;
    sge.length = (uint32_t)len;
    sge.lkey = u->mr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uint64_t)u->gen << WR_GEN_SHIFT | (uint64_t)slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = peer->qpn;
    wr.wr.ud.remote_qkey = UD_QKEY;
    int rc = ibv_post_send(u->qp, &wr, &bad);
    if (rc) {
        u->free_snd[u->nfree++] = slot;
        gasneti_fatalerror("ibv_post_send (connection setup, UD) to rank %u on %s failed: %s", rank,
                           u->port->hca->name, strerror(rc));
    }
    return 0;
}

/* A UD QP that failed (a send while its port was down: the error state
 * on Soft-RoCE) is reset and restarted with every buffer: the QP number
 * stays, so peers keep reaching it; what it lost is retransmitted by the
 * handshakes' timers. */
static void rail_reset(ud_rail_t *u)
{
    struct ibv_qp_attr m;
    memset(&m, 0, sizeof(m));
    m.qp_state = IBV_QPS_RESET;
    if (ibv_modify_qp(u->qp, &m, IBV_QP_STATE))
        gasneti_fatalerror("ibv_modify_qp(RESET) of the connection-setup UD QP on %s port %d "
                           "failed: %s", u->port->hca->name, u->port->port_num, strerror(errno));
    u->gen++;
    u->failed = 0;
    qp_start(u);
    for (int i = 0; i < u->snds; i++) u->free_snd[i] = i;
    u->nfree = u->snds;
    for (int i = 0; i < u->rcvs; i++) post_recv(u, i);
}

int gasnetc_ud_poll(gasnetc_ud_recv_fn fn)
{
    int total = 0;
    struct ibv_wc wc[8];
    for (int i = 0; i < ud.nrails; i++) {
        ud_rail_t *u = &ud.rail[i];
        int n = ibv_poll_cq(u->cq, 8, wc);
        if (n < 0) gasneti_fatalerror("ibv_poll_cq (connection setup CQ of %s) failed: %d",
                                      u->port->hca->name, n);
        for (int k = 0; k < n; k++) {
            if ((uint32_t)(wc[k].wr_id >> WR_GEN_SHIFT) != u->gen) continue; /* before a reset */
            if (wc[k].status != IBV_WC_SUCCESS) u->failed = 1;
            if (!(wc[k].wr_id & WR_RECV)) { /* a send finished (or failed: retransmitted) */
                u->free_snd[u->nfree++] = (int)(wc[k].wr_id & 0xffffffffu);
                continue;
            }
            int slot = (int)(wc[k].wr_id & 0xffffffffu);
            if (wc[k].status == IBV_WC_SUCCESS && wc[k].byte_len > UD_GRH)
                fn(i, u->buf + (size_t)(u->snds + slot) * UD_SLOT + UD_GRH,
                   wc[k].byte_len - UD_GRH);
            if (wc[k].status == IBV_WC_SUCCESS) post_recv(u, slot);
        }
        if (u->failed && !gasnetc_exit_in_progress()) rail_reset(u);
        total += n;
    }
    return total;
}
