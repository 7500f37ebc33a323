dnl GASNETI_CHECK_PMIX: PMIx client library (optional) for the pmi bootstrap.
AC_DEFUN([GASNETI_CHECK_PMIX], [
  AC_ARG_WITH([pmix], [AS_HELP_STRING([--without-pmix], [do not build the pmi (PMIx) bootstrap])],
    [], [with_pmix=check])
  gasneti_pmix_summary=no
  PMIX_LIBS=
  AS_IF([test "x$with_pmix" != xno], [
    AC_CHECK_HEADER([pmix.h],
      [AC_CHECK_LIB([pmix], [PMIx_Init],
        [PMIX_LIBS=-lpmix; gasneti_pmix_summary="yes ($PMIX_LIBS)"])])
  ])
  AC_SUBST([PMIX_LIBS])
  AM_CONDITIONAL([HAVE_PMIX], [test "x$PMIX_LIBS" != x])
])
