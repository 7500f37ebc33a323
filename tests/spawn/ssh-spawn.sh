#!/usr/bin/env bash
# tests/spawn/ssh-spawn.sh: the ssh spawner end to end, over a throw-away
# sshd on 127.0.0.1 (tests/spawn/sshd.sh) that this script starts with a
# generated key and stops at the end.  "Hosts" are 127.0.0.1 listed several
# times: each entry gets its own gasnetrun_ibv node and ssh session.
#
#   ssh-spawn.sh [--quick]      (run from the build tree, or by run-tests)
#
# Checks: 4-process AM and RMA tests over 2 hosts; bootstrap collectives
# with data checks through a chain of nodes (GASNET_SSH_OUT_DEGREE=1);
# exit codes (gasnet_exit(3), a crash, a plain program's exit 5, exec
# failure 127); environment (-E, GASNET_*), working directory
# (GASNET_SSH_REMOTE_PATH), stdout and stderr forwarding; an unreachable
# host; -t; SIGINT, SIGTERM and SIGKILL to the launcher.  After every job no
# process may be left: neither a session of the sshd (nodes, ranks) nor any
# process carrying the job's tag variable (propagated with -E).
# Prints one line per check; exit 0 if all pass, 77 (SKIP) without sshd.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${TEST_BUILDDIR:-$(pwd)}
launcher=${TEST_LAUNCHER:-$build/gasnetrun_ibv}
quick=0
[ "${1:-}" = --quick ] && quick=1
# shellcheck source=tests/spawn/sshd.sh
. "$here/sshd.sh"

for p in "$launcher" "$build/tests/integration/am-args" "$build/tests/integration/rma-forms" \
    "$build/tests/integration/exitcode" "$build/tests/unit/bootstrap-child"; do
    [ -x "$p" ] || { echo "FAIL - not built: $p"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ssh-spawn.XXXXXX")
cleanup() {
    [ "$BASHPID" = "$$" ] || return 0 # only the script itself, never a subshell
    sshd_stop
    rm -rf "$work"
}
on_signal() {
    [ "$BASHPID" = "$$" ] || exit 1
    echo "ssh-spawn.sh: caught SIG$1; stopping" >&2
    exit $2
}
trap cleanup EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM
sshd_start "$work/sshd"
rc=$?
if [ $rc = 77 ]; then exit 77; fi
[ $rc = 0 ] || { echo "FAIL - could not start a test sshd"; exit 1; }

export GASNET_SSH_OPTIONS="$SSH_TEST_OPTIONS"
export GASNET_SSH_SERVERS="127.0.0.1 127.0.0.1"
unset GASNET_SSH_NODEFILE GASNET_NODEFILE GASNET_SSH_OUT_DEGREE GASNET_SSH_REMOTE_PATH
failures=0
out=$work/out

ok() { echo "ok - $*"; }
bad() {
    echo "FAIL - $*"
    failures=$((failures + 1))
    sed 's/^/    /' "$out" | tail -n 25
}

# PIDs of live processes whose environment holds SPAWNTEST_TAG=$1.
tagged() {
    grep -lzx -- "SPAWNTEST_TAG=$1" /proc/[0-9]*/environ 2>/dev/null |
        sed -e 's#^/proc/##' -e 's#/environ$##' || true
}

# Nothing of the job may remain: sshd sessions or tagged processes.
leftovers() { # tag
    local i s t
    for i in $(seq 1 40); do
        s=$(sshd_sessions)
        t=$(tagged "$1")
        [ -z "$s$t" ] && return 0
        sleep 0.25
    done
    echo "leftover processes:" $s $t
    for i in $s $t; do
        echo "  $i: $(tr '\0' ' ' </proc/"$i"/cmdline 2>/dev/null | cut -c1-100)"
    done
    # shellcheck disable=SC2086
    kill -KILL $s $t 2>/dev/null
    return 1
}

# job NAME EXPECT TIMEOUT [VAR=value ...] -- launcher args...
# EXPECT: an exit code or !0.  Sets $out, $code.
tagn=0
job() {
    local name=$1 expect=$2 tmo=$3
    shift 3
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    tagn=$((tagn + 1))
    local tag="sp-$$-$tagn"
    env SPAWNTEST_TAG="$tag" ${envs[@]+"${envs[@]}"} timeout -k 5 "$tmo" \
        "$launcher" -spawner=ssh -E SPAWNTEST_TAG "$@" >"$out" 2>&1 </dev/null
    code=$?
    local why=
    case $expect in
    '!0') [ "$code" != 0 ] || why="exit code 0, expected non-zero" ;;
    *) [ "$code" = "$expect" ] || why="exit code $code, expected $expect" ;;
    esac
    [ "$code" = 124 ] && why="timed out after $tmo s"
    if ! leftovers "$tag" >>"$out"; then why="${why:+$why; }processes left after the job"; fi
    if [ -n "$why" ]; then
        bad "$name: $why"
        return 1
    fi
    return 0
}

has() { grep -qF -- "$1" "$out"; }
count() { grep -cF -- "$1" "$out"; }

B=$build
# ---- jobs that must pass -----------------------------------------------------
job "am-args" 0 120 -- -n 4 "$B/tests/integration/am-args" &&
    { has "PASS am-args" && ok "4 ranks on 2 hosts: AM request/reply with 0..16 arguments, exit 0" ||
        bad "am-args: no PASS line"; }
job "rma" 0 180 -- -n 4 "$B/tests/integration/rma-forms" &&
    { has "PASS rma" && ok "4 ranks on 2 hosts: put/get 1 B..4 MiB, all forms, exit 0" ||
        bad "rma: no PASS line"; }
job "coll-hosts" 0 120 GASNET_TEST_HOSTS=2 -- -n 4 "$B/tests/unit/bootstrap-child" coll &&
    { [ "$(count "collectives ok")" = 4 ] &&
        ok "GASNET_TEST_HOSTS=2 reaches the ranks: host ids {0,1} and {2,3} (PSHM neighbourhoods)" ||
        bad "coll-hosts: host ids not split"; }
job "coll-tree" 0 120 GASNET_SSH_SERVERS="127.0.0.1 127.0.0.1 127.0.0.1" GASNET_SSH_OUT_DEGREE=1 \
    -- -n 5 "$B/tests/unit/bootstrap-child" coll &&
    { [ "$(count "collectives ok")" = 5 ] &&
        ok "a chain of 3 nodes (GASNET_SSH_OUT_DEGREE=1), 5 ranks: exchange/broadcast/alltoall/barrier data checked" ||
        bad "coll-tree: not every rank checked its collectives"; }

# A deep, wide tree without sshd: a fake remote shell that runs the command
# here (GASNET_SSH_CMD; not OpenSSH, so no -o options are added).
cat >"$work/fake-rsh" <<'FAKE'
#!/bin/sh
while [ $# -gt 2 ]; do shift; done
exec sh -c "$2"
FAKE
chmod +x "$work/fake-rsh"
H16="h0 h1 h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 h12 h13 h14 h15"
job "coll-16" 0 120 GASNET_SSH_CMD="$work/fake-rsh" GASNET_SSH_SERVERS="$H16" GASNET_SSH_OUT_DEGREE=2 \
    -- -n 16 "$B/tests/unit/bootstrap-child" coll &&
    { [ "$(count "collectives ok")" = 16 ] &&
        ok "16 hosts, out-degree 2 (GASNET_SSH_CMD=a fake remote shell): collectives through 4 levels of nodes" ||
        bad "coll-16: not every rank checked its collectives"; }

# GASNET_SSH_KEEPDIR: a fake remote shell whose "login" starts in
# $work/home; by default the ranks change to the launcher's directory, with
# GASNET_SSH_KEEPDIR=1 they stay where the login put them.
mkdir -p "$work/home"
cat >"$work/fake-rsh-home" <<FAKE
#!/bin/sh
while [ \$# -gt 2 ]; do shift; done
cd "$work/home" && exec sh -c "\$2"
FAKE
chmod +x "$work/fake-rsh-home"
job "keepdir-0" 0 60 GASNET_SSH_CMD="$work/fake-rsh-home" GASNET_SSH_SERVERS="h0 h1" \
    -- -n 2 /bin/sh -c 'echo "cwd=$(pwd)"' &&
    { [ "$(count "cwd=$(pwd)")" = 2 ] && ok "ranks run in the launcher's directory by default" ||
        bad "keepdir-0: ranks not in $(pwd)"; }
job "keepdir-1" 0 60 GASNET_SSH_CMD="$work/fake-rsh-home" GASNET_SSH_SERVERS="h0 h1" GASNET_SSH_KEEPDIR=1 \
    -- -n 2 /bin/sh -c 'echo "cwd=$(pwd)"' &&
    { [ "$(count "cwd=$work/home")" = 2 ] &&
        ok "GASNET_SSH_KEEPDIR=1: ranks stay in the directory their remote login starts in" ||
        bad "keepdir-1: ranks not in $work/home"; }

# ---- exit codes -------------------------------------------------------------------
job "exit3" 3 120 -- -n 4 "$B/tests/integration/exitcode" exit3 &&
    ok "rank 3 calls gasnet_exit(3) while the others wait in a barrier: the job exits 3"
job "crash" '!0' 120 -- -n 4 "$B/tests/integration/exitcode" crash &&
    { has "killed by signal SIGABRT" && ok "a rank dies of SIGABRT: exit $code, reported with its host" ||
        bad "crash: no report of the signal"; }
if [ $quick = 0 ]; then
    job "hello" 0 120 -- -n 4 "$B/tests/integration/exitcode" hello &&
        { [ "$(count goodbye-from-rank-)" = 4 ] &&
            ok "collective gasnet_exit(0): every rank's last line arrives, exit 0" ||
            bad "hello: missing goodbye lines"; }
fi
job "exit5" 5 60 -- -n 2 sh -c 'exit 5' && ok "a plain program's exit code 5 is the job's"
job "noexec" 127 60 -- -n 2 "$work/no-such-program" &&
    { has "cannot execute" && ok "a missing program: one message per host, exit 127" ||
        bad "noexec: no message"; }

# ---- environment, directory, output ----------------------------------------------
mkdir -p "$work/rundir"
job "env" 0 60 GASNET_SPAWNTEST_X=gx SPAWNTEST_VAR=ev GASNET_SSH_REMOTE_PATH="$work/rundir" \
    -- -n 2 -E SPAWNTEST_VAR sh -c 'echo "env:$GASNET_SPAWNTEST_X:$SPAWNTEST_VAR:$GASNET_IBV_SPAWNER:$(pwd):$GASNETRUN_RANK"; echo "to-stderr-$GASNETRUN_RANK" >&2' &&
    { [ "$(count "env:gx:ev:ssh:$work/rundir:")" = 2 ] && has "to-stderr-0" && has "to-stderr-1" &&
        ok "GASNET_* and -E variables, GASNET_SSH_REMOTE_PATH, stdout and stderr reach every rank" ||
        bad "env: variables, directory or output missing"; }

# ---- failures to reach a host ---------------------------------------------------------
job "unreachable" '!0' 90 GASNET_SSH_SERVERS="127.0.0.1 127.0.0.2" GASNET_BOOTSTRAP_TIMEOUT=60 \
    -- -n 4 "$B/tests/unit/bootstrap-child" coll &&
    { has "lost contact with host 127.0.0.2" && ok "an unreachable host: clear message, exit $code, the other host's ranks stopped" ||
        bad "unreachable: no 'lost contact' message"; }
job "dryrun" 0 30 GASNET_SSH_SERVERS="h0 h1 h2 h3 h4" GASNET_SSH_OUT_DEGREE=2 \
    -- -t -n 10 "$B/tests/unit/bootstrap-child" coll &&
    { [ "$(count "would run from")" = 5 ] && [ "$(count "would run from h0:")" = 2 ] &&
        [ "$(count "would run from h3:")" = 1 ] &&
        ok "-t prints the spawn tree (5 hosts, out-degree 2) and runs nothing" ||
        bad "dryrun: unexpected plan"; }

# ---- signals to the launcher ---------------------------------------------------------
# signal_job NAME SIGNAL EXPECT MODE [N]: start N (4) sleeping ranks, signal
# the launcher once all are up, check the exit code and that nothing remains.
# shellcheck source=tests/spawn/signal-check.sh
. "$(dirname "$0")/signal-check.sh"
signal_job() {
    local mode=$4 n=${5:-4}
    tagn=$((tagn + 1))
    local tag="sp-$$-$tagn"
    signal_check "$1" "$2" "$3" "$n" "$tag" -- env SPAWNTEST_TAG="$tag" "$launcher" -spawner=ssh \
        -E SPAWNTEST_TAG -n "$n" "$B/tests/unit/bootstrap-child" "$mode"
}
signal_job "SIGINT to the launcher: exit 130, no process left on any host" INT 130 sleep
signal_job "SIGTERM to the launcher, ranks ignoring SIGTERM: SIGKILL follows, exit 143, nothing left" \
    TERM 143 sleep-noterm
signal_job "SIGKILL to the launcher: every node and rank goes away" KILL 137 sleep
GASNET_SSH_CMD="$work/fake-rsh" GASNET_SSH_SERVERS="$H16" GASNET_SSH_OUT_DEGREE=2 \
    signal_job "SIGKILL to the launcher of a 4-level tree of 16 nodes (fake remote shell): nothing left" \
    KILL 137 sleep 16

if [ $failures -gt 0 ]; then
    echo "$failures check(s) FAILED"
    exit 1
fi
exit 0
