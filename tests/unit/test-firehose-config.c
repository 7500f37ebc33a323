/* tests/unit/test-firehose-config.c: firehose parameters.
 *
 * firehose_config_resolve (pure): the default pool split (75/25 with remote
 * pinning, all-victim with FAST), one or both pools set, the "enlarged pool"
 * warning, region counts from GASNET_PINNED_REGIONS_MAX (count, fraction,
 * default from the HCA and GASNET_PHYSMEM_MAX, per host), truncation of R to
 * M / region size, the automatic region size, put-in-move fitted to the
 * message size, and every configuration error (one line naming the
 * variable).  Then the same rows read from the environment through the
 * parameter table, a bad value, and the GASNET_DISABLE_MUNMAP policy.
 */
#include "firehose/firehose.h"
#include "other/param/param.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;
/* One line per check: "ok <what>" or "FAIL file:line: <what>". */
#define CHECK(cond, ...)                                \
    do {                                                \
        checks++;                                       \
        if (!(cond)) {                                  \
            failures++;                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
        } else {                                        \
            printf("ok ");                              \
        }                                               \
        printf(__VA_ARGS__);                            \
    } while (0)

#define KB 1024ull
#define MB (1024ull * 1024)
#define GB (1024ull * 1024 * 1024)

static firehose_user_t u;
static firehose_env_t e;
static firehose_config_t c;
static char why[512];

static void reset(int nodes, int remote)
{
    firehose_user_defaults(&u);
    memset(&e, 0, sizeof e);
    e.nodes = nodes;
    e.mynode = 0;
    e.remote = remote;
    e.host_procs = 1;
    e.page_size = 4096;
    e.pool_bytes = GB;
    e.msg_max = 4096;
    why[0] = 0;
}

static int resolve(void)
{
    return firehose_config_resolve(&u, &e, &c, why, sizeof why);
}

static void test_defaults(void)
{
    reset(4, 1);
    CHECK(resolve() == 0 && c.enabled && c.remote, "LARGE defaults resolve: %s\n", why);
    CHECK(c.region_max == 128 * KB, "region 128K (%zu)\n", c.region_max);
    CHECK(c.main_bytes == 768 * MB && c.victim_bytes == 256 * MB, "75/25 split\n");
    CHECK(c.main_regions == 768 * MB / (128 * KB) && c.victim_regions == 256 * MB / (128 * KB),
          "regions cut to what the pools address (%llu, %llu)\n",
          (unsigned long long)c.main_regions, (unsigned long long)c.victim_regions);
    CHECK(c.peer_bytes == 256 * MB && c.peer_regions == c.main_regions / 3, "share of 3 peers\n");
    CHECK(c.putinmove_limit == 3072 && c.warning[0] == 0, "put-in-move 3K, no warning\n");

    reset(4, 0);
    CHECK(resolve() == 0 && c.enabled && !c.remote, "FAST defaults: %s\n", why);
    CHECK(c.main_bytes == 0 && c.main_regions == 0 && c.victim_bytes == GB &&
              c.victim_regions == GB / (128 * KB) && c.putinmove_limit == 0,
          "FAST: everything in the victim pool\n");
}

static void test_split(void)
{
    reset(2, 1);
    u.m = 100 * MB;
    CHECK(resolve() == 0 && c.main_bytes == 100 * MB && c.victim_bytes == GB - 100 * MB,
          "only M set: the victim pool gets the rest\n");
    reset(2, 1);
    u.maxvictim_m = 100 * MB;
    CHECK(resolve() == 0 && c.victim_bytes == 100 * MB && c.main_bytes == GB - 100 * MB,
          "only MAXVICTIM_M set: the main pool gets the rest\n");
    reset(2, 1);
    u.m = GB;
    u.maxvictim_m = 512 * MB;
    CHECK(resolve() == 0 && c.main_bytes == GB && c.victim_bytes == 512 * MB &&
              strstr(c.warning, "GASNET_FIREHOSE_M") != NULL,
          "both set beyond the pool: honoured, with a warning (%s)\n", c.warning);
    reset(2, 1);
    u.r = 1000000;
    u.maxvictim_r = 10;
    CHECK(resolve() == 0 && c.main_regions == c.main_bytes / c.region_max &&
              c.victim_regions == 10,
          "R silently cut to M / region size\n");
}

static void test_regions(void)
{
    reset(2, 1);
    u.regions_max = 1000;
    e.host_procs = 4;
    CHECK(resolve() == 0 && c.main_regions == 187 && c.victim_regions == 63,
          "PINNED_REGIONS_MAX=1000 per host of 4: 250 split 3:1 (%llu, %llu)\n",
          (unsigned long long)c.main_regions, (unsigned long long)c.victim_regions);
    reset(2, 0);
    u.regions_max_frac = 0.5;
    e.hca_max_regions = 10000;
    e.host_procs = 2;
    CHECK(resolve() == 0 && c.victim_regions == 2500, "fraction of the HCA's regions (%llu)\n",
          (unsigned long long)c.victim_regions);
    reset(2, 0);
    e.hca_max_regions = 100000;
    e.physmem_fraction = 0.5;
    e.host_procs = 2;
    CHECK(resolve() == 0 && c.victim_regions == 8192, "default: HCA x PHYSMEM fraction, cut to "
                                                      "the pool (%llu)\n",
          (unsigned long long)c.victim_regions);
    e.pool_bytes = 16 * GB;
    CHECK(resolve() == 0 && c.victim_regions == 25000, "default with a large pool (%llu)\n",
          (unsigned long long)c.victim_regions);
    reset(2, 1);
    u.region_size = 0;
    u.regions_max = 1000;
    CHECK(resolve() == 0 && c.region_max == 2 * MB,
          "automatic region size: 1G in 1000 regions -> 2M (%zu)\n", c.region_max);
    reset(2, 1);
    e.msg_max = 256;
    CHECK(resolve() == 0 && c.putinmove_limit == 256 - 48 - 64 && c.msg_max == 256,
          "put-in-move fitted to a 256-byte message (%zu)\n", c.putinmove_limit);
}

static void expect_error(const char *what, const char *needle)
{
    int rc = resolve();
    CHECK(rc == -1 && strstr(why, needle) != NULL && strchr(why, '\n') == NULL,
          "%s -> one-line error naming %s: %s\n", what, needle, why);
}

static void test_errors(void)
{
    reset(2, 1);
    u.region_size = 100000;
    expect_error("region size not a page multiple", "GASNET_FIREHOSE_MAXREGION_SIZE=100000");
    reset(2, 1);
    u.maxvictim_m = 64 * KB;
    expect_error("victim pool below one region", "GASNET_FIREHOSE_MAXVICTIM_M=64K");
    reset(64, 1);
    u.m = 4 * MB;
    expect_error("main pool below one region per peer", "GASNET_FIREHOSE_M=4M");
    reset(2, 1);
    u.use_firehose = 0;
    expect_error("firehose off with a LARGE segment", "GASNET_USE_FIREHOSE=0");
    reset(2, 1);
    u.putinmove = 5000;
    expect_error("put-in-move above the build's maximum", "GASNET_PUTINMOVE_LIMIT=5000");
    reset(2, 1);
    e.msg_max = 100;
    expect_error("AM payload too small for move requests", "100 bytes");
    reset(2, 1);
    u.regions_max = 3;
    e.host_procs = 4;
    expect_error("no region for this process", "GASNET_PINNED_REGIONS_MAX=3");
    reset(2, 0);
    u.use_firehose = 0;
    CHECK(resolve() == 0 && !c.enabled, "GASNET_USE_FIREHOSE=0 with FAST: disabled, no error\n");
}

static void test_environment(void)
{
    setenv("GASNET_USE_FIREHOSE", "no", 1);
    setenv("GASNET_FIREHOSE_M", "64", 1); /* bare number: MiB */
    setenv("GASNET_FIREHOSE_MAXVICTIM_R", "77", 1);
    setenv("GASNET_FIREHOSE_MAXREGION_SIZE", "256K", 1);
    setenv("GASNET_PINNED_REGIONS_MAX", "0.5", 1);
    setenv("GASNET_PUTINMOVE_LIMIT", "1K", 1);
    setenv("GASNET_FIREHOSE_TABLE_SCALE", "0.5", 1);
    setenv("GASNET_FIREHOSE_VERBOSE", "1", 1);
    CHECK(gasneti_params_load() == 0, "parameters load: %s\n",
          gasneti_params_error() ? gasneti_params_error() : "");
    firehose_user_t p;
    firehose_user_from_params(&p);
    CHECK(p.use_firehose == 0 && p.m == (int64_t)(64 * MB) && p.maxvictim_m == -1 &&
              p.r == -1 && p.maxvictim_r == 77 && p.region_size == 256 * 1024 &&
              p.regions_max == -1 && p.regions_max_frac == 0.5 && p.putinmove == 1024 &&
              p.table_scale == 0.5 && p.verbose == 1,
          "GASNET_* read into firehose_user_t\n");
    unsetenv("GASNET_USE_FIREHOSE");
    unsetenv("GASNET_FIREHOSE_M");
    unsetenv("GASNET_FIREHOSE_MAXVICTIM_R");
    unsetenv("GASNET_FIREHOSE_MAXREGION_SIZE");
    unsetenv("GASNET_PINNED_REGIONS_MAX");
    unsetenv("GASNET_FIREHOSE_TABLE_SCALE");
    unsetenv("GASNET_FIREHOSE_VERBOSE");
    setenv("GASNET_PUTINMOVE_LIMIT", "4K", 1);
    const char *err = NULL;
    CHECK(gasneti_params_load() > 0 && (err = gasneti_params_error()) != NULL &&
              strstr(err, "GASNET_PUTINMOVE_LIMIT=4K") != NULL,
          "GASNET_PUTINMOVE_LIMIT=4K refused: %s\n", err ? err : "(none)");
    unsetenv("GASNET_PUTINMOVE_LIMIT");
    CHECK(gasneti_params_load() == 0, "defaults load\n");
    firehose_user_from_params(&p);
    CHECK(p.use_firehose == 1 && p.m == -1 && p.region_size == 128 * 1024 && p.putinmove == 3072 &&
              p.table_scale == 1.0 && p.verbose == 0,
          "defaults from the table\n");

    setenv("GASNET_DISABLE_MUNMAP", "0", 1);
    gasneti_params_load();
    CHECK(firehose_munmap_policy_apply(1) == 0, "GASNET_DISABLE_MUNMAP=0: malloc untouched\n");
    unsetenv("GASNET_DISABLE_MUNMAP");
    gasneti_params_load();
    CHECK(firehose_munmap_policy_apply(0) == 0, "unset, firehose unused: untouched\n");
    CHECK(firehose_munmap_policy_apply(1) == (sizeof(void *) == 8),
          "unset, firehose in use, 64-bit: munmap disabled\n");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_defaults();
    test_split();
    test_regions();
    test_errors();
    test_environment();
    printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
    return failures ? 1 : 0;
}
