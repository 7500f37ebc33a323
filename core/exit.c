/* core/exit.c: leaving the job.  Three ways in: gasnet_exit(), a request
 * from another rank (through the launcher or the PSHM exit word), and
 * return from main / exit() (on_exit).  Every way tells the rest of the job
 * once, removes this process's shared memory and ends within the exit
 * timeout, even when another thread holds a lock (an alarm ends it). Fatal
 * signals and fatal errors abort the whole job. */
#include "core/gasnet_core_private.h"
#include "core/pshm/pshm.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int exiting;             /* set once by the thread that leaves */
static volatile int remote_code = -1;    /* code requested by another rank */
static volatile int alarm_code = 1;
static unsigned exit_timeout_s = 10;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "*** gasnet: exit timed out (GASNET_EXITTIMEOUT); forcing exit\n";
    if (write(2, msg, sizeof(msg) - 1) < 0) { /* nothing more to do */ }
    _exit(alarm_code);
}

static void arm_exit_alarm(int code)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm_code = code;
    alarm(exit_timeout_s);
}

static int claim_exit(void)
{
    return __atomic_exchange_n(&exiting, 1, __ATOMIC_ACQ_REL) == 0;
}

void gasnetc_exit_now(int code, int notify)
{
    if (!claim_exit()) {
        /* Another thread is already leaving: it will end the process. */
        for (;;) pause();
    }
    arm_exit_alarm(code);
    /* Not the PSHM exit word: the other ranks may be about to exit too
     * (collective exit) and must finish first; the launcher forwards the
     * request to ranks that have not exited when its window closes. */
    if (notify && gasneti_boot) gasneti_boot->notify_exit(code);
    fflush(NULL);
    gasnetc_pshm_fini();
    if (gasneti_boot) gasneti_boot->fini();
    _exit(code);
}

void gasnet_exit(int exitcode)
{
    if (!gasneti_init_done) exit(exitcode);
    gasnetc_exit_now(exitcode & 0xff, 1);
}

void gasnetc_remote_exit_cb(int code)
{
    int none = -1;
    __atomic_compare_exchange_n(&remote_code, &none, code & 0xff, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

void gasnetc_exit_check(void)
{
    int code = __atomic_load_n(&remote_code, __ATOMIC_ACQUIRE);
    if (__builtin_expect(code >= 0, 0)) gasnetc_exit_now(code, 0);
    if (__builtin_expect(gasnetc_pshm_exit_requested(&code), 0)) gasnetc_exit_now(code, 1);
}

/* return from main, exit(): the job ends with this status. */
static void at_exit(int status, void *arg)
{
    (void)arg;
    if (!claim_exit()) return;
    arm_exit_alarm(status & 0xff);
    if (gasneti_boot) gasneti_boot->notify_exit(status & 0xff);
    gasnetc_pshm_fini();
    if (gasneti_boot) gasneti_boot->fini();
    alarm(0);
}

void gasnetc_fatal_exit(int exitcode)
{
    __atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
    gasnetc_pshm_set_exit(exitcode);
    if (gasneti_boot) gasneti_boot->abort(exitcode);
    _exit(exitcode);
}

static void on_fatal_signal(int sig)
{
    gasneti_fatalerror("caught fatal signal %d (%s)", sig, strsignal(sig));
}

static unsigned compute_exit_timeout(void)
{
    double t = gasneti_bootstrap_exittimeout(gasneti_nodes);
    return t < 1 ? 1 : (unsigned)(t + 0.999);
}

void gasnetc_exit_init(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction sa;
    exit_timeout_s = compute_exit_timeout();
    gasneti_log_set_fatal_hook(gasnetc_fatal_exit);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) sigaction(sigs[i], &sa, NULL);
    on_exit(at_exit, NULL);
}
