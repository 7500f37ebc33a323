# tests/integration/am/local.mk: more Active Message integration tests
# (negotiated-payload AMs) and remote atomics, which travel as AMs.
INTEGRATION_TESTS += tests/integration/am/npam
tests_integration_am_npam_SOURCES = tests/integration/am/npam.c
tests_integration_am_npam_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_npam_CFLAGS = $(IT_CFLAGS)
tests_integration_am_npam_LDADD = $(TEST_SEQ_LIBS)

# Remote atomics (gex_AD_*).
INTEGRATION_TESTS += tests/integration/am/ratomic-ops
tests_integration_am_ratomic_ops_SOURCES = tests/integration/am/ratomic-ops.c
tests_integration_am_ratomic_ops_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_ratomic_ops_CFLAGS = $(IT_CFLAGS)
tests_integration_am_ratomic_ops_LDADD = $(TEST_SEQ_LIBS)

# Remote atomics: results written with their type's size, at result_p, and
# only before completion (guard bytes); a producer/consumer ring on 32-bit
# data with every rank producing.
INTEGRATION_TESTS += tests/integration/am/ratomic-guard
tests_integration_am_ratomic_guard_SOURCES = tests/integration/am/ratomic-guard.c
tests_integration_am_ratomic_guard_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_ratomic_guard_CFLAGS = $(IT_CFLAGS)
tests_integration_am_ratomic_guard_LDADD = $(TEST_SEQ_LIBS)
INTEGRATION_TESTS += tests/integration/am/ratomic-ring
tests_integration_am_ratomic_ring_SOURCES = tests/integration/am/ratomic-ring.c
tests_integration_am_ratomic_ring_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_ratomic_ring_CFLAGS = $(IT_CFLAGS)
tests_integration_am_ratomic_ring_LDADD = $(TEST_SEQ_LIBS)
EXTRA_DIST += tests/integration/am/ad-guard.h

# Broadcast and reductions (gex_Coll_*), which travel as AMs.
INTEGRATION_TESTS += tests/integration/am/coll-ops
tests_integration_am_coll_ops_SOURCES = tests/integration/am/coll-ops.c
tests_integration_am_coll_ops_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_coll_ops_CFLAGS = $(IT_CFLAGS)
tests_integration_am_coll_ops_LDADD = $(TEST_SEQ_LIBS)

EXTRA_DIST += tests/softroce/verbs.d/am-api.manifest
