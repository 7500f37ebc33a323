/* tests/integration/exitcode.c: how jobs end, and a trivial job.
 *
 * usage: exitcode MODE
 *   hello    gex_Client_Init with NULL argc/argv, attach, barrier; then
 *            every rank prints "goodbye-from-rank-R" and calls gasnet_exit(0)
 *            at about the same time: a collective exit, which must let every
 *            rank finish (all lines present, exit 0).  Also the program the
 *            bad-parameter tests start.
 *   exit3    the last rank calls gasnet_exit(3) while the others sit in a
 *            barrier that can never complete: the job must exit 3
 *   early3   the last rank calls gasnet_exit(3) right after init while the
 *            others are in gex_Segment_Attach: the job must exit 3
 *   all7     every rank calls gasnet_exit(7): the job exits 7
 *   return0  every rank returns 0 from main without gasnet_exit: exit 0
 *   crash    the last rank dies of SIGABRT: the job must end, non-zero
 * The manifest gives the expected exit code of each mode.
 */
#include <gasnetex.h>
#include <signal.h>
#include "test.h"

static void usage(void)
{
    fprintf(stderr, "usage: exitcode hello|exit3|early3|all7|return0|crash\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    const char *mode = argv[1];
    if (strcmp(mode, "hello") && strcmp(mode, "exit3") && strcmp(mode, "early3") &&
        strcmp(mode, "all7") && strcmp(mode, "return0") && strcmp(mode, "crash"))
        usage();

    test_name = "exitcode";
    /* NULL argc/argv are allowed (GASNet-EX spec). */
    CHECK_OK(gex_Client_Init(&test_client, &test_ep, &test_tm, "exitcode", NULL, NULL, 0));
    test_rank = gex_TM_QueryRank(test_tm);
    test_size = gex_TM_QuerySize(test_tm);
    gex_Rank_t last = test_size - 1;

    if (!strcmp(mode, "early3") && test_rank == last) {
        printf("rank %u: gasnet_exit(3) before attach\n", (unsigned)test_rank);
        fflush(stdout);
        gasnet_exit(3);
    }
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, GASNET_PAGESIZE));
    if (!strcmp(mode, "early3")) {
        /* Reached only if the attach completed without the last rank. */
        CHECK_MSG(test_size == 1, "gex_Segment_Attach completed although rank %u had exited",
                  (unsigned)last);
    }
    test_barrier();

    if (!strcmp(mode, "hello")) {
        printf("hello from rank %u of %u\n", (unsigned)test_rank, (unsigned)test_size);
        fflush(stdout);
        test_barrier();
        printf("goodbye-from-rank-%u\n", (unsigned)test_rank);
        fflush(stdout);
        gasnet_exit(0);
    }
    if (!strcmp(mode, "exit3")) {
        if (test_rank == last) {
            usleep(300000); /* let the others block in the barrier */
            printf("rank %u: gasnet_exit(3)\n", (unsigned)test_rank);
            fflush(stdout);
            gasnet_exit(3);
        }
        int rc = gex_Coll_BarrierBlocking(test_tm, 0);
        CHECK_MSG(test_size == 1, "a barrier completed (rc %d) although rank %u had exited", rc,
                  (unsigned)last);
    }
    if (!strcmp(mode, "all7")) gasnet_exit(7);
    if (!strcmp(mode, "crash")) {
        if (test_rank == last) {
            usleep(200000);
            printf("rank %u: raising SIGABRT\n", (unsigned)test_rank);
            fflush(stdout);
            signal(SIGABRT, SIG_DFL);
            raise(SIGABRT);
        }
        (void)gex_Coll_BarrierBlocking(test_tm, 0);
        if (test_size > 1) sleep(30); /* must be killed well before the timeout */
        return 0;
    }
    /* return0 */
    if (test_rank == 0) {
        printf("every rank returns 0 from main\n");
        fflush(stdout);
    }
    return 0;
}
