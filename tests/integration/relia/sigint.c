/* tests/integration/relia/sigint.c: SIGINT as GASNet handles it (issue 13
 * item 8; GASNet's testexit case 4).
 *
 * usage: sigint quit | plain
 *   The last rank sends itself SIGINT (kill, then waits for delivery without
 *   calling GASNet); the others wait in a barrier.
 *   quit:  every rank installed a SIGQUIT handler that calls gasnet_exit(4):
 *          the job must end with 4 (the SIGINT'ed rank runs the handler; the
 *          others get the exit request, run theirs, and exit too).
 *   plain: no handler: the job ends with 130 (128 + SIGINT) and a line
 *          naming the rank and the signal.
 */
#include <gasnetex.h>
#include <gasnet.h>
#include <signal.h>
#include <sched.h>
#include "../test.h"

static double test_now_epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_sigquit(int sig)
{
    (void)sig;
    printf("sigquit-on-rank-%u: calling gasnet_exit(4)\n", (unsigned)test_rank);
    fflush(stdout);
    gasnet_exit(4);
}

int main(int argc, char **argv)
{
    test_init("sigint", &argc, &argv, 0, 0, 2);
    if (argc != 2 || (strcmp(argv[1], "quit") && strcmp(argv[1], "plain"))) {
        fprintf(stderr, "usage: sigint quit|plain\n");
        gasnet_exit(2);
    }
    if (!strcmp(argv[1], "quit")) signal(SIGQUIT, on_sigquit);
    test_barrier();
    if (test_rank == test_size - 1) {
        sleep(1);
        printf("exit-start %.3f\n", test_now_epoch());
        fflush(stdout);
        kill(getpid(), SIGINT);
        double end = test_now() + 30;
        while (test_now() < end) sched_yield(); /* await delivery */
        CHECK_MSG(0, "SIGINT did not end this rank within 30 s");
    } else {
        test_barrier();
        CHECK_MSG(0, "the barrier completed although the last rank never entered it");
    }
    return 0;
}
