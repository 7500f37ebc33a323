# tests/spawn/signal-check.sh: sourced by mpi-spawn.sh and ssh-spawn.sh.
#
# signal_check NAME SIGNAL EXPECT N TAG -- COMMAND...
#   Runs COMMAND (a launcher starting N ranks that print "sleeping" and
#   sleep) in the background with its output in $out, waits up to 30 s for
#   N "sleeping" lines, sends SIGNAL to the launcher (or, when the caller
#   sets signal_target=FUNCTION, to the pid FUNCTION TAG prints), waits up to 20 s for it
#   to end (then SIGKILL), and reports through the caller's ok/bad: the exit
#   code must be EXPECT and no process carrying TAG may remain (the caller's
#   leftovers TAG).  Needs the caller's ok, bad, count, leftovers and $out.
signal_check() {
    local name=$1 sig=$2 expect=$3 n=$4 tag=$5 i code pid why=
    shift 6
    "$@" >"$out" 2>&1 </dev/null &
    pid=$!
    exec 3>&2 2>/dev/null # no "Killed" notice from bash about the launcher
    for i in $(seq 1 300); do
        [ "$(count "sleeping")" -ge "$n" ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    local target=$pid
    [ -n "${signal_target:-}" ] && target=$("$signal_target" "$tag")
    [ -n "$target" ] || why="no process to signal (${signal_target:-})"
    [ -n "$target" ] && kill -"$sig" "$target" 2>/dev/null
    for i in $(seq 1 200); do
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL $pid 2>/dev/null
    wait $pid
    code=$?
    exec 2>&3 3>&-
    [ "$code" = "$expect" ] || why="${why:+$why; }exit code $code, expected $expect"
    if ! leftovers "$tag" >>"$out"; then why="${why:+$why; }processes left after the job"; fi
    if [ -n "$why" ]; then bad "$name: $why"; else ok "$name"; fi
}
