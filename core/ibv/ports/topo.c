/* core/ibv/ports/topo.c: process binding and HCA locality through hwloc (see
 * topo.h).  A process whose affinity mask covers every online CPU is
 * "unbound" and never loads the topology, so the common case costs one
 * sched_getaffinity() call.
 */
#include "build-config.h"
#include "core/ibv/ports/topo.h"

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#if defined(HAVE_HWLOC)
#include <hwloc.h>
#include <hwloc/linux.h>

static hwloc_topology_t topo;
static hwloc_bitmap_t binding; /* NULL until computed, or when unbound */
static int state;              /* 0 not probed, 1 bound (topo+binding valid), -1 unbound/unknown */

/* 1 if the affinity mask covers every online CPU (cheap pre-check). */
static int affinity_is_everything(void)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return online > 0 && CPU_COUNT(&set) >= online;
}

static int probe(void)
{
    if (state) return state;
    state = -1;
    if (affinity_is_everything()) return state;
    if (hwloc_topology_init(&topo) != 0) return state;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        topo = NULL;
        return state;
    }
    binding = hwloc_bitmap_alloc();
    if (!binding || hwloc_get_cpubind(topo, binding, HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(binding) ||
        hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), binding)) {
        gasnetc_ibv_topo_fini();
        state = -1;
        return state;
    }
    state = 1;
    return state;
}

int gasnetc_ibv_topo_socket(void)
{
    int i, n;
    if (probe() != 1) return -1;
    n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    for (i = 0; i < n; i++) {
        hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)i);
        if (pkg && pkg->cpuset && hwloc_bitmap_isincluded(binding, pkg->cpuset))
            return (int)pkg->logical_index;
    }
    return -1;
}

int gasnetc_ibv_topo_near(const char *ibdev_path)
{
    char path[512];
    hwloc_bitmap_t hca;
    int near = -1;
    if (!ibdev_path || probe() != 1) return -1;
    if (snprintf(path, sizeof(path), "%s/device/local_cpus", ibdev_path) >= (int)sizeof(path))
        return -1;
    if (!(hca = hwloc_bitmap_alloc())) return -1;
    if (hwloc_linux_read_path_as_cpumask(path, hca) == 0 && !hwloc_bitmap_iszero(hca)) {
        /* An HCA attached to "all CPUs" tells us nothing. */
        if (!hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), hca))
            near = hwloc_bitmap_isincluded(binding, hca) ? 1 : 0;
    }
    hwloc_bitmap_free(hca);
    return near;
}

void gasnetc_ibv_topo_fini(void)
{
    if (binding) hwloc_bitmap_free(binding);
    binding = NULL;
    if (topo) {
        hwloc_topology_destroy(topo);
        topo = NULL;
    }
    state = 0;
}

#else /* !HAVE_HWLOC */

int gasnetc_ibv_topo_socket(void)
{
    return -1;
}

int gasnetc_ibv_topo_near(const char *ibdev_path)
{
    (void)ibdev_path;
    return -1;
}

void gasnetc_ibv_topo_fini(void)
{
}

#endif
