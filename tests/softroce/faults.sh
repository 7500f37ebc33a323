#!/bin/bash
# tests/softroce/faults.sh: faults on the verbs wire, run inside the
# Soft-RoCE guest (needs root: it sets the rxe netdev down and up).
#
#   softroce-run -t 1500 -- tests/softroce/faults.sh [-b BUILDDIR] [--cycles N]
#
# Cases (2 processes, PSHM off so every byte crosses rxe):
#   flap-am   tests/integration/am-payload in a loop while the netdev under
#             rxe0 goes down and up N times (default 100; 0.3 s down, 0.3 s
#             up).  Each job must either pass (its data checks all hold)
#             or end within its timeout with a line naming the peer and the
#             port.
#   kill-put  tests/integration/rmav/rmav-sizes --max 4K --big 16M; one rank
#             is SIGKILLed 2 s after start, when its 16 MiB puts are under
#             way: the job must end within the exit timeout with code 137
#             and name the dead rank.
# Status (first runs, TCG guest): flap-am works; kill-put does not yet hit
# the 16 MiB phase reliably (rank start-up under TCG takes ~9 s; the kill
# landed at the end of the job, which then exited 0): tune FAULT_KILL_DELAY
# or kill on a progress line before relying on it.
# After every job: no /dev/shm/gasnet-ibv-* entry and no process of the job
# left (each job carries a unique FAULT_TAG variable).  Prints one line per
# case with the outcome and the time to it; exit 0 if every case holds.
set -u
BUILD=$PWD
CYCLES=100
while [ $# -gt 0 ]; do
    case $1 in
    -b) BUILD=$2; shift 2 ;;
    --cycles) CYCLES=$2; shift 2 ;;
    *) echo "usage: faults.sh [-b BUILDDIR] [--cycles N]" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "SKIP: faults.sh needs root (run it in the guest: softroce-run)"; exit 77; }
NETDEV=${SOFTROCE_NETDEVS%% *}
[ -n "$NETDEV" ] || { echo "SKIP: no rxe netdev (SOFTROCE_NETDEVS unset: not in the guest)"; exit 77; }
for v in $(compgen -e | grep '^GASNET_'); do unset "$v"; done
export GASNET_SUPERNODE_MAXSIZE=1
LOG=$(mktemp -d /tmp/faults.XXXXXX)
FAILS=0

# PIDs whose parent is $1.
children() { awk -v pp="$1" '$4 == pp { print $1 }' /proc/[0-9]*/stat 2>/dev/null; }

tag_pids() { grep -lzx -- "FAULT_TAG=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }

# Leftovers of job $1 after it ended: processes and /dev/shm entries.
leftovers() {
    local left shm
    sleep 1
    left=$(tag_pids "$1" | tr '\n' ' ')
    shm=$(ls /dev/shm 2>/dev/null | grep '^gasnet-ibv-' | tr '\n' ' ')
    [ -n "$left" ] && { kill -9 $left 2>/dev/null; echo "processes left: $left"; }
    [ -n "$shm" ] && { rm -f /dev/shm/gasnet-ibv-*; echo "/dev/shm left: $shm"; }
}

# Runs one job in the background: $1 tag, $2 timeout, rest: program + args.
start_job() {
    local tag=$1 t=$2; shift 2
    (cd "$BUILD" && exec env FAULT_TAG="$tag" timeout --kill-after=5 "$t" ./gasnetrun_ibv -n 2 "$@") \
        >"$LOG/$tag.out" 2>&1 &
    JOB=$!
}

# Waits (at most 30 s) until rxe0's port is ACTIVE again after a link up,
# so that each job starts on a working port and meets the faults mid-run.
port_active() {
    local st=/sys/class/infiniband/${SOFTROCE_RXE_DEVS%% *}/ports/1/state
    for _ in $(seq 150); do
        grep -q ACTIVE "$st" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "  port of ${SOFTROCE_RXE_DEVS%% *} not ACTIVE 30 s after link up"
    return 1
}

# A job that did not pass must have said who and where.
names_peer_port() { grep -Eiq "rank [0-9]+.*(port|rxe0|$NETDEV)|(port|rxe0).*rank [0-9]+" "$1"; }

case_flap() {
    local t0=$SECONDS n=0 jobs=0 passed=0 ended=0 bad=0 i=0
    while [ $n -lt "$CYCLES" ]; do
        jobs=$((jobs + 1))
        local tag=flap$jobs j0=$SECONDS
        port_active || { bad=$((bad + 1)); break; }
        start_job "$tag" 120 tests/integration/am-payload
        while kill -0 "$JOB" 2>/dev/null && [ $n -lt "$CYCLES" ]; do
            sleep 0.3; ip link set "$NETDEV" down; sleep 0.3; ip link set "$NETDEV" up
            n=$((n + 1))
        done
        wait "$JOB"; local rc=$?
        local left; left=$(leftovers "$tag")
        if [ $rc = 0 ] && grep -q PASS "$LOG/$tag.out"; then
            passed=$((passed + 1))
        elif [ $rc != 124 ] && [ $rc != 137 ] && names_peer_port "$LOG/$tag.out"; then
            ended=$((ended + 1))
            echo "  job $jobs: exit $rc after $((SECONDS - j0)) s: $(grep -E 'FATAL|ERROR' "$LOG/$tag.out" | head -n 1)"
        else
            bad=$((bad + 1))
            echo "  job $jobs: exit $rc after $((SECONDS - j0)) s without naming peer and port:"
            tail -n 5 "$LOG/$tag.out" | sed 's/^/    /'
        fi
        [ -n "$left" ] && { bad=$((bad + 1)); echo "  job $jobs: $left"; }
        i=$((i + 1))
    done
    local verdict=PASS; [ $bad = 0 ] || { verdict=FAIL; FAILS=$((FAILS + 1)); }
    echo "$verdict flap-am: $n down/up cycles over $jobs jobs: $passed passed with data checked, $ended ended naming peer and port, $bad wrong ($((SECONDS - t0)) s)"
}

case_kill_put() {
    local tag=killput t0=$SECONDS
    # Small sizes up to 4 KiB take about a second, then the 16 MiB puts and
    # gets take seconds under TCG: kill a rank FAULT_KILL_DELAY (default 2) s
    # after both ranks are up.
    start_job "$tag" 300 tests/integration/rmav/rmav-sizes --max 4K --big 16M
    local pids= launcher=
    for _ in $(seq 300); do
        # The ranks: children of gasnetrun_ibv, the child of timeout ($JOB).
        launcher=$(children "$JOB" | head -n 1)
        pids=$([ -n "$launcher" ] && children "$launcher")
        [ "$(echo "$pids" | grep -c .)" -ge 2 ] && break
        kill -0 "$JOB" 2>/dev/null || break
        sleep 0.1
    done
    sleep "${FAULT_KILL_DELAY:-2}"
    echo "  kill-put: rank processes $(echo $pids) after $((SECONDS - t0)) s"
    local victim; victim=$(echo "$pids" | tail -n 1)
    local k0=$SECONDS
    [ -n "$victim" ] && kill -9 "$victim"
    wait "$JOB"; local rc=$?
    local left; left=$(leftovers "$tag")
    if [ $rc = 137 ] && grep -q "SIGKILL" "$LOG/$tag.out" && [ -z "$left" ]; then
        echo "PASS kill-put: rank pid $victim SIGKILLed, job ended with 137 after $((SECONDS - k0)) s: $(grep -m1 SIGKILL "$LOG/$tag.out")"
    else
        FAILS=$((FAILS + 1))
        echo "FAIL kill-put: exit $rc $((SECONDS - k0)) s after the kill (victim ${victim:-none}) $left"
        tail -n 8 "$LOG/$tag.out" | sed 's/^/    /'
    fi
}

ip link set "$NETDEV" up
case_flap
ip link set "$NETDEV" up
case_kill_put
echo "faults: $FAILS case(s) failed"
[ $FAILS = 0 ]
