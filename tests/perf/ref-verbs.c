/* tests/perf/ref-verbs.c: raw verbs references for the barrier over RDMA
 * and for the AM round trip.
 *
 *   tests/perf/ref-verbs [--dev NAME] [--gid-index N] [--iters N] [--reps N] [--json F]
 *
 * Defaults: the first device, the first GID that holds an IPv4 address.
 *
 * Two processes (fork; no GASNet) on one RDMA device, one RC queue pair
 * each, connected through a socketpair.  Process 0 measures and reports.
 * Tests (size 0, microseconds):
 *   verbs_xchg_lat    one dissemination round of 2 ranks, as the RDMA
 *                     barrier does it: both processes write the round's
 *                     epoch (8 bytes, inline, signalled RDMA WRITE) into
 *                     the other's buffer at the same time, then spin on
 *                     their own buffer until the peer's epoch is there,
 *                     reaping completions meanwhile
 *   verbs_write_rtt   the same write as a ping-pong (process 0 writes,
 *                     process 1 answers when it sees it): 2 x ib_write_lat,
 *                     to check this program against perftest in one run
 *   verbs_send_rtt    the least an AM Short round trip does on verbs: an
 *                     8-byte inline signalled SEND ping-pong on the same QP,
 *                     each consumed receive buffer posted again before the
 *                     answer is sent (2 x ib_send_lat, measured here)
 * perftest has no simultaneous exchange: bench.py derives the barrier's
 * reference from ib_send_lat (one one-way latency per round) and shows this
 * measured round beside it; the AM round trip rows get verbs_send_rtt beside
 * 2 x ib_send_lat (tests/perf/README "Measured verbs references").
 * Waits spin without yielding, as perftest does; every wait gives up after
 * 30 s with a message.  The child dies with its parent (PR_SET_PDEATHSIG).
 */
#include "tests/perf/bench.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAIT_LIMIT_S 30.0
#define RBUFS 16     /* receive buffers of verbs_send_rtt, 64 bytes each */
#define RBUF_OFF 64  /* their place in the registered page, in uint64_t */

typedef struct {
    uint32_t qpn, rkey;
    uint64_t addr;
    union ibv_gid gid;
} endpoint_t;

static const char *dev_name;   /* --dev (NULL: the first device) */
static int gid_index = -1;     /* --gid-index (-1: the first IPv4 one, else 0) */
static int me, sock;           /* process index, socketpair end */
static struct ibv_qp *qp;
static struct ibv_cq *cq;
static volatile uint64_t *slot; /* [0] exchange, [1] ping-pong: written by the peer */
static uint64_t *src;           /* the value being written (registered) */
static uint32_t lkey;
static endpoint_t peer;
static int signalled;           /* sends whose completion is not reaped yet */
static long arrived;            /* SENDs received (verbs_send_rtt) */

static void post_recv(uint64_t i);

static void die(const char *what, int err)
{
    fprintf(stderr, "ref-verbs: %s failed%s%s (device %s)\n", what, err ? ": " : "",
            err ? strerror(err) : "", dev_name ? dev_name : "(first)");
    exit(1);
}

static void xfer(void *out, void *in, size_t n)
{
    if (write(sock, out, n) != (ssize_t)n || read(sock, in, n) != (ssize_t)n)
        die("the exchange with the other process", errno);
}

/* The device to use, checked before the fork so that a missing one is
 * reported once; each process then opens its own context. */
static struct ibv_device *find_device(struct ibv_device ***list)
{
    int n = 0;
    *list = ibv_get_device_list(&n);
    for (int i = 0; *list && i < n; i++)
        if (!dev_name || !strcmp(ibv_get_device_name((*list)[i]), dev_name)) return (*list)[i];
    fprintf(stderr, "ref-verbs: no RDMA device%s%s (load rdma_rxe or use an HCA; tests/softroce "
            "runs this in a guest)\n", dev_name ? " named " : "", dev_name ? dev_name : "");
    exit(2);
}

static struct ibv_context *open_device(void)
{
    struct ibv_device **list;
    struct ibv_context *ctx = ibv_open_device(find_device(&list));
    if (!ctx) die("ibv_open_device", errno);
    ibv_free_device_list(list);
    return ctx;
}

/* RoCE: the first GID that carries an IPv4 address (::ffff:a.b.c.d), as
 * perftest users pick with -x; 0 (InfiniBand, or no such entry) otherwise. */
static int ipv4_gid(struct ibv_context *ctx, int len)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    union ibv_gid g;
    for (int i = 0; i < len && i < 256; i++)
        if (ibv_query_gid(ctx, 1, i, &g) == 0 && !memcmp(g.raw, mapped, sizeof(mapped)))
            return i;
    return 0;
}

static void setup(void)
{
    struct ibv_context *ctx = open_device();
    struct ibv_port_attr pa;
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    if (!pd) die("ibv_alloc_pd", errno);
    if (ibv_query_port(ctx, 1, &pa)) die("ibv_query_port", errno);
    if (!(cq = ibv_create_cq(ctx, 256, NULL, NULL, 0))) die("ibv_create_cq", errno);
    uint64_t *buf = aligned_alloc(4096, 4096);
    if (!buf) die("aligned_alloc", ENOMEM);
    memset(buf, 0, 4096);
    struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!mr) die("ibv_reg_mr", errno);
    slot = buf, src = buf + 8, lkey = mr->lkey;
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 128, .max_recv_wr = RBUFS,
                                          .max_send_sge = 1, .max_recv_sge = 1,
                                          .max_inline_data = 16}};
    if (!(qp = ibv_create_qp(pd, &ia))) die("ibv_create_qp", errno);
    endpoint_t mine = {.qpn = qp->qp_num, .rkey = mr->rkey, .addr = (uintptr_t)buf};
    if (gid_index < 0) gid_index = ipv4_gid(ctx, pa.gid_tbl_len);
    if (ibv_query_gid(ctx, 1, gid_index, &mine.gid)) die("ibv_query_gid (--gid-index)", errno);
    xfer(&mine, &peer, sizeof(mine));

    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        die("ibv_modify_qp to INIT", errno);
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR, a.path_mtu = pa.active_mtu, a.dest_qp_num = peer.qpn;
    a.max_dest_rd_atomic = 1, a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1, a.ah_attr.port_num = 1, a.ah_attr.dlid = pa.lid;
    a.ah_attr.grh.dgid = peer.gid, a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
    a.ah_attr.grh.hop_limit = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        die("ibv_modify_qp to RTR (--gid-index?)", errno);
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS, a.timeout = 14, a.retry_cnt = 7, a.rnr_retry = 7, a.max_rd_atomic = 1;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        die("ibv_modify_qp to RTS", errno);
    for (uint64_t i = 0; i < RBUFS; i++) post_recv(i);
}

/* Posts receive buffer i (verbs_send_rtt). */
static void post_recv(uint64_t i)
{
    struct ibv_sge sge = {.addr = (uintptr_t)(slot + RBUF_OFF + 8 * i), .length = 64, .lkey = lkey};
    struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad;
    int rc = ibv_post_recv(qp, &wr, &bad);
    if (rc) die("ibv_post_recv", rc);
}

/* Reaps completions: a send's frees its slot, a receive's counts an
 * arrival and posts its buffer again at once. */
static void reap(void)
{
    struct ibv_wc wc[16];
    int n = ibv_poll_cq(cq, 16, wc);
    if (n < 0) die("ibv_poll_cq", 0);
    for (int i = 0; i < n; i++) {
        int recv = wc[i].opcode == IBV_WC_RECV;
        if (wc[i].status != IBV_WC_SUCCESS) {
            fprintf(stderr, "ref-verbs: %s completed with status %d (%s)\n",
                    recv ? "a receive" : "a send or RDMA WRITE", (int)wc[i].status,
                    ibv_wc_status_str(wc[i].status));
            exit(1);
        }
        if (recv) {
            post_recv(wc[i].wr_id);
            arrived++;
        } else {
            signalled--;
        }
    }
}

/* Ends the process when a wait has lasted WAIT_LIMIT_S (checked every 4096
 * spins: reading the clock costs microseconds in an emulated guest). */
static void wait_check(unsigned spins, double *t0, const char *what, uint64_t v)
{
    if ((spins & 4095) != 4095) return;
    double t = bench_now();
    if (!*t0) *t0 = t;
    if (t - *t0 > WAIT_LIMIT_S) {
        fprintf(stderr, "ref-verbs: process %d waited %.0f s for the other's %s (%llu): it "
                "died or the path is broken\n", me, WAIT_LIMIT_S, what, (unsigned long long)v);
        exit(1);
    }
}

/* Posts the 8 bytes v (inline, signalled): an RDMA WRITE into the peer's
 * slot k, or (k < 0) a SEND into its next receive buffer. */
static void post8(int k, uint64_t v)
{
    *src = v;
    struct ibv_sge sge = {.addr = (uintptr_t)src, .length = 8, .lkey = lkey};
    struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1,
                             .opcode = k < 0 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
                             .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE}, *bad;
    if (k >= 0) wr.wr.rdma.remote_addr = peer.addr + 8 * (uint64_t)k, wr.wr.rdma.rkey = peer.rkey;
    while (signalled >= 64) reap();
    int rc = ibv_post_send(qp, &wr, &bad);
    if (rc) die(k < 0 ? "ibv_post_send (SEND)" : "ibv_post_send (RDMA WRITE)", rc);
    signalled++;
}

/* Spins until the peer's v arrived: written into slot k (0, 1), or as
 * its v-th SEND (k 2). */
static void await(int k, uint64_t v)
{
    static const char *const what[] = {"write (exchange)", "write (ping-pong)", "SEND"};
    double t0 = 0;
    for (unsigned spins = 0; (k == 2 ? (uint64_t)arrived : slot[k]) < v; spins++) {
        reap();
        wait_check(spins, &t0, what[k], v);
    }
}

/* k: 0 exchange, 1 write ping-pong, 2 send ping-pong. */
static void run(const char *test, int k)
{
    static uint64_t epoch[3];
    long iters = bench_iters(0), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    char go = 'g';
    if (!bench_selected(test)) return;
    for (int r = -1; r < bench_opts.reps; r++) {
        long n = r < 0 ? warm : iters;
        xfer(&go, &go, 1); /* both start together */
        double t0 = bench_now();
        for (long i = 0; i < n; i++) {
            uint64_t e = ++epoch[k];
            int dst = k == 2 ? -1 : k; /* post8: a SEND, or a write into slot k */
            if (k == 0 || me == 0) post8(dst, e);
            await(k, e);
            if (k != 0 && me == 1) post8(dst, e);
        }
        if (r >= 0) vals[r] = (bench_now() - t0) / (double)(n ? n : 1) * 1e6;
    }
    while (signalled > 0) reap();
    if (me == 0) bench_record(test, 0, "us", vals, bench_opts.reps, iters, 0);
}

/* Takes --dev and --gid-index out of argv (the rest is bench.h's). */
static int own_args(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--dev") || !strcmp(argv[i], "--gid-index")) && i + 1 < argc) {
            if (argv[i][2] == 'd') dev_name = argv[i + 1];
            else {
                char *end;
                long g = strtol(argv[i + 1], &end, 10);
                if (*end || end == argv[i + 1] || g < 0 || g > 255) {
                    fprintf(stderr, "ref-verbs: --gid-index %s is not a GID table index "
                            "(0-255)\n", argv[i + 1]);
                    exit(2);
                }
                gid_index = (int)g;
            }
            i++;
        } else {
            argv[out++] = argv[i];
        }
    }
    return out;
}

int main(int argc, char **argv)
{
    bench_opts.prog = "ref-verbs";
    bench_opts.iters = 1000;
    bench_opts.reps = 3;
    argc = own_args(argc, argv);
    bench_parse_args(argc, argv, "0",
                     "  --dev NAME       RDMA device (default: the first)\n"
                     "  --gid-index N    GID table index (default: the first IPv4 GID, else 0)\n");
    struct ibv_device **list;
    (void)find_device(&list);
    ibv_free_device_list(list);
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) die("socketpair", errno);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) die("fork", errno);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        me = 1, sock = sp[1];
    } else {
        sock = sp[0];
    }
    setup();
    run("verbs_xchg_lat", 0);
    run("verbs_write_rtt", 1);
    run("verbs_send_rtt", 2);
    if (me == 1) _exit(0);
    int st = 0;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "ref-verbs: the second process failed (status 0x%x)\n", st);
        return 1;
    }
    return bench_report(2) ? 1 : 0;
}
