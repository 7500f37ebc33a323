/* tests/integration/relia/segsize.c: GASNET_MAX_SEGSIZE read as GASNet reads
 * it (issue 13 item 7, issue 19 items 1 and 5).
 *
 * usage: segsize EXPECT            (GASNET_MAX_SEGSIZE set by the manifest)
 *   EXPECT is what the value means, written independently of the library:
 *     pP:BYTES   BYTES per process
 *     hF:FRAC    FRAC of physical memory per host, divided among the
 *                processes of the host (all of this job's, on one host)
 *   Every rank prints "max segment <bytes> expected <bytes>" and checks that
 *   gasnet_getMaxLocalSegmentSize() is the expected amount rounded up to a
 *   page -- or, when /dev/shm cannot hold that much for every process, at
 *   most that amount (the line says so) -- then attaches a segment of it.
 *   SEGSIZE_CLIENT_DEFAULT=TEXT in the environment: the program sets
 *   gasnet_max_segsize_str to TEXT before init (the client's default).
 * usage: segsize huge
 *   gex_Segment_Attach(0xffffffffffffffff) must not succeed (it used to wrap
 *   to an empty segment): the job must end with the library's message.
 */
#include <gasnetex.h>
#include <sys/statvfs.h>
#include "../test.h"

static uint64_t page_up(uint64_t n)
{
    return (n + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
}

int main(int argc, char **argv)
{
    /* A client's own default, set before init (GASNet: the variable, when
     * set, overrides it). */
    if (getenv("SEGSIZE_CLIENT_DEFAULT")) gasnet_max_segsize_str = getenv("SEGSIZE_CLIENT_DEFAULT");
    test_init("segsize", &argc, &argv, 0, 0, 1);
    if (argc != 2) {
        fprintf(stderr, "usage: segsize pP:BYTES | hF:FRAC | huge\n");
        gasnet_exit(2);
    }
    const char *want = argv[1];
    if (!strcmp(want, "huge")) {
        gex_Segment_t seg = GEX_SEGMENT_INVALID;
        int rc = gex_Segment_Attach(&seg, test_tm, (uintptr_t)-1);
        /* Reaching here is wrong whatever rc says: a fatal error was due. */
        printf("rank %u: gex_Segment_Attach(2^64-1) returned %d, size %lu\n", (unsigned)test_rank,
               rc, (unsigned long)(rc == GASNET_OK ? gex_Segment_QuerySize(seg) : 0));
        CHECK_MSG(rc != GASNET_OK, "a 2^64-1 byte segment was attached");
        gasnet_exit(3);
    }
    uint64_t expect;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t phys = (uint64_t)pages * (uint64_t)psz;
    if (!strncmp(want, "p:", 2))
        expect = strtoull(want + 2, NULL, 10);
    else if (!strncmp(want, "h:", 2))
        expect = (uint64_t)(strtod(want + 2, NULL) * (double)phys) / test_size;
    else {
        fprintf(stderr, "segsize: bad EXPECT '%s'\n", want);
        gasnet_exit(2);
    }
    expect = page_up(expect);
    uint64_t max = gasnet_getMaxLocalSegmentSize();
    struct statvfs vfs;
    uint64_t shm_each = 0;
    if (statvfs("/dev/shm", &vfs) == 0)
        shm_each = (uint64_t)vfs.f_bavail * vfs.f_frsize / test_size;
    printf("rank %u: GASNET_MAX_SEGSIZE=%s: max segment %" PRIu64 " expected %" PRIu64 "%s\n",
           (unsigned)test_rank, getenv("GASNET_MAX_SEGSIZE"), max, expect,
           max < expect && expect > shm_each / 2 ? " (bounded by /dev/shm)" : "");
    fflush(stdout);
    if (expect <= shm_each / 2) CHECK_EQ(max, expect);
    else CHECK(max <= expect);
    /* Usable: attach it (a small one when /dev/shm bounds it). */
    uintptr_t len = max < ((uint64_t)64 << 20) ? max : ((uint64_t)64 << 20);
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, len));
    CHECK(gex_Segment_QuerySize(test_segment) >= len);
    test_barrier();
    TEST_MSG0("PASS segsize %s (%u processes)", want, (unsigned)test_size);
    gasnet_exit(0);
    return 0;
}
