/* core/ibv/ibv.h: what core/ibv offers the rest of the core.  This header
 * does not include <infiniband/verbs.h> (only the .c files of core/ibv do): verbs types
 * appear as incomplete struct pointers.
 *
 * HCA and port discovery and selection (core/ibv/ports/ports.c; rules in
 * core/ibv/ports/README): gex_Client_Init calls gasnetc_ibv_ports_open() once,
 * after the parameters are loaded and the bootstrap knows rank and size, and
 * before anything else touches verbs.
 *
 * Thread safety: open/close run on the single-threaded init/exit paths; the
 * accessors only read what open stored and may be called from anywhere,
 * including AM handlers.
 */
#ifndef GASNETC_IBV_H
#define GASNETC_IBV_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

#include "core/ibv/ports/ports_select.h" /* GASNETC_IBV_LINK_IB / _ETH */

struct ibv_context;
struct ibv_device_attr;

/* One opened HCA.  Its ports share ctx (and whatever the core allocates on
 * it: PD, CQs). */
typedef struct gasnetc_ibv_hca_s {
    struct ibv_context *ctx;             /* from ibv_open_device() */
    const struct ibv_device_attr *attr;  /* from ibv_query_device() */
    char name[GASNETC_IBV_HCA_NAME_MAX]; /* e.g. "mlx5_0", "rxe0" */
    int index;                           /* 0..nhcas-1 among the selected HCAs */
    int near;                            /* hwloc: 1 near our socket, 0 far, -1 unknown */
} gasnetc_ibv_hca_t;

/* One selected port: everything a peer needs to address it, and the limits
 * the connection code must respect. */
typedef struct gasnetc_ibv_port_s {
    gasnetc_ibv_hca_t *hca;
    int port_num;        /* verbs port number, 1-based */
    int link_layer;      /* GASNETC_IBV_LINK_IB (LID) or GASNETC_IBV_LINK_ETH (RoCE, GID) */
    uint16_t lid;        /* InfiniBand base LID; 0 on RoCE */
    uint8_t lmc;         /* LID mask count (IB) */
    uint8_t sm_sl;       /* service level of the SM path (IB); 0 on RoCE */
    uint16_t pkey;       /* P_Key table value in use (with membership bit) */
    uint16_t pkey_index; /* its table index: GASNET_IBV_PKEY, else 0 */
    int use_grh;         /* 1: address handles need a GRH (always on RoCE) */
    int gid_index;       /* source GID index (RoCE: chosen per README; IB: 0) */
    int gid_type;        /* GASNETC_IBV_GID_TYPE_IB / _ROCE_V1 / _ROCE_V2 */
    uint8_t gid[16];     /* that GID, network byte order */
    int active_mtu;      /* verbs MTU code of the port (IBV_MTU_256=1 .. 4096=5) */
    int mtu;             /* code to use: active_mtu capped by GASNET_MAX_MTU.
                          * A connection uses min(local mtu, remote mtu). */
    uint32_t max_msg_sz; /* largest message the port accepts */
} gasnetc_ibv_port_t;

/* Discovers HCAs/ports, applies GASNET_IBV_PORTS (or GASNET_IBV_PORTS_<socket>),
 * GASNET_NUM_QPS, GASNET_IBV_PKEY, GASNET_MAX_MTU, the build's HCA limit and
 * the hwloc preference; prints GASNET_IBV_LIST_PORTS output and the
 * GASNET_IBV_PORTS_VERBOSE warnings.  On success *ports is a malloc'ed array
 * of *nports entries (in detection order; ports[i] is rail i), HCAs opened.
 * When nothing is usable: need_network == 0 -> returns 0 with *nports == 0 and
 * *ports == NULL (the job runs on PSHM alone; said once on rank 0 under
 * GASNET_VERBOSEENV); need_network != 0 (peers on other hosts, or
 * GASNET_SUPERNODE_MAXSIZE=1 with size > 1) -> fatal error listing every HCA
 * and port found and why it was rejected.  Invalid GASNET_IBV_PORTS,
 * GASNET_IBV_LIST_PORTS_NODES, GASNET_MAX_MTU or GASNET_IBV_PKEY values are
 * fatal on every rank.  Returns 0 (errors do not return).
 * Init path only; not thread-safe; not from handlers. */
int gasnetc_ibv_ports_open(uint32_t rank, uint32_t size, int need_network,
                           gasnetc_ibv_port_t **ports, int *nports);

/* Closes the HCAs opened by gasnetc_ibv_ports_open and frees ports (which
 * must be the array it returned, or NULL).  Everything created on the HCA
 * contexts (QPs, CQs, MRs, PDs) must be destroyed first.  Exit path only. */
void gasnetc_ibv_ports_close(gasnetc_ibv_port_t *ports, int nports);

/* Number of HCAs the selected ports use (0 before open or on PSHM only). */
int gasnetc_ibv_num_hcas(void);

/* The i-th selected HCA (0 <= i < gasnetc_ibv_num_hcas()), or NULL. */
gasnetc_ibv_hca_t *gasnetc_ibv_hca(int i);

/* QPs per peer: GASNET_NUM_QPS, or the number of selected ports when that is
 * 0; 0 before open or on PSHM only. */
int gasnetc_ibv_qps_per_peer(void);

/* Index in the ports array that QP number qp (0..qps_per_peer-1) uses:
 * QPs are dealt round-robin over the ports. */
int gasnetc_ibv_qp_port(int qp);

/* ---- the verbs AM transport (conn/, am/, wr/, mem/seg.c) --------------------
 * Design: core/ibv/README and the README of each sub-folder.  "Network
 * peers" are the ranks outside this process's PSHM neighbourhood; each has
 * GASNET_NUM_QPS connections (ceps). */

#include "core/am/wire.h"

/* What the transport needs from the core (core/base/transport.h). */
struct gasnetc_transport_up;

/* Collective (every rank, after gasnetc_ibv_ports_open and PSHM init): when
 * any rank has network peers (up->is_local(r) == 0 for some r), creates
 * PD/CQs per HCA, the registered buffer pools and RC QPs to every network
 * peer, exchanges addresses through the bootstrap, brings the QPs to RTS
 * and preposts the receive buffers.  A rank without network peers still
 * joins the exchanges.  Keeps up (a copy) for every later call into the
 * core: delivery of arrived AMs, polls of wait loops, exit checks, the
 * internal AMs of firehose.  Fatal (one line) on any failure.  Init path
 * only. */
void gasnetc_ibv_connect(gasnetc_ibv_port_t *ports, int nports, uint32_t rank, uint32_t size,
                         const struct gasnetc_transport_up *up);

/* 1 once gasnetc_ibv_connect set up a transport on this rank.  Any context. */
int gasnetc_ibv_active(void);

/* Collective (every rank, from gex_Segment_Attach after PSHM): registers
 * [addr, addr+size) on every HCA and exchanges the rkeys, so that Long
 * payloads (and RMA) can be written into peers' segments.  No-op on every
 * rank when no rank uses the network.  Init path only. */
void gasnetc_ibv_segment_attach(void *addr, uintptr_t size);

/* ---- mailbox (mbox.c): registered bytes peers write by RDMA --------------------- */
/* Asks for a zeroed mailbox of `bytes` on every rank, registered and
 * exchanged at gex_Segment_Attach when some rank uses verbs; ready() then
 * runs on every rank (inside attach, not in a handler).  Call before
 * attach, alike on every rank.  Init path. */
void gasnetc_ibv_mbox_request(size_t bytes, void (*ready)(void));
/* seg.c: sets the mailbox up (collective, inside attach). */
void gasnetc_ibv_mbox_attach(void);
/* This rank's mailbox, or NULL before it exists.  Any context. */
const volatile uint64_t *gasnetc_ibv_mbox_local(void);
/* Writes the two 8-byte words (w0, w1) at byte offset off (16-aligned) of
 * dest's mailbox with one RDMA WRITE on QP 0 of the established connection
 * to dest.  Returns 1 when posted, 0 when dest has no connection now (PSHM
 * neighbour, self, on-demand peer not connected yet) or no mailbox.  The
 * two words may become visible in any order.  Not in handlers. */
int gasnetc_ibv_mbox_write(uint32_t dest, size_t off, uint64_t w0, uint64_t w1);

/* ---- created segments (cseg.c; extended/ep.c at Publish) ------------------- */
#define GASNETC_IBV_SEGKEYS 8 /* rkeys published per segment (>= HCAs in use) */
struct gasnetc_ibv_cseg_reg;
/* Registers [addr, +size) on every HCA in use (SEGMENT_FAST, network
 * active); rkeys[h] get the keys, *reg the registration.  -1 (rkeys 0,
 * *reg NULL) when verbs is not used or registration failed (warning).
 * Init-like path: not in handlers. */
int gasnetc_ibv_cseg_register(void *addr, uintptr_t size, uint32_t rkeys[GASNETC_IBV_SEGKEYS],
                              struct gasnetc_ibv_cseg_reg **reg);
/* The rkeys of a registration (for a second Publish). */
void gasnetc_ibv_cseg_keys(const struct gasnetc_ibv_cseg_reg *reg,
                           uint32_t rkeys[GASNETC_IBV_SEGKEYS]);
/* Undoes gasnetc_ibv_cseg_register (NULL: nothing). */
void gasnetc_ibv_cseg_deregister(struct gasnetc_ibv_cseg_reg *reg);
/* Files a peer's published segment of endpoint ep_idx.  Locks. */
void gasnetc_ibv_cseg_remote(unsigned ep_idx, uint32_t rank, uint64_t addr, uint64_t size,
                             const uint32_t rkeys[GASNETC_IBV_SEGKEYS]);
/* The rkey on hca of a prefix of [raddr, +len) in a filed created segment
 * of rank: returns the prefix length, 0 if none covers raddr.  Any
 * context, lock-free. */
size_t gasnetc_ibv_cseg_rkey(int hca, uint32_t rank, uint64_t raddr, size_t len, uint32_t *rkey);
extern int gasnetc_ibv_cseg_any;
/* 1 if a Long of len bytes can reach [raddr, +len) at network peer rank:
 * it travels packed (len <= GASNET_PACKEDLONG_LIMIT) or the range lies in
 * a created segment whose rkeys were published.  Any thread. */
int gasnetc_ibv_cseg_long_ok(uint32_t rank, uint64_t raddr, size_t len);

/* Sends one AM over verbs.  Request: dest is the job rank and net NULL.
 * Reply: net is the connection the Request came on (from the deliver
 * callback).  hdr is complete except credits; Long: hdr->dest_addr is the
 * destination in dest's segment and payload the source.  Returns after the
 * payload may be reused (local completion), or 1 without sending anything
 * when immediate != 0 and a Request has no credit.  Requests may poll
 * everything while they wait; Replies (allowed in handlers) only reap send
 * completions.  Thread-safe.
 * lc: NULL, or (Requests only) an extended-layer completion counter
 * (gasnete_ctr_t *, the op counter of an lc_opt event or the GEX_EC_AM
 * counter of an NBI set): the call may then return while the HCA still
 * reads the payload in place, having added 1 to the counter's init; the
 * send completion adds the matching done (any thread). */
int gasnetc_ibv_am_send(uint32_t dest, void *net, gasnetc_am_hdr_t *hdr, const void *payload,
                        size_t nbytes, int immediate, void *lc);

/* The AM Short fast path (core/am_fpam.c, release builds): a Short to job rank
 * dest, a Request (net NULL) over an established connection or a Reply on
 * net, its wire header packed from the nargs int arguments in *ap straight
 * into a send descriptor (no gasnetc_am_hdr_t, no routing).  Waits for
 * credit as gasnetc_ibv_am_send does without immediate.  Returns 0 when
 * sent; 1, having done nothing (*ap untouched), when the general path must
 * take it: no connection yet, several QPs per peer. */
int gasnetc_ibv_short_fast(uint32_t dest, void *net, unsigned is_req, unsigned handler,
                           unsigned nargs, unsigned src_ep, unsigned dst_ep, va_list *ap);

/* Starts the setup of every on-demand connection this rank lacks, without
 * waiting (the leader of a non-collective exit must reach every rank). */
void gasnetc_ibv_conn_start_all(void);

/* Progress threads (progress.c): starts the receive and send threads that
 * GASNET_RCV_THREAD / GASNET_SND_THREAD ask for (PAR builds; one of each
 * per HCA).  Call once at the end of gex_Client_Init, when handlers may
 * run; with defer (GEX_FLAG_DEFER_THREADS) only prepare them for the
 * client.  No-op without a verbs transport. */
void gasnetc_ibv_progress_start(int defer);
/* GEX_FLAG_DEFER_THREADS (defer != 0 above): the threads the client must
 * run, for gex_System_QueryProgressThreads: *info_p is an array of
 * gex_ProgressThreadInfo_t (this header does not see gasnetex.h). */
void gasnetc_ibv_progress_query(unsigned *count_p, const void **info_p);
/* Stops and joins them (at exit; any thread, also one of them: that one is
 * left alone).  Waits at most timeout_s for a thread busy in a handler.
 * Idempotent. */
void gasnetc_ibv_progress_stop(double timeout_s);
/* The exit's flush (the ops table's flush): reaps send completions until
 * no send to job rank dest (UINT32_MAX: any rank) is in flight, at most
 * timeout_s.  Not in a handler's place of the progress threads: any thread. */
void gasnetc_ibv_flush_sends(uint32_t dest, double timeout_s);

/* Progress: reaps send completions, and unless replies_only, receives AMs
 * (runs handlers) and sends Requests waiting in the credit backlog.
 * Returns the number of completions handled.  Fatal on a failed
 * completion.  Thread-safe (ibv_poll_cq calls serialized, see README); not
 * from handlers unless replies_only. */
int gasnetc_ibv_poll(int replies_only);

/* The transport as ops tables (core/base/transport.h) that core/init.c
 * installs: AM for the core, RMA for the extended layer (rdma.c). */
struct gasnetc_am_net_ops;
struct gasnete_rma_transport;
extern const struct gasnetc_am_net_ops gasnetc_ibv_am_ops;
extern const struct gasnete_rma_transport gasnetc_ibv_rma_ops;

#endif /* GASNETC_IBV_H */
