/* tests/unit/test-ibv-conn.c: the pure parts of connection management:
 * connect files (core/ibv/conn/connfile.c: paths with %, parsing with bases,
 * ranges, several lines per node, the symmetric rule, every error; writing
 * with ranges and long-line splitting, and reading back what was written),
 * retransmission backoff, the crossed-request tie-break, the default of
 * GASNET_CONNECT_RCVS and the GASNET_USE_XRC decision
 * (core/ibv/conn/conn_policy.c).  One line per check; exit 0 only if all passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ibv/conn/conn_policy.h"
#include "core/ibv/conn/connfile.h"
#include "tests/unit/unit-check.h"

#define N 64

/* Parses text for rank me of size ranks; renders want[] as "1 4 6" or
 * "ERR:<message>". */
static const char *parse(const char *text, uint32_t me, uint32_t size)
{
    static char out[1024];
    uint8_t want[N];
    char err[512];
    memset(want, 0, sizeof(want));
    if (gasnetc_connfile_parse(text, "f", me, size, want, err, sizeof(err))) {
        snprintf(out, sizeof(out), "ERR:%s", err);
        return out;
    }
    out[0] = '\0';
    for (uint32_t r = 0; r < size; r++)
        if (want[r]) snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%u", out[0] ? " " : "", r);
    return out;
}

/* text with its newlines shown as '|', for one-line check messages */
static const char *flat(const char *text)
{
    static char out[256];
    size_t i = 0;
    for (; text[i] && i < sizeof(out) - 1; i++) out[i] = text[i] == '\n' ? '|' : text[i] == '\r' ? '^' : text[i];
    out[i] = '\0';
    return out;
}

static void expect_parse(const char *text, uint32_t me, uint32_t size, const char *want)
{
    const char *got = parse(text, me, size);
    CHECK(!strcmp(got, want), "parse rank %u of %u: %s -> \"%s\" (want \"%s\")", me, size, flat(text), got, want);
}

static void expect_err(const char *text, uint32_t me, uint32_t size, const char *needle)
{
    const char *got = parse(text, me, size);
    CHECK(!strncmp(got, "ERR:", 4) && strstr(got, needle) && strstr(got, "GASNET_CONNECTFILE_IN") &&
              !strchr(got, '\n'),
          "error for %s mentions '%s'", flat(text), needle);
}

static void connfile_tests(void)
{
    char p[64];
    CHECK(gasnetc_connfile_path("conn.%", 7, p, sizeof(p)) == 0 && !strcmp(p, "conn.7"), "path conn.%% -> %s", p);
    CHECK(gasnetc_connfile_path("a%b%", 12, p, sizeof(p)) == 0 && !strcmp(p, "a12b12"), "path a%%b%% -> %s", p);
    CHECK(gasnetc_connfile_path("plain", 3, p, sizeof(p)) == 0 && !strcmp(p, "plain"), "path without %% unchanged");
    CHECK(gasnetc_connfile_path("%%%%", 123456, p, 8) == -1, "path too long -> -1");

    /* the seed README's examples */
    expect_parse("7: 0 4 6\n", 7, 8, "0 4 6");
    expect_parse("7:0 4\n7:6\n", 7, 8, "0 4 6");
    expect_parse("6:9-12\n", 6, 16, "9 10 11 12");
    expect_parse("6:9-12\n", 10, 16, "6"); /* the other side of a range */
    expect_parse("1:0\n0:1\n", 0, 2, "1");
    expect_parse("1:0\n", 0, 2, "1");     /* bidirectional: either line is enough */
    expect_parse("0:1\n", 1, 2, "0");
    expect_parse("7: 0 4 6\n", 5, 8, ""); /* not about rank 5 */
    expect_parse("size: 8\n7: 0\n", 7, 8, "0");
    expect_parse("base: 16\n3: a-c f\n", 3, 16, "10 11 12 15");
    expect_parse("3: 10\nbase: 2\n11: 101\n", 3, 16, "5 10"); /* base applies to later lines */
    expect_parse("base: 36\nz: 0\n", 35, 40, "0");
    expect_parse("2: 2 3\n", 2, 4, "3"); /* self is never a peer */
    expect_parse("\n# comment\n1: 0\r\n", 0, 2, "1");
    expect_parse("", 0, 2, "");
    expect_parse("1: 0", 0, 2, "1"); /* no final newline */

    expect_err("size: 9\n", 0, 8, "written for 9 processes");
    expect_err("base: 37\n", 0, 8, "base 37");
    expect_err("base: 1\n", 0, 8, "base 1");
    expect_err("7 0 4\n", 7, 8, "node:");
    expect_err(" 7: 0\n", 7, 8, "node:");
    expect_err("9: 0\n", 0, 8, "node 9");
    expect_err("1: 0 8\n", 1, 8, "peer 8");
    expect_err("1: 0 x\n", 1, 8, "'x'");
    expect_err("1: 5-3\n", 1, 8, "bad range");
    expect_err("1: 0,2\n", 1, 8, "','");
    expect_err("size: x\n", 1, 8, "size:");
    expect_err("1: 2\n1: 9\n", 1, 8, "line 2");

    /* writing */
    uint8_t used[N];
    memset(used, 0, sizeof(used));
    used[1] = used[2] = used[3] = used[5] = used[40] = 1;
    char *t = gasnetc_connfile_format(0, 41, used, 10);
    CHECK(t && !strcmp(t, "base: 10\nsize: 41\n0: 1-3 5 40\n"), "format base 10: %s", t ? flat(t) : "(null)");
    free(t);
    t = gasnetc_connfile_format(0, 41, used, 36);
    CHECK(t && !strcmp(t, "base: 36\nsize: 41\n0: 1-3 5 14\n"), "format base 36 (40 = '14')");
    free(t);
    used[4] = 1; /* a run through the writer itself: 3 4 5 with me = 4 */
    t = gasnetc_connfile_format(4, 41, used, 10);
    CHECK(t && !strcmp(t, "base: 10\nsize: 41\n4: 1-3 5 40\n"), "format skips self: %s", t ? flat(t) : "");
    free(t);
    memset(used, 0, sizeof(used));
    t = gasnetc_connfile_format(3, 8, used, 36);
    CHECK(t && !strcmp(t, "base: 36\nsize: 8\n"), "format with no peers");
    free(t);

    /* round trip: every other rank in a 2000-rank job, base 2 (long lines split) */
    enum { BIG = 2000 };
    uint8_t *u = calloc(BIG, 1), *w = calloc(BIG, 1);
    for (int r = 0; r < BIG; r += 2) u[r] = 1;
    t = gasnetc_connfile_format(1, BIG, u, 2);
    size_t longest = 0, cur = 0;
    for (const char *c = t; c && *c; c++) {
        cur = *c == '\n' ? 0 : cur + 1;
        if (cur > longest) longest = cur;
    }
    CHECK(t && longest < 160, "long output is split into lines (longest %zu)", longest);
    char err[512];
    int rc = t ? gasnetc_connfile_parse(t, "rt", 1, BIG, w, err, sizeof(err)) : -1;
    CHECK(rc == 0 && !memcmp(u, w, BIG), "written file reads back as the same peers (%s)", rc ? err : "ok");
    /* and the other side reads its pair from it */
    memset(w, 0, BIG);
    rc = t ? gasnetc_connfile_parse(t, "rt", 1000, BIG, w, err, sizeof(err)) : -1;
    CHECK(rc == 0 && w[1] && !w[0] && !w[2], "rank 1000 finds rank 1 in rank 1's file");
    free(t);
    free(u);
    free(w);
}

static void policy_tests(void)
{
    /* backoff: 10, 20, 40, 80 with max 100; then give up */
    uint64_t i = gasnetc_conn_next_interval(0, 10, 100);
    CHECK(i == 10, "first interval = min (%llu)", (unsigned long long)i);
    i = gasnetc_conn_next_interval(i, 10, 100);
    CHECK(i == 20, "doubles (%llu)", (unsigned long long)i);
    i = gasnetc_conn_next_interval(gasnetc_conn_next_interval(i, 10, 100), 10, 100);
    CHECK(i == 80, "doubles again (%llu)", (unsigned long long)i);
    CHECK(gasnetc_conn_next_interval(80, 10, 100) == 0, "past max: give up");
    CHECK(gasnetc_conn_next_interval(0, 100, 100) == 100 && gasnetc_conn_next_interval(100, 100, 100) == 0,
          "min == max: one interval");
    CHECK(gasnetc_conn_next_interval(0, 0, 10) == 1, "min 0 treated as 1");
    CHECK(gasnetc_conn_next_interval((uint64_t)1 << 63, 1, UINT64_MAX) == 0, "no overflow");
    CHECK(gasnetc_conn_total_wait(10, 100) == 150, "total wait 10+20+40+80 = %llu",
          (unsigned long long)gasnetc_conn_total_wait(10, 100));
    uint64_t def = gasnetc_conn_total_wait(20000, 40000000);
    CHECK(def > 30000000 && def < 60000000, "defaults give up after %.1f s", def / 1e6);

    /* tie-break: exactly one side accepts the other's request */
    int both_ok = 1;
    for (uint32_t a = 0; a < 20; a++)
        for (uint32_t b = 0; b < 20; b++)
            if (a != b && gasnetc_conn_accept_crossed(a, b) + gasnetc_conn_accept_crossed(b, a) != 1)
                both_ok = 0;
    CHECK(both_ok, "crossed requests: exactly one of each pair accepts");
    CHECK(gasnetc_conn_accept_crossed(5, 2) == 1 && gasnetc_conn_accept_crossed(2, 5) == 0,
          "the lower rank's request wins");

    CHECK(gasnetc_conn_default_rcvs(0) == 6 && gasnetc_conn_default_rcvs(1) == 6 &&
              gasnetc_conn_default_rcvs(2) == 6, "RCVS default floor 6");
    CHECK(gasnetc_conn_default_rcvs(3) == 8 && gasnetc_conn_default_rcvs(4) == 8, "RCVS 3..4 peers: 8");
    CHECK(gasnetc_conn_default_rcvs(1023) == 24 && gasnetc_conn_default_rcvs(1024) == 24 &&
              gasnetc_conn_default_rcvs(1025) == 26, "RCVS 1024 peers: 24, 1025: 26");

    char why[256];
    CHECK(gasnetc_xrc_decide(1, 0, 0, 1, 1, "rxe0", why, sizeof(why)) == 0 && !why[0],
          "XRC by default on Soft-RoCE: off, silently");
    CHECK(gasnetc_xrc_decide(1, 1, 0, 1, 1, "rxe0", why, sizeof(why)) == 0 &&
              strstr(why, "rxe0 does not support XRC") && !strchr(why, '\n'),
          "XRC asked for on Soft-RoCE: one line: %s", why);
    CHECK(gasnetc_xrc_decide(0, 1, 1, 1, 1, "mlx5_0", why, sizeof(why)) == 0 && !why[0], "GASNET_USE_XRC=0: off");
    CHECK(gasnetc_xrc_decide(1, 1, 1, 0, 1, "mlx5_0", why, sizeof(why)) == 0 && strstr(why, "shared receive queue"),
          "XRC without SRQ: off, says why");
    CHECK(gasnetc_xrc_decide(1, 0, 1, 0, 1, "mlx5_0", why, sizeof(why)) == 0 && !why[0],
          "XRC without SRQ by default: silent");
    CHECK(gasnetc_xrc_decide(1, 1, 1, 1, 0, "mlx5_0", why, sizeof(why)) == 0 && strstr(why, "not carry"),
          "XRC-capable HCA, no XRC transport in this build: off, says so");
    CHECK(gasnetc_xrc_decide(1, 0, 1, 1, 1, "mlx5_0", why, sizeof(why)) == 1 && !why[0],
          "XRC when everything allows it");
}

int main(void)
{
    connfile_tests();
    policy_tests();
    return unit_summary("test-ibv-conn");
}
