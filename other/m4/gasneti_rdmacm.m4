dnl GASNETI_CHECK_RDMACM: librdmacm (optional; used for address resolution tools).
AC_DEFUN([GASNETI_CHECK_RDMACM], [
  gasneti_rdmacm_summary=no
  AC_CHECK_HEADER([rdma/rdma_cma.h],
    [AC_CHECK_LIB([rdmacm], [rdma_create_id],
      [RDMACM_LIBS=-lrdmacm; gasneti_rdmacm_summary="yes ($RDMACM_LIBS)"
       AC_DEFINE([HAVE_RDMACM], [1], [librdmacm is available])])])
  AC_SUBST([RDMACM_LIBS])
])
