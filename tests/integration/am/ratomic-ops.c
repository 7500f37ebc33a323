/* tests/integration/am/ratomic-ops.c: remote atomics (gex_AD_*).
 *
 * 1. Semantics: for each of the six types, rank r runs a fixed sequence of
 *    every operation on its own cell in the segment of rank (r+1) % n
 *    (itself on one process), alternating NB and NBI, and checks each
 *    fetched value against the same sequence computed with plain C.
 * 2. Contention: every rank adds 1 to one U64 counter on rank 0, ITERS
 *    times with FADD (NB, each result must exceed the previous one) and
 *    ITERS times with ADD (NBI); after a barrier the counter must hold
 *    2 * ITERS * n exactly, and a CAS-based spin lock protecting a plain
 *    (non-atomic) counter on rank 0 must count every increment.
 * 3. Domain queries and cdata.
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include "../test.h"

#define ITERS 200
#define CELL 64 /* bytes per (rank, type) cell */

static gex_Rank_t peer;

#define SEQ_TEST(TY, T, DT, BITWISE)                                                              \
    static void seq_##TY(void)                                                                    \
    {                                                                                             \
        gex_OP_t ops = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_CAS |         \
                       GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_FMULT |     \
                       GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_ADD | GEX_OP_INC;                       \
        if (BITWISE) ops |= GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_XOR;                  \
        gex_AD_t ad;                                                                              \
        gex_AD_Create(&ad, test_tm, DT, ops, 0);                                                  \
        CHECK_EQ(gex_AD_QueryDT(ad), DT);                                                         \
        CHECK_EQ(gex_AD_QueryOps(ad), ops);                                                       \
        CHECK(gex_AD_QueryTM(ad) == test_tm);                                                     \
        void *cell = test_seg_at(peer, (uintptr_t)test_rank * 8 * CELL + (DT == GEX_DT_I32 ? 0 :  \
            DT == GEX_DT_U32 ? 1 : DT == GEX_DT_I64 ? 2 : DT == GEX_DT_U64 ? 3 :                  \
            DT == GEX_DT_FLT ? 4 : 5) * CELL);                                                    \
        T model = 0, got = 0;                                                                     \
        int step = 0;                                                                             \
        /* op, a, b, model update (old value is 'model' before) */                                \
        struct { gex_OP_t op; T a, b; } seq[] = {                                                 \
            {GEX_OP_SET, (T)10, 0}, {GEX_OP_FADD, (T)5, 0}, {GEX_OP_FSUB, (T)3, 0},               \
            {GEX_OP_FINC, 0, 0}, {GEX_OP_FDEC, 0, 0}, {GEX_OP_FMULT, (T)3, 0},                    \
            {GEX_OP_FMIN, (T)7, 0}, {GEX_OP_FMAX, (T)20, 0}, {GEX_OP_SWAP, (T)99, 0},             \
            {GEX_OP_FCAS, (T)99, (T)1}, {GEX_OP_FCAS, (T)5, (T)2}, {GEX_OP_CAS, (T)1, (T)6},     \
            {GEX_OP_ADD, (T)4, 0}, {GEX_OP_INC, 0, 0}, {GEX_OP_GET, 0, 0},                        \
            {GEX_OP_FAND, (T)12, 0}, {GEX_OP_FOR, (T)3, 0}, {GEX_OP_FXOR, (T)5, 0},               \
            {GEX_OP_XOR, (T)1, 0}, {GEX_OP_GET, 0, 0}};                                           \
        for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {                                 \
            gex_OP_t op = seq[i].op;                                                              \
            if (!(op & ops)) continue;                                                            \
            T a = seq[i].a, b = seq[i].b, old = model;                                            \
            gex_OP_t nf = GEX_OP_TO_NONFETCHING(op);                                              \
            switch (nf) {                                                                         \
            case GEX_OP_SET: case GEX_OP_SWAP: model = a; break;                                  \
            case GEX_OP_CAS: case GEX_OP_FCAS: if (model == a) model = b; break;                  \
            case GEX_OP_ADD: model = (T)(model + a); break;                                       \
            case GEX_OP_SUB: model = (T)(model - a); break;                                       \
            case GEX_OP_INC: model = (T)(model + 1); break;                                       \
            case GEX_OP_DEC: model = (T)(model - 1); break;                                       \
            case GEX_OP_MULT: model = (T)(model * a); break;                                      \
            case GEX_OP_MIN: model = a < model ? a : model; break;                                \
            case GEX_OP_MAX: model = a > model ? a : model; break;                                \
            default: model = BITWISE_APPLY_##TY(model, nf, a); break;                             \
            }                                                                                     \
            int fetching = (op & (GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_FADD |          \
                                  GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX |        \
                                  GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_GET | GEX_OP_SWAP |          \
                                  GEX_OP_FCAS)) != 0;                                             \
            got = (T)-77;                                                                         \
            if (step++ & 1) {                                                                     \
                gex_AD_OpNBI_##TY(ad, fetching ? &got : NULL, peer, cell, op, a, b, 0);           \
                gex_NBI_Wait(GEX_EC_RMW, 0);                                                      \
            } else {                                                                              \
                gex_Event_Wait(gex_AD_OpNB_##TY(ad, fetching ? &got : NULL, peer, cell, op, a, b, \
                                                0));                                              \
            }                                                                                     \
            if (fetching)                                                                         \
                CHECK_MSG(got == old, #TY " step %zu (op 0x%x): fetched %g, expected %g", i,      \
                          (unsigned)op, (double)got, (double)old);                                \
        }                                                                                         \
        test_barrier();                                                                           \
        gex_AD_Destroy(ad);                                                                       \
    }

#define INT_BITS(T, m, nf, a) \
    ((nf) == GEX_OP_AND ? (T)((m) & (a)) : (nf) == GEX_OP_OR ? (T)((m) | (a)) : (T)((m) ^ (a)))
#define BITWISE_APPLY_I32(m, nf, a) INT_BITS(int32_t, m, nf, a)
#define BITWISE_APPLY_U32(m, nf, a) INT_BITS(uint32_t, m, nf, a)
#define BITWISE_APPLY_I64(m, nf, a) INT_BITS(int64_t, m, nf, a)
#define BITWISE_APPLY_U64(m, nf, a) INT_BITS(uint64_t, m, nf, a)
#define BITWISE_APPLY_FLT(m, nf, a) (m)
#define BITWISE_APPLY_DBL(m, nf, a) (m)

SEQ_TEST(I32, int32_t, GEX_DT_I32, 1)
SEQ_TEST(U32, uint32_t, GEX_DT_U32, 1)
SEQ_TEST(I64, int64_t, GEX_DT_I64, 1)
SEQ_TEST(U64, uint64_t, GEX_DT_U64, 1)
SEQ_TEST(FLT, float, GEX_DT_FLT, 0)
SEQ_TEST(DBL, double, GEX_DT_DBL, 0)

static void contention(void)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, test_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_ADD | GEX_OP_FCAS | GEX_OP_SET, 0);
    int x = 42;
    gex_AD_SetCData(ad, &x);
    CHECK(gex_AD_QueryCData(ad) == &x);
    uint64_t *counter = (uint64_t *)test_seg_at(0, (uintptr_t)test_size * 8 * CELL);
    uint64_t *lock = counter + 1, *plain = counter + 2;
    if (test_rank == 0) *counter = *lock = *plain = 0;
    test_barrier();
    uint64_t prev = 0;
    for (int i = 0; i < ITERS; i++) {
        uint64_t got = UINT64_MAX;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, 0, counter, GEX_OP_FADD, 1, 0, 0));
        CHECK_MSG(i == 0 || got > prev, "FADD results not increasing: %" PRIu64 " after %" PRIu64,
                  got, prev);
        prev = got;
        gex_AD_OpNBI_U64(ad, NULL, 0, counter, GEX_OP_ADD, 1, 0, 0);
    }
    gex_NBI_Wait(GEX_EC_RMW, 0);
    /* A spin lock on rank 0 guarding a non-atomic counter there. */
    for (int i = 0; i < ITERS / 4; i++) {
        uint64_t old;
        double t0 = test_now();
        do {
            gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 0, lock, GEX_OP_FCAS, 0, test_rank + 1,
                                           GEX_FLAG_AD_ACQ));
            CHECK_MSG(test_now() - t0 < 60, "lock held by %" PRIu64 " for 60 s", old);
        } while (old != 0);
        uint64_t v = gex_RMA_GetBlockingVal(test_tm, 0, plain, 8, 0);
        CHECK_OK(gex_RMA_PutBlockingVal(test_tm, 0, plain, v + 1, 8, 0));
        gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, lock, GEX_OP_SET, 0, 0, GEX_FLAG_AD_REL));
    }
    test_barrier();
    if (test_rank == 0) {
        CHECK_EQ(*counter, (uint64_t)2 * ITERS * test_size);
        CHECK_EQ(*plain, (uint64_t)(ITERS / 4) * test_size);
        CHECK_EQ(*lock, 0);
    }
    test_barrier();
    gex_AD_Destroy(ad);
}

int main(int argc, char **argv)
{
    test_init("ratomic", &argc, &argv, 0, 0, 1);
    size_t seg = ((size_t)test_size * 8 * CELL + 4096 + GASNET_PAGESIZE - 1) &
                 ~(size_t)(GASNET_PAGESIZE - 1);
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, seg));
    test_query_segments();
    peer = (test_rank + 1) % test_size;
    seq_I32();
    seq_U32();
    seq_I64();
    seq_U64();
    seq_FLT();
    seq_DBL();
    contention();
    test_pass();
}
