/* bootstrap/bootstrap.h: job setup services, one ops table per plugin.
 *
 * A bootstrap plugin knows how this process was started (by gasnetrun_ibv's
 * local spawner, by ssh, by mpirun, by a PMIx server) and offers the few
 * collectives the core needs before its own network is up.  It never touches
 * verbs.  Plugins: local and ssh (bootstrap/local: ranks of gasnetrun_ibv,
 * whose ssh spawner forks them through a launcher on each host), pmi
 * (bootstrap/pmi, PMIx), mpi (bootstrap/mpi, in its own library).
 *
 * Collectives are called by every rank, in the same order, from one thread.
 * Each blocks at most GASNET_BOOTSTRAP_TIMEOUT seconds and then ends the
 * process with a message naming the operation (never a silent hang).
 */
#ifndef GASNETI_BOOTSTRAP_H
#define GASNETI_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

typedef void (*gasneti_bootstrap_exit_cb_t)(int exitcode);

typedef struct gasneti_bootstrap_ops {
    const char *name; /* "local", "ssh", "mpi", "pmi" */

    /* Returns 1 when this process was started by this plugin's launcher
     * (e.g. the local spawner's variables are present), else 0. */
    int (*detect)(void);

    /* Joins the job: sets *rank and *size.  exit_cb is called (from any
     * thread, at most once) when the launcher asks this process to exit with
     * a code, because another rank called gasnet_exit or died.  Returns 0, or
     * -1 after printing why. */
    int (*init)(int *argc, char ***argv, uint32_t *rank, uint32_t *size,
                gasneti_bootstrap_exit_cb_t exit_cb);

    /* Identifies this process's host: processes with equal ids share memory
     * (PSHM).  The local plugin returns one id for the whole job unless the
     * test override GASNET_TEST_HOSTS splits the ranks into several "hosts". */
    uint64_t (*host_id)(void);

    void (*barrier)(void);
    /* All-gather: every rank contributes len bytes; dest receives size*len
     * bytes ordered by rank. */
    void (*exchange)(const void *src, size_t len, void *dest);
    /* root's len bytes of src are copied to dest on every rank. */
    void (*broadcast)(const void *src, size_t len, void *dest, uint32_t root);
    /* src holds size blocks of len bytes, block i for rank i; dest receives
     * block `rank` of every rank, ordered by source rank. */
    void (*alltoall)(const void *src, size_t len, void *dest);

    /* This process is leaving the job with `exitcode` as a job-wide exit
     * (gasnet_exit, return from main): tell the launcher so that it stops the
     * other ranks with the same code.  Returns at once; does not exit. */
    void (*notify_exit)(int exitcode);

    /* Fatal error: tell the launcher to kill the whole job, then _exit.
     * Async-signal-safe.  Never returns. */
    void (*abort)(int exitcode) __attribute__((__noreturn__));

    /* Releases the plugin's resources at normal exit. */
    void (*fini)(void);
} gasneti_bootstrap_ops_t;

/* Selects the plugin that started this process (GASNET_IBV_SPAWNER can force
 * one).  A process started by hand without any launcher gets the local
 * plugin in singleton mode (rank 0 of 1).  Never returns NULL. */
const gasneti_bootstrap_ops_t *gasneti_bootstrap_select(void);

/* The plugins.  local: ranks forked by gasnetrun_ibv on this host (or run
 * by hand: singleton).  ssh: ranks forked by a gasnetrun_ibv node of an ssh
 * job (same channel; never a singleton).  pmi: PMIx (only when configure
 * found libpmix).  mpi: MPI, defined in libgasnet-ibv-mpi-spawner.a and
 * referenced weakly: its address is NULL in programs not linked with it. */
extern const gasneti_bootstrap_ops_t gasneti_bootstrap_local;
extern const gasneti_bootstrap_ops_t gasneti_bootstrap_ssh;
extern const gasneti_bootstrap_ops_t gasneti_bootstrap_pmi;
extern const gasneti_bootstrap_ops_t gasneti_bootstrap_mpi;

/* The plugins available in this program, in detection order (local, ssh,
 * pmi, mpi), NULL-terminated.  Used by gasneti_bootstrap_select and to list
 * names in error messages. */
extern const gasneti_bootstrap_ops_t *const gasneti_bootstrap_plugins[];

/* Looks a plugin up by name ("local"); NULL when this build has none by that
 * name.  Thread-safe. */
const gasneti_bootstrap_ops_t *gasneti_bootstrap_find(const char *name);

/* Writes the names of the built-in plugins, comma-separated ("local, ssh"), into
 * buf (always NUL-terminated).  Returns buf.  Thread-safe. */
char *gasneti_bootstrap_names(char *buf, size_t len);

/* The job-exit timeout in seconds for a job of nranks processes:
 * GASNET_EXITTIMEOUT when set, else min(GASNET_EXITTIMEOUT_MAX,
 * GASNET_EXITTIMEOUT_MIN + GASNET_EXITTIMEOUT_FACTOR * nranks).  Used by the
 * launcher, the plugins' exit watchdogs and the core's exit.  Needs the
 * parameters loaded; thread-safe and handler-safe. */
double gasneti_bootstrap_exittimeout(uint32_t nranks);

/* A name for this job, equal on every rank and safe in file names (letters,
 * digits, '-' and '_'): GASNETRUN_JOBID under gasnetrun_ibv, "<pid>-solo"
 * for a singleton.  Valid after the plugin's init; thread-safe. */
const char *gasneti_bootstrap_jobid(void);

#endif /* GASNETI_BOOTSTRAP_H */
