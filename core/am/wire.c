/* core/am/wire.c: packing and unpacking of AM headers (see wire.h). */
#include "core/am/wire.h"

#include <string.h>

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int hdr_valid(unsigned category, unsigned nargs)
{
    return category <= GASNETC_AM_LONG && nargs <= GASNETC_AM_MAX_ARGS;
}

size_t gasnetc_am_hdr_wire_size(const gasnetc_am_hdr_t *hdr)
{
    return 16 + (hdr->category == GASNETC_AM_LONG ? 8 : 0) + 4 * (size_t)hdr->nargs;
}

size_t gasnetc_am_hdr_pack(const gasnetc_am_hdr_t *hdr, void *buf)
{
    unsigned char *p = buf;
    if (!hdr_valid(hdr->category, hdr->nargs)) return 0;
    if (hdr->rndv && hdr->category != GASNETC_AM_MEDIUM) return 0;
    p[0] = (unsigned char)(hdr->category | (hdr->is_req ? 4 : 0) | (hdr->rndv ? 8 : 0));
    p[1] = hdr->handler;
    p[2] = hdr->nargs;
    p[3] = hdr->credits;
    gasnetc_am_wire_put32(p + 4, hdr->src_rank);
    gasnetc_am_wire_put32(p + 8, hdr->nbytes);
    gasnetc_am_wire_put32(p + 12, (uint32_t)hdr->dst_ep | (uint32_t)hdr->src_ep << 8);
    p += 16;
    if (hdr->category == GASNETC_AM_LONG) {
        gasnetc_am_wire_put32(p, (uint32_t)hdr->dest_addr);
        gasnetc_am_wire_put32(p + 4, (uint32_t)(hdr->dest_addr >> 32));
        p += 8;
    }
    for (unsigned i = 0; i < hdr->nargs; i++, p += 4)
        gasnetc_am_wire_put32(p, (uint32_t)hdr->args[i]);
    return (size_t)(p - (unsigned char *)buf);
}

size_t gasnetc_am_hdr_unpack(const void *buf, size_t len, gasnetc_am_hdr_t *hdr)
{
    const unsigned char *p = buf;
    if (len < 16 || (p[0] & ~15u) != 0) return 0;
    unsigned category = p[0] & 3u, nargs = p[2];
    if (!hdr_valid(category, nargs)) return 0;
    if ((p[0] & 8u) && category != GASNETC_AM_MEDIUM) return 0;
    size_t need = 16 + (category == GASNETC_AM_LONG ? 8 : 0) + 4 * (size_t)nargs;
    if (len < need) return 0;
    memset(hdr, 0, sizeof(*hdr));
    hdr->category = (uint8_t)category;
    hdr->is_req = (p[0] & 4u) != 0;
    hdr->rndv = (p[0] & 8u) != 0;
    hdr->handler = p[1];
    hdr->nargs = (uint8_t)nargs;
    hdr->credits = p[3];
    hdr->src_rank = get32(p + 4);
    hdr->nbytes = get32(p + 8);
    hdr->dst_ep = p[12];
    hdr->src_ep = p[13];
    p += 16;
    if (category == GASNETC_AM_LONG) {
        hdr->dest_addr = (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
        p += 8;
    }
    for (unsigned i = 0; i < nargs; i++, p += 4) hdr->args[i] = (int32_t)get32(p);
    return need;
}

void gasnetc_am_rndv_pack(const gasnetc_am_rndv_t *r, void *buf)
{
    unsigned char *p = buf;
    gasnetc_am_wire_put32(p, (uint32_t)r->addr);
    gasnetc_am_wire_put32(p + 4, (uint32_t)(r->addr >> 32));
    gasnetc_am_wire_put32(p + 8, r->rkey);
    gasnetc_am_wire_put32(p + 12, 0);
}

int gasnetc_am_rndv_unpack(const void *buf, gasnetc_am_rndv_t *r)
{
    const unsigned char *p = buf;
    r->addr = (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
    r->rkey = get32(p + 8);
    return get32(p + 12) == 0;
}
