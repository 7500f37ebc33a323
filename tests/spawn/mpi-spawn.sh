#!/usr/bin/env bash
# tests/spawn/mpi-spawn.sh: the mpi and pmi spawners end to end, through
# Open MPI's mpirun (which also serves PMIx to its processes).
#
#   mpi-spawn.sh mpi|pmi      (run from the build tree, or by run-tests)
#
# mpi: the integration programs linked with the mpi spawner
# (tests/spawn/*-mpi); pmi: the plain ones (PMIx is in the main library).
# Checks: 4-process AM and RMA tests; exit codes (gasnet_exit(3) by one
# rank, gasnet_exit(7) by all, a crash, a collective exit 0); a direct
# `mpirun -np 4 prog` without gasnetrun_ibv; -t; SIGINT, SIGTERM and SIGKILL
# to the launcher.  After every job no process carrying the job's tag
# variable (mpirun, its daemons, the ranks) may be left.  One line per
# check; exit 0 if all pass, 77 (SKIP) when the spawner was not built or
# mpirun is missing.
set -u
mode=${1:-}
case $mode in mpi | pmi) ;; *) echo "usage: $0 mpi|pmi" >&2; exit 2 ;; esac
build=${TEST_BUILDDIR:-$(pwd)}
launcher=${TEST_LAUNCHER:-$build/gasnetrun_ibv}
[ -x "$launcher" ] || { echo "FAIL - not built: $launcher"; exit 1; }
if ! "$launcher" -h | grep -q "available: .*\\b$mode\\b"; then
    what="an MPI compiler (mpicc)"
    [ "$mode" = pmi ] && what="the PMIx client library (libpmix-dev)"
    echo "SKIP: the $mode spawner is not built (configure found no $what)"
    exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun in PATH (contrib/install-deps.sh installs openmpi-bin)"; exit 77; }
sfx=
[ "$mode" = mpi ] && sfx=-mpi
dir=$build/tests/integration
[ "$mode" = mpi ] && dir=$build/tests/spawn
sleeper=$build/tests/spawn/attach-time$sfx
if [ ! -x "$sleeper" ]; then
    echo "SKIP: $sleeper is not built (make check builds it when Makefile.am includes tests/spawn/local.mk)"
    exit 77
fi
# The put/get program: tests/spawn/rma-mpi (MPI-linked copy) or
# tests/integration/rma-forms.
rma=rma-forms; [ "$mode" = mpi ] && rma=rma
for p in am-args $rma exitcode; do
    [ -x "$dir/$p$sfx" ] || { echo "FAIL - not built: $dir/$p$sfx"; exit 1; }
done

# Open MPI refuses root without these; 4 processes on 2 cores need
# --oversubscribe.
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export MPIRUN_CMD="mpirun --oversubscribe -np %N %C"
export PMIRUN_CMD="$MPIRUN_CMD"
# MPI stays off the network (the seed README: MPI must not claim the HCA).
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
work=$(mktemp -d "${TMPDIR:-/tmp}/mpi-spawn.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out
failures=0

ok() { echo "ok - $mode: $*"; }
bad() {
    echo "FAIL - $mode: $*"
    failures=$((failures + 1))
    sed 's/^/    /' "$out" | tail -n 25
}
tagged() {
    grep -lzx -- "SPAWNTEST_TAG=$1" /proc/[0-9]*/environ 2>/dev/null |
        sed -e 's#^/proc/##' -e 's#/environ$##' || true
}
leftovers() { # tag
    local i t
    for i in $(seq 1 40); do
        t=$(tagged "$1")
        [ -z "$t" ] && return 0
        sleep 0.25
    done
    echo "leftover processes:"
    for i in $t; do echo "  $i: $(tr '\0' ' ' </proc/"$i"/cmdline 2>/dev/null | cut -c1-100)"; done
    # shellcheck disable=SC2086
    kill -KILL $t 2>/dev/null
    return 1
}
has() { grep -qF -- "$1" "$out"; }
count() { grep -cF -- "$1" "$out"; }

tagn=0
# job NAME EXPECT TIMEOUT -- command...   (EXPECT: a code or !0)
job() {
    local name=$1 expect=$2 tmo=$3
    shift 4
    tagn=$((tagn + 1))
    local tag="mp-$$-$tagn" why=
    env SPAWNTEST_TAG="$tag" timeout -k 5 "$tmo" "$@" >"$out" 2>&1 </dev/null
    code=$?
    case $expect in
    '!0') [ "$code" != 0 ] || why="exit code 0, expected non-zero" ;;
    *) [ "$code" = "$expect" ] || why="exit code $code, expected $expect" ;;
    esac
    [ "$code" = 124 ] && why="timed out after $tmo s"
    if ! leftovers "$tag" >>"$out"; then why="${why:+$why; }processes left after the job"; fi
    [ -z "$why" ] && return 0
    bad "$name: $why"
    return 1
}
L() { echo "$launcher" -spawner="$mode"; }

# shellcheck disable=SC2046
job am-args 0 120 -- $(L) -n 4 "$dir/am-args$sfx" &&
    { has "PASS am-args" && ok "4 ranks: AM request/reply with 0..16 arguments, exit 0" || bad "am-args: no PASS"; }
# shellcheck disable=SC2046
job rma 0 180 -- $(L) -n 4 "$dir/$rma$sfx" &&
    { has "PASS rma" && ok "4 ranks: put/get 1 B..4 MiB, all forms, exit 0" || bad "rma: no PASS"; }
# shellcheck disable=SC2046
job exit3 3 120 -- $(L) -n 4 "$dir/exitcode$sfx" exit3 &&
    ok "rank 3 calls gasnet_exit(3) while the others wait in a barrier: the job exits 3"
# shellcheck disable=SC2046
job all7 7 120 -- $(L) -n 3 "$dir/exitcode$sfx" all7 && ok "every rank calls gasnet_exit(7): exit 7"
# shellcheck disable=SC2046
job crash '!0' 120 -- $(L) -n 4 "$dir/exitcode$sfx" crash && ok "a rank dies of SIGABRT: exit $code"
# shellcheck disable=SC2046
job hello 0 120 -- $(L) -n 4 "$dir/exitcode$sfx" hello &&
    { [ "$(count goodbye-from-rank-)" = 4 ] && ok "collective gasnet_exit(0): every rank's last line, exit 0" ||
        bad "hello: missing goodbye lines"; }
# The exit relay: rank 1 leaves alone with exit code 0 while the others sit
# outside any bootstrap call; only gasnetrun_ibv's relay can reach them (pmi:
# bootstrap-child uses the plugins of the main library).  They must report
# the exit request within the window; the job's code is mpirun's (1 here:
# bootstrap-child's handler _exits without PMIx_Finalize).
child=$build/tests/unit/bootstrap-child
if [ "$mode" = pmi ] && [ -x "$child" ]; then
    # shellcheck disable=SC2046
    job relay '!0' 60 -- $(L) -n 4 "$child" exit0-alone &&
        { [ "$(count "exit request with code 0")" = 3 ] && ! has "FAIL no exit request" &&
            ok "exit relay: rank 1 exits 0 alone, the 3 others get the exit request" ||
            bad "relay: not every other rank got the exit request"; }
fi
job direct 0 120 -- mpirun --oversubscribe -np 4 -x GASNET_IBV_SPAWNER="$mode" "$dir/am-args$sfx" &&
    { has "PASS am-args" && ok "started by mpirun directly (GASNET_IBV_SPAWNER=$mode): exit 0" ||
        bad "direct: no PASS"; }
# shellcheck disable=SC2046
job dryrun 0 30 -- $(L) -t -n 4 -E SPAWNTEST_TAG "$dir/am-args$sfx" &&
    { has "would run: mpirun --oversubscribe -np 4 env GASNET_IBV_SPAWNER=$mode" &&
        has "SPAWNTEST_TAG=" && ok "-t prints the mpirun command with the propagated variables" ||
        bad "dryrun: unexpected command"; }

# Signals to the launcher while 4 ranks sleep after attach.
# shellcheck source=tests/spawn/signal-check.sh
. "$(dirname "$0")/signal-check.sh"
signal_job() { # NAME SIGNAL EXPECT
    tagn=$((tagn + 1))
    local tag="mp-$$-$tagn"
    signal_check "$1" "$2" "$3" 4 "$tag" -- \
        env SPAWNTEST_TAG="$tag" "$launcher" -spawner="$mode" -n 4 "$sleeper" sleep
}
signal_job "SIGINT to the launcher: exit 130, no process left" INT 130
signal_job "SIGTERM to the launcher: exit 143, no process left" TERM 143
signal_job "SIGKILL to the launcher: mpirun and every rank go away" KILL 137

# SIGKILL to mpirun itself (not the launcher): the launcher reports 137 and
# ends; the ranks lose the exit relay and leave; nothing may remain.
mpirun_of() { # TAG: the pid of the tagged mpirun
    local p
    for p in $(tagged "$1"); do
        [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mpirun ] && echo "$p"
    done
}
signal_target=mpirun_of signal_job "SIGKILL to mpirun: exit 137, no rank left" KILL 137

if [ $failures -gt 0 ]; then
    echo "$failures check(s) FAILED"
    exit 1
fi
exit 0
