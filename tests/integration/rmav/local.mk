# tests/integration/rmav/local.mk: integration tests of RMA over verbs
# (sizes, alignments, completion forms, non-bulk source reuse) and the unit
# test of the transport's striping arithmetic.  Owned by the verbs RMA work
# (issue 5).  They run over PSHM in make check
# (tests/integration/manifest.d/rmav.manifest) and over verbs in the
# Soft-RoCE tier (tests/softroce/verbs.manifest, multirail.manifest).
INTEGRATION_TESTS += tests/integration/rmav/rmav-sizes tests/integration/rmav/rmav-lc

tests_integration_rmav_rmav_sizes_SOURCES = tests/integration/rmav/rmav-sizes.c
tests_integration_rmav_rmav_sizes_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_rmav_rmav_sizes_CFLAGS = $(IT_CFLAGS)
tests_integration_rmav_rmav_sizes_LDADD = $(TEST_SEQ_LIBS)

tests_integration_rmav_rmav_lc_SOURCES = tests/integration/rmav/rmav-lc.c
tests_integration_rmav_rmav_lc_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_rmav_rmav_lc_CFLAGS = $(IT_CFLAGS)
tests_integration_rmav_rmav_lc_LDADD = $(TEST_SEQ_LIBS)

# Pure arithmetic of core/ibv/rma/rma_plan.h (no library needed).
UNIT_TESTS += tests/integration/rmav/test-rma-plan
tests_integration_rmav_test_rma_plan_SOURCES = tests/integration/rmav/test-rma-plan.c
tests_integration_rmav_test_rma_plan_CFLAGS = $(GASNETI_WARN_CFLAGS)

EXTRA_DIST += tests/integration/manifest.d/rmav.manifest tests/integration/rmav/rmav-bench.py
