/* bootstrap/mpi/mpi.c: the `mpi` bootstrap plugin.
 *
 * Compiled with mpicc into libgasnet-ibv-mpi-spawner.a, never into
 * libgasnet-ibv-{seq,par}.a: a program gets it by linking that library
 * (with -Wl,-u,gasneti_bootstrap_mpi, since the core only holds a weak
 * reference) and MPI; see bootstrap/README, "The mpi plugin and MPI linkage".
 *
 * MPI is used for job setup only (rank, size, the bootstrap collectives on a
 * private duplicate of MPI_COMM_WORLD) and never for data.  Collectives are
 * MPI-3 non-blocking ones completed by polling, so that each can time out
 * after GASNET_BOOTSTRAP_TIMEOUT seconds with a message naming it.
 *
 * Exit: mpirun (Open MPI, MPICH's hydra, srun) ends the whole job when a
 * process exits with a non-zero status, and reports that status; so a
 * non-zero exit skips MPI_Finalize (which could wait for ranks that never
 * come) and leaves at once.  An exit with code 0 calls MPI_Finalize
 * (GASNET_MPI_FINALIZE), which Open MPI expects of every process that ends
 * normally; the core's exit alarm bounds it.  Under gasnetrun_ibv the
 * other ranks learn of an exit through the launcher's exit relay
 * (bootstrap/relay.c), which calls exit_cb.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"
#include "other/log/log.h"
#include "other/param/param.h"

static struct {
    int inited;           /* init succeeded */
    int we_initialized;   /* we called MPI_Init_thread (so we may finalize) */
    MPI_Comm comm;
    uint32_t rank, size;
    uint64_t host_id;
    double timeout;
    int exit_code;        /* from notify_exit */
} bsm = {.comm = MPI_COMM_NULL};

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bsm_detect(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS",
                                       "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (gasneti_getenv_raw(vars[i])) return 1;
    return 0;
}

static void check(const char *what, const char *call, int rc)
{
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING + 1] = "";
    int n = 0;
    MPI_Error_string(rc, msg, &n);
    gasneti_fatalerror("bootstrap %s: %s failed: %s", what, call, msg);
}

/* Completes req, polling; fatal after the bootstrap timeout. */
static void wait_req(const char *what, MPI_Request *req)
{
    double start = now_sec();
    long spins = 0;
    for (;;) {
        int done = 0;
        check(what, "MPI_Test", MPI_Test(req, &done, MPI_STATUS_IGNORE));
        if (done) return;
        if (++spins < 2000) continue;
        double waited = now_sec() - start;
        if (waited > bsm.timeout)
            gasneti_fatalerror("bootstrap %s timed out after %g s waiting for the other ranks "
                               "(GASNET_BOOTSTRAP_TIMEOUT; did every rank call it?)",
                               what, bsm.timeout);
        /* Back off from 10 us to 1 ms: bootstrap traffic is not latency-bound. */
        long ns = waited < 0.01 ? 10000 : waited < 1 ? 100000 : 1000000;
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
    }
}

static int count_of(const char *what, size_t len)
{
    if (len > INT_MAX)
        gasneti_fatalerror("bootstrap %s of %zu bytes per rank exceeds the mpi spawner's limit "
                           "of %d",
                           what, len, INT_MAX);
    return (int)len;
}

static int thread_level(void)
{
    const char *s = GASNETI_PARAM_STR(GASNET_MPI_THREAD);
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"SINGLE", MPI_THREAD_SINGLE},
                  {"FUNNELED", MPI_THREAD_FUNNELED},
                  {"SERIALIZED", MPI_THREAD_SERIALIZED},
                  {"MULTIPLE", MPI_THREAD_MULTIPLE}};
    for (size_t i = 0; s && i < sizeof(levels) / sizeof(levels[0]); i++)
        if (!strcasecmp(s, levels[i].name) ||
            (!strncasecmp(s, "MPI_THREAD_", 11) && !strcasecmp(s + 11, levels[i].name)))
            return levels[i].level;
    return -1;
}

static int bsm_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size,
                    gasneti_bootstrap_exit_cb_t exit_cb)
{
    bsm.timeout = GASNETI_PARAM_DOUBLE(GASNET_BOOTSTRAP_TIMEOUT);
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        int want = thread_level(), got = 0;
        if (want < 0) {
            fprintf(stderr, "*** ERROR (%s): GASNET_MPI_THREAD=%s is not a thread level (SINGLE, "
                            "FUNNELED, SERIALIZED or MULTIPLE)\n",
                    gasneti_log_identity(), GASNETI_PARAM_STR(GASNET_MPI_THREAD));
            return -1;
        }
        int rc = MPI_Init_thread(argc, argv, want, &got);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "*** ERROR (%s): bootstrap mpi: MPI_Init_thread failed (code %d); "
                            "start the program with mpirun or gasnetrun_ibv -spawner=mpi\n",
                    gasneti_log_identity(), rc);
            return -1;
        }
        bsm.we_initialized = 1;
    }
    check("init", "MPI_Comm_dup", MPI_Comm_dup(MPI_COMM_WORLD, &bsm.comm));
    MPI_Comm_set_errhandler(bsm.comm, MPI_ERRORS_RETURN);
    int r = 0, n = 0;
    check("init", "MPI_Comm_rank", MPI_Comm_rank(bsm.comm, &r));
    check("init", "MPI_Comm_size", MPI_Comm_size(bsm.comm, &n));
    bsm.rank = (uint32_t)r;
    bsm.size = (uint32_t)n;
    bsm.inited = 1;
    bsm.host_id = gasneti_bootstrap_host_id_here(NULL, bsm.rank, bsm.size);

    /* Job id: the launcher's when it set one (the one its messages name),
     * else rank 0 makes one; either way rank 0's goes to everyone. */
    char id[GASNETI_BOOTSTRAP_JOBID_MAX + 1] = "";
    if (bsm.rank == 0) {
        const char *given = GASNETI_PARAM_STR(GASNETRUN_JOBID);
        if (gasneti_bootstrap_jobid_valid(given))
            snprintf(id, sizeof(id), "%s", given);
        else
            gasneti_bootstrap_new_jobid(id, sizeof(id));
    }
    MPI_Request req;
    check("init", "MPI_Ibcast", MPI_Ibcast(id, (int)sizeof(id), MPI_CHAR, 0, bsm.comm, &req));
    wait_req("init", &req);
    id[sizeof(id) - 1] = '\0';
    gasneti_bootstrap_set_jobid(id);
    if (gasneti_bootstrap_relay_start("mpi", bsm.rank, exit_cb, bsm.size) != 0) return -1;
    *rank = bsm.rank;
    *size = bsm.size;
    return 0;
}

static uint64_t bsm_host_id(void)
{
    return bsm.host_id;
}

static void bsm_barrier(void)
{
    MPI_Request req;
    check("barrier", "MPI_Ibarrier", MPI_Ibarrier(bsm.comm, &req));
    wait_req("barrier", &req);
}

static void bsm_exchange(const void *src, size_t len, void *dest)
{
    int c = count_of("exchange", len);
    MPI_Request req;
    check("exchange", "MPI_Iallgather",
          MPI_Iallgather(src, c, MPI_BYTE, dest, c, MPI_BYTE, bsm.comm, &req));
    wait_req("exchange", &req);
}

static void bsm_broadcast(const void *src, size_t len, void *dest, uint32_t root)
{
    if (root >= bsm.size)
        gasneti_fatalerror("bootstrap broadcast: root %u is not a rank of this %u-rank job",
                           (unsigned)root, (unsigned)bsm.size);
    int c = count_of("broadcast", len);
    if (bsm.rank == root && len) memmove(dest, src, len);
    MPI_Request req;
    check("broadcast", "MPI_Ibcast", MPI_Ibcast(dest, c, MPI_BYTE, (int)root, bsm.comm, &req));
    wait_req("broadcast", &req);
}

static void bsm_alltoall(const void *src, size_t len, void *dest)
{
    int c = count_of("alltoall", len);
    MPI_Request req;
    check("alltoall", "MPI_Ialltoall",
          MPI_Ialltoall(src, c, MPI_BYTE, dest, c, MPI_BYTE, bsm.comm, &req));
    wait_req("alltoall", &req);
}

static void bsm_notify_exit(int exitcode)
{
    bsm.exit_code = exitcode;
    gasneti_bootstrap_relay_exit(exitcode);
}

static void bsm_abort(int exitcode) GASNETI_NORETURN;
static void bsm_abort(int exitcode)
{
    /* MPI_Abort is not async-signal-safe; mpirun ends the job when it sees
     * this non-zero exit (the relay tells the others at once). */
    gasneti_bootstrap_relay_abort(exitcode);
}

static void bsm_fini(void)
{
    if (!bsm.inited) return;
    bsm.inited = 0;
    gasneti_bootstrap_relay_stop();
    if (!bsm.we_initialized || bsm.exit_code != 0 || !GASNETI_PARAM_BOOL(GASNET_MPI_FINALIZE))
        return;
    MPI_Comm_free(&bsm.comm);
    MPI_Finalize();
}

const gasneti_bootstrap_ops_t gasneti_bootstrap_mpi = {
    .name = "mpi",
    .detect = bsm_detect,
    .init = bsm_init,
    .host_id = bsm_host_id,
    .barrier = bsm_barrier,
    .exchange = bsm_exchange,
    .broadcast = bsm_broadcast,
    .alltoall = bsm_alltoall,
    .notify_exit = bsm_notify_exit,
    .abort = bsm_abort,
    .fini = bsm_fini,
};
