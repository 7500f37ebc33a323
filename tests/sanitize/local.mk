# tests/sanitize/local.mk: the sanitizer tier (tests/sanitize/README).
#
# `make check` runs tests/sanitize/run-sanitizers.sh through the line in
# tests/integration/manifest.d/sanitize.manifest: an ASan+UBSan build in its
# own tree (BUILDDIR/tests/sanitize/asan) running the unit tests and the PSHM
# integration manifest with leak detection on, then the remote-atomics tests
# over verbs (Soft-RoCE guest without an HCA), and valgrind on one AM and
# one RMA test.  `make sanitize` runs the same by hand.
EXTRA_DIST += \
	tests/sanitize/README \
	tests/sanitize/run-sanitizers.sh \
	tests/sanitize/lsan.supp \
	tests/sanitize/valgrind.supp \
	tests/integration/manifest.d/sanitize.manifest

# Used by run-sanitizers.sh inside the sanitizer build tree: the unit tests
# it runs, and those with the check programs they start (tests/unit/*).
sanitize-list-units:
	@echo $(UNIT_TESTS)
sanitize-list-unit-programs:
	@echo $(sort $(UNIT_TESTS) $(filter tests/unit/%,$(check_PROGRAMS)))

SANITIZE_FLAGS =
sanitize: all
	TEST_SRCDIR=$(top_srcdir) TEST_BUILDDIR=$(top_builddir) CC="$(CC)" \
	  $(SHELL) $(top_srcdir)/tests/sanitize/run-sanitizers.sh $(SANITIZE_FLAGS)
.PHONY: sanitize sanitize-list-units sanitize-list-unit-programs
