/* core/ibv/ports/ports_parse.c: the pure parsers of HCA/port selection (see
 * ports_parse.h).  Nothing here touches verbs, the environment or stderr.
 */
#include "core/ibv/ports/ports_parse.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((__format__(__printf__, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* One line: a control character quoted from the value shows as '?'. */
    for (char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* Characters allowed in an HCA name: anything printable but blanks and the
 * three separators of the filter syntax. */
static int is_name_char(int c)
{
    return isgraph((unsigned char)c) && c != '+' && c != ':' && c != ',';
}

/* Reads a decimal number of at most 10 digits at *pp; advances *pp. */
static int read_number(const char **pp, uint64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        if (++digits > 10) return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
    }
    if (!digits) return -1;
    *pp = p;
    *out = v;
    return 0;
}

/* ---- GASNET_IBV_PORTS ------------------------------------------------------ */

void gasnetc_ibv_portspec_free(gasnetc_ibv_portspec_t *spec)
{
    if (!spec) return;
    free(spec->entries);
    spec->entries = NULL;
    spec->count = 0;
}

const gasnetc_ibv_portspec_entry_t *gasnetc_ibv_portspec_find(const gasnetc_ibv_portspec_t *spec,
                                                              const char *hca)
{
    int i;
    if (!spec || !hca) return NULL;
    for (i = 0; i < spec->count; i++)
        if (!strcmp(spec->entries[i].hca, hca)) return &spec->entries[i];
    return NULL;
}

int gasnetc_ibv_portspec_lists(const gasnetc_ibv_portspec_entry_t *e, int port)
{
    if (!e || port < 1 || port > GASNETC_IBV_PORT_NUM_MAX) return 0;
    return (int)((e->ports[port / 64] >> (port % 64)) & 1);
}

/* Finds or appends the entry for name (len bytes). */
static gasnetc_ibv_portspec_entry_t *spec_entry(gasnetc_ibv_portspec_t *spec, const char *name,
                                                size_t len)
{
    gasnetc_ibv_portspec_entry_t *e;
    int i;
    for (i = 0; i < spec->count; i++)
        if (strlen(spec->entries[i].hca) == len && !memcmp(spec->entries[i].hca, name, len))
            return &spec->entries[i];
    e = realloc(spec->entries, (size_t)(spec->count + 1) * sizeof(*e));
    if (!e) return NULL;
    spec->entries = e;
    e = &spec->entries[spec->count++];
    memset(e, 0, sizeof(*e));
    memcpy(e->hca, name, len);
    return e;
}

/* Parses one "hca[:p,p...]" entry starting at p, ending at '+' or NUL. */
static int parse_entry(const char **pp, gasnetc_ibv_portspec_t *spec, char *err, size_t errlen)
{
    const char *p = skip_blanks(*pp), *name = p;
    gasnetc_ibv_portspec_entry_t *e;
    size_t len;

    while (is_name_char(*p)) p++;
    len = (size_t)(p - name);
    if (len == 0) {
        if (*p == ':')
            set_err(err, errlen, "an entry has ports but no HCA name before ':' (use e.g. mlx5_0:1)");
        else if (*p == '+' || *p == '\0')
            set_err(err, errlen, "empty entry (entries are HCA[:PORT,...] separated by single '+')");
        else
            set_err(err, errlen, "unexpected character '%c' where an HCA name should start", *p);
        return -1;
    }
    if (len >= GASNETC_IBV_HCA_NAME_MAX) {
        set_err(err, errlen, "HCA name '%.*s' is longer than %d characters", (int)len, name,
                GASNETC_IBV_HCA_NAME_MAX - 1);
        return -1;
    }
    if (!(e = spec_entry(spec, name, len))) {
        set_err(err, errlen, "out of memory");
        return -1;
    }
    p = skip_blanks(p);
    if (*p != ':') {
        e->any_port = 1;
    } else {
        p++;
        for (;;) {
            uint64_t port;
            const char *start;
            p = skip_blanks(p);
            start = p;
            if (read_number(&p, &port) != 0) {
                if (*start == '\0' || *start == '+' || *start == ',')
                    set_err(err, errlen, "HCA '%s': missing port number after '%c'", e->hca,
                            start[-1] == ',' ? ',' : ':');
                else
                    set_err(err, errlen, "HCA '%s': '%.16s' is not a port number", e->hca, start);
                return -1;
            }
            if (port < 1 || port > GASNETC_IBV_PORT_NUM_MAX) {
                set_err(err, errlen, "HCA '%s': port %llu is out of range (1..%d)", e->hca,
                        (unsigned long long)port, GASNETC_IBV_PORT_NUM_MAX);
                return -1;
            }
            e->ports[port / 64] |= UINT64_C(1) << (port % 64);
            p = skip_blanks(p);
            if (*p != ',') break;
            p++;
        }
    }
    p = skip_blanks(p);
    if (*p != '+' && *p != '\0') {
        set_err(err, errlen, "HCA '%s': unexpected '%c' (ports are a comma list after ':', "
                "entries are separated by '+')", e->hca, *p);
        return -1;
    }
    *pp = p;
    return 0;
}

int gasnetc_ibv_portspec_parse(const char *text, gasnetc_ibv_portspec_t *spec, char *err,
                               size_t errlen)
{
    const char *p;
    spec->count = 0;
    spec->entries = NULL;
    if (!text) return 0;
    p = skip_blanks(text);
    if (*p == '\0') return 0;
    for (;;) {
        if (parse_entry(&p, spec, err, errlen) != 0) {
            gasnetc_ibv_portspec_free(spec);
            return -1;
        }
        if (*p == '\0') return 0;
        p++; /* '+' */
    }
}

/* ---- GASNET_IBV_LIST_PORTS_NODES --------------------------------------------- */

int gasnetc_ibv_nodelist_match(const char *text, uint32_t rank, char *err, size_t errlen)
{
    const char *p;
    int found = 0;
    if (!text) return 1;
    p = skip_blanks(text);
    if (*p == '\0') return 1;
    if (*p == '*' && *skip_blanks(p + 1) == '\0') return 1;
    for (;;) {
        uint64_t lo, hi;
        const char *item;
        p = skip_blanks(p);
        item = p;
        if (read_number(&p, &lo) != 0 || lo > UINT32_MAX) {
            if (*item == ',' || *item == '\0')
                set_err(err, errlen, "empty item in '%s' (use e.g. 0,2-4,6 or *)", text);
            else
                set_err(err, errlen, "'%.16s' in '%s' is not a rank or range (use e.g. 0,2-4,6 or *)",
                        item, text);
            return -1;
        }
        hi = lo;
        p = skip_blanks(p);
        if (*p == '-') {
            p = skip_blanks(p + 1);
            if (read_number(&p, &hi) != 0 || hi > UINT32_MAX) {
                set_err(err, errlen, "range starting at %llu in '%s' has no valid end (use e.g. 2-4)",
                        (unsigned long long)lo, text);
                return -1;
            }
            if (hi < lo) {
                set_err(err, errlen, "range %llu-%llu in '%s' is reversed (write %llu-%llu)",
                        (unsigned long long)lo, (unsigned long long)hi, text,
                        (unsigned long long)hi, (unsigned long long)lo);
                return -1;
            }
            p = skip_blanks(p);
        }
        if (rank >= lo && rank <= hi) found = 1;
        if (*p == '\0') return found;
        if (*p != ',') {
            set_err(err, errlen, "unexpected '%c' in '%s' (use e.g. 0,2-4,6 or *)", *p, text);
            return -1;
        }
        p++;
    }
}

/* ---- MTU ------------------------------------------------------------------------ */

int gasnetc_ibv_mtu_code(int bytes)
{
    int code;
    for (code = 1; code <= 5; code++)
        if (bytes == (128 << code)) return code;
    return 0;
}

int gasnetc_ibv_mtu_bytes(int code)
{
    return (code >= 1 && code <= 5) ? (128 << code) : 0;
}

int gasnetc_ibv_mtu_check(int64_t value, char *err, size_t errlen)
{
    if (value == -1 || value == 0) return 0;
    if (value > 0 && value <= 4096 && gasnetc_ibv_mtu_code((int)value)) return 0;
    set_err(err, errlen, "%lld is not a valid MTU: use -1 (the port's active MTU), 0 (automatic), "
            "256, 512, 1024, 2048 or 4096", (long long)value);
    return -1;
}

int gasnetc_ibv_mtu_choose(int active_code, int64_t max_mtu_value)
{
    int cap;
    if (max_mtu_value <= 0) return active_code;
    cap = gasnetc_ibv_mtu_code((int)max_mtu_value);
    if (!cap) return active_code;
    return active_code < cap ? active_code : cap;
}

/* ---- P_Key ---------------------------------------------------------------------- */

int gasnetc_ibv_pkey_check(int64_t value, char *err, size_t errlen)
{
    int64_t key = value & 0x7fff;
    if (value < 0 || value > 0xffff || key < 2) {
        set_err(err, errlen, "%lld (0x%llx) is not a valid partition key: use 0x0002..0x7fff "
                "(the membership bit 0x8000 is ignored)", (long long)value,
                (unsigned long long)value);
        return -1;
    }
    return (int)key;
}

int gasnetc_ibv_pkey_find(const uint16_t *table, int n, int key)
{
    int i, partial = -1;
    for (i = 0; i < n; i++) {
        if ((table[i] & 0x7fff) != (key & 0x7fff)) continue;
        if (table[i] & 0x8000) return i;
        if (partial < 0) partial = i;
    }
    return partial;
}

/* ---- GIDs ------------------------------------------------------------------------- */

int gasnetc_ibv_gid_preference(const uint8_t gid[16], int gid_type)
{
    static const uint8_t v4prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    int i, zero = 1, kind;
    for (i = 0; i < 16; i++)
        if (gid[i]) zero = 0;
    if (zero) return 0;
    if (!memcmp(gid, v4prefix, sizeof(v4prefix)))
        kind = 3; /* IPv4-mapped */
    else if (gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80)
        kind = 1; /* IPv6 link-local */
    else
        kind = 2; /* any other IPv6 address */
    return (gid_type == GASNETC_IBV_GID_TYPE_ROCE_V2 ? 3 : 0) + kind;
}

void gasnetc_ibv_gid_format(const uint8_t gid[16], char *buf, size_t len)
{
    if (!buf || !len) return;
    if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len)) snprintf(buf, len, "?");
}

const char *gasnetc_ibv_gid_type_name(int gid_type)
{
    switch (gid_type) {
    case GASNETC_IBV_GID_TYPE_ROCE_V1: return "RoCEv1";
    case GASNETC_IBV_GID_TYPE_ROCE_V2: return "RoCEv2";
    default: return "IB";
    }
}
