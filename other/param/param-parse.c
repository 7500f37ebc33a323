/* other/param/param-parse.c: text parsers for parameter values (see
 * param-parse.h).  No state, no environment, no logging. */
#include "other/param/param-parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The text without leading/trailing whitespace, as [*begin, *end). */
static void trim(const char *text, const char **begin, const char **end)
{
    const char *b = text, *e;
    while (*b && isspace((unsigned char)*b)) b++;
    e = b + strlen(b);
    while (e > b && isspace((unsigned char)e[-1])) e--;
    *begin = b;
    *end = e;
}

/* Copies [b, e) into buf (NUL-terminated); returns 0, or -1 if it does not
 * fit (no value we accept is anywhere near that long). */
static int copy_span(const char *b, const char *e, char *buf, size_t len)
{
    size_t n = (size_t)(e - b);
    if (n >= len) return -1;
    memcpy(buf, b, n);
    buf[n] = '\0';
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Unsigned digits of [*p, e) in base 10 or 16 (with 0x prefix).  Advances *p
 * past the digits.  Returns GASNETI_PARSE_*. */
static int scan_unsigned(const char **p, const char *e, uint64_t *out, int allow_hex)
{
    const char *s = *p;
    unsigned base = 10;
    uint64_t v = 0;
    int ndigits = 0, overflow = 0;
    if (allow_hex && e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
        hexval((unsigned char)s[2]) >= 0) {
        base = 16;
        s += 2;
    }
    for (; s < e; s++) {
        int d = (base == 16) ? hexval((unsigned char)*s)
                             : (isdigit((unsigned char)*s) ? *s - '0' : -1);
        if (d < 0) break;
        if (v > (UINT64_MAX - (uint64_t)d) / base) overflow = 1;
        v = v * base + (uint64_t)d;
        ndigits++;
    }
    if (!ndigits) return GASNETI_PARSE_SYNTAX;
    *p = s;
    *out = v;
    return overflow ? GASNETI_PARSE_RANGE : GASNETI_PARSE_OK;
}

int gasneti_parse_int(const char *text, int64_t *out)
{
    const char *b, *e;
    uint64_t mag;
    int neg = 0, rc;
    if (!text) return GASNETI_PARSE_SYNTAX;
    trim(text, &b, &e);
    if (b < e && (*b == '+' || *b == '-')) neg = (*b++ == '-');
    rc = scan_unsigned(&b, e, &mag, 1);
    if (rc == GASNETI_PARSE_SYNTAX || b != e) return GASNETI_PARSE_SYNTAX;
    if (rc == GASNETI_PARSE_RANGE) return GASNETI_PARSE_RANGE;
    if (neg) {
        if (mag > (uint64_t)INT64_MAX + 1) return GASNETI_PARSE_RANGE;
        *out = (mag == (uint64_t)INT64_MAX + 1) ? INT64_MIN : -(int64_t)mag;
    } else {
        if (mag > (uint64_t)INT64_MAX) return GASNETI_PARSE_RANGE;
        *out = (int64_t)mag;
    }
    return GASNETI_PARSE_OK;
}

/* One finite floating-point number filling all of [b, e). */
static int parse_real(const char *b, const char *e, double *out)
{
    char buf[128], *end;
    double v;
    if (b == e || copy_span(b, e, buf, sizeof buf)) return GASNETI_PARSE_SYNTAX;
    /* strtod also takes "inf", "nan" and leading blanks: refuse those. */
    if (isspace((unsigned char)buf[0])) return GASNETI_PARSE_SYNTAX;
    errno = 0;
    v = strtod(buf, &end);
    if (end == buf || *end != '\0') return GASNETI_PARSE_SYNTAX;
    if (!isfinite(v)) return (errno == ERANGE) ? GASNETI_PARSE_RANGE : GASNETI_PARSE_SYNTAX;
    *out = v;
    return GASNETI_PARSE_OK;
}

int gasneti_parse_double(const char *text, double *out)
{
    const char *b, *e, *slash;
    double num, den;
    int rc;
    if (!text) return GASNETI_PARSE_SYNTAX;
    trim(text, &b, &e);
    slash = memchr(b, '/', (size_t)(e - b));
    if (!slash) return parse_real(b, e, out);
    {
        const char *nb = b, *ne = slash, *db = slash + 1, *de = e;
        while (ne > nb && isspace((unsigned char)ne[-1])) ne--;
        while (db < de && isspace((unsigned char)*db)) db++;
        if ((rc = parse_real(nb, ne, &num)) != GASNETI_PARSE_OK) return rc;
        if ((rc = parse_real(db, de, &den)) != GASNETI_PARSE_OK) return rc;
    }
    if (den == 0.0) return GASNETI_PARSE_SYNTAX;
    *out = num / den;
    return isfinite(*out) ? GASNETI_PARSE_OK : GASNETI_PARSE_RANGE;
}

int gasneti_parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"1", "yes", "y", "true", "on"};
    static const char *const no[] = {"0", "no", "n", "false", "off"};
    const char *b, *e;
    char buf[8];
    size_t i;
    if (!text) return GASNETI_PARSE_SYNTAX;
    trim(text, &b, &e);
    if (copy_span(b, e, buf, sizeof buf)) return GASNETI_PARSE_SYNTAX;
    for (i = 0; buf[i]; i++) buf[i] = (char)tolower((unsigned char)buf[i]);
    for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcmp(buf, yes[i])) { *out = 1; return GASNETI_PARSE_OK; }
        if (!strcmp(buf, no[i])) { *out = 0; return GASNETI_PARSE_OK; }
    }
    return GASNETI_PARSE_SYNTAX;
}

/* The multiplier of a unit suffix [b, e) (already trimmed), or 0 if it is
 * not one we know.  An empty suffix is the bare unit. */
static uint64_t unit_multiplier(const char *b, const char *e, uint64_t bare_unit)
{
    static const char letters[] = "KMGT";
    size_t n = (size_t)(e - b);
    const char *pos;
    uint64_t mult = 1;
    if (n == 0) return bare_unit;
    if (n == 1 && (*b == 'B' || *b == 'b')) return 1;
    pos = strchr(letters, toupper((unsigned char)*b));
    if (!pos || !*b) return 0;
    for (const char *l = letters; l <= pos; l++) mult *= 1024;
    if (n == 1) return mult;
    if (n == 2 && (b[1] == 'B' || b[1] == 'b')) return mult;
    if (n == 3 && (b[1] == 'i' || b[1] == 'I') && (b[2] == 'B' || b[2] == 'b')) return mult;
    return 0;
}

int gasneti_parse_size(const char *text, uint64_t bare_unit, uint64_t *out,
                       char *badunit, size_t badunit_len)
{
    const char *b, *e, *p, *u;
    uint64_t whole = 0, mult, frac_bytes = 0;
    double frac = 0.0;
    int rc, is_hex;
    if (!text) return GASNETI_PARSE_SYNTAX;
    trim(text, &b, &e);
    p = b;
    if (p < e && *p == '+') p++;
    is_hex = (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'));
    rc = scan_unsigned(&p, e, &whole, 1);
    if (rc == GASNETI_PARSE_SYNTAX && !(p < e && *p == '.')) return GASNETI_PARSE_SYNTAX;
    if (rc == GASNETI_PARSE_SYNTAX) whole = 0; /* ".5M" */
    if (!is_hex && p < e && *p == '.') {
        const char *f = ++p;
        double scale = 0.1;
        while (p < e && isdigit((unsigned char)*p)) {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
        if (p == f && rc == GASNETI_PARSE_SYNTAX) return GASNETI_PARSE_SYNTAX;
    }
    u = p;
    while (u < e && isspace((unsigned char)*u)) u++;
    mult = unit_multiplier(u, e, bare_unit);
    if (!mult) {
        if (badunit && badunit_len) {
            size_t n = (size_t)(e - u);
            if (n >= badunit_len) n = badunit_len - 1;
            memcpy(badunit, u, n);
            badunit[n] = '\0';
        }
        /* "abc" is not a size at all; "4X" is a size with a bad unit. */
        return (u == b) ? GASNETI_PARSE_SYNTAX : GASNETI_PARSE_UNIT;
    }
    if (rc == GASNETI_PARSE_RANGE || (whole && mult > UINT64_MAX / whole)) return GASNETI_PARSE_RANGE;
    if (frac > 0.0) frac_bytes = (uint64_t)(frac * (double)mult + 0.5);
    if (whole * mult > UINT64_MAX - frac_bytes) return GASNETI_PARSE_RANGE;
    *out = whole * mult + frac_bytes;
    return GASNETI_PARSE_OK;
}

int gasneti_parse_memfrac(const char *text, double *fraction, uint64_t *bytes,
                          char *badunit, size_t badunit_len)
{
    double f;
    int rc;
    if (!text) return GASNETI_PARSE_SYNTAX;
    rc = gasneti_parse_double(text, &f);
    if (rc == GASNETI_PARSE_OK && f < 1.0) {
        if (f < 0.0) return GASNETI_PARSE_SYNTAX;
        *fraction = f;
        *bytes = 0;
        return 1;
    }
    if (strchr(text, '/')) return GASNETI_PARSE_SYNTAX; /* "3/2" is no size */
    rc = gasneti_parse_size(text, 1, bytes, badunit, badunit_len);
    if (rc != GASNETI_PARSE_OK) return rc;
    *fraction = 0.0;
    return 0;
}

int gasneti_parse_memscope(const char *text, double *fraction, uint64_t *bytes, int *scope,
                           char *badunit, size_t badunit_len)
{
    const char *b, *e;
    char buf[128];
    int sc = 0, rc;
    if (!text) return GASNETI_PARSE_SYNTAX;
    trim(text, &b, &e);
    /* GASNet's suffix: "H" (per host) or "P" (per process), optionally after
     * a '/', blanks allowed around both. */
    if (e > b && strchr("hHpP", e[-1])) {
        sc = toupper((unsigned char)e[-1]);
        e--;
        while (e > b && isspace((unsigned char)e[-1])) e--;
        if (e > b && e[-1] == '/') e--;
    }
    if (copy_span(b, e, buf, sizeof buf)) return GASNETI_PARSE_SYNTAX;
    /* As GASNet: any number ("3/2", "1e9") of at least 1 is a byte count. */
    double d;
    if (gasneti_parse_double(buf, &d) == GASNETI_PARSE_OK && d >= 1.0) {
        if (d >= 18446744073709551616.0) return GASNETI_PARSE_RANGE;
        *fraction = 0.0;
        *bytes = (uint64_t)d;
        *scope = sc;
        return 0;
    }
    rc = gasneti_parse_memfrac(buf, fraction, bytes, badunit, badunit_len);
    if (rc >= 0) *scope = sc;
    return rc;
}

unsigned gasneti_edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = 127 };
    unsigned d[MAXLEN + 1][MAXLEN + 1];
    size_t la = strlen(a), lb = strlen(b), i, j;
    if (la > MAXLEN) la = MAXLEN;
    if (lb > MAXLEN) lb = MAXLEN;
    for (i = 0; i <= la; i++) d[i][0] = (unsigned)i;
    for (j = 0; j <= lb; j++) d[0][j] = (unsigned)j;
    for (i = 1; i <= la; i++) {
        for (j = 1; j <= lb; j++) {
            unsigned cost = (a[i - 1] != b[j - 1]);
            unsigned best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}
