/* tests/integration/am/ratomic-ring.c: producer/consumer rings and a
 * contended counter on 32-bit data (I32, U32, FLT), every rank producing.
 *
 * 1. Rings.  Each rank owns two cells X and Y and is the only producer for
 *    the next rank's pair: once its own Y reaches the expected value (read
 *    with GET or a no-op fetching operation, with ACQ) and X matches, it
 *    moves the next rank's X and then Y (REL) one step on, with SET, SWAP,
 *    FCAS, ADD, FADD, XOR or FXOR chosen at random.  Being the only writer,
 *    a producer knows the previous value exactly, so every fetched value is
 *    checked.  The ring over all ranks (mostly over the network when the
 *    neighbourhood is small) runs first, then the ring inside this
 *    process's neighbourhood with GEX_FLAG_AD_MY_NBRHD (just this rank when
 *    each process is its own neighbourhood).
 * 2. Counter.  Every rank adds to one counter on rank 0 with FADD, FINC,
 *    ADD and INC (results in guarded locals, fetched values increasing and
 *    in range); afterwards the counter must hold every increment.
 * Every operation runs in a helper whose result variable sits between guard
 * bytes, in a random completion form (ad-guard.h: NB + wait, IMMEDIATE, NBI
 * + GEX_EC_ALL, NBI + the opcode's own category, access region); the
 * guards are checked after each completion, non-fetching results must stay
 * untouched, and from time to time the slot is watched for late writes and
 * the stack below the returned helper is probed.
 */
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include "../test.h"
#include "ad-guard.h"

#define LIMIT 60       /* ring steps per type and ring */
#define COUNTS 80      /* counter increments per rank and type */
#define CELL 64        /* bytes per (type, phase) cell block in each segment */
#define LATE_EVERY 16  /* every how many operations the late checks run */

static uint64_t rng_state;
static unsigned long nops;
static gex_Rank_t nbrhd_next, nbrhd_idx, nbrhd_count;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/* One operation in a random completion form, its result in a guarded
 * local; returns the fetched value (fetching ops) or 0. */
#define AD_ONE_OP(TY, T)                                                                          \
    static __attribute__((__noinline__)) T op_##TY(gex_AD_t ad, gex_Rank_t tgt, T *addr,          \
                                                   gex_OP_t op, T a, T b, gex_Flags_t fl,         \
                                                   const char *phase)                             \
    {                                                                                             \
        char what[96];                                                                            \
        int form = (int)rnd(AD_NFORMS);                                                           \
        snprintf(what, sizeof what, "%s: " #TY " op 0x%x on rank %u (form %d)", phase,            \
                 (unsigned)op, (unsigned)tgt, form);                                              \
        ad_box_t bx;                                                                              \
        ad_box_fill(&bx, sizeof(T), AD_SENTINEL_SEED);                                            \
        T *res = AD_SLOT(T, &bx);                                                                 \
        AD_RUN(TY, form, ad, res, tgt, addr, op, a, b, fl);                                       \
        ad_box_check_guards(&bx, sizeof(T), what);                                                \
        if (!ad_is_fetching(op))                                                                  \
            CHECK_MSG(test_mismatch(res, sizeof(T), AD_SENTINEL_SEED) == (size_t)-1,              \
                      "%s: result_p of a non-fetching operation was written", what);              \
        T v = ad_is_fetching(op) ? *res : (T)0;                                                   \
        if (++nops % LATE_EVERY == 0) ad_box_check_late(&bx, sizeof(T), what);                    \
        return v;                                                                                 \
    }

/* Producers' operations taking prev to next (bitwise ones for integers). */
#define RING_TEST(TY, T, DT, BITWISE, STEP)                                                       \
    AD_ONE_OP(TY, T)                                                                              \
    static void produce_##TY(gex_AD_t ad, gex_Rank_t tgt, T *addr, T prev, T step,                \
                             gex_Flags_t fl, const char *phase)                                   \
    {                                                                                             \
        static const gex_OP_t choice[] = {GEX_OP_SET, GEX_OP_SWAP, GEX_OP_FCAS, GEX_OP_ADD,       \
                                          GEX_OP_FADD, GEX_OP_XOR, GEX_OP_FXOR};                  \
        const T next = (T)(prev + step);                                                          \
        gex_OP_t op = choice[rnd(BITWISE ? 7 : 5)];                                               \
        T a = op == GEX_OP_SET || op == GEX_OP_SWAP ? next : op == GEX_OP_FCAS ? prev : step;     \
        if (op == GEX_OP_XOR || op == GEX_OP_FXOR) a = XOR_##TY(prev, next);                      \
        T got = op_##TY(ad, tgt, addr, op, a, next, fl, phase);                                    \
        if (ad_is_fetching(op))                                                                   \
            CHECK_MSG(got == prev, "%s: " #TY " producer op 0x%x fetched %g, expected %g", phase, \
                      (unsigned)op, (double)got, (double)prev);                                   \
    }                                                                                             \
    static T consume_##TY(gex_AD_t ad, T *addr, gex_Flags_t fl, const char *phase)                \
    {                                                                                             \
        static const gex_OP_t choice[] = {GEX_OP_GET, GEX_OP_FCAS, GEX_OP_FADD, GEX_OP_FXOR};     \
        return op_##TY(ad, test_rank, addr, choice[rnd(BITWISE ? 4 : 3)], 0, 0,                   \
                       fl | GEX_FLAG_AD_MY_RANK, phase);                                          \
    }                                                                                             \
    static void ring_##TY(gex_AD_t ad, gex_Rank_t tgt, int first, int wrap, gex_Flags_t where,    \
                          uintptr_t off, const char *phase)                                       \
    {                                                                                             \
        T *myX = (T *)test_seg_at(test_rank, off), *myY = myX + 1;                                \
        T *tX = (T *)test_seg_at(tgt, off), *tY = tX + 1;                                         \
        const T step = (T)(STEP);                                                                 \
        const T init = first ? step : (T)0;                                                       \
        op_##TY(ad, test_rank, myX, GEX_OP_SET, init, 0, GEX_FLAG_AD_MY_RANK, phase);             \
        op_##TY(ad, test_rank, myY, GEX_OP_SET, init, 0, GEX_FLAG_AD_MY_RANK, phase);             \
        test_barrier();                                                                           \
        for (unsigned i = 0; i < LIMIT; i++) {                                                    \
            const T expect = (T)(step * (T)(i + 1));                                              \
            double t0 = test_now();                                                               \
            for (;;) {                                                                            \
                T y = consume_##TY(ad, myY, GEX_FLAG_AD_ACQ, phase);                              \
                if (y == expect) break;                                                           \
                CHECK_MSG(y == (T)(expect - step), "%s: " #TY " step %u: Y is %g, expected %g "   \
                          "or %g", phase, i, (double)y, (double)(expect - step), (double)expect); \
                CHECK_MSG(test_now() - t0 < 60, "%s: no progress for 60 s at step %u", phase, i); \
                gasnet_AMPoll();                                                                  \
            }                                                                                     \
            T x = consume_##TY(ad, myX, 0, phase);                                                \
            CHECK_MSG(x == expect, "%s: " #TY " step %u: X is %g, expected %g", phase, i,         \
                      (double)x, (double)expect);                                                 \
            const T prev = (T)(step * (T)(i + (unsigned)wrap));                                   \
            produce_##TY(ad, tgt, tX, prev, step, where, phase);                                  \
            produce_##TY(ad, tgt, tY, prev, step, where | GEX_FLAG_AD_REL, phase);                \
            if (i % LATE_EVERY == 0) ad_probe_stack(phase);                                       \
        }                                                                                         \
        test_barrier();                                                                           \
    }                                                                                             \
    static void counter_##TY(gex_AD_t ad, T *ctr, T base)                                         \
    {                                                                                             \
        static const gex_OP_t choice[] = {GEX_OP_FADD, GEX_OP_FINC, GEX_OP_ADD, GEX_OP_INC};      \
        if (test_rank == 0) op_##TY(ad, 0, ctr, GEX_OP_SET, base, 0, 0, "counter");               \
        test_barrier();                                                                           \
        const T total = (T)(base + (T)(COUNTS * test_size));                                      \
        T last = base;                                                                            \
        for (unsigned i = 0; i < COUNTS; i++) {                                                   \
            gex_OP_t op = choice[rnd(4)];                                                         \
            T got = op_##TY(ad, 0, ctr, op, (T)1, 0, 0, "counter");                               \
            if (!ad_is_fetching(op)) continue;                                                    \
            CHECK_MSG(got >= last && got < total, "counter: " #TY " fetched %g, previous %g, "    \
                      "total %g", (double)got, (double)last, (double)total);                      \
            last = (T)(got + 1);                                                                  \
        }                                                                                         \
        test_barrier();                                                                           \
        T end = op_##TY(ad, 0, ctr, GEX_OP_GET, 0, 0, 0, "counter");                              \
        CHECK_MSG(end == total, "counter: " #TY " ends at %g, expected %g", (double)end,          \
                  (double)total);                                                                 \
        test_barrier();                                                                           \
    }                                                                                             \
    static void run_##TY(unsigned idx, T base)                                                    \
    {                                                                                             \
        gex_OP_t ops = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_ADD |         \
                       GEX_OP_FADD | GEX_OP_INC | GEX_OP_FINC;                                    \
        if (BITWISE) ops |= GEX_OP_XOR | GEX_OP_FXOR;                                             \
        gex_AD_t ad;                                                                              \
        gex_AD_Create(&ad, test_tm, DT, ops, 0);                                                  \
        gex_Rank_t next = (test_rank + 1) % test_size;                                            \
        ring_##TY(ad, next, test_rank == 0, next == 0, 0, (4 * idx + 0) * CELL,                   \
                  "ring of all ranks");                                                           \
        ring_##TY(ad, nbrhd_next, nbrhd_idx == 0, nbrhd_idx + 1 == nbrhd_count,                   \
                  GEX_FLAG_AD_MY_NBRHD, (4 * idx + 1) * CELL, "neighbourhood ring");              \
        counter_##TY(ad, (T *)test_seg_at(0, (4 * idx + 2) * CELL), base);                        \
        gex_AD_Destroy(ad);                                                                       \
    }

#define XOR_I32(p, n) ((int32_t)((p) ^ (n)))
#define XOR_U32(p, n) ((uint32_t)((p) ^ (n)))
#define XOR_FLT(p, n) (n) /* no bitwise operations on floats: never used */

/* Steps use the high bits (U32: past 2^31; I32: close to it); the counters
 * cross zero (I32) and 2^31 (U32).  Floats stay exact integers. */
RING_TEST(I32, int32_t, GEX_DT_I32, 1, 0x01a5a5a5)
RING_TEST(U32, uint32_t, GEX_DT_U32, 1, 0x03456789u)
RING_TEST(FLT, float, GEX_DT_FLT, 0, 3.0f)

int main(int argc, char **argv)
{
    test_init("ratomic-ring", &argc, &argv, 0, 0, 1);
    size_t seg = (3 * 4 * CELL + GASNET_PAGESIZE - 1) & ~(size_t)(GASNET_PAGESIZE - 1);
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, seg));
    test_query_segments();
    gex_RankInfo_t *info;
    gex_System_QueryNbrhdInfo(&info, &nbrhd_count, &nbrhd_idx);
    nbrhd_next = info[(nbrhd_idx + 1) % nbrhd_count].gex_jobrank;
    rng_state = 0x9e3779b97f4a7c15ull * (test_rank + 1);
    run_I32(0, (int32_t)-1000);
    run_U32(1, 0x7ffff000u);
    run_FLT(2, 100.0f);
    TEST_MSG0("%lu operations on rank 0", nops);
    test_pass();
}
