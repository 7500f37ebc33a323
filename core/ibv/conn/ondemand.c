/* core/ibv/conn/ondemand.c: on-demand connections, connect files, and the
 * choice of QP every send to a network peer starts with (gasnetc_ibv_pick_cep).
 *
 * A network peer not connected at start-up is connected on first use
 * (gasnetc_ibv_conn_get, called when gasnetc_ibv.peer_ceps[peer] is still
 * NULL) by a three-way handshake over the UD queue pairs of ud.c:
 *
 *   initiator I                          acceptor A
 *   QPs created (INIT), buffers posted
 *   REQ(I's QP numbers, PSNs)  ------->  QPs created, buffers posted,
 *                                        RTR/RTS towards I
 *   RTR/RTS towards A, READY   <-------  REP(A's QP numbers, PSNs)
 *   RTU                        ------->  READY
 *
 * I sends nothing on the connection before REP (A's buffers are posted by
 * then), A nothing before RTU (I's QP is in RTR by then).  I retransmits
 * REQ until REP, A retransmits REP until RTU, both after
 * GASNET_CONNECT_RETRANS_MIN microseconds, doubling up to _MAX, then the
 * setup fails with one line naming the peer.  Duplicates are answered
 * (a REQ in ACCEPTED by REP, a REP in READY by RTU) or ignored.  Crossed
 * requests (both sides started at once): the lower rank's request wins;
 * the higher rank answers it with the QPs it had made for its own request
 * (conn_policy.h).  Callers wait by polling (everything, or only this and
 * send completions inside a handler); an IMMEDIATE AM returns "no
 * resources" instead.  Nothing is queued, so nothing can be lost.
 *
 * All state changes happen under one lock (a flag: setup is rare); the
 * fast path is the load of peer_ceps[peer] in wr/wr.c, published (release)
 * only once the connection is READY.
 *
 * Connect files: GASNET_CONNECTFILE_IN limits the start-up connections
 * (connect.c); GASNET_CONNECTFILE_OUT lists the peers this rank sent to
 * (Requests, RMA) and those connected on demand (either side).
 * To see first uses at no cost on the fast path, static connections are
 * then published at their first use; the file is rewritten (temporary
 * file + rename) at start-up and whenever a peer is used for the first
 * time, so it is complete however the job ends.
 */
#include "core/ibv/conn/conn.h"
#include "core/ibv/conn/conn_policy.h"
#include "core/ibv/conn/connfile.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ST_NONE, ST_REQ_SENT, ST_ACCEPTED, ST_READY, ST_FAILED };
enum { MSG_REQ = 1, MSG_REP = 2, MSG_RTU = 3 };
#define CONN_MAGIC 0x67694331u /* "gIC1" */
#define MAX_QPS 16

typedef struct {
    gasnetc_ud_hdr_t h;
    uint32_t echo; /* REP, RTU: the receiver's first QP number, as the sender knows it */
    uint32_t qpn[MAX_QPS], psn[MAX_QPS];
} conn_msg_t;

typedef struct {
    uint8_t state, opened, initiated, rail;
    uint32_t psn;       /* my first PSN (QP q: psn + q) */
    uint32_t peer_qpn0; /* the peer's first QP number, once known */
    uint64_t next_us, interval_us, start_us;
    int sent;
} conn_peer_t;

static struct {
    int on;              /* UD handshake available (job-wide) */
    int dynamic;         /* this rank may initiate (GASNET_CONNECT_DYNAMIC) */
    uint64_t rt_min, rt_max;
    conn_peer_t *peer;   /* [rank] */
    gasnetc_cep_t **cep_of;
    uint8_t *is_static;
    uint32_t *pending;   /* ranks with a timer running */
    int npending;
    int busy;            /* the lock */
    /* connect-file output */
    char *out_path;
    int out_base;
    uint8_t *used;
} cs;

static void lock(void)
{
    while (__atomic_exchange_n(&cs.busy, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&cs.busy, __ATOMIC_RELAXED)) {
        }
}
static int trylock(void)
{
    return !__atomic_load_n(&cs.busy, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&cs.busy, 1, __ATOMIC_ACQUIRE);
}
static void unlock(void) { __atomic_store_n(&cs.busy, 0, __ATOMIC_RELEASE); }

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void publish(uint32_t r)
{
    __atomic_store_n(&gasnetc_ibv.peer_ceps[r], cs.cep_of[r], __ATOMIC_RELEASE);
}

static void write_connfile(void);
static void pending_del(uint32_t r);
/* A connection made on demand is used by both sides: both files list it. */
static void ready(uint32_t r)
{
    cs.peer[r].state = ST_READY;
    pending_del(r);
    publish(r);
    if (cs.used && !cs.used[r]) {
        cs.used[r] = 1;
        write_connfile();
    }
}

/* ---- connect file ------------------------------------------------------------------ */
static void write_connfile(void)
{
    if (!cs.out_path) return;
    char *text = gasnetc_connfile_format(gasnetc_ibv.rank, gasnetc_ibv.size, cs.used, cs.out_base);
    size_t n = strlen(cs.out_path) + 16;
    char *tmp = malloc(n);
    FILE *f = NULL;
    if (text && tmp) {
        snprintf(tmp, n, "%s.tmp", cs.out_path);
        f = fopen(tmp, "w");
    }
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f)) ok = 0;
    if (ok && rename(tmp, cs.out_path)) ok = 0;
    if (!ok) {
        gasneti_warning("GASNET_CONNECTFILE_OUT: cannot write %s: %s (no more connect-file "
                        "output from rank %u)", cs.out_path, strerror(errno), gasnetc_ibv.rank);
        free(cs.out_path);
        cs.out_path = NULL;
    }
    free(text);
    free(tmp);
}

/* ---- handshake --------------------------------------------------------------------- */
static void pending_add(uint32_t r)
{
    conn_peer_t *p = &cs.peer[r];
    p->interval_us = gasnetc_conn_next_interval(0, cs.rt_min, cs.rt_max);
    p->next_us = now_us() + p->interval_us;
    cs.pending[cs.npending++] = r;
}

static void pending_del(uint32_t r)
{
    for (int i = 0; i < cs.npending; i++)
        if (cs.pending[i] == r) {
            cs.pending[i] = cs.pending[--cs.npending];
            return;
        }
}

static void send_msg(uint32_t r, int type)
{
    conn_peer_t *p = &cs.peer[r];
    gasnetc_cep_t *ceps = cs.cep_of[r];
    conn_msg_t m;
    memset(&m, 0, sizeof(m));
    gasnetc_ud_hdr_fill(&m.h, CONN_MAGIC, type, r);
    m.echo = p->peer_qpn0;
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        m.qpn[q] = ceps[q].qp->qp_num;
        m.psn[q] = (p->psn + (uint32_t)q) & 0xffffff;
    }
    (void)gasnetc_ud_send(r, p->rail, &m, sizeof(m)); /* no buffer: the timer resends */
    p->sent++;
}

static void open_qps(uint32_t r)
{
    conn_peer_t *p = &cs.peer[r];
    if (p->opened) return;
    for (int q = 0; q < gasnetc_ibv.nqps; q++) gasnetc_ibv_cep_open(&cs.cep_of[r][q]);
    p->psn = gasnetc_ibv_new_psn();
    p->opened = 1;
}

static void connect_qps(uint32_t r, const conn_msg_t *m)
{
    conn_peer_t *p = &cs.peer[r];
    for (int q = 0; q < gasnetc_ibv.nqps; q++) {
        gasnetc_cep_t *c = &cs.cep_of[r][q];
        int rail = 0;
        while (rail < gasnetc_ibv.nports && &gasnetc_ibv.ports[rail] != c->port) rail++;
        gasnetc_conn_addr_t a = *gasnetc_ud_port_addr(r, rail); /* LID, GID, MTU */
        a.qpn = m->qpn[q];
        a.psn = m->psn[q];
        a.valid = 1;
        gasnetc_ibv_cep_connect(c, &a, (p->psn + (uint32_t)q) & 0xffffff);
    }
    p->peer_qpn0 = m->qpn[0];
}

static void start(uint32_t r)
{
    conn_peer_t *p = &cs.peer[r];
    if (p->state != ST_NONE) return;
    open_qps(r);
    p->state = ST_REQ_SENT;
    p->initiated = 1;
    p->rail = (uint8_t)(r % (uint32_t)gasnetc_ibv.nports);
    p->start_us = now_us();
    pending_add(r);
    send_msg(r, MSG_REQ);
}

static void on_msg(int rail, const void *buf, size_t len)
{
    conn_msg_t m;
    if (len > offsetof(gasnetc_ud_hdr_t, type) &&
        ((const uint8_t *)buf)[offsetof(gasnetc_ud_hdr_t, type)] >= GASNETC_UD_TYPE_REC) {
        /* link-flap recovery (recover.c) */
        gasnetc_ibv_rec_msg(rail, buf, len);
        return;
    }
    if (len < sizeof(m)) return;
    memcpy(&m, buf, sizeof(m));
    uint32_t me = gasnetc_ibv.rank, r = m.h.src;
    if (!gasnetc_ud_hdr_ok(&m.h, CONN_MAGIC) || !cs.cep_of[r]) return; /* not for us */
    conn_peer_t *p = &cs.peer[r];
    switch (m.h.type) {
    case MSG_REQ:
        if (p->state == ST_NONE ||
            (p->state == ST_REQ_SENT && gasnetc_conn_accept_crossed(me, r))) {
            open_qps(r); /* crossed: the QPs of my own request */
            connect_qps(r, &m);
            if (p->state == ST_REQ_SENT) pending_del(r);
            else p->start_us = now_us();
            p->state = ST_ACCEPTED;
            p->rail = (uint8_t)rail;
            pending_add(r);
            send_msg(r, MSG_REP);
        } else if (p->state == ST_ACCEPTED && m.qpn[0] == p->peer_qpn0) {
            send_msg(r, MSG_REP); /* our REP was lost */
        }
        break;
    case MSG_REP:
        if (!p->opened || m.echo != cs.cep_of[r][0].qp->qp_num) break;
        if (p->state == ST_REQ_SENT) {
            connect_qps(r, &m);
            ready(r);
            send_msg(r, MSG_RTU);
        } else if (p->state == ST_READY && m.qpn[0] == p->peer_qpn0) {
            send_msg(r, MSG_RTU); /* our RTU was lost */
        }
        break;
    case MSG_RTU:
        if (p->state == ST_ACCEPTED && p->opened && m.echo == cs.cep_of[r][0].qp->qp_num &&
            m.qpn[0] == p->peer_qpn0)
            ready(r);
        break;
    default: break;
    }
}

static void timers(void)
{
    uint64_t now = now_us();
    for (int i = 0; i < cs.npending; i++) {
        uint32_t r = cs.pending[i];
        conn_peer_t *p = &cs.peer[r];
        if (now < p->next_us) continue;
        uint64_t next = gasnetc_conn_next_interval(p->interval_us, cs.rt_min, cs.rt_max);
        if (!next) {
            if (gasnetc_exit_in_progress()) { /* the peer may be gone: give up quietly */
                p->state = ST_FAILED;
                cs.pending[i--] = cs.pending[--cs.npending];
                continue;
            }
            gasnetc_ibv.up.exit_check();
            gasneti_fatalerror("cannot connect to rank %u: no %s after %.1f s (%d messages, "
                               "GASNET_CONNECT_RETRANS_MIN=%llu / _MAX=%llu us): is rank %u "
                               "still running and calling GASNet?", r,
                               p->state == ST_REQ_SENT ? "answer to the connection request"
                                                       : "confirmation of the connection",
                               (double)(now - p->start_us) / 1e6, p->sent,
                               (unsigned long long)cs.rt_min, (unsigned long long)cs.rt_max, r);
        }
        p->interval_us = next;
        p->next_us = now + next;
        send_msg(r, p->state == ST_REQ_SENT ? MSG_REQ : MSG_REP);
    }
}

int gasnetc_ibv_conn_poll(void)
{
    if (!cs.on || !trylock()) return 0;
    int n = gasnetc_ud_poll(on_msg);
    if (cs.npending) timers();
    if (GASNETC_ATOMIC_LOAD(&gasnetc_ibv.rec_active)) gasnetc_ibv_rec_poll();
    unlock();
    return n;
}

void gasnetc_ibv_conn_start_all(void)
{
    if (!cs.on || !cs.dynamic || !cs.cep_of) return;
    lock();
    for (uint32_t r = 0; r < gasnetc_ibv.size; r++)
        if (cs.cep_of[r] && !cs.is_static[r] && cs.peer[r].state == ST_NONE) start(r);
    unlock();
}

/* ---- first use ------------------------------------------------------------------------ */
static void no_conn(uint32_t dest, const char *why)
{
    gasneti_fatalerror("no verbs connection to rank %u: %s", dest, why);
}

/* Under the lock: a first use of dest.  Returns 1 when dest is usable now. */
static int first_use(uint32_t dest)
{
    if (cs.used && !cs.used[dest]) {
        cs.used[dest] = 1;
        write_connfile();
    }
    if (cs.is_static[dest]) {
        publish(dest);
        return 1;
    }
    conn_peer_t *p = &cs.peer[dest];
    if (p->state == ST_READY) return 1;
    if (!cs.on || !cs.dynamic)
        no_conn(dest, "it was not connected at start-up (GASNET_CONNECT_STATIC, "
                      "GASNET_CONNECTFILE_IN) and this rank has GASNET_CONNECT_DYNAMIC=0");
    if (p->state == ST_FAILED)
        no_conn(dest, "connection setup gave up while this process was exiting");
    start(dest);
    return 0;
}

static void check_dest(uint32_t dest)
{
    if (dest >= gasnetc_ibv.size || !cs.cep_of || !cs.cep_of[dest])
        no_conn(dest, "it is in this process's shared-memory neighbourhood, or not a rank of "
                      "this job");
}

int gasnetc_ibv_conn_try(uint32_t dest)
{
    check_dest(dest);
    if (__atomic_load_n(&gasnetc_ibv.peer_ceps[dest], __ATOMIC_ACQUIRE)) return 1;
    lock();
    int ok = first_use(dest);
    unlock();
    if (!ok) gasnetc_ibv_conn_poll();
    return ok;
}

gasnetc_cep_t *gasnetc_ibv_conn_get(uint32_t dest)
{
    gasnetc_cep_t *c;
    if (gasnetc_ibv_conn_try(dest)) return gasnetc_ibv.peer_ceps[dest];
    int in_handler = gasnetc_in_handler();
    while (!(c = __atomic_load_n(&gasnetc_ibv.peer_ceps[dest], __ATOMIC_ACQUIRE))) {
        if (in_handler) { /* handlers must not run here */
            gasnetc_ibv_conn_poll();
            gasnetc_ibv_reap_send();
        } else {
            gasnetc_ibv.up.poll();
        }
        if (__atomic_load_n(&cs.peer[dest].state, __ATOMIC_RELAXED) == ST_FAILED)
            no_conn(dest, "connection setup gave up while this process was exiting");
    }
    return c;
}

/* ---- start-up ---------------------------------------------------------------------------- */
void gasnetc_ibv_conn_init(int ud_job, const uint8_t *is_static, gasnetc_cep_t **cep_of,
                           uint32_t n_remote)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    uint32_t size = t->size;
    cs.cep_of = cep_of;
    cs.is_static = calloc(size, 1);
    cs.peer = calloc(size, sizeof(conn_peer_t));
    cs.pending = calloc(size, sizeof(uint32_t));
    if (!cs.is_static || !cs.peer || !cs.pending)
        gasneti_fatalerror("out of memory for connection state (%u ranks)", size);
    memcpy(cs.is_static, is_static, size);
    const char *out = GASNETI_PARAM_STR(GASNET_CONNECTFILE_OUT);
    if (out && *out && t->nceps) {
        size_t n = strlen(out) + 16;
        cs.out_path = malloc(n);
        cs.used = calloc(size, 1);
        if (!cs.out_path || !cs.used) gasneti_fatalerror("out of memory (GASNET_CONNECTFILE_OUT)");
        if (gasnetc_connfile_path(out, t->rank, cs.out_path, n))
            gasneti_fatalerror("GASNET_CONNECTFILE_OUT=%s: path too long", out);
        cs.out_base = (int)GASNETI_PARAM_INT(GASNET_CONNECTFILE_BASE);
    }
    for (uint32_t r = 0; r < size; r++) {
        if (!cep_of[r] || !is_static[r]) continue;
        cs.peer[r].state = ST_READY;
        cs.peer[r].opened = 1;
        if (!cs.used) publish(r); /* else at first use, to record it */
    }
    if (ud_job) {
        cs.rt_min = (uint64_t)GASNETI_PARAM_INT(GASNET_CONNECT_RETRANS_MIN);
        cs.rt_max = (uint64_t)GASNETI_PARAM_INT(GASNET_CONNECT_RETRANS_MAX);
        if (cs.rt_max < cs.rt_min)
            gasneti_fatalerror("GASNET_CONNECT_RETRANS_MAX=%llu is below GASNET_CONNECT_RETRANS_MIN"
                               "=%llu: raise the maximum", (unsigned long long)cs.rt_max,
                               (unsigned long long)cs.rt_min);
        int snds = (int)GASNETI_PARAM_INT(GASNET_CONNECT_SNDS);
        int rcvs = gasneti_param_isset(GASNETI_PARAM_GASNET_CONNECT_RCVS)
                       ? (int)GASNETI_PARAM_INT(GASNET_CONNECT_RCVS)
                       : gasnetc_conn_default_rcvs(n_remote);
        if (t->nqps > MAX_QPS)
            gasneti_fatalerror("on-demand connections carry at most %d QPs per peer and "
                               "GASNET_NUM_QPS asks for %d: lower it, or connect every peer at "
                               "start-up (GASNET_CONNECT_STATIC=1, no GASNET_CONNECTFILE_IN)",
                               MAX_QPS, t->nqps);
        gasnetc_ud_init(snds, rcvs);
        cs.dynamic = GASNETI_PARAM_BOOL(GASNET_CONNECT_DYNAMIC);
        cs.on = t->nceps > 0;
        if (t->rank == 0 && GASNETI_PARAM_BOOL(GASNET_VERBOSEENV))
            gasneti_info("verbs: on-demand connections over UD (%d send / %d receive buffers "
                         "per port, retransmission %llu..%llu us)", snds, rcvs,
                         (unsigned long long)cs.rt_min, (unsigned long long)cs.rt_max);
    }
    if (cs.out_path) write_connfile();
}

/* ---- which QP: the entry of every send to a network peer ---------------------- */
gasnetc_cep_t *gasnetc_ibv_pick_cep(uint32_t dest)
{
    gasnetc_cep_t *ceps =
        dest < gasnetc_ibv.size ? GASNETC_ATOMIC_LOAD(&gasnetc_ibv.peer_ceps[dest]) : NULL;
    if (__builtin_expect(!ceps, 0)) ceps = gasnetc_ibv_conn_get(dest); /* first use */
    if (gasnetc_ibv.nqps == 1) return ceps;
    unsigned q = GASNETC_ATOMIC_ADD(&gasnetc_ibv.peer_rr[dest], 1u);
    return &ceps[q % (unsigned)gasnetc_ibv.nqps];
}
