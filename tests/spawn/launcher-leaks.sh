#!/usr/bin/env bash
# tests/spawn/launcher-leaks.sh: gasnetrun_ibv frees everything it allocates.
#
# Runs jobs through tests/spawn/gasnetrun_ibv-asan (the launcher built with
# AddressSanitizer) with leak detection on: collectives at 4 ranks, a
# rank's exit code, an abort, a collective mismatch, a usage error, and -t
# of the local, ssh and mpi spawners, a pmi job (exit relay).  Each must end with its usual code and
# no LeakSanitizer report.  One line per check; exit 0 if all pass, 77 (SKIP)
# when the ASan launcher was not built.
set -u
build=${TEST_BUILDDIR:-$(pwd)}
asan=$build/tests/spawn/gasnetrun_ibv-asan
child=$build/tests/unit/bootstrap-child
[ -x "$asan" ] || { echo "SKIP: $asan is not built (make check builds it)"; exit 77; }
[ -x "$child" ] || { echo "SKIP: $child is not built (make check builds it)"; exit 77; }
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export GASNET_IBV_SPAWNER=local
failed=0
check() { # check EXPECTED_CODE TITLE [VAR=value ...] -- ARGS...
    local want=$1 title=$2 out rc
    shift 2
    local env=()
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    out=$(env ${env[@]+"${env[@]}"} timeout 60 "$asan" "$@" 2>&1)
    rc=$?
    if [ $rc -eq "$want" ] && ! grep -q "LeakSanitizer\|AddressSanitizer" <<<"$out"; then
        echo "ok - $title (exit $rc, no leak)"
    else
        echo "FAIL - $title (exit $rc, expected $want)"
        echo "$out" | head -n 40
        failed=1
    fi
}
check 0 "4 ranks, collectives" -- -n 4 "$child" coll
check 3 "rank 1 exits 3" -- -n 4 "$child" exit3
check 7 "abort(7)" -- -n 4 "$child" abort
check 1 "collective mismatch" -- -n 3 "$child" mismatch
check 9 "exit status 9 after EXIT(0)" -- -n 2 "$child" exit0-then9
check 2 "usage error (-n twice)" -- -n 2 -n 3 "$child"
check 0 "-t local" -- -t -n 4 "$child"
check 0 "-t ssh (SLURM_JOB_NODELIST)" SLURM_JOB_ID=1 SLURM_JOB_NODELIST=a,b -- -spawner=ssh -t -n 4 "$child"
if "$asan" -h | grep -q "available: .*\bmpi\b"; then
    check 0 "-t mpi (SLURM_JOB_NODELIST)" SLURM_JOB_ID=1 SLURM_JOB_NODELIST=a,b -- -spawner=mpi -t -n 4 "$child"
fi
if "$asan" -h | grep -q "available: .*\bpmi\b" && command -v mpirun >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PMIRUN_CMD="mpirun --oversubscribe -np %N %C" OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
    check 0 "pmi job through the exit relay" -- -spawner=pmi -n 2 "$child" coll
fi
[ $failed = 0 ] && echo PASS || echo FAIL
exit $failed
