/* extended/ratomic_flight.h: the remote atomics this process has in flight
 * over the network, and the one place their results are delivered.
 *
 * A remote atomic whose target is not in this process's neighbourhood
 * travels as an AM Request and comes back as a Reply (extended/ratomic.c).
 * Neither message carries the initiator's addresses: the Request names a
 * record of this table by index and generation, and the record says where
 * the result goes, how many bytes it has (the domain's type size for a
 * fetching operation; 0 when nothing may be written: non-fetching
 * operations ignore result_p) and which completion counters to signal.
 * The Reply's value is written from the record, exactly that many bytes at
 * exactly that address, and only then are the counters signalled; the
 * record is retired in the same step, so a second or stale Reply for it
 * finds the generation changed and ends the job with a fatal error instead
 * of writing into memory whose operation was already reported complete.
 *
 * Records are pooled (allocated in chunks, never freed); allocation and
 * retirement take a lock in PAR builds (Replies may run on any thread).
 */
#ifndef GASNETE_RATOMIC_FLIGHT_H
#define GASNETE_RATOMIC_FLIGHT_H

#include "extended/extended_internal.h"
#include "extended/ratomic_ops.h"

/* Names one in-flight operation in the AM arguments. */
typedef struct {
    uint32_t index;
    uint32_t gen;
} gasnete_ad_ticket_t;

/* Records an operation about to be sent: its result (size bytes at
 * result_p; size 0 writes nothing) and its counters (c1 may be NULL), whose
 * pieces it begins (one each).  Call before sending the Request: its Reply
 * may arrive before the send returns. */
gasnete_ad_ticket_t gasnete_ad_flight_begin(void *result_p, size_t size, gasnete_ctr_t *c0,
                                            gasnete_ctr_t *c1);

/* The Reply for ticket t arrived with value v: writes the result, retires
 * the record, then signals its counters.  A ticket that is not in flight is
 * a fatal error naming it.  Handler-safe. */
void gasnete_ad_flight_end(gasnete_ad_ticket_t t, gasnete_ad_val_t v);

#endif /* GASNETE_RATOMIC_FLIGHT_H */
