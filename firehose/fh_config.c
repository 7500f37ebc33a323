/* firehose/fh_config.c: firehose parameters: reading them from the table
 * (other/param), resolving pool sizes, region counts and the region size
 * (seed README "Firehose configuration"; rules in firehose/README
 * "Parameters"), and the GASNET_DISABLE_MUNMAP policy.
 */
#include "firehose/firehose.h"
#include "firehose/fh_move.h"
#include "other/log/log.h"
#include "other/param/param.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FH_DEFAULT_REGION (128u * 1024u)
#define FH_DEFAULT_PUTINMOVE 3072u
/* Regions per process when neither the HCA nor the user says (and the cap
 * of the computed default). */
#define FH_REGIONS_SYSMAX (1u << 20)
/* Move messages keep room for at least this many releases beside a put. */
#define FH_MIN_RELEASES_PER_MSG 8

void firehose_user_defaults(firehose_user_t *user)
{
    memset(user, 0, sizeof *user);
    user->use_firehose = 1;
    user->m = user->maxvictim_m = -1;
    user->r = user->maxvictim_r = -1;
    user->region_size = -1;
    user->regions_max = -1;
    user->regions_max_frac = 0.0;
    user->putinmove = -1;
    user->table_scale = 1.0;
    user->verbose = 0;
}

static int64_t size_or_unset(gasneti_param_id_t id)
{
    return gasneti_param_isset(id) ? (int64_t)gasneti_param_size(id) : -1;
}

static int64_t int_or_unset(gasneti_param_id_t id)
{
    return gasneti_param_isset(id) ? gasneti_param_int(id) : -1;
}

void firehose_user_from_params(firehose_user_t *user)
{
    firehose_user_defaults(user);
    user->use_firehose = GASNETI_PARAM_BOOL(GASNET_USE_FIREHOSE);
    user->m = size_or_unset(GASNETI_PARAM_GASNET_FIREHOSE_M);
    user->maxvictim_m = size_or_unset(GASNETI_PARAM_GASNET_FIREHOSE_MAXVICTIM_M);
    user->r = int_or_unset(GASNETI_PARAM_GASNET_FIREHOSE_R);
    user->maxvictim_r = int_or_unset(GASNETI_PARAM_GASNET_FIREHOSE_MAXVICTIM_R);
    user->region_size = (int64_t)GASNETI_PARAM_SIZE(GASNET_FIREHOSE_MAXREGION_SIZE);
    if (gasneti_param_isset(GASNETI_PARAM_GASNET_PINNED_REGIONS_MAX)) {
        double frac = 0.0;
        uint64_t count = 0;
        if (gasneti_param_memfrac(GASNETI_PARAM_GASNET_PINNED_REGIONS_MAX, &frac, &count))
            user->regions_max_frac = frac;
        else
            user->regions_max = (int64_t)count;
    }
    user->putinmove = (int64_t)GASNETI_PARAM_SIZE(GASNET_PUTINMOVE_LIMIT);
    user->table_scale = GASNETI_PARAM_DOUBLE(GASNET_FIREHOSE_TABLE_SCALE);
    user->verbose = GASNETI_PARAM_BOOL(GASNET_FIREHOSE_VERBOSE);
}

/* "128K", "3M", "1G" when exact, else the byte count. */
static const char *fmt_size(char *buf, size_t len, uint64_t v)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (v && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llu", (unsigned long long)v);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
    return buf;
}

/* Splits total between two shares; neither set: `first` gets frac of it. */
static void split(int64_t set_a, int64_t set_b, uint64_t total, double frac_a, uint64_t *a,
                  uint64_t *b, int *enlarged)
{
    *enlarged = 0;
    if (set_a < 0 && set_b < 0) {
        *a = (uint64_t)((double)total * frac_a);
        *b = total - *a;
    } else if (set_b < 0) {
        *a = (uint64_t)set_a;
        *b = total > *a ? total - *a : 0;
    } else if (set_a < 0) {
        *b = (uint64_t)set_b;
        *a = total > *b ? total - *b : 0;
    } else {
        *a = (uint64_t)set_a;
        *b = (uint64_t)set_b;
        *enlarged = *a + *b > total;
    }
}

static int fail(char *why, size_t whylen, const char *fmt, ...) GASNETI_FMT(3, 4);
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && whylen) vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return -1;
}

int firehose_config_resolve(const firehose_user_t *user, const firehose_env_t *env,
                            firehose_config_t *cfg, char *why, size_t whylen)
{
    char b1[32], b2[32];
    memset(cfg, 0, sizeof *cfg);
    cfg->nodes = env->nodes;
    cfg->mynode = env->mynode;
    cfg->remote = env->remote ? 1 : 0;
    cfg->page_size = env->page_size;
    cfg->table_scale = user->table_scale > 0 ? user->table_scale : 1.0;
    cfg->verbose = user->verbose;
    cfg->msg_max = env->msg_max && env->msg_max < FIREHOSE_MSG_MAX ? env->msg_max : FIREHOSE_MSG_MAX;
    size_t pg = env->page_size;
    if (pg < 512 || (pg & (pg - 1)))
        return fail(why, whylen, "firehose: page size %zu is not a power of two >= 512", pg);
    if (env->nodes < 1 || env->mynode < 0 || env->mynode >= env->nodes)
        return fail(why, whylen, "firehose: node %d of %d is not a valid rank", env->mynode,
                    env->nodes);
    if (cfg->remote && !user->use_firehose)
        return fail(why, whylen, "GASNET_USE_FIREHOSE=0 is not allowed with GASNET_SEGMENT_LARGE "
                                 "or EVERYTHING (remote memory is pinned on demand): unset it");
    cfg->enabled = cfg->remote || user->use_firehose;
    if (!cfg->enabled) return 0;
    if (cfg->remote && cfg->msg_max < FIREHOSE_MSG_MIN)
        return fail(why, whylen, "firehose: the transport's largest AM payload (%zu bytes) cannot "
                                 "hold a move request (needs %d)",
                    cfg->msg_max, FIREHOSE_MSG_MIN);

    /* Regions this process may register (GASNET_PINNED_REGIONS_MAX is per host). */
    uint64_t procs = env->host_procs > 0 ? (uint64_t)env->host_procs : 1;
    uint64_t total_r;
    if (user->regions_max >= 0) {
        total_r = (uint64_t)user->regions_max / procs;
    } else if (user->regions_max_frac > 0 && env->hca_max_regions) {
        total_r = (uint64_t)(user->regions_max_frac * (double)env->hca_max_regions) / procs;
    } else if (env->hca_max_regions) {
        double f = env->physmem_fraction > 0 && env->physmem_fraction <= 1 ? env->physmem_fraction : 1;
        total_r = (uint64_t)(f * (double)env->hca_max_regions) / procs;
        if (total_r > FH_REGIONS_SYSMAX) total_r = FH_REGIONS_SYSMAX;
    } else {
        total_r = FH_REGIONS_SYSMAX;
    }
    if (total_r < 1) {
        if (user->regions_max >= 0)
            snprintf(b1, sizeof b1, "=%lld", (long long)user->regions_max);
        else
            snprintf(b1, sizeof b1, "=%g", user->regions_max_frac);
        return fail(why, whylen, "GASNET_PINNED_REGIONS_MAX%s leaves less than one memory region "
                                 "for each of the %llu processes of this host: raise it",
                    b1, (unsigned long long)procs);
    }

    /* Pools: 75% main / 25% victim with remote pinning, else all victim. */
    uint64_t m, v;
    int enlarged_m, enlarged_r;
    split(user->m, user->maxvictim_m, env->pool_bytes, cfg->remote ? 0.75 : 0.0, &m, &v,
          &enlarged_m);

    /* Region size; 0 = the smallest power of two whose regions address both pools. */
    uint64_t g;
    if (user->region_size == 0) {
        uint64_t cap = (uint64_t)pg * pg;
        g = pg;
        while (g < cap && (m + v) / g > total_r) g <<= 1;
    } else {
        g = user->region_size < 0 ? FH_DEFAULT_REGION : (uint64_t)user->region_size;
        if (g < pg || g % pg)
            return fail(why, whylen, "GASNET_FIREHOSE_MAXREGION_SIZE=%s is not a multiple of the "
                                     "page size (%zu): use a power of two such as 128K",
                        fmt_size(b1, sizeof b1, g), pg);
    }
    cfg->region_max = (size_t)g;

    /* Region counts, split like the pools, then truncated to what the pools address. */
    uint64_t r, vr;
    double frac = m + v ? (double)m / (double)(m + v) : 0.0;
    split(user->r, user->maxvictim_r, total_r, frac, &r, &vr, &enlarged_r);
    if (r > m / g) r = m / g;
    if (vr > v / g) vr = v / g;
    if (!cfg->remote) m = r = 0; /* FAST: the segment is pinned at attach; no main pool */
    cfg->main_bytes = m;
    cfg->main_regions = r;
    cfg->victim_bytes = v;
    cfg->victim_regions = vr;
    if (vr < 1)
        return fail(why, whylen, "GASNET_FIREHOSE_MAXVICTIM_M=%s / GASNET_FIREHOSE_MAXVICTIM_R "
                                 "leave no room for one region of GASNET_FIREHOSE_MAXREGION_SIZE=%s "
                                 "in the victim pool: raise them or lower the region size%s",
                    fmt_size(b1, sizeof b1, v), fmt_size(b2, sizeof b2, g),
                    cfg->remote ? "" : " (or set GASNET_USE_FIREHOSE=0)");
    if (cfg->remote && env->nodes > 1) {
        uint64_t peers = (uint64_t)env->nodes - 1;
        cfg->peer_bytes = m / peers;
        cfg->peer_regions = r / peers;
        if (cfg->peer_bytes < g || cfg->peer_regions < 1)
            return fail(why, whylen, "GASNET_FIREHOSE_M=%s / GASNET_FIREHOSE_R=%llu give each of "
                                     "the %llu peers less than one region of "
                                     "GASNET_FIREHOSE_MAXREGION_SIZE=%s: raise them or lower the "
                                     "region size",
                        fmt_size(b1, sizeof b1, m), (unsigned long long)r,
                        (unsigned long long)peers, fmt_size(b2, sizeof b2, g));
    }

    /* Put-in-move: fitted into the message beside a few releases. */
    uint64_t pim = user->putinmove < 0 ? FH_DEFAULT_PUTINMOVE : (uint64_t)user->putinmove;
    if (pim > FIREHOSE_PUTINMOVE_MAX)
        return fail(why, whylen, "GASNET_PUTINMOVE_LIMIT=%llu is larger than this build allows "
                                 "(%d)",
                    (unsigned long long)pim, FIREHOSE_PUTINMOVE_MAX);
    size_t room = cfg->msg_max > sizeof(fh_move_hdr_t) + FH_MIN_RELEASES_PER_MSG * sizeof(uint64_t)
                      ? cfg->msg_max - sizeof(fh_move_hdr_t) - FH_MIN_RELEASES_PER_MSG * sizeof(uint64_t)
                      : 0;
    cfg->putinmove_limit = cfg->remote ? (size_t)(pim < room ? pim : room) : 0;

    if (enlarged_m || enlarged_r)
        snprintf(cfg->warning, sizeof cfg->warning,
                 "firehose: GASNET_FIREHOSE_%s and _%s together exceed the %s available (%llu): "
                 "pinning may fail at run time",
                 enlarged_m ? "M" : "R", enlarged_m ? "MAXVICTIM_M" : "MAXVICTIM_R",
                 enlarged_m ? "pinnable bytes" : "memory regions",
                 (unsigned long long)(enlarged_m ? env->pool_bytes : total_r));
    return 0;
}

int firehose_munmap_policy_apply(int firehose_in_use)
{
    int on;
    if (gasneti_param_isset(GASNETI_PARAM_GASNET_DISABLE_MUNMAP))
        on = GASNETI_PARAM_BOOL(GASNET_DISABLE_MUNMAP);
    else
        on = firehose_in_use && sizeof(void *) == 8;
    if (!on) return 0;
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_MAX)
    mallopt(M_TRIM_THRESHOLD, -1); /* never give the heap's top back */
    mallopt(M_MMAP_MAX, 0);        /* never serve malloc from its own mmap */
    return 1;
#else
    return 0;
#endif
}
