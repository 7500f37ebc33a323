/* core/ibv/rma/rma_plan.h: how the verbs RMA transport (rdma.c) cuts a transfer
 * into stripes and work requests.  Pure arithmetic, no verbs: the unit test
 * tests/integration/rmav/test-rma-plan.c checks it on made-up limits.
 *
 *   stripe   consecutive bytes sent on one QP of the peer's connection;
 *            stripe k goes to QP (q0 + k) mod nqps.  With one QP the whole
 *            transfer is one stripe.
 *   piece    one work request inside a stripe: at most the port's largest
 *            message, and shorter where a key covers less (dynreg.h) or a
 *            bounce buffer is used.
 * Rationale: core/ibv/rma/README, "RMA over verbs".
 */
#ifndef GASNETC_IBV_RMA_PLAN_H
#define GASNETC_IBV_RMA_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Length of one stripe of an nbytes transfer: nbytes when there is one QP
 * or nbytes does not exceed the stripe size; else the stripe size, where
 * 0 (the parameter's default) or a value above the port's largest message
 * means that message size (the seed README's GASNET_PUT/GET_STRIPE_SZ).
 * max_msg 0 is treated as 1 GiB.  Returns >= 1 for nbytes >= 1.  Pure. */
static inline size_t gasnetc_rma_stripe_len(size_t nbytes, size_t stripe, int nqps,
                                            uint32_t max_msg)
{
    size_t m = max_msg ? (size_t)max_msg : ((size_t)1 << 30);
    size_t s = (stripe == 0 || stripe > m) ? m : stripe;
    if (nqps <= 1 || nbytes <= s) return nbytes ? nbytes : 1;
    return s;
}

/* Number of stripes of an nbytes transfer cut at stripe_len (>= 1).  Pure. */
static inline size_t gasnetc_rma_nstripes(size_t nbytes, size_t stripe_len)
{
    return nbytes ? (nbytes + stripe_len - 1) / stripe_len : 0;
}

/* 1 when stripe k is the last of nstripes that QP (q0 + k) mod nqps carries,
 * i.e. where a fenced put posts that QP's fence.  Pure. */
static inline int gasnetc_rma_last_on_qp(size_t k, size_t nstripes, int nqps)
{
    return k + (size_t)(nqps > 1 ? nqps : 1) >= nstripes;
}

/* Largest piece of a stripe on a port: the port's largest message (max_msg,
 * 0 = 1 GiB), also bounded by 2^31 so it fits an SGE length.  Pure. */
static inline size_t gasnetc_rma_piece_max(uint32_t max_msg)
{
    size_t m = max_msg ? (size_t)max_msg : ((size_t)1 << 30);
    return m > ((size_t)1 << 31) ? ((size_t)1 << 31) : m;
}

#endif /* GASNETC_IBV_RMA_PLAN_H */
