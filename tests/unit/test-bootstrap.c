/* tests/unit/test-bootstrap.c: the bootstrap without a job first (frame
 * codec, decoder fragmentation and errors, socket send/read, host ids, job
 * ids, exit timeout, plugin selection, the singleton), then real jobs
 * through gasnetrun_ibv (test-bootstrap-jobs.c).
 * Exit 0 when every check passed; 77 (SKIP) when the jobs cannot run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"
#include "bootstrap/local/proto.h"
#include "other/param/param.h"
#include "tests/unit/test-bootstrap.h"

int tb_failures;

void tb_check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s - ", ok ? "ok" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (!ok) tb_failures++;
}

/* ---- frame codec --------------------------------------------------------------- */
static size_t put_frame(unsigned char *buf, uint32_t type, const void *payload, uint32_t len)
{
    gasneti_bsp_hdr_pack(buf, type, len);
    if (len) memcpy(buf + GASNETI_BSP_HDR_LEN, payload, len);
    return GASNETI_BSP_HDR_LEN + len;
}

static void test_codec(void)
{
    unsigned char hdr[GASNETI_BSP_HDR_LEN];
    uint32_t type, len;
    gasneti_bsp_hdr_pack(hdr, GASNETI_BSP_EXCHANGE | GASNETI_BSP_RESULT, 123456);
    gasneti_bsp_hdr_unpack(hdr, &type, &len);
    tb_check(type == (GASNETI_BSP_EXCHANGE | GASNETI_BSP_RESULT) && len == 123456,
             "header round trip");
    tb_check(!strcmp(gasneti_bsp_type_name(GASNETI_BSP_BARRIER), "BARRIER") &&
                 !strcmp(gasneti_bsp_type_name(GASNETI_BSP_BCAST | GASNETI_BSP_RESULT),
                         "BCAST result") &&
                 !strcmp(gasneti_bsp_type_name(99), "unknown"),
             "type names");
    tb_check(gasneti_bsp_type_valid(GASNETI_BSP_ABORT, 1) &&
                 !gasneti_bsp_type_valid(GASNETI_BSP_BARRIER | GASNETI_BSP_RESULT, 1) &&
                 gasneti_bsp_type_valid(GASNETI_BSP_ALLTOALL | GASNETI_BSP_RESULT, 0) &&
                 gasneti_bsp_type_valid(GASNETI_BSP_EXIT, 0) &&
                 !gasneti_bsp_type_valid(GASNETI_BSP_BARRIER, 0) &&
                 !gasneti_bsp_type_valid(GASNETI_BSP_ABORT | GASNETI_BSP_RESULT, 0) &&
                 !gasneti_bsp_type_valid(0, 1),
             "type validity per direction");
}

static void test_decoder(void)
{
    unsigned char stream[256], p1[5] = {1, 2, 3, 4, 5}, p3[3] = {9, 8, 7};
    size_t n = 0;
    n += put_frame(stream + n, GASNETI_BSP_EXCHANGE, p1, 5);
    n += put_frame(stream + n, GASNETI_BSP_BARRIER, NULL, 0);
    n += put_frame(stream + n, GASNETI_BSP_ALLTOALL, p3, 3);
    const uint32_t want_type[3] = {GASNETI_BSP_EXCHANGE, GASNETI_BSP_BARRIER, GASNETI_BSP_ALLTOALL};
    const uint32_t want_len[3] = {5, 0, 3};
    /* fed in every chunk size: the same three frames come out */
    int all_ok = 1;
    for (size_t chunk = 1; chunk <= n; chunk++) {
        gasneti_bsp_rx_t rx;
        gasneti_bsp_rx_init(&rx, 1);
        size_t off = 0, frames = 0;
        while (off < n && all_ok) {
            size_t step = chunk < n - off ? chunk : n - off, used;
            int rc = gasneti_bsp_rx_feed(&rx, stream + off, step, &used);
            off += used;
            if (rc == GASNETI_BSP_RX_FRAME) {
                uint32_t t, l;
                unsigned char *p = gasneti_bsp_rx_take(&rx, &t, &l);
                const unsigned char *want = frames == 0 ? p1 : p3;
                if (frames >= 3 || t != want_type[frames] || l != want_len[frames] ||
                    (l && memcmp(p, want, l)))
                    all_ok = 0;
                free(p);
                frames++;
            } else if (rc != GASNETI_BSP_RX_MORE) {
                all_ok = 0;
            }
        }
        if (frames != 3) all_ok = 0;
        gasneti_bsp_rx_fini(&rx);
    }
    tb_check(all_ok, "decoder yields 3 frames for every fragmentation (1..%zu bytes)", n);

    /* one feed holding several frames stops at the first frame's end */
    gasneti_bsp_rx_t rx;
    gasneti_bsp_rx_init(&rx, 1);
    size_t used;
    int rc = gasneti_bsp_rx_feed(&rx, stream, n, &used);
    tb_check(rc == GASNETI_BSP_RX_FRAME && used == GASNETI_BSP_HDR_LEN + 5,
             "decoder stops at a frame boundary (used %zu)", used);
    rc = gasneti_bsp_rx_feed(&rx, stream + used, n - used, &used);
    tb_check(rc == GASNETI_BSP_RX_FRAME && used == 0, "an untaken frame is not overwritten");
    gasneti_bsp_rx_fini(&rx);

    /* errors: unknown type, oversized length, wrong direction */
    unsigned char bad[GASNETI_BSP_HDR_LEN];
    gasneti_bsp_rx_init(&rx, 1);
    gasneti_bsp_hdr_pack(bad, 77, 0);
    tb_check(gasneti_bsp_rx_feed(&rx, bad, sizeof(bad), &used) == GASNETI_BSP_RX_BAD,
             "unknown frame type rejected");
    gasneti_bsp_rx_fini(&rx);
    gasneti_bsp_hdr_pack(bad, GASNETI_BSP_EXCHANGE, GASNETI_BSP_MAX_PAYLOAD + 1u);
    tb_check(gasneti_bsp_rx_feed(&rx, bad, sizeof(bad), &used) == GASNETI_BSP_RX_BAD,
             "oversized length rejected before allocating");
    gasneti_bsp_rx_fini(&rx);
    gasneti_bsp_rx_init(&rx, 0);
    gasneti_bsp_hdr_pack(bad, GASNETI_BSP_BARRIER, 0);
    tb_check(gasneti_bsp_rx_feed(&rx, bad, sizeof(bad), &used) == GASNETI_BSP_RX_BAD,
             "a request type is invalid from the hub");
    gasneti_bsp_rx_fini(&rx);
}

/* ---- send and read over a socket -------------------------------------------------- */
#define BIG (3u << 20) /* larger than a socket buffer: forces partial writes and reads */
struct sender_arg {
    int fd;
    unsigned char *data;
    int rc;
};

static void *sender(void *p)
{
    struct sender_arg *a = p;
    unsigned char pre[4] = {0xAA, 0xBB, 0xCC, 0xDD};
    a->rc = gasneti_bsp_send(a->fd, GASNETI_BSP_ALLTOALL, pre, 4, a->data, BIG);
    a->rc |= gasneti_bsp_send(a->fd, GASNETI_BSP_EXIT, pre, 4, NULL, 0);
    close(a->fd);
    return NULL;
}

static void test_socket(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        tb_check(0, "socketpair: %s", strerror(errno));
        return;
    }
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    struct sender_arg a = {.fd = sv[1], .data = malloc(BIG)};
    for (size_t i = 0; i < BIG; i++) a.data[i] = (unsigned char)(i * 13 + 5);
    pthread_t t;
    pthread_create(&t, NULL, sender, &a);
    gasneti_bsp_rx_t rx;
    gasneti_bsp_rx_init(&rx, 1);
    int frames = 0, ok = 1, eof = 0, reads = 0;
    while (!eof && reads < 10000000) {
        int rc = gasneti_bsp_rx_read(&rx, sv[0]);
        reads++;
        if (rc == GASNETI_BSP_RX_MORE) continue;
        if (rc == GASNETI_BSP_RX_EOF) {
            eof = 1;
            break;
        }
        if (rc != GASNETI_BSP_RX_FRAME) {
            ok = 0;
            break;
        }
        uint32_t type, len;
        unsigned char *p = gasneti_bsp_rx_take(&rx, &type, &len);
        if (frames == 0)
            ok &= type == GASNETI_BSP_ALLTOALL && len == BIG + 4 && p[0] == 0xAA && p[3] == 0xDD &&
                  !memcmp(p + 4, a.data, BIG);
        else
            ok &= type == GASNETI_BSP_EXIT && len == 4 && p[1] == 0xBB;
        free(p);
        frames++;
    }
    pthread_join(t, NULL);
    tb_check(a.rc == 0, "gasneti_bsp_send of a %u-byte frame in pieces", BIG + 4);
    tb_check(ok && frames == 2, "non-blocking rx_read reassembles both frames (%d)", frames);
    tb_check(eof, "rx_read reports EOF after the peer closes");
    gasneti_bsp_rx_fini(&rx);
    close(sv[0]);
    /* sending to a closed peer fails with EPIPE and no SIGPIPE */
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    close(sv[1]);
    int rc = gasneti_bsp_send(sv[0], GASNETI_BSP_BARRIER, NULL, 0, NULL, 0);
    tb_check(rc == -1 && errno == EPIPE, "send to a closed peer: EPIPE, no signal");
    close(sv[0]);
    free(a.data);
}

/* ---- pure helpers -------------------------------------------------------------------- */
static void test_host_ids(void)
{
    uint64_t id[4];
    for (uint32_t r = 0; r < 4; r++) id[r] = gasneti_bootstrap_host_id_for("nodeA", r, 4, 0);
    tb_check(id[0] == id[1] && id[1] == id[2] && id[2] == id[3], "one host id without GASNET_TEST_HOSTS");
    tb_check(gasneti_bootstrap_host_id_for("nodeB", 0, 4, 0) != id[0], "host ids differ by host name");
    for (uint32_t r = 0; r < 4; r++) id[r] = gasneti_bootstrap_host_id_for("nodeA", r, 4, 2);
    tb_check(id[0] == id[1] && id[2] == id[3] && id[0] != id[2],
             "GASNET_TEST_HOSTS=2, 4 ranks: {0,1} and {2,3}");
    for (uint32_t r = 0; r < 4; r++) id[r] = gasneti_bootstrap_host_id_for("nodeA", r, 4, 3);
    tb_check(id[0] == id[1] && id[1] != id[2] && id[2] != id[3] && id[0] != id[3],
             "GASNET_TEST_HOSTS=3, 4 ranks: {0,1} {2} {3}");
    for (uint32_t r = 0; r < 4; r++) id[r] = gasneti_bootstrap_host_id_for("nodeA", r, 4, 99);
    tb_check(id[0] != id[1] && id[1] != id[2] && id[2] != id[3],
             "GASNET_TEST_HOSTS above the job size: one rank per host");
}

static void test_jobid(void)
{
    tb_check(gasneti_bootstrap_jobid_valid("1234-deadbeef") && gasneti_bootstrap_jobid_valid("a_B-9"),
             "valid job ids accepted");
    tb_check(!gasneti_bootstrap_jobid_valid("") && !gasneti_bootstrap_jobid_valid(NULL) &&
                 !gasneti_bootstrap_jobid_valid("a/b") && !gasneti_bootstrap_jobid_valid("a b") &&
                 !gasneti_bootstrap_jobid_valid("0123456789012345678901234567890123456789012345678"),
             "bad job ids rejected (empty, '/', space, too long)");
}

/* Runs fn in a child with env var NAME=VALUE set before the parameters
 * load; returns its exit status (or -1). */
static int in_child(const char *name, const char *value, int (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        if (name) setenv(name, value, 1);
        gasneti_params_load();
        _exit(fn());
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

static int child_select(void)
{
    const gasneti_bootstrap_ops_t *b = gasneti_bootstrap_select();
    return b == &gasneti_bootstrap_local ? 0 : 10;
}

static int child_exittimeout(void)
{
    return (int)gasneti_bootstrap_exittimeout(4);
}

static void test_select_and_timeouts(void)
{
    tb_check(gasneti_bootstrap_find("local") == &gasneti_bootstrap_local &&
                 gasneti_bootstrap_find("ssh") == &gasneti_bootstrap_ssh &&
                 gasneti_bootstrap_find("nosuch") == NULL && gasneti_bootstrap_find(NULL) == NULL,
             "plugin lookup by name");
    char names[64];
    tb_check(!strncmp(gasneti_bootstrap_names(names, sizeof(names)), "local, ssh", 10),
             "plugin names: %s", names);
    tb_check(in_child("GASNET_IBV_SPAWNER", "local", child_select) == 0,
             "GASNET_IBV_SPAWNER=local selects local");
    tb_check(in_child("GASNET_IBV_SPAWNER", "nosuch", child_select) == 1,
             "GASNET_IBV_SPAWNER=nosuch (not built) is a fatal error");
    tb_check(in_child(NULL, NULL, child_select) == 0, "no launcher: local (singleton)");
    double t4 = gasneti_bootstrap_exittimeout(4), tbig = gasneti_bootstrap_exittimeout(1000000);
    double tmin = GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT_MIN);
    double tf = GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT_FACTOR);
    double tmax = GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT_MAX);
    tb_check(t4 == (tmin + 4 * tf < tmax ? tmin + 4 * tf : tmax) && tbig == tmax,
             "exit timeout computed: 4 ranks %g s, 10^6 ranks %g s", t4, tbig);
    tb_check(in_child("GASNET_EXITTIMEOUT", "7", child_exittimeout) == 7,
             "GASNET_EXITTIMEOUT=7 overrides the computed timeout");
}

/* The singleton: rank 0 of 1, collectives are copies. */
static void test_singleton(void)
{
    const gasneti_bootstrap_ops_t *b = gasneti_bootstrap_select();
    uint32_t rank = 9, size = 9;
    int rc = b->init(NULL, NULL, &rank, &size, NULL);
    tb_check(rc == 0 && rank == 0 && size == 1, "singleton init: rank %u of %u", rank, size);
    int src = 42, dst = 0;
    b->barrier();
    b->exchange(&src, sizeof(src), &dst);
    int ok = dst == 42;
    dst = 0;
    b->broadcast(&src, sizeof(src), &dst, 0);
    ok &= dst == 42;
    dst = 0;
    b->alltoall(&src, sizeof(src), &dst);
    ok &= dst == 42;
    tb_check(ok, "singleton collectives copy");
    const char *id = gasneti_bootstrap_jobid();
    tb_check(gasneti_bootstrap_jobid_valid(id) && strstr(id, "-solo") != NULL, "singleton job id %s",
             id);
    b->notify_exit(0);
    b->fini();
}

int main(void)
{
    /* Start from a known environment: the runner may have GASNET_* set. */
    static const char *const clear[] = {"GASNET_IBV_SPAWNER", "GASNET_EXITTIMEOUT",
                                        "GASNET_EXITTIMEOUT_MAX", "GASNET_EXITTIMEOUT_MIN",
                                        "GASNET_EXITTIMEOUT_FACTOR", "GASNET_BOOTSTRAP_TIMEOUT",
                                        "GASNET_TEST_HOSTS", "GASNETRUN_FD", "GASNETRUN_RANK",
                                        "GASNETRUN_SIZE", "GASNETRUN_JOBID"};
    for (size_t i = 0; i < sizeof(clear) / sizeof(clear[0]); i++) unsetenv(clear[i]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (gasneti_params_load() != 0) {
        printf("FAIL - parameters: %s\n", gasneti_params_error());
        return 1;
    }
    test_codec();
    test_decoder();
    test_socket();
    test_host_ids();
    test_jobid();
    test_select_and_timeouts();
    test_singleton();
    int jobs = tb_run_jobs();
    if (tb_failures) {
        printf("%d check(s) FAILED\n", tb_failures);
        return 1;
    }
    return jobs < 0 ? 77 : 0;
}
