/* core/ibv/wr/fault.c: test-only fault injection for the verbs transport.
 *
 * GASNET_TEST_QP_ERROR=N (0 = off, the default; for tests only, see
 * tests/softroce/faults.sh): on rank 0, after its N-th successful send
 * completion, the QP that completion came from is moved to IBV_QPS_ERR, as
 * an HCA does with a QP it finds broken.  Everything still queued on it is
 * then flushed in error and the peer's traffic to it is dropped, so the job
 * must take its ordinary error path: one line naming the QP, HCA, port and
 * peer.  The counter is read once (lazily, from the completion path, which
 * only runs after the parameters are loaded); the move happens once.
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <string.h>

static long fault_left = -2; /* atomic: -2 not read yet, -1 off/done, else completions left */

void gasnetc_ibv_fault_completion(gasnetc_cep_t *c)
{
    long n = __atomic_load_n(&fault_left, __ATOMIC_RELAXED);
    if (__builtin_expect(n == -1, 1)) return;
    if (n == -2) {
        int64_t v = GASNETI_PARAM_INT(GASNET_TEST_QP_ERROR);
        long want = v > 0 && gasnetc_ibv.rank == 0 ? (long)v : -1;
        long expect = -2;
        __atomic_compare_exchange_n(&fault_left, &expect, want, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
        if (want == -1) return;
    }
    if (__atomic_sub_fetch(&fault_left, 1, __ATOMIC_ACQ_REL) != 0) return;
    __atomic_store_n(&fault_left, -1, __ATOMIC_RELAXED);
    char who[160];
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_ERR;
    if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE))
        gasneti_fatalerror("GASNET_TEST_QP_ERROR: ibv_modify_qp(ERR) of %s failed: %s",
                           gasnetc_ibv_cep_name(c, who, sizeof(who)), strerror(errno));
    gasneti_warning("GASNET_TEST_QP_ERROR: fault injected: %s moved to the error state after "
                    "%ld send completions", gasnetc_ibv_cep_name(c, who, sizeof(who)), (long)GASNETI_PARAM_INT(GASNET_TEST_QP_ERROR));
}
