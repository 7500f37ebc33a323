/* other/config/linkcheck.c: the configuration a conduit library was built
 * for, as link-time check symbols and ident strings.
 *
 * Compiled once into each of libgasnet-ibv-{seq,par,parsync}.a.  Defines the
 * symbols that include/gasnet_linkcheck.h makes every client object refer
 * to (thread model, segment, debug, release), so a client compiled for
 * another configuration fails to link with an "undefined reference" that
 * names the part that differs.  The ident
 * strings ("$GASNetThreadModel: GASNET_PAR $" ...) are the ones GASNet
 * embeds; runtimes' launchers (e.g. upcxx-run -info) print them.  This
 * object is linked into every client because the client refers to it. */
#define GASNETI_LINKCHECK_DEFINE 1
#include <gasnetex.h>

int gasneti_linkcheck_threadmodel = 1;
int gasneti_linkcheck_segment = 1;
int gasneti_linkcheck_debug = 1;
int gasneti_linkcheck_release = 1;

#define GASNETI_IDENT_STR2(x) #x
#define GASNETI_IDENT_STR(x) GASNETI_IDENT_STR2(x)
#if defined(GASNET_DEBUG)
#define GASNETI_DEBUG_STR "debug"
#else
#define GASNETI_DEBUG_STR "nodebug"
#endif

__attribute__((used)) const char gasneti_ident_threadmodel[] =
    "$GASNetThreadModel: GASNET_" GASNETI_THREAD_MODEL_STR " $";
__attribute__((used)) const char gasneti_ident_segment[] =
    "$GASNetSegment: GASNET_SEGMENT_" GASNETI_SEGMENT_CONFIG_STR " $";
__attribute__((used)) const char gasneti_ident_config[] =
    "$GASNetConfig: (libgasnet.a) " GASNET_CONFIG_STRING "," GASNETI_DEBUG_STR " $";
__attribute__((used)) const char gasneti_ident_release[] =
    "$GASNetReleaseVersion: " GASNET_RELEASE_VERSION_STR " $";
__attribute__((used)) const char gasneti_ident_exapi[] =
    "$GASNetEXAPIVersion: " GASNETI_IDENT_STR(GASNETI_EX_SPEC_VERSION_MAJOR) "." GASNETI_IDENT_STR(
        GASNETI_EX_SPEC_VERSION_MINOR) " $";
