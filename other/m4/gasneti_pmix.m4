dnl GASNETI_CHECK_PMIX: the PMIx client library (optional) for the pmi
dnl bootstrap plugin (bootstrap/pmi).  libpmix is a plain C library, so when
dnl it is found the plugin is compiled into libgasnet-ibv-{seq,par}.a and
dnl PMIX_LIBS joins the libraries every client links (GASNET_DEPLIBS).
dnl
dnl Where it looks, in order:
dnl   --with-pmix=DIR        DIR/include and DIR/lib (or lib64), rpath to it
dnl   pkg-config pmix        Debian keeps libpmix outside the linker's default
dnl                          path (/usr/lib/<triplet>/pmix2); pmix.pc says where
dnl   the default paths      plain -lpmix
dnl --without-pmix turns the plugin off; --with-ibv-spawner=pmi requires it.
dnl Substitutes PMIX_CPPFLAGS, PMIX_LIBS; defines GASNETI_HAVE_PMIX;
dnl conditional HAVE_PMIX.
AC_DEFUN([GASNETI_CHECK_PMIX], [
  AC_ARG_WITH([pmix],
    [AS_HELP_STRING([--with-pmix@<:@=DIR@:>@],
      [PMIx client library for the pmi spawner (default: look with pkg-config, then in the default paths; --without-pmix disables)])],
    [], [with_pmix=check])
  AC_PATH_PROG([PKG_CONFIG], [pkg-config], [])
  gasneti_pmix_summary=no
  gasneti_pmix_found=no
  PMIX_CPPFLAGS=
  PMIX_LIBS=
  AS_CASE([$with_pmix],
    [no], [gasneti_pmix_candidates=],
    [yes|check], [gasneti_pmix_candidates="pkgconfig default"],
    [gasneti_pmix_candidates="dir"])
  for gasneti_pmix_try in $gasneti_pmix_candidates; do
    AS_CASE([$gasneti_pmix_try],
      [dir], [
        gasneti_pmix_libdir="$with_pmix/lib"
        AS_IF([test ! -d "$gasneti_pmix_libdir" && test -d "$with_pmix/lib64"],
              [gasneti_pmix_libdir="$with_pmix/lib64"])
        gasneti_try_cppflags="-I$with_pmix/include"
        gasneti_try_libs="-L$gasneti_pmix_libdir -Wl,-rpath,$gasneti_pmix_libdir -lpmix"],
      [pkgconfig], [
        AS_IF([test "x$PKG_CONFIG" = x], [continue])
        AS_IF([$PKG_CONFIG --exists pmix 2>/dev/null], [], [continue])
        gasneti_try_cppflags=`$PKG_CONFIG --cflags pmix`
        gasneti_try_libs=`$PKG_CONFIG --libs pmix`],
      [default], [
        gasneti_try_cppflags=
        gasneti_try_libs=-lpmix])
    AC_MSG_CHECKING([for PMIx ($gasneti_pmix_try: $gasneti_try_cppflags $gasneti_try_libs)])
    gasneti_save_CPPFLAGS=$CPPFLAGS
    gasneti_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $gasneti_try_cppflags"
    LIBS="$gasneti_try_libs $LIBS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pmix.h>]],
        [[pmix_proc_t me; pmix_value_t *v = NULL;
          (void)PMIx_Get(&me, PMIX_JOB_SIZE, NULL, 0, &v);
          (void)PMIx_Fence(NULL, 0, NULL, 0);
          return PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS ? 0 : 1;]])],
      [gasneti_pmix_found=yes], [])
    CPPFLAGS=$gasneti_save_CPPFLAGS
    LIBS=$gasneti_save_LIBS
    AC_MSG_RESULT([$gasneti_pmix_found])
    AS_IF([test "x$gasneti_pmix_found" = xyes], [
      PMIX_CPPFLAGS=$gasneti_try_cppflags
      PMIX_LIBS=$gasneti_try_libs
      break])
  done
  AS_IF([test "x$gasneti_pmix_found" = xyes], [
    gasneti_pmix_summary="yes ($PMIX_LIBS)"
    AC_DEFINE([GASNETI_HAVE_PMIX], [1], [the pmi (PMIx) bootstrap plugin is built])
  ], [
    AS_IF([test "x$with_pmix" != xno && test "x$with_pmix" != xcheck],
      [AC_MSG_ERROR([--with-pmix=$with_pmix: no usable PMIx (pmix.h and libpmix) found; install libpmix-dev or pass --with-pmix=DIR of a PMIx installation])])
    AS_IF([test "x$with_ibv_spawner" = xpmi],
      [AC_MSG_ERROR([--with-ibv-spawner=pmi needs the PMIx client library, which was not found; install libpmix-dev (pkg-config pmix) or pass --with-pmix=DIR])])
  ])
  AC_ARG_WITH([pmirun-cmd],
    [AS_HELP_STRING([--with-pmirun-cmd=TEMPLATE],
      [default PMIRUN_CMD, how gasnetrun_ibv -spawner=pmi starts a PMIx server and the job (default: MPIRUN_CMD)])],
    [gasneti_pmirun_cmd=$withval], [gasneti_pmirun_cmd=])
  AS_IF([test "x$gasneti_pmirun_cmd" = xyes || test "x$gasneti_pmirun_cmd" = xno], [gasneti_pmirun_cmd=])
  AC_DEFINE_UNQUOTED([GASNETI_PMIRUN_CMD_DEFAULT], ["$gasneti_pmirun_cmd"],
    [configure's PMIRUN_CMD (empty: use MPIRUN_CMD)])
  AC_SUBST([PMIX_CPPFLAGS])
  AC_SUBST([PMIX_LIBS])
  AM_CONDITIONAL([HAVE_PMIX], [test "x$gasneti_pmix_found" = xyes])
])
