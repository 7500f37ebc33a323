/* gasnet_tools_membar.h: memory barriers and the spin-loop hint (compiler
 * builtins; the weak barriers are compiler fences in single-threaded mode).
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_MEMBAR_H
#define GASNET_TOOLS_MEMBAR_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_membar.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif

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
#endif /* GASNET_TOOLS_MEMBAR_H */
