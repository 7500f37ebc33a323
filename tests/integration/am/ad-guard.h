/* tests/integration/am/ad-guard.h: checks on where and when remote atomics
 * write their results, shared by ratomic-guard.c and ratomic-ring.c.
 *
 * A result slot lives in a box between guard bytes; after an operation's
 * completion the guards must be intact, and a fresh sentinel in the slot
 * must survive a while of polling (nothing arrives after completion).
 * probe_stack() catches results delivered into a frame that has returned.
 * Include after ../test.h.
 */
#ifndef IBVTEST_AD_GUARD_H
#define IBVTEST_AD_GUARD_H

#define AD_GUARD 32            /* guard bytes on each side of a slot */
#define AD_LATE_S 0.0005       /* how long to poll for late writes */
#define AD_PROBE_BYTES 4096    /* stack scanned by probe_stack */
#define AD_BOX_SEED 0x3c5a     /* the guards' pattern */
#define AD_SENTINEL_SEED 0x77  /* the slot before the operation */
#define AD_AFTER_SEED 0x99     /* the slot after completion */

/* A result slot between guards; u64 aligns it for every type. */
typedef union {
    uint64_t align;
    unsigned char b[AD_GUARD + 8 + AD_GUARD];
} ad_box_t;

/* The slot of a box, as a T *. */
#define AD_SLOT(T, bx) ((T *)(void *)((bx)->b + AD_GUARD))

/* Guards and slot (sz bytes) filled; the slot gets the pattern slot_seed. */
static inline void ad_box_fill(ad_box_t *bx, size_t sz, uint64_t slot_seed)
{
    test_fill(bx->b, sizeof bx->b, AD_BOX_SEED);
    test_fill(bx->b + AD_GUARD, sz, slot_seed);
}

/* Both guards of bx must be intact; what names the case. */
static void ad_box_check_guards(const ad_box_t *bx, size_t sz, const char *what)
{
    ad_box_t ref;
    test_fill(ref.b, sizeof ref.b, AD_BOX_SEED);
    for (size_t i = 0; i < sizeof bx->b; i++) {
        if (i >= AD_GUARD && i < AD_GUARD + sz) continue;
        CHECK_MSG(bx->b[i] == ref.b[i],
                  "%s: byte %d relative to result_p changed (0x%02x, was 0x%02x): a write "
                  "outside the %zu-byte result",
                  what, (int)i - AD_GUARD, bx->b[i], ref.b[i], sz);
    }
}

static inline void ad_poll_a_while(void)
{
    double t0 = test_now();
    do gasnet_AMPoll();
    while (test_now() - t0 < AD_LATE_S);
}

/* After completion: a fresh sentinel in the slot, a while of polling, then
 * the guards and the sentinel must be intact. */
static void ad_box_check_late(ad_box_t *bx, size_t sz, const char *what)
{
    ad_box_check_guards(bx, sz, what);
    test_fill(bx->b + AD_GUARD, sz, AD_AFTER_SEED);
    ad_poll_a_while();
    ad_box_check_guards(bx, sz, what);
    CHECK_MSG(test_mismatch(bx->b + AD_GUARD, sz, AD_AFTER_SEED) == (size_t)-1,
              "%s: result slot written after completion was reported", what);
}

/* Fills AD_PROBE_BYTES of stack below the caller with a pattern, polls for
 * a while, and checks the pattern: a result delivered into a frame that
 * has returned lands here. */
static __attribute__((__noinline__, __unused__)) void ad_probe_stack(const char *what)
{
    volatile unsigned char area[AD_PROBE_BYTES];
    for (size_t i = 0; i < sizeof area; i++) area[i] = test_pattern_byte(0xabc, i);
    ad_poll_a_while();
    for (size_t i = 0; i < sizeof area; i++)
        CHECK_MSG(area[i] == test_pattern_byte(0xabc, i),
                  "%s: stack below a returned frame written at offset %zu after completion",
                  what, i);
}

/* Operations that write *result_p (the others must leave it alone). */
static inline int ad_is_fetching(gex_OP_t op)
{
    return (op & (GEX_OP_TO_FETCHING(0x3ffU) | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS)) != 0;
}

/* The NBI category the specification names for op: GEX_EC_PUT for SET,
 * GEX_EC_GET for GET, GEX_EC_RMW for the rest. */
static inline gex_EC_t ad_op_category(gex_OP_t op)
{
    return op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
}

/* Completion forms of gex_AD_Op*:
 *   AD_F_NB      gex_AD_OpNB + gex_Event_Wait (the blocking idiom)
 *   AD_F_IMM     gex_AD_OpNB with GEX_FLAG_IMMEDIATE (retried without it
 *                on GEX_EVENT_NO_OP) + gex_Event_Test until done
 *   AD_F_NBI     gex_AD_OpNBI + gex_NBI_Wait(GEX_EC_ALL)
 *   AD_F_NBI_EC  gex_AD_OpNBI + gex_NBI_Wait of the opcode's own category
 *   AD_F_REGION  gex_AD_OpNBI inside an NBI access region + a wait on the
 *                region's event */
enum { AD_F_NB, AD_F_IMM, AD_F_NBI, AD_F_NBI_EC, AD_F_REGION, AD_NFORMS };

/* Runs gex_AD_Op*_TY(ad, res, tgt, addr, op, a, b, fl) in form `form` and
 * returns once it is complete. */
#define AD_RUN(TY, form, ad, res, tgt, addr, op, a, b, fl)                                  \
    do {                                                                                  \
        gex_Event_t ad_ev_;                                                               \
        gex_Flags_t ad_imm_ = GEX_FLAG_IMMEDIATE;                                         \
        switch (form) {                                                                   \
        case AD_F_NB: gex_Event_Wait(gex_AD_OpNB_##TY(ad, res, tgt, addr, op, a, b, fl)); break; \
        case AD_F_IMM:                                                                    \
            while ((ad_ev_ = gex_AD_OpNB_##TY(ad, res, tgt, addr, op, a, b, (fl) | ad_imm_)) == \
                   GEX_EVENT_NO_OP)                                                       \
                ad_imm_ = 0;                                                              \
            while (gex_Event_Test(ad_ev_) != GASNET_OK) gasnet_AMPoll();                  \
            break;                                                                        \
        case AD_F_REGION:                                                                 \
            gex_NBI_BeginAccessRegion(0);                                                 \
            CHECK_EQ(gex_AD_OpNBI_##TY(ad, res, tgt, addr, op, a, b, fl), 0);             \
            gex_Event_Wait(gex_NBI_EndAccessRegion(0));                                   \
            break;                                                                        \
        default:                                                                          \
            CHECK_EQ(gex_AD_OpNBI_##TY(ad, res, tgt, addr, op, a, b, fl), 0);             \
            gex_NBI_Wait((form) == AD_F_NBI ? GEX_EC_ALL : ad_op_category(op), 0);        \
            break;                                                                        \
        }                                                                                 \
    } while (0)

#endif /* IBVTEST_AD_GUARD_H */
