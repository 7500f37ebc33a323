/* tests/integration/relia/events.c: root events and their leaf (local
 * completion) events mixed in one array of gex_Event_{Wait,Test}{All,Some},
 * in every order, as GASNet's testlarge does (issue 19 item 10).
 *
 * Each rank puts NOPS transfers of SIZE bytes to the next rank with
 * gex_RMA_PutNB(..., lc_opt = &leaf[i]); over verbs the leaves are real
 * events, over PSHM they are GEX_EVENT_INVALID at once (the array forms must
 * accept both).  For each array layout (roots then leaves, leaves then
 * roots, root/leaf pairs, leaf/root pairs, reversed alternating) and each
 * form (WaitAll, WaitSome until all done, TestAll until OK, TestSome until
 * all done), the events are synchronized and then the data checked at the
 * target after a barrier.  Every loop has a deadline.
 */
#include <gasnetex.h>
#include "../test.h"

#define NOPS 8
#define SIZE ((size_t)256 << 10)
#define DEADLINE_S 60.0

static const char *const order_name[] = {"roots-then-leaves", "leaves-then-roots",
                                         "root-leaf-pairs", "leaf-root-pairs", "reversed"};
static const char *const form_name[] = {"WaitAll", "WaitSome", "TestAll", "TestSome"};

static void layout(int order, int e, int *op, int *leaf)
{
    switch (order) {
    case 0: *op = e % NOPS, *leaf = e >= NOPS; break;
    case 1: *op = e % NOPS, *leaf = e < NOPS; break;
    case 2: *op = e / 2, *leaf = e & 1; break;
    case 3: *op = e / 2, *leaf = !(e & 1); break;
    default: *op = NOPS - 1 - e / 2, *leaf = (e & 1) ^ (e / 2 & 1); break;
    }
}

static int all_invalid(const gex_Event_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != GEX_EVENT_INVALID) return 0;
    return 1;
}

static void sync_array(int form, gex_Event_t *a, size_t n, const char *what)
{
    double end = test_now() + DEADLINE_S;
    switch (form) {
    case 0: gex_Event_WaitAll(a, n, 0); break;
    case 1:
        while (!all_invalid(a, n)) {
            gex_Event_WaitSome(a, n, 0);
            CHECK_MSG(test_now() < end, "%s: WaitSome did not finish in %.0f s", what, DEADLINE_S);
        }
        break;
    case 2:
        while (gex_Event_TestAll(a, n, 0) != GASNET_OK) {
            gasnet_AMPoll();
            CHECK_MSG(test_now() < end, "%s: TestAll not OK after %.0f s", what, DEADLINE_S);
        }
        break;
    default:
        while (!all_invalid(a, n)) {
            (void)gex_Event_TestSome(a, n, 0);
            gasnet_AMPoll();
            CHECK_MSG(test_now() < end, "%s: TestSome did not finish in %.0f s", what, DEADLINE_S);
        }
        break;
    }
    CHECK_MSG(all_invalid(a, n), "%s: entries left valid after the call", what);
}

int main(int argc, char **argv)
{
    test_init("events", &argc, &argv, 2 * NOPS * SIZE, 0, 2);
    gex_Rank_t peer = (test_rank + 1) % test_size, from = (test_rank + test_size - 1) % test_size;
    unsigned char *src = malloc(NOPS * SIZE);
    CHECK(src != NULL);
    unsigned leaves_real = 0, round = 0;
    for (int order = 0; order < 5; order++) {
        for (int form = 0; form < 4; form++, round++) {
            char what[96];
            snprintf(what, sizeof what, "%s/%s", order_name[order], form_name[form]);
            gex_Event_t root[NOPS], leaf[NOPS], a[2 * NOPS];
            for (int i = 0; i < NOPS; i++) {
                test_fill(src + i * SIZE, SIZE, ((uint64_t)round << 16) | (test_rank << 8) | i);
                leaf[i] = GEX_EVENT_NO_OP;
                root[i] = gex_RMA_PutNB(test_tm, peer, test_seg_at(peer, i * SIZE), src + i * SIZE,
                                        SIZE, &leaf[i], 0);
                CHECK(leaf[i] != GEX_EVENT_NO_OP);
                leaves_real += leaf[i] != GEX_EVENT_INVALID;
            }
            for (int e = 0; e < 2 * NOPS; e++) {
                int op, isleaf;
                layout(order, e, &op, &isleaf);
                a[e] = isleaf ? leaf[op] : root[op];
            }
            sync_array(form, a, 2 * NOPS, what);
            test_barrier();
            for (int i = 0; i < NOPS; i++)
                CHECK_PATTERN(test_seg_at(test_rank, i * SIZE), SIZE,
                              ((uint64_t)round << 16) | (from << 8) | i, what);
            test_barrier();
        }
    }
    free(src);
    printf("rank %u: events: %u of %u leaf events were pending when returned (0 over PSHM)\n",
           (unsigned)test_rank, leaves_real, round * NOPS);
    test_barrier();
    TEST_MSG0("PASS events (%u processes, %u layouts x forms)", (unsigned)test_size, round);
    gasnet_exit(0);
    return 0;
}
