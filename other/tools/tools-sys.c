/* other/tools/tools-sys.c: gasnet_tools.h wall clock, sleep, system queries, process
 * control and backtraces.  Thin wrappers over other/util and other/log. */
#include <gasnet_tools.h>

#include "other/log/log.h"
#include "other/param/param.h"
#include "other/util/sysinfo.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- wall clock and sleep (the tick timers: tools-timer.c) ---------------- */

uint64_t gasnett_gettimeofday_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

int gasnett_nsleep(uint64_t ns_delay)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns_delay / 1000000000u);
    ts.tv_nsec = (long)(ns_delay % 1000000000u);
    return nanosleep(&ts, NULL);
}

int gasnett_sched_yield(void)
{
    return sched_yield();
}

/* ---- system queries ------------------------------------------------------ */

const char *gasnett_gethostname(void)
{
    return gasneti_gethostname();
}

int gasnett_cpu_count(void)
{
    return gasneti_cpu_count();
}

uint64_t gasnett_getPhysMemSz(int failureIsFatal)
{
    uint64_t bytes = gasneti_physmem_bytes();
    if (!bytes && failureIsFatal)
        gasneti_fatalerror("gasnett_getPhysMemSz: cannot determine physical memory size "
                           "(sysconf(_SC_PHYS_PAGES) failed)");
    return bytes;
}

int gasnett_isLittleEndian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

void gasnett_set_affinity(int rank)
{
    int ncpu = gasneti_cpu_count();
    cpu_set_t set;
    if (ncpu <= 0) return;
    CPU_ZERO(&set);
    CPU_SET((unsigned)(rank < 0 ? -rank : rank) % (unsigned)ncpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        gasneti_warning("gasnett_set_affinity(%d): sched_setaffinity failed: %s", rank,
                        strerror(errno));
}

const char *gasnett_release_version_str(void)
{
    return GASNET_RELEASE_VERSION_STR;
}

uint64_t gasnett_release_version(void)
{
    return (uint64_t)GASNET_RELEASE_VERSION_MAJOR * 1000000u +
           (uint64_t)GASNET_RELEASE_VERSION_MINOR * 10000u + GASNET_RELEASE_VERSION_PATCH;
}

const char *gasnett_performance_warning_str(void)
{
    return "";
}

/* ---- process control, errors, backtraces --------------------------------- */

void gasnett_flush_streams(void)
{
    fflush(stdout);
    fflush(stderr);
}

void gasnett_close_streams(void)
{
    gasnett_flush_streams();
    fclose(stdin);
    fclose(stdout);
    fclose(stderr);
}

void gasnett_fatalerror(const char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    gasneti_vfatalerror(msg, ap);
}

void gasnett_killmyprocess(int exitcode)
{
    _exit(exitcode);
}

int gasnett_print_backtrace(int fd)
{
    /* A client mechanism (gasnett_backtrace_user) is tried first. */
    if (gasnett_backtrace_user.fnp && gasnett_backtrace_user.fnp(fd) == 0) return 0;
    gasneti_print_backtrace_fd(fd);
    return 0;
}

static int print_backtrace_ifenabled(int fd)
{
    if (!gasneti_param_bool(GASNETI_PARAM_GASNET_BACKTRACE)) return 1;
    return gasnett_print_backtrace(fd);
}
int (*gasnett_print_backtrace_ifenabled)(int fd) = print_backtrace_ifenabled;

void gasnett_backtrace_init(const char *exename)
{
    (void)exename;
}

void gasnett_freezeForDebuggerErr(void)
{
}

void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname)
{
    if (!flag) {
        flag = &gasnet_frozen;
        flagsymname = "gasnet_frozen";
        gasnet_frozen = 1;
    }
    gasneti_info("process %ld frozen for debugger: attach and set %s = 0 to continue",
                 (long)getpid(), flagsymname ? flagsymname : "the flag");
    while (*flag) sleep(1);
}

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp)
{
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = fp;
    sigemptyset(&act.sa_mask);
    if (sigaction(sigtocatch, &act, &old) != 0) {
        gasneti_warning("gasnett_reghandler(%d): sigaction failed: %s", sigtocatch,
                        strerror(errno));
        return SIG_ERR;
    }
    return old.sa_handler;
}

uint64_t gasnett_checksum(const void *p, int numbytes)
{
    /* FNV-1a, 64-bit. */
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ull;
    int i;
    for (i = 0; i < numbytes; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
