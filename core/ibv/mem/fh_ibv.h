/* core/ibv/mem/fh_ibv.h: firehose over verbs (the glue between firehose/ and
 * the verbs transport), pinnable-memory limits and on-demand paging.
 * Design and rationale: firehose/README "Over verbs".
 *
 *   fh_ops.c    the firehose ops table over verbs (pin = ibv_reg_mr on every
 *               HCA, unpin, move requests as internal AMs 96/97) and the
 *               instance's set-up at gex_Segment_Attach
 *   physmem.c   how much memory this process may pin (GASNET_PHYSMEM_MAX,
 *               RLIMIT_MEMLOCK, the optional bounded probe)
 *   odp.c       on-demand paging detection (GASNET_USE_ODP, GASNET_ODP_VERBOSE)
 *   dynreg.c    the keys RDMA uses (dynreg.h), on top of all this
 *
 * Keys: firehose carries one 64-bit lkey and rkey per region; with one HCA
 * they are the MR's keys, with two the 32-bit key of HCA 0 in the low half
 * and that of HCA 1 in the high half.  A process with more HCAs pins only
 * through the first two (HCA 2.. use bounce buffers for out-of-segment
 * memory; SEGMENT_LARGE/EVERYTHING refuse to start with more than two).
 */
#ifndef GASNETC_FH_IBV_H
#define GASNETC_FH_IBV_H

#include <stddef.h>
#include <stdint.h>

#include "firehose/firehose.h"

/* Most HCAs whose keys one firehose region carries. */
#define GASNETC_FH_MAX_HCAS 2
/* Internal AM handler indices of the move protocol (Medium Request/Reply). */
#define GASNETC_FH_HIDX_MOVE 96
#define GASNETC_FH_HIDX_REPLY 97

/* 1 when the segment is registered whole at attach (SEGMENT_FAST), 0 when
 * peers' memory is pinned on demand (SEGMENT_LARGE / EVERYTHING). */
#if defined(GASNET_SEGMENT_FAST)
#define GASNETC_SEGMENT_PINNED 1
#else
#define GASNETC_SEGMENT_PINNED 0
#endif

/* The instance, or NULL (no network peers, GASNET_USE_FIREHOSE=0, or its
 * configuration left no room in FAST).  Set once at attach; read anywhere. */
extern firehose_t *gasnetc_fh;

/* The 32-bit key of HCA hca (0 or 1) in a firehose key.  Any context. */
static inline uint32_t gasnetc_fh_key(uint64_t packed, int hca)
{
    return (uint32_t)(packed >> (hca ? 32 : 0));
}

/* ---- fh_ops.c -------------------------------------------------------------------- */
/* Collective, from gasnetc_ibv_segment_attach on every rank once the segment
 * is registered (FAST) or known (LARGE): resolves the configuration from the
 * GASNET_FIREHOSE_* rows and the pinnable memory left after seg_pinned bytes,
 * applies GASNET_DISABLE_MUNMAP, detects ODP, registers the move handlers and
 * creates gasnetc_fh.  Errors: one line on the lowest failing rank and a job
 * exit with LARGE/EVERYTHING; with FAST a warning on the failing rank, whose
 * out-of-segment RMA then uses bounce buffers.  active: this rank has network peers.  Init path only. */
void gasnetc_fh_attach(int active, uint64_t seg_pinned);

/* Test hook (not a public API): firehose statistics of this process in one
 * line ("local hit rate 97.3% ..."), or "firehose_off ...".  Returns buf.
 * Any context outside handlers. */
const char *gasnetc_fh_stats_line(char *buf, size_t len);

/* ---- physmem.c ------------------------------------------------------------------- */
/* Collective (every rank, after the connections and host discovery): what
 * this process may pin, in bytes: GASNET_PHYSMEM_MAX (fraction of physical
 * memory or size, per host, split among the host's processes), bounded by
 * RLIMIT_MEMLOCK after GASNET_MAXIMIZE_MEMLOCK (divided by the HCAs: every
 * registration is charged; not without CAP_IPC_LOCK), and by the probe's finding
 * when GASNET_PHYSMEM_PROBE=1 (one process per host probes, bounded in
 * time; rank 0 reports the result once with the GASNET_PHYSMEM_MAX setting
 * that skips the probe next time).  UINT64_MAX when nothing limits it.
 * active: this rank uses verbs.  Init path only. */
void gasnetc_ibv_physmem_init(int active);

/* The value computed by gasnetc_ibv_physmem_init (UINT64_MAX before it).
 * Any context. */
uint64_t gasnetc_ibv_pinnable_bytes(void);

/* Registered bytes the transport's pools hold now (receive and bounce
 * buffers, descriptors; counted once, as physical memory).  Any context. */
uint64_t gasnetc_ibv_buffers_bytes(void);

/* The largest SEGMENT_FAST segment this process can pin: the pinnable bytes
 * less the pools' buffers and a reserve for firehose (a quarter of the
 * rest, at most 64 MiB).  UINT64_MAX when nothing limits it.  Any context. */
uint64_t gasnetc_ibv_segment_pinnable(void);

/* Name of what bounds gasnetc_ibv_pinnable_bytes(), for messages, e.g.
 * "RLIMIT_MEMLOCK (ulimit -l) of 65536 KiB".  Any context. */
const char *gasnetc_ibv_pinnable_why(void);

/* The fraction of physical memory GASNET_PHYSMEM_MAX allows (0 = given as
 * a size).  Any context. */
double gasnetc_ibv_physmem_fraction(void);

/* ---- odp.c ------------------------------------------------------------------------- */
/* Collective: decides whether registrations use on-demand paging
 * (GASNET_USE_ODP and every HCA of this process reports RC ODP for send,
 * receive, write and read; never with --disable-ibv-odp).  Warns per
 * GASNET_ODP_VERBOSE when ODP was asked for but some process lacks it.
 * Init path only. */
void gasnetc_ibv_odp_init(int active);

/* IBV_ACCESS_ON_DEMAND when registrations use ODP, else 0.  Any context. */
int gasnetc_ibv_odp_access(void);

#endif /* GASNETC_FH_IBV_H */
