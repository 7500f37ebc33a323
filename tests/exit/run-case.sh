#!/usr/bin/env bash
# tests/exit/run-case.sh: runs one exit case as a job and checks how it ended.
#
#   run-case.sh -e CODE [-o REGEX]... [-x REGEX]... NPROCS PROGRAM MODE
#
# Starts `gasnetrun_ibv -n NPROCS PROGRAM MODE` ($TEST_LAUNCHER, else
# ./gasnetrun_ibv; PROGRAM relative to $TEST_BUILDDIR, else .), copies its
# output, and then checks what the harness (tests/harness/run-tests) does
# not:
#   - the exit takes less than the exit timeout of a job of NPROCS ranks
#     (GASNET_EXITTIMEOUT if set, else min(GASNET_EXITTIMEOUT_MAX,
#     GASNET_EXITTIMEOUT_MIN + GASNET_EXITTIMEOUT_FACTOR * NPROCS) with the
#     library's defaults 360, 2, 0.25): from the earliest "exit-start T"
#     line the program prints (T: seconds since the epoch, just before it
#     exits, crashes or calls gasnet_exit) to the return of gasnetrun_ibv.
#     The wall time of the whole job is reported too; it includes start-up,
#     which a loaded machine can stretch;
#   - no process of the job is left once gasnetrun_ibv has returned (0.5 s
#     grace; processes are found by the harness's IBVTEST_TAG);
#   - no /dev/shm object of the job (gasnet-ibv-<launcher pid>-..., the
#     names of shm_open objects, which core/pshm no longer makes: its
#     shared memory has no name) exists when gasnetrun_ibv returns, and
#     none appears within 0.5 s more;
#   - the job's exit code is CODE (checked here, not by the harness: the
#     harness reads 137, a rank killed by SIGKILL, as its own timeout);
#   - every -o REGEX (grep -E) occurs in the output, no -x REGEX does.
# Exit status: 0 when every check passed, else 99 (after FAIL lines).
# The last line is a summary for the report table:
#   exit-case MODE: exit code C, exit E s, wall W s, exit timeout T s (N ranks)
set -u

must=()
mustnot=()
expect=
while [ $# -gt 0 ]; do
    case $1 in
    -e) expect=$2; shift 2 ;;
    -o) must+=("$2"); shift 2 ;;
    -x) mustnot+=("$2"); shift 2 ;;
    --) shift; break ;;
    -*) echo "run-case.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -ne 3 ] || [ -z "$expect" ]; then
    echo "usage: run-case.sh -e CODE [-o REGEX]... [-x REGEX]... NPROCS PROGRAM MODE" >&2
    exit 2
fi
np=$1 prog=$2 mode=$3
builddir=${TEST_BUILDDIR:-.}
launcher=${TEST_LAUNCHER:-$builddir/gasnetrun_ibv}
case $prog in /*) ;; *) prog=$builddir/$prog ;; esac

# The exit timeout, computed as the library does (bootstrap/bootstrap.c).
if [ -n "${GASNET_EXITTIMEOUT:-}" ]; then
    tmo=$GASNET_EXITTIMEOUT
else
    tmo=$(awk -v n="$np" -v mx="${GASNET_EXITTIMEOUT_MAX:-360}" \
        -v mn="${GASNET_EXITTIMEOUT_MIN:-2}" -v f="${GASNET_EXITTIMEOUT_FACTOR:-0.25}" \
        'BEGIN { t = mn + f * n; if (t > mx) t = mx; print t }')
fi

log=$(mktemp "${TMPDIR:-/tmp}/exit-case.XXXXXX")
pidf=$(mktemp "${TMPDIR:-/tmp}/exit-case-pid.XXXXXX")
trap 'rm -f "$log" "$pidf"' EXIT
t0=$EPOCHREALTIME
# In the foreground (a background job would start with SIGQUIT ignored),
# through an exec that records the launcher's pid (job_shm below).
"${BASH:-bash}" -c 'echo $$ >"$0" && exec "$@"' "$pidf" "$launcher" -n "$np" "$prog" "$mode" >"$log" 2>&1 </dev/null
rc=$?
t1=$EPOCHREALTIME
lpid=$(cat "$pidf")
# This job's shared-memory objects, by name (other jobs' do not count).
job_shm() {
    local f out=
    for f in /dev/shm/gasnet-ibv-"$lpid"-*; do
        [ -e "$f" ] && out="$out ${f#/dev/shm/}"
    done
    echo "${out# }"
}
shm_at_return=$(job_shm)
cat "$log"
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
start=$(sed -n 's/.*exit-start \([0-9][0-9]*\.[0-9]*\).*/\1/p' "$log" | sort -n | head -n 1)

fail=0
fail() {
    echo "FAIL exit-case $mode: $*"
    fail=1
}

[ "$rc" = "$expect" ] || fail "exit code $rc, expected $expect"
if [ -z "$start" ]; then
    fail "no exit-start line in the output"
    start=$t0
fi
took=$(awk -v a="$start" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
if awk -v w="$took" -v t="$tmo" 'BEGIN { exit !(w >= t) }'; then
    fail "the exit took ${took} s, not under the exit timeout ${tmo} s"
fi

# Processes of the job still alive (the harness's tag), except this script,
# its subshells and its ancestors (the harness's timeout(1)).
ancestors=" "
a=$PPID
while [ -n "$a" ] && [ "$a" -gt 1 ] 2>/dev/null; do
    ancestors="$ancestors$a "
    a=$(awk '{ print $4 }' "/proc/$a/stat" 2>/dev/null)
done
if [ -n "${IBVTEST_TAG:-}" ]; then
    left=
    for _ in 1 2 3 4 5; do
        # The scan runs without the tag; drop this script and its subshells.
        left=$(env -u IBVTEST_TAG TAG="$IBVTEST_TAG" ME=$$ bash -c \
            'grep -lzx -- "IBVTEST_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null |
             sed -e "s#^/proc/##" -e "s#/environ\$##" | grep -vx -- "$ME"')
        kept=
        for p in $left; do
            pp=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || continue
            case $ancestors in *" $p "*) continue ;; esac
            [ "$pp" = "$$" ] || [ -z "$pp" ] || kept="$kept $p"
        done
        left=${kept# }
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -z "$left" ] || fail "processes still running after gasnetrun_ibv returned: $left"
fi

# No object of the job exists when gasnetrun_ibv returns, nor appears later
# (a process of the job that outlived the launcher); checked after the wait
# above (at least 0.5 s in all).
sleep 0.5
shm_later=$(job_shm)
[ -z "$shm_at_return" ] || fail "/dev/shm objects of the job left when gasnetrun_ibv returned: $shm_at_return"
[ -z "$shm_later" ] || [ "$shm_later" = "$shm_at_return" ] ||
    fail "/dev/shm objects of the job appeared after gasnetrun_ibv returned: $shm_later"

for re in ${must[@]+"${must[@]}"}; do
    grep -Eq -- "$re" "$log" || fail "output lacks /$re/"
done
for re in ${mustnot[@]+"${mustnot[@]}"}; do
    if grep -Eq -- "$re" "$log"; then fail "output has /$re/"; fi
done

echo "exit-case $mode: exit code $rc, exit $took s, wall $wall s, exit timeout $tmo s ($np ranks)"
[ $fail = 0 ] || exit 99
exit 0
