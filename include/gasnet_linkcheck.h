/* gasnet_linkcheck.h: link-time configuration check.
 *
 * Included by gasnetex.h (not meant to be included directly).  Every object
 * file that includes it refers to a few symbols whose names spell the
 * configuration it was compiled for; only the library built for that same
 * configuration defines them.  Linking an object compiled for one
 * configuration with a library built for another therefore fails, and the
 * linker's "undefined reference" names the part that differs, for example
 *     undefined reference to `gasneti_linkcheck_THREADMODEL_PAR'
 * for an object compiled with -DGASNET_PAR linked against
 * libgasnet-ibv-seq.a.  The parts: thread model (SEQ, PAR, PARSYNC),
 * segment configuration (FAST, LARGE, EVERYTHING), debug or not (configure
 * --enable-debug), and the release version.  (gasnet_tools.h checks
 * tools-only clients the same way for their thread model, against
 * libgasnet_tools-{seq,par}.a.)
 *
 * The library defines the symbols in other/config/linkcheck.c, from the same
 * macros, with GASNETI_LINKCHECK_DEFINE set.  Objects of the library itself
 * (GASNETI_BUILDING_LIBRARY) carry no references.
 */
#ifndef GASNET_LINKCHECK_H
#define GASNET_LINKCHECK_H

#define GASNETI_LINKCHECK_CAT2(a, b) a##b
#define GASNETI_LINKCHECK_CAT(a, b) GASNETI_LINKCHECK_CAT2(a, b)
#define GASNETI_LINKCHECK_REL3(a, b, c) _##a##_##b##_##c
#define GASNETI_LINKCHECK_REL(a, b, c) GASNETI_LINKCHECK_REL3(a, b, c)
#define GASNETI_LINKCHECK_RELEASE_SUFFIX                                    \
    GASNETI_LINKCHECK_REL(GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR, \
                          GASNET_RELEASE_VERSION_PATCH)

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
#endif /* GASNET_LINKCHECK_H */
