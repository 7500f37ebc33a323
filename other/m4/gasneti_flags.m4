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
