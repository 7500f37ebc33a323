/* other/log/log.c: one-line messages with rank and host (see log.h).
 *
 * Every message is formatted into a stack buffer and written with a single
 * write(2), so lines of different processes sharing a terminal or pipe never
 * interleave.  No locks and no heap: the functions work in AM handlers, and
 * the fatal path works from signal handlers once the identity is set.
 */
#include "other/log/log.h"
#include "other/param/param.h"

#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define GASNETI_LOG_LINE_MAX 4096

static char gasneti_log_ident[160];
static int gasneti_log_have_ident;
static void (*gasneti_log_fatal_hook)(int code) GASNETI_NORETURN;
/* Set by the first thread that enters the fatal path. */
static int gasneti_log_in_fatal;
static __thread int gasneti_log_my_fatal;

void gasneti_log_set_identity(uint32_t rank, const char *host)
{
    snprintf(gasneti_log_ident, sizeof gasneti_log_ident, "rank %u on %s", (unsigned)rank,
             (host && host[0]) ? host : "unknown host");
    __atomic_store_n(&gasneti_log_have_ident, 1, __ATOMIC_RELEASE);
}

const char *gasneti_log_identity(void)
{
    static __thread char pidbuf[32];
    if (__atomic_load_n(&gasneti_log_have_ident, __ATOMIC_ACQUIRE)) return gasneti_log_ident;
    snprintf(pidbuf, sizeof pidbuf, "pid %ld", (long)getpid());
    return pidbuf;
}

void gasneti_log_set_fatal_hook(void (*hook)(int code) GASNETI_NORETURN)
{
    gasneti_log_fatal_hook = hook;
}

/* Writes all of buf to fd, retrying on EINTR and short writes. */
static void write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* Formats "<prefix><message>\n" and writes it in one call.  A message too
 * long for the buffer is cut and ends in "...". */
static void emit_line(const char *prefix, const char *fmt, va_list ap)
{
    char line[GASNETI_LOG_LINE_MAX];
    int saved_errno = errno;
    size_t len = (size_t)snprintf(line, sizeof line, "%s", prefix);
    int n;
    if (len >= sizeof line) len = sizeof line - 1;
    n = vsnprintf(line + len, sizeof line - len, fmt, ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof line - len - 1) {
        len = sizeof line - 5;
        memcpy(line + len, "...", 3);
        len += 3;
    } else {
        len += (size_t)n;
    }
    while (len > 0 && line[len - 1] == '\n') len--; /* exactly one newline */
    line[len++] = '\n';
    write_all(STDERR_FILENO, line, len);
    errno = saved_errno;
}

static int log_quiet(void)
{
    return gasneti_param_bool(GASNETI_PARAM_GASNET_QUIET);
}

void gasneti_warning(const char *fmt, ...)
{
    char prefix[200];
    va_list ap;
    if (log_quiet()) return;
    snprintf(prefix, sizeof prefix, "*** WARNING (%s): ", gasneti_log_identity());
    va_start(ap, fmt);
    emit_line(prefix, fmt, ap);
    va_end(ap);
}

void gasneti_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_line("gasnet: ", fmt, ap);
    va_end(ap);
}

void gasneti_print_backtrace_fd(int fd)
{
    void *frames[64];
    char head[200];
    int n = backtrace(frames, (int)(sizeof frames / sizeof frames[0]));
    int len = snprintf(head, sizeof head, "*** Backtrace (%s), %d frames:\n",
                       gasneti_log_identity(), n);
    if (len > 0) write_all(fd, head, (size_t)len < sizeof head ? (size_t)len : sizeof head - 1);
    backtrace_symbols_fd(frames, n, fd);
}

void gasneti_print_backtrace(void)
{
    gasneti_print_backtrace_fd(STDERR_FILENO);
}

void gasneti_vfatalerror(const char *fmt, va_list ap)
{
    char prefix[200];
    if (gasneti_log_my_fatal) {
        /* A fatal error while reporting one (e.g. inside the hook): stop now. */
        static const char msg[] = "*** FATAL ERROR: recursive fatal error, exiting\n";
        write_all(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(1);
    }
    gasneti_log_my_fatal = 1;
    if (__atomic_exchange_n(&gasneti_log_in_fatal, 1, __ATOMIC_ACQ_REL)) {
        /* Another thread is already bringing the process down: let it. */
        for (;;) pause();
    }
    fflush(stdout);
    snprintf(prefix, sizeof prefix, "*** FATAL ERROR (%s): ", gasneti_log_identity());
    emit_line(prefix, fmt, ap);
    if (gasneti_param_bool(GASNETI_PARAM_GASNET_BACKTRACE)) gasneti_print_backtrace();
    if (gasneti_log_fatal_hook) gasneti_log_fatal_hook(1);
    _exit(1);
}

void gasneti_fatalerror(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gasneti_vfatalerror(fmt, ap);
    /* not reached: gasneti_vfatalerror never returns */
}
