/* bootstrap/bootstrap.c: plugin selection and the services shared by every
 * plugin (exit timeout, job id).  See bootstrap/README. */
#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "other/log/log.h"
#include "other/param/param.h"

const gasneti_bootstrap_ops_t *const gasneti_bootstrap_plugins[] = {
    &gasneti_bootstrap_local,
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
            gasneti_fatalerror("GASNET_IBV_SPAWNER=%s: spawner not available in this build "
                               "(available: %s); unset it or pick one of those",
                               name, gasneti_bootstrap_names(names, sizeof(names)));
        }
        return ops;
    }
    for (size_t i = 0; gasneti_bootstrap_plugins[i]; i++)
        if (gasneti_bootstrap_plugins[i]->detect()) return gasneti_bootstrap_plugins[i];
    /* Started by hand: the local plugin runs as a singleton (rank 0 of 1). */
    return &gasneti_bootstrap_local;
}

double gasneti_bootstrap_exittimeout(uint32_t nranks)
{
    if (gasneti_param_isset(GASNETI_PARAM_GASNET_EXITTIMEOUT))
        return GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT);
    double tmax = GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT_MAX);
    double tmin = GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT_MIN);
    double factor = GASNETI_PARAM_DOUBLE(GASNET_EXITTIMEOUT_FACTOR);
    double t = tmin + factor * (double)nranks;
    return t < tmax ? t : tmax;
}

/* ---- job id --------------------------------------------------------------- */
static char jobid_buf[GASNETI_BOOTSTRAP_JOBID_MAX + 1];

int gasneti_bootstrap_jobid_valid(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > GASNETI_BOOTSTRAP_JOBID_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

void gasneti_bootstrap_set_jobid(const char *id)
{
    if (id) {
        snprintf(jobid_buf, sizeof(jobid_buf), "%s", id);
    } else {
        snprintf(jobid_buf, sizeof(jobid_buf), "%ld-solo", (long)getpid());
    }
}

const char *gasneti_bootstrap_jobid(void)
{
    if (!jobid_buf[0]) gasneti_bootstrap_set_jobid(NULL);
    return jobid_buf;
}

/* ---- host ids ------------------------------------------------------------- */
uint64_t gasneti_bootstrap_hash(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ? seed : 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t gasneti_bootstrap_host_id_for(const char *hostname, uint32_t rank, uint32_t size,
                                       int64_t test_hosts)
{
    uint64_t h = gasneti_bootstrap_hash(hostname, strlen(hostname), 0);
    if (test_hosts > 1 && size > 0) {
        uint64_t hosts = (uint64_t)test_hosts > size ? size : (uint64_t)test_hosts;
        uint64_t index = (uint64_t)rank * hosts / size;
        char tag[32];
        int n = snprintf(tag, sizeof(tag), "#test-host-%llu", (unsigned long long)index);
        h = gasneti_bootstrap_hash(tag, (size_t)n, h);
    }
    return h;
}
