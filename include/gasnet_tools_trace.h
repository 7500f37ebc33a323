/* gasnet_tools_trace.h: tracing and statistics macros (not provided:
 * they compile to no-ops).
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_TRACE_H
#define GASNET_TOOLS_TRACE_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_trace.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif

GASNETT_BEGIN_EXTERNC

/* ---- tracing and statistics (not provided: no-ops) ----------------------- */
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)0)
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)0)
#define GASNETT_TRACE_GET_TRACELOCAL() (0)
#define GASNETT_TRACE_SET_TRACELOCAL(newval) ((void)0)
#define GASNETT_TRACE_PRINTF _gasnett_trace_printf_noop
#define GASNETT_TRACE_PRINTF_FORCE _gasnett_trace_printf_noop
#define GASNETT_STATS_INIT(callbackfn) 0
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)0)
#define GASNETT_STATS_PRINTF _gasnett_trace_printf_noop
#define GASNETT_STATS_PRINTF_FORCE _gasnett_trace_printf_noop
#define GASNETT_STATS_DUMP(reset) ((void)0)
/* GASNet's name for the no-op printer (runtimes name it to silence
 * unused-function warnings); gasnett_trace_printf_noop is the same. */
static inline __attribute__((__format__(__printf__, 1, 2), __unused__)) void
_gasnett_trace_printf_noop(const char *fmt, ...)
{
    (void)fmt;
}
#define gasnett_trace_printf_noop _gasnett_trace_printf_noop

GASNETT_END_EXTERNC
#endif /* GASNET_TOOLS_TRACE_H */
