/* tests/unit/test-srq-plan.c: the SRQ decision and sizing of
 * core/ibv/mem/srq_plan.c on made-up jobs: GASNET_USE_SRQ's -1 / 0 / N rules,
 * GASNET_RBUF_COUNT as a maximum (credits lowered to fit, clear error when
 * it cannot), the no-RNR sizing posted = connections*PP + TOTAL per HCA,
 * and those invariants over many random inputs.
 */
#include "core/ibv/mem/srq_plan.h"

#include <stdlib.h>
#include <string.h>

#include "unit-check.h"

static gasnetc_srq_in_t job(int64_t use, int64_t rbuf, uint32_t size, int pp, int total)
{
    gasnetc_srq_in_t in;
    memset(&in, 0, sizeof(in));
    in.use_srq = use;
    in.rbuf_count = rbuf;
    in.job_size = size;
    in.nres = 1;
    in.nceps[0] = (int)size - 1;
    in.pp = pp;
    in.total = total;
    in.spares = 2;
    in.max_srq_wr = 16384;
    return in;
}

static int invariants(const gasnetc_srq_in_t *in, const gasnetc_srq_plan_t *p)
{
    if (!p->use) return 1;
    int64_t cap = in->rbuf_count ? in->rbuf_count : (int64_t)in->nres * in->max_srq_wr + in->spares;
    if (p->over) /* auto mode beyond GASNET_RBUF_COUNT: exactly the minimum */
        return p->pp == 1 && p->total == 1 && p->spares == 0 && in->use_srq < 0;
    int64_t sum = p->spares;
    for (int h = 0; h < in->nres; h++) {
        if (p->posted[h] != (int64_t)in->nceps[h] * p->pp + p->total) return 0;
        if (p->posted[h] > in->max_srq_wr) return 0;
        if (p->limit[h] < 1 || p->limit[h] > p->posted[h]) return 0;
        sum += p->posted[h];
    }
    return sum == p->pool && p->pool <= cap && p->pp >= 1 && p->total >= 1 &&
           p->pp <= (in->pp > 1 ? in->pp : 1) && p->total <= (in->total > 1 ? in->total : 1) &&
           p->spares >= 0 && p->spares <= in->spares;
}

int main(void)
{
    gasnetc_srq_plan_t p;
    char why[512];
    gasnetc_srq_in_t in;

    /* auto (-1): only when GASNET_RBUF_COUNT is below the per-connection need */
    in = job(-1, 1024, 8, 12, 84);
    CHECK(gasnetc_srq_nonsrq_need(&in) == 2 * 12 * 7 + 2, "non-SRQ need at 8 processes = %lld",
          (long long)gasnetc_srq_nonsrq_need(&in));
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && !p.use,
          "auto, 8 processes, RBUF_COUNT 1024: no SRQ (170 buffers suffice)");
    in = job(-1, 1024, 1024, 12, 256);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use, "auto, 1024 processes: SRQ");
    CHECK(p.pool == 1024 && p.pp == 1 && p.total == 1 && p.spares == 0 && p.reduced,
          "1024 processes in 1024 buffers: PP 1, TOTAL 1, no spares (pool %d pp %d total %d)",
          p.pool, p.pp, p.total);
    CHECK(invariants(&in, &p), "invariants at 1024 processes");
    in = job(-1, 1024, 16384, 12, 256);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use && p.over && p.pool == 16384 &&
              p.pp == 1 && p.total == 1,
          "auto, 16384 processes, RBUF_COUNT 1024: the no-RNR minimum 16384 anyway, flagged over");
    in = job(1, 1024, 16384, 12, 256);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == -1 && strstr(why, "GASNET_RBUF_COUNT=1024") &&
              strstr(why, "16384 buffers"),
          "explicit USE_SRQ=1, 16384 processes, RBUF_COUNT 1024: one clear error: %s", why);
    in = job(-1, 0, 16384, 12, 256);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use && !p.over && p.pp == 1 &&
              p.total == 1 && p.pool == 16386,
          "auto with RBUF_COUNT 0: HCA limit 16384 per SRQ, PP 1, TOTAL 1, 2 spares (pool %d)",
          p.pool);

    /* N: on when the job has at least N processes; 0 never */
    in = job(4, 8, 4, 12, 36);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use, "USE_SRQ=4, 4 processes: on");
    in = job(5, 8, 4, 12, 36);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && !p.use, "USE_SRQ=5, 4 processes: off");
    in = job(0, 8, 1024, 12, 256);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && !p.use, "USE_SRQ=0: off");
    in = job(1, 1024, 2, 12, 12);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use && p.pool == 26 && !p.reduced,
          "USE_SRQ=1, 2 processes, RBUF 1024: the pool is what the credits need (26), not 1024");

    /* small GASNET_RBUF_COUNT: credits lowered, larger consumer first */
    in = job(1, 8, 2, 12, 12);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use && p.pp == 3 && p.total == 3 &&
              p.spares == 2 && p.pool == 8 && p.posted[0] == 6,
          "2 processes in 8 buffers: PP 3, TOTAL 3, 6 posted, 2 spares (pp %d total %d)", p.pp,
          p.total);
    in = job(1, 16, 4, 2, 6);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use && p.pp == 2 && p.total == 6 &&
              p.pool == 14,
          "4 processes, PP 2: fits in 16 untouched (pool %d)", p.pool);
    in = job(1, 5, 8, 12, 84);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == -1 &&
              strstr(why, "GASNET_RBUF_COUNT=5") && strstr(why, "GASNET_USE_SRQ=0"),
          "8 processes in 5 buffers: error naming the variable and the fix: %s", why);
    in = job(1, 8, 8, 12, 84);
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.pp == 1 && p.total == 1 &&
              p.spares == 0 && p.pool == 8,
          "8 processes in exactly 8 buffers: the minimum");

    /* no SRQ support */
    in = job(1, 8, 2, 12, 12);
    in.max_srq_wr = 0;
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == -1 && strstr(why, "GASNET_USE_SRQ=0"),
          "forced SRQ without HCA support: error");
    in.use_srq = -1;
    in.rbuf_count = 4;
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && !p.use,
          "auto without HCA support: silently off");

    /* two HCAs */
    in = job(1, 64, 9, 4, 32);
    in.nres = 2;
    in.nceps[0] = 8;
    in.nceps[1] = 8;
    CHECK(gasnetc_srq_plan(&in, &p, why, sizeof(why)) == 0 && p.use && invariants(&in, &p) &&
              p.posted[0] == p.posted[1],
          "2 HCAs x 8 connections in 64: pp %d total %d posted %d+%d", p.pp, p.total, p.posted[0],
          p.posted[1]);

    /* random inputs: every plan keeps the invariants; errors only when the
     * minimum (one per connection + one per HCA) does not fit */
    srand(16);
    int bad = 0, errs = 0, uses = 0;
    for (int i = 0; i < 100000; i++) {
        in = job(rand() % 3 - 1, rand() % 4 == 0 ? 0 : rand() % 3000, 2 + (uint32_t)(rand() % 2000),
                 1 + rand() % 256, 1 + rand() % 256);
        in.nres = 1 + rand() % 3;
        for (int h = 0; h < in.nres; h++) in.nceps[h] = (int)in.job_size - 1;
        in.spares = rand() % 10;
        in.max_srq_wr = rand() % 8 == 0 ? 0 : 1 + rand() % 20000;
        int rc = gasnetc_srq_plan(&in, &p, why, sizeof(why));
        if (rc == 0) {
            uses += p.use;
            if (!invariants(&in, &p)) bad++;
        } else {
            errs++;
            int64_t min = in.nres + (int64_t)in.nres * in.nceps[0];
            int64_t cap = in.rbuf_count ? in.rbuf_count : (int64_t)in.nres * in.max_srq_wr + in.spares;
            if (in.max_srq_wr > 0 && min <= cap && in.nceps[0] + 1 <= in.max_srq_wr) bad++;
            if (in.use_srq < 0 && in.rbuf_count > 0 && in.max_srq_wr > 0 &&
                in.nceps[0] + 1 <= in.max_srq_wr)
                bad++; /* auto never fails when the HCA can hold the minimum */
            if (!strstr(why, "GASNET_")) bad++;
        }
    }
    CHECK(bad == 0, "100000 random jobs: %d SRQ plans, %d errors, %d violations", uses, errs, bad);

    /* small receive buffers: the size rule and the memory model */
    const size_t full = 65536, mib = 1 << 20;
    CHECK(gasnetc_rbuf_size_plan(0, 0, 1, full) == 4096 && gasnetc_rbuf_size_plan(0, 0, 0, full) == full,
          "GASNET_RBUF_SIZE unset: 4 KiB with SRQ, full size without");
    CHECK(gasnetc_rbuf_size_plan(1, 0, 1, full) == full && gasnetc_rbuf_size_plan(1, 1 << 20, 1, full) == full,
          "GASNET_RBUF_SIZE=0 or >= full: full size even with SRQ");
    CHECK(gasnetc_rbuf_size_plan(1, 4096, 0, full) == 4096 && gasnetc_rbuf_size_plan(1, 1, 0, full) == 512 &&
              gasnetc_rbuf_size_plan(1, 1000, 1, full) == 1024,
          "GASNET_RBUF_SIZE forced: 4096 as is, 1 -> 512 (minimum), 1000 -> 1024 (64-byte steps)");
    /* model rows (one HCA, PP 12, TOTAL min(256, P*PP), 2 spares, RBUF_COUNT 1024, 8 landing) */
    struct { uint32_t n; int64_t rbuf; int64_t want_bufs; uint64_t max_bytes; } rows[] = {
        {8, 1024, 170, 170 * 4096 + 8 * 65536},      /* forced SRQ: 1.2 MiB */
        {1024, 1024, 1024, 8 * mib},                 /* target: <= 8 MiB (4.5 MiB) */
        {1024, 1536, 1281, 8 * mib},                 /* TOTAL 256 kept: 5.5 MiB */
        {16384, 16385, 16385, 65 * mib},             /* minimum PP 1, TOTAL 1, no spare: 64.5 MiB */
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int total = (int)((rows[i].n - 1) * 12 < 256 ? (rows[i].n - 1) * 12 : 256);
        in = job(1, rows[i].rbuf, rows[i].n, 12, total);
        int rc = gasnetc_srq_plan(&in, &p, why, sizeof(why));
        size_t sz = gasnetc_rbuf_size_plan(0, 0, p.use, full);
        uint64_t pin = gasnetc_am_recv_pinned(p.pool, sz, 8, full);
        CHECK(rc == 0 && p.use && p.pool == rows[i].want_bufs && sz == 4096 && pin <= rows[i].max_bytes,
              "N=%u RBUF_COUNT=%lld small buffers: %d x 4 KiB + 8 x 64 KiB = %.2f MiB (PP %d TOTAL %d)",
              rows[i].n, (long long)rows[i].rbuf, p.pool, (double)pin / mib, p.pp, p.total);
    }
    in = job(1, 1024, 1024, 12, 256);
    gasnetc_srq_plan(&in, &p, why, sizeof(why));
    CHECK(gasnetc_am_recv_pinned(p.pool, full, 8, full) == 64 * mib,
          "N=1024 SRQ full-size buffers: %d x 64 KiB = 64 MiB (landing buffers not used)", p.pool);
    return unit_summary("test-srq-plan");
}
