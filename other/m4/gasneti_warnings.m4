dnl GASNETI_CHECK_WARNINGS: warning flags for the library's own sources.
dnl --enable-werror (used by CI) turns warnings into errors.
AC_DEFUN([GASNETI_CHECK_WARNINGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [], [enable_werror=no])
  GASNETI_WARN_CFLAGS="-Wall -Wextra -Wshadow -Wmissing-prototypes -Wno-unused-parameter"
  AS_IF([test "x$enable_werror" = xyes], [GASNETI_WARN_CFLAGS="$GASNETI_WARN_CFLAGS -Werror"])
  AC_SUBST([GASNETI_WARN_CFLAGS])
])
