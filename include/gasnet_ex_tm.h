/* gasnet_ex_tm.h: teams, endpoints, segments and memory kinds beyond the
 * primordial ones (GASNet-EX specification, "Teams", "Endpoints",
 * "Segments").  Included by gasnetex.h; not meant to be included directly.
 */
#ifndef GASNET_EX_TM_H
#define GASNET_EX_TM_H

#endif /* GASNET_EX_TM_H */
