/* tests/unit/test-am-wire.c: AM header wire format (core/am/wire.c):
 * round trips for every category and argument count, rejection of
 * truncated and malformed input. */
#include "core/am/wire.h"

#include <stdio.h>
#include <string.h>
#include "tests/unit/unit-check.h"


static void round_trip(unsigned cat, int is_req, unsigned nargs)
{
    gasnetc_am_hdr_t h, out;
    unsigned char buf[GASNETC_AM_HDR_MAX + 8];
    memset(&h, 0, sizeof(h));
    h.category = (uint8_t)cat;
    h.is_req = (uint8_t)is_req;
    h.handler = (uint8_t)(200 + nargs);
    h.nargs = (uint8_t)nargs;
    h.credits = (uint8_t)(nargs * 3);
    h.src_rank = 0x89abcdefu;
    h.nbytes = 65000 - nargs;
    h.dest_addr = cat == GASNETC_AM_LONG ? 0x0123456789abcdefULL : 0;
    for (unsigned i = 0; i < nargs; i++) h.args[i] = (int32_t)(0x80000000u + i * 7919u);
    size_t n = gasnetc_am_hdr_pack(&h, buf);
    CHECK_QUIET(n == gasnetc_am_hdr_wire_size(&h), "pack size %zu vs %zu", n,
          gasnetc_am_hdr_wire_size(&h));
    CHECK_QUIET(n <= GASNETC_AM_HDR_MAX, "wire size %zu above max", n);
    size_t m = gasnetc_am_hdr_unpack(buf, n, &out);
    CHECK_QUIET(m == n, "unpack consumed %zu of %zu (cat %u nargs %u)", m, n, cat, nargs);
    CHECK_QUIET(out.category == h.category && out.is_req == h.is_req && out.handler == h.handler &&
              out.nargs == h.nargs && out.credits == h.credits && out.src_rank == h.src_rank &&
              out.nbytes == h.nbytes && out.dest_addr == h.dest_addr,
          "fields differ after round trip (cat %u nargs %u)", cat, nargs);
    CHECK_QUIET(memcmp(out.args, h.args, nargs * sizeof(int32_t)) == 0, "args differ (nargs %u)",
          nargs);
    /* Every truncation is rejected. */
    int truncated_ok = 1;
    for (size_t len = 0; len < n; len++)
        if (gasnetc_am_hdr_unpack(buf, len, &out) != 0) truncated_ok = 0;
    CHECK_QUIET(truncated_ok, "a truncated header was accepted (cat %u nargs %u)", cat, nargs);
}

/* The fast paths' Short packing writes the same bytes as hdr_pack. */
static void short_wire_same(int is_req, unsigned nargs)
{
    gasnetc_am_hdr_t h;
    unsigned char a[GASNETC_AM_HDR_MAX], b[GASNETC_AM_HDR_MAX];
    memset(&h, 0, sizeof(h));
    memset(a, 0x5a, sizeof(a));
    memset(b, 0xa5, sizeof(b));
    h.category = GASNETC_AM_SHORT;
    h.is_req = (uint8_t)is_req;
    h.handler = (uint8_t)(130 + nargs);
    h.nargs = (uint8_t)nargs;
    h.src_rank = 0x01020304u + nargs;
    h.dst_ep = 7;
    h.src_ep = (uint8_t)(200 + is_req);
    for (unsigned i = 0; i < nargs; i++) h.args[i] = (int32_t)(0xfedcba98u - i * 104729u);
    size_t n = gasnetc_am_hdr_pack(&h, a);
    gasnetc_am_short_wire(b, (unsigned)is_req, h.handler, nargs, h.src_rank, h.dst_ep, h.src_ep);
    for (unsigned i = 0; i < nargs; i++) gasnetc_am_wire_put32(b + 16 + 4 * i, (uint32_t)h.args[i]);
    CHECK_QUIET(n == 16 + 4 * (size_t)nargs && memcmp(a, b, n) == 0,
                "gasnetc_am_short_wire differs from gasnetc_am_hdr_pack (req %d, nargs %u)",
                is_req, nargs);
}

int main(void)
{
    for (unsigned nargs = 0; nargs <= GASNETC_AM_MAX_ARGS; nargs++) {
        short_wire_same(1, nargs);
        short_wire_same(0, nargs);
    }
    for (unsigned cat = 0; cat <= GASNETC_AM_LONG; cat++)
        for (unsigned nargs = 0; nargs <= GASNETC_AM_MAX_ARGS; nargs++) {
            round_trip(cat, 1, nargs);
            round_trip(cat, 0, nargs);
        }
    gasnetc_am_hdr_t h;
    unsigned char buf[GASNETC_AM_HDR_MAX];
    memset(&h, 0, sizeof(h));
    h.nargs = 17;
    CHECK_QUIET(gasnetc_am_hdr_pack(&h, buf) == 0, "nargs 17 packed");
    h.nargs = 0;
    h.category = 3;
    CHECK_QUIET(gasnetc_am_hdr_pack(&h, buf) == 0, "category 3 packed");
    memset(buf, 0, sizeof(buf));
    buf[0] = 3; /* bad category */
    CHECK_QUIET(gasnetc_am_hdr_unpack(buf, sizeof(buf), &h) == 0, "category 3 unpacked");
    buf[0] = 0;
    buf[2] = 17; /* too many args */
    CHECK_QUIET(gasnetc_am_hdr_unpack(buf, sizeof(buf), &h) == 0, "nargs 17 unpacked");
    buf[2] = 0;
    buf[0] = 0x40; /* reserved bits */
    CHECK_QUIET(gasnetc_am_hdr_unpack(buf, sizeof(buf), &h) == 0, "reserved bits accepted");

    /* rendezvous flag: Medium only, both ways; the descriptor round-trips */
    memset(&h, 0, sizeof(h));
    h.category = GASNETC_AM_MEDIUM;
    h.rndv = 1;
    h.nbytes = 65000;
    h.nargs = 3;
    size_t n = gasnetc_am_hdr_pack(&h, buf);
    gasnetc_am_hdr_t o;
    CHECK(n == 28 && (buf[0] & 8) && gasnetc_am_hdr_unpack(buf, n, &o) == n && o.rndv == 1 &&
              o.nbytes == 65000 && o.category == GASNETC_AM_MEDIUM,
          "rendezvous Medium header round trip (%zu bytes, flag %u)", n, (unsigned)o.rndv);
    h.rndv = 0;
    n = gasnetc_am_hdr_pack(&h, buf);
    CHECK_QUIET(gasnetc_am_hdr_unpack(buf, n, &o) == n && o.rndv == 0, "plain Medium flagged");
    h.rndv = 1;
    h.category = GASNETC_AM_LONG;
    CHECK_QUIET(gasnetc_am_hdr_pack(&h, buf) == 0, "rendezvous Long packed");
    h.category = GASNETC_AM_SHORT;
    CHECK_QUIET(gasnetc_am_hdr_pack(&h, buf) == 0, "rendezvous Short packed");
    memset(buf, 0, sizeof(buf));
    buf[0] = 8 | GASNETC_AM_LONG;
    CHECK_QUIET(gasnetc_am_hdr_unpack(buf, sizeof(buf), &o) == 0, "rendezvous Long unpacked");
    buf[0] = 8 | GASNETC_AM_SHORT;
    CHECK_QUIET(gasnetc_am_hdr_unpack(buf, sizeof(buf), &o) == 0, "rendezvous Short unpacked");
    gasnetc_am_rndv_t r = {0x00007f1234567890ull, 0xdeadbeefu}, r2;
    unsigned char d[GASNETC_AM_RNDV_DESC];
    gasnetc_am_rndv_pack(&r, d);
    CHECK(gasnetc_am_rndv_unpack(d, &r2) && r2.addr == r.addr && r2.rkey == r.rkey,
          "rendezvous descriptor round trip");
    d[13] = 1;
    CHECK_QUIET(!gasnetc_am_rndv_unpack(d, &r2), "descriptor with reserved bytes accepted");
    return unit_summary("test-am-wire");
}
