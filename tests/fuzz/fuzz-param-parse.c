/* tests/fuzz/fuzz-param-parse.c: libFuzzer target for the parameter value
 * parsers (other/param/param-parse.c), which read every GASNET_* variable.
 *
 * Input: the text of a value (embedded NULs end it early, as in an
 * environment).  Each parser runs on it; an accepted value must print back
 * to text the parser reads to the same value, refusals must use the
 * documented codes, and a reported bad unit must be a terminated string in
 * its buffer.  GASNET_MAX_SEGSIZE's memory-scope form (a fraction or size,
 * then /P or /H) must print back with its scope to the same value.  The
 * edit distance (the "did you mean" hints) runs on the two
 * halves of the input and must be a metric's values.  See README. */
#include "other/param/param-parse.h"
#include "tests/fuzz/fuzz-check.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_code(int rc)
{
    return rc == GASNETI_PARSE_OK || rc == GASNETI_PARSE_SYNTAX || rc == GASNETI_PARSE_RANGE ||
           rc == GASNETI_PARSE_UNIT;
}

/* badunit must be NUL-terminated inside its buffer; an unused one is intact. */
static void check_badunit(int rc, const char *badunit, size_t len, char fill)
{
    if (rc == GASNETI_PARSE_UNIT)
        FUZZ_CHECK(memchr(badunit, '\0', len) != NULL);
    else
        for (size_t i = 0; i < len; i++) FUZZ_CHECK(badunit[i] == fill);
}

static void fuzz_int(const char *text)
{
    int64_t v = 12345, w;
    char buf[64];
    int rc = gasneti_parse_int(text, &v);
    FUZZ_CHECK(rc == GASNETI_PARSE_OK || rc == GASNETI_PARSE_SYNTAX || rc == GASNETI_PARSE_RANGE);
    if (rc != GASNETI_PARSE_OK) {
        FUZZ_CHECK(v == 12345); /* untouched on failure */
        return;
    }
    snprintf(buf, sizeof(buf), "%" PRId64, v);
    FUZZ_CHECK(gasneti_parse_int(buf, &w) == GASNETI_PARSE_OK && w == v);
    if (v >= 0) {
        snprintf(buf, sizeof(buf), " 0x%" PRIx64 "\t", (uint64_t)v);
        FUZZ_CHECK(gasneti_parse_int(buf, &w) == GASNETI_PARSE_OK && w == v);
    }
}

static void fuzz_double(const char *text)
{
    double d = 0.5, e;
    char buf[64];
    int rc = gasneti_parse_double(text, &d);
    FUZZ_CHECK(is_code(rc) && rc != GASNETI_PARSE_UNIT);
    if (rc != GASNETI_PARSE_OK) return;
    FUZZ_CHECK(isfinite(d));
    snprintf(buf, sizeof(buf), "%.17g", d);
    FUZZ_CHECK(gasneti_parse_double(buf, &e) == GASNETI_PARSE_OK && e == d);
}

static void fuzz_bool(const char *text)
{
    int b = 7;
    int rc = gasneti_parse_bool(text, &b);
    FUZZ_CHECK(rc == GASNETI_PARSE_OK || rc == GASNETI_PARSE_SYNTAX);
    FUZZ_CHECK(rc == GASNETI_PARSE_OK ? (b == 0 || b == 1) : b == 7);
}

static void fuzz_size(const char *text, uint64_t bare_unit, size_t badlen)
{
    uint64_t v = 99, w;
    char bad[16], buf[64];
    memset(bad, 'Q', sizeof(bad));
    int rc = gasneti_parse_size(text, bare_unit, &v, badlen ? bad : NULL, badlen);
    FUZZ_CHECK(is_code(rc));
    if (badlen) check_badunit(rc, bad, badlen, 'Q');
    if (rc != GASNETI_PARSE_OK) return;
    snprintf(buf, sizeof(buf), "%" PRIu64 "B", v);
    FUZZ_CHECK(gasneti_parse_size(buf, bare_unit, &w, NULL, 0) == GASNETI_PARSE_OK && w == v);
}

static void fuzz_memfrac(const char *text)
{
    double f = -1;
    uint64_t bytes = 99;
    char bad[8];
    memset(bad, 'Q', sizeof(bad));
    int rc = gasneti_parse_memfrac(text, &f, &bytes, bad, sizeof(bad));
    FUZZ_CHECK(rc == 1 || rc == 0 || (rc < 0 && is_code(rc)));
    check_badunit(rc, bad, sizeof(bad), 'Q');
    if (rc == 1) FUZZ_CHECK(f >= 0 && f < 1.0 && bytes == 0);
    if (rc == 0) FUZZ_CHECK(f == 0);
}

static void fuzz_memscope(const char *text)
{
    double f = -1, f2 = -1;
    uint64_t bytes = 99, b2 = 99;
    int scope = 'Q', s2 = 'Q';
    char bad[8], buf[64];
    memset(bad, 'Q', sizeof(bad));
    int rc = gasneti_parse_memscope(text, &f, &bytes, &scope, bad, sizeof(bad));
    FUZZ_CHECK(rc == 1 || rc == 0 || (rc < 0 && is_code(rc)));
    check_badunit(rc, bad, sizeof(bad), 'Q');
    if (rc < 0) {
        FUZZ_CHECK(scope == 'Q'); /* untouched on failure */
        return;
    }
    FUZZ_CHECK(scope == 0 || scope == 'H' || scope == 'P');
    const char *suffix = scope == 'H' ? "/H" : scope == 'P' ? " p" : "";
    if (rc == 1) {
        FUZZ_CHECK(f >= 0 && f < 1.0 && bytes == 0);
        if (f != 0 && f < DBL_MIN) return; /* a subnormal need not print back exactly */
        snprintf(buf, sizeof(buf), "%.17g%s", f, suffix);
    } else {
        FUZZ_CHECK(f == 0);
        snprintf(buf, sizeof(buf), "%" PRIu64 "B%s", bytes, suffix);
    }
    FUZZ_CHECK(gasneti_parse_memscope(buf, &f2, &b2, &s2, NULL, 0) == rc);
    FUZZ_CHECK(f2 == f && b2 == bytes && s2 == scope);
}

static void fuzz_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned dab = gasneti_edit_distance(a, b);
    FUZZ_CHECK(gasneti_edit_distance(a, a) == 0);
    FUZZ_CHECK(dab == gasneti_edit_distance(b, a));
    if (la > 127) la = 127;
    if (lb > 127) lb = 127;
    FUZZ_CHECK(dab <= (la > lb ? la : lb));
    FUZZ_CHECK(dab >= (la > lb ? la - lb : lb - la));
    FUZZ_CHECK((dab == 0) == (la == lb && strncmp(a, b, la) == 0));
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = fuzz_text(data, size);

    fuzz_int(text);
    fuzz_double(text);
    fuzz_bool(text);
    fuzz_size(text, 1, 16);
    fuzz_size(text, 1024, 1);
    fuzz_size(text, 1048576, 0);
    fuzz_memfrac(text);
    fuzz_memscope(text);

    size_t half = strlen(text) / 2;
    char *b = strdup(text + half);
    FUZZ_CHECK(b != NULL);
    text[half] = '\0';
    fuzz_distance(text, b);
    free(b);
    free(text);
    return 0;
}
