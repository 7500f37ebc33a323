/* extended/mk.c: memory kinds (gex_MK_*).  Host memory only: GEX_MK_HOST
 * and kinds of class GEX_MK_CLASS_HOST, which behave alike; the device
 * classes (CUDA UVA, HIP, Level Zero) are refused with one line naming the
 * class, since this library has no device support.
 */
#include "extended/extended_internal.h"

#include <gasnet_mk.h>
#include <stdlib.h>

struct gasneti_mk_s {
    gex_Client_t client;
    gex_MK_Class_t mk_class;
    gex_Flags_t flags;
    void *cdata;
};

static struct gasneti_mk_s mk_host; /* what GEX_MK_HOST stands for */

static const char *class_name(gex_MK_Class_t c)
{
    switch (c) {
    case GEX_MK_CLASS_HOST: return "GEX_MK_CLASS_HOST";
    case GEX_MK_CLASS_CUDA_UVA: return "GEX_MK_CLASS_CUDA_UVA";
    case GEX_MK_CLASS_HIP: return "GEX_MK_CLASS_HIP";
    case GEX_MK_CLASS_ZE: return "GEX_MK_CLASS_ZE";
    default: return "an unknown class";
    }
}

int gex_MK_Create(gex_MK_t *memkind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags)
{
    if (!memkind_p || !args || client == GEX_CLIENT_INVALID) {
        gasneti_warning("gex_MK_Create: memkind_p, client and args must not be NULL/invalid");
        return GASNET_ERR_BAD_ARG;
    }
    if (args->gex_class != GEX_MK_CLASS_HOST) {
        if (gex_System_GetVerboseErrors())
            gasneti_warning("gex_MK_Create: %s (%d) is not supported: this library has no "
                            "device memory support; use GEX_MK_HOST or GEX_MK_CLASS_HOST",
                            class_name(args->gex_class), (int)args->gex_class);
        return GASNET_ERR_BAD_ARG;
    }
    struct gasneti_mk_s *mk = calloc(1, sizeof(*mk));
    if (!mk) return GASNET_ERR_RESOURCE;
    mk->client = client;
    mk->mk_class = GEX_MK_CLASS_HOST;
    mk->flags = flags;
    *memkind_p = mk;
    return GASNET_OK;
}

void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags)
{
    (void)flags;
    if (kind == GEX_MK_HOST || kind == GEX_MK_INVALID)
        gasneti_fatalerror("gex_MK_Destroy: %s cannot be destroyed (only kinds from "
                           "gex_MK_Create)",
                           kind == GEX_MK_HOST ? "GEX_MK_HOST" : "GEX_MK_INVALID");
    free(kind);
}

static struct gasneti_mk_s *mk_of(gex_MK_t kind)
{
    if (kind == GEX_MK_INVALID) gasneti_fatalerror("gex_MK_Query*: kind is GEX_MK_INVALID");
    if (kind == GEX_MK_HOST) {
        mk_host.client = &gasneti_the_client;
        return &mk_host;
    }
    return kind;
}

gex_Client_t gasneti_mk_query_client(gex_MK_t kind) { return mk_of(kind)->client; }
gex_Flags_t gasneti_mk_query_flags(gex_MK_t kind) { return mk_of(kind)->flags; }
gex_MK_Class_t gasneti_mk_query_class(gex_MK_t kind) { return mk_of(kind)->mk_class; }
void *gasneti_mk_query_cdata(gex_MK_t kind) { return mk_of(kind)->cdata; }
void gasneti_mk_set_cdata(gex_MK_t kind, const void *cdata) { mk_of(kind)->cdata = (void *)cdata; }

int gasnete_mk_is_host(gex_MK_t kind)
{
    return kind == GEX_MK_HOST || (kind != GEX_MK_INVALID && kind->mk_class == GEX_MK_CLASS_HOST);
}
