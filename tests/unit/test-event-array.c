/* tests/unit/test-event-array.c: root events and their leaf events mixed in
 * the array forms of gex_Event_Test{Some,All}, in every order (issue 19
 * item 10; docs/GASNet-EX.txt, "Event test/wait operations").
 *
 * Ops are driven by hand (no job): K NB operations with an lc leaf each,
 * their 2K events laid out in one array in each order below; completions
 * arrive in steps (some leaves, then a root with its leaf, then all), and
 * after each step the Test call must neither fail nor report an entry as
 * complete before it is, and completed entries must read GEX_EVENT_INVALID.
 * Before the fix, a root that completed ahead of its leaf in the array
 * recycled the op and the leaf then died "already synchronized".
 *
 * Prints one line per check; exits 0 only if every check passed.
 */
#include "extended/extended_internal.h"

#include <gasnet.h>
#include <stdio.h>
#include <string.h>

enum { K = 4 };
static int failures, checks;

static void check(int ok, const char *what, const char *order, const char *form)
{
    checks++;
    if (!ok) failures++;
    printf("%s - %s [%s, %s]\n", ok ? "ok" : "FAIL", what, order, form);
}

/* Entry e of the array for layout `order`: which op, and root (0) or leaf (1). */
static void layout(int order, int e, int *op, int *leaf)
{
    switch (order) {
    case 0: *op = e % K, *leaf = e >= K; break;                 /* roots, then leaves */
    case 1: *op = e % K, *leaf = e < K; break;                  /* leaves, then roots */
    case 2: *op = e / 2, *leaf = e & 1; break;                  /* root, its leaf, ... */
    case 3: *op = e / 2, *leaf = !(e & 1); break;               /* leaf, its root, ... */
    default: *op = K - 1 - e / 2, *leaf = (e & 1) ^ (e / 2 & 1); break; /* reversed, mixed */
    }
}

static const char *const order_name[] = {"roots then leaves", "leaves then roots",
                                         "root,leaf pairs", "leaf,root pairs",
                                         "reversed, alternating"};

static int test_call(int some, gex_Event_t *a, size_t n)
{
    return some ? gex_Event_TestSome(a, n, 0) : gex_Event_TestAll(a, n, 0);
}

static void run(int order, int some)
{
    const char *form = some ? "TestSome" : "TestAll";
    gasnete_op_t *op[K];
    gasnete_cmpl_t c[K];
    gex_Event_t a[2 * K];
    int eop[2 * K], eleaf[2 * K];
    for (int i = 0; i < K; i++) {
        op[i] = gasnete_op_alloc(gasnete_mythread());
        c[i] = (gasnete_cmpl_t){&op[i]->op, &op[i]->lc};
        gasnete_op_enable_lc(op[i]);
        gasnete_cmpl_begin(&c[i], 1);
    }
    for (int e = 0; e < 2 * K; e++) {
        layout(order, e, &eop[e], &eleaf[e]);
        a[e] = eleaf[e] ? &op[eop[e]]->lc_ev : &op[eop[e]]->ev;
    }
    check(test_call(some, a, 2 * K) == GASNET_ERR_NOT_READY, "nothing complete: NOT_READY",
          order_name[order], form);
    /* Step 1: leaves of ops 0 and 1 complete. */
    gasnete_cmpl_lc_done(&c[0]);
    gasnete_cmpl_lc_done(&c[1]);
    int rc = test_call(some, a, 2 * K);
    check(some ? rc == GASNET_OK : rc == GASNET_ERR_NOT_READY, "two leaves complete",
          order_name[order], form);
    int ok = 1;
    for (int e = 0; e < 2 * K; e++)
        ok &= (a[e] == GEX_EVENT_INVALID) == (eleaf[e] && eop[e] <= 1);
    check(ok, "exactly the two complete leaves are GEX_EVENT_INVALID", order_name[order], form);
    /* Step 2: op 0's root completes; op 2 completes whole (root and leaf). */
    gasnete_cmpl_op_done(&c[0]);
    gasnete_cmpl_lc_done(&c[2]);
    gasnete_cmpl_op_done(&c[2]);
    rc = test_call(some, a, 2 * K);
    check(some ? rc == GASNET_OK : rc == GASNET_ERR_NOT_READY,
          "a root and a root with its leaf complete", order_name[order], form);
    ok = 1;
    for (int e = 0; e < 2 * K; e++) {
        int done = eop[e] == 0 || eop[e] == 2 || (eop[e] == 1 && eleaf[e]);
        ok &= (a[e] == GEX_EVENT_INVALID) == done;
    }
    check(ok, "completed roots and leaves are GEX_EVENT_INVALID, others kept", order_name[order],
          form);
    /* Step 3: everything completes. */
    gasnete_cmpl_op_done(&c[1]);
    gasnete_cmpl_lc_done(&c[3]);
    gasnete_cmpl_op_done(&c[3]);
    rc = test_call(some, a, 2 * K);
    if (some && rc == GASNET_OK) rc = gex_Event_TestAll(a, 2 * K, 0);
    ok = rc == GASNET_OK;
    for (int e = 0; e < 2 * K; e++) ok &= a[e] == GEX_EVENT_INVALID;
    check(ok, "all complete: OK and every entry GEX_EVENT_INVALID", order_name[order], form);
    ok = 1;
    for (int i = 0; i < K; i++) ok &= op[i]->ev.kind == GASNETE_EV_FREE;
    check(ok, "every op recycled once", order_name[order], form);
}

int main(void)
{
    for (int order = 0; order < 5; order++)
        for (int some = 0; some < 2; some++) run(order, some);
    printf("test-event-array: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
