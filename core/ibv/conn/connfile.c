/* core/ibv/conn/connfile.c: connect-file paths, parsing and writing (connfile.h).
 * Pure: no verbs, no I/O (ondemand.c reads and writes the files). */
#include "core/ibv/conn/connfile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gasnetc_connfile_path(const char *pattern, uint32_t rank, char *out, size_t n)
{
    char num[16];
    size_t len = 0, nl = (size_t)snprintf(num, sizeof(num), "%u", rank);
    for (const char *p = pattern; *p; p++) {
        const char *piece = *p == '%' ? num : p;
        size_t k = *p == '%' ? nl : 1;
        if (len + k >= n) return -1;
        memcpy(out + len, piece, k);
        len += k;
    }
    if (len >= n) return -1;
    out[len] = '\0';
    return 0;
}

static int digit_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    return 99;
}

/* Reads a number in base b at *pp; returns 0 and advances, or -1. */
static int read_num(const char **pp, int b, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    int any = 0;
    while (digit_value((unsigned char)*p) < b) {
        x = x * (uint64_t)b + (uint64_t)digit_value((unsigned char)*p++);
        if (x > 0xffffffffull) return -1;
        any = 1;
    }
    if (!any) return -1;
    *pp = p;
    *v = x;
    return 0;
}

static int fail(char *err, size_t n, const char *name, int line, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(err, n, "GASNET_CONNECTFILE_IN: %s line %d: %s (format: 'node: peer peer-peer ...', "
             "optional 'size: N' and 'base: B' lines; see README)", name, line, what);
    return -1;
}

static void skip_blanks(const char **pp)
{
    while (**pp == ' ' || **pp == '\t' || **pp == '\r') (*pp)++;
}

int gasnetc_connfile_parse(const char *text, const char *name, uint32_t me, uint32_t size,
                           uint8_t *want, char *err, size_t errlen)
{
    int base = 10, line = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        line++;
        const char *q = p;
        skip_blanks(&q);
        if (q == eol || *q == '#') { /* blank line or comment */
        } else if (!strncmp(p, "size:", 5) || !strncmp(p, "base:", 5)) {
            uint64_t v;
            q = p + 5;
            skip_blanks(&q);
            if (read_num(&q, 10, &v)) return fail(err, errlen, name, line, "'%.5s' without a decimal value", p);
            skip_blanks(&q);
            if (q != eol) return fail(err, errlen, name, line, "junk after '%.5s %llu'", p, (unsigned long long)v);
            if (p[0] == 's' && v != size)
                return fail(err, errlen, name, line, "written for %llu processes, this job has %u",
                            (unsigned long long)v, size);
            if (p[0] == 'b') {
                if (v < 2 || v > 36) return fail(err, errlen, name, line, "base %llu is not in 2..36", (unsigned long long)v);
                base = (int)v;
            }
        } else {
            uint64_t node;
            q = p;
            if (read_num(&q, base, &node) || *q != ':')
                return fail(err, errlen, name, line, "expected 'node:' at the start of the line");
            if (node >= size)
                return fail(err, errlen, name, line, "node %llu is not a rank of this %u-process job",
                            (unsigned long long)node, size);
            q++;
            for (;;) {
                uint64_t lo, hi;
                skip_blanks(&q);
                if (q >= eol) break;
                if (read_num(&q, base, &lo))
                    return fail(err, errlen, name, line, "'%c' is not a base-%d node number", *q, base);
                hi = lo;
                if (*q == '-') {
                    q++;
                    if (read_num(&q, base, &hi) || hi < lo)
                        return fail(err, errlen, name, line, "bad range after %llu-", (unsigned long long)lo);
                }
                if (q < eol && *q != ' ' && *q != '\t' && *q != '\r')
                    return fail(err, errlen, name, line, "'%c' is not a base-%d node number", *q, base);
                if (hi >= size)
                    return fail(err, errlen, name, line, "peer %llu is not a rank of this %u-process job",
                                (unsigned long long)hi, size);
                if (node == me) {
                    for (uint64_t r = lo; r <= hi; r++)
                        if (r != me) want[r] = 1;
                } else if (me >= lo && me <= hi) {
                    want[node] = 1;
                }
            }
        }
        p = *eol ? eol + 1 : eol;
    }
    return 0;
}

/* Appends v in base b. */
static size_t put_num(char *out, uint32_t v, int b)
{
    char tmp[40];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % (uint32_t)b];
        v /= (uint32_t)b;
    } while (v);
    for (int i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return (size_t)n;
}

char *gasnetc_connfile_format(uint32_t me, uint32_t size, const uint8_t *used, int base)
{
    if (base < 2 || base > 36) base = 36;
    /* Worst case: every other peer, "x " per peer (<= 34 chars each) plus a
     * line head every ~100 characters. */
    size_t cap = 64 + (size_t)size * 80, len = 0, line_start = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    len += (size_t)snprintf(out, cap, "base: %d\nsize: %u\n", base, size);
    int open = 0;
    for (uint32_t p = 0; p < size;) {
        if (!used[p] || p == me) {
            p++;
            continue;
        }
        uint32_t q = p;
        while (q + 1 < size && used[q + 1] && q + 1 != me) q++;
        if (!open || len - line_start > 100) {
            if (open) out[len++] = '\n';
            line_start = len;
            len += put_num(out + len, me, base);
            out[len++] = ':';
            open = 1;
        }
        out[len++] = ' ';
        len += put_num(out + len, p, base);
        if (q > p) {
            out[len++] = '-';
            len += put_num(out + len, q, base);
        }
        p = q + 1;
    }
    if (open) out[len++] = '\n';
    out[len] = '\0';
    return out;
}
