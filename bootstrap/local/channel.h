/* bootstrap/local/channel.h: a rank's connection to gasnetrun_ibv's hub.
 *
 * One socket, one reader thread that owns every read from it, a mailbox for
 * the result of the collective in flight, and a mutex serializing writes.
 * The reader thread also runs the exit watchdog: once the hub has asked this
 * process to exit, the process ends with _exit(code) if it is still alive
 * after the exit timeout.  Only the local plugin (local.c) uses this.
 */
#ifndef GASNETI_BOOTSTRAP_CHANNEL_H
#define GASNETI_BOOTSTRAP_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"

/* Takes over fd (made close-on-exec) and starts the reader thread with every
 * signal blocked.  exit_cb runs on its own thread when the hub sends EXIT
 * (unless this process already sent EXIT itself).  Timeouts in seconds.
 * Returns 0, or -1 after printing why.  Called once, before any other
 * channel function. */
int gasneti_bsl_chan_start(int fd, uint32_t rank, gasneti_bootstrap_exit_cb_t exit_cb,
                           double exit_timeout, double op_timeout);

/* Runs one collective: sends a request frame of `type` whose payload is pre
 * then data, and waits (at most op_timeout) for the hub's result, which
 * must be exactly result_len bytes and is copied to result.  Any failure
 * (timeout, lost launcher, wrong length) is a fatal error naming `what`.
 * Serialized by a lock; not handler-safe (blocks). */
void gasneti_bsl_chan_call(const char *what, uint32_t type, const void *pre, size_t prelen,
                           const void *data, size_t len, void *result, size_t result_len);

/* Sends EXIT(code) and marks this process as exiting on its own (a later
 * EXIT from the hub then only arms the watchdog).  Returns at once. */
void gasneti_bsl_chan_notify_exit(int code);

/* Sends ABORT(code) with one write and calls _exit(code).  Async-signal-safe. */
void gasneti_bsl_chan_abort(int code) __attribute__((__noreturn__));

/* Stops the reader thread (joined unless called on it) and closes the
 * socket.  Idempotent. */
void gasneti_bsl_chan_stop(void);

#endif /* GASNETI_BOOTSTRAP_CHANNEL_H */
