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
# one: tests/harness/run-tests over tests/softroce/verbs.manifest and every
# tests/softroce/verbs.d/*.manifest (the AM, barrier, legacy, PAR, exit, demo
# and RMA tests with PSHM off and as 2 hosts x 2 processes, the AM credit
# flood, ...).  --verbs-tests also runs the variants (tests/softroce/variants:
# NAME LAYOUTS CONFIGURE-ARGS): each is built once on the host, before any
# guest boots, from a copy of the tracked sources in
# BUILDDIR/tests/softroce/variant-builds/NAME, and in each of its layouts the
# guest then runs tests/softroce/NAME.manifest against it, after the main
# build's tests.  A variant that does not build is a FAIL with its log tail.
# Environment: SOFTROCE_BUILD_DIR (guest kernel/initramfs cache, default
# /tmp/gasnet-softroce), SOFTROCE_LAYOUTS (default "dummy veth"),
# SOFTROCE_TIMEOUT (per guest, default 4800 s: every test has its own
# timeout, so this bound only ends a hang of the runner itself, and a loaded
# machine must not reach it), SOFTROCE_VARIANTS (names to
# run, default all; "none" = none), SOFTROCE_VARIANTS_FRESH=1 (rebuild from
# scratch instead of reusing a variant build made with the same options),
# SOFTROCE_VARIANT_TIMEOUT (per build step, default 3600 s: only a hang reaches it).
# Closes with the wall time of every part, one "check-softroce: failed in
# layout L: FAIL ..." line per failing check (CI shows only the last lines),
# then "check-softroce: N passed, N failed, N skipped" (the sums of the
# layouts' checks, plus failed variant builds).
set -u
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
SRC=$(cd "$HERE/../.." && pwd -P)
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
fi
# verbs_extra LAYOUT: with --verbs-tests, EXTRA becomes the run-tests command
# over verbs.manifest and the verbs.d manifests for LAYOUT.  A manifest with
# a line "# layouts: L1 L2" runs only in those layouts: a suite whose code
# does not depend on the number of devices runs in one layout (running it in
# the other repeats the same paths), so the second layout runs only what
# depends on the layout; "native" runs every manifest.
verbs_extra() {
    local m want
    [ $VERBS_TESTS = 1 ] || return 0
    EXTRA=(-- "$SRC/tests/harness/run-tests" --srcdir "$SRC" --builddir "$BUILD" --no-unit)
    for m in "$HERE/verbs.manifest" "$HERE"/verbs.d/*.manifest; do
        want=$(sed -n 's/^# layouts: *\([a-z ]*\).*/\1/p' "$m" | head -n 1)
        want=$(echo $want) # one space between names, none around
        if [ "$1" = native ] || [ -z "$want" ] || [[ " $want " = *" $1 "* ]]; then
            EXTRA+=(--manifest "$m")
        else
            echo "check-softroce: layout $1: $(basename "$m") not run here (# layouts: $want)"
        fi
    done
    # no manifest for this layout: no run-tests (which would take its default)
    [[ " ${EXTRA[*]} " = *" --manifest "* ]] || EXTRA=()
}
LAYOUTS=${SOFTROCE_LAYOUTS:-dummy veth}
TIMEOUT=${SOFTROCE_TIMEOUT:-4800}
VTIMEOUT=${SOFTROCE_VARIANT_TIMEOUT:-3600}
VARROOT=$BUILD/tests/softroce/variant-builds
T_ALL=$(date +%s.%N)
TIMES=()   # "part: seconds" lines for the closing summary

skip() {
    if [ "${SOFTROCE_REQUIRED:-0}" = 1 ]; then
        echo "check-softroce: FAIL: the verbs tier cannot run but SOFTROCE_REQUIRED=1: $*"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}
# since T0: seconds (one decimal) since the date +%s.%N value T0.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

[ -x "$BUILD/tests/softroce/ibv-probe" ] ||
    { echo "check-softroce: $BUILD/tests/softroce/ibv-probe is not built (make check builds it)"; exit 1; }

# ---- variants: parse, build ---------------------------------------------------------------
NATIVE=0
ls /sys/class/infiniband/* >/dev/null 2>&1 && NATIVE=1
VNAMES=() VLAYOUTS=() VARGS=()   # parsed lines of tests/softroce/variants
VOK=()                           # names built successfully
VFAIL=0                          # variants that failed (parse or build)

# read_variants: fills VNAMES/VLAYOUTS/VARGS from the variants file (those
# selected by SOFTROCE_VARIANTS and run in some layout); bad lines count as
# failures.
read_variants() {
    local line name lay args l want=${SOFTROCE_VARIANTS-} lineno=0
    [ -f "$HERE/variants" ] || return 0
    [ "$want" = none ] && return 0
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        line=${line%%#*}
        read -r name lay args <<<"$line"
        [ -n "$name" ] || continue
        if ! [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || [ -z "$lay" ]; then
            echo "FAIL variants:$lineno: '$line' is not 'NAME LAYOUTS CONFIGURE-ARGS...' (NAME of [A-Za-z0-9_-])"
            VFAIL=$((VFAIL + 1)); continue
        fi
        [ -n "$want" ] && ! [[ " $want " = *" $name "* ]] && continue
        for l in ${lay//,/ }; do
            case $l in dummy | veth | lo) ;;
            *) echo "FAIL variant_$name: layout '$l' in tests/softroce/variants:$lineno is not dummy, veth or lo"
               VFAIL=$((VFAIL + 1)); continue 2 ;;
            esac
        done
        if [ ! -f "$HERE/$name.manifest" ]; then
            echo "FAIL variant_$name: no $HERE/$name.manifest (a variant is one line in tests/softroce/variants plus that manifest)"
            VFAIL=$((VFAIL + 1)); continue
        fi
        if [ $NATIVE = 0 ] && ! [[ " $LAYOUTS " =~ " "(${lay//,/|})" " ]]; then
            echo "check-softroce: variant $name: not run (its layouts $lay are not in SOFTROCE_LAYOUTS='$LAYOUTS')"
            continue
        fi
        VNAMES+=("$name") VLAYOUTS+=("${lay//,/ }") VARGS+=("$args")
    done <"$HERE/variants"
}

# copy_sources DEST: the source tree's sources, without build products and
# never the variant builds themselves (inside SRC when built in place); see
# tests/harness/copy-sources.sh.
copy_sources() {
    "$SRC/tests/harness/copy-sources.sh" "$SRC" "$1" "$VARROOT"
}

# build_variant NAME ARGS: configure and build DIR=VARROOT/NAME: the
# libraries, the launcher and the programs NAME.manifest runs (the other
# check programs are the main build's sources against the same headers and
# run nowhere in the variant); output in DIR.log; returns non-zero on the
# first failing step (set -e: never call it as an if/&&/|| condition, which
# would disable that).  Reuses an earlier build made with the same
# arguments (its stamp) unless SOFTROCE_VARIANTS_FRESH=1.
build_variant() {
    local name=$1 args=$2 dir=$VARROOT/$1 targets stamp
    # shellcheck disable=SC2206 # configure args split on blanks, by design
    local cargs=($args)
    grep -q -- "'--enable-werror'" "$BUILD/config.status" 2>/dev/null && cargs+=(--enable-werror)
    stamp="configure ${cargs[*]}"
    (
        set -e
        if [ "${SOFTROCE_VARIANTS_FRESH:-0}" != 1 ] && [ -f "$dir/config.status" ] &&
            [ "$(cat "$dir/.variant-stamp" 2>/dev/null)" = "$stamp" ]; then
            echo "reusing $dir ($stamp)"
            copy_sources "$dir"
        else
            rm -rf "$dir"
            copy_sources "$dir"
            cd "$dir"
            [ -x configure ] || timeout "$VTIMEOUT" autoreconf -fi
            echo "$stamp"
            timeout "$VTIMEOUT" ./configure -q "${cargs[@]}"
            echo "$stamp" >.variant-stamp
        fi
        cd "$dir"
        targets=$("$SRC/tests/harness/manifest-programs.sh" --libraries . "$HERE/$name.manifest")
        echo "make -j2 $(echo $targets)"
        # shellcheck disable=SC2086 # a list of targets
        timeout "$VTIMEOUT" make -j2 $targets
    ) >"$dir.log" 2>&1
}

if [ $VERBS_TESTS = 1 ]; then
    read_variants
    mkdir -p "$VARROOT" || exit 1
    i=0
    while [ $i -lt ${#VNAMES[@]} ]; do
        name=${VNAMES[$i]}
        echo "check-softroce: variant $name: building (configure ${VARGS[$i]}) in $VARROOT/$name"
        t0=$(date +%s.%N)
        build_variant "$name" "${VARGS[$i]}"   # not in an if: set -e must work inside
        if [ $? = 0 ]; then
            VOK+=("$i")
            echo "check-softroce: variant $name: built in $(since "$t0") s"
        else
            echo "FAIL variant_${name}_build: configure ${VARGS[$i]} or make failed ($(since "$t0") s, log: $VARROOT/$name.log)"
            # parallel make buries the first error: show it, then the tail
            grep -m 5 -E 'error|Error|No such file' "$VARROOT/$name.log" | sed 's/^/    /'
            echo "    ..."
            tail -n 15 "$VARROOT/$name.log" | sed 's/^/    /'
            VFAIL=$((VFAIL + 1))
        fi
        TIMES+=("variant $name build: $(since "$t0") s")
        i=$((i + 1))
    done
fi

# variant_args LAYOUT: the run-verbs-tests --variant options of the variants
# built and listed for LAYOUT (every built variant when LAYOUT is "native").
variant_args() {
    local i
    VA=()
    for i in ${VOK[@]+"${VOK[@]}"}; do
        [ "$1" = native ] || [[ " ${VLAYOUTS[$i]} " = *" $1 "* ]] || continue
        VA+=(--variant "${VNAMES[$i]}" "$VARROOT/${VNAMES[$i]}" "$HERE/${VNAMES[$i]}.manifest")
    done
}

if [ $NATIVE = 1 ]; then
    echo "check-softroce: RDMA devices present: $(ls /sys/class/infiniband | tr '\n' ' ')-> running natively"
    variant_args native
    verbs_extra native
    "$HERE/run-verbs-tests" -b "$BUILD" ${VA[@]+"${VA[@]}"} "${EXTRA[@]}"
    rc=$?
    [ $VFAIL = 0 ] && exit $rc
    echo "check-softroce: $VFAIL variant(s) failed to build"
    exit 1
fi

# Prerequisites: packages (softroce-run --check), then the guest kernel.
why=$("$HERE/softroce-run" --check 2>&1) || skip "${why#softroce-run: } (no RDMA hardware here, and the Soft-RoCE guest needs them)"
t0=$(date +%s)
out=$("$HERE/softroce-run" --prepare 2>&1) ||
    skip "cannot prepare the Soft-RoCE guest kernel: $(echo "$out" | grep 'softroce-run:' | tail -1)"
echo "check-softroce: guest ready in $(( $(date +%s) - t0 )) s ($(echo "$out" | tail -1 | sed 's/^softroce-run: ready: //'))"

# The test runner in the guest names the test it runs in RUNNING, in a
# folder shared read-write with the guest; running_test prints it after a
# guest timeout (", while running NAME ...").
STATE=$(mktemp -d /tmp/check-softroce-state.XXXXXX) || exit 1
export RUN_TESTS_STATE_DIR=$STATE
trap 'rm -rf "$STATE"' EXIT
running_test() {
    [ -f "$STATE/RUNNING" ] && echo ", while running $(cat "$STATE/RUNNING")"
}

P=0 F=$VFAIL S=0 rc_all=0
FAILED=()   # "layout L: FAIL name (...)" lines, repeated at the end
[ $VFAIL = 0 ] || rc_all=1
for layout in $LAYOUTS; do
    log=$(mktemp /tmp/check-softroce.XXXXXX)
    variant_args "$layout"
    verbs_extra "$layout"
    echo "check-softroce: ---- layout $layout: booting the guest ----"
    t0=$(date +%s.%N)
    rm -f "$STATE/RUNNING"
    "$HERE/softroce-run" -q -n "$layout" -t "$TIMEOUT" -w "$STATE" -- \
        "$HERE/run-verbs-tests" -b "$BUILD" ${VA[@]+"${VA[@]}"} "${EXTRA[@]}" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^run-verbs-tests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1)
    if [ -n "$line" ]; then
        read -r p f s <<<"$(echo "$line" | sed 's/[^0-9 ]//g')"
        P=$((P + p)) F=$((F + f)) S=$((S + s))
    fi
    case $rc in
    0) ;;
    124) echo "check-softroce: layout $layout: the guest timed out after ${TIMEOUT}s$(running_test)"; F=$((F + 1)) ;;
    125) echo "check-softroce: layout $layout: guest infrastructure failure (see above)"; F=$((F + 1)) ;;
    *) [ -n "$line" ] || F=$((F + 1)) ;;
    esac
    [ $rc = 0 ] || rc_all=1
    wall=$(since "$t0")
    echo "check-softroce: layout $layout: exit $rc, wall $wall s (boot + tests)"
    parts=$(sed -n 's/^run-verbs-tests: \(.*\) took \([0-9]*\) s$/\1 \2 s/p' "$log" | paste -sd, | sed 's/,/, /g')
    boot=$(sed -n 's/^softroce-run: wall .* = boot\/setup\/power-off \([0-9.]*\) s .*/\1/p' "$log" | tail -1)
    TIMES+=("layout $layout: $wall s (boot/setup/power-off ${boot:-?} s; ${parts:-no timings})")
    # the failing checks by name: CI shows only this script's last lines
    while IFS= read -r l; do
        FAILED+=("layout $layout: $l")
    done < <(sed -n 's/^ *\(FAIL [^ ].*\)/\1/p' "$log" | head -n 20)
    rm -f "$log"
done
echo "check-softroce: times: $(printf '%s; ' "${TIMES[@]}")total $(since "$T_ALL") s"
for l in ${FAILED[@]+"${FAILED[@]}"}; do
    echo "check-softroce: failed in $l"
done
echo "check-softroce: $P passed, $F failed, $S skipped"
[ $rc_all = 0 ] && [ $F = 0 ]
