/* core/init.c: gex_Client_Init and gex_Segment_Attach, and the wiring of
 * the layers: the one file that names every layer (tests/deps/layers).  It
 * installs the transports' ops tables in the core (gasnetc_am_net,
 * gasnetc_am_nbr) and the extended layer (the RMA transport), the core's
 * services in the verbs transport (gasnetc_transport_up_t) and the
 * extended layer's hooks in the core (gasnetc_ext).
 *
 * Client_Init: parameters, bootstrap, agreement on startup errors (one
 * message for the whole job, every process exits non-zero), host and
 * neighbourhood discovery, PSHM, HCA/port selection and RC connections to
 * the ranks outside the neighbourhood (core/ibv), exit machinery, extended
 * layer, barrier.
 * Segment_Attach: size check, PSHM segment cross-mapping, verbs
 * registration and rkey exchange, exchange of every rank's segment,
 * barrier. */
#include "core/gasnet_core_private.h"
#include "core/pshm/pshm.h"
#include "core/ibv/ibv.h"
#include "core/ibv/mem/fh_ibv.h"
#include "extended/extended_internal.h"
#include "other/param/param-parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Every linked executable carries the conduit ident string. */
__attribute__((used)) const char gasneti_ident_string[] = "$GASNetConduitName: IBV $";

uintptr_t gasnetc_max_local_segment = 0;
uintptr_t gasnetc_max_global_segment = 0;

/* ---- routing helpers (core/gasnet_core_internal.h) ------------------------ */
int gasnetc_is_local(gex_Rank_t rank) { return gasnetc_pshm_in_nbrhd(rank); }
static int gasnetc_is_local_u32(uint32_t rank) { return gasnetc_pshm_in_nbrhd(rank); }

void *gasnetc_local_addr(gex_Rank_t rank, const void *addr, size_t len)
{
    return gasnetc_pshm_addr(rank, addr, len);
}

int gasnetc_in_segment(gex_Rank_t rank, const void *addr, size_t len)
{
    if (rank >= gasneti_nodes || !gasneti_seginfo) return 0;
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)gasneti_seginfo[rank].addr;
    uintptr_t size = gasneti_seginfo[rank].size;
    return a >= base && len <= size && a - base <= size - len;
}

/* ---- the core's services to the verbs transport ------------------------------ */
static void up_request_medium(uint32_t dest, gex_AM_Index_t handler, const void *buf,
                              size_t nbytes)
{
    gasnetc_AM_RequestMedium(gasneti_thunk_tm, (gex_Rank_t)dest, handler, buf, nbytes,
                             GEX_EVENT_NOW, 0, 0);
}

static void up_reply_medium(gex_Token_t token, gex_AM_Index_t handler, const void *buf,
                            size_t nbytes)
{
    gasnetc_AM_ReplyMedium(token, handler, buf, nbytes, GEX_EVENT_NOW, 0, 0);
}

static uint32_t up_token_src(gex_Token_t token)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    return info.gex_srcrank;
}

static const gasnetc_transport_up_t ibv_up = {
    .is_local = gasnetc_is_local_u32,
    .deliver = gasnetc_am_deliver_net,
    .long_dest_ok = gasnetc_am_long_dest_ok,
    .poll = gasnetc_poll,
    .poll_idle = gasnetc_poll_idle,
    .exit_check = gasnetc_exit_check,
    .register_handlers = gasnetc_register_internal_handlers,
    .request_medium = up_request_medium,
    .reply_medium = up_reply_medium,
    .token_src = up_token_src,
};

/* ---- job-wide agreement on a startup failure ------------------------------- */
/* Every rank calls this with bad != 0 when it cannot continue.  If any rank
 * is bad, the lowest such rank prints its message and every rank exits 1
 * (through the launcher, so the job ends once, with code 1). */
static void agree_or_fail(int bad, const char *msg)
{
    int32_t mine = bad ? 1 : 0;
    int32_t *all = calloc(gasneti_nodes, sizeof(*all));
    if (!all) gasneti_fatalerror("out of memory at startup");
    gasneti_boot->exchange(&mine, sizeof(mine), all);
    gex_Rank_t first = GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (all[r]) { first = r; break; }
    free(all);
    if (first == GEX_RANK_INVALID) return;
    if (first == gasneti_mynode) {
        char line[1024];
        int n = snprintf(line, sizeof(line), "*** FATAL ERROR (%s): %s\n",
                         gasneti_log_identity(), msg);
        if (write(2, line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1)) < 0) {
            /* stderr is gone: the exit code still tells */
        }
    }
    gasneti_boot->notify_exit(1);
    gasneti_boot->fini();
    _exit(1);
}

/* ---- positions (neighbourhood / host; stored in core/base/job.h) --------------- */
/* Number of distinct keys among all ranks, and the position of mine among
 * them ordered by first appearance (keys are the lowest rank of a set). */
static void count_sets(const uint32_t *leader, gex_Rank_t *sets, gex_Rank_t *mine)
{
    *sets = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        if (leader[r] != r) continue;
        if (leader[gasneti_mynode] == r) *mine = *sets;
        (*sets)++;
    }
}

void gasnetc_positions_init(const uint64_t *host_of)
{
    gex_Rank_t n = gasneti_nodes, me = gasneti_mynode;
    uint32_t *host_leader = calloc(n, sizeof(uint32_t));
    uint32_t *nb_leader = calloc(n, sizeof(uint32_t));
    gasnetc_host_info = calloc(n, sizeof(gex_RankInfo_t));
    gasnetc_nbrhd_info = calloc(gasnetc_pshm_nbrhd_size(), sizeof(gex_RankInfo_t));
    if (!host_leader || !nb_leader || !gasnetc_host_info || !gasnetc_nbrhd_info)
        gasneti_fatalerror("out of memory at startup (%u ranks)", n);
    for (gex_Rank_t r = 0; r < n; r++) {
        gex_Rank_t l = 0;
        while (host_of[l] != host_of[r]) l++;
        host_leader[r] = l;
        if (host_of[r] == host_of[me]) {
            if (r == me) gasnetc_host_myidx = gasnetc_host_count;
            gasnetc_host_info[gasnetc_host_count++].gex_jobrank = r;
        }
    }
    const uint32_t *nb = gasnetc_pshm_nbrhd_ranks();
    gasnetc_nbrhd_count = gasnetc_pshm_nbrhd_size();
    gasnetc_nbrhd_myidx = gasnetc_pshm_nbrhd_index();
    for (gex_Rank_t i = 0; i < gasnetc_nbrhd_count; i++) gasnetc_nbrhd_info[i].gex_jobrank = nb[i];
    uint32_t my_nb_leader = nb[0];
    gasneti_boot->exchange(&my_nb_leader, sizeof(my_nb_leader), nb_leader);
    count_sets(host_leader, &gasnetc_host_sets, &gasnetc_host_set_rank);
    count_sets(nb_leader, &gasnetc_nbrhd_sets, &gasnetc_nbrhd_set_rank);
    free(host_leader);
    free(nb_leader);
}

/* ---- segment limits ---------------------------------------------------------- */
static uint64_t physmem_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (uint64_t)1 << 30;
}

/* What bounds gasnetc_max_local_segment when pinning does (for messages). */
static const char *segment_limit_why = NULL;
/* How GASNET_MAX_SEGSIZE was read, for messages: "GASNET_MAX_SEGSIZE=0.85/H
 * (read as 0.85 of 23.4 GiB of physical memory per host, divided among 4
 * processes: 5.0 GiB)". */
static char segsize_read_as[320];

static void format_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    unsigned u = 0;
    while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) v /= 1024.0, u++;
    if (u == 0) snprintf(buf, len, "%llu byte%s", (unsigned long long)n, n == 1 ? "" : "s");
    else snprintf(buf, len, "%.1f %s", v, units[u]);
}

/* GASNET_MAX_SEGSIZE as GASNet reads it: a fraction (below 1) of physical
 * memory or a size; /H divides it among the host's processes, /P (or no
 * suffix) is per process; then rounded up to a page (at least one page). */
static uint64_t max_segsize_param(unsigned host_procs)
{
    double frac = 0;
    uint64_t bytes = 0, phys = physmem_bytes(), limit;
    int scope = 'P';
    const char *text = gasneti_param_str(GASNETI_PARAM_GASNET_MAX_SEGSIZE);
    char amount[128], each[64], client_default[48];
    int is_frac = gasneti_param_memscope(GASNETI_PARAM_GASNET_MAX_SEGSIZE, &frac, &bytes, &scope);
    /* As in GASNet, a client may change the default (not the variable):
     * gasnet_max_segsize_str, else gasnet_max_segsize bytes per process. */
    if (!gasneti_param_isset(GASNETI_PARAM_GASNET_MAX_SEGSIZE) &&
        (gasnet_max_segsize_str || gasnet_max_segsize)) {
        if (!gasnet_max_segsize_str)
            snprintf(client_default, sizeof(client_default), "%llu/P",
                     (unsigned long long)gasnet_max_segsize);
        text = gasnet_max_segsize_str ? gasnet_max_segsize_str : client_default;
        int rc = gasneti_parse_memscope(text, &frac, &bytes, &scope, NULL, 0);
        if (rc < 0 || (rc == 1 && frac <= 0.0) || (rc == 0 && bytes == 0))
            gasneti_fatalerror("gasnet_max_segsize_str=\"%s\" (the client's default for "
                               "GASNET_MAX_SEGSIZE) is not a fraction of memory below 1 or a "
                               "size, optionally followed by /P or /H (e.g. 0.85/H, 4G/P)",
                               text);
        is_frac = rc == 1;
        if (!scope) scope = 'P';
    }
    if (is_frac) {
        char total[32];
        format_bytes(phys, total, sizeof(total));
        limit = (uint64_t)(frac * (double)phys);
        snprintf(amount, sizeof(amount), "%g of %s of physical memory", frac, total);
    } else {
        limit = bytes;
        format_bytes(bytes, amount, sizeof(amount));
    }
    if (scope == 'H' && host_procs > 1) limit /= host_procs;
    /* Round up to a page without wrapping (limit < 2^63 here). */
    limit = limit ? (limit + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE
                  : GASNET_PAGESIZE;
    format_bytes(limit, each, sizeof(each));
    if (scope == 'H')
        snprintf(segsize_read_as, sizeof(segsize_read_as),
                 "GASNET_MAX_SEGSIZE=%s (read as %s per host, divided among %u processes: %s "
                 "each)", text ? text : "", amount, host_procs, each);
    else
        snprintf(segsize_read_as, sizeof(segsize_read_as),
                 "GASNET_MAX_SEGSIZE=%s (read as %s per process%s%s)", text ? text : "", amount,
                 is_frac || bytes == limit ? "" : ", rounded up to a page: ",
                 is_frac || bytes == limit ? "" : each);
    /* GASNet takes "1" or "0x10" as byte counts: accepted, but say so. */
    if (!is_frac && bytes < (1u << 20) && gasneti_mynode == 0)
        gasneti_warning("%s: a plain number of at least 1 is a byte count, so no segment "
                        "above %s can be attached; for a fraction of memory use a number "
                        "below 1 (e.g. 0.5), for a size add a unit (e.g. 512M, 4G)",
                        segsize_read_as, each);
    return limit;
}

static void compute_segment_limits(void)
{
    unsigned local = gasnetc_pshm_nbrhd_size() ? gasnetc_pshm_nbrhd_size() : 1;
    uint64_t limit = max_segsize_param(gasnetc_host_count ? gasnetc_host_count : 1);
    struct statvfs vfs;
    if (statvfs("/dev/shm", &vfs) == 0) {
        uint64_t shm = (uint64_t)vfs.f_bavail * vfs.f_frsize / local;
        /* Leave room for the AM queues and other processes. */
        shm = shm > (64u << 20) ? shm - (32u << 20) : shm / 2;
        if (shm < limit) limit = shm;
    }
    /* Verbs, SEGMENT_FAST: the segment is pinned whole at attach, so it must
     * fit what this process may pin (GASNET_PHYSMEM_MAX, RLIMIT_MEMLOCK,
     * GASNET_PHYSMEM_PROBE; core/ibv/mem/physmem.c), less the transport's
     * buffers and room for firehose. */
    gasnetc_ibv_physmem_init(gasnetc_ibv_active());
    if (GASNETC_SEGMENT_PINNED && gasnetc_ibv_active()) {
        uint64_t pin = gasnetc_ibv_segment_pinnable();
        if (pin < limit) {
            limit = pin;
            segment_limit_why = gasnetc_ibv_pinnable_why();
        }
    }
    limit &= ~(uint64_t)(GASNET_PAGESIZE - 1);
    if (limit > UINTPTR_MAX) limit = UINTPTR_MAX & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    gasnetc_max_local_segment = (uintptr_t)limit;
    uint64_t *all = calloc(gasneti_nodes, sizeof(uint64_t));
    if (!all) gasneti_fatalerror("out of memory at startup");
    gasneti_boot->exchange(&limit, sizeof(limit), all);
    uint64_t g = limit;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (all[r] < g) g = all[r];
    free(all);
    gasnetc_max_global_segment = (uintptr_t)g;
}

uintptr_t gasnet_getMaxLocalSegmentSize(void) { return gasnetc_max_local_segment; }
uintptr_t gasnet_getMaxGlobalSegmentSize(void) { return gasnetc_max_global_segment; }

/* ---- gex_Client_Init ------------------------------------------------------------ */
int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                    const char *clientName, int *argc, char ***argv, gex_Flags_t flags)
{
    if (gasneti_init_done) {
        gasneti_warning("gex_Client_Init called twice: this library supports one client");
        return GASNET_ERR_RESOURCE;
    }
    if (!client_p || !ep_p || !tm_p) return GASNET_ERR_BAD_ARG;
    gasnetc_phase("init");
    /* The wiring, before anything can call through it. */
    gasnetc_am_nbr = gasnetc_pshm_am_ops;
    gasnetc_am_net = gasnetc_ibv_am_ops;
    gasnetc_ext = gasnete_core_ops;
    int param_errors = gasneti_params_load();

    gasneti_boot = gasneti_bootstrap_select();
    uint32_t rank = 0, size = 1;
    if (gasneti_boot->init(argc, argv, &rank, &size, gasnetc_remote_exit_cb) != 0) _exit(1);
    gasneti_mynode = rank;
    gasneti_nodes = size;
    gasnetc_phase("boot");
    if (gethostname(gasneti_hostname, sizeof(gasneti_hostname) - 1) != 0)
        strcpy(gasneti_hostname, "unknown");
    gasneti_log_set_identity(rank, gasneti_hostname);
    agree_or_fail(param_errors, param_errors ? gasneti_params_error() : "");
    if (rank == 0) gasneti_params_report();

    uint64_t host = gasneti_boot->host_id();
    uint64_t *host_of = calloc(size, sizeof(uint64_t));
    if (!host_of) gasneti_fatalerror("out of memory at startup (%u ranks)", size);
    gasneti_boot->exchange(&host, sizeof(host), host_of);
    gasnetc_phase("hosts");
    unsigned maxsize = (unsigned)GASNETI_PARAM_INT(GASNET_SUPERNODE_MAXSIZE);
    if (gasnetc_pshm_init(gasneti_boot, rank, size, host_of, maxsize, gasnetc_am_deliver) != 0)
        gasnetc_fatal_exit(1);
    gasnetc_phase("pshm");
    int need_network = gasnetc_pshm_nbrhd_size() < size;
    /* HCA/port selection: lists ports under GASNET_IBV_LIST_PORTS, and is
     * fatal (listing what was found and why it was rejected) when peers
     * need the network and no port is usable. */
    gasnetc_ibv_port_t *ports = NULL;
    int nports = 0;
    gasnetc_ibv_ports_open(rank, size, need_network, &ports, &nports);
    /* RC connections to every rank outside the neighbourhood (collective). */
    gasnetc_ibv_connect(ports, nports, rank, size, &ibv_up);
    gasnetc_phase("verbs");
    if (gasnetc_am_net.active()) gasnete_rma_set_transport(&gasnetc_ibv_rma_ops);
    gasnetc_positions_init(host_of);
    free(host_of);
    gasnetc_poll_policy_init(gasnetc_host_count);
    compute_segment_limits();
    gasnetc_phase("limits");

    gasneti_the_client.name = clientName ? clientName : "";
    gasneti_the_client.flags = flags;
    gasneti_the_ep.client = &gasneti_the_client;
    gasneti_the_ep.segment = GEX_SEGMENT_INVALID;
    gasneti_the_ep.flags = 0;
    gasneti_the_tm.ep = &gasneti_the_ep;
    gasneti_the_tm.rank = rank;
    gasneti_the_tm.size = size;
    gasneti_the_tm.flags = 0;
    gasneti_thunk_tm = &gasneti_the_tm;
    gasneti_seginfo = calloc(size, sizeof(gasneti_seginfo_t));
    if (!gasneti_seginfo) gasneti_fatalerror("out of memory at startup (%u ranks)", size);

    gasneti_init_done = 1;
    gasnetc_exit_init();
    gasnetc_ext.init();
    /* GASNET_RCV_THREAD/SND_THREAD: handlers may run now; with
     * GEX_FLAG_DEFER_THREADS the client starts them (gex_System_QueryProgressThreads) */
    gasnetc_am_net.start((flags & GEX_FLAG_DEFER_THREADS) != 0);
    gasnetc_phase("ext");
    gasneti_boot->barrier();
    gasnetc_phase("init_barrier");
    *client_p = &gasneti_the_client;
    *ep_p = &gasneti_the_ep;
    *tm_p = &gasneti_the_tm;
    return GASNET_OK;
}

/* ---- segments ------------------------------------------------------------------ */
int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t length)
{
    if (!gasneti_init_done) return GASNET_ERR_NOT_INIT;
    if (gasneti_attach_done) {
        gasneti_warning("gex_Segment_Attach called twice: one segment per process");
        return GASNET_ERR_RESOURCE;
    }
    if (!segment_p || tm != &gasneti_the_tm) return GASNET_ERR_BAD_ARG;
    if (gasneti_the_ep.segment != GEX_SEGMENT_INVALID) {
        gasneti_warning("gex_Segment_Attach: the primordial endpoint already has a segment "
                        "(bound with gex_EP_BindSegment)");
        return GASNET_ERR_RESOURCE;
    }
    /* Checked before rounding up, which could wrap (length near 2^64). */
    uintptr_t size = length > gasnetc_max_local_segment
                         ? length
                         : (length + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    if (size > gasnetc_max_local_segment && segment_limit_why)
        gasneti_fatalerror("gex_Segment_Attach: requested %lu bytes but at most %lu can be "
                           "pinned (gasnet_getMaxLocalSegmentSize; bounded by %s): request "
                           "less, raise 'ulimit -l' or GASNET_PHYSMEM_MAX, or build with "
                           "--enable-segment-large",
                           (unsigned long)length, (unsigned long)gasnetc_max_local_segment,
                           segment_limit_why);
    if (size > gasnetc_max_local_segment)
        gasneti_fatalerror("gex_Segment_Attach: requested %lu bytes but at most %lu can be "
                           "provided (gasnet_getMaxLocalSegmentSize; %s%s); request less, "
                           "raise GASNET_MAX_SEGSIZE, or enlarge /dev/shm",
                           (unsigned long)length, (unsigned long)gasnetc_max_local_segment,
                           segsize_read_as,
                           segment_limit_why ? "" : ", and the free space of /dev/shm");
    gasnetc_phase("attach");
    void *addr = NULL;
    if (gasnetc_pshm_segment_attach(size, &addr) != 0) gasnetc_fatal_exit(1);
    /* Verbs: register it on every HCA and exchange rkeys (collective). */
    gasnetc_phase("seg_map");
    gasnetc_ibv_segment_attach(addr, size);
    gasneti_seginfo_t mine = {addr, size};
    gasnetc_phase("seg_verbs");
    gasneti_boot->exchange(&mine, sizeof(mine), gasneti_seginfo);
    gasnetc_phase("seg_xchg");
    gasneti_the_segment.client = &gasneti_the_client;
    gasneti_the_segment.addr = addr;
    gasneti_the_segment.size = size;
    gasneti_the_segment.flags = 0;
    gasneti_the_segment.kind = GEX_MK_HOST;
    gasneti_the_segment.ep = &gasneti_the_ep;
    gasneti_the_ep.segment = &gasneti_the_segment;
    gasneti_attach_done = 1;
    if (gasnet_client_attach_hook) gasnet_client_attach_hook(addr, size);
    gasneti_boot->barrier();
    gasnetc_phase("attach_barrier");
    *segment_p = &gasneti_the_segment;
    return GASNET_OK;
}

/* gex_Segment_Create, gex_Segment_Destroy, gex_EP_BindSegment: extended/ep.c. */
