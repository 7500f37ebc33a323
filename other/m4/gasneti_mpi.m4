dnl GASNETI_CHECK_MPI: an MPI compiler wrapper (optional) for the mpi
dnl bootstrap plugin (bootstrap/mpi).
dnl
dnl The plugin is compiled with $MPICC into its own library,
dnl libgasnet-ibv-mpi-spawner.a, so that libgasnet-ibv-{seq,par,parsync}.a
dnl never depend on MPI.  MPICC must compile and link an MPI-3 program (the
dnl plugin uses non-blocking collectives so that every bootstrap operation
dnl can time out).
dnl
dnl When MPI is found, the installed ibv-*.mak / .pc link clients the way
dnl GASNet's do when it has MPI support (seed README, "Job Spawning": the mpi
dnl spawner is available whenever it was found at configure time):
dnl GASNET_LD is $MPICC, GASNET_LD_REQUIRES_MPI = 1, and GASNET_LIBS starts
dnl with -Wl,-u,gasneti_bootstrap_mpi -lgasnet-ibv-mpi-spawner and ends with
dnl the MPI libraries (so a plain cc link with pkg-config --libs works too).
dnl MPI is initialised only when the mpi spawner is selected at run time
dnl (bootstrap/README, "The mpi plugin and MPI linkage").
dnl --without-mpi (GASNet: --disable-mpi-compat) or no MPI found: clients
dnl link with plain $(CC) and no MPI.
dnl --with-mpirun-cmd=TEMPLATE sets the default MPIRUN_CMD.
dnl Substitutes MPICC, GASNETI_MPI_SPAWNER_LD, GASNETI_MPI_SPAWNER_LIBS (what
dnl a client links for the mpi spawner), GASNETI_CLIENT_LD,
dnl GASNETI_CLIENT_LDFLAGS, GASNETI_CLIENT_SPAWNER_LIBS, GASNETI_MPI_LINK_LIBS, GASNETI_LD_REQUIRES_MPI
dnl (what the installed fragments use); defines GASNETI_HAVE_MPI_SPAWNER and
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
  dnl Clients link with the C compiler and the user's CFLAGS, as GASNet's
  dnl (its configure folds CFLAGS into CC), or with MPI_CC and MPI_CFLAGS.
  GASNETI_CLIENT_LD='$(CC) $(GASNETI_USER_CFLAGS)'
  GASNETI_CLIENT_LDFLAGS=
  gasneti_client_ld_summary="$CC $GASNETI_USER_CFLAGS"
  GASNETI_CLIENT_SPAWNER_LIBS=
  GASNETI_MPI_LINK_LIBS=
  GASNETI_LD_REQUIRES_MPI=0
  AS_IF([test "x$gasneti_mpi_found" = xyes], [
    GASNETI_CLIENT_LD=$GASNETI_MPI_SPAWNER_LD
    AS_IF([test "x${MPI_CFLAGS+set}" = xset], [GASNETI_CLIENT_LDFLAGS=$MPI_CFLAGS])
    gasneti_client_ld_summary="$MPICC $GASNETI_CLIENT_LDFLAGS"
    GASNETI_CLIENT_SPAWNER_LIBS=$GASNETI_MPI_SPAWNER_LIBS
    GASNETI_LD_REQUIRES_MPI=1
    dnl MPI_LIBS if given; else Open MPI's wrapper tells its link flags;
    dnl others leave it to GASNET_LD.
    AS_IF([test "x${MPI_LIBS+set}" = xset], [GASNETI_MPI_LINK_LIBS=$MPI_LIBS],
      [GASNETI_MPI_LINK_LIBS=`$MPICC --showme:link 2>/dev/null` || GASNETI_MPI_LINK_LIBS=])])
  AC_SUBST([GASNETI_CLIENT_LDFLAGS])
  AC_SUBST([GASNETI_MPI_LINK_LIBS])
  AC_SUBST([GASNETI_LD_REQUIRES_MPI])
  AC_SUBST([GASNETI_MPI_SPAWNER_LD])
  AC_SUBST([GASNETI_MPI_SPAWNER_LIBS])
  AC_SUBST([GASNETI_CLIENT_LD])
  AC_SUBST([GASNETI_CLIENT_SPAWNER_LIBS])
  AM_CONDITIONAL([HAVE_MPI], [test "x$gasneti_mpi_found" = xyes])
])
