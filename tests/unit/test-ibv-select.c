/* tests/unit/test-ibv-select.c: the HCA/port selection policy
 * (core/ibv/ports/ports_select.c) on made-up machines: filters, inactive ports,
 * first-port rule, link layers, the build's HCA limit, GASNET_NUM_QPS and
 * the hwloc nearest-HCA preference.  One line per check; exit 0 only if all
 * passed.
 */
#include <stdio.h>
#include <string.h>

#include "core/ibv/ports/ports_select.h"
#include "tests/unit/unit-check.h"


#define IB GASNETC_IBV_LINK_IB
#define ETH GASNETC_IBV_LINK_ETH

/* Runs the policy and renders the selection as "hca:port hca:port" in rail
 * order, for compact expectations. */
static const char *run(gasnetc_ibv_cand_t *c, int n, const char *filter, int max_hcas, int num_qps)
{
    static char out[256];
    gasnetc_ibv_portspec_t spec;
    char err[128];
    int i, k, nsel;
    out[0] = '\0';
    if (gasnetc_ibv_portspec_parse(filter, &spec, err, sizeof(err)) != 0) return "PARSE-ERROR";
    nsel = gasnetc_ibv_select(c, n, &spec, max_hcas, num_qps);
    gasnetc_ibv_portspec_free(&spec);
    for (k = 0; k < nsel; k++)
        for (i = 0; i < n; i++)
            if (c[i].order == k) {
                char one[80];
                snprintf(one, sizeof(one), "%s%s:%d", k ? " " : "", c[i].hca, c[i].port);
                strncat(out, one, sizeof(out) - strlen(out) - 1);
            }
    return out;
}

static void expect(const char *got, const char *want, const char *what)
{
    char line[400];
    snprintf(line, sizeof(line), "%s: want '%s', got '%s'", what, want, got);
    check(!strcmp(got, want), line);
}

/* A two-HCA, two-ports-each machine: all active, InfiniBand. */
static void machine(gasnetc_ibv_cand_t *c)
{
    static const gasnetc_ibv_cand_t m[4] = {
        {"mlx5_0", 1, 1, IB, 0, -1, 0, 0}, {"mlx5_0", 2, 1, IB, 0, -1, 0, 0},
        {"mlx5_1", 1, 1, IB, 0, -1, 0, 0}, {"mlx5_1", 2, 1, IB, 0, -1, 0, 0},
    };
    memcpy(c, m, sizeof(m));
}

static void test_defaults_and_filter(void)
{
    gasnetc_ibv_cand_t c[4];
    machine(c);
    expect(run(c, 4, "", 1, 0), "mlx5_0:1", "default, 1 HCA: first active port of first HCA");
    check(c[1].verdict == GASNETC_IBV_V_EXTRA_PORT && c[2].verdict == GASNETC_IBV_V_MAX_HCAS,
          "default, 1 HCA: verdicts EXTRA_PORT and MAX_HCAS");
    machine(c);
    expect(run(c, 4, "", 2, 0), "mlx5_0:1 mlx5_1:1", "default, multi-rail: first port of each HCA");
    machine(c);
    expect(run(c, 4, "mlx5_0+mlx5_1:2", 2, 0), "mlx5_0:1 mlx5_1:2", "seed example mlx5_0+mlx5_1:2");
    check(c[3].verdict == GASNETC_IBV_V_SELECTED && c[2].verdict == GASNETC_IBV_V_FILTERED,
          "seed example: mlx5_1 port 1 filtered");
    machine(c);
    expect(run(c, 4, "mlx5_1:2+mlx5_0", 2, 0), "mlx5_0:1 mlx5_1:2", "filter order is not significant");
    machine(c);
    expect(run(c, 4, "mlx5_0:1,2", 1, 0), "mlx5_0:1 mlx5_0:2", "listed ports of one HCA are all used");
    machine(c);
    expect(run(c, 4, "mlx5_1", 1, 0), "mlx5_1:1", "filter picks the second HCA");
    machine(c);
    expect(run(c, 4, "nonexistent", 2, 0), "", "absent HCA: silently ignored, nothing selected");
    check(c[0].verdict == GASNETC_IBV_V_FILTERED && c[3].verdict == GASNETC_IBV_V_FILTERED,
          "absent HCA: every port FILTERED");
    machine(c);
    expect(run(c, 4, "nonexistent+mlx5_1", 2, 0), "mlx5_1:1", "absent entries ignored, others used");
    machine(c);
    expect(run(c, 4, "mlx5_0:1+mlx5_0:1+mlx5_0", 1, 0), "mlx5_0:1", "duplicates open a port once");
    machine(c);
    expect(run(c, 4, "mlx5_0:7", 1, 0), "", "filter names a port the HCA lacks");
}

static void test_states(void)
{
    gasnetc_ibv_cand_t c[4];
    machine(c);
    c[0].active = 0;
    expect(run(c, 4, "", 1, 0), "mlx5_0:2", "first port DOWN: next active port");
    check(c[0].verdict == GASNETC_IBV_V_INACTIVE, "DOWN port verdict INACTIVE");
    machine(c);
    c[0].active = c[1].active = 0;
    expect(run(c, 4, "", 1, 0), "mlx5_1:1", "HCA with no active port skipped without using the limit");
    machine(c);
    c[3].active = 0;
    expect(run(c, 4, "mlx5_1:2", 1, 0), "", "inactive listed port: silently ignored");
    machine(c);
    c[0].unusable = 1;
    expect(run(c, 4, "", 1, 0), "mlx5_0:2", "unusable port (P_Key/GID/LID) skipped");
    check(c[0].verdict == GASNETC_IBV_V_UNUSABLE, "unusable verdict");
    {
        gasnetc_ibv_cand_t d[2] = {{"bad0", 0, 0, IB, 1, -1, 0, 0}, {"rxe0", 1, 1, ETH, 0, -1, 0, 0}};
        expect(run(d, 2, "", 1, 0), "rxe0:1", "HCA that cannot be opened does not count");
        check(d[0].verdict == GASNETC_IBV_V_UNUSABLE, "unopenable HCA verdict UNUSABLE");
        d[0].unusable = 1;
        expect(run(d, 2, "rxe0", 1, 0), "rxe0:1", "unopenable HCA outside the filter");
        check(d[0].verdict == GASNETC_IBV_V_FILTERED, "... is FILTERED, not UNUSABLE");
    }
}

static void test_link_layers(void)
{
    gasnetc_ibv_cand_t c[3] = {
        {"rxe0", 1, 1, ETH, 0, -1, 0, 0}, {"mlx5_0", 1, 1, IB, 0, -1, 0, 0}, {"rxe1", 1, 1, ETH, 0, -1, 0, 0}};
    expect(run(c, 3, "", 2, 0), "mlx5_0:1", "InfiniBand preferred over Ethernet");
    check(c[0].verdict == GASNETC_IBV_V_LINK_LAYER, "Ethernet verdict LINK_LAYER");
    expect(run(c, 3, "rxe0+rxe1", 2, 0), "rxe0:1 rxe1:1", "filter selects RoCE rails");
    c[1].active = 0;
    expect(run(c, 3, "", 1, 0), "rxe0:1", "RoCE used when InfiniBand is down");
}

static void test_limits(void)
{
    gasnetc_ibv_cand_t c[4];
    machine(c);
    expect(run(c, 4, "mlx5_0:1,2+mlx5_1:1,2", 2, 3), "mlx5_0:1 mlx5_0:2 mlx5_1:1", "GASNET_NUM_QPS=3 caps ports");
    check(c[3].verdict == GASNETC_IBV_V_NUM_QPS, "NUM_QPS verdict");
    machine(c);
    expect(run(c, 4, "", 2, 1), "mlx5_0:1", "GASNET_NUM_QPS=1: first HCA only");
    machine(c);
    expect(run(c, 4, "", 2, 8), "mlx5_0:1 mlx5_1:1", "GASNET_NUM_QPS above ports: all ports (QPs round-robin)");
    machine(c);
    expect(run(c, 4, "mlx5_0:1,2+mlx5_1:1,2", 1, 0), "mlx5_0:1 mlx5_0:2", "max HCAs=1 keeps both ports of one HCA");
    check(c[2].verdict == GASNETC_IBV_V_MAX_HCAS && c[3].verdict == GASNETC_IBV_V_MAX_HCAS,
          "second HCA: MAX_HCAS on both ports");
    machine(c);
    expect(run(c, 4, "", 0, 0), "mlx5_0:1", "max HCAs < 1 treated as 1");
}

static void test_near(void)
{
    gasnetc_ibv_cand_t c[4];
    machine(c);
    c[0].near = c[1].near = 0;
    c[2].near = c[3].near = 1;
    expect(run(c, 4, "", 1, 0), "mlx5_1:1", "bound process prefers the near HCA");
    machine(c);
    c[0].near = c[1].near = 0;
    c[2].near = c[3].near = 1;
    expect(run(c, 4, "", 2, 0), "mlx5_0:1 mlx5_1:1", "within the limit: all HCAs, detection order");
    machine(c);
    c[0].near = c[1].near = 0;
    c[2].near = c[3].near = -1;
    expect(run(c, 4, "", 1, 0), "mlx5_1:1", "unknown locality beats far");
    machine(c);
    c[0].near = c[1].near = 0;
    c[2].near = c[3].near = 1;
    expect(run(c, 4, "mlx5_0", 1, 0), "mlx5_0:1", "filter wins over locality");
    machine(c);
    c[0].near = c[1].near = 0;
    c[2].near = c[3].near = 1;
    expect(run(c, 4, "", 2, 1), "mlx5_1:1", "GASNET_NUM_QPS=1 takes the near HCA");
}

static void test_verdict_names(void)
{
    int v, ok = 1;
    for (v = 0; v < GASNETC_IBV_V_COUNT; v++)
        ok &= strlen(gasnetc_ibv_verdict_str((gasnetc_ibv_verdict_t)v)) > 0;
    check(ok && !strcmp(gasnetc_ibv_verdict_str(GASNETC_IBV_V_SELECTED), "selected") &&
              !strcmp(gasnetc_ibv_verdict_str(GASNETC_IBV_V_COUNT), "?"),
          "every verdict has a printable name");
}

int main(void)
{
    test_defaults_and_filter();
    test_states();
    test_link_layers();
    test_limits();
    test_near();
    test_verdict_names();
    return unit_summary("test-ibv-select");
}
