/* contrib/launcher/spawn_mpi.c: the mpi and pmi spawners of gasnetrun_ibv.
 *
 * Both run one command built from a template and wait for it:
 *   mpi  MPIRUN_CMD, else configure's --with-mpirun-cmd ("mpirun -np %N %C")
 *   pmi  PMIRUN_CMD, else configure's --with-pmirun-cmd, else as for mpi
 * (%N processes, %M nodes, %P program, %A arguments, %C = %P %A, %H =
 * GASNET_NODEFILE, %D = current directory, %% = %; setup.h).  The program
 * is launched as `env GASNET_IBV_SPAWNER=<mpi|pmi> GASNETRUN_JOBID=<id>
 * <GASNET_* and -E variables> prog`, so that every rank on every host sees
 * the same settings whatever the mpirun forwards; the ranks' plugins
 * (bootstrap/mpi, bootstrap/pmi) do the rest.  The job id names the ranks'
 * shared-memory objects, which gasnetrun_ibv removes afterwards.
 *
 * The ranks also get GASNETRUN_EXIT_ADDR/KEY of the exit relay (exit_relay.c),
 * through which a rank's gasnet_exit reaches the others at once.
 *
 * The command runs in its own process group and gets SIGTERM when
 * gasnetrun_ibv dies (PR_SET_PDEATHSIG), so that mpirun can end its ranks.
 * SIGINT/SIGTERM/SIGHUP to gasnetrun_ibv are passed to it; if it is still
 * running 10 s later, its process group is killed.  The exit code is the
 * command's (128+signal if it was killed), or 128+signal when gasnetrun_ibv
 * itself was signalled (as with the other spawners).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build-config.h"
#include "contrib/launcher/launcher.h"
#include "contrib/launcher/setup.h"
#include "other/param/param.h"

#ifndef GASNETI_MPIRUN_CMD_DEFAULT
#define GASNETI_MPIRUN_CMD_DEFAULT "mpirun -np %N %C"
#endif
#ifndef GASNETI_PMIRUN_CMD_DEFAULT
#define GASNETI_PMIRUN_CMD_DEFAULT ""
#endif

extern char **environ;

/* The template and where it came from. */
static const char *pick_template(int pmi, const char **from)
{
    if (pmi && gasneti_param_isset(GASNETI_PARAM_PMIRUN_CMD)) {
        *from = "PMIRUN_CMD";
        return GASNETI_PARAM_STR(PMIRUN_CMD);
    }
    if (pmi && GASNETI_PMIRUN_CMD_DEFAULT[0]) {
        *from = "configure's --with-pmirun-cmd";
        return GASNETI_PMIRUN_CMD_DEFAULT;
    }
    if (gasneti_param_isset(GASNETI_PARAM_MPIRUN_CMD)) {
        *from = "MPIRUN_CMD";
        return GASNETI_PARAM_STR(MPIRUN_CMD);
    }
    *from = pmi ? "the default PMIRUN_CMD (configure's MPIRUN_CMD)" : "the default MPIRUN_CMD";
    return GASNETI_MPIRUN_CMD_DEFAULT;
}

/* "env GASNET_IBV_SPAWNER=x GASNETRUN_JOBID=id GASNET_...=... VAR=... prog". */
static char **wrapped_program(const gasnetrun_opts_t *opts, const char *spawner, const char *jobid,
                              const gasnetrun_relay_t *relay)
{
    size_t n = 0;
    for (char **e = environ; *e; e++) n++;
    char **w = calloc(n + 7, sizeof(char *));
    if (!w) return NULL;
    size_t k = 0;
    w[k++] = strdup("env");
    char buf[128];
    snprintf(buf, sizeof(buf), "GASNET_IBV_SPAWNER=%s", spawner);
    w[k++] = strdup(buf);
    snprintf(buf, sizeof(buf), "GASNETRUN_JOBID=%s", jobid);
    w[k++] = strdup(buf);
    if (relay) {
        char addr[400];
        snprintf(addr, sizeof(addr), "GASNETRUN_EXIT_ADDR=%s", gasnetrun_relay_addr(relay));
        w[k++] = strdup(addr);
        snprintf(buf, sizeof(buf), "GASNETRUN_EXIT_KEY=%s", gasnetrun_relay_key(relay));
        w[k++] = strdup(buf);
    }
    for (char **e = environ; *e; e++) {
        int ours = !strncmp(*e, "GASNET_", 7) && strncmp(*e, "GASNET_IBV_SPAWNER=", 19);
        size_t nl = strcspn(*e, "=");
        for (const char *p = opts->envlist; p && *p && !ours;) {
            size_t len = strcspn(p, ",");
            ours = len == nl && !strncmp(p, *e, nl);
            p += len + (p[len] == ',');
        }
        if (ours) w[k++] = strdup(*e);
    }
    w[k++] = strdup(opts->argv[0]);
    w[k] = NULL;
    for (size_t i = 0; i < k; i++)
        if (!w[i]) return NULL;
    return w;
}

static int run(char **argv, const char *from, const char *tmpl, const gasnetrun_opts_t *opts,
               const char *jobid, gasnetrun_relay_t *relay)
{
    gasnetrun_job_t sig = {0};
    if (gasnetrun_hub_signals(&sig) != 0) return 1;
    int rep[2];
    if (pipe2(rep, O_CLOEXEC) != 0) {
        gasnetrun_say("cannot create a pipe: %s", strerror(errno));
        return 1;
    }
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != self) _exit(127);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], argv);
        int err = errno;
        ssize_t w = write(rep[1], &err, sizeof(err));
        (void)w;
        _exit(127);
    }
    close(rep[1]);
    if (pid < 0) {
        gasnetrun_say("cannot fork: %s", strerror(errno));
        close(rep[0]);
        return 1;
    }
    setpgid(pid, pid);
    int err = 0;
    if (read(rep[0], &err, sizeof(err)) == (ssize_t)sizeof(err) && err) {
        close(rep[0]);
        waitpid(pid, NULL, 0);
        gasnetrun_say("cannot execute '%s': %s (from %s: '%s')", argv[0], strerror(err), from,
                      tmpl);
        return 127;
    }
    close(rep[0]);
    double kill_at = 0;
    int caught = 0;
    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            if (caught) return 128 + caught;
            if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
            return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        }
        if (w < 0 && errno != EINTR) return 1;
        size_t np = 1 + gasnetrun_relay_npeers(relay);
        struct pollfd *p = calloc(np, sizeof(*p));
        if (p) {
            p[0] = (struct pollfd){.fd = sig.sigpipe[0], .events = POLLIN};
            np = 1 + gasnetrun_relay_pollfds(relay, p + 1, np - 1);
            poll(p, (nfds_t)np, kill_at || gasnetrun_relay_waiting(relay) ? 100 : 1000);
            free(p);
        }
        gasnetrun_relay_service(relay);
        unsigned char sigs[16];
        ssize_t got;
        while ((got = read(sig.sigpipe[0], sigs, sizeof(sigs))) > 0)
            for (ssize_t j = 0; j < got; j++) {
                if (sigs[j] == SIGCHLD) continue;
                char sb[32];
                gasnetrun_say("caught %s; passing it to %s", gasnetrun_signame(sigs[j], sb, sizeof(sb)),
                              argv[0]);
                kill(pid, sigs[j]);
                if (!caught) caught = sigs[j];
                if (!kill_at) kill_at = gasnetrun_now() + 5 * GASNETRUN_TERM_GRACE;
            }
        if (kill_at && gasnetrun_now() > kill_at) {
            gasnetrun_say("%s still running %g s after the signal; killing its process group",
                          argv[0], 5 * GASNETRUN_TERM_GRACE);
            kill(-pid, SIGKILL);
            kill_at = 0;
        }
    }
}

/* -t: where the ranks go when the allocation's hosts are known.  mpirun
 * places them; this is the block layout its default by-slot mapping gives
 * with equal slots per host (-N hosts, else one per process up to the list). */
static void dryrun_hosts(const gasnetrun_opts_t *opts)
{
    uint32_t n = 0;
    const char *from = NULL;
    char **hosts = gasnetrun_job_hosts(&n, &from, 1);
    if (!hosts) return;
    uint32_t use = opts->nnodes && opts->nnodes < (long)n ? (uint32_t)opts->nnodes : n;
    if ((long)use > opts->nprocs) use = (uint32_t)opts->nprocs;
    for (uint32_t h = 0; h < use; h++) {
        uint32_t first, count;
        gasnetrun_layout((uint32_t)opts->nprocs, use, h, &first, &count);
        printf(GASNETRUN_NAME ": expected placement (hosts from %s): %s ranks %u..%u\n", from,
               hosts[h], (unsigned)first, (unsigned)(first + count - 1));
    }
    fflush(stdout);
    gasnetrun_hosts_free(hosts, n);
}

int gasnetrun_mpirun_main(gasnetrun_opts_t *opts, const char *spawner)
{
    int pmi = !strcmp(spawner, "pmi");
    const char *from;
    const char *tmpl = pick_template(pmi, &from);
    char jobid[64], cwd[PATH_MAX], err[512];
    gasnetrun_job_t tmp = {0};
    gasnetrun_make_jobid(&tmp);
    snprintf(jobid, sizeof(jobid), "%s", tmp.jobid);
    gasnetrun_relay_t *relay = opts->test_only ? NULL : gasnetrun_relay_open(opts);
    char **prog = wrapped_program(opts, spawner, jobid, relay);
    if (!prog) {
        gasnetrun_say("out of memory");
        gasnetrun_relay_close(relay);
        return 1;
    }
    gasnetrun_template_t v = {
        .nprocs = opts->nprocs,
        .nnodes = opts->nnodes ? opts->nnodes : opts->nprocs,
        .prog = prog,
        .args = opts->argv + 1,
        .nodefile = gasneti_param_isset(GASNETI_PARAM_GASNET_NODEFILE)
                        ? GASNETI_PARAM_STR(GASNET_NODEFILE) : NULL,
        .cwd = getcwd(cwd, sizeof(cwd)),
    };
    char **argv = NULL;
    if (gasnetrun_expand_template(tmpl, &v, &argv, err, sizeof(err)) < 0) {
        gasnetrun_say("%s: %s", from, err);
        gasnetrun_words_free(prog);
        gasnetrun_relay_close(relay);
        return 2;
    }
    gasnetrun_words_free(prog);
    char *line = gasnetrun_cmdline(argv);
    gasnetrun_verbose(opts, "job %s: %ld process%s through %s: %s", jobid, opts->nprocs,
                      opts->nprocs == 1 ? "" : "es", from, line ? line : "?");
    if (opts->test_only) {
        printf(GASNETRUN_NAME ": would run: %s\n", line ? line : "?");
        dryrun_hosts(opts);
        fflush(stdout);
        free(line);
        gasnetrun_words_free(argv);
        return 0;
    }
    free(line);
    int code = run(argv, from, tmpl, opts, jobid, relay);
    gasnetrun_relay_close(relay);
    gasnetrun_words_free(argv);
    gasnetrun_verbose(opts, "job %s exit code %d", jobid, code);
    return code;
}
