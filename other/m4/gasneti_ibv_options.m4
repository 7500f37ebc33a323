dnl GASNETI_CHECK_IBV_OPTIONS: the conduit's build-time options (seed README,
dnl "Build-time Configuration").
AC_DEFUN([GASNETI_CHECK_IBV_OPTIONS], [
  AC_ARG_ENABLE([ibv-multirail],
    [AS_HELP_STRING([--enable-ibv-multirail], [use up to 2 HCAs (same as --with-ibv-max-hcas=2)])],
    [], [enable_ibv_multirail=no])
  AC_ARG_WITH([ibv-max-hcas],
    [AS_HELP_STRING([--with-ibv-max-hcas=N], [maximum number of HCAs a process opens (default 1, or 2 with --enable-ibv-multirail)])],
    [gasneti_ibv_max_hcas=$withval],
    [AS_IF([test "x$enable_ibv_multirail" = xyes], [gasneti_ibv_max_hcas=2], [gasneti_ibv_max_hcas=1])])
  AS_CASE([$gasneti_ibv_max_hcas], [[[1-9]]|[[1-9]][[0-9]]], [],
    [AC_MSG_ERROR([--with-ibv-max-hcas=$gasneti_ibv_max_hcas: expected an integer 1..99])])
  AC_DEFINE_UNQUOTED([GASNETC_IBV_MAX_HCAS], [$gasneti_ibv_max_hcas], [max HCAs per process])
  AC_ARG_WITH([ibv-ports],
    [AS_HELP_STRING([--with-ibv-ports=SPEC], [default for GASNET_IBV_PORTS])],
    [gasneti_ibv_ports=$withval], [gasneti_ibv_ports=])
  AC_DEFINE_UNQUOTED([GASNETC_IBV_PORTS_DEFAULT], ["$gasneti_ibv_ports"], [default GASNET_IBV_PORTS])
  AC_ARG_WITH([ibv-max-medium],
    [AS_HELP_STRING([--with-ibv-max-medium=BYTES], [AM Medium buffer size (default 65536)])],
    [gasneti_ibv_max_medium=$withval], [gasneti_ibv_max_medium=65536])
  AC_DEFINE_UNQUOTED([GASNETC_IBV_MAX_MEDIUM], [$gasneti_ibv_max_medium], [AM Medium buffer size])
  AC_ARG_WITH([ibv-spawner],
    [AS_HELP_STRING([--with-ibv-spawner=NAME], [default spawner of gasnetrun_ibv: local, ssh, mpi or pmi (default auto: mpi when MPI is found, else ssh; local on one host outside any batch allocation)])],
    [gasneti_ibv_spawner=$withval], [gasneti_ibv_spawner=auto])
  AS_CASE([$gasneti_ibv_spawner], [auto|local|ssh|mpi|pmi], [],
    [AC_MSG_ERROR([--with-ibv-spawner=$gasneti_ibv_spawner: expected local, ssh, mpi or pmi])])
  AC_DEFINE_UNQUOTED([GASNETI_DEFAULT_SPAWNER], ["$gasneti_ibv_spawner"], [default spawner])
  AC_SUBST([GASNETI_DEFAULT_SPAWNER], [$gasneti_ibv_spawner])
  AC_ARG_ENABLE([ibv-serialize-poll-cq],
    [AS_HELP_STRING([--disable-ibv-serialize-poll-cq], [let threads call ibv_poll_cq concurrently instead of skipping a CQ another thread is polling])],
    [], [enable_ibv_serialize_poll_cq=yes])
  AS_IF([test "x$enable_ibv_serialize_poll_cq" = xno],
    [AC_DEFINE([GASNETC_IBV_SERIALIZE_POLL_CQ], [0], [serialize ibv_poll_cq])],
    [AC_DEFINE([GASNETC_IBV_SERIALIZE_POLL_CQ], [1], [serialize ibv_poll_cq])])
  AC_CONFIG_HEADERS([build-config.h])
])
