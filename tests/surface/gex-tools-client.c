/* tests/surface/gex-tools-client.c: a GASNet-EX client that includes only
 * gasnetex.h and gasnet_tools.h (issue 13, acceptance 2) and relies on what
 * GASNet's headers make visible: <inttypes.h> (PRIuPTR), <stdlib.h>,
 * <string.h>, <unistd.h>, <limits.h>, _STRINGIFY, MIN/MAX, the
 * PLATFORM_* macros, the GASNet-1 barrier and gasnett_backtrace_type_t.
 * Run on several processes; prints PASS on rank 0. */
#include <gasnetex.h>
#include <gasnet_tools.h>

static int calls;
static int surface_backtrace(int fd)
{
    (void)fd;
    calls++;
    return 1; /* "could not": the built-in mechanism runs next */
}

#define CHECK(cond, what)                                                          \
    do {                                                                           \
        if (!(cond)) {                                                             \
            printf("rank %d: FAIL %s (line %d)\n", (int)gex_System_QueryJobRank(), \
                   what, __LINE__);                                                \
            fflush(stdout);                                                        \
            gasnet_exit(1);                                                        \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gasnett_backtrace_type_t bt = {"SURFACE", surface_backtrace, 1};
    gasnett_backtrace_user = bt;

    if (gex_Client_Init(&client, &ep, &tm, "surface", &argc, &argv, 0) != GASNET_OK) return 2;
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    uintptr_t big = (uintptr_t)UINTPTR_MAX - me;
    char *buf = (char *)malloc(64); /* <stdlib.h> through gasnetex.h */

    CHECK(buf != NULL, "malloc");
    snprintf(buf, 64, "%" PRIuPTR, big);
    CHECK(strtoull(buf, NULL, 10) == (unsigned long long)big, "PRIuPTR round trip");
    CHECK(strcmp(_STRINGIFY(GASNET_CONDUIT_NAME), "IBV") == 0, "_STRINGIFY(GASNET_CONDUIT_NAME)");
    CHECK(strstr(PLATFORM_COMPILER_IDSTR, "|COMPILER_FAMILY:") != NULL, "PLATFORM_COMPILER_IDSTR");
    CHECK(PLATFORM_COMPILER_VERSION_GE(0, 0, 0), "PLATFORM_COMPILER_VERSION_GE");
    CHECK(MIN(3, INT_MAX) == 3 && MAX(-1, 2) == 2, "MIN/MAX and INT_MAX");
    CHECK(sysconf(_SC_PAGESIZE) > 0, "sysconf (<unistd.h> through gasnetex.h)");
    CHECK(gasnett_print_backtrace(-1) == 0 && calls == 1, "gasnett_backtrace_user tried first");

    /* Named barrier with a common id, then an anonymous one, several times. */
    for (int round = 0; round < 3; round++) {
        if (me == 0) gasnett_nsleep(1000000);
        CHECK(gasnet_barrier(100 + round, 0) == GASNET_OK, "named gasnet_barrier");
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
        CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK,
              "anonymous split-phase barrier");
    }
    if (me == 0)
        printf("PASS: %u processes, conduit %s, %s\n", (unsigned)n,
               _STRINGIFY(GASNET_CONDUIT_NAME), PLATFORM_STRINGIFY(PLATFORM_COMPILER_FAMILYNAME));
    fflush(stdout);
    free(buf);
    gasnet_exit(0);
    return 0;
}
