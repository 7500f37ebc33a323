/* gasnet_tools_sys.h: environment queries, system queries, process control,
 * backtraces and zero-byte counts.
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_SYS_H
#define GASNET_TOOLS_SYS_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_sys.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif

GASNETT_BEGIN_EXTERNC

/* ---- environment --------------------------------------------------------- */
/* Raw lookup (NULL when unset); never reported. */
extern char *gasnett_getenv(const char *keyname);
/* The value, or defaultval when unset; reported under GASNET_VERBOSEENV. */
extern char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
/* 1/0 for yes/no values (1/0, y/n, yes/no, true/false, on/off); defaultval
 * when unset; a fatal error for anything else. */
extern int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
/* An integer, or with mem_size_multiplier != 0 a size with optional
 * K/M/G/T suffix whose bare unit is mem_size_multiplier bytes. */
extern int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                              uint64_t mem_size_multiplier);
/* A floating-point value or fraction ("1.5", "3/8"). */
extern double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
/* Whether GASNET_VERBOSEENV reporting is on. */
extern int gasnett_verboseenv(void);
extern void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
extern void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
extern void gasnett_envdbl_display(const char *key, double val, int is_dflt);
/* Parses an integer (mem_size_multiplier == 0) or a size; fatal on error. */
extern int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
/* Formats val into buf ("64 KB" style when is_mem_size); returns buf. */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);


/* ---- system queries and process control ---------------------------------- */
extern const char *gasnett_gethostname(void);
/* Online CPUs of this host (0 if unknown). */
extern int gasnett_cpu_count(void);
/* Physical memory in bytes; 0 or a fatal error (failureIsFatal) if unknown. */
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
extern int gasnett_isLittleEndian(void);
/* Pins the calling thread to CPU (rank mod cpu count). */
extern void gasnett_set_affinity(int rank);
extern void gasnett_flush_streams(void);
extern void gasnett_close_streams(void);
extern const char *gasnett_release_version_str(void);
extern uint64_t gasnett_release_version(void);
extern const char *gasnett_performance_warning_str(void);
extern void gasnett_fatalerror(const char *msg, ...) __attribute__((__format__(__printf__, 1, 2)))
GASNETT_NORETURN;
#define gasnett_fatalerror_nopos gasnett_fatalerror
extern void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
/* Backtrace of the calling thread to fd; returns 0 on success. */
extern int gasnett_print_backtrace(int fd);
extern int (*gasnett_print_backtrace_ifenabled)(int fd);
extern void gasnett_backtrace_init(const char *exename);
extern void gasnett_freezeForDebuggerErr(void);
extern void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
typedef void (*gasnett_sighandlerfn_t)(int);
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);
/* A simple 64-bit checksum of numbytes bytes at p (not cryptographic). */
extern uint64_t gasnett_checksum(const void *p, int numbytes);

/* Sets / removes an environment variable of this process (later
 * gasnett_getenv calls see the change).  Fatal error if the system refuses. */
extern void gasnett_setenv(const char *key, const char *value);
extern void gasnett_unsetenv(const char *key);
/* Absolute path of the running executable ("" if unknown). */
extern const char *gasnett_exe_name(void);
/* "SIGINT" for SIGINT, ...; NULL for a value that is no signal. */
extern const char *gasnett_signame_fromval(int sigval);
/* Raise the soft limit of resource res (an RLIMIT_ constant, named
 * lim_desc, e.g. "RLIMIT_STACK") to its hard limit; GASNET_MAXIMIZE_<lim_desc>=no
 * skips it.  Non-zero on success. */
extern int gasnett_maximize_rlimit(int res, const char *lim_desc);
/* The same for CPU, DATA, RSS, STACK and AS; non-zero if all succeeded. */
extern int gasnett_maximize_rlimits(void);

/* "function at file:line" of the call site (a per-thread buffer, valid
 * until the thread's next use). */
extern char *gasneti_tools_loc_str(const char *funcname, const char *filename, int linenum);
#define gasnett_current_loc gasneti_tools_loc_str(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__)

/* Zero bytes among len bytes at src (count0s), also copying them to dst
 * (count0s_copy), or in one word. */
extern size_t gasnett_count0s(const void *src, size_t len);
extern size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                                   size_t len);
static inline __attribute__((__unused__, __const__)) int gasnett_count0s_uint64_t(uint64_t x)
{
    int n = 0, i;
    for (i = 0; i < 8; i++, x >>= 8) n += !(x & 0xff);
    return n;
}
static inline __attribute__((__unused__, __const__)) int gasnett_count0s_uint32_t(uint32_t x)
{
    return gasnett_count0s_uint64_t((uint64_t)x | ((uint64_t)0x01010101u << 32));
}
#if defined(PLATFORM_ARCH_64)
#define gasnett_count0s_uintptr_t(x) gasnett_count0s_uint64_t(x)
#else
#define gasnett_count0s_uintptr_t(x) gasnett_count0s_uint32_t(x)
#endif

/* Set non-zero by GASNET_FREEZE / GASNET_FREEZE_ON_ERROR freezes; a
 * debugger clears it to let the process continue. */
extern volatile int gasnet_frozen;

/* A client backtrace mechanism: set name (upper case) and fnp (writes a
 * backtrace of the calling thread to fd, returns 0 on success) before
 * gasnett_backtrace_init/gasnet init; gasnett_print_backtrace tries it
 * first.  threadsupport: non-zero if fnp is safe in threaded programs. */
typedef struct {
    const char *name;
    int (*fnp)(int fd);
    int threadsupport;
} gasnett_backtrace_type_t;
/* The libraries hold only a tentative (common) definition, zero-filled: a
 * client may define and initialize gasnett_backtrace_user itself, as with
 * GASNet ({"USER", fn, 1} at file scope), and its definition is the one
 * linked. */
extern gasnett_backtrace_type_t gasnett_backtrace_user;

/* Tools-only clients have no conduit to map memory with. */
#define gasnett_mmap(sz) \
    (gasnett_fatalerror("gasnett_mmap(%lu): not available without a conduit", (unsigned long)(sz)), (void *)0)

GASNETT_END_EXTERNC
#endif /* GASNET_TOOLS_SYS_H */
