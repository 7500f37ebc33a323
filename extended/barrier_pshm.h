/* extended/barrier_pshm.h: the shared-memory barrier of the primordial
 * team when the whole job is one PSHM neighbourhood (barrier_pshm.c).
 * extended/barrier.c hands it the barriers of that team; everything else
 * (values, GASNet-1 rules, events) stays there.
 */
#ifndef GASNETE_BARRIER_PSHM_H
#define GASNETE_BARRIER_PSHM_H

#include "extended/team.h"

/* After PSHM init (gasnete_barrier_init): decides whether this job uses it
 * (every rank decides alike). */
void gasnete_pshmbar_init(void);
/* 1 if team t's barriers go through shared memory. */
int gasnete_pshmbar_usable(const struct gasnete_team_s *t);
/* Starts this rank's next barrier with contribution mine; completion is
 * reported in op->coll_data as by the AM engine (bit 63 + packed value),
 * op->coll_test advances it and op->coll_wait is gasnete_pshmbar_wait. */
void gasnete_pshmbar_start(gasnete_op_t *op, gasnete_bval_t mine);
/* Waits (spinning on the flags, polling every few checks) until op is
 * complete. */
void gasnete_pshmbar_wait(gasnete_op_t *op);
/* A blocking barrier with contribution mine, done here from start to end
 * (no op, no window slot) when no other barrier of this process is
 * outstanding: stores the result and returns 1.  Returns 0, having done
 * nothing, when this path is not usable (not a PSHM-only job, a
 * split-phase or NB barrier outstanding, PAR: the state busy); the caller
 * then takes gasnete_pshmbar_start.  Orders memory as every barrier does
 * (release at the start, acquire at the end); a call from a handler is
 * reported when it has to wait. */
int gasnete_pshmbar_blocking(gasnete_bval_t mine, gasnete_bval_t *result);
/* Advances outstanding barriers (called by the barrier progress). */
void gasnete_pshmbar_progress(void);

#endif /* GASNETE_BARRIER_PSHM_H */
