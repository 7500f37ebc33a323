/* gasnet_mk.h: GASNet-EX memory kinds (docs/memory_kinds.md of
 * BerkeleyLab/gasnet).
 *
 * This release supports host memory only: GEX_MK_HOST (gasnet_fwd.h) and
 * kinds created with GEX_MK_CLASS_HOST.  The device classes can be named,
 * and gex_MK_Create refuses them with one line naming the class.
 */
#ifndef GASNET_MK_H
#define GASNET_MK_H

#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

typedef enum {
    GEX_MK_CLASS_HOST = 0,
    GEX_MK_CLASS_CUDA_UVA = 1,
    GEX_MK_CLASS_HIP = 2,
    GEX_MK_CLASS_ZE = 3
} gex_MK_Class_t;

typedef struct {
    uint64_t gex_flags; /* reserved, 0 */
    gex_MK_Class_t gex_class;
    union {
        struct {
            int gex_CUdevice;
        } gex_class_cuda_uva;
        struct {
            int gex_hipDevice;
        } gex_class_hip;
        struct {
            void *gex_zeDevice;
            void *gex_zeContext;
            uint32_t gex_zeMemoryOrdinal;
        } gex_class_ze;
    } gex_args;
} gex_MK_Create_args_t;

/* Creates a memory kind (not collective).  Host class: GASNET_OK.  Device
 * classes: GASNET_ERR_BAD_ARG and a message (no device support built in).
 * flags: reserved, 0. */
extern int gex_MK_Create(gex_MK_t *memkind_p, gex_Client_t client,
                         const gex_MK_Create_args_t *args, gex_Flags_t flags);
/* Destroys a kind from gex_MK_Create (not GEX_MK_HOST); no segment may use it. */
extern void gex_MK_Destroy(gex_MK_t kind, gex_Flags_t flags);

extern gex_Client_t gasneti_mk_query_client(gex_MK_t kind);
extern gex_Flags_t gasneti_mk_query_flags(gex_MK_t kind);
extern gex_MK_Class_t gasneti_mk_query_class(gex_MK_t kind);
extern void *gasneti_mk_query_cdata(gex_MK_t kind);
extern void gasneti_mk_set_cdata(gex_MK_t kind, const void *cdata);
#define gex_MK_QueryClient(kind) gasneti_mk_query_client(kind)
#define gex_MK_QueryFlags(kind) gasneti_mk_query_flags(kind)
#define gex_MK_QueryClass(kind) gasneti_mk_query_class(kind)
#define gex_MK_QueryCData(kind) gasneti_mk_query_cdata(kind)
#define gex_MK_SetCData(kind, cdata) gasneti_mk_set_cdata(kind, cdata)

/* GASNET_HAVE_MK_CLASS_{CUDA_UVA,HIP,ZE,MULTIPLE} are deliberately left
 * undefined: clients test them with #if / #ifdef to find device support. */

GASNETI_END_EXTERNC

#endif /* GASNET_MK_H */
