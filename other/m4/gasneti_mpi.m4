dnl GASNETI_CHECK_MPI: an MPI compiler wrapper (optional) for the mpi
dnl bootstrap plugin (bootstrap/mpi).
dnl
dnl The plugin is compiled with $MPICC into its own library,
dnl libgasnet-ibv-mpi-spawner.a, so that libgasnet-ibv-{seq,par}.a never
dnl depends on MPI; a program gets the mpi spawner by linking that library
dnl (with -Wl,-u,gasneti_bootstrap_mpi) and linking with $MPICC
dnl (bootstrap/README, "The mpi plugin and MPI linkage").  MPICC must compile
dnl and link an MPI-3 program (the plugin uses non-blocking collectives so
dnl that every bootstrap operation can time out).
dnl
dnl --without-mpi turns it off; --with-ibv-spawner=mpi requires it.
dnl --with-mpirun-cmd=TEMPLATE sets the default MPIRUN_CMD.
dnl Substitutes MPICC, GASNETI_MPI_SPAWNER_LD, GASNETI_MPI_SPAWNER_LIBS
dnl (what a client links for the mpi spawner), and GASNETI_CLIENT_LD,
dnl GASNETI_CLIENT_SPAWNER_LIBS: what the installed ibv-*.mak / .pc should
dnl use as GASNET_LD and put before -lgasnet-ibv-* in GASNET_LIBS ($(CC) and
dnl nothing, unless --with-ibv-spawner=mpi makes mpi the default: then
dnl $MPICC and the mpi spawner library, as GASNet links MPI only when that
dnl spawner is selected); defines GASNETI_HAVE_MPI_SPAWNER and
dnl GASNETI_MPIRUN_CMD_DEFAULT; conditional HAVE_MPI.
AC_DEFUN([GASNETI_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper used only for the mpi bootstrap plugin])
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--without-mpi], [do not build the mpi spawner (libgasnet-ibv-mpi-spawner.a)])],
    [], [with_mpi=check])
  gasneti_mpi_summary=no
  gasneti_mpi_found=no
  AS_IF([test "x$with_mpi" != xno], [
    AS_IF([test "x$MPICC" = x], [AC_PATH_PROGS([MPICC], [mpicc], [])])
    AS_IF([test "x$MPICC" != x], [
      AC_MSG_CHECKING([whether $MPICC compiles and links an MPI-3 program])
      gasneti_save_CC=$CC
      CC=$MPICC
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
          [[MPI_Request r; int a = 0, b[2];
            MPI_Init(NULL, NULL);
            MPI_Iallgather(&a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            return MPI_Finalize();]])],
        [gasneti_mpi_found=yes], [])
      CC=$gasneti_save_CC
      AC_MSG_RESULT([$gasneti_mpi_found])
    ])
    AS_IF([test "x$gasneti_mpi_found" != xyes && test "x$with_mpi" = xyes],
      [AC_MSG_ERROR([--with-mpi: no MPI C compiler that links an MPI-3 program (MPICC=$MPICC); install libopenmpi-dev or set MPICC])])
  ])
  AS_IF([test "x$gasneti_mpi_found" != xyes && test "x$with_ibv_spawner" = xmpi],
    [AC_MSG_ERROR([--with-ibv-spawner=mpi needs a working MPI C compiler (MPICC=$MPICC); install libopenmpi-dev, set MPICC, or pick another spawner])])
  AC_ARG_WITH([mpirun-cmd],
    [AS_HELP_STRING([--with-mpirun-cmd=TEMPLATE],
      [default MPIRUN_CMD for gasnetrun_ibv -spawner=mpi (default "mpirun -np %N %C")])],
    [gasneti_mpirun_cmd=$withval], [gasneti_mpirun_cmd="mpirun -np %N %C"])
  AS_IF([test "x$gasneti_mpirun_cmd" = xyes || test "x$gasneti_mpirun_cmd" = xno],
    [gasneti_mpirun_cmd="mpirun -np %N %C"])
  AC_DEFINE_UNQUOTED([GASNETI_MPIRUN_CMD_DEFAULT], ["$gasneti_mpirun_cmd"], [configure's MPIRUN_CMD])
  GASNETI_MPI_SPAWNER_LD='$(CC)'
  GASNETI_MPI_SPAWNER_LIBS=
  AS_IF([test "x$gasneti_mpi_found" = xyes], [
    gasneti_mpi_summary="yes ($MPICC; libgasnet-ibv-mpi-spawner.a)"
    AC_DEFINE([GASNETI_HAVE_MPI_SPAWNER], [1], [the mpi bootstrap plugin is built (separate library)])
    GASNETI_MPI_SPAWNER_LD=$MPICC
    GASNETI_MPI_SPAWNER_LIBS='-Wl,-u,gasneti_bootstrap_mpi -lgasnet-ibv-mpi-spawner'
  ])
  GASNETI_CLIENT_LD='$(CC)'
  GASNETI_CLIENT_SPAWNER_LIBS=
  AS_IF([test "x$with_ibv_spawner" = xmpi], [
    GASNETI_CLIENT_LD=$GASNETI_MPI_SPAWNER_LD
    GASNETI_CLIENT_SPAWNER_LIBS=$GASNETI_MPI_SPAWNER_LIBS])
  AC_SUBST([GASNETI_MPI_SPAWNER_LD])
  AC_SUBST([GASNETI_MPI_SPAWNER_LIBS])
  AC_SUBST([GASNETI_CLIENT_LD])
  AC_SUBST([GASNETI_CLIENT_SPAWNER_LIBS])
  AM_CONDITIONAL([HAVE_MPI], [test "x$gasneti_mpi_found" = xyes])
])
