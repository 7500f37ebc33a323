/* tests/unit/test-pshm-attach.c: core/pshm end to end, without a launcher.
 *
 * Forks 4 "ranks" that share a fake bootstrap (barrier, exchange and
 * broadcast over an anonymous shared mapping), then runs, per scenario:
 * init, segment attach with per-rank sizes (one of 0), cross-mapped reads
 * and writes, bounds of gasnetc_pshm_addr, Request/Reply/Long AMs to every
 * neighbour and self (Replies sent from inside Request handlers, with
 * gasnetc_pshm_poll(1) while the Reply queue is full), the exit word, no
 * shared memory with a name or a descriptor left open after init and
 * attach, a segment larger than /dev/shm failing cleanly
 * at attach, and fini twice.  Every check is agreed by all ranks; rank 0
 * prints one line per check.  Exits 0 only if all passed.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bootstrap/bootstrap_private.h"
#include "core/pshm/pshm.h"
#include "other/log/log.h"
#include "other/param/param.h"

enum { NP = 4, NAM = 1500, MAXPL = 4096, BUFSZ = 1 << 16, LONG_OFF = 4096 };

/* ---- fake bootstrap --------------------------------------------------------------- */
typedef struct {
    uint64_t count, gen;
    char buf[BUFSZ];
} fake_shared_t;

static fake_shared_t *fsh;
static uint32_t my_rank, nprocs;

static void fb_barrier(void)
{
    uint64_t gen = __atomic_load_n(&fsh->gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&fsh->count, 1, __ATOMIC_ACQ_REL) == nprocs) {
        __atomic_store_n(&fsh->count, 0, __ATOMIC_RELAXED);
        __atomic_add_fetch(&fsh->gen, 1, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&fsh->gen, __ATOMIC_ACQUIRE) == gen) sched_yield();
    }
}

static void fb_exchange(const void *src, size_t len, void *dest)
{
    if (len * nprocs > BUFSZ) abort();
    memcpy(fsh->buf + my_rank * len, src, len);
    fb_barrier();
    memcpy(dest, fsh->buf, len * nprocs);
    fb_barrier();
}

static void fb_broadcast(const void *src, size_t len, void *dest, uint32_t root)
{
    if (len > BUFSZ) abort();
    if (my_rank == root) memcpy(fsh->buf, src, len);
    fb_barrier();
    memcpy(dest, fsh->buf, len);
    fb_barrier();
}

static const gasneti_bootstrap_ops_t fake_boot = {
    .name = "fake",
    .barrier = fb_barrier,
    .exchange = fb_exchange,
    .broadcast = fb_broadcast,
};

/* ---- checks agreed by all ranks ------------------------------------------------------ */
static int failures;

static void check(int ok, const char *what)
{
    int32_t mine = ok ? 0 : 1, all[NP];
    int bad = 0;
    fb_exchange(&mine, sizeof(mine), all);
    for (uint32_t r = 0; r < nprocs; r++) bad += all[r];
    if (!ok) printf("  rank %u failed: %s\n", my_rank, what);
    if (my_rank == 0) printf("%s: %s\n", bad ? "FAIL" : "PASS", what);
    fflush(stdout);
    if (bad) failures++;
}

/* Mappings of (unlinked) /dev/shm or memfd files here. */
static int shm_mappings(void)
{
    char line[512];
    int n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof(line), f))
        n += strstr(line, " /dev/shm/") || strstr(line, " /memfd:");
    if (f) fclose(f);
    return n;
}

/* 1 if nothing of PSHM has a name here and at most max_fds descriptors
 * point at its files: every mapping of a /dev/shm or memfd file is of an
 * unlinked one ("(deleted)"); the only descriptor kept is this rank's own
 * segment's, open for neighbours that map it at their first use. */
static int shm_clean(int max_fds)
{
    char line[512], link[512], path[300];
    struct dirent *de;
    int clean = 1;
    FILE *f = fopen("/proc/self/maps", "r");
    DIR *d;
    while (f && fgets(line, sizeof(line), f))
        if ((strstr(line, " /dev/shm/") || strstr(line, " /memfd:")) && !strstr(line, "(deleted)")) {
            printf("  rank %u: a mapping with a name: %s", my_rank, line);
            clean = 0;
        }
    if (f) fclose(f);
    d = opendir("/proc/self/fd");
    while (d && (de = readdir(d))) {
        ssize_t n;
        snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n <= 0) continue;
        link[n] = '\0';
        if ((!strncmp(link, "/dev/shm/", 9) || !strncmp(link, "/memfd:", 7)) && --max_fds < 0) {
            printf("  rank %u: descriptor %s still open on %s\n", my_rank, de->d_name, link);
            clean = 0;
        }
    }
    if (d) closedir(d);
    return clean;
}

/* ---- AM traffic ------------------------------------------------------------------------ */
static uint64_t req_handled, rep_handled, am_errors;
static int in_request;
static uintptr_t seg_owner[NP], seg_size[NP];
static int long_pending[NP]; /* a Long to that rank awaits its Reply */

static uint8_t pat(uint32_t src, uint32_t seq, size_t i)
{
    return (uint8_t)(src * 29u + seq * 3u + i);
}

/* Polls; yields the CPU when nothing arrived: 4 ranks spin on a host that
 * may have 2 cores shared with other jobs, and a rank waiting for a
 * descheduled one must let it run (else the test crawls under load). */
static int poll_or_yield(int replies_only)
{
    int n = gasnetc_pshm_poll(replies_only);
    if (!n) sched_yield();
    return n;
}

static void deliver(const gasnetc_am_hdr_t *hdr, void *payload)
{
    if (hdr->is_req) {
        uint32_t seq = (uint32_t)hdr->args[0];
        const uint8_t *p = payload;
        if (in_request) am_errors++; /* poll(1) must not run Requests */
        if (hdr->category == GASNETC_AM_LONG) {
            p = (const uint8_t *)(uintptr_t)hdr->dest_addr; /* own segment: owner == local */
            if (payload) am_errors++;
        }
        if (hdr->category != GASNETC_AM_SHORT && ((uintptr_t)p % 8)) am_errors++;
        for (uint32_t i = 0; i < hdr->nbytes; i++)
            if (p[i] != pat(hdr->src_rank, seq, i)) {
                am_errors++;
                break;
            }
        gasnetc_am_hdr_t rep;
        memset(&rep, 0, sizeof(rep));
        rep.category = GASNETC_AM_SHORT;
        rep.src_rank = my_rank;
        rep.nargs = 2;
        rep.args[0] = (int32_t)seq;
        rep.args[1] = hdr->category;
        in_request = 1;
        while (gasnetc_pshm_try_send(hdr->src_rank, &rep, NULL, 0) == 1) poll_or_yield(1);
        in_request = 0;
        req_handled++;
    } else {
        if (hdr->args[1] == GASNETC_AM_LONG) long_pending[hdr->src_rank] = 0;
        rep_handled++;
    }
}

static void am_traffic(uint32_t nb, const uint32_t *ranks)
{
    static uint8_t buf[MAXPL];
    for (uint32_t seq = 0; seq < NAM; seq++) {
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t dest = ranks[k];
            gasnetc_am_hdr_t h;
            memset(&h, 0, sizeof(h));
            h.is_req = 1;
            h.src_rank = my_rank;
            h.nargs = 1;
            h.args[0] = (int32_t)seq;
            h.category = (uint8_t)(seq % 3);
            h.nbytes = h.category == GASNETC_AM_SHORT ? 0 : (seq * 61u) % (MAXPL + 1);
            for (uint32_t i = 0; i < h.nbytes; i++) buf[i] = pat(my_rank, seq, i);
            if (h.category == GASNETC_AM_LONG) {
                if (!seg_size[dest]) {
                    h.category = GASNETC_AM_MEDIUM;
                } else {
                    /* My window in dest's segment; reusable once the
                     * previous Long there has been replied to. */
                    uintptr_t owner = seg_owner[dest] + LONG_OFF + my_rank * MAXPL;
                    while (long_pending[dest]) poll_or_yield(0);
                    memcpy(gasnetc_pshm_addr(dest, (void *)owner, h.nbytes), buf, h.nbytes);
                    h.dest_addr = owner;
                    long_pending[dest] = 1;
                }
            }
            while (gasnetc_pshm_try_send(dest, &h, buf, h.nbytes) == 1) poll_or_yield(0);
        }
        gasnetc_pshm_poll(0);
    }
    while (req_handled < (uint64_t)NAM * nb || rep_handled < (uint64_t)NAM * nb)
        poll_or_yield(0);
    fb_barrier();
    /* Drain Requests still in flight toward us, then nothing should remain. */
    while (gasnetc_pshm_poll(0)) {
    }
}

/* ---- one scenario: 4 ranks, hosts and maxsize given ------------------------------------ */
static void run_rank(const uint64_t *host_of, unsigned maxsize, const char *jobid, int too_big)
{
    char what[160];
    const uint32_t *ranks;
    uint32_t nb;
    void *base = NULL;
    int code = -1;

    /* The job id is the bootstrap's (a plugin sets it at init); with none,
     * every forked rank has its own and PSHM must use rank 0's. */
    gasneti_bootstrap_set_jobid(jobid);
    setenv("GASNET_PSHM_NETWORK_DEPTH", "8", 1); /* small ring: exercises "full" */
    if (gasneti_params_load() != 0) {
        printf("rank %u: params: %s\n", my_rank, gasneti_params_error());
        _exit(2);
    }
    gasneti_log_set_identity(my_rank, "testhost");

    int rc = gasnetc_pshm_init(&fake_boot, my_rank, nprocs, host_of, maxsize, deliver);
    check(rc == 0, "init succeeds");
    if (rc) _exit(1);
    nb = gasnetc_pshm_nbrhd_size();
    ranks = gasnetc_pshm_nbrhd_ranks();
    snprintf(what, sizeof(what), "neighbourhood of %u ranks contains self at its index", nb);
    check(ranks[gasnetc_pshm_nbrhd_index()] == my_rank && gasnetc_pshm_in_nbrhd(my_rank), what);
    {
        int ok = 1;
        for (uint32_t r = 0; r < nprocs; r++) {
            int expect = 0;
            for (uint32_t k = 0; k < nb; k++) expect |= ranks[k] == r;
            ok &= gasnetc_pshm_in_nbrhd(r) == expect;
        }
        check(ok, "in_nbrhd agrees with the rank list");
    }
    check(shm_clean(0), "no shared memory with a name or an open descriptor after init");
    snprintf(what, sizeof(what), "a neighbourhood of %u ranks has %s", nb,
             nb > 1 ? "lanes of 8 slots" : "no lanes");
    check(gasnetc_pshm_lane_depth() == (nb > 1 ? 8u : 0u), what);

    if (too_big) {
        struct statvfs sv;
        uintptr_t big = 0;
        if (statvfs("/dev/shm", &sv) == 0 && sv.f_blocks)
            big = (uintptr_t)sv.f_blocks * sv.f_frsize + (1u << 20);
        if (!big) {
            if (my_rank == 0) printf("SKIP-PART: /dev/shm has no size limit\n");
        } else {
            rc = gasnetc_pshm_segment_attach(my_rank == 1 ? big : 65536, &base);
            check(rc == -1 && base == NULL, "a segment larger than /dev/shm fails at attach on all ranks");
            check(shm_clean(0), "no name or descriptor left after the failed attach");
        }
        gasnetc_pshm_fini();
        return;
    }

    /* Segments: rank 2 has none, the others differ in size. */
    uintptr_t size = my_rank == 2 ? 0 : (uintptr_t)(my_rank + 1) * 65536 + 4096;
    rc = gasnetc_pshm_segment_attach(size, &base);
    check(rc == 0 && (size == 0) == (base == NULL), "segment attach succeeds");
    check(shm_clean(size && nb > 1), "no shared memory with a name, one descriptor (own "
                                     "segment's) after attach");
    int maps_before = shm_mappings();
    {
        uint64_t mine[2] = {(uint64_t)(uintptr_t)base, size}, all[NP][2];
        fb_exchange(mine, sizeof(mine), all);
        for (uint32_t r = 0; r < nprocs; r++) {
            seg_owner[r] = (uintptr_t)all[r][0];
            seg_size[r] = (uintptr_t)all[r][1];
        }
    }
    for (uintptr_t i = 0; i < size; i++) ((uint8_t *)base)[i] = (uint8_t)(my_rank * 7 + i % 251);
    fb_barrier();
    {
        int ok = 1, bounds = 1;
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t r = ranks[k];
            const char *ob = (const char *)seg_owner[r];
            if (!seg_size[r]) {
                bounds &= gasnetc_pshm_addr(r, ob, 1) == NULL;
                continue;
            }
            const uint8_t *p = gasnetc_pshm_addr(r, ob, seg_size[r]);
            ok &= p != NULL;
            for (uintptr_t i = 0; p && i < seg_size[r]; i += 97) ok &= p[i] == (uint8_t)(r * 7 + i % 251);
            bounds &= gasnetc_pshm_addr(r, ob + seg_size[r] - 8, 8) == p + seg_size[r] - 8;
            bounds &= gasnetc_pshm_addr(r, ob + seg_size[r] - 8, 9) == NULL;
            bounds &= gasnetc_pshm_addr(r, ob - 1, 1) == NULL;
            bounds &= gasnetc_pshm_addr(r, ob + seg_size[r], 0) != NULL;
            bounds &= gasnetc_pshm_addr(r, ob, SIZE_MAX) == NULL;
            if (r == my_rank) bounds &= p == base;
        }
        for (uint32_t r = 0; r < nprocs; r++)
            if (!gasnetc_pshm_in_nbrhd(r)) bounds &= gasnetc_pshm_addr(r, (void *)seg_owner[r], 1) == NULL;
        check(ok, "every neighbour's segment is readable through gasnetc_pshm_addr");
        int others = 0;
        for (uint32_t k = 0; k < nb; k++) others += ranks[k] != my_rank && seg_size[ranks[k]];
        check(shm_mappings() == maps_before + others,
              "a neighbour's segment is mapped at its first use, not at attach");
        check(bounds, "gasnetc_pshm_addr rejects addresses outside a segment");
    }
    fb_barrier();
    /* Everyone writes its rank into the last 4 bytes-slot of each neighbour. */
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t r = ranks[k];
        if (!seg_size[r]) continue;
        uint32_t *p = gasnetc_pshm_addr(r, (char *)seg_owner[r] + 4 * my_rank, 4);
        *p = 0xabc00000u + my_rank;
    }
    fb_barrier();
    {
        int ok = 1;
        for (uint32_t k = 0; size && k < nb; k++)
            ok &= ((uint32_t *)base)[ranks[k]] == 0xabc00000u + ranks[k];
        check(ok, "writes by neighbours land in my segment");
    }
    fb_barrier();

    am_traffic(nb, ranks);
    snprintf(what, sizeof(what), "%u Short/Medium/Long Requests to each of %u neighbours, all replied", NAM, nb);
    check(req_handled == (uint64_t)NAM * nb && rep_handled == (uint64_t)NAM * nb, what);
    check(am_errors == 0, "AM payloads intact, 8-byte aligned; poll(1) ran no Requests");

    /* Exit word: the lowest rank of each neighbourhood sets it. */
    check(!gasnetc_pshm_exit_requested(&code), "exit word starts clear");
    fb_barrier();
    if (gasnetc_pshm_nbrhd_index() == 0) gasnetc_pshm_set_exit(7 + (int)ranks[0]);
    {
        int ok = 1;
        while (!gasnetc_pshm_exit_requested(&code)) sched_yield();
        ok &= code == 7 + (int)ranks[0];
        fb_barrier();
        gasnetc_pshm_set_exit(99);
        ok &= gasnetc_pshm_exit_requested(&code) && code == 7 + (int)ranks[0];
        check(ok, "exit word: first code wins, seen by the whole neighbourhood only");
    }
    fb_barrier();
    gasnetc_pshm_fini();
    gasnetc_pshm_fini();
    {
        gasnetc_am_hdr_t h;
        const uint8_t *p = gasnetc_pshm_addr(my_rank, base, 1);
        memset(&h, 0, sizeof(h));
        h.is_req = 1;
        int ok = !gasnetc_pshm_exit_requested(&code) && gasnetc_pshm_poll(0) == 0;
        ok &= gasnetc_pshm_try_send(my_rank, &h, NULL, 0) == 1;
        ok &= size == 0 || (p == base && p[100] == 0); /* pattern gone: private zeros */
        check(ok, "fini twice is harmless; afterwards queues are empty/full and segments zero");
    }
}

static int scenario(const char *title, const uint64_t *host_of, unsigned maxsize, const char *jobid,
                    int too_big)
{
    pid_t pids[NP];
    int ok = 1;

    printf("== %s\n", title);
    fflush(stdout);
    fsh = mmap(NULL, sizeof(*fsh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fsh == MAP_FAILED) return 0;
    nprocs = NP;
    for (uint32_t r = 0; r < NP; r++) {
        pids[r] = fork();
        if (pids[r] == 0) {
            my_rank = r;
            alarm(60);
            run_rank(host_of, maxsize, jobid, too_big);
            _exit(failures ? 1 : 0);
        }
    }
    for (uint32_t r = 0; r < NP; r++) {
        int ws = 0;
        if (pids[r] < 0 || waitpid(pids[r], &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws)) {
            printf("  rank %u ended with status 0x%x\n", r, ws);
            ok = 0;
        }
    }
    munmap(fsh, sizeof(*fsh));
    printf("%s: %s: all ranks exited 0\n", ok ? "PASS" : "FAIL", title);
    return ok;
}

int main(void)
{
    const uint64_t one_host[NP] = {5, 5, 5, 5};
    const uint64_t two_hosts[NP] = {1, 2, 1, 2};
    char jobid[64];
    int ok = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    snprintf(jobid, sizeof(jobid), "unit-%ld", (long)getpid());
    ok &= scenario("one host, generated job id", one_host, 0, NULL, 0);
    ok &= scenario("one host, GASNET_SUPERNODE_MAXSIZE=2", one_host, 2, jobid, 0);
    ok &= scenario("two interleaved hosts", two_hosts, 0, jobid, 0);
    ok &= scenario("GASNET_SUPERNODE_MAXSIZE=1 (PSHM off except self)", one_host, 1, jobid, 0);
    ok &= scenario("segment larger than /dev/shm", one_host, 0, jobid, 1);
    printf("%s\n", ok ? "ALL PASSED" : "FAILED");
    return ok ? 0 : 1;
}
