/* core/ibv/ports/ports_select.c: the selection policy of ports_select.h, as a pure
 * function over candidate rows.  Quadratic in the number of rows, which is a
 * handful (HCAs x ports) on any real machine.
 */
#include "core/ibv/ports/ports_select.h"

#include <string.h>

#define PENDING ((gasnetc_ibv_verdict_t)-1) /* still in the running */

static const char *const verdict_text[] = {
#define GASNETC_IBV_VERDICT_TEXT(name, text) text,
    GASNETC_IBV_VERDICTS(GASNETC_IBV_VERDICT_TEXT)
#undef GASNETC_IBV_VERDICT_TEXT
};

const char *gasnetc_ibv_verdict_str(gasnetc_ibv_verdict_t v)
{
    if ((int)v < 0 || v >= GASNETC_IBV_V_COUNT) return "?";
    return verdict_text[v];
}

static int same_hca(const gasnetc_ibv_cand_t *a, const gasnetc_ibv_cand_t *b)
{
    return !strcmp(a->hca, b->hca);
}

/* Rank of a locality value: near first, unknown next, far last. */
static int near_rank(int near)
{
    return near == 1 ? 0 : (near < 0 ? 1 : 2);
}

/* Rules 1-3: filter, state, one port per HCA unless ports are listed. */
static void apply_filter(gasnetc_ibv_cand_t *c, int n, const gasnetc_ibv_portspec_t *spec)
{
    int i, j, have_spec = spec && spec->count > 0;
    for (i = 0; i < n; i++) {
        const gasnetc_ibv_portspec_entry_t *e = have_spec ? gasnetc_ibv_portspec_find(spec, c[i].hca)
                                                          : NULL;
        c[i].order = -1;
        if (have_spec && (!e || (c[i].port > 0 && !e->any_port &&
                                 !gasnetc_ibv_portspec_lists(e, c[i].port))))
            c[i].verdict = GASNETC_IBV_V_FILTERED;
        else if (c[i].unusable || c[i].port <= 0)
            c[i].verdict = GASNETC_IBV_V_UNUSABLE;
        else if (!c[i].active)
            c[i].verdict = GASNETC_IBV_V_INACTIVE;
        else
            c[i].verdict = PENDING;
    }
    /* Rule 3: a port that is not listed explicitly is admitted only as its
     * HCA's first remaining port (listed or not). */
    for (i = 0; i < n; i++) {
        const gasnetc_ibv_portspec_entry_t *e;
        if (c[i].verdict != PENDING) continue;
        e = have_spec ? gasnetc_ibv_portspec_find(spec, c[i].hca) : NULL;
        if (e && gasnetc_ibv_portspec_lists(e, c[i].port)) continue;
        for (j = 0; j < i; j++) {
            if (c[j].verdict != PENDING || !same_hca(&c[i], &c[j])) continue;
            c[i].verdict = GASNETC_IBV_V_EXTRA_PORT;
            break;
        }
    }
}

/* Rule 4: InfiniBand wins over Ethernet. */
static void apply_link_layer(gasnetc_ibv_cand_t *c, int n)
{
    int i, have_ib = 0;
    for (i = 0; i < n; i++)
        if (c[i].verdict == PENDING && c[i].link_layer == GASNETC_IBV_LINK_IB) have_ib = 1;
    if (!have_ib) return;
    for (i = 0; i < n; i++)
        if (c[i].verdict == PENDING && c[i].link_layer != GASNETC_IBV_LINK_IB)
            c[i].verdict = GASNETC_IBV_V_LINK_LAYER;
}

/* Rule 5: walk the HCAs near first (stable), take ports within the limits. */
static int apply_limits(gasnetc_ibv_cand_t *c, int n, int max_hcas, int num_qps)
{
    int pass, i, j, hcas = 0, ports = 0;
    for (pass = 0; pass < 3; pass++) {
        for (i = 0; i < n; i++) {
            int first_of_hca = 1, hca_taken = 0;
            if (c[i].verdict != PENDING || near_rank(c[i].near) != pass) continue;
            for (j = 0; j < i; j++) {
                if (!same_hca(&c[i], &c[j])) continue;
                if (c[j].verdict == GASNETC_IBV_V_SELECTED) hca_taken = 1;
                if (c[j].verdict == GASNETC_IBV_V_SELECTED || c[j].verdict == GASNETC_IBV_V_MAX_HCAS ||
                    c[j].verdict == GASNETC_IBV_V_NUM_QPS)
                    first_of_hca = 0;
            }
            if (num_qps > 0 && ports >= num_qps) {
                c[i].verdict = GASNETC_IBV_V_NUM_QPS;
            } else if (!hca_taken && (hcas >= max_hcas || !first_of_hca)) {
                c[i].verdict = GASNETC_IBV_V_MAX_HCAS;
            } else {
                c[i].verdict = GASNETC_IBV_V_SELECTED;
                if (!hca_taken) hcas++;
                ports++;
            }
        }
    }
    return ports;
}

int gasnetc_ibv_select(gasnetc_ibv_cand_t *c, int n, const gasnetc_ibv_portspec_t *spec,
                       int max_hcas, int num_qps)
{
    int i, k = 0, selected;
    if (max_hcas < 1) max_hcas = 1;
    apply_filter(c, n, spec);
    apply_link_layer(c, n);
    selected = apply_limits(c, n, max_hcas, num_qps);
    for (i = 0; i < n; i++)
        if (c[i].verdict == GASNETC_IBV_V_SELECTED) c[i].order = k++;
    return selected;
}
