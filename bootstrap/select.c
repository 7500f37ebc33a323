/* bootstrap/select.c: the plugins built into this library and the choice
 * among them (bootstrap.h).  See bootstrap/README, "Selection".
 *
 * The mpi plugin lives in its own library (libgasnet-ibv-mpi-spawner.a,
 * compiled with mpicc) so that this library never depends on MPI: it is
 * referenced weakly and is present only in programs linked with that
 * library (and -Wl,-u,gasneti_bootstrap_mpi).  The pmi plugin is compiled in
 * when configure found libpmix. */
#include "build-config.h"

#include "bootstrap/bootstrap.h"

#include <stdio.h>
#include <string.h>

#include "other/log/log.h"
#include "other/param/param.h"

#pragma weak gasneti_bootstrap_mpi

/* Detection order: the launcher's own channel first (its variables are the
 * most specific), then PMIx, then MPI.  mpi stays last: when its library is
 * not linked the weak reference is NULL and ends the list early. */
const gasneti_bootstrap_ops_t *const gasneti_bootstrap_plugins[] = {
    &gasneti_bootstrap_local,
    &gasneti_bootstrap_ssh,
#ifdef GASNETI_HAVE_PMIX
    &gasneti_bootstrap_pmi,
#endif
    &gasneti_bootstrap_mpi,
    NULL,
};

const gasneti_bootstrap_ops_t *gasneti_bootstrap_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; gasneti_bootstrap_plugins[i]; i++)
        if (!strcmp(gasneti_bootstrap_plugins[i]->name, name)) return gasneti_bootstrap_plugins[i];
    return NULL;
}

char *gasneti_bootstrap_names(char *buf, size_t len)
{
    size_t used = 0;
    if (!len) return buf;
    buf[0] = '\0';
    for (size_t i = 0; gasneti_bootstrap_plugins[i] && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                         gasneti_bootstrap_plugins[i]->name);
        if (n < 0) break;
        used += (size_t)n;
    }
    return buf;
}

const gasneti_bootstrap_ops_t *gasneti_bootstrap_select(void)
{
    if (gasneti_param_isset(GASNETI_PARAM_GASNET_IBV_SPAWNER)) {
        const char *name = GASNETI_PARAM_STR(GASNET_IBV_SPAWNER);
        const gasneti_bootstrap_ops_t *ops = gasneti_bootstrap_find(name);
        if (!ops) {
            char names[128];
            gasneti_bootstrap_names(names, sizeof(names));
            if (!strcmp(name, "mpi"))
                gasneti_fatalerror("GASNET_IBV_SPAWNER=mpi: this program was not linked with the "
                                   "mpi spawner (available: %s); link it with mpicc and "
                                   "-Wl,-u,gasneti_bootstrap_mpi -lgasnet-ibv-mpi-spawner, or "
                                   "pick one of those",
                                   names);
            gasneti_fatalerror("GASNET_IBV_SPAWNER=%s: spawner not available in this build "
                               "(available: %s); unset it or pick one of those",
                               name, names);
        }
        return ops;
    }
    for (size_t i = 0; gasneti_bootstrap_plugins[i]; i++)
        if (gasneti_bootstrap_plugins[i]->detect()) return gasneti_bootstrap_plugins[i];
    /* Started by hand: the local plugin runs as a singleton (rank 0 of 1). */
    return &gasneti_bootstrap_local;
}
