dnl GASNet's --with-VAR family: GASNet's configure gives every variable it
dnl reads from the environment a --with- spelling (lower case, '_' as '-'),
dnl so that --with-cflags=-fPIC means CFLAGS=-fPIC.  Runtimes use it: UPC++
dnl passes --with-cc, --with-cxx, --with-cflags and --with-cxxflags (often
dnl empty), Legion --with-cflags, --with-cxxflags and --with-mpi-cflags.
dnl   --with-var=VALUE   VAR=VALUE (wins over VAR=... given to configure)
dnl   --without-var      VAR empty
dnl   --with-var         VAR left as it is
dnl How each variable is honoured (README, "Using it from UPC++ / Chapel /
dnl Legion"):
dnl   CC CXX CPP CXXCPP PERL  the tools configure and make use
dnl   CFLAGS    every library object (-fPIC gives PIC libraries); as in
dnl             GASNet, whose configure folds them into CC, they are part of
dnl             GASNET_CC, GASNET_LD and GASNETTOOLS_CC/LD in the fragments
dnl   CXXFLAGS  GASNET_CXX and GASNETTOOLS_CXX in the fragments
dnl   CPPFLAGS  every library and in-tree compile
dnl   LDFLAGS   in-tree links; GASNET_LDFLAGS and GASNETTOOLS_LDFLAGS
dnl   LIBS      in-tree links; GASNET_LIBS and GASNETTOOLS_LIBS
dnl   MPI_CC    compiler of the mpi spawner (and client linker when MPI is
dnl             found), same as MPICC
dnl   MPI_CFLAGS  replaces CFLAGS when the mpi spawner object is compiled (as
dnl             GASNet's replace its default MPI flags) and is added to
dnl             GASNET_LDFLAGS when clients link with MPI_CC
dnl   MPI_LIBS  the MPI libraries of GASNET_LIBS (instead of asking
dnl             `$MPI_CC --showme:link`)
dnl
dnl GASNETI_FLAG_OPTIONS: before AC_PROG_CC.  Substitutes
dnl GASNETI_USER_CFLAGS, GASNETI_USER_CXXFLAGS, GASNETI_USER_LDFLAGS (what
dnl the user gave, for the fragments) and GASNETI_MPI_CFLAGS.

dnl GASNETI_ENV_OPTION(VAR, option-name)
AC_DEFUN([GASNETI_ENV_OPTION], [
  AC_ARG_WITH([$2], [AS_HELP_STRING([--with-$2=VALUE], [same as $1=VALUE (GASNet's spelling)])],
    [AS_CASE([$withval], [yes], [], [no], [$1=], [$1=$withval])])
])

AC_DEFUN([GASNETI_FLAG_OPTIONS], [
  GASNETI_ENV_OPTION([CC], [cc])
  GASNETI_ENV_OPTION([CFLAGS], [cflags])
  GASNETI_ENV_OPTION([CPP], [cpp])
  GASNETI_ENV_OPTION([CPPFLAGS], [cppflags])
  GASNETI_ENV_OPTION([LDFLAGS], [ldflags])
  GASNETI_ENV_OPTION([LIBS], [libs])
  GASNETI_ENV_OPTION([CXX], [cxx])
  GASNETI_ENV_OPTION([CXXFLAGS], [cxxflags])
  GASNETI_ENV_OPTION([CXXCPP], [cxxcpp])
  GASNETI_ENV_OPTION([PERL], [perl])
  GASNETI_ENV_OPTION([MPI_CC], [mpi-cc])
  GASNETI_ENV_OPTION([MPI_CFLAGS], [mpi-cflags])
  GASNETI_ENV_OPTION([MPI_LIBS], [mpi-libs])
  AC_ARG_VAR([MPI_CC], [GASNet's name for MPICC (the MPI C compiler)])
  AC_ARG_VAR([MPI_CFLAGS], [flags for the mpi spawner object, instead of CFLAGS])
  AC_ARG_VAR([MPI_LIBS], [MPI libraries clients link (default: what MPI_CC --showme:link says)])
  dnl GASNet's MPI_CC wins over our MPICC: it is what runtimes set.
  AS_IF([test "x$MPI_CC" != x], [MPICC=$MPI_CC])
  dnl Only what the user gave travels to the fragments (not autoconf's -g -O2).
  GASNETI_USER_CFLAGS=
  AS_IF([test "x${CFLAGS+set}" = xset], [GASNETI_USER_CFLAGS=$CFLAGS])
  GASNETI_USER_CXXFLAGS=
  AS_IF([test "x${CXXFLAGS+set}" = xset], [GASNETI_USER_CXXFLAGS=$CXXFLAGS])
  GASNETI_USER_LDFLAGS=$LDFLAGS
  AS_IF([test "x${MPI_CFLAGS+set}" = xset],
    [GASNETI_MPI_CFLAGS=$MPI_CFLAGS], [GASNETI_MPI_CFLAGS='$(CFLAGS)'])
  AC_SUBST([GASNETI_USER_CFLAGS])
  AC_SUBST([GASNETI_USER_CXXFLAGS])
  AC_SUBST([GASNETI_USER_LDFLAGS])
  AC_SUBST([GASNETI_MPI_CFLAGS])
])

dnl GASNETI_CLIENT_OPT_FLAGS: after AC_PROG_CC and AC_PROG_CXX.  The
dnl optimisation flags the fragments give clients (GASNET_OPT_CFLAGS,
dnl GASNET_OPT_CXXFLAGS, GASNETTOOLS_CFLAGS, the link flags), as GASNet's
dnl release build gives them: for GCC, -O3 with GASNet's inlining limits
dnl (the library's inline fast paths are compiled into the client with these
dnl flags); for other compilers -O3 alone when accepted, else -O2.  The
dnl library itself keeps GASNETI_OPT_CFLAGS.  --enable-debug: -g -O0.
dnl Substitutes GASNETI_CLIENT_OPT_CFLAGS and GASNETI_CLIENT_OPT_CXXFLAGS.
AC_DEFUN([_GASNETI_CLIENT_OPT_PROBE], [
  gasneti_save_flags=$[]_AC_LANG_PREFIX[]FLAGS
  gasneti_opt=-O2
  _AC_LANG_PREFIX[]FLAGS="-O3 -Werror"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])], [gasneti_opt=-O3])
  gasneti_gcc_params="--param max-inline-insns-single=35000 --param inline-unit-growth=10000 --param large-function-growth=200000"
  _AC_LANG_PREFIX[]FLAGS="-O3 $gasneti_gcc_params -Werror"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [[
#if !defined(__GNUC__) || defined(__clang__) || defined(__INTEL_COMPILER) || defined(__NVCOMPILER)
#error not GCC
#endif
]])], [gasneti_opt="-O3 $gasneti_gcc_params"])
  _AC_LANG_PREFIX[]FLAGS=$gasneti_save_flags
])
AC_DEFUN([GASNETI_CLIENT_OPT_FLAGS], [
  AS_IF([test "x$gasneti_debug" = xyes], [
    GASNETI_CLIENT_OPT_CFLAGS=$GASNETI_OPT_CFLAGS
    GASNETI_CLIENT_OPT_CXXFLAGS=$GASNETI_OPT_CFLAGS
  ], [
    AC_MSG_CHECKING([optimisation flags for C clients])
    AC_LANG_PUSH([C])
    _GASNETI_CLIENT_OPT_PROBE
    AC_LANG_POP([C])
    GASNETI_CLIENT_OPT_CFLAGS=$gasneti_opt
    AC_MSG_RESULT([$GASNETI_CLIENT_OPT_CFLAGS])
    AC_MSG_CHECKING([optimisation flags for C++ clients])
    AC_LANG_PUSH([C++])
    _GASNETI_CLIENT_OPT_PROBE
    AC_LANG_POP([C++])
    GASNETI_CLIENT_OPT_CXXFLAGS=$gasneti_opt
    AC_MSG_RESULT([$GASNETI_CLIENT_OPT_CXXFLAGS])
  ])
  AC_SUBST([GASNETI_CLIENT_OPT_CFLAGS])
  AC_SUBST([GASNETI_CLIENT_OPT_CXXFLAGS])
])
