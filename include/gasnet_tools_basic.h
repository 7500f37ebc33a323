/* gasnet_tools_basic.h: helpers, sizes, C/C++ linkage, compiler features and
 * annotations, ident strings and system properties (the GASNETT_*_CONFIG
 * names).
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_BASIC_H
#define GASNET_TOOLS_BASIC_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_basic.h is part of gasnet_tools.h: include <gasnet_tools.h>
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
#if defined(__x86_64__) || defined(__aarch64__)
#define GASNETT_TIMER_CONFIG timers_native
#else
#define GASNETT_TIMER_CONFIG timers_posix_monotonic
#endif
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
#endif /* GASNET_TOOLS_BASIC_H */
