#!/bin/bash
# tests/softroce/faults.sh: faults on the verbs wire (issue 19 item 4), run
# inside the Soft-RoCE guest: it sets the netdev under rxe0 down and up, so
# it refuses to run anywhere else (SKIP).
#
#   softroce-run -t 3000 -- tests/softroce/faults.sh [-b BUILDDIR] [--cycles N] [--cases LIST]
#
# Every job has 2 processes with PSHM off (every byte crosses rxe0).  Cases
# (LIST: comma-separated, default all):
#   flap-idle   tests/integration/relia/wirefault idle: the port goes down
#               for FAULT_DOWN s (default 0.5) and up while both ranks sleep
#               without any verbs traffic; then 2000 checked round trips.
#               Must PASS: RC absorbs a flap during which nothing is sent.
#               First the same job without a flap (FAULT_REFERENCE=0: not),
#               for the round-trip time.
#   flap-flood  N flap cycles (default 100) during am-flood (FAULT_FLOOD_N
#               checked Requests per direction, default 100,000),
#               FAULT_FLAPS_PER_JOB per job (default 1), each once rxe0 has
#               sent FAULT_FLOOD_PKTS packets (default 20000) since the job
#               started or the last link-up.  With link-flap recovery (the
#               default) every job must pass with its data checked; with
#               FAULT_RECOVERY=0 (GASNET_RECONNECT_TIMEOUT=0) it must end
#               with a line naming the peer ("dest=(rank:" / "src=(rank:")
#               and the port ("port=").  Reports the recovery times the
#               ranks print (min/median/max).
#   flap-par    the same as flap-flood in the PAR library: am-flood-par
#               (FAULT_PAR_THREADS sender threads per rank, default 4) with
#               a receive progress thread (GASNET_RCV_THREAD=1) over
#               FAULT_PAR_QPS QPs per peer (GASNET_NUM_QPS, default 2), so
#               that failed completions, parked posts, reposts on one QP
#               while another still completes, and the re-establishment
#               race between client threads and the progress thread.
#   flap-rma    the same with wirefault rmaloop FAULT_RMA_SECONDS (default
#               60): 1 MiB puts and gets both ways, every byte checked.
#   flap-long   the link down FAULT_LONG_DOWN s (default 60) during a flood:
#               the job must end non-zero naming peer and port.
#   kill-put    tests/integration/relia/wirefault putloop: rank 0 puts
#               16 MiB into rank 1 back to back; once it printed that the
#               loop runs (it is then always inside a 16 MiB put), rank 1 is
#               SIGKILLed.  The job must end with 137 and the launcher's
#               line naming rank 1 and SIGKILL, even when rank 0's put
#               fails first and it aborts with 1 (the death by a signal
#               wins: contrib/launcher/README "Exit semantics"); reports
#               when rank 0 and the launcher were gone, counted from the
#               kill.
#   qp-error    am-flood with GASNET_TEST_QP_ERROR=20000 (a test-only
#               parameter: rank 0 moves its QP to the error state at its
#               20000th send completion; rank 1 notices nothing).  The job
#               must pass with data checked (FAULT_RECOVERY=0: end non-zero
#               with a line naming the peer and the port).
# After every job: no /dev/shm/gasnet-ibv-* entry and no process of the job
# left (each job carries a unique FAULT_TAG variable).  One line per case
# (PASS/FAIL), exit 0 if every case holds.  make check runs a bounded set
# (tests/softroce/verbs.d/faults.manifest).  FAULT_LOG=DIR keeps the outputs;
# FAULT_GASNET="GASNET_NUM_QPS=2 ..." adds settings to every job.
set -u
BUILD=${TEST_BUILDDIR:-$PWD}
CYCLES=100
CASES=flap-idle,flap-flood,flap-par,flap-rma,flap-long,kill-put,qp-error
while [ $# -gt 0 ]; do
    case $1 in
    -b) BUILD=$2; shift 2 ;;
    --cycles) CYCLES=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    *) echo "usage: faults.sh [-b BUILDDIR] [--cycles N] [--cases LIST]" >&2; exit 2 ;;
    esac
done
[ "${SOFTROCE_GUEST:-}" = 1 ] ||
    { echo "SKIP: faults.sh sets the rxe netdev down: it runs only in the Soft-RoCE guest (softroce-run)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: faults.sh needs root"; exit 77; }
[ "${SOFTROCE_NET:-}" = dummy ] ||
    { echo "SKIP: faults.sh runs in the dummy layout only (this is ${SOFTROCE_NET:-unknown})"; exit 77; }
NETDEV=${SOFTROCE_NETDEVS%% *}
DEV=${SOFTROCE_RXE_DEVS%% *}
[ -n "$NETDEV" ] && [ -n "$DEV" ] || { echo "SKIP: no rxe netdev"; exit 77; }
for p in tests/integration/verbs/am-flood tests/integration/verbs/am-flood-par \
    tests/integration/relia/wirefault gasnetrun_ibv; do
    [ -x "$BUILD/$p" ] || { echo "SKIP: $BUILD/$p not built (make check builds it)"; exit 77; }
done
for v in $(compgen -e | grep '^GASNET_'); do unset "$v"; done
export GASNET_SUPERNODE_MAXSIZE=1
# FAULT_GASNET="GASNET_X=v ...": settings for every job (e.g. GASNET_NUM_QPS=2).
for kv in ${FAULT_GASNET:-}; do
    case $kv in GASNET_*=*) export "$kv" ;; *) echo "faults.sh: FAULT_GASNET entry '$kv' is not GASNET_NAME=VALUE" >&2; exit 2 ;; esac
done
# Link-flap recovery is on unless FAULT_RECOVERY=0 (GASNET_RECONNECT_TIMEOUT=0):
# with it every flapped job must pass with its data checked.
RECOVERY=1
[ "${FAULT_RECOVERY:-1}" = 0 ] && { RECOVERY=0; export GASNET_RECONNECT_TIMEOUT=0; }
LOG=${FAULT_LOG:-$(mktemp -d /tmp/faults.XXXXXX)}
mkdir -p "$LOG"
FAILS=0

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
children() { awk -v pp="$1" '$4 == pp { print $1 }' /proc/[0-9]*/stat 2>/dev/null; }
tag_pids() { grep -lzx -- "FAULT_TAG=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }
rank_pid() { # $1 tag, $2 rank
    local p
    for p in $(tag_pids "$1"); do
        grep -qzx -- "GASNETRUN_RANK=$2" "/proc/$p/environ" 2>/dev/null && { echo "$p"; return; }
    done
}
pkts() { cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/sent_pkts" 2>/dev/null || echo 0; }

# Leftovers of job $1 after it ended: processes and /dev/shm entries.
leftovers() {
    local left shm
    sleep 0.5
    left=$(tag_pids "$1" | tr '\n' ' ')
    shm=$(ls /dev/shm 2>/dev/null | grep '^gasnet-ibv-' | tr '\n' ' ')
    [ -n "$left" ] && { kill -9 $left 2>/dev/null; echo "processes left: $left"; }
    [ -n "$shm" ] && { rm -f /dev/shm/gasnet-ibv-*; echo "/dev/shm left: $shm"; }
}

# Starts one job in the background: $1 tag, $2 timeout, rest: program + args.
# JOB is the pid of timeout(1); the launcher is its child.
start_job() {
    local tag=$1 t=$2; shift 2
    (cd "$BUILD" && exec env FAULT_TAG="$tag" timeout --kill-after=5 "$t" ./gasnetrun_ibv -n 2 "$@") \
        >"$LOG/$tag.out" 2>&1 &
    JOB=$!
}

# Waits until $1 returns true, every 0.05 s, at most $2 s, while the job runs.
wait_for() {
    local end; end=$(awk -v n="$(now)" -v t="$2" 'BEGIN { printf "%.3f", n + t }')
    while ! eval "$1"; do
        kill -0 "$JOB" 2>/dev/null || return 1
        awk -v n="$(now)" -v e="$end" 'BEGIN { exit !(n > e) }' && return 1
        sleep 0.05
    done
}

port_active() {
    local st=/sys/class/infiniband/$DEV/ports/1/state
    for _ in $(seq 150); do
        grep -q ACTIVE "$st" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "  port $DEV:1 not ACTIVE 30 s after link up"
    return 1
}

flap() { ip link set "$NETDEV" down; sleep "${FAULT_DOWN:-0.5}"; ip link set "$NETDEV" up; }

# A job that did not pass must have named the peer and the port on one line.
peer_port_line() { grep -E '(dest|src)=\(rank:[0-9]+' "$1" | grep -E 'port=[0-9]' | grep -v 'fault injected' | head -n 1; }

# Reports a case: $1 verdict (0 = PASS), rest: text.
verdict() {
    local ok=$1; shift
    if [ "$ok" = 0 ]; then echo "PASS $*"; else echo "FAIL $*"; FAILS=$((FAILS + 1)); fi
}

case_flap_idle() {
    local tag=flapidle ref=
    port_active || { verdict 1 "flap-idle: port not active"; return; }
    if [ "${FAULT_REFERENCE:-1}" = 1 ]; then # the same job without a flap, for the time
        start_job flapref 180 tests/integration/relia/wirefault idle 6
        wait "$JOB"
        ref="; without a flap (reference, same guest): $(grep -m1 -o 'round trips after the idle phase in [0-9.]* s' "$LOG/flapref.out" || echo "exit $?")"
        leftovers flapref
    fi
    start_job "$tag" 180 tests/integration/relia/wirefault idle 6
    if ! wait_for "grep -q idle-start '$LOG/$tag.out'" 120; then
        wait "$JOB"; verdict 1 "flap-idle: the job never reached its idle phase"
        tail -n 5 "$LOG/$tag.out" | sed 's/^/    /'; return
    fi
    local t0; t0=$(now)
    flap
    wait "$JOB"; local rc=$? left
    left=$(leftovers "$tag")
    local ok=1
    [ $rc = 0 ] && grep -q "PASS wirefault" "$LOG/$tag.out" && [ -z "$left" ] && ok=0
    verdict $ok "flap-idle: ${FAULT_DOWN:-0.5} s down while no verbs traffic: exit $rc, $(since "$t0") s after the link went down; $(grep -m1 -o '[0-9]* Medium round trips.*' "$LOG/$tag.out")$ref $left"
    [ $ok = 0 ] || tail -n 5 "$LOG/$tag.out" | sed 's/^/    /'
}

REC_TIMES= REC_UP=
# Recovery times ("re-established X s after its failure") of job output $1.
rec_times() { grep -o 're-established [0-9.]* s after' "$1" | awk '{ print $2 }' | tr '\n' ' '; }
# The part after the port was ACTIVE again (the handshake and the reposts).
rec_after_up() { grep -o 's after its failure, [0-9.]* s after its ports' "$1" | awk '{ print $5 }' | tr '\n' ' '; }
stats_of() { # min/median/max of the numbers in $*
    [ $# -gt 0 ] || { echo "none"; return; }
    echo "$@" | tr ' ' '\n' | grep . | sort -n |
        awk '{ v[NR] = $1 } END { printf "min %.2f s, median %.2f s, max %.2f s (%d)", v[1], v[int((NR + 1) / 2)], v[NR], NR }'
}

# Flaps the port of running job $JOB up to $1 times, each once rxe0 has sent
# FAULT_FLOOD_PKTS packets since the job started or the previous link-up
# (traffic flows again: the connection was re-established).  FLAPS: done.
flap_job() {
    local want=$1 k p0
    FLAPS=0
    for k in $(seq "$want"); do
        p0=$(pkts)
        wait_for "[ \$((\$(pkts) - $p0)) -ge ${FAULT_FLOOD_PKTS:-20000} ]" 240 || return
        flap
        FLAPS=$((FLAPS + 1))
        port_active || return
    done
}

# N flap cycles (--cycles) over jobs of "$@" (FAULT_FLAPS_PER_JOB flaps
# each, default 1): every job must pass with its data checked (recovery
# on), or end naming peer and port (FAULT_RECOVERY=0).  $1: case name,
# $2: the PASS line's program name, rest: program and arguments.
flap_cases() {
    local name=$1 prog=$2; shift 2
    local n=0 cycles=0 passed=0 ended=0 bad=0 times= per=${FAULT_FLAPS_PER_JOB:-1}
    while [ $cycles -lt "$CYCLES" ]; do
        n=$((n + 1))
        local tag=$name$n want=$((CYCLES - cycles))
        [ $want -gt "$per" ] && want=$per
        port_active || { bad=$((bad + 1)); break; }
        start_job "$tag" 600 "$@"
        local t0; t0=$(now)
        flap_job "$want"
        cycles=$((cycles + FLAPS))
        wait "$JOB"; local rc=$? t; t=$(since "$t0")
        local left line rt
        left=$(leftovers "$tag")
        line=$(peer_port_line "$LOG/$tag.out")
        rt=$(rec_times "$LOG/$tag.out"); REC_TIMES="$REC_TIMES $rt"
        REC_UP="$REC_UP $(rec_after_up "$LOG/$tag.out")"
        if [ $FLAPS = 0 ]; then
            bad=$((bad + 1))
            echo "  job $n: exit $rc before its traffic was under way"
            tail -n 5 "$LOG/$tag.out" | sed 's/^/    /'
            [ $n -gt $((CYCLES + 3)) ] && break
        elif [ $rc = 0 ] && grep -q "PASS $prog" "$LOG/$tag.out"; then
            passed=$((passed + 1))
            echo "  job $n: $FLAPS flap(s), passed with data checked; recovery times: ${rt:-none (no QP failed)}"
        elif [ $RECOVERY = 0 ] && [ $rc != 124 ] && [ $rc != 137 ] && [ -n "$line" ]; then
            ended=$((ended + 1)); times="$times $t"
            echo "  job $n: exit $rc: ${line#*FATAL ERROR }"
        else
            bad=$((bad + 1))
            echo "  job $n: $FLAPS flap(s), exit $rc after $t s:"
            tail -n 8 "$LOG/$tag.out" | sed 's/^/    /'
            echo "    rxe counters: $(cd "/sys/class/infiniband/$DEV/ports/1/hw_counters" 2>/dev/null && grep -v '^0$' -- * 2>/dev/null | tr '\n' ' ')"
        fi
        [ -n "$left" ] && { bad=$((bad + 1)); echo "  job $n: $left"; }
    done
    local extra="; recovery (QP failure to connection usable) $(stats_of $REC_TIMES), of which after the port was ACTIVE again $(stats_of $REC_UP)"
    [ $RECOVERY = 0 ] && extra="; $ended ended naming peer and port (recovery off)"
    verdict $bad "$name: $cycles flap(s) of ${FAULT_DOWN:-0.5} s over $n job(s): $passed passed with data checked, $bad wrong$extra"
    REC_TIMES= REC_UP=
}

case_flap_flood() { flap_cases flap-flood am-flood tests/integration/verbs/am-flood "${FAULT_FLOOD_N:-100000}"; }
case_flap_par() {
    GASNET_RCV_THREAD=1 GASNET_NUM_QPS=${GASNET_NUM_QPS:-${FAULT_PAR_QPS:-2}} flap_cases flap-par am-flood tests/integration/verbs/am-flood-par \
        "${FAULT_FLOOD_N:-100000}" "${FAULT_PAR_THREADS:-4}"
}
case_flap_rma() { flap_cases flap-rma wirefault tests/integration/relia/wirefault rmaloop "${FAULT_RMA_SECONDS:-60}"; }

# One flap longer than the recovery window (FAULT_LONG_DOWN, default 60 s):
# the job must end non-zero naming peer and port (not hang, not pass).
case_flap_long() {
    local tag=flaplong
    port_active || { verdict 1 "flap-long: port not active"; return; }
    local p0; p0=$(pkts)
    start_job "$tag" 300 tests/integration/verbs/am-flood "${FAULT_FLOOD_N:-100000}"
    if ! wait_for "[ \$((\$(pkts) - $p0)) -ge ${FAULT_FLOOD_PKTS:-20000} ]" 240; then
        wait "$JOB"; verdict 1 "flap-long: exit $? before the flood was under way"; return
    fi
    local t0; t0=$(now)
    ip link set "$NETDEV" down
    local i
    for i in $(seq $((${FAULT_LONG_DOWN:-60} * 10))); do
        kill -0 "$JOB" 2>/dev/null || break
        sleep 0.1
    done
    local t_end; t_end=$(since "$t0")
    ip link set "$NETDEV" up
    wait "$JOB"; local rc=$? left line
    left=$(leftovers "$tag")
    line=$(peer_port_line "$LOG/$tag.out")
    local ok=1
    [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] && [ -n "$line" ] && [ -z "$left" ] && ok=0
    verdict $ok "flap-long: link down ${FAULT_LONG_DOWN:-60} s during an AM flood: exit $rc, job gone $t_end s after the link went down: ${line#*FATAL ERROR } $left"
    [ $ok = 0 ] || tail -n 8 "$LOG/$tag.out" | sed 's/^/    /'
}

# Polls until pid $1 is gone (at most 120 s); prints seconds since $2.
gone_after() {
    local i
    for i in $(seq 2400); do
        kill -0 "$1" 2>/dev/null || { since "$2"; return; }
        sleep 0.05
    done
    echo "still-running"
}

case_kill_put() {
    local tag=killput
    port_active || { verdict 1 "kill-put: port not active"; return; }
    start_job "$tag" 300 tests/integration/relia/wirefault putloop 1000000
    if ! wait_for "grep -q putloop-running '$LOG/$tag.out'" 180; then
        wait "$JOB"; verdict 1 "kill-put: the put loop never started"
        tail -n 5 "$LOG/$tag.out" | sed 's/^/    /'; return
    fi
    local launcher r0 r1
    launcher=$(children "$JOB" | head -n 1); r0=$(rank_pid "$tag" 0); r1=$(rank_pid "$tag" 1)
    sleep 0.5
    local t0; t0=$(now)
    kill -9 "$r1"
    local t_r0 t_l
    t_r0=$(gone_after "$r0" "$t0")
    t_l=$(gone_after "$launcher" "$t0")
    wait "$JOB"; local rc=$? left
    left=$(leftovers "$tag")
    local ok=1
    # 137 and the launcher's line, whichever of the kill and rank 0's
    # failed put the launcher hears of first.
    [ -z "$left" ] && [ $rc = 137 ] &&
        grep -q "gasnetrun_ibv: rank 1 (pid [0-9]*) was killed by signal SIGKILL" "$LOG/$tag.out" && ok=0
    verdict $ok "kill-put: rank 1 SIGKILLed during 16 MiB puts ($(grep -m1 -o 'one 16 MiB put took [0-9.]* s' "$LOG/$tag.out")): exit $rc; rank 0 gone after $t_r0 s, launcher after $t_l s; $(grep -m1 SIGKILL "$LOG/$tag.out" || peer_port_line "$LOG/$tag.out") $left"
    [ $ok = 0 ] || tail -n 8 "$LOG/$tag.out" | sed 's/^/    /'
}

case_qp_error() {
    local tag=qperror
    port_active || { verdict 1 "qp-error: port not active"; return; }
    start_job "$tag" 300 env GASNET_TEST_QP_ERROR=20000 tests/integration/verbs/am-flood "${FAULT_FLOOD_N:-100000}"
    if ! wait_for "grep -q 'fault injected' '$LOG/$tag.out'" 200; then
        wait "$JOB"; verdict 1 "qp-error: the fault was never injected (exit $?)"
        tail -n 5 "$LOG/$tag.out" | sed 's/^/    /'; return
    fi
    local t0; t0=$(now)
    wait "$JOB"; local rc=$? t; t=$(since "$t0")
    local left line
    left=$(leftovers "$tag")
    line=$(peer_port_line "$LOG/$tag.out")
    local ok=1
    if [ $RECOVERY = 1 ]; then
        [ $rc = 0 ] && grep -q "PASS am-flood" "$LOG/$tag.out" && [ -z "$left" ] && ok=0
        line="recovery times: $(rec_times "$LOG/$tag.out")"
    else
        [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] && [ -n "$line" ] && [ -z "$left" ] && ok=0
    fi
    verdict $ok "qp-error: exit $rc, $t s after the injection: ${line#*FATAL ERROR } $left"
    [ $ok = 0 ] || tail -n 8 "$LOG/$tag.out" | sed 's/^/    /'
}

ip link set "$NETDEV" up
for c in ${CASES//,/ }; do
    case $c in
    flap-idle) case_flap_idle ;;
    flap-flood) case_flap_flood ;;
    flap-par) case_flap_par ;;
    flap-rma) case_flap_rma ;;
    flap-long) case_flap_long ;;
    kill-put) case_kill_put ;;
    qp-error) case_qp_error ;;
    *) echo "faults.sh: unknown case '$c' (flap-idle, flap-flood, flap-par, flap-rma, flap-long, kill-put, qp-error)" >&2; exit 2 ;;
    esac
    ip link set "$NETDEV" up
done
echo "faults: $FAILS case(s) failed (outputs in $LOG)"
[ $FAILS = 0 ]
