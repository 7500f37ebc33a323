/* core/ibv/conn/conn_policy.c: pure decisions of connection setup (conn_policy.h). */
#include "core/ibv/conn/conn_policy.h"

#include <stdio.h>

uint64_t gasnetc_conn_next_interval(uint64_t cur, uint64_t min, uint64_t max)
{
    if (min == 0) min = 1;
    uint64_t next = cur == 0 ? min : cur * 2;
    if (next < cur || next > max) return 0; /* (overflow too) */
    return next;
}

uint64_t gasnetc_conn_total_wait(uint64_t min, uint64_t max)
{
    uint64_t sum = 0;
    for (uint64_t i = gasnetc_conn_next_interval(0, min, max); i;
         i = gasnetc_conn_next_interval(i, min, max))
        sum += i;
    return sum;
}

int gasnetc_conn_accept_crossed(uint32_t me, uint32_t peer) { return peer < me; }

int gasnetc_conn_default_rcvs(uint32_t n_remote)
{
    int lg = 0;
    while (lg < 32 && ((uint64_t)1 << lg) < n_remote) lg++; /* ceil(log2(n)); 0 for n <= 1 */
    int v = 4 + 2 * lg;
    return v < 6 ? 6 : v;
}

int gasnetc_xrc_decide(int requested, int explicit_set, int dev_xrc, int srq, int impl,
                       const char *hca, char *why, size_t n)
{
    if (n) why[0] = '\0';
    if (!requested) return 0;
    if (!dev_xrc) {
        if (explicit_set)
            snprintf(why, n, "GASNET_USE_XRC=1: %s does not support XRC (Soft-RoCE never does); "
                     "using RC connections", hca ? hca : "the HCA");
        return 0;
    }
    if (!srq) {
        if (explicit_set)
            snprintf(why, n, "GASNET_USE_XRC=1: XRC needs a shared receive queue, which is not "
                     "in use (GASNET_USE_SRQ); using RC connections");
        return 0;
    }
    if (!impl) {
        if (explicit_set)
            snprintf(why, n, "GASNET_USE_XRC=1: %s supports XRC but this library does not carry "
                     "traffic over it yet; using RC connections", hca ? hca : "the HCA");
        return 0;
    }
    return 1;
}
