# core/ibv/local.mk: verbs transport (HCA/port discovery and selection, RC
# connections, AM send/receive with credits, segment registration), the
# in-tree probe tool of the Soft-RoCE test tier, and the verbs integration
# tests (tests/integration/verbs/local.mk).
libgasnet_sources += \
	core/ibv/ports_parse.c \
	core/ibv/ports_select.c \
	core/ibv/topo.c \
	core/ibv/ports.c \
	core/ibv/ports_report.c \
	core/ibv/pool.c \
	core/ibv/connect.c \
	core/ibv/conn.c \
	core/ibv/conn_policy.c \
	core/ibv/connfile.c \
	core/ibv/ud.c \
	core/ibv/seg.c \
	core/ibv/cseg.c \
	core/ibv/send.c \
	core/ibv/recv.c \
	core/ibv/rndv.c \
	core/ibv/mbox.c \
	core/ibv/srq.c \
	core/ibv/srq_plan.c \
	core/ibv/cq.c \
	core/ibv/progress.c \
	core/ibv/fault.c \
	core/ibv/dynreg.c \
	core/ibv/fh_ops.c \
	core/ibv/physmem.c \
	core/ibv/odp.c \
	core/ibv/rma.c

noinst_HEADERS += \
	core/ibv/ibv.h \
	core/ibv/ibv_internal.h \
	core/ibv/conn.h \
	core/ibv/conn_policy.h \
	core/ibv/connfile.h \
	core/ibv/dynreg.h \
	core/ibv/fh_ibv.h \
	core/ibv/rma_plan.h \
	core/ibv/srq_plan.h \
	core/ibv/ports_parse.h \
	core/ibv/ports_select.h \
	core/ibv/ports_probe.h \
	core/ibv/topo.h

EXTRA_DIST += core/ibv/README

# Unit tests: the pure parsers and the selection policy (no hardware).
UNIT_TESTS += tests/unit/test-ibv-parse tests/unit/test-ibv-select tests/unit/test-ibv-conn
tests_unit_test_ibv_conn_SOURCES = tests/unit/test-ibv-conn.c
tests_unit_test_ibv_conn_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_ibv_conn_LDADD = $(TEST_SEQ_LIBS)
tests_unit_test_ibv_parse_SOURCES = tests/unit/test-ibv-parse.c
tests_unit_test_ibv_parse_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_ibv_parse_LDADD = $(TEST_SEQ_LIBS)
tests_unit_test_ibv_select_SOURCES = tests/unit/test-ibv-select.c
tests_unit_test_ibv_select_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_unit_test_ibv_select_LDADD = $(TEST_SEQ_LIBS)
# SRQ sizing and the credits it leaves (srq16).
UNIT_TESTS += tests/unit/test-srq-plan
tests_unit_test_srq_plan_SOURCES = tests/unit/test-srq-plan.c core/ibv/srq_plan.c
tests_unit_test_srq_plan_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
UNIT_TESTS += tests/unit/test-srq-sim
tests_unit_test_srq_sim_SOURCES = tests/unit/test-srq-sim.c core/ibv/srq_plan.c core/am/credit.c \
	core/am/credit_policy.c
tests_unit_test_srq_sim_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_unit_test_srq_sim_CFLAGS = $(LIB_CFLAGS)

# tests/softroce/ibv-probe: runs discovery/selection with the GASNET_* params
# and prints the result (used in the Soft-RoCE guest, and on real HCAs).
check_PROGRAMS += tests/softroce/ibv-probe
tests_softroce_ibv_probe_SOURCES = tests/softroce/ibv-probe.c
tests_softroce_ibv_probe_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
tests_softroce_ibv_probe_LDADD = $(TEST_SEQ_LIBS)

# The Soft-RoCE tier's scripts (check-softroce.sh is what make check calls).
EXTRA_DIST += \
	tests/softroce/README \
	tests/softroce/softroce-run \
	tests/softroce/initramfs-init \
	tests/softroce/guest-init.sh \
	tests/softroce/run-verbs-tests \
	tests/softroce/check-softroce.sh \
	tests/softroce/verbs.manifest \
	tests/softroce/verbs.d/README \
	tests/softroce/variants \
	tests/softroce/multirail.manifest \
	tests/softroce/rail-traffic.sh \
	tests/softroce/rnr-zero.sh \
	tests/softroce/mem-model.sh \
	tests/softroce/rbuf-bench.sh \
	tests/softroce/verbs.d/rbuf.manifest \
	tests/softroce/verbs.d/srq.manifest \
	tests/softroce/connfile-roundtrip.sh \
	tests/softroce/verbs.d/ondemand.manifest

# Integration tests of the verbs AM transport (flood with credit checks).
include $(top_srcdir)/tests/integration/verbs/local.mk
EXTRA_DIST += tests/softroce/faults.sh tests/softroce/verbs.d/faults.manifest
include $(top_srcdir)/tests/integration/progress/local.mk
