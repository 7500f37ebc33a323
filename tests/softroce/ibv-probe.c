/* tests/softroce/ibv-probe.c: runs the conduit's HCA/port discovery and
 * selection (gasnetc_ibv_ports_open) with the GASNET_* parameters of the
 * environment, as rank R of a job of N processes, and prints the selection.
 * It exercises exactly the code gex_Client_Init uses, without a job: the
 * Soft-RoCE driver (run-verbs-tests) and people with real HCAs use it to see
 * what the conduit would pick.
 *
 *   ibv-probe [-r RANK] [-n SIZE] [-N] [-e COUNT]
 *     -r RANK   rank to act as (GASNET_IBV_LIST_PORTS_NODES, messages); default 0
 *     -n SIZE   job size for messages; default 1
 *     -N        the job needs the network (as with peers on other hosts, or
 *               GASNET_SUPERNODE_MAXSIZE=1): no usable port is a fatal error
 *     -e COUNT  exit 3 unless exactly COUNT ports are selected
 *
 * Output (stdout): one "ibv-probe: ..." summary line, then one line per
 * rail: "ibv-probe: rail I: HCA port P LINK gid_index G gid GID TYPE mtu M
 * pkey_index K lid L".  Listings and warnings go to stderr as in a job.
 * Exit: 0, 1 on a fatal error (printed by the library), 2 on bad usage,
 * 3 on a -e mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "core/ibv/ibv.h"
#include "other/log/log.h"
#include "other/param/param.h"

static void usage(void)
{
    fprintf(stderr, "usage: ibv-probe [-r RANK] [-n SIZE] [-N] [-e COUNT]\n");
    exit(2);
}

static unsigned long number(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end) usage();
    return v;
}

int main(int argc, char **argv)
{
    unsigned long rank = 0, size = 1;
    long expect = -1;
    int need = 0, opt, n = 0, i;
    gasnetc_ibv_port_t *ports = NULL;
    char host[64] = "?";

    while ((opt = getopt(argc, argv, "r:n:Ne:h")) != -1) {
        switch (opt) {
        case 'r': rank = number(optarg); break;
        case 'n': size = number(optarg); break;
        case 'N': need = 1; break;
        case 'e': expect = (long)number(optarg); break;
        default: usage();
        }
    }
    if (optind != argc || rank >= size) usage();

    gethostname(host, sizeof(host) - 1);
    gasneti_log_set_identity((uint32_t)rank, host);
    if (gasneti_params_load() != 0) gasneti_fatalerror("%s", gasneti_params_error());
    if (rank == 0) gasneti_params_report();

    gasnetc_ibv_ports_open((uint32_t)rank, (uint32_t)size, need, &ports, &n);
    printf("ibv-probe: rank %lu of %lu: %d port(s) selected on %d HCA(s), %d QP(s) per peer, "
           "build allows %d HCA(s) per process\n", rank, size, n, gasnetc_ibv_num_hcas(),
           gasnetc_ibv_qps_per_peer(), GASNETC_IBV_MAX_HCAS);
    if (n == 0) printf("ibv-probe: no port selected: shared memory (PSHM) only\n");
    for (i = 0; i < n; i++) {
        const gasnetc_ibv_port_t *p = &ports[i];
        char gid[64];
        gasnetc_ibv_gid_format(p->gid, gid, sizeof(gid));
        printf("ibv-probe: rail %d: %s port %d %s gid_index %d gid %s %s mtu %d pkey_index %u "
               "pkey 0x%04x lid %u\n", i, p->hca->name, p->port_num,
               p->link_layer == GASNETC_IBV_LINK_ETH ? "Ethernet" : "InfiniBand", p->gid_index, gid,
               gasnetc_ibv_gid_type_name(p->gid_type), gasnetc_ibv_mtu_bytes(p->mtu),
               (unsigned)p->pkey_index, (unsigned)p->pkey, (unsigned)p->lid);
    }
    for (i = 0; i < gasnetc_ibv_qps_per_peer(); i++)
        printf("ibv-probe: qp %d -> rail %d\n", i, gasnetc_ibv_qp_port(i));
    fflush(stdout);
    gasnetc_ibv_ports_close(ports, n);
    if (expect >= 0 && n != expect) {
        fprintf(stderr, "ibv-probe: expected %ld selected port(s), got %d\n", expect, n);
        return 3;
    }
    return 0;
}
