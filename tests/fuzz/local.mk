# tests/fuzz/local.mk: the libFuzzer targets (tests/fuzz/README).
#
# `make check` runs tests/fuzz/run-fuzz.sh for 20 s per target through the
# line in tests/integration/manifest.d/fuzz.manifest (regression inputs
# first).  Longer on demand: make fuzz FUZZ_SECONDS=600 [FUZZ_FLAGS='--only
# bsp-proto'].  The targets are built by the script with clang (FUZZ_CC),
# not by automake: libFuzzer needs clang whatever CC configure chose.
EXTRA_DIST += \
	tests/fuzz/README \
	tests/fuzz/run-fuzz.sh \
	tests/fuzz/fuzz-check.h \
	tests/fuzz/fuzz-am-wire.c \
	tests/fuzz/fuzz-bsp-proto.c \
	tests/fuzz/fuzz-param-parse.c \
	tests/fuzz/fuzz-launch-setup.c \
	tests/fuzz/fuzz-connfile.c \
	tests/fuzz/fuzz-portspec.c \
	tests/fuzz/regress \
	tests/fuzz/seeds \
	tests/integration/manifest.d/fuzz.manifest

FUZZ_SECONDS = 20
FUZZ_CC = clang
FUZZ_FLAGS =
fuzz:
	FUZZ_CC="$(FUZZ_CC)" $(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz.sh --srcdir $(top_srcdir) \
	  --builddir $(top_builddir) --seconds $(FUZZ_SECONDS) $(FUZZ_FLAGS)
.PHONY: fuzz
CLEANFILES += tests/fuzz/*.o tests/fuzz/*.log tests/fuzz/fuzz-am-wire tests/fuzz/fuzz-bsp-proto \
	tests/fuzz/fuzz-param-parse tests/fuzz/fuzz-launch-setup tests/fuzz/fuzz-connfile \
	tests/fuzz/fuzz-portspec
