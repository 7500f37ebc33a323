/* core/poll.c: progress.  One poll drains the PSHM queues, polls the verbs
 * completion queues (send completions, arrived AMs, Requests waiting for
 * credit), runs the extended layer's progress and checks for a job-wide
 * exit request.
 *
 * Idle polls yield the CPU (GASNET_POLL_YIELD): at once when this host's
 * processes outnumber its cores, otherwise after GASNETC_POLL_SPIN idle
 * polls in a row.  The second case is the one a count of processes cannot
 * see: two processes on two cores that share them with other jobs.  A
 * process that waits for a descheduled peer (its reply, or room in its full
 * queue) would otherwise spin through its whole time slice, and a two-way
 * flood then advances by one queue depth per slice (hundreds of us per
 * message, core/README "Progress under contention").  Any delivered message
 * ends the idle run, so latency-bound loops never reach the yield.
 * GASNET_POLL_SPIN overrides the idle run (measurements).  Wait loops that
 * cannot poll use gasnetc_poll_idle, so every wait follows this policy
 * (core/README "Polling and oversubscription", with the measurements).
 *
 * With GASNET_RCV_THREAD / GASNET_SND_THREAD (PAR), progress threads also
 * poll the verbs completion queues (core/ibv/wr/progress.c); a poll here then
 * skips a CQ the thread is draining.  PSHM queues are polled only here
 * (core/ibv/wr/README "Progress threads"). */
#include "core/gasnet_core_private.h"

#include <sched.h>
#include <unistd.h>

/* Idle polls in a row before yielding (auto mode): far above the polls of
 * a round trip to a running peer (tens), far below a time slice. */
#define GASNETC_POLL_SPIN 256

/* GASNETC_POLL_YIELD_*: gasnetc_poll_policy_init maps GASNET_POLL_YIELD. */
int gasnetc_poll_yield = GASNETC_POLL_YIELD_IDLE;
static unsigned spin_limit = GASNETC_POLL_SPIN; /* idle polls before a yield */
static __thread unsigned idle_polls; /* this thread's idle polls in a row */

void gasnetc_poll_policy_init(unsigned local_procs)
{
    int64_t mode = GASNETI_PARAM_INT(GASNET_POLL_YIELD);
    int64_t spin = GASNETI_PARAM_INT(GASNET_POLL_SPIN);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    /* Cores we may run on: the affinity mask is the truthful count in
     * containers and under taskset. */
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        cores = CPU_COUNT(&set);
    if (mode == 0) gasnetc_poll_yield = GASNETC_POLL_YIELD_NEVER;
    else if (mode > 0 || (cores > 0 && (long)local_procs > cores))
        gasnetc_poll_yield = GASNETC_POLL_YIELD_ALWAYS;
    else gasnetc_poll_yield = GASNETC_POLL_YIELD_IDLE;
    if (gasnetc_poll_yield == GASNETC_POLL_YIELD_ALWAYS) spin_limit = 0;
    if (spin >= 0 && gasnetc_poll_yield != GASNETC_POLL_YIELD_NEVER) spin_limit = (unsigned)spin;
}

void gasnetc_poll_wait_begin(void)
{
    idle_polls = 0;
}

/* After a poll that delivered n messages: yield if the policy says so. */
static inline void idle_step(int n)
{
    if (n) {
        idle_polls = 0;
        return;
    }
    if (gasnetc_poll_yield != GASNETC_POLL_YIELD_NEVER && ++idle_polls > spin_limit)
        sched_yield();
}

/* A wait loop that does not call gasnetc_poll (a lock spin, a Reply
 * reaping only its send completions) still waits for another process or
 * thread that may be descheduled: same idle policy.  progressed: the loop
 * turn achieved something (n > 0 ends the idle run). */
void gasnetc_poll_idle(int progressed)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!progressed) __asm__ __volatile__("pause");
#endif
    idle_step(progressed);
}

void gasnetc_poll(void)
{
    gasnetc_exit_check();
    int n = gasnetc_am_nbr.poll(0);
    n += gasnetc_am_net.poll(0);
    gasnetc_ext.progress();
    idle_step(n);
}

void gasnetc_poll_replies(void)
{
    gasnetc_exit_check();
    /* Verbs Replies wait only for send completions (no handler runs). */
    idle_step(gasnetc_am_nbr.poll(1) + gasnetc_am_net.poll(1));
}

int gasnet_AMPoll(void)
{
    if (!gasneti_init_done) return GASNET_ERR_NOT_INIT;
    if (gasnetc_in_handler())
        gasneti_fatalerror("gasnet_AMPoll called inside an AM handler (not allowed: handlers "
                           "must not poll or block)");
    gasnetc_poll();
    return GASNET_OK;
}

void gasneti_pollwait_hint(void)
{
    /* Wait loops call this between checks of their condition, and some
     * check several times per poll (a PSHM barrier wait: 8 flag checks per
     * poll).  A PSHM message that arrived meanwhile is delivered here at
     * once, so a process that waits keeps draining a stream sent to it
     * instead of letting it pile up between polls (a few loads when none
     * is there).  A delivery ends the idle run, as in gasnetc_poll.
     * Otherwise: idle polls already yield when oversubscribed; here only
     * relax the spinning core.  Never inside a handler (no wait loop may
     * run there; this keeps a misplaced one from nesting deliveries). */
    if (gasnetc_am_nbr.pending() && !gasnetc_in_handler() && gasnetc_am_nbr.poll(0)) {
        idle_polls = 0;
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#endif
}
