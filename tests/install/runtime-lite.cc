// tests/install/runtime-lite.cc: a translation unit in GASNet's tools-lite
// mode, the way UPC++ compiles its library-version watermark: the thread
// model the fragment defines (-DGASNET_PAR) is undefined, GASNETT_LITE_MODE
// is defined, and only gasnet_tools.h is included.  It goes into the same
// archive as runtime-client.cc (the part that uses the conduit library), and
// the program must link with nothing but the fragment's libraries: a lite
// unit references no thread-model link-check symbol.
#undef GASNET_SEQ
#undef GASNET_PAR
#undef GASNET_PARSYNC
#define GASNETT_LITE_MODE 1
#include <gasnet_tools.h>

#if defined(GASNETT_THREAD_SAFE) || defined(GASNETT_THREAD_SINGLE)
#error "tools-lite unit: no thread model may be defined here"
#endif

GASNETT_IDENT(runtime_lite_ident_version,
              "$RuntimeLiteGASNetVersion: " _STRINGIFY(GASNET_RELEASE_VERSION_MAJOR) "." _STRINGIFY(
                  GASNET_RELEASE_VERSION_MINOR) "." _STRINGIFY(GASNET_RELEASE_VERSION_PATCH) " $");
GASNETT_IDENT(runtime_lite_ident_compiler, "$RuntimeLiteCompilerID: " PLATFORM_COMPILER_IDSTR " $");
#if GASNET_DEBUG
GASNETT_IDENT(runtime_lite_ident_codemode, "$RuntimeLiteCodeMode: debug $");
#else
GASNETT_IDENT(runtime_lite_ident_codemode, "$RuntimeLiteCodeMode: opt $");
#endif

// Called by runtime-client.cc so that the linker keeps this object (UPC++
// calls its watermark function for the same reason); returns the version
// ident's length, non-zero.
int runtime_lite_watermark()
{
    static volatile int calls = 0;
    calls = calls + 1;
    return int(sizeof(runtime_lite_ident_version)) - 1;
}
