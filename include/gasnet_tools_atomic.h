/* gasnet_tools_atomic.h: atomics: gasnett_atomic_t, gasnett_atomic32_t,
 * gasnett_atomic64_t and their strong twins (compiler __atomic builtins).
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_ATOMIC_H
#define GASNET_TOOLS_ATOMIC_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_atomic.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif

GASNETT_BEGIN_EXTERNC

/* ---- atomics --------------------------------------------------------------
 * gasnett_atomic_t (unsigned 32-bit), gasnett_atomic32_t, gasnett_atomic64_t
 * and their gasnett_strongatomic* twins, all implemented with the compiler's
 * __atomic builtins (always truly atomic, signal-safe, lock-free on the
 * platforms we build for).  Every operation but _init takes fence flags: the
 * fences requested are issued around a relaxed atomic operation.
 *   add/subtract return the new value; swap returns the old value;
 *   compare_and_swap and decrement_and_test return non-zero on success/zero. */
#define GASNETT_ATOMIC_NONE 0x00
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_MB_PRE 0x03
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_MB_POST 0x0c
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE

#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1

typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)UINT32_MAX)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT32_MIN)
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT32_MAX)
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(v))

/* Fences before / after an atomic operation, as the flags ask. */
static inline __attribute__((__always_inline__, __unused__)) void gasneti_tools_fence_pre(int f)
{
    if ((f & GASNETT_ATOMIC_MB_PRE) == GASNETT_ATOMIC_MB_PRE)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else if (f & GASNETT_ATOMIC_RMB_PRE)
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    else if (f & GASNETT_ATOMIC_WMB_PRE)
        __atomic_thread_fence(__ATOMIC_RELEASE);
}
static inline __attribute__((__always_inline__, __unused__)) void gasneti_tools_fence_post(int f)
{
    if ((f & GASNETT_ATOMIC_MB_POST) == GASNETT_ATOMIC_MB_POST)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else if (f & GASNETT_ATOMIC_RMB_POST)
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    else if (f & GASNETT_ATOMIC_WMB_POST)
        __atomic_thread_fence(__ATOMIC_RELEASE);
}
/* After a boolean operation: also the conditional read fences. */
static inline __attribute__((__always_inline__, __unused__)) int gasneti_tools_fence_bool(int f, int r)
{
    gasneti_tools_fence_post(f);
    if (((f & GASNETT_ATOMIC_RMB_POST_IF_TRUE) && r) || ((f & GASNETT_ATOMIC_RMB_POST_IF_FALSE) && !r))
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return r;
}

/* Defines type gasnett_<N>_t holding a V and its operations. */
#define GASNETI_TOOLS_ATOMIC_DEFINE(N, V)                                                     \
    typedef struct { V gasneti_ctr; } gasnett_##N##_t;                                        \
    static inline __attribute__((__always_inline__, __unused__)) void gasnett_##N##_set(       \
        gasnett_##N##_t *p, V v, int f)                                                       \
    {                                                                                         \
        gasneti_tools_fence_pre(f);                                                           \
        __atomic_store_n(&p->gasneti_ctr, v, __ATOMIC_RELAXED);                               \
        gasneti_tools_fence_post(f);                                                          \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) V gasnett_##N##_read(        \
        gasnett_##N##_t *p, int f)                                                            \
    {                                                                                         \
        V v;                                                                                  \
        gasneti_tools_fence_pre(f);                                                           \
        v = __atomic_load_n(&p->gasneti_ctr, __ATOMIC_RELAXED);                               \
        gasneti_tools_fence_post(f);                                                          \
        return v;                                                                             \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) V gasnett_##N##_add(         \
        gasnett_##N##_t *p, V op, int f)                                                      \
    {                                                                                         \
        V v;                                                                                  \
        gasneti_tools_fence_pre(f);                                                           \
        v = __atomic_add_fetch(&p->gasneti_ctr, op, __ATOMIC_RELAXED);                        \
        gasneti_tools_fence_post(f);                                                          \
        return v;                                                                             \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) V gasnett_##N##_subtract(    \
        gasnett_##N##_t *p, V op, int f)                                                      \
    {                                                                                         \
        V v;                                                                                  \
        gasneti_tools_fence_pre(f);                                                           \
        v = __atomic_sub_fetch(&p->gasneti_ctr, op, __ATOMIC_RELAXED);                        \
        gasneti_tools_fence_post(f);                                                          \
        return v;                                                                             \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) void gasnett_##N##_increment( \
        gasnett_##N##_t *p, int f)                                                            \
    {                                                                                         \
        (void)gasnett_##N##_add(p, 1, f);                                                     \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) void gasnett_##N##_decrement( \
        gasnett_##N##_t *p, int f)                                                            \
    {                                                                                         \
        (void)gasnett_##N##_subtract(p, 1, f);                                                \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) int                          \
        gasnett_##N##_decrement_and_test(gasnett_##N##_t *p, int f)                           \
    {                                                                                         \
        gasneti_tools_fence_pre(f);                                                           \
        return gasneti_tools_fence_bool(                                                      \
            f, __atomic_sub_fetch(&p->gasneti_ctr, 1, __ATOMIC_RELAXED) == 0);                \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) int                          \
        gasnett_##N##_compare_and_swap(gasnett_##N##_t *p, V oldval, V newval, int f)         \
    {                                                                                         \
        gasneti_tools_fence_pre(f);                                                           \
        return gasneti_tools_fence_bool(                                                      \
            f, __atomic_compare_exchange_n(&p->gasneti_ctr, &oldval, newval, 0,               \
                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED));              \
    }                                                                                         \
    static inline __attribute__((__always_inline__, __unused__)) V gasnett_##N##_swap(        \
        gasnett_##N##_t *p, V v, int f)                                                       \
    {                                                                                         \
        V old;                                                                                \
        gasneti_tools_fence_pre(f);                                                           \
        old = __atomic_exchange_n(&p->gasneti_ctr, v, __ATOMIC_RELAXED);                      \
        gasneti_tools_fence_post(f);                                                          \
        return old;                                                                           \
    }

GASNETI_TOOLS_ATOMIC_DEFINE(atomic, gasnett_atomic_val_t)
GASNETI_TOOLS_ATOMIC_DEFINE(atomic32, uint32_t)
GASNETI_TOOLS_ATOMIC_DEFINE(atomic64, uint64_t)
#define gasnett_atomic_init(v) {(gasnett_atomic_val_t)(v)}
#define gasnett_atomic32_init(v) {(uint32_t)(v)}
#define gasnett_atomic64_init(v) {(uint64_t)(v)}

/* Strong atomics: the same operations (ours are always truly atomic). */
typedef gasnett_atomic_t gasnett_strongatomic_t;
typedef gasnett_atomic32_t gasnett_strongatomic32_t;
typedef gasnett_atomic64_t gasnett_strongatomic64_t;
#define gasnett_strongatomic_init gasnett_atomic_init
#define gasnett_strongatomic_set gasnett_atomic_set
#define gasnett_strongatomic_read gasnett_atomic_read
#define gasnett_strongatomic_increment gasnett_atomic_increment
#define gasnett_strongatomic_decrement gasnett_atomic_decrement
#define gasnett_strongatomic_decrement_and_test gasnett_atomic_decrement_and_test
#define gasnett_strongatomic_add gasnett_atomic_add
#define gasnett_strongatomic_subtract gasnett_atomic_subtract
#define gasnett_strongatomic_compare_and_swap gasnett_atomic_compare_and_swap
#define gasnett_strongatomic_swap gasnett_atomic_swap
#define gasnett_strongatomic32_init gasnett_atomic32_init
#define gasnett_strongatomic32_set gasnett_atomic32_set
#define gasnett_strongatomic32_read gasnett_atomic32_read
#define gasnett_strongatomic32_increment gasnett_atomic32_increment
#define gasnett_strongatomic32_decrement gasnett_atomic32_decrement
#define gasnett_strongatomic32_decrement_and_test gasnett_atomic32_decrement_and_test
#define gasnett_strongatomic32_add gasnett_atomic32_add
#define gasnett_strongatomic32_subtract gasnett_atomic32_subtract
#define gasnett_strongatomic32_compare_and_swap gasnett_atomic32_compare_and_swap
#define gasnett_strongatomic32_swap gasnett_atomic32_swap
#define gasnett_strongatomic64_init gasnett_atomic64_init
#define gasnett_strongatomic64_set gasnett_atomic64_set
#define gasnett_strongatomic64_read gasnett_atomic64_read
#define gasnett_strongatomic64_increment gasnett_atomic64_increment
#define gasnett_strongatomic64_decrement gasnett_atomic64_decrement
#define gasnett_strongatomic64_decrement_and_test gasnett_atomic64_decrement_and_test
#define gasnett_strongatomic64_add gasnett_atomic64_add
#define gasnett_strongatomic64_subtract gasnett_atomic64_subtract
#define gasnett_strongatomic64_compare_and_swap gasnett_atomic64_compare_and_swap
#define gasnett_strongatomic64_swap gasnett_atomic64_swap

GASNETT_END_EXTERNC
#endif /* GASNET_TOOLS_ATOMIC_H */
