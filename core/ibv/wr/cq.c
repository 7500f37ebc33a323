/* core/ibv/wr/cq.c: completions and progress of the verbs transport.
 *
 *   send CQ   every send work request is signaled; a completion gives back
 *             its send-queue slot and CQ entry, its bounce buffer, and
 *             either marks the descriptor DONE (the initiator waits for it)
 *             or frees it.  Reaping never runs handlers, so it is allowed
 *             everywhere (Replies in handlers wait this way).
 *   recv CQ   arrived AMs (recv.c runs them).
 *   backlog   Requests waiting for the process-wide credit total are sent
 *             from here when credits came back from another peer.
 *   errors    a failed completion ends the job with one line in the seed
 *             README's form plus the port ("snd status=12(transport retry
 *             counter exceeded) vendor_err=0x81 qp_num=0x11 hca=rxe0 port=1
 *             op=AM_REQUEST dest=(rank:1, qpi:0)"; "port=1 (DOWN now)" when
 *             the port is not ACTIVE at the time); an asynchronous fatal
 *             event likewise, from a thread blocked in ibv_get_async_event.
 *             A status a link flap causes (transport retry exceeded, local
 *             QP operation error, flush) is handed to conn/recover.c
 *             instead when link-flap recovery is on: the descriptor or
 *             receive buffer is kept for the re-established QP.
 *
 * ibv_poll_cq serialization (GASNET_PAR, GASNETC_IBV_SERIALIZE_POLL_CQ):
 * one flag per CQ taken with an atomic exchange; a thread that finds it
 * taken skips that CQ instead of queueing on the provider's lock: the
 * other thread is already draining it.  Completions are copied out in a
 * batch and the flag released before any of them is processed, so
 * handlers never run with a flag held.  The progress threads (progress.c)
 * poll one CQ at a time through the *_cq functions, in the mode that
 * GASNET_RCV_THREAD_POLL_MODE / GASNET_SND_THREAD_POLL_MODE select.
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define SEND_BATCH 16
#define RECV_BATCH 8

#if defined(GASNET_PAR) && GASNETC_IBV_SERIALIZE_POLL_CQ
static int cq_trylock(int *flag)
{
    return !__atomic_load_n(flag, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(flag, 1, __ATOMIC_ACQUIRE);
}
static void cq_unlock(int *flag) { __atomic_store_n(flag, 0, __ATOMIC_RELEASE); }
#else
#define cq_trylock(flag) ((void)(flag), 1)
#define cq_unlock(flag) ((void)(flag))
#endif

const char *gasnetc_ibv_cep_name(const gasnetc_cep_t *c, char *buf, size_t len)
{
    snprintf(buf, len, "qp_num=0x%x hca=%s port=%d dest=(rank:%u, qpi:%d)",
             c->qp ? c->qp->qp_num : 0, c->res->hca->name, c->port->port_num, c->rank, c->qpi);
    return buf;
}

static const char *op_name(int op)
{
    switch (op) {
    case GASNETC_OP_AM_REQ: return "AM_REQUEST";
    case GASNETC_OP_AM_REP: return "AM_REPLY";
    case GASNETC_OP_AM_ACK: return "AM_CREDIT_REPLY";
    case GASNETC_OP_PUT: return "PUT";
    case GASNETC_OP_GET: return "GET";
    default: return "AM_LONG_RDMA_WRITE";
    }
}

static const char *status_hint(enum ibv_wc_status st)
{
    switch (st) {
    case IBV_WC_RETRY_EXC_ERR:
        return "; the peer did not acknowledge: it died, or the path between the ports is broken";
    case IBV_WC_RNR_RETRY_EXC_ERR:
        return "; receiver not ready: no receive buffer was posted (AM credit accounting bug; "
               "GASNET_QP_RNR_RETRY limits the retries)";
    case IBV_WC_REM_ACCESS_ERR:
        return "; the peer refused the RDMA access (segment bounds or rkey, or the peer process is gone)";
    case IBV_WC_LOC_QP_OP_ERR:
        return "; this HCA could not transmit (Soft-RoCE: the netdev under the port was down or "
               "had no route to the peer)";
    case IBV_WC_WR_FLUSH_ERR:
        return "; the QP was already in the error state (an earlier failure on it, or a forced "
               "error)";
    default: return "";
    }
}

/* " port=1 (DOWN now)": the port of c, and its state when it is not ACTIVE
 * at the time of the report (a port that went down explains most failures). */
static const char *port_note(const gasnetc_cep_t *c, char *buf, size_t len)
{
    struct ibv_port_attr pa;
    memset(&pa, 0, sizeof(pa));
    if (ibv_query_port(c->res->hca->ctx, (uint8_t)c->port->port_num, &pa) == 0 &&
        pa.state != IBV_PORT_ACTIVE)
        snprintf(buf, len, "port=%d (%s now)", c->port->port_num, ibv_port_state_str(pa.state));
    else
        snprintf(buf, len, "port=%d", c->port->port_num);
    return buf;
}

void gasnetc_ibv_wc_fatal(const gasnetc_cep_t *c, int status, int vendor_err, uint32_t qp_num,
                          int is_send, int op, const char *extra)
{
    char port[64];
    gasneti_fatalerror("%s status=%d(%s) vendor_err=0x%x qp_num=0x%x hca=%s %s op=%s "
                       "%s=(rank:%u, qpi:%d)%s", is_send ? "snd" : "rcv", status,
                       ibv_wc_status_str((enum ibv_wc_status)status), vendor_err, qp_num,
                       c->res->hca->name, port_note(c, port, sizeof(port)),
                       is_send ? op_name(op) : "AM_RECEIVE", is_send ? "dest" : "src", c->rank,
                       c->qpi, extra);
}

/* Ends the job for a failed completion, unless this process is already
 * exiting (returns then: peers leaving make their QPs fail) or another rank
 * asked the job to exit (leaves quietly with its code: its departure is the
 * likely cause). */
static void wc_failed(const struct ibv_wc *wc, const gasnetc_cep_t *c, int is_send, int op)
{
    if (gasnetc_exit_in_progress()) return;
    gasnetc_ibv.up.exit_check();
    gasnetc_ibv_wc_fatal(c, (int)wc->status, (int)wc->vendor_err, wc->qp_num, is_send, op,
                         status_hint(wc->status));
}

void gasnetc_ibv_desc_finish(gasnetc_sdesc_t *d)
{
    if (d->done) d->done(d);
    if (d->hold[0] || d->hold[1]) {
        gasnetc_ibv_hold_release(d->hold[0]);
        gasnetc_ibv_hold_release(d->hold[1]);
        d->hold[0] = d->hold[1] = NULL;
    }
    if (d->bbuf) {
        gasnetc_ibv_pool_put(&gasnetc_ibv.bbuf_pool, d->bbuf);
        d->bbuf = NULL;
    }
    if (d->owned) GASNETC_ATOMIC_STORE(&d->state, GASNETC_SD_DONE);
    else gasnetc_ibv_pool_put(&gasnetc_ibv.desc_pool, &d->slot);
}

static void send_done(const struct ibv_wc *wc)
{
    gasnetc_sdesc_t *d = (gasnetc_sdesc_t *)(uintptr_t)wc->wr_id;
    gasnetc_cep_t *c = d->cep;
    GASNETC_ATOMIC_ADD(&c->sq_avail, 1);
    GASNETC_ATOMIC_ADD(&c->res->scq_avail, 1);
    if (__builtin_expect(wc->status != IBV_WC_SUCCESS, 0)) {
        if (gasnetc_ibv_rec_fail(c, wc, d->op, 1)) { /* kept for the re-established QP */
            gasneti_mutex_lock(&c->rec_lock);
            gasnetc_sdesc_t **p = &c->redo; /* sorted by post order (threads reap batches) */
            while (*p && (int32_t)((*p)->seq - d->seq) < 0) p = &(*p)->rnext;
            d->rnext = *p;
            *p = d;
            gasneti_mutex_unlock(&c->rec_lock);
            GASNETC_ATOMIC_ADD(&c->inflight, -1);
            return;
        }
        wc_failed(wc, c, 1, d->op);
    } else {
        gasnetc_ibv_fault_completion(c);
    }
    if (gasnetc_ibv.rec_on) {
        if (d->wr == GASNETC_WR_SEND && wc->status == IBV_WC_SUCCESS)
            GASNETC_ATOMIC_ADD(&c->tx_done, 1u);
        GASNETC_ATOMIC_ADD(&c->inflight, -1);
    }
    gasnetc_ibv_desc_finish(d);
}

/* Takes r's poll flag for a progress thread in the given mode: 1 when the
 * caller may call ibv_poll_cq now (and must release with cq_release). */
static int cq_acquire(int *flag, int mode)
{
    if (mode == GASNETC_CQ_HELD || mode == GASNETC_CQ_UNSERIALIZED) return 1;
    if (mode == GASNETC_CQ_WAIT) {
        while (!cq_trylock(flag)) sched_yield();
        return 1;
    }
    return cq_trylock(flag);
}
static void cq_release(int *flag, int mode)
{
    if (mode != GASNETC_CQ_HELD && mode != GASNETC_CQ_UNSERIALIZED) cq_unlock(flag);
}

int gasnetc_ibv_reap_send_cq(gasnetc_ibv_res_t *r, int mode)
{
    struct ibv_wc wc[SEND_BATCH];
    if (!cq_acquire(&r->scq_busy, mode)) return 0;
    int n = ibv_poll_cq(r->scq, SEND_BATCH, wc);
    cq_release(&r->scq_busy, mode);
    if (n < 0) gasneti_fatalerror("ibv_poll_cq (send CQ of %s) failed: %d", r->hca->name, n);
    for (int i = 0; i < n; i++) send_done(&wc[i]);
    return n;
}

int gasnetc_ibv_reap_send(void)
{
    int total = 0;
    if (__builtin_expect(GASNETC_ATOMIC_LOAD(&gasnetc_ibv.rec_active) != 0, 0))
        total += gasnetc_ibv_conn_poll(); /* a connection is being re-established */
    for (int h = 0; h < gasnetc_ibv.nres; h++)
        total += gasnetc_ibv_reap_send_cq(&gasnetc_ibv.res[h], GASNETC_CQ_TRY);
    return total;
}


int gasnetc_ibv_poll_recv_cq(gasnetc_ibv_res_t *r, int mode)
{
    struct ibv_wc wc[RECV_BATCH];
    if (!cq_acquire(&r->rcq_busy, mode)) return 0;
    int n = ibv_poll_cq(r->rcq, RECV_BATCH, wc);
    cq_release(&r->rcq_busy, mode);
    if (n < 0) gasneti_fatalerror("ibv_poll_cq (receive CQ of %s) failed: %d", r->hca->name, n);
    for (int i = 0; i < n; i++) {
        gasnetc_rbuf_t *rb = (gasnetc_rbuf_t *)(uintptr_t)wc[i].wr_id;
        if (r->srq) gasnetc_ibv_srq_claim(rb, &wc[i]); /* srq16: sets rb->cep */
        gasnetc_cep_t *c = rb->cep;
        if (__builtin_expect(wc[i].status != IBV_WC_SUCCESS, 0)) {
            if (gasnetc_ibv_rec_fail(c, &wc[i], 0, 0)) { /* reposted on the new QP */
                gasneti_mutex_lock(&c->rec_lock);
                rb->rnext = c->rbufs;
                c->rbufs = rb;
                gasneti_mutex_unlock(&c->rec_lock);
                GASNETC_ATOMIC_ADD(&c->rinflight, -1);
                continue;
            }
            wc_failed(&wc[i], c, 0, 0); /* returns only when exiting */
            if (gasnetc_ibv.rec_on) GASNETC_ATOMIC_ADD(&c->rinflight, -1);
            gasnetc_ibv_pool_put(&gasnetc_ibv.rbuf_pool, &rb->slot);
            continue;
        }
        if (gasnetc_ibv.rec_on) { /* counted before the handler: the peer's resync */
            GASNETC_ATOMIC_ADD(&c->rx_seen, 1u);
            GASNETC_ATOMIC_ADD(&c->rinflight, -1);
        }
        gasnetc_ibv_recv_one(rb, wc[i].byte_len);
    }
    return n;
}

static int poll_recv(void)
{
    int total = 0;
    for (int h = 0; h < gasnetc_ibv.nres; h++)
        total += gasnetc_ibv_poll_recv_cq(&gasnetc_ibv.res[h], GASNETC_CQ_TRY);
    return total;
}

/* Requests blocked by the process-wide total: credits returned by one peer
 * may be what a Request to another waits for. */
void gasnetc_ibv_drain_backlogs(void)
{
    if (gasnetc_credit_total_waiting(&gasnetc_ibv.credit_total) <= 0) return;
    for (int i = 0; i < gasnetc_ibv.nceps; i++) {
        gasnetc_cep_t *c = &gasnetc_ibv.ceps[i];
        if (__atomic_load_n(&c->credit.backlog_len, __ATOMIC_RELAXED) > 0)
            gasnetc_ibv_send_chain(gasnetc_credit_drain(&c->credit));
    }
}

int gasnetc_ibv_poll(int replies_only)
{
    if (!gasnetc_ibv.active) return 0;
    int n = gasnetc_ibv_reap_send() + gasnetc_ibv_conn_poll(); /* + connection setup */
    if (!replies_only) {
        n += poll_recv();
        gasnetc_ibv_drain_backlogs();
    }
    return n;
}

/* ---- asynchronous events ------------------------------------------------------ */
/* With link-flap recovery a QP that went to the error state is
 * re-established (its work requests complete in error and recover.c takes
 * them), so QP_FATAL and QP_REQ_ERR end nothing by themselves. */
static int event_is_fatal(enum ibv_event_type t)
{
    if ((t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR) && gasnetc_ibv.rec_on) return 0;
    return t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR || t == IBV_EVENT_QP_ACCESS_ERR ||
           t == IBV_EVENT_CQ_ERR || t == IBV_EVENT_DEVICE_FATAL || t == IBV_EVENT_SRQ_ERR;
}

static void *async_main(void *arg)
{
    gasnetc_ibv_res_t *r = arg;
    struct ibv_async_event ev;
    for (;;) {
        if (ibv_get_async_event(r->hca->ctx, &ev)) {
            if (errno == EINTR) continue;
            return NULL;
        }
        enum ibv_event_type t = ev.event_type;
        char where[160];
        snprintf(where, sizeof(where), "hca=%s", r->hca->name);
        if (t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR || t == IBV_EVENT_QP_ACCESS_ERR) {
            for (int i = 0; i < gasnetc_ibv.nceps; i++)
                if (gasnetc_ibv.ceps[i].qp == ev.element.qp)
                    gasnetc_ibv_cep_name(&gasnetc_ibv.ceps[i], where, sizeof(where));
        } else if (t == IBV_EVENT_PORT_ERR || t == IBV_EVENT_PORT_ACTIVE) {
            snprintf(where, sizeof(where), "hca=%s port=%d", r->hca->name, ev.element.port_num);
        }
        if (t == IBV_EVENT_SRQ_LIMIT_REACHED) gasnetc_ibv_srq_limit_event(ev.element.srq); /* srq16 */
        ibv_ack_async_event(&ev);
        if (event_is_fatal(t) && !gasnetc_exit_in_progress()) {
            gasnetc_ibv.up.exit_check();
            gasneti_fatalerror("asynchronous event %d(%s) %s op=ASYNC", (int)t,
                               ibv_event_type_str(t), where);
        }
        if (t == IBV_EVENT_PORT_ERR)
            gasneti_warning("asynchronous event %s: %s is down; %s", ibv_event_type_str(t), where,
                            gasnetc_ibv.rec_on ? "connections that fail meanwhile are "
                                                 "re-established when it is back (GASNET_RECONNECT_TIMEOUT)"
                                               : "traffic over it will fail");
    }
}

void gasnetc_ibv_async_start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the client's threads */
    for (int h = 0; h < gasnetc_ibv.nres; h++) {
        pthread_t tid;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, gasnetc_ibv_thread_stack()); /* room for client TLS */
        int rc = pthread_create(&tid, &attr, async_main, &gasnetc_ibv.res[h]);
        pthread_attr_destroy(&attr);
        if (rc) gasneti_fatalerror("cannot start the verbs event thread: %s", strerror(rc));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}
