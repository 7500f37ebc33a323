/* core/ibv/conn/recover.c: surviving a link flap.  Design: core/ibv/conn/
 * README "Link flaps".
 *
 * A send or receive that completes with a status a broken link causes
 * (transport retry exceeded, local QP operation error, flush) no longer
 * ends the job: the completion path (wr/cq.c) keeps the descriptor in its
 * connection's redo list (sorted by post order) or the receive buffer in
 * its rbufs list, and marks the connection broken; later posts on it park
 * (wr/wr.c).  Here, per peer (all its QPs together):
 *
 *   initiator I (saw the failure)          acceptor A
 *   QPs to ERR, wait until every WR of
 *   them has completed (flushed), RESET,
 *   INIT, receive buffers posted; wait
 *   for the ports to be ACTIVE
 *   RREQ {epoch, PSN, rx[q]}    ------->   QPs to ERR, drained, RESET, INIT,
 *                                          buffers, RTR/RTS towards I
 *   RTR/RTS, repost       <-------------   RREP {epoch, PSN, rx[q]}
 *   RRTU                        ------->   repost
 *
 * over the UD QPs of on-demand connections (ud.c; the QP numbers stay, so
 * nothing else is exchanged).  rx[q] is how many messages the sender has
 * received on QP q since start-up; the peer subtracts the SENDs it knows
 * delivered (tx_done) and drops that many of the oldest SENDs of its redo
 * list (with every RDMA WRITE before the last of them: RC executes in
 * order) as completed.  Everything else is posted again in its order, then
 * what parked: each AM is delivered once and in order, credits travel with
 * the messages that carry them, RDMA WRITEs and READs are repeated (the
 * same bytes to the same place), completions are reported once.  Both
 * sides failing at once: the lower rank's RREQ wins (conn_policy.h).  A
 * peer that never answers, or ports that stay down, end the job after the
 * QP retry window plus GASNET_RECONNECT_TIMEOUT with the line of the first
 * failure.  Runs under the connection lock of ondemand.c.
 */
#include "core/ibv/conn/conn.h"
#include "core/ibv/conn/conn_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RS_OK, RS_DRAIN, RS_REQ_SENT, RS_ACC_DRAIN, RS_ACCEPTED };
enum { MSG_RREQ = GASNETC_UD_TYPE_REC, MSG_RREP, MSG_RRTU };
#define REC_MAGIC 0x67695231u /* "gIR1" */
#define REC_MAX_QPS 16
#define RETRANS_CAP_US 500000u
#define PORT_CHECK_US 20000u

typedef struct {
    gasnetc_ud_hdr_t h;
    uint32_t epoch; /* the incarnation being made (completed ones + 1) */
    uint32_t psn;   /* the sender's first PSN (QP q: psn + q) */
    uint32_t rx[REC_MAX_QPS];
} rec_msg_t;

typedef struct {
    uint8_t state, reinit, rail, state_was_acc;
    uint32_t epoch; /* incarnations completed */
    uint32_t psn, peer_psn, peer_rx[REC_MAX_QPS];
    uint64_t start_us, deadline_us, next_us, interval_us, port_us;
    uint64_t drained_us, sent_us; /* when the QPs were drained, the first message sent */
} rec_peer_t;

static struct {
    int wanted;
    rec_peer_t *peer;
    gasnetc_cep_t **cep_of;
    uint64_t window_us, rt_min;
    int kick;         /* atomic: a connection was marked broken */
    uint32_t *active; /* ranks being recovered */
    int nactive;
} rs;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int gasnetc_ibv_rec_wanted(void)
{
    rs.wanted = GASNETI_PARAM_INT(GASNET_RECONNECT_TIMEOUT) > 0;
    return rs.wanted;
}

void gasnetc_ibv_rec_init(gasnetc_cep_t **cep_of)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    for (int i = 0; i < t->nceps; i++) {
        t->ceps[i].redo_tail = &t->ceps[i].redo;
        t->ceps[i].parked_tail = &t->ceps[i].parked;
    }
    if (!t->rec_on) {
        if (rs.wanted && t->nceps && t->rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
            gasneti_info("verbs: no link-flap recovery (%s)",
                         t->srq_on ? "a shared receive queue is used"
                         : t->rbuf_size < GASNETC_IBV_BUFSZ ? "GASNET_RBUF_SIZE: rendezvous Mediums"
                                                            : "some rank has GASNET_RECONNECT_TIMEOUT=0");
        return;
    }
    if (t->nqps > REC_MAX_QPS)
        gasneti_fatalerror("link-flap recovery handles at most %d QPs per peer and GASNET_NUM_QPS "
                           "asks for %d: lower it, or set GASNET_RECONNECT_TIMEOUT=0", REC_MAX_QPS,
                           t->nqps);
    rs.cep_of = cep_of;
    rs.peer = calloc(t->size, sizeof(rec_peer_t));
    rs.active = calloc(t->size, sizeof(uint32_t));
    if (!rs.peer || !rs.active) gasneti_fatalerror("out of memory for recovery state");
    rs.window_us = gasnetc_ibv_retry_window_us() +
                   (uint64_t)GASNETI_PARAM_INT(GASNET_RECONNECT_TIMEOUT) * 1000000u;
    rs.rt_min = (uint64_t)GASNETI_PARAM_INT(GASNET_CONNECT_RETRANS_MIN);
    if (t->rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
        gasneti_info("verbs: link-flap recovery on: a failed connection is re-established "
                     "within %.1f s (QP retry window %.1f s + GASNET_RECONNECT_TIMEOUT=%lld s)",
                     (double)rs.window_us / 1e6, (double)gasnetc_ibv_retry_window_us() / 1e6,
                     (long long)GASNETI_PARAM_INT(GASNET_RECONNECT_TIMEOUT));
}

static int recoverable(enum ibv_wc_status st)
{
    return st == IBV_WC_RETRY_EXC_ERR || st == IBV_WC_LOC_QP_OP_ERR || st == IBV_WC_WR_FLUSH_ERR;
}

int gasnetc_ibv_rec_fail(gasnetc_cep_t *c, const struct ibv_wc *wc, int op, int is_send)
{
    if (!gasnetc_ibv.rec_on || !recoverable(wc->status) || gasnetc_exit_in_progress()) return 0;
    gasneti_mutex_lock(&c->rec_lock);
    if (!c->err_snd && !c->err_status) { /* the first failure names the connection at the end */
        c->err_status = (int)wc->status;
        c->err_vendor = (int)wc->vendor_err;
        c->err_qpn = wc->qp_num;
        c->err_op = (uint8_t)op;
        c->err_snd = (uint8_t)(is_send ? 1 : 2);
    }
    GASNETC_ATOMIC_STORE(&c->broken, 1);
    gasneti_mutex_unlock(&c->rec_lock);
    GASNETC_ATOMIC_ADD(&rs.kick, 1);
    GASNETC_ATOMIC_STORE(&gasnetc_ibv.rec_active, 1);
    return 1;
}

/* ---- per peer ------------------------------------------------------------------------ */
static int cep_rail(const gasnetc_cep_t *c)
{
    int rail = 0;
    while (rail < gasnetc_ibv.nports && &gasnetc_ibv.ports[rail] != c->port) rail++;
    return rail;
}

static void qp_to_err(gasnetc_cep_t *c)
{
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_ERR;
    char name[160];
    if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE))
        gasneti_fatalerror("ibv_modify_qp(ERR) to re-establish %s failed: %s",
                           gasnetc_ibv_cep_name(c, name, sizeof(name)), strerror(errno));
}

/* Starts recovering r: every QP to the peer is marked broken and moved to
 * the error state, which flushes whatever it still holds. */
static void begin(uint32_t r, int state)
{
    rec_peer_t *p = &rs.peer[r];
    p->state = (uint8_t)state;
    p->reinit = 0;
    p->start_us = now_us();
    p->deadline_us = p->start_us + rs.window_us;
    p->port_us = 0;
    int i = 0;
    while (i < rs.nactive && rs.active[i] != r) i++;
    if (i == rs.nactive) rs.active[rs.nactive++] = r;
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        gasnetc_cep_t *c = &rs.cep_of[r][q];
        gasneti_mutex_lock(&c->rec_lock);
        GASNETC_ATOMIC_STORE(&c->broken, 1);
        gasneti_mutex_unlock(&c->rec_lock);
        qp_to_err(c);
    }
}

static int drained(uint32_t r)
{
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        gasnetc_cep_t *c = &rs.cep_of[r][q];
        if (GASNETC_ATOMIC_LOAD(&c->inflight) || GASNETC_ATOMIC_LOAD(&c->rinflight)) return 0;
    }
    return 1;
}

/* Takes cep's parked receive buffers and posts them on its QP. */
static void post_rbufs(gasnetc_cep_t *c)
{
    gasneti_mutex_lock(&c->rec_lock);
    gasnetc_rbuf_t *rb = c->rbufs;
    c->rbufs = NULL;
    gasneti_mutex_unlock(&c->rec_lock);
    while (rb) {
        gasnetc_rbuf_t *next = rb->rnext;
        gasnetc_ibv_post_rbuf_raw(c, rb);
        rb = next;
    }
}

/* Drained: the QPs back to INIT with every receive buffer they had. */
static void reinit(uint32_t r)
{
    rec_peer_t *p = &rs.peer[r];
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        gasnetc_cep_t *c = &rs.cep_of[r][q];
        gasnetc_ibv_cep_reinit(c);
        post_rbufs(c);
    }
    p->psn = gasnetc_ibv_new_psn();
    p->reinit = 1;
}

/* 1 when every port the pair uses is ACTIVE (checked every PORT_CHECK_US). */
static int ports_up(uint32_t r, uint64_t now)
{
    rec_peer_t *p = &rs.peer[r];
    if (now < p->port_us) return 0;
    p->port_us = now + PORT_CHECK_US;
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        gasnetc_cep_t *c = &rs.cep_of[r][q];
        struct ibv_port_attr pa;
        memset(&pa, 0, sizeof(pa));
        if (ibv_query_port(c->res->hca->ctx, (uint8_t)c->port->port_num, &pa) ||
            pa.state != IBV_PORT_ACTIVE)
            return 0;
    }
    return 1;
}

/* RTR/RTS towards the peer: 0, or -1 when a transition failed (the route
 * is not back yet: a failed RTR leaves the QP in INIT with its buffers);
 * the caller retries, skipping the QPs already in RTS. */
static int connect_rts(uint32_t r)
{
    rec_peer_t *p = &rs.peer[r];
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        gasnetc_cep_t *c = &rs.cep_of[r][q];
        struct ibv_qp_attr qa;
        struct ibv_qp_init_attr qi;
        if (ibv_query_qp(c->qp, &qa, IBV_QP_STATE, &qi) == 0 && qa.qp_state == IBV_QPS_RTS)
            continue;
        gasnetc_conn_addr_t a = *gasnetc_ud_port_addr(r, cep_rail(c));
        a.qpn = c->peer_qpn;
        a.psn = (p->peer_psn + (uint32_t)q) & 0xffffff;
        a.valid = 1;
        if (gasnetc_ibv_cep_reconnect(c, &a, (p->psn + (uint32_t)q) & 0xffffff)) return -1;
    }
    return 0;
}

static void send_msg(uint32_t r, int type)
{
    rec_peer_t *p = &rs.peer[r];
    rec_msg_t m;
    memset(&m, 0, sizeof(m));
    gasnetc_ud_hdr_fill(&m.h, REC_MAGIC, type, r);
    m.epoch = p->epoch + 1;
    if (type == MSG_RRTU) m.epoch = p->epoch; /* sent once the epoch is complete */
    m.psn = p->psn;
    for (int q = 0; q < gasnetc_ibv.nqps; q++)
        m.rx[q] = GASNETC_ATOMIC_LOAD(&rs.cep_of[r][q].rx_seen);
    (void)gasnetc_ud_send(r, p->rail, &m, sizeof(m)); /* no buffer: the timer resends */
}

static void timer_start(rec_peer_t *p)
{
    p->interval_us = rs.rt_min;
    p->next_us = now_us() + p->interval_us;
}

/* Reposts what cep's QP held when it failed, less what the peer received
 * (peer_rx: its count of messages from this QP), then what parked
 * meanwhile, and makes the connection usable again. */
static void repost(gasnetc_cep_t *c, uint32_t peer_rx, int *redone, int *dropped)
{
    gasneti_mutex_lock(&c->rec_lock);
    gasnetc_sdesc_t *d = c->redo;
    c->redo = NULL;
    c->redo_tail = &c->redo;
    gasneti_mutex_unlock(&c->rec_lock);
    uint32_t delivered = peer_rx - GASNETC_ATOMIC_LOAD(&c->tx_done), sends = 0;
    for (gasnetc_sdesc_t *x = d; x; x = x->rnext) sends += x->wr == GASNETC_WR_SEND;
    if (delivered > sends) {
        char name[160];
        gasneti_fatalerror("re-establishing %s: the peer received %u messages of which %u are "
                           "not accounted for here (%u unfinished sends): internal error",
                           gasnetc_ibv_cep_name(c, name, sizeof(name)), peer_rx, delivered, sends);
    }
    gasnetc_sdesc_t *keep = NULL, **kt = &keep;
    while (d) {
        gasnetc_sdesc_t *next = d->rnext;
        if (delivered && d->wr != GASNETC_WR_READ) { /* before the last delivered SEND: done */
            if (d->wr == GASNETC_WR_SEND) {
                delivered--;
                GASNETC_ATOMIC_ADD(&c->tx_done, 1u);
            }
            (*dropped)++;
            gasnetc_ibv_desc_finish(d);
        } else {
            d->rnext = NULL;
            *kt = d;
            kt = &d->rnext;
        }
        d = next;
    }
    post_rbufs(c); /* buffers first: the sends below may return credits */
    for (d = keep; d;) {
        gasnetc_sdesc_t *next = d->rnext;
        gasnetc_ibv_post_desc_raw(d);
        (*redone)++;
        d = next;
    }
    for (;;) {
        gasneti_mutex_lock(&c->rec_lock);
        d = c->parked;
        c->parked = NULL;
        c->parked_tail = &c->parked;
        gasnetc_rbuf_t *rb = c->rbufs;
        c->rbufs = NULL;
        if (!d && !rb) {
            GASNETC_ATOMIC_STORE(&c->broken, 0);
            c->err_status = 0;
            c->err_snd = 0;
            gasneti_mutex_unlock(&c->rec_lock);
            return;
        }
        gasneti_mutex_unlock(&c->rec_lock);
        while (rb) {
            gasnetc_rbuf_t *next = rb->rnext;
            gasnetc_ibv_post_rbuf_raw(c, rb);
            rb = next;
        }
        while (d) {
            gasnetc_sdesc_t *next = d->rnext;
            gasnetc_ibv_post_desc_raw(d);
            (*redone)++;
            d = next;
        }
    }
}

static void active_del(uint32_t r)
{
    for (int i = 0; i < rs.nactive; i++)
        if (rs.active[i] == r) {
            rs.active[i] = rs.active[--rs.nactive];
            return;
        }
}

static void complete(uint32_t r)
{
    rec_peer_t *p = &rs.peer[r];
    int redone = 0, dropped = 0;
    p->state_was_acc = p->state == RS_ACCEPTED;
    p->epoch++;
    p->state = RS_OK;
    active_del(r);
    for (int q = 0; q < gasnetc_ibv.nqps; q++)
        repost(&rs.cep_of[r][q], p->peer_rx[q], &redone, &dropped);
    uint64_t t = now_us();
    gasneti_warning("verbs: connection to rank %u re-established %.3f s after its failure, "
                    "%.3f s after its ports were up (%s; QPs drained in %.3f s; epoch %u; %d "
                    "operation(s) posted again, %d found done)", r, (double)(t - p->start_us) / 1e6,
                    (double)(t - p->sent_us) / 1e6, p->state_was_acc ? "the peer asked" : "failed here",
                    (double)(p->drained_us - p->start_us) / 1e6, p->epoch, redone, dropped);
}

static void peer_info(rec_peer_t *p, const rec_msg_t *m, int rail)
{
    p->peer_psn = m->psn;
    memcpy(p->peer_rx, m->rx, sizeof(p->peer_rx));
    p->rail = (uint8_t)rail;
}

void gasnetc_ibv_rec_msg(int rail, const void *buf, size_t len)
{
    rec_msg_t m;
    if (!gasnetc_ibv.rec_on || len < sizeof(m)) return;
    memcpy(&m, buf, sizeof(m));
    uint32_t me = gasnetc_ibv.rank, r = m.h.src;
    if (!gasnetc_ud_hdr_ok(&m.h, REC_MAGIC) || !rs.cep_of[r]) return;
    rec_peer_t *p = &rs.peer[r];
    switch (m.h.type) {
    case MSG_RREQ:
        if (p->state == RS_ACCEPTED && m.epoch == p->epoch + 2)
            complete(r); /* the RTU was lost and the initiator failed again */
        if (m.epoch != p->epoch + 1) break;
        if (p->state == RS_ACCEPTED) {
            if (m.psn == p->peer_psn) {
                send_msg(r, MSG_RREP); /* our answer was lost */
                break;
            }
            begin(r, RS_ACC_DRAIN); /* the initiator started over: so do we */
        } else if (p->state == RS_REQ_SENT && !gasnetc_conn_accept_crossed(me, r)) {
            break; /* crossed: ours wins */
        } else if (p->state == RS_OK) {
            begin(r, RS_ACC_DRAIN);
            GASNETC_ATOMIC_STORE(&gasnetc_ibv.rec_active, 1);
        } else {
            p->state = RS_ACC_DRAIN; /* DRAIN, REQ_SENT (crossed, theirs wins), ACC_DRAIN */
        }
        peer_info(p, &m, rail);
        break;
    case MSG_RREP:
        if (p->state == RS_REQ_SENT && m.epoch == p->epoch + 1) {
            peer_info(p, &m, rail);
            if (connect_rts(r)) break; /* no route yet: the peer resends its answer */
            complete(r);
            send_msg(r, MSG_RRTU);
        } else if (p->state == RS_OK && m.epoch == p->epoch && m.psn == p->peer_psn) {
            send_msg(r, MSG_RRTU); /* our RTU was lost */
        }
        break;
    case MSG_RRTU:
        if (p->state == RS_ACCEPTED && m.epoch == p->epoch + 1 && m.psn == p->peer_psn) complete(r);
        break;
    default: break;
    }
}

/* ---- progress ------------------------------------------------------------------------ */
static void give_up(uint32_t r, uint64_t now)
{
    rec_peer_t *p = &rs.peer[r];
    gasnetc_cep_t *c = &rs.cep_of[r][0];
    for (int q = 0; q < gasnetc_ibv.nqps; q++)
        if (rs.cep_of[r][q].err_snd) {
            c = &rs.cep_of[r][q];
            break;
        }
    gasnetc_ibv.up.exit_check();
    char extra[320];
    snprintf(extra, sizeof(extra), "; the connection could not be re-established within %.1f s "
             "(%s; QP retry window %.1f s + GASNET_RECONNECT_TIMEOUT=%lld s): the peer died, or "
             "the path between the ports stayed broken", (double)(now - p->start_us) / 1e6,
             !p->reinit ? "its work requests never all completed"
             : p->state == RS_DRAIN || p->state == RS_ACC_DRAIN ? "the ports stayed down"
             : p->state == RS_REQ_SENT ? "no answer to the reconnection request"
                                      : "no confirmation of the reconnection",
             (double)gasnetc_ibv_retry_window_us() / 1e6,
             (long long)GASNETI_PARAM_INT(GASNET_RECONNECT_TIMEOUT));
    if (c->err_snd)
        gasnetc_ibv_wc_fatal(c, c->err_status, c->err_vendor, c->err_qpn, c->err_snd == 1,
                             c->err_op, extra);
    char name[160], port[48];
    struct ibv_port_attr pa;
    memset(&pa, 0, sizeof(pa));
    snprintf(port, sizeof(port), "%s", "");
    if (ibv_query_port(c->res->hca->ctx, (uint8_t)c->port->port_num, &pa) == 0 &&
        pa.state != IBV_PORT_ACTIVE)
        snprintf(port, sizeof(port), " (port %s now)", ibv_port_state_str(pa.state));
    gasneti_fatalerror("rank %u asked to re-establish the connection %s%s after a failure on "
                       "its side%s", r, gasnetc_ibv_cep_name(c, name, sizeof(name)), port, extra);
}

static void step(uint32_t r, uint64_t now)
{
    rec_peer_t *p = &rs.peer[r];
    if (now > p->deadline_us) {
        if (gasnetc_exit_in_progress()) { /* the peer may be gone: leave it to the exit */
            p->deadline_us = UINT64_MAX;
            return;
        }
        give_up(r, now);
    }
    switch (p->state) {
    case RS_DRAIN:
    case RS_ACC_DRAIN:
        if (!p->reinit) {
            if (!drained(r)) return;
            reinit(r);
            p->drained_us = now;
        }
        if (!ports_up(r, now)) return;
        p->sent_us = now;
        if (p->state == RS_DRAIN) {
            p->state = RS_REQ_SENT;
            p->rail = (uint8_t)cep_rail(&rs.cep_of[r][0]);
            send_msg(r, MSG_RREQ);
        } else {
            if (connect_rts(r)) return; /* no route yet: next poll */
            p->state = RS_ACCEPTED;
            send_msg(r, MSG_RREP);
        }
        timer_start(p);
        return;
    case RS_REQ_SENT:
    case RS_ACCEPTED:
        if (now < p->next_us) return;
        p->interval_us = p->interval_us * 2 > RETRANS_CAP_US ? RETRANS_CAP_US : p->interval_us * 2;
        p->next_us = now + p->interval_us;
        if (ports_up(r, now)) send_msg(r, p->state == RS_REQ_SENT ? MSG_RREQ : MSG_RREP);
        return;
    default: return;
    }
}

void gasnetc_ibv_rec_poll(void)
{
    if (!gasnetc_ibv.rec_on) return;
    int kick = GASNETC_ATOMIC_LOAD(&rs.kick);
    if (kick) {
        for (int i = 0; i < gasnetc_ibv.nceps; i++) {
            gasnetc_cep_t *c = &gasnetc_ibv.ceps[i];
            if (GASNETC_ATOMIC_LOAD(&c->broken) && rs.peer[c->rank].state == RS_OK) {
                gasnetc_ibv.up.exit_check();
                begin(c->rank, RS_DRAIN);
            }
        }
        (void)GASNETC_ATOMIC_CAS(&rs.kick, kick, 0);
    }
    uint64_t now = now_us();
    for (int i = 0; i < rs.nactive; i++) {
        uint32_t r = rs.active[i];
        step(r, now);
        if (i < rs.nactive && rs.active[i] != r) i--; /* completed: the slot holds another */
    }
    GASNETC_ATOMIC_STORE(&gasnetc_ibv.rec_active, rs.nactive > 0 || GASNETC_ATOMIC_LOAD(&rs.kick));
}
