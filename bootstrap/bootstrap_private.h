/* bootstrap/bootstrap_private.h: helpers shared by bootstrap.c, the plugins
 * and their unit tests.  Not for use outside bootstrap/ and its tests. */
#ifndef GASNETI_BOOTSTRAP_PRIVATE_H
#define GASNETI_BOOTSTRAP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

/* Longest job id accepted (GASNETRUN_JOBID). */
#define GASNETI_BOOTSTRAP_JOBID_MAX 48

/* 1 if id is a usable job id: 1..JOBID_MAX characters from [A-Za-z0-9_-]. */
int gasneti_bootstrap_jobid_valid(const char *id);

/* Records the job id returned by gasneti_bootstrap_jobid (copied; NULL makes
 * the singleton id "<pid>-solo").  Called by a plugin's init. */
void gasneti_bootstrap_set_jobid(const char *id);

/* 64-bit FNV-1a of len bytes, continuing from seed (0 = start afresh). */
uint64_t gasneti_bootstrap_hash(const void *data, size_t len, uint64_t seed);

/* The host id of `rank` in a job of `size` on `hostname`: a hash of the name;
 * with test_hosts = H > 1 (GASNET_TEST_HOSTS) rank r is placed on pretend
 * host r*H/size of that machine (H is capped at size).  Pure function. */
uint64_t gasneti_bootstrap_host_id_for(const char *hostname, uint32_t rank, uint32_t size,
                                       int64_t test_hosts);

/* The host id of this process (rank of size): hostname, or this machine's
 * name when NULL or empty, with the GASNET_TEST_HOSTS split applied.  Needs
 * the parameters loaded. */
uint64_t gasneti_bootstrap_host_id_here(const char *hostname, uint32_t rank, uint32_t size);

/* Writes a fresh job id "<pid>-<8 hex digits>" (random) into buf. */
void gasneti_bootstrap_new_jobid(char *buf, size_t len);

/* The mpi/pmi exit relay (relay.c).  start: when gasnetrun_ibv set
 * GASNETRUN_EXIT_ADDR, connects to it and starts the channel whose reader
 * calls exit_cb when another rank exits; returns 0 (also with no relay, or
 * when it cannot be reached: a warning), -1 on a fatal setup failure.
 * exit: sends EXIT(code) if connected.  abort: sends ABORT(code) if
 * connected, then _exit(code) (async-signal-safe).  stop: closes it. */
#include "bootstrap/bootstrap.h"
int gasneti_bootstrap_relay_start(const char *plugin, uint32_t rank,
                                  gasneti_bootstrap_exit_cb_t exit_cb, uint32_t nranks);
void gasneti_bootstrap_relay_exit(int code);
void gasneti_bootstrap_relay_abort(int code) __attribute__((__noreturn__));
void gasneti_bootstrap_relay_stop(void);

#endif /* GASNETI_BOOTSTRAP_PRIVATE_H */
