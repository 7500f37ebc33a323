#!/usr/bin/env bash
# tests/deps/check-layers-lib.sh: the library keeps its layer order.
#
# Runs `make check-layers` (tests/deps/local.mk: tests/deps/check-layers.py
# over the SEQ library's objects, with tests/deps/layers) in the build tree
# (TEST_BUILDDIR from the harness, else the current directory) and prints
# PASS when no object references a higher layer.  Exit 1 with the checker's
# lines otherwise; 77 (SKIP) when the build tree has no Makefile.
set -u
builddir=${TEST_BUILDDIR:-.}
if [ ! -f "$builddir/Makefile" ]; then
    echo "SKIP: $builddir has no Makefile (configure the build tree first)"
    exit 77
fi
# A make of its own, not a part of the make that runs the tests.
if out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$builddir" check-layers 2>&1); then
    printf '%s\n' "$out" | tail -1
    echo "PASS: no upward or sideways reference among the library's layers"
    exit 0
fi
printf '%s\n' "$out" | grep -v '^python3 \|^  --'
echo "FAIL: the library calls up its layer order (tests/deps/layers)"
exit 1
