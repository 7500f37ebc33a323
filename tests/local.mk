# tests/local.mk: integration tests, the test harness and `make check`.
#
# `make check` builds $(UNIT_TESTS) and $(INTEGRATION_TESTS) (check_PROGRAMS)
# and then runs tests/harness/run-tests through check-local: every unit test
# program, then every line of tests/integration/manifest as a job launched by
# ./gasnetrun_ibv.  Extra harness options: make check RUN_TESTS_FLAGS='--filter rma
# --env GASNET_SUPERNODE_MAXSIZE=1'.  See tests/harness/README.

# Integration tests: public API only, SEQ library unless named otherwise.
INTEGRATION_TESTS += \
	tests/integration/am-args \
	tests/integration/am-payload \
	tests/integration/rma-forms \
	tests/integration/barrier-sync \
	tests/integration/legacy-api \
	tests/integration/par \
	tests/integration/exitcode

# The README's demo job: built by plain `make` so the first command can run it.
GASNETI_SEQ_NOINST += tests/integration/demo

noinst_HEADERS += tests/integration/test.h tests/unit/unit-check.h
EXTRA_DIST += \
	tests/integration/manifest \
	tests/harness/run-tests \
	tests/harness/copy-sources.sh \
	tests/harness/manifest-programs.sh \
	tests/harness/README \
	tests/install/check-install.sh \
	tests/install/client.c \
	contrib/install-deps.sh \
	contrib/test-all.sh

IT_SEQ_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
IT_PAR_CPPFLAGS = $(TEST_PAR_CPPFLAGS) -D_GNU_SOURCE
IT_CFLAGS = $(GASNETI_WARN_CFLAGS)

tests_integration_am_args_SOURCES = tests/integration/am-args.c
tests_integration_am_args_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_args_CFLAGS = $(IT_CFLAGS)
tests_integration_am_args_LDADD = $(TEST_SEQ_LIBS)

tests_integration_am_payload_SOURCES = tests/integration/am-payload.c
tests_integration_am_payload_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_am_payload_CFLAGS = $(IT_CFLAGS)
tests_integration_am_payload_LDADD = $(TEST_SEQ_LIBS)

tests_integration_rma_forms_SOURCES = tests/integration/rma-forms.c
tests_integration_rma_forms_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_rma_forms_CFLAGS = $(IT_CFLAGS)
tests_integration_rma_forms_LDADD = $(TEST_SEQ_LIBS)

tests_integration_barrier_sync_SOURCES = tests/integration/barrier-sync.c
tests_integration_barrier_sync_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_barrier_sync_CFLAGS = $(IT_CFLAGS)
tests_integration_barrier_sync_LDADD = $(TEST_SEQ_LIBS)

tests_integration_legacy_api_SOURCES = tests/integration/legacy-api.c
tests_integration_legacy_api_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_legacy_api_CFLAGS = $(IT_CFLAGS)
tests_integration_legacy_api_LDADD = $(TEST_SEQ_LIBS)

tests_integration_par_SOURCES = tests/integration/par.c
tests_integration_par_CPPFLAGS = $(IT_PAR_CPPFLAGS)
tests_integration_par_CFLAGS = $(IT_CFLAGS) -pthread
tests_integration_par_LDADD = $(TEST_PAR_LIBS)

tests_integration_exitcode_SOURCES = tests/integration/exitcode.c
tests_integration_exitcode_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_exitcode_CFLAGS = $(IT_CFLAGS)
tests_integration_exitcode_LDADD = $(TEST_SEQ_LIBS)

tests_integration_demo_SOURCES = tests/integration/demo.c
tests_integration_demo_CPPFLAGS = $(IT_SEQ_CPPFLAGS)
tests_integration_demo_CFLAGS = $(IT_CFLAGS)
tests_integration_demo_LDADD = $(TEST_SEQ_LIBS)

# Every test program, nothing run: contrib/test-all.sh builds them with
# make -j2 before the serial `make check` (which then finds them built).
check-programs: $(check_PROGRAMS)
.PHONY: check-programs

# The harness (`make check` has built `all`, so ./gasnetrun_ibv exists).
RUN_TESTS_FLAGS =
check-local:
	$(SHELL) $(top_srcdir)/tests/harness/run-tests --srcdir $(top_srcdir) \
	  --builddir $(top_builddir) $(RUN_TESTS_FLAGS) -- $(UNIT_TESTS)
CLEANFILES += tests/logs/*.log

# Variant builds of the Soft-RoCE tier (tests/softroce/variants).
clean-local:
	rm -rf tests/softroce/variant-builds
