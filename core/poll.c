/* core/poll.c: progress.  One poll drains the PSHM queues, polls the verbs
 * completion queues (send completions, arrived AMs, Requests waiting for
 * credit), runs the extended layer's progress and checks for a job-wide
 * exit request.  When processes on this host outnumber its cores, idle
 * polls yield the CPU so that the peer we wait for can run
 * (GASNET_POLL_YIELD). */
#include "core/gasnet_core_private.h"
#include "core/ibv/ibv.h"
#include "core/pshm/pshm.h"

#include <sched.h>
#include <unistd.h>

int gasnetc_poll_yield = 0;

void gasnetc_poll_policy_init(unsigned local_procs)
{
    int64_t mode = GASNETI_PARAM_INT(GASNET_POLL_YIELD);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    /* Cores we may run on: the affinity mask is the truthful count in
     * containers and under taskset. */
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        cores = CPU_COUNT(&set);
    if (mode < 0) gasnetc_poll_yield = cores > 0 && (long)local_procs > cores;
    else gasnetc_poll_yield = (int)mode;
}

void gasnetc_poll(void)
{
    gasnetc_exit_check();
    int n = gasnetc_pshm_poll(0);
    n += gasnetc_ibv_poll(0);
    gasnete_progress();
    if (n == 0 && gasnetc_poll_yield) sched_yield();
}

void gasnetc_poll_replies(void)
{
    gasnetc_exit_check();
    /* Verbs Replies wait only for send completions (no handler runs). */
    int n = gasnetc_pshm_poll(1) + gasnetc_ibv_poll(1);
    if (n == 0 && gasnetc_poll_yield) sched_yield();
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
    /* Idle polls already yield when oversubscribed; here only relax the
     * spinning core. */
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#endif
}
