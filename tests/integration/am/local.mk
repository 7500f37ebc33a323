# tests/integration/am/local.mk: more Active Message integration tests
# (negotiated-payload AMs) and remote atomics, which travel as AMs.
INTEGRATION_TESTS += tests/integration/am/npam
tests_integration_am_npam_SOURCES = tests/integration/am/npam.c
tests_integration_am_npam_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_npam_CFLAGS = $(IT_CFLAGS)
tests_integration_am_npam_LDADD = $(TEST_SEQ_LIBS)

# Remote atomics (gex_AD_*).
INTEGRATION_TESTS += tests/integration/am/ratomic
tests_integration_am_ratomic_SOURCES = tests/integration/am/ratomic.c
tests_integration_am_ratomic_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_ratomic_CFLAGS = $(IT_CFLAGS)
tests_integration_am_ratomic_LDADD = $(TEST_SEQ_LIBS)

# Broadcast and reductions (gex_Coll_*), which travel as AMs.
INTEGRATION_TESTS += tests/integration/am/coll
tests_integration_am_coll_SOURCES = tests/integration/am/coll.c
tests_integration_am_coll_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_coll_CFLAGS = $(IT_CFLAGS)
tests_integration_am_coll_LDADD = $(TEST_SEQ_LIBS)

EXTRA_DIST += tests/softroce/verbs.d/am-api.manifest
