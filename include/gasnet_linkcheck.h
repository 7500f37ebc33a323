/* gasnet_linkcheck.h: link-time configuration check.
 *
 * Included by gasnetex.h and by gasnet_tools.h (not meant to be included
 * directly).  Every object file that includes those headers refers to a few
 * symbols whose names spell the configuration it was compiled for; only the
 * library built for that same configuration defines them.  Linking an object
 * compiled for one configuration with a library built for another therefore
 * fails, and the linker's "undefined reference" names the part that
 * differs, for example
 *     undefined reference to `gasneti_linkcheck_THREADMODEL_PAR'
 * for an object compiled with -DGASNET_PAR linked against
 * libgasnet-ibv-seq.a.  The parts: thread model (SEQ, PAR, PARSYNC),
 * segment configuration (FAST, LARGE, EVERYTHING), debug or not (configure
 * --enable-debug), and the release version.  Tools-only clients
 * (gasnet_tools.h without gasnetex.h) are checked the same way for the
 * tools thread model (SEQ or PAR) and release, against libgasnet_tools-*.a.
 *
 * The library defines the symbols in other/config/linkcheck.c (conduit) and
 * other/config/tools-linkcheck.c (tools), from the same macros, with
 * GASNETI_LINKCHECK_DEFINE set.  Objects of the library itself
 * (GASNETI_BUILDING_LIBRARY) carry no references.
 */

#define GASNETI_LINKCHECK_CAT2(a, b) a##b
#define GASNETI_LINKCHECK_CAT(a, b) GASNETI_LINKCHECK_CAT2(a, b)
#define GASNETI_LINKCHECK_REL3(a, b, c) _##a##_##b##_##c
#define GASNETI_LINKCHECK_REL(a, b, c) GASNETI_LINKCHECK_REL3(a, b, c)
#define GASNETI_LINKCHECK_RELEASE_SUFFIX                                    \
    GASNETI_LINKCHECK_REL(GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR, \
                          GASNET_RELEASE_VERSION_PATCH)

/* ---- tools part (gasnet_tools.h; every client) ---------------------------- */
#ifndef GASNETI_LINKCHECK_TOOLS_H
#define GASNETI_LINKCHECK_TOOLS_H

#if defined(GASNET_PAR) || defined(GASNET_PARSYNC) || defined(GASNETT_THREAD_SAFE)
#define gasnett_linkcheck_threadmodel gasnett_linkcheck_THREADMODEL_PAR
#else
#define gasnett_linkcheck_threadmodel gasnett_linkcheck_THREADMODEL_SEQ
#endif
#define gasnett_linkcheck_release \
    GASNETI_LINKCHECK_CAT(gasnett_linkcheck_RELEASE, GASNETI_LINKCHECK_RELEASE_SUFFIX)

#ifdef __cplusplus
extern "C" {
#endif
extern int gasnett_linkcheck_threadmodel;
extern int gasnett_linkcheck_release;
#ifdef __cplusplus
}
#endif

#if !defined(GASNETI_BUILDING_LIBRARY) && !defined(GASNETI_LINKCHECK_DEFINE)
/* Emitted in every client object (kept by the "used" attribute). */
static int *const gasnett_linkcheck_refs[2] __attribute__((__used__, __unused__)) = {
    &gasnett_linkcheck_threadmodel, &gasnett_linkcheck_release};
#endif
#endif /* GASNETI_LINKCHECK_TOOLS_H */

/* ---- conduit part (gasnetex.h only) --------------------------------------- */
#if defined(_IN_GASNETEX_H) && !defined(GASNETI_LINKCHECK_CONDUIT_H)
#define GASNETI_LINKCHECK_CONDUIT_H

#if defined(GASNET_PARSYNC)
#define gasneti_linkcheck_threadmodel gasneti_linkcheck_THREADMODEL_PARSYNC
#elif defined(GASNET_PAR)
#define gasneti_linkcheck_threadmodel gasneti_linkcheck_THREADMODEL_PAR
#else
#define gasneti_linkcheck_threadmodel gasneti_linkcheck_THREADMODEL_SEQ
#endif
#if defined(GASNET_SEGMENT_LARGE)
#define gasneti_linkcheck_segment gasneti_linkcheck_SEGMENT_LARGE
#elif defined(GASNET_SEGMENT_EVERYTHING)
#define gasneti_linkcheck_segment gasneti_linkcheck_SEGMENT_EVERYTHING
#else
#define gasneti_linkcheck_segment gasneti_linkcheck_SEGMENT_FAST
#endif
#if defined(GASNET_DEBUG)
#define gasneti_linkcheck_debug gasneti_linkcheck_DEBUG
#else
#define gasneti_linkcheck_debug gasneti_linkcheck_NODEBUG
#endif
#define gasneti_linkcheck_release \
    GASNETI_LINKCHECK_CAT(gasneti_linkcheck_RELEASE, GASNETI_LINKCHECK_RELEASE_SUFFIX)

#ifdef __cplusplus
extern "C" {
#endif
extern int gasneti_linkcheck_threadmodel;
extern int gasneti_linkcheck_segment;
extern int gasneti_linkcheck_debug;
extern int gasneti_linkcheck_release;
#ifdef __cplusplus
}
#endif

#if !defined(GASNETI_BUILDING_LIBRARY) && !defined(GASNETI_LINKCHECK_DEFINE)
static int *const gasneti_linkcheck_refs[4] __attribute__((__used__, __unused__)) = {
    &gasneti_linkcheck_threadmodel, &gasneti_linkcheck_segment, &gasneti_linkcheck_debug,
    &gasneti_linkcheck_release};
#endif
#endif /* conduit part */
