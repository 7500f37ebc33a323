#!/bin/bash
# tests/perf/pack-check.sh: contrib/pack-bench.sh's tarball runs on its own.
# Packs the host tier of `make bench` from the build tree, unpacks it in a
# scratch directory and runs it there with bench.py's smallest settings, so
# that a program, a library or a script bench.py needs and the pack leaves
# out fails here and not on the lent 16-core machine.  Prints bench.py's
# "valid against" line on success.  Run by make check (perf.manifest).
set -eu
src=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${TEST_BUILDDIR:-$PWD}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pack-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$src/contrib/pack-bench.sh" --builddir "$build" --out "$tmp/bench.tar.gz"
tar xzf "$tmp/bench.tar.gz" -C "$tmp"
# Not from the build or source tree: the unpacked copy only.
cd "$tmp"
"$tmp/gasnet-ibv-bench/run-bench.sh" --quick --rounds 1 --many-ranks 3 --start-procs 4 \
    --no-plots
