dnl GASNet's own configure options, so that a runtime that builds GASNet from
dnl its source (UPC++, Chapel, ...) can run this configure with the options
dnl it passes to GASNet's (README, "Using it from UPC++ / Chapel / Legion").
dnl Each option is accepted with its GASNet meaning, mapped onto ours, or
dnl ignored with a note; none is refused except --disable-ibv (nothing would
dnl be left to build).  The notes are printed at the end of configure.
dnl
dnl GASNETI_GASNET_OPTIONS_EARLY: before AC_PROG_CC (compilers and flags).
dnl GASNETI_GASNET_OPTIONS:       before the library checks (hwloc, MPI).
dnl GASNETI_GASNET_SUBSTS:        after the compilers: the @VAR@s runtimes
dnl                               have GASNet's config.status substitute.

dnl GASNETI_NOTE(text): remember a line for the end of configure.
AC_DEFUN([GASNETI_NOTE], [gasneti_notes="$gasneti_notes
    $1"])

AC_DEFUN([GASNETI_GASNET_OPTIONS_EARLY], [
  gasneti_notes=
  dnl --with-cc / --with-cxx (UPC++'s spelling; GASNet reads CC and CXX).
  AC_ARG_WITH([cc], [AS_HELP_STRING([--with-cc=CC], [C compiler (same as CC=CC)])],
    [AS_CASE([$withval], [yes|no], [], [CC=$withval])])
  AC_ARG_WITH([cxx], [AS_HELP_STRING([--with-cxx=CXX], [C++ compiler (same as CXX=CXX)])],
    [AS_CASE([$withval], [yes|no], [], [CXX=$withval])])

  dnl --enable-debug: GASNET_DEBUG in gasnet_config.h, -g -O0 for the
  dnl library and in the installed fragments, part of the link check.
  AC_ARG_ENABLE([debug],
    [AS_HELP_STRING([--enable-debug], [debug build: GASNET_DEBUG defined, -g -O0, its own link-time configuration])],
    [], [enable_debug=no])
  AS_IF([test "x$enable_debug" = xyes], [
    gasneti_debug=yes
    GASNETI_DEBUG_DEFINE='#define GASNET_DEBUG 1'
    GASNETI_OPT_CFLAGS='-g -O0'
    AS_IF([test "x${CFLAGS+set}" != xset], [CFLAGS='-g -O0'])
    AS_IF([test "x${CXXFLAGS+set}" != xset], [CXXFLAGS='-g -O0'])
  ], [
    gasneti_debug=no
    GASNETI_DEBUG_DEFINE='/* #undef GASNET_DEBUG */'
    GASNETI_OPT_CFLAGS='-O2'
  ])
  AC_SUBST([GASNETI_DEBUG_DEFINE])
  AC_SUBST([GASNETI_OPT_CFLAGS])

  dnl Thread modes.  SEQ and PAR are always built (gasnetrun_ibv and the
  dnl tests link them); PARSYNC only when enabled (the default, as in GASNet).
  AC_ARG_ENABLE([seq], [AS_HELP_STRING([--disable-seq], [accepted; the SEQ library is built anyway (the launcher uses it)])],
    [AS_IF([test "x$enableval" = xno], [GASNETI_NOTE([--disable-seq: the SEQ library is still built and installed (gasnetrun_ibv links it)])])])
  AC_ARG_ENABLE([par], [AS_HELP_STRING([--disable-par], [accepted; the PAR library is built anyway (the tests use it)])],
    [AS_IF([test "x$enableval" = xno], [GASNETI_NOTE([--disable-par: the PAR library is still built and installed])])])
  AC_ARG_ENABLE([parsync], [AS_HELP_STRING([--disable-parsync], [do not build the PARSYNC library (libgasnet-ibv-parsync.a)])],
    [], [enable_parsync=yes])
  AC_ARG_ENABLE([pthreads], [AS_HELP_STRING([--disable-pthreads], [accepted; POSIX threads are required])],
    [AS_IF([test "x$enableval" = xno], [GASNETI_NOTE([--disable-pthreads: ignored (this library needs POSIX threads)])])])
  gasneti_thread_modes="seq par"
  AS_IF([test "x$enable_parsync" != xno], [gasneti_thread_modes="$gasneti_thread_modes parsync"])
  AM_CONDITIONAL([BUILD_PARSYNC], [test "x$enable_parsync" != xno])
  AS_IF([test "x$enable_parsync" != xno], [GASNETI_PARSYNC_TARGET=parsync], [GASNETI_PARSYNC_TARGET=])
  AC_SUBST([GASNETI_PARSYNC_TARGET])
  AM_CONDITIONAL([BUILD_DEBUG], [test "x$gasneti_debug" = xyes])
])

AC_DEFUN([GASNETI_GASNET_OPTIONS], [
  dnl A non-debug library is always optimised, as GASNet's are, even when a
  dnl runtime passes CFLAGS without -O (Chapel passes CFLAGS='').
  AS_IF([test "x$gasneti_debug" != xyes], [
    AS_CASE([" $CFLAGS "], [*" -O"*], [], [
      CFLAGS="$CFLAGS -O2"
      GASNETI_NOTE([CFLAGS has no -O option: -O2 added for the library (--enable-debug builds with -O0)])])])
  dnl Conduits: ibv is the only one.  The others are accepted and ignored.
  AC_ARG_ENABLE([ibv], [AS_HELP_STRING([--enable-ibv], [the ibv conduit (always built)])],
    [AS_IF([test "x$enableval" = xno],
      [AC_MSG_ERROR([--disable-ibv: this library is the ibv conduit, nothing would be left to build; drop the option (or --enable-ibv)])])])
  gasneti_other_conduits=
  m4_foreach_w([gasneti_c], [smp udp mpi ofi ucx aries gemini pami portals4 mxm psm gm lapi shmem elan vapi sci dcmf],
    [AC_ARG_ENABLE(gasneti_c, [AS_HELP_STRING([--enable-]gasneti_c, [GASNet conduit not provided here: accepted and ignored])],
      [gasneti_other_conduits="$gasneti_other_conduits gasneti_c=$enableval"])])
  AS_IF([test "x$gasneti_other_conduits" != x],
    [GASNETI_NOTE([conduit options ignored (only ibv is provided):$gasneti_other_conduits])])
  AC_ARG_ENABLE([auto-conduit-detect], [AS_HELP_STRING([--disable-auto-conduit-detect], [accepted (ibv is the only conduit)])])

  dnl PSHM is always built; GASNET_SUPERNODE_MAXSIZE=1 turns it off at run time.
  AC_ARG_ENABLE([pshm], [AS_HELP_STRING([--disable-pshm], [accepted; PSHM is always built (GASNET_SUPERNODE_MAXSIZE=1 turns it off at run time)])],
    [AS_IF([test "x$enableval" = xno], [GASNETI_NOTE([--disable-pshm: PSHM is always built; set GASNET_SUPERNODE_MAXSIZE=1 at run time to bypass it])])])

  dnl hwloc: GASNet spells it --enable-hwloc / --disable-hwloc.
  AC_ARG_ENABLE([hwloc], [AS_HELP_STRING([--disable-hwloc], [same as --without-hwloc])],
    [AS_IF([test "x$enableval" = xno], [with_hwloc=no], [with_hwloc=yes])])

  dnl MPI spawner: GASNet's --enable-mpi-compat, --with-mpi-cc and MPI_CC.
  AC_ARG_ENABLE([mpi-compat], [AS_HELP_STRING([--disable-mpi-compat], [same as --without-mpi (no mpi spawner)])],
    [AS_IF([test "x$enableval" = xno], [with_mpi=no], [with_mpi=yes])])
  AC_ARG_WITH([mpi-cc], [AS_HELP_STRING([--with-mpi-cc=MPICC], [MPI C compiler for the mpi spawner (same as MPICC=...)])],
    [AS_CASE([$withval], [yes|no], [], [MPICC=$withval])])
  AC_ARG_VAR([MPI_CC], [GASNet's name for MPICC])
  AS_IF([test "x$MPICC" = x && test "x$MPI_CC" != x], [MPICC=$MPI_CC])
  AC_ARG_WITH([mpi-libs], [AS_HELP_STRING([--with-mpi-libs=LIBS], [accepted and ignored (the MPI compiler links MPI)])])
  AC_ARG_WITH([mpi-cflags], [AS_HELP_STRING([--with-mpi-cflags=FLAGS], [accepted and ignored])])

  dnl --with-max-segsize: noted; the default stays that of the parameter
  dnl table (the README's reference is generated from it), and
  dnl GASNET_MAX_SEGSIZE sets it at run time with the same syntax.
  AC_ARG_WITH([max-segsize], [AS_HELP_STRING([--with-max-segsize=SIZE], [accepted; set GASNET_MAX_SEGSIZE at run time instead])],
    [GASNETI_NOTE([--with-max-segsize=$withval: not built in; set GASNET_MAX_SEGSIZE=$withval at run time])])

  dnl Options with no counterpart here: accepted, noted.
  m4_foreach_w([gasneti_o], [aligned-segments hugetlbfs allow-gcc4 aries-multi-domain ibv-rcv-thread ibv-physmem-probe trace stats srclines debug-malloc valgrind force-gettimeofday force-posix-realtime],
    [AC_ARG_ENABLE(gasneti_o, [AS_HELP_STRING([--enable-]gasneti_o, [GASNet option: accepted and ignored])],
      [GASNETI_NOTE([--enable-gasneti_o=$enableval: no counterpart here, ignored])])])
  m4_foreach_w([gasneti_o], [ibv-physmem-max ssh-cmd ssh-options pmi-version mpirun-cmd-default cuda-uva hip rocm ze],
    [AC_ARG_WITH(gasneti_o, [AS_HELP_STRING([--with-]gasneti_o, [GASNet option: accepted and ignored])],
      [GASNETI_NOTE([--with-gasneti_o=$withval: no counterpart here, ignored])])])
])

AC_DEFUN([GASNETI_GASNET_SUBSTS], [
  dnl GASNet's build-tree layout: gasnet_config.h at the top (as well as the
  dnl installed include/gasnet_config.h) and the conduit directory.
  AC_CONFIG_FILES([gasnet_config.h:include/gasnet_config.h.in])
  AC_CONFIG_FILES([ibv-conduit/Makefile:contrib/conduit-Makefile.in])
  dnl What runtimes read back from GASNet's build tree (config.status on
  dnl their own templates, `make echovar VARNAME=...`).
  AC_SUBST([CONDUITS], [ibv])
  AC_SUBST([EXESUFFIX], [$EXEEXT])
  AC_SUBST([GASNET_THREAD_DEFINES], [-D_REENTRANT])
  AC_SUBST([GASNET_THREAD_LIBS], [-lpthread])
  AC_PATH_PROG([PERL], [perl], [perl])
  AC_LANG_PUSH([C])
  GASNETI_COMPILER_FAMILY([CC_FAMILY])
  AC_LANG_POP([C])
  AC_LANG_PUSH([C++])
  GASNETI_COMPILER_FAMILY([CXX_FAMILY])
  AC_LANG_POP([C++])
  AC_SUBST([CC_SUBFAMILY], [NONE])
  AC_SUBST([CXX_SUBFAMILY], [NONE])
])

dnl GASNETI_COMPILER_FAMILY(VAR): GNU, Clang, Intel or unknown, as GASNet
dnl names them, for the current language's compiler.
AC_DEFUN([GASNETI_COMPILER_FAMILY], [
  $1=unknown
  for gasneti_fam in Intel:__INTEL_COMPILER Clang:__clang__ GNU:__GNUC__; do
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [[
#if !defined(${gasneti_fam#*:})
#error no
#endif
]])], [$1=${gasneti_fam%%:*}; break])
  done
  AC_SUBST([$1])
])
