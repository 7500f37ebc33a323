dnl GASNETI_CHECK_CLIENT_CONFIG: the configure-detected macros that GASNet's
dnl installed gasnet_config.h defines and that clients test (GASNet's own
dnl tests: HAVE_PTHREAD_H for their thread support, HAVE_MMAP before
dnl gasnett_mmap, HAVE_PTHREAD_SETCONCURRENCY, ...).  Each HAVE_* name is
dnl probed here, with the compiler and flags clients are built with, and
dnl lands in include/gasnet_config.h as "#define NAME 1" or
dnl "/* #undef NAME */" through @GASNETI_CLIENT_CONFIG_DEFINES@ (a block of
dnl lines, so not a make variable).  Called from GASNETI_CHECK_SURFACE,
dnl after the thread and clock libraries are in LIBS.
AC_DEFUN([GASNETI_CHECK_CLIENT_CONFIG], [
AC_REQUIRE([AC_PROG_CC])
gasneti_client_defs="/* Headers, functions, declarations and constants found at configure time. */"
gasneti_client_def() { # NAME yes|no
    if test "x$[]2" = xyes; then
        gasneti_client_defs="$gasneti_client_defs
@%:@define $[]1 1"
    else
        gasneti_client_defs="$gasneti_client_defs
/* @%:@undef $[]1 */"
    fi
}
m4_foreach_w([gasneti_hdr], [pthread.h inttypes.h stdint.h sys/types.h stddef.h stdlib.h
    string.h strings.h memory.h unistd.h sys/param.h sys/stat.h sys/socket.h sys/resource.h
    sys/uio.h features.h execinfo.h malloc.h alloca.h ifaddrs.h netinet/tcp.h ucontext.h], [
  AC_CHECK_HEADER(gasneti_hdr, [gasneti_have=yes], [gasneti_have=no], [AC_INCLUDES_DEFAULT])
  gasneti_client_def AS_TR_CPP([HAVE_]gasneti_hdr) $gasneti_have])
m4_foreach_w([gasneti_fn], [mmap clock_gettime usleep nanosleep clock_nanosleep sched_yield
    backtrace backtrace_symbols setenv unsetenv putenv isblank isascii toascii getrlimit
    setrlimit popen fork system on_exit sigprocmask pthread_kill pthread_sigmask
    pthread_setconcurrency ffs getifaddrs gethostid setpgid fstatvfs], [
  AC_CHECK_FUNC(gasneti_fn, [gasneti_have=yes], [gasneti_have=no])
  gasneti_client_def AS_TR_CPP([HAVE_]gasneti_fn) $gasneti_have])
dnl Declarations GASNet records as HAVE_<name>_DECL.
m4_foreach_w([gasneti_decl], [setenv unsetenv snprintf vsnprintf isblank isascii toascii], [
  AC_CHECK_DECL(gasneti_decl, [gasneti_have=yes], [gasneti_have=no], [[
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>]])
  gasneti_client_def AS_TR_CPP([HAVE_]gasneti_decl[_DECL]) $gasneti_have])
dnl Constants: mmap flags, prctl options, ptmalloc's mallopt parameters.
m4_foreach_w([gasneti_const], [MAP_NORESERVE MAP_ANON MAP_ANONYMOUS], [
  AC_CHECK_DECL(gasneti_const, [gasneti_have=yes], [gasneti_have=no], [[#include <sys/mman.h>]])
  gasneti_client_def [HAVE_]gasneti_const $gasneti_have])
m4_foreach_w([gasneti_const], [PR_SET_PDEATHSIG PR_SET_PTRACER], [
  AC_CHECK_DECL(gasneti_const, [gasneti_have=yes], [gasneti_have=no], [[#include <sys/prctl.h>]])
  gasneti_client_def [HAVE_]gasneti_const $gasneti_have])
AC_CHECK_DECL([M_TRIM_THRESHOLD], [gasneti_have=yes], [gasneti_have=no], [[#include <malloc.h>]])
AS_IF([test $gasneti_have = yes],
  [AC_CHECK_DECL([M_MMAP_MAX], [], [gasneti_have=no], [[#include <malloc.h>]])])
gasneti_client_def HAVE_PTMALLOC $gasneti_have
AC_SUBST([GASNETI_CLIENT_CONFIG_DEFINES], [$gasneti_client_defs])
AM_SUBST_NOTMAKE([GASNETI_CLIENT_CONFIG_DEFINES])
dnl Who configured, on which host (GASNet's GASNETI_BUILD_ID / _SYSTEM_NAME).
gasneti_build_id="`date 2>/dev/null` `(id -un) 2>/dev/null`"
gasneti_system_name=`(uname -n) 2>/dev/null | $SED -e 's/[[\\"]]//g'`
AC_SUBST([GASNETI_BUILD_ID], [`printf '%s' "$gasneti_build_id" | $SED -e 's/[[\\"]]//g'`])
AC_SUBST([GASNETI_SYSTEM_NAME], [$gasneti_system_name])
])
