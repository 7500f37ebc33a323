/* core/exit_signal.c: fatal signals.  A fatal signal outside an exit
 * prints the signal (and for a fault its address) with rank and host and
 * aborts the job with 128+signal through the fatal-error path (exit.c's
 * gasnetc_fatal_exit); a SIGBUS in a shared-memory page that /dev/shm could
 * not back is named as such.  During an exit it ends the process with the
 * exit's code.  SIGINT runs the client's SIGQUIT handler when there is one
 * (GASNet), else it is fatal.  The handlers run on an alternate stack so that
 * a stack overflow reports too.  Design: core/README "Exit".
 */
#include "core/gasnet_core_private.h"
#include "core/exit_signal.h"
#include "core/pshm/pshm.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void gasnetc_sbuf_put(char *buf, size_t cap, size_t *len, const char *s)
{
    while (*s && *len + 1 < cap) buf[(*len)++] = *s++;
}

void gasnetc_sbuf_int(char *buf, size_t cap, size_t *len, int v)
{
    char d[12];
    int i = 0;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do d[i++] = (char)('0' + u % 10); while ((u /= 10) && i < 11);
    if (v < 0 && *len + 1 < cap) buf[(*len)++] = '-';
    while (i > 0 && *len + 1 < cap) buf[(*len)++] = d[--i];
}

static const char *signame(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGSYS: return "SIGSYS";
    case SIGTRAP: return "SIGTRAP";
    case SIGINT: return "SIGINT";
    default: return "signal";
    }
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int code = gasnetc_exit_on_signal(sig);
    if (code >= 0) {
        /* During the exit: the exit's code still stands (GASNet). */
        char line[256];
        size_t n = 0;
        gasnetc_sbuf_put(line, sizeof(line), &n, "*** WARNING (");
        gasnetc_sbuf_put(line, sizeof(line), &n, gasnetc_exit_ident());
        gasnetc_sbuf_put(line, sizeof(line), &n, "): caught ");
        gasnetc_sbuf_put(line, sizeof(line), &n, signame(sig));
        gasnetc_sbuf_put(line, sizeof(line), &n, " while exiting; exiting with code ");
        gasnetc_sbuf_int(line, sizeof(line), &n, code);
        line[n++] = '\n';
        if (write(STDERR_FILENO, line, n) < 0) { /* nothing more to do */ }
        _exit(code);
    }
    char where[64] = "";
    if (si && si->si_code > 0 && /* a fault, not kill() or raise() */
        (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL))
        snprintf(where, sizeof(where), " at address %p", si->si_addr);
    const char *shm = si && si->si_code > 0 && sig == SIGBUS ? gasnetc_pshm_mapping_of(si->si_addr)
                                                           : NULL;
    if (shm) /* a page of shared memory that could not be allocated at first touch */
        gasneti_fatalerror("caught fatal signal SIGBUS%s, in %s (shared memory): /dev/shm had "
                           "no page left for it; enlarge /dev/shm (mount -o remount,size=...) "
                           "or lower GASNET_PSHM_NETWORK_DEPTH; aborting the job with exit "
                           "code %d",
                           where, shm, 128 + sig);
    gasneti_fatalerror("caught fatal signal %s (%d, %s)%s; aborting the job with exit code %d",
                       signame(sig), sig, strsignal(sig), where, 128 + sig);
}

/* SIGINT as GASNet handles it: the client's SIGQUIT handler runs when there
 * is one (GASNet's testexit 4: it calls gasnet_exit(4), which ends the job
 * with 4); otherwise the rank reports the signal, naming itself, and the job
 * ends with 128+SIGINT.  During an exit it just ends the process with the
 * exit's code (on_fatal_signal). */
static void on_sigint(int sig, siginfo_t *si, void *uc)
{
    if (gasnetc_exit_sigint_to_client()) return; /* its handler returned: it carries on */
    on_fatal_signal(sig, si, uc);
}

void gasnetc_exit_signals_install(void)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS};
    struct sigaction sa;
    static char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0};
    int onstack = sigaltstack(&ss, NULL) == 0 ? SA_ONSTACK : 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | onstack;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) sigaction(fatal[i], &sa, NULL);
    /* SIGINT: kept installed (a client SIGQUIT handler may return). */
    struct sigaction old_int;
    if (sigaction(SIGINT, NULL, &old_int) == 0 && !(old_int.sa_flags & SA_SIGINFO) &&
        old_int.sa_handler == SIG_DFL) { /* not when ignored or the client's own */
        sa.sa_sigaction = on_sigint;
        sa.sa_flags = SA_SIGINFO | SA_RESTART | onstack;
        sigaction(SIGINT, &sa, NULL);
    }
}
