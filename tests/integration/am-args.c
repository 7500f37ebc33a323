/* tests/integration/am-args.c: Active Message arguments, handler tables and
 * token information.
 *
 * Every rank sends to every rank (itself included) one Request of each
 * category (Short, Medium, Long) with each argument count 0..16; the Request
 * handler checks its arguments, payload and gex_Token_Info, then answers with
 * a Reply of the same category and argument count, which is checked the same
 * way.  Sends alternate between the numbered macros (gex_AM_RequestShort3)
 * and the variadic ones (gex_AM_RequestShort).  Handlers for Short messages
 * are registered at fixed indices, the others with index 0 ("don't care"),
 * in two gex_EP_RegisterHandlers calls; the indices GASNet assigns must be
 * the highest free ones, in table order (GASNet-EX spec).
 * Also checks the gex_AM_Max* / LUB limits and gex_Token_MaxReply*.
 */
#include <gasnetex.h>
#include "test.h"

enum { CAT_SHORT, CAT_MEDIUM, CAT_LONG, NCAT };
static const char *const cat_name[NCAT] = {"Short", "Medium", "Long"};
#define NARGS 17 /* argument counts 0..16 */
/* Segment layout: one region per sender for Request payloads, then one per
 * replier for Reply payloads. */
#define REGION 8192
#define SLOT 320 /* per argument count: concurrent Longs never overlap */
#define REPLY_BASE ((uintptr_t)REGION * 64)

/* Table index of the handler for (category, request?, nargs). */
#define ENTRY(cat, isreq, n) ((cat) * 2 * NARGS + (isreq ? 0 : NARGS) + (n))
#define NENTRIES (NCAT * 2 * NARGS)
static gex_AM_Entry_t entries[NENTRIES];

static volatile unsigned replies_seen;

/* ---- expected values ------------------------------------------------------ */

/* Argument k of a message from src of the given kind: spread over the whole
 * 32-bit range, negative values included. */
static gex_AM_Arg_t arg_value(gex_Rank_t src, int cat, int isreq, unsigned n, unsigned k)
{
    uint32_t x = 0x9E3779B9u * (uint32_t)(src * 1000 + cat * 100 + isreq * 50 + n + 1);
    x ^= 0x01000193u * (k + 1);
    return (gex_AM_Arg_t)(x ^ (x >> 15));
}

/* Payload length of a Medium/Long message to `dst` with n arguments. */
static size_t payload_len(gex_Rank_t dst, int isreq, unsigned n)
{
    return isreq ? (n * 37u + dst * 5u) % 200u : (n * 53u + dst * 3u) % 300u;
}

static uint64_t payload_seed(gex_Rank_t src, int cat, int isreq, unsigned n)
{
    return ((uint64_t)src << 16) | ((uint64_t)cat << 8) | ((uint64_t)isreq << 7) | n;
}

/* Where a Long payload from src with n arguments lands in dst's segment.
 * Messages that share a slot carry identical bytes. */
static void *long_dest(gex_Rank_t src, gex_Rank_t dst, int isreq, unsigned n)
{
    return test_seg_at(dst, (isreq ? 0 : REPLY_BASE) + (uintptr_t)src * REGION + n * SLOT);
}

/* ---- sending (numbered or variadic macro forms) ------------------------------ */

#define PASS_0
#define PASS_1 PASS_0, a[0]
#define PASS_2 PASS_1, a[1]
#define PASS_3 PASS_2, a[2]
#define PASS_4 PASS_3, a[3]
#define PASS_5 PASS_4, a[4]
#define PASS_6 PASS_5, a[5]
#define PASS_7 PASS_6, a[6]
#define PASS_8 PASS_7, a[7]
#define PASS_9 PASS_8, a[8]
#define PASS_10 PASS_9, a[9]
#define PASS_11 PASS_10, a[10]
#define PASS_12 PASS_11, a[11]
#define PASS_13 PASS_12, a[12]
#define PASS_14 PASS_13, a[13]
#define PASS_15 PASS_14, a[14]
#define PASS_16 PASS_15, a[15]

/* Expands the argument list before the numbered macro counts it. */
#define CALL(macro, ...) macro(__VA_ARGS__)

#define REQUEST_CASE(n)                                                                     \
    case n:                                                                                 \
        if (variadic) {                                                                     \
            if (cat == CAT_SHORT)                                                           \
                rc = gex_AM_RequestShort(test_tm, dst, h, 0 PASS_##n);                      \
            else if (cat == CAT_MEDIUM)                                                     \
                rc = gex_AM_RequestMedium(test_tm, dst, h, src, nb, GEX_EVENT_NOW,          \
                                          0 PASS_##n);                                      \
            else                                                                            \
                rc = gex_AM_RequestLong(test_tm, dst, h, src, nb, dest, GEX_EVENT_NOW,      \
                                        0 PASS_##n);                                        \
        } else {                                                                            \
            if (cat == CAT_SHORT)                                                           \
                rc = CALL(gex_AM_RequestShort##n, test_tm, dst, h, 0 PASS_##n);             \
            else if (cat == CAT_MEDIUM)                                                     \
                rc = CALL(gex_AM_RequestMedium##n, test_tm, dst, h, src, nb, GEX_EVENT_NOW, \
                          0 PASS_##n);                                                      \
            else                                                                            \
                rc = CALL(gex_AM_RequestLong##n, test_tm, dst, h, src, nb, dest,            \
                          GEX_EVENT_NOW, 0 PASS_##n);                                       \
        }                                                                                   \
        break;

#define REPLY_CASE(n)                                                                           \
    case n:                                                                                     \
        if (variadic) {                                                                         \
            if (cat == CAT_SHORT)                                                               \
                rc = gex_AM_ReplyShort(t, h, 0 PASS_##n);                                       \
            else if (cat == CAT_MEDIUM)                                                         \
                rc = gex_AM_ReplyMedium(t, h, src, nb, GEX_EVENT_NOW, 0 PASS_##n);              \
            else                                                                                \
                rc = gex_AM_ReplyLong(t, h, src, nb, dest, GEX_EVENT_NOW, 0 PASS_##n);          \
        } else {                                                                                \
            if (cat == CAT_SHORT)                                                               \
                rc = CALL(gex_AM_ReplyShort##n, t, h, 0 PASS_##n);                              \
            else if (cat == CAT_MEDIUM)                                                         \
                rc = CALL(gex_AM_ReplyMedium##n, t, h, src, nb, GEX_EVENT_NOW, 0 PASS_##n);     \
            else                                                                                \
                rc = CALL(gex_AM_ReplyLong##n, t, h, src, nb, dest, GEX_EVENT_NOW, 0 PASS_##n); \
        }                                                                                       \
        break;

#define ALL_CASES(X)                                                                \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) \
    X(15) X(16)

static void send_request(gex_Rank_t dst, int cat, unsigned n, int variadic)
{
    gex_AM_Arg_t a[16];
    static uint8_t src[SLOT];
    size_t nb = cat == CAT_SHORT ? 0 : payload_len(dst, 1, n);
    void *dest = cat == CAT_LONG ? long_dest(test_rank, dst, 1, n) : NULL;
    gex_AM_Index_t h = entries[ENTRY(cat, 1, n)].gex_index;
    int rc = -1;
    for (unsigned k = 0; k < n; k++) a[k] = arg_value(test_rank, cat, 1, n, k);
    test_fill(src, nb, payload_seed(test_rank, cat, 1, n));
    switch (n) { ALL_CASES(REQUEST_CASE) }
    CHECK_MSG(rc == 0, "Request%s%u to rank %u returned %d", cat_name[cat], n, (unsigned)dst,
              rc);
    /* GEX_EVENT_NOW: the source may be reused at once. */
    memset(src, 0xEE, sizeof src);
}

static void send_reply(gex_Token_t t, gex_Rank_t to, int cat, unsigned n)
{
    gex_AM_Arg_t a[16];
    static __thread uint8_t src[SLOT]; /* per thread: PAR builds run handlers on several */
    size_t nb = cat == CAT_SHORT ? 0 : payload_len(to, 0, n);
    void *dest = cat == CAT_LONG ? long_dest(test_rank, to, 0, n) : NULL;
    gex_AM_Index_t h = entries[ENTRY(cat, 0, n)].gex_index;
    int variadic = (int)((n + to) & 1);
    int rc = -1;
    for (unsigned k = 0; k < n; k++) a[k] = arg_value(test_rank, cat, 0, n, k);
    test_fill(src, nb, payload_seed(test_rank, cat, 0, n));
    switch (n) { ALL_CASES(REPLY_CASE) }
    CHECK_MSG(rc == 0, "Reply%s%u to rank %u returned %d", cat_name[cat], n, (unsigned)to, rc);
}

/* ---- receiving ---------------------------------------------------------------- */

/* Common checks for every handler invocation. */
static void on_message(gex_Token_t t, int cat, int isreq, unsigned n, const gex_AM_Arg_t *args,
                       void *buf, size_t nbytes)
{
    gex_Token_Info_t info;
    memset(&info, 0, sizeof info);
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK_MSG((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP),
              "gex_Token_Info lacks a required field: returned mask 0x%x", (unsigned)got);
    gex_Rank_t src = info.gex_srcrank;
    CHECK_MSG(src < test_size, "gex_srcrank %u out of range", (unsigned)src);
    CHECK_PTR_EQ(info.gex_ep, test_ep);
    const gex_AM_Entry_t *mine = &entries[ENTRY(cat, isreq, n)];
#if GASNET_SUPPORTS_TI_ENTRY
    CHECK(got & GEX_TI_ENTRY);
#endif
    if (got & GEX_TI_ENTRY) {
        CHECK(info.gex_entry != NULL);
        CHECK_EQ(info.gex_entry->gex_index, mine->gex_index);
        CHECK_EQ(info.gex_entry->gex_nargs, n);
        CHECK(info.gex_entry->gex_fnptr == mine->gex_fnptr);
        CHECK_EQ(info.gex_entry->gex_flags & (GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_SHORT |
                                              GEX_FLAG_AM_REQREP),
                 mine->gex_flags);
        CHECK_PTR_EQ(info.gex_entry->gex_cdata, mine->gex_cdata);
    }
#if GASNET_SUPPORTS_TI_IS_REQ
    CHECK(got & GEX_TI_IS_REQ);
#endif
    if (got & GEX_TI_IS_REQ) CHECK_EQ(!!info.gex_is_req, isreq);
#if GASNET_SUPPORTS_TI_IS_LONG
    CHECK(got & GEX_TI_IS_LONG);
#endif
    if (got & GEX_TI_IS_LONG) CHECK_EQ(!!info.gex_is_long, cat == CAT_LONG);

    for (unsigned k = 0; k < n; k++)
        CHECK_MSG(args[k] == arg_value(src, cat, isreq, n, k),
                  "%s%s%u from rank %u: arg %u is %d, expected %d", isreq ? "Request" : "Reply",
                  cat_name[cat], n, (unsigned)src, k, (int)args[k],
                  (int)arg_value(src, cat, isreq, n, k));
    if (cat != CAT_SHORT) {
        char what[96];
        snprintf(what, sizeof what, "%s%s%u payload from rank %u", isreq ? "Request" : "Reply",
                 cat_name[cat], n, (unsigned)src);
        CHECK_EQ(nbytes, payload_len(test_rank, isreq, n));
        if (cat == CAT_LONG) CHECK_PTR_EQ(buf, long_dest(src, test_rank, isreq, n));
        if (nbytes) CHECK(buf != NULL);
        CHECK_PATTERN(buf, nbytes, payload_seed(src, cat, isreq, n), what);
    }
    if (isreq) {
        size_t tmax = gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, n);
        CHECK_MSG(tmax >= 512, "gex_Token_MaxReplyMedium = %zu < 512", tmax);
        CHECK_EQ(tmax, gex_AM_MaxReplyMedium(test_tm, src, GEX_EVENT_NOW, 0, n));
        CHECK(gex_Token_MaxReplyLong(t, GEX_EVENT_NOW, 0, n) >= 512);
        send_reply(t, src, cat, n);
    } else {
        __atomic_add_fetch(&replies_seen, 1, __ATOMIC_RELAXED);
    }
}

/* Handler definitions: one per (category, request/reply, argument count). */
#define PARAMS_0
#define PARAMS_1 PARAMS_0, gex_AM_Arg_t a0
#define PARAMS_2 PARAMS_1, gex_AM_Arg_t a1
#define PARAMS_3 PARAMS_2, gex_AM_Arg_t a2
#define PARAMS_4 PARAMS_3, gex_AM_Arg_t a3
#define PARAMS_5 PARAMS_4, gex_AM_Arg_t a4
#define PARAMS_6 PARAMS_5, gex_AM_Arg_t a5
#define PARAMS_7 PARAMS_6, gex_AM_Arg_t a6
#define PARAMS_8 PARAMS_7, gex_AM_Arg_t a7
#define PARAMS_9 PARAMS_8, gex_AM_Arg_t a8
#define PARAMS_10 PARAMS_9, gex_AM_Arg_t a9
#define PARAMS_11 PARAMS_10, gex_AM_Arg_t a10
#define PARAMS_12 PARAMS_11, gex_AM_Arg_t a11
#define PARAMS_13 PARAMS_12, gex_AM_Arg_t a12
#define PARAMS_14 PARAMS_13, gex_AM_Arg_t a13
#define PARAMS_15 PARAMS_14, gex_AM_Arg_t a14
#define PARAMS_16 PARAMS_15, gex_AM_Arg_t a15
#define LIST_0
#define LIST_1 LIST_0 a0,
#define LIST_2 LIST_1 a1,
#define LIST_3 LIST_2 a2,
#define LIST_4 LIST_3 a3,
#define LIST_5 LIST_4 a4,
#define LIST_6 LIST_5 a5,
#define LIST_7 LIST_6 a6,
#define LIST_8 LIST_7 a7,
#define LIST_9 LIST_8 a8,
#define LIST_10 LIST_9 a9,
#define LIST_11 LIST_10 a10,
#define LIST_12 LIST_11 a11,
#define LIST_13 LIST_12 a12,
#define LIST_14 LIST_13 a13,
#define LIST_15 LIST_14 a14,
#define LIST_16 LIST_15 a15,

#define DEFINE_HANDLERS(n)                                                     \
    static void short_req_##n(gex_Token_t t PARAMS_##n)                        \
    {                                                                          \
        const gex_AM_Arg_t v[] = {LIST_##n 0};                                 \
        on_message(t, CAT_SHORT, 1, n, v, NULL, 0);                            \
    }                                                                          \
    static void short_rep_##n(gex_Token_t t PARAMS_##n)                        \
    {                                                                          \
        const gex_AM_Arg_t v[] = {LIST_##n 0};                                 \
        on_message(t, CAT_SHORT, 0, n, v, NULL, 0);                            \
    }                                                                          \
    static void medium_req_##n(gex_Token_t t, void *buf, size_t nb PARAMS_##n) \
    {                                                                          \
        const gex_AM_Arg_t v[] = {LIST_##n 0};                                 \
        on_message(t, CAT_MEDIUM, 1, n, v, buf, nb);                           \
    }                                                                          \
    static void medium_rep_##n(gex_Token_t t, void *buf, size_t nb PARAMS_##n) \
    {                                                                          \
        const gex_AM_Arg_t v[] = {LIST_##n 0};                                 \
        on_message(t, CAT_MEDIUM, 0, n, v, buf, nb);                           \
    }                                                                          \
    static void long_req_##n(gex_Token_t t, void *buf, size_t nb PARAMS_##n)   \
    {                                                                          \
        const gex_AM_Arg_t v[] = {LIST_##n 0};                                 \
        on_message(t, CAT_LONG, 1, n, v, buf, nb);                             \
    }                                                                          \
    static void long_rep_##n(gex_Token_t t, void *buf, size_t nb PARAMS_##n)   \
    {                                                                          \
        const gex_AM_Arg_t v[] = {LIST_##n 0};                                 \
        on_message(t, CAT_LONG, 0, n, v, buf, nb);                             \
    }
ALL_CASES(DEFINE_HANDLERS)

#define FILL_ENTRIES(n)                                                         \
    set_entry(CAT_SHORT, 1, n, (gex_AM_Fn_t)short_req_##n, "short_req_" #n);    \
    set_entry(CAT_SHORT, 0, n, (gex_AM_Fn_t)short_rep_##n, "short_rep_" #n);    \
    set_entry(CAT_MEDIUM, 1, n, (gex_AM_Fn_t)medium_req_##n, "medium_req_" #n); \
    set_entry(CAT_MEDIUM, 0, n, (gex_AM_Fn_t)medium_rep_##n, "medium_rep_" #n); \
    set_entry(CAT_LONG, 1, n, (gex_AM_Fn_t)long_req_##n, "long_req_" #n);       \
    set_entry(CAT_LONG, 0, n, (gex_AM_Fn_t)long_rep_##n, "long_rep_" #n);

static int cdata_tag[NENTRIES];

static void set_entry(int cat, int isreq, unsigned n, gex_AM_Fn_t fn, const char *name)
{
    gex_AM_Entry_t *e = &entries[ENTRY(cat, isreq, n)];
    static const gex_Flags_t catflag[NCAT] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM,
                                              GEX_FLAG_AM_LONG};
    /* Short handlers at fixed indices (Requests 128.., Replies 145..); the
     * others are "don't care" (0). */
    e->gex_index = cat == CAT_SHORT ? (gex_AM_Index_t)(GEX_AM_INDEX_BASE + (isreq ? 0 : NARGS) + n)
                                    : 0;
    e->gex_fnptr = fn;
    e->gex_flags = catflag[cat] | (isreq ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY);
    e->gex_nargs = n;
    e->gex_cdata = &cdata_tag[ENTRY(cat, isreq, n)];
    e->gex_name = name;
}

static void register_handlers(void)
{
    ALL_CASES(FILL_ENTRIES)
    /* Fixed indices first (the Short block is the start of the table). */
    size_t nfixed = 2 * NARGS;
    for (size_t i = 0; i < nfixed; i++) CHECK(entries[i].gex_index != 0);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, entries, nfixed));
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, entries + nfixed, NENTRIES - nfixed));
    /* Don't-care entries get the highest free index, in table order. */
    unsigned expect = 255;
    for (size_t i = nfixed; i < NENTRIES; i++, expect--)
        CHECK_MSG(entries[i].gex_index == expect, "%s got index %u, expected %u",
                  entries[i].gex_name, (unsigned)entries[i].gex_index, expect);
    CHECK(expect >= GEX_AM_INDEX_BASE + nfixed);
}

/* ---- limits -------------------------------------------------------------------- */

static void check_limits(void)
{
    CHECK_EQ(gex_AM_MaxArgs(), 16);
    CHECK(GEX_AM_INDEX_BASE <= 128);
    CHECK(gex_AM_LUBRequestMedium() >= 512);
    CHECK(gex_AM_LUBReplyMedium() >= 512);
    CHECK(gex_AM_LUBRequestLong() >= 512);
    CHECK(gex_AM_LUBReplyLong() >= 512);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        size_t prev_m = (size_t)-1;
        for (unsigned n = 0; n < NARGS; n++) {
            size_t rqm = gex_AM_MaxRequestMedium(test_tm, r, GEX_EVENT_NOW, 0, n);
            size_t rpm = gex_AM_MaxReplyMedium(test_tm, r, GEX_EVENT_NOW, 0, n);
            size_t rql = gex_AM_MaxRequestLong(test_tm, r, GEX_EVENT_NOW, 0, n);
            size_t rpl = gex_AM_MaxReplyLong(test_tm, r, GEX_EVENT_NOW, 0, n);
            CHECK_MSG(rqm >= gex_AM_LUBRequestMedium(), "MaxRequestMedium(%u,%u)=%zu < LUB %zu",
                      (unsigned)r, n, rqm, gex_AM_LUBRequestMedium());
            CHECK(rpm >= gex_AM_LUBReplyMedium());
            CHECK(rql >= gex_AM_LUBRequestLong());
            CHECK(rpl >= gex_AM_LUBReplyLong());
            CHECK_MSG(rqm <= prev_m, "MaxRequestMedium grows with nargs at %u", n);
            prev_m = rqm;
            /* Same value for any lc_opt pointer (spec: pointers are equivalent). */
            gex_Event_t ev;
            CHECK_EQ(gex_AM_MaxRequestMedium(test_tm, r, &ev, 0, n),
                     gex_AM_MaxRequestMedium(test_tm, r, NULL, 0, n));
        }
        /* GEX_RANK_INVALID gives the minimum over the team. */
        CHECK(gex_AM_MaxRequestMedium(test_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 16) <=
              gex_AM_MaxRequestMedium(test_tm, r, GEX_EVENT_NOW, 0, 16));
    }
}

int main(int argc, char **argv)
{
    uintptr_t segsize = 2 * REPLY_BASE;
    test_init("am-args", &argc, &argv, segsize, 0, 1);
    CHECK_MSG(test_size <= 64, "this test supports at most 64 processes, got %u",
              (unsigned)test_size);
    register_handlers();
    check_limits();
    test_barrier(); /* every rank has registered its handlers */

    double t0 = test_now();
    unsigned sent = 0;
    for (gex_Rank_t i = 0; i < test_size; i++) {
        gex_Rank_t dst = (test_rank + i) % test_size; /* self first, then the others */
        for (int cat = 0; cat < NCAT; cat++) {
            for (unsigned n = 0; n < NARGS; n++) {
                send_request(dst, cat, n, (int)((n + dst) & 1));
                sent++;
                GASNET_BLOCKUNTIL(replies_seen == sent);
            }
        }
    }
    test_barrier();
    TEST_MSG0("%u request/reply pairs per rank with 0..16 arguments in %.2f s", sent,
              test_now() - t0);

    /* A flood of every kind without waiting in between: replies come back in
     * any order; only the total is checked. */
    unsigned base = replies_seen;
    for (int round = 0; round < 4; round++)
        for (gex_Rank_t dst = 0; dst < test_size; dst++)
            for (int cat = 0; cat < NCAT; cat++)
                for (unsigned n = 0; n < NARGS; n++, sent++)
                    send_request(dst, cat, n, (int)((n + round) & 1));
    GASNET_BLOCKUNTIL(replies_seen == sent);
    CHECK_EQ(replies_seen - base, 4u * test_size * NCAT * NARGS);
    test_pass();
    return 0;
}
