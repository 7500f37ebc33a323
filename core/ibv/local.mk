# core/ibv/local.mk: verbs transport (core/ibv/README: ports and devices,
# connections, memory and registration, work requests, AM, RMA; one
# sub-folder each), the in-tree probe tool of the Soft-RoCE test tier, and
# the verbs integration tests (tests/integration/verbs/local.mk).
libgasnet_sources += \
	core/ibv/ports/ports_parse.c \
	core/ibv/ports/ports_select.c \
	core/ibv/ports/topo.c \
	core/ibv/ports/ports.c \
	core/ibv/ports/ports_report.c \
	core/ibv/conn/connect.c \
	core/ibv/conn/ondemand.c \
	core/ibv/conn/conn_policy.c \
	core/ibv/conn/connfile.c \
	core/ibv/conn/ud.c \
	core/ibv/conn/recover.c \
	core/ibv/mem/pool.c \
	core/ibv/mem/seg.c \
	core/ibv/mem/cseg.c \
	core/ibv/mem/srq.c \
	core/ibv/mem/srq_plan.c \
	core/ibv/mem/dynreg.c \
	core/ibv/mem/fh_ops.c \
	core/ibv/mem/physmem.c \
	core/ibv/mem/odp.c \
	core/ibv/wr/wr.c \
	core/ibv/wr/cq.c \
	core/ibv/wr/progress.c \
	core/ibv/wr/fault.c \
	core/ibv/am/send.c \
	core/ibv/am/recv.c \
	core/ibv/am/rndv.c \
	core/ibv/rma/rdma.c \
	core/ibv/rma/mbox.c

noinst_HEADERS += \
	core/ibv/ibv.h \
	core/ibv/ibv_internal.h \
	core/ibv/ports/ports_parse.h \
	core/ibv/ports/ports_select.h \
	core/ibv/ports/ports_probe.h \
	core/ibv/ports/topo.h \
	core/ibv/conn/conn.h \
	core/ibv/conn/conn_policy.h \
	core/ibv/conn/connfile.h \
	core/ibv/mem/dynreg.h \
	core/ibv/mem/fh_ibv.h \
	core/ibv/mem/srq_plan.h \
	core/ibv/rma/rma_plan.h

EXTRA_DIST += core/ibv/README core/ibv/ports/README core/ibv/conn/README core/ibv/mem/README \
	core/ibv/wr/README core/ibv/am/README core/ibv/rma/README

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
tests_unit_test_srq_plan_SOURCES = tests/unit/test-srq-plan.c core/ibv/mem/srq_plan.c
tests_unit_test_srq_plan_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
UNIT_TESTS += tests/unit/test-srq-sim
tests_unit_test_srq_sim_SOURCES = tests/unit/test-srq-sim.c core/ibv/mem/srq_plan.c core/am/credit.c \
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
