/* core/ibv/conn/connect.c: connection setup at gex_Client_Init, and the one
 * place RC queue pairs are made (gasnetc_ibv_cep_open / _cep_connect, also
 * used by the on-demand connections of ondemand.c).
 *
 * For every network peer (a rank outside the PSHM neighbourhood) and every
 * QP index q < GASNET_NUM_QPS, one connection (cep) whose RC QP lives on
 * rail gasnetc_ibv_qp_port(q) and talks to the peer's QP q on the peer's
 * rail of the same number.  Which peers are connected at start-up
 * ("static"): all of them (GASNET_CONNECT_STATIC=1, the default), none
 * (=0), or those GASNET_CONNECTFILE_IN pairs with this rank; a pair is
 * static when either side wants it.  The others are connected on first use
 * (ondemand.c).  Sequence (collective): agree on whether anyone needs the
 * network, on the QP count and on the modes; PD and CQs per HCA; buffer
 * pools; when some rank is not connected to everyone, one alltoall of
 * "I want a static connection to you" bytes; the static QPs created and
 * moved to INIT with their Request buffers preposted (GASNET_AM_CREDITS_PP
 * per QP); their addresses (QPN, PSN, LID, GID, MTU) exchanged with one
 * bootstrap alltoall (skipped when no rank connects anything at start-up);
 * RTR, RTS; the UD queue pairs of on-demand connections and their address
 * exchange (ondemand.c, ud.c); a barrier, after which every static QP of the
 * job can receive.  Every failure is one fatal line naming the call, the
 * peer and what to change.
 */
#include "core/ibv/conn/conn.h"
#include "core/ibv/conn/conn_policy.h"
#include "core/ibv/conn/connfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

gasnetc_ibv_state_t gasnetc_ibv;

int gasnetc_ibv_active(void) { return gasnetc_ibv.active; }

/* The AM entries for the core (core/base/transport.h; core/init.c installs
 * them as gasnetc_am_net). */
const gasnetc_am_net_ops_t gasnetc_ibv_am_ops = {
    .name = "ibv",
    .active = gasnetc_ibv_active,
    .send = gasnetc_ibv_am_send,
    .short_fast = gasnetc_ibv_short_fast,
    .poll = gasnetc_ibv_poll,
    .start = gasnetc_ibv_progress_start,
    .query_threads = gasnetc_ibv_progress_query,
    .stop = gasnetc_ibv_progress_stop,
    .flush = gasnetc_ibv_flush_sends,
    .connect_all = gasnetc_ibv_conn_start_all,
};

typedef gasnetc_conn_addr_t conn_addr_t; /* what one QP tells its peer (alltoall entry) */

typedef struct {
    int sq_depth, rq_depth;
    int inline_req; /* GASNET_INLINESEND_LIMIT */
    int timeout, retry, rnr_retry, rd_atom;
} qp_params_t;

static qp_params_t qp_cfg; /* set at start-up, used by every later cep_open */

static void maximize_memlock(void)
{
    struct rlimit rl;
    if (!GASNETI_PARAM_BOOL(GASNET_MAXIMIZE_MEMLOCK)) return;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_MEMLOCK, &rl); /* silently, as documented */
    }
}

static int clamp_int(int64_t v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

static void res_init(gasnetc_ibv_res_t *r, gasnetc_ibv_hca_t *hca, int scq_depth,
                     int rcq_depth)
{
    r->hca = hca;
    r->index = hca->index;
    r->pd = ibv_alloc_pd(hca->ctx);
    if (!r->pd) gasneti_fatalerror("ibv_alloc_pd on %s failed: %s", hca->name, strerror(errno));
    r->scq = ibv_create_cq(hca->ctx, scq_depth, NULL, gasnetc_ibv_progress_channel(r, 1), 0);
    r->rcq = r->scq ? ibv_create_cq(hca->ctx, rcq_depth, NULL, gasnetc_ibv_progress_channel(r, 0), 0)
                    : NULL;
    if (!r->scq || !r->rcq)
        gasneti_fatalerror("ibv_create_cq of %d entries on %s failed: %s (lower "
                           "GASNET_NETWORKDEPTH_TOTAL or GASNET_AM_CREDITS_PP)",
                           r->scq ? rcq_depth : scq_depth, hca->name, strerror(errno));
    r->scq_avail = scq_depth;
}

static void qp_init(gasnetc_cep_t *c);

static void qp_create(gasnetc_cep_t *c, const qp_params_t *qp)
{
    struct ibv_qp_init_attr a;
    int inl = qp->inline_req < 0 ? 1024 : qp->inline_req;
    for (;;) {
        memset(&a, 0, sizeof(a));
        a.send_cq = c->res->scq;
        a.recv_cq = c->res->rcq;
        a.srq = c->res->srq; /* srq16: NULL unless GASNET_USE_SRQ chose SRQ (srq.c) */
        a.qp_type = IBV_QPT_RC;
        a.sq_sig_all = 0;
        a.cap.max_send_wr = (uint32_t)qp->sq_depth;
        a.cap.max_recv_wr = (uint32_t)qp->rq_depth;
        a.cap.max_send_sge = 2;
        a.cap.max_recv_sge = 1;
        a.cap.max_inline_data = (uint32_t)inl;
        c->qp = ibv_create_qp(c->res->pd, &a);
        if (c->qp || inl == 0) break;
        /* Too much inline data for this HCA: -1 asks for its maximum; an
         * explicit value is lowered too rather than failing the job. */
        inl = inl > 16 ? inl / 2 : 0;
    }
    if (!c->qp)
        gasneti_fatalerror("ibv_create_qp (RC, %d send / %d receive WRs) on %s for rank %u "
                           "failed: %s (lower GASNET_NETWORKDEPTH_PP or GASNET_AM_CREDITS_PP)",
                           qp->sq_depth, qp->rq_depth, c->res->hca->name, c->rank,
                           strerror(errno));
    c->inline_max = a.cap.max_inline_data;
    if (qp->inline_req >= 0 && c->inline_max > (uint32_t)qp->inline_req)
        c->inline_max = (uint32_t)qp->inline_req;
    if (gasnetc_ibv.rec_on && c->inline_max > GASNETC_IBV_HBUF) /* wr.c: inline_snapshot */
        c->inline_max = GASNETC_IBV_HBUF;
    c->sq_avail = c->sq_depth = qp->sq_depth;
    qp_init(c);
}

/* RESET -> INIT: the QP number stays, so the peer's record of it holds. */
static void qp_init(gasnetc_cep_t *c)
{
    struct ibv_qp_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = c->port->pkey_index;
    attr.port_num = (uint8_t)c->port->port_num;
    attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(c->qp, &attr,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        gasneti_fatalerror("ibv_modify_qp(INIT) for rank %u on %s port %d failed: %s", c->rank,
                           c->res->hca->name, c->port->port_num, strerror(errno));
}

/* soft: returns -1 instead of ending the job when a transition fails
 * (recovery: the route may not be back yet; the QP stays where it was). */
static int qp_connect(gasnetc_cep_t *c, const conn_addr_t *peer, uint32_t my_psn,
                      const qp_params_t *qp, int soft)
{
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    if (!peer->valid)
        gasneti_fatalerror("rank %u sent no address for its QP %d to rank %u (inconsistent "
                           "neighbourhoods: GASNET_SUPERNODE_MAXSIZE must be equal on all "
                           "ranks)", c->rank, c->qpi, gasnetc_ibv.rank);
    if (c->qp == NULL) gasneti_fatalerror("connection to rank %u used before it was opened", c->rank);
    c->peer_qpn = peer->qpn;
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = (enum ibv_mtu)(peer->mtu < c->port->mtu ? peer->mtu : c->port->mtu);
    a.dest_qp_num = peer->qpn;
    a.rq_psn = peer->psn;
    a.max_dest_rd_atomic = (uint8_t)qp->rd_atom;
    a.min_rnr_timer = 12; /* 0.64 ms; RNR never happens with credits */
    a.ah_attr.port_num = (uint8_t)c->port->port_num;
    a.ah_attr.dlid = peer->lid;
    a.ah_attr.sl = c->port->sm_sl;
    if (c->port->use_grh) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)c->port->gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    if (ibv_modify_qp(c->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                          IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
        if (soft) return -1;
        gasneti_fatalerror("ibv_modify_qp(RTR) to rank %u (QP %d, remote qp_num 0x%x, lid %u) "
                           "on %s port %d failed: %s (check GASNET_IBV_PORTS: both ends must "
                           "use the same link layer)", c->rank, c->qpi, peer->qpn, peer->lid,
                           c->res->hca->name, c->port->port_num, strerror(errno));
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = (uint8_t)qp->timeout;
    a.retry_cnt = (uint8_t)qp->retry;
    a.rnr_retry = (uint8_t)qp->rnr_retry;
    a.sq_psn = my_psn;
    a.max_rd_atomic = (uint8_t)qp->rd_atom;
    if (ibv_modify_qp(c->qp, &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
        if (soft) return -1;
        gasneti_fatalerror("ibv_modify_qp(RTS) to rank %u (QP %d) on %s failed: %s", c->rank,
                           c->qpi, c->res->hca->name, strerror(errno));
    }
    return 0;
}

/* Parameters that size queues and pools, checked against the HCAs. */
static void read_params(qp_params_t *qp, int *scq_depth)
{
    const struct ibv_device_attr *d = gasnetc_ibv.res[0].hca->attr;
    int max_wr = d->max_qp_wr, max_cqe = d->max_cqe, rd = d->max_qp_rd_atom;
    for (int h = 1; h < gasnetc_ibv.nres; h++) {
        d = gasnetc_ibv.res[h].hca->attr;
        if (d->max_qp_wr < max_wr) max_wr = d->max_qp_wr;
        if (d->max_cqe < max_cqe) max_cqe = d->max_cqe;
        if (d->max_qp_rd_atom < rd) rd = d->max_qp_rd_atom;
        if (d->max_qp_init_rd_atom < rd) rd = d->max_qp_init_rd_atom;
    }
    if (gasnetc_ibv.res[0].hca->attr->max_qp_init_rd_atom < rd)
        rd = gasnetc_ibv.res[0].hca->attr->max_qp_init_rd_atom;
    qp->sq_depth = clamp_int(GASNETI_PARAM_INT(GASNET_NETWORKDEPTH_PP), 1, max_wr);
    qp->inline_req = clamp_int(GASNETI_PARAM_INT(GASNET_INLINESEND_LIMIT), -1, 1 << 20);
    qp->timeout = (int)GASNETI_PARAM_INT(GASNET_QP_TIMEOUT);
    qp->retry = (int)GASNETI_PARAM_INT(GASNET_QP_RETRY_COUNT);
    qp->rnr_retry = (int)GASNETI_PARAM_INT(GASNET_QP_RNR_RETRY);
    int64_t rda = GASNETI_PARAM_INT(GASNET_QP_RD_ATOM);
    qp->rd_atom = rda == 0 || rda > rd ? rd : (int)rda;
    int64_t tot = GASNETI_PARAM_INT(GASNET_NETWORKDEPTH_TOTAL);
    *scq_depth = clamp_int(tot == 0 ? max_cqe : tot, 1, max_cqe);

    char why[256];
    int64_t creq = gasneti_param_isset(GASNETI_PARAM_GASNET_AM_CREDITS_TOTAL)
                       ? GASNETI_PARAM_INT(GASNET_AM_CREDITS_TOTAL)
                       : -1;
    if (gasnetc_credit_config_resolve(&gasnetc_ibv.credit_cfg,
                                      (int)GASNETI_PARAM_INT(GASNET_AM_CREDITS_PP),
                                      (int)(creq > 1 << 30 ? 1 << 30 : creq),
                                      (int)GASNETI_PARAM_INT(GASNET_AM_CREDITS_SLACK),
                                      gasnetc_ibv.nceps ? gasnetc_ibv.nceps : 1, max_cqe, why,
                                      sizeof(why)) != 0)
        gasneti_fatalerror("%s", why);
    qp->rq_depth = gasnetc_credit_rq_depth(&gasnetc_ibv.credit_cfg) + GASNETC_IBV_RBUF_SLACK;
    if (qp->rq_depth > max_wr)
        gasneti_fatalerror("GASNET_AM_CREDITS_PP=%d needs receive queues of %d entries but the "
                           "HCA allows %d: lower GASNET_AM_CREDITS_PP",
                           gasnetc_ibv.credit_cfg.pp, qp->rq_depth, max_wr);

    uint64_t pl = GASNETI_PARAM_SIZE(GASNET_PACKEDLONG_LIMIT);
    size_t room = GASNETC_IBV_BUFSZ - GASNETC_AM_HDR_MAX;
    gasnetc_ibv.packed_long_limit = pl > room ? room : (size_t)pl;
    gasnetc_ibv.gather_min = GASNETI_PARAM_INT(GASNET_AM_GATHER_MIN);
    char xwhy[256];
    const gasnetc_ibv_hca_t *h0 = gasnetc_ibv.res[0].hca;
    gasnetc_ibv.use_xrc = gasnetc_xrc_decide(
        GASNETI_PARAM_BOOL(GASNET_USE_XRC), gasneti_param_isset(GASNETI_PARAM_GASNET_USE_XRC),
        (h0->attr->device_cap_flags & IBV_DEVICE_XRC) != 0, 0 /* SRQ: decided later */,
        0 /* no XRC transport yet */, h0->name, xwhy, sizeof(xwhy));
    if (xwhy[0] && gasnetc_ibv.rank == 0) gasneti_warning("%s", xwhy);
}

static void pools_init(int scq_total, int nopen)
{
    int64_t bb = GASNETI_PARAM_INT(GASNET_BBUF_COUNT);
    int bb_limit = bb == 0 || bb > scq_total ? scq_total : (int)bb;
    int pp = gasnetc_ibv.credit_cfg.pp;
    int spares = gasneti_param_isset(GASNETI_PARAM_GASNET_RBUF_SPARES)
                     ? clamp_int(GASNETI_PARAM_INT(GASNET_RBUF_SPARES), 0, 1 << 20)
#if defined(GASNET_PAR)
                     : 8;
#else
                     : 2;
#endif
    int reply_room = gasnetc_ibv.nceps * pp < 32 ? gasnetc_ibv.nceps * pp : 32;
    gasnetc_ibv_pool_init(&gasnetc_ibv.desc_pool, "send descriptors", GASNETC_IBV_HBUF,
                          sizeof(gasnetc_sdesc_t), 64, 0, scq_total < 256 ? scq_total : 256);
    gasnetc_ibv_pool_init(&gasnetc_ibv.bbuf_pool, "bounce buffers (GASNET_BBUF_COUNT)",
                          GASNETC_IBV_BUFSZ, sizeof(gasnetc_ibv_slot_t), 8, bb_limit, 8);
    if (gasnetc_ibv.srq_on) gasnetc_ibv_srq_pool_init(); /* srq16: bounded by GASNET_RBUF_COUNT */
    else
        gasnetc_ibv_pool_init(&gasnetc_ibv.rbuf_pool, "AM receive buffers (GASNET_AM_CREDITS_PP)",
                              gasnetc_ibv.rbuf_size, sizeof(gasnetc_rbuf_t), 16, 0,
                              nopen * (pp + GASNETC_IBV_RBUF_SLACK) + reply_room + spares);
    gasnetc_ibv_rndv_init(); /* rbuf16: small receive buffers */
}

uint32_t gasnetc_ibv_new_psn(void)
{
    static uint32_t calls;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 20 ^
                 (uint64_t)gasnetc_ibv.rank * 0xBF58476D1CE4E5B9ull ^
                 (uint64_t)++calls * 0x94D049BB133111EBull;
    return (uint32_t)(x >> 40) & 0xffffff;
}

void gasnetc_ibv_cep_open(gasnetc_cep_t *c)
{
    qp_create(c, &qp_cfg);
    int n = gasnetc_ibv.credit_cfg.pp + GASNETC_IBV_RBUF_SLACK; /* slack: recv.c */
    for (int i = 0; !c->res->srq && i < n; i++) gasnetc_ibv_post_rbuf(c, NULL);
}

void gasnetc_ibv_cep_connect(gasnetc_cep_t *c, const gasnetc_conn_addr_t *peer, uint32_t my_psn)
{
    qp_connect(c, peer, my_psn, &qp_cfg, 0);
}

int gasnetc_ibv_cep_reconnect(gasnetc_cep_t *c, const gasnetc_conn_addr_t *peer, uint32_t my_psn)
{
    return qp_connect(c, peer, my_psn, &qp_cfg, 1);
}

void gasnetc_ibv_cep_reinit(gasnetc_cep_t *c)
{
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RESET;
    if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE))
        gasneti_fatalerror("ibv_modify_qp(RESET) for rank %u on %s port %d failed: %s", c->rank,
                           c->res->hca->name, c->port->port_num, strerror(errno));
    qp_init(c);
}

uint64_t gasnetc_ibv_retry_window_us(void)
{
    /* 4.096 us x 2^timeout per try, retry_cnt retransmissions after the first */
    double per = 4.096 * (double)((uint64_t)1 << qp_cfg.timeout);
    return (uint64_t)(per * (double)(qp_cfg.retry + 1));
}

/* Reads GASNET_CONNECTFILE_IN (with % replaced by the rank) into want[]. */
static void read_connfile(const char *pattern, uint32_t rank, uint32_t size, uint8_t *want)
{
    char path[4096], err[512];
    if (gasnetc_connfile_path(pattern, rank, path, sizeof(path)))
        gasneti_fatalerror("GASNET_CONNECTFILE_IN=%s: path too long", pattern);
    FILE *f = fopen(path, "r");
    if (!f)
        gasneti_fatalerror("GASNET_CONNECTFILE_IN: cannot open %s: %s (unset it to connect to "
                           "every peer at start-up)", path, strerror(errno));
    size_t cap = 4096, len = 0, n;
    char *text = malloc(cap);
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger) free(text);
            text = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text) gasneti_fatalerror("out of memory reading %s", path);
    text[len] = '\0';
    if (gasnetc_connfile_parse(text, path, rank, size, want, err, sizeof(err)))
        gasneti_fatalerror("%s", err);
    free(text);
}

void gasnetc_ibv_connect(gasnetc_ibv_port_t *ports, int nports, uint32_t rank, uint32_t size,
                         const gasnetc_transport_up_t *up)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    int (*is_local)(uint32_t) = up->is_local;
    t->up = *up;
    /* Connection modes of this rank: static_all (every peer at start-up),
     * static_some (STATIC=1: at least the file's pairs), may_dyn. */
    const char *cfile = GASNETI_PARAM_STR(GASNET_CONNECTFILE_IN);
    int is_static = GASNETI_PARAM_BOOL(GASNET_CONNECT_STATIC);
    int static_all = is_static && !(cfile && *cfile);
    int32_t mine[6] = {0, gasnetc_ibv_qps_per_peer(), static_all, is_static,
                       GASNETI_PARAM_BOOL(GASNET_CONNECT_DYNAMIC), gasnetc_ibv_rec_wanted()};
    int32_t *all = calloc(6 * (size_t)size, 4);
    int npeers = 0, any = 0, nqps = 0, all_static = 1, some_static = 0, some_dyn = 0, rec = 1;
    if (!all) gasneti_fatalerror("out of memory at startup (%u ranks)", size);
    for (uint32_t r = 0; r < size; r++) npeers += !is_local(r);
    mine[0] = npeers > 0;
    gasneti_boot->exchange(mine, sizeof(mine), all);
    for (uint32_t r = 0; r < size; r++) {
        int32_t *a = &all[6 * r];
        rec &= a[5] != 0;
        if (!a[0]) continue;
        any = 1;
        if (nqps && a[1] != nqps)
            gasneti_fatalerror("ranks use different numbers of QPs per peer (%d and %d on rank "
                               "%u): set GASNET_NUM_QPS, or select the same number of ports "
                               "(GASNET_IBV_PORTS) on every rank", nqps, a[1], r);
        nqps = a[1];
        all_static &= a[2] != 0;
        some_static |= a[3] != 0;
        some_dyn |= !a[2] && a[4];
    }
    free(all);
    if (!any) return;
    maximize_memlock();

    t->rank = rank;
    t->size = size;
    t->ports = ports;
    t->nports = nports;
    t->nqps = npeers ? nqps : 0;
    t->nres = npeers ? gasnetc_ibv_num_hcas() : 0;
    t->nceps = npeers * t->nqps;
    t->peer_ceps = calloc(size, sizeof(*t->peer_ceps));
    t->peer_rr = calloc(size, sizeof(*t->peer_rr));
    t->ceps = calloc(t->nceps ? (size_t)t->nceps : 1, sizeof(gasnetc_cep_t));
    gasnetc_cep_t **cep_of = calloc(size, sizeof(*cep_of));
    uint8_t *want = calloc(size, 1), *theirs = calloc(size, 1);
    if (!t->peer_ceps || !t->peer_rr || !t->ceps || !cep_of || !want || !theirs)
        gasneti_fatalerror("out of memory at startup (%u ranks)", size);

    /* Which pairs are static: mine, then the union with what peers want. */
    if (static_all) {
        for (uint32_t r = 0; r < size; r++) want[r] = r != rank && !is_local(r);
    } else if (is_static && npeers) {
        read_connfile(cfile, rank, size, want);
        for (uint32_t r = 0; r < size; r++)
            if (is_local(r)) want[r] = 0;
    }
    if (!all_static) {
        gasneti_boot->alltoall(want, 1, theirs);
        for (uint32_t r = 0; r < size; r++) want[r] = (want[r] || theirs[r]) && r != rank && !is_local(r);
    }
    free(theirs);
    int nstatic = 0;
    for (uint32_t r = 0; r < size; r++) nstatic += want[r];

    memset(&qp_cfg, 0, sizeof(qp_cfg));
    if (t->nceps) {
        int scq_depth, per_hca[GASNETC_IBV_MAX_HCAS] = {0};
        for (int h = 0; h < t->nres; h++) t->res[h].hca = gasnetc_ibv_hca(h);
        read_params(&qp_cfg, &scq_depth);
        for (int q = 0; q < nqps; q++) per_hca[ports[gasnetc_ibv_qp_port(q)].hca->index] += npeers;
        int srq = gasnetc_ibv_srq_decide(per_hca, t->res[0].hca->attr->max_cqe); /* srq16 */
        /* link-flap recovery (recover.c): the whole job, without SRQ (flushes
         * tell when a QP's receive buffers are all back) and without
         * rendezvous Mediums (a replayed release WRITE could free a staging
         * buffer reused meanwhile) */
        t->rec_on = rec && !srq && t->rbuf_size >= GASNETC_IBV_BUFSZ;
        for (int h = 0; h < t->nres; h++) {
            int want_cq = srq ? t->srq_plan.posted[h] + t->srq_plan.spares : per_hca[h] * qp_cfg.rq_depth,
                max = t->res[h].hca->attr->max_cqe;
            if (want_cq > max)
                gasneti_fatalerror("%d receive queues of %d entries need a CQ of %d entries but "
                                   "%s allows %d: lower GASNET_AM_CREDITS_PP", per_hca[h],
                                   qp_cfg.rq_depth, want_cq, t->res[h].hca->name, max);
            res_init(&t->res[h], t->res[h].hca, scq_depth, want_cq > 0 ? want_cq : 1);
            gasnetc_ibv_srq_create(&t->res[h]); /* srq16 */
        }
        gasnetc_credit_total_init(&t->credit_total, t->credit_cfg.total);
        pools_init(scq_depth * t->nres, nstatic * nqps);
    }
    conn_addr_t *out = NULL, *in = NULL;
    if (some_static) {
        out = calloc((size_t)size * (nqps ? nqps : 1), sizeof(conn_addr_t));
        in = calloc((size_t)size * (nqps ? nqps : 1), sizeof(conn_addr_t));
        if (!out || !in) gasneti_fatalerror("out of memory at startup (%u ranks)", size);
    }
    uint32_t base = gasnetc_ibv_new_psn();
    int ci = 0;
    for (uint32_t r = 0; r < size; r++) {
        if (is_local(r)) continue;
        cep_of[r] = &t->ceps[ci];
        t->peer_rr[r] = rank; /* spreads the first Requests of all ranks over the QPs */
        for (int q = 0; q < nqps; q++, ci++) {
            gasnetc_cep_t *c = &t->ceps[ci];
            c->rank = r;
            c->qpi = q;
            c->port = &ports[gasnetc_ibv_qp_port(q)];
            c->res = &t->res[c->port->hca->index];
            gasnetc_credit_init(&c->credit, &t->credit_cfg, &t->credit_total);
            if (!want[r]) continue; /* connected on first use, if ever */
            gasnetc_ibv_cep_open(c);
            conn_addr_t *a = &out[(size_t)r * nqps + q];
            a->qpn = c->qp->qp_num;
            a->psn = (base + (uint32_t)ci * 0x1357u) & 0xffffff;
            a->lid = c->port->lid;
            a->mtu = (uint8_t)c->port->mtu;
            a->valid = 1;
            memcpy(a->gid, c->port->gid, 16);
        }
    }
    gasnetc_ibv_srq_fill(); /* srq16 */
    if (some_static) {
        gasneti_boot->alltoall(out, (size_t)nqps * sizeof(conn_addr_t), in);
        for (ci = 0; ci < t->nceps; ci++) {
            gasnetc_cep_t *c = &t->ceps[ci];
            if (!want[c->rank]) continue;
            qp_connect(c, &in[(size_t)c->rank * nqps + c->qpi],
                       out[(size_t)c->rank * nqps + c->qpi].psn, &qp_cfg, 0);
        }
    }
    free(out);
    free(in);
    if (t->nceps) {
        t->active = 1;
        gasnetc_ibv_async_start();
        gasnetc_ibv_rma_init();
    }
    gasnetc_ibv_conn_init(some_dyn || rec, want, cep_of, (uint32_t)npeers);
    gasnetc_ibv_rec_init(cep_of);
    free(want);
    if (t->nceps && rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
        gasneti_info("verbs: %d network peer(s), %d connected at start-up (GASNET_CONNECT_STATIC="
                     "%d%s), x %d RC QP(s) over %d port(s); AM credits PP=%d TOTAL=%d SLACK=%d; "
                     "queues: send %d, receive %d; inline <= %d bytes; %zu-byte AM buffers; packed "
                     "Longs <= %zu bytes", npeers, nstatic, is_static,
                     static_all ? "" : ", GASNET_CONNECTFILE_IN", nqps, nports, t->credit_cfg.pp,
                     t->credit_cfg.total, t->credit_cfg.slack, qp_cfg.sq_depth, qp_cfg.rq_depth,
                     qp_cfg.inline_req, (size_t)GASNETC_IBV_BUFSZ, t->packed_long_limit);
    if (t->nceps) gasnetc_ibv_srq_report(); /* srq16 */
    gasneti_boot->barrier(); /* every static QP of the job is in RTS with its buffers posted */
}
