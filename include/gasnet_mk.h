/* gasnet_mk.h: GASNet-EX memory kinds (docs/memory_kinds.md of
 * BerkeleyLab/gasnet).
 *
 * This release supports host memory only: GEX_MK_HOST (gasnet_fwd.h) is the
 * kind of every segment.  The device-kind types and constants are here so
 * that clients can name them; gex_MK_Create and friends are not provided,
 * so they are not declared.
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

/* GASNET_HAVE_MK_CLASS_{CUDA_UVA,HIP,ZE,MULTIPLE} are deliberately left
 * undefined: clients test them with #if / #ifdef to find device support. */

GASNETI_END_EXTERNC

#endif /* GASNET_MK_H */
