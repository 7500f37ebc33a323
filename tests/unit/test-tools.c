/* tests/unit/test-tools.c: gasnet_tools.h (built PAR: atomics under
 * contention from two threads).  Atomics of every width, fence flags,
 * ticks, sleep, mutex/cond, thread keys, the getenv family and system
 * queries.  One line per check; exit 0 only if all passed. */
#include <gasnet_tools.h>
/* Included second on purpose: the conduit part of gasnet_tools.h
 * (gasnett_format_*, gasnett_mmap, ...) must appear in this order too. */
#include <gasnetex.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit-check.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>


GASNETT_IDENT(test_tools_ident, "$TestTools: ident $");
GASNETT_THREADKEY_DEFINE(test_key);

static void test_atomics(void)
{
    gasnett_atomic_t a = gasnett_atomic_init(10);
    gasnett_atomic32_t a32 = gasnett_atomic32_init(0xfffffffe);
    gasnett_atomic64_t a64 = gasnett_atomic64_init(1);
    gasnett_strongatomic_t s = gasnett_strongatomic_init(3);

    CHECK(gasnett_atomic_read(&a, 0) == 10, "atomic init/read");
    gasnett_atomic_set(&a, 5, GASNETT_ATOMIC_REL);
    gasnett_atomic_increment(&a, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST);
    gasnett_atomic_decrement(&a, 0);
    gasnett_atomic_decrement(&a, 0);
    CHECK(gasnett_atomic_read(&a, GASNETT_ATOMIC_ACQ) == 4, "set/increment/decrement");
    CHECK(gasnett_atomic_add(&a, 6, 0) == 10, "add returns the new value");
    CHECK(gasnett_atomic_subtract(&a, 3, 0) == 7, "subtract returns the new value");
    CHECK(gasnett_atomic_compare_and_swap(&a, 7, 9, GASNETT_ATOMIC_ACQ_IF_TRUE) &&
              gasnett_atomic_read(&a, 0) == 9,
          "CAS succeeds on match");
    CHECK(!gasnett_atomic_compare_and_swap(&a, 7, 11, GASNETT_ATOMIC_ACQ_IF_FALSE) &&
              gasnett_atomic_read(&a, 0) == 9,
          "CAS fails on mismatch");
    CHECK(gasnett_atomic_swap(&a, 1, 0) == 9 && gasnett_atomic_read(&a, 0) == 1,
          "swap returns the old value");
    CHECK(gasnett_atomic_decrement_and_test(&a, 0) && !gasnett_atomic_decrement_and_test(&a, 0),
          "decrement_and_test true only at zero");
    CHECK(gasnett_atomic_read(&a, 0) == GASNETT_ATOMIC_MAX &&
              gasnett_atomic_signed(gasnett_atomic_read(&a, 0)) == -1,
          "wraps below zero; signed view is -1");
    gasnett_atomic32_increment(&a32, 0);
    gasnett_atomic32_increment(&a32, 0);
    CHECK(gasnett_atomic32_read(&a32, 0) == 0, "atomic32 wraps at 2^32");
    CHECK(gasnett_atomic64_add(&a64, (uint64_t)1 << 40, 0) == ((uint64_t)1 << 40) + 1,
          "atomic64 add beyond 32 bits");
    CHECK(gasnett_atomic64_compare_and_swap(&a64, ((uint64_t)1 << 40) + 1, 2, 0) &&
              gasnett_atomic64_read(&a64, 0) == 2,
          "atomic64 CAS");
    CHECK(gasnett_strongatomic_add(&s, 2, 0) == 5, "strongatomic add");
    {
        int32_t plain = 41;
        gasnett_atomic32_increment((gasnett_atomic32_t *)&plain, 0);
        CHECK(plain == 42, "atomic32 on a cast int32_t");
    }
}

#define NTHREADS 2
#define NITER 200000
static gasnett_atomic_t shared_ctr = gasnett_atomic_init(0);
static gasnett_atomic64_t shared_cas = gasnett_atomic64_init(0);
static gasnett_mutex_t lock = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t cond = GASNETT_COND_INITIALIZER;
static int started;

static void *worker(void *arg)
{
    int i;
    gasnett_threadkey_set(test_key, arg);
    gasnett_mutex_lock(&lock);
    started++;
    gasnett_cond_broadcast(&cond);
    gasnett_mutex_unlock(&lock);
    for (i = 0; i < NITER; i++) {
        uint64_t old;
        gasnett_atomic_increment(&shared_ctr, 0);
        do {
            old = gasnett_atomic64_read(&shared_cas, 0);
        } while (!gasnett_atomic64_compare_and_swap(&shared_cas, old, old + 1, 0));
    }
    return gasnett_threadkey_get(test_key) == arg ? arg : NULL;
}

static void test_threads(void)
{
    pthread_t th[NTHREADS];
    long ids[NTHREADS];
    int i, keys_ok = 1;
    gasnett_threadkey_set(test_key, NULL);
    for (i = 0; i < NTHREADS; i++) {
        ids[i] = i + 1;
        pthread_create(&th[i], NULL, worker, &ids[i]);
    }
    gasnett_mutex_lock(&lock);
    while (started < NTHREADS) gasnett_cond_wait(&cond, &lock);
    gasnett_mutex_unlock(&lock);
    for (i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        if (r != &ids[i]) keys_ok = 0;
    }
    CHECK(gasnett_atomic_read(&shared_ctr, 0) == (uint64_t)NTHREADS * NITER,
          "concurrent increments: %llu", (unsigned long long)gasnett_atomic_read(&shared_ctr, 0));
    CHECK(gasnett_atomic64_read(&shared_cas, 0) == (uint64_t)NTHREADS * NITER,
          "concurrent CAS loops: %llu", (unsigned long long)gasnett_atomic64_read(&shared_cas, 0));
    CHECK(keys_ok && gasnett_threadkey_get(test_key) == NULL, "thread keys are per thread");
    CHECK(gasnett_mutex_trylock(&lock) == 0, "trylock on a free mutex");
    gasnett_mutex_unlock(&lock);
}

static void test_time(void)
{
    gasnett_tick_t t0 = gasnett_ticks_now(), t1, prev = t0;
    int i, mono = 1;
    for (i = 0; i < 100000; i++) {
        gasnett_tick_t t = gasnett_ticks_now();
        if (t < prev) mono = 0;
        prev = t;
    }
    CHECK(mono, "ticks never go back");
    t0 = gasnett_ticks_now();
    gasnett_nsleep(2000000);
    t1 = gasnett_ticks_now();
    CHECK(gasnett_ticks_to_ns(t1 - t0) >= 2000000 && gasnett_ticks_to_us(t1 - t0) < 2000000,
          "nsleep(2 ms) took %llu us", (unsigned long long)gasnett_ticks_to_us(t1 - t0));
    CHECK(gasnett_tick_granularityus() > 0 && gasnett_tick_granularityus() < 1000,
          "granularity %.3f us", gasnett_tick_granularityus());
    CHECK(gasnett_tick_overheadus() > 0 && gasnett_tick_overheadus() < 100, "overhead %.3f us",
          gasnett_tick_overheadus());
    CHECK(gasnett_gettimeofday_us() > 1500000000ull * 1000000ull, "gettimeofday_us plausible");
    CHECK(GASNETT_TICK_MIN < GASNETT_TICK_MAX, "TICK_MIN < TICK_MAX");
}

static void test_env_and_system(void)
{
    char buf[64];
    setenv("TEST_TOOLS_STR", "hello", 1);
    setenv("TEST_TOOLS_YES", "Yes", 1);
    setenv("TEST_TOOLS_SIZE", "64K", 1);
    setenv("TEST_TOOLS_BARE", "3", 1);
    setenv("TEST_TOOLS_DBL", "3/8", 1);
    unsetenv("TEST_TOOLS_UNSET");
    CHECK(gasnett_getenv("TEST_TOOLS_UNSET") == NULL && !strcmp(gasnett_getenv("TEST_TOOLS_STR"), "hello"),
          "gasnett_getenv");
    CHECK(!strcmp(gasnett_getenv_withdefault("TEST_TOOLS_UNSET", "dflt"), "dflt"), "withdefault");
    CHECK(gasnett_getenv_yesno_withdefault("TEST_TOOLS_YES", 0) == 1 &&
              gasnett_getenv_yesno_withdefault("TEST_TOOLS_UNSET", 1) == 1,
          "yesno_withdefault");
    CHECK(gasnett_getenv_int_withdefault("TEST_TOOLS_SIZE", 0, 1) == 65536, "int_withdefault 64K");
    CHECK(gasnett_getenv_int_withdefault("TEST_TOOLS_BARE", 0, 1024) == 3072,
          "int_withdefault bare number in the default unit");
    CHECK(gasnett_getenv_int_withdefault("TEST_TOOLS_UNSET", -7, 0) == -7, "int default");
    CHECK(gasnett_getenv_dbl_withdefault("TEST_TOOLS_DBL", 0) == 0.375, "dbl_withdefault 3/8");
    CHECK(gasnett_parse_int("0x20", 0) == 32 && gasnett_parse_int("2M", 1) == 2 << 20, "parse_int");
    CHECK(!strcmp(gasnett_format_number(65536, buf, sizeof buf, 1), "64 KB"), "format_number %s",
          buf);
    CHECK(gasnett_cpu_count() > 0, "cpu_count %d", gasnett_cpu_count());
    CHECK(gasnett_getPhysMemSz(0) > (uint64_t)64 << 20, "physmem %llu MiB",
          (unsigned long long)(gasnett_getPhysMemSz(0) >> 20));
    CHECK(gasnett_gethostname()[0] != '\0', "hostname %s", gasnett_gethostname());
    CHECK(!strcmp(gasnett_release_version_str(), GASNET_RELEASE_VERSION_STR) &&
              gasnett_release_version() / 1000000 == GASNETT_RELEASE_VERSION_MAJOR,
          "release version %s", gasnett_release_version_str());
    CHECK(gasnett_isLittleEndian() == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__), "endianness");
    CHECK(strstr(test_tools_ident, "$TestTools:") != NULL, "GASNETT_IDENT");
#if GASNETT_THREAD_SAFE
    CHECK(1, "GASNETT_THREAD_SAFE in a GASNET_PAR build");
#else
    CHECK(0, "GASNETT_THREAD_SAFE in a GASNET_PAR build");
#endif
}

static gex_RMA_Value_t value_return(const void *src, size_t nbytes)
{
    GASNETT_VALUE_RETURN(src, nbytes);
}

static int bt_calls;
static int user_backtrace(int fd)
{
    (void)fd;
    bt_calls++;
    return 0;
}

/* Platform macros, sizes, formats and configuration strings. */
static void test_platform(void)
{
    char buf[64];
    CHECK(PLATFORM_COMPILER_FAMILYID == GASNETT_PLATFORM_COMPILER_FAMILYID &&
              PLATFORM_COMPILER_ID == GASNETT_PLATFORM_COMPILER_ID &&
              PLATFORM_COMPILER_VERSION == GASNETT_PLATFORM_COMPILER_VERSION,
          "PLATFORM_COMPILER_* match the configure-time compiler (%s)",
          PLATFORM_STRINGIFY(PLATFORM_COMPILER_FAMILYNAME));
    CHECK(!strcmp(PLATFORM_COMPILER_IDSTR, GASNETT_PLATFORM_COMPILER_IDSTR) ||
              strstr(PLATFORM_COMPILER_IDSTR, "|COMPILER_FAMILY:") == PLATFORM_COMPILER_IDSTR,
          "PLATFORM_COMPILER_IDSTR: %s", PLATFORM_COMPILER_IDSTR);
    CHECK(PLATFORM_COMPILER_VERSION_GE(1, 0, 0) && PLATFORM_COMPILER_VERSION_LT(999, 0, 0) &&
              !PLATFORM_COMPILER_VERSION_GT(999, 0, 0),
          "PLATFORM_COMPILER_VERSION comparisons (%s)", PLATFORM_COMPILER_VERSION_STR);
#if defined(PLATFORM_ARCH_64)
    CHECK(sizeof(void *) == 8, "PLATFORM_ARCH_64 and pointer size agree");
#else
    CHECK(sizeof(void *) == 4, "PLATFORM_ARCH_32 and pointer size agree");
#endif
#if defined(PLATFORM_ARCH_LITTLE_ENDIAN)
    CHECK(gasnett_isLittleEndian(), "PLATFORM_ARCH_LITTLE_ENDIAN");
#else
    CHECK(!gasnett_isLittleEndian(), "PLATFORM_ARCH_BIG_ENDIAN");
#endif
#if defined(__linux__)
    CHECK(!strcmp(PLATFORM_STRINGIFY(PLATFORM_OS_FAMILYNAME), "LINUX") && PLATFORM_OS_LINUX,
          "PLATFORM_OS_LINUX");
#endif
    CHECK(SIZEOF_INT == sizeof(int) && SIZEOF_LONG == sizeof(long) &&
              SIZEOF_VOID_P == sizeof(void *) && SIZEOF_SIZE_T == sizeof(size_t) &&
              SIZEOF_DOUBLE == sizeof(double) && SIZEOF_LONG_DOUBLE == sizeof(long double) &&
              SIZEOF_SHORT == sizeof(short) && SIZEOF_LONG_LONG == sizeof(long long),
          "SIZEOF_* match sizeof");
    snprintf(buf, sizeof buf, "%" PRIuSZ "/%" PRIxSZ "/%" PRIdSZ, (size_t)1234, (size_t)255,
             (ssize_t)-5);
    CHECK(!strcmp(buf, "1234/ff/-5"), "PRI*SZ formats: %s", buf);
    CHECK(!strcmp(_STRINGIFY(_CONCAT(ab, cd)), "abcd") && MIN(2, 3) == 2 && MAX(2, 3) == 3,
          "_STRINGIFY/_CONCAT/MIN/MAX");
    CHECK(strlen(GASNETT_SYSTEM_TUPLE) > 0 && strstr(GASNETT_CONFIG_STRING, "PAR") != NULL,
          "GASNETT_SYSTEM_TUPLE %s, GASNETT_CONFIG_STRING %s", GASNETT_SYSTEM_TUPLE,
          GASNETT_CONFIG_STRING);
}

/* The services of tools-misc.c and tools-conduit.c. */
static void test_services(void)
{
    unsigned char src[100], dst[100];
    char buf[256];
    size_t i;
    struct rlimit rl;

    for (i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i % 3 ? i : 0);
    CHECK(gasnett_count0s(src, sizeof src) == 34, "count0s counts zero bytes");
    CHECK(gasnett_count0s_copy(dst, src, sizeof src) == 34 && !memcmp(dst, src, sizeof src),
          "count0s_copy copies and counts");
    CHECK(gasnett_count0s_uint32_t(0) == 4 && gasnett_count0s_uint32_t(0x01000100u) == 2 &&
              gasnett_count0s_uint64_t(0) == 8 && gasnett_count0s_uint64_t(~(uint64_t)0) == 0 &&
              gasnett_count0s_uintptr_t((uintptr_t)0xff) == (int)sizeof(uintptr_t) - 1,
          "count0s of words");

    gasnett_setenv("TEST_TOOLS_SURFACE", "42");
    CHECK(gasnett_getenv("TEST_TOOLS_SURFACE") && !strcmp(gasnett_getenv("TEST_TOOLS_SURFACE"), "42"),
          "setenv is seen by gasnett_getenv");
    gasnett_unsetenv("TEST_TOOLS_SURFACE");
    CHECK(gasnett_getenv("TEST_TOOLS_SURFACE") == NULL, "unsetenv removes it");

    CHECK(strstr(gasnett_exe_name(), "test-tools") != NULL && gasnett_exe_name()[0] == '/',
          "exe_name: %s", gasnett_exe_name());
    CHECK(!strcmp(gasnett_signame_fromval(SIGINT), "SIGINT") &&
              !strcmp(gasnett_signame_fromval(SIGSEGV), "SIGSEGV") &&
              gasnett_signame_fromval(-7) == NULL,
          "signame_fromval");
    CHECK(strstr(gasnett_current_loc, "test_services at ") == gasnett_current_loc &&
              strstr(gasnett_current_loc, "test-tools.c:") != NULL,
          "current_loc: %s", gasnett_current_loc);

    /* RLIMIT_CORE: lower the soft limit, then maximize it (unless told not to). */
    if (getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_max > 0) {
        rlim_t hard = rl.rlim_max;
        rl.rlim_cur = 0;
        setrlimit(RLIMIT_CORE, &rl);
        gasnett_setenv("GASNET_MAXIMIZE_RLIMIT_CORE", "no");
        CHECK(gasnett_maximize_rlimit(RLIMIT_CORE, "RLIMIT_CORE") && getrlimit(RLIMIT_CORE, &rl) == 0 &&
                  rl.rlim_cur == 0,
              "maximize_rlimit obeys GASNET_MAXIMIZE_RLIMIT_CORE=no");
        gasnett_unsetenv("GASNET_MAXIMIZE_RLIMIT_CORE");
        CHECK(gasnett_maximize_rlimit(RLIMIT_CORE, "RLIMIT_CORE") && getrlimit(RLIMIT_CORE, &rl) == 0 &&
                  rl.rlim_cur == hard,
              "maximize_rlimit raises the soft limit to the hard one");
    }
    CHECK(gasnett_maximize_rlimits() || 1, "maximize_rlimits returns");

    CHECK(gasnett_format_dt(NULL, GEX_DT_I32 | GEX_DT_U64) == strlen("GEX_DT_I32|GEX_DT_U64") &&
              gasnett_format_dt(buf, GEX_DT_I32 | GEX_DT_U64) && !strcmp(buf, "GEX_DT_I32|GEX_DT_U64"),
          "format_dt: %s", buf);
    gasnett_format_op(buf, GEX_OP_FADD | GEX_OP_CAS);
    CHECK(!strcmp(buf, "GEX_OP_FADD|GEX_OP_CAS"), "format_op: %s", buf);
    gasnett_format_ti(buf, 0);
    CHECK(!strcmp(buf, "0"), "format_ti of nothing: %s", buf);
    gasnett_format_ti(buf, GEX_TI_ALL);
    CHECK(strstr(buf, "GEX_TI_SRCRANK") && strstr(buf, "GEX_TI_IS_LONG"), "format_ti: %s", buf);

    {
        char a[64], *bigbuf;
        gex_Memvec_t mv[3] = {{a + 8, 8}, {a, 4}, {a + 40, 0}};
        void *al[2] = {a + 16, a};
        ptrdiff_t strides[2] = {8, 64};
        size_t count[2] = {4, 3};
        gasneti_memveclist_stats_t ms;
        gasneti_addrlist_stats_t as;
        bigbuf = (char *)malloc(gasnett_format_putsgets_bufsz(2) + gasnett_format_putvgetv_bufsz(3, 3) +
                                gasnett_format_putigeti_bufsz(2, 2));
        ms = gasnett_format_memveclist(bigbuf, 3, mv);
        CHECK(ms._totalsz == 12 && ms._minaddr == (void *)a && ms._maxaddr == (void *)(a + 15) &&
                  strlen(bigbuf) < gasnett_format_memveclist_bufsz(3) &&
                  strstr(bigbuf, "3 entries, totalsz=12") == bigbuf,
              "format_memveclist: %s", bigbuf);
        CHECK(gasnett_format_putvgetv(bigbuf, GEX_TM_INVALID, 3, 3, mv, 2, mv) == 12 &&
                  strstr(bigbuf, "(12 data bytes) peer=3") == bigbuf &&
                  strlen(bigbuf) < gasnett_format_putvgetv_bufsz(3, 2),
              "format_putvgetv");
        as = gasnett_format_addrlist(bigbuf, 2, al, 8);
        CHECK(as._minaddr == (void *)a && as._maxaddr == (void *)(a + 23) &&
                  strlen(bigbuf) < gasnett_format_addrlist_bufsz(2),
              "format_addrlist: %s", bigbuf);
        CHECK(gasnett_format_putigeti(bigbuf, GEX_TM_INVALID, 1, 2, al, 8, 2, al, 8) == 16 &&
                  strstr(bigbuf, "(16 data bytes) peer=1") == bigbuf,
              "format_putigeti");
        gasnett_format_strides(bigbuf, 2, strides);
        CHECK(!strcmp(bigbuf, "[8, 64]"), "format_strides: %s", bigbuf);
        CHECK(gasnett_format_putsgets(bigbuf, NULL, GEX_TM_INVALID, 2, a, strides, a, strides, 2,
                                      count, 2) == 24 &&
                  strstr(bigbuf, "(24 data bytes) peer=2 elemsz=2 count=[4, 3]") == bigbuf &&
                  strlen(bigbuf) < gasnett_format_putsgets_bufsz(2),
              "format_putsgets: %s", bigbuf);
        free(bigbuf);
    }
    {
        unsigned char *m = (unsigned char *)gasnett_mmap(1 << 20);
        CHECK(m && m[0] == 0 && m[(1 << 20) - 1] == 0, "mmap gives zeroed memory");
        m[12345] = 7;
        CHECK(m[12345] == 7, "mmap memory is writable");
        munmap(m, 1 << 20);
    }
    {
        uint64_t word = 0;
        uint16_t half = 0x1234;
        GASNETT_VALUE_ASSIGN(&word, (gex_RMA_Value_t)0x1122334455667788ull, 8);
        CHECK(word == 0x1122334455667788ull && value_return(&word, 8) == word &&
                  value_return(&half, 2) == 0x1234,
              "GASNETT_VALUE_ASSIGN / GASNETT_VALUE_RETURN");
    }
    {
        gex_AM_Entry_t *table = (gex_AM_Entry_t *)1;
        int cnt = -1;
        gasnett_diagnostic_gethandlers(&table, &cnt);
        CHECK(table == NULL && cnt == 0, "diagnostic_gethandlers: no handlers needed");
        CHECK(gasnett_run_diagnostics(1000, 4, "abcd", GEX_TM_INVALID, NULL, 0, NULL) == 0,
              "run_diagnostics (timers, atomics, barriers, threads) passes");
        CHECK(gasnett_run_diagnostics(10, 1, "E", GEX_TM_INVALID, NULL, 0, NULL) == 0,
              "run_diagnostics skips RMA without a team");
    }
    {
        gasnett_backtrace_type_t bt = {"TEST", user_backtrace, 1};
        gasnett_backtrace_user = bt;
        CHECK(gasnett_print_backtrace(-1) == 0 && bt_calls == 1,
              "print_backtrace uses gasnett_backtrace_user first");
        gasnett_backtrace_user.fnp = NULL;
    }
    CHECK(gasnet_frozen == 0, "gasnet_frozen starts at 0");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_atomics();
    test_threads();
    test_time();
    test_env_and_system();
    test_platform();
    test_services();
    return unit_summary("test-tools");
}
