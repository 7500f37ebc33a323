/* tests/fuzz/fuzz-am-wire.c: libFuzzer target for the AM wire decoder
 * (core/am/wire.c).  Arbitrary bytes go to gasnetc_am_hdr_unpack; whatever
 * it accepts must be a header the encoder can write back byte for byte
 * (except the reserved word, which the decoder ignores and the encoder
 * zeroes), and whatever it refuses must really be malformed.  The body of
 * an accepted rendezvous Medium goes to gasnetc_am_rndv_unpack, which must
 * accept exactly the descriptors whose reserved word is 0 and re-pack them
 * byte for byte.  See README. */
#include "core/am/wire.h"
#include "tests/fuzz/fuzz-check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the wire format (wire.h) says about a buffer, independently of the
 * decoder: 0 if malformed, else the header's length. */
static size_t expected_len(const unsigned char *p, size_t len)
{
    if (len < 16 || (p[0] & ~15u) != 0) return 0;
    unsigned category = p[0] & 3u, nargs = p[2];
    if (category > GASNETC_AM_LONG || nargs > GASNETC_AM_MAX_ARGS) return 0;
    /* Bit 3 (rendezvous) is a Medium's only. */
    if ((p[0] & 8u) && category != GASNETC_AM_MEDIUM) return 0;
    size_t need = 16 + (category == GASNETC_AM_LONG ? 8u : 0u) + 4u * nargs;
    return len < need ? 0 : need;
}

/* The rendezvous descriptor after a rendezvous Medium's header: `avail`
 * bytes at p (the receiver reads it only when the body holds one). */
static void check_rndv(const unsigned char *p, size_t avail)
{
    if (avail < GASNETC_AM_RNDV_DESC) return;
    gasnetc_am_rndv_t r, again;
    memset(&r, 0xa5, sizeof(r));
    int ok = gasnetc_am_rndv_unpack(p, &r);
    FUZZ_CHECK(ok == (p[12] == 0 && p[13] == 0 && p[14] == 0 && p[15] == 0));
    uint64_t addr = 0;
    for (int i = 7; i >= 0; i--) addr = addr << 8 | p[i];
    FUZZ_CHECK(r.addr == addr);
    FUZZ_CHECK(r.rkey == ((uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 |
                          (uint32_t)p[11] << 24));
    unsigned char out[GASNETC_AM_RNDV_DESC];
    memset(out, 0x5a, sizeof(out));
    gasnetc_am_rndv_pack(&r, out);
    FUZZ_CHECK(memcmp(out, p, 12) == 0);
    FUZZ_CHECK(out[12] == 0 && out[13] == 0 && out[14] == 0 && out[15] == 0);
    FUZZ_CHECK(gasnetc_am_rndv_unpack(out, &again) == 1);
    FUZZ_CHECK(again.addr == r.addr && again.rkey == r.rkey);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    /* A private copy of exactly `size` bytes: ASan sees any overread. */
    unsigned char *buf = malloc(size ? size : 1);
    FUZZ_CHECK(buf != NULL);
    if (size) memcpy(buf, data, size);

    gasnetc_am_hdr_t hdr;
    memset(&hdr, 0xa5, sizeof(hdr));
    size_t used = gasnetc_am_hdr_unpack(buf, size, &hdr);
    FUZZ_CHECK(used == expected_len(buf, size));
    if (used) {
        FUZZ_CHECK(used <= GASNETC_AM_HDR_MAX);
        FUZZ_CHECK(gasnetc_am_hdr_wire_size(&hdr) == used);
        for (unsigned i = hdr.nargs; i < GASNETC_AM_MAX_ARGS; i++) FUZZ_CHECK(hdr.args[i] == 0);
        if (hdr.category != GASNETC_AM_LONG) FUZZ_CHECK(hdr.dest_addr == 0);

        unsigned char out[GASNETC_AM_HDR_MAX];
        memset(out, 0x5a, sizeof(out));
        FUZZ_CHECK(gasnetc_am_hdr_pack(&hdr, out) == used);
        /* Bytes 12-13 name the destination and source endpoints (kept);
         * 14-15 are reserved and always written as zero. */
        FUZZ_CHECK(memcmp(out, buf, 14) == 0);
        FUZZ_CHECK(out[14] == 0 && out[15] == 0);
        FUZZ_CHECK(memcmp(out + 16, buf + 16, used - 16) == 0);

        /* Decoding the re-encoded header gives the same header. */
        gasnetc_am_hdr_t again;
        FUZZ_CHECK(gasnetc_am_hdr_unpack(out, used, &again) == used);
        FUZZ_CHECK(memcmp(&again, &hdr, sizeof(hdr)) == 0);
        /* One byte short is always refused. */
        FUZZ_CHECK(gasnetc_am_hdr_unpack(out, used - 1, &again) == 0);
        if (hdr.rndv) check_rndv(buf + used, size - used);
    }
    free(buf);
    return 0;
}
