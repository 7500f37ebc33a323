dnl GASNETI_CHECK_SEGMENT: the segment configuration (seed README; GASNet's
dnl --enable-segment-fast|large|everything).  FAST (default): the segment is
dnl registered whole at attach.  LARGE: it is not; firehose pins peers'
dnl memory on demand.  EVERYTHING: every address is in the segment (remote
dnl pinning like LARGE).  Substitutes GASNETI_SEGMENT_CONFIG for
dnl include/gasnet_config.h.in (#define GASNET_SEGMENT_<CONFIG> 1).
AC_DEFUN([GASNETI_CHECK_SEGMENT], [
  gasneti_segment=
  AC_ARG_ENABLE([segment-fast],
    [AS_HELP_STRING([--enable-segment-fast], [segment registered whole at attach (default)])],
    [AS_IF([test "x$enableval" != xno], [gasneti_segment="$gasneti_segment FAST"])])
  AC_ARG_ENABLE([segment-large],
    [AS_HELP_STRING([--enable-segment-large], [large segment, registered on demand by firehose (remote pinning)])],
    [AS_IF([test "x$enableval" != xno], [gasneti_segment="$gasneti_segment LARGE"])])
  AC_ARG_ENABLE([segment-everything],
    [AS_HELP_STRING([--enable-segment-everything], [the whole address space is the segment (not supported yet)])],
    [AS_IF([test "x$enableval" != xno], [gasneti_segment="$gasneti_segment EVERYTHING"])])
  AS_CASE([$gasneti_segment],
    [""|" FAST"], [gasneti_segment=FAST],
    [" LARGE"], [gasneti_segment=LARGE],
    [" EVERYTHING"],
      [AC_MSG_ERROR([--enable-segment-everything is not supported yet: use --enable-segment-large (firehose pins peers' memory on demand) or the default FAST])],
    [AC_MSG_ERROR([choose one of --enable-segment-fast, --enable-segment-large, --enable-segment-everything (got:$gasneti_segment)])])
  AC_SUBST([GASNETI_SEGMENT_CONFIG], [$gasneti_segment])
])

dnl GASNETI_CHECK_IBV_ODP: on-demand paging (seed README "On-Demand Paging
dnl (ODP) Support").  Enabled when libibverbs has the ODP capability query,
dnl unless --disable-ibv-odp; defines GASNETC_IBV_ODP to 1 or 0.
AC_DEFUN([GASNETI_CHECK_IBV_ODP], [
  AC_ARG_ENABLE([ibv-odp],
    [AS_HELP_STRING([--disable-ibv-odp], [never use on-demand paging (and never warn that it is missing)])],
    [], [enable_ibv_odp=probe])
  gasneti_ibv_odp=no
  AS_IF([test "x$enable_ibv_odp" != xno], [
    AC_CHECK_DECLS([IBV_ODP_SUPPORT_READ, ibv_query_device_ex],
      [], [], [[#include <infiniband/verbs.h>]])
    AS_IF([test "x$ac_cv_have_decl_IBV_ODP_SUPPORT_READ" = xyes &&
           test "x$ac_cv_have_decl_ibv_query_device_ex" = xyes &&
           test "x$ac_cv_have_decl_IBV_ACCESS_ON_DEMAND" = xyes],
      [gasneti_ibv_odp=yes],
      [AS_IF([test "x$enable_ibv_odp" = xyes],
        [AC_MSG_ERROR([--enable-ibv-odp: libibverbs lacks the ODP declarations (IBV_ODP_SUPPORT_READ, ibv_query_device_ex)])])])
  ])
  AS_IF([test $gasneti_ibv_odp = yes],
    [AC_DEFINE([GASNETC_IBV_ODP], [1], [use on-demand paging when the HCA has it])],
    [AC_DEFINE([GASNETC_IBV_ODP], [0], [use on-demand paging when the HCA has it])])
])
