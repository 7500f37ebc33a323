/* gasnet_linkcheck.h: link-time configuration check.
 *
 * Included by gasnetex.h (not meant to be included directly).  A client
 * compiled for one configuration cannot link a library built for another:
 * the names below only exist in the library of the matching configuration.
 */
#ifndef GASNET_LINKCHECK_H
#define GASNET_LINKCHECK_H

/* A client compiled for SEQ cannot link the PAR library and vice versa. */
#if defined(GASNET_PAR)
#define gex_Client_Init gex_Client_Init_PAR
#else
#define gex_Client_Init gex_Client_Init_SEQ
#endif

#endif /* GASNET_LINKCHECK_H */
