#!/usr/bin/env bash
# tests/fuzz/run-fuzz.sh: builds and runs the libFuzzer targets.
#
#   run-fuzz.sh [--seconds S] [--srcdir DIR] [--builddir DIR] [--cc CLANG]
#               [--only TARGET]
#
# Targets (tests/fuzz/README): fuzz-am-wire (core/am/wire.c), fuzz-bsp-proto
# (bootstrap/local/proto.c), fuzz-param-parse (other/param/param-parse.c),
# fuzz-launch-setup (contrib/launcher/setup.c), fuzz-connfile
# (core/ibv/conn/connfile.c), fuzz-portspec (core/ibv/ports/ports_parse.c).
# Each is built with clang -fsanitize=fuzzer,address,undefined into
# BUILDDIR/tests/fuzz, then
#   1. replays every file of tests/fuzz/regress/TARGET (inputs that once
#      crashed or that pin a corner case): any failure fails the run;
#   2. fuzzes for S seconds (default 20, or FUZZ_SECONDS) from the seeds in
#      tests/fuzz/seeds/TARGET plus the corpus kept in BUILDDIR/tests/fuzz/
#      corpus-TARGET by earlier runs.
# Prints per target the executions, the edge coverage ("cov", libFuzzer's
# count of covered edges) and the functions of the file under test that
# were reached, naming those that were not.  A crash leaves its input as BUILDDIR/tests/fuzz/crash-*;
# copy it to tests/fuzz/regress/TARGET/ once fixed.  Exit 0 if clean, 1 on a
# crash or failed replay, 77 (SKIP) if clang cannot build libFuzzer targets
# and FUZZ_REQUIRED is not 1.
set -u

script_dir=$(cd "$(dirname "$0")" && pwd)
srcdir=${TEST_SRCDIR:-$(cd "$script_dir/../.." && pwd)}
builddir=${TEST_BUILDDIR:-.}
seconds=${FUZZ_SECONDS:-20}
cc=${FUZZ_CC:-clang}
only=
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --srcdir) srcdir=$2; shift 2 ;;
    --builddir) builddir=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-fuzz: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $seconds in
''|*[!0-9]*) echo "run-fuzz: --seconds '$seconds' is not a whole number of seconds" >&2; exit 2 ;;
esac
srcdir=$(cd "$srcdir" && pwd) || exit 2
out=$(mkdir -p "$builddir/tests/fuzz" && cd "$builddir/tests/fuzz" && pwd) || exit 2
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
-std=gnu11 -Wall -Wextra -Werror -I$srcdir"

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
    "$cc" $flags -x c -o "$out/probe" - >/dev/null 2>&1; then
    msg="fuzz: '$cc' cannot build libFuzzer targets (contrib/install-deps.sh installs clang and libclang-rt-dev)"
    [ "${FUZZ_REQUIRED:-0}" = 1 ] && { echo "FAIL: $msg (FUZZ_REQUIRED=1)"; exit 1; }
    echo "SKIP: $msg"
    exit 77
fi
rm -f "$out/probe"

# target: harness file, file under test, extra flags for the file under test.
targets="am-wire:core/am/wire.c: bsp-proto:bootstrap/local/proto.c:-Dmalloc=fuzz_bsp_malloc \
param-parse:other/param/param-parse.c: launch-setup:contrib/launcher/setup.c:-DGASNETRUN_MAX_HOSTS=4096 \
connfile:core/ibv/conn/connfile.c: portspec:core/ibv/ports/ports_parse.c:"

build() {
    local name=$1 file=$2 extra=$3
    "$cc" $flags $extra -c -o "$out/$name-under-test.o" "$srcdir/$file" &&
        "$cc" $flags -o "$out/fuzz-$name" "$srcdir/tests/fuzz/fuzz-$name.c" \
            "$out/$name-under-test.o" -lm
}

failed=0
for t in $targets; do
    name=${t%%:*}; rest=${t#*:}; file=${rest%%:*}; extra=${rest#*:}
    [ -z "$only" ] || [ "$only" = "$name" ] || continue
    if ! build "$name" "$file" "$extra" >"$out/build-$name.log" 2>&1; then
        cat "$out/build-$name.log"
        echo "FAIL fuzz-$name: build failed"
        failed=1
        continue
    fi
    prog=$out/fuzz-$name
    regress=$srcdir/tests/fuzz/regress/$name
    if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
        n=$(ls "$regress" | wc -l)
        if "$prog" "$regress"/* >"$out/regress-$name.log" 2>&1; then
            echo "PASS fuzz-$name: $n regression input(s) replayed"
        else
            tail -n 30 "$out/regress-$name.log"
            echo "FAIL fuzz-$name: a regression input fails (log: $out/regress-$name.log)"
            failed=1
            continue
        fi
    fi
    corpus=$out/corpus-$name
    mkdir -p "$corpus"
    seeds=()
    [ -d "$srcdir/tests/fuzz/seeds/$name" ] && seeds=("$srcdir/tests/fuzz/seeds/$name")
    log=$out/fuzz-$name.log
    (cd "$out" && timeout --kill-after=10 $((seconds + 60)) "$prog" -max_total_time="$seconds" \
        -print_final_stats=1 -print_coverage=1 -max_len=4096 -rss_limit_mb=1024 \
        -artifact_prefix="$out/crash-$name-" "$corpus" "${seeds[@]}" >"$log" 2>&1)
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    base=$(basename "$file")
    funcs_hit=$(grep -c "^COVERED_FUNC: .*$base" "$log")
    funcs_missed=$(grep -c "^UNCOVERED_FUNC: .*$base" "$log")
    summary="${execs:-?} executions in ${seconds} s, $cov, functions of $base reached: $funcs_hit/$((funcs_hit + funcs_missed))"
    # Name what was not reached (libFuzzer: "UNCOVERED_FUNC: hits: 0 edges: 0/N name file:line").
    unreached=$(awk -v b="$base" '$1 == "UNCOVERED_FUNC:" && index($0, b) { printf "%s%s", s, $6; s = " " }' "$log")
    [ -z "$unreached" ] || summary="$summary (not reached: $unreached)"
    if [ $rc -eq 0 ]; then
        echo "PASS fuzz-$name: $summary"
    else
        sed '/^COVERAGE:/,$d' "$log" |
            grep -E -A 12 '==ERROR|runtime error|fuzz check failed|deadly signal' | head -n 30
        echo "FAIL fuzz-$name: exit $rc, $summary; input: $(ls "$out"/crash-"$name"-* 2>/dev/null | head -n 1) (log: $log)"
        failed=1
    fi
done
exit $failed
