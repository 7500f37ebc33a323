/* other/tools/tools-format.c: the gasnett_format_* printers of gasnet_tools.h
 * (conduit libraries only): the names of the bits of a gex_DT_t / gex_OP_t /
 * gex_TI_t mask, and one-paragraph descriptions of VIS transfers (address
 * lists, memvec lists, strides), as GASNet's tracing writes them.  Every
 * printer writes at most its *_bufsz() bytes, terminating NUL included. */
#include <gasnetex.h>

#include "other/log/log.h"
#include "other/util/strbuf.h"

/* ---- mask printers ------------------------------------------------------ */
typedef struct {
    uint32_t bit;
    const char *name;
} gasneti_tools_bitname_t;

/* "A|B|C" of the set bits (unknown ones as hex), "0" for none; returns the
 * length, writing it to buf (if non-NULL) with a terminating NUL. */
static size_t format_mask(char *buf, uint32_t mask, const gasneti_tools_bitname_t *names,
                          size_t count)
{
    char tmp[1024];
    size_t len = 0, i;
    uint32_t left = mask;
    tmp[0] = '\0';
    for (i = 0; i < count; i++) {
        if (!(mask & names[i].bit) || (left & names[i].bit) != names[i].bit) continue;
        len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%s%s", len ? "|" : "", names[i].name);
        left &= ~names[i].bit;
    }
    if (left || !mask)
        len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%s0x%x", len ? "|" : "", left);
    if (!mask) len = (size_t)snprintf(tmp, sizeof tmp, "0");
    if (buf) memcpy(buf, tmp, len + 1);
    return len;
}

#define GASNETI_BN(prefix, x) {(uint32_t)prefix##x, #prefix #x}

size_t gasnett_format_dt(char *buf, gex_DT_t dt)
{
    static const gasneti_tools_bitname_t names[] = {
        GASNETI_BN(GEX_DT_, I32), GASNETI_BN(GEX_DT_, U32), GASNETI_BN(GEX_DT_, I64),
        GASNETI_BN(GEX_DT_, U64), GASNETI_BN(GEX_DT_, FLT), GASNETI_BN(GEX_DT_, DBL),
        GASNETI_BN(GEX_DT_, USER),
    };
    return format_mask(buf, dt, names, sizeof names / sizeof names[0]);
}

size_t gasnett_format_op(char *buf, gex_OP_t op)
{
    static const gasneti_tools_bitname_t names[] = {
        GASNETI_BN(GEX_OP_, AND),  GASNETI_BN(GEX_OP_, OR),    GASNETI_BN(GEX_OP_, XOR),
        GASNETI_BN(GEX_OP_, ADD),  GASNETI_BN(GEX_OP_, SUB),   GASNETI_BN(GEX_OP_, MULT),
        GASNETI_BN(GEX_OP_, MIN),  GASNETI_BN(GEX_OP_, MAX),   GASNETI_BN(GEX_OP_, INC),
        GASNETI_BN(GEX_OP_, DEC),  GASNETI_BN(GEX_OP_, FAND),  GASNETI_BN(GEX_OP_, FOR),
        GASNETI_BN(GEX_OP_, FXOR), GASNETI_BN(GEX_OP_, FADD),  GASNETI_BN(GEX_OP_, FSUB),
        GASNETI_BN(GEX_OP_, FMULT), GASNETI_BN(GEX_OP_, FMIN), GASNETI_BN(GEX_OP_, FMAX),
        GASNETI_BN(GEX_OP_, FINC), GASNETI_BN(GEX_OP_, FDEC),  GASNETI_BN(GEX_OP_, SET),
        GASNETI_BN(GEX_OP_, CAS),  GASNETI_BN(GEX_OP_, GET),   GASNETI_BN(GEX_OP_, SWAP),
        GASNETI_BN(GEX_OP_, FCAS), GASNETI_BN(GEX_OP_, USER),  GASNETI_BN(GEX_OP_, USER_NC),
    };
    return format_mask(buf, op, names, sizeof names / sizeof names[0]);
}

size_t gasnett_format_ti(char *buf, gex_TI_t ti)
{
    static const gasneti_tools_bitname_t names[] = {
        GASNETI_BN(GEX_TI_, SRCRANK), GASNETI_BN(GEX_TI_, EP),      GASNETI_BN(GEX_TI_, ENTRY),
        GASNETI_BN(GEX_TI_, IS_REQ),  GASNETI_BN(GEX_TI_, IS_LONG),
    };
    return format_mask(buf, ti, names, sizeof names / sizeof names[0]);
}

/* ---- VIS descriptions --------------------------------------------------- */

size_t gasnett_format_memveclist_bufsz(size_t count)
{
    return 128 + count * 48;
}

gasneti_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                     gex_Memvec_t const *list)
{
    gasneti_memveclist_stats_t st = {NULL, NULL, 0};
    size_t i, len = 0, bufsz = gasnett_format_memveclist_bufsz(count);
    for (i = 0; i < count; i++) {
        char *lo = (char *)list[i].gex_addr, *hi = lo + list[i].gex_len - 1;
        if (!list[i].gex_len) continue;
        if (!st._minaddr || (void *)lo < st._minaddr) st._minaddr = lo;
        if (!st._maxaddr || (void *)hi > st._maxaddr) st._maxaddr = hi;
        st._totalsz += list[i].gex_len;
    }
    buf[0] = '\0';
    gasneti_strbuf_append(buf, bufsz, &len, "%" PRIuSZ " entries, totalsz=%" PRIuSZ ", bounds=[%p...%p]\nlist=[",
           count, st._totalsz, st._minaddr, st._maxaddr);
    for (i = 0; i < count; i++)
        gasneti_strbuf_append(buf, bufsz, &len, "%s{%p,%" PRIuSZ "}", i ? (i % 4 ? ", " : ",\n      ") : "",
               list[i].gex_addr, list[i].gex_len);
    gasneti_strbuf_append(buf, bufsz, &len, "]");
    return st;
}

size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount)
{
    return 64 + gasnett_format_memveclist_bufsz(dstcount) + gasnett_format_memveclist_bufsz(srccount);
}

size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               gex_Memvec_t const dstlist[], size_t srccount,
                               gex_Memvec_t const srclist[])
{
    size_t len = 0, i, total = 0, bufsz = gasnett_format_putvgetv_bufsz(dstcount, srccount);
    (void)tm;
    for (i = 0; i < dstcount; i++) total += dstlist[i].gex_len;
    buf[0] = '\0';
    gasneti_strbuf_append(buf, bufsz, &len, "(%" PRIuSZ " data bytes) peer=%u\ndst: ", total, (unsigned)rank);
    (void)gasnett_format_memveclist(buf + len, dstcount, dstlist);
    len += strlen(buf + len);
    gasneti_strbuf_append(buf, bufsz, &len, "\nsrc: ");
    (void)gasnett_format_memveclist(buf + len, srccount, srclist);
    return total;
}

size_t gasnett_format_addrlist_bufsz(size_t count)
{
    return 128 + count * 24;
}

gasneti_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count, void *const *list,
                                                 size_t len_each)
{
    gasneti_addrlist_stats_t st = {NULL, NULL};
    size_t i, len = 0, bufsz = gasnett_format_addrlist_bufsz(count);
    for (i = 0; i < count && len_each; i++) {
        char *lo = (char *)list[i], *hi = lo + len_each - 1;
        if (!st._minaddr || (void *)lo < st._minaddr) st._minaddr = lo;
        if (!st._maxaddr || (void *)hi > st._maxaddr) st._maxaddr = hi;
    }
    buf[0] = '\0';
    gasneti_strbuf_append(buf, bufsz, &len, "%" PRIuSZ " entries, totalsz=%" PRIuSZ ", len=%" PRIuSZ
           ", bounds=[%p...%p]\nlist=[", count, count * len_each, len_each, st._minaddr, st._maxaddr);
    for (i = 0; i < count; i++)
        gasneti_strbuf_append(buf, bufsz, &len, "%s%p", i ? (i % 8 ? ", " : ",\n      ") : "", list[i]);
    gasneti_strbuf_append(buf, bufsz, &len, "]");
    return st;
}

size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount)
{
    return 64 + gasnett_format_addrlist_bufsz(dstcount) + gasnett_format_addrlist_bufsz(srccount);
}

size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen)
{
    size_t len = 0, bufsz = gasnett_format_putigeti_bufsz(dstcount, srccount);
    (void)tm;
    buf[0] = '\0';
    gasneti_strbuf_append(buf, bufsz, &len, "(%" PRIuSZ " data bytes) peer=%u\ndst: ", dstcount * dstlen,
           (unsigned)rank);
    (void)gasnett_format_addrlist(buf + len, dstcount, dstlist, dstlen);
    len += strlen(buf + len);
    gasneti_strbuf_append(buf, bufsz, &len, "\nsrc: ");
    (void)gasnett_format_addrlist(buf + len, srccount, srclist, srclen);
    return dstcount * dstlen;
}

size_t gasnett_format_strides_bufsz(size_t count)
{
    return 8 + count * 24;
}

void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list)
{
    size_t i, len = 0, bufsz = gasnett_format_strides_bufsz(count);
    buf[0] = '\0';
    gasneti_strbuf_append(buf, bufsz, &len, "[");
    for (i = 0; i < count; i++) gasneti_strbuf_append(buf, bufsz, &len, "%s%td", i ? ", " : "", list[i]);
    gasneti_strbuf_append(buf, bufsz, &len, "]");
}

size_t gasnett_format_putsgets_bufsz(size_t stridelevels)
{
    return 160 + 3 * gasnett_format_strides_bufsz(stridelevels + 1);
}

size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                               void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                               size_t stridelevels)
{
    size_t len = 0, i, total = elemsz, bufsz = gasnett_format_putsgets_bufsz(stridelevels);
    (void)pstats; /* GASNet's internal statistics: none here */
    (void)tm;
    for (i = 0; i < stridelevels; i++) total *= count[i];
    buf[0] = '\0';
    gasneti_strbuf_append(buf, bufsz, &len, "(%" PRIuSZ " data bytes) peer=%u elemsz=%" PRIuSZ " count=[",
           total, (unsigned)rank, elemsz);
    for (i = 0; i < stridelevels; i++)
        gasneti_strbuf_append(buf, bufsz, &len, "%s%" PRIuSZ, i ? ", " : "", count[i]);
    gasneti_strbuf_append(buf, bufsz, &len, "]\ndst: %p strides=", dstaddr);
    gasnett_format_strides(buf + len, stridelevels, dststrides);
    len += strlen(buf + len);
    gasneti_strbuf_append(buf, bufsz, &len, "\nsrc: %p strides=", srcaddr);
    gasnett_format_strides(buf + len, stridelevels, srcstrides);
    return total;
}
