/* extended/barrier_rdma.c: the primordial team's barrier messages to verbs
 * peers as 16-byte RDMA WRITEs into the receiver's mailbox (core/ibv/rma/mbox.c)
 * instead of AM Short Requests: no AM header, no credit (so no hidden
 * credit-only Reply), no receive buffer.  The dissemination engine and the
 * AM path (PSHM neighbours, peers not connected yet, epochs before the
 * mailbox existed) are unchanged; both paths feed the same engine.
 * Encoding and design: extended/barrier_rdma.h, extended/README.
 *
 * Reader: slot (k, e % 64) holds the round-k message of epoch e, from the
 * one rank that sends round k to this rank.  For each round the reader
 * waits for epochs in order (expect[k]): it accepts the slot of expect[k]
 * when its tags match, or steps over expect[k] when that message came as
 * an AM instead (am_seen[k], set by the handler).  A message of a later
 * epoch that arrives first waits in its slot until the earlier one is in,
 * which only delays it: no round-k message of epoch e depends on a later
 * epoch.  No slot is overwritten before it is read: the sender writes
 * epoch e + 64 only after completing e + 32, for which this rank must have
 * started e + 32, which it does only after completing e (at most 32
 * incomplete), which needed the round-k message of e.
 *
 * Switch point: the mailbox is exchanged inside gex_Segment_Attach
 * (collective), where every rank has started the same number of primordial
 * barriers; from that epoch (first_epoch) on, messages may use RDMA.
 */
#include "extended/barrier_rdma.h"
#include "extended/team.h"
#include "core/ibv/ibv.h"

#include <string.h>
#include <strings.h>

static struct {
    int on;                /* atomic: the mailbox is set up, RDMA allowed */
    int want;              /* GASNET_BARRIER selects RDMADISSEM */
    uint32_t first_epoch;  /* epochs from here on may use RDMA */
    uint32_t nrounds;
    struct gasnete_team_s *team; /* the primordial team */
    const volatile uint64_t *mbox;
    int busy;              /* atomic: one reader at a time */
    uint32_t expect[32];   /* per round: next epoch to read (reader only) */
    uint32_t src[32];      /* per round: the rank heard from (me - 2^k) */
    uint64_t am_seen[32];  /* per round, bit e % 64: epoch e came as an AM (atomic) */
    uint64_t sent, read;   /* statistics, for debuggers (sent: atomic; read: reader only) */
} RB;

static int after_first(uint32_t epoch) { return (uint32_t)(epoch - RB.first_epoch) < 0x80000000U; }

/* The core's callback at attach, on every rank. */
static void rbar_ready(void)
{
    RB.team = (struct gasnete_team_s *)gasneti_the_tm.coll;
    RB.mbox = gasnetc_ibv_mbox_local();
    if (!RB.team || !RB.mbox) return;
    gasneti_mutex_lock(&RB.team->bar.lock);
    RB.first_epoch = RB.team->bar.next_epoch;
    gasneti_mutex_unlock(&RB.team->bar.lock);
    uint32_t me = RB.team->bar.me, n = RB.team->bar.n;
    for (uint32_t k = 0; k < 32; k++) {
        RB.expect[k] = RB.first_epoch;
        /* computed once: a poll reads the mailbox 8 times between polls */
        RB.src[k] = n ? gasnete_bar_round_src(me, n, k) : 0;
        __atomic_store_n(&RB.am_seen[k], 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&RB.on, 1, __ATOMIC_RELEASE);
}

void gasnete_rbar_init(void)
{
    const char *s = GASNETI_PARAM_STR(GASNET_BARRIER);
    if (!s || !*s || !strcasecmp(s, "DISSEM") || !strcasecmp(s, "RDMADISSEM") ||
        !strcasecmp(s, "IBDISSEM"))
        RB.want = 1;
    else if (!strcasecmp(s, "AMDISSEM") || !strcasecmp(s, "AMCENTRAL"))
        RB.want = 0;
    else
        gasneti_fatalerror("GASNET_BARRIER=%s is not a barrier this library has: use DISSEM "
                           "(default: RDMADISSEM where verbs are used), RDMADISSEM (alias "
                           "IBDISSEM) or AMDISSEM",
                           s);
    RB.nrounds = gasnete_bar_nrounds(gasneti_the_tm.size);
    if (RB.want && RB.nrounds > 0 && RB.nrounds <= 32)
        gasnetc_ibv_mbox_request(gasnete_rbar_mbox_bytes(gasneti_the_tm.size), rbar_ready);
}

int gasnete_rbar_team(const struct gasnete_team_s *t)
{
    return t == RB.team && __atomic_load_n(&RB.on, __ATOMIC_ACQUIRE);
}

int gasnete_rbar_send(uint32_t dest, const gasnete_bar_msg_t *msg)
{
    if (!after_first(msg->epoch)) return 0; /* an older barrier: its round went as AMs */
    uint64_t w0, w1;
    gasnete_rbar_encode(msg->epoch, msg->round, msg->value, &w0, &w1);
    if (!gasnetc_ibv_mbox_write(dest, gasnete_rbar_slot_off(msg->round, msg->epoch), w0, w1))
        return 0;
    __atomic_add_fetch(&RB.sent, 1, __ATOMIC_RELAXED);
    return 1;
}

void gasnete_rbar_am_seen(uint32_t epoch, uint32_t round)
{
    if (!__atomic_load_n(&RB.on, __ATOMIC_ACQUIRE) || round >= 32 || !after_first(epoch)) return;
    __atomic_fetch_or(&RB.am_seen[round], (uint64_t)1 << (epoch % 64), __ATOMIC_ACQ_REL);
}

static void protocol_error(uint32_t src, uint32_t epoch, uint32_t round)
{
    gasneti_fatalerror("barrier protocol error: unexpected RDMA barrier message from rank %u "
                       "(epoch %u, round %u); were barriers called in a different order on "
                       "different ranks?",
                       (unsigned)src, (unsigned)epoch, (unsigned)round);
}

int gasnete_rbar_poll(void)
{
    if (!__atomic_load_n(&RB.on, __ATOMIC_ACQUIRE)) return 0;
    gasnete_bar_t *b = &RB.team->bar;
    if (gasnete_bar_outstanding(b) == 0) return 0; /* arrivals wait in the mailbox */
#if defined(GASNET_PAR)
    int idle = 0;
    if (!__atomic_compare_exchange_n(&RB.busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 0;
#endif
    int got = 0;
    for (uint32_t k = 0; k < RB.nrounds; k++) {
        uint32_t src = RB.src[k];
        for (;;) {
            uint32_t e = RB.expect[k];
            uint64_t bit = (uint64_t)1 << (e % 64);
            if (__atomic_load_n(&RB.am_seen[k], __ATOMIC_ACQUIRE) & bit) {
                __atomic_fetch_and(&RB.am_seen[k], ~bit, __ATOMIC_ACQ_REL);
                RB.expect[k] = e + 1;
                continue;
            }
            const volatile uint64_t *slot = RB.mbox + gasnete_rbar_slot_off(k, e) / 8;
            uint64_t w0 = __atomic_load_n(&slot[0], __ATOMIC_RELAXED);
            uint64_t w1 = __atomic_load_n(&slot[1], __ATOMIC_RELAXED);
            gasnete_bval_t v;
            if (!gasnete_rbar_decode(w0, w1, e, k, &v)) break;
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (gasnete_bar_arrive(b, src, e, k, v)) protocol_error(src, e, k);
            RB.expect[k] = e + 1;
            RB.read++;
            got++;
        }
    }
#if defined(GASNET_PAR)
    __atomic_store_n(&RB.busy, 0, __ATOMIC_RELEASE);
#endif
    return got;
}
