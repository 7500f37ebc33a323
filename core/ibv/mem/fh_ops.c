/* core/ibv/mem/fh_ops.c: firehose over verbs: the ops table (pin = ibv_reg_mr
 * of the region on every HCA this process uses, unpin = ibv_dereg_mr, move
 * requests as internal Medium AMs 96 -> reply 97) and the instance's set-up
 * at gex_Segment_Attach.  Rationale: firehose/README "Over verbs";
 * the algorithm: firehose/README.
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/mem/fh_ibv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

firehose_t *gasnetc_fh = NULL;

/* What a pin returns as its handle: the MR on each HCA. */
typedef struct {
    struct ibv_mr *mr[GASNETC_FH_MAX_HCAS];
} fh_mrs_t;

static int fh_nhcas(void)
{
    return gasnetc_ibv.nres < GASNETC_FH_MAX_HCAS ? gasnetc_ibv.nres : GASNETC_FH_MAX_HCAS;
}

/* ---- the ops -------------------------------------------------------------------- */
static int fh_pin(void *ctx, uintptr_t addr, size_t len, firehose_pin_t *out)
{
    (void)ctx;
    fh_mrs_t *m = calloc(1, sizeof *m);
    if (!m) return -1;
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                 gasnetc_ibv_odp_access();
    out->lkey = out->rkey = 0;
    for (int h = 0; h < fh_nhcas(); h++) {
        m->mr[h] = ibv_reg_mr(gasnetc_ibv.res[h].pd, (void *)addr, len, access);
        if (!m->mr[h]) {
            while (h-- > 0) ibv_dereg_mr(m->mr[h]);
            free(m);
            return -1; /* firehose flushes its cache, retries once, then falls back */
        }
        out->lkey |= (uint64_t)m->mr[h]->lkey << (h ? 32 : 0);
        out->rkey |= (uint64_t)m->mr[h]->rkey << (h ? 32 : 0);
    }
    out->handle = m;
    return 0;
}

static void fh_unpin(void *ctx, const firehose_pin_t *pin)
{
    (void)ctx;
    fh_mrs_t *m = pin->handle;
    for (int h = 0; m && h < GASNETC_FH_MAX_HCAS; h++) {
        if (!m->mr[h]) continue;
        int rc = ibv_dereg_mr(m->mr[h]);
        if (rc && !gasnetc_exit_in_progress())
            gasneti_fatalerror("firehose: ibv_dereg_mr of a %zu-byte region on %s failed: %s",
                               (size_t)m->mr[h]->length, gasnetc_ibv.res[h].hca->name,
                               strerror(rc));
    }
    free(m);
}

static void fh_send_move(void *ctx, int node, const void *msg, size_t len)
{
    (void)ctx;
    gasnetc_ibv.up.request_medium((uint32_t)node, GASNETC_FH_HIDX_MOVE, msg, len);
}

static const firehose_ops_t fh_verbs_ops = {
    .pin = fh_pin,
    .unpin = fh_unpin,
    .send_move = fh_send_move,
    .deliver = NULL,
};

/* ---- the move protocol's handlers ------------------------------------------------- */
static gex_Rank_t token_src(gex_Token_t t) { return gasnetc_ibv.up.token_src(t); }

/* Granting side: pins (or finds) the region, answers with the grant. */
static void fh_move_reqh(gex_Token_t t, void *buf, size_t nbytes)
{
    uint64_t reply[16];
    gex_Rank_t src = token_src(t);
    if (!gasnetc_fh)
        gasneti_fatalerror("firehose: move request from rank %u, but firehose is off here "
                           "(GASNET_USE_FIREHOSE differs between ranks?)", (unsigned)src);
    size_t n = firehose_move_handle(gasnetc_fh, (int)src, buf, nbytes, reply, sizeof reply);
    if (n) gasnetc_ibv.up.reply_medium(t, GASNETC_FH_HIDX_REPLY, reply, n);
}

/* Requesting side: the grant (or refusal) of one of our move requests. */
static void fh_move_reph(gex_Token_t t, void *buf, size_t nbytes)
{
    firehose_reply_handle(gasnetc_fh, (int)token_src(t), buf, nbytes);
}

static void fh_register_handlers(void)
{
    static gex_AM_Entry_t table[] = {
        {GASNETC_FH_HIDX_MOVE, (gex_AM_Fn_t)fh_move_reqh, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
         0, NULL, "gasnetc_fh_move_reqh"},
        {GASNETC_FH_HIDX_REPLY, (gex_AM_Fn_t)fh_move_reph, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY,
         0, NULL, "gasnetc_fh_move_reph"},
    };
    gasnetc_ibv.up.register_handlers(table, sizeof(table) / sizeof(table[0]));
}

/* ---- set-up ------------------------------------------------------------------------ */
static uint64_t hca_max_mr(void)
{
    uint64_t m = 0;
    for (int h = 0; h < gasnetc_ibv.nres; h++) {
        uint64_t v = (uint64_t)gasnetc_ibv.res[h].hca->attr->max_mr;
        if (v && (!m || v < m)) m = v;
    }
    return m;
}

/* Every rank learns whether some rank failed; the lowest prints its line,
 * then the whole job exits 1 (like Client_Init's startup agreement). */
static void agree(int bad, const char *why)
{
    int32_t mine = bad ? 1 : 0;
    int32_t *all = calloc(gasneti_nodes, sizeof *all);
    if (!all) gasneti_fatalerror("out of memory at attach");
    gasneti_boot->exchange(&mine, sizeof mine, all);
    gex_Rank_t first = GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < gasneti_nodes && first == GEX_RANK_INVALID; r++)
        if (all[r]) first = r;
    free(all);
    if (first == GEX_RANK_INVALID) return;
    if (first == gasneti_mynode) {
        char line[600];
        int n = snprintf(line, sizeof line, "*** FATAL ERROR (%s): %s\n", gasneti_log_identity(),
                         why);
        if (write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0) {
            /* stderr is gone: the exit code still tells */
        }
    }
    gasneti_boot->notify_exit(1);
    gasneti_boot->fini();
    _exit(1);
}

void gasnetc_fh_attach(int active, uint64_t seg_pinned)
{
    char why[400] = "";
    int bad = 0;
    firehose_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    gasnetc_ibv_odp_init(active);
    if (active && !GASNETC_SEGMENT_PINNED && gasnetc_ibv.nres > GASNETC_FH_MAX_HCAS) {
        snprintf(why, sizeof why, "SEGMENT_LARGE/EVERYTHING uses at most %d HCAs per process "
                 "(this one opened %d): limit them with GASNET_IBV_PORTS",
                 GASNETC_FH_MAX_HCAS, gasnetc_ibv.nres);
        bad = 1;
    }
    if (active && !bad) {
        firehose_user_t u;
        firehose_env_t env;
        firehose_user_from_params(&u);
        memset(&env, 0, sizeof env);
        env.nodes = (int)gasneti_nodes;
        env.mynode = (int)gasneti_mynode;
        env.remote = !GASNETC_SEGMENT_PINNED;
        env.host_procs = gasnetc_host_count ? (int)gasnetc_host_count : 1;
        env.page_size = (size_t)sysconf(_SC_PAGESIZE);
        uint64_t pin = gasnetc_ibv_pinnable_bytes(), used = seg_pinned + gasnetc_ibv_buffers_bytes();
        env.pool_bytes = pin > used ? pin - used : 0;
        env.hca_max_regions = hca_max_mr();
        env.physmem_fraction = gasnetc_ibv_physmem_fraction();
        env.msg_max = GASNETC_MAX_MEDIUM;
        if (firehose_config_resolve(&u, &env, &cfg, why, sizeof why) != 0) {
            if (!GASNETC_SEGMENT_PINNED) {
                bad = 1; /* LARGE needs firehose */
            } else {
                /* FAST: out-of-segment RMA stays correct, only copied. */
                gasneti_warning("%s; out-of-segment RMA uses bounce buffers (limit: %s)", why,
                                gasnetc_ibv_pinnable_why());
                cfg.enabled = 0;
            }
        }
    }
    agree(bad, why);
    fh_register_handlers();
    if (!active || !cfg.enabled) return;
    firehose_munmap_policy_apply(1);
    gasnetc_fh = firehose_init(&cfg, &fh_verbs_ops, NULL);
    if (!gasnetc_fh) gasneti_fatalerror("firehose: cannot create the instance (see above)");
}

const char *gasnetc_fh_stats_line(char *buf, size_t len)
{
    if (!gasnetc_fh) {
        snprintf(buf, len, "firehose_off (bounce buffers only)");
        return buf;
    }
    firehose_stats_t s;
    firehose_stats(gasnetc_fh, &s);
    uint64_t lt = s.local_hits + s.local_misses, rt = s.remote_hits + s.remote_misses;
    snprintf(buf, len, "local hit rate %.1f%% (%llu hits, %llu misses, %llu refused), remote hit "
             "rate %.1f%% (%llu hits, %llu misses, %llu joined), %llu evictions, %llu pin "
             "failures, %llu pinned regions (%llu bytes), %llu grants",
             lt ? 100.0 * (double)s.local_hits / (double)lt : 0.0,
             (unsigned long long)s.local_hits, (unsigned long long)s.local_misses,
             (unsigned long long)s.local_noresource,
             rt ? 100.0 * (double)s.remote_hits / (double)rt : 0.0,
             (unsigned long long)s.remote_hits, (unsigned long long)s.remote_misses,
             (unsigned long long)s.remote_joins, (unsigned long long)s.evictions,
             (unsigned long long)s.pin_failures, (unsigned long long)s.pinned_regions,
             (unsigned long long)s.pinned_bytes, (unsigned long long)s.grants);
    return buf;
}
