#!/usr/bin/env bash
# tests/sanitize/run-sanitizers.sh: the sanitizer tier of `make check`.
#
#   run-sanitizers.sh [--srcdir DIR] [--builddir DIR] [--asan-dir DIR]
#                     [--no-asan] [--no-verbs] [--no-valgrind] [--filter REGEX]
#
# 1. AddressSanitizer + UndefinedBehaviorSanitizer: configures a separate
#    build tree (default BUILDDIR/tests/sanitize/asan; reused, so a second
#    run only rebuilds what changed) with the sanitizer flags in CFLAGS and
#    LDFLAGS, builds the library, gasnetrun_ibv and the test programs that
#    the suites below run, and runs the unit tests and the PSHM integration
#    manifest (tests/integration/manifest without the install check) through
#    tests/harness/run-tests with leak detection on.  Every report goes to a
#    file (log_path), so a report counts even when a process's exit status
#    does not reach the job's.  Known reports whose fix is pending elsewhere
#    are listed, each with its owner, in tests/sanitize/lsan.supp.
#    Then, from the same tree, the remote-atomics tests of the verbs tier
#    (the ratomic lines of tests/softroce/verbs.d: PSHM off, and 2 hosts x
#    2 processes) over verbs: natively on a host with an HCA, else in the
#    Soft-RoCE guest (tests/softroce/softroce-run); SKIP for this part only
#    when neither can run (missing prerequisites).
# 2. valgrind (memcheck): one AM test and one RMA test, 2 processes each,
#    on the ordinary build (BUILDDIR), every rank under valgrind; the run is
#    clean when each rank's "ERROR SUMMARY" says 0 errors and no leak is
#    "definitely lost".  Suppressions: tests/sanitize/valgrind.supp.
#
# Exit 0 when both are clean, 1 otherwise (the reports are printed), 77
# (SKIP) when the compiler has no AddressSanitizer or valgrind is missing
# and SANITIZE_REQUIRED is not 1 (which also turns a verbs part that cannot
# run into a failure).  Environment: CC (compiler of the
# sanitizer build, default cc), MAKE, SANITIZE_JOBS (make -j, default 2),
# SANITIZE_STEP_TIMEOUT (each of autoreconf, configure and the two makes,
# default 3600 s: a bound for a hang, far above a loaded machine's time).
# See tests/sanitize/README.
set -u

script_dir=$(cd "$(dirname "$0")" && pwd)
srcdir=${TEST_SRCDIR:-$(cd "$script_dir/../.." && pwd)}
builddir=${TEST_BUILDDIR:-.}
asandir=
do_asan=1
do_valgrind=1
do_verbs=1
filter=
while [ $# -gt 0 ]; do
    case $1 in
    --srcdir) srcdir=$2; shift 2 ;;
    --builddir) builddir=$2; shift 2 ;;
    --asan-dir) asandir=$2; shift 2 ;;
    --no-asan) do_asan=0; shift ;;
    --no-valgrind) do_valgrind=0; shift ;;
    --no-verbs) do_verbs=0; shift ;;
    --filter) filter=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-sanitizers: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
srcdir=$(cd "$srcdir" && pwd) || exit 2
builddir=$(cd "$builddir" && pwd) || exit 2
[ -n "$asandir" ] || asandir=$builddir/tests/sanitize/asan
make=${MAKE:-make}
jobs=${SANITIZE_JOBS:-2}
# Each build step's own bound (a loaded machine stays far below it).
step_timeout=${SANITIZE_STEP_TIMEOUT:-3600}
cc=${CC:-cc}
# Every UBSan check stops the process.
san_flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
# The library's own handlers keep these signals (see run_asan).
san_signals="handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0"
failed=0

skip() {
    if [ "${SANITIZE_REQUIRED:-0}" = 1 ]; then
        echo "FAIL: $* (SANITIZE_REQUIRED=1)"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}

# Prints the reports found under dir (files written through log_path) and
# returns 1 if there are any.
show_reports() {
    local dir=$1 what=$2 n
    n=$(find "$dir" -type f | wc -l)
    if [ "$n" -eq 0 ]; then
        echo "$what: 0 reports"
        return 0
    fi
    echo "$what: $n report file(s):"
    find "$dir" -type f | sort | while read -r f; do
        echo "---- $f"
        grep -E 'ERROR|SUMMARY|runtime error|^ *#[0-9]+ ' "$f" | head -40
    done
    return 1
}

run_asan() {
    local t0=$SECONDS
    if ! echo 'int main(void){return 0;}' | "$cc" $san_flags -x c -o /dev/null - 2>/dev/null; then
        skip "sanitize: $cc cannot build with $san_flags"
    fi
    mkdir -p "$asandir" || return 1
    # autoconf refuses a second build of a tree configured in place (the
    # README's test command and CI build so): build a copy of its sources.
    local cfgsrc=$srcdir
    if [ -f "$srcdir/config.status" ]; then
        cfgsrc=$asandir-src
        echo "sanitize: $srcdir is configured in place; copying its sources to $cfgsrc"
        "$srcdir/tests/harness/copy-sources.sh" "$srcdir" "$cfgsrc" "$asandir" "$cfgsrc" || {
            echo "FAIL: sanitize: could not copy the sources of $srcdir to $cfgsrc"
            return 1
        }
        if [ ! -x "$cfgsrc/configure" ]; then
            (cd "$cfgsrc" && timeout "$step_timeout" autoreconf -fi >autoreconf.log 2>&1) || {
                tail -n 20 "$cfgsrc/autoreconf.log"
                echo "FAIL: sanitize: autoreconf failed in $cfgsrc (log: $cfgsrc/autoreconf.log)"
                return 1
            }
        fi
    fi
    # (Re)configure when the tree is new or was configured differently.
    local stamp="$cc $san_flags $cfgsrc"
    if [ ! -f "$asandir/Makefile" ] || [ "$(cat "$asandir/sanitize.stamp" 2>/dev/null)" != "$stamp" ]; then
        echo "sanitize: configuring $asandir"
        (cd "$asandir" && timeout "$step_timeout" "$cfgsrc/configure" --enable-werror CC="$cc" \
            CFLAGS="-O1 -g $san_flags" LDFLAGS="$san_flags" >configure.log 2>&1) || {
            tail -n 20 "$asandir/configure.log"
            echo "FAIL: sanitize: configure failed (log: $asandir/configure.log)"
            return 1
        }
        # make does not see changed flags: rebuild everything.
        (cd "$asandir" && $make clean >/dev/null 2>&1)
        echo "$stamp" >"$asandir/sanitize.stamp"
    fi
    # What the tier runs: the unit tests (and their helper programs), the
    # PSHM manifest and the verbs ratomic lines; the build makes `all` and
    # just the check programs these name, not every check program.
    local manifest_dir=$asandir/tests/sanitize/manifest
    local vdir=$asandir/tests/sanitize/verbs-manifest
    mkdir -p "$manifest_dir" "$vdir" || return 1
    grep -v -E '^install[[:space:]]' "$srcdir/tests/integration/manifest" >"$manifest_dir/pshm.manifest"
    grep -h -E '^[a-z]-ratomic' "$srcdir"/tests/softroce/verbs.d/*.manifest >"$vdir/ratomic.manifest"
    echo "sanitize: building in $asandir"
    # Two makes: `all` recurses (BUILT_SOURCES), a parallel sibling goal races it.
    (cd "$asandir" && timeout "$step_timeout" $make -j"$jobs" all >make.log 2>&1 &&
        progs="$($make -s --no-print-directory sanitize-list-unit-programs) $(
            "$srcdir/tests/harness/manifest-programs.sh" . "$manifest_dir/pshm.manifest" "$vdir/ratomic.manifest")
            tests/exit/exit-cases" && # run_planted_leak's program
        echo "make -j$jobs" $progs >>make.log &&
        timeout "$step_timeout" $make -j"$jobs" $progs >>make.log 2>&1) || {
        tail -n 30 "$asandir/make.log"
        echo "FAIL: sanitize: build failed (or a make passed its ${step_timeout} s bound; log: $asandir/make.log)"
        return 1
    }
    echo "sanitize: copied, configured and built in $((SECONDS - t0)) s"
    local units
    units=$(cd "$asandir" && $make -s --no-print-directory sanitize-list-units) || return 1
    local reports=$asandir/reports
    rm -rf "$reports" && mkdir -p "$reports"
    # Leak detection on; every report to a file named after its process.
    # The library's own handlers keep SIGSEGV/SIGBUS/SIGFPE/SIGABRT (the
    # tests check what it prints on a crash).
    local common="log_path=$reports/san:$san_signals"
    local rt_args=(--srcdir "$srcdir" --builddir "$asandir" --manifest "$manifest_dir")
    [ -z "$filter" ] || rt_args+=(--filter "$filter")
    echo "sanitize: unit tests and the PSHM integration manifest (ASan+UBSan, leaks on)"
    ASAN_OPTIONS="$common:detect_leaks=1:detect_stack_use_after_return=1" \
    UBSAN_OPTIONS="$common:print_stacktrace=1:halt_on_error=1" \
    LSAN_OPTIONS="suppressions=$srcdir/tests/sanitize/lsan.supp:print_suppressions=0" \
        "$srcdir/tests/harness/run-tests" "${rt_args[@]}" -- $units || failed=1
    show_reports "$reports" "sanitize (ASan+UBSan+LSan)" || failed=1
    [ -n "$filter" ] || run_planted_leak || failed=1
    echo "sanitize: $((SECONDS - t0)) s"
    [ $do_verbs = 0 ] || run_asan_verbs || failed=1
}

# The tier must see leaks in ranks that end through gasnet_exit (which
# _exits, skipping LeakSanitizer's atexit check; the library runs the check
# itself, core/README "Exit"): tests/exit/exit-cases leak plants 777 bytes
# in rank 1 before every rank calls gasnet_exit(0).  Exactly that leak must
# be reported, and the job must fail.
run_planted_leak() {
    local reports=$asandir/reports-planted out rc
    rm -rf "$reports" && mkdir -p "$reports" || return 1
    out=$(cd "$asandir" && ASAN_OPTIONS="log_path=$reports/san:$san_signals:detect_leaks=1" \
        UBSAN_OPTIONS="log_path=$reports/san:print_stacktrace=1:halt_on_error=1" \
        LSAN_OPTIONS="suppressions=$srcdir/tests/sanitize/lsan.supp:print_suppressions=0" \
        timeout --kill-after=5 120 ./gasnetrun_ibv -n 2 tests/exit/exit-cases leak 2>&1)
    rc=$?
    local direct total
    direct=$(cat "$reports"/san.* 2>/dev/null | grep -c "Direct leak of 777 byte(s) in 1 object")
    total=$(cat "$reports"/san.* 2>/dev/null | grep -c "leak of")
    if [ "$rc" != 0 ] && [ "$direct" = 1 ] && [ "$total" = 1 ]; then
        echo "PASS sanitize: the planted 777-byte leak of a rank that calls gasnet_exit is reported (job exit $rc)"
        return 0
    fi
    echo "$out" | tail -n 10
    show_reports "$reports" "planted leak"
    echo "FAIL: sanitize: the planted 777-byte leak: job exit $rc, $direct report(s) of it, $total leak report(s) in all (expected non-zero, 1, 1)"
    return 1
}

# The remote-atomics tests over verbs from the ASan tree (the options of
# the PSHM run; reports in their own folder, which the guest shares).
run_asan_verbs() {
    local t0=$SECONDS rc
    local dir=$asandir/tests/sanitize/verbs-manifest reports=$asandir/reports-verbs
    local common="log_path=$reports/san:$san_signals"
    rm -rf "$reports" && mkdir -p "$reports" || return 1
    # RUNNING (the test that runs) in the shared folder: a guest timeout names it.
    rm -f "$dir/RUNNING"
    local cmd=(env "RUN_TESTS_STATE_DIR=$dir" "ASAN_OPTIONS=$common:detect_leaks=1:detect_stack_use_after_return=1"
               "UBSAN_OPTIONS=$common:print_stacktrace=1:halt_on_error=1"
               "LSAN_OPTIONS=suppressions=$srcdir/tests/sanitize/lsan.supp:print_suppressions=0"
               "$srcdir/tests/harness/run-tests" --srcdir "$srcdir" --builddir "$asandir"
               --no-unit --manifest "$dir")
    [ -z "$filter" ] || cmd+=(--filter "$filter")
    echo "sanitize: remote atomics over verbs (ASan+UBSan, leaks on): $(grep -c . "$dir/ratomic.manifest") tests"
    if ls /sys/class/infiniband/* >/dev/null 2>&1; then
        "${cmd[@]}"
        rc=$?
    elif ! "$srcdir/tests/softroce/softroce-run" --check >"$dir/check.log" 2>&1; then
        tail -n 5 "$dir/check.log"
        if [ "${SANITIZE_REQUIRED:-0}" = 1 ]; then
            echo "FAIL: sanitize over verbs: no HCA and no Soft-RoCE guest (SANITIZE_REQUIRED=1)"
            return 1
        fi
        echo "SKIP: sanitize over verbs: no HCA and the Soft-RoCE prerequisites are missing"
        return 0
    else
        "$srcdir/tests/softroce/softroce-run" -q -t 2400 -m 3G -w "$asandir" -- "${cmd[@]}"
        rc=$?
        [ $rc = 125 ] && echo "FAIL: sanitize over verbs: the Soft-RoCE guest did not start"
        if [ $rc = 124 ]; then
            local what=
            [ -f "$dir/RUNNING" ] && what=$(cat "$dir/RUNNING")
            echo "FAIL: sanitize over verbs: the guest timed out after 2400 s${what:+ in the test $what}"
        fi
    fi
    [ $rc = 0 ] || echo "FAIL: sanitize over verbs: run-tests exit status $rc"
    show_reports "$reports" "sanitize over verbs (ASan+UBSan+LSan)" || rc=1
    echo "sanitize over verbs: $((SECONDS - t0)) s"
    [ $rc = 0 ]
}

# One job with every rank under valgrind; checks each rank's summary.
valgrind_job() {
    local name=$1; shift
    local dir=$builddir/tests/sanitize/valgrind
    mkdir -p "$dir" && rm -f "$dir/$name".*
    local t0=$SECONDS
    (cd "$builddir" && timeout --kill-after=5 300 ./gasnetrun_ibv -n 2 \
        valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite --track-origins=yes \
        --suppressions="$srcdir/tests/sanitize/valgrind.supp" \
        --log-file="$dir/$name.%p" "$@" >"$dir/$name.out" 2>&1)
    local rc=$? logs n bad=0
    logs=$(ls "$dir/$name".[0-9]* 2>/dev/null)
    n=$(echo "$logs" | grep -c .)
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: valgrind $name: job exit code $rc (output: $dir/$name.out)"
        tail -n 20 "$dir/$name.out"
        bad=1
    fi
    if [ "$n" -ne 2 ]; then
        echo "FAIL: valgrind $name: $n valgrind logs, expected 2 (one per rank)"
        bad=1
    fi
    for f in $logs; do
        if [ -s "$f" ]; then # -q: valgrind writes only errors
            echo "FAIL: valgrind $name: reports in $f:"
            head -n 40 "$f"
            bad=1
        fi
    done
    [ $bad = 0 ] && echo "PASS valgrind $name: 2 ranks, 0 errors ($((SECONDS - t0)) s)"
    return $bad
}

run_valgrind() {
    command -v valgrind >/dev/null 2>&1 ||
        skip "sanitize: valgrind not installed (contrib/install-deps.sh installs it)"
    [ -x "$builddir/gasnetrun_ibv" ] || { echo "FAIL: no $builddir/gasnetrun_ibv"; return 1; }
    valgrind_job am-payload tests/integration/am-payload || failed=1
    valgrind_job rma tests/integration/rma-forms || failed=1
}

[ $do_asan = 0 ] || run_asan || failed=1
[ $do_valgrind = 0 ] || run_valgrind || failed=1
if [ $failed = 0 ]; then
    echo "PASS: sanitizers clean"
else
    echo "FAIL: sanitizer reports (see above)"
fi
exit $failed
