# extended/local.mk: build fragment included by the top Makefile.am.
# Extended API (RMA, events, NBI, access regions, barriers, HSLs, VIS) and
# the GASNet-1 legacy layer.  Design: extended/README.
libgasnet_sources += \
	extended/event.c \
	extended/sync.c \
	extended/rma.c \
	extended/vis.c \
	extended/barrier_engine.c \
	extended/barrier.c \
	extended/barrier_pshm.c \
	extended/barrier_rdma.c \
	extended/hsl.c \
	extended/legacy.c \
	extended/ratomic.c \
	extended/ratomic_flight.c \
	extended/coll.c \
	extended/team.c \
	extended/coll_g1.c \
	extended/mk.c \
	extended/vis_pc.c \
	extended/ep.c \
	extended/ep_rma.c \
	extended/hooks.c

EXTRA_DIST += extended/README
noinst_HEADERS += extended/extended_internal.h extended/barrier.h extended/barrier_pshm.h extended/barrier_rdma.h extended/ratomic_ops.h extended/ratomic_flight.h \
	extended/team.h extended/coll.h

# Public headers owned by the extended layer.
include_HEADERS += \
	include/gasnet.h \
	include/gasnet_coll.h \
	include/gasnet_vis.h \
	include/gasnet_ratomic.h \
	include/gasnet_mk.h
ibvconduit_HEADERS += \
	include/ibv-conduit/gasnet_core.h \
	include/ibv-conduit/gasnet_extended.h \
	include/ibv-conduit/gasnet_core_fwd.h \
	include/ibv-conduit/gasnet_extended_fwd.h \
	include/ibv-conduit/gasnet_ibv.h

# Unit test: event pool, NBI counters, access regions, barrier engine and
# barrier-value rules (no job needed).
UNIT_TESTS += tests/unit/test-extended
tests_unit_test_extended_SOURCES = tests/unit/test-extended.c
tests_unit_test_extended_CPPFLAGS = $(TEST_SEQ_CPPFLAGS)
tests_unit_test_extended_LDADD = $(TEST_SEQ_LIBS)

# Unit test: every RMA form, events, NBI, VIS and the argument checks over a
# fake asynchronous transport and a fake core (built from the sources, not
# linked with the library).
UNIT_TESTS += tests/unit/test-extended-rma
tests_unit_test_extended_rma_SOURCES = tests/unit/test-extended-rma.c \
	extended/event.c extended/sync.c extended/rma.c extended/vis.c \
	other/config/linkcheck.c
tests_unit_test_extended_rma_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
