dnl GASNETI_CHECK_IBVERBS: rdma-core's libibverbs is a hard dependency.
AC_DEFUN([GASNETI_CHECK_IBVERBS], [
  AC_CHECK_HEADER([infiniband/verbs.h], [],
    [AC_MSG_ERROR([infiniband/verbs.h not found: install rdma-core's headers (Debian: apt-get install libibverbs-dev), or run contrib/install-deps.sh])])
  AC_CHECK_LIB([ibverbs], [ibv_get_device_list], [IBVERBS_LIBS=-libverbs],
    [AC_MSG_ERROR([libibverbs not found: install libibverbs-dev (rdma-core)])])
  AC_SUBST([IBVERBS_LIBS])
  gasneti_ibverbs_summary="yes ($IBVERBS_LIBS)"
  dnl ODP capability structures (rdma-core >= 17 has them all).
  AC_CHECK_DECLS([IBV_ACCESS_ON_DEMAND, ibv_query_gid_table], [], [], [[#include <infiniband/verbs.h>]])
])
