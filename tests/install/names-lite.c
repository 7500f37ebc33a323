/* tests/install/names-lite.c: a tools-lite object (GASNet's GASNETT_LITE_MODE,
 * as UPC++'s watermark file is): compiled with the PAR fragment's flags but
 * with GASNET_SEQ/GASNET_PAR undefined, it has no thread model and must
 * link into names-client (PAR) referring to no thread-model link-check
 * symbol (check-install.sh checks its nm output). */
#undef GASNET_SEQ
#undef GASNET_PAR
#define GASNETT_LITE_MODE 1
#include <gasnet_tools.h>

#if defined(GASNETT_THREAD_SAFE) || defined(GASNETT_THREAD_SINGLE)
#error tools-lite mode has no thread model
#endif

GASNETT_IDENT(names_lite_ident, "$NamesLite: " _STRINGIFY(GASNETT_THREAD_MODEL) " $");

const char *names_lite_config(void);
uint64_t names_lite_elapsed_ns(void);

const char *names_lite_config(void) { return GASNETT_CONFIG_STRING; }

/* Timers and memory barriers are what lite mode provides: 1 ms of sleep. */
uint64_t names_lite_elapsed_ns(void)
{
    gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_local_mb();
    gasnett_nsleep(1000000);
    gasnett_compiler_fence();
    return gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
}
