/* tests/fuzz/fuzz-am-wire.c: libFuzzer target for the AM wire decoder
 * (core/am/wire.c).  Arbitrary bytes go to gasnetc_am_hdr_unpack; whatever
 * it accepts must be a header the encoder can write back byte for byte
 * (except the reserved word, which the decoder ignores and the encoder
 * zeroes), and whatever it refuses must really be malformed.  See README. */
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
    }
    free(buf);
    return 0;
}
