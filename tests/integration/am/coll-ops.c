/* tests/integration/am/coll-ops.c: gex_Coll_BroadcastNB, ReduceToOneNB and
 * ReduceToAllNB on the primordial team.
 *   - broadcasts of 0, 1, 1000 and 200000 bytes (several Medium chunks)
 *     from every root, three in flight before waiting;
 *   - reductions of every built-in type with ADD, MULT, MIN, MAX and (for
 *     integers) AND, OR, XOR, to one root and to all, checked against the
 *     same reduction computed locally from the known contributions;
 *   - GEX_OP_USER_NC with 2x2 matrix products (associative, not
 *     commutative): the result must be the rank-order product.
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include "../test.h"

#define BIG 200000
#define CNT 37

static uint8_t bsrc[3][BIG], bdst[3][BIG];

static void broadcasts(void)
{
    size_t sizes[] = {0, 1, 1000, BIG};
    for (gex_Rank_t root = 0; root < test_size; root++)
        for (size_t k = 0; k < 4; k++) {
            gex_Event_t ev[3];
            for (int j = 0; j < 3; j++) {
                uint64_t seed = ((uint64_t)root << 20) | (k << 4) | (uint64_t)j;
                if (test_rank == root) test_fill(bsrc[j], sizes[k], seed);
                memset(bdst[j], 0xcc, sizes[k] + 1 > BIG ? BIG : sizes[k] + 1);
                ev[j] = gex_Coll_BroadcastNB(test_tm, root, bdst[j], bsrc[j], sizes[k], 0);
            }
            gex_Event_WaitAll(ev, 3, 0);
            for (int j = 0; j < 3; j++) {
                uint64_t seed = ((uint64_t)root << 20) | (k << 4) | (uint64_t)j;
                CHECK_PATTERN(bdst[j], sizes[k], seed, "broadcast");
                if (sizes[k] < BIG) CHECK_EQ(bdst[j][sizes[k]], 0xcc);
            }
        }
}

/* Contribution i of rank r: small values so products stay exact. */
#define CONTRIB(r, i) ((int)(((r) * 7 + (i) * 3) % 5) + 1)

#define RED_CHECK(T, DT, OPS)                                                                    \
    do {                                                                                         \
        gex_OP_t ops[] = OPS;                                                                    \
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)                                  \
            for (int all = 0; all < 2; all++) {                                                  \
                T src[CNT], dst[CNT], want[CNT];                                                 \
                gex_Rank_t root = (gex_Rank_t)((o + 1) % test_size);                             \
                for (int i = 0; i < CNT; i++) {                                                  \
                    src[i] = (T)CONTRIB(test_rank, i);                                           \
                    dst[i] = (T)-1;                                                              \
                    T acc = (T)CONTRIB(0, i);                                                    \
                    for (gex_Rank_t r = 1; r < test_size; r++) {                                 \
                        T c = (T)CONTRIB(r, i);                                                  \
                        switch (ops[o]) {                                                        \
                        case GEX_OP_ADD: acc = (T)(acc + c); break;                              \
                        case GEX_OP_MULT: acc = (T)(acc * c); break;                             \
                        case GEX_OP_MIN: acc = c < acc ? c : acc; break;                         \
                        case GEX_OP_MAX: acc = c > acc ? c : acc; break;                         \
                        default: acc = BITOP_##T(ops[o], acc, c); break;                         \
                        }                                                                        \
                    }                                                                            \
                    want[i] = acc;                                                               \
                }                                                                                \
                gex_Event_t ev = all ? gex_Coll_ReduceToAllNB(test_tm, dst, src, DT, sizeof(T),  \
                                                              CNT, ops[o], NULL, NULL, 0)        \
                                     : gex_Coll_ReduceToOneNB(test_tm, root, dst, src, DT,       \
                                                              sizeof(T), CNT, ops[o], NULL,      \
                                                              NULL, 0);                          \
                gex_Event_Wait(ev);                                                              \
                if (all || test_rank == root)                                                    \
                    for (int i = 0; i < CNT; i++)                                                \
                        CHECK_MSG(dst[i] == want[i], #T " op 0x%x all=%d elem %d: %g != %g",     \
                                  (unsigned)ops[o], all, i, (double)dst[i], (double)want[i]);   \
            }                                                                                    \
    } while (0)

#define INTBIT(T, op, a, b) ((op) == GEX_OP_AND ? (T)((a) & (b)) : (op) == GEX_OP_OR ? (T)((a) | (b)) : (T)((a) ^ (b)))
#define BITOP_int32_t(op, a, b) INTBIT(int32_t, op, a, b)
#define BITOP_uint32_t(op, a, b) INTBIT(uint32_t, op, a, b)
#define BITOP_int64_t(op, a, b) INTBIT(int64_t, op, a, b)
#define BITOP_uint64_t(op, a, b) INTBIT(uint64_t, op, a, b)
#define BITOP_float(op, a, b) (a)
#define BITOP_double(op, a, b) (a)
#define INT_OPS {GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX, GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR}
#define FP_OPS {GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX}

/* 2x2 matrices mod 2^32: arg2_and_out = arg1 * arg2_and_out. */
typedef struct { uint32_t m[4]; } mat_t;
static void matmul(const void *a1, void *a2, size_t count, const void *cdata)
{
    CHECK(cdata == (const void *)&matmul);
    const mat_t *x = a1;
    mat_t *y = a2;
    for (size_t i = 0; i < count; i++) {
        mat_t r;
        r.m[0] = x[i].m[0] * y[i].m[0] + x[i].m[1] * y[i].m[2];
        r.m[1] = x[i].m[0] * y[i].m[1] + x[i].m[1] * y[i].m[3];
        r.m[2] = x[i].m[2] * y[i].m[0] + x[i].m[3] * y[i].m[2];
        r.m[3] = x[i].m[2] * y[i].m[1] + x[i].m[3] * y[i].m[3];
        y[i] = r;
    }
}
static mat_t mat_of(gex_Rank_t r, int i) { mat_t m = {{1u + r, 2u * r + (unsigned)i, 3u, 5u + (unsigned)i}}; return m; }

static void user_nc(void)
{
    mat_t src[3], dst[3], want[3];
    for (int i = 0; i < 3; i++) {
        src[i] = mat_of(test_rank, i);
        want[i] = mat_of(0, i);
        for (gex_Rank_t r = 1; r < test_size; r++) {
            mat_t c = mat_of(r, i);
            matmul(&want[i], &c, 1, (const void *)&matmul);
            want[i] = c;
        }
    }
    gex_Event_Wait(gex_Coll_ReduceToAllNB(test_tm, dst, src, GEX_DT_USER, sizeof(mat_t), 3,
                                          GEX_OP_USER_NC, matmul, (void *)&matmul, 0));
    CHECK(memcmp(dst, want, sizeof want) == 0);
}

int main(int argc, char **argv)
{
    test_init("coll", &argc, &argv, 0, 0, 1);
    broadcasts();
    RED_CHECK(int32_t, GEX_DT_I32, INT_OPS);
    RED_CHECK(uint32_t, GEX_DT_U32, INT_OPS);
    RED_CHECK(int64_t, GEX_DT_I64, INT_OPS);
    RED_CHECK(uint64_t, GEX_DT_U64, INT_OPS);
    RED_CHECK(float, GEX_DT_FLT, FP_OPS);
    RED_CHECK(double, GEX_DT_DBL, FP_OPS);
    user_nc();
    test_pass();
}
