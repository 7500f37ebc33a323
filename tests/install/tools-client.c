/* tests/install/tools-client.c: a tools-only client (gasnet_tools.h, no
 * conduit, no launcher), built by check-install.sh with the installed
 * gasnet_tools-seq.mak and gasnet_tools-par.mak and run directly.
 *
 * Checks that the timer advances across a 2 ms sleep by 1..1000 ms and that
 * an atomic counter counts; prints "tools-client: PASS <SEQ|PAR>". */
#include <gasnet_tools.h>
#include <stdio.h>

int main(void)
{
    gasnett_atomic_t counter = gasnett_atomic_init(0);
    gasnett_tick_t start = gasnett_ticks_now();
    gasnett_nsleep(2000000);
    gasnett_tick_t end = gasnett_ticks_now();
    uint64_t ns = gasnett_ticks_to_ns(end) - gasnett_ticks_to_ns(start);
    for (int i = 0; i < 1000; i++) gasnett_atomic_increment(&counter, 0);
    if (ns < 1000000 || ns > 1000000000) {
        printf("tools-client: FAIL: a 2 ms sleep measured %llu ns\n", (unsigned long long)ns);
        return 1;
    }
    if (gasnett_atomic_read(&counter, 0) != 1000) {
        printf("tools-client: FAIL: atomic counter reads %u, not 1000\n",
               (unsigned)gasnett_atomic_read(&counter, 0));
        return 1;
    }
#if defined(GASNETT_THREAD_SAFE)
    printf("tools-client: PASS PAR\n");
#else
    printf("tools-client: PASS SEQ\n");
#endif
    return 0;
}
