# tests/perf/local.mk: the benchmarks (tests/perf/README), included by the
# top Makefile.am.
#
#   make            builds the benchmark programs (noinst; with --disable-seq
#                   only make bench does)
#   make bench      host (PSHM) run beside memcpy/shared-memory references,
#                   the many-process tier (bench_many.py), then one Soft-RoCE guest boot (verbs, PSHM off) beside
#                   perftest; prints the ratio table and writes
#                   tests/perf/results/bench-<date>.json (validated against
#                   tests/perf/bench.schema.json) and its SVG plots.  BENCH_FLAGS='--no-guest'
#                   etc.: see `tests/perf/bench.py --help`.
#   make icount     instruction counts of the injection paths (callgrind)

PERF_GEX_PROGS = \
	tests/perf/perf-am \
	tests/perf/perf-rma \
	tests/perf/perf-barrier \
	tests/perf/perf-inject \
	tests/perf/perf-twoway \
	tests/perf/perf-many \
	tests/perf/perf-start
PERF_REF_PROGS = \
	tests/perf/ref-memcpy \
	tests/perf/ref-shm \
	tests/perf/ref-verbs \
	tests/perf/ref-many
GASNETI_SEQ_NOINST += $(PERF_GEX_PROGS)
noinst_PROGRAMS += $(PERF_REF_PROGS)
noinst_HEADERS += tests/perf/bench.h tests/perf/bench-gex.h
EXTRA_DIST += \
	tests/perf/README \
	tests/perf/bench.py \
	tests/perf/bench_config.py \
	tests/perf/bench_verbs.py \
	tests/perf/bench_perftest.py \
	tests/perf/bench_ucx.py \
	tests/perf/bench_many.py \
	tests/perf/bench_plot.py \
	tests/perf/bench_validate.py \
	tests/perf/bench.schema.json \
	tests/perf/icount.sh \
	tests/perf/pack-check.sh \
	tests/perf/paired-ratio.py \
	tests/perf/twoway-check.sh

PERF_CPPFLAGS = $(TEST_SEQ_CPPFLAGS) -D_GNU_SOURCE
PERF_CFLAGS = $(GASNETI_WARN_CFLAGS)

tests_perf_perf_am_SOURCES = tests/perf/perf-am.c tests/perf/bench-common.c
tests_perf_perf_am_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_am_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_am_LDADD = $(TEST_SEQ_LIBS)

tests_perf_perf_rma_SOURCES = tests/perf/perf-rma.c tests/perf/bench-common.c
tests_perf_perf_rma_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_rma_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_rma_LDADD = $(TEST_SEQ_LIBS)

tests_perf_perf_barrier_SOURCES = tests/perf/perf-barrier.c tests/perf/bench-common.c
tests_perf_perf_barrier_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_barrier_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_barrier_LDADD = $(TEST_SEQ_LIBS)

tests_perf_perf_inject_SOURCES = tests/perf/perf-inject.c tests/perf/bench-common.c
tests_perf_perf_inject_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_inject_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_inject_LDADD = $(TEST_SEQ_LIBS)

tests_perf_perf_twoway_SOURCES = tests/perf/perf-twoway.c tests/perf/bench-common.c
tests_perf_perf_twoway_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_twoway_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_twoway_LDADD = $(TEST_SEQ_LIBS)

tests_perf_perf_many_SOURCES = tests/perf/perf-many.c tests/perf/bench-common.c
tests_perf_perf_many_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_many_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_many_LDADD = $(TEST_SEQ_LIBS)

tests_perf_perf_start_SOURCES = tests/perf/perf-start.c
tests_perf_perf_start_CPPFLAGS = $(PERF_CPPFLAGS)
tests_perf_perf_start_CFLAGS = $(PERF_CFLAGS)
tests_perf_perf_start_LDADD = $(TEST_SEQ_LIBS)

# The references: plain C, no GASNet.
tests_perf_ref_memcpy_SOURCES = tests/perf/ref-memcpy.c tests/perf/bench-common.c
tests_perf_ref_memcpy_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tests_perf_ref_memcpy_CFLAGS = $(PERF_CFLAGS)

tests_perf_ref_shm_SOURCES = tests/perf/ref-shm.c tests/perf/bench-common.c
tests_perf_ref_shm_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tests_perf_ref_shm_CFLAGS = $(PERF_CFLAGS)

tests_perf_ref_many_SOURCES = tests/perf/ref-many.c tests/perf/bench-common.c
tests_perf_ref_many_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tests_perf_ref_many_CFLAGS = $(PERF_CFLAGS)

tests_perf_ref_verbs_SOURCES = tests/perf/ref-verbs.c tests/perf/bench-common.c
tests_perf_ref_verbs_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tests_perf_ref_verbs_CFLAGS = $(PERF_CFLAGS)
tests_perf_ref_verbs_LDADD = $(IBVERBS_LIBS)

BENCH_PY = python3
BENCH_FLAGS =
bench: all $(PERF_GEX_PROGS)
	$(BENCH_PY) $(top_srcdir)/tests/perf/bench.py --srcdir $(top_srcdir) \
	  --builddir $(top_builddir) $(BENCH_FLAGS)

ICOUNT_FLAGS =
icount: all
	$(SHELL) $(top_srcdir)/tests/perf/icount.sh --builddir $(top_builddir) $(ICOUNT_FLAGS)

.PHONY: bench icount
CLEANFILES += tests/perf/results/smoke/*.json tests/perf/results/smoke/*.svg
