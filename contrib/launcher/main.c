/* contrib/launcher/main.c: gasnetrun_ibv's command line, spawner choice and
 * exit code.
 *
 *   gasnetrun_ibv -n N [-N nodes] [-E VAR1,VAR2] [-v] [-t] [-k]
 *                 [-spawner=NAME] [--] prog [args]
 *   gasnetrun_ibv --ssh-node ...      (a node of an ssh job; see node.c)
 *
 * Spawner: -spawner= beats GASNET_IBV_SPAWNER beats configure's
 * --with-ibv-spawner; without any of them (auto) the job runs locally only on
 * one host outside any batch allocation (no host list), otherwise with mpi
 * when it is built, else ssh (alloc.c).  Usage errors and unavailable spawners exit 2.  The
 * job's exit code is returned otherwise.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "bootstrap/bootstrap.h"
#include "contrib/launcher/launcher.h"
#include "other/param/param.h"

#ifndef GASNETI_DEFAULT_SPAWNER
#define GASNETI_DEFAULT_SPAWNER "auto"
#endif

#ifndef GASNETI_HAVE_PMIX
#define GASNETI_HAVE_PMIX 0
#endif
#ifndef GASNETI_HAVE_MPI_SPAWNER
#define GASNETI_HAVE_MPI_SPAWNER 0
#endif

/* The spawners this gasnetrun_ibv can run (mpi and pmi as configured). */
static const struct {
    const char *name;
    int built;
} spawners[] = {
    {"local", 1},
    {"ssh", 1},
    {"mpi", GASNETI_HAVE_MPI_SPAWNER},
    {"pmi", GASNETI_HAVE_PMIX},
};

static char *spawner_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(spawners) / sizeof(spawners[0]) && used < len; i++) {
        if (!spawners[i].built) continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", spawners[i].name);
        if (n < 0) break;
        used += (size_t)n;
    }
    return buf;
}

/* ---- small utilities (declared in launcher.h) ------------------------------ */
static const char *line_prefix = GASNETRUN_NAME;

void gasnetrun_set_prefix(const char *prefix)
{
    line_prefix = prefix;
}

static void vline(const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "%s: ", line_prefix);
    if (n < 0 || (size_t)n >= sizeof(line) / 2) n = 0;
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2) len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len); /* one write: lines never interleave */
    (void)w;
}

void gasnetrun_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void gasnetrun_verbose(const gasnetrun_opts_t *opts, const char *fmt, ...)
{
    if (!opts->verbose) return;
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

double gasnetrun_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *gasnetrun_signame(int sig, char *buf, size_t len)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig) return names[i].name;
    snprintf(buf, len, "signal %d", sig);
    return buf;
}

char *gasnetrun_cmdline(char *const *argv)
{
    size_t cap = 1;
    for (size_t i = 0; argv[i]; i++) cap += 4 * strlen(argv[i]) + 3;
    char *out = malloc(cap), *p = out;
    if (!out) return NULL;
    for (size_t i = 0; argv[i]; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *c = a; *c; c++)
            if (!(isalnum((unsigned char)*c) || strchr("-_./=:,+@%", *c))) plain = 0;
        if (i) *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = a; *c; c++) {
            if (*c == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *c;
            }
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

/* ---- command line ---------------------------------------------------------- */
static void usage(FILE *f)
{
    char names[128];
    fprintf(f,
            "usage: " GASNETRUN_NAME " -n <n> [options] [--] prog [program args]\n"
            "options:\n"
            "  -n <n>               number of processes to run (required)\n"
            "  -N <N>               number of nodes to run on (the local spawner uses this host)\n"
            "  -E <VAR1[,VAR2...]>  list of environment variables to propagate\n"
            "  -v                   be verbose about what is happening\n"
            "  -t                   test only, don't execute anything (implies -v)\n"
            "  -k                   keep temporary files (there are none: shared memory\n"
            "                       has no name; accepted for GASNet's scripts; implies -v)\n"
            "  -spawner=NAME        force use of a specific spawner (available: %s)\n"
            "  -h, --help           print this summary\n",
            spawner_names(names, sizeof(names)));
}

static void usage_error(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2), __noreturn__));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
    usage(stderr);
    exit(2);
}

static long parse_count(const char *opt, const char *text)
{
    char *end;
    errno = 0;
    long v = text && *text ? strtol(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || v < 1)
        usage_error("%s '%s' is not a positive integer", opt, text ? text : "");
    return v;
}

static void check_envlist(const char *list)
{
    const char *p = list;
    if (!*p) usage_error("-E needs a comma-separated list of variable names");
    while (*p) {
        size_t n = strcspn(p, ",");
        int ok = n > 0 && (isalpha((unsigned char)p[0]) || p[0] == '_');
        for (size_t i = 1; ok && i < n; i++) ok = isalnum((unsigned char)p[i]) || p[i] == '_';
        if (!ok) usage_error("-E '%s': '%.*s' is not an environment variable name", list, (int)n, p);
        p += n;
        if (*p == ',') {
            p++;
            if (!*p) usage_error("-E '%s': empty name after the last comma", list);
        }
    }
}

static void parse_args(int argc, char **argv, gasnetrun_opts_t *o)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || !a[1]) break; /* the program */
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
            usage(stdout);
            exit(0);
        }
        if (!strncmp(a, "-spawner=", 9) || !strncmp(a, "--spawner=", 10)) {
            if (o->spawner) usage_error("%s: -spawner given twice; give it once", a);
            o->spawner = strchr(a, '=') + 1;
            if (!*o->spawner) usage_error("%s: missing spawner name", a);
            continue;
        }
        if (a[1] == 'n' || a[1] == 'N' || a[1] == 'E') {
            const char *val = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            char opt[3] = {'-', a[1], '\0'};
            if (!val) usage_error("%s needs a value", opt);
            if ((a[1] == 'n' && o->nprocs) || (a[1] == 'N' && o->nnodes))
                usage_error("%s given twice (%s %s): give it once", opt, opt, val);
            if (a[1] == 'n') o->nprocs = parse_count(opt, val);
            if (a[1] == 'N') o->nnodes = parse_count(opt, val);
            if (a[1] == 'E') { /* repeated -E lists add up */
                static char joined[8192];
                check_envlist(val);
                if (o->envlist) {
                    size_t have = strlen(joined);
                    if (have + 1 + strlen(val) >= sizeof(joined))
                        usage_error("-E lists longer than %zu characters", sizeof(joined) - 1);
                    snprintf(joined + have, sizeof(joined) - have, ",%s", val);
                } else {
                    snprintf(joined, sizeof(joined), "%s", val);
                }
                o->envlist = joined;
            }
            continue;
        }
        for (const char *c = a + 1; *c; c++) { /* flags, possibly grouped: -vk */
            if (*c == 'v')
                o->verbose = 1;
            else if (*c == 't')
                o->test_only = o->verbose = 1;
            else if (*c == 'k')
                o->keep = o->verbose = 1;
            else
                usage_error("unknown option '%s'", a);
        }
    }
    if (!o->nprocs) usage_error("missing -n <n> (the number of processes)");
    if (i >= argc) usage_error("missing the program to run");
    o->argv = argv + i;
}

/* The spawner and why it was chosen: -spawner=, else GASNET_IBV_SPAWNER,
 * else configure's --with-ibv-spawner, else (auto) local on one host outside
 * any allocation, otherwise mpi when built, else ssh. */
static const char *choose_spawner(const gasnetrun_opts_t *o, char *why, size_t len)
{
    const char *name = GASNETI_DEFAULT_SPAWNER;
    snprintf(why, len, "configure --with-ibv-spawner=%s", name);
    if (o->spawner) {
        name = o->spawner;
        snprintf(why, len, "-spawner=%s", name);
    } else if (gasneti_param_isset(GASNETI_PARAM_GASNET_IBV_SPAWNER)) {
        name = GASNETI_PARAM_STR(GASNET_IBV_SPAWNER);
        snprintf(why, len, "GASNET_IBV_SPAWNER=%s", name);
    }
    if (strcmp(name, "auto") != 0) return name;
    const char *alloc = gasnetrun_allocation();
    if (!alloc) {
        snprintf(why, len, "default: one host, no batch allocation and no host list");
        return "local";
    }
    snprintf(why, len, "default: %s is set, so not local; %s", alloc,
             GASNETI_HAVE_MPI_SPAWNER ? "mpi is available" : "mpi is not built, so ssh");
    return GASNETI_HAVE_MPI_SPAWNER ? "mpi" : "ssh";
}

static int local_main(gasnetrun_opts_t *opts)
{
    if (opts->nprocs > GASNETRUN_LOCAL_MAX_PROCS) {
        gasnetrun_say("-n %ld: the local spawner starts at most %d processes", opts->nprocs,
                      GASNETRUN_LOCAL_MAX_PROCS);
        return 2;
    }
    if (opts->nnodes > 1)
        gasnetrun_say("-N %ld ignored: the local spawner runs all %ld processes on this host",
                      opts->nnodes, opts->nprocs);
    if (opts->envlist)
        gasnetrun_verbose(opts, "-E %s: the local spawner passes the whole environment, "
                                "these included", opts->envlist);

    gasnetrun_job_t job = {.opts = opts, .nranks = (uint32_t)opts->nprocs};
    gasnetrun_make_jobid(&job);
    job.exit_timeout = gasneti_bootstrap_exittimeout(job.nranks);
    gasnetrun_verbose(opts, "job %s: %u process%s of the local spawner, exit timeout %g s",
                      job.jobid, job.nranks, job.nranks == 1 ? "" : "es", job.exit_timeout);
    if (opts->test_only) {
        gasnetrun_local_dryrun(&job);
        return 0;
    }

    job.ranks = calloc(job.nranks, sizeof(*job.ranks));
    if (!job.ranks) {
        gasnetrun_say("out of memory for %u ranks", job.nranks);
        return 1;
    }
    if (gasnetrun_hub_signals(&job) != 0) return 1;
    int code = gasnetrun_local_spawn(&job);
    if (code == 0) code = gasnetrun_hub_run(&job);
    gasnetrun_job_free(&job);
    gasnetrun_verbose(opts, "job %s exit code %d", job.jobid, code);
    return code;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--ssh-node")) {
        (void)gasneti_params_load();
        return gasnetrun_node_main(argc, argv);
    }
    gasnetrun_opts_t opts = {0};
    parse_args(argc, argv, &opts);
    /* Our own settings only; errors in other variables are the ranks' to
     * report (they end the job at startup). */
    (void)gasneti_params_load();

    char why[256];
    const char *spawner = choose_spawner(&opts, why, sizeof(why));
    int known = 0;
    for (size_t i = 0; i < sizeof(spawners) / sizeof(spawners[0]); i++)
        if (!strcmp(spawner, spawners[i].name) && spawners[i].built) known = 1;
    if (!known) {
        char names[64];
        gasnetrun_say("spawner '%s' is not available in this build (available: %s)%s", spawner,
                      spawner_names(names, sizeof(names)),
                      opts.spawner ? "" : "; it came from GASNET_IBV_SPAWNER or configure");
        return 2;
    }
    gasnetrun_verbose(&opts, "spawner %s (%s)", spawner, why);
    const char *alloc = gasnetrun_allocation();
    if (!strcmp(spawner, "local") && alloc && opts.nprocs > 1 && !opts.spawner)
        gasnetrun_say("note: %s is set, but the local spawner (%s) starts all %ld processes on "
                      "this host; use -spawner=ssh or -spawner=mpi to use the allocation",
                      alloc, why, opts.nprocs);
    if (opts.nnodes > opts.nprocs)
        usage_error("-N %ld is more nodes than processes (-n %ld)", opts.nnodes, opts.nprocs);
    if (!strcmp(spawner, "local")) return local_main(&opts);
    if (!strcmp(spawner, "ssh")) return gasnetrun_ssh_main(&opts);
    return gasnetrun_mpirun_main(&opts, spawner);
}
