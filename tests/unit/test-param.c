/* tests/unit/test-param.c: the parameter table, parsers and loader.
 *
 * Valid and invalid values of every type, ranges, units, fractions,
 * families, every default re-parsed, the exact error texts, the
 * unknown-variable suggestion, GASNET_VERBOSEENV output and the fatal error
 * for a wrong accessor.  One line per check; exit 0 only if all passed.
 */
#include "other/param/param-parse.h"
#include "other/param/param-table.h"
#include "other/log/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/unit/unit-check.h"

extern char **environ;


/* Removes every GASNET* variable so the test does not depend on its caller. */
static void clear_gasnet_env(void)
{
    for (;;) {
        char **e, name[256];
        int found = 0;
        for (e = environ; e && *e; e++) {
            const char *eq = strchr(*e, '=');
            size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
            if (!strncmp(*e, "GASNET", 6) && n < sizeof name) {
                memcpy(name, *e, n);
                name[n] = '\0';
                found = 1;
                break;
            }
        }
        if (!found) return;
        unsetenv(name);
    }
}

/* Parses text as row id; returns 0/-1 and leaves the message in err. */
static char err[512];
static int64_t iv;
static double dv;
static int parse(gasneti_param_id_t id, const char *text)
{
    err[0] = '\0';
    iv = 12345;
    dv = 12345.0;
    return gasneti_param_parse(id, text, &iv, &dv, err, sizeof err);
}

#define P(name) GASNETI_PARAM_##name

static void test_int(void)
{
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "12") == 0 && iv == 12, "INT 12");
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "  7\t") == 0 && iv == 7, "INT whitespace trimmed");
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "+256") == 0 && iv == 256, "INT +256 (upper limit)");
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "0x10") == 0 && iv == 16, "INT hex 0x10");
    CHECK(parse(P(GASNET_IBV_PKEY), "0XFFFF") == 0 && iv == 0xffff, "INT hex 0XFFFF");
    CHECK(parse(P(GASNET_INLINESEND_LIMIT), "-1") == 0 && iv == -1, "INT -1 allowed");
    CHECK(parse(P(GASNET_INLINESEND_LIMIT), "-2") == -1, "INT -2 below min: %s", err);
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "abc") == -1 &&
              !strcmp(err, "GASNET_AM_CREDITS_PP=abc: not an integer (allowed: 1..256)"),
          "INT error text: %s", err);
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "0") == -1 &&
              !strcmp(err, "GASNET_AM_CREDITS_PP=0 is out of range (allowed: 1..256)"),
          "INT range error text: %s", err);
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "257") == -1, "INT 257 above max: %s", err);
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "12abc") == -1, "INT trailing junk: %s", err);
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "1.5") == -1, "INT 1.5 rejected");
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "") == -1, "INT empty rejected");
    CHECK(parse(P(GASNET_AM_CREDITS_PP), "0x") == -1, "INT bare 0x rejected");
    CHECK(parse(P(GASNET_RBUF_COUNT), "99999999999999999999") == -1 && strstr(err, "out of range"),
          "INT overflow: %s", err);
    CHECK(parse(P(GASNET_NUM_QPS), "-1") == -1 &&
              !strcmp(err, "GASNET_NUM_QPS=-1 is out of range (allowed: >= 0)"),
          "INT min-only range text: %s", err);
    CHECK(gasneti_parse_int("-9223372036854775808", &iv) == GASNETI_PARSE_OK && iv == INT64_MIN,
          "parse_int INT64_MIN");
    CHECK(gasneti_parse_int("9223372036854775808", &iv) == GASNETI_PARSE_RANGE,
          "parse_int INT64_MAX+1 is RANGE");
}

static void test_size(void)
{
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4012") == 0 && iv == 4012, "SIZE bare bytes");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4K") == 0 && iv == 4096, "SIZE 4K");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4k") == 0 && iv == 4096, "SIZE 4k");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4KB") == 0 && iv == 4096, "SIZE 4KB");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4kib") == 0 && iv == 4096, "SIZE 4kib");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), " 2 M ") == 0 && iv == 2 << 20, "SIZE ' 2 M '");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "1.5M") == 0 && iv == 3 << 19, "SIZE 1.5M");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "3G") == 0 && iv == 3LL << 30, "SIZE 3G");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "2T") == 0 && iv == 2LL << 40, "SIZE 2T");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "100B") == 0 && iv == 100, "SIZE 100B");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "0x100") == 0 && iv == 256, "SIZE hex");
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4X") == -1 &&
              !strcmp(err, "GASNET_PACKEDLONG_LIMIT=4X: bad size unit 'X' (use K, M, G or T)"),
          "SIZE bad unit text: %s", err);
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "4KX") == -1 && strstr(err, "'KX'"),
          "SIZE bad unit KX: %s", err);
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "abc") == -1 && strstr(err, "not a size"),
          "SIZE abc: %s", err);
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "-1") == -1, "SIZE negative rejected: %s", err);
    CHECK(parse(P(GASNET_PACKEDLONG_LIMIT), "99999999T") == -1 && strstr(err, "out of range"),
          "SIZE overflow: %s", err);
    CHECK(parse(P(GASNET_PUT_STRIPE_SZ), "4") == 0 && iv == 4096, "SIZE_K bare number is KiB");
    CHECK(parse(P(GASNET_PUT_STRIPE_SZ), "2M") == 0 && iv == 2 << 20, "SIZE_K 2M");
    CHECK(parse(P(GASNET_PUT_STRIPE_SZ), "512B") == 0 && iv == 512, "SIZE_K 512B is bytes");
    CHECK(parse(P(GASNET_NONBULKPUT_BOUNCE_LIMIT), "64K") == 0 && iv == 65536, "SIZE 64K");
}

static void test_memfrac(void)
{
    double f;
    uint64_t b;
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "0.5") == 0 && dv == 0.5 && iv == -1, "MEMFRAC 0.5");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "2/3") == 0 && dv > 0.666 && dv < 0.667, "MEMFRAC 2/3");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), " 5 / 8 ") == 0 && dv == 0.625, "MEMFRAC ' 5 / 8 '");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "4G") == 0 && iv == 4LL << 30 && dv == -1.0, "MEMFRAC 4G");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "1") == 0 && iv == 1, "MEMFRAC 1 is one byte");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "3/2") == -1 && strstr(err, "not a fraction below 1"),
          "MEMFRAC 3/2: %s", err);
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "-0.5") == -1, "MEMFRAC negative rejected");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "1/0") == -1, "MEMFRAC 1/0 rejected");
    CHECK(parse(P(GASNET_PHYSMEM_MAX), "4X") == -1 && strstr(err, "bad size unit 'X'"),
          "MEMFRAC bad unit: %s", err);
    CHECK(gasneti_parse_memfrac("0.25", &f, &b, NULL, 0) == 1 && f == 0.25 && b == 0,
          "parse_memfrac fraction");
    CHECK(gasneti_parse_memfrac("512M", &f, &b, NULL, 0) == 0 && b == 512u << 20,
          "parse_memfrac size");
    /* Sizes GASNet reads as memory sizes that may be -1 (issue 13). */
    CHECK(parse(P(GASNET_INLINESEND_LIMIT), "-1") == 0 && iv == -1, "SSIZE -1");
    CHECK(parse(P(GASNET_INLINESEND_LIMIT), "128B") == 0 && iv == 128, "SSIZE 128B");
    CHECK(parse(P(GASNET_AM_GATHER_MIN), "1.5K") == 0 && iv == 1536, "SSIZE 1.5K");
    CHECK(parse(P(GASNET_AM_GATHER_MIN), "-2") == -1, "SSIZE -2 out of range");
    CHECK(parse(P(GASNET_NONBULKPUT_BOUNCE_LIMIT), "64KB") == 0 && iv == 65536, "SIZE 64KB");
    CHECK(parse(P(GASNET_NONBULKPUT_BOUNCE_LIMIT), "0.5 MB") == 0 && iv == 524288, "SIZE '0.5 MB'");
    CHECK(parse(P(GASNET_CONNECT_DYNAMIC), "Y") == 0 && iv == 1 &&
              parse(P(GASNET_CONNECT_DYNAMIC), "No") == 0 && iv == 0,
          "BOOL as GASNet spells it (Y, No)");
    /* GASNET_MAX_SEGSIZE: GASNet's <fraction or size>[/P|/H] (issue 13). */
    int sc;
    CHECK(gasneti_parse_memscope("0.85/H", &f, &b, &sc, NULL, 0) == 1 && f == 0.85 && sc == 'H',
          "memscope 0.85/H");
    CHECK(gasneti_parse_memscope("128.0MB/P", &f, &b, &sc, NULL, 0) == 0 && b == 128u << 20 &&
              sc == 'P',
          "memscope 128.0MB/P");
    CHECK(gasneti_parse_memscope(" 4GB / p ", &f, &b, &sc, NULL, 0) == 0 && b == 4ULL << 30 &&
              sc == 'P',
          "memscope ' 4GB / p '");
    CHECK(gasneti_parse_memscope("2/3h", &f, &b, &sc, NULL, 0) == 1 && f > 0.66 && sc == 'H',
          "memscope 2/3h");
    CHECK(gasneti_parse_memscope("4G", &f, &b, &sc, NULL, 0) == 0 && b == 4ULL << 30 && sc == 0,
          "memscope 4G (no suffix)");
    CHECK(gasneti_parse_memscope("3/2", &f, &b, &sc, NULL, 0) == 0 && b == 1, "memscope 3/2");
    CHECK(gasneti_parse_memscope("1e9/P", &f, &b, &sc, NULL, 0) == 0 && b == 1000000000u,
          "memscope 1e9/P");
    CHECK(gasneti_parse_memscope("0x10", &f, &b, &sc, NULL, 0) == 0 && b == 16, "memscope 0x10");
    CHECK(gasneti_parse_memscope("/H", &f, &b, &sc, NULL, 0) < 0, "memscope /H alone");
    CHECK(parse(P(GASNET_MAX_SEGSIZE), "0.85/H") == 0 && dv == 0.85, "MAX_SEGSIZE 0.85/H");
    CHECK(parse(P(GASNET_MAX_SEGSIZE), "128MB/P") == 0 && iv == 128 << 20, "MAX_SEGSIZE 128MB/P");
    CHECK(parse(P(GASNET_MAX_SEGSIZE), "0/H") == -1 && strstr(err, "is zero"),
          "MAX_SEGSIZE 0/H: %s", err);
    CHECK(parse(P(GASNET_MAX_SEGSIZE), "4X/P") == -1 && strstr(err, "bad size unit 'X'"),
          "MAX_SEGSIZE 4X/P: %s", err);
    CHECK(parse(P(GASNET_MAX_SEGSIZE), "abc") == -1 && strstr(err, "/H (per host)"),
          "MAX_SEGSIZE abc: %s", err);
}

static void test_double_bool_string(void)
{
    CHECK(parse(P(GASNET_EXITTIMEOUT_FACTOR), "0.25") == 0 && dv == 0.25, "DOUBLE 0.25");
    CHECK(parse(P(GASNET_EXITTIMEOUT_MAX), "1e2") == 0 && dv == 100.0, "DOUBLE 1e2");
    CHECK(parse(P(GASNET_EXITTIMEOUT), "0") == -1 &&
              !strcmp(err, "GASNET_EXITTIMEOUT=0 is out of range (allowed: >= 1)"),
          "EXITTIMEOUT 0 refused (a shorter exit cuts clean exits short): %s", err);
    CHECK(parse(P(GASNET_EXITTIMEOUT_FACTOR), "3/8") == 0 && dv == 0.375, "DOUBLE fraction 3/8");
    CHECK(parse(P(GASNET_EXITTIMEOUT_FACTOR), "abc") == -1 &&
              !strcmp(err, "GASNET_EXITTIMEOUT_FACTOR=abc: not a number (allowed: >= 0)"),
          "DOUBLE error text: %s", err);
    CHECK(parse(P(GASNET_EXITTIMEOUT_MAX), "inf") == -1, "DOUBLE inf rejected");
    CHECK(parse(P(GASNET_EXITTIMEOUT_MAX), "nan") == -1, "DOUBLE nan rejected");
    CHECK(parse(P(GASNET_BOOTSTRAP_TIMEOUT), "0.5") == -1 &&
              !strcmp(err, "GASNET_BOOTSTRAP_TIMEOUT=0.5 is out of range (allowed: >= 1)"),
          "DOUBLE range text: %s", err);
    {
        static const char *const yes[] = {"1", "yes", "Y", "TRUE", "On", " y "};
        static const char *const no[] = {"0", "No", "n", "false", "OFF"};
        size_t i;
        for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
            CHECK(parse(P(GASNET_QUIET), yes[i]) == 0 && iv == 1, "BOOL '%s' is true", yes[i]);
        for (i = 0; i < sizeof no / sizeof no[0]; i++)
            CHECK(parse(P(GASNET_QUIET), no[i]) == 0 && iv == 0, "BOOL '%s' is false", no[i]);
    }
    CHECK(parse(P(GASNET_QUIET), "2") == -1, "BOOL 2 rejected");
    CHECK(parse(P(GASNET_QUIET), "maybe") == -1 &&
              !strcmp(err, "GASNET_QUIET=maybe: not a boolean "
                           "(use 1/0, yes/no, y/n, true/false or on/off)"),
          "BOOL error text: %s", err);
    CHECK(parse(P(GASNET_IBV_PORTS), "mlx5_0+mlx5_1:2") == 0, "STRING accepts anything");
}

/* Every row: a valid name, a doc line, a default that parses, limits that
 * parse with the row's own type, no limits where they make no sense. */
static void test_table(void)
{
    int i, bad = 0;
    for (i = 0; i < GASNETI_PARAM_COUNT; i++) {
        const gasneti_param_row_t *row = gasneti_param_row((gasneti_param_id_t)i);
        const char *lim[2] = {row->min, row->max};
        int k;
        /* GASNET_* and GASNETRUN_* rows, plus the spawner command templates
         * that GASNet names without the prefix. */
        if (strncmp(row->name, "GASNET_", 7) && strncmp(row->name, "GASNETRUN_", 10) &&
            strcmp(row->name, "MPIRUN_CMD") && strcmp(row->name, "PMIRUN_CMD")) {
            printf("FAIL row %s: name must start with GASNET_ or GASNETRUN_ (or be MPIRUN_CMD / "
                   "PMIRUN_CMD)\n", row->name);
            bad++;
        }
        if (!row->doc || strlen(row->doc) < 10 || strchr(row->doc, '\n')) {
            printf("FAIL row %s: needs a one-line doc\n", row->name);
            bad++;
        }
        if (!strncmp(row->name, "GASNETRUN_", 10) != !!(row->flags & GASNETI_PF_INTERNAL)) {
            printf("FAIL row %s: GASNETRUN_ rows and only they are INTERNAL\n", row->name);
            bad++;
        }
        if (row->def[0] && parse((gasneti_param_id_t)i, row->def) != 0) {
            printf("FAIL row %s: default does not parse: %s\n", row->name, err);
            bad++;
        }
        for (k = 0; k < 2; k++) {
            int64_t li;
            uint64_t lu;
            double ld;
            int rc = GASNETI_PARSE_OK;
            if (!lim[k][0]) continue;
            switch (row->type) {
            case GASNETI_PT_INT:
            case GASNETI_PT_SSIZE: rc = gasneti_parse_int(lim[k], &li); break;
            case GASNETI_PT_DOUBLE: rc = gasneti_parse_double(lim[k], &ld); break;
            case GASNETI_PT_SIZE:
            case GASNETI_PT_SIZE_K:
            case GASNETI_PT_SIZE_M: rc = gasneti_parse_size(lim[k], 1, &lu, NULL, 0); break;
            default: rc = GASNETI_PARSE_SYNTAX; /* BOOL/STRING/MEMFRAC: no limits */
            }
            if (rc != GASNETI_PARSE_OK) {
                printf("FAIL row %s: limit '%s' invalid for its type\n", row->name, lim[k]);
                bad++;
            }
        }
    }
    CHECK(bad == 0, "all %d rows: names, docs, defaults and limits valid", GASNETI_PARAM_COUNT);
    CHECK(!strcmp(gasneti_param_name(P(GASNET_AM_CREDITS_PP)), "GASNET_AM_CREDITS_PP"),
          "gasneti_param_name");
    CHECK(gasneti_edit_distance("GASNET_AM_CREDIT_PP", "GASNET_AM_CREDITS_PP") == 1 &&
              gasneti_edit_distance("ab", "ba") == 1 && gasneti_edit_distance("", "abc") == 3 &&
              gasneti_edit_distance("kitten", "sitting") == 3,
          "edit distance");
}

static void test_loader(void)
{
    double frac;
    uint64_t bytes;
    clear_gasnet_env();
    CHECK(gasneti_params_load() == 0 && gasneti_params_error() == NULL, "clean load");
    /* Reloading keeps one copy per value (issue 19: a copy per reload was
     * left unreachable, reported by LeakSanitizer). */
    setenv("GASNET_IBV_PORTS", "mlx5_0:1", 1);
    gasneti_params_load();
    const char *first = gasneti_param_str(P(GASNET_IBV_PORTS));
    gasneti_params_load();
    CHECK(first && gasneti_param_str(P(GASNET_IBV_PORTS)) == first &&
              !strcmp(first, "mlx5_0:1"),
          "reload with the same value reuses its copy");
    setenv("GASNET_IBV_PORTS", "mlx5_1", 1);
    gasneti_params_load();
    CHECK(!strcmp(gasneti_param_str(P(GASNET_IBV_PORTS)), "mlx5_1") && !strcmp(first, "mlx5_0:1"),
          "a new value gets its own copy; the old one stays valid");
    clear_gasnet_env();
    gasneti_params_load();
    CHECK(gasneti_param_int(P(GASNET_AM_CREDITS_PP)) == 12 &&
              !gasneti_param_isset(P(GASNET_AM_CREDITS_PP)),
          "default 12, not set");
    CHECK(gasneti_param_size(P(GASNET_NONBULKPUT_BOUNCE_LIMIT)) == 65536, "default 64K");
    CHECK(gasneti_param_double(P(GASNET_EXITTIMEOUT_MAX)) == 360.0, "default 360.0");
    CHECK(gasneti_param_bool(P(GASNET_CONNECT_DYNAMIC)) == 1, "default bool true");
    CHECK(gasneti_param_memfrac(P(GASNET_PHYSMEM_MAX), &frac, &bytes) == 1 && frac > 0.66 &&
              bytes == 0,
          "default memfrac 2/3");
    CHECK(!gasneti_param_isset(P(GASNET_EXITTIMEOUT)) && gasneti_param_str(P(GASNETRUN_JOBID)) == NULL,
          "empty default: unset, NULL");
    CHECK(gasneti_param_str(P(GASNET_IBV_SPAWNER)) != NULL, "spawner default from configure: %s",
          gasneti_param_str(P(GASNET_IBV_SPAWNER)));

    setenv("GASNET_AM_CREDITS_PP", " 32 ", 1);
    setenv("GASNET_PHYSMEM_MAX", "8G", 1);
    setenv("GASNET_EXITTIMEOUT", "", 1); /* empty = unset */
    setenv("GASNETRUN_JOBID", "job42", 1);
    CHECK(gasneti_params_load() == 0, "load with valid values");
    CHECK(gasneti_param_int(P(GASNET_AM_CREDITS_PP)) == 32 && gasneti_param_isset(P(GASNET_AM_CREDITS_PP)),
          "set value 32");
    CHECK(gasneti_param_memfrac(P(GASNET_PHYSMEM_MAX), &frac, &bytes) == 0 && bytes == 8ULL << 30,
          "memfrac size 8G");
    CHECK(!gasneti_param_isset(P(GASNET_EXITTIMEOUT)), "empty value counts as unset");
    CHECK(!strcmp(gasneti_param_str(P(GASNETRUN_JOBID)), "job42"), "string value");

    setenv("GASNET_AM_CREDITS_PP", "abc", 1);
    setenv("GASNET_PACKEDLONG_LIMIT", "4X", 1);
    CHECK(gasneti_params_load() == 2, "two invalid values counted");
    CHECK(gasneti_params_error() &&
              !strcmp(gasneti_params_error(),
                      "GASNET_PACKEDLONG_LIMIT=4X: bad size unit 'X' (use K, M, G or T)"),
          "first error (table order) reported: %s", gasneti_params_error() ? gasneti_params_error() : "(none)");
    CHECK(gasneti_param_int(P(GASNET_AM_CREDITS_PP)) == 12, "invalid value falls back to default");

    clear_gasnet_env();
    CHECK(gasneti_params_load() == 0, "reload after clearing");
}

static void test_family(void)
{
    clear_gasnet_env();
    gasneti_params_load();
    CHECK(gasneti_param_family_str(P(GASNET_IBV_PORTS), 1) == NULL ||
              !strcmp(gasneti_param_family_str(P(GASNET_IBV_PORTS), 1),
                      gasneti_param_str(P(GASNET_IBV_PORTS))),
          "family: nothing set gives the default");
    setenv("GASNET_IBV_PORTS", "mlx5_0+mlx5_3", 1);
    setenv("GASNET_IBV_PORTS_1", "mlx5_1", 1);
    gasneti_params_load();
    CHECK(!strcmp(gasneti_param_family_str(P(GASNET_IBV_PORTS), 1), "mlx5_1"), "family: NAME_1 wins");
    CHECK(!strcmp(gasneti_param_family_str(P(GASNET_IBV_PORTS), 0), "mlx5_0+mlx5_3"),
          "family: falls back to NAME");
    clear_gasnet_env();
    gasneti_params_load();
}

/* Runs fn() with stderr captured into buf. */
static void capture(void (*fn)(void), char *buf, size_t len)
{
    char path[] = "/tmp/test-param-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    ssize_t n;
    fflush(stderr);
    dup2(fd, 2);
    fn();
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    n = read(fd, buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

static void log_some(void)
{
    gasneti_warning("value %d of %s", 7, "GASNET_X");
    gasneti_info("line with newline\n");
}

static void log_long(void)
{
    static char big[10000];
    memset(big, 'x', sizeof big - 1);
    gasneti_warning("%s", big);
}

static void test_log(void)
{
    static char out[16384];
    char expect[256];
    clear_gasnet_env();
    gasneti_params_load();
    snprintf(expect, sizeof expect, "*** WARNING (pid %ld): value 7 of GASNET_X\n", (long)getpid());
    capture(log_some, out, sizeof out);
    CHECK(!strncmp(out, expect, strlen(expect)), "warning before identity names the pid");
    CHECK(strstr(out, "gasnet: line with newline\n") && !strstr(out, "newline\n\n"),
          "info: prefix, exactly one newline");
    gasneti_log_set_identity(3, "node12");
    CHECK(!strcmp(gasneti_log_identity(), "rank 3 on node12"), "identity text");
    capture(log_some, out, sizeof out);
    CHECK(!strncmp(out, "*** WARNING (rank 3 on node12): value 7 of GASNET_X\n", 52),
          "warning prefix with rank and host");
    capture(log_long, out, sizeof out);
    CHECK(strlen(out) < 4100 && strstr(out, "...\n") && strchr(out, '\n') == out + strlen(out) - 1,
          "over-long message cut to one line ending in ...");
    setenv("GASNET_QUIET", "1", 1);
    gasneti_params_load();
    capture(log_some, out, sizeof out);
    CHECK(!strstr(out, "WARNING") && strstr(out, "gasnet: line"), "GASNET_QUIET: no warnings, info kept");
    clear_gasnet_env();
    gasneti_params_load();
}

static void test_report(void)
{
    static char out[65536];
    clear_gasnet_env();
    setenv("GASNET_AM_CREDIT_PP", "4", 1);
    setenv("GASNET_IBV_PORTS_3", "mlx5_0", 1);
    setenv("GASNET_TOTALLY_UNRELATED_THING", "1", 1);
    setenv("GASNET_HCA_ID", "mlx4_0", 1);
    setenv("GASNET_DUMMY", "1", 1);
    setenv("GASNET_TEST_POLITE_SYNC", "0", 1);
    gasneti_params_load();
    capture(gasneti_params_report, out, sizeof out);
    CHECK(strstr(out, "GASNET_AM_CREDIT_PP is not a known variable (did you mean GASNET_AM_CREDITS_PP?)") != NULL,
          "unknown variable gets a suggestion");
    CHECK(strstr(out, "GASNET_IBV_PORTS_3") == NULL, "family member NAME_3 is known");
    CHECK(strstr(out, "GASNET_TOTALLY_UNRELATED_THING") == NULL,
          "far-off name (a client's own variable): no warning");
    CHECK(strstr(out, "GASNET_DUMMY") == NULL && strstr(out, "GASNET_TEST_POLITE_SYNC") == NULL,
          "GASNet test variables: no warning");
    CHECK(strstr(out, "GASNET_HCA_ID=mlx4_0") != NULL, "deprecated variable warns");
    CHECK(strstr(out, "GASNET_AM_CREDITS_PP = ") == NULL, "no VERBOSEENV output by default");

    /* Another spelling of ours, and other conduits' variables. */
    setenv("GASNET_max_segsize", "1G", 1);
    setenv("GASNET_PSHM_NODES", "1", 1);
    setenv("GASNET_NETWORKDEPTH", "8", 1);
    gasneti_params_load();
    capture(gasneti_params_report, out, sizeof out);
    CHECK(strstr(out, "GASNET_max_segsize is ignored: variable names are case-sensitive (use "
                      "GASNET_MAX_SEGSIZE)") != NULL, "case variant of a name warns (got '%.300s')", out);
    CHECK(strstr(out, "GASNET_PSHM_NODES=1 is ignored (another GASNet conduit's setting): "
                      "smp-conduit") != NULL && strstr(out, "gasnetrun_ibv -n N") != NULL,
          "GASNET_PSHM_NODES: names smp-conduit and what to use");
    CHECK(strstr(out, "GASNET_NETWORKDEPTH=8 is ignored") != NULL &&
              strstr(out, "GASNET_NETWORKDEPTH is not a known") == NULL,
          "a foreign variable: its own warning, no typo hint");
    unsetenv("GASNET_max_segsize");
    unsetenv("GASNET_PSHM_NODES");
    unsetenv("GASNET_NETWORKDEPTH");

    setenv("GASNET_VERBOSEENV", "1", 1);
    gasneti_params_load();
    capture(gasneti_params_report, out, sizeof out);
    CHECK(strstr(out, "gasnet: GASNET_AM_CREDITS_PP = 12   (default)") != NULL,
          "VERBOSEENV default line");
    CHECK(strstr(out, "gasnet: GASNET_VERBOSEENV = 1   (set)") != NULL, "VERBOSEENV set line");
    CHECK(strstr(out, "gasnet: GASNET_IBV_PORTS_3 = mlx5_0   (set)") != NULL,
          "VERBOSEENV shows family members");
    CHECK(strstr(out, "GASNETRUN_") == NULL, "VERBOSEENV hides internal rows");

    setenv("GASNET_QUIET", "yes", 1);
    unsetenv("GASNET_VERBOSEENV");
    gasneti_params_load();
    capture(gasneti_params_report, out, sizeof out);
    CHECK(out[0] == '\0', "GASNET_QUIET suppresses the warnings (got '%.60s')", out);
    clear_gasnet_env();
    gasneti_params_load();
}

/* A wrong accessor is a bug: it must end the process with a message. */
static void test_wrong_accessor(void)
{
    int pipefd[2], status = 0;
    char buf[1024];
    ssize_t n;
    pid_t pid;
    if (pipe(pipefd) != 0) {
        CHECK(0, "pipe");
        return;
    }
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        setenv("GASNET_BACKTRACE", "1", 1);
        gasneti_params_load();
        (void)gasneti_param_int(P(GASNET_QUIET)); /* a BOOL row */
        _exit(0);
    }
    close(pipefd[1]);
    {
        size_t got = 0;
        while (got < sizeof buf - 1 && (n = read(pipefd[0], buf + got, sizeof buf - 1 - got)) > 0)
            got += (size_t)n;
        buf[got] = '\0';
    }
    close(pipefd[0]);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1 && strstr(buf, "*** FATAL ERROR") &&
              strstr(buf, "GASNET_QUIET"),
          "wrong accessor is fatal: %.120s", buf);
    CHECK(strstr(buf, "*** Backtrace (") != NULL, "GASNET_BACKTRACE=1 prints a backtrace");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_int();
    test_size();
    test_memfrac();
    test_double_bool_string();
    test_table();
    test_loader();
    test_family();
    test_report();
    test_log();
    test_wrong_accessor();
    return unit_summary("test-param");
}
