/* contrib/launcher/launcher.h: gasnetrun_ibv's pieces.
 *
 * main.c parses the command line and picks the spawner.  The local spawner
 * (spawn_local.c) forks the ranks on this host, one socket each; the ssh
 * spawner (spawn_ssh.c) starts a tree of gasnetrun_ibv "nodes" over ssh
 * (link.c: one ssh session per edge; node.c: a node, which forks the ranks
 * of its host and relays their frames); mpi and pmi (spawn_mpi.c) run
 * MPIRUN_CMD / PMIRUN_CMD.  hub.c serves the bootstrap collectives and runs
 * the job's exit for local and ssh jobs (ranks it forked, or ranks behind a
 * link); hub_coll.c holds the collective bookkeeping; conn.c the framed,
 * non-blocking connections all of them use; setup.c the pure helpers (ssh
 * SETUP message, shell words, command templates, layout, tree).
 * The launcher is single-threaded.  Protocol and exit rules:
 * bootstrap/README.
 */
#ifndef GASNETRUN_LAUNCHER_H
#define GASNETRUN_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bootstrap/local/proto.h"

#define GASNETRUN_NAME "gasnetrun_ibv"
/* Most processes the local spawner (and each ssh node) starts. */
#define GASNETRUN_LOCAL_MAX_PROCS 4096
/* Most processes of an ssh job (ranks are u32; the rank side caps at 2^24). */
#define GASNETRUN_SSH_MAX_PROCS (1L << 24)
/* How long the launcher waits for a process to vanish after SIGKILL. */
#define GASNETRUN_REAP_GRACE 10.0
/* After SIGTERM on a launcher signal, how long before SIGKILL. */
#define GASNETRUN_TERM_GRACE 2.0
/* Extra time the hub allows after the exit timeout, so that the ranks' own
 * watchdogs (same timeout) fire before the launcher's SIGKILL. */
#define GASNETRUN_EXIT_GRACE 1.0
/* How long an ABORT waits before the hub kills the job: a peer's death by a
 * signal often reaches the other ranks as a transport error (they abort)
 * before the hub has reaped it, and the signal must win. */
#define GASNETRUN_ABORT_SETTLE 0.3
/* ... and, while a rank is ending on its own (a zombie or exiting, not yet
 * reaped), up to this long for its status. */
#define GASNETRUN_ABORT_WAIT_MAX 10.0
/* The greeting a node writes before its first frame (the parent skips what
 * a remote login shell may print before it), then a u32 1 in the node's byte
 * order. */
#define GASNETRUN_GREETING "\n#gasnetrun-node-1#\n"
#define GASNETRUN_GREETING_LEN 20

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

/* A reference-counted payload shared by several output queues. */
typedef struct {
    unsigned refs;
    size_t len;
    unsigned char *data; /* inline after the struct, or an adopted malloc block */
    int adopted;
} gasnetrun_buf_t;

/* Frame header plus up to 4 envelope words. */
#define GASNETRUN_HDR_MAX (GASNETI_BSP_HDR_LEN + 16)

/* One queued frame. */
typedef struct gasnetrun_out {
    struct gasnetrun_out *next;
    unsigned char hdr[GASNETRUN_HDR_MAX];
    uint32_t hdr_len;
    size_t off;           /* bytes of hdr+payload already sent */
    gasnetrun_buf_t *buf; /* may be NULL for no payload beyond hdr */
} gasnetrun_out_t;

/* A framed byte stream: a socket (rfd == wfd) or a pair of pipes. */
typedef struct {
    int rfd, wfd; /* -1 once closed */
    int is_sock;
    gasneti_bsp_rx_t rx;
    gasnetrun_out_t *out_head, *out_tail;
    size_t queued; /* bytes waiting in the output queue */
    /* pipes only: bytes read ahead of the decoder, greeting state */
    unsigned char *in;
    size_t in_off, in_len;
    int greeted;
    size_t pre_seen; /* bytes before the greeting */
} gasnetrun_conn_t;

typedef struct {
    pid_t pid;             /* local: the child; remote: as reported (0 until then) */
    int link;              /* -1: forked by this launcher; else index in job->links */
    gasnetrun_conn_t conn; /* local ranks: the socket */
    int alive;             /* not reaped / not reported dead */
    int joined;            /* sent a frame: it is past the start of gasnet_init */
    int sent_exit;         /* sent EXIT or ABORT */
    int sent_abort;        /* sent ABORT */
    int told_exit;         /* the hub queued EXIT to it */
    int killed;            /* the launcher signalled it */
    /* current collective */
    int arrived;
    unsigned char *contrib;
    uint32_t contrib_len;
} gasnetrun_rank_t;

/* An ssh session to a node, which starts hosts [host_lo, host_hi). */
typedef struct {
    pid_t pid;             /* the ssh process; 0 once reaped */
    int status;            /* its wait status once reaped */
    gasnetrun_conn_t conn; /* wfd: its stdin, rfd: its stdout */
    uint32_t host_lo, host_hi;
    uint32_t rank_lo, rank_hi; /* ranks below it */
    int eof;               /* its stdout ended */
    int lost_done;         /* its unreported ranks were declared lost */
} gasnetrun_link_t;

typedef struct {
    const gasnetrun_opts_t *opts;
    char jobid[64];
    uint32_t nranks;
    gasnetrun_rank_t *ranks;
    gasnetrun_link_t *links; /* ssh: the root's links */
    uint32_t nlinks;
    char **hosts;            /* ssh: the hosts in use */
    uint32_t nhosts;
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

/* main.c */
/* Verbose line "gasnetrun_ibv: ..." on stderr when -v. */
void gasnetrun_verbose(const gasnetrun_opts_t *opts, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));
/* Always-printed line "gasnetrun_ibv: ..." on stderr. */
void gasnetrun_say(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));
/* Sets the prefix of gasnetrun_say/verbose lines ("gasnetrun_ibv[host]"). */
void gasnetrun_set_prefix(const char *prefix);
/* The program and its arguments as one shell-quoted line (malloc'd). */
char *gasnetrun_cmdline(char *const *argv);
/* Seconds on the monotonic clock. */
double gasnetrun_now(void);
/* "SIGSEGV" for 11 (else "signal N"); returns a static or buf. */
const char *gasnetrun_signame(int sig, char *buf, size_t len);

/* conn.c */
/* Payload buffers: new (len bytes inline), adopt (takes a malloc'd block,
 * NULL when len is 0), put (drops a reference).  Out of memory exits. */
gasnetrun_buf_t *gasnetrun_buf_new(size_t len);
gasnetrun_buf_t *gasnetrun_buf_adopt(unsigned char *data, size_t len);
void gasnetrun_buf_put(gasnetrun_buf_t *buf);
/* Prepares c over rfd/wfd (made non-blocking) decoding frames of direction
 * dir (GASNETI_BSP_DIR_*); greet=1 expects a node's greeting first. */
void gasnetrun_conn_init(gasnetrun_conn_t *c, int rfd, int wfd, int dir, int greet);
/* Queues a frame of `type` whose payload is nwords u32 words, then buf (may
 * be NULL; takes a reference), and sends what the peer takes at once. */
void gasnetrun_conn_send(gasnetrun_conn_t *c, uint32_t type, const uint32_t *words,
                         unsigned nwords, gasnetrun_buf_t *buf);
/* Sends queued output without blocking; a dead peer drops it. */
void gasnetrun_conn_flush(gasnetrun_conn_t *c);
/* 1 if output is waiting. */
int gasnetrun_conn_pending(const gasnetrun_conn_t *c);
/* 1 if input was read ahead and not decoded yet (poll() will not say so). */
int gasnetrun_conn_buffered(const gasnetrun_conn_t *c);
/* Blocks until the output is sent or `deadline` (gasnetrun_now) passes.
 * Returns 0 when everything was sent. */
int gasnetrun_conn_drain(gasnetrun_conn_t *c, double deadline);
/* Reads the next whole frame without blocking.  Returns GASNETI_BSP_RX_FRAME
 * (*payload malloc'd or NULL, the caller frees it), _MORE (nothing more
 * now), _EOF, _ERRNO, _BAD or _NOMEM.  For greet connections, bytes before
 * the greeting are printed (once, prefixed with `who`) and skipped. */
int gasnetrun_conn_read(gasnetrun_conn_t *c, const char *who, uint32_t *type,
                        unsigned char **payload, uint32_t *len);
/* Closes both directions and drops queued output.  Idempotent. */
void gasnetrun_conn_close(gasnetrun_conn_t *c);
/* Closes only the writing side (the peer reads EOF). */
void gasnetrun_conn_close_write(gasnetrun_conn_t *c);

/* spawn_local.c */
/* Fills job->jobid with "<pid>-<8 hex digits>".  Never fails. */
void gasnetrun_make_jobid(gasnetrun_job_t *job);
/* Prints what -t would run (stdout). */
void gasnetrun_local_dryrun(const gasnetrun_job_t *job);
/* Starts every rank (job->ranks allocated by the caller, sigpipe ready).
 * Returns 0; on failure (exec error) prints why, kills and reaps what was
 * started and returns the job exit code to use (127). */
int gasnetrun_local_spawn(gasnetrun_job_t *job);
/* Forks and execs one rank with its socket: GASNETRUN_FD/RANK/SIZE/JOBID,
 * GASNET_IBV_SPAWNER=spawner, env ("NAME=value", may be NULL) on top of the
 * inherited environment, stdin from /dev/null unless keep_stdin, stdout to
 * out_fd unless it is -1.  Dies with the caller (PR_SET_PDEATHSIG).  Sets
 * *pid and *sock (the caller's end, close-on-exec, blocking).  Returns 0,
 * the errno of a failed exec (the child is gone by then: reap it), or -1
 * after printing why no process was made. */
int gasnetrun_fork_rank(const char *jobid, uint32_t rank, uint32_t size, const char *spawner,
                        char *const *argv, char *const *env, int keep_stdin, int out_fd,
                        pid_t *pid, int *sock);

/* hub.c */
/* Installs the signal handlers feeding job->sigpipe (before spawning); the
 * launcher ignores SIGPIPE (children get the default back).  Returns 0, or
 * -1 after printing why. */
int gasnetrun_hub_signals(gasnetrun_job_t *job);
/* Serves the job until every rank has been reaped (every wait bounded once
 * an exit begins) and every link has ended.  Returns the job exit code. */
int gasnetrun_hub_run(gasnetrun_job_t *job);
/* Closes every connection and frees the ranks and links arrays. */
void gasnetrun_job_free(gasnetrun_job_t *job);
/* Queues a frame to rank r (payload buf may be NULL; takes a reference). */
void gasnetrun_hub_queue(gasnetrun_job_t *job, uint32_t r, uint32_t type, gasnetrun_buf_t *buf);
/* Queues the same frame to every rank (one copy per link). */
void gasnetrun_hub_queue_all(gasnetrun_job_t *job, uint32_t type, gasnetrun_buf_t *buf);
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

/* link.c */
/* Starts `ssh_argv... host remote_cmd` with pipes as its stdin/stdout (its
 * stderr is ours), in its own process group, dying with us.  Fills l->pid
 * and l->conn.  Returns 0, or -1 after printing why. */
int gasnetrun_link_start(gasnetrun_link_t *l, char *const *ssh_argv, const char *host,
                         const char *remote_cmd);
/* The command a node runs on its host: "exec '<launcher>' --ssh-node ..."
 * (malloc'd). */
char *gasnetrun_link_remote_cmd(const char *launcher, const char *jobid, uint32_t host);
/* Prints "lost contact with host ..." for a link that ended while ranks
 * below it were alive (with ssh's exit status when known). */
void gasnetrun_link_say_lost(const gasnetrun_link_t *l, const char *host, uint32_t alive);

/* spawn_ssh.c */
/* Runs an ssh job (or, with -t, prints its plan).  Returns the exit code. */
int gasnetrun_ssh_main(gasnetrun_opts_t *opts);

/* node.c */
/* `gasnetrun_ibv --ssh-node ...`: a node of an ssh job, fed by its stdin.
 * Returns the process exit code. */
int gasnetrun_node_main(int argc, char **argv);

/* alloc.c */
/* The name of the first variable showing that this runs inside a batch
 * allocation or was given a host list (GASNET_SSH_NODEFILE, GASNET_NODEFILE,
 * GASNET_SSH_SERVERS, SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, PE_HOSTFILE, ...),
 * or NULL: one host, where the local spawner cannot surprise anyone. */
const char *gasnetrun_allocation(void);
/* The job's host list: GASNET_SSH_NODEFILE, else GASNET_NODEFILE, else
 * GASNET_SSH_SERVERS, else PBS_NODEFILE, PE_HOSTFILE, LSB_HOSTS,
 * SLURM_JOB_NODELIST; every entry checked to be a host name (never an
 * option of ssh).  Sets *n and *from (the variable).  Returns NULL (after
 * saying why unless quiet; a bad host name is always reported) when there
 * is no usable list. */
char **gasnetrun_job_hosts(uint32_t *n, const char **from, int quiet);
void gasnetrun_hosts_free(char **hosts, uint32_t n);

/* exit_relay.c: the mpi/pmi exit relay (NULL relay: every call a no-op). */
typedef struct gasnetrun_relay gasnetrun_relay_t;
struct pollfd;
/* Listens on a TCP port; NULL (after a message) when it cannot. */
gasnetrun_relay_t *gasnetrun_relay_open(const gasnetrun_opts_t *opts);
/* GASNETRUN_EXIT_ADDR ("host:port") and GASNETRUN_EXIT_KEY for the ranks. */
const char *gasnetrun_relay_addr(const gasnetrun_relay_t *r);
const char *gasnetrun_relay_key(const gasnetrun_relay_t *r);
/* Fills at most max poll entries (listener and connections); count. */
size_t gasnetrun_relay_pollfds(const gasnetrun_relay_t *r, struct pollfd *pfd, size_t max);
/* Upper bound of what _pollfds fills. */
size_t gasnetrun_relay_npeers(const gasnetrun_relay_t *r);
/* 1 while a collective-exit window is open (poll at least every 100 ms). */
int gasnetrun_relay_waiting(const gasnetrun_relay_t *r);
/* Accepts, reads, relays EXIT and flushes without blocking. */
void gasnetrun_relay_service(gasnetrun_relay_t *r);
void gasnetrun_relay_close(gasnetrun_relay_t *r);

/* spawn_mpi.c */
/* Runs the job through MPIRUN_CMD (spawner "mpi") or PMIRUN_CMD ("pmi").
 * Returns the exit code (mpirun's). */
int gasnetrun_mpirun_main(gasnetrun_opts_t *opts, const char *spawner);

#endif /* GASNETRUN_LAUNCHER_H */
