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
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <pthread.h>

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
#if (defined(__GNUC__) && __GNUC__ >= 7) || (defined(__clang__) && __clang_major__ >= 10)
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
#define GASNETT_CONFIG_STRING "RELEASE=" GASNET_RELEASE_VERSION_STR ",timers_posix_monotonic,membars_gcc_atomic,atomics_gcc_atomic"

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
 * gasnett_atomic_t (unsigned 64-bit), gasnett_atomic32_t, gasnett_atomic64_t
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

typedef uint64_t gasnett_atomic_val_t;
typedef int64_t gasnett_atomic_sval_t;
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)UINT64_MAX)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT64_MIN)
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT64_MAX)
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
