#!/usr/bin/env bash
# contrib/busy-run.sh: runs the README's test command (or COMMAND) on a busy
# machine: HOGS plain busy loops (default 2) run beside it for its whole
# length and are stopped when it ends, however it ends.  Use it once per
# change of the test harness (tests/harness, tests/softroce, test-all.sh):
# every test's timeout must hold on a loaded machine, not just a quiet one.
#
#   contrib/busy-run.sh [-j HOGS] [COMMAND [ARG...]]
#
# Prints the command's output, then one line with the wall time and the load
# average seen at the end; exits with the command's status.
set -u
cd "$(dirname "$0")/.."
hogs=2
if [ "${1:-}" = -j ]; then
    case ${2:-} in '' | *[!0-9]*) echo "usage: $0 [-j HOGS] [COMMAND [ARG...]]" >&2; exit 2 ;; esac
    hogs=$2
    shift 2
fi
[ $# -gt 0 ] || set -- contrib/test-all.sh
pids=()
stop_hogs() {
    [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    pids=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$hogs"); do
    ( exec 0</dev/null; while :; do :; done ) &
    pids+=($!)
done
t0=$(date +%s)
"$@"
rc=$?
load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_hogs
echo "busy-run: '$*' exit $rc after $(( $(date +%s) - t0 )) s beside $hogs busy loops (load average $load)"
exit $rc
