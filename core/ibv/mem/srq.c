/* core/ibv/mem/srq.c: the shared receive queue mode (GASNET_USE_SRQ).
 *
 * One SRQ per HCA, attached to every RC QP of that HCA.  Its size and the
 * credits that keep it from running dry come from srq_plan.c (pure); this
 * file creates the SRQs, owns the receive buffer pool in this mode (bounded
 * by GASNET_RBUF_COUNT), posts buffers, finds the connection a buffer was
 * consumed by, and answers the SRQ limit event.  Design: core/ibv/mem/README
 * "Shared receive queues".
 *
 * Buffer accounting per HCA: `posted` buffers are put on the SRQ at start;
 * every consumed buffer is replaced before its message's credits are
 * counted (recv.c), so the SRQ holds posted - (messages arrived and not yet
 * processed) buffers, and the credits bound those messages by posted.  The
 * limit event (IBV_EVENT_SRQ_LIMIT_REACHED, armed at posted/8) therefore
 * means only "the CPU is behind": the event thread raises a flag, and the
 * next receive completion handled tops the SRQ up from the pool's spares
 * and re-arms the limit.
 */
#include "core/ibv/ibv_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GASNETC_IBV_MAX_HCAS <= GASNETC_SRQ_MAX_HCAS, "raise GASNETC_SRQ_MAX_HCAS");

static int resolved_spares(void)
{
    if (gasneti_param_isset(GASNETI_PARAM_GASNET_RBUF_SPARES)) {
        int64_t v = GASNETI_PARAM_INT(GASNET_RBUF_SPARES);
        return v > (1 << 20) ? 1 << 20 : (int)v;
    }
#if defined(GASNET_PAR)
    return 8;
#else
    return 2;
#endif
}

/* GASNET_RBUF_SIZE (srq_plan.c's rule).  Every rank must decide the same
 * (a rank with full-size buffers sends Mediums that a small buffer cannot
 * hold), so the automatic mode asks whether SRQ is on for a rank whose
 * every peer is a network peer, from job-wide inputs only, not whether it
 * is on here. */
static void rbuf_size_decide(const gasnetc_srq_in_t *in)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    int set = gasneti_param_isset(GASNETI_PARAM_GASNET_RBUF_SIZE), job_srq = 0;
    if (!set) {
        gasnetc_srq_in_t all = *in;
        gasnetc_srq_plan_t p;
        char why[400];
        for (int h = 0; h < all.nres; h++) all.nceps[h] = 0;
        for (int q = 0; q < t->nqps; q++)
            all.nceps[gasnetc_ibv_qp_port(q) < t->nports ? t->ports[gasnetc_ibv_qp_port(q)].hca->index
                                                         : 0] += (int)t->size - 1;
        job_srq = gasnetc_srq_plan(&all, &p, why, sizeof(why)) == 0 && p.use;
    }
    uint64_t v = set ? GASNETI_PARAM_SIZE(GASNET_RBUF_SIZE) : 0;
    t->rbuf_size = gasnetc_rbuf_size_plan(set, v > (1u << 30) ? (int64_t)1 << 30 : (int64_t)v,
                                          job_srq, GASNETC_IBV_BUFSZ);
    size_t room = t->rbuf_size - GASNETC_IBV_HDR_ROOM(GASNETC_AM_HDR_MAX);
    if (t->packed_long_limit > room) t->packed_long_limit = room; /* packed Longs fit a buffer */
}

int gasnetc_ibv_srq_decide(const int *nceps_per_hca, int max_cqe)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    gasnetc_srq_in_t in;
    memset(&in, 0, sizeof(in));
    in.use_srq = GASNETI_PARAM_INT(GASNET_USE_SRQ);
    in.rbuf_count = GASNETI_PARAM_INT(GASNET_RBUF_COUNT);
    in.job_size = t->size;
    in.nres = t->nres;
    in.pp = t->credit_cfg.pp;
    in.total = t->credit_cfg.total;
    in.spares = resolved_spares();
    in.max_srq_wr = 0;
    for (int h = 0; h < t->nres; h++) {
        int m = t->res[h].hca->attr->max_srq_wr;
        in.nceps[h] = nceps_per_hca[h];
        if (h == 0 || m < in.max_srq_wr) in.max_srq_wr = m;
    }
    char why[400];
    if (gasnetc_srq_plan(&in, &t->srq_plan, why, sizeof(why)) != 0)
        gasneti_fatalerror("%s", why);
    t->srq_on = t->srq_plan.use;
    rbuf_size_decide(&in);
    if (!t->srq_on) return 0;
    if (t->srq_plan.over && t->rank == 0)
        gasneti_warning("GASNET_RBUF_COUNT=%lld is below the %d receive buffers a shared receive "
                        "queue needs for %d connection(s) without RNR; using %d (set "
                        "GASNET_USE_SRQ=1 to make GASNET_RBUF_COUNT a hard limit)",
                        (long long)in.rbuf_count, t->srq_plan.pool, t->nceps, t->srq_plan.pool);
    /* The credits the SRQ was sized for; the policy may only lower them. */
    char w2[256];
    if (gasnetc_credit_config_resolve(&t->credit_cfg, t->srq_plan.pp, t->srq_plan.total,
                                      (int)GASNETI_PARAM_INT(GASNET_AM_CREDITS_SLACK),
                                      t->nceps ? t->nceps : 1, max_cqe, w2, sizeof(w2)) != 0)
        gasneti_fatalerror("%s", w2);
    return 1;
}

void gasnetc_ibv_srq_create(gasnetc_ibv_res_t *r)
{
    if (!gasnetc_ibv.srq_on) return;
    struct ibv_srq_init_attr a;
    memset(&a, 0, sizeof(a));
    a.attr.max_wr = (uint32_t)gasnetc_ibv.srq_plan.posted[r->index];
    a.attr.max_sge = 1;
    r->srq = ibv_create_srq(r->pd, &a);
    if (!r->srq)
        gasneti_fatalerror("ibv_create_srq of %d entries on %s failed: %s (lower "
                           "GASNET_RBUF_COUNT, or set GASNET_USE_SRQ=0)",
                           gasnetc_ibv.srq_plan.posted[r->index], r->hca->name, strerror(errno));
}

void gasnetc_ibv_srq_pool_init(void)
{
    const gasnetc_srq_plan_t *p = &gasnetc_ibv.srq_plan;
    gasnetc_ibv_pool_init(&gasnetc_ibv.rbuf_pool, "AM receive buffers (GASNET_RBUF_COUNT)",
                          gasnetc_ibv.rbuf_size, sizeof(gasnetc_rbuf_t), 16, p->pool, p->pool);
}

void gasnetc_ibv_srq_post(gasnetc_ibv_res_t *r, gasnetc_rbuf_t *rb)
{
    if (!rb) rb = (gasnetc_rbuf_t *)gasnetc_ibv_pool_get(&gasnetc_ibv.rbuf_pool, 0);
    if (!rb)
        gasneti_fatalerror("AM receive buffer pool of %d (GASNET_RBUF_COUNT) is empty while "
                           "filling the shared receive queue of %s", gasnetc_ibv.rbuf_pool.count,
                           r->hca->name);
    rb->cep = NULL; /* known only when consumed (gasnetc_ibv_srq_claim) */
    struct ibv_sge sge;
    sge.addr = (uintptr_t)rb->slot.data;
    sge.length = (uint32_t)gasnetc_ibv.rbuf_size;
    sge.lkey = rb->slot.lkey[r->index];
    struct ibv_recv_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uintptr_t)rb;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    int rc = ibv_post_srq_recv(r->srq, &wr, &bad);
    if (rc)
        gasneti_fatalerror("ibv_post_srq_recv on %s failed: %s", r->hca->name, strerror(rc));
}

static void arm_limit(gasnetc_ibv_res_t *r)
{
    struct ibv_srq_attr a;
    memset(&a, 0, sizeof(a));
    a.srq_limit = (uint32_t)gasnetc_ibv.srq_plan.limit[r->index];
    if (ibv_modify_srq(r->srq, &a, IBV_SRQ_LIMIT))
        gasneti_fatalerror("ibv_modify_srq(srq_limit %u) on %s failed: %s", a.srq_limit,
                           r->hca->name, strerror(errno));
}

void gasnetc_ibv_srq_fill(void)
{
    if (!gasnetc_ibv.srq_on) return;
    for (int h = 0; h < gasnetc_ibv.nres; h++) {
        gasnetc_ibv_res_t *r = &gasnetc_ibv.res[h];
        for (int i = 0; i < gasnetc_ibv.srq_plan.posted[h]; i++) gasnetc_ibv_srq_post(r, NULL);
        arm_limit(r);
    }
}

void gasnetc_ibv_srq_limit_event(struct ibv_srq *srq)
{
    for (int h = 0; h < gasnetc_ibv.nres; h++) {
        gasnetc_ibv_res_t *r = &gasnetc_ibv.res[h];
        if (r->srq != srq) continue;
        GASNETC_ATOMIC_ADD(&r->srq_limit_events, 1);
        GASNETC_ATOMIC_STORE(&r->srq_low, 1);
        GASNETC_ATOMIC_STORE(&gasnetc_ibv.srq_low_any, 1);
    }
}

/* The limit fired: post what the pool has beyond one spare (each such
 * buffer raises the HCA's posted count above its plan: srq_extra), then
 * re-arm the limit (it fires once per arming). */
static void top_up(gasnetc_ibv_res_t *r)
{
    int old = 1;
    if (!GASNETC_ATOMIC_CAS(&r->srq_low, old, 0)) return;
    int room = gasnetc_ibv.srq_plan.posted[r->index] / 8 + 1;
    while (room-- > 0) {
        gasnetc_ibv_slot_t *s = gasnetc_ibv_pool_get(&gasnetc_ibv.rbuf_pool, 0);
        if (!s) break;
        gasneti_mutex_lock(&gasnetc_ibv.rbuf_pool.lock);
        int keep = gasnetc_ibv.rbuf_pool.free == NULL; /* s was the last spare: keep it */
        gasneti_mutex_unlock(&gasnetc_ibv.rbuf_pool.lock);
        if (keep) {
            gasnetc_ibv_pool_put(&gasnetc_ibv.rbuf_pool, s);
            break;
        }
        gasnetc_ibv_srq_post(r, (gasnetc_rbuf_t *)s);
        GASNETC_ATOMIC_ADD(&r->srq_extra, 1);
    }
    arm_limit(r);
}

void gasnetc_ibv_srq_service(void)
{
    int one = 1;
    if (!GASNETC_ATOMIC_LOAD(&gasnetc_ibv.srq_low_any)) return; /* the common case: a load */
    if (!GASNETC_ATOMIC_CAS(&gasnetc_ibv.srq_low_any, one, 0)) return;
    for (int h = 0; h < gasnetc_ibv.nres; h++) top_up(&gasnetc_ibv.res[h]);
}

int gasnetc_ibv_srq_retire(gasnetc_ibv_res_t *r)
{
    int n = GASNETC_ATOMIC_LOAD(&r->srq_extra);
    while (n > 0) {
        if (GASNETC_ATOMIC_CAS(&r->srq_extra, n, n - 1)) return 1;
    }
    return 0;
}

void gasnetc_ibv_srq_claim(gasnetc_rbuf_t *rb, const struct ibv_wc *wc)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    if (wc->status == IBV_WC_SUCCESS && wc->byte_len >= 8) {
        const uint8_t *b = rb->slot.data;
        uint32_t src = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
                       (uint32_t)b[7] << 24;
        if (src < t->size && t->peer_ceps[src]) {
            gasnetc_cep_t *c = t->peer_ceps[src];
            for (int q = 0; q < t->nqps; q++)
                if (c[q].qp && c[q].qp->qp_num == wc->qp_num) {
                    rb->cep = &c[q];
                    return;
                }
        }
    }
    /* Error completions (flushes) and corrupted headers: search them all. */
    for (int i = 0; i < t->nceps; i++)
        if (t->ceps[i].qp && t->ceps[i].qp->qp_num == wc->qp_num) {
            rb->cep = &t->ceps[i];
            return;
        }
    gasneti_fatalerror("receive completion (status %d) from unknown qp_num 0x%x on a shared "
                       "receive queue", (int)wc->status, wc->qp_num);
}

/* VmPin / VmLck of /proc/self/status in KiB (-1 when absent). */
static void vm_pinned(long *pin, long *lck)
{
    *pin = *lck = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "VmPin:", 6)) *pin = strtol(line + 6, NULL, 10);
        if (!strncmp(line, "VmLck:", 6)) *lck = strtol(line + 6, NULL, 10);
    }
    fclose(f);
}

void gasnetc_ibv_srq_report(void)
{
    gasnetc_ibv_state_t *t = &gasnetc_ibv;
    if (t->rank != 0 || !GASNETI_PARAM_BOOL(GASNET_VERBOSEENV)) return;
    const gasnetc_srq_plan_t *p = &t->srq_plan;
    if (t->srq_on)
        gasneti_info("verbs SRQ: on (GASNET_USE_SRQ=%lld, GASNET_RBUF_COUNT=%lld): %d buffer(s), "
                     "%d posted on the SRQ of %s (limit %d), %d spare(s); credits PP=%d "
                     "TOTAL=%d%s", (long long)GASNETI_PARAM_INT(GASNET_USE_SRQ),
                     (long long)GASNETI_PARAM_INT(GASNET_RBUF_COUNT), p->pool, p->posted[0],
                     t->res[0].hca->name, p->limit[0], p->spares, t->credit_cfg.pp,
                     t->credit_cfg.total, p->reduced ? " (lowered to fit GASNET_RBUF_COUNT)" : "");
    else
        gasneti_info("verbs SRQ: off (GASNET_USE_SRQ=%lld): receive queues per connection",
                     (long long)GASNETI_PARAM_INT(GASNET_USE_SRQ));
    int staged, landing;
    size_t stage_size;
    gasnetc_ibv_rndv_counts(&staged, &stage_size, &landing);
    if (t->rbuf_size < GASNETC_IBV_BUFSZ)
        gasneti_info("verbs receive buffers: GASNET_RBUF_SIZE=%zu; larger Mediums by "
                     "rendezvous READ: %d landing buffer(s) of %zu B (at most %lld), %d staging "
                     "buffer(s) of %zu B", t->rbuf_size, landing, (size_t)GASNETC_IBV_BUFSZ,
                     (long long)GASNETI_PARAM_INT(GASNET_RBUF_LARGE_COUNT), staged, stage_size);
    else
        gasneti_info("verbs receive buffers: GASNET_RBUF_SIZE=%zu (full size, no rendezvous)",
                     t->rbuf_size);
    long pin, lck;
    vm_pinned(&pin, &lck);
    size_t rb = (size_t)t->rbuf_pool.count * t->rbuf_pool.data_size,
           bb = (size_t)t->bbuf_pool.count * t->bbuf_pool.data_size,
           db = (size_t)t->desc_pool.count * t->desc_pool.data_size;
    gasneti_info("verbs memory: registered AM receive %zu B (%d x %zu), bounce %zu B (%d), "
                 "descriptors %zu B (%d); per HCA; VmPin %ld KiB, VmLck %ld KiB; %d connection(s)",
                 rb, t->rbuf_pool.count, t->rbuf_pool.data_size, bb, t->bbuf_pool.count, db,
                 t->desc_pool.count, pin, lck, t->nceps);
}
