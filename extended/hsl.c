/* extended/hsl.c: handler-safe locks (gex_HSL_*; gasnet_hsl_* are macro
 * aliases in gasnet.h).
 *
 * PAR: a pthread mutex; failures of the pthread calls are fatal with the
 * error text.  SEQ: there is one thread, so a lock only records its state,
 * which catches misuse (double lock = certain deadlock, unlock of a free
 * lock, destroy while held) with a fatal error naming the call.
 */
#include "extended/extended_internal.h"

#include <string.h>
#if defined(GASNET_PAR)
#include <errno.h>
#endif

static void gasnete_hsl_check(const gex_HSL_t *hsl, const char *caller)
{
    if (hsl == NULL) gasneti_fatalerror("%s: hsl is NULL", caller);
}

#if defined(GASNET_PAR)

static void gasnete_hsl_fail(const char *caller, int err)
{
    gasneti_fatalerror("%s: pthread mutex operation failed: %s", caller, strerror(err));
}

void gex_HSL_Init(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Init");
    int err = pthread_mutex_init(&hsl->lock, NULL);
    if (err) gasnete_hsl_fail("gex_HSL_Init", err);
}

void gex_HSL_Destroy(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Destroy");
    int err = pthread_mutex_destroy(&hsl->lock);
    if (err == EBUSY)
        gasneti_fatalerror("gex_HSL_Destroy: the lock is held (unlock it before destroying)");
    if (err) gasnete_hsl_fail("gex_HSL_Destroy", err);
}

void gex_HSL_Lock(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Lock");
    int err = pthread_mutex_lock(&hsl->lock);
    if (err) gasnete_hsl_fail("gex_HSL_Lock", err);
}

void gex_HSL_Unlock(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Unlock");
    int err = pthread_mutex_unlock(&hsl->lock);
    if (err) gasnete_hsl_fail("gex_HSL_Unlock", err);
}

int gex_HSL_Trylock(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Trylock");
    int err = pthread_mutex_trylock(&hsl->lock);
    if (err == 0) return GASNET_OK;
    if (err == EBUSY) return GASNET_ERR_NOT_READY;
    gasnete_hsl_fail("gex_HSL_Trylock", err);
    return GASNET_ERR_RESOURCE; /* not reached */
}

#else /* SEQ */

void gex_HSL_Init(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Init");
    hsl->locked = 0;
}

void gex_HSL_Destroy(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Destroy");
    if (GASNETE_CHECKS && hsl->locked)
        gasneti_fatalerror("gex_HSL_Destroy: the lock is held (unlock it before destroying)");
    hsl->locked = 0;
}

void gex_HSL_Lock(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Lock");
    if (GASNETE_CHECKS && hsl->locked)
        gasneti_fatalerror("gex_HSL_Lock: the lock is already held by this (only) thread: "
                           "this would deadlock (HSLs are not recursive)");
    hsl->locked = 1;
}

void gex_HSL_Unlock(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Unlock");
    if (GASNETE_CHECKS && !hsl->locked)
        gasneti_fatalerror("gex_HSL_Unlock: the lock is not held");
    hsl->locked = 0;
}

int gex_HSL_Trylock(gex_HSL_t *hsl)
{
    gasnete_hsl_check(hsl, "gex_HSL_Trylock");
    if (hsl->locked) return GASNET_ERR_NOT_READY;
    hsl->locked = 1;
    return GASNET_OK;
}

#endif
