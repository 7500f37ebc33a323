/* contrib/launcher/spawn_ssh.c: the ssh spawner's root (gasnetrun_ibv
 * -spawner=ssh).
 *
 * Hosts come from GASNET_SSH_NODEFILE, else GASNET_NODEFILE, else
 * GASNET_SSH_SERVERS, else the batch system's list (alloc.c); -N picks how many (default: one
 * per process up to the list's length).  Ranks are laid out in blocks
 * (setup.h).  The root runs no rank itself: it splits the hosts into at
 * most GASNET_SSH_OUT_DEGREE chunks and starts, over ssh, a gasnetrun_ibv
 * node on the first host of each; every node starts the rest of its chunk
 * the same way and forks its own host's ranks (node.c).  So startup takes
 * about log_degree(hosts) ssh round trips, and the root holds one link per
 * chunk.  The root's hub (hub.c) then serves the ranks through those links
 * exactly as it serves local ranks.
 *
 * The ranks get the environment their host's sshd gives them, plus every
 * GASNET_* variable of the root and the variables named by -E, in the
 * directory GASNET_SSH_REMOTE_PATH (default: the root's current directory),
 * or with GASNET_SSH_KEEPDIR=1 in the directory their remote login starts in.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "contrib/launcher/launcher.h"
#include "contrib/launcher/setup.h"
#include "other/param/param.h"

extern char **environ;

/* GASNET_SSH_CMD, GASNET_SSH_OPTIONS, and for OpenSSH the options that keep
 * it from prompting (after the user's: OpenSSH keeps the first value).
 * NULL after printing why; *code is then the launcher's exit code (2 for
 * a malformed GASNET_SSH_OPTIONS, like every configuration error). */
static char **ssh_argv(int *code)
{
    char err[512], **opts = NULL;
    const char *cmd = GASNETI_PARAM_STR(GASNET_SSH_CMD);
    const char *o = gasneti_param_isset(GASNETI_PARAM_GASNET_SSH_OPTIONS)
                        ? GASNETI_PARAM_STR(GASNET_SSH_OPTIONS) : "";
    if (gasnetrun_split_words(o, &opts, err, sizeof(err)) < 0) {
        gasnetrun_say("GASNET_SSH_OPTIONS: %s", err);
        *code = 2;
        return NULL;
    }
    size_t n = 0;
    while (opts[n]) n++;
    char **argv = calloc(n + 7, sizeof(char *));
    if (!argv) {
        gasnetrun_words_free(opts);
        gasnetrun_say("out of memory for the ssh command line");
        *code = 1;
        return NULL;
    }
    size_t k = 0;
    argv[k++] = strdup(cmd && *cmd ? cmd : "ssh");
    for (size_t i = 0; i < n; i++) argv[k++] = opts[i];
    free(opts);
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (!strcmp(base, "ssh")) {
        argv[k++] = strdup("-o");
        argv[k++] = strdup("BatchMode=yes");
        argv[k++] = strdup("-o");
        argv[k++] = strdup("StrictHostKeyChecking=no");
        argv[k++] = strdup("--"); /* the host is never an option */
    }
    argv[k] = NULL;
    return argv;
}

/* GASNET_* of this process and the -E names, as "NAME=value". */
static char **ranks_env(const char *envlist)
{
    size_t n = 0, cap = 16;
    char **env = calloc(cap, sizeof(char *));
    for (char **e = environ; env && *e; e++) {
        int ours = !strncmp(*e, "GASNET_", 7) && strncmp(*e, "GASNET_IBV_SPAWNER=", 19);
        if (!ours && envlist) {
            size_t nl = strcspn(*e, "=");
            for (const char *p = envlist; *p && !ours;) {
                size_t len = strcspn(p, ",");
                ours = len == nl && !strncmp(p, *e, nl);
                p += len + (p[len] == ',');
            }
        }
        if (!ours) continue;
        if (n + 2 > cap) {
            char **v = realloc(env, (cap *= 2) * sizeof(char *));
            if (!v) break;
            env = v;
        }
        env[n++] = strdup(*e);
        env[n] = NULL;
    }
    return env;
}

static void dryrun(const gasnetrun_job_t *job, gasnetrun_setup_t *s, uint32_t parent_host,
                   uint32_t lo, uint32_t hi)
{
    uint32_t *clo = malloc(((size_t)(hi - lo) + 1) * 2 * sizeof(uint32_t));
    if (!clo) return;
    uint32_t *chi = clo + (hi - lo) + 1;
    uint32_t nc = gasnetrun_tree_split(lo, hi, s->degree, clo, chi);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t first, count, lfirst, lcount;
        gasnetrun_layout(job->nranks, job->nhosts, clo[i], &first, &count);
        gasnetrun_layout(job->nranks, job->nhosts, chi[i] - 1, &lfirst, &lcount);
        char *remote = gasnetrun_link_remote_cmd(s->launcher, s->jobid, clo[i]);
        char *sshcmd = gasnetrun_cmdline(s->ssh_argv);
        printf(GASNETRUN_NAME ": would run from %s: %s %s '%s'   (node for hosts %u..%u: "
                              "ranks %u..%u; on %s itself ranks %u..%u)\n",
               parent_host == UINT32_MAX ? "this host" : job->hosts[parent_host], sshcmd,
               job->hosts[clo[i]], remote, (unsigned)clo[i], (unsigned)chi[i] - 1,
               (unsigned)first, (unsigned)(lfirst + lcount - 1), job->hosts[clo[i]],
               (unsigned)first, (unsigned)(first + count - 1));
        free(remote);
        free(sshcmd);
        dryrun(job, s, clo[i], clo[i] + 1, chi[i]);
    }
    free(clo);
}

int gasnetrun_ssh_main(gasnetrun_opts_t *opts)
{
    const char *from = NULL;
    uint32_t nlisted = 0;
    char **hosts = gasnetrun_job_hosts(&nlisted, &from, 0);
    if (!hosts) return 2;
    if (opts->nprocs > GASNETRUN_SSH_MAX_PROCS) {
        gasnetrun_say("-n %ld: the ssh spawner starts at most %ld processes", opts->nprocs,
                      (long)GASNETRUN_SSH_MAX_PROCS);
        return 2;
    }
    uint32_t nhosts = opts->nnodes ? (uint32_t)opts->nnodes
                                   : (opts->nprocs < (long)nlisted ? (uint32_t)opts->nprocs : nlisted);
    if (nhosts > nlisted) {
        gasnetrun_say("-N %ld needs %ld hosts but %s lists %u", opts->nnodes, opts->nnodes, from,
                      (unsigned)nlisted);
        return 2;
    }
    uint32_t per = (uint32_t)((opts->nprocs + nhosts - 1) / nhosts);
    if (per > GASNETRUN_LOCAL_MAX_PROCS) {
        gasnetrun_say("-n %ld on %u hosts is %u processes per host; a node starts at most %d",
                      opts->nprocs, (unsigned)nhosts, (unsigned)per, GASNETRUN_LOCAL_MAX_PROCS);
        return 2;
    }

    gasnetrun_job_t job = {.opts = opts, .nranks = (uint32_t)opts->nprocs, .hosts = hosts,
                           .nhosts = nhosts};
    gasnetrun_make_jobid(&job);
    job.exit_timeout = gasneti_bootstrap_exittimeout(job.nranks);

    char self[PATH_MAX], cwd[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (sl <= 0) {
        gasnetrun_say("cannot find this program's path (/proc/self/exe), which every host runs");
        return 1;
    }
    self[sl] = '\0';
    /* GASNET_SSH_KEEPDIR: "" tells the nodes not to change directory. */
    const char *dir = GASNETI_PARAM_BOOL(GASNET_SSH_KEEPDIR) ? ""
                      : gasneti_param_isset(GASNETI_PARAM_GASNET_SSH_REMOTE_PATH)
                          ? GASNETI_PARAM_STR(GASNET_SSH_REMOTE_PATH)
                          : getcwd(cwd, sizeof(cwd));
    int code = 1;
    char **sargv = ssh_argv(&code);
    if (!sargv) {
        gasnetrun_hosts_free(hosts, nlisted);
        return code;
    }
    char **env = ranks_env(opts->envlist);
    if (!dir || !env) {
        gasnetrun_say("cannot prepare the ssh job (current directory or memory)");
        return 1;
    }
    gasnetrun_setup_t s = {.jobid = job.jobid, .nranks = job.nranks, .nhosts = nhosts,
                           .degree = (uint32_t)GASNETI_PARAM_INT(GASNET_SSH_OUT_DEGREE),
                           .verbose = opts->verbose, .keep = opts->keep, .launcher = self,
                           .cwd = (char *)dir, .hosts = hosts, .ssh_argv = sargv,
                           .prog_argv = opts->argv, .env = env};
    gasnetrun_verbose(opts, "job %s: %u process%s on %u host%s from %s, spawn tree out-degree "
                            "%u, exit timeout %g s",
                      job.jobid, job.nranks, job.nranks == 1 ? "" : "es", (unsigned)nhosts,
                      nhosts == 1 ? "" : "s", from, (unsigned)s.degree, job.exit_timeout);
    if (opts->test_only) {
        dryrun(&job, &s, UINT32_MAX, 0, nhosts);
        gasnetrun_hosts_free(hosts, nlisted);
        gasnetrun_words_free(sargv);
        gasnetrun_words_free(env);
        return 0;
    }

    uint32_t *lo = calloc(2 * (size_t)nhosts, sizeof(uint32_t));
    uint32_t *hi = lo ? lo + nhosts : NULL;
    job.nlinks = lo ? gasnetrun_tree_split(0, nhosts, s.degree, lo, hi) : 0;
    job.links = calloc(job.nlinks ? job.nlinks : 1, sizeof(*job.links));
    job.ranks = calloc(job.nranks, sizeof(*job.ranks));
    if (!lo || !job.links || !job.ranks) {
        gasnetrun_say("out of memory for %u ranks", job.nranks);
        return 1;
    }
    if (gasnetrun_hub_signals(&job) != 0) return 1;
    for (uint32_t l = 0; l < job.nlinks; l++) {
        gasnetrun_link_t *lk = &job.links[l];
        uint32_t first, count;
        lk->host_lo = lo[l];
        lk->host_hi = hi[l];
        gasnetrun_layout(job.nranks, nhosts, lo[l], &first, &count);
        lk->rank_lo = first;
        gasnetrun_layout(job.nranks, nhosts, hi[l] - 1, &first, &count);
        lk->rank_hi = first + count;
        for (uint32_t r = lk->rank_lo; r < lk->rank_hi; r++) {
            job.ranks[r].link = (int)l;
            job.ranks[r].alive = 1;
            gasnetrun_conn_init(&job.ranks[r].conn, -1, -1, GASNETI_BSP_DIR_HUB, 0);
        }
        char *remote = gasnetrun_link_remote_cmd(self, job.jobid, lo[l]);
        gasnetrun_verbose(opts, "starting the node on host %s (hosts %u..%u, ranks %u..%u)",
                          hosts[lo[l]], (unsigned)lo[l], (unsigned)hi[l] - 1,
                          (unsigned)lk->rank_lo, (unsigned)lk->rank_hi - 1);
        int rc = remote ? gasnetrun_link_start(lk, sargv, hosts[lo[l]], remote) : -1;
        free(remote);
        if (rc != 0) {
            /* Its ranks are lost; the hub ends the job with the others. */
            gasnetrun_conn_init(&lk->conn, -1, -1, GASNETI_BSP_DIR_UP, 0);
            lk->eof = 1;
            lk->status = 127 << 8;
            continue;
        }
        s.host_lo = lo[l];
        s.host_hi = hi[l];
        size_t len = 0;
        unsigned char *blob = gasnetrun_setup_pack(&s, &len);
        if (!blob) {
            gasnetrun_say("out of memory for the SETUP of host %s", hosts[lo[l]]);
            return 1;
        }
        gasnetrun_buf_t *b = gasnetrun_buf_adopt(blob, len);
        gasnetrun_conn_send(&lk->conn, GASNETI_BSP_SETUP, NULL, 0, b);
        gasnetrun_buf_put(b);
    }
    free(lo);
    code = gasnetrun_hub_run(&job);
    gasnetrun_job_free(&job);
    gasnetrun_hosts_free(hosts, nlisted);
    gasnetrun_words_free(sargv);
    gasnetrun_words_free(env);
    gasnetrun_verbose(opts, "job %s exit code %d", job.jobid, code);
    return code;
}
