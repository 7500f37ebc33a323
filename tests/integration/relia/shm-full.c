/* tests/integration/relia/shm-full.c: /dev/shm fills up under a running
 * job, for tests/integration/relia/shm-full.sh (core/pshm/README: the AM
 * queue file's payload buffers take pages at first use).
 *
 * usage: shm-full FILL   (only where /dev/shm is the job's own tmpfs)
 * Init, a barrier; rank 0 then takes every free page of /dev/shm (file
 * FILL, posix_fallocate a MiB at a time until it fails), a barrier; then
 * each rank sends 200 AM Mediums of 60000 bytes to the next rank, whose
 * payload buffers need pages /dev/shm no longer has.  The job must end
 * with the SIGBUS report that names /dev/shm (core/exit.c); "NOT REACHED"
 * means the Mediums went through.
 */
#include <gasnetex.h>
#include <fcntl.h>
#include <unistd.h>
#include "../test.h"

#define NBYTES 60000
static char payload[NBYTES];

static void sink(gex_Token_t t, void *buf, size_t nbytes) { (void)t, (void)buf, (void)nbytes; }

int main(int argc, char **argv)
{
    test_init("shm-full", &argc, &argv, GASNET_PAGESIZE, 0, 2);
    CHECK_MSG(argc > 1, "usage: shm-full FILL");
    gex_AM_Entry_t e = {0, (gex_AM_Fn_t)sink, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL,
                        "sink"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, &e, 1));
    test_barrier();
    if (test_rank == 0) {
        int fd = open(argv[1], O_CREAT | O_WRONLY, 0600);
        off_t mib = 0;
        CHECK_MSG(fd >= 0, "cannot create %s", argv[1]);
        while (posix_fallocate(fd, mib << 20, 1 << 20) == 0) mib++;
        printf("rank 0: /dev/shm filled (%lld MiB more)\n", (long long)mib);
        fflush(stdout);
        close(fd);
    }
    test_barrier();
    for (int i = 0; i < 200; i++)
        CHECK_OK(gex_AM_RequestMedium0(test_tm, (test_rank + 1) % test_size, e.gex_index, payload,
                                       NBYTES, GEX_EVENT_NOW, 0));
    test_barrier();
    TEST_MSG0("NOT REACHED: 200 Mediums went through a full /dev/shm");
    gasnet_exit(0);
    return 0;
}
