/* tests/unit/test-bootstrap-jobs.c: real jobs through the built
 * gasnetrun_ibv running tests/unit/bootstrap-child: collectives at 4 ranks,
 * exit-code propagation, crashes, aborts, timeouts, launcher signals, exec
 * failure and usage errors.  Every job runs in its own
 * process group under a deadline; survivors are looked for by pid.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "tests/unit/test-bootstrap.h"

static char launcher[PATH_MAX + 32], child[PATH_MAX + 32], piddir[PATH_MAX];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct {
    int status;     /* raw wait status; -1 if the job timed out */
    double elapsed;
    char out[16384]; /* stdout + stderr */
} job_t;

/* What to do to the launcher while it runs: after `ranks` pid files exist,
 * send it `sig` (0: nothing). */
typedef struct {
    int sig;
    int ranks;
} action_t;

static int count_pidfiles(void)
{
    int n = 0;
    DIR *d = opendir(piddir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".pid")) n++;
    closedir(d);
    return n;
}

static void clear_pidfiles(void)
{
    DIR *d = opendir(piddir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".pid")) unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

/* 1 if pid is gone or a zombie. */
static int pid_dead(long pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Every rank that wrote a pid file is dead within `grace` seconds. */
static int no_survivors(double grace)
{
    double end = now() + grace;
    for (;;) {
        int alive = 0;
        DIR *d = opendir(piddir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strstr(e->d_name, ".pid")) continue;
            char path[PATH_MAX + 300];
            snprintf(path, sizeof(path), "%s/%s", piddir, e->d_name);
            FILE *f = fopen(path, "r");
            long pid = 0;
            if (f && fscanf(f, "%ld", &pid) == 1 && pid > 0 && !pid_dead(pid)) alive++;
            if (f) fclose(f);
        }
        if (d) closedir(d);
        if (!alive) return 1;
        if (now() > end) return 0;
        nap_ms(20);
    }
}

/* Runs argv (argv[0] a path) with NULL-terminated "NAME=VALUE" settings,
 * output captured, killed (whole process group) after `limit` seconds. */
static void run(job_t *job, const char *const *env, double limit, action_t act,
                const char *const *argv)
{
    char outpath[] = "/tmp/test-bootstrap-XXXXXX";
    int outfd = mkstemp(outpath);
    clear_pidfiles();
    double t0 = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        for (size_t i = 0; env && env[i]; i++) {
            char *kv = strdup(env[i]), *eq = strchr(kv, '=');
            *eq = '\0';
            setenv(kv, eq + 1, 1);
        }
        dup2(outfd, STDOUT_FILENO);
        dup2(outfd, STDERR_FILENO);
        execv(argv[0], (char *const *)argv);
        _exit(126);
    }
    setpgid(pid, pid);
    int st = -1, acted = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (act.sig && !acted && count_pidfiles() >= act.ranks) {
            nap_ms(100); /* let the ranks settle into their sleep */
            kill(pid, act.sig);
            acted = 1;
        }
        if (now() - t0 > limit) {
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            st = -1;
            break;
        }
        nap_ms(5);
    }
    job->status = st;
    job->elapsed = now() - t0;
    ssize_t n = pread(outfd, job->out, sizeof(job->out) - 1, 0);
    job->out[n > 0 ? n : 0] = '\0';
    close(outfd);
    unlink(outpath);
}

static int exit_code(const job_t *job)
{
    if (job->status < 0) return -1; /* timed out */
    if (WIFEXITED(job->status)) return WEXITSTATUS(job->status);
    return 1000 + WTERMSIG(job->status);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* Prints the job's output after a failed check, for diagnosis. */
static void show(const job_t *job, int ok)
{
    if (ok) return;
    printf("  --- job output (exit %d, %.2f s) ---\n%s  ---\n", exit_code(job), job->elapsed,
           job->out);
}

#define L launcher
#define C child
#define NO_ACT ((action_t){0, 0})

static void jobs_collectives(job_t *j)
{
    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "4", C, "coll", NULL});
    int ok = exit_code(j) == 0 && count(j->out, "of 4: collectives ok") == 4;
    tb_check(ok, "4 ranks: exchange/broadcast/alltoall/barrier data checked, exit 0");
    show(j, ok);
    run(j, (const char *[]){"GASNET_TEST_HOSTS=2", NULL}, 30, NO_ACT,
        (const char *[]){L, "-n", "4", C, "coll", NULL});
    ok = exit_code(j) == 0 && count(j->out, "collectives ok") == 4;
    tb_check(ok, "GASNET_TEST_HOSTS=2: ranks {0,1} and {2,3} report two host ids");
    show(j, ok);
    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "1", C, "coll", NULL});
    ok = exit_code(j) == 0 && count(j->out, "rank 0 of 1: collectives ok") == 1;
    tb_check(ok, "1 rank under the launcher");
    show(j, ok);
    run(j, NULL, 30, NO_ACT, (const char *[]){C, "coll", NULL});
    ok = exit_code(j) == 0 && count(j->out, "rank 0 of 1: collectives ok") == 1;
    tb_check(ok, "no launcher: singleton rank 0 of 1");
    show(j, ok);
}

static void jobs_exits(job_t *j)
{
    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "4", C, "exit3", piddir, NULL});
    int ok = exit_code(j) == 3 && count(j->out, "exit request with code 3") == 3 && no_survivors(2);
    tb_check(ok, "rank 1 notify_exit(3)+_exit(3): job exits 3, the others got EXIT(3)");
    show(j, ok);

    run(j, (const char *[]){"GASNET_EXITTIMEOUT=1", NULL}, 30, NO_ACT,
        (const char *[]){L, "-n", "4", C, "exit3-watchdog", piddir, NULL});
    ok = exit_code(j) == 3 && count(j->out, "forcing exit with code 3") == 3 && j->elapsed < 10 &&
         no_survivors(2);
    tb_check(ok, "ranks ignoring EXIT are ended by their watchdog after GASNET_EXITTIMEOUT");
    show(j, ok);

    run(j, (const char *[]){"GASNET_EXITTIMEOUT=1", NULL}, 30, NO_ACT,
        (const char *[]){L, "-n", "3", C, "quit0-watchdog", piddir, NULL});
    ok = exit_code(j) == 1 && count(j->out, "forcing exit with code 1") == 2 && j->elapsed < 10 &&
         strstr(j->out, "exited with code 0 without gasnet_exit after gasnet_init") &&
         no_survivors(2);
    tb_check(ok, "a rank ending with 0 without notify_exit fails the job with 1 and a line naming "
                 "it; watchdogs exit with that code");
    show(j, ok);

    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "2", C, "exit0-then9", piddir, NULL});
    ok = exit_code(j) == 9 && strstr(j->out, "exited with code 9 after the job began to exit") &&
         no_survivors(2);
    tb_check(ok, "EXIT(0) then a real exit status 9 (valgrind --error-exitcode): job exits 9");
    show(j, ok);

    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "4", C, "segv", piddir, NULL});
    ok = exit_code(j) == 128 + SIGSEGV && strstr(j->out, "was killed by signal SIGSEGV") &&
         j->elapsed < 20 && no_survivors(2);
    tb_check(ok, "a rank's SIGSEGV: job exits %d, reported, others stopped", 128 + SIGSEGV);
    show(j, ok);

    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "4", C, "abort", piddir, NULL});
    ok = exit_code(j) == 7 && strstr(j->out, "rank 1 aborted the job") && j->elapsed < 20 &&
         no_survivors(2);
    tb_check(ok, "abort(7) kills the job at once, exit 7");
    show(j, ok);

    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "3", C, "mismatch", piddir, NULL});
    ok = exit_code(j) == 1 && strstr(j->out, "bootstrap collective mismatch") && no_survivors(2);
    tb_check(ok, "barrier vs exchange: mismatch reported, job killed, exit 1");
    show(j, ok);

    run(j, (const char *[]){"GASNET_BOOTSTRAP_TIMEOUT=1", NULL}, 30, NO_ACT,
        (const char *[]){L, "-n", "3", C, "timeout", piddir, NULL});
    ok = exit_code(j) == 1 && strstr(j->out, "bootstrap barrier timed out after 1 s") &&
         j->elapsed < 9 && no_survivors(2);
    tb_check(ok, "GASNET_BOOTSTRAP_TIMEOUT=1: a missing rank is a named timeout, not a hang");
    show(j, ok);

    run(j, (const char *[]){"GASNET_EXITTIMEOUT=1", NULL}, 30, NO_ACT,
        (const char *[]){L, "-n", "2", "/bin/sh", "-c",
                         "if [ \"$GASNETRUN_RANK\" = 0 ]; then exit 5; else exec sleep 30; fi",
                         NULL});
    ok = exit_code(j) == 5 && strstr(j->out, "exited with code 5 before gasnet_exit") &&
         strstr(j->out, "killing it") && j->elapsed < 10;
    tb_check(ok, "a non-GASNet rank that ignores EXIT is SIGKILLed after the exit timeout");
    show(j, ok);
}

static void jobs_signals(job_t *j)
{
    run(j, NULL, 30, (action_t){SIGTERM, 4}, (const char *[]){L, "-n", "4", C, "sleep", piddir, NULL});
    int ok = exit_code(j) == 143 && j->elapsed < 10 && no_survivors(2);
    tb_check(ok, "SIGTERM to the launcher: exit 143, no rank survives");
    show(j, ok);

    run(j, NULL, 30, (action_t){SIGINT, 4},
        (const char *[]){L, "-n", "4", C, "sleep-noterm", piddir, NULL});
    ok = exit_code(j) == 130 && strstr(j->out, "ignored SIGTERM") && j->elapsed < 10 &&
         no_survivors(2);
    tb_check(ok, "SIGINT, ranks ignoring SIGTERM: SIGKILL after 2 s, exit 130");
    show(j, ok);

    run(j, NULL, 30, (action_t){SIGKILL, 4}, (const char *[]){L, "-n", "4", C, "sleep", piddir, NULL});
    ok = exit_code(j) == 1000 + SIGKILL && no_survivors(3);
    tb_check(ok, "launcher SIGKILLed: every rank dies with it (parent-death signal)");
    show(j, ok);
}

static void jobs_cli(job_t *j)
{
    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-n", "2", "/nonexistent/program", NULL});
    int ok = exit_code(j) == 127 && strstr(j->out, "cannot execute '/nonexistent/program'");
    tb_check(ok, "exec failure: one clear message, exit 127");
    show(j, ok);

    static const struct {
        const char *a[7];
        const char *msg;
    } bad[] = {
        {{"true", NULL}, "missing -n"},
        {{"-n", "zero", "true", NULL}, "is not a positive integer"},
        {{"-n", "2", "-q", "true", NULL}, "unknown option '-q'"},
        {{"-n", "2", NULL}, "missing the program"},
        {{"-n", "2", "-E", "A,1B", "true", NULL}, "is not an environment variable name"},
        {{"-n", "2", "-n", "3", "true", NULL}, "-n given twice"},
        {{"-n", "2", "-spawner=nosuch", "true", NULL},
         "spawner 'nosuch' is not available in this build (available: local, ssh"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *argv[8] = {L};
        for (int k = 0; k < 7 && bad[i].a[k]; k++) argv[k + 1] = bad[i].a[k];
        run(j, NULL, 10, NO_ACT, argv);
        ok = exit_code(j) == 2 && strstr(j->out, bad[i].msg);
        tb_check(ok, "usage error exits 2: %s", bad[i].msg);
        show(j, ok);
    }
    run(j, (const char *[]){"GASNET_IBV_SPAWNER=nosuch", NULL}, 10, NO_ACT,
        (const char *[]){L, "-n", "2", "true", NULL});
    ok = exit_code(j) == 2 && strstr(j->out, "spawner 'nosuch' is not available");
    tb_check(ok, "GASNET_IBV_SPAWNER=nosuch is refused; -spawner=local beats it:");
    show(j, ok);
    run(j, (const char *[]){"GASNET_IBV_SPAWNER=nosuch", NULL}, 30, NO_ACT,
        (const char *[]){L, "-spawner=local", "-n", "2", C, "coll", NULL});
    ok = exit_code(j) == 0 && count(j->out, "collectives ok") == 2;
    tb_check(ok, "  -spawner=local with GASNET_IBV_SPAWNER=nosuch runs (the ranks see local)");
    show(j, ok);

    run(j, NULL, 10, NO_ACT, (const char *[]){L, "-t", "-n", "4", C, "coll", NULL});
    ok = exit_code(j) == 0 && strstr(j->out, "would run rank 3") && !strstr(j->out, "collectives");
    tb_check(ok, "-t prints what would run and runs nothing");
    show(j, ok);
}

/* The default spawner (no -spawner=, no GASNET_IBV_SPAWNER; configure's
 * default auto): local on a bare host, never local inside an allocation. */
static void jobs_default(job_t *j)
{
    static const char *const alloc[] = {"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST",
                                        "PBS_JOBID", "PBS_NODEFILE", "LSB_JOBID", "LSB_HOSTS",
                                        "PE_HOSTFILE", "COBALT_JOBID", "FLUX_JOB_ID",
                                        "OAR_JOB_ID", "GASNET_SSH_SERVERS", "GASNET_NODEFILE",
                                        "GASNET_SSH_NODEFILE", NULL};
    if (strcmp(GASNETI_DEFAULT_SPAWNER, "auto") != 0) {
        printf("SKIP: default-spawner jobs (configure --with-ibv-spawner=%s)\n",
               GASNETI_DEFAULT_SPAWNER);
        return;
    }
    unsetenv("GASNET_IBV_SPAWNER");
    for (size_t i = 0; alloc[i]; i++) unsetenv(alloc[i]);
    run(j, NULL, 30, NO_ACT, (const char *[]){L, "-v", "-n", "2", C, "coll", NULL});
    int ok = exit_code(j) == 0 && count(j->out, "collectives ok") == 2 &&
             strstr(j->out, "spawner local (default: one host") && !strstr(j->out, "mpirun");
    tb_check(ok, "bare single host: the default spawner is local (no mpirun)");
    show(j, ok);

    run(j, (const char *[]){"SLURM_JOB_ID=77", "SLURM_JOB_NODELIST=hostA,hostB", NULL}, 10,
        NO_ACT, (const char *[]){L, "-t", "-n", "4", C, "coll", NULL});
    ok = exit_code(j) == 0 && !strstr(j->out, "spawner local") &&
         strstr(j->out, "SLURM_JOB_ID is set, so not local") && strstr(j->out, "hostA ranks 0..1") &&
         strstr(j->out, "hostB ranks 2..3") && !strstr(j->out, "collectives");
    tb_check(ok, "SLURM_JOB_ID + two-host node list: default not local, -t places ranks on both");
    show(j, ok);

    run(j, (const char *[]){"SLURM_JOB_ID=77", "SLURM_JOB_NODELIST=node[07-08]", NULL}, 10,
        NO_ACT, (const char *[]){L, "-t", "-spawner=ssh", "-n", "4", C, "coll", NULL});
    ok = exit_code(j) == 0 && strstr(j->out, "-- node07 ") && strstr(j->out, "-- node08 ") &&
         strstr(j->out, "on node08 itself ranks 2..3");
    tb_check(ok, "ssh spawner takes SLURM_JOB_NODELIST (node[07-08]) as its host list");
    show(j, ok);

    run(j, (const char *[]){"GASNET_NODEFILE=/dev/null", NULL}, 10, NO_ACT,
        (const char *[]){L, "-spawner=local", "-n", "2", C, "coll", NULL});
    ok = exit_code(j) == 0 && !strstr(j->out, "note:");
    run(j, (const char *[]){"GASNET_IBV_SPAWNER=local", "PBS_JOBID=9", NULL}, 30, NO_ACT,
        (const char *[]){L, "-n", "2", C, "coll", NULL});
    ok = ok && exit_code(j) == 0 && strstr(j->out, "note: PBS_JOBID is set, but the local spawner");
    tb_check(ok, "local inside an allocation is never silent (unless -spawner=local)");
    show(j, ok);

    const char *evil = "/tmp/test-bootstrap-ssh-option-ran";
    unlink(evil);
    run(j, (const char *[]){"GASNET_SSH_SERVERS=-oProxyCommand=touch${IFS}/tmp/test-bootstrap-ssh-option-ran,h2",
                            NULL},
        10, NO_ACT, (const char *[]){L, "-spawner=ssh", "-n", "2", C, "coll", NULL});
    ok = exit_code(j) == 2 && strstr(j->out, "is not a host name (it starts with '-'") &&
         access(evil, F_OK) != 0;
    tb_check(ok, "ssh: a host entry '-oProxyCommand=...' is refused, never passed to ssh");
    show(j, ok);
    unlink(evil);

    run(j, (const char *[]){"GASNET_SSH_SERVERS=h1,h2", "GASNET_SSH_OPTIONS=-p \"2222", NULL}, 10,
        NO_ACT, (const char *[]){L, "-spawner=ssh", "-n", "2", C, "coll", NULL});
    ok = exit_code(j) == 2 && strstr(j->out, "GASNET_SSH_OPTIONS: unbalanced") &&
         !strstr(j->out, "cannot prepare");
    tb_check(ok, "ssh: a malformed GASNET_SSH_OPTIONS is one line and exit 2");
    show(j, ok);
    setenv("GASNET_IBV_SPAWNER", "local", 1);
}

int tb_run_jobs(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        printf("SKIP: cannot read /proc/self/exe to find gasnetrun_ibv\n");
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0'; /* .../tests/unit */
    snprintf(child, sizeof(child), "%s/bootstrap-child", self);
    snprintf(launcher, sizeof(launcher), "%s/../../gasnetrun_ibv", self);
    if (access(launcher, X_OK) != 0 || access(child, X_OK) != 0) {
        printf("SKIP: jobs need %s and %s (make gasnetrun_ibv tests/unit/bootstrap-child)\n",
               launcher, child);
        return -1;
    }
    /* These jobs test the local spawner, whatever configure's default is
     * (jobs that test the choice set GASNET_IBV_SPAWNER themselves). */
    setenv("GASNET_IBV_SPAWNER", "local", 1);
    snprintf(piddir, sizeof(piddir), "/tmp/test-bootstrap-pids-%ld", (long)getpid());
    mkdir(piddir, 0700);
    job_t *j = malloc(sizeof(*j));
    jobs_collectives(j);
    jobs_exits(j);
    jobs_signals(j);
    jobs_cli(j);
    jobs_default(j);
    free(j);
    clear_pidfiles();
    rmdir(piddir);
    return 0;
}
