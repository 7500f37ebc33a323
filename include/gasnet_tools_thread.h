/* gasnet_tools_thread.h: mutexes, condition variables, rwlocks (POSIX
 * threads) and thread-specific data.
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_THREAD_H
#define GASNET_TOOLS_THREAD_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_thread.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif

GASNETT_BEGIN_EXTERNC

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
/* Makes the calling thread's slot of a key exist (a first touch); compiler
 * thread-local storage needs nothing more.  GASNet's header has a static
 * function of this name too, which runtimes name to silence
 * unused-function warnings (Realm takes its address). */
static __attribute__((__noinline__, __unused__)) void
_gasneti_threadkey_init(void *volatile *slot)
{
    (void)*slot;
}
#define gasnett_threadkey_init(key) _gasneti_threadkey_init(&gasnett_threadkey_##key)
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, newval) gasnett_threadkey_set(key, newval)

GASNETT_END_EXTERNC
#endif /* GASNET_TOOLS_THREAD_H */
