/* tests/integration/teams/tmdestroy.c: what gex_TM_Destroy returns.
 *
 * The specification: a non-zero return means the call wrote *scratch_p
 * (the team's scratch space, handed back); otherwise it returns 0.  So:
 *   - a team with scratch, destroyed with scratch_p NULL: 0 (nothing written);
 *   - a team with scratch, destroyed with scratch_p: non-zero, and *scratch_p
 *     holds the address and length given at creation;
 *   - a team made with GEX_FLAG_TM_NO_SCRATCH, destroyed with scratch_p: 0,
 *     and *scratch_p is left as it was.
 * Each case splits the world into two halves (gex_TM_Split).
 */
#include <gasnetex.h>
#include "../test.h"

#define SCRATCH_OFF 4096

static gex_TM_t split(int with_scratch, void **scratch_p, size_t *size_p)
{
    int color = (int)(test_rank % 2);
    gex_TM_t tm = GEX_TM_INVALID;
    if (!with_scratch) {
        gex_TM_Split(&tm, test_tm, color, (int)test_rank, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else {
        size_t sz = gex_TM_Split((gex_TM_t *)&sz /* non-NULL: a member */, test_tm, color,
                                 (int)test_rank, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
        CHECK(sz > 0 && SCRATCH_OFF + sz <= test_seglen[test_rank]);
        *scratch_p = test_seg_at(test_rank, SCRATCH_OFF);
        *size_p = sz;
        gex_TM_Split(&tm, test_tm, color, (int)test_rank, *scratch_p, sz, 0);
    }
    CHECK(tm != GEX_TM_INVALID);
    CHECK_EQ(gex_TM_QuerySize(tm), (test_size + 1 - (gex_Rank_t)color) / 2);
    return tm;
}

int main(int argc, char **argv)
{
    test_init("tmdestroy", &argc, &argv, 1 << 20, 0, 1);
    void *addr = NULL;
    size_t size = 0;

    /* Scratch given, scratch_p NULL: nothing written, so 0. */
    gex_TM_t tm = split(1, &addr, &size);
    CHECK_EQ(gex_TM_Destroy(tm, NULL, 0), 0);

    /* Scratch given, scratch_p given: written, so non-zero. */
    tm = split(1, &addr, &size);
    gex_Memvec_t mv = {NULL, 0};
    CHECK(gex_TM_Destroy(tm, &mv, 0) != 0);
    CHECK_PTR_EQ(mv.gex_addr, addr);
    CHECK_EQ(mv.gex_len, size);

    /* No scratch: nothing to hand back, *scratch_p untouched, 0. */
    tm = split(0, NULL, NULL);
    gex_Memvec_t untouched = {(void *)&untouched, 12345};
    CHECK_EQ(gex_TM_Destroy(tm, &untouched, 0), 0);
    CHECK_PTR_EQ(untouched.gex_addr, (void *)&untouched);
    CHECK_EQ(untouched.gex_len, 12345);

    test_pass();
}
