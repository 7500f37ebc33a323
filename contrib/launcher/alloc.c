/* contrib/launcher/alloc.c: what gasnetrun_ibv knows of the machine it runs
 * on: whether it runs inside a batch allocation or was given a host list
 * (which decides the default spawner, bootstrap/README "Which spawner"),
 * and the host list itself (the ssh spawner's hosts; -t of mpi/pmi).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contrib/launcher/launcher.h"
#include "contrib/launcher/setup.h"
#include "other/param/param.h"

/* Variables a batch system sets inside an allocation, and host lists. */
static const char *const alloc_vars[] = {
    "SLURM_JOB_ID", "SLURM_JOBID", "PBS_JOBID", "PBS_NODEFILE", "LSB_JOBID", "LSB_HOSTS",
    "PE_HOSTFILE", "COBALT_JOBID", "FLUX_JOB_ID", "OAR_JOB_ID", NULL,
};

const char *gasnetrun_allocation(void)
{
    static const struct {
        gasneti_param_id_t id;
        const char *name;
    } ours[] = {{GASNETI_PARAM_GASNET_SSH_NODEFILE, "GASNET_SSH_NODEFILE"},
                {GASNETI_PARAM_GASNET_NODEFILE, "GASNET_NODEFILE"},
                {GASNETI_PARAM_GASNET_SSH_SERVERS, "GASNET_SSH_SERVERS"}};
    for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
        if (gasneti_param_isset(ours[i].id)) return ours[i].name;
    for (size_t i = 0; alloc_vars[i]; i++) {
        const char *v = gasneti_getenv_raw(alloc_vars[i]);
        if (v && *v) return alloc_vars[i];
    }
    return NULL;
}

/* Drops every host that is not a host name, saying why; returns the count
 * left, or 0 (all freed) when one was bad. */
static uint32_t checked(char **hosts, uint32_t n, const char *from)
{
    char err[512];
    for (uint32_t i = 0; i < n; i++) {
        if (gasnetrun_host_check(hosts[i], err, sizeof(err)) == 0) continue;
        gasnetrun_say("%s: %s; fix the host list", from, err);
        for (uint32_t k = 0; k < n; k++) free(hosts[k]);
        return 0;
    }
    return n;
}

char **gasnetrun_job_hosts(uint32_t *n, const char **from, int quiet)
{
    char **hosts = NULL;
    char err[512] = "";
    *n = 0;
    static const struct {
        gasneti_param_id_t id;
        const char *name;
    } files[] = {{GASNETI_PARAM_GASNET_SSH_NODEFILE, "GASNET_SSH_NODEFILE"},
                 {GASNETI_PARAM_GASNET_NODEFILE, "GASNET_NODEFILE"}};
    const char *src = NULL;
    int rc = 0;
    for (size_t i = 0; i < 2 && !src; i++) {
        if (!gasneti_param_isset(files[i].id)) continue;
        src = files[i].name;
        rc = gasnetrun_hosts_read(gasneti_param_str(files[i].id), &hosts, n, err, sizeof(err));
    }
    if (!src && gasneti_param_isset(GASNETI_PARAM_GASNET_SSH_SERVERS)) {
        src = "GASNET_SSH_SERVERS";
        rc = gasnetrun_hosts_parse(GASNETI_PARAM_STR(GASNET_SSH_SERVERS), &hosts, n, err,
                                   sizeof(err));
    }
    /* The batch systems' lists, as GASNet's ssh spawner reads them. */
    static const char *const files2[] = {"PBS_NODEFILE", "PE_HOSTFILE", NULL};
    for (size_t i = 0; !src && files2[i]; i++) {
        const char *v = gasneti_getenv_raw(files2[i]);
        if (!v || !*v) continue;
        src = files2[i];
        rc = gasnetrun_hosts_read(v, &hosts, n, err, sizeof(err));
    }
    const char *v;
    if (!src && (v = gasneti_getenv_raw("LSB_HOSTS")) && *v) {
        src = "LSB_HOSTS";
        rc = gasnetrun_hosts_parse(v, &hosts, n, err, sizeof(err));
    }
    if (!src && (v = gasneti_getenv_raw("SLURM_JOB_NODELIST")) && *v) {
        src = "SLURM_JOB_NODELIST";
        rc = gasnetrun_hosts_slurm(v, &hosts, n, err, sizeof(err));
    }
    if (!src) {
        if (!quiet)
            gasnetrun_say("the ssh spawner needs a host list: set GASNET_SSH_SERVERS=\"host1 host2 "
                          "...\" or GASNET_SSH_NODEFILE=<file with one host per line>");
        return NULL;
    }
    *from = src;
    if (rc != 0) {
        if (!quiet) gasnetrun_say("%s: %s", src, err);
        gasnetrun_hosts_free(hosts, *n);
        *n = 0;
        return NULL;
    }
    if (*n && !checked(hosts, *n, src)) {
        *n = 0;
        free(hosts);
        return NULL;
    }
    if (!*n) {
        if (!quiet) gasnetrun_say("%s names no host", src);
        free(hosts);
        return NULL;
    }
    return hosts;
}

void gasnetrun_hosts_free(char **hosts, uint32_t n)
{
    for (uint32_t i = 0; hosts && i < n; i++) free(hosts[i]);
    free(hosts);
}
