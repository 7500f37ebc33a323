/* tests/integration/rmav/test-rma-plan.c: unit test of core/ibv/rma/rma_plan.h,
 * the arithmetic that cuts a verbs put/get into stripes over QPs and pieces
 * (no hardware).  The rules come from the seed README's
 * GASNET_PUT_STRIPE_SZ / GASNET_GET_STRIPE_SZ: striping only with several
 * QPs and above the stripe size; 0 or a value above the port's largest
 * message means that message size. */
#include "core/ibv/rma/rma_plan.h"

#include <stdio.h>

static int failures;
#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
            failures++;                                                          \
        }                                                                        \
    } while (0)

/* Replays the transport's loops: every byte is carried once, stripes go
 * round-robin, pieces respect the piece limit, each used QP gets exactly one
 * "last stripe" (where a fenced put posts its fence) and it is the stripe
 * with the highest index on that QP. */
static void replay(size_t nbytes, size_t stripe, int nqps, uint32_t max_msg)
{
    size_t slen = gasnetc_rma_stripe_len(nbytes, stripe, nqps, max_msg);
    size_t ns = gasnetc_rma_nstripes(nbytes, slen), pmax = gasnetc_rma_piece_max(max_msg);
    size_t off = 0, pieces = 0, lasts = 0;
    size_t last_k[8] = {0};
    int has_last[8] = {0};
    for (size_t k = 0; k < ns; k++) {
        int q = (int)(k % (size_t)nqps);
        size_t end = off + slen < nbytes ? off + slen : nbytes;
        CHECK(end > off);
        while (off < end) {
            size_t len = end - off < pmax ? end - off : pmax;
            CHECK(len >= 1 && len <= pmax);
            off += len;
            pieces++;
        }
        if (gasnetc_rma_last_on_qp(k, ns, nqps)) {
            CHECK(!has_last[q]);
            has_last[q] = 1;
            last_k[q] = k;
            lasts++;
        }
    }
    CHECK(off == nbytes);
    CHECK(lasts == (ns < (size_t)nqps ? ns : (size_t)nqps));
    for (int q = 0; q < nqps && q < 8; q++)
        if (has_last[q]) CHECK(last_k[q] + (size_t)nqps >= ns); /* no later stripe on q */
    CHECK(pieces >= ns);
}

int main(void)
{
    const uint32_t M2G = 1u << 31, M1K = 1024;
    /* One QP: never striped, whatever the stripe size. */
    CHECK(gasnetc_rma_stripe_len(1 << 20, 4096, 1, M2G) == (1 << 20));
    /* Several QPs: above the stripe size only. */
    CHECK(gasnetc_rma_stripe_len(4096, 4096, 2, M2G) == 4096);
    CHECK(gasnetc_rma_stripe_len(4097, 4096, 2, M2G) == 4096);
    CHECK(gasnetc_rma_nstripes(4097, 4096) == 2);
    /* 0 = the largest message; above it = reduced to it. */
    CHECK(gasnetc_rma_stripe_len(100000, 0, 2, 65536) == 65536);
    CHECK(gasnetc_rma_stripe_len(100000, 1 << 20, 2, 65536) == 65536);
    CHECK(gasnetc_rma_stripe_len(65536, 0, 2, 65536) == 65536);
    CHECK(gasnetc_rma_stripe_len(16u << 20, 0, 2, M2G) == (16u << 20));
    /* Pieces: the port's largest message, capped to an SGE length. */
    CHECK(gasnetc_rma_piece_max(M1K) == M1K);
    CHECK(gasnetc_rma_piece_max(0) == ((size_t)1 << 30));
    CHECK(gasnetc_rma_piece_max(0xffffffffu) == ((size_t)1 << 31));
    /* Fence placement. */
    CHECK(gasnetc_rma_last_on_qp(0, 1, 1));
    CHECK(!gasnetc_rma_last_on_qp(0, 3, 2) && gasnetc_rma_last_on_qp(1, 3, 2) &&
          gasnetc_rma_last_on_qp(2, 3, 2));
    /* Whole transfers, crossing stripe and message sizes. */
    static const size_t sizes[] = {1, 7, 1023, 1024, 1025, 4096, 5000, 65537, 1 << 20,
                                   (16u << 20) + 3};
    static const size_t stripes[] = {0, 1, 512, 1000, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t j = 0; j < sizeof stripes / sizeof stripes[0]; j++)
            for (int q = 1; q <= 4; q++) {
                if (stripes[j] && sizes[i] / stripes[j] > 100000) continue; /* keep it fast */
                replay(sizes[i], stripes[j], q, M1K);
                replay(sizes[i], stripes[j], q, M2G);
            }
    if (failures) {
        fprintf(stderr, "test-rma-plan: %d failure(s)\n", failures);
        return 1;
    }
    printf("PASS test-rma-plan\n");
    return 0;
}
