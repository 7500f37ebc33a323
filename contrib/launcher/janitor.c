/* contrib/launcher/janitor.c: removes a job's /dev/shm objects when the
 * launcher cannot.
 *
 * The launcher sweeps /dev/shm/gasnet-ibv-<jobid>* when its job ends.  If
 * the launcher itself is SIGKILLed during start-up, its ranks die with it
 * (PR_SET_PDEATHSIG) but nobody sweeps, and a segment object created before
 * every rank attached (and so before it was unlinked) would stay.  So each
 * launcher that forks ranks or runs mpirun first forks a janitor: a process
 * in its own process group (a kill of the job's group does not reach it),
 * ignoring the terminal's signals, with nothing open but the read end of a
 * pipe from the launcher.  The launcher writes the pid of every process it
 * starts, and "done" once it has swept.  When the pipe ends without "done",
 * the janitor waits until those processes are gone (at most
 * GASNETRUN_JANITOR_WAIT seconds: no process of the job can create an object
 * after that) and sweeps.  Either way it then exits.
 *
 * The mpi spawner's ranks are mpirun's children, not ours, each in its own
 * process group (Open MPI): when mpirun is SIGKILLed they outlive it and
 * the launcher for a few seconds (measured: up to 5 s, still starting), so
 * an object one of them creates after the launcher's sweep would stay.
 * spawn_mpi.c therefore sends "linger" before it sweeps: after "done" the
 * janitor then waits (at most GASNETRUN_JANITOR_WAIT s) until no process of
 * this user on this host carries GASNETRUN_JOBID=<jobid> in its environment
 * (the wrapped program sets it: spawn_mpi.c), and sweeps again.  The
 * launcher's own exit is not delayed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "contrib/launcher/launcher.h"

#define GASNETRUN_JANITOR_WAIT 15.0

static int janitor_fd = -1;

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* 1 if /proc/<pid>/environ holds the entry want ("GASNETRUN_JOBID=<id>"). */
static int environ_has(const char *pid, const char *want)
{
    char path[64], buf[8192];
    snprintf(path, sizeof(path), "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0; /* gone, or not ours */
    size_t wl = strlen(want), keep = 0;
    int found = 0;
    for (;;) {
        ssize_t r = read(fd, buf + keep, sizeof(buf) - keep - 1);
        if (r <= 0) break;
        size_t len = keep + (size_t)r, start = 0;
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0') {
                if (i - start == wl && !memcmp(buf + start, want, wl)) found = 1;
                start = i + 1;
            }
        if (found) break;
        keep = len - start; /* an entry cut by the buffer: keep its start */
        if (keep >= sizeof(buf) / 2) keep = 0; /* too long to be ours */
        memmove(buf, buf + start, keep);
    }
    close(fd);
    return found;
}

/* 1 while some other process on this host runs with want in its environment. */
static int job_process_left(const char *want)
{
    DIR *d = opendir("/proc");
    if (!d) return 0;
    struct dirent *e;
    int left = 0;
    char self[32];
    snprintf(self, sizeof(self), "%ld", (long)getpid());
    while (!left && (e = readdir(d)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, self) != 0)
            left = environ_has(e->d_name, want);
    closedir(d);
    return left;
}

static void janitor_main(int rfd, const char *jobid) __attribute__((__noreturn__));
static void janitor_main(int rfd, const char *jobid)
{
    pid_t *pids = NULL;
    size_t n = 0, cap = 0;
    int done = 0, linger = 0;
    for (;;) {
        unsigned char msg[1 + sizeof(pid_t)];
        size_t got = 0;
        while (got < sizeof(msg)) {
            ssize_t r = read(rfd, msg + got, sizeof(msg) - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got < sizeof(msg)) break; /* the launcher is gone (or done) */
        if (msg[0] == 'D') {
            done = 1;
            break;
        }
        if (msg[0] == 'L') {
            linger = 1;
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            pid_t *v = realloc(pids, nc * sizeof(pid_t));
            if (!v) continue; /* then this one is not waited for */
            pids = v;
            cap = nc;
        }
        memcpy(&pids[n++], msg + 1, sizeof(pid_t));
    }
    if (!done) {
        double end = gasnetrun_now() + GASNETRUN_JANITOR_WAIT;
        for (size_t i = 0; i < n; i++)
            while ((kill(pids[i], 0) == 0 || errno == EPERM) && gasnetrun_now() < end) nap_ms(20);
        gasnetrun_sweep_shm(jobid, 0, 0);
    } else if (linger) {
        char want[128];
        snprintf(want, sizeof(want), "GASNETRUN_JOBID=%s", jobid);
        double end = gasnetrun_now() + GASNETRUN_JANITOR_WAIT;
        int waited = 0;
        while (job_process_left(want) && gasnetrun_now() < end) {
            waited = 1;
            nap_ms(50);
        }
        if (waited) gasnetrun_sweep_shm(jobid, 0, 0);
    }
    _exit(0);
}

void gasnetrun_janitor_start(const char *jobid)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return; /* no janitor: only a launcher kill would leak */
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP};
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) signal(sigs[i], SIG_IGN);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* Hold nothing of the job open: a reader of its output sees EOF when
         * the launcher ends, not when the janitor does. */
        int null = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3 && null >= 0; fd++) dup2(null, fd);
        int rfd = p[0] == 3 ? 3 : dup2(p[0], 3);
        if (rfd != 3) _exit(0);
        if (close_range(4, ~0U, 0) != 0) {
            long max = sysconf(_SC_OPEN_MAX);
            for (long fd = 4; fd < (max > 0 && max < 65536 ? max : 65536); fd++) close((int)fd);
        }
        janitor_main(3, jobid);
    }
    close(p[0]);
    if (pid < 0) {
        close(p[1]);
        return;
    }
    janitor_fd = p[1];
}

static void tell(const unsigned char *msg, size_t len)
{
    if (janitor_fd < 0) return;
    ssize_t w = write(janitor_fd, msg, len); /* a pipe write this small is atomic */
    (void)w;
}

void gasnetrun_janitor_watch(pid_t pid)
{
    unsigned char msg[1 + sizeof(pid_t)] = {'P'};
    memcpy(msg + 1, &pid, sizeof(pid));
    tell(msg, sizeof(msg));
}

void gasnetrun_janitor_linger(void)
{
    unsigned char msg[1 + sizeof(pid_t)] = {'L'};
    tell(msg, sizeof(msg));
}

void gasnetrun_janitor_done(void)
{
    unsigned char msg[1 + sizeof(pid_t)] = {'D'};
    tell(msg, sizeof(msg));
    if (janitor_fd >= 0) close(janitor_fd);
    janitor_fd = -1;
}
