# tests/perf/local.mk: build fragment included by the top Makefile.am.
