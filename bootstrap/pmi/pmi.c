/* bootstrap/pmi/pmi.c: the `pmi` bootstrap plugin, a PMIx client.
 *
 * Works under any PMIx server: Open MPI's mpirun, prterun, Slurm's
 * srun --mpi=pmix, or gasnetrun_ibv -spawner=pmi (which runs PMIRUN_CMD).
 * Rank and size come from PMIx_Init and PMIX_JOB_SIZE, the host from
 * PMIX_HOSTNAME.  Every collective is a put/commit/fence/get round with a
 * fresh key ("gasnet.bs.<n>": all ranks call collectives in the same order,
 * so n agrees), and each fence carries PMIX_TIMEOUT = GASNET_BOOTSTRAP_TIMEOUT.
 *
 * Exit: PMIx servers end the whole job when a process exits with a
 * non-zero status (mpirun, prterun, srun all do) and report that status, so
 * notify_exit only records the code and fini calls PMIx_Finalize (which
 * does not wait for the other ranks) before the core's _exit.  Under
 * gasnetrun_ibv the other ranks learn of an exit through the launcher's exit
 * relay (bootstrap/relay.c), which calls exit_cb.  (A PMIx event would
 * carry the request, but Open MPI 4.1's mpirun hangs when a client raises
 * one; see bootstrap/README.)
 * Design notes: bootstrap/README, "The pmi plugin".
 */
#include "build-config.h"

#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"
#include "other/log/log.h"
#include "other/param/param.h"

static struct {
    int inited;
    pmix_proc_t me;  /* this process */
    pmix_proc_t all; /* every rank of the namespace */
    uint32_t rank, size;
    uint64_t host_id;
    unsigned seq; /* collectives so far: names the next key */
    int timeout_s;
} bsp;

static int bsp_detect(void)
{
    return gasneti_getenv_raw("PMIX_NAMESPACE") != NULL || gasneti_getenv_raw("PMIX_RANK") != NULL;
}

/* ---- PMIx helpers ------------------------------------------------------------ */
static void timeout_info(pmix_info_t *info)
{
    PMIX_INFO_CONSTRUCT(info);
    PMIX_INFO_LOAD(info, PMIX_TIMEOUT, &bsp.timeout_s, PMIX_INT);
}

static void check(const char *what, const char *call, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS) return;
    if (rc == PMIX_ERR_PARTIAL_SUCCESS || rc == PMIX_ERR_LOST_CONNECTION ||
        rc == PMIX_ERR_PROC_TERM_WO_SYNC || rc == PMIX_ERR_UNREACH) {
        /* Another rank left the job (or the server is going): the server
         * ends this process too, with that rank's exit code.  Exiting
         * first with ours could make ours the job's code, so wait for it. */
        double t = gasneti_bootstrap_exittimeout(bsp.size);
        struct timespec ts = {(time_t)t + 1, 0};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    if (rc == PMIX_ERR_TIMEOUT)
        gasneti_fatalerror("bootstrap %s timed out after %d s in %s (GASNET_BOOTSTRAP_TIMEOUT; "
                           "did every rank call it?)",
                           what, bsp.timeout_s, call);
    gasneti_fatalerror("bootstrap %s: %s failed: %s (is the PMIx server still running?)", what,
                       call, PMIx_Error_string(rc));
}

static void fence(const char *what, int collect)
{
    pmix_info_t info[2];
    bool flag = collect != 0;
    timeout_info(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&bsp.all, 1, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    check(what, "PMIx_Fence", rc);
}

/* Publishes len bytes under this collective's key (len > 0). */
static void put(const char *what, const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data; /* PMIx_Put copies it */
    v.data.bo.size = len;
    check(what, "PMIx_Put", PMIx_Put(PMIX_GLOBAL, key, &v));
    check(what, "PMIx_Commit", PMIx_Commit());
}

/* Copies rank's len bytes published under key to dest. */
static void get(const char *what, uint32_t rank, const char *key, void *dest, size_t len)
{
    pmix_proc_t p;
    pmix_info_t info;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&p, bsp.me.nspace, rank);
    timeout_info(&info);
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    check(what, "PMIx_Get", rc);
    if (!v || v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len)
        gasneti_fatalerror("bootstrap %s: rank %u published %zu bytes under %s, expected %zu "
                           "(did every rank pass the same length?)",
                           what, (unsigned)rank,
                           v && v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : (size_t)0, key, len);
    memcpy(dest, v->data.bo.bytes, len);
    PMIX_VALUE_RELEASE(v);
}

static void next_key(char *key, size_t len)
{
    snprintf(key, len, "gasnet.bs.%u", bsp.seq++);
}

static size_t checked_mul(const char *what, size_t a, size_t b)
{
    if (a && b > SIZE_MAX / a)
        gasneti_fatalerror("bootstrap %s: %zu blocks of %zu bytes overflow", what, a, b);
    return a * b;
}

/* ---- the ops ------------------------------------------------------------------- */
static int bsp_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size,
                    gasneti_bootstrap_exit_cb_t exit_cb)
{
    (void)argc, (void)argv;
    pmix_status_t rc = PMIx_Init(&bsp.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "*** ERROR (%s): bootstrap pmi: PMIx_Init failed: %s (start the program "
                        "with a PMIx launcher: gasnetrun_ibv -spawner=pmi, mpirun, srun "
                        "--mpi=pmix; or unset GASNET_IBV_SPAWNER=pmi)\n",
                gasneti_log_identity(), PMIx_Error_string(rc));
        return -1;
    }
    bsp.inited = 1;
    PMIX_PROC_LOAD(&bsp.all, bsp.me.nspace, PMIX_RANK_WILDCARD);
    double t = GASNETI_PARAM_DOUBLE(GASNET_BOOTSTRAP_TIMEOUT);
    bsp.timeout_s = t > 1e6 ? 1000000 : (int)(t + 0.999);

    pmix_value_t *v = NULL;
    rc = PMIx_Get(&bsp.all, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_UINT32) {
        fprintf(stderr, "*** ERROR (%s): bootstrap pmi: the PMIx server gives no job size "
                        "(PMIX_JOB_SIZE: %s)\n",
                gasneti_log_identity(), PMIx_Error_string(rc));
        if (v) PMIX_VALUE_RELEASE(v);
        return -1;
    }
    bsp.size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    bsp.rank = bsp.me.rank;
    if (bsp.rank >= bsp.size) {
        fprintf(stderr, "*** ERROR (%s): bootstrap pmi: PMIx rank %u is not below the job size "
                        "%u\n",
                gasneti_log_identity(), (unsigned)bsp.rank, (unsigned)bsp.size);
        return -1;
    }

    char host[256] = "";
    v = NULL;
    if (PMIx_Get(&bsp.me, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS && v &&
        v->type == PMIX_STRING && v->data.string)
        snprintf(host, sizeof(host), "%s", v->data.string);
    if (v) PMIX_VALUE_RELEASE(v);
    bsp.host_id = gasneti_bootstrap_host_id_here(host, bsp.rank, bsp.size);

    /* Job id: the launcher's (the one its messages name), else from the
     * namespace, which is the same on every rank and unique per job. */
    const char *id = GASNETI_PARAM_STR(GASNETRUN_JOBID);
    if (gasneti_bootstrap_jobid_valid(id)) {
        gasneti_bootstrap_set_jobid(id);
    } else {
        char buf[40];
        uint64_t h = gasneti_bootstrap_hash(bsp.me.nspace, strnlen(bsp.me.nspace, PMIX_MAX_NSLEN), 0);
        snprintf(buf, sizeof(buf), "pmix-%016llx", (unsigned long long)h);
        gasneti_bootstrap_set_jobid(buf);
    }
    if (gasneti_bootstrap_relay_start("pmi", bsp.rank, exit_cb, bsp.size) != 0) return -1;
    *rank = bsp.rank;
    *size = bsp.size;
    return 0;
}

static uint64_t bsp_host_id(void)
{
    return bsp.host_id;
}

static void bsp_barrier(void)
{
    fence("barrier", 0);
}

static void bsp_exchange(const void *src, size_t len, void *dest)
{
    char key[48];
    next_key(key, sizeof(key));
    checked_mul("exchange", bsp.size, len);
    if (len == 0) {
        fence("exchange", 0);
        return;
    }
    put("exchange", key, src, len);
    fence("exchange", 1);
    for (uint32_t r = 0; r < bsp.size; r++)
        get("exchange", r, key, (unsigned char *)dest + (size_t)r * len, len);
}

static void bsp_broadcast(const void *src, size_t len, void *dest, uint32_t root)
{
    if (root >= bsp.size)
        gasneti_fatalerror("bootstrap broadcast: root %u is not a rank of this %u-rank job",
                           (unsigned)root, (unsigned)bsp.size);
    char key[48];
    next_key(key, sizeof(key));
    if (len == 0) {
        fence("broadcast", 0);
        return;
    }
    if (bsp.rank == root) put("broadcast", key, src, len);
    fence("broadcast", 1);
    if (bsp.rank == root)
        memmove(dest, src, len);
    else
        get("broadcast", root, key, dest, len);
}

static void bsp_alltoall(const void *src, size_t len, void *dest)
{
    char key[48];
    next_key(key, sizeof(key));
    size_t total = checked_mul("alltoall", bsp.size, len);
    if (len == 0) {
        fence("alltoall", 0);
        return;
    }
    put("alltoall", key, src, total);
    fence("alltoall", 1);
    unsigned char *blob = malloc(total);
    if (!blob) gasneti_fatalerror("bootstrap alltoall: out of memory (%zu bytes)", total);
    for (uint32_t s = 0; s < bsp.size; s++) {
        get("alltoall", s, key, blob, total);
        memcpy((unsigned char *)dest + (size_t)s * len, blob + (size_t)bsp.rank * len, len);
    }
    free(blob);
}

static void bsp_notify_exit(int exitcode)
{
    /* The exit status carries it to the server; the relay (when started by
     * gasnetrun_ibv) tells the other ranks at once. */
    gasneti_bootstrap_relay_exit(exitcode);
}

static void bsp_abort(int exitcode) GASNETI_NORETURN;
static void bsp_abort(int exitcode)
{
    /* PMIx_Abort is not async-signal-safe; the server sees a non-zero exit
     * without finalize and ends the job (mpirun, srun, prterun all do). */
    gasneti_bootstrap_relay_abort(exitcode);
}

static void bsp_fini(void)
{
    if (!bsp.inited) return;
    bsp.inited = 0;
    gasneti_bootstrap_relay_stop();
    (void)PMIx_Finalize(NULL, 0);
}

const gasneti_bootstrap_ops_t gasneti_bootstrap_pmi = {
    .name = "pmi",
    .detect = bsp_detect,
    .init = bsp_init,
    .host_id = bsp_host_id,
    .barrier = bsp_barrier,
    .exchange = bsp_exchange,
    .broadcast = bsp_broadcast,
    .alltoall = bsp_alltoall,
    .notify_exit = bsp_notify_exit,
    .abort = bsp_abort,
    .fini = bsp_fini,
};
