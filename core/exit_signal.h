/* core/exit_signal.h: fatal signals (core/exit_signal.c) and the exit
 * (core/exit.c), each as the other sees it. */
#ifndef GASNETC_EXIT_SIGNAL_H
#define GASNETC_EXIT_SIGNAL_H

#include <stddef.h>

/* exit_signal.c: the handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
 * SIGSYS (on an alternate stack) and of SIGINT (unless the client set its
 * own or ignores it); called once by gasnetc_exit_init. */
void gasnetc_exit_signals_install(void);

/* Async-signal-safe text building into buf (cap bytes, *len used; cut,
 * never overrun; the caller terminates it). */
void gasnetc_sbuf_put(char *buf, size_t cap, size_t *len, const char *s);
void gasnetc_sbuf_int(char *buf, size_t cap, size_t *len, int v);

/* exit.c, from a signal handler: -1 when no exit was under way (the signal
 * now owns the exit, code 128+sig, the exit timer armed), else the code of
 * the exit under way, which stands. */
int gasnetc_exit_on_signal(int sig);
/* "rank R on HOST" */
const char *gasnetc_exit_ident(void);
/* Runs the client's SIGQUIT handler for a SIGINT when it has one and no
 * exit is under way: 1 when it ran (and returned). */
int gasnetc_exit_sigint_to_client(void);

#endif
