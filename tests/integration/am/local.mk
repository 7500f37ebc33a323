# tests/integration/am/local.mk: more Active Message integration tests
# (negotiated-payload AMs).
INTEGRATION_TESTS += tests/integration/am/npam
tests_integration_am_npam_SOURCES = tests/integration/am/npam.c
tests_integration_am_npam_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_npam_CFLAGS = $(IT_CFLAGS)
tests_integration_am_npam_LDADD = $(TEST_SEQ_LIBS)
