/* tests/fuzz/fuzz-connfile.c: libFuzzer target for the connect-file parser
 * (core/ibv/conn/connfile.c), which reads the files GASNET_CONNECTFILE_IN
 * names: text written by other jobs, or by hand.
 *
 * Input: byte 0 picks the job size (1..64), byte 1 this rank, byte 2 the
 * base the formatter writes in; the rest is the file's text (NUL ends it).
 * A refusal leaves a terminated one-line message and touches nothing; an
 * accepted file marks peers with 1 only, never this rank, and what the
 * formatter writes for the marked peers parses back to the same marks.
 * See README. */
#include "core/ibv/conn/connfile.h"
#include "tests/fuzz/fuzz-check.h"

#include <stdlib.h>
#include <string.h>

#define MAXSIZE 64
#define MINE 0x5a /* want[me] must keep it */

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 3 || size > 4096) return 0;
    uint32_t n = 1u + data[0] % MAXSIZE, me = data[1] % n;
    int base = 2 + data[2] % 35;
    char *text = fuzz_text(data + 3, size - 3);

    uint8_t want[MAXSIZE], again[MAXSIZE];
    char err[256];
    memset(want, 0, sizeof(want));
    memset(err, 'Q', sizeof(err));
    want[me] = MINE;
    int rc = gasnetc_connfile_parse(text, "fuzz", me, n, want, err, sizeof(err));
    free(text);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK(want[me] == MINE);
    for (uint32_t p = n; p < MAXSIZE; p++) FUZZ_CHECK(want[p] == 0);
    if (rc != 0) {
        FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL && !strchr(err, '\n'));
        return 0;
    }
    for (uint32_t p = 0; p < n; p++) FUZZ_CHECK(p == me || want[p] <= 1);

    want[me] = 0;
    char *file = gasnetc_connfile_format(me, n, want, base);
    FUZZ_CHECK(file != NULL);
    memset(again, 0, sizeof(again));
    FUZZ_CHECK(gasnetc_connfile_parse(file, "formatted", me, n, again, err, sizeof(err)) == 0);
    FUZZ_CHECK(memcmp(want, again, n) == 0);
    free(file);
    return 0;
}
