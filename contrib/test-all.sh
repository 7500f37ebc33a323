#!/usr/bin/env bash
# contrib/test-all.sh: the README's test command, also run by CI (.ci/run).
# Installs the Debian packages, builds the tree in place with warnings as
# errors, and runs every test (`make check`: unit tests, then the
# integration manifest through tests/harness/run-tests).
# Run from the top of a source tree (a fresh clone works).
set -euo pipefail
cd "$(dirname "$0")/.."
contrib/install-deps.sh && autoreconf -fi && ./configure --enable-werror && make -j2 && make check
