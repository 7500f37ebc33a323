/* tests/unit/bootstrap-child.c: a rank program for test-bootstrap, run under
 * gasnetrun_ibv (or alone, as a singleton).  It uses the bootstrap plugin
 * directly (no core), so it needs only bootstrap, param and log.
 *
 *   bootstrap-child MODE [PIDDIR]
 *
 * PIDDIR: each rank writes PIDDIR/<rank>.pid so the test can check that no
 * process survives the job.  Modes:
 *   coll       exchange/broadcast/alltoall/barrier at several sizes, data
 *              and host ids (GASNET_TEST_HOSTS) checked; exit 0 if all ok
 *   exit3      rank 1 calls notify_exit(3) and _exit(3); the others wait in
 *              a barrier and leave through the exit callback
 *   exit3-watchdog  same, but the callback ignores the request (the
 *              plugin's watchdog must end them)
 *   quit0-watchdog  rank 1 just _exit(0)s (no notify_exit: the job fails
 *              with 1); the others ignore the request and their watchdog
 *              exits with code 1
 *   segv       the last rank raises SIGSEGV; the others sleep
 *   abort      rank 1 calls abort(7); the others sleep
 *   sleep      every rank sleeps 60 s ("sleep-noterm": ignoring SIGTERM)
 *   mismatch   rank 0 calls barrier, the others exchange
 *   timeout    rank 0 sleeps 10 s before the barrier the others wait in
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "other/log/log.h"
#include "other/param/param.h"

static const gasneti_bootstrap_ops_t *boot;
static uint32_t me, nranks;
static int ignore_exit_requests;

static void on_exit_request(int code)
{
    printf("rank %u: exit request with code %d\n", (unsigned)me, code);
    fflush(stdout);
    if (ignore_exit_requests) return;
    _exit(code);
}

static void nap(double sec)
{
    struct timespec ts = {(time_t)sec, (long)((sec - (double)(time_t)sec) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int failures;
static void check(int ok, const char *what, size_t len)
{
    if (ok) return;
    failures++;
    printf("rank %u: FAIL %s (len %zu)\n", (unsigned)me, what, len);
}

static unsigned char pat(uint32_t a, uint32_t b, size_t i, size_t len)
{
    return (unsigned char)(a * 31u + b * 17u + i * 7u + len);
}

static void run_collectives(void)
{
    static const size_t lens[] = {0, 1, 13, 4096, 100000};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t len = lens[k];
        unsigned char *src = malloc(len * nranks + 1), *dst = malloc(len * nranks + 1);
        /* exchange */
        for (size_t i = 0; i < len; i++) src[i] = pat(me, 0, i, len);
        boot->exchange(src, len, dst);
        int ok = 1;
        for (uint32_t r = 0; r < nranks; r++)
            for (size_t i = 0; i < len; i++) ok &= dst[r * len + i] == pat(r, 0, i, len);
        check(ok, "exchange data", len);
        /* broadcast from a different root each round */
        uint32_t root = (uint32_t)(k % nranks);
        for (size_t i = 0; i < len; i++) src[i] = me == root ? pat(root, 1, i, len) : 0xEE;
        memset(dst, 0, len + 1);
        boot->broadcast(src, len, dst, root);
        ok = 1;
        for (size_t i = 0; i < len; i++) ok &= dst[i] == pat(root, 1, i, len);
        check(ok, "broadcast data", len);
        /* alltoall: block d of rank s is pat(s, d) */
        for (uint32_t d = 0; d < nranks; d++)
            for (size_t i = 0; i < len; i++) src[d * len + i] = pat(me, d + 2, i, len);
        boot->alltoall(src, len, dst);
        ok = 1;
        for (uint32_t s = 0; s < nranks; s++)
            for (size_t i = 0; i < len; i++) ok &= dst[s * len + i] == pat(s, me + 2, i, len);
        check(ok, "alltoall data", len);
        boot->barrier();
        free(src);
        free(dst);
    }
    /* host ids: equal exactly for ranks on the same (pretend) host */
    uint64_t mine = boot->host_id(), *all = malloc(sizeof(uint64_t) * nranks);
    boot->exchange(&mine, sizeof(mine), all);
    int64_t h = GASNETI_PARAM_INT(GASNET_TEST_HOSTS);
    if (h > (int64_t)nranks) h = nranks;
    int ok = 1;
    for (uint32_t a = 0; a < nranks; a++)
        for (uint32_t b = 0; b < nranks; b++) {
            int same = h > 1 ? (uint64_t)a * (uint64_t)h / nranks == (uint64_t)b * (uint64_t)h / nranks : 1;
            ok &= (all[a] == all[b]) == same;
        }
    check(ok, "host ids", sizeof(mine));
    free(all);
}

static void write_pid(const char *dir)
{
    char path[512], text[32];
    snprintf(path, sizeof(path), "%s/%u.pid", dir, (unsigned)me);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    int n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
    ssize_t w = write(fd, text, (size_t)n);
    (void)w;
    close(fd);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "coll";
    if (gasneti_params_load() != 0) {
        fprintf(stderr, "bootstrap-child: %s\n", gasneti_params_error());
        return 1;
    }
    ignore_exit_requests = !strcmp(mode, "exit3-watchdog") || !strcmp(mode, "quit0-watchdog");
    boot = gasneti_bootstrap_select();
    if (boot->init(&argc, &argv, &me, &nranks, on_exit_request) != 0) return 1;
    char host[64];
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    gasneti_log_set_identity(me, host);
    if (argc > 2) write_pid(argv[2]);
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (!strcmp(mode, "coll")) {
        run_collectives();
        /* agree on the outcome, so that every rank exits with the same code */
        int *all = malloc(sizeof(int) * nranks), total = 0;
        boot->exchange(&failures, sizeof(int), all);
        for (uint32_t r = 0; r < nranks; r++) total += all[r];
        free(all);
        printf("rank %u of %u: collectives %s\n", (unsigned)me, (unsigned)nranks,
               total ? "FAILED" : "ok");
        boot->barrier();
        boot->notify_exit(total ? 1 : 0);
        boot->fini();
        return total ? 1 : 0;
    }
    if (!strcmp(mode, "exit3") || !strcmp(mode, "exit3-watchdog") ||
        !strcmp(mode, "quit0-watchdog")) {
        boot->barrier();
        if (me == 1) {
            if (mode[0] == 'q') _exit(0);
            boot->notify_exit(3);
            _exit(3);
        }
        boot->barrier(); /* never completes: rank 1 is gone */
        printf("rank %u: FAIL barrier completed without rank 1\n", (unsigned)me);
        return 1;
    }
    if (!strcmp(mode, "exit0-alone")) {
        /* Rank 1 leaves with gasnet_exit(0) semantics while the others are
         * busy outside any bootstrap call: only the launcher can tell them. */
        boot->barrier();
        if (me == 1) {
            boot->notify_exit(0);
            boot->fini();
            return 0;
        }
        nap(30);
        printf("rank %u: FAIL no exit request within 30 s\n", (unsigned)me);
        return 1;
    }
    if (!strcmp(mode, "exit0-then9")) {
        /* Like a tool (valgrind --error-exitcode=9) that reports through the
         * exit status after the program asked for exit 0. */
        boot->barrier();
        boot->notify_exit(0);
        boot->fini();
        _exit(me == 1 ? 9 : 0);
    }
    if (!strcmp(mode, "segv") || !strcmp(mode, "abort")) {
        boot->barrier();
        if (!strcmp(mode, "segv") && me == nranks - 1) raise(SIGSEGV);
        if (!strcmp(mode, "abort") && me == 1) boot->abort(7);
        nap(30);
        printf("rank %u: FAIL still alive after 30 s\n", (unsigned)me);
        return 1;
    }
    if (!strcmp(mode, "sleep") || !strcmp(mode, "sleep-noterm")) {
        if (!strcmp(mode, "sleep-noterm")) signal(SIGTERM, SIG_IGN);
        boot->barrier();
        printf("rank %u: sleeping\n", (unsigned)me);
        nap(60);
        return 1;
    }
    if (!strcmp(mode, "mismatch")) {
        int x = 1, out[64];
        if (me == 0)
            boot->barrier();
        else
            boot->exchange(&x, sizeof(x), out);
        nap(30);
        return 1;
    }
    if (!strcmp(mode, "timeout")) {
        if (me == 0) nap(10);
        boot->barrier();
        return 1;
    }
    fprintf(stderr, "bootstrap-child: unknown mode '%s'\n", mode);
    return 2;
}
