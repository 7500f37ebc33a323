#!/bin/bash
# check-softroce.sh: the verbs test tier, as make check runs it (host side).
#
#   check-softroce.sh [-b BUILDDIR] [--verbs-tests] [-- COMMAND [ARG...]]
#
#   * A real HCA (/sys/class/infiniband/* exists): run-verbs-tests natively.
#   * Otherwise, with the Soft-RoCE prerequisites installed: boot the qemu
#     guest once per layout (dummy: rxe0; veth: rxe0 + rxe1) and run
#     run-verbs-tests in it.  A failing check fails this script.
#   * Prerequisites missing (or the guest kernel cannot be fetched): print
#     "SKIP: <reason>" and exit 77, unless SOFTROCE_REQUIRED=1 (CI),
#     which turns that into a failure.
#
# COMMAND (optional) is the verbs integration test runner; run-verbs-tests
# runs it once per layout, after its own checks.  --verbs-tests is the usual
# one: tests/harness/run-tests over tests/softroce/verbs.manifest (the AM,
# barrier, legacy, PAR, exit and demo tests with PSHM off and as 2 hosts x 2
# processes, and the AM credit flood).
# Environment: SOFTROCE_BUILD_DIR (guest kernel/initramfs cache, default
# /tmp/gasnet-softroce), SOFTROCE_LAYOUTS (default "dummy veth"),
# SOFTROCE_TIMEOUT (per guest, default 1200 s).
# Closes with "check-softroce: N passed, N failed, N skipped" (the sums of
# the layouts' checks).
set -u
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
BUILD=$PWD
VERBS_TESTS=0
while [ $# -gt 0 ]; do
    case "$1" in
    -b) BUILD=$2; shift 2 ;;
    --verbs-tests) VERBS_TESTS=1; shift ;;
    --) shift; break ;;
    *) echo "usage: check-softroce.sh [-b BUILDDIR] [--verbs-tests] [-- COMMAND...]" >&2; exit 2 ;;
    esac
done
BUILD=$(cd "$BUILD" && pwd -P) || exit 2
EXTRA=()
[ $# -gt 0 ] && EXTRA=(-- "$@")
if [ $VERBS_TESTS = 1 ]; then
    [ $# -gt 0 ] && { echo "check-softroce.sh: --verbs-tests and -- COMMAND exclude each other" >&2; exit 2; }
    SRC=$(cd "$HERE/../.." && pwd -P)
    EXTRA=(-- "$SRC/tests/harness/run-tests" --srcdir "$SRC" --builddir "$BUILD" --no-unit
           --manifest "$HERE/verbs.manifest")
fi
LAYOUTS=${SOFTROCE_LAYOUTS:-dummy veth}
TIMEOUT=${SOFTROCE_TIMEOUT:-1200}

skip() {
    if [ "${SOFTROCE_REQUIRED:-0}" = 1 ]; then
        echo "check-softroce: FAIL: the verbs tier cannot run but SOFTROCE_REQUIRED=1: $*"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}

[ -x "$BUILD/tests/softroce/ibv-probe" ] ||
    { echo "check-softroce: $BUILD/tests/softroce/ibv-probe is not built (make check builds it)"; exit 1; }

if ls /sys/class/infiniband/* >/dev/null 2>&1; then
    echo "check-softroce: RDMA devices present: $(ls /sys/class/infiniband | tr '\n' ' ')-> running natively"
    exec "$HERE/run-verbs-tests" -b "$BUILD" "${EXTRA[@]}"
fi

# Prerequisites: packages (softroce-run --check), then the guest kernel.
why=$("$HERE/softroce-run" --check 2>&1) || skip "${why#softroce-run: } (no RDMA hardware here, and the Soft-RoCE guest needs them)"
t0=$(date +%s)
out=$("$HERE/softroce-run" --prepare 2>&1) ||
    skip "cannot prepare the Soft-RoCE guest kernel: $(echo "$out" | grep 'softroce-run:' | tail -1)"
echo "check-softroce: guest ready in $(( $(date +%s) - t0 )) s ($(echo "$out" | tail -1 | sed 's/^softroce-run: ready: //'))"

P=0 F=0 S=0 rc_all=0
for layout in $LAYOUTS; do
    log=$(mktemp /tmp/check-softroce.XXXXXX)
    echo "check-softroce: ---- layout $layout: booting the guest ----"
    t0=$(date +%s.%N)
    "$HERE/softroce-run" -q -n "$layout" -t "$TIMEOUT" -- "$HERE/run-verbs-tests" -b "$BUILD" "${EXTRA[@]}" 2>&1 |
        tee "$log"
    rc=${PIPESTATUS[0]}
    t1=$(date +%s.%N)
    line=$(grep -E '^run-verbs-tests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1)
    if [ -n "$line" ]; then
        read -r p f s <<<"$(echo "$line" | sed 's/[^0-9 ]//g')"
        P=$((P + p)) F=$((F + f)) S=$((S + s))
    fi
    case $rc in
    0) ;;
    124) echo "check-softroce: layout $layout: the guest timed out after ${TIMEOUT}s"; F=$((F + 1)) ;;
    125) echo "check-softroce: layout $layout: guest infrastructure failure (see above)"; F=$((F + 1)) ;;
    *) [ -n "$line" ] || F=$((F + 1)) ;;
    esac
    [ $rc = 0 ] || rc_all=1
    awk -v a="$t0" -v b="$t1" -v l="$layout" -v r="$rc" \
        'BEGIN { printf "check-softroce: layout %s: exit %d, wall %.1f s (boot + tests)\n", l, r, b - a }'
    rm -f "$log"
done
echo "check-softroce: $P passed, $F failed, $S skipped"
[ $rc_all = 0 ] && [ $F = 0 ]
