/* core/pshm/shmobj.c: the shared-memory files of PSHM (create, open by a
 * neighbour, close), error reporting, and the status exchange that the
 * collective steps use.  Control path only.
 *
 * A file never has a name: it is made with O_TMPFILE in /dev/shm (so that
 * /dev/shm's size limit and mount options apply as before), or with
 * memfd_create where /dev/shm cannot hold one.  A neighbour opens it
 * through /proc/<owner pid>/fd/<fd> while the owner still holds that
 * descriptor, and checks that what it opened is that file (device and inode
 * number).  The kernel frees the memory with the last descriptor and
 * mapping, so no kill of any process can leave anything behind, and no
 * other user can plant or open anything in the job's way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/pshm/pshm_internal.h"
#include "other/log/log.h"

#define FIX_HINT "enlarge /dev/shm (mount -o remount,size=...) or lower the segment size"
#define SHM_DIR "/dev/shm"
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1u
#endif

void gasnetc_pshm_error(const char *fmt, ...)
{
    char buf[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    gasneti_info("*** ERROR (%s): %s", gasneti_log_identity(), buf);
}

/* An unnamed file: O_TMPFILE in /dev/shm, else (no /dev/shm, not tmpfs,
 * an old kernel, no permission) a memfd.  -1 with *err set (the first
 * failure's errno) and *where naming what failed. */
static int unnamed_file(int *err, const char **where)
{
    int fd = open(SHM_DIR, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    *where = SHM_DIR;
    if (fd >= 0) return fd;
    *err = errno;
    /* Out of something: say so instead of quietly going around /dev/shm's limits. */
    if (*err == ENOSPC || *err == EDQUOT || *err == EMFILE || *err == ENFILE || *err == ENOMEM)
        return -1;
#ifdef SYS_memfd_create
    fd = (int)syscall(SYS_memfd_create, "gasnet-ibv-pshm", MFD_CLOEXEC);
    if (fd >= 0) *where = "memfd";
#endif
    return fd;
}

void *gasnetc_pshm_obj_create(size_t len, const char *what_for, int *fd_out,
                              gasnetc_pshm_handle_t *h, int reserve)
{
    const char *step = "open(" SHM_DIR ", O_TMPFILE) and memfd_create", *where;
    struct stat sb;
    struct statfs fs;
    int err = 0, fd;
    void *p;

    *fd_out = -1;
    fd = unnamed_file(&err, &where);
    if (fd < 0) goto fail;
    step = "ftruncate";
    if (ftruncate(fd, (off_t)len) != 0) goto fail_errno;
    if (reserve) {
        /* Reserve the pages now: on tmpfs a missing page is a SIGBUS at
         * first touch, long after attach.  posix_fallocate returns the
         * error number. */
        step = "posix_fallocate";
        err = posix_fallocate(fd, 0, (off_t)len);
        if (err) goto fail;
    } else if (fstatfs(fd, &fs) == 0 && fs.f_blocks > 0 &&
               (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize < (uint64_t)len) {
        /* Not reserved (the caller reserves what it touches at once): it
         * must at least fit in what is free now.  f_blocks 0: no limit. */
        close(fd);
        gasnetc_pshm_error("PSHM: the %s need %zu bytes of shared memory but %s has %llu "
                           "free; enlarge %s (mount -o remount,size=...) or lower "
                           "GASNET_PSHM_NETWORK_DEPTH",
                           what_for, len, where,
                           (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize,
                           where);
        return NULL;
    }
    step = "fstat";
    if (fstat(fd, &sb) != 0) goto fail_errno;
    step = "mmap";
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) goto fail_errno;
    h->pid = (int32_t)getpid();
    h->fd = fd;
    h->dev = (uint64_t)sb.st_dev;
    h->ino = (uint64_t)sb.st_ino;
    *fd_out = fd;
    return p;

fail_errno:
    err = errno;
fail:
    if (fd >= 0) close(fd);
    gasnetc_pshm_error("PSHM: cannot allocate %zu bytes of shared memory for the %s "
                       "(an unnamed file in %s): %s failed: %s; " FIX_HINT,
                       len, what_for, fd >= 0 ? where : SHM_DIR, step, strerror(err));
    return NULL;
}

#define SAME_HOST_HINT                                                                      \
    "the processes of one host must run as the same user in one PID namespace and be "     \
    "dumpable (not setuid, no file capabilities, no prctl(PR_SET_DUMPABLE, 0)); or set "    \
    "GASNET_SUPERNODE_MAXSIZE=1 to connect them over the network instead"

int gasnetc_pshm_obj_reserve(int fd, size_t off, size_t len, const char *what_for)
{
    int err = posix_fallocate(fd, (off_t)off, (off_t)len);
    if (!err) return 0;
    gasnetc_pshm_error("PSHM: cannot reserve %zu bytes of shared memory for the %s: "
                       "posix_fallocate failed: %s; enlarge /dev/shm (mount -o "
                       "remount,size=...) or lower GASNET_PSHM_NETWORK_DEPTH",
                       len, what_for, strerror(err));
    return -1;
}

void *gasnetc_pshm_obj_open(uint32_t owner, const gasnetc_pshm_handle_t *h, size_t len,
                            const char *what_for)
{
    char path[64];
    struct stat sb;
    int err, fd;
    void *p;

    snprintf(path, sizeof(path), "/proc/%ld/fd/%ld", (long)h->pid, (long)h->fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        gasnetc_pshm_error("PSHM: cannot open rank %u's %s through %s: %s; " SAME_HOST_HINT,
                           (unsigned)owner, what_for, path, strerror(err));
        return NULL;
    }
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_dev != h->dev || (uint64_t)sb.st_ino != h->ino) {
        close(fd);
        gasnetc_pshm_error("PSHM: %s is not rank %u's %s (another file: is that rank in "
                           "another PID namespace?); " SAME_HOST_HINT,
                           path, (unsigned)owner, what_for);
        return NULL;
    }
    if ((uint64_t)sb.st_size < (uint64_t)len) {
        close(fd);
        gasnetc_pshm_error("PSHM: rank %u's %s holds %lld bytes, expected %zu",
                           (unsigned)owner, what_for, (long long)sb.st_size, len);
        return NULL;
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (p == MAP_FAILED) {
        gasnetc_pshm_error("PSHM: mmap of %zu bytes of rank %u's %s failed: %s; raise the "
                           "address-space limit (ulimit -v) or lower the segment size",
                           len, (unsigned)owner, what_for, strerror(err));
        return NULL;
    }
    return p;
}

void gasnetc_pshm_obj_close(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
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
