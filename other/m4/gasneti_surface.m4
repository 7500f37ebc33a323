dnl GASNETI_CHECK_SURFACE: values gasnet_config.h publishes to clients
dnl (gasnet_tools.h GASNETT_SYSTEM_TUPLE, GASNETT_CONFIGURE_ARGS,
dnl GASNETT_PLATFORM_COMPILER_*): the system tuple, the configure
dnl arguments and the identity of $CC as include/gasnet_portable_platform.h
dnl reports it; then the HAVE_* block (gasneti_client_config.m4).
AC_DEFUN([GASNETI_CHECK_SURFACE], [
AC_REQUIRE([AC_CANONICAL_HOST])
AC_REQUIRE([AC_PROG_CC])
AC_SUBST([GASNETI_SYSTEM_TUPLE], [$host])
dnl Double quotes and backslashes would end the C string literal.
gasneti_configure_args=`printf '%s' "$ac_configure_args" | $SED -e 's/[[\\"]]//g'`
AC_SUBST([GASNETI_CONFIGURE_ARGS], [$gasneti_configure_args])
gasneti_pp_save_CPPFLAGS=$CPPFLAGS
CPPFLAGS="$CPPFLAGS -I$srcdir/include"
AC_COMPUTE_INT([gasneti_cc_familyid], [PLATFORM_COMPILER_FAMILYID],
  [[#include <gasnet_portable_platform.h>]], [gasneti_cc_familyid=0])
AC_COMPUTE_INT([gasneti_cc_id], [PLATFORM_COMPILER_ID],
  [[#include <gasnet_portable_platform.h>]], [gasneti_cc_id=0])
AC_COMPUTE_INT([gasneti_cc_version], [PLATFORM_COMPILER_VERSION],
  [[#include <gasnet_portable_platform.h>]], [gasneti_cc_version=0])
AC_MSG_CHECKING([the compiler identification string])
cat > conftest.c <<_GASNETI_EOF
#include <gasnet_portable_platform.h>
gasneti_idstr=PLATFORM_COMPILER_IDSTR
_GASNETI_EOF
gasneti_cc_idstr=`$CC -E $CPPFLAGS conftest.c 2>/dev/null | $SED -n -e 's/^gasneti_idstr=//p' | $SED -e 's/" *"//g' -e 's/^"//' -e 's/"$//' -e 's/[[\\"]]//g'`
rm -f conftest.c
AC_MSG_RESULT([$gasneti_cc_idstr])
CPPFLAGS=$gasneti_pp_save_CPPFLAGS
AC_SUBST([GASNETI_PLATFORM_COMPILER_FAMILYID], [$gasneti_cc_familyid])
AC_SUBST([GASNETI_PLATFORM_COMPILER_ID], [$gasneti_cc_id])
AC_SUBST([GASNETI_PLATFORM_COMPILER_VERSION], [$gasneti_cc_version])
AC_SUBST([GASNETI_PLATFORM_COMPILER_IDSTR], [$gasneti_cc_idstr])
GASNETI_CHECK_CLIENT_CONFIG
])
