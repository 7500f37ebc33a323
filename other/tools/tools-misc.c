/* other/tools/tools-misc.c: gasnet_tools.h services that need no conduit:
 * environment changes, executable name, signal names, resource limits,
 * call-site strings, zero-byte counts, the debugger freeze flag, the
 * client backtrace hook and the link-time configuration symbols.
 * Part of both the conduit libraries and the tools-only libraries. */
#include <gasnet_tools.h>

#include "other/log/log.h"

#include <signal.h>
#include <sys/resource.h>

/* ---- link-time configuration check ------------------------------------- */
/* GASNETT_THREAD_MODEL is PAR for GASNET_PAR / GASNET_PARSYNC / thread-safe
 * tools builds and SEQ otherwise, as for the clients. */
int GASNETT_LINKCONFIG_IDIOTCHECK(GASNETT_THREAD_MODEL) = 1;
int GASNETT_LINKCONFIG_IDIOTCHECK(_CONCAT(RELEASE_MAJOR_, GASNET_RELEASE_VERSION_MAJOR)) = 1;

volatile int gasnet_frozen = 0;
/* Tentative (common), never initialized here: a client's own definition of
 * gasnett_backtrace_user takes its place at link time. */
__attribute__((__common__)) gasnett_backtrace_type_t gasnett_backtrace_user;

/* ---- environment -------------------------------------------------------- */
void gasnett_setenv(const char *key, const char *value)
{
    if (!key || !key[0] || strchr(key, '=') || setenv(key, value ? value : "", 1) != 0)
        gasneti_fatalerror("gasnett_setenv(\"%s\", \"%s\") failed: %s", key ? key : "(null)",
                           value ? value : "(null)",
                           errno ? strerror(errno) : "invalid variable name");
}

void gasnett_unsetenv(const char *key)
{
    if (!key || !key[0] || strchr(key, '=') || unsetenv(key) != 0)
        gasneti_fatalerror("gasnett_unsetenv(\"%s\") failed: %s", key ? key : "(null)",
                           errno ? strerror(errno) : "invalid variable name");
}

/* ---- process ------------------------------------------------------------ */
const char *gasnett_exe_name(void)
{
    static char path[PATH_MAX + 1];
    static int done;
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        char tmp[PATH_MAX + 1];
        ssize_t n = readlink("/proc/self/exe", tmp, PATH_MAX);
        if (n > 0) {
            tmp[n] = '\0';
            memcpy(path, tmp, (size_t)n + 1);
        }
        __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    }
    return path;
}

/* "SIG" + the C library's abbreviation of each signal, built once. */
static char signames[NSIG][24];
static pthread_once_t signames_once = PTHREAD_ONCE_INIT;
static void signames_init(void)
{
    int sig;
    for (sig = 1; sig < NSIG; sig++) {
        const char *abbrev = sigabbrev_np(sig);
        if (abbrev) snprintf(signames[sig], sizeof signames[sig], "SIG%s", abbrev);
    }
}

const char *gasnett_signame_fromval(int sigval)
{
    if (sigval <= 0 || sigval >= NSIG) return NULL;
    pthread_once(&signames_once, signames_init);
    return signames[sigval][0] ? signames[sigval] : NULL;
}

int gasnett_maximize_rlimit(int res, const char *lim_desc)
{
    struct rlimit rl;
    char var[64];
    snprintf(var, sizeof var, "GASNET_MAXIMIZE_%s", lim_desc ? lim_desc : "");
    if (lim_desc && !gasnett_getenv_yesno_withdefault(var, 1)) return 1;
    if (getrlimit((__rlimit_resource_t)res, &rl) != 0) return 0;
    if (rl.rlim_cur == rl.rlim_max) return 1;
    rl.rlim_cur = rl.rlim_max;
    return setrlimit((__rlimit_resource_t)res, &rl) == 0;
}

int gasnett_maximize_rlimits(void)
{
    int ok = 1;
    ok &= gasnett_maximize_rlimit(RLIMIT_CPU, "RLIMIT_CPU");
    ok &= gasnett_maximize_rlimit(RLIMIT_DATA, "RLIMIT_DATA");
    ok &= gasnett_maximize_rlimit(RLIMIT_RSS, "RLIMIT_RSS");
    ok &= gasnett_maximize_rlimit(RLIMIT_STACK, "RLIMIT_STACK");
    ok &= gasnett_maximize_rlimit(RLIMIT_AS, "RLIMIT_AS");
    return ok;
}

char *gasneti_tools_loc_str(const char *funcname, const char *filename, int linenum)
{
    static __thread char buf[512];
    if (funcname && funcname[0])
        snprintf(buf, sizeof buf, "%s at %s:%d", funcname, filename ? filename : "?", linenum);
    else
        snprintf(buf, sizeof buf, "%s:%d", filename ? filename : "?", linenum);
    return buf;
}

/* ---- zero bytes --------------------------------------------------------- */
size_t gasnett_count0s(const void *src, size_t len)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t n = 0, i;
    for (i = 0; i < len; i++) n += !p[i];
    return n;
}

size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src, size_t len)
{
    memcpy(dst, src, len);
    return gasnett_count0s(dst, len);
}
