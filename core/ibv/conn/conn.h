/* core/ibv/conn/conn.h: connection management shared by connect.c (start-up),
 * ondemand.c (on-demand connections, connect files) and ud.c (the UD queue
 * pairs that carry the handshake).  Design: core/ibv/conn/README "On-demand
 * connections".  Only core/ibv includes this header. */
#ifndef GASNETC_IBV_CONN_H
#define GASNETC_IBV_CONN_H

#include "core/ibv/ibv_internal.h"

/* Where one queue pair (or one UD port) of a rank is: exchanged through the
 * bootstrap at start-up, or carried by the handshake. */
typedef struct {
    uint32_t qpn;
    uint32_t psn;
    uint16_t lid;
    uint8_t mtu; /* verbs MTU code */
    uint8_t valid;
    uint8_t gid[16];
} gasnetc_conn_addr_t;

/* ---- connect.c: the only place queue pairs of connections are made ---------- */
/* Creates cep's RC QP (INIT) and posts its GASNET_AM_CREDITS_PP Request
 * buffers.  Fatal on failure.  Init path, or ondemand.c under its lock. */
void gasnetc_ibv_cep_open(gasnetc_cep_t *c);
/* Moves cep's QP to RTR/RTS towards peer (my send PSN my_psn). */
void gasnetc_ibv_cep_connect(gasnetc_cep_t *c, const gasnetc_conn_addr_t *peer, uint32_t my_psn);
/* Recovery (recover.c): moves cep's QP to RESET and back to INIT (same
 * QP number, nothing posted). */
void gasnetc_ibv_cep_reinit(gasnetc_cep_t *c);
/* Recovery: INIT (after cep_reinit) -> RTR -> RTS towards peer; -1 when a
 * transition fails (no route yet: the caller retries). */
int gasnetc_ibv_cep_reconnect(gasnetc_cep_t *c, const gasnetc_conn_addr_t *peer, uint32_t my_psn);
/* The time an RC QP retransmits before it fails (GASNET_QP_TIMEOUT,
 * GASNET_QP_RETRY_COUNT), in microseconds. */
uint64_t gasnetc_ibv_retry_window_us(void);
/* A fresh 24-bit packet sequence number. */
uint32_t gasnetc_ibv_new_psn(void);

/* ---- ondemand.c ---------------------------------------------------------------- */
/* Called by gasnetc_ibv_connect (collective, every rank, after the static
 * connections): ud_job != 0 when some rank may connect on demand (then the
 * UD queue pairs are made and their addresses exchanged here);
 * is_static[r]: r was connected at start-up; cep_of[r]: r's nqps ceps (NULL
 * for PSHM peers and self); n_remote: network peers of this rank.  Publishes
 * the static connections in gasnetc_ibv.peer_ceps (at first use instead when
 * GASNET_CONNECTFILE_OUT records what is used) and writes the first
 * connect file. */
void gasnetc_ibv_conn_init(int ud_job, const uint8_t *is_static, gasnetc_cep_t **cep_of,
                           uint32_t n_remote);

/* ---- ud.c: one UD QP per selected port (rail) ------------------------------------ */
#define GASNETC_UD_MSG_MAX 192 /* largest handshake message */
/* The header every message on the UD QPs starts with: the on-demand
 * handshake's (ondemand.c, types 1-3) and link-flap recovery's (recover.c,
 * types GASNETC_UD_TYPE_REC and up); the receiver tells them apart by type. */
typedef struct {
    uint32_t magic; /* the kind of message: each file's own constant */
    uint8_t type, nqps, pad[2];
    uint32_t src, dst; /* job ranks */
} gasnetc_ud_hdr_t;
#define GASNETC_UD_TYPE_REC 4
/* Fills h: magic and type, this rank as src, dst, this rank's QPs per peer. */
void gasnetc_ud_hdr_fill(gasnetc_ud_hdr_t *h, uint32_t magic, int type, uint32_t dst);
/* Whether h carries magic, is for this rank and comes from a rank of this
 * job with as many QPs per peer (a datagram from another job on the fabric
 * fails this). */
int gasnetc_ud_hdr_ok(const gasnetc_ud_hdr_t *h, uint32_t magic);
/* Collective: creates the UD QPs (snds send and rcvs receive buffers each)
 * and exchanges every rank's UD addresses.  Init path. */
void gasnetc_ud_init(int snds, int rcvs);
/* Sends len bytes to rank's UD QP on rail.  Returns 0, or -1 when every
 * send buffer is in flight (the caller's retransmission resends). */
int gasnetc_ud_send(uint32_t rank, int rail, const void *msg, size_t len);
/* Polls the UD CQs: frees completed send buffers, passes each arrived
 * message to fn and reposts its buffer.  Returns events. */
typedef void (*gasnetc_ud_recv_fn)(int rail, const void *msg, size_t len);
int gasnetc_ud_poll(gasnetc_ud_recv_fn fn);
/* Rank's port on rail (LID, GID, MTU), from the start-up exchange. */
const gasnetc_conn_addr_t *gasnetc_ud_port_addr(uint32_t rank, int rail);

#endif /* GASNETC_IBV_CONN_H */
