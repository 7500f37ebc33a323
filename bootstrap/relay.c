/* bootstrap/relay.c: the exit relay of the mpi and pmi plugins.
 *
 * mpirun ends a job when a process exits non-zero, but nothing tells the
 * other processes when one calls gasnet_exit(0) alone (a PMIx event could,
 * but Open MPI 4.1's server deadlocks when a client raises one).  So
 * gasnetrun_ibv -spawner=mpi|pmi listens on a TCP port and passes
 * GASNETRUN_EXIT_ADDR=<host>:<port> and GASNETRUN_EXIT_KEY=<32 hex digits>
 * to the ranks.  Each rank connects at init, sends HELLO(rank, key), and
 * from then on uses the local plugin's channel (bootstrap/local/channel.c)
 * for its exit only: notify_exit sends EXIT(code), which the launcher
 * relays to every other rank, whose channel runs exit_cb(code) and arms the
 * watchdog (GASNET_EXITTIMEOUT); abort sends ABORT.  Collectives stay with
 * MPI / PMIx.  Without those variables (a direct `mpirun prog`) there is no
 * relay and nothing changes.  Design: bootstrap/README, "Exit relay".
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"
#include "bootstrap/local/channel.h"
#include "bootstrap/local/proto.h"
#include "other/log/log.h"
#include "other/param/param.h"

/* How long a rank tries to reach the relay. */
#define RELAY_CONNECT_TIMEOUT 10.0

static int relay_on;

/* A connected socket to host:port within the timeout, or -1. */
static int dial(const char *host, const char *port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) continue;
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int err = 0;
            socklen_t el = sizeof(err);
            rc = poll(&p, 1, (int)(RELAY_CONNECT_TIMEOUT * 1000)) == 1 &&
                         getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0
                     ? 0 : -1;
        }
        if (rc != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int gasneti_bootstrap_relay_start(const char *plugin, uint32_t rank,
                                  gasneti_bootstrap_exit_cb_t exit_cb, uint32_t nranks)
{
    if (!gasneti_param_isset(GASNETI_PARAM_GASNETRUN_EXIT_ADDR)) return 0;
    const char *addr = GASNETI_PARAM_STR(GASNETRUN_EXIT_ADDR);
    const char *key = GASNETI_PARAM_STR(GASNETRUN_EXIT_KEY);
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || !colon[1] || strlen(key) != 32) {
        fprintf(stderr, "*** WARNING (%s): bootstrap %s: GASNETRUN_EXIT_ADDR='%s' / "
                        "GASNETRUN_EXIT_KEY are not what gasnetrun_ibv sets; no exit relay\n",
                gasneti_log_identity(), plugin, addr);
        return 0;
    }
    char host[256];
    snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
    int fd = dial(host, colon + 1);
    if (fd < 0) fd = dial("127.0.0.1", colon + 1); /* a host name only this host cannot resolve */
    if (fd < 0) {
        fprintf(stderr, "*** WARNING (%s): bootstrap %s: cannot reach gasnetrun_ibv's exit relay "
                        "at %s; a gasnet_exit by another rank will reach this one only through "
                        "the network\n",
                gasneti_log_identity(), plugin, addr);
        return 0;
    }
    unsigned char hello[4 + 32];
    gasneti_bsp_put32(hello, rank);
    memcpy(hello + 4, key, 32);
    if (gasneti_bsp_send(fd, GASNETI_BSP_HELLO, hello, sizeof(hello), NULL, 0) != 0 ||
        gasneti_bsl_chan_start(fd, rank, exit_cb, gasneti_bootstrap_exittimeout(nranks),
                               GASNETI_PARAM_DOUBLE(GASNET_BOOTSTRAP_TIMEOUT)) != 0) {
        close(fd);
        return -1;
    }
    relay_on = 1;
    return 0;
}

void gasneti_bootstrap_relay_exit(int code)
{
    if (relay_on) gasneti_bsl_chan_notify_exit(code);
}

void gasneti_bootstrap_relay_abort(int code)
{
    if (relay_on) gasneti_bsl_chan_abort(code);
    _exit(code);
}

void gasneti_bootstrap_relay_stop(void)
{
    if (relay_on) gasneti_bsl_chan_stop();
    relay_on = 0;
}
