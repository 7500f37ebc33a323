/* other/log/log.h: errors, warnings and fatal errors with rank and host.
 *
 * Messages are one line each, written with a single write(2) so that lines
 * of different processes never interleave.  The function that detects an
 * error reports it; callers propagate quietly.
 * All functions are safe to call from AM handlers; gasneti_fatalerror is
 * also safe from signal handlers once the identity is set.
 */
#ifndef GASNETI_LOG_H
#define GASNETI_LOG_H

#include <stdarg.h>
#include <stdint.h>

#define GASNETI_FMT(a, b) __attribute__((__format__(__printf__, a, b)))
#define GASNETI_NORETURN __attribute__((__noreturn__))

/* Records who we are for message prefixes ("rank 3 on host node12").
 * Before this is called, messages carry the pid instead. */
void gasneti_log_set_identity(uint32_t rank, const char *host);

/* "*** FATAL ERROR (rank R on HOST): <msg>"; prints a backtrace when
 * GASNET_BACKTRACE=1, then calls the fatal hook (which brings the whole job
 * down) or, without one, _exit(1).  Never returns. */
void gasneti_fatalerror(const char *fmt, ...) GASNETI_FMT(1, 2) GASNETI_NORETURN;
void gasneti_vfatalerror(const char *fmt, va_list ap) GASNETI_NORETURN;

/* "*** WARNING (rank R on HOST): <msg>"; suppressed by GASNET_QUIET=1. */
void gasneti_warning(const char *fmt, ...) GASNETI_FMT(1, 2);

/* A plain line on stderr, prefixed only by "gasnet: " (for informational
 * output such as GASNET_VERBOSEENV and GASNET_IBV_LIST_PORTS). */
void gasneti_info(const char *fmt, ...) GASNETI_FMT(1, 2);

/* The core registers the function that ends the job after a fatal error
 * (tell the launcher, remove shared memory, exit with `code`). */
void gasneti_log_set_fatal_hook(void (*hook)(int code) GASNETI_NORETURN);

/* Prints a backtrace of the calling thread to stderr (signal-safe enough for
 * fatal paths: uses backtrace_symbols_fd). */
void gasneti_print_backtrace(void);
/* Same, to file descriptor fd (gasnett_print_backtrace). */
void gasneti_print_backtrace_fd(int fd);

/* Returns "rank R on HOST" (or "pid P") for use in other messages. */
const char *gasneti_log_identity(void);

#endif /* GASNETI_LOG_H */
