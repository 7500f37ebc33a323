/* tests/unit/test-tools.c: gasnet_tools.h (built PAR: atomics under
 * contention from two threads).  Atomics of every width, fence flags,
 * ticks, sleep, mutex/cond, thread keys, the getenv family and system
 * queries.  One line per check; exit 0 only if all passed. */
#include <gasnet_tools.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit-check.h"


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

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_atomics();
    test_threads();
    test_time();
    test_env_and_system();
    return unit_summary("test-tools");
}
