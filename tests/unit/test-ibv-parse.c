/* tests/unit/test-ibv-parse.c: the pure parsers of HCA/port selection
 * (core/ibv/ports/ports_parse.c): GASNET_IBV_PORTS filters, the
 * GASNET_IBV_LIST_PORTS_NODES rank list, GASNET_MAX_MTU, GASNET_IBV_PKEY and
 * the GID preference.  Valid and invalid input; errors must name the culprit.
 * One line per check; exit 0 only if all passed.
 */
#include <stdio.h>
#include <string.h>

#include "core/ibv/ports/ports_parse.h"
#include "tests/unit/unit-check.h"


/* ---- GASNET_IBV_PORTS --------------------------------------------------------- */

static void test_portspec_valid(void)
{
    gasnetc_ibv_portspec_t s;
    const gasnetc_ibv_portspec_entry_t *e;
    char err[256] = "";

    check(gasnetc_ibv_portspec_parse(NULL, &s, err, sizeof(err)) == 0 && s.count == 0, "ports: NULL = no filter");
    check(gasnetc_ibv_portspec_parse("", &s, err, sizeof(err)) == 0 && s.count == 0, "ports: empty = no filter");
    check(gasnetc_ibv_portspec_parse("  ", &s, err, sizeof(err)) == 0 && s.count == 0, "ports: blanks = no filter");

    check(gasnetc_ibv_portspec_parse("mlx5_0+mlx5_1:2", &s, err, sizeof(err)) == 0 && s.count == 2,
          "ports: seed README example parses to 2 entries");
    e = gasnetc_ibv_portspec_find(&s, "mlx5_0");
    check(e && e->any_port && !gasnetc_ibv_portspec_lists(e, 1), "ports: mlx5_0 = first active port");
    e = gasnetc_ibv_portspec_find(&s, "mlx5_1");
    check(e && !e->any_port && gasnetc_ibv_portspec_lists(e, 2) && !gasnetc_ibv_portspec_lists(e, 1),
          "ports: mlx5_1:2 = port 2 only");
    check(!gasnetc_ibv_portspec_find(&s, "mlx5_2") && !gasnetc_ibv_portspec_find(&s, "mlx5"),
          "ports: unnamed HCAs (and prefixes) do not match");
    gasnetc_ibv_portspec_free(&s);
    check(s.count == 0 && s.entries == NULL, "ports: free empties the spec");

    check(gasnetc_ibv_portspec_parse("hca:1,2,254+hca:3+rxe0", &s, err, sizeof(err)) == 0 && s.count == 2,
          "ports: duplicates merge");
    e = gasnetc_ibv_portspec_find(&s, "hca");
    check(e && gasnetc_ibv_portspec_lists(e, 1) && gasnetc_ibv_portspec_lists(e, 2) &&
              gasnetc_ibv_portspec_lists(e, 3) && gasnetc_ibv_portspec_lists(e, 254) &&
              !gasnetc_ibv_portspec_lists(e, 4) && !e->any_port,
          "ports: merged port lists 1,2,3,254");
    gasnetc_ibv_portspec_free(&s);

    check(gasnetc_ibv_portspec_parse(" mlx4_0 : 1 , 2 + qib0 ", &s, err, sizeof(err)) == 0 && s.count == 2 &&
              gasnetc_ibv_portspec_lists(gasnetc_ibv_portspec_find(&s, "mlx4_0"), 2) &&
              gasnetc_ibv_portspec_find(&s, "qib0") != NULL,
          "ports: blanks around names, ports and separators are allowed");
    gasnetc_ibv_portspec_free(&s);
    check(gasnetc_ibv_portspec_parse("nonexistent", &s, err, sizeof(err)) == 0 && s.count == 1,
          "ports: an unknown HCA name is valid syntax (ignored at selection)");
    gasnetc_ibv_portspec_free(&s);
    check(gasnetc_ibv_portspec_parse("a+a", &s, err, sizeof(err)) == 0 && s.count == 1,
          "ports: a+a is one entry");
    gasnetc_ibv_portspec_free(&s);
}

static void expect_ports_error(const char *text, const char *needle)
{
    gasnetc_ibv_portspec_t s;
    char err[256] = "", what[400];
    int rc = gasnetc_ibv_portspec_parse(text, &s, err, sizeof(err));
    snprintf(what, sizeof(what), "ports: '%s' rejected, message names '%s' (got: %s)", text, needle, err);
    check(rc == -1 && s.count == 0 && strstr(err, needle) != NULL, what);
    gasnetc_ibv_portspec_free(&s);
}

static void test_portspec_invalid(void)
{
    expect_ports_error("mlx5_0:", "missing port");
    expect_ports_error("mlx5_0:x", "'x' is not a port number");
    expect_ports_error("mlx5_0:0", "port 0 is out of range");
    expect_ports_error("mlx5_0:255", "port 255 is out of range");
    expect_ports_error("mlx5_0:99999999999", "not a port number");
    expect_ports_error("mlx5_0:1,,2", "missing port");
    expect_ports_error("mlx5_0:1,", "missing port");
    expect_ports_error(":1", "no HCA name");
    expect_ports_error("a++b", "empty entry");
    expect_ports_error("+a", "empty entry");
    expect_ports_error("a+", "empty entry");
    expect_ports_error("mlx5_0:1:2", "unexpected ':'");
    expect_ports_error("mlx5_0 mlx5_1", "unexpected 'm'");
    expect_ports_error("a,b", "unexpected ','");
    expect_ports_error("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "longer than 63");
}

/* ---- GASNET_IBV_LIST_PORTS_NODES ------------------------------------------------ */

static void test_nodelist(void)
{
    char err[256] = "", what[400];
    static const struct {
        const char *text;
        unsigned rank;
        int want;
    } ok[] = {
        {NULL, 7, 1},         {"", 0, 1},          {"*", 123, 1},      {" * ", 5, 1},
        {"0,2-4,6", 0, 1},    {"0,2-4,6", 1, 0},   {"0,2-4,6", 2, 1},  {"0,2-4,6", 3, 1},
        {"0,2-4,6", 4, 1},    {"0,2-4,6", 5, 0},   {"0,2-4,6", 6, 1},  {"0,2-4,6", 7, 0},
        {"5", 5, 1},          {"5-5", 5, 1},       {" 1 , 3 - 4 ", 4, 1},
        {"4294967295", 4294967295u, 1},            {"0-4294967295", 99, 1},
    };
    static const struct {
        const char *text;
        const char *needle;
    } bad[] = {
        {"x", "'x' in 'x' is not a rank"}, {"0,,2", "empty item"},      {"1,", "empty item"},
        {",1", "empty item"},              {"4-2", "reversed (write 2-4)"}, {"2-", "no valid end"},
        {"1-x", "no valid end"},           {"1;2", "unexpected ';'"},    {"*,1", "not a rank"},
        {"-1", "not a rank"},              {"4294967296", "not a rank"}, {"1 2", "unexpected '2'"},
    };
    size_t i;
    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int got = gasnetc_ibv_nodelist_match(ok[i].text, ok[i].rank, err, sizeof(err));
        snprintf(what, sizeof(what), "nodes: '%s' %s rank %u", ok[i].text ? ok[i].text : "(unset)",
                 ok[i].want ? "includes" : "excludes", ok[i].rank);
        check(got == ok[i].want, what);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int got;
        err[0] = '\0';
        got = gasnetc_ibv_nodelist_match(bad[i].text, 0, err, sizeof(err));
        snprintf(what, sizeof(what), "nodes: '%s' rejected with '%s' (got: %s)", bad[i].text, bad[i].needle,
                 err);
        check(got == -1 && strstr(err, bad[i].needle) != NULL, what);
    }
    /* An error later in the list is reported even when the rank matched early. */
    check(gasnetc_ibv_nodelist_match("0,zz", 0, err, sizeof(err)) == -1, "nodes: whole list is checked");
}

/* ---- MTU, P_Key, GIDs -------------------------------------------------------------- */

static void test_mtu(void)
{
    char err[256] = "";
    static const int good[] = {-1, 0, 256, 512, 1024, 2048, 4096};
    static const int bad[] = {-2, 1, 100, 255, 300, 1000, 1500, 3000, 8192, 9000};
    size_t i;
    int all = 1;
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        all &= gasnetc_ibv_mtu_check(good[i], err, sizeof(err)) == 0;
    check(all, "mtu: -1, 0, 256..4096 accepted");
    for (i = 0, all = 1; i < sizeof(bad) / sizeof(bad[0]); i++)
        all &= gasnetc_ibv_mtu_check(bad[i], err, sizeof(err)) == -1;
    check(all, "mtu: other values rejected");
    gasnetc_ibv_mtu_check(1500, err, sizeof(err));
    check(strstr(err, "1500 is not a valid MTU") && strstr(err, "256, 512, 1024, 2048 or 4096"),
          "mtu: message names the value and the allowed ones");
    check(gasnetc_ibv_mtu_code(256) == 1 && gasnetc_ibv_mtu_code(4096) == 5 && gasnetc_ibv_mtu_code(1500) == 0,
          "mtu: byte count -> verbs code");
    check(gasnetc_ibv_mtu_bytes(3) == 1024 && gasnetc_ibv_mtu_bytes(0) == 0 && gasnetc_ibv_mtu_bytes(6) == 0,
          "mtu: verbs code -> bytes");
    check(gasnetc_ibv_mtu_choose(5, 0) == 5 && gasnetc_ibv_mtu_choose(5, -1) == 5 &&
              gasnetc_ibv_mtu_choose(5, 1024) == 3 && gasnetc_ibv_mtu_choose(3, 4096) == 3,
          "mtu: GASNET_MAX_MTU caps the active MTU");
}

static void test_pkey(void)
{
    char err[256] = "";
    static const uint16_t table[] = {0xffff, 0x0012, 0x8012, 0x7fff, 0};
    check(gasnetc_ibv_pkey_check(2, err, sizeof(err)) == 2 && gasnetc_ibv_pkey_check(0x7fff, err, sizeof(err)) == 0x7fff,
          "pkey: 2 and 0x7fff valid");
    check(gasnetc_ibv_pkey_check(0x8012, err, sizeof(err)) == 0x12, "pkey: membership bit ignored");
    check(gasnetc_ibv_pkey_check(1, err, sizeof(err)) == -1 && strstr(err, "0x1)") &&
              strstr(err, "0x0002..0x7fff"),
          "pkey: 1 rejected with the allowed range");
    check(gasnetc_ibv_pkey_check(0x8001, err, sizeof(err)) == -1, "pkey: 0x8001 (= 1) rejected");
    check(gasnetc_ibv_pkey_check(0x10000, err, sizeof(err)) == -1, "pkey: > 0xffff rejected");
    check(gasnetc_ibv_pkey_find(table, 5, 0x12) == 2, "pkey: full member preferred");
    check(gasnetc_ibv_pkey_find(table, 2, 0x12) == 1, "pkey: partial member found");
    check(gasnetc_ibv_pkey_find(table, 5, 0x7fff) == 0, "pkey: default key at index 0");
    check(gasnetc_ibv_pkey_find(table, 5, 0x33) == -1, "pkey: absent key");
}

static void test_gid(void)
{
    static const uint8_t zero[16] = {0};
    static const uint8_t v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 169, 254, 1, 1};
    static const uint8_t ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
    static const uint8_t gl[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    char buf[64];
    int v2v4 = gasnetc_ibv_gid_preference(v4, GASNETC_IBV_GID_TYPE_ROCE_V2);
    int v2gl = gasnetc_ibv_gid_preference(gl, GASNETC_IBV_GID_TYPE_ROCE_V2);
    int v2ll = gasnetc_ibv_gid_preference(ll, GASNETC_IBV_GID_TYPE_ROCE_V2);
    int v1v4 = gasnetc_ibv_gid_preference(v4, GASNETC_IBV_GID_TYPE_ROCE_V1);
    int v1ll = gasnetc_ibv_gid_preference(ll, GASNETC_IBV_GID_TYPE_ROCE_V1);
    check(gasnetc_ibv_gid_preference(zero, GASNETC_IBV_GID_TYPE_ROCE_V2) == 0, "gid: zero GID never chosen");
    check(v2v4 > v2gl && v2gl > v2ll, "gid: RoCEv2 IPv4-mapped > global IPv6 > link-local");
    check(v2ll > v1v4 && v1v4 > v1ll && v1ll > 0, "gid: any RoCEv2 > any RoCEv1 > 0");
    gasnetc_ibv_gid_format(v4, buf, sizeof(buf));
    check(!strcmp(buf, "::ffff:169.254.1.1"), "gid: IPv4-mapped text form");
    gasnetc_ibv_gid_format(ll, buf, sizeof(buf));
    check(!strcmp(buf, "fe80::211:22ff:fe33:4455"), "gid: link-local text form");
    check(!strcmp(gasnetc_ibv_gid_type_name(GASNETC_IBV_GID_TYPE_ROCE_V2), "RoCEv2"), "gid: type names");
}

int main(void)
{
    test_portspec_valid();
    test_portspec_invalid();
    test_nodelist();
    test_mtu();
    test_pkey();
    test_gid();
    return unit_summary("test-ibv-parse");
}
