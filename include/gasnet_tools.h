/* gasnet_tools.h: the GASNet tools interface (gasnett_ / GASNETT_ names).
 *
 * The subset that GASNet clients and test harnesses use: timers, sleep,
 * memory barriers, atomics, compiler annotations, mutexes and condition
 * variables, thread-local keys, environment queries and system properties.
 * Semantics follow GASNet's README-tools; the implementation is ours
 * (C11 __atomic builtins, POSIX threads and clocks; sources in other/tools).
 *
 * Self-contained: includes only gasnet_config.h and system headers (never
 * gasnet_fwd.h), compiles as C99 or later and as C++.  gasnetex.h includes it.
 * Many "functions" here are macros or static inline functions: do not take
 * their address or #undef them.
 *
 * Threading: GASNETT_THREAD_SAFE is defined when GASNET_PAR/GASNET_PARSYNC is
 * (or when the client defines it); otherwise GASNETT_THREAD_SINGLE.  The
 * atomics and mutexes are real in both modes; the weak barriers compile to
 * compiler fences in single-threaded mode.
 */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H
#define _INCLUDED_GASNET_TOOLS_H

#include <gasnet_config.h>
#include <gasnet_portable_platform.h>
/* The standard headers GASNet's headers make visible to clients. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(GASNETT_THREAD_SAFE) && defined(GASNET_SEQ)
#error gasnet_tools.h: GASNETT_THREAD_SAFE conflicts with GASNET_SEQ
#endif
#if defined(GASNET_PAR) || defined(GASNET_PARSYNC) || defined(GASNETT_THREAD_SAFE)
#undef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#define GASNETT_THREAD_MODEL PAR
#else
#undef GASNETT_THREAD_SINGLE
#define GASNETT_THREAD_SINGLE 1
#define GASNETT_THREAD_MODEL SEQ
#endif

/* ---- helpers and sizes --------------------------------------------------- */
#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif
#ifndef _CONCAT
#define _CONCAT_HELPER(a, b) a##b
#define _CONCAT(a, b) _CONCAT_HELPER(a, b)
#endif
#ifndef MIN
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#endif
#ifndef MAX
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#endif

/* Sizes in bytes, as preprocessor literals (the compiler's own). */
#define SIZEOF_CHAR 1
#define SIZEOF_SHORT __SIZEOF_SHORT__
#define SIZEOF_INT __SIZEOF_INT__
#define SIZEOF_LONG __SIZEOF_LONG__
#define SIZEOF_LONG_LONG __SIZEOF_LONG_LONG__
#define SIZEOF_VOID_P __SIZEOF_POINTER__
#define SIZEOF_SIZE_T __SIZEOF_SIZE_T__
#define SIZEOF_PTRDIFF_T __SIZEOF_PTRDIFF_T__
#define SIZEOF_FLOAT __SIZEOF_FLOAT__
#define SIZEOF_DOUBLE __SIZEOF_DOUBLE__
#define SIZEOF_LONG_DOUBLE __SIZEOF_LONG_DOUBLE__
#define SIZEOF__BOOL 1
#define SIZEOF_FLOAT__COMPLEX (2 * __SIZEOF_FLOAT__)

/* printf conversions for size_t (u, o, x, X) and ssize_t (d, i). */
#define PRIdSZ "zd"
#define PRIiSZ "zi"
#define PRIoSZ "zo"
#define PRIuSZ "zu"
#define PRIxSZ "zx"
#define PRIXSZ "zX"

/* The socket-length type of this system (<sys/socket.h>). */
#define GASNET_SOCKLEN_T socklen_t

/* This release is built without GASNet's debug mode. */
#if !defined(GASNET_DEBUG) && !defined(GASNET_NDEBUG) && !defined(GASNETI_BUILDING_LIBRARY) && \
    !defined(GASNETI_IN_TREE)
#define GASNET_NDEBUG 1
#endif
#ifndef GASNET_PAGESIZE
#define GASNET_PAGESIZE 4096
#endif

/* ---- versions ------------------------------------------------------------ */
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20
#define GASNETT_RELEASE_VERSION_MAJOR GASNET_RELEASE_VERSION_MAJOR
#define GASNETT_RELEASE_VERSION_MINOR GASNET_RELEASE_VERSION_MINOR
#define GASNETT_RELEASE_VERSION_PATCH GASNET_RELEASE_VERSION_PATCH

/* ---- C / C++ linkage ----------------------------------------------------- */
#ifdef __cplusplus
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#define GASNETT_EXTERNC extern "C"
#else
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#define GASNETT_EXTERNC
#endif

/* ---- compiler features (a client may predefine any of these to 0) -------- */
#ifndef GASNETT_USE_BUILTIN_CONSTANT_P
#define GASNETT_USE_BUILTIN_CONSTANT_P 1
#endif
#ifndef GASNETT_USE_BUILTIN_EXPECT
#define GASNETT_USE_BUILTIN_EXPECT 1
#endif
#ifndef GASNETT_USE_BUILTIN_PREFETCH
#define GASNETT_USE_BUILTIN_PREFETCH 1
#endif
#ifndef GASNETT_USE_BUILTIN_UNREACHABLE
#define GASNETT_USE_BUILTIN_UNREACHABLE 1
#endif
#ifndef GASNETT_USE_CTYPE_WRAPPERS /* <ctype.h> is left alone */
#define GASNETT_USE_CTYPE_WRAPPERS 0
#endif
#ifndef GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC
#define GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#define GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#define GASNETT_USE_GCC_ATTRIBUTE_NOINLINE 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#define GASNETT_USE_GCC_ATTRIBUTE_MALLOC 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#define GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_USED
#define GASNETT_USE_GCC_ATTRIBUTE_USED 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS
#define GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#define GASNETT_USE_GCC_ATTRIBUTE_NORETURN 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_PURE
#define GASNETT_USE_GCC_ATTRIBUTE_PURE 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_CONST
#define GASNETT_USE_GCC_ATTRIBUTE_CONST 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_HOT
#define GASNETT_USE_GCC_ATTRIBUTE_HOT 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_COLD
#define GASNETT_USE_GCC_ATTRIBUTE_COLD 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#define GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FALLTHROUGH
#if (defined(__GNUC__) && __GNUC__ >= 7) || (defined(__clang__) && __clang_major__ >= 10)
#define GASNETT_USE_GCC_ATTRIBUTE_FALLTHROUGH 1
#else
#define GASNETT_USE_GCC_ATTRIBUTE_FALLTHROUGH 0
#endif
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR 1
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG
#define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG 1
#endif

/* ---- compiler annotations (GCC-compatible compilers) --------------------- */
#define GASNETT_INLINE(fnname) static inline __attribute__((__always_inline__))
#define GASNETT_PLEASE_INLINE(fnname) static inline
#define GASNETT_NEVER_INLINE(fnname, declarator) __attribute__((__noinline__)) declarator
#ifdef __cplusplus
#define GASNETT_RESTRICT __restrict__
#else
#define GASNETT_RESTRICT restrict
#endif
#define GASNETT_NORETURN __attribute__((__noreturn__))
#define GASNETT_NORETURNP(fnname)
#define GASNETT_MALLOC __attribute__((__malloc__))
#define GASNETT_MALLOCP(fnname)
#define GASNETT_PURE __attribute__((__pure__))
#define GASNETT_PUREP(fnname)
#define GASNETT_CONST __attribute__((__const__))
#define GASNETT_CONSTP(fnname)
#define GASNETT_HOT __attribute__((__hot__))
#define GASNETT_COLD __attribute__((__cold__))
#define GASNETT_DEPRECATED __attribute__((__deprecated__))
#define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#define GASNETT_USED __attribute__((__used__))
#define GASNETT_UNUSED __attribute__((__unused__))
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#define GASNETT_PREDICT_TRUE(expr) __builtin_expect(!!(expr), 1)
#define GASNETT_PREDICT_FALSE(expr) __builtin_expect(!!(expr), 0)
#if GASNETT_USE_GCC_ATTRIBUTE_FALLTHROUGH
#define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
#else
#define GASNETT_FALLTHROUGH
#endif
#define gasnett_constant_p(expr) __builtin_constant_p(expr)
#define gasnett_unreachable() __builtin_unreachable()
#define gasnett_assume(cond) (GASNETT_PREDICT_TRUE(cond) ? (void)0 : __builtin_unreachable())
#ifndef if_pf
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#ifndef if_pt
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif
#define GASNETT_CURRENT_FUNCTION __func__

/* Silence unused-argument warnings: GASNETT_UNUSED_ARGS2(a, b); */
#define GASNETT_UNUSED_ARGS1(a) ((void)(a))
#define GASNETT_UNUSED_ARGS2(a, b) ((void)(a), (void)(b))
#define GASNETT_UNUSED_ARGS3(a, b, c) ((void)(a), GASNETT_UNUSED_ARGS2(b, c))
#define GASNETT_UNUSED_ARGS4(a, b, c, d) ((void)(a), GASNETT_UNUSED_ARGS3(b, c, d))
#define GASNETT_UNUSED_ARGS5(a, b, c, d, e) ((void)(a), GASNETT_UNUSED_ARGS4(b, c, d, e))
#define GASNETT_UNUSED_ARGS6(a, b, c, d, e, f) ((void)(a), GASNETT_UNUSED_ARGS5(b, c, d, e, f))
#define GASNETT_UNUSED_ARGS7(a, b, c, d, e, f, g) \
    ((void)(a), GASNETT_UNUSED_ARGS6(b, c, d, e, f, g))
#define GASNETT_UNUSED_ARGS8(a, b, c, d, e, f, g, h) \
    ((void)(a), GASNETT_UNUSED_ARGS7(b, c, d, e, f, g, h))

/* Embeds identText (e.g. "$Name: value $") in every executable linking the
 * object.  Use at file scope, followed by a semicolon. */
#ifdef __cplusplus
#define GASNETT_IDENT(identName, identText)     \
    extern "C" const char identName[];          \
    extern "C" __attribute__((__used__)) const char identName[] = identText
#else
#define GASNETT_IDENT(identName, identText)     \
    extern const char identName[];              \
    __attribute__((__used__)) const char identName[] = identText
#endif

/* ---- system properties --------------------------------------------------- */
#define GASNETT_PAGESIZE 4096
#define GASNETT_PAGESHIFT 12
#if defined(__powerpc64__)
#define GASNETT_CACHE_LINE_BYTES 128
#else
#define GASNETT_CACHE_LINE_BYTES 64
#endif
#define GASNETT_TIMER_CONFIG timers_posix_monotonic
#define GASNETT_MEMBAR_CONFIG membars_gcc_atomic
#define GASNETT_ATOMIC_CONFIG atomics_gcc_atomic
#define GASNETT_ATOMIC32_CONFIG atomic32_gcc_atomic
#define GASNETT_ATOMIC64_CONFIG atomic64_gcc_atomic
#define GASNETT_DEBUG_CONFIG nodebug
#if defined(PLATFORM_ARCH_64)
#define GASNETT_PTR_CONFIG 64bit
#else
#define GASNETT_PTR_CONFIG 32bit
#endif
#define GASNETT_CONFIG_STRING                                                         \
    "RELEASE=" GASNET_RELEASE_VERSION_STR ",SPEC=" _STRINGIFY(GASNETT_SPEC_VERSION_MAJOR) \
    "." _STRINGIFY(GASNETT_SPEC_VERSION_MINOR) ",PTR=" _STRINGIFY(GASNETT_PTR_CONFIG) "," \
    _STRINGIFY(GASNETT_DEBUG_CONFIG) "," _STRINGIFY(GASNETT_THREAD_MODEL) ","             \
    _STRINGIFY(GASNETT_TIMER_CONFIG) "," _STRINGIFY(GASNETT_MEMBAR_CONFIG) ","            \
    _STRINGIFY(GASNETT_ATOMIC_CONFIG) "," _STRINGIFY(GASNETT_ATOMIC32_CONFIG) ","         \
    _STRINGIFY(GASNETT_ATOMIC64_CONFIG)
/* The configure-time system and compiler (gasnet_config.h); a client built
 * with another compiler can compare PLATFORM_COMPILER_ID with these. */
#define GASNETT_SYSTEM_TUPLE GASNETI_SYSTEM_TUPLE
#define GASNETT_CONFIGURE_ARGS GASNETI_CONFIGURE_ARGS
#define GASNETT_PLATFORM_COMPILER_IDSTR GASNETI_PLATFORM_COMPILER_IDSTR
#define GASNETT_PLATFORM_COMPILER_FAMILYID GASNETI_PLATFORM_COMPILER_FAMILYID
#define GASNETT_PLATFORM_COMPILER_ID GASNETI_PLATFORM_COMPILER_ID
#define GASNETT_PLATFORM_COMPILER_VERSION GASNETI_PLATFORM_COMPILER_VERSION
/* gasnett_set_affinity does pin threads on this system. */
#define GASNETT_SET_AFFINITY_SUPPORT 1

/* ---- memory barriers ----------------------------------------------------- */
#define gasnett_compiler_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#if GASNETT_THREAD_SAFE
#define gasnett_weak_mb() gasnett_local_mb()
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()
#else
#define gasnett_weak_mb() gasnett_compiler_fence()
#define gasnett_weak_wmb() gasnett_compiler_fence()
#define gasnett_weak_rmb() gasnett_compiler_fence()
#endif
#if defined(__x86_64__) || defined(__i386__)
#define gasnett_spinloop_hint() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
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

/* ---- timers and sleep ---------------------------------------------------- */
/* Ticks are nanoseconds of CLOCK_MONOTONIC. */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)
extern gasnett_tick_t gasnett_ticks_now(void);
#define gasnett_ticks_to_ns(ticks) ((uint64_t)(ticks))
#define gasnett_ticks_to_us(ticks) (((uint64_t)(ticks)) / 1000)
/* Smallest observable tick step and cost of gasnett_ticks_now(), in us. */
extern double gasnett_tick_granularityus(void);
extern double gasnett_tick_overheadus(void);
/* Wall-clock time in microseconds since the epoch. */
extern uint64_t gasnett_gettimeofday_us(void);
/* Sleeps at least ns nanoseconds (returns early only if interrupted). */
extern int gasnett_nsleep(uint64_t ns_delay);
extern int gasnett_sched_yield(void);

/* ---- mutexes, condition variables, rwlocks (POSIX threads) --------------- */
typedef pthread_mutex_t gasnett_mutex_t;
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define gasnett_mutex_init(pm) ((void)pthread_mutex_init((pm), NULL))
#define gasnett_mutex_destroy(pm) ((void)pthread_mutex_destroy(pm))
#define gasnett_mutex_destroy_ignoreerr(pm) pthread_mutex_destroy(pm)
#define gasnett_mutex_lock(pm) ((void)pthread_mutex_lock(pm))
#define gasnett_mutex_unlock(pm) ((void)pthread_mutex_unlock(pm))
#define gasnett_mutex_trylock(pm) pthread_mutex_trylock(pm)
#define gasnett_mutex_assertlocked(pm) ((void)(pm))
#define gasnett_mutex_assertunlocked(pm) ((void)(pm))

typedef pthread_cond_t gasnett_cond_t;
#define GASNETT_COND_INITIALIZER PTHREAD_COND_INITIALIZER
#define gasnett_cond_init(pc) ((void)pthread_cond_init((pc), NULL))
#define gasnett_cond_destroy(pc) ((void)pthread_cond_destroy(pc))
#define gasnett_cond_signal(pc) ((void)pthread_cond_signal(pc))
#define gasnett_cond_broadcast(pc) ((void)pthread_cond_broadcast(pc))
#define gasnett_cond_wait(pc, pm) ((void)pthread_cond_wait((pc), (pm)))

#ifdef PTHREAD_RWLOCK_INITIALIZER /* hidden by strict -std=c99 without feature macros */
typedef pthread_rwlock_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
#define gasnett_rwlock_init(pl) ((void)pthread_rwlock_init((pl), NULL))
#define gasnett_rwlock_destroy(pl) ((void)pthread_rwlock_destroy(pl))
#define gasnett_rwlock_rdlock(pl) ((void)pthread_rwlock_rdlock(pl))
#define gasnett_rwlock_wrlock(pl) ((void)pthread_rwlock_wrlock(pl))
#define gasnett_rwlock_tryrdlock(pl) pthread_rwlock_tryrdlock(pl)
#define gasnett_rwlock_trywrlock(pl) pthread_rwlock_trywrlock(pl)
#define gasnett_rwlock_unlock(pl) ((void)pthread_rwlock_unlock(pl))
#define gasnett_rwlock_assertlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertrdlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertwrlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertunlocked(pl) ((void)(pl))
#endif

/* ---- thread-specific data ------------------------------------------------ */
/* GASNETT_THREADKEY_DEFINE(k); at file scope in one file, DECLARE elsewhere. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define GASNETT_THREADKEY_STORAGE thread_local
#else
#define GASNETT_THREADKEY_STORAGE __thread
#endif
#define GASNETT_THREADKEY_DECLARE(key) extern GASNETT_THREADKEY_STORAGE void *gasnett_threadkey_##key
#define GASNETT_THREADKEY_DEFINE(key) GASNETT_THREADKEY_STORAGE void *gasnett_threadkey_##key
#define gasnett_threadkey_get(key) (gasnett_threadkey_##key)
#define gasnett_threadkey_set(key, newval) ((void)(gasnett_threadkey_##key = (void *)(newval)))
#define gasnett_threadkey_init(key) ((void)0)
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, newval) gasnett_threadkey_set(key, newval)

/* ---- environment --------------------------------------------------------- */
/* Raw lookup (NULL when unset); never reported. */
extern char *gasnett_getenv(const char *keyname);
/* The value, or defaultval when unset; reported under GASNET_VERBOSEENV. */
extern char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
/* 1/0 for yes/no values (1/0, y/n, yes/no, true/false, on/off); defaultval
 * when unset; a fatal error for anything else. */
extern int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
/* An integer, or with mem_size_multiplier != 0 a size with optional
 * K/M/G/T suffix whose bare unit is mem_size_multiplier bytes. */
extern int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                              uint64_t mem_size_multiplier);
/* A floating-point value or fraction ("1.5", "3/8"). */
extern double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
/* Whether GASNET_VERBOSEENV reporting is on. */
extern int gasnett_verboseenv(void);
extern void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
extern void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
extern void gasnett_envdbl_display(const char *key, double val, int is_dflt);
/* Parses an integer (mem_size_multiplier == 0) or a size; fatal on error. */
extern int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
/* Formats val into buf ("64 KB" style when is_mem_size); returns buf. */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);

/* ---- system queries and process control ---------------------------------- */
extern const char *gasnett_gethostname(void);
/* Online CPUs of this host (0 if unknown). */
extern int gasnett_cpu_count(void);
/* Physical memory in bytes; 0 or a fatal error (failureIsFatal) if unknown. */
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
extern int gasnett_isLittleEndian(void);
/* Pins the calling thread to CPU (rank mod cpu count). */
extern void gasnett_set_affinity(int rank);
extern void gasnett_flush_streams(void);
extern void gasnett_close_streams(void);
extern const char *gasnett_release_version_str(void);
extern uint64_t gasnett_release_version(void);
extern const char *gasnett_performance_warning_str(void);
extern void gasnett_fatalerror(const char *msg, ...) __attribute__((__format__(__printf__, 1, 2)))
GASNETT_NORETURN;
#define gasnett_fatalerror_nopos gasnett_fatalerror
extern void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
/* Backtrace of the calling thread to fd; returns 0 on success. */
extern int gasnett_print_backtrace(int fd);
extern int (*gasnett_print_backtrace_ifenabled)(int fd);
extern void gasnett_backtrace_init(const char *exename);
extern void gasnett_freezeForDebuggerErr(void);
extern void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
typedef void (*gasnett_sighandlerfn_t)(int);
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);
/* A simple 64-bit checksum of numbytes bytes at p (not cryptographic). */
extern uint64_t gasnett_checksum(const void *p, int numbytes);

/* Sets / removes an environment variable of this process (later
 * gasnett_getenv calls see the change).  Fatal error if the system refuses. */
extern void gasnett_setenv(const char *key, const char *value);
extern void gasnett_unsetenv(const char *key);
/* Absolute path of the running executable ("" if unknown). */
extern const char *gasnett_exe_name(void);
/* "SIGINT" for SIGINT, ...; NULL for a value that is no signal. */
extern const char *gasnett_signame_fromval(int sigval);
/* Raise the soft limit of resource res (an RLIMIT_ constant, named
 * lim_desc, e.g. "RLIMIT_STACK") to its hard limit; GASNET_MAXIMIZE_<lim_desc>=no
 * skips it.  Non-zero on success. */
extern int gasnett_maximize_rlimit(int res, const char *lim_desc);
/* The same for CPU, DATA, RSS, STACK and AS; non-zero if all succeeded. */
extern int gasnett_maximize_rlimits(void);

/* "function at file:line" of the call site (a per-thread buffer, valid
 * until the thread's next use). */
extern char *gasneti_tools_loc_str(const char *funcname, const char *filename, int linenum);
#define gasnett_current_loc gasneti_tools_loc_str(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__)

/* Zero bytes among len bytes at src (count0s), also copying them to dst
 * (count0s_copy), or in one word. */
extern size_t gasnett_count0s(const void *src, size_t len);
extern size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                                   size_t len);
static inline __attribute__((__unused__, __const__)) int gasnett_count0s_uint64_t(uint64_t x)
{
    int n = 0, i;
    for (i = 0; i < 8; i++, x >>= 8) n += !(x & 0xff);
    return n;
}
static inline __attribute__((__unused__, __const__)) int gasnett_count0s_uint32_t(uint32_t x)
{
    return gasnett_count0s_uint64_t((uint64_t)x | ((uint64_t)0x01010101u << 32));
}
#if defined(PLATFORM_ARCH_64)
#define gasnett_count0s_uintptr_t(x) gasnett_count0s_uint64_t(x)
#else
#define gasnett_count0s_uintptr_t(x) gasnett_count0s_uint32_t(x)
#endif

/* Set non-zero by GASNET_FREEZE / GASNET_FREEZE_ON_ERROR freezes; a
 * debugger clears it to let the process continue. */
extern volatile int gasnet_frozen;

/* A client backtrace mechanism: set name (upper case) and fnp (writes a
 * backtrace of the calling thread to fd, returns 0 on success) before
 * gasnett_backtrace_init/gasnet init; gasnett_print_backtrace tries it
 * first.  threadsupport: non-zero if fnp is safe in threaded programs. */
typedef struct {
    const char *name;
    int (*fnp)(int fd);
    int threadsupport;
} gasnett_backtrace_type_t;
extern gasnett_backtrace_type_t gasnett_backtrace_user;

/* Tools-only clients have no conduit to map memory with. */
#define gasnett_mmap(sz) \
    (gasnett_fatalerror("gasnett_mmap(%lu): not available without a conduit", (unsigned long)(sz)), (void *)0)

/* ---- link-time configuration check --------------------------------------
 * Every object that includes this header references a symbol that only a
 * library built for the same thread model defines. */
#define GASNETT_LINKCONFIG_IDIOTCHECK(name) _CONCAT(gasnett_linkconfig_idiotcheck_, name)
extern int GASNETT_LINKCONFIG_IDIOTCHECK(GASNETT_THREAD_MODEL);
extern int GASNETT_LINKCONFIG_IDIOTCHECK(_CONCAT(RELEASE_MAJOR_, GASNET_RELEASE_VERSION_MAJOR));
#if !defined(GASNETI_BUILDING_LIBRARY) && !defined(GASNETI_IN_TREE)
static __attribute__((__used__)) int *gasnett_linkconfig_idiotcheck(void)
{
    static int val;
    val += GASNETT_LINKCONFIG_IDIOTCHECK(GASNETT_THREAD_MODEL) +
           GASNETT_LINKCONFIG_IDIOTCHECK(_CONCAT(RELEASE_MAJOR_, GASNET_RELEASE_VERSION_MAJOR));
    return &val;
}
#endif

/* ---- tracing and statistics (not provided: no-ops) ----------------------- */
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)0)
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)0)
#define GASNETT_TRACE_GET_TRACELOCAL() (0)
#define GASNETT_TRACE_SET_TRACELOCAL(newval) ((void)0)
#define GASNETT_TRACE_PRINTF gasnett_trace_printf_noop
#define GASNETT_TRACE_PRINTF_FORCE gasnett_trace_printf_noop
#define GASNETT_STATS_INIT(callbackfn) 0
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)0)
#define GASNETT_STATS_PRINTF gasnett_trace_printf_noop
#define GASNETT_STATS_PRINTF_FORCE gasnett_trace_printf_noop
#define GASNETT_STATS_DUMP(reset) ((void)0)
static inline __attribute__((__format__(__printf__, 1, 2), __unused__)) void
gasnett_trace_printf_noop(const char *fmt, ...)
{
    (void)fmt;
}

GASNETT_END_EXTERNC

#endif /* GASNET_TOOLS_H */

/* ---- services that need the conduit library -------------------------------
 * Declared once gasnet_fwd.h (included by gasnetex.h) is in: also when this
 * header was included before gasnetex.h. */
#if defined(GASNET_FWD_H) && !defined(GASNETI_TOOLS_CONDUIT_PART)
#define GASNETI_TOOLS_CONDUIT_PART 1
GASNETT_BEGIN_EXTERNC
/* Maps segsize bytes of fresh zeroed memory (fatal error on failure). */
#undef gasnett_mmap
extern void *gasnett_mmap(uintptr_t segsize);

/* Writes the names of the bits set in dt / op / ti ("GEX_DT_I32|GEX_DT_U64",
 * "0" for none) to buf; returns the length needed (buf NULL: only that). */
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);

/* Descriptions of VIS transfers, as GASNet's tracing prints them: each
 * printer writes at most its _bufsz(...) bytes (NUL included) to buf.
 * The list printers return the bounds (and total size) of the list; the
 * put/get printers return the number of data bytes moved.  pstats of
 * format_putsgets is GASNet-internal and ignored here. */
typedef struct {
    void *_minaddr; /* lowest byte addressed (NULL for an empty list) */
    void *_maxaddr; /* highest byte addressed */
    size_t _totalsz;
} gasneti_memveclist_stats_t;
typedef struct {
    void *_minaddr;
    void *_maxaddr;
} gasneti_addrlist_stats_t;
extern size_t gasnett_format_memveclist_bufsz(size_t count);
extern gasneti_memveclist_stats_t gasnett_format_memveclist(char *buf, size_t count,
                                                            gex_Memvec_t const *list);
extern size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      gex_Memvec_t const dstlist[], size_t srccount,
                                      gex_Memvec_t const srclist[]);
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern gasneti_addrlist_stats_t gasnett_format_addrlist(char *buf, size_t count,
                                                        void *const *list, size_t len);
extern size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen);
extern size_t gasnett_format_strides_bufsz(size_t count);
extern void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels);

/* Self-test of the tools and of communication with peer: iters rounds of
 * atomics, locks and timers in threadcnt threads, then puts and gets of
 * peerseg (the peer's segment, myseg ours) over myteam.  testsections:
 * NULL or "" for all, else the letters of the sections to run ("A" tools,
 * "B" threads, "C" RMA).  Collective over myteam.  Returns 0 if all passed. */
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   gex_TM_t myteam, void *myseg, gex_Rank_t peer, void *peerseg);
/* The AM handlers gasnett_run_diagnostics needs registered (none here). */
extern void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt);

#define GASNETT_FAST_ALIGNED_MEMCPY(dst, src, nbytes) ((void)memcpy((dst), (src), (nbytes)))
#define GASNETT_FAST_UNALIGNED_MEMCPY(dst, src, nbytes) ((void)memcpy((dst), (src), (nbytes)))
/* Stores the low nbytes of a gex_RMA_Value_t at dest / returns (a
 * statement with return) the nbytes at src as a gex_RMA_Value_t. */
#define GASNETT_VALUE_ASSIGN(dest, value, nbytes)                                       \
    do {                                                                                \
        switch (nbytes) {                                                               \
        case 1: *(uint8_t *)(dest) = (uint8_t)(value); break;                           \
        case 2: *(uint16_t *)(dest) = (uint16_t)(value); break;                         \
        case 4: *(uint32_t *)(dest) = (uint32_t)(value); break;                         \
        case 8: *(uint64_t *)(dest) = (uint64_t)(value); break;                         \
        default: { gex_RMA_Value_t gasneti_v_ = (value);                                \
                   memcpy((dest), &gasneti_v_, (nbytes)); } break;                      \
        }                                                                               \
    } while (0)
#define GASNETT_VALUE_RETURN(src, nbytes)                                               \
    do {                                                                                \
        switch (nbytes) {                                                               \
        case 1: return (gex_RMA_Value_t) * (const uint8_t *)(src);                      \
        case 2: return (gex_RMA_Value_t) * (const uint16_t *)(src);                     \
        case 4: return (gex_RMA_Value_t) * (const uint32_t *)(src);                     \
        case 8: return (gex_RMA_Value_t) * (const uint64_t *)(src);                     \
        default: { gex_RMA_Value_t gasneti_v_ = 0;                                      \
                   memcpy(&gasneti_v_, (src), (nbytes)); return gasneti_v_; }           \
        }                                                                               \
    } while (0)
/* Most client threads that may use the library at once. */
#if defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#define GASNETT_MAX_THREADS 256
#else
#define GASNETT_MAX_THREADS 1
#endif
GASNETT_END_EXTERNC
#endif
