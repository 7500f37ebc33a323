dnl GASNETI_CHECK_MPI: an MPI compiler wrapper (optional) for the mpi bootstrap.
AC_DEFUN([GASNETI_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper used only for the mpi bootstrap plugin])
  AC_PATH_PROGS([MPICC], [mpicc], [])
  gasneti_mpi_summary=no
  AS_IF([test "x$MPICC" != x], [gasneti_mpi_summary="yes ($MPICC)"])
  AM_CONDITIONAL([HAVE_MPI], [test "x$MPICC" != x])
])
