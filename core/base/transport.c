/* core/base/transport.c: the neighbour tables that inline fast paths read
 * and core/pshm fills: gasnetc_nbr_fast (core/base/transport.h; at init,
 * for core/am_fpam.c's AM fast path) and gasneti_pshm_rmatab
 * (include/gasnet_pshm_inline.h; at attach, for the clients' inline RMA and
 * core/am_fpam.c's Long fast path). */
#include "core/base/transport.h"

gasnetc_nbr_fast_t gasnetc_nbr_fast;
gasneti_pshm_rmatab_t gasneti_pshm_rmatab;
