/* core/ibv/mem/srq_plan.c: when to use an SRQ and how to size it (pure; see
 * srq_plan.h and core/ibv/mem/README "Shared receive queues").
 *
 * Sizing rule.  Each HCA's SRQ is kept at posted = n*PP + TOTAL buffers
 * (n = connections on that HCA): at most PP Requests per connection can be
 * in flight or unprocessed (the credit window), and at most TOTAL Replies
 * (every Reply answers one of this process's Requests, each of which holds
 * one of the TOTAL process-wide credits until its Reply or piggybacked
 * credit is processed).  A buffer is reposted (or replaced) whenever one
 * is consumed, so arrivals never exceed what is posted.  The pool is that
 * plus GASNET_RBUF_SPARES unposted buffers for the replacement-before-
 * handler step.  When GASNET_RBUF_COUNT is smaller, PP and TOTAL are
 * lowered (the larger consumer first), then the spares, down to PP = 1,
 * TOTAL = 1, no spares: n + 1 per HCA.  Below that, an explicit
 * GASNET_USE_SRQ (a hard maximum, as the seed README says) is an error; the
 * automatic mode takes that minimum anyway (out->over, a warning).
 */
#include "core/ibv/mem/srq_plan.h"

#include <stdio.h>
#include <string.h>

static int64_t sum_ceps(const gasnetc_srq_in_t *in)
{
    int64_t s = 0;
    for (int h = 0; h < in->nres; h++) s += in->nceps[h];
    return s;
}

int64_t gasnetc_srq_nonsrq_need(const gasnetc_srq_in_t *in)
{
    return 2 * (int64_t)in->pp * sum_ceps(in) + in->spares;
}

static int64_t need(const gasnetc_srq_in_t *in, int pp, int total, int spares)
{
    int64_t s = spares;
    for (int h = 0; h < in->nres; h++) s += gasnetc_srq_hca_need(in->nceps[h], pp, total);
    return s;
}

int gasnetc_srq_plan(const gasnetc_srq_in_t *in, gasnetc_srq_plan_t *out, char *why,
                     size_t whylen)
{
    memset(out, 0, sizeof(*out));
    out->pp = in->pp;
    out->total = in->total;
    out->spares = in->spares;
    if (in->nres < 1 || in->nres > GASNETC_SRQ_MAX_HCAS || sum_ceps(in) == 0) return 0;
    int64_t nonsrq = gasnetc_srq_nonsrq_need(in);
    int64_t cap = in->rbuf_count; /* 0: only the HCAs limit it */
    int64_t hca_cap = (int64_t)in->nres * in->max_srq_wr + in->spares;
    if (cap == 0 || cap > hca_cap) cap = hca_cap;
    if (in->use_srq == 0) return 0;
    if (in->use_srq < 0 && !(cap < nonsrq)) return 0;
    if (in->use_srq > 0 && (uint64_t)in->use_srq > in->job_size) return 0;
    if (in->max_srq_wr <= 0) {
        if (in->use_srq < 0) return 0; /* auto: silently per-connection */
        snprintf(why, whylen, "GASNET_USE_SRQ=%lld asks for a shared receive queue but the HCA "
                 "does not support one (max_srq_wr 0): set GASNET_USE_SRQ=0",
                 (long long)in->use_srq);
        return -1;
    }
    out->use = 1;
    int pp = in->pp, total = in->total, spares = in->spares;
    if (pp < 1) pp = 1;
    if (total < 1) total = 1;
    while (need(in, pp, total, spares) > cap) {
        int64_t req = sum_ceps(in) * pp, rep = (int64_t)in->nres * total;
        if (pp > 1 && (req >= rep || total == 1)) pp--;
        else if (total > 1) total--;
        else if (spares > 0) spares--;
        else break;
    }
    int64_t n = need(in, pp, total, spares);
    int fits = n <= cap;
    for (int h = 0; h < in->nres && fits; h++)
        if (gasnetc_srq_hca_need(in->nceps[h], pp, total) > in->max_srq_wr) fits = 0;
    if (!fits && in->use_srq < 0 && in->rbuf_count > 0 && in->nres * 1 > 0) {
        /* auto mode: GASNET_RBUF_COUNT was not asked to be a hard maximum;
         * take the smallest no-RNR pool instead and say so (over) */
        int ok = 1;
        for (int h = 0; h < in->nres; h++)
            if (gasnetc_srq_hca_need(in->nceps[h], 1, 1) > in->max_srq_wr) ok = 0;
        if (ok) {
            fits = 1;
            out->over = 1;
        }
    }
    if (!fits) {
        int64_t min = need(in, 1, 1, 0);
        snprintf(why, whylen, "GASNET_RBUF_COUNT=%lld is too small for a shared receive queue "
                 "with %lld connection(s) on %d HCA(s) (HCA limit %d per SRQ): at least %lld "
                 "buffers are needed (one per connection plus one per HCA); raise "
                 "GASNET_RBUF_COUNT or set GASNET_USE_SRQ=0",
                 (long long)in->rbuf_count, (long long)sum_ceps(in), in->nres, in->max_srq_wr,
                 (long long)min);
        return -1;
    }
    out->pp = pp;
    out->total = total;
    out->spares = spares;
    out->reduced = pp != in->pp || total != in->total || spares != in->spares;
    out->pool = (int)n;
    for (int h = 0; h < in->nres; h++) {
        out->posted[h] = (int)gasnetc_srq_hca_need(in->nceps[h], pp, total);
        /* low-water mark: an eighth of the posted buffers, at least 1 */
        out->limit[h] = out->posted[h] / 8 > 0 ? out->posted[h] / 8 : 1;
    }
    return 0;
}

size_t gasnetc_rbuf_size_plan(int is_set, int64_t value, int srq_on, size_t full)
{
    if (!is_set) return srq_on && GASNETC_RBUF_SIZE_AUTO < full ? GASNETC_RBUF_SIZE_AUTO : full;
    if (value <= 0 || (uint64_t)value >= full) return full;
    size_t v = ((size_t)value + 63) & ~(size_t)63;
    if (v < GASNETC_RBUF_SIZE_MIN) v = GASNETC_RBUF_SIZE_MIN;
    return v < full ? v : full;
}
