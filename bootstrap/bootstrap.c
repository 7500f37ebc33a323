/* bootstrap/bootstrap.c: the services shared by every plugin and by the
 * launcher (exit timeout, job id, host ids).  Plugin selection is in
 * select.c, so that the launcher, which links this file, does not pull in
 * the plugins (and their libraries).  See bootstrap/README. */
#include "bootstrap/bootstrap.h"
#include "bootstrap/bootstrap_private.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "other/log/log.h"
#include "other/param/param.h"

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

void gasneti_bootstrap_new_jobid(char *buf, size_t len)
{
    uint32_t rnd = 0;
    if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rnd = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^ (uint32_t)getpid();
    }
    snprintf(buf, len, "%ld-%08x", (long)getpid(), (unsigned)rnd);
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

uint64_t gasneti_bootstrap_host_id_here(const char *hostname, uint32_t rank, uint32_t size)
{
    char host[256];
    if (!hostname || !*hostname) {
        if (gethostname(host, sizeof(host)) != 0) strcpy(host, "localhost");
        host[sizeof(host) - 1] = '\0';
        hostname = host;
    }
    return gasneti_bootstrap_host_id_for(hostname, rank, size, GASNETI_PARAM_INT(GASNET_TEST_HOSTS));
}
