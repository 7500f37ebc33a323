/* core/ibv/mem/physmem.c: how much memory this process may pin (fh_ibv.h).
 *
 * Three bounds, the smallest wins:
 *   GASNET_PHYSMEM_MAX    per host (fraction of physical memory, default
 *                         2/3, or a size), split evenly among the host's
 *                         processes;
 *   RLIMIT_MEMLOCK        per process, after GASNET_MAXIMIZE_MEMLOCK raised
 *                         it (connect.c); the kernel checks it at every
 *                         ibv_reg_mr of a process without CAP_IPC_LOCK;
 *   the probe             only with GASNET_PHYSMEM_PROBE=1: the lowest rank
 *                         of each host that uses verbs registers growing
 *                         pieces of an anonymous mapping until a
 *                         registration fails, GASNET_PHYSMEM_MAX is reached,
 *                         or PROBE_SECONDS pass (then the result is a lower
 *                         bound and is not used as a limit).  Rank 0 reports
 *                         the smallest host result once, with the
 *                         GASNET_PHYSMEM_MAX value that skips the probe.
 * The probe is off by default (startup must stay fast: the seed README's
 * "Slow PHYSMEM probe at start-up"); the two cheap bounds make
 * gasnet_getMaxLocalSegmentSize honest without it.
 */
#include "core/ibv/ibv_internal.h"
#include "core/ibv/mem/fh_ibv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROBE_SECONDS 5.0
#define PROBE_MIN_STEP ((uint64_t)1 << 20)

static uint64_t pinnable = UINT64_MAX;
static double physmem_frac = 0;
static char pinnable_why[400] = "nothing (no limit known)";

uint64_t gasnetc_ibv_pinnable_bytes(void) { return pinnable; }

uint64_t gasnetc_ibv_buffers_bytes(void)
{
    const gasnetc_ibv_state_t *t = &gasnetc_ibv;
    return (uint64_t)t->rbuf_pool.count * t->rbuf_pool.data_size + /* GASNET_RBUF_SIZE */
           (uint64_t)t->bbuf_pool.count * GASNETC_IBV_BUFSZ +
           (uint64_t)t->desc_pool.count * GASNETC_IBV_HBUF;
}

uint64_t gasnetc_ibv_segment_pinnable(void)
{
    uint64_t bufs = gasnetc_ibv_buffers_bytes();
    if (pinnable == UINT64_MAX) return UINT64_MAX;
    if (pinnable <= bufs) return 0;
    uint64_t rest = pinnable - bufs, keep = rest / 4 < (64u << 20) ? rest / 4 : (64u << 20);
    return rest - keep;
}
const char *gasnetc_ibv_pinnable_why(void) { return pinnable_why; }
double gasnetc_ibv_physmem_fraction(void) { return physmem_frac; }

static uint64_t physmem_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (uint64_t)1 << 30;
}

/* 1 if this process may pin beyond RLIMIT_MEMLOCK (CAP_IPC_LOCK effective,
 * as root usually has): the kernel skips the check then. */
static int has_ipc_lock(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long eff = 0;
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1) {
            found = 1;
            break;
        }
    if (f) fclose(f);
    return found ? (int)((eff >> 14) & 1) : geteuid() == 0; /* 14 = CAP_IPC_LOCK */
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Registers growing pieces of a fresh mapping of `target` bytes on HCA 0.
 * Returns the bytes registered at once; *how: 0 = a registration failed (a
 * real limit), 1 = target reached, 2 = out of time (a lower bound). */
static uint64_t probe(uint64_t target, int *how, double *secs)
{
    double t0 = now_s();
    *how = 1;
    uint8_t *base = mmap(NULL, target, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        *how = 0;
        *secs = now_s() - t0;
        return 0;
    }
    enum { MAXMR = 4096 };
    static struct ibv_mr *mrs[MAXMR];
    int nmr = 0;
    uint64_t done = 0, step = target / 32 > PROBE_MIN_STEP ? target / 32 : PROBE_MIN_STEP;
    step &= ~(PROBE_MIN_STEP - 1);
    while (done < target && nmr < MAXMR) {
        if (now_s() - t0 > PROBE_SECONDS) {
            *how = 2;
            break;
        }
        uint64_t n = target - done < step ? target - done : step;
        struct ibv_mr *mr = ibv_reg_mr(gasnetc_ibv.res[0].pd, base + done, n,
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                           IBV_ACCESS_REMOTE_READ);
        if (mr) {
            mrs[nmr++] = mr;
            done += n;
        } else if (step > PROBE_MIN_STEP) {
            step /= 2; /* close in on the limit */
        } else {
            *how = 0;
            break;
        }
    }
    while (nmr > 0) ibv_dereg_mr(mrs[--nmr]);
    munmap(base, target);
    *secs = now_s() - t0;
    return done;
}

static void report_probe(uint64_t found, int how, double secs, uint64_t host_limit)
{
    unsigned long long mib = (unsigned long long)(found >> 20);
    const char *stop = how == 0 ? "a registration failed there"
                       : how == 1 ? "all of GASNET_PHYSMEM_MAX"
                                  : "stopped by the time limit: a lower bound, not used";
    if (how != 2 && found < host_limit && GASNETI_PARAM_BOOL(GASNET_PHYSMEM_WARN))
        gasneti_warning("GASNET_PHYSMEM_PROBE: only %llu MiB of the %llu MiB GASNET_PHYSMEM_MAX "
                        "allows could be pinned per host (%s, %.1f s); set "
                        "GASNET_PHYSMEM_MAX=%lluM to skip this probe next time",
                        mib, (unsigned long long)(host_limit >> 20), stop, secs, mib);
    else
        gasneti_info("GASNET_PHYSMEM_PROBE: %llu MiB pinnable per host (%s, %.1f s); set "
                     "GASNET_PHYSMEM_MAX=%lluM to skip this probe next time",
                     mib, stop, secs, how == 2 ? (unsigned long long)(host_limit >> 20) : mib);
}

void gasnetc_ibv_physmem_init(int active)
{
    double frac = 0;
    uint64_t bytes = 0, phys = physmem_bytes();
    gasneti_param_memfrac(GASNETI_PARAM_GASNET_PHYSMEM_MAX, &frac, &bytes);
    uint64_t host_limit = bytes ? bytes : (uint64_t)(frac * (double)phys);
    physmem_frac = bytes ? (bytes < phys ? (double)bytes / (double)phys : 1.0) : frac;
    uint64_t procs = gasnetc_host_count ? gasnetc_host_count : 1;
    pinnable = host_limit / procs;
    const char *text = gasneti_param_str(GASNETI_PARAM_GASNET_PHYSMEM_MAX);
    /* GASNet reads "2" or "0x10" as byte counts: accepted, but say so. */
    static const char hint[] = "a plain number of at least 1 is a byte count; for a fraction of "
                               "physical memory use a number below 1 (e.g. 0.5), for a size add "
                               "a unit (e.g. 48G)";
    int tiny = bytes && bytes < (1u << 20);
    if (!bytes) /* a fraction */
        snprintf(pinnable_why, sizeof pinnable_why, "GASNET_PHYSMEM_MAX=%s per host / %llu "
                 "processes", text ? text : "", (unsigned long long)procs);
    else
        snprintf(pinnable_why, sizeof pinnable_why, "GASNET_PHYSMEM_MAX=%s (read as %llu bytes) "
                 "per host / %llu processes%s%s", text ? text : "", (unsigned long long)bytes,
                 (unsigned long long)procs, tiny ? "; " : "", tiny ? hint : "");
    if (tiny && active && gasneti_mynode == 0)
        gasneti_warning("GASNET_PHYSMEM_MAX=%s (read as %llu bytes per host): %s", text,
                        (unsigned long long)bytes, hint);
    /* The kernel charges every registration to RLIMIT_MEMLOCK, so memory
     * registered on each of nres HCAs counts nres times. */
    struct rlimit rl;
    uint64_t nres = gasnetc_ibv.nres > 1 ? (uint64_t)gasnetc_ibv.nres : 1;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)rl.rlim_cur / nres < pinnable && !has_ipc_lock()) {
        pinnable = (uint64_t)rl.rlim_cur / nres;
        snprintf(pinnable_why, sizeof pinnable_why,
                 "RLIMIT_MEMLOCK (ulimit -l) of %llu KiB%s", (unsigned long long)(rl.rlim_cur >> 10),
                 nres > 1 ? " shared by the HCAs every registration is made on" : "");
    }

    /* The probe: one rank per host (the lowest that uses verbs), collective. */
    int want = GASNETI_PARAM_BOOL(GASNET_PHYSMEM_PROBE);
    int64_t mine[2] = {-1, 0}; /* bytes found (-1: did not probe), how */
    double secs = 0;
    if (want && active) {
        int how;
        mine[0] = (int64_t)probe(host_limit, &how, &secs);
        mine[1] = how;
    }
    if (!want) return; /* every rank reads the same variable: skip the exchange together */
    int64_t *all = calloc((size_t)gasneti_nodes * 2, sizeof *all);
    if (!all) gasneti_fatalerror("out of memory at startup");
    gasneti_boot->exchange(mine, sizeof mine, all);
    int64_t host_found = -1, host_how = 0, min_found = -1, min_how = 0;
    for (gex_Rank_t i = 0; i < gasnetc_host_count; i++) {
        gex_Rank_t r = gasnetc_host_info[i].gex_jobrank;
        if (all[2 * r] >= 0) {
            host_found = all[2 * r];
            host_how = all[2 * r + 1];
            break;
        }
    }
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (all[2 * r] >= 0 && (min_found < 0 || all[2 * r] < min_found)) {
            min_found = all[2 * r];
            min_how = all[2 * r + 1];
        }
    free(all);
    if (host_found >= 0 && host_how != 2 && (uint64_t)host_found / procs < pinnable) {
        pinnable = (uint64_t)host_found / procs;
        snprintf(pinnable_why, sizeof pinnable_why, "GASNET_PHYSMEM_PROBE: %llu MiB pinnable "
                 "per host / %llu processes", (unsigned long long)(host_found >> 20),
                 (unsigned long long)procs);
    }
    if (gasneti_mynode == 0 && min_found >= 0)
        report_probe((uint64_t)min_found, (int)min_how, secs, host_limit);
}
