/* core/pshm/shmobj.c: POSIX shared-memory objects for PSHM (create, open,
 * unlink), their names, error reporting, and the status exchange that the
 * collective steps use.  Control path only.
 *
 * Every name starts with GASNETI_PSHM_PREFIX<jobid>- so that the launcher's
 * sweep of /dev/shm/gasnet-ibv-<jobid>* finds anything a killed process
 * left between create and unlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/pshm/pshm_internal.h"
#include "other/log/log.h"

#define FIX_HINT "enlarge /dev/shm (mount -o remount,size=...) or lower the segment size"

void gasnetc_pshm_error(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    gasneti_info("*** ERROR (%s): %s", gasneti_log_identity(), buf);
}

void gasnetc_pshm_obj_name(char *buf, size_t len, const char *what, uint32_t rank)
{
    snprintf(buf, len, "%s%s-%s%u", GASNETI_PSHM_PREFIX, gasnetc_pshm_state.jobid, what,
             (unsigned)rank);
}

void *gasnetc_pshm_obj_create(const char *name, size_t len, const char *what_for)
{
    const char *step;
    int err, fd;
    void *p;

    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        err = errno;
        gasnetc_pshm_error("PSHM: shm_open(%s) for the %s failed: %s%s", name, what_for,
                           strerror(err),
                           err == EEXIST ? " (a stale job with the same GASNETRUN_JOBID? "
                                           "remove /dev/shm/gasnet-ibv-*)"
                                         : "; check that /dev/shm is mounted and writable");
        return NULL;
    }
    step = "ftruncate";
    if (ftruncate(fd, (off_t)len) != 0) goto fail_errno;
    /* Reserve the pages now: on tmpfs a missing page is a SIGBUS at first
     * touch, long after attach.  posix_fallocate returns the error number. */
    step = "posix_fallocate";
    err = posix_fallocate(fd, 0, (off_t)len);
    if (err) goto fail;
    step = "mmap";
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) goto fail_errno;
    close(fd);
    return p;

fail_errno:
    err = errno;
fail:
    close(fd);
    shm_unlink(name);
    gasnetc_pshm_error("PSHM: cannot allocate %zu bytes of shared memory for the %s (%s): "
                       "%s failed: %s; " FIX_HINT,
                       len, what_for, name, step, strerror(err));
    return NULL;
}

void *gasnetc_pshm_obj_open(const char *name, size_t len, const char *what_for)
{
    struct stat sb;
    int err, fd;
    void *p;

    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        err = errno;
        gasnetc_pshm_error("PSHM: shm_open(%s) for a neighbour's %s failed: %s; the neighbour "
                           "may have died, or /dev/shm is not shared between them",
                           name, what_for, strerror(err));
        return NULL;
    }
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < (uint64_t)len) {
        close(fd);
        gasnetc_pshm_error("PSHM: %s holds %lld bytes, expected %zu for the %s; the objects of "
                           "two jobs collide (GASNETRUN_JOBID reused?)",
                           name, (long long)sb.st_size, len, what_for);
        return NULL;
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (p == MAP_FAILED) {
        gasnetc_pshm_error("PSHM: mmap of %zu bytes of %s (a neighbour's %s) failed: %s; "
                           "raise the address-space limit (ulimit -v) or lower the segment size",
                           len, name, what_for, strerror(err));
        return NULL;
    }
    return p;
}

void *gasnetc_pshm_obj_anon(size_t len, const char *what_for)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        gasnetc_pshm_error("PSHM: mmap of %zu anonymous bytes for the %s failed: %s; lower the "
                           "segment size or raise the memory limits",
                           len, what_for, strerror(err));
        return NULL;
    }
    return p;
}

void gasnetc_pshm_obj_retire(void *p, size_t len)
{
    void *q;
    if (!p || !len) return;
    q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
             -1, 0);
    if (q == MAP_FAILED) munmap(p, len);
}

void gasnetc_pshm_obj_unlink(const char *name)
{
    if (shm_unlink(name) != 0 && errno != ENOENT) {
        int err = errno;
        gasnetc_pshm_error("PSHM: shm_unlink(%s) failed: %s; remove it by hand", name,
                           strerror(err));
    }
}

int gasnetc_pshm_all_ok(int my_status)
{
    const gasnetc_pshm_state_t *st = &gasnetc_pshm_state;
    int32_t mine = my_status ? 1 : 0;
    int32_t *all = calloc(st->size, sizeof(*all));
    int ok = 1;

    if (!all) gasneti_fatalerror("PSHM: out of memory for a %u-rank status exchange", st->size);
    st->boot->exchange(&mine, sizeof(mine), all);
    for (uint32_t r = 0; r < st->size; r++)
        if (all[r]) ok = 0;
    free(all);
    return ok;
}
