/* contrib/launcher/launcher.h: gasnetrun_ibv's pieces.
 *
 * main.c parses the command line and picks the spawner; spawn_local.c forks
 * and execs the ranks on this host, one socket each; hub.c serves the
 * bootstrap collectives over those sockets and runs the job's exit (exit
 * codes, forwarding EXIT, kill timeouts, signals); hub_coll.c holds the
 * collective bookkeeping.  The launcher is single-threaded.
 * Protocol and exit rules: bootstrap/README.
 */
#ifndef GASNETRUN_LAUNCHER_H
#define GASNETRUN_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bootstrap/local/proto.h"

#define GASNETRUN_NAME "gasnetrun_ibv"
/* Most processes the local spawner starts. */
#define GASNETRUN_LOCAL_MAX_PROCS 4096
/* How long the launcher waits for a process to vanish after SIGKILL. */
#define GASNETRUN_REAP_GRACE 10.0
/* After SIGTERM on a launcher signal, how long before SIGKILL. */
#define GASNETRUN_TERM_GRACE 2.0
/* Extra time the hub allows after the exit timeout, so that the ranks' own
 * watchdogs (same timeout) fire before the launcher's SIGKILL. */
#define GASNETRUN_EXIT_GRACE 1.0

typedef struct {
    long nprocs;          /* -n */
    long nnodes;          /* -N, 0 when not given */
    const char *envlist;  /* -E, NULL when not given */
    int verbose;          /* -v (also implied by -t and -k) */
    int test_only;        /* -t */
    int keep;             /* -k */
    const char *spawner;  /* -spawner=, NULL when not given */
    char **argv;          /* program and its arguments (NULL-terminated) */
} gasnetrun_opts_t;

/* A reference-counted payload shared by several ranks' output queues. */
typedef struct {
    unsigned refs;
    size_t len;
    unsigned char data[];
} gasnetrun_buf_t;

/* One queued frame to a rank. */
typedef struct gasnetrun_out {
    struct gasnetrun_out *next;
    unsigned char hdr[GASNETI_BSP_HDR_LEN];
    size_t off; /* bytes of hdr+payload already sent */
    gasnetrun_buf_t *buf; /* may be NULL for an empty payload */
} gasnetrun_out_t;

typedef struct {
    pid_t pid;
    int fd;             /* hub end of the socket; -1 once closed */
    int alive;          /* not reaped yet */
    int sent_exit;      /* sent EXIT or ABORT */
    int told_exit;      /* the hub queued EXIT to it */
    int killed;         /* the launcher signalled it */
    gasneti_bsp_rx_t rx;
    gasnetrun_out_t *out_head, *out_tail;
    /* current collective */
    int arrived;
    unsigned char *contrib;
    uint32_t contrib_len;
} gasnetrun_rank_t;

typedef struct {
    const gasnetrun_opts_t *opts;
    char jobid[64];
    uint32_t nranks;
    gasnetrun_rank_t *ranks;
    double exit_timeout;
    int sigpipe[2]; /* self-pipe: signal handlers write the signal number */
    struct {
        uint32_t op;      /* request type of the collective in progress, 0 none */
        uint32_t arrived; /* ranks whose request is in */
        uint32_t first;   /* rank that opened it (for mismatch messages) */
        uint32_t len;     /* per-rank block length */
        uint32_t root;    /* BCAST root */
    } coll;
} gasnetrun_job_t;

/* Verbose line "gasnetrun_ibv: ..." on stderr when -v. */
void gasnetrun_verbose(const gasnetrun_opts_t *opts, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));
/* Always-printed line "gasnetrun_ibv: ..." on stderr. */
void gasnetrun_say(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));
/* The program and its arguments as one shell-quoted line (malloc'd). */
char *gasnetrun_cmdline(char *const *argv);
/* Seconds on the monotonic clock. */
double gasnetrun_now(void);
/* "SIGSEGV" for 11 (else "signal N"); returns a static or buf. */
const char *gasnetrun_signame(int sig, char *buf, size_t len);

/* spawn_local.c */
/* Fills job->jobid with "<pid>-<8 hex digits>".  Never fails. */
void gasnetrun_make_jobid(gasnetrun_job_t *job);
/* Prints what -t would run (stdout). */
void gasnetrun_local_dryrun(const gasnetrun_job_t *job);
/* Starts every rank (job->ranks allocated by the caller, sigpipe ready).
 * Returns 0; on failure (exec error) prints why, kills and reaps what was
 * started and returns the job exit code to use (127). */
int gasnetrun_local_spawn(gasnetrun_job_t *job);

/* hub.c */
/* Installs the signal handlers feeding job->sigpipe (before spawning).
 * Returns 0, or -1 after printing why. */
int gasnetrun_hub_signals(gasnetrun_job_t *job);
/* Serves the job until every rank has been reaped (every wait bounded once
 * an exit begins).  Returns the job exit code. */
int gasnetrun_hub_run(gasnetrun_job_t *job);
/* Queues a frame to rank r (payload buf may be NULL; takes a reference). */
void gasnetrun_hub_queue(gasnetrun_job_t *job, uint32_t r, uint32_t type, gasnetrun_buf_t *buf);
/* Allocates a shared payload of len bytes with one reference; exits the
 * launcher with a message when memory is exhausted. */
gasnetrun_buf_t *gasnetrun_buf_new(size_t len);
/* Drops a reference. */
void gasnetrun_buf_put(gasnetrun_buf_t *buf);
/* Ends the job at once: message, job code (if none yet), SIGKILL to every
 * live rank. */
void gasnetrun_hub_fail(gasnetrun_job_t *job, int code, const char *fmt, ...)
    __attribute__((__format__(__printf__, 3, 4)));

/* hub_coll.c */
/* Handles a collective request frame from rank r (payload ownership moves
 * here).  Completes the collective when every rank has arrived.  Returns 0,
 * or -1 after failing the job (mismatch, bad payload). */
int gasnetrun_coll_request(gasnetrun_job_t *job, uint32_t r, uint32_t type,
                           unsigned char *payload, uint32_t len);
/* Frees any partial collective state. */
void gasnetrun_coll_reset(gasnetrun_job_t *job);

#endif /* GASNETRUN_LAUNCHER_H */
