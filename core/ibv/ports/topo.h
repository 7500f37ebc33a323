/* core/ibv/ports/topo.h: where this process runs and which HCAs are near it, for
 * GASNET_IBV_PORTS_<n> and the nearest-HCA preference.  Uses hwloc when the
 * build found it (HAVE_HWLOC); without hwloc every answer is "unknown".
 * No verbs here: HCAs are named by their sysfs directory.
 *
 * Thread safety: call from the single-threaded init path only (the topology
 * is loaded lazily and kept until gasnetc_ibv_topo_fini).  Not for handlers.
 */
#ifndef GASNETC_IBV_TOPO_H
#define GASNETC_IBV_TOPO_H

/* Logical index of the socket (hwloc package) the process is bound to, when
 * its CPU binding lies within exactly one socket; -1 when unbound, bound
 * across sockets, or unknown (no hwloc, query failed). */
int gasnetc_ibv_topo_socket(void);

/* Locality of the HCA whose sysfs directory is ibdev_path (e.g.
 * "/sys/class/infiniband/mlx5_0") relative to the process's binding:
 * 1 = its CPUs contain the binding, 0 = they do not, -1 = unknown (process
 * unbound, a virtual HCA such as rxe, or no hwloc). */
int gasnetc_ibv_topo_near(const char *ibdev_path);

/* Releases the topology, if one was loaded. */
void gasnetc_ibv_topo_fini(void);

#endif /* GASNETC_IBV_TOPO_H */
