/* contrib/launcher/link.c: one edge of the ssh spawn tree.  A parent
 * launcher (the root gasnetrun_ibv or a node) runs
 *
 *     <GASNET_SSH_CMD> <GASNET_SSH_OPTIONS> [-o BatchMode=yes
 *         -o StrictHostKeyChecking=no] HOST exec '<gasnetrun_ibv>' --ssh-node JOB H
 *
 * with two pipes: ssh's stdin carries frames down (SETUP first), its stdout
 * carries frames up; ssh's stderr is the parent's, so ssh's own errors and
 * everything the node and its ranks write to stderr reach the user.  The
 * ssh process gets its own process group (a terminal's Ctrl-C reaches only
 * the root, which then ends the job in order) and dies with its parent
 * (PR_SET_PDEATHSIG), which closes the session: the node sees EOF on its
 * stdin and tears its part of the job down.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contrib/launcher/launcher.h"

char *gasnetrun_link_remote_cmd(const char *launcher, const char *jobid, uint32_t host)
{
    char hostnum[16];
    snprintf(hostnum, sizeof(hostnum), "%u", (unsigned)host);
    char *const words[] = {"exec", (char *)launcher, "--ssh-node", (char *)jobid, hostnum, NULL};
    return gasnetrun_cmdline(words);
}

/* In the child, between fork and exec.  Never returns. */
static void link_child(char *const *argv, int in, int out, int report, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[0], argv);
    int err = errno;
    ssize_t w = write(report, &err, sizeof(err));
    (void)w;
    _exit(127);
}

int gasnetrun_link_start(gasnetrun_link_t *l, char *const *ssh_argv, const char *host,
                         const char *remote_cmd)
{
    size_t n = 0;
    while (ssh_argv[n]) n++;
    char **argv = calloc(n + 3, sizeof(char *));
    if (!argv) {
        gasnetrun_say("out of memory starting ssh to %s", host);
        return -1;
    }
    memcpy(argv, ssh_argv, n * sizeof(char *));
    argv[n] = (char *)host;
    argv[n + 1] = (char *)remote_cmd;
    int down[2], up[2], rep[2];
    if (pipe2(down, O_CLOEXEC) != 0) goto pipes;
    if (pipe2(up, O_CLOEXEC) != 0) {
        close(down[0]), close(down[1]);
        goto pipes;
    }
    if (pipe2(rep, O_CLOEXEC) != 0) {
        close(down[0]), close(down[1]), close(up[0]), close(up[1]);
        goto pipes;
    }
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid == 0) link_child(argv, down[0], up[1], rep[1], self);
    int fork_err = errno;
    free(argv);
    close(down[0]);
    close(up[1]);
    close(rep[1]);
    if (pid < 0) {
        gasnetrun_say("cannot fork ssh for host %s: %s", host, strerror(fork_err));
        close(down[1]), close(up[0]), close(rep[0]);
        return -1;
    }
    int err = 0;
    struct pollfd p = {.fd = rep[0], .events = POLLIN};
    if (poll(&p, 1, 30000) > 0 && read(rep[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
        err = 0;
    close(rep[0]);
    if (err) {
        gasnetrun_say("cannot execute '%s' to reach host %s: %s (GASNET_SSH_CMD)", ssh_argv[0],
                      host, strerror(err));
        close(down[1]), close(up[0]);
        waitpid(pid, NULL, 0);
        return -1;
    }
    l->pid = pid;
    gasnetrun_conn_init(&l->conn, up[0], down[1], GASNETI_BSP_DIR_UP, 1);
    return 0;
pipes:
    gasnetrun_say("cannot create pipes for ssh to host %s: %s", host, strerror(errno));
    free(argv);
    return -1;
}

void gasnetrun_link_say_lost(const gasnetrun_link_t *l, const char *host, uint32_t alive)
{
    char how[96] = "its ssh session ended";
    if (!l->pid && WIFEXITED(l->status) && WEXITSTATUS(l->status) == 255)
        snprintf(how, sizeof(how), "ssh failed (exit code 255; see its message above, and "
                                   "GASNET_SSH_OPTIONS)");
    else if (!l->pid && WIFEXITED(l->status))
        snprintf(how, sizeof(how), "its ssh session ended with exit code %d",
                 WEXITSTATUS(l->status));
    else if (!l->pid && WIFSIGNALED(l->status))
        snprintf(how, sizeof(how), "its ssh process was killed by signal %d",
                 WTERMSIG(l->status));
    gasnetrun_say("lost contact with host %s (hosts %u..%u, ranks %u..%u, %u still running): %s",
                  host, (unsigned)l->host_lo, (unsigned)l->host_hi - 1, (unsigned)l->rank_lo,
                  (unsigned)l->rank_hi - 1, (unsigned)alive, how);
}
