/* contrib/launcher/spawn_local.c: the local spawner, and the fork/exec of
 * one rank that the ssh spawner's nodes use too.  Each rank holds one end
 * of its own AF_UNIX socketpair (the launcher's hub holds the other) and
 * the variables GASNETRUN_FD, GASNETRUN_RANK, GASNETRUN_SIZE and
 * GASNETRUN_JOBID.  Under the local spawner, children inherit stdout and
 * stderr (that is the output forwarding) and the whole environment; rank 0
 * also inherits stdin, the others read /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap_private.h"
#include "contrib/launcher/launcher.h"

/* How long the launcher waits to learn whether a child's exec worked. */
#define EXEC_REPORT_TIMEOUT_MS 30000

void gasnetrun_make_jobid(gasnetrun_job_t *job)
{
    gasneti_bootstrap_new_jobid(job->jobid, sizeof(job->jobid));
}

void gasnetrun_local_dryrun(const gasnetrun_job_t *job)
{
    char *cmd = gasnetrun_cmdline(job->opts->argv);
    for (uint32_t r = 0; r < job->nranks; r++)
        printf(GASNETRUN_NAME ": would run rank %u: GASNETRUN_RANK=%u GASNETRUN_SIZE=%u "
                              "GASNETRUN_JOBID=%s GASNETRUN_FD=<socket> GASNET_IBV_SPAWNER=local %s\n",
               (unsigned)r, (unsigned)r, (unsigned)job->nranks, job->jobid, cmd ? cmd : "?");
    fflush(stdout);
    free(cmd);
}

/* In the child, between fork and exec.  Never returns. */
static void child_exec(const char *jobid, uint32_t rank, uint32_t size, const char *spawner,
                       char *const *argv, char *const *env, int keep_stdin, int out_fd, int sock,
                       int report, pid_t parent)
{
    /* Die with the launcher; if it is already gone, do not start at all. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (!keep_stdin) {
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0) dup2(null, STDIN_FILENO); /* dup2 clears close-on-exec */
    }
    if (out_fd >= 0) dup2(out_fd, STDOUT_FILENO);
    int flags = fcntl(sock, F_GETFD);
    if (flags >= 0) fcntl(sock, F_SETFD, flags & ~FD_CLOEXEC);
    for (size_t i = 0; env && env[i]; i++) putenv(env[i]);
    char num[32];
    snprintf(num, sizeof(num), "%d", sock);
    setenv("GASNETRUN_FD", num, 1);
    snprintf(num, sizeof(num), "%u", (unsigned)rank);
    setenv("GASNETRUN_RANK", num, 1);
    snprintf(num, sizeof(num), "%u", (unsigned)size);
    setenv("GASNETRUN_SIZE", num, 1);
    setenv("GASNETRUN_JOBID", jobid, 1);
    setenv("GASNET_IBV_SPAWNER", spawner, 1);
    signal(SIGPIPE, SIG_DFL); /* the launcher ignores it; programs expect the default */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[0], argv);
    int err = errno;
    ssize_t w = write(report, &err, sizeof(err));
    (void)w;
    _exit(127);
}

/* Waits until the child's report pipe closes (exec worked) or carries an
 * errno (exec failed).  Returns 0 or that errno. */
static int exec_result(int report)
{
    struct pollfd p = {.fd = report, .events = POLLIN};
    int err = 0;
    int rc;
    do {
        rc = poll(&p, 1, EXEC_REPORT_TIMEOUT_MS);
    } while (rc < 0 && errno == EINTR);
    if (rc == 0) return 0; /* slow exec: assume it is running */
    ssize_t got;
    do {
        got = read(report, &err, sizeof(err));
    } while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof(err) ? err : 0;
}

int gasnetrun_fork_rank(const char *jobid, uint32_t rank, uint32_t size, const char *spawner,
                        char *const *argv, char *const *env, int keep_stdin, int out_fd,
                        pid_t *pid, int *sock)
{
    int sv[2], rep[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        gasnetrun_say("cannot create the socket for rank %u: %s (too many processes for "
                      "the open-file limit? see ulimit -n)",
                      (unsigned)rank, strerror(errno));
        return -1;
    }
    if (pipe2(rep, O_CLOEXEC) != 0) {
        gasnetrun_say("cannot create a pipe for rank %u: %s", (unsigned)rank, strerror(errno));
        close(sv[0]), close(sv[1]);
        return -1;
    }
    pid_t self = getpid();
    pid_t p = fork();
    if (p == 0)
        child_exec(jobid, rank, size, spawner, argv, env, keep_stdin, out_fd, sv[1], rep[1], self);
    int fork_err = errno;
    close(sv[1]);
    close(rep[1]);
    if (p < 0) {
        gasnetrun_say("cannot fork rank %u: %s", (unsigned)rank, strerror(fork_err));
        close(sv[0]), close(rep[0]);
        return -1;
    }
    *pid = p;
    *sock = sv[0];
    int err = exec_result(rep[0]);
    close(rep[0]);
    return err;
}

/* Kills and reaps ranks [0, n) after a failed start (bounded wait). */
static void abandon(gasnetrun_job_t *job, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++)
        if (job->ranks[r].alive) kill(job->ranks[r].pid, SIGKILL);
    double end = gasnetrun_now() + GASNETRUN_REAP_GRACE;
    for (uint32_t r = 0; r < n; r++) {
        while (job->ranks[r].alive) {
            pid_t p = waitpid(job->ranks[r].pid, NULL, WNOHANG);
            if (p == job->ranks[r].pid || (p < 0 && errno == ECHILD)) {
                job->ranks[r].alive = 0;
            } else if (gasnetrun_now() > end) {
                gasnetrun_say("rank %u (pid %ld) did not die after SIGKILL; giving up on it",
                              (unsigned)r, (long)job->ranks[r].pid);
                job->ranks[r].alive = 0;
            } else {
                struct timespec ts = {0, 10 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
        gasnetrun_conn_close(&job->ranks[r].conn);
    }
}

int gasnetrun_local_spawn(gasnetrun_job_t *job)
{
    const gasnetrun_opts_t *opts = job->opts;
    char *cmd = gasnetrun_cmdline(opts->argv);
    for (uint32_t r = 0; r < job->nranks; r++) {
        gasnetrun_rank_t *rk = &job->ranks[r];
        rk->link = -1;
        gasnetrun_conn_init(&rk->conn, -1, -1, GASNETI_BSP_DIR_HUB, 0);
        pid_t pid;
        int sock;
        int err = gasnetrun_fork_rank(job->jobid, r, job->nranks, "local", opts->argv, NULL,
                                      r == 0, -1, &pid, &sock);
        if (err < 0) {
            abandon(job, r);
            free(cmd);
            return 1;
        }
        rk->pid = pid;
        rk->alive = 1;
        gasnetrun_conn_init(&rk->conn, sock, sock, GASNETI_BSP_DIR_HUB, 0);
        if (err) {
            gasnetrun_say("cannot execute '%s': %s", opts->argv[0], strerror(err));
            abandon(job, r + 1);
            free(cmd);
            return 127;
        }
        gasnetrun_verbose(opts, "rank %u is pid %ld: %s", (unsigned)r, (long)pid, cmd ? cmd : "");
    }
    free(cmd);
    return 0;
}
