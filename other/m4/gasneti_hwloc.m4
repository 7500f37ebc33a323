dnl GASNETI_CHECK_HWLOC: hwloc (optional) for topology-aware HCA selection.
AC_DEFUN([GASNETI_CHECK_HWLOC], [
  AC_ARG_WITH([hwloc], [AS_HELP_STRING([--without-hwloc], [do not use hwloc for HCA selection])],
    [], [with_hwloc=check])
  gasneti_hwloc_summary=no
  HWLOC_LIBS=
  AS_IF([test "x$with_hwloc" != xno], [
    AC_CHECK_HEADER([hwloc.h],
      [AC_CHECK_LIB([hwloc], [hwloc_topology_init],
        [HWLOC_LIBS=-lhwloc; gasneti_hwloc_summary="yes ($HWLOC_LIBS)"
         AC_DEFINE([HAVE_HWLOC], [1], [hwloc is available])])])
    AS_IF([test "x$with_hwloc" = xyes && test "x$HWLOC_LIBS" = x],
      [AC_MSG_ERROR([--with-hwloc given but hwloc was not found (Debian: libhwloc-dev)])])
  ])
  AC_SUBST([HWLOC_LIBS])
  AM_CONDITIONAL([HAVE_HWLOC], [test "x$HWLOC_LIBS" != x])
])
