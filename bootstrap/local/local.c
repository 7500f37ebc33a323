/* bootstrap/local/local.c: the `local` and `ssh` bootstrap plugins, the
 * rank side of gasnetrun_ibv.
 *
 * Under the launcher, GASNETRUN_FD/RANK/SIZE/JOBID name this rank's socket
 * to the launcher's hub and its place in the job; every collective is one
 * request frame and one result frame (bootstrap/README).  Without those
 * variables the local plugin runs as a singleton: rank 0 of 1, every
 * collective a local copy.  The ssh plugin is the same channel: under the
 * ssh spawner a gasnetrun_ibv node on each host forks its ranks exactly as
 * the local spawner does and relays their frames to the job's root; it only
 * refuses to run as a singleton and is never auto-detected (local is).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"
#include "bootstrap/local/channel.h"
#include "bootstrap/local/proto.h"
#include "other/log/log.h"
#include "other/param/param.h"

static struct {
    int singleton;
    uint32_t rank, size;
    uint64_t host_id;
} bsl;

/* Startup errors: one line, then init returns -1 (the caller ends the job). */
static void bsl_error(const char *fmt, ...) GASNETI_FMT(1, 2);
static void bsl_error(const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "*** ERROR (%s): %s\n", gasneti_log_identity(), msg);
    fflush(stderr);
}

static int bsl_detect(void)
{
    return gasneti_param_isset(GASNETI_PARAM_GASNETRUN_FD);
}


#define HINT "(set by gasnetrun_ibv for its children; start the program with gasnetrun_ibv -n N)"

/* Reads and checks GASNETRUN_*; returns the socket fd or -1 after printing. */
static int read_launch_vars(void)
{
    if (!gasneti_param_isset(GASNETI_PARAM_GASNETRUN_RANK) ||
        !gasneti_param_isset(GASNETI_PARAM_GASNETRUN_SIZE) ||
        !gasneti_param_isset(GASNETI_PARAM_GASNETRUN_JOBID)) {
        bsl_error("GASNETRUN_FD is set but GASNETRUN_RANK, GASNETRUN_SIZE or GASNETRUN_JOBID "
                  "is not " HINT);
        return -1;
    }
    int64_t fd = GASNETI_PARAM_INT(GASNETRUN_FD);
    int64_t rank = GASNETI_PARAM_INT(GASNETRUN_RANK);
    int64_t size = GASNETI_PARAM_INT(GASNETRUN_SIZE);
    const char *jobid = GASNETI_PARAM_STR(GASNETRUN_JOBID);
    if (size < 1 || size > (int64_t)1 << 24) {
        bsl_error("GASNETRUN_SIZE=%lld is out of range (1..16777216) " HINT, (long long)size);
        return -1;
    }
    if (rank < 0 || rank >= size) {
        bsl_error("GASNETRUN_RANK=%lld is out of range (0..%lld for GASNETRUN_SIZE=%lld) " HINT,
                  (long long)rank, (long long)size - 1, (long long)size);
        return -1;
    }
    if (!gasneti_bootstrap_jobid_valid(jobid)) {
        bsl_error("GASNETRUN_JOBID='%s' is not a job id (1..%d of A-Z a-z 0-9 - _) " HINT,
                  jobid ? jobid : "", GASNETI_BOOTSTRAP_JOBID_MAX);
        return -1;
    }
    struct stat sb;
    if (fd < 0 || fd > INT_MAX || fstat((int)fd, &sb) != 0 || !S_ISSOCK(sb.st_mode)) {
        bsl_error("GASNETRUN_FD=%lld is not an open socket (%s) " HINT, (long long)fd,
                  fd < 0 || fd > INT_MAX ? "bad number"
                  : errno == EBADF       ? "not open"
                                         : "not a socket");
        return -1;
    }
    bsl.rank = (uint32_t)rank;
    bsl.size = (uint32_t)size;
    gasneti_bootstrap_set_jobid(jobid);
    return (int)fd;
}

static int bsl_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size,
                    gasneti_bootstrap_exit_cb_t exit_cb)
{
    (void)argc;
    (void)argv;
    if (!bsl_detect()) {
        bsl.singleton = 1;
        bsl.rank = 0;
        bsl.size = 1;
        gasneti_bootstrap_set_jobid(NULL);
    } else {
        errno = 0;
        int fd = read_launch_vars();
        if (fd < 0) return -1;
        if (gasneti_bsl_chan_start(fd, bsl.rank, exit_cb, gasneti_bootstrap_exittimeout(bsl.size),
                                   GASNETI_PARAM_DOUBLE(GASNET_BOOTSTRAP_TIMEOUT)) != 0)
            return -1;
        /* Programs this rank starts (system(), a nested gasnetrun_ibv) are
         * not part of this job: they must not find our socket variables. */
        unsetenv("GASNETRUN_FD");
        unsetenv("GASNETRUN_RANK");
        unsetenv("GASNETRUN_SIZE");
        unsetenv("GASNETRUN_JOBID");
    }
    bsl.host_id = gasneti_bootstrap_host_id_here(NULL, bsl.rank, bsl.size);
    *rank = bsl.rank;
    *size = bsl.size;
    return 0;
}

static int bss_detect(void)
{
    return 0; /* ssh ranks carry GASNETRUN_FD: local detects them */
}

static int bss_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size,
                    gasneti_bootstrap_exit_cb_t exit_cb)
{
    if (!bsl_detect()) {
        bsl_error("GASNET_IBV_SPAWNER=ssh but this process was not started by gasnetrun_ibv's "
                  "ssh spawner (GASNETRUN_FD is unset); start it with "
                  "gasnetrun_ibv -spawner=ssh -n N prog");
        return -1;
    }
    return bsl_init(argc, argv, rank, size, exit_cb);
}

static uint64_t bsl_host_id(void)
{
    return bsl.host_id;
}

static size_t checked_mul(const char *what, size_t a, size_t b)
{
    if (a && b > SIZE_MAX / a)
        gasneti_fatalerror("bootstrap %s: %zu blocks of %zu bytes overflow", what, a, b);
    return a * b;
}

static void bsl_barrier(void)
{
    if (bsl.singleton) return;
    gasneti_bsl_chan_call("barrier", GASNETI_BSP_BARRIER, NULL, 0, NULL, 0, NULL, 0);
}

static void bsl_exchange(const void *src, size_t len, void *dest)
{
    if (bsl.singleton) {
        if (len) memmove(dest, src, len);
        return;
    }
    size_t total = checked_mul("exchange", bsl.size, len);
    gasneti_bsl_chan_call("exchange", GASNETI_BSP_EXCHANGE, NULL, 0, src, len, dest, total);
}

static void bsl_broadcast(const void *src, size_t len, void *dest, uint32_t root)
{
    if (root >= bsl.size)
        gasneti_fatalerror("bootstrap broadcast: root %u is not a rank of this %u-rank job",
                           (unsigned)root, (unsigned)bsl.size);
    if (bsl.singleton) {
        if (len) memmove(dest, src, len);
        return;
    }
    if (len > GASNETI_BSP_MAX_PAYLOAD)
        gasneti_fatalerror("bootstrap broadcast of %zu bytes exceeds the bootstrap limit of %u",
                           len, (unsigned)GASNETI_BSP_MAX_PAYLOAD);
    unsigned char pre[8];
    gasneti_bsp_put32(pre, root);
    gasneti_bsp_put32(pre + 4, (uint32_t)len);
    int mine = bsl.rank == root;
    gasneti_bsl_chan_call("broadcast", GASNETI_BSP_BCAST, pre, sizeof(pre), mine ? src : NULL,
                          mine ? len : 0, dest, len);
}

static void bsl_alltoall(const void *src, size_t len, void *dest)
{
    if (bsl.singleton) {
        if (len) memmove(dest, src, len);
        return;
    }
    size_t total = checked_mul("alltoall", bsl.size, len);
    gasneti_bsl_chan_call("alltoall", GASNETI_BSP_ALLTOALL, NULL, 0, src, total, dest, total);
}

static void bsl_notify_exit(int exitcode)
{
    if (bsl.singleton) return;
    gasneti_bsl_chan_notify_exit(exitcode);
}

static void bsl_abort(int exitcode) GASNETI_NORETURN;
static void bsl_abort(int exitcode)
{
    if (bsl.singleton) _exit(exitcode);
    gasneti_bsl_chan_abort(exitcode);
}

static void bsl_fini(void)
{
    if (bsl.singleton) return;
    gasneti_bsl_chan_stop();
}

const gasneti_bootstrap_ops_t gasneti_bootstrap_local = {
    .name = "local",
    .detect = bsl_detect,
    .init = bsl_init,
    .host_id = bsl_host_id,
    .barrier = bsl_barrier,
    .exchange = bsl_exchange,
    .broadcast = bsl_broadcast,
    .alltoall = bsl_alltoall,
    .notify_exit = bsl_notify_exit,
    .abort = bsl_abort,
    .fini = bsl_fini,
};

const gasneti_bootstrap_ops_t gasneti_bootstrap_ssh = {
    .name = "ssh",
    .detect = bss_detect,
    .init = bss_init,
    .host_id = bsl_host_id,
    .barrier = bsl_barrier,
    .exchange = bsl_exchange,
    .broadcast = bsl_broadcast,
    .alltoall = bsl_alltoall,
    .notify_exit = bsl_notify_exit,
    .abort = bsl_abort,
    .fini = bsl_fini,
};
