/* core/base/job.h: the job this process belongs to, as every layer from the
 * transports (core/ibv, core/pshm) up sees it: rank and size, the
 * bootstrap, the host layout, every rank's segment, whether the process is
 * exiting, and whether the calling thread runs an AM handler.  Written by
 * core/init.c, core/exit.c and core/handlers.c; read anywhere.  Not
 * installed.  Layer: tests/deps/layers ("core/base", below the transports).
 */
#ifndef GASNETC_BASE_JOB_H
#define GASNETC_BASE_JOB_H

/* The library calls its own gex_RMA_* functions, never the client's inline
 * neighbour path (include/gasnet_pshm_inline.h). */
#define GASNETI_PSHM_NO_INLINE 1
#include <gasnetex.h>
#include "other/param/param.h"
#include "other/log/log.h"
#include "bootstrap/bootstrap.h"
#include "core/am/wire.h"

/* ---- locks that vanish in SEQ builds ------------------------------------------- */
#if defined(GASNET_PAR)
#include <pthread.h>
typedef pthread_mutex_t gasneti_mutex_t;
#define GASNETI_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define gasneti_mutex_lock(m) pthread_mutex_lock(m)
#define gasneti_mutex_unlock(m) pthread_mutex_unlock(m)
#define GASNETI_TLS __thread
#else
typedef char gasneti_mutex_t;
#define GASNETI_MUTEX_INITIALIZER 0
#define gasneti_mutex_lock(m) ((void)(m))
#define gasneti_mutex_unlock(m) ((void)(m))
#define GASNETI_TLS
#endif

/* ---- who and where ------------------------------------------------------------ */
extern gex_Rank_t gasneti_mynode;  /* job rank of this process */
extern gex_Rank_t gasneti_nodes;   /* job size */
extern const gasneti_bootstrap_ops_t *gasneti_boot; /* the plugin that started us */
extern char gasneti_hostname[64];

/* Every rank's segment as its owner sees it (valid after attach). */
typedef struct {
    void *addr;
    uintptr_t size;
} gasneti_seginfo_t;
extern gasneti_seginfo_t *gasneti_seginfo;

/* Neighbourhood (PSHM) and host positions (gex_System_QueryNbrhdInfo,
 * _QueryHostInfo, _QueryMyPosition), filled at init (core/init.c,
 * gasnetc_positions_init). */
extern gex_RankInfo_t *gasnetc_nbrhd_info, *gasnetc_host_info;
extern gex_Rank_t gasnetc_nbrhd_count, gasnetc_nbrhd_myidx;
extern gex_Rank_t gasnetc_host_count, gasnetc_host_myidx;
extern gex_Rank_t gasnetc_nbrhd_sets, gasnetc_nbrhd_set_rank;
extern gex_Rank_t gasnetc_host_sets, gasnetc_host_set_rank;

/* ---- exit state ------------------------------------------------------------------ */
/* Non-zero once this process has started to exit, by any path (core/exit.c
 * claims it with one atomic). */
extern int gasneti_exit_claimed;
/* 1 once this process has started to exit: transports then treat errors to
 * peers as "peer gone" rather than fatal.  Handler- and signal-safe. */
static inline int gasnetc_exit_in_progress(void)
{
    return __atomic_load_n(&gasneti_exit_claimed, __ATOMIC_ACQUIRE);
}

/* ---- handler context -------------------------------------------------------------- */
/* AM handlers the calling thread is running (core/handlers.c counts). */
extern GASNETI_TLS int gasneti_handler_depth;
/* 1 while the calling thread runs an AM handler. */
static inline int gasnetc_in_handler(void)
{
    return gasneti_handler_depth > 0;
}

#endif /* GASNETC_BASE_JOB_H */
