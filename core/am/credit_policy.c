/* core/am/credit_policy.c: the credit limits (see credit.h, core/am/README).
 *
 * Policy only: how many credits per peer and per process, and how many may
 * be banked without risking a deadlock.  The counting is in credit.c.
 *
 *   GASNET_AM_CREDITS_PP     the window per peer; also the Request buffers
 *                            preposted per peer.
 *   GASNET_AM_CREDITS_TOTAL  unset: min(256, npeers * PP); 0: the most usable
 *                            (npeers * PP, bounded by the HCA); N: N, bounded
 *                            by the same.  Always at least 1.
 *   GASNET_AM_CREDITS_SLACK  reduced to min(PP - 1, (TOTAL - 1) / npeers):
 *                            credits sitting in banks can then never hold
 *                            every credit of a peer or of the process.
 */
#include "core/am/credit.h"

#include <stdio.h>

#define TOTAL_DEFAULT_CAP 256

int gasnetc_credit_slack_max(int pp, int total, int npeers)
{
    int m = pp - 1;
    if (npeers > 0 && total >= 1) {
        int t = (total - 1) / npeers;
        if (t < m) m = t;
    }
    if (m > GASNETC_CREDIT_WIRE_MAX) m = GASNETC_CREDIT_WIRE_MAX;
    return m < 0 ? 0 : m;
}

/* Upper bound for TOTAL: every peer's full window, and what the HCA allows. */
static long total_usable(int pp, int npeers, int hca_max)
{
    long u = (long)pp * (npeers > 0 ? npeers : 1);
    if (hca_max > 0 && u > hca_max) u = hca_max;
    return u;
}

int gasnetc_credit_config_resolve(gasnetc_credit_config_t *cfg, int pp, int total_req,
                                  int slack_req, int npeers, int hca_max, char *why,
                                  size_t whylen)
{
    if (pp < 1 || pp > GASNETC_CREDIT_PP_MAX) {
        snprintf(why, whylen,
                 "GASNET_AM_CREDITS_PP=%d is out of range (1..%d): set it within the range",
                 pp, GASNETC_CREDIT_PP_MAX);
        return -1;
    }
    if (slack_req < 0) {
        snprintf(why, whylen,
                 "GASNET_AM_CREDITS_SLACK=%d is out of range (0..): set it to 0 or more",
                 slack_req);
        return -1;
    }
    if (npeers < 0) {
        snprintf(why, whylen, "credit setup: %d network peers is not a valid count", npeers);
        return -1;
    }
    long usable = total_usable(pp, npeers, hca_max);
    long total;
    if (total_req < 0) {
        total = (long)pp * (npeers > 0 ? npeers : 1);
        if (total > TOTAL_DEFAULT_CAP) total = TOTAL_DEFAULT_CAP;
        if (total > usable) total = usable;
    } else if (total_req == 0) {
        total = usable;
    } else {
        total = total_req < usable ? total_req : usable;
    }
    if (total < 1) total = 1;
    cfg->pp = pp;
    cfg->total = (int)total;
    cfg->slack = slack_req;
    int smax = gasnetc_credit_slack_max(pp, cfg->total, npeers);
    if (cfg->slack > smax) cfg->slack = smax; /* silently, as the seed README says */
    return 0;
}

int gasnetc_credit_rq_depth(const gasnetc_credit_config_t *cfg)
{
    /* pp Request buffers (each replaced before its handler runs) plus the
     * Reply buffers: one per credit out, or kept as surplus; together at
     * most pp (credit.c keeps (pp - avail) + rbuf_surplus <= pp). */
    return 2 * cfg->pp;
}
