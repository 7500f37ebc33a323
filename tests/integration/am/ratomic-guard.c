/* tests/integration/am/ratomic-guard.c: where and when remote atomics
 * write their results.
 *
 * For each of the six types, every operation of the type (fetching or not)
 * runs against a cell on the next rank and on this rank, in each of the
 * completion forms the API offers (ad-guard.h: NB + wait, IMMEDIATE + test,
 * NBI + GEX_EC_ALL, NBI + only the category the specification names for
 * the opcode, i.e. GEX_EC_PUT for SET, GEX_EC_GET for GET, GEX_EC_RMW for
 * the rest, and an access region), and in one more:
 *   FRAME   NB + wait in a helper whose result variable dies when it
 *           returns; the caller then fills the stack below it with a
 *           pattern, polls, and checks that nothing wrote into it
 * The result slot sits between guard bytes (ad-guard.h).  After completion
 * the guards must be intact and the slot must hold exactly the previous
 * value of the cell (fetching operations) or be untouched (non-fetching
 * ones: result_p is ignored).  The slot then gets a fresh sentinel, the rank
 * polls for a while, and slot and guards are checked again: nothing may
 * arrive after completion was reported.
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include "../test.h"
#include "ad-guard.h"

#define CELL 16 /* bytes per (initiator, type) cell */

/* The forms of ad-guard.h, then FRAME. */
enum { F_FRAME = AD_NFORMS, NFORMS };
static const char *const form_name[NFORMS] = {"NB", "IMM", "NBI", "NBI-EC", "REGION", "FRAME"};

static gex_Rank_t peer;
static unsigned long nops;

#define DT_INDEX(DT)                                                                   \
    ((DT) == GEX_DT_I32 ? 0 : (DT) == GEX_DT_U32 ? 1 : (DT) == GEX_DT_I64 ? 2 :        \
     (DT) == GEX_DT_U64 ? 3 : (DT) == GEX_DT_FLT ? 4 : 5)

/* Every operation valid for the type. */
static gex_OP_t all_ops(int bitwise)
{
    gex_OP_t arith = GEX_OP_ADD | GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX |
                     GEX_OP_INC | GEX_OP_DEC;
    gex_OP_t ops = arith | GEX_OP_TO_FETCHING(arith) | GEX_OP_SET | GEX_OP_CAS | GEX_OP_GET |
                   GEX_OP_SWAP | GEX_OP_FCAS;
    if (bitwise)
        ops |= GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR;
    return ops;
}

#define GUARD_TEST(TY, T, DT, BITWISE, INIT, OP2)                                                 \
    static __attribute__((__noinline__)) void frame_##TY(gex_AD_t ad, gex_Rank_t tgt,            \
                                                         void *cell, gex_OP_t op, T a, T b,       \
                                                         T *out)                                  \
    {                                                                                             \
        T local;                                                                                  \
        memcpy(&local, out, sizeof local);                                                        \
        gex_Event_Wait(gex_AD_OpNB_##TY(ad, &local, tgt, cell, op, a, b, 0));                     \
        memcpy(out, &local, sizeof local);                                                        \
    }                                                                                             \
    static void one_##TY(gex_AD_t ad, gex_Rank_t tgt, void *cell, gex_OP_t op, int form)          \
    {                                                                                             \
        const T init = (T)(INIT), a = init, b = (T)(OP2);                                         \
        char what[128];                                                                           \
        snprintf(what, sizeof what, #TY " op 0x%x on rank %u, form %s", (unsigned)op,             \
                 (unsigned)tgt, form_name[form]);                                                 \
        gex_Event_Wait(gex_AD_OpNB_##TY(ad, NULL, tgt, cell, GEX_OP_SET, init, 0, 0));            \
        ad_box_t bx;                                                                              \
        ad_box_fill(&bx, sizeof(T), AD_SENTINEL_SEED);                                            \
        T *res = AD_SLOT(T, &bx);                                                                 \
        if (form == F_FRAME) {                                                                    \
            frame_##TY(ad, tgt, cell, op, a, b, res);                                             \
            ad_probe_stack(what);                                                                 \
        } else {                                                                                  \
            AD_RUN(TY, form, ad, res, tgt, cell, op, a, b, 0);                                    \
        }                                                                                         \
        nops++;                                                                                   \
        ad_box_check_guards(&bx, sizeof(T), what);                                                \
        ad_box_t want;                                                                            \
        ad_box_fill(&want, sizeof(T), AD_SENTINEL_SEED);                                          \
        if (ad_is_fetching(op)) memcpy(AD_SLOT(T, &want), &init, sizeof(T));                      \
        CHECK_MSG(!memcmp(res, AD_SLOT(T, &want), sizeof(T)),                                     \
                  "%s: result slot holds %g, expected %s%g", what, (double)*res,                  \
                  ad_is_fetching(op) ? "the previous value " : "it untouched, ",                  \
                  (double)*AD_SLOT(T, &want));                                                    \
        ad_box_check_late(&bx, sizeof(T), what);                                                  \
    }                                                                                             \
    static void guard_##TY(void)                                                                  \
    {                                                                                             \
        gex_OP_t ops = all_ops(BITWISE);                                                          \
        gex_AD_t ad;                                                                              \
        gex_AD_Create(&ad, test_tm, DT, ops, 0);                                                  \
        gex_Rank_t tgts[2] = {peer, test_rank};                                                   \
        for (int t = 0; t < 2; t++) {                                                             \
            void *cell = test_seg_at(tgts[t], ((uintptr_t)test_rank * 6 + DT_INDEX(DT)) * CELL);  \
            for (unsigned bit = 0; bit < 32; bit++) {                                             \
                gex_OP_t op = (gex_OP_t)1U << bit;                                                \
                if (!(op & ops)) continue;                                                        \
                for (int form = 0; form < NFORMS; form++) one_##TY(ad, tgts[t], cell, op, form);  \
            }                                                                                     \
        }                                                                                         \
        test_barrier();                                                                           \
        gex_AD_Destroy(ad);                                                                       \
    }

/* Initial values use every byte of the type (the sign bit included), so a
 * result of the wrong width or byte order cannot pass. */
GUARD_TEST(I32, int32_t, GEX_DT_I32, 1, -0x12345679, 0x0badcafe)
GUARD_TEST(U32, uint32_t, GEX_DT_U32, 1, 0xfedcba98u, 0x13579bdfu)
GUARD_TEST(I64, int64_t, GEX_DT_I64, 1, -0x123456789abcdef1LL, 0x0badcafe12345678LL)
GUARD_TEST(U64, uint64_t, GEX_DT_U64, 1, 0xfedcba9876543210ULL, 0x13579bdf2468ace0ULL)
GUARD_TEST(FLT, float, GEX_DT_FLT, 0, -1234.5f, 3.25f)
GUARD_TEST(DBL, double, GEX_DT_DBL, 0, -98765.4321, 6.5)

int main(int argc, char **argv)
{
    test_init("ratomic-guard", &argc, &argv, 0, 0, 1);
    size_t seg = ((size_t)test_size * 6 * CELL + GASNET_PAGESIZE - 1) &
                 ~(size_t)(GASNET_PAGESIZE - 1);
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, seg));
    test_query_segments();
    peer = (test_rank + 1) % test_size;
    guard_I32();
    guard_U32();
    guard_I64();
    guard_U64();
    guard_FLT();
    guard_DBL();
    TEST_MSG0("%lu operations checked on rank 0", nops);
    test_pass();
}
