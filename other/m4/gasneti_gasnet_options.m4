dnl GASNet's own configure options, so that a runtime that builds GASNet from
dnl its source (UPC++, Chapel, ...) can run this configure with the options
dnl it passes to GASNet's (README, "Using it from UPC++ / Chapel / Legion").
dnl Each option is accepted with its GASNet meaning, mapped onto ours, or
dnl ignored with a note; refused are only --disable-ibv (nothing would be
dnl left to build), a memory kind asked for without =probe, and no thread
dnl mode at all.  The notes are printed at the end of configure.
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
  dnl --with-cc, --with-cflags, ... (other/m4/gasneti_flags.m4).
  GASNETI_FLAG_OPTIONS

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
  AM_CONDITIONAL([BUILD_DEBUG], [test "x$gasneti_debug" = xyes])
  GASNETI_THREAD_MODE_OPTIONS
])

dnl Thread modes, as GASNet builds them: each of SEQ, PAR and PARSYNC is
dnl built and installed (library, ibv-MODE.mak, gasnet-ibv-MODE.pc) unless
dnl --disable-MODE.  gasnetrun_ibv is linked with the first enabled mode's
dnl library; in-tree tests build the libraries they need on demand (make
dnl check).  --disable-pthreads drops PAR and PARSYNC, as in GASNet (the
dnl library itself still uses threads internally).  The gasnet_tools
dnl libraries (SEQ and PAR) are built in every case, as GASNet's are.
AC_DEFUN([GASNETI_THREAD_MODE_OPTIONS], [
  AC_ARG_ENABLE([seq], [AS_HELP_STRING([--disable-seq], [do not build or install the SEQ library (libgasnet-ibv-seq.a, ibv-seq.mak)])],
    [], [enable_seq=yes])
  AC_ARG_ENABLE([par], [AS_HELP_STRING([--disable-par], [do not build or install the PAR library (libgasnet-ibv-par.a, ibv-par.mak)])],
    [], [enable_par=default])
  AC_ARG_ENABLE([parsync], [AS_HELP_STRING([--disable-parsync], [do not build or install the PARSYNC library (libgasnet-ibv-parsync.a, ibv-parsync.mak)])],
    [], [enable_parsync=default])
  AC_ARG_ENABLE([pthreads], [AS_HELP_STRING([--disable-pthreads], [no threaded client modes (PAR, PARSYNC); the library itself still needs POSIX threads])],
    [], [enable_pthreads=yes])
  AS_IF([test "x$enable_pthreads" = xno], [
    for gasneti_m in par parsync; do
      AS_IF([eval test "x\$enable_$gasneti_m" = xyes],
        [AC_MSG_ERROR([--enable-$gasneti_m needs POSIX threads: drop --disable-pthreads])])
      eval enable_$gasneti_m=no
    done
    GASNETI_NOTE([--disable-pthreads: PAR and PARSYNC not built (the library itself still uses POSIX threads)])])
  gasneti_thread_modes=
  for gasneti_m in seq par parsync; do
    AS_IF([eval test "x\$enable_$gasneti_m" != xno],
      [gasneti_thread_modes="$gasneti_thread_modes $gasneti_m"])
  done
  gasneti_thread_modes=`echo $gasneti_thread_modes`
  AS_IF([test "x$gasneti_thread_modes" = x],
    [AC_MSG_ERROR([--disable-seq, --disable-par and --disable-parsync leave no thread mode to build])])
  AC_SUBST([GASNETI_THREAD_MODES], [$gasneti_thread_modes])
  AM_CONDITIONAL([BUILD_SEQ], [test "x$enable_seq" != xno])
  AM_CONDITIONAL([BUILD_PAR], [test "x$enable_par" != xno])
  AM_CONDITIONAL([BUILD_PARSYNC], [test "x$enable_parsync" != xno])
])

AC_DEFUN([GASNETI_GASNET_OPTIONS], [
  dnl The library is always built at its mode's optimisation level, as
  dnl GASNet's is, when CFLAGS has no -O option (Chapel passes CFLAGS='',
  dnl Legion --with-cflags=-fPIC): -O2, or -g -O0 with --enable-debug.
  AS_CASE([" $CFLAGS "], [*" -O"*], [], [
    CFLAGS="$CFLAGS $GASNETI_OPT_CFLAGS"
    GASNETI_NOTE([CFLAGS has no -O option: $GASNETI_OPT_CFLAGS added for the library])])
  dnl Conduits: ibv is the only one.  The others are accepted and ignored.
  AC_ARG_ENABLE([ibv], [AS_HELP_STRING([--enable-ibv], [the ibv conduit (always built)])],
    [AS_IF([test "x$enableval" = xno],
      [AC_MSG_ERROR([--disable-ibv: this library is the ibv conduit, nothing would be left to build; drop the option (or --enable-ibv)])])])
  gasneti_other_conduits=
  m4_map_args_w([smp udp mpi ofi ucx aries gemini pami portals4 mxm psm gm lapi shmem elan vapi sci dcmf],
    [_GASNETI_OTHER_CONDUIT(], [)])
  AS_IF([test "x$gasneti_other_conduits" != x],
    [GASNETI_NOTE([conduit options ignored (only ibv is provided):$gasneti_other_conduits])])
  AC_ARG_ENABLE([auto-conduit-detect], [AS_HELP_STRING([--disable-auto-conduit-detect], [accepted (ibv is the only conduit)])])

  dnl PSHM is always built; GASNET_SUPERNODE_MAXSIZE=1 turns it off at run time.
  AC_ARG_ENABLE([pshm], [AS_HELP_STRING([--disable-pshm], [accepted; PSHM is always built (GASNET_SUPERNODE_MAXSIZE=1 turns it off at run time)])],
    [AS_IF([test "x$enableval" = xno], [GASNETI_NOTE([--disable-pshm: PSHM is always built; set GASNET_SUPERNODE_MAXSIZE=1 at run time to bypass it])])])

  dnl hwloc: GASNet spells it --enable-hwloc / --disable-hwloc.
  AC_ARG_ENABLE([hwloc], [AS_HELP_STRING([--disable-hwloc], [same as --without-hwloc])],
    [AS_IF([test "x$enableval" = xno], [with_hwloc=no], [with_hwloc=yes])])

  dnl MPI spawner: GASNet's --enable-mpi-compat (MPI_CC, MPI_CFLAGS and
  dnl MPI_LIBS: other/m4/gasneti_flags.m4).
  AC_ARG_ENABLE([mpi-compat], [AS_HELP_STRING([--disable-mpi-compat], [same as --without-mpi (no mpi spawner)])],
    [AS_IF([test "x$enableval" = xno], [with_mpi=no], [with_mpi=yes])])

  GASNETI_KIND_OPTIONS

  dnl --with-max-segsize: noted; the default stays that of the parameter
  dnl table (the README's reference is generated from it), and
  dnl GASNET_MAX_SEGSIZE sets it at run time with the same syntax.
  AC_ARG_WITH([max-segsize], [AS_HELP_STRING([--with-max-segsize=SIZE], [accepted; set GASNET_MAX_SEGSIZE at run time instead])],
    [GASNETI_NOTE([--with-max-segsize=$withval: not built in; set GASNET_MAX_SEGSIZE=$withval at run time])])

  dnl Options with no counterpart here: accepted, noted.
  m4_map_args_w([aligned-segments hugetlbfs allow-gcc4 aries-multi-domain ibv-rcv-thread ibv-physmem-probe trace stats srclines debug-malloc valgrind force-gettimeofday force-posix-realtime],
    [_GASNETI_IGNORED_ENABLE(], [)])
  m4_map_args_w([ibv-physmem-max ssh-cmd ssh-options pmi-version mpirun-cmd-default cuda-uva hip rocm ze cuda-home hip-home ze-home],
    [_GASNETI_IGNORED_WITH(], [)])
])

dnl One option each (a macro per option, so that --help lists every one).
AC_DEFUN([_GASNETI_OTHER_CONDUIT],
  [AC_ARG_ENABLE([$1], [AS_HELP_STRING([--enable-$1], [GASNet conduit not provided here: accepted and ignored])],
    [gasneti_other_conduits="$gasneti_other_conduits $1=$enableval"])])
AC_DEFUN([_GASNETI_IGNORED_ENABLE],
  [AC_ARG_ENABLE([$1], [AS_HELP_STRING([--enable-$1], [GASNet option: accepted and ignored])],
    [GASNETI_NOTE([--enable-$1=$enableval: no counterpart here, ignored])])])
AC_DEFUN([_GASNETI_IGNORED_WITH],
  [AC_ARG_WITH([$1], [AS_HELP_STRING([--with-$1], [GASNet option: accepted and ignored])],
    [GASNETI_NOTE([--with-$1=$withval: no counterpart here, ignored])])])

dnl Memory kinds (GASNet's --enable-kind-cuda-uva, -hip, -ze): only
dnl GEX_MK_HOST is provided.  "probe" is accepted as GASNet accepts a probe
dnl that finds nothing: GASNET_HAVE_MK_CLASS_<KIND> stays undefined and
dnl gex_MK_Create refuses the class.  A kind asked for outright (yes) is an
dnl error, as in GASNet when the device support is missing.
AC_DEFUN([GASNETI_KIND_OPTIONS], [
  m4_map_args_w([cuda-uva hip ze], [_GASNETI_KIND_OPTION(], [)])
  AC_ARG_ENABLE([memory-kinds], [AS_HELP_STRING([--enable-memory-kinds], [accepted: the memory-kinds API is always there (host kind only)])])
])

AC_DEFUN([_GASNETI_KIND_OPTION], [
  AC_ARG_ENABLE([kind-$1],
    [AS_HELP_STRING([--enable-kind-$1=probe], [GASNet memory kind: not provided; probe finds nothing])],
    [AS_CASE([$enableval],
      [no], [],
      [probe], [GASNETI_NOTE([--enable-kind-$1=probe: no such device memory kind here (GASNET_HAVE_MK_CLASS_* stays undefined)])],
      [AC_MSG_ERROR([--enable-kind-$1: this library provides only the host memory kind; use --enable-kind-$1=probe or drop the option])])])
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
