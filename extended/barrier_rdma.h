/* extended/barrier_rdma.h: the primordial team's dissemination barrier
 * messages as RDMA WRITEs into the receiver's mailbox (GASNET_BARRIER=
 * RDMADISSEM, the default where verbs are used).  The engine
 * (barrier_engine.c) is the same as for AM messages; only the transport of
 * a message to a verbs peer changes.  Design: extended/README "Barrier
 * over RDMA".
 *
 * Slot encoding (pure, unit-tested): a message for (epoch e, round k) is
 * 16 bytes in slot (k, e % 64) of the receiver's mailbox, two aligned
 * 8-byte words that each carry the epoch as a tag:
 *   w0 = e << 32 | MAGIC << 16 | kind << 8 | round
 *   w1 = e << 32 | (uint32_t)id
 * One RDMA WRITE may make the two words visible in any order, so a reader
 * accepts the slot for epoch e only when both words carry e (and w0 the
 * magic, which zeroed memory lacks).  The slot held epoch e - 64 before
 * (or nothing), whose tags differ.
 */
#ifndef GASNETE_BARRIER_RDMA_H
#define GASNETE_BARRIER_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include "extended/barrier.h"

#define GASNETE_RBAR_MAGIC 0xb1a7U
#define GASNETE_RBAR_SLOT_BYTES 16U

/* Byte offset of slot (round, epoch) in a mailbox.  Pure. */
static inline size_t gasnete_rbar_slot_off(uint32_t round, uint32_t epoch)
{
    return ((size_t)round * GASNETE_BAR_WINDOW + epoch % GASNETE_BAR_WINDOW) *
           GASNETE_RBAR_SLOT_BYTES;
}
/* Mailbox bytes for a team of n ranks.  Pure. */
static inline size_t gasnete_rbar_mbox_bytes(uint32_t n)
{
    return (size_t)gasnete_bar_nrounds(n) * GASNETE_BAR_WINDOW * GASNETE_RBAR_SLOT_BYTES;
}
/* The two words of a message.  Pure. */
static inline void gasnete_rbar_encode(uint32_t epoch, uint32_t round, gasnete_bval_t v,
                                       uint64_t *w0, uint64_t *w1)
{
    *w0 = (uint64_t)epoch << 32 | (uint64_t)GASNETE_RBAR_MAGIC << 16 |
          (uint64_t)(v.kind & 0x3U) << 8 | (uint64_t)(round & 0xffU);
    *w1 = (uint64_t)epoch << 32 | (uint64_t)(uint32_t)v.id;
}
/* 1 when (w0, w1) is a complete message for (epoch, round), with its value
 * in *v; 0 when the slot holds anything else (older epoch, half-visible
 * write, zeroes).  Pure. */
static inline int gasnete_rbar_decode(uint64_t w0, uint64_t w1, uint32_t epoch, uint32_t round,
                                      gasnete_bval_t *v)
{
    if ((uint32_t)(w0 >> 32) != epoch || (uint32_t)(w1 >> 32) != epoch) return 0;
    if (((w0 >> 16) & 0xffffU) != GASNETE_RBAR_MAGIC || (w0 & 0xffU) != (round & 0xffU)) return 0;
    uint32_t kind = (uint32_t)(w0 >> 8) & 0xffU;
    if (kind > GASNETE_BV_MISMATCH) return 0;
    v->kind = kind;
    v->id = (int32_t)(uint32_t)w1;
    return 1;
}

/* ---- the transport (barrier_rdma.c; not in the unit test) ---------------- */
struct gasnete_team_s;
/* Reads GASNET_BARRIER and asks the core for the mailbox.  gasnete_init. */
void gasnete_rbar_init(void);
/* 1 when team t's messages may go by RDMA (the primordial team, mailbox
 * exchanged).  Racy read; any context. */
int gasnete_rbar_team(const struct gasnete_team_s *t);
/* Sends (epoch, round, value) to jobrank dest by RDMA; 1 when sent, 0 when
 * the caller must send it as an AM.  Not in handlers. */
int gasnete_rbar_send(uint32_t dest, const gasnete_bar_msg_t *msg);
/* The AM handler got (epoch, round) on the primordial team: the mailbox
 * reader steps over that slot.  Handler-safe. */
void gasnete_rbar_am_seen(uint32_t epoch, uint32_t round);
/* Reads arrived mailbox slots into the primordial engine; returns how many.
 * Cheap when nothing is outstanding.  Not in handlers. */
int gasnete_rbar_poll(void);

#endif /* GASNETE_BARRIER_RDMA_H */
