# tests/integration/firehose/local.mk: integration tests of dynamic
# registration (firehose over verbs): out-of-segment churn, pinning limits.
# Owned by the firehose/dynreg work (issue 6).  Public API plus one test
# hook (gasnetc_fh_stats_line); over PSHM they pass without firehose, over
# verbs they run in the Soft-RoCE tier (tests/softroce/verbs.d/firehose.manifest).
INTEGRATION_TESTS += tests/integration/firehose/fh-churn
tests_integration_firehose_fh_churn_SOURCES = tests/integration/firehose/fh-churn.c
tests_integration_firehose_fh_churn_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_firehose_fh_churn_CFLAGS = $(IT_CFLAGS)
tests_integration_firehose_fh_churn_LDADD = $(TEST_SEQ_LIBS)

INTEGRATION_TESTS += tests/integration/firehose/fh-limits
tests_integration_firehose_fh_limits_SOURCES = tests/integration/firehose/fh-limits.c
tests_integration_firehose_fh_limits_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_firehose_fh_limits_CFLAGS = $(IT_CFLAGS)
tests_integration_firehose_fh_limits_LDADD = $(TEST_SEQ_LIBS)

# Their manifests in the verbs tier: the main build's (verbs.d) and the
# "large" variant's (tests/softroce/variants).
EXTRA_DIST += tests/softroce/verbs.d/firehose.manifest tests/softroce/large.manifest
