dnl GASNETI_CHECK_PTHREADS: POSIX threads and librt (shm_open).
AC_DEFUN([GASNETI_CHECK_PTHREADS], [
  AC_CHECK_LIB([pthread], [pthread_create], [], [AC_MSG_ERROR([POSIX threads are required])])
  AC_SEARCH_LIBS([shm_open], [rt], [], [AC_MSG_ERROR([shm_open is required])])
  AC_SEARCH_LIBS([clock_gettime], [rt])
])
