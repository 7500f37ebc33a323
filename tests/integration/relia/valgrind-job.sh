#!/usr/bin/env bash
# tests/integration/relia/valgrind-job.sh: runs a job with every rank under
# valgrind (memcheck) and fails unless every rank's report is empty (issue
# 19 item 4: AM headers read uninitialised on shared-memory slots).
#
#   valgrind-job.sh NPROCS PROGRAM [ARG...]
#
# Run by tests/harness/run-tests as a direct program ("-" in the manifest):
# TEST_LAUNCHER and TEST_BUILDDIR come from the harness.  Each rank writes
# valgrind's report to its own file; the job must exit 0 and every file
# must be empty.  Exits 77 (SKIP) when valgrind is not installed.
set -u
[ $# -ge 2 ] || { echo "usage: valgrind-job.sh NPROCS PROGRAM [ARG...]" >&2; exit 2; }
n=$1; shift
prog=$1; shift
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind is not installed (contrib/install-deps.sh installs it)"
    exit 77
fi
build=${TEST_BUILDDIR:-.}
launcher=${TEST_LAUNCHER:-$build/gasnetrun_ibv}
case $prog in /*) ;; *) prog=$build/$prog ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/valgrind-job.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
timeout --kill-after=5 600 "$launcher" -n "$n" valgrind -q --error-exitcode=9 \
    --log-file="$dir/rank.%p" "$prog" "$@"
rc=$?
bad=0
for f in "$dir"/rank.*; do
    [ -e "$f" ] || continue
    if [ -s "$f" ]; then
        bad=$((bad + 1))
        echo "valgrind report of process ${f##*.}:"
        head -n 40 "$f"
    fi
done
reports=$(ls "$dir" | wc -l)
echo "valgrind-job: job exit code $rc, $reports rank reports, $bad not empty"
[ "$reports" -eq "$n" ] || { echo "FAIL: expected $n rank reports"; exit 1; }
[ "$rc" -eq 0 ] && [ "$bad" -eq 0 ] || { echo "FAIL: valgrind found errors or the job failed"; exit 1; }
echo "PASS valgrind $(basename "$prog") ($n processes): no errors"
